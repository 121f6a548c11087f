# A notification server: owns org.freedesktop.Notifications and appends each Notify call
# (app, summary, image-path hint) to a log as a JSON line. argv: bus address, log file.
import sys, json, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
class Server(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Notifications', in_signature='susssasa{sv}i', out_signature='u')
    def Notify(self, app, rid, icon, summary, body, actions, hints, timeout):
        with open(sys.argv[2], 'a') as f:
            f.write(json.dumps({'app': str(app), 'summary': str(summary), 'image': str(hints.get('image-path', ''))}) + '\n')
        return 7
name = dbus.service.BusName('org.freedesktop.Notifications', bus)
Server(bus, '/org/freedesktop/Notifications')
GLib.MainLoop().run()
