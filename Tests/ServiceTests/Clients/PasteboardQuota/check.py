# Of the paths in argv, prints how many still exist and how many have items.
from pb import *
import sys
b = bus()
left = [p for p in sys.argv[1:] if error(lambda: board(b, p).Types()) == 'no error']
print(len(left), sum(1 for p in left if len(board(b, p).Types()) > 0))
