"""schemebridge-dialog: SchemeBridge's one dialog program (the share sheet, the handler chooser,
the document picker and the received-file prompt), GTK 3 through PyGObject.

The service starts it with pipes it created and writes one request, a JSON object on one line,
to its stdin; it answers with one JSON object on one line on stdout (``message``; the schema is
``DialogRequest``/``DialogAnswer`` in Sources/SchemeBridgeContract/Dialogs.swift, docs/CONTRACT.md,
"The dialogs"). The logic (``message``, ``present``, ``icons``, ``thumbnails``) needs no display
and is unit-tested (dialogs/tests); ``gtkui`` draws.
"""

PROTOCOL_VERSION = 1
