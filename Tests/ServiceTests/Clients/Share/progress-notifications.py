# A notification server for a device share's progress: owns org.freedesktop.Notifications and
# appends each Notify (id, summary, body, actions, the "value" hint, each hint's type and variant depth as
# "hint_types") and CloseNotification ({"closed": id})
# to a log as a JSON line;
# with "cancel" as argv[3], it answers the first notification offering a "cancel" action as a
# user clicking it would (ActionInvoked(id, "cancel"), after the Notify reply).
# argv: bus address, log file[, cancel].
import os, sys, json, dbus, dbus.service
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import variants
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
click = len(sys.argv) > 3 and sys.argv[3] == 'cancel'
class Server(dbus.service.Object):
    last = 0
    clicked = False
    @dbus.service.method('org.freedesktop.Notifications', in_signature='susssasa{sv}i', out_signature='u')
    def Notify(self, app, rid, icon, summary, body, actions, hints, timeout):
        if rid == 0:
            Server.last += 1
            rid = Server.last
        value = int(hints['value']) if 'value' in hints else None
        with open(sys.argv[2], 'a') as f:
            f.write(json.dumps({'id': int(rid), 'summary': str(summary), 'body': str(body),
                                'actions': [str(a) for a in actions], 'value': value,
                                'hint_types': variants.types_and_depths(hints)}) + '\n')
        if click and not Server.clicked and 'cancel' in [str(a) for a in actions]:
            Server.clicked = True
            GLib.idle_add(lambda: self.ActionInvoked(dbus.UInt32(rid), 'cancel') and False)
        return dbus.UInt32(rid)
    @dbus.service.method('org.freedesktop.Notifications', in_signature='u', out_signature='')
    def CloseNotification(self, nid):
        with open(sys.argv[2], 'a') as f:
            f.write(json.dumps({'closed': int(nid)}) + '\n')
    @dbus.service.signal('org.freedesktop.Notifications', signature='us')
    def ActionInvoked(self, nid, key):
        pass
name = dbus.service.BusName('org.freedesktop.Notifications', bus)
Server(bus, '/org/freedesktop/Notifications')
GLib.MainLoop().run()
