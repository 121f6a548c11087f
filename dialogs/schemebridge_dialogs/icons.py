"""Which picture a target gets, as the desktop picks one: the icon theme's (the entry's Icon=
name, else its symbolic or less specific form), else the entry's own image file (an absolute
Icon=, or the name in pixmaps), else a generic icon of the target's kind. Pure logic: the theme
is asked through `has_icon`, files through `is_file`.
"""

import os

FILE_LIMIT = 1 << 20   # bytes of an image file read for an icon
PIXMAP_DIRS = ("/usr/share/pixmaps", "/usr/local/share/pixmaps")
PIXMAP_EXTENSIONS = (".png", ".svg", ".xpm")
FILES_ID = "io.github.schemebridge.Files.desktop"

GENERIC = {
    "app": ("application-x-executable", "applications-other", "system-run"),
    "device": ("phone", "smartphone", "computer"),
    "builtin": ("system-run", "applications-system"),
}
BUILTIN = {
    "builtin:copy": ("edit-copy",),
    "builtin:save": ("document-save-as", "document-save"),
    "builtin:open-in": ("document-open",),
    FILES_ID: ("folder-open", "folder", "document-open"),
}


def _usable_file(path, is_file, size_of):
    try:
        return is_file(path) and size_of(path) <= FILE_LIMIT
    except OSError:
        return False


def generic(ident, kind):
    """The generic names for a target of `kind` (and SchemeBridge's own activities)."""
    for prefix, names in BUILTIN.items():
        if ident == prefix or ident.startswith(prefix + ":"):
            return names
    return GENERIC.get(kind, GENERIC["app"])


def resolve(icon, ident, kind, has_icon, is_file=os.path.isfile, size_of=os.path.getsize, pixmap_dirs=PIXMAP_DIRS):
    """("name", theme icon) or ("file", path) for a target; ("name", "image-missing") at worst."""
    icon = (icon or "").strip()
    if icon and not icon.startswith("/") and "/" not in icon:
        if has_icon(icon):
            return ("name", icon)
        for variant in (icon + "-symbolic", icon.rsplit("-", 1)[0] if "-" in icon else ""):
            if variant and has_icon(variant):
                return ("name", variant)
        for d in pixmap_dirs:
            for ext in ("",) + PIXMAP_EXTENSIONS:
                path = os.path.join(d, icon + ext)
                if (ext or os.path.splitext(icon)[1]) and _usable_file(path, is_file, size_of):
                    return ("file", path)
    elif icon.startswith("/") and _usable_file(icon, is_file, size_of):
        return ("file", icon)
    for name in generic(ident, kind):
        if has_icon(name):
            return ("name", name)
    return ("name", "image-missing")
