"""The message the service and the dialog exchange: one request (service → dialog, stdin) and one
answer (dialog → service, stdout), each a JSON object on one line with ``"version": 1``.

The schema is defined once, in the contract module (Sources/SchemeBridgeContract/Dialogs.swift:
``DialogRequest``, ``DialogAnswer``); this module reads and checks the request against it and
writes the answer. A request that is not one (bad JSON, another version, a missing or mistyped
field) is a ``MessageError``: the dialog answers ``failed``, never a cancel.
"""

import json
import unicodedata

from . import PROTOCOL_VERSION

KINDS = ("scheme", "type", "pick", "share")
TARGET_KINDS = ("app", "device", "builtin")
ITEM_KINDS = ("file", "url", "text", "data")
REQUEST_LIMIT = 4 << 20      # bytes of one request
CANDIDATE_LIMIT = 500        # candidates taken
ITEM_LIMIT = 1000            # share items described
FIELD_LIMIT = 4096           # characters of a field


class MessageError(ValueError):
    """The request is not a version-1 request of the contract."""


class _Record:
    """A plain record: its fields (``FIELDS``: name and default) set by keyword or in order,
    compared and shown by value. (Not ``dataclasses``: importing it costs a cold start ~15 ms.)"""
    FIELDS = ()

    def __init__(self, *args, **kwargs):
        if len(args) > len(self.FIELDS):
            raise TypeError("%s takes at most %d fields" % (type(self).__name__, len(self.FIELDS)))
        for (name, default), value in zip(self.FIELDS, args):
            setattr(self, name, value)
        for name, default in self.FIELDS[len(args):]:
            setattr(self, name, kwargs.pop(name) if name in kwargs else (default() if callable(default) else default))
        if kwargs:
            raise TypeError("%s has no field %s" % (type(self).__name__, ", ".join(sorted(kwargs))))

    def __eq__(self, other):
        return type(self) is type(other) and all(getattr(self, n) == getattr(other, n) for n, _d in self.FIELDS)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%r" % (n, getattr(self, n)) for n, _d in self.FIELDS))


class Candidate(_Record):
    FIELDS = (("id", ""), ("name", ""), ("icon", ""), ("kind", "app"))


class Item(_Record):
    FIELDS = (("kind", ""), ("name", ""), ("type", ""), ("size", -1), ("path", ""), ("url", ""), ("text", ""))


class Share(_Record):
    FIELDS = (("count", 0), ("types", list), ("items", list))


class Request(_Record):
    FIELDS = (("kind", ""), ("subject", ""), ("candidates", list), ("caller_id", ""), ("caller_name", ""),
              ("caller_command_line", False), ("title", ""), ("can_remember", False), ("activation_token", ""),
              ("parent_window", ""), ("received_from", ""), ("share", None))


def _str(obj, key, required=False, limit=FIELD_LIMIT):
    if key not in obj:
        if required:
            raise MessageError("the request has no %r" % key)
        return ""
    value = obj[key]
    if not isinstance(value, str):
        raise MessageError("%r is not a string" % key)
    return value[:limit]


def _bool(obj, key):
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise MessageError("%r is not a boolean" % key)
    return value


def _int(obj, key, default):
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise MessageError("%r is not an integer" % key)
    return value


def _object(obj, key, required=False):
    if key not in obj:
        if required:
            raise MessageError("the request has no %r" % key)
        return None
    value = obj[key]
    if not isinstance(value, dict):
        raise MessageError("%r is not an object" % key)
    return value


def _list(obj, key, required=False):
    if key not in obj:
        if required:
            raise MessageError("the request has no %r" % key)
        return []
    value = obj[key]
    if not isinstance(value, list):
        raise MessageError("%r is not an array" % key)
    return value


def _id_is_plain(ident):
    return bool(ident) and not ident.startswith("-") and not any(
        unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in ident)


def parse_request(data):
    """The request in `data` (bytes or str: one JSON object). Raises ``MessageError``."""
    if isinstance(data, bytes):
        if len(data) > REQUEST_LIMIT:
            raise MessageError("the request is over %d bytes" % REQUEST_LIMIT)
        data = data.decode("utf-8", "strict") if data else ""
    text = data.strip()
    if not text:
        raise MessageError("no request came (stdin ended)")
    try:
        obj = json.loads(text)
    except ValueError as error:
        raise MessageError("the request is not JSON: %s" % error) from None
    if not isinstance(obj, dict):
        raise MessageError("the request is not a JSON object")
    if "version" not in obj:
        raise MessageError("the request has no 'version'")
    version = obj["version"]
    if isinstance(version, bool) or not isinstance(version, int) or version != PROTOCOL_VERSION:
        raise MessageError("request version %r is not %d, the one this dialog speaks" % (version, PROTOCOL_VERSION))
    kind = _str(obj, "kind", required=True)
    if kind not in KINDS:
        raise MessageError("'kind' %r is none of %s" % (kind, ", ".join(KINDS)))
    subject = _str(obj, "subject", required=True)
    caller = _object(obj, "caller") or {}
    candidates, seen = [], set()
    for i, c in enumerate(_list(obj, "candidates", required=True)):
        if not isinstance(c, dict):
            raise MessageError("candidate %d is not an object" % i)
        ident = _str(c, "id", required=True)
        target_kind = _str(c, "kind") or "app"
        if target_kind not in TARGET_KINDS:
            raise MessageError("candidate %d: 'kind' %r is none of %s" % (i, target_kind, ", ".join(TARGET_KINDS)))
        if not _id_is_plain(ident) or ident in seen:
            continue  # never offered: an id a dialog could take for an option, or twice
        seen.add(ident)
        candidates.append(Candidate(ident, _str(c, "name") or ident, _str(c, "icon"), target_kind))
        if len(candidates) >= CANDIDATE_LIMIT:
            break
    request = Request(kind=kind, subject=subject, candidates=candidates,
                      caller_id=_str(caller, "id"), caller_name=_str(caller, "name"),
                      caller_command_line=_bool(caller, "command-line"),
                      title=_str(obj, "title"), can_remember=_bool(obj, "can-remember"),
                      activation_token=_str(obj, "activation-token"), parent_window=_str(obj, "parent-window"),
                      received_from=_str(obj, "received-from"))
    share = _object(obj, "share")
    if share is not None:
        items = []
        for i, it in enumerate(_list(share, "items")[:ITEM_LIMIT]):
            if not isinstance(it, dict):
                raise MessageError("share item %d is not an object" % i)
            item_kind = _str(it, "kind", required=True)
            if item_kind not in ITEM_KINDS:
                raise MessageError("share item %d: 'kind' %r is none of %s" % (i, item_kind, ", ".join(ITEM_KINDS)))
            items.append(Item(item_kind, _str(it, "name"), _str(it, "type"), _int(it, "size", -1),
                              _str(it, "path"), _str(it, "url"), _str(it, "text")))
        types = []
        for t in _list(share, "types"):
            if not isinstance(t, str):
                raise MessageError("'share.types' holds a non-string")
            types.append(t[:FIELD_LIMIT])
        request.share = Share(count=_int(share, "count", len(items)), types=types, items=items)
    elif kind == "share":
        raise MessageError("a 'share' request has no 'share'")
    return request


def _line(obj):
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


TOKEN_LIMIT = 4096           # bytes of an activation token


def is_token(token):
    """Whether `token` is an activation token the answer may carry (the contract's check: not
    empty, at most 4096 bytes of UTF-8, no control characters)."""
    return (isinstance(token, str) and bool(token) and len(token.encode("utf-8", "surrogatepass")) <= TOKEN_LIMIT
            and not any(ord(c) < 0x20 or ord(c) == 0x7F for c in token))


def chosen(ident, always=False, activation_token=None):
    """The answer for a pick: the candidate's id, whether to remember it, and the fresh
    activation token the dialog obtained for the chosen app's launch (left out when there is
    none, or it is no token)."""
    answer = {"version": PROTOCOL_VERSION, "answer": "chosen", "id": ident, "always": bool(always)}
    if activation_token is not None and is_token(activation_token):
        answer["activation-token"] = activation_token
    return _line(answer)


def cancelled():
    """The answer when the user closed the dialog without choosing."""
    return _line({"version": PROTOCOL_VERSION, "answer": "cancelled"})


def failed(reason):
    """The answer when the dialog cannot be shown (the service reports NoChooser)."""
    return _line({"version": PROTOCOL_VERSION, "answer": "failed", "reason": str(reason)[:FIELD_LIMIT]})
