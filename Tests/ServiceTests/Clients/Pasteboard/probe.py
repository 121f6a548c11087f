# What another app learns of pasteboards: the error of each call (argv: a unique name, a path).
from pb import *
import sys, dbus
b = bus()
print(error(lambda: boards(b).FindPasteboard('shared-notes')).split(':')[0])
print(error(lambda: boards(b).FindPasteboard(sys.argv[1])).split(':')[0])
print(error(lambda: board(b, sys.argv[2]).Types()).split(':')[0])
print(error(lambda: board(b, sys.argv[2]).Read(0, 'text/plain')).split(':')[0])
print(error(lambda: board(b, sys.argv[2]).Delete()).split(':')[0])
props = dbus.Interface(b.get_object(N, sys.argv[2]), 'org.freedesktop.DBus.Properties').GetAll(PB)
print(repr(str(props['Name'])))
