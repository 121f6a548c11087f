# The greedy caller: six OpenURL slow:// at once, each outcome appended to argv[2] as it comes.
# argv: bus address, record file. env: SB_NAME, SB_PATH.
import os, sys, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1], mainloop=DBusGMainLoop())
svc = dbus.Interface(bus.get_object(N, O), N)
def note(text):
    with open(sys.argv[2], 'a') as f: f.write(text + '\n')
for i in range(6):
    svc.OpenURL('slow://%d' % i, reply_handler=lambda *a: note('ok'),
                error_handler=lambda e: note(e.get_dbus_name().split('.')[-1]), timeout=600)
GLib.MainLoop().run()
