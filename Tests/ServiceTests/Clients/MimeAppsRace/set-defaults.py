# SetDefaultHandler s<i> → s<i>.desktop for i below argv[2]. argv: bus address, count.
# env: SB_NAME, SB_PATH.
import os, sys, dbus
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
svc = dbus.Interface(bus.get_object(N, O), N)
for i in range(int(sys.argv[2])):
    svc.SetDefaultHandler('s%d' % i, 's%d.desktop' % i)
