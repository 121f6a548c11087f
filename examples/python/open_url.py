#!/usr/bin/python3
"""open_url.py URL [FILE]: SchemeBridge from Python with PyGObject (python3-gi), no generated code.

The proxy is typed by the shipped introspection XML (dbus/io.github.schemebridge.SchemeBridge1.xml,
installed in $datadir/dbus-1/interfaces), so GDBus checks every call's arguments against it.
Asks whether URL can be opened, opens it (returns once its handler has started) and, with FILE,
asks the content type of that file by passing its descriptor in a Gio.UnixFDList.
Exit status as schemebridge open: 0 opened, 1 malformed URL, 3 no handler or no service, 4 other.
"""
import os
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

NAME = "io.github.schemebridge.SchemeBridge1"
PATH = "/io/github/schemebridge/SchemeBridge1"
ERROR = NAME + ".Error."
HERE = os.path.dirname(os.path.abspath(__file__))
XML_PLACES = [os.path.join(HERE, "..", "..", "dbus", NAME + ".xml"),
              "/usr/share/dbus-1/interfaces/" + NAME + ".xml",
              "/usr/local/share/dbus-1/interfaces/" + NAME + ".xml"]


def status_for(error):
    """The exit status for a GLib.Error from a D-Bus call, as schemebridge maps the names."""
    name = Gio.DBusError.get_remote_error(error) or ""
    if name == ERROR + "InvalidURL":
        return 1
    if name in (ERROR + "NoHandler", ERROR + "ReservedScheme", "org.freedesktop.DBus.Error.ServiceUnknown"):
        return 3
    return 4


def main(argv):
    if len(argv) not in (2, 3):
        print(f"usage: {argv[0]} URL [FILE]", file=sys.stderr)
        return 1
    url = argv[1]
    xml = next(p for p in XML_PLACES if os.path.exists(p))
    with open(xml, encoding="utf-8") as f:
        info = Gio.DBusNodeInfo.new_for_xml(f.read()).lookup_interface(NAME)
    try:
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        proxy = Gio.DBusProxy.new_sync(bus, Gio.DBusProxyFlags.DO_NOT_LOAD_PROPERTIES, info, NAME, PATH, NAME, None)
        (can_open,) = proxy.call_sync("CanOpenURL", GLib.Variant("(s)", (url,)), Gio.DBusCallFlags.NONE, -1, None).unpack()
        print(f"can open {url}: {'yes' if can_open else 'no'}")
        proxy.call_sync("OpenURL", GLib.Variant("(s)", (url,)), Gio.DBusCallFlags.NONE, -1, None)
        print(f"opened {url}")
        if len(argv) == 3:
            fd = os.open(argv[2], os.O_RDONLY | os.O_CLOEXEC)
            fds = Gio.UnixFDList.new_from_array([fd])  # takes the descriptor; "h" is its index
            name = os.path.basename(argv[2])
            reply, _ = proxy.call_with_unix_fd_list_sync("ContentTypeForFile", GLib.Variant("(hs)", (0, name)),
                                                         Gio.DBusCallFlags.NONE, -1, fds, None)
            print(f"type of {name}: {reply.unpack()[0]}")
    except GLib.Error as error:
        status = status_for(error)
        remote = Gio.DBusError.get_remote_error(error) or "no D-Bus error name"
        message = error.message.split(": ", 1)[-1] if error.message.startswith("GDBus.Error:") else error.message
        print(f"open_url.py: {message} ({remote})", file=sys.stderr)
        return status
    except FileNotFoundError as error:
        print(f"open_url.py: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
