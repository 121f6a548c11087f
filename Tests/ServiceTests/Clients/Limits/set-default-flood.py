# 2,000 queued SetDefaultHandler calls alternating a.desktop and b.desktop; writes the time
# they were all sent to argv[2], then prints each reply's time and the errors.
# argv: bus address, sent file. env: SB_NAME, SB_PATH.
import os, sys, time, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1], mainloop=DBusGMainLoop())
svc = dbus.Interface(bus.get_object(N, O), N)
times, errors, loop = [], [], GLib.MainLoop()
def done(error=None):
    times.append(time.monotonic())
    if error is not None: errors.append(error.get_dbus_name())
    if len(times) == 2000: loop.quit()
for i in range(2000):
    svc.SetDefaultHandler('flood', 'ab'[i % 2] + '.desktop', reply_handler=done, error_handler=done, timeout=600)
bus.flush()
with open(sys.argv[2], 'w') as f: f.write(str(time.monotonic()))
loop.run()
print(' '.join('%.6f' % t for t in times))
print(len(errors), sorted(set(errors)))
