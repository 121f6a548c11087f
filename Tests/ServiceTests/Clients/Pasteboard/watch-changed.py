# Waits for Changed on the pasteboard at argv[1], after touching argv[2] when listening.
# argv: path, ready file, ceiling in seconds, [a gate file that ends the wait when it appears].
from pb import *
import sys, os
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
b = bus()
print(error(lambda: boards(b).FindPasteboard('watched')).split(':')[0], flush=True)
loop = GLib.MainLoop()
b.add_signal_receiver(lambda n: (print('Changed', int(n), flush=True), loop.quit()), 'Changed', PB, N, sys.argv[1])
open(sys.argv[2], 'w').close()
# The reader quits on its Changed (60 s at most); the stranger when the test says the
# reader got it (the gate file appears), so it listened the whole time.
def released():
    if len(sys.argv) > 4 and os.path.exists(sys.argv[4]): loop.quit(); return False
    return True
GLib.timeout_add(50, released)
GLib.timeout_add_seconds(int(sys.argv[3]), loop.quit)
loop.run()
