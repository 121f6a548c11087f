#!/usr/bin/python3
"""Turns the raw measurements of Benchmarks/run.sh into Benchmarks/results/bench.json, a table
on stdout, and the table between <!-- bench:begin --> and <!-- bench:end --> in README.md.
Usage: report.py WORKDIR OUT_JSON README CLI_NOTE "SIZES" """
import datetime, json, os, platform, re, subprocess, sys

work, out_json, readme, cli_note, sizes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5].split()
load = lambda name: json.load(open(os.path.join(work, name)))
lat, tp, opn, live, proc = (load(n + ".json") for n in ("latency", "throughput", "open", "live", "proc"))
start = {n: load(f"startup-{n}.json") for n in sizes}
big = sizes[-1]


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
    try:
        r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        d = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True)
        return r.stdout.strip() + ("+dirty" if d.stdout.strip() else "")
    except OSError:
        return "?"


machine = f"{debian()}, kernel {platform.release()}, {cpu_model()}, {os.cpu_count()} cores, Swift {swift_version()}"
date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
rows = []  # (measurement, ours, baseline, ratio, aim, verdict)
aims = []


def verdict(ok):
    return "met" if ok else "**missed**"


def aim(name, value, limit, kind, unit):
    ok = value <= limit if kind == "<=" else value >= limit
    aims.append({"aim": name, "value": round(value, 3), "limit": limit, "unit": unit, "met": ok})
    return verdict(ok)


# Round trips.
ping = lat["bus_ping"]
c_echo, sw_in, sw_as = lat["c_service_echo"], lat["swift_inline_echo"], lat["swift_async_echo"]
c_can, sb_can = lat["c_service_canopen"], lat["schemebridged_canopen"]
r = sb_can["p50_us"] / c_can["p50_us"]
rows.append(("`CanOpenURL` round trip, p50 / p99", f"{sb_can['p50_us']:.0f} / {sb_can['p99_us']:.0f} µs",
             f"C service {c_can['p50_us']:.0f} / {c_can['p99_us']:.0f} µs", f"{r:.2f}×", "≤ 1.2×",
             aim("CanOpenURL latency p50 ≤ 1.2× C service", r, 1.2, "<=", "×")))
c_tp, sb_tp, ping_tp = (tp[k]["median_calls_per_s"] for k in ("c_service_canopen", "schemebridged_canopen", "bus_ping"))
r = sb_tp / c_tp
rows.append((f"`CanOpenURL` throughput, {tp['clients']} connections", f"{sb_tp:,.0f} calls/s", f"C service {c_tp:,.0f} calls/s",
             f"{r:.2f}×", "≥ 0.8×", aim(f"CanOpenURL {tp['clients']}-client throughput ≥ 0.8× C service", r, 0.8, ">=", "×")))
c_open, sb_open = opn["c_service_openurl"], opn["schemebridged_openurl"]
r = sb_open["p50_us"] / c_open["p50_us"]
rows.append(("`OpenURL` → `/bin/true` spawned, p50 / p99", f"{sb_open['p50_us']:.0f} / {sb_open['p99_us']:.0f} µs",
             f"C service {c_open['p50_us']:.0f} / {c_open['p99_us']:.0f} µs", f"{r:.2f}×", "≤ 1.3×",
             aim("OpenURL latency p50 ≤ 1.3× C service", r, 1.3, "<=", "×")))

# Whole processes. A command that failed is flagged: its time would not mean anything.
failed = {k: v["failures"] for k, v in proc.items() if isinstance(v, dict) and v.get("failures")}
if failed:
    print(f"WARNING: commands failed in the process comparison: {failed}", file=sys.stderr)
gio = proc["gio_open"]["p50_ms"]
if "schemebridge_open_static" in proc:
    cli = proc["schemebridge_open_static"]
    r = cli["p50_ms"] / gio
    rows.append(("`schemebridge open URL` process as installed (Swift runtime static), p50", f"{cli['p50_ms']:.1f} ms",
                 f"`gio open` {gio:.1f} ms", f"{r:.2f}×", "≤ 0.5×", aim("schemebridge open ≤ 0.5× gio open", r, 0.5, "<=", "×")))
    dyn = proc["schemebridge_open"]["p50_ms"]
    rows.append(("`schemebridge open URL`, plain release build (runtime shared), p50", f"{dyn:.1f} ms", f"`gio open` {gio:.1f} ms",
                 f"{dyn / gio:.2f}×", "", "the dynamic loader binding libswiftCore & co."))
else:
    aims.append({"aim": "schemebridge open ≤ 0.5× gio open", "value": None, "limit": 0.5, "unit": "×", "met": None, "note": cli_note})
    rows.append(("`schemebridge open URL` process, p50", f"n/a ({cli_note})", f"`gio open` {gio:.1f} ms", "n/a", "≤ 0.5×", "n/a"))
for key, what in (("open_probe", "`schemebridge-open-probe URL` (OpenURL through our layer, no argument parser)"),
                  ("open_probe_static", "the same, Swift runtime linked statically")):
    v = proc[key]["p50_ms"]
    rows.append((what + ", p50", f"{v:.1f} ms", f"`gio open` {gio:.1f} ms", f"{v / gio:.2f}×", "", "what a CLI can reach"))
x = proc["xdg_open"]["p50_ms"]
rows.append(("`xdg-open URL` process (generic mode), p50", "", f"`gio open` {gio:.1f} ms", f"{x / gio:.2f}×", "", f"{x:.1f} ms"))
d, dc = proc["dbus_send_openurl"]["p50_ms"], proc["dbus_send_openurl_c_service"]["p50_ms"]
rows.append(("`dbus-send … OpenURL` process (new connection), p50", f"{d:.1f} ms", f"C service {dc:.1f} ms", f"{d / dc:.2f}×", "",
             f"{d / gio:.2f}× `gio open`"))

# Start-up and memory. The aims are judged on the service as `make install` ships it (Swift
# runtime linked statically); the plain release build (shared runtime) is shown beside it.
st = start[big]["schemebridged_static"]
c_big = start[big]["c_service"]
for n in sizes:
    s = start[n]
    ours, theirs = s["schemebridged"], s["c_service"]
    r = ours["p50_startup_ms"] / theirs["p50_startup_ms"]
    label = f"start-up to first answer, {int(n):,} entries" + (", plain release build (runtime shared)" if n == big else "")
    rows.append((label, f"{ours['p50_startup_ms']:.0f} ms", f"C service {theirs['p50_startup_ms']:.0f} ms", f"{r:.2f}×", "", ""))
rows.append((f"start-up to first answer, {int(big):,} entries, as installed (Swift runtime static)", f"{st['p50_startup_ms']:.0f} ms",
             f"C service {c_big['p50_startup_ms']:.0f} ms", f"{st['p50_startup_ms'] / c_big['p50_startup_ms']:.2f}×", "≤ 150 ms",
             aim(f"start-up with {big} entries ≤ 150 ms (as installed)", st["p50_startup_ms"], 150, "<=", "ms")))
for n in sizes:
    s = start[n]
    ours, theirs = s["schemebridged"], s["c_service"]
    mb, cmb = ours["p50_rss_kib"] / 1024, theirs["p50_rss_kib"] / 1024
    label = f"RSS after first answer, {int(n):,} entries" + (", plain release build" if n == big else "")
    rows.append((label, f"{mb:.1f} MiB", f"C service {cmb:.1f} MiB", f"{mb / cmb:.2f}×", "", ""))
smb = st["p50_rss_kib"] / 1024
rows.append((f"RSS after first answer, {int(big):,} entries, as installed", f"{smb:.1f} MiB",
             f"C service {c_big['p50_rss_kib'] / 1024:.1f} MiB", f"{smb / (c_big['p50_rss_kib'] / 1024):.2f}×", "≤ 30 MiB",
             aim(f"RSS with {big} entries ≤ 30 MiB (as installed)", smb, 30, "<=", "MiB")))

# Live update.
lv, lg = live["schemebridged"], live["gio_update_desktop_database"]
rows.append((f"live update: new entry → `CanOpenURL` true, p50 / max ({big} entries)", f"{lv['p50_ms']:.1f} / {lv['max_ms']:.1f} ms",
             f"`update-desktop-database` + `gio mime` {lg['p50_ms']:.0f} ms", f"{lv['p50_ms'] / lg['p50_ms']:.3f}×", "≤ 100 ms",
             aim("live update p50 ≤ 100 ms", lv["p50_ms"], 100, "<=", "ms")))

# Floors.
rows.append((f"floor: bus daemon `Peer.Ping` throughput, {tp['clients']} connections", f"{ping_tp:,.0f} calls/s", "", "", "",
             "one hop; a service call is two, so both services are bus-bound"))
rows.append(("floor: bus daemon `Peer.Ping`, p50", f"{ping['p50_us']:.0f} µs", f"C service `Echo` {c_echo['p50_us']:.0f} µs",
             f"{ping['p50_us'] / c_echo['p50_us']:.2f}×", "", ""))
rows.append(("D-Bus layer `Echo`, inline / async handler, p50", f"{sw_in['p50_us']:.0f} / {sw_as['p50_us']:.0f} µs",
             f"C service `Echo` {c_echo['p50_us']:.0f} µs", f"{sw_in['p50_us'] / c_echo['p50_us']:.2f}× / {sw_as['p50_us'] / c_echo['p50_us']:.2f}×",
             "", ""))

command = "make bench"
header = ["measurement", "SchemeBridge", "baseline, same run", "ratio", "aim", "verdict"]
table = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
table += ["| " + " | ".join(row) + " |" for row in rows]
footer = ((f"**Failed runs** (times not meaningful): {failed}. " if failed else "") + f"{machine}; {date}; `{command}` at commit {commit()}; round trips {lat['rounds']:,} interleaved rounds, "
          f"OpenURL {opn['rounds']:,}, processes {proc['rounds']}, start-up {start[big]['rounds']} per tree, "
          f"throughput {tp['rounds']} × {tp['seconds']:.0f} s.")

result = {
    "machine": machine, "date": date, "command": command, "commit": commit(),
    "aims": aims,
    "latency": lat, "throughput": tp, "openurl": opn, "processes": proc, "cli_note": cli_note or None,
    "startup": start, "live_update": live,
}
json.dump(result, open(out_json, "w"), indent=2)

print()
for line in table:
    print(line)
print()
print(footer)

text = open(readme).read()
begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
block = begin + "\n" + "\n".join(table) + "\n\n" + footer + "\n" + end
if begin in text and end in text:
    text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    open(readme, "w").write(text)
    print(f"(README.md updated; raw figures in {out_json})")
else:
    print(f"(README.md has no {begin} … {end} markers; not updated)")
