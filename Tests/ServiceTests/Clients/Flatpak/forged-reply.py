# A program of the session that read a sandboxed handler's reply token (as any program of the
# user can, in /proc/PID/environ) and pretends to be that Flatpak: it connects, enters a user
# namespace of its own, chroots into a directory with a /.flatpak-info naming the app, and calls
# Reply(token, 0, {answer: forged}). Prints 'replied' or the error. argv: bus address, root, app
# id, token. env: SB_NAME, SB_PATH.
import ctypes, dbus, os, sys
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
address, root, app, token = sys.argv[1:5]
libc = ctypes.CDLL(None, use_errno=True)
bus = dbus.bus.BusConnection(address)
uid, gid = os.getuid(), os.getgid()
if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
    print('unshare failed', ctypes.get_errno(), flush=True); sys.exit(3)
open('/proc/self/setgroups', 'w').write('deny')
open('/proc/self/uid_map', 'w').write('0 %d 1' % uid)
open('/proc/self/gid_map', 'w').write('0 %d 1' % gid)
os.makedirs(root, exist_ok=True)
open(root + '/.flatpak-info', 'w').write('[Application]\nname=%s\n\n[Instance]\ninstance-id=1\n' % app)
os.chroot(root)
os.chdir('/')
try:
    dbus.Interface(bus.get_object(N, O), N).Reply(token, dbus.UInt32(0), {'answer': 'forged'}, timeout=300)
    print('replied', flush=True)
except dbus.DBusException as e:
    print('error', e.get_dbus_name(), e.get_dbus_message(), flush=True)
