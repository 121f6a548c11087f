# OpenFile with descriptors that do not prove read access, and other refusals, then one that is
# fine; prints each case and the error's short name ('no error' when it opened). argv: the file.
from pb import *
import os, sys, dbus
file = sys.argv[1]
b = bus()
svc = dbus.Interface(b.get_object(N, O), N)
def open_(fd, opts={}): return error(lambda: svc.OpenFile(dbus.types.UnixFd(fd), opts)).split(':')[0]
print('O_PATH', open_(os.open(file, os.O_PATH)))
print('write-only', open_(os.open(file, os.O_WRONLY)))
print('folder', open_(os.open('/', os.O_RDONLY | os.O_DIRECTORY)))
r, w = os.pipe()
print('pipe', open_(r))
print('bad type', open_(os.open(file, os.O_RDONLY), {'content-type': 'nonsense'}))
print('no app', open_(os.open(file, os.O_RDONLY), {'content-type': 'application/x-nobody-opens-this'}))
print('ok', open_(os.open(file, os.O_RDONLY)))
