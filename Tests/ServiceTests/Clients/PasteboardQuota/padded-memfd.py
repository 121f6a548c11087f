# A 10-byte memfd with 64 MiB allocated past its end, then a plain one; prints size and allocation, then both errors.
from pb import *
import os, fcntl, ctypes, dbus
b = bus()
path, name = boards(b).CreatePasteboard('', {})
fd = os.memfd_create('padded', os.MFD_ALLOW_SEALING)
os.write(fd, b'0123456789')
libc = ctypes.CDLL(None, use_errno=True)
# FALLOC_FL_KEEP_SIZE: 64 MiB of memory past the 10 bytes, kept after sealing.
assert libc.fallocate(fd, 1, ctypes.c_long(0), ctypes.c_long(64 << 20)) == 0
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
print(os.fstat(fd).st_size, os.fstat(fd).st_blocks * 512)
print(error(lambda: board(b, path).SetItems([{'text/plain': dbus.types.UnixFd(fd)}])))
print(error(lambda: board(b, path).SetItems([{'text/plain': dbus.types.UnixFd(sealed(b'0123456789'))}])))
