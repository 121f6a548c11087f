# A stranger and a caller listen while the caller opens a URL with userinfo, query and fragment,
# and one that fails; then the caller writes a new entry (argv[2]), whose HandlersChanged ends
# the watch. Prints what each heard of the rest: [member, URL, sent to it alone].
# argv: bus address, entry path. env: SB_NAME, SB_PATH.
import sys, os, json, dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
N, O = os.environ['SB_NAME'], os.environ['SB_PATH']
seen = {'stranger': [], 'caller': []}
loop = GLib.MainLoop()
def receiver(who):
    def record(*args, **kw):
        if kw['member'] == 'HandlersChanged':
            seen[who].append(None)
            if all(None in v for v in seen.values()): loop.quit()
        else:
            seen[who].append([kw['member'], str(args[0]), bool(kw['destination'])])
    return record
conns = {}
for who in ('stranger', 'caller'):
    conns[who] = dbus.bus.BusConnection(sys.argv[1])
    conns[who].add_signal_receiver(receiver(who), dbus_interface=N, member_keyword='member', destination_keyword='destination')
    conns[who].call_blocking('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetId', '', [])
svc = dbus.Interface(conns['caller'].get_object(N, O), N)
def act():
    svc.OpenURL('todolist://me:pw@host/add?task=SECRET#frag', timeout=120)
    try:
        svc.OpenURL('nothing://x?token=SECRET', timeout=120)
    except dbus.DBusException:
        pass
    open(sys.argv[2] + '.tmp', 'w').write('[Desktop Entry]\nType=Application\nName=M\nExec=true %u\nMimeType=x-scheme-handler/marker;\n')
    os.rename(sys.argv[2] + '.tmp', sys.argv[2])
    return False
GLib.idle_add(act)
GLib.timeout_add(120000, loop.quit)   # a ceiling: the loop ends when both heard the marker
loop.run()
print(json.dumps({k: [x for x in v if x] for k, v in seen.items()}))
