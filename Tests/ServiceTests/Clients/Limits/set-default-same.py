# 2,000 SetDefaultHandler flood → a.desktop at once; prints how many were ok and RateLimited.
# argv: bus address. env: SB_NAME, SB_PATH.
import os, sys, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1], mainloop=DBusGMainLoop())
svc = dbus.Interface(bus.get_object(N, O), N)
out, loop = [], GLib.MainLoop()
def done(name):
    out.append(name)
    if len(out) == 2000: loop.quit()
for i in range(2000):
    svc.SetDefaultHandler('flood', 'a.desktop', reply_handler=lambda: done('ok'),
                          error_handler=lambda e: done(e.get_dbus_name().split('.')[-1]), timeout=600)
loop.run()
print(out.count('ok'), out.count('RateLimited'))
