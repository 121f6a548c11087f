# Four pasteboards (the first expiring last), a 2 GiB sparse item on the first; prints the paths and the error name.
from pb import *
import dbus
b = bus()
paths = []
for i in range(4):
    path, name = boards(b).CreatePasteboard('', {'expires-in': dbus.UInt64(3600 if i == 0 else 600)})
    paths.append(str(path))
r = error(lambda: board(b, paths[0]).SetItems([{'application/octet-stream': dbus.types.UnixFd(sealed(2 << 30))}]))
print(' '.join(paths), r.split(':')[0])
