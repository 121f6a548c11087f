# The D-Bus side of a running single-instance app (org.example.Notes, DBusActivatable): its
# org.freedesktop.Application.Open hands the activation-token of platform_data (an empty line
# without one) to its window (wl-activation window) through the FIFO argv[2], as GtkApplication
# hands it to GDK. argv: bus address, FIFO. Prints "ready" once it owns its name.
import sys, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
class App(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='')
    def Open(self, uris, platform):
        with open(sys.argv[2], 'w') as fifo:
            fifo.write(str(platform.get('activation-token', '')) + '\n')
name = dbus.service.BusName('org.example.Notes', bus)
App(bus, '/org/example/Notes')
print('ready', flush=True)
GLib.MainLoop().run()
