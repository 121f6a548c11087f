# A fake app that owns org.example.Activatable and records its Open call (URIs and platform
# data) as JSON in argv[2] (written whole, then renamed: a test waits for the name).
# argv: bus address, record file.
import sys, os, json, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
class App(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='')
    def Open(self, uris, platform):
        with open(sys.argv[2] + '.tmp', 'w') as f:
            json.dump({'uris': [str(u) for u in uris], 'platform': {str(k): str(v) for k, v in platform.items()}}, f)
        os.replace(sys.argv[2] + '.tmp', sys.argv[2])
name = dbus.service.BusName('org.example.Activatable', bus)
App(bus, '/org/example/Activatable')
GLib.MainLoop().run()
