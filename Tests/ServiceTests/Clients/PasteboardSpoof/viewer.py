# The spawned viewer: waits for the gate, then reads the pasteboard named in its URL's fragment by
# name and by SCHEMEBRIDGE_PASTEBOARD_PATH, and records both in records/viewer.json.
# argv: URL, bus address, pb module folder, gate file, gate folder, records folder.
import sys, os, time, json, urllib.parse
sys.dont_write_bytecode = True  # read_both is imported from the source tree
url, address, module, gate, gates, records = sys.argv[1:7]
os.environ['SB_BUS'] = address
sys.path[0:0] = [module, os.path.dirname(os.path.abspath(__file__))]
from pb import *
from read_both import by_name, by_path
while not os.path.exists(gate) and os.path.isdir(gates): time.sleep(0.1)
b = bus()
name = urllib.parse.urlsplit(url).fragment
out = {'name': by_name(b, name), 'path': by_path(b, os.environ.get('SCHEMEBRIDGE_PASTEBOARD_PATH', ''))}
open(records + '/viewer.tmp', 'w').write(json.dumps(out))
os.rename(records + '/viewer.tmp', records + '/viewer.json')
