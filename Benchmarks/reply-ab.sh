#!/bin/bash
# The request → reply round trip of `make bench` (OpenURLWithReply → the running C handler's Open
# → Reply → Response, beside plain OpenURL + Open) for several builds taking turns as the service:
#   bash Benchmarks/reply-ab.sh BLOCKS ROUNDS LABEL=SCHEMEBRIDGED[:VAR=VALUE] ...
# e.g. `bash Benchmarks/reply-ab.sh 4 500 new=.build-static/release/schemebridged old=/tmp/old
# nopf=.build-static/release/schemebridged:SCHEMEBRIDGE_PREFETCH=0`. Each block starts each build
# on a private bus with a 1,000-entry tree and prints its p50s and their ratio (the row's aim:
# ≤ 1.5×). MONITOR=PREFIX also writes a dbus-monitor of each build's block to PREFIX.LABEL (what
# the service asks the bus daemon between the calls; it slows every message).
set -euo pipefail
cd "$(dirname "$0")/.."
BLOCKS=$1 ROUNDS=$2
shift 2
WORK=$(mktemp -d /tmp/schemebridge-reply-ab.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
mkdir -p Benchmarks/bin
FLAGS="-O2 -Wall $(pkg-config --cflags dbus-1)" LIBS="$(pkg-config --libs dbus-1)"
gcc $FLAGS -o Benchmarks/bin/layer-client Benchmarks/c/layer-client.c $LIBS
gcc $FLAGS -o Benchmarks/bin/reply-handler Benchmarks/c/reply-handler.c $LIBS
/usr/bin/python3 Benchmarks/gen-tree.py 1000 "$WORK/t" > "$WORK/t.env"
. Benchmarks/lib/bus.sh
start_private_bus "$WORK"
PIDS+=("$BUS_PID")
APPS="$WORK/t/data-home/applications"
mkdir -p "$APPS"
printf '[Desktop Entry]\nType=Application\nName=Bench Reply (D-Bus)\nDBusActivatable=true\nExec=%s %%u\nMimeType=x-scheme-handler/benchreply;\n' \
    "$PWD/Benchmarks/bin/reply-handler" > "$APPS/io.github.schemebridge.BenchReply.desktop"
printf '[Desktop Entry]\nType=Application\nName=Bench Reply (spawned)\nExec=%s %%u\nMimeType=x-scheme-handler/benchspawn;\n' \
    "$PWD/Benchmarks/bin/reply-handler" > "$APPS/bench-reply-spawned.desktop"
Benchmarks/bin/reply-handler serve "$ADDR" io.github.schemebridge.BenchReply & PIDS+=($!)
wait_name io.github.schemebridge.BenchReply
for b in $(seq "$BLOCKS"); do
    for spec in "$@"; do
        label=${spec%%=*} rest=${spec#*=}
        bin=${rest%%:*} extra=""
        [[ "$rest" == *:* ]] && extra=${rest#*:}
        env $(cat "$WORK/t.env") $extra "$bin" --address "$ADDR" --max-launch-rate 0 2>>"$WORK/$label.log" & SB=$!
        wait_name io.github.schemebridge.SchemeBridge1
        # The registry index is written about a second after a start without one.
        sleep 1.5
        MON=""
        if [ -n "${MONITOR:-}" ]; then dbus-monitor --address "$ADDR" --monitor > "$MONITOR.$label" 2>&1 & MON=$!; sleep 0.5; fi
        Benchmarks/bin/layer-client reply "$ADDR" "$ROUNDS" 'benchreply://pick?color=teal' 'benchspawn://pick?color=teal' > "$WORK/r.json"
        [ -n "$MON" ] && { sleep 0.3; kill "$MON"; }
        kill "$SB"; wait "$SB" 2>/dev/null || true
        for _ in $(seq 250); do has_name io.github.schemebridge.SchemeBridge1 || break; sleep 0.02; done
        /usr/bin/python3 - "$label" "$b" "$WORK/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[3]))
p, r = d["schemebridged_openurl_dbus_handler"]["p50_us"], d["schemebridged_reply_dbus_handler"]["p50_us"]
print(f"{sys.argv[1]:10} block {sys.argv[2]}: reply {r:7.1f} µs  plain {p:7.1f} µs  ratio {r / p:.3f}", flush=True)
PY
    done
done
