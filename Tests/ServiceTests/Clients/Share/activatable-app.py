# A D-Bus activatable org.example.Notes: ActivateAction(action, parameter, platform_data) writes
# one JSON record to argv[2] (the action, the platform data's keys, the text its share pasteboard
# holds, read inside the call) and returns. argv: bus address, record file. env: SB_NAME, SB_PATH.
import os, sys, json, dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
class App(dbus.service.Object):
    @dbus.service.method('org.freedesktop.Application', in_signature='sava{sv}', out_signature='')
    def ActivateAction(self, action, parameter, platform):
        boards = dbus.Interface(bus.get_object(N, O), 'io.github.schemebridge.Pasteboards1')
        board = dbus.Interface(bus.get_object(N, boards.FindPasteboard(str(platform['pasteboard']))), 'io.github.schemebridge.Pasteboard1')
        text = bytes(board.ReadBytes(dbus.UInt32(0), 'text/plain')).decode()
        with open(sys.argv[2] + '.tmp', 'w') as f:
            json.dump({'action': str(action), 'keys': sorted(str(k) for k in platform.keys()), 'text': text}, f)
        os.rename(sys.argv[2] + '.tmp', sys.argv[2])
name = dbus.service.BusName('org.example.Notes', bus)
App(bus, '/org/example/Notes')
GLib.MainLoop().run()
