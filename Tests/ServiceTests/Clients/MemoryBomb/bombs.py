# Sends 100 MiB messages (a string, two byte arrays, a signal) and big options; prints the
# outcome of each, then how long the bus alone took to take in one such message.
# argv: bus address, size in bytes. env: SB_NAME, SB_PATH.
import os, sys, dbus
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
svc = dbus.Interface(bus.get_object(N, O), N)
size = int(sys.argv[2])
out = []
def name_of(call):
    try:
        call(); return 'ok'
    except dbus.DBusException as e:
        return e.get_dbus_name().split('.')[-1]
url = 'todolist://' + 'x' * size
out.append(name_of(lambda: svc.OpenURL(url, timeout=120)))
del url
half = dbus.ByteArray(b'\x01' * (size // 2))
out.append(name_of(lambda: bus.call_blocking(N, O, N, 'OpenURL', 'ayay', (half, half), timeout=120)))
# The bus's own cost for such a message: one hop, to the bus itself, which refuses it.
import time
t = time.monotonic()
name_of(lambda: bus.call_blocking('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.Peer', 'Ping', 'ayay', (half, half), timeout=120))
floor = time.monotonic() - t
target = bus.get_name_owner(N)
signal = dbus.lowlevel.SignalMessage('/x', 'org.example.Bomb', 'Boom')
signal.set_destination(target)
signal.append(half, half, signature='ayay')
bus.send_message(signal); bus.flush()
del half, signal
part = dbus.ByteArray(b'\x01' * (30 << 20))
r = svc.OpenURLWithOptions('todolist://unknown', dbus.Dictionary({'junk': part, 'more': part}, signature='sv'), timeout=120)
out.append(str(r['handler']))
pair = dbus.Struct((part, part), signature='ayay')
r = svc.OpenURLWithOptions('todolist://annotation', dbus.Dictionary({'annotation': pair}, signature='sv'), timeout=120)
out.append(str(r['handler']))
out.append(name_of(lambda: svc.OpenURLWithOptions('todolist://wrong', dbus.Dictionary({'handler': pair}, signature='sv'), timeout=120)))
print(' '.join(out))
print('%.3f' % floor)
