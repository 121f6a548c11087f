# The person viewer (seed 001): reads the pasteboard named in the URL's fragment, records what it
# read in <records>/viewer.out (written whole by a rename) and deletes the pasteboard.
# argv: URL, records folder.
import sys, os, json, urllib.parse
from pb import *
url, records = sys.argv[1], sys.argv[2]
name = urllib.parse.urlsplit(url).fragment
b = bus()
path = boards(b).FindPasteboard(name)
p = board(b, path)
types = [list(map(str, t)) for t in p.Types()]
person = json.loads(read_all(p.Read(0, 'application/x-person+json').take()))
image = read_all(p.Read(1, 'image/png').take())
open(records + '/viewer.out.tmp', 'w').write(json.dumps({'types': types, 'person': person, 'image': len(image), 'png': image[:4] == b'\x89PNG'}))
p.Delete()
os.rename(records + '/viewer.out.tmp', records + '/viewer.out')
