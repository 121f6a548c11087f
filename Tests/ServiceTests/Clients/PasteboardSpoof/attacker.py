# The attacker: its own pasteboard of the seen name argv[1], forged data, granted to argv[2].
# Prints whether it got that name.
from pb import *
import sys, dbus
b = bus()
path, name = boards(b).CreatePasteboard(sys.argv[1], {})
board(b, path).SetItems([{'application/json': dbus.ByteArray(b'{"pay":"mallory"}')}])
board(b, path).Grant([sys.argv[2]])
print(name == sys.argv[1])
