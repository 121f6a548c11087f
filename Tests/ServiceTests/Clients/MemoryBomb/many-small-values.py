# An annotation of 4,000,000 uint32 (16 MiB on the wire); prints the outcome, then whether the
# service still answers CanOpenURL. argv: bus address. env: SB_NAME, SB_PATH.
import os, sys, dbus
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
svc = dbus.Interface(bus.get_object(N, O), N)
ints = dbus.Array(range(4_000_000), signature='u')
try:
    svc.OpenURLWithOptions('todolist://x', dbus.Dictionary({'annotation': ints}, signature='sv'), timeout=120)
    print('accepted')
except dbus.DBusException as e:
    print(e.get_dbus_name(), str(e).split(':', 1)[-1].strip()[:120])
print(bool(svc.CanOpenURL('todolist:x')))
