# The owner (seed 001's editor): a pasteboard of a unique name holding {"pay":"alice"}, opened with
# argv[1] + name and the `pasteboard` option. Prints the name.
from pb import *
import sys, dbus
b = bus()
path, name = boards(b).CreatePasteboard('', {})
board(b, path).SetItems([{'application/json': dbus.ByteArray(b'{"pay":"alice"}')}])
dbus.Interface(b.get_object(N, O), N).OpenURLWithOptions(sys.argv[1] + name, {'pasteboard': name}, timeout=120)
print(name)
