# OpenFile(argv[1]) with content type argv[2]; prints 'no error' or the error's name. With argv[3],
# first says it is ready (argv[3].ready.PID) and waits until argv[3] exists.
from pb import *
import os, sys, dbus, time
svc = dbus.Interface(bus().get_object(N, O), N)
if len(sys.argv) > 3:
    open(sys.argv[3] + '.ready.' + str(os.getpid()), 'w').close()
    while not os.path.exists(sys.argv[3]): time.sleep(0.005)
fd = os.open(sys.argv[1], os.O_RDONLY)
print(error(lambda: svc.OpenFile(dbus.types.UnixFd(fd), {'content-type': sys.argv[2]}, timeout=300)).split(':')[0])
