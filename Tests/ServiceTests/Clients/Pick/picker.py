# An app that picks: PickDocument(types, options), then prints the one Response as JSON: code,
# names, types, provider, activation-token, and for each descriptor its bytes (hex, and saved to
# OUT/<i>.bin), whether it could be written to, and — after the gate file appears, when one is
# given — whether it still reads the same. argv: bus address, types (comma-separated, '' for
# none), options as JSON, output directory, gate file ('' for none), close gate ('' for none:
# when it appears, the picker calls Close()). env: SB_NAME, SB_PATH, SB_REQUEST.
import sys, os, json, dbus
sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from request import Request
request = Request(sys.argv[1])
svc = request.service()
types = [t for t in sys.argv[2].split(',') if t]
options = {}
for k, v in json.loads(sys.argv[3]).items():
    options[k] = dbus.Boolean(v) if isinstance(v, bool) else dbus.String(v)
out, gate, close_gate = sys.argv[4], sys.argv[5], sys.argv[6]

def read_all(fd):
    data = b''
    while True:
        chunk = os.pread(fd, 1 << 20, len(data))
        if not chunk:
            return data
        data += chunk

def response(code, results, path):
    r = {'code': code, 'from': path}
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
    return r

def finished():
    """Once the gate file (if any) exists: whether each descriptor still reads the same."""
    if gate:
        if not os.path.exists(gate):
            return False
        for d in request.responses[0].get('docs', []):
            again = read_all(d['fd'])
            d['same-after'] = len(again) == d['size'] and again[:64].hex() == d['hex']
    return True

request.run(lambda: svc.PickDocument(types, options, timeout=300), response, finished, close_gate)
request.print_outcome()
