"""The desktop's thumbnail cache (the freedesktop.org thumbnail spec): a file's thumbnail is
``$XDG_CACHE_HOME/thumbnails/{large,normal}/MD5(URI).png``, fresh when its ``Thumb::MTime``
is the file's modification time. The dialog shows it when there is one (no decoding of a
12-megapixel photo), else scales the image itself.
"""

import os

SIZES = ("large", "normal")


def uri_for(path):
    """The file:// URI the spec hashes (each byte outside the unreserved set escaped)."""
    from urllib.parse import quote  # imported when a thumbnail is looked for, not at start
    return "file://" + quote(os.path.abspath(path), safe="/-_.~!$&'()*+,;=:@")


def cache_home(environ=os.environ):
    return environ.get("XDG_CACHE_HOME") or os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".cache")


def cached_paths(path, environ=os.environ):
    """Where the thumbnails of `path` would be, the large one first."""
    import hashlib
    digest = hashlib.md5(uri_for(path).encode("utf-8")).hexdigest()
    return [os.path.join(cache_home(environ), "thumbnails", size, digest + ".png") for size in SIZES]


def is_fresh(thumb_mtime, file_mtime):
    """Whether a thumbnail made when the file's mtime was `thumb_mtime` (its Thumb::MTime text)
    still shows the file."""
    try:
        return int(str(thumb_mtime).strip()) == int(file_mtime)
    except (TypeError, ValueError):
        return False


def original_path(item_path):
    """The file a share item's path reaches: the service hands ``/proc/PID/fd/N`` (the caller's
    descriptor, which the dialog may read as the same user); its link names the file, whose
    path the cache is keyed by. "" when it is not a file on a path."""
    try:
        target = os.readlink(item_path) if item_path.startswith("/proc/") else item_path
    except OSError:
        return ""
    if not target.startswith("/") or target.endswith(" (deleted)"):
        return ""
    return target
