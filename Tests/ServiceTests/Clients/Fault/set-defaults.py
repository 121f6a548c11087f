# SetDefaultHandler s<N> → h<N>.desktop for each N in argv[2:]. argv: bus address, numbers.
# env: SB_NAME, SB_PATH.
import os, sys, dbus
bus = dbus.bus.BusConnection(sys.argv[1])
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
svc = dbus.Interface(bus.get_object(N, O), N)
for s in sys.argv[2:]:
    svc.SetDefaultHandler('s' + s, 'h' + s + '.desktop')
