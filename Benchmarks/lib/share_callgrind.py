"""Benchmarks/share-callgrind.sh's report, per Share: two callgrind runs of side A's service through
devices.sh, the second with more send rounds; the second's counts less the first's are the extra
shares'. Arguments: the folder with callgrind_annotate's listings of each run (self.N.txt, its own
instructions per function; callers.N.txt, the caller tree, inclusive), the two runs' round counts,
and the swift driver (for `swift demangle`)."""
import re
import subprocess
import sys

ROW = re.compile(r"\s*([\d,]+) \(\s*([\d.]+)%\)\s+(<|\*)?\s*(.*?)(?: \((\d+)x\))? \[(.*)\]\s*$")


def rows(path):
    """(cost, percent, marker, symbol, calls, object) for each listed line."""
    out = []
    for line in open(path, encoding="utf-8", errors="replace"):
        m = ROW.match(line)
        if m:
            cost, pct, marker, sym, calls, obj = m.groups()
            sym = sym.split(":", 1)[1] if sym.startswith(("???:", "./")) or ":" in sym[:80] and not sym.startswith("$") else sym
            out.append((int(cost.replace(",", "")), float(pct), marker, sym, int(calls) if calls else None, obj))
    return out


def blocks(path):
    """The caller tree: for each function, (its cost, [(caller, calls, cost)])."""
    tree, callers = {}, []
    for cost, _, marker, sym, calls, _ in rows(path):
        if marker == "<":
            callers.append((sym, calls or 0, cost))
        elif marker == "*":
            tree[sym] = (cost, callers)
            callers = []
    return tree


def kind(sym, obj):
    if "libc.so" in obj:
        return "libc: malloc and free" if re.search(r"malloc|free", sym) else "libc: mutexes" if "pthread" in sym else "libc: other"
    if sym.startswith("clinux_hot_code_prefetch"):
        return "the loop's code prefetch (session 14)"
    if sym.startswith("$s"):
        if re.match(r"\$s[Ss]", sym):
            return "Swift standard library"
        if sym.startswith("$s4DBus"):
            return "ours: the DBus module"
        return "ours: the other modules"
    if re.match(r"(swift|_swift|__swift|std::|bool swift|void swift|\(anonymous|completeTask|future_adapter|task_|_dispatch|jobInvoke|withStatusRecordLock)", sym) \
            or "swift::" in sym:
        return "Swift runtime (retain/release, tasks, metadata)"
    return "libdbus"


def demangle(names, swift):
    try:
        out = subprocess.run([swift, "demangle", "--simplified"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
        return out.split("\n")[:len(names)]
    except (OSError, subprocess.CalledProcessError):
        return names


def starts(tree):
    """How many times the engine's shareUrl was started (once per device share)."""
    found = [v for k, v in tree.items() if "KDEConnectEngineC5start_2to" in k and k.endswith("KF")]
    return sum(c for _, c, _ in found[0][1]) if found else 0


def own(path):
    """Each function's own instructions: {(symbol, object): cost}."""
    return {(r[3], r[5]): r[0] for r in rows(path) if r[2] is None and "PROGRAM TOTALS" not in r[3]}


def main():
    folder, r1, r2, swift = sys.argv[1:5]
    trees = {r: blocks("%s/callers.%s.txt" % (folder, r)) for r in (r1, r2)}
    shares = starts(trees[r2]) - starts(trees[r1])
    if shares <= 0:
        sys.exit("share-callgrind: the longer run started no more shares than the shorter one")
    first, second = own("%s/self.%s.txt" % (folder, r1)), own("%s/self.%s.txt" % (folder, r2))
    listed = [(second.get(k, 0) - first.get(k, 0), k[0], k[1]) for k in set(first) | set(second)]
    total = sum(c for c, _, _ in listed)
    print("instructions per Share in the service: %.0f (the %d shares the longer run started beyond the shorter one's;"
          " everything the service ran meanwhile is in it)" % (total / shares, shares))
    kinds = {}
    for cost, sym, obj in listed:
        kinds[kind(sym, obj)] = kinds.get(kind(sym, obj), 0) + cost
    print("\n| code | instructions per Share | share |\n|---|---|---|")
    for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print("| %s | %.0f | %.0f%% |" % (k, v / shares, 100 * v / total))
    top = sorted(listed, key=lambda r: -r[0])[:25]
    print("\nthe functions that cost most (their own instructions, per Share):")
    for (cost, _, _), name in zip(top, demangle([r[1] for r in top], swift)):
        print("  %7.0f  %s" % (cost / shares, name[:150]))
    print("\nbuilding and sending each outgoing message (inclusive, per message, in the longer run):")
    funcs = trees[r2]
    for label, pattern in (("a signal (Connection.emit: the Response)", "$s4DBus10ConnectionC4emit4path9interface6member11destination4body"),
                           ("a Response like the last: an addressed copy (EncodedSignal)", "$s4DBus10ConnectionC4emit_4path11destinationyAA13EncodedSignalC"),
                           ("  and telling it is like the last (RepeatedResponses)", "$s13schemebridged17RepeatedResponsesC7encoded"),
                           ("a method's reply (ConnectionCore.sendReply)", "$s4DBus14ConnectionCoreC9sendReply"),
                           ("a method call (Connection.start: the engine's shareUrl)", "$s4DBus10ConnectionC5start11destination4path9interface6member7timeout4body")):
        found = [(k, v) for k, v in funcs.items() if k.startswith(pattern)]
        if found:
            k, (cost, callers) = max(found, key=lambda kv: kv[1][0])
            calls = sum(c for _, c, _ in callers)
            print("  %-60s %6.0f instructions (%d calls)" % (label, cost / max(calls, 1), calls))


if __name__ == "__main__":
    main()
