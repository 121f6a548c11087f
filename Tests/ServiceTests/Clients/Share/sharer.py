# A sharing app: Share(items, options), then prints the one Response (code and results as JSON), or
# the error name. argv: bus address, items as JSON, options as JSON. Items: {"file": path} (opened
# read-only and sent as h; a FIFO is opened non-blocking), {"text": s} (text/plain bytes),
# {"url": s}, {"type": t, "bytes": n} (n zero bytes sent as an h of a sealed-less temp file),
# {"socket": 1} (a connected socket as a file item), {"type": t, "data": s}, {"url": s, "both": s} (a URL and data in one item: invalid); "name" is passed on. Options: target, ask, activation-token (strings/bools).
# {"repeat": n, "item": {...}} repeats an item n times. env: SB_NAME, SB_PATH, SB_REQUEST.
import sys, os, json, socket, tempfile, stat, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
N, O, REQUEST = os.environ['SB_NAME'], os.environ['SB_PATH'], os.environ['SB_REQUEST']
bus = dbus.bus.BusConnection(sys.argv[1])
share = dbus.Interface(bus.get_object(N, O), 'io.github.schemebridge.Share1')

kept = []   # sockets stay open until the call is made
def item(spec):
    out = {}
    if 'socket' in spec:
        pair = socket.socketpair()
        kept.append(pair)
        out['file'] = dbus.types.UnixFd(pair[0].fileno())
    elif 'file' in spec:
        mode = os.stat(spec['file']).st_mode
        flags = os.O_RDONLY | (os.O_NONBLOCK if stat.S_ISFIFO(mode) else 0)
        out['file'] = dbus.types.UnixFd(os.open(spec['file'], flags))
    elif 'text' in spec:
        out['type'], out['data'] = 'text/plain', dbus.ByteArray(spec['text'].encode())
    elif 'url' in spec:
        out['url'] = spec['url']
        if 'both' in spec: out['type'], out['data'] = 'text/plain', dbus.ByteArray(spec['both'].encode())
    elif 'bytes' in spec:
        f = tempfile.TemporaryFile()
        f.truncate(spec['bytes'])
        out['type'], out['data'] = spec['type'], dbus.types.UnixFd(f.fileno())
    else:
        out['type'], out['data'] = spec['type'], dbus.ByteArray(spec['data'].encode())
    if 'name' in spec: out['name'] = spec['name']
    return dbus.Dictionary(out, signature='sv')

items = []
for spec in json.loads(sys.argv[2]):
    items += [item(spec['item']) for _ in range(spec['repeat'])] if 'repeat' in spec else [item(spec)]
options = dbus.Dictionary(json.loads(sys.argv[3]), signature='sv')
got = []
loop = GLib.MainLoop()
def on_response(code, results, path=None):
    got.append((int(code), {str(k): str(v) for k, v in results.items()}, str(path)))
    GLib.timeout_add(300, loop.quit)   # wait a little for a second (forbidden) response
bus.add_signal_receiver(on_response, 'Response', REQUEST, path_keyword='path')
try:
    path = share.Share(dbus.Array(items, signature='a{sv}'), options, timeout=300)
except dbus.DBusException as e:
    print(json.dumps({'error': e.get_dbus_name(), 'message': str(e)})); sys.exit(0)
loop.run()
print(json.dumps({'path': str(path), 'responses': [{'code': c, 'results': r, 'from': p} for c, r, p in got]}))
