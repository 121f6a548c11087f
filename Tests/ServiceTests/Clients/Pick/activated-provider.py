# A DBusActivatable provider, org.example.Scans: on org.freedesktop.Application.Activate it records
# its platform_data (JSON) in RECORD and answers the pick token found there with FILE
# (mode "answer"), or leaves the bus without answering (mode "leave").
# argv: bus address, RECORD, mode, FILE.
import sys, os, json, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
record, mode, path = sys.argv[2], sys.argv[3], sys.argv[4]
N, O = 'io.github.schemebridge.SchemeBridge1', '/io/github/schemebridge/SchemeBridge1'

class App(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Application', in_signature='a{sv}', out_signature='')
    def Activate(self, platform):
        json.dump({str(k): str(v) for k, v in platform.items()}, open(record, 'w'))
        token = str(platform.get('pick-token', ''))
        def answer():
            if mode == 'leave':
                os._exit(0)
            svc = dbus.Interface(bus.get_object(N, O), N)
            svc.ProvideDocuments(token, [dbus.types.UnixFd(os.open(path, os.O_RDONLY))], {'names': ['from-service.png']})
            return False
        GLib.idle_add(answer)

name = dbus.service.BusName('org.example.Scans', bus)
App(bus, '/org/example/Scans')
GLib.MainLoop().run()
