# A grantee of the pasteboard at argv[1]: reads its text, then tries what only the owner may.
from pb import *
import sys
b = bus()
p = board(b, sys.argv[1])
print(bytes(p.ReadBytes(0, 'text/plain')).decode())
print(error(lambda: p.SetItems([])).split(':')[0])
print(error(lambda: p.Grant(['someone.Else'])).split(':')[0])
