# OpenFile(argv[1] opened read-only), with the 'ask' option when argv[2] is 'ask'; prints the
# handler it went to.
from pb import *
import os, sys, dbus
svc = dbus.Interface(bus().get_object(N, O), N)
r = svc.OpenFile(dbus.types.UnixFd(os.open(sys.argv[1], os.O_RDONLY)), {'ask': sys.argv[2] == 'ask'}, timeout=120)
print(r['handler'])
