# A sharing app that notes the order in which its connection receives the reply to its Share call
# and the request's Response (a message filter sees every incoming message in order), then prints
# {"order": [...], "code": n} as JSON. argv: bus address, a file to share (or "data:TEXT": TEXT as
# application/octet-stream bytes), the target.
# env: SB_NAME, SB_PATH.
import sys, os, json, dbus, dbus.lowlevel
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
sys.dont_write_bytecode = True
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(sys.argv[1])
loop = GLib.MainLoop()
order, code, serial = [], [None], [None]

def incoming(connection, message):
    if isinstance(message, dbus.lowlevel.MethodReturnMessage) and message.get_reply_serial() == serial[0]:
        order.append('reply')
    elif isinstance(message, dbus.lowlevel.ErrorMessage) and message.get_reply_serial() == serial[0]:
        order.append('error ' + message.get_error_name()); loop.quit()
    elif isinstance(message, dbus.lowlevel.SignalMessage) and message.get_member() == 'Response':
        order.append('response'); code[0] = int(message.get_args_list()[0]); loop.quit()
    return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED

bus.add_message_filter(incoming)
call = dbus.lowlevel.MethodCallMessage(os.environ['SB_NAME'], os.environ['SB_PATH'], 'io.github.schemebridge.Share1', 'Share')
if sys.argv[2].startswith('data:'):
    item = {'type': 'application/octet-stream', 'data': dbus.ByteArray(sys.argv[2][5:].encode())}
else:
    item = {'file': dbus.types.UnixFd(os.open(sys.argv[2], os.O_RDONLY))}
call.append(dbus.Array([dbus.Dictionary(item, signature='sv')], signature='a{sv}'),
            dbus.Dictionary({'target': sys.argv[3]}, signature='sv'))
serial[0] = bus.send_message(call)
GLib.timeout_add(120000, loop.quit)
loop.run()
print(json.dumps({'order': order, 'code': code[0]}))
