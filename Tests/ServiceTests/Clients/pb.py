# The pasteboard test clients' helpers (copied beside the records as `pb.py`; the contract's
# names come from `contract.py`, which the test writes from the Swift contract).
import dbus, os, fcntl, sys
from contract import N, O, PBS, PB, ERR
def bus(): return dbus.bus.BusConnection(os.environ['SB_BUS'])
def boards(b): return dbus.Interface(b.get_object(N, O), PBS)
def board(b, path): return dbus.Interface(b.get_object(N, path), PB)
def sealed(data, seal=True):
    fd = os.memfd_create('test', os.MFD_ALLOW_SEALING)
    os.write(fd, data) if isinstance(data, bytes) else os.ftruncate(fd, data)
    if seal: fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    return fd
def read_all(fd):
    out, off = [], 0
    while True:
        chunk = os.pread(fd, 1 << 20, off)
        if not chunk: return b''.join(out)
        out.append(chunk); off += len(chunk)
def error(call):
    try:
        call(); return 'no error'
    except dbus.DBusException as e:
        return e.get_dbus_name().replace(ERR, '').replace('org.freedesktop.DBus.Error.', '') + ': ' + str(e)
