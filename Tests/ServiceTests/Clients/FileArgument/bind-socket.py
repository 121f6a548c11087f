# Binds a unix socket at argv[1] (a socket file on disk) and leaves.
import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])
