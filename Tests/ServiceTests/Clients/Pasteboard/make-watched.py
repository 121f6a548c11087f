# Makes a pasteboard 'watched', grants it to argv[1] and prints its path.
from pb import *
import sys
b = bus()
path, name = boards(b).CreatePasteboard('watched', {})
board(b, path).Grant([sys.argv[1]])
print(path)
