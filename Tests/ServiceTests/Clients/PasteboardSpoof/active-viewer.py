# The D-Bus activatable viewer org.example.ActiveViewer: answers Open at once, and once the gate
# opens reads the pasteboard by name and by platform_data's pasteboard-path into records/active.json.
# argv: bus address, pb module folder, gate file, gate folder, records folder.
import sys, os, json, urllib.parse
sys.dont_write_bytecode = True  # read_both is imported from the source tree
address, module, gate, gates, records = sys.argv[1:6]
sys.path[0:0] = [module, os.path.dirname(os.path.abspath(__file__))]
os.environ['SB_BUS'] = address
import dbus, dbus.service
from pb import *
from read_both import by_name, by_path
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
b = dbus.bus.BusConnection(address)
def later(url, path):
    if not os.path.exists(gate) and os.path.isdir(gates): return True
    out = {'name': by_name(b, urllib.parse.urlsplit(url).fragment), 'path': by_path(b, path)}
    open(records + '/active.tmp', 'w').write(json.dumps(out))
    os.rename(records + '/active.tmp', records + '/active.json')
    return False
class App(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='')
    def Open(self, uris, platform):
        GLib.timeout_add(100, later, str(uris[0]), str(platform.get('pasteboard-path', '')))
name = dbus.service.BusName('org.example.ActiveViewer', b)
App(b, '/org/example/ActiveViewer')
GLib.MainLoop().run()
