# org.example.Slow: its Open touches argv[2], then returns only once argv[3] exists (or its folder is gone).
# argv: bus address, started file, gate file.
import os, sys, time, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
class App(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='')
    def Open(self, uris, platform):
        open(sys.argv[2], 'w').close()
        while not os.path.exists(sys.argv[3]) and os.path.isdir(os.path.dirname(sys.argv[3])):
            time.sleep(0.05)
name = dbus.service.BusName('org.example.Slow', bus)
App(bus, '/org/example/Slow')
GLib.MainLoop().run()
