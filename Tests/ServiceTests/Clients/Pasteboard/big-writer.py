# A GiB by descriptor, marked at its start, middle and end: written, read back, and refused by
# ReadBytes.
from pb import *
import os, dbus
b = bus()
path, name = boards(b).CreatePasteboard('', {})
p = board(b, path)
size = 1 << 30
fd = os.memfd_create('big', os.MFD_ALLOW_SEALING)
os.ftruncate(fd, size)
marks = {0: b'first', size // 2: b'middle', size - 4: b'last'}
for at, mark in marks.items(): os.pwrite(fd, mark, at)
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
p.SetItems([{'application/octet-stream': dbus.types.UnixFd(fd)}])
got = p.Read(0, 'application/octet-stream').take()
print(os.fstat(got).st_size == size, all(os.pread(got, len(m), at) == m for at, m in marks.items()))
print(error(lambda: p.ReadBytes(0, 'application/octet-stream')))
