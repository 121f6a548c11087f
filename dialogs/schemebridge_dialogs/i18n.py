"""gettext for the dialogs (domain ``schemebridge-dialogs``).

Python's gettext reads LANGUAGE, LC_ALL, LC_MESSAGES and LANG itself, so a translation is
found whether or not the C library has that locale generated (a session with LANG=de_DE.UTF-8
on a system with only C.UTF-8 still gets German words); no LANG at all is English. The catalogs:
``$SCHEMEBRIDGE_DIALOGS_LOCALEDIR``, else ``locale/`` beside the package (``make install``
puts it there; ``make dialogs-mo`` builds it in the source tree), else the system's.
"""

import gettext
import os

DOMAIN = "schemebridge-dialogs"


def locale_dirs():
    """Where the catalogs are looked for, in order."""
    dirs = []
    env = os.environ.get("SCHEMEBRIDGE_DIALOGS_LOCALEDIR")
    if env:
        dirs.append(env)
    dirs.append(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "locale"))
    dirs.append(None)  # the system's (sys.base_prefix/share/locale)
    return dirs


def translation():
    for d in locale_dirs():
        try:
            return gettext.translation(DOMAIN, localedir=d)
        except OSError:
            continue
    return gettext.NullTranslations()


_t = translation()


def reload():
    """Reads the catalogs again (the environment changed: tests)."""
    global _t
    _t = translation()


def _(text):
    return _t.gettext(text)


def ngettext(singular, plural, n):
    return _t.ngettext(singular, plural, n)


def N_(text):
    """Marks `text` for translation where it is defined; translated where it is shown."""
    return text
