# What a viewer reads: by name (FindPasteboard) and by the path it was handed.
from pb import *
import dbus


def by_name(b, name):
    try: return bytes(board(b, boards(b).FindPasteboard(name)).ReadBytes(0, 'application/json')).decode()
    except dbus.DBusException as e: return e.get_dbus_name().replace(ERR, '')


def by_path(b, path):
    return bytes(board(b, path).ReadBytes(0, 'application/json')).decode() if path else 'no path'
