# 300 fire-and-forget OpenURL calls, each from a fresh connection, while a watcher counts the
# outcomes (URLHandled / URLFailed); prints handled, failed and the seconds it took.
# argv: bus address. env: SB_NAME, SB_PATH.
import os, sys, dbus, time
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
addr = sys.argv[1]
watcher = dbus.bus.BusConnection(addr, mainloop=DBusGMainLoop())
seen = {'URLHandled': 0, 'URLFailed': 0}
loop = GLib.MainLoop()
def outcome(*args, member=None):
    seen[member] += 1
    if seen['URLHandled'] + seen['URLFailed'] >= 300: loop.quit()
for m in seen: watcher.add_signal_receiver(outcome, m, N, None, O, member_keyword='member')
watcher.call_blocking('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetId', '', [])
start = time.monotonic()
for i in range(300):
    c = dbus.bus.BusConnection(addr)
    m = dbus.lowlevel.MethodCallMessage(N, O, N, 'OpenURL')
    m.append('fast://%d' % i, signature='s')
    m.set_no_reply(True)
    c.send_message(m)
    c.flush()
    c.close()
GLib.timeout_add_seconds(120, loop.quit)
loop.run()
print(seen['URLHandled'], seen['URLFailed'], time.monotonic() - start)
