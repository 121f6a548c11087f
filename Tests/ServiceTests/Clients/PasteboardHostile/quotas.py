# Two pasteboards of two allowed, then writes over MaxBytesPerApp; prints the errors and what was kept.
from pb import *
import dbus
b = bus()
a, _ = boards(b).CreatePasteboard('a', {})
boards(b).CreatePasteboard('b', {})
print(error(lambda: boards(b).CreatePasteboard('c', {})).split(':')[0])
print(boards(b).CreatePasteboard('a', {})[0] == a)
p = board(b, a)
p.SetItems([{'text/plain': dbus.ByteArray(b'kept' * 1000)}])
print(error(lambda: p.SetItems([{'text/plain': dbus.types.UnixFd(sealed(b'y' * 200000))}])).split(':')[0])
print(error(lambda: p.SetItems([{'text/plain': dbus.types.UnixFd(sealed(b'y' * 200000, seal=False))}])).split(':')[0])
print(len(bytes(p.ReadBytes(0, 'text/plain'))), int(dbus.Interface(b.get_object(N, a), 'org.freedesktop.DBus.Properties').Get(PB, 'ChangeCount')))
