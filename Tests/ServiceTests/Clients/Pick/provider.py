# A provider launched by the service for a pick (SCHEMEBRIDGE_PICK_TOKEN in its environment).
# It records its token in RECORDS/provider.token, then, for each step, calls the service and
# appends "<step> ok" or "<step> <error name> <message>" to RECORDS/provider.log:
#   fifo, socket, dir, wrongtype, liar, two, many (17 descriptors, then 10,000: the bus's
#   limit), answer:FILE:TYPE:NAME (and afterwards rewrites FILE), cancel, fail, hold:GATE
#   (waits for the gate file), exit (ends without answering).
# argv: records directory, steps...
import sys, os, time, socket, json, dbus
N, O = 'io.github.schemebridge.SchemeBridge1', '/io/github/schemebridge/SchemeBridge1'
records = sys.argv[1]
token = os.environ.get('SCHEMEBRIDGE_PICK_TOKEN', '')
open(os.path.join(records, 'provider.token'), 'w').write(token)
log = open(os.path.join(records, 'provider.log'), 'a', buffering=1)

def svc():
    bus = dbus.bus.BusConnection(os.environ['DBUS_SESSION_BUS_ADDRESS'])
    return dbus.Interface(bus.get_object(N, O), N)

def provide(fds, info, step):
    start = time.monotonic()
    try:
        svc().ProvideDocuments(token, [dbus.types.UnixFd(f) for f in fds], info, timeout=120)
        log.write('%s ok\n' % step)
    except dbus.DBusException as e:
        log.write('%s %s %.3f %s\n' % (step, e.get_dbus_name(), time.monotonic() - start, str(e).replace('\n', ' ')))
    except Exception as e:
        log.write('%s %s %.3f %s\n' % (step, type(e).__name__, time.monotonic() - start, str(e).replace('\n', ' ')))

PNG = bytes.fromhex('89504e470d0a1a0a') + b'\0' * 24
def tmpfile(name, data):
    p = os.path.join(records, name)
    open(p, 'wb').write(data)
    return p

for step in sys.argv[2:]:
    if step == 'fifo':
        p = os.path.join(records, 'pipe'); os.mkfifo(p)
        provide([os.open(p, os.O_RDONLY | os.O_NONBLOCK)], {}, step)
    elif step == 'socket':
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        provide([s.fileno()], {}, step)
    elif step == 'dir':
        provide([os.open(records, os.O_RDONLY)], {}, step)
    elif step == 'wrongtype':
        provide([os.open(tmpfile('notes.txt', b'hello\n'), os.O_RDONLY)], {'names': ['notes.txt']}, step)
    elif step == 'liar':
        provide([os.open(tmpfile('notes2.txt', b'hello\n'), os.O_RDONLY)], {'types': ['image/png']}, step)
    elif step == 'two':
        f = os.open(tmpfile('a.png', PNG), os.O_RDONLY)
        provide([f, f], {}, step)
    elif step == 'many':
        f = os.open(tmpfile('b.png', PNG), os.O_RDONLY)
        provide([f] * 17, {}, 'many17')
        provide([f] * 10000, {}, 'many10000')
    elif step.startswith('answer:'):
        _, path, ctype, name = step.split(':', 3)
        info = {'names': [name], 'activation-token': 'provider-token-1'}
        if ctype:
            info['types'] = [ctype]
        fd = os.open(path, os.O_RDONLY)
        provide([fd], info, 'answer')
        with open(path, 'r+b') as f:   # the provider changes its file afterwards
            f.write(b'REWRITTEN')
        log.write('rewritten\n')
    elif step == 'cancel':
        try:
            svc().Reply(token, dbus.UInt32(1), {}); log.write('cancel ok\n')
        except dbus.DBusException as e:
            log.write('cancel %s\n' % e.get_dbus_name())
    elif step.startswith('hold:'):
        gate = step[5:]
        while not os.path.exists(gate):
            time.sleep(0.05)
    elif step == 'exit':
        sys.exit(0)
