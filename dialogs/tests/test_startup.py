"""A cold start's cost (issue 39: the dialog started without a spare draws within 250 ms): what
the package loads when imported, and where its compiled modules are kept."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAUNCHER = os.path.join(ROOT, "scripts", "schemebridge-dialog")
PACKAGE = os.path.join(ROOT, "dialogs", "schemebridge_dialogs")


def python(code, env):
    return subprocess.run([sys.executable, "-sE", "-c", code], env=env, capture_output=True, text=True,
                          cwd=os.path.join(ROOT, "dialogs"))


class Imports(unittest.TestCase):
    def test_the_package_does_not_load_gtk_when_imported(self):
        # GTK is loaded by gtkui.load only (the request is read first); the rest is plain Python.
        r = python("import sys; from schemebridge_dialogs import main, gtkui, a11y; print('gi' in sys.modules)",
                   {"PATH": os.environ.get("PATH", "/usr/bin")})
        self.assertEqual(r.stdout.strip(), "False", r.stderr)


@unittest.skipUnless(hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("setpriv"),
                     "needs root and setpriv to run the dialog as another user")
class CompiledModules(unittest.TestCase):
    """An install the user cannot write (a system's libexec): its modules compiled ahead are
    used as they are; not compiled, they are compiled once into the user's cache, not on every
    start."""

    def install(self, compiled):
        top = tempfile.mkdtemp(prefix="sb-dialog-install-")
        self.addCleanup(shutil.rmtree, top)
        libexec = os.path.join(top, "libexec")
        os.makedirs(os.path.join(libexec, "schemebridge_dialogs"))
        shutil.copy(LAUNCHER, libexec)
        for name in os.listdir(PACKAGE):
            if name.endswith(".py"):
                shutil.copy(os.path.join(PACKAGE, name), os.path.join(libexec, "schemebridge_dialogs"))
        if compiled:  # as `make install` does
            subprocess.run(["/usr/bin/python3", "-m", "compileall", "-q", "-f", os.path.join(libexec, "schemebridge_dialogs")], check=True)
        home = os.path.join(top, "home")
        os.makedirs(home)
        os.chown(home, 65534, 65534)
        os.chmod(top, 0o755)
        return libexec, home

    def start(self, libexec, home):
        """The dialog, as user nobody, with no request (it fails at once, after its imports)."""
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", os.path.join(libexec, "schemebridge-dialog")],
                           env={"HOME": home, "PATH": "/usr/bin:/bin"}, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn('"answer":"failed"', r.stdout)
        cache = os.path.join(home, ".cache", "schemebridge", "pycache")
        return sorted(os.listdir(cache + os.path.join(libexec, "schemebridge_dialogs"))) if os.path.isdir(cache) else []

    def test_not_compiled_they_are_compiled_once_into_the_users_cache(self):
        libexec, home = self.install(compiled=False)
        tag = sys.implementation.cache_tag
        self.assertEqual(self.start(libexec, home), sorted("%s.%s.pyc" % (m, tag) for m in
                                                           ("__init__", "a11y", "gtkui", "i18n", "icons", "main", "message",
                                                            "parent", "present", "thumbnails")))
        self.assertFalse(os.path.exists(os.path.join(libexec, "schemebridge_dialogs", "__pycache__")))

    def test_compiled_ahead_they_are_used_as_they_are(self):
        libexec, home = self.install(compiled=True)
        self.assertEqual(self.start(libexec, home), [])


if __name__ == "__main__":
    unittest.main()
