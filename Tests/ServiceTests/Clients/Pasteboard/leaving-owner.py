# Writes a pasteboard, opens late:// with it and exits; prints the handler that was started.
from pb import *
import dbus
b = bus()
path, name = boards(b).CreatePasteboard('', {})
board(b, path).SetItems([{'text/plain': dbus.ByteArray(b'written before leaving')}])
print(dbus.Interface(b.get_object(N, O), N).OpenURLWithOptions('late://open#' + name, {'pasteboard': name})['handler'])
