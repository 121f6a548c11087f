# The person editor (seed 001): puts a person and a PNG on a persistent pasteboard, opens the
# viewer with it and waits (240 s at most) for the viewer to delete it.
from pb import *
import json, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
b = bus()
path, name = boards(b).CreatePasteboard('', {'persistent': True})
p = board(b, path)
person = {'version': 1, 'name': 'Ada Lovelace', 'born': 1815}
png = b'\x89PNG\r\n\x1a\n' + bytes(range(256)) * 64
count = p.SetItems([{'application/x-person+json': dbus.ByteArray(json.dumps(person).encode())},
                    {'image/png': dbus.types.UnixFd(sealed(png))}])
loop = GLib.MainLoop()
deleted = []
b.add_signal_receiver(lambda: (deleted.append(1), loop.quit()), 'Deleted', PB, N, path)
svc = dbus.Interface(b.get_object(N, O), N)
svc.OpenURLWithOptions('viewer://?ReadPasteboardData#' + name, {'pasteboard': path})
GLib.timeout_add_seconds(240, loop.quit)
loop.run()
print(name.startswith('pasteboard-'), len(name), int(count), 'deleted' if deleted else 'no Deleted signal')
