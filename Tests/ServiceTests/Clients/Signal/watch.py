# Subscribes to the contract's signals, runs one action (below) with `svc`, the service proxy,
# waits for `count` signals and prints them as JSON.
# argv: bus address, count, action, the action's arguments. env: SB_NAME (bus name and
# interface), SB_PATH.
import os, sys, json, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
count, action, arguments = int(sys.argv[2]), sys.argv[3], sys.argv[4:]
bus = dbus.bus.BusConnection(sys.argv[1])
seen = []
loop = GLib.MainLoop()
def record(*args, **kw):
    seen.append({'member': kw['member'], 'args': [plain(a) for a in args], 'to': str(kw['destination'] or '')})
    if len(seen) >= count: loop.quit()
def plain(v):
    if isinstance(v, dbus.Dictionary): return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (dbus.Array, list)): return [plain(x) for x in v]
    if isinstance(v, dbus.Boolean): return bool(v)
    if isinstance(v, (dbus.UInt32, dbus.Int32, dbus.UInt64, dbus.Int64)): return int(v)
    return str(v)
bus.add_signal_receiver(record, dbus_interface=N, member_keyword='member', destination_keyword='destination')
bus.add_signal_receiver(record, signal_name='PropertiesChanged', dbus_interface='org.freedesktop.DBus.Properties', member_keyword='member',
                        destination_keyword='destination')
class Patient:
    # Calls wait up to 120 s, not libdbus's 25: the first one starts the service by bus
    # activation, which a machine busy with the whole suite can make slow.
    def __init__(self, proxy): self.proxy = proxy
    def __getattr__(self, name):
        method = getattr(self.proxy, name)
        return lambda *a, **k: method(*a, timeout=k.pop('timeout', 120), **k)
svc = Patient(dbus.Interface(bus.get_object(N, O), N))

def open_handled_and_failed():
    """Opens todolist://add?task=milk, then nothing://x (which fails)."""
    svc.OpenURL('todolist://add?task=milk')
    try:
        svc.OpenURL('nothing://x')
    except dbus.DBusException:
        pass

def add_entry(entry, program):
    """Checks latescheme:// cannot be opened, then writes `entry` (whole, by a rename): an app
    running `program` for latescheme://."""
    assert not svc.CanOpenURL('latescheme://x')
    open(entry + '.tmp', 'w').write('[Desktop Entry]\nType=Application\nName=Late\nExec=' + program + ' %u\nMimeType=x-scheme-handler/latescheme;\n')
    os.rename(entry + '.tmp', entry)

actions = {'open-handled-and-failed': open_handled_and_failed, 'add-entry': add_entry}
def act():
    actions[action](*arguments)
    return False
GLib.idle_add(act)
GLib.timeout_add(240000, loop.quit)   # a ceiling: the loop ends when the signals came
loop.run()
print(json.dumps(seen))
