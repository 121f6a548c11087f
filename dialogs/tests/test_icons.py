"""Which picture a target gets (the theme's, the entry's file, a generic one of its kind)."""

import os
import tempfile
import unittest

from schemebridge_dialogs import icons, thumbnails


class IconTests(unittest.TestCase):
    def theme(self, *names):
        return lambda n: n in names

    def test_the_themes_icon_first(self):
        self.assertEqual(icons.resolve("gimp", "gimp.desktop", "app", self.theme("gimp")), ("name", "gimp"))

    def test_a_symbolic_or_less_specific_form(self):
        self.assertEqual(icons.resolve("tablet", "k:1", "device", self.theme("tablet-symbolic")), ("name", "tablet-symbolic"))
        self.assertEqual(icons.resolve("computer-laptop", "k:1", "device", self.theme("computer")), ("name", "computer"))

    def test_then_the_entrys_own_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "feh.png")
            with open(path, "wb") as f:
                f.write(b"\x89PNG")
            self.assertEqual(icons.resolve(path, "feh.desktop", "app", self.theme()), ("file", path))
            self.assertEqual(icons.resolve("feh", "feh.desktop", "app", self.theme(), pixmap_dirs=(d,)), ("file", path))
            big = os.path.join(d, "big.png")
            with open(big, "wb") as f:
                f.write(b"\0" * (icons.FILE_LIMIT + 1))
            self.assertEqual(icons.resolve(big, "x.desktop", "app", self.theme("application-x-executable")),
                             ("name", "application-x-executable"))

    def test_then_a_generic_icon_of_its_kind(self):
        everything = self.theme("application-x-executable", "phone", "edit-copy", "document-save-as", "document-open", "folder-open")
        self.assertEqual(icons.resolve("missing", "x.desktop", "app", everything), ("name", "application-x-executable"))
        self.assertEqual(icons.resolve("", "kdeconnect:1", "device", everything), ("name", "phone"))
        self.assertEqual(icons.resolve("", "builtin:copy", "builtin", everything), ("name", "edit-copy"))
        self.assertEqual(icons.resolve("", "builtin:save", "builtin", everything), ("name", "document-save-as"))
        self.assertEqual(icons.resolve("", "builtin:open-in:a.desktop", "builtin", everything), ("name", "document-open"))
        self.assertEqual(icons.resolve("", icons.FILES_ID, "app", everything), ("name", "folder-open"))
        self.assertEqual(icons.resolve("", "x", "app", self.theme()), ("name", "image-missing"))


class ThumbnailTests(unittest.TestCase):
    def test_the_cache_path_is_the_md5_of_the_uri(self):
        # The spec's example: file:///home/jens/photos/me.png → c6ee772d9e49320e97ec29a7eb5b1697.png
        paths = thumbnails.cached_paths("/home/jens/photos/me.png", {"HOME": "/home/jens"})
        self.assertEqual(paths, ["/home/jens/.cache/thumbnails/large/c6ee772d9e49320e97ec29a7eb5b1697.png",
                                 "/home/jens/.cache/thumbnails/normal/c6ee772d9e49320e97ec29a7eb5b1697.png"])
        self.assertTrue(thumbnails.cached_paths("/a", {"XDG_CACHE_HOME": "/c", "HOME": "/h"})[0].startswith("/c/thumbnails/large/"))

    def test_uris_escape_what_the_spec_escapes(self):
        self.assertEqual(thumbnails.uri_for("/tmp/a b/ü.png"), "file:///tmp/a%20b/%C3%BC.png")

    def test_a_thumbnail_is_fresh_only_for_the_files_mtime(self):
        self.assertTrue(thumbnails.is_fresh("1700000000", 1700000000.7))
        self.assertFalse(thumbnails.is_fresh("1700000000", 1700000001))
        self.assertFalse(thumbnails.is_fresh(None, 1))

    def test_a_descriptor_path_leads_to_the_file(self):
        with tempfile.NamedTemporaryFile() as f:
            self.assertEqual(thumbnails.original_path("/proc/self/fd/%d" % f.fileno()), f.name)
        self.assertEqual(thumbnails.original_path("/proc/self/fd/99999"), "")


if __name__ == "__main__":
    unittest.main()
