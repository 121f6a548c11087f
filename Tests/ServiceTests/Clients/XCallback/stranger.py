# Waits for URLHandled of org.example.Handler, then opens its callback URL itself; writes the outcome
# to argv[3] (argv: bus address, ready file, outcome file). env: SB_NAME, SB_PATH.
import sys, os, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
loop = GLib.MainLoop()
def seen(url, scheme, handler, details):
    if handler != 'org.example.Handler.desktop': return
    try:
        r = 'opened %s' % bool(dbus.Interface(bus.get_object(N, O), N).OpenURL('callerapp://done', timeout=120))
    except dbus.DBusException as e:
        r = e.get_dbus_name() + ' ' + str(e)
    open(sys.argv[3] + '.tmp', 'w').write(r); os.rename(sys.argv[3] + '.tmp', sys.argv[3])
    loop.quit()
bus.add_signal_receiver(seen, 'URLHandled', N, None, O)
bus.call_blocking('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetId', '', [])
open(sys.argv[2], 'w').write('ready')
GLib.timeout_add_seconds(600, loop.quit)
loop.run()
