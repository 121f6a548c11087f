# (Named so that it does not hide the module it imports.)
# Python's webbrowser opens argv[1] (it hands a custom scheme to xdg-open, with a display, and
# returns at once); prints what open() returned, then stays, as an app would, until the handler's
# argv file argv[2] holds the URL (60 s at most).
import os, sys, time, webbrowser
url, argv = sys.argv[1], sys.argv[2]
print(webbrowser.open(url))
for _ in range(600):
    if os.path.exists(argv) and open(argv, 'rb').read() == url.encode() + b'\0': break
    time.sleep(0.1)
