#!/usr/bin/python3
"""Runs every command the README and the GUIDE show, so the docs cannot drift from the CLI.

Usage: scripts/check-doc-commands.py BIN_DIR [FILE.md ...]   (make check-docs)

What is checked (docs/DEVELOPING.md, "The docs' commands"):
- every `schemebridge …` line of a fenced sh block, and every inline `schemebridge …` code span
  in the prose, is run with the built CLI against a private dbus-daemon that bus-activates the
  built service, in a temporary XDG tree holding the demo apps. The command line's notation is
  expanded first: `a|b|c` gives one run each, `[…]` one run without and one with, `…` is dropped,
  `$VAR` takes the value a line of the same block assigned (`VAR=$(schemebridge …)` runs it).
  A run fails the check when the CLI rejects its words (its parser's usage error: an unknown
  subcommand, option or argument, a missing argument) or dies of a signal. A command may still
  answer "no handler" or "not found" for the placeholders a doc uses (APP, FILE): that is the
  product answering, which is what the docs describe.
- every `dbus-send`/`gdbus call` line of a fenced block is run the same way; it fails when the
  service does not have the method, interface or object the doc names, or when the tool rejects
  the arguments' syntax (a signature that drifted).
Commands that stay up by design (`monitor`, `gdbus monitor`) pass when they are still running
after a few seconds. Python blocks, `make`, `xdg-mime` and heredocs are not run (they need a
real session or change the machine).
"""
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVICE = "io.github.schemebridge.SchemeBridge1"
# What the CLI's parser prints when it rejects the words (ArgumentParser, and our own
# subcommand suggestion). A usage error from the service (a malformed URL) says none of these.
PARSER_ERRORS = re.compile(r"^(Error: |Usage: |schemebridge: '.*' is not a subcommand)", re.M)
# What dbus-send/gdbus print when the service lacks what the doc calls, or the doc's
# arguments do not parse.
BUS_DRIFT = re.compile(r"org\.freedesktop\.DBus\.Error\.(UnknownMethod|UnknownInterface|UnknownObject|InvalidSignature)|"
                       r"Error parsing|Unknown type|usage:|Usage:")
STAYS_UP = ("monitor",)
TIMEOUT = 30


def fenced_blocks(text):
    """(language, first line number, lines) for each fenced block."""
    blocks, lang, start, lines = [], None, 0, None
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            if lines is None:
                lang, start, lines = line[3:].strip(), n + 1, []
            else:
                blocks.append((lang, start, lines))
                lines = None
        elif lines is not None:
            lines.append(line)
    return blocks


def logical_lines(lines, start):
    """Joins backslash continuations: (line number, text)."""
    out, acc, at = [], "", None
    for i, line in enumerate(lines):
        if at is None:
            at = start + i
        if line.rstrip().endswith("\\"):
            acc += line.rstrip()[:-1] + " "
            continue
        out.append((at, acc + line))
        acc, at = "", None
    return out


def inline_commands(text):
    """Inline `schemebridge …` code spans in prose (outside fenced blocks; a span may run over a
    line break), with the line number where each starts."""
    found, fenced, paragraph, first = [], False, [], 0
    def flush():
        joined = " ".join(paragraph)
        for m in re.finditer(r"`(schemebridge [^`]+)`", joined):
            found.append((first, re.sub(r"\s+", " ", m.group(1))))
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            fenced = not fenced
            flush()
            paragraph = []
            continue
        if fenced:
            continue
        if not line.strip():
            flush()
            paragraph = []
            continue
        if not paragraph:
            first = n
        paragraph.append(line.strip())
    flush()
    return found


# Placeholders the docs write for a value of a given kind, and a value of that kind.
PLACEHOLDERS = {"SECONDS": "60", "N": "1", "COUNT": "1", "BYTES": "1024"}


def expand(words):
    """The doc's notation to concrete runs: alternatives, optional groups, ellipses."""
    variants = [[]]
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("…", "...") or w.endswith("…") and not w.rstrip("…"):
            i += 1
            continue
        w = PLACEHOLDERS.get(w.replace("…", ""), w.replace("…", ""))
        if w.startswith("[") and not w.startswith("[{"):
            group = [w[1:]]
            while not group[-1].endswith("]") and i + 1 < len(words):
                i += 1
                group.append(words[i])
            group[-1] = group[-1][:-1] if group[-1].endswith("]") else group[-1]
            group = [g for g in group if g]
            inner = expand(group)
            variants = [v for v in variants] + [v + g for v in variants for g in inner]
            i += 1
            continue
        if "|" in w and "://" not in w and not w.startswith("-") and "'" not in w and "{" not in w:
            choices = [c for c in w.split("|") if c]
            variants = [v + [c] for v in variants for c in choices]
        else:
            variants = [v + [w] for v in variants]
        i += 1
    return variants


class World:
    """A private bus that activates the built service, and a temporary XDG tree with the demo apps."""

    def __init__(self, bindir):
        self.bindir = bindir
        self.dir = tempfile.mkdtemp(prefix="schemebridge-doccheck.")
        d = self.dir
        for sub in ("services", "data/applications", "config", "state", "cache", "runtime", "sysdata", "work"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        os.chmod(os.path.join(d, "runtime"), 0o700)
        os.symlink("/usr/share/mime", os.path.join(d, "sysdata", "mime"))
        with open(os.path.join(ROOT, "dbus", f"{SERVICE}.service.in")) as f:
            service = f.read().replace("@bindir@", bindir)
        with open(os.path.join(d, "services", f"{SERVICE}.service"), "w") as f:
            f.write(service)
        demo = os.path.join(ROOT, "desktop", "demo")
        for name in sorted(os.listdir(demo)):
            if name.endswith(".desktop.in"):
                with open(os.path.join(demo, name)) as f:
                    entry = f.read().replace("@demodir@", demo)
                with open(os.path.join(d, "data/applications", name[:-3]), "w") as f:
                    f.write(entry)
        # The handler README's examples name (org.example.Todo.desktop): a script that logs its argv.
        todo = os.path.join(d, "todo-handler")
        with open(todo, "w") as f:
            f.write('#!/bin/sh\nprintf "todo: %s\\n" "$*" >> "$SCHEMEBRIDGE_DEMO_LOG"\n')
        os.chmod(todo, 0o755)
        with open(os.path.join(d, "data/applications/org.example.Todo.desktop"), "w") as f:
            f.write(f"[Desktop Entry]\nType=Application\nName=Todo\nExec={todo} %u\nMimeType=x-scheme-handler/todolist;text/markdown;\n")
        with open(os.path.join(d, "bus.conf"), "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={d}/bus</listen><auth>EXTERNAL</auth>
<servicedir>{d}/services</servicedir>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>""")
        # Files the docs name, made in the working directory the commands run in.
        work = os.path.join(d, "work")
        for name, data in (("notes.md", b"# notes\n"), ("person.json", b'{"first-name": "Jane"}\n'),
                           ("report.pdf", b"%PDF-1.4\n%%EOF\n"), ("photo.png", self.png()), ("holiday.png", self.png()),
                           ("beach.png", self.png())):
            with open(os.path.join(work, name), "wb") as f:
                f.write(data)
        self.work = work
        self.env = {
            "PATH": f"{bindir}:/usr/bin:/bin", "HOME": d,
            "XDG_DATA_HOME": f"{d}/data", "XDG_DATA_DIRS": f"{d}/sysdata", "XDG_CONFIG_HOME": f"{d}/config",
            "XDG_CONFIG_DIRS": f"{d}/none", "XDG_STATE_HOME": f"{d}/state", "XDG_CACHE_HOME": f"{d}/cache",
            "XDG_RUNTIME_DIR": f"{d}/runtime", "SCHEMEBRIDGE_DEMO_LOG": f"{d}/handler.log",
            "SCHEMEBRIDGE_DEMO_PICK": f"{d}/pick", "N": SERVICE, "O": "/io/github/schemebridge/SchemeBridge1",
            "XDG_ACTIVATION_TOKEN": "", "LANG": "C.UTF-8",
        }
        # The bus starts the service (D-Bus activation) with the bus daemon's own environment: the
        # temporary tree's, never the user's home (a service started with the real HOME wrote the
        # docs' persistent pasteboards and `links set` into the user's ~/.local/state and ~/.config).
        out = subprocess.run(["dbus-daemon", f"--config-file={d}/bus.conf", "--fork", "--print-address=1", "--print-pid=1"],
                             check=True, capture_output=True, text=True, env=self.env).stdout.split()
        self.address, self.bus_pid = out[0], int(out[1])
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self.address
        with open(self.env["SCHEMEBRIDGE_DEMO_PICK"], "w") as f:
            f.write("teal\n")

    @staticmethod
    def png():
        shipped = os.path.join(ROOT, "desktop", "demo", "launch-images")
        for top, _, files in os.walk(shipped):
            for name in sorted(files):
                if name.endswith(".png"):
                    with open(os.path.join(top, name), "rb") as f:
                        return f.read()
        return b"\x89PNG\r\n\x1a\n"

    def run(self, argv, stdin=b""):
        """(status or None if still running after a while, stdout, stderr)."""
        p = subprocess.Popen(argv, cwd=self.work, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        stays_up = any(w in STAYS_UP for w in argv[:3])
        try:
            out, err = p.communicate(stdin, timeout=3 if stays_up else TIMEOUT)
            return p.returncode, out.decode(errors="replace"), err.decode(errors="replace")
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return None, out.decode(errors="replace"), err.decode(errors="replace")

    def services(self):
        """The schemebridged processes running with this world's HOME, each held by a pidfd (a
        pid reused once one has ended is never taken for it)."""
        held = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                if os.path.basename(os.readlink(f"/proc/{name}/exe")) != "schemebridged":
                    continue
                fd = os.pidfd_open(int(name))
            except OSError:
                continue
            try:
                with open(f"/proc/{name}/environ", "rb") as f:
                    ours = f"HOME={self.dir}".encode() in f.read().split(b"\0")
            except OSError:
                ours = False
            if ours and not select.select([fd], [], [], 0)[0]:
                held.append(fd)
            else:
                os.close(fd)
        return held

    def stop(self):
        try:
            os.kill(self.bus_pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        # The service the bus started ends with its bus, writing its registry index into the
        # world's cache as it goes: waited for (3 minutes at most), or it makes the folder again
        # after its removal. Handlers the commands started end here.
        held = self.services()
        deadline = time.monotonic() + 180
        while held and time.monotonic() < deadline:
            ended = select.select(held, [], [], deadline - time.monotonic())[0]
            for fd in ended:
                os.close(fd)
            held = [fd for fd in held if fd not in ended]
        for fd in held:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
            os.close(fd)
        subprocess.run(["pkill", "-f", self.dir], check=False)
        subprocess.run(["rm", "-rf", self.dir], check=False)


def substitute(words, variables):
    out = []
    for w in words:
        for name, value in sorted(variables.items(), key=lambda kv: -len(kv[0])):
            w = w.replace("${" + name + "}", value).replace("$" + name, value)
        out.append(w)
    return out


def split_pipeline(words):
    """(stdin bytes fed by a leading `echo X |`, the command's words without redirections)."""
    stdin = b""
    if "|" in words:
        i = words.index("|")
        head, words = words[:i], words[i + 1:]
        if head and head[0] in ("echo", "printf"):
            stdin = (" ".join(head[1:]) + "\n").encode()
    clean, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w in (">", ">>", "<", "2>"):
            skip = True
            continue
        if w.startswith(">") or w.startswith("2>"):
            continue
        clean.append(w)
    return stdin, clean


def check_cli(world, where, words, stdin, failures, counts, mention=False):
    """`mention`: prose or a summary line (with `…`) that names a command and its options without
    its operands: the parser's "Missing expected argument" is then no drift."""
    for variant in expand(words):
        status, out, err = world.run(variant, stdin)
        counts["run"] += 1
        shown = shlex.join(variant)
        if status is None:
            if not any(w in STAYS_UP for w in variant[:3]):
                failures.append(f"{where}: `{shown}` did not finish in {TIMEOUT} s")
            continue
        if status < 0:
            failures.append(f"{where}: `{shown}` died of signal {-status}\n{err}")
        elif PARSER_ERRORS.search(err) and not (mention and err.startswith("Error: Missing expected argument")):
            failures.append(f"{where}: `{shown}`: the CLI rejects these words (exit {status}):\n{err.strip()}")


def check_bus(world, where, words, failures, counts):
    status, out, err = world.run(words)
    counts["run"] += 1
    shown = shlex.join(words)
    if status is None:
        if "monitor" not in words[:3]:
            failures.append(f"{where}: `{shown}` did not finish in {TIMEOUT} s")
        return
    if status != 0 and BUS_DRIFT.search(err):
        failures.append(f"{where}: `{shown}` (exit {status}):\n{err.strip()}")


def check_package_lists(failures):
    """README's "- build/run/test" package lists are scripts/deps.sh's sets (run and test: what they add)."""
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    sets, before = {}, set()
    for name in ("build", "run", "test"):
        listed = subprocess.run(["sh", os.path.join(ROOT, "scripts", "deps.sh"), "--list", name],
                                check=True, capture_output=True, text=True).stdout.split()
        sets[name] = [p for p in listed if p not in before]
        before |= set(listed)
        m = re.search(r"^- " + name + r"\b[^\n]*(?:\n  [^\n]*)*", text, re.M)
        if not m:
            failures.append(f"README.md: no '- {name} …' package list")
            continue
        shown = re.findall(r"`([^`]*)`", m.group(0))[-1].split()
        if shown != sets[name]:
            failures.append(f"README.md: the {name} packages are\n  {' '.join(shown)}\nbut scripts/deps.sh --list {name} adds\n  {' '.join(sets[name])}")


def check_deps_calls(failures):
    """Every `scripts/deps.sh SET …` in the repository's scripts and Makefile names a set deps.sh has
    (make bench once called `deps.sh gcc …` after deps.sh took sets, and failed before building)."""
    sets = ("build", "run", "test", "package", "--list")
    for top in ("Makefile", "Benchmarks", "scripts", "Fuzz", ".ci", "debian", "examples"):
        base = os.path.join(ROOT, top)
        paths = [base] if os.path.isfile(base) else [os.path.join(d, n) for d, _, ns in os.walk(base) for n in ns]
        for path in paths:
            if path.endswith("deps.sh") or not os.path.isfile(path):
                continue
            try:
                with open(path) as f:
                    lines = f.read().splitlines()
            except (UnicodeDecodeError, OSError):
                continue
            for number, line in enumerate(lines, 1):
                m = re.match(r"\s*@?(?:sh|bash)\s+(?:\S*/)?scripts/deps\.sh(?:\s+(\S+))?", line)
                if m and m.group(1) is not None and m.group(1) not in sets:
                    failures.append(f"{os.path.relpath(path, ROOT)}:{number}: scripts/deps.sh takes a set "
                                    f"(build, run, test, package) first, not '{m.group(1)}': {line.strip()}")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    bindir = os.path.abspath(sys.argv[1])
    files = sys.argv[2:] or [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs", "GUIDE.md")]
    failures, counts = [], {"run": 3}
    check_package_lists(failures)
    check_deps_calls(failures)
    world = World(bindir)
    try:
        for path in files:
            with open(path) as f:
                text = f.read()
            name = os.path.relpath(path, ROOT)
            for lang, start, lines in fenced_blocks(text):
                if lang not in ("sh", "bash", "shell", "console", ""):
                    continue
                variables = {}
                for n, line in logical_lines(lines, start):
                    where = f"{name}:{n}"
                    try:
                        words = shlex.split(line, comments=True)
                    except ValueError as e:
                        failures.append(f"{where}: cannot be read as a command line ({e}): {line}")
                        continue
                    if not words:
                        continue
                    # VAR=value and VAR=$(schemebridge …) assignments.
                    assign = re.fullmatch(r"([A-Z_]+)=\$\((schemebridge .*)\)", line.split("#")[0].strip())
                    if assign:
                        inner = substitute(shlex.split(assign.group(2)), variables)
                        status, out, err = world.run(inner)
                        counts["run"] += 1
                        if status != 0:
                            failures.append(f"{where}: `{assign.group(2)}` (exit {status}): {err.strip()}")
                        variables[assign.group(1)] = out.strip()
                        continue
                    if all(re.fullmatch(r"[A-Z_]+=.*", w) for w in words):
                        for w in words:
                            k, v = w.split("=", 1)
                            variables[k] = substitute([v], variables)[0]
                        continue
                    words = substitute(words, variables)
                    stdin, command = split_pipeline(words)
                    if not command:
                        continue
                    if command[0] == "schemebridge":
                        check_cli(world, where, command, stdin, failures, counts, mention="…" in line or "..." in line)
                    elif command[0] in ("dbus-send",) or command[:2] == ["gdbus", "call"]:
                        check_bus(world, where, command, failures, counts)
            for n, span in inline_commands(text):
                where = f"{name}:{n} (inline)"
                try:
                    words = shlex.split(span)
                except ValueError:
                    words = span.split()
                check_cli(world, where, words, b"", failures, counts, mention=True)
    finally:
        world.stop()
    for f in failures:
        print("FAIL " + f)
    print(f"docs: {counts['run'] - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
