# Revokes the pasteboard at argv[1] from the app ids that follow.
from pb import *
import sys
board(bus(), sys.argv[1]).Revoke(sys.argv[2:])
