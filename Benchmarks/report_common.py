"""What the make bench reports share: the machine and the commit measured, and how a table is
printed and put between its markers in docs/PERFORMANCE.md."""
import os, platform, re, subprocess


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def debian():
    try:
        return "Debian " + open("/etc/debian_version").read().strip()
    except OSError:
        return platform.system()


def swift_version():
    try:
        v = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout + \
            subprocess.run(["swift", "--version"], capture_output=True, text=True).stderr
        m = re.search(r"Swift version (\S+)", v)
        return m.group(1) if m else "?"
    except OSError:
        return "?"


def commit():
    """The commit measured; "+dirty" when files other than the benchmarks' own outputs (which an
    earlier report of the same run may have written already) differ from it."""
    try:
        r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        d = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ":/",
                            ":(top,exclude)Benchmarks/results", ":(top,exclude)docs/PERFORMANCE.md"], capture_output=True, text=True)
        return r.stdout.strip() + ("+dirty" if d.stdout.strip() else "")
    except OSError:
        return "?"


def machine():
    return f"{debian()}, kernel {platform.release()}, {cpu_model()}, {os.cpu_count()} cores, Swift {swift_version()}"


def publish(table, footer, doc, marker, raw):
    """Prints `table` (lines) and `footer`, and puts them between <!-- MARKER:begin --> and
    <!-- MARKER:end --> in `doc`; `raw` names the file with the raw figures."""
    print()
    print("\n".join(table))
    print()
    print(footer)
    text = open(doc).read()
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    block = begin + "\n" + "\n".join(table) + "\n\n" + footer + "\n" + end
    if begin in text and end in text:
        open(doc, "w").write(text[:text.index(begin)] + block + text[text.index(end) + len(end):])
        print(f"({doc} updated; raw figures in {raw})")
    else:
        print(f"({doc} has no {begin} … {end} markers; not updated)")
