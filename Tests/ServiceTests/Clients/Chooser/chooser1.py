# A Chooser1 on the bus: logs each Choose call (subject, candidates, context, as JSON lines) to
# the log file and answers the answers in turn (the last one again and again): 'b.desktop
# always', 'b.desktop', '' (a cancel). argv: log file, answers as JSON, the interface, bus name
# and object path. env: SB_BUS.
import dbus, dbus.service, os, sys, json
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
log, answers, interface, name, path = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
bus = dbus.bus.BusConnection(os.environ['SB_BUS'])
class Chooser(dbus.service.Object):
    @dbus.service.method(interface, in_signature='sa(sss)a{sv}', out_signature='sb')
    def Choose(self, subject, candidates, context):
        with open(log, 'a') as out:
            out.write(json.dumps([str(subject), [[str(x) for x in c] for c in candidates],
                                  {str(k): (bool(v) if isinstance(v, dbus.Boolean) else str(v)) for k, v in context.items()}]) + '\n')
        answer = (answers.pop(0) if len(answers) > 1 else answers[0]).split(' ')
        return (answer[0], len(answer) > 1)
owned = dbus.service.BusName(name, bus)
Chooser(bus, path)
GLib.MainLoop().run()
