#!/usr/bin/python3
"""Saves what an X11 display shows as a PNG: `x11-screenshot.py OUT.png [WINDOW-ID]`.

The demo (`make run`) uses it to show the share sheet and the picker it drew on a private Xvfb.
GTK 3 through PyGObject, which the sheet needs anyway: no xwd or ImageMagick. With a window id
(decimal, as xdotool prints it) the picture is that window's rectangle of the screen, with a
margin; without, the whole screen. DISPLAY names the display.
"""
import sys

import gi

gi.require_version("Gdk", "3.0")
from gi.repository import Gdk  # noqa: E402


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    display = Gdk.Display.open(None) if Gdk.Display.get_default() is None else Gdk.Display.get_default()
    if display is None:
        print("x11-screenshot: cannot open the display", file=sys.stderr)
        return 1
    root = display.get_default_screen().get_root_window()
    x, y, width, height = 0, 0, root.get_width(), root.get_height()
    if len(sys.argv) == 3:
        from gi.repository import GdkX11  # noqa: F401  (registers the X11 backend's types)
        window = GdkX11.X11Window.foreign_new_for_display(display, int(sys.argv[2]))
        if window is None:
            print(f"x11-screenshot: no window {sys.argv[2]}", file=sys.stderr)
            return 1
        wx, wy = window.get_origin()[1:]
        margin = 16
        x, y = max(0, wx - margin), max(0, wy - margin)
        width = min(root.get_width() - x, window.get_width() + 2 * margin)
        height = min(root.get_height() - y, window.get_height() + 2 * margin)
    pixbuf = Gdk.pixbuf_get_from_window(root, x, y, width, height)
    if pixbuf is None:
        print("x11-screenshot: the screen could not be read", file=sys.stderr)
        return 1
    pixbuf.savev(sys.argv[1], "png", [], [])
    return 0


if __name__ == "__main__":
    sys.exit(main())
