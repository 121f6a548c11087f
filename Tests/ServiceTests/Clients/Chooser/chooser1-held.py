# A Chooser1 on the bus that holds each question until the service withdraws it: Choose logs
# 'asked QUESTION' (the context's question) to the log file, writes the file 'up' names (the
# question is up) and answers nothing; Close(QUESTION) logs 'closed QUESTION' and answers that
# Choose as a cancel. argv: log file, up file, the interface, bus name and object path. env: SB_BUS.
import dbus, dbus.service, os, sys
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
log, up, interface, name, path = sys.argv[1:6]
bus = dbus.bus.BusConnection(os.environ['SB_BUS'])
held = {}
def note(line):
    with open(log, 'a') as out:
        out.write(line + '\n')
class Chooser(dbus.service.Object):
    @dbus.service.method(interface, in_signature='sa(sss)a{sv}', out_signature='sb', async_callbacks=('reply', 'error'))
    def Choose(self, subject, candidates, context, reply, error):
        question = str(context.get('question', ''))
        held[question] = reply
        note('asked ' + question)
        with open(up + '.part', 'w') as out:
            out.write(question)
        os.rename(up + '.part', up)
    @dbus.service.method(interface, in_signature='s', out_signature='')
    def Close(self, question):
        note('closed ' + str(question))
        reply = held.pop(str(question), None)
        if reply:
            reply('', False)
owned = dbus.service.BusName(name, bus)
Chooser(bus, path)
GLib.MainLoop().run()
