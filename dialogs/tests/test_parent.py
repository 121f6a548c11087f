"""The caller's window as a request names it (``parent-window``), read as portals write it."""

import unittest

from schemebridge_dialogs import parent


class ParseTests(unittest.TestCase):
    def test_an_x11_window_is_its_id_in_hexadecimal(self):
        self.assertEqual(parent.parse("x11:1a00003"), ("x11", 0x1A00003))
        self.assertEqual(parent.parse("x11:0x1A00003"), ("x11", 0x1A00003))
        # Decimal-looking ids are hexadecimal too (as portals write them: "x11:%lx").
        self.assertEqual(parent.parse("x11:12"), ("x11", 0x12))

    def test_a_wayland_handle_is_taken_as_given(self):
        self.assertEqual(parent.parse("wayland:7f3a-UUID_x"), ("wayland", "7f3a-UUID_x"))

    def test_anything_else_is_no_parent(self):
        for text in ("", "x11:", "x11:0", "x11:zz", "x11:-1", "x11:200000000", "x11:123456789", "wayland:", "wayland:a b",
                     "wayland:\u00e9", "wayland:" + "a" * 257, "mir:1", "1a00003", None):
            self.assertIsNone(parent.parse(text), repr(text))


if __name__ == "__main__":
    unittest.main()
