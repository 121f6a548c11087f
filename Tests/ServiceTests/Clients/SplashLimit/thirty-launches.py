# 30 OpenURLWithOptions of todolist://N on the bus at argv[1]; prints how many had their launch image shown.
# env: SB_NAME, SB_PATH.
import os, sys, dbus
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
svc = dbus.Interface(bus.get_object(N, O), N)
shown = 0
for i in range(30):
    result = svc.OpenURLWithOptions('todolist://%d' % i, {}, timeout=600)
    shown += 1 if result['launch-image'] else 0
print(shown)
