"""The caller's window and its activation token: the request's ``parent-window`` (``x11:XID`` in
hexadecimal as portals write it, or ``wayland:HANDLE`` exported with xdg-foreign) and
``activation-token``.

``parse`` is pure (unit-tested). The rest calls GTK 3 where PyGObject cannot: Debian 12 ships no
``GdkWayland-3.0`` typelib, so ``gdk_wayland_window_set_transient_for_exported`` and
``gdk_wayland_display_set_startup_notification_id`` are called in libgdk-3 through ctypes, on
the C pointer of the PyGObject wrapper.
"""

import os
import sys

MAX_XID = 0x1FFFFFFF
MAX_HANDLE = 256


def parse(text):
    """(``"x11"``, XID) or (``"wayland"``, HANDLE) for a well-formed `text`; None for ``""`` or
    anything else (the service checks the option; a hand-made request may still hold junk)."""
    kind, sep, value = (text or "").partition(":")
    if not sep or not value:
        return None
    if kind == "x11":
        digits = value[2:] if value[:2].lower() == "0x" else value
        if not digits or len(digits) > 8 or any(c not in "0123456789abcdefABCDEF" for c in digits):
            return None
        xid = int(digits, 16)
        return ("x11", xid) if 0 < xid <= MAX_XID else None
    if kind == "wayland":
        if len(value) > MAX_HANDLE or any(not (0x20 < ord(c) < 0x7F) for c in value):
            return None
        return ("wayland", value)
    return None


def note(text):
    """A line for the service's log (the dialog's stderr)."""
    sys.stderr.write("schemebridge-dialog: %s\n" % text)
    sys.stderr.flush()


def gtype_name(obj):
    try:
        return obj.__gtype__.name
    except AttributeError:
        return ""


_gdk = None


def _libgdk():
    global _gdk
    import ctypes  # only on Wayland: its import is a cold start's few milliseconds
    if _gdk is None:
        _gdk = ctypes.CDLL("libgdk-3.so.0")
        _gdk.gdk_wayland_window_set_transient_for_exported.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        _gdk.gdk_wayland_window_set_transient_for_exported.restype = ctypes.c_int
        _gdk.gdk_wayland_display_set_startup_notification_id.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        _gdk.gdk_wayland_display_set_startup_notification_id.restype = None
    return _gdk


def _pointer(obj):
    """The C pointer a PyGObject wrapper holds (its ``__gpointer__`` capsule)."""
    import ctypes
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(obj.__gpointer__, None)


def attach(window, text):
    """Makes the realized GTK 3 `window` transient for the caller's window `text`. Returns what
    was done, for the log: ``"x11"``, ``"wayland"``, or why not (a handle that does not fit the
    display, a window that is gone: the dialog still shows, centred, never fails for it)."""
    parsed = parse(text)
    if parsed is None:
        return "not a parent window: %r" % text[:80]
    kind, value = parsed
    gdk_window = window.get_window()
    display = window.get_display()
    backend = gtype_name(display)
    if kind == "x11":
        if backend != "GdkX11Display":
            return "an X11 parent on a %s display" % (backend or "non-X11")
        import gi
        gi.require_version("GdkX11", "3.0")
        from gi.repository import GdkX11
        try:
            foreign = GdkX11.X11Window.foreign_new_for_display(display, value)
        except TypeError:  # PyGObject: "constructor returned NULL"
            foreign = None
        if foreign is None:
            return "X11 window 0x%x does not exist" % value
        gdk_window.set_transient_for(foreign)
        return "x11"
    if backend != "GdkWaylandDisplay":
        return "a Wayland parent on a %s display" % (backend or "non-Wayland")
    if not _libgdk().gdk_wayland_window_set_transient_for_exported(_pointer(gdk_window), value.encode("ascii")):
        return "the compositor has no xdg-foreign importer"
    return "wayland"


def set_wayland_startup_id(display, token):
    """Hands `token` to GDK as the display's startup notification id: the next focus request
    (``present()``, ``Gdk.Window.focus``) activates with it (``xdg_activation_v1``). For a dialog
    started ahead, whose display was opened before the token existed. False when not on Wayland."""
    if gtype_name(display) != "GdkWaylandDisplay" or not token:
        return False
    _libgdk().gdk_wayland_display_set_startup_notification_id(_pointer(display), token.encode("utf-8", "replace"))
    return True


def x11_startup_id(window, ident, event_time):
    """A startup id (the startup-notification spec's form, ``…_TIME<time>``) for the launch of
    `ident`, made from `event_time`, the X server time of the click or key press that chose (the
    server's current time when the event had none): a window manager lets the new window take the
    focus unless the user did something after that time."""
    if not event_time:
        import gi
        gi.require_version("GdkX11", "3.0")
        from gi.repository import GdkX11
        event_time = GdkX11.x11_get_server_time(window.get_window())
    app = "".join(c if c.isalnum() or c in "._" else "_" for c in ident.split(":", 1)[0])[:64] or "app"
    host = "".join(c if c.isalnum() or c in ".-" else "_" for c in os.uname().nodename)[:64]
    global _sequence
    _sequence += 1
    return "schemebridge-dialog-%d-%s-%s-%d_TIME%d" % (os.getpid(), host, app, _sequence, event_time)


_sequence = 0


def wayland_launch_token(window, name):
    """A token from the compositor (``xdg_activation_v1.get_activation_token``, with the
    dialog's surface and the seat's last serial) for the app about to be launched: GDK's
    launch context asks for it. None when the compositor has no xdg-activation."""
    from gi.repository import Gio
    context = window.get_display().get_app_launch_context()
    info = Gio.AppInfo.create_from_commandline("true", name or "app", Gio.AppInfoCreateFlags.NONE)
    return context.get_startup_notify_id(info, []) or None
