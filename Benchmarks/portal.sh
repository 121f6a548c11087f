#!/bin/bash
# The portal (issue 40): a Flatpak app (no --talk-name) calls org.freedesktop.portal.OpenURI on Debian's
# real xdg-desktop-portal, which launches the app for the URL and then answers. Four ways, same run,
# interleaved rounds, the same tree (two apps for todolist:, Todo the default and Todo2, copies of
# /bin/true; `[Routes]` sends the app's todolist: to Todo2), the same sandboxed client
# (Benchmarks/c/portal-bench.c: N calls in one process, each timed from the call to its Response):
#  - published: SchemeBridge's way after `schemebridge integrate enable --portal` (run here): the route is
#    publishable (an exact app id, a handler with no launch image), so integrate writes it into the permission
#    store as the portal's own "chosen three times" (`[org.example.Todo2, 3, 3]` for the app) and leaves the
#    type not always-ask: the portal (SchemeBridge's AppChooser selected) launches Todo2 without asking anyone;
#  - gtk: the portal with its own GTK AppChooser backend (xdg-desktop-portal-gtk), the type not always-ask,
#    the app's Todo2 chosen three times (the same store entry): the portal launches it without asking any
#    backend — the fastest its own path goes (asked, the GTK backend would show its dialog and wait for a person);
#  - asked: the portal asks SchemeBridge's AppChooser (the type always-ask, as for a route integrate cannot
#    publish), which decides by the [Routes] line for the app's id, with no dialog;
#  - floor: the portal asking the least backend there can be (Benchmarks/c/portal-floor-backend.c: it answers
#    ChooseApplication with Todo2 at once, from C, with nothing else on its bus connection), the type
#    always-ask as for `asked`: what the portal's own asking costs, which no backend can make cheaper.
# Target: published p50 ≤ 1.2 × gtk p50. A dbus-monitor through the timed rounds says how much of the
# asked way is SchemeBridge's answer (ChooseApplication, call to reply); then one more batch of each way under a
# monitor of every message (slower: for counting, not for timing) gives the messages one call takes and where
# its time goes (the portal before asking, the backend, the portal after the answer, the permission store's
# SetPermission — which writes its database to disk before it replies — and the Response).
# The portal runs with G_MESSAGES_DEBUG=all for those monitored batches only: its log says which app it launched,
# and that it skipped the chooser, for the published way.
# Usage: Benchmarks/portal.sh [BIN_DIR]   (BIN_DIR holds schemebridged, and schemebridge-cli for `integrate`, else
# .build/debug's or .build/release's is used; default .build/debug)
# Knobs: PORTAL_ROUNDS (rounds of each, 6), PORTAL_CALLS (calls a round, 30), PORTAL_PROFILE_CALLS (calls of the
# monitored batch, 10). Needs: flatpak, bwrap,
# xdg-dbus-proxy, xdg-desktop-portal, xdg-desktop-portal-gtk, Xvfb (make deps). Run as root (flatpak
# as a user without a system bus is what the tests do too). Results: printed and Benchmarks/results/portal.json.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$(cd "${1:-.build/debug}" && pwd)"
ROUNDS="${PORTAL_ROUNDS:-6}"
CALLS="${PORTAL_CALLS:-30}"
PROFILE_CALLS="${PORTAL_PROFILE_CALLS:-10}"
CLI=
for c in "$BIN/schemebridge-cli" .build/debug/schemebridge-cli .build/release/schemebridge-cli; do
    [ -x "$c" ] && { CLI="$(cd "$(dirname "$c")" && pwd)/schemebridge-cli"; break; }
done
[ -n "$CLI" ] || { echo "portal.sh: no schemebridge-cli in $BIN, .build/debug or .build/release (swift build --product schemebridge-cli)" >&2; exit 1; }
OUT=Benchmarks/results
mkdir -p "$OUT"
for p in /usr/libexec/xdg-desktop-portal /usr/libexec/xdg-desktop-portal-gtk /usr/libexec/xdg-permission-store; do
    [ -x "$p" ] || { echo "portal.sh: $p is missing (make deps)" >&2; exit 1; }
done
W="$(mktemp -d /tmp/schemebridge-portal-bench.XXXXXX)"
chmod 755 "$W"
PIDS=()
PORTAL=
cleanup() {
    [ -n "$PORTAL" ] && kill "$PORTAL" 2>/dev/null || true
    for ((i=${#PIDS[@]}-1; i>=0; i--)); do kill "${PIDS[$i]}" 2>/dev/null || true; done
    rm -rf "$W"
}
trap cleanup EXIT

export HOME=$W/home XDG_DATA_HOME=$W/home/.local/share XDG_CONFIG_HOME=$W/home/.config XDG_CACHE_HOME=$W/home/.cache \
       XDG_STATE_HOME=$W/home/.local/state XDG_RUNTIME_DIR=$W/run XDG_DATA_DIRS=$W/sys:/usr/share XDG_CONFIG_DIRS=$W/sysconfig \
       FLATPAK_USER_DIR=$W/flatpak FLATPAK_SYSTEM_HELPER_ON_SESSION=1 DBUS_SYSTEM_BUS_ADDRESS=unix:path=$W/no-system-bus \
       GSETTINGS_SCHEMA_DIR=/usr/share/glib-2.0/schemas GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
unset DBUS_SESSION_BUS_ADDRESS WAYLAND_DISPLAY XDG_SESSION_ID XDG_ACTIVATION_TOKEN DESKTOP_STARTUP_ID || true
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME/schemebridge" "$W/sys/applications" "$W/portals" "$W/services" "$W/bin"
chmod 700 "$XDG_RUNTIME_DIR"

# The display the GTK backend needs to start (it draws nothing here).
Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp 3>"$W/display" >/dev/null 2>&1 & PIDS+=($!)
for _ in $(seq 100); do [ -s "$W/display" ] && break; sleep 0.05; done
export DISPLAY=":$(head -1 "$W/display")"

# The sandboxed client, in a runtime made of the host's own files (as the tests' make-test-flatpaks.sh).
ARCH=$(flatpak --default-arch)
RT=$W/build-runtime
mkdir -p "$RT/files" "$RT/usr/bin" "$RT/usr/lib"
ln -s ../lib "$RT/usr/lib64"
printf '[Runtime]\nname=org.bench.Platform\n' > "$RT/metadata"
cp /sbin/ldconfig "$RT/usr/bin/ldconfig"
gcc -O2 -Wall -o "$RT/usr/bin/portal-bench" Benchmarks/c/portal-bench.c $(pkg-config --cflags --libs dbus-1)
ldd "$RT/usr/bin/portal-bench" | sed 's/.* => //' | awk '{print $1}' | grep '^/' | while read -r lib; do cp "$lib" "$RT/usr/lib/"; done
flatpak build-export --disable-sandbox --runtime "$W/repo" "$RT" stable >/dev/null 2>&1
A=$W/build-app
mkdir -p "$A/files/bin"
printf '[Application]\nname=org.bench.NoTalk\nruntime=org.bench.Platform/%s/stable\nsdk=org.bench.Platform/%s/stable\n' "$ARCH" "$ARCH" > "$A/metadata"
flatpak build-finish --command=portal-bench "$A" >/dev/null 2>&1   # no --talk-name: only the portal is reachable
flatpak build-export --disable-sandbox "$W/repo" "$A" stable >/dev/null 2>&1

# The private session bus: the GTK backend started by activation, as a session starts it.
printf '[D-BUS Service]\nName=org.freedesktop.impl.portal.desktop.gtk\nExec=/usr/libexec/xdg-desktop-portal-gtk\n' \
    > "$W/services/org.freedesktop.impl.portal.desktop.gtk.service"
cat > "$W/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><keep_umask/><listen>unix:path=$XDG_RUNTIME_DIR/bus</listen><servicedir>$W/services</servicedir>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
CONF
dbus-daemon --config-file="$W/bus.conf" --nofork --print-address=3 3>"$W/bus.addr" 2>"$W/bus.log" & PIDS+=($!)
for _ in $(seq 100); do [ -s "$W/bus.addr" ] && break; sleep 0.05; done
export DBUS_SESSION_BUS_ADDRESS=$(head -1 "$W/bus.addr")
flatpak --user remote-add --no-gpg-verify bench-repo "file://$W/repo" >/dev/null 2>&1
flatpak --user install -y --noninteractive bench-repo org.bench.Platform org.bench.NoTalk >/dev/null 2>&1 \
    || { echo "portal.sh: flatpak install failed" >&2; exit 1; }

# Two apps open todolist: (Todo the default); GLib's candidates come from mimeinfo.cache. The route: Todo2.
for n in Todo Todo2; do
    cp /bin/true "$W/bin/$n"
    printf '[Desktop Entry]\nType=Application\nName=%s\nExec=%s %%u\nMimeType=x-scheme-handler/todolist;\n' "$n" "$W/bin/$n" > "$W/sys/applications/org.example.$n.desktop"
done
update-desktop-database "$W/sys/applications" 2>/dev/null || true
printf '[Default Applications]\nx-scheme-handler/todolist=org.example.Todo.desktop;\n' > "$XDG_CONFIG_HOME/mimeapps.list"
printf '[Routes]\ntodolist from org.bench.NoTalk=org.example.Todo2.desktop\n' > "$XDG_CONFIG_HOME/schemebridge/config"

# The backends: GTK's for the test desktop, SchemeBridge's shipped file unchanged, the floor's for X-Floor.
sed 's/^UseIn=.*/UseIn=X-Bench/' /usr/share/xdg-desktop-portal/portals/gtk.portal > "$W/portals/gtk.portal"
cp dbus/schemebridge.portal "$W/portals/schemebridge.portal"
printf '[portal]\nDBusName=org.bench.FloorChooser\nInterfaces=org.freedesktop.impl.portal.AppChooser;\nUseIn=X-Floor\n' > "$W/portals/floor.portal"
gcc -O2 -Wall -o "$W/bin/portal-floor-backend" Benchmarks/c/portal-floor-backend.c $(pkg-config --cflags --libs dbus-1)
/usr/libexec/xdg-permission-store --replace >"$W/perm.log" 2>&1 & PIDS+=($!)
"$BIN/schemebridged" --address "$DBUS_SESSION_BUS_ADDRESS" --max-launch-rate 0 2>"$W/schemebridged.log" & PIDS+=($!)
"$W/bin/portal-floor-backend" org.bench.FloorChooser org.example.Todo2 >"$W/floor.out" 2>&1 & PIDS+=($!)
for _ in $(seq 100); do grep -q ready "$W/floor.out" 2>/dev/null && break; sleep 0.05; done
for _ in $(seq 200); do
    gdbus call --session --dest io.github.schemebridge.SchemeBridge1 --object-path /io/github/schemebridge/SchemeBridge1 \
        --method io.github.schemebridge.SchemeBridge1.CanOpenURL todolist://x >/dev/null 2>&1 && break
    sleep 0.05
done

# `integrate enable --portal` as a user runs it (1.16, the environment way: its files in the tree's home, which
# this bus does not read — the portal here is started by this script with the desktop it would get): the route
# published, the type not always-ask.
XDG_CURRENT_DESKTOP=X-Bench XDG_DESKTOP_PORTAL_DIR=$W/portals "$CLI" integrate enable --portal --portal-version 1.16.0 > "$W/integrate.out" 2>&1 \
    || { echo "portal.sh: integrate enable --portal failed: $(cat "$W/integrate.out")" >&2; exit 1; }
grep -q "applied by the portal: x-scheme-handler/todolist from org.bench.NoTalk → org.example.Todo2.desktop" "$W/integrate.out" \
    || { echo "portal.sh: integrate did not publish the route: $(cat "$W/integrate.out")" >&2; exit 1; }
gdbus call --session --dest org.freedesktop.impl.portal.PermissionStore --object-path /org/freedesktop/impl/portal/PermissionStore \
    --method org.freedesktop.impl.portal.PermissionStore.Lookup desktop-used-apps x-scheme-handler/todolist > "$W/published.entry"
grep -q "'org.bench.NoTalk': \['org.example.Todo2', '3', '3'\]" "$W/published.entry" && ! grep -q "'always-ask': <true>" "$W/published.entry" \
    || { echo "portal.sh: the store entry after integrate is not the published route: $(cat "$W/published.entry")" >&2; exit 1; }

always_ask() {  # $1: true|false — whether the portal asks its AppChooser for todolist: each time
    gdbus call --session --dest org.freedesktop.impl.portal.PermissionStore --object-path /org/freedesktop/impl/portal/PermissionStore \
        --method org.freedesktop.impl.portal.PermissionStore.SetValue desktop-used-apps true x-scheme-handler/todolist "<{'always-ask': <$1>}>" >/dev/null
}
DEBUG=
start_portal() {  # $1: the portal's XDG_CURRENT_DESKTOP
    [ -n "$PORTAL" ] && { kill "$PORTAL" 2>/dev/null || true; wait "$PORTAL" 2>/dev/null || true; }
    if [ -n "$DEBUG" ]; then echo "=== $DEBUG" >> "$W/portal.log"; fi
    G_MESSAGES_DEBUG=${DEBUG:+all} XDG_CURRENT_DESKTOP=$1 XDG_DESKTOP_PORTAL_DIR=$W/portals /usr/libexec/xdg-desktop-portal -r >>"$W/portal.log" 2>&1 &
    PORTAL=$!
    for _ in $(seq 200); do
        gdbus introspect --session --dest org.freedesktop.portal.Desktop --object-path /org/freedesktop/portal/desktop 2>/dev/null \
            | grep -q org.freedesktop.portal.OpenURI && return 0
        sleep 0.05
    done
    echo "portal.sh: the portal exports no OpenURI: $(tail -3 "$W/portal.log")" >&2
    exit 1
}
batch() {  # $1: name — one warm-up call, then $CALLS timed ones appended to $W/$1.us
    flatpak run org.bench.NoTalk 1 todolist://warm-up >/dev/null
    flatpak run org.bench.NoTalk "$CALLS" "todolist://bench?from=$1" >> "$W/$1.us"
}

# Where SchemeBridge's share goes: the backend's own time (ChooseApplication's call to its reply), from a
# monitor that runs through both ways alike.
dbus-monitor --session "type='method_call',interface='org.freedesktop.impl.portal.AppChooser',member='ChooseApplication'" \
    "type='method_return'" > "$W/monitor.log" 2>/dev/null & PIDS+=($!)
sleep 0.3
WAYS=(published gtk asked floor)
way() {  # $1: a way — the permission store and the portal set up for it (the app's Todo2 ×3 stays throughout)
    case $1 in
        published) always_ask false; start_portal "X-SchemeBridge:X-Bench" ;;
        asked) always_ask true; start_portal "X-SchemeBridge:X-Bench" ;;
        gtk) always_ask false; start_portal "X-Bench" ;;
        floor) always_ask true; start_portal "X-Floor:X-Bench" ;;
    esac
}
echo "==> a Flatpak app's OpenURI: SchemeBridge's route published to the portal, the portal's own (GTK) path, SchemeBridge's AppChooser asked, and the floor ($ROUNDS × $CALLS calls each, interleaved)"
echo "    load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
    # ABCD, then DCBA: no way always runs right after the same other one.
    if (( r % 2 )); then order=("${WAYS[@]}"); else order=(floor asked gtk published); fi
    for w in "${order[@]}"; do way "$w"; batch "$w"; done
done
LOAD="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "    load after: $LOAD"
kill "${PIDS[-1]}" 2>/dev/null || true   # the timing monitor

# One more batch of each way under a monitor of every message: what one call takes, and where its time goes.
for w in "${WAYS[@]}"; do
    DEBUG=$w way "$w"
    flatpak run org.bench.NoTalk 1 todolist://warm-up >/dev/null
    dbus-monitor --session >"$W/profile-$w.log" 2>/dev/null & MON=$!
    sleep 0.3
    flatpak run org.bench.NoTalk "$PROFILE_CALLS" "todolist://profile?from=$w" >/dev/null
    sleep 0.2
    kill "$MON"; wait "$MON" 2>/dev/null || true
done
grep -c "opens with org.example.Todo2" "$W/schemebridged.log" >/dev/null \
    || { echo "portal.sh: SchemeBridge was never asked (its log: $(tail -3 "$W/schemebridged.log"))" >&2; exit 1; }
# The published way: the portal itself launched Todo2, skipping the chooser (its debug log, monitored batch).
sed -n '/^=== published$/,/^=== /p' "$W/portal.log" > "$W/portal-published.log"
grep -q "Launching org.example.Todo2 todolist://profile?from=published" "$W/portal-published.log" \
    && grep -q "Skipping app chooser" "$W/portal-published.log" \
    || { echo "portal.sh: the published way did not launch Todo2 by the portal alone: $(grep -i 'chooser\|launching' "$W/portal-published.log" | tail -5)" >&2; exit 1; }

OURS=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.GetNameOwner \
    io.github.schemebridge.SchemeBridge1 | sed "s/^('\(.*\)',)$/\1/")
/usr/bin/python3 - "$W/published.us" "$W/gtk.us" "$OUT/portal.json" "$BIN" "$LOAD" "$(nproc)" "$W/monitor.log" "$W/floor.us" "$W" "$PROFILE_CALLS" "$OURS" "$W/asked.us" <<'PY'
import json, re, sys, statistics
def stats(path):
    v = sorted(int(x) for x in open(path).read().split())
    q = lambda p: v[min(len(v) - 1, int(p * len(v)))] / 1000.0
    return {"n": len(v), "p50_ms": q(0.5), "p90_ms": q(0.9), "min_ms": v[0] / 1000.0}
sb, gtk, asked = stats(sys.argv[1]), stats(sys.argv[2]), stats(sys.argv[12])
ratio = sb["p50_ms"] / gtk["p50_ms"]
asked_ratio = asked["p50_ms"] / gtk["p50_ms"]
# ChooseApplication: call (sender, serial) → its method return (destination, reply_serial).
calls, backend = {}, []
for line in open(sys.argv[7], errors="replace"):
    m = re.match(r"method call time=([0-9.]+) sender=(\S+) -> destination=(\S+) serial=(\d+) .*member=ChooseApplication", line)
    # The portal's proxy sends to the owner's unique name: SchemeBridge's, not the floor's.
    if m and m.group(3) in (sys.argv[11], "io.github.schemebridge.SchemeBridge1"): calls[(m.group(2), m.group(4))] = float(m.group(1))
    if m: continue
    m = re.match(r"method return time=([0-9.]+) sender=\S+ -> destination=(\S+) serial=\d+ reply_serial=(\d+)", line)
    if m and (m.group(2), m.group(3)) in calls: backend.append((float(m.group(1)) - calls.pop((m.group(2), m.group(3)))) * 1000)
backend.sort()
b50 = backend[len(backend) // 2] if backend else None
floor = stats(sys.argv[8])
floor_ratio = floor["p50_ms"] / gtk["p50_ms"]

# The monitored batches: every message between an OpenURI call and its Response, by kind, and the stages.
def profile(path, calls_expected):
    msgs = []
    head = re.compile(r"^(method call|method return|signal|error) time=([0-9.]+) sender=(\S+) -> destination=(\S+)(.*)$")
    for line in open(path, errors="replace"):
        m = head.match(line)
        if not m: continue
        kind, t, src, dst, rest = m.group(1), float(m.group(2)), m.group(3), m.group(4), m.group(5)
        f = dict(re.findall(r"(\w+)=([^ ;]+)", rest))
        msgs.append({"kind": kind, "t": t, "src": src, "dst": dst, **f})
    calls = {(x["src"], x.get("serial")): x for x in msgs if x["kind"] == "method call"}
    for x in msgs:
        if x["kind"] == "method call": x["label"] = f"{x.get('interface', '?').split('.')[-1]}.{x.get('member', '?')}"
        elif x["kind"] == "signal": x["label"] = f"signal {x.get('member', '?')}"
        else:
            c = calls.get((x["dst"], x.get("reply_serial")))
            x["label"] = ("reply of " if x["kind"] == "method return" else "error of ") + (c["label"] if c else "?")
    starts = [i for i, x in enumerate(msgs) if x.get("label") == "OpenURI.OpenURI" and "?" not in x["label"]]
    per_call, stages = [], {}
    for n, i in enumerate(starts):
        end = next((j for j in range(i, len(msgs)) if msgs[j].get("label") == "signal Response"), None)
        if end is None: continue
        window = msgs[i:end + 1]
        per_call.append(window)
        t0 = window[0]["t"]
        def first(label, after=0.0):
            return next((x["t"] for x in window if x["label"] == label and x["t"] >= after), None)
        marks = {"choose": first("AppChooser.ChooseApplication")}
        marks["chosen"] = first("reply of AppChooser.ChooseApplication", marks["choose"] or 0.0) if marks["choose"] else None
        marks["set"] = first("PermissionStore.SetPermission")
        marks["set_done"] = first("reply of PermissionStore.SetPermission", marks["set"] or 0.0) if marks["set"] else None
        marks["response"] = window[-1]["t"]
        seq = [("before asking", t0, marks["choose"]), ("backend", marks["choose"], marks["chosen"]),
               ("after the answer, to SetPermission", marks["chosen"], marks["set"]), ("SetPermission (disk)", marks["set"], marks["set_done"]),
               ("to the Response", marks["set_done"] or marks["chosen"], marks["response"]), ("whole call", t0, marks["response"])]
        for name, a, b in seq:
            if a is not None and b is not None: stages.setdefault(name, []).append((b - a) * 1000)
    counts = {}
    for w in per_call:
        for x in w: counts[x["label"]] = counts.get(x["label"], 0) + 1
    n = max(len(per_call), 1)
    return {"calls": len(per_call), "messages_per_call": round(sum(len(w) for w in per_call) / n, 1),
            "by_kind_per_call": {k: round(v / n, 2) for k, v in sorted(counts.items(), key=lambda kv: -kv[1])},
            "stage_p50_ms_monitored": {k: round(statistics.median(v), 3) for k, v in stages.items()}}
prof = {w: profile(f"{sys.argv[9]}/profile-{w}.log", int(sys.argv[10])) for w in ("published", "gtk", "asked", "floor")}

out = {"binaries": sys.argv[4], "load_avg_1_5_15": sys.argv[5], "cpus": int(sys.argv[6]),
       "schemebridge_published_route": sb, "portal_gtk_no_dialog": gtk, "schemebridge_asked_route": asked, "floor_backend_asked": floor,
       "ratio_p50": round(ratio, 3), "asked_ratio_p50": round(asked_ratio, 3), "floor_ratio_p50": round(floor_ratio, 3), "target": 1.2,
       "schemebridge_backend_answer_p50_ms": b50, "backend_answers": len(backend), "profile": prof}
json.dump(out, open(sys.argv[3], "w"), indent=1)
print(f"SchemeBridge's route published to the portal p50 {sb['p50_ms']:.2f} ms (p90 {sb['p90_ms']:.2f}), the portal's own path with GTK's backend "
      f"p50 {gtk['p50_ms']:.2f} ms (p90 {gtk['p90_ms']:.2f}): {ratio:.2f}× (target ≤ 1.2; load {sys.argv[5]} on {sys.argv[6]} CPUs)")
print(f"SchemeBridge's AppChooser asked, by [Routes] p50 {asked['p50_ms']:.2f} ms (p90 {asked['p90_ms']:.2f}): {asked_ratio:.2f}× the portal's own path")
print(f"the floor (the portal asking a C backend that answers at once) p50 {floor['p50_ms']:.2f} ms (p90 {floor['p90_ms']:.2f}): "
      f"{floor_ratio:.2f}× the portal's own path")
if b50 is not None:
    print(f"of which SchemeBridge's answer (ChooseApplication, call to reply, {len(backend)} calls) p50 {b50:.2f} ms; the rest is the portal's asking")
for w, p in prof.items():
    print(f"  {w}: {p['messages_per_call']} messages a call ({p['calls']} monitored calls): "
          + ", ".join(f"{k} {v:g}" for k, v in p["by_kind_per_call"].items()))
    print("      stages (p50 ms, under the monitor): " + ", ".join(f"{k} {v:.2f}" for k, v in p["stage_p50_ms_monitored"].items()))
PY
