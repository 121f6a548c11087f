# A persistent pasteboard on a 1 MiB disk: a write that fits, then one that does not; prints the error and the size kept.
from pb import *
import dbus
b = bus()
path, name = boards(b).CreatePasteboard('on-a-small-disk', {'persistent': True})
p = board(b, path)
p.SetItems([{'text/plain': dbus.ByteArray(b'fits' * 1000)}])
print(error(lambda: p.SetItems([{'text/plain': dbus.types.UnixFd(sealed(b'z' * (3 << 20)))}])))
print(len(bytes(p.ReadBytes(0, 'text/plain'))))
