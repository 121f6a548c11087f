# Makes a pasteboard 'shared-notes' of this app's own; prints whether its path differs from
# argv[1] (another app's) and how many items it has.
from pb import *
import sys
b = bus()
path, name = boards(b).CreatePasteboard('shared-notes', {})
print(path != sys.argv[1], len(board(b, path).Types()))
