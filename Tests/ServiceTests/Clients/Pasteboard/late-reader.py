# A handler that reads the pasteboard named in the URL's fragment and writes its text to
# <records>/late.out (whole, by a rename). argv: URL, records folder.
from pb import *
import sys, urllib.parse
b = bus()
p = board(b, boards(b).FindPasteboard(urllib.parse.urlsplit(sys.argv[1]).fragment))
open(sys.argv[2] + '/late.tmp', 'w').write(bytes(p.ReadBytes(0, 'text/plain')).decode())
import os
os.rename(sys.argv[2] + '/late.tmp', sys.argv[2] + '/late.out')
