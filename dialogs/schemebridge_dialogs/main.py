"""The program: read the request (one JSON line on stdin), show the dialog, write the answer
(one JSON line on stdout), exit 0. ``--spare``: load GTK, open the display and draw once
first, then wait for the request (the service keeps one started ahead).

Failing is never a cancel: a request that is not one, or a dialog that cannot be shown (no
display, no GTK), writes a ``failed`` answer with the reason and exits 2, and the reason goes
to stderr (the service's log has it; the caller gets NoChooser).
"""

import os
import signal
import sys

from . import message


def read_request(stream):
    """One line (the request), at most message.REQUEST_LIMIT bytes."""
    return stream.readline(message.REQUEST_LIMIT + 1)


def say(out, data):
    out.write(data)
    out.flush()


def fail(out, reason):
    sys.stderr.write("schemebridge-dialog: %s\n" % reason)
    sys.stderr.flush()
    try:
        say(out, message.failed(reason))
    except OSError:
        pass
    os._exit(2)


def settle_locale():
    """A locale the C library has not generated (LANG=de_DE.UTF-8 where only C.UTF-8 is) still
    gets its translations (Python's gettext reads the variables itself: LANGUAGE keeps the
    language) while GTK runs under C.UTF-8 instead of warning and falling back to ASCII "C"."""
    import locale
    try:
        locale.setlocale(locale.LC_ALL, "")
    except locale.Error:
        wanted = next((os.environ[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if os.environ.get(k)), "")
        if wanted and not os.environ.get("LANGUAGE"):
            os.environ["LANGUAGE"] = wanted.split(".")[0].split("@")[0]
        os.environ["LC_ALL"] = "C.UTF-8"
        from . import i18n
        i18n.reload()


def main(argv=None):
    argv = sys.argv if argv is None else argv
    settle_locale()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    out = sys.stdout.buffer
    spare = "--spare" in argv[1:]
    Gtk = None
    bridge_later = False
    if spare:
        # A spare waits for its request outside GTK's main loop: registered on the accessibility
        # bus, it would answer no screen reader meanwhile, and each would wait out its calls'
        # timeout (15 s with libatspi 2.46) on it. Its bridge starts with the dialog's first
        # frame, as a cold start's does.
        from . import a11y
        bridge_later = a11y.defer()
        from . import gtkui
        try:
            Gtk = gtkui.load(spare=True)
        except (ImportError, ValueError) as error:
            fail(out, "the dialog cannot be shown: %s" % error)
    try:
        request = message.parse_request(read_request(sys.stdin.buffer))
    except (message.MessageError, UnicodeDecodeError) as error:
        fail(out, "not a request: %s" % error)
    if not request.candidates:
        say(out, message.cancelled())
        os._exit(0)
    if Gtk is None:
        # The caller's token goes to the window itself (gtkui: once mapped on Wayland), never
        # through DESKTOP_STARTUP_ID, which GTK would spend before the window is mapped.
        os.environ.pop("DESKTOP_STARTUP_ID", None)
        # The accessibility bridge starts after the first frame (a11y: its D-Bus round trips
        # would come before it), as the spare's does.
        from . import a11y
        bridge_later = a11y.defer()
        from . import gtkui
        try:
            Gtk = gtkui.load(spare=False)
        except (ImportError, ValueError) as error:
            fail(out, "the dialog cannot be shown: %s" % error)
    from . import gtkui
    result = gtkui.Dialog(Gtk, request, bridge_later=bridge_later).run()
    say(out, message.cancelled() if result is None else message.chosen(*result))
    os._exit(0)


def run():
    try:
        main()
    except SystemExit:
        raise
    except Exception as error:  # noqa: BLE001 — a dialog that cannot be shown is an error, never a cancel
        fail(sys.stdout.buffer, "the dialog could not be shown: %s: %s" % (type(error).__name__, error))
