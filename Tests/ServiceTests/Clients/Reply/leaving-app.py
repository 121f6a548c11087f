# org.example.Answer that writes its reply token to argv[2] and, once argv[3] exists, exits
# while a forked child keeps the connection's socket open (the child's pid goes to argv[4]).
# argv: bus address, token file, gate file, holder pid file.
import sys, os, time, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
class App(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}', out_signature='')
    def Open(self, uris, platform):
        open(sys.argv[2] + '.tmp', 'w').write(str(platform['reply-token'])); os.rename(sys.argv[2] + '.tmp', sys.argv[2])
name = dbus.service.BusName('org.example.Answer', bus)
App(bus, '/org/example/Answer')
def leave():
    if not os.path.exists(sys.argv[3]): return True
    if os.fork() == 0:   # the child keeps the connection's socket open, and nothing else
        open(sys.argv[4] + '.tmp', 'w').write(str(os.getpid())); os.rename(sys.argv[4] + '.tmp', sys.argv[4])
        time.sleep(600); os._exit(0)
    os._exit(0)
GLib.timeout_add(50, leave)
GLib.MainLoop().run()
