# A D-Bus activatable org.example.Answer whose Open replies at once with its platform data's
# token and {'opened': the URL}. argv: bus address. env: SB_NAME, SB_PATH.
import os, sys, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
class App(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='')
    def Open(self, uris, platform):
        token = str(platform['reply-token'])
        GLib.idle_add(lambda: dbus.Interface(bus.get_object(N, O), N).Reply(token, dbus.UInt32(0), {'opened': str(uris[0])}) and False)
name = dbus.service.BusName('org.example.Answer', bus)
App(bus, '/org/example/Answer')
GLib.MainLoop().run()
