# Reads the persistent pasteboard back after a restart; prints its size.
from pb import *
b = bus()
print(len(bytes(board(b, boards(b).FindPasteboard('on-a-small-disk')).ReadBytes(0, 'text/plain'))))
