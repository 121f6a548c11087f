# Calls the TestService's Block('python') and waits for its reply (the test kills it meanwhile).
# argv: bus address, the service's bus name, object path, interface.
import sys, dbus
address, name, path, interface = sys.argv[1:5]
bus = dbus.bus.BusConnection(address)
bus.call_blocking(name, path, interface, 'Block', 's', ('python',))
