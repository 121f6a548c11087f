# Wrong types, huge arrays, many items and wrong descriptors sent to a pasteboard; prints each error name.
from pb import *
import os, socket, dbus
b = bus()
path, name = boards(b).CreatePasteboard('', {})
p = board(b, path)
def set_(value, t='text/plain'): return error(lambda: p.SetItems([{t: value}])).split(':')[0]
print('string', set_(dbus.String('not data', variant_level=1)))
print('type', set_(dbus.ByteArray(b'x'), 'not a mime type'))
print('huge ay', set_(dbus.ByteArray(b'x' * (20 << 20))))
print('items', error(lambda: p.SetItems([{'text/plain': dbus.ByteArray(b'x')}] * 5000)).split(':')[0])
r, w = os.pipe()
print('pipe', set_(dbus.types.UnixFd(r)))
s1, s2 = socket.socketpair()
print('socket', set_(dbus.types.UnixFd(s1.fileno())))
print('directory', set_(dbus.types.UnixFd(os.open('/', os.O_RDONLY | os.O_DIRECTORY))))
print('O_PATH', set_(dbus.types.UnixFd(os.open('/etc/hostname', os.O_PATH))))
print('write-only', set_(dbus.types.UnixFd(os.open(os.devnull, os.O_WRONLY))))
print('options', error(lambda: boards(b).CreatePasteboard('', {'persistent': 'yes'})).split(':')[0])
print('name', error(lambda: boards(b).CreatePasteboard('bad\nname', {})).split(':')[0])
print('grant *', error(lambda: p.Grant(['*'])).split(':')[0])
# An unsealed memfd is copied: what the writer does to it later is never seen.
fd = sealed(b'original', seal=False)
p.SetItems([{'text/plain': dbus.types.UnixFd(fd)}])
got = p.Read(0, 'text/plain').take()
os.pwrite(fd, b'CHANGED!', 0); os.ftruncate(fd, 3)
print('copy', os.pread(got, 100, 0), bytes(p.ReadBytes(0, 'text/plain')))
# A reader's descriptor cannot write, and its content stays after new items arrive.
try:
    os.write(got, b'x'); print('written!')
except OSError as e: print('write refused')
p.SetItems([{'text/plain': dbus.ByteArray(b'second')}])
print('after', os.pread(got, 100, 0), bytes(p.ReadBytes(0, 'text/plain')))
print('no item', error(lambda: p.Read(7, 'text/plain')).split(':')[0])
print('no type', error(lambda: p.Read(0, 'image/png')).split(':')[0])
svc = dbus.Interface(b.get_object(N, O), N)
print('alive', bool(svc.CanOpenURL('nothing://x')) is False)
