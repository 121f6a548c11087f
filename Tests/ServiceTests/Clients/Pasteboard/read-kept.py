# Finds 'kept' by name and prints its path, its text and the size of its data.
from pb import *
import hashlib
b = bus()
path = boards(b).FindPasteboard('kept')
p = board(b, path)
print(path)
print(bytes(p.ReadBytes(0, 'text/plain')).decode(), len(read_all(p.Read(0, 'application/octet-stream').take())))
