# A bystander: enters a user and mount namespace, chroots into ROOT with a FIFO as /.flatpak-info
# and the bus's directory BUS_DIR bound in at /bus, connects from there, prints 'connected NAME',
# and prints 'looked at' when someone opens the FIFO; then stays until killed.
# argv: ROOT, BUS_DIR (holding the socket 'bus').
import ctypes, dbus, os, sys
libc = ctypes.CDLL(None, use_errno=True)
root, bus_dir = sys.argv[1], sys.argv[2]
uid, gid = os.getuid(), os.getgid()
if libc.unshare(0x10000000 | 0x00020000) != 0:
    print('unshare failed', ctypes.get_errno(), flush=True); sys.exit(3)
open('/proc/self/setgroups', 'w').write('deny')
open('/proc/self/uid_map', 'w').write('0 %d 1' % uid)
open('/proc/self/gid_map', 'w').write('0 %d 1' % gid)
os.makedirs(root + '/bus', exist_ok=True)
os.mkfifo(root + '/.flatpak-info')
if libc.mount(bus_dir.encode(), (root + '/bus').encode(), None, 0x1000, None) != 0:
    print('bind failed', ctypes.get_errno(), flush=True); sys.exit(4)
os.chroot(root)
os.chdir('/')
bus = dbus.bus.BusConnection('unix:path=/bus/bus')
print('connected', bus.get_unique_name(), flush=True)
fd = os.open('/.flatpak-info', os.O_WRONLY)
print('looked at', flush=True)
os.close(fd)
import signal; signal.pause()
