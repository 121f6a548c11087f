# systemd's part in bus activation (see FakeSystemd.swift): owns org.freedesktop.systemd1, notes
# each ActivationRequest(unit) the bus sends, and starts the unit file's ExecStart= (below ROOT),
# or answers ActivationFailure(unit, NoSuchUnit, ...) when there is no such unit.
# argv: bus address, log file, unit directory ('' for none), root ('' for /).
import os, shlex, subprocess, sys
import dbus, dbus.bus, dbus.lowlevel
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
address, log, unitdir, root = sys.argv[1:5]
bus = dbus.bus.BusConnection(address)
def note(line):
    with open(log, 'a') as f: f.write(line + '\n')
def request(unit):
    note('request ' + unit)
    path = os.path.join(unitdir, unit) if unitdir else ''
    if not path or not os.path.isfile(path):
        m = dbus.lowlevel.SignalMessage('/org/freedesktop/systemd1', 'org.freedesktop.systemd1.Activator', 'ActivationFailure')
        m.set_destination('org.freedesktop.DBus')
        m.append(unit, 'org.freedesktop.systemd1.NoSuchUnit', 'Unit %s not found.' % unit)
        bus.send_message(m)
        return
    lines = [l.strip() for l in open(path)]
    argv = shlex.split([l for l in lines if l.startswith('ExecStart=')][0][len('ExecStart='):])
    argv[0] = root + argv[0]
    note('start ' + ' '.join(argv))
    subprocess.Popen(argv, env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address), stdin=subprocess.DEVNULL)
bus.add_signal_receiver(request, 'ActivationRequest', 'org.freedesktop.systemd1.Activator')
bus.request_name('org.freedesktop.systemd1')
note('ready')
GLib.MainLoop().run()
