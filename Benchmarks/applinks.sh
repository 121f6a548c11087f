#!/bin/bash
# App links (issue 41), two figures, each a ratio to a baseline measured in the same run, interleaved:
#  1. ResolveLink(https link) answered from the cache (the host's record on disk, no network) next to
#     CanOpenURL(the same link) on the same service: Benchmarks/c/layer-client.c `applinks`.
#     Target: ResolveLink p50 ≤ 1.2 × CanOpenURL p50.
#  2. An https link that no app holds, opened through SchemeBridge to the browser, next to xdg-open
#     launching the same browser (a copy of /bin/true, so the figure is the path, not the browser):
#     `schemebridge open LINK` (the lean entry point; SchemeBridge integrated for https, the browser the
#     default before), `xdg-open LINK` through SchemeBridge (xdg-open runs our entry's Exec), and the
#     baseline `xdg-open LINK` with the browser the default (no SchemeBridge). Whole processes
#     (layer-client `proc`). Target: through SchemeBridge ≤ 1.1 × xdg-open.
# Usage: Benchmarks/applinks.sh [BIN_DIR]   (BIN_DIR holds schemebridged and the lean schemebridge:
# run.sh passes its release build; default .build/debug, which gives ratios, not release figures)
# Knobs: AL_ROUNDS (round trips, 5000), AL_PROC_ROUNDS (whole processes, 60). Results: printed and
# Benchmarks/results/applinks.json.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$(cd "${1:-.build/debug}" && pwd)"
AL_ROUNDS="${AL_ROUNDS:-5000}"
AL_PROC_ROUNDS="${AL_PROC_ROUNDS:-60}"
OUT=Benchmarks/results
mkdir -p "$OUT" Benchmarks/bin
W="$(mktemp -d /tmp/schemebridge-applinks-bench.XXXXXX)"
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$W"
}
trap cleanup EXIT
gcc -O2 -Wall $(pkg-config --cflags dbus-1) -o Benchmarks/bin/layer-client Benchmarks/c/layer-client.c $(pkg-config --libs dbus-1)
CLIENT=Benchmarks/bin/layer-client

# The tree: the browser and an app holding links.bench.test in a system data dir (root's, outside
# $HOME: trusted), our entry in the user's, the host's record in the cache (fresh for a day).
HOST=links.bench.test
HELD="https://$HOST/u/42?from=bench"
UNHELD="https://elsewhere.bench.test/article/7?from=bench"
SYS="$W/sys/applications"
mkdir -p "$SYS" "$W/home" "$W/data/applications" "$W/config/schemebridge" "$W/plain-config" "$W/cache/schemebridge" "$W/bin"
cp /bin/true "$W/bin/browser"
cp /bin/true "$W/bin/todo"
printf '[Desktop Entry]\nType=Application\nName=Browser\nExec=%s %%u\nMimeType=x-scheme-handler/http;x-scheme-handler/https;\n' "$W/bin/browser" > "$SYS/browser.desktop"
printf '[Desktop Entry]\nType=Application\nName=Todo\nExec=%s %%u\nX-SchemeBridge-AppLinks=%s;\n' "$W/bin/todo" "$HOST" > "$SYS/org.example.Todo.desktop"
sed "s|^Exec=schemebridge |Exec=$BIN/schemebridge |" desktop/io.github.schemebridge.SchemeBridge.desktop > "$W/data/applications/io.github.schemebridge.SchemeBridge.desktop"
NOW=$(date +%s)
printf '[%s]\nChecked=%s\nExpires=%s\nApps=org.example.Todo;\nSource=https://%s/.well-known/assetlinks.json\nAddress=127.0.0.1:443\nStatus=200\nFailures=0\n' \
    "$HOST" "$NOW" $((NOW + 86400)) "$HOST" > "$W/cache/schemebridge/applinks"
# Integrated (what `schemebridge integrate enable --scheme https` writes when the browser was the default) …
printf '[Default Applications]\nx-scheme-handler/https=io.github.schemebridge.SchemeBridge.desktop;browser.desktop;\n' > "$W/config/mimeapps.list"
# … and the baseline's own config: the browser the default.
printf '[Default Applications]\nx-scheme-handler/https=browser.desktop\n' > "$W/plain-config/mimeapps.list"
ENV=(HOME="$W/home" XDG_DATA_HOME="$W/data" XDG_DATA_DIRS="$W/sys" XDG_CONFIG_HOME="$W/config" XDG_CONFIG_DIRS="$W/sysconfig"
     XDG_CACHE_HOME="$W/cache" PATH="$BIN:/usr/bin:/bin" XDG_CURRENT_DESKTOP= WAYLAND_DISPLAY=schemebridge-bench-none DISPLAY=
     BROWSER= XDG_ACTIVATION_TOKEN= DESKTOP_STARTUP_ID=)

. Benchmarks/lib/bus.sh
start_private_bus "$W"
PIDS+=("$BUS_PID")
env "${ENV[@]}" "$BIN/schemebridged" --address "$ADDR" --max-launch-rate 0 2>"$W/schemebridged.log" & PIDS+=($!)
N=io.github.schemebridge.SchemeBridge1 O=/io/github/schemebridge/SchemeBridge1
for _ in $(seq 500); do
    dbus-send --bus="$ADDR" --print-reply --dest=$N $O $N.ResolveLink "string:$HELD" 2>/dev/null | grep -q '"verified"' && break
    sleep 0.02
done
dbus-send --bus="$ADDR" --print-reply --dest=$N $O $N.ResolveLink "string:$HELD" | grep -q '"verified"' \
    || { echo "the service does not hold $HELD from the cache" >&2; cat "$W/schemebridged.log" >&2; exit 1; }

echo "==> ResolveLink from the cache beside CanOpenURL ($AL_ROUNDS interleaved rounds)"
$CLIENT applinks "$ADDR" "$AL_ROUNDS" "$HELD" > "$W/resolve.json"
echo "==> an https link no app holds, to the browser: through SchemeBridge beside xdg-open ($AL_PROC_ROUNDS interleaved rounds)"
env "${ENV[@]}" DBUS_SESSION_BUS_ADDRESS="$ADDR" $CLIENT proc "$AL_PROC_ROUNDS" \
    schemebridge_open "$BIN/schemebridge" open "$UNHELD" \
    :: xdg_open_through_schemebridge xdg-open "$UNHELD" \
    :: xdg_open_browser env XDG_CONFIG_HOME="$W/plain-config" xdg-open "$UNHELD" \
    :: xdg_open_browser_env_only env XDG_CONFIG_HOME="$W/plain-config" /bin/true > "$W/proc.json"

/usr/bin/python3 - "$W/resolve.json" "$W/proc.json" "$OUT/applinks.json" "$BIN" <<'PY'
import json, sys
resolve, proc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
r = resolve["schemebridged_resolvelink"]["p50_us"] / resolve["schemebridged_canopen"]["p50_us"]
# The baseline runs through `env` (its own config): that exec is taken off it, measured alone.
base = proc["xdg_open_browser"]["p50_ms"] - proc["xdg_open_browser_env_only"]["p50_ms"]
o = proc["schemebridge_open"]["p50_ms"] / base
x = proc["xdg_open_through_schemebridge"]["p50_ms"] / base
out = {"binaries": sys.argv[4], "resolve": resolve, "proc": proc,
       "ratios": {"resolvelink_over_canopenurl_p50": round(r, 3), "schemebridge_open_over_xdg_open_p50": round(o, 3),
                  "xdg_open_through_schemebridge_over_xdg_open_p50": round(x, 3)}}
json.dump(out, open(sys.argv[3], "w"), indent=1)
print(f"ResolveLink p50 {resolve['schemebridged_resolvelink']['p50_us']:.1f} µs, CanOpenURL p50 {resolve['schemebridged_canopen']['p50_us']:.1f} µs: {r:.2f}× (target ≤ 1.2)")
print(f"schemebridge open → browser p50 {proc['schemebridge_open']['p50_ms']:.2f} ms, xdg-open → browser {base:.2f} ms: {o:.2f}× (target ≤ 1.1)")
print(f"xdg-open through SchemeBridge → browser p50 {proc['xdg_open_through_schemebridge']['p50_ms']:.2f} ms: {x:.2f}× xdg-open alone")
PY
