# A share target's helper (or a stranger): finds the pasteboard named argv[2] and prints the
# text/plain bytes of each item, one JSON list, or the error name. argv: bus address, name.
# env: SB_NAME, SB_PATH.
import sys, os, json, dbus
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
bus = dbus.bus.BusConnection(sys.argv[1])
boards = dbus.Interface(bus.get_object(N, O), 'io.github.schemebridge.Pasteboards1')
try:
    path = boards.FindPasteboard(sys.argv[2])
    board = dbus.Interface(bus.get_object(N, path), 'io.github.schemebridge.Pasteboard1')
    types = board.Types()
    print(json.dumps({'items': [bytes(board.ReadBytes(dbus.UInt32(i), 'text/plain')).decode() if 'text/plain' in t else list(map(str, t))
                                for i, t in enumerate(types)]}))
except dbus.DBusException as e:
    print(json.dumps({'error': e.get_dbus_name()}))
