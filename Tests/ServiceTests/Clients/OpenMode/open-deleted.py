# Opens a file, deletes it, then asks OpenFile for it in place and as a copy; prints each mode
# and the path the handler got, or the error. argv: bus address, path. env: SB_NAME, SB_PATH.
import dbus, os, sys
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
fd = os.open(sys.argv[2], os.O_RDONLY)
os.unlink(sys.argv[2])
svc = dbus.Interface(bus.get_object(N, O), N)
for mode in ('in-place', 'copy'):
    try:
        print(mode, svc.OpenFile(dbus.types.UnixFd(fd), {'mode': mode}, timeout=300)['path'])
    except dbus.DBusException as e:
        print(mode, e.get_dbus_name(), e.get_dbus_message())
