# Makes a persistent pasteboard 'kept' (text and 140000 bytes by descriptor), grants it to
# argv[1] and prints its path.
from pb import *
import sys, dbus
b = bus()
path, name = boards(b).CreatePasteboard('kept', {'persistent': True})
p = board(b, path)
p.SetItems([{'text/plain': dbus.ByteArray(b'survives'), 'application/octet-stream': dbus.types.UnixFd(sealed(b'\x00\x01' * 70000))}])
p.Grant([sys.argv[1]])
print(path)
