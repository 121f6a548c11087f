# Every query a caller can make, on the bus at argv[1]; prints the answers on one line. env: SB_NAME, SB_PATH.
import os, sys, dbus
bus = dbus.bus.BusConnection(sys.argv[1])
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
svc = dbus.Interface(bus.get_object(N, O), N)
props = dbus.Interface(bus.get_object(N, O), 'org.freedesktop.DBus.Properties')
print(bool(svc.CanOpenURL('secretbank:x')), bool(svc.CanOpenURL('todolist:x')),
      list(svc.HandlersForScheme('secretbank')), str(svc.DefaultHandler('secretbank')) or '-',
      [str(x) for x in props.Get(N, 'Schemes')])
