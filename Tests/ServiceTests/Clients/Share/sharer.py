# A sharing app: Share(items, options), then prints the one Response (code and results as JSON), or
# the error name. argv: bus address, items as JSON, options as JSON. Items: {"file": path} (opened
# read-only and sent as h; a FIFO is opened non-blocking), {"text": s} (text/plain bytes),
# {"url": s}, {"file": path, "open": "write-only"|"path"} (opened so: a descriptor that does not allow reading), {"type": t, "bytes": n} (n zero bytes sent as an h of a sealed-less temp file),
# {"socket": 1} (a connected socket as a file item), {"memfd": path} (a memfd holding that file's bytes, as a file item), {"type": t, "data": s}, {"url": s, "both": s} (a URL and data in one item: invalid); "name" is passed on. Options: target, ask, activation-token (strings/bools).
# {"repeat": n, "item": {...}} repeats an item n times. env: SB_NAME, SB_PATH, SB_REQUEST;
# SB_FOLLOW_TRANSFER=1: after the Response, wait for the share's TransferEnded signal too (printed as
# "ended"); "overheard" counts the TransferEnded signals a second connection listening for them got.
import sys, os, json, socket, tempfile, stat, dbus
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from request import Request
from gi.repository import GLib
request = Request(sys.argv[1])
share = request.service('io.github.schemebridge.Share1')

kept = []   # sockets stay open until the call is made
def item(spec):
    out = {}
    if 'socket' in spec:
        pair = socket.socketpair()
        kept.append(pair)
        out['file'] = dbus.types.UnixFd(pair[0].fileno())
    elif 'memfd' in spec:
        fd = os.memfd_create(os.path.basename(spec['memfd']))
        with open(spec['memfd'], 'rb') as source, open(fd, 'wb', closefd=False) as copy:
            copy.write(source.read())
        os.lseek(fd, 0, os.SEEK_SET)
        out['file'] = dbus.types.UnixFd(fd)
    elif 'file' in spec:
        mode = os.stat(spec['file']).st_mode
        flags = os.O_RDONLY | (os.O_NONBLOCK if stat.S_ISFIFO(mode) else 0)
        flags = {'write-only': os.O_WRONLY, 'path': os.O_PATH}.get(spec.get('open'), flags)
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
follow = os.environ.get('SB_FOLLOW_TRANSFER') == '1'
ended, overheard = [], []
if follow:
    def on_ended(request_path, delivery, details):
        ended.append({'request': str(request_path), 'delivery': str(delivery), 'details': {str(k): str(v) for k, v in details.items()}})
    request.bus.add_signal_receiver(on_ended, 'TransferEnded', 'io.github.schemebridge.Share1')
    observer = dbus.bus.BusConnection(sys.argv[1])
    observer.add_signal_receiver(lambda *a: overheard.append(1), 'TransferEnded', 'io.github.schemebridge.Share1')
request.run(lambda: share.Share(dbus.Array(items, signature='a{sv}'), options, timeout=300),
            finished=(lambda: len(ended) > 0) if follow else None)
if not follow:
    request.print_outcome(); sys.exit(0)
# The service sends to the observer in order: had the signal been broadcast, it would be queued
# before the answer to this Ping; one turn of the loop dispatches what is queued.
dbus.Interface(observer.get_object(os.environ['SB_NAME'], os.environ['SB_PATH']), 'org.freedesktop.DBus.Peer').Ping()
GLib.timeout_add(100, request.loop.quit)
request.loop.run()
print(json.dumps({'path': str(request.path), 'responses': request.responses, 'ended': ended, 'overheard': len(overheard)}))
