# Another process that learned a pick's token: ProvideDocuments(token, [a PNG], {}) and prints
# "ok" or the error name. argv: bus address, token, a file to hand over.
import sys, os, dbus
bus = dbus.bus.BusConnection(sys.argv[1])
svc = dbus.Interface(bus.get_object('io.github.schemebridge.SchemeBridge1', '/io/github/schemebridge/SchemeBridge1'),
                     'io.github.schemebridge.SchemeBridge1')
try:
    svc.ProvideDocuments(sys.argv[2], [dbus.types.UnixFd(os.open(sys.argv[3], os.O_RDONLY))], {})
    print('ok')
except dbus.DBusException as e:
    print(e.get_dbus_name())
