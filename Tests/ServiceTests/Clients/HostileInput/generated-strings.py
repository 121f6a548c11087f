# argv[2] generated strings to every method on the bus at argv[1]; prints the reply and error counts
# and any error the contract does not document (SB_ERRORS) as JSON.
import os, sys, random, json, dbus
random.seed(1234)
bus = dbus.bus.BusConnection(sys.argv[1])
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
svc = dbus.Interface(bus.get_object(N, O), N)
props = dbus.Interface(bus.get_object(N, O), 'org.freedesktop.DBus.Properties')
allowed = set(os.environ['SB_ERRORS'].split())
allowed |= {'org.freedesktop.DBus.Error.InvalidArgs'}
def rand_string():
    kind = random.randrange(9)
    if kind == 0: return ''.join(c for c in (chr(random.randrange(1, 0x2FFFF)) for _ in range(random.randrange(1, 40))) if not 0xD800 <= ord(c) <= 0xDFFF)
    if kind == 1: return 'todolist:' + ''.join(random.choice('\x01\x07\t\n\r\x1b\x7f\u0085\u2028 ') for _ in range(3))
    if kind == 2: return 'todolist://' + 'x' * random.choice([10, 65536 - 11, 65536, 70000, 300000])
    if kind == 3: return random.choice(['tоdolist://x', 'todolist\u200b://x', 'TODOLIST://x', 'todolist ://x', ':x', 'a:', '1a:', 'a+b.c-d:x', '-x:', 'todolist', '', ' ', 'http://x', 'file:///etc/passwd', 'javascript:alert(1)'])
    if kind == 4: return 'todolist://' + ''.join(random.choice('"\'`$();&|<>*?[]{}\\ -') for _ in range(30))
    if kind == 5: return ''.join(random.choice('abc:/%') for _ in range(random.randrange(0, 20)))
    if kind == 6: return 'x' * random.randrange(0, 5) + ':' + '\U0001F600' * random.randrange(0, 5000)
    if kind == 7: return random.choice(['todo.desktop', '../../etc/passwd', 'a/b.desktop', '.desktop', 'x' * 5000 + '.desktop', 'todo.desktop\n'])
    return ''.join(chr(random.randrange(32, 127)) for _ in range(random.randrange(0, 200)))
counts = {'ok': 0, 'errors': {}}
bad = []
for i in range(int(sys.argv[2])):
    s = rand_string()
    m = random.randrange(6)
    try:
        if m == 0: r = svc.CanOpenURL(s); assert isinstance(r, dbus.Boolean)
        elif m == 1: r = svc.HandlersForScheme(s); assert isinstance(r, dbus.Array)
        elif m == 2: r = svc.DefaultHandler(s); assert isinstance(r, dbus.String)
        elif m == 3: r = svc.LaunchImageForURL(s); assert isinstance(r, dbus.String)
        elif m == 4: r = svc.OpenURLWithOptions(s, dbus.Dictionary({'handler': s, 'launch-image': dbus.Boolean(False)}, signature='sv')); assert isinstance(r, dbus.Dictionary)
        else: svc.SetDefaultHandler(s, random.choice(['todo.desktop', s]))
        counts['ok'] += 1
    except dbus.DBusException as e:
        name = e.get_dbus_name()
        counts['errors'][name] = counts['errors'].get(name, 0) + 1
        if name not in allowed: bad.append([m, s[:80], name, str(e)[:200]])
assert props.Get(N, 'Version') == int(os.environ['SB_VERSION'])
print(json.dumps({'counts': counts, 'bad': bad[:10]}))
