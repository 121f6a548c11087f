# A caller: OpenURLWithReply(url, options), then prints the one Response (code and the results as
# JSON), or the error name. argv: bus address, URL, timeout option ('' for none), gate file ('' for
# none: when it appears, the caller calls Close()). env: SB_NAME, SB_PATH, SB_REQUEST; SB_ACTIVATION_TOKEN
# (optional): the activation-token option.
import sys, os, json, time, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
N, O, REQUEST = os.environ['SB_NAME'], os.environ['SB_PATH'], os.environ['SB_REQUEST']
bus = dbus.bus.BusConnection(sys.argv[1])
svc = dbus.Interface(bus.get_object(N, O), N)
options = {'timeout': dbus.UInt32(int(sys.argv[3]))} if sys.argv[3] else {}
if os.environ.get('SB_ACTIVATION_TOKEN'):
    options['activation-token'] = os.environ['SB_ACTIVATION_TOKEN']
got = []
loop = GLib.MainLoop()
def on_response(code, results, path=None):
    got.append((int(code), {str(k): str(v) for k, v in results.items()}, str(path)))
    GLib.timeout_add(300, loop.quit)   # wait a little for a second (forbidden) response
bus.add_signal_receiver(on_response, 'Response', REQUEST, path_keyword='path')
try:
    path = svc.OpenURLWithReply(sys.argv[2], options, timeout=300)
except dbus.DBusException as e:
    print(json.dumps({'error': e.get_dbus_name(), 'message': str(e)})); sys.exit(0)
gate = sys.argv[4]
if gate:
    def poll():
        if os.path.exists(gate):
            dbus.Interface(bus.get_object(N, path), REQUEST).Close(); return False
        return True
    GLib.timeout_add(50, poll)
loop.run()
print(json.dumps({'path': str(path), 'responses': [{'code': c, 'results': r, 'from': p} for c, r, p in got]}))
