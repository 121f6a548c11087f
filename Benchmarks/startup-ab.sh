#!/bin/bash
# Start-up, RSS after the first answer and OpenURL → spawn, this build against an earlier one
# (issue 36, item 6), beside the C reference service — the three rows of `make bench` that a change
# to the start path moves, without the rest of `make bench`. Every figure is a ratio to the C
# service in the same rounds; the two builds take turns round by round (start-up) or block by
# block (OpenURL), so a loaded machine slows both alike.
#
# Usage: Benchmarks/startup-ab.sh NEW_SCHEMEBRIDGED [OLD_SCHEMEBRIDGED]
# Knobs: SIZES (10000 50000), START_ROUNDS (9), OPEN_ROUNDS (600 per block), AB_BLOCKS (6),
# LABEL_NEW, LABEL_OLD. Build both as make bench does: swift build -c release --static-swift-stdlib
# --scratch-path .build-static --product schemebridged (the older one from a copy of its commit,
# docs/PERFORMANCE.md). Prints one JSON object per measurement and a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
NEW="$(readlink -f "$1")"
OLD="${2:+$(readlink -f "$2")}"
SIZES="${SIZES:-10000 50000}"
START_ROUNDS="${START_ROUNDS:-9}"
OPEN_ROUNDS="${OPEN_ROUNDS:-600}"
AB_BLOCKS="${AB_BLOCKS:-6}"
URL='todolist://add?task=milk'
WORK="$(mktemp -d /tmp/schemebridge-startup-ab.XXXXXX)"
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p Benchmarks/bin
CFLAGS="-O2 -Wall $(pkg-config --cflags dbus-1)"
LIBS="$(pkg-config --libs dbus-1)"
gcc $CFLAGS -o Benchmarks/bin/ref-service Benchmarks/c/ref-service.c $LIBS
gcc $CFLAGS -o Benchmarks/bin/layer-client Benchmarks/c/layer-client.c $LIBS
CLIENT=Benchmarks/bin/layer-client
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"

for n in $SIZES; do
    /usr/bin/python3 Benchmarks/gen-tree.py "$n" "$WORK/t$n" > "$WORK/t$n.env"
done
tree_env() { echo $(cat "$WORK/t$1.env") XDG_CURRENT_DESKTOP= WAYLAND_DISPLAY=schemebridge-bench-none DISPLAY=; }

. Benchmarks/lib/bus.sh
start_private_bus "$WORK"
PIDS+=("$BUS_PID")
export DBUS_SESSION_BUS_ADDRESS="$ADDR"
SB=io.github.schemebridge.SchemeBridge1
NO_CACHE=/proc/schemebridge-bench-no-cache

echo "==> start-up to first CanOpenURL answer and RSS ($START_ROUNDS interleaved rounds per tree)"
for n in $SIZES; do
    CMDS=(warm=$SB env XDG_CACHE_HOME="$WORK/cache-new-$n" "$NEW" --address "$ADDR" --max-launch-rate 0
          :: cold=$SB env XDG_CACHE_HOME="$NO_CACHE" "$NEW" --address "$ADDR" --max-launch-rate 0)
    PRIME=(new)
    if [ -n "$OLD" ]; then
        CMDS+=(:: warm_old=$SB env XDG_CACHE_HOME="$WORK/cache-old-$n" "$OLD" --address "$ADDR" --max-launch-rate 0
               :: cold_old=$SB env XDG_CACHE_HOME="$NO_CACHE" "$OLD" --address "$ADDR" --max-launch-rate 0)
        PRIME+=(old)
    fi
    CMDS+=(:: c_service=io.github.schemebridge.BenchCStart Benchmarks/bin/ref-service "$ADDR" io.github.schemebridge.BenchCStart)
    # Two priming runs each: the first writes the index, the second rewrites it if files were
    # "racy" (docs/REGISTRY.md).
    for which in "${PRIME[@]}"; do
        bin="$NEW"; [ "$which" = old ] && bin="$OLD"
        for _ in 1 2; do
            sleep 0.3
            env $(tree_env "$n") $CLIENT startup "$ADDR" 1 "$URL" \
                prime=$SB env XDG_CACHE_HOME="$WORK/cache-$which-$n" "$bin" --address "$ADDR" --max-launch-rate 0 > /dev/null
            for _ in $(seq 100); do ls "$WORK/cache-$which-$n/schemebridge/"*.index >/dev/null 2>&1 && break; sleep 0.05; done
        done
    done
    sleep 0.3
    env $(tree_env "$n") $CLIENT startup "$ADDR" "$START_ROUNDS" "$URL" "${CMDS[@]}" > "$WORK/startup-$n.json"
done

echo "==> OpenURL → /bin/true spawned, $AB_BLOCKS blocks of $OPEN_ROUNDS interleaved rounds (10,000-entry tree)"
BIG=10000
[ -d "$WORK/t$BIG" ] || { /usr/bin/python3 Benchmarks/gen-tree.py "$BIG" "$WORK/t$BIG" > "$WORK/t$BIG.env"; }
env $(tree_env "$BIG") Benchmarks/bin/ref-service "$ADDR" & PIDS+=($!)
wait_name io.github.schemebridge.BenchC
for block in $(seq "$AB_BLOCKS"); do
    order="new"; [ -n "$OLD" ] && { order="new old"; [ $((block % 2)) = 0 ] && order="old new"; }
    for which in $order; do
        bin="$NEW"; [ "$which" = old ] && bin="$OLD"
        while has_name $SB; do sleep 0.05; done
        env $(tree_env "$BIG") XDG_CACHE_HOME="$WORK/cache-$which-$BIG" "$bin" --address "$ADDR" --max-launch-rate 0 2>>"$WORK/$which.log" & P=$!
        PIDS+=("$P")
        wait_name $SB
        sleep 0.5
        $CLIENT open "$ADDR" "$OPEN_ROUNDS" "$URL" > "$WORK/open-$which-$block.json"
        kill "$P"; wait "$P" 2>/dev/null || true
    done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

/usr/bin/python3 - "$WORK" "$SIZES" "$AB_BLOCKS" "${LABEL_NEW:-new}" "${LABEL_OLD:-old}" "$OLD" <<'PY'
import json, statistics, sys
work, sizes, blocks, label_new, label_old, old = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
builds = [("", label_new)] + ([("_old", label_old)] if old else [])
for n in sizes:
    s = json.load(open(f"{work}/startup-{n}.json"))
    c = s["c_service"]["p50_startup_ms"]
    for suffix, label in builds:
        w, k = s["warm" + suffix], s["cold" + suffix]
        print(f"start-up {int(n):,} entries, {label}: warm {w['p50_startup_ms']} ms ({w['p50_startup_ms'] / c:.2f}× C {c} ms), "
              f"cold {k['p50_startup_ms']} ms ({k['p50_startup_ms'] / c:.2f}×); RSS warm {w['p50_rss_kib'] / 1024:.1f} MiB, cold {k['p50_rss_kib'] / 1024:.1f} MiB")
for which, label in [("new", label_new)] + ([("old", label_old)] if old else []):
    ratios, p50s = [], []
    for b in range(1, blocks + 1):
        o = json.load(open(f"{work}/open-{which}-{b}.json"))
        p50s.append(o["schemebridged_openurl"]["p50_us"])
        ratios.append(o["schemebridged_openurl"]["p50_us"] / o["c_service_openurl"]["p50_us"])
    print(f"OpenURL → spawn p50, {label}: {statistics.median(p50s):.0f} µs, ÷ C service {statistics.median(ratios):.2f}× "
          f"(blocks {min(ratios):.2f}–{max(ratios):.2f})")
PY
