"""What the AT-SPI helpers (`a11y-tree.py`, `a11y-text.py`) share: finding a window as a screen
reader does (at-spi2-core, gi Atspi), on the accessibility bus DBUS_SESSION_BUS_ADDRESS's
org.a11y.Bus names."""
import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402,F401 (the helpers take it from here)


def frame(app_name, title):
    """Application `app_name`'s frame titled `title` that shows, or None."""
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is None or app.get_name() != app_name:
            continue
        for j in range(app.get_child_count()):
            w = app.get_child_at_index(j)
            if w is not None and w.get_name() == title and w.get_state_set().contains(Atspi.StateType.SHOWING):
                return w
    return None
