#!/usr/bin/python3
"""What a screen reader reads in a window's focused text field, through AT-SPI (at-spi2-core, gi
Atspi): `a11y-text.py APP TITLE [TEXT]` waits until application APP on the accessibility bus shows
a frame titled TITLE whose focused, editable text field holds TEXT (without TEXT: any text field
has the focus), then prints that text and exits 0. It waits for that state, never sends anything;
after 240 s (a ceiling for GTK beside CPU hogs) it prints what the field held and exits 1.
The accessibility bus is the one DBUS_SESSION_BUS_ADDRESS's org.a11y.Bus names."""
import sys
import time

from gi.repository import GLib

from a11y_frames import Atspi, frame

CEILING = 240
# Lists and tables (a file chooser's rows: each a bus call to read) hold no text field to type in.
LISTS = {Atspi.Role.TABLE, Atspi.Role.TREE_TABLE, Atspi.Role.TREE, Atspi.Role.LIST, Atspi.Role.LIST_BOX}


def focused_text(o):
    """The focused editable text object under `o` (showing; lists and tables not searched), or None."""
    states = o.get_state_set()
    if not states.contains(Atspi.StateType.SHOWING):
        return None
    if states.contains(Atspi.StateType.FOCUSED) and states.contains(Atspi.StateType.EDITABLE) and o.get_text_iface() is not None:
        return o
    if o.get_role() in LISTS:
        return None
    for i in range(o.get_child_count()):
        child = o.get_child_at_index(i)
        found = focused_text(child) if child is not None else None
        if found is not None:
            return found
    return None


def contents(o):
    text = o.get_text_iface()
    return text.get_text(0, text.get_character_count())


def main():
    app_name, title = sys.argv[1], sys.argv[2]
    wanted = sys.argv[3] if len(sys.argv) > 3 else None
    deadline, last = time.monotonic() + CEILING, None
    while time.monotonic() < deadline:
        try:
            w = frame(app_name, title)
            field = focused_text(w) if w is not None else None
            if field is not None:
                last = contents(field)
                if wanted is None or last == wanted:
                    print(last)
                    return 0
        except GLib.Error:
            pass  # an object went away while it was read (the dialog changing): read again
        time.sleep(0.1)
    print("frame %r of %r: focused text field %s" % (title, app_name, "never found" if last is None else "holds %r" % last), file=sys.stderr)
    return 1


sys.exit(main())
