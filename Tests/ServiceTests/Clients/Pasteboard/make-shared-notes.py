# Makes a named pasteboard 'shared-notes' with a secret and an unnamed one; prints the first's
# path and the second's (unique) name.
from pb import *
import dbus
b = bus()
path, name = boards(b).CreatePasteboard('shared-notes', {'expires-in': dbus.UInt64(3600)})
board(b, path).SetItems([{'text/plain': dbus.ByteArray(b'secret notes')}])
upath, uname = boards(b).CreatePasteboard('', {})
print(path, uname)
