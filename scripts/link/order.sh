#!/bin/bash
# Writes scripts/link/schemebridged.order, the order in which the release link places the service's
# functions (Package.swift: lld --symbol-ordering-file): a device share's (scripts/link/share.order),
# then the functions a start runs, in the order it first runs them, then those of the first OpenURL,
# then those only a cold start (no index yet) runs. The kernel maps 64 KiB of the program around
# every page a start touches; with the start's code together, a start touches far fewer of them
# (docs/PERFORMANCE.md).
#
# How: schemebridged (a release build, default .build-static/release/schemebridged, as make bench
# builds it) runs under scripts/link/fntrace.c, a ptrace tracer that sets a one-shot breakpoint at
# every function in the program's symbol table and lists each function the first time a thread
# enters it, on a private dbus-daemon over a 10,000-entry tree (Benchmarks/gen-tree.py): once cold,
# once warm until the first CanOpenURL answer and two OpenURLs. Names that later builds no longer
# have are ignored by the link; run this again after large changes to the start path.
#
# Usage: scripts/link/order.sh [SCHEMEBRIDGED]   (needs gcc, nm, dbus-daemon, dbus-send, python3)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(readlink -f "${1:-.build-static/release/schemebridged}")"
OUT=scripts/link/schemebridged.order
WORK="$(mktemp -d /tmp/schemebridge-order.XXXXXX)"
BUS_PID=
cleanup() { [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
gcc -O2 -Wall -o "$WORK/fntrace" scripts/link/fntrace.c
nm --defined-only "$BIN" | awk '$2 ~ /^[TtWw]$/ { print $1, $3 }' > "$WORK/functions"
# A name more than one local function bears (a helper every object has its own copy of) would give
# every section holding one the start's rank, and drag whole unsplit sections (the stdlib's regex
# code) into the start's pages: such names are left out.
awk '{ print $2 }' "$WORK/functions" | sort | uniq -d > "$WORK/ambiguous"
/usr/bin/python3 Benchmarks/gen-tree.py 10000 "$WORK/tree" > "$WORK/tree.env"
. Benchmarks/lib/bus.sh
start_private_bus "$WORK"
call() {
    dbus-send --bus="$ADDR" --print-reply --dest=io.github.schemebridge.SchemeBridge1 /io/github/schemebridge/SchemeBridge1 \
        "io.github.schemebridge.SchemeBridge1.$1" string:'todolist://add?task=milk' 2>/dev/null | grep -q true
}
# One traced run: start, wait for the first answer, make the calls given, stop.
traced() {
    local out="$1"; shift
    env $(cat "$WORK/tree.env") XDG_CACHE_HOME="$WORK/cache" XDG_CURRENT_DESKTOP= WAYLAND_DISPLAY=none DISPLAY= \
        "$WORK/fntrace" "$WORK/functions" "$out" "$BIN" --address "$ADDR" --max-launch-rate 0 2>>"$WORK/log" &
    local tracer=$!
    until call CanOpenURL; do
        kill -0 "$tracer" 2>/dev/null || { cat "$WORK/log" >&2; echo "the service stopped before it answered" >&2; exit 1; }
        sleep 0.05
    done
    for method in "$@"; do call "$method"; done
    kill "$tracer"; wait "$tracer" || true
    for _ in $(seq 100); do ls "$WORK/cache/schemebridge/"*.index >/dev/null 2>&1 && break; sleep 0.05; done
}
traced "$WORK/cold"
traced "$WORK/warm-written"   # rewrites the index if the cold run found its files too new ("racy")
traced "$WORK/warm" OpenURL OpenURL
# A device share's functions (scripts/link/share.order, written by scripts/link/share-order.sh) come
# first: they run at every share, after other programs had the cores; the start's follow.
awk 'FILENAME == ARGV[1] { ambiguous[$0] = 1; next } !($0 in ambiguous) && !seen[$0]++' "$WORK/ambiguous" scripts/link/share.order "$WORK/warm" "$WORK/cold" > "$OUT"
echo "$OUT: $(wc -l < "$OUT") functions ($(wc -l < scripts/link/share.order) of a device share's, $(wc -l < "$WORK/warm") on a warm start and two OpenURLs)"
