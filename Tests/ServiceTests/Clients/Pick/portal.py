# A stand-in for the desktop's file chooser portal: owns org.freedesktop.portal.Desktop and answers
# FileChooser.OpenFile with a Request handle (/org/freedesktop/portal/desktop/request/SENDER/TOKEN,
# as the portal makes it), then Response(0, {uris}) on it, as if the user chose FILES. It records
# the call's title and options (JSON) in RECORD. argv: bus address, RECORD, FILES (comma-separated).
import sys, json, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
record, files = sys.argv[2], sys.argv[3].split(',')

class Request(dbus.service.Object):
    @dbus.service.signal('org.freedesktop.portal.Request', signature='ua{sv}')
    def Response(self, code, results):
        pass

class Portal(dbus.service.Object):
    @dbus.service.method('org.freedesktop.portal.FileChooser', in_signature='ssa{sv}', out_signature='o', sender_keyword='sender')
    def OpenFile(self, parent, title, options, sender=None):
        def plain(v):
            if isinstance(v, (dbus.Array, list)): return [plain(x) for x in v]
            if isinstance(v, (dbus.Struct, tuple)): return [plain(x) for x in v]
            if isinstance(v, dbus.Boolean): return bool(v)
            if isinstance(v, (dbus.UInt32, dbus.Int32)): return int(v)
            return str(v)
        json.dump({'title': str(title), 'options': {str(k): plain(v) for k, v in options.items()}}, open(record, 'w'))
        path = '/org/freedesktop/portal/desktop/request/%s/%s' % (sender[1:].replace('.', '_'), options['handle_token'])
        req = Request(bus, path)
        GLib.timeout_add(200, lambda: req.Response(dbus.UInt32(0), {'uris': dbus.Array(['file://' + f for f in files], signature='s')}) and False)
        return dbus.ObjectPath(path)

portal = Portal(bus, '/org/freedesktop/portal/desktop')
name = dbus.service.BusName('org.freedesktop.portal.Desktop', bus)
GLib.MainLoop().run()
