# OpenURLWithOptions(URL, options) from a caller of its own (the python it runs under): prints
# 'opened <handler>' or 'error <ErrorName> <message>'. argv: URL, mode: 'ask', 'plain' (OpenURL,
# prints 'opened') or a desktop id for the 'handler' option. env: SB_BUS, SB_NAME, SB_PATH.
import dbus, os, sys
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
svc = dbus.Interface(dbus.bus.BusConnection(os.environ['SB_BUS']).get_object(N, O), N)
url, mode = sys.argv[1], sys.argv[2]
try:
    if mode == 'plain':
        svc.OpenURL(url); print('opened')
    else:
        options = {'ask': True} if mode == 'ask' else {'handler': mode}
        print('opened', svc.OpenURLWithOptions(url, options, timeout=600)['handler'])
except dbus.DBusException as e:
    print('error', e.get_dbus_name().split('.')[-1], e.get_dbus_message())
