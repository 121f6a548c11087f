# An app opening a document: OpenFile(fd, {mode, handler}) with the file opened read-only ('r')
# or read-write ('rw'); prints the results as JSON, or the error. argv: bus address, path,
# r|rw, mode ('' for none), handler ('' for none). env: SB_NAME, SB_PATH.
import json, os, sys, dbus
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
address, path, access, mode, handler = sys.argv[1:6]
bus = dbus.bus.BusConnection(address)
fd = os.open(path, os.O_RDWR if access == 'rw' else os.O_RDONLY)
options = {}
if mode: options['mode'] = mode
if handler: options['handler'] = handler
try:
    results = dbus.Interface(bus.get_object(N, O), N).OpenFile(dbus.types.UnixFd(fd), options, timeout=300)
    print(json.dumps({str(k): str(v) for k, v in results.items()}))
except dbus.DBusException as e:
    print(json.dumps({'error': e.get_dbus_name(), 'message': str(e)}))
