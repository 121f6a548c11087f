# The slow app: owns org.example.Slow, counts each Open in argv[2] and never answers it;
# writes argv[2].ready when it is on the bus. argv: bus address, record file.
import sys, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
held = []
class App(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='', async_callbacks=('ok', 'err'))
    def Open(self, uris, platform_data, ok, err):
        held.append(ok)
        with open(sys.argv[2], 'a') as f: f.write('open\n')
App(bus, '/org/example/Slow')
name = dbus.service.BusName('org.example.Slow', bus)
with open(sys.argv[2] + '.ready', 'w') as f: f.write('ready')
GLib.MainLoop().run()
