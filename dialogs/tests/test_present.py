"""What the dialogs say (English, and German through the shipped catalog)."""

import os
import subprocess
import tempfile
import unittest

from schemebridge_dialogs import i18n, message, present
from schemebridge_dialogs.message import Item, Share


def req(kind="scheme", subject="todo", **kw):
    r = message.Request(kind=kind, subject=subject, candidates=[message.Candidate("a.desktop", "Alpha")])
    for k, v in kw.items():
        setattr(r, k, v)
    return r


def mnemonics_collide(case):
    """Asserts that no two buttons of a dialog share a mnemonic (Alt+letter would only cycle)."""
    from schemebridge_dialogs.i18n import _
    for kind in ("share", "scheme", "type", "pick"):
        r = req(kind, caller_name="Photos")
        labels = [present.action_label(r), _("_Cancel"), present.always_label(r)]
        keys = [l[l.index("_") + 1].lower() for l in labels]
        case.assertEqual(len(set(keys)), len(keys), "%s: %s" % (kind, labels))


class English(unittest.TestCase):
    def setUp(self):
        self.env = {k: os.environ.get(k) for k in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
        for k in self.env:
            os.environ.pop(k, None)
        i18n.reload()

    def tearDown(self):
        for k, v in self.env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        i18n.reload()

    def test_the_sharer_is_named_as_a_user_knows_it(self):
        self.assertEqual(present.share_title(req("share", caller_name="Photos", caller_id="org.example.Photos")), "Share from Photos")
        self.assertEqual(present.share_title(req("share", caller_name="sharer.py")), "Share from sharer.py")
        self.assertEqual(present.share_title(req("share", caller_command_line=True, caller_name="schemebridge-cli")),
                         "Share from the command line")
        self.assertEqual(present.share_title(req("share", caller_id="org.example.NoName")), "Share from org.example.NoName")
        self.assertEqual(present.share_title(req("share")), "Share")

    def test_a_name_is_plain_text_cut_at_sixty(self):
        self.assertEqual(present.plain("A\u202eB\tC\n\nD"), "AB C D")
        self.assertEqual(len(present.plain("x" * 100)), 60)
        self.assertTrue(present.plain("x" * 100).endswith("…"))

    def test_one_file_is_its_name_and_size(self):
        s = Share(1, ["image/png"], [Item("file", name="photo.png", type="image/png", size=2_400_000)])
        self.assertEqual(present.share_summary(s), ("photo.png", ["2.4 MB"]))

    def test_several_files_are_counted_sized_and_named(self):
        items = [Item("file", name="n%d.txt" % i, type="text/plain", size=1000) for i in range(5)]
        self.assertEqual(present.share_summary(Share(5, ["text/plain"], items)), ("5 files · 5.0 kB", ["n0.txt, n1.txt, n2.txt, and 2 more"]))

    def test_a_url_is_shown_and_text_by_its_first_lines(self):
        self.assertEqual(present.share_summary(Share(1, ["text/x-uri"], [Item("url", url="https://example.org/a?b")])),
                         ("https://example.org/a?b", []))
        self.assertEqual(present.share_summary(Share(1, ["text/plain"], [Item("text", text="one\n\ntwo\nthree\nfour")])),
                         ("one", ["two", "three"]))

    def test_sizes(self):
        self.assertEqual(present.human_size(1), "1 byte")
        self.assertEqual(present.human_size(999), "999 bytes")
        self.assertEqual(present.human_size(1500), "1.5 kB")
        self.assertEqual(present.human_size(12_000_000_000), "12.0 GB")
        self.assertEqual(present.human_size(-1), "")

    def test_buttons_say_what_they_do(self):
        self.assertEqual(present.action_label(req("share")), "_Share")
        self.assertEqual(present.action_label(req("scheme")), "_Open")
        self.assertEqual(present.action_label(req("type")), "_Open")
        self.assertEqual(present.action_label(req("pick")), "C_hoose")

    def test_always_is_worded_the_same_everywhere(self):
        for kind in ("share", "scheme", "type", "pick"):
            self.assertEqual(present.always_label(req(kind, caller_name="Photos")), "_Always use this for Photos")
        self.assertEqual(present.always_label(req("scheme")), "_Always use this")

    def test_no_two_buttons_share_a_mnemonic(self):
        mnemonics_collide(self)

    def test_chooser_headings(self):
        self.assertEqual(present.chooser_heading(req("scheme", "todo")), "Open “todo” links with:")
        self.assertEqual(present.chooser_heading(req("type", "text/markdown"), lambda t: "Markdown document"),
                         "Open Markdown document with:")
        self.assertEqual(present.chooser_heading(req("type", "image/png", received_from="Pixel 7")), "Pixel 7 sent a file. Open it with:")
        self.assertEqual(present.chooser_heading(req("pick", "pick:image/png")), "Where should the document come from?")
        self.assertEqual(present.chooser_title(req("pick", title="Insert a photo")), "Insert a photo")
        self.assertEqual(present.chooser_title(req("scheme")), "Open With")
        self.assertEqual(present.asked_by(req("scheme", caller_name="Mail")), "Asked by Mail")


class German(unittest.TestCase):
    """The German catalog, compiled from dialogs/po/de.po with msgfmt, under LANG=de_DE.UTF-8
    (Python's gettext reads LANG itself: no generated de_DE locale is needed)."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        out = os.path.join(self.dir.name, "de", "LC_MESSAGES")
        os.makedirs(out)
        po = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "po", "de.po")
        subprocess.run(["msgfmt", "--check", "-o", os.path.join(out, i18n.DOMAIN + ".mo"), po], check=True)
        self.saved = {k: os.environ.get(k) for k in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG", "SCHEMEBRIDGE_DIALOGS_LOCALEDIR")}
        for k in self.saved:
            os.environ.pop(k, None)
        os.environ["LANG"] = "de_DE.UTF-8"
        os.environ["SCHEMEBRIDGE_DIALOGS_LOCALEDIR"] = self.dir.name
        i18n.reload()

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        i18n.reload()
        self.dir.cleanup()

    def test_the_sheet_speaks_german(self):
        self.assertEqual(present.share_title(req("share", caller_name="Fotos")), "Teilen aus Fotos")
        self.assertEqual(present.action_label(req("share")), "_Teilen")
        self.assertEqual(present.action_label(req("scheme")), "Ö_ffnen")
        self.assertEqual(present.action_label(req("pick")), "Aus_wählen")
        self.assertEqual(present.always_label(req("share", caller_name="Fotos")), "_Immer dies für Fotos verwenden")
        self.assertEqual(present.share_summary(Share(3, [], [Item("file", name="a", size=1000)] * 3))[0], "3 Dateien · 3.0 kB")
        self.assertEqual(present.share_title(req("share", caller_command_line=True)), "Teilen aus der Befehlszeile")

    def test_no_two_buttons_share_a_mnemonic(self):
        mnemonics_collide(self)

    def test_every_message_is_translated(self):
        po = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "po", "de.po")
        run = subprocess.run(["msgfmt", "--statistics", "-o", os.devnull, po], capture_output=True, text=True)
        self.assertNotIn("untranslated", run.stderr)
        self.assertNotIn("fuzzy", run.stderr)


if __name__ == "__main__":
    unittest.main()
