# An app that picks: PickDocument(types, options), then prints the one Response as JSON: code,
# names, types, provider, activation-token, and for each descriptor its bytes (hex, and saved to
# OUT/<i>.bin), whether it could be written to, and — after the gate file appears, when one is
# given — whether it still reads the same. argv: bus address, types (comma-separated, '' for
# none), options as JSON, output directory, gate file ('' for none), close gate ('' for none:
# when it appears, the picker calls Close()). env: SB_NAME, SB_PATH, SB_REQUEST.
import sys, os, json, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
N, O, REQUEST = os.environ['SB_NAME'], os.environ['SB_PATH'], os.environ['SB_REQUEST']
bus = dbus.bus.BusConnection(sys.argv[1])
svc = dbus.Interface(bus.get_object(N, O), N)
types = [t for t in sys.argv[2].split(',') if t]
options = {}
for k, v in json.loads(sys.argv[3]).items():
    options[k] = dbus.Boolean(v) if isinstance(v, bool) else dbus.String(v)
out, gate, close_gate = sys.argv[4], sys.argv[5], sys.argv[6]
got = []
loop = GLib.MainLoop()

def read_all(fd):
    data = b''
    while True:
        chunk = os.pread(fd, 1 << 20, len(data))
        if not chunk:
            return data
        data += chunk

def on_response(code, results, path=None):
    r = {'code': int(code), 'from': str(path)}
    for k, v in results.items():
        if k == 'fds':
            docs = []
            for i, fd in enumerate(v):
                n = fd.take()
                data = read_all(n)
                open(os.path.join(out, '%d.bin' % i), 'wb').write(data)
                try:
                    os.pwrite(n, b'changed', 0); writable = True
                except OSError:
                    writable = False
                try:   # reopened for writing (a sealed memfd opens, but takes no write)
                    w = os.open('/proc/self/fd/%d' % n, os.O_WRONLY)
                    try:
                        os.write(w, b'changed'); reopenable = True
                    finally:
                        os.close(w)
                except OSError:
                    reopenable = False
                docs.append({'fd': n, 'size': len(data), 'hex': data[:64].hex(), 'writable': writable, 'reopenable': reopenable})
            r['docs'] = docs
        elif isinstance(v, dbus.Array):
            r[str(k)] = [str(x) for x in v]
        else:
            r[str(k)] = str(v)
    got.append(r)
    GLib.timeout_add(300, finish)

def finish():
    if gate:
        if not os.path.exists(gate):
            return True
        for d in got[0].get('docs', []):
            again = read_all(d['fd'])
            d['same-after'] = len(again) == d['size'] and again[:64].hex() == d['hex']
    loop.quit()
    return False

bus.add_signal_receiver(on_response, 'Response', REQUEST, path_keyword='path')
try:
    path = svc.PickDocument(types, options, timeout=300)
except dbus.DBusException as e:
    print(json.dumps({'error': e.get_dbus_name(), 'message': str(e)})); sys.exit(0)
if close_gate:
    def poll():
        if os.path.exists(close_gate):
            dbus.Interface(bus.get_object(N, path), REQUEST).Close(); return False
        return True
    GLib.timeout_add(50, poll)
loop.run()
print(json.dumps({'path': str(path), 'responses': got}))
