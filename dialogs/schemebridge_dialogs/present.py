"""What a dialog says: titles, headings, the description of what is shared, button labels.
Pure functions of the request (no GTK), unit-tested; every string goes through gettext.
"""

import unicodedata

from .i18n import _, ngettext

NAME_LIMIT = 60
TEXT_LINES = 3
LINE_LIMIT = 80


def plain(text, limit=NAME_LIMIT):
    """Text shown as is: control and format characters (bidi overrides among them) become
    spaces or go, runs of spaces shrink to one, cut to `limit` characters with an ellipsis."""
    out = []
    for ch in (text or "")[:4096]:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Zl", "Zp"):
            ch = " "
        elif cat in ("Cf", "Cs", "Co", "Cn"):
            continue
        if ch == " " and out and out[-1] == " ":
            continue
        out.append(ch)
    s = "".join(out).strip()
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def caller_label(request):
    """How the asking app is named to the user: the name the service computed (the entry's
    Name, a script's file name), "the command line" for the CLI run from a terminal, "" when
    unidentified."""
    if request.caller_command_line:
        return _("the command line")
    return plain(request.caller_name) or plain(request.caller_id)


def human_size(size):
    """`size` bytes as people read it (decimal units, as GNOME's file managers show)."""
    if size < 0:
        return ""
    if size < 1000:
        return ngettext("%d byte", "%d bytes", size) % size
    value = float(size)
    for unit in (_("%.1f kB"), _("%.1f MB"), _("%.1f GB"), _("%.1f TB")):
        value /= 1000.0
        if value < 1000 or unit == _("%.1f TB"):
            return unit % value
    return ""


def first_lines(text, lines=TEXT_LINES, limit=LINE_LIMIT):
    """The first `lines` non-empty lines of `text`, each cleaned and cut to `limit`."""
    out = []
    for line in (text or "").splitlines():
        cleaned = plain(line, limit)
        if cleaned:
            out.append(cleaned)
        if len(out) == lines:
            break
    return out


def share_title(request):
    caller = caller_label(request)
    return _("Share from %s") % caller if caller else _("Share")


def share_summary(share):
    """(headline, details): what is shared, as a person would say it.
    One file: its name and size; several: how many and their size, then the first names;
    a URL: the URL; text: its first lines."""
    items = share.items
    count = share.count if share.count > 0 else len(items)
    files = [i for i in items if i.kind in ("file", "data")]
    urls = [i for i in items if i.kind == "url"]
    texts = [i for i in items if i.kind == "text"]
    if count == 1 and urls:
        return plain(urls[0].url, 200), []
    if count == 1 and texts:
        lines = first_lines(texts[0].text)
        return (lines[0] if lines else _("Text")), lines[1:]
    if count == 1 and files:
        f = files[0]
        name = plain(f.name) or _("Untitled")
        size = human_size(f.size)
        return name, ([size] if size else [])
    if not items:
        if count <= 0:
            return _("Items"), []
        return ngettext("%d item", "%d items", count) % count, []
    total = sum(i.size for i in files if i.size > 0)
    if len(files) == count:
        head = ngettext("%d file", "%d files", count) % count
    else:
        head = ngettext("%d item", "%d items", count) % count
    if total:
        head = _("%(what)s · %(size)s") % {"what": head, "size": human_size(total)}
    names = [plain(i.name) if i.kind in ("file", "data") else plain(i.url or (first_lines(i.text, 1) or [""])[0])
             for i in items[:3]]
    names = [n for n in names if n]
    rest = count - min(3, len(items))
    if rest > 0:
        names.append(ngettext("and %d more", "and %d more", rest) % rest)
    return head, [", ".join(names)] if names else []


def chooser_title(request):
    """The window's title: says what choosing does."""
    if request.kind == "pick":
        return plain(request.title) or _("Choose a Document")
    return _("Open With")


def chooser_heading(request, describe_type=None):
    """The line above the list: what is opened (a scheme's links, a type's files), or where a
    picked document comes from; `describe_type`: type → its description ("Markdown document")."""
    if request.kind == "pick":
        return _("Where should the document come from?")
    if request.received_from:
        return _("%s sent a file. Open it with:") % plain(request.received_from)
    if request.kind == "type":
        what = (describe_type(request.subject) if describe_type else "") or request.subject
        return _("Open %s with:") % plain(what)
    return _("Open “%s” links with:") % plain(request.subject)


def asked_by(request):
    """The line under the heading: who asks ("" unidentified)."""
    caller = caller_label(request)
    if not caller:
        return ""
    if request.kind == "pick":
        return _("For %s") % caller
    return _("Asked by %s") % caller


def action_label(request):
    """The button that does it, with its mnemonic: Share, Open, Choose."""
    if request.kind == "share":
        return _("_Share")
    if request.kind == "pick":
        return _("C_hoose")
    return _("_Open")


def always_label(request):
    """The same "Always" wording in every dialog; for the app that asked."""
    caller = caller_label(request)
    if caller and not request.caller_command_line:
        return _("_Always use this for %s") % caller
    return _("_Always use this")


def group_label(kind):
    return {"app": _("Apps"), "device": _("Devices"), "builtin": _("More")}.get(kind, _("Apps"))


def url_host(url):
    from urllib.parse import urlsplit  # rarely needed: not imported at start
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""
