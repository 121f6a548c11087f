# OpenURL(argv[2]) on the bus at argv[1] (120 s); with argv[3], OpenURLWithOptions(argv[2],
# {'activation-token': argv[3]}) instead. Prints True/False, or the error's name and message.
# env: SB_NAME, SB_PATH.
import os, sys, dbus
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
svc = dbus.Interface(dbus.bus.BusConnection(sys.argv[1]).get_object(N, O), N)
try:
    if len(sys.argv) > 3:
        svc.OpenURLWithOptions(sys.argv[2], {'activation-token': sys.argv[3]}, timeout=120)
        print(True)
    else:
        print(bool(svc.OpenURL(sys.argv[2], timeout=120)))
except dbus.DBusException as e:
    print(e.get_dbus_name()); print(str(e))
