"""The request and answer of docs/CONTRACT.md, "The dialogs" (the schema: DialogRequest and
DialogAnswer in Sources/SchemeBridgeContract/Dialogs.swift)."""

import json
import unittest

from schemebridge_dialogs import message


def request(**fields):
    base = {"version": 1, "kind": "scheme", "subject": "todo",
            "candidates": [{"id": "a.desktop", "name": "Alpha", "icon": "alpha", "kind": "app"}]}
    base.update(fields)
    return json.dumps(base).encode()


class RequestTests(unittest.TestCase):
    def test_a_chooser_request_is_read(self):
        r = message.parse_request(request(caller={"id": "org.example.App", "name": "App", "command-line": False},
                                          **{"can-remember": True, "activation-token": "tok", "parent-window": "x11:0x2a"}))
        self.assertEqual((r.kind, r.subject, r.caller_id, r.caller_name), ("scheme", "todo", "org.example.App", "App"))
        self.assertTrue(r.can_remember)
        self.assertEqual((r.activation_token, r.parent_window), ("tok", "x11:0x2a"))
        self.assertEqual([(c.id, c.name, c.icon, c.kind) for c in r.candidates], [("a.desktop", "Alpha", "alpha", "app")])

    def test_a_share_request_describes_its_items(self):
        r = message.parse_request(request(kind="share", subject="x-schemebridge/share", share={
            "count": 2, "types": ["image/png", "text/x-uri"],
            "items": [{"kind": "file", "name": "a.png", "type": "image/png", "size": 10, "path": "/proc/1/fd/5"},
                      {"kind": "url", "url": "https://example.org/"}]}))
        self.assertEqual(r.share.count, 2)
        self.assertEqual([i.kind for i in r.share.items], ["file", "url"])
        self.assertEqual(r.share.items[0].size, 10)

    def test_another_version_is_refused(self):
        for version in (0, 2, "1", True, None):
            with self.assertRaises(message.MessageError, msg=repr(version)):
                message.parse_request(request(version=version))
        with self.assertRaises(message.MessageError):
            message.parse_request(b'{"kind": "scheme", "subject": "x", "candidates": []}')

    def test_malformed_requests_are_errors_not_cancels(self):
        for bad in (b"", b"\n", b"not json", b"[1]", request(kind="other"), request(subject=3),
                    request(candidates="a"), request(candidates=[{"name": "no id"}]),
                    request(candidates=[{"id": "a", "kind": "robot"}]), request(**{"can-remember": "yes"}),
                    request(kind="share"), request(kind="share", share={"items": [{"kind": "file", "size": "big"}]})):
            with self.assertRaises(message.MessageError, msg=bad):
                message.parse_request(bad)

    def test_ids_a_dialog_could_take_for_options_and_duplicates_are_left_out(self):
        r = message.parse_request(request(candidates=[
            {"id": "-display=:9", "name": "x"}, {"id": "a\u202e.desktop"}, {"id": "b.desktop"}, {"id": "b.desktop"}]))
        self.assertEqual([c.id for c in r.candidates], ["b.desktop"])
        self.assertEqual(r.candidates[0].name, "b.desktop")  # no name: the id

    def test_a_request_over_the_limit_is_refused(self):
        with self.assertRaises(message.MessageError):
            message.parse_request(b" " * (message.REQUEST_LIMIT + 1))


class AnswerTests(unittest.TestCase):
    def test_answers_are_one_json_line_with_the_version(self):
        for line, expected in ((message.chosen("a.desktop", True), {"version": 1, "answer": "chosen", "id": "a.desktop", "always": True}),
                               (message.cancelled(), {"version": 1, "answer": "cancelled"}),
                               (message.failed("no display"), {"version": 1, "answer": "failed", "reason": "no display"})):
            self.assertTrue(line.endswith(b"\n"))
            self.assertEqual(line.count(b"\n"), 1)
            self.assertEqual(json.loads(line), expected)

    def test_a_fresh_activation_token_goes_with_the_choice_and_junk_never_does(self):
        self.assertEqual(json.loads(message.chosen("a.desktop", False, "fresh-token_TIME42")),
                         {"version": 1, "answer": "chosen", "id": "a.desktop", "always": False, "activation-token": "fresh-token_TIME42"})
        for junk in (None, "", "a\nb", "x" * (message.TOKEN_LIMIT + 1), 7):
            self.assertNotIn("activation-token", json.loads(message.chosen("a.desktop", False, junk)), msg=repr(junk))


if __name__ == "__main__":
    unittest.main()
