#!/usr/bin/python3
"""The applications on the accessibility bus, as a screen reader first finds them (at-spi2-core,
gi Atspi): `a11y-apps.py` prints the process id of each application the registry lists, one a
line. The ids come from the accessibility bus itself, so an application that answers nothing
(busy, or waiting outside its main loop) is listed without waiting for it.
The accessibility bus is the one DBUS_SESSION_BUS_ADDRESS's org.a11y.Bus names."""
import sys

from a11y_frames import Atspi


def main():
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is not None:
            print(app.get_process_id())
    return 0


sys.exit(main())
