# A persistent pasteboard expiring in 3 s: waits (240 s at most) for Deleted, then looks for it.
from pb import *
import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
b = bus()
path, name = boards(b).CreatePasteboard('short', {'persistent': True, 'expires-in': dbus.UInt64(3)})
loop = GLib.MainLoop()
b.add_signal_receiver(lambda: (print('Deleted'), loop.quit()), 'Deleted', PB, N, path)
# Expiry may come first on a slow machine: then the pasteboard is gone already.
print(error(lambda: board(b, path).SetItems([{'text/plain': dbus.types.UnixFd(sealed(b'x' * 1000000))}])).split(':')[0] in ('no error', 'NoSuchPasteboard'))
GLib.timeout_add_seconds(240, loop.quit)
loop.run()
print(error(lambda: boards(b).FindPasteboard('short')).split(':')[0])
