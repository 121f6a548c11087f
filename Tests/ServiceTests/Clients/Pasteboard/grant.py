# Grants the pasteboard at argv[1] to the app ids that follow.
from pb import *
import sys
b = bus()
board(b, sys.argv[1]).Grant(sys.argv[2:])
