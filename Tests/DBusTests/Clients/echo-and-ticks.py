# A python3-dbus client of the TestService: Echo (prints each value's signature), CheckName with
# a bad name (prints the error's name), then Emit(3) and prints the three Tick signals it hears.
# argv: bus address, the service's bus name, object path, interface.
import sys, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
address, name, path, interface = sys.argv[1:5]
bus = dbus.bus.BusConnection(address)
test = dbus.Interface(bus.get_object(name, path), interface)
reply = test.Echo(dbus.Dictionary({'a': dbus.UInt32(5), 'b': dbus.Array([], signature='s')}, signature='sv'))
print('echo', sorted((str(k), str(v.signature) if hasattr(v, 'signature') else type(v).__name__) for k, v in reply.items()))
try:
    test.CheckName('bad name')
except dbus.DBusException as e:
    print('error', e.get_dbus_name())
seen = []
loop = GLib.MainLoop()
def tick(n):
    seen.append(int(n))
    if len(seen) == 3: loop.quit()
bus.add_signal_receiver(tick, 'Tick', interface)
test.Emit(dbus.UInt32(3))
GLib.timeout_add(240000, loop.quit)   # a ceiling: the loop ends after the third tick
loop.run()
print('ticks', seen)
