#!/bin/bash
# Benchmarks/share-e2e.sh (issue 38, session 16). A device Share's time end to end against the bare
# C relay's, cut where it crosses a process — the bus daemon's delivery, the server's work before the
# engine's call, the engine, the server's work to the Response, the delivery back — from syscall and
# scheduler tracepoints on every CPU (perf) during Benchmarks/devices.sh. Usage (root):
#   share-e2e.sh BIN [ROUNDS] [SECONDS]
# BIN: a static release schemebridged (or a script exec'ing one with environment of its own);
# ROUNDS (80) of DEVICE_BYTES (1 MiB) files; the trace covers SECONDS (10) of them. E2E_SAMPLE=1 also
# samples every CPU at 20 kHz with call graphs (samples.txt beside the trace; it slows every
# process, so read proportions from it, not times). Prints devices.sh's own figures, then
# Benchmarks/lib/share_e2e.py's table; the raw trace's folder last.
set -euo pipefail
BIN="$(readlink -f "$1")"; ROUNDS="${2:-80}"; SECS="${3:-10}"
cd "$(dirname "$0")/.."
OUTD="$(mktemp -d /tmp/share-e2e.XXXXXX)"
# devices.sh writes its figures to Benchmarks/results/devices.json: put back what was there (make bench's).
[ ! -e Benchmarks/results/devices.json ] || cp Benchmarks/results/devices.json "$OUTD/devices.json.kept"
DEVICE_ROUNDS="$ROUNDS" DEVICE_BYTES="${DEVICE_BYTES:-1048576}" DEVICE_SHEET_ROUNDS=1 bash Benchmarks/devices.sh "$BIN" > "$OUTD/bench.log" 2>&1 &
B=$!
until grep -q "interleaved rounds" "$OUTD/bench.log" 2>/dev/null; do sleep 0.2; kill -0 $B 2>/dev/null || { cat "$OUTD/bench.log"; exit 1; }; done
sleep 2
perf record -a ${E2E_SAMPLE:+-F 20000 -e cpu-clock -g} -e syscalls:sys_enter_sendmsg -e syscalls:sys_exit_recvmsg -e syscalls:sys_enter_readlinkat \
    -e sched:sched_switch -e sched:sched_wakeup -o "$OUTD/perf.data" -- sleep "$SECS" 2>"$OUTD/perf.err"
wait $B || true
if [ -e "$OUTD/devices.json.kept" ]; then cp "$OUTD/devices.json.kept" Benchmarks/results/devices.json; else rm -f Benchmarks/results/devices.json; fi
grep -E "Share is|CPU within|no shareReceived" "$OUTD/bench.log" | cut -c1-200 || true
perf script -i "$OUTD/perf.data" -F comm,pid,tid,cpu,time,event,trace 2>/dev/null | grep -v cpu-clock > "$OUTD/events.txt"
[ -z "${E2E_SAMPLE:-}" ] || perf script -i "$OUTD/perf.data" -F tid,time,event,ip,sym 2>/dev/null > "$OUTD/samples.txt"
/usr/bin/python3 Benchmarks/lib/share_e2e.py "$OUTD/events.txt"
echo "raw: $OUTD"
