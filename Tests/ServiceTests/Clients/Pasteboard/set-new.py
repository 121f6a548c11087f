# Sets the pasteboard at argv[1] to one text item; prints the item count.
from pb import *
import sys, dbus
print(int(board(bus(), sys.argv[1]).SetItems([{'text/plain': dbus.ByteArray(b'new')}])))
