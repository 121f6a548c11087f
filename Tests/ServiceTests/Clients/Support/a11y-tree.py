#!/usr/bin/python3
"""Prints what a screen reader finds of a window, through AT-SPI (at-spi2-core, gi Atspi):
`a11y-tree.py APP TITLE` waits (at most 60 s) until application APP on the accessibility bus
shows a frame titled TITLE, then prints one line per object of it that is showing:
ROLE<TAB>NAME (the role's English name, the accessible name). Exit 1 when it never comes.
The accessibility bus is the one DBUS_SESSION_BUS_ADDRESS's org.a11y.Bus names."""
import sys
import time

from a11y_frames import Atspi, frame


def walk(o, out):
    states = o.get_state_set()
    if not states.contains(Atspi.StateType.SHOWING):
        return
    out.append("%s\t%s" % (o.get_role_name(), o.get_name() or ""))
    for i in range(o.get_child_count()):
        child = o.get_child_at_index(i)
        if child is not None:
            walk(child, out)


def main():
    app_name, title = sys.argv[1], sys.argv[2]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        w = frame(app_name, title)
        if w is not None:
            out = []
            walk(w, out)
            print("\n".join(out))
            return 0
        time.sleep(0.2)
    print("no showing frame %r of %r on the accessibility bus" % (title, app_name), file=sys.stderr)
    return 1


sys.exit(main())
