# Creates a pasteboard and sets one item: a sealed memfd of argv[1] bytes that holds no memory; prints the path and the error name.
from pb import *
import sys, dbus
b = bus()
path, name = boards(b).CreatePasteboard('', {})
r = error(lambda: board(b, path).SetItems([{'application/octet-stream': dbus.types.UnixFd(sealed(int(sys.argv[1])))}]))
print(path, r.split(':')[0])
