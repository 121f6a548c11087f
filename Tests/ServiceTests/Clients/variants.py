"""How an a{sv} reached a python3-dbus reader: each value's type and how deep in variants it is
(1: the dictionary's own variant). A strict reader (sd-bus, GLib's typed lookups) refuses a value
two variants deep; python3-dbus reads it all the same, so the tests check the depth."""


def depth(value):
    """How many variants `value` came in (0 for a value that came in none)."""
    return int(getattr(value, 'variant_level', 0))


def types_and_depths(entries):
    """{key: [python3-dbus type name, depth]} for an a{sv}."""
    return {str(k): [type(v).__name__, depth(v)] for k, v in entries.items()}
