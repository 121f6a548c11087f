"""The accessibility bridge (at-spi2-atk), started after the dialog's first frame.

GTK 3 starts the bridge in ``gtk_init``: it finds the accessibility bus through the session bus
(``org.a11y.Bus``, which may start at-spi-bus-launcher), connects to it and registers the
application — D-Bus round trips a cold start waited for before anything was drawn, and a
registration a spare (started ahead, waiting for its request outside GTK's main loop) could not
answer for: a screen reader asking it would wait out its timeout. Both set ``NO_AT_BRIDGE`` for
``gtk_init`` (``defer``) and start the bridge themselves once the window is on screen (``start``),
as Chromium does; the bridge then registers the application with its windows as they are, so a
screen reader finds the dialog a moment later.
A user's own ``NO_AT_BRIDGE`` is left as it is (no bridge at all).
"""

import os


def defer():
    """Keeps GTK from starting the bridge now; True when ``start`` should start it later."""
    if "NO_AT_BRIDGE" in os.environ:
        return False
    os.environ["NO_AT_BRIDGE"] = "1"
    return True


def start():
    """Starts the bridge (``atk_bridge_adaptor_init``, in libatk-bridge-2.0, which GTK 3 is
    linked with). Returns its status: 0 when started."""
    os.environ.pop("NO_AT_BRIDGE", None)
    import ctypes  # a few milliseconds: after the first frame
    bridge = ctypes.CDLL("libatk-bridge-2.0.so.0")
    bridge.atk_bridge_adaptor_init.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    bridge.atk_bridge_adaptor_init.restype = ctypes.c_int
    return bridge.atk_bridge_adaptor_init(None, None)
