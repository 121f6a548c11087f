#!/usr/bin/python3
"""A notification server for tests: owns org.freedesktop.Notifications on the bus in
DBUS_SESSION_BUS_ADDRESS and implements the Desktop Notifications Specification's methods
(GetServerInformation, GetCapabilities with actions and body-markup, Notify, CloseNotification),
recording each call as one JSON line in the file argv[1] (Notify with the caller's unique name).
A test answers a notification as a user would click one of its buttons through
org.schemebridge.test.NotificationServer.Invoke(u id, s action_key) on the same object: the
server emits ActionInvoked, then closes the notification (NotificationClosed, reason 2) as
notification-daemon does. Prints "ready" on stdout once it owns the name.

A real program on a real bus (python3-dbus, Debian's), not a stand-in for SchemeBridge's own
code: none of Debian's notification daemons can be driven to press a button without a screen."""
import json
import os
import sys
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import variants

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
TEST = "org.schemebridge.test.NotificationServer"


class Server(dbus.service.Object):
    def __init__(self, bus, log):
        super().__init__(bus, PATH)
        self.log = log
        self.next_id = 1
        self.open = set()

    def record(self, entry):
        with open(self.log, "a") as f:
            f.write(json.dumps(entry) + "\n")

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("test-notifications", "SchemeBridge tests", "1", "1.2")

    @dbus.service.method(NAME, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body", "body-markup"]

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u", sender_keyword="sender")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout, sender=None):
        nid = int(replaces_id) if replaces_id and int(replaces_id) in self.open else self.next_id
        if nid == self.next_id:
            self.next_id += 1
        self.open.add(nid)
        self.record({"call": "Notify", "id": nid, "sender": str(sender), "app_name": str(app_name), "replaces_id": int(replaces_id),
                     "app_icon": str(app_icon), "summary": str(summary), "body": str(body), "actions": [str(a) for a in actions],
                     "hints": sorted(str(k) for k in hints.keys()), "expire_timeout": int(expire_timeout),
                     # Each hint's type as the server reads it, and how deep in variants it is (1: the a{sv}'s own):
                     # a strict server (mako, through sd-bus) refuses a hint in a variant inside a variant.
                     "hint_types": variants.types_and_depths(hints)})
        return dbus.UInt32(nid)

    @dbus.service.method(NAME, in_signature="u", out_signature="", sender_keyword="sender")
    def CloseNotification(self, nid, sender=None):
        self.record({"call": "CloseNotification", "id": int(nid), "sender": str(sender)})
        if int(nid) in self.open:
            self.open.discard(int(nid))
            self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(3))

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, nid, action_key):
        pass

    @dbus.service.signal(NAME, signature="uu")
    def NotificationClosed(self, nid, reason):
        pass

    @dbus.service.method(TEST, in_signature="us", out_signature="b")
    def Invoke(self, nid, action_key):
        if int(nid) not in self.open:
            return False
        self.record({"call": "Invoke", "id": int(nid), "action": str(action_key)})
        self.ActionInvoked(dbus.UInt32(nid), action_key)
        self.open.discard(int(nid))
        self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(2))
        return True


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    server = Server(bus, sys.argv[1])
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    print("ready", flush=True)
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    loop.run()
    del name, server


if __name__ == "__main__":
    main()
