#!/bin/bash
# Benchmarks/share-stages.sh (issue 38, session 12). Where a device Share's time goes on the service's loop thread, from uprobes + syscall tracepoints
# (perf), during Benchmarks/devices.sh (64 KiB files). Usage (root):
#   share-stages.sh BIN [ROUNDS] [SYMBOL-REGEX...]
# BIN: a static release schemebridged (copy it to a unique path first: the probes are per path).
# Default probes: ConnectionCore.filter/handleMethodCall, OutboxKeeper.localLook, DeviceFileLook.kernelPath,
# Broker.decide(share:), ReplyRequests.begin, RequestObjects.send, ConnectionCore.sendSignal/sendReply;
# extra SYMBOL-REGEX arguments add probes on the (mangled) symbols they match (first match each; name = p<N>).
# Output: per Share, the median µs of each event after the Share's recvmsg, and the same for the
# engine's reply → Response. Runs from the worktree this script is called in (needs Benchmarks/devices.sh).
set -euo pipefail
BIN="$(readlink -f "$1")"; ROUNDS="${2:-300}"; shift || true; shift || true
TAG="sbs$(echo "$BIN" | md5sum | cut -c1-6)"
OUTD="$(mktemp -d /tmp/share-stages.XXXXXX)"
perf probe -d "$TAG:*" >/dev/null 2>&1 || true
nm "$BIN" | awk '$2 ~ /^[tT]$/ {print $3}' > "$OUTD/syms"
declare -A NAMES
add() {  # NAME REGEX
    local sym; sym=$(grep -E -m1 "$2" "$OUTD/syms" || true)
    [ -n "$sym" ] || { echo "no symbol for $1 ($2)" >&2; return 0; }
    perf probe -x "$BIN" -a "$TAG:$1=$sym" >/dev/null 2>&1 && echo "$1 = $sym" >> "$OUTD/probes" || echo "probe failed: $1" >&2
}
add filter '^\$s4DBus14ConnectionCoreC6filterySo0A13HandlerResultas13OpaquePointerVF$'
add handleCall '^\$s4DBus14ConnectionCoreC16handleMethodCallyys13OpaquePointerVF$'
add localLook 'OutboxKeeperC9localLook6caller5inbox.*F$'
add kernelPath 'DeviceFileLookO10kernelPath2of.*Tf4nd_n$|DeviceFileLookO10kernelPath2of[^ ]*tFZ$'
add decide 'BrokerC6decide5share9requested3ask6caller.*KF$'
add begin 'ReplyRequestsC5begin6caller9handlerID12launchTokens7timeout7purpose.*KF$'
add respSend 'RequestObjectsV4send_2id2to'
add sendSignal '^\$s4DBus14ConnectionCoreC10sendSignal4path9interface6member9arguments11destination.*F$'
add sendReply '^\$s4DBus14ConnectionCoreC9sendReplyyy.*F$'
n=0; for re in "$@"; do n=$((n+1)); add "x$n" "$re"; done
cat "$OUTD/probes"
cd "$(git rev-parse --show-toplevel)"
DEVICE_ROUNDS="$ROUNDS" DEVICE_BYTES=65536 DEVICE_SHEET_ROUNDS=1 bash Benchmarks/devices.sh "$BIN" > "$OUTD/bench.log" 2>&1 &
B=$!
until grep -q "interleaved rounds" "$OUTD/bench.log" 2>/dev/null; do sleep 0.2; kill -0 $B 2>/dev/null || { cat "$OUTD/bench.log"; exit 1; }; done
sleep 2
perf record -a -e sched:sched_switch -e syscalls:sys_enter_sendmsg -e syscalls:sys_enter_recvmsg \
    -e syscalls:sys_enter_readlinkat -e "$TAG:*" -o "$OUTD/perf.data" -- sleep "${STAGE_SECONDS:-4}" 2>"$OUTD/perf.err"
wait $B || true
grep -E "Share is|CPU within|no shareReceived" "$OUTD/bench.log" | cut -c1-200 || true
perf script -i "$OUTD/perf.data" -F comm,tid,time,event,trace 2>/dev/null > "$OUTD/events.txt"
perf probe -d "$TAG:*" >/dev/null 2>&1 || true
/usr/bin/python3 - "$OUTD/events.txt" "$TAG" <<'PY'
import re, sys, statistics, collections
tag = sys.argv[2]
L = []
for l in open(sys.argv[1]):
    m = re.match(r'\s*(\S.*?)\s+(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)', l)
    if m: L.append((m[1], int(m[2]), float(m[3]), m[4], m[5]))
probes = collections.Counter(x[1] for x in L if x[3].startswith(tag + ':'))
if not probes: sys.exit("no probe fired")
lt = probes.most_common(1)[0][0]
seqs, cur = [], []
for x in L:
    if x[1] != lt: continue
    ev = x[3]
    if ev.startswith(tag + ':'): n = ev.split(':')[1]
    elif ev == 'syscalls:sys_enter_recvmsg': n = 'recv'
    elif ev == 'syscalls:sys_enter_sendmsg': n = 'send'
    elif ev == 'syscalls:sys_enter_readlinkat': n = 'readlink'
    elif ev == 'sched:sched_switch': n = 'out'
    else: continue
    if n == 'recv' and not (cur and cur[-1][0] == 'recv'):
        seqs.append(cur); cur = []
    cur.append((n, x[2]))
def show(title, ss):
    print("%s: %d sequences (µs after the recvmsg; median, with the count that had the event)" % (title, len(ss)))
    rel = collections.defaultdict(list)
    for s in ss:
        t0 = s[0][1]; seen = collections.Counter()
        for n, t in s:
            if n == 'out': continue
            seen[n] += 1
            rel[(n, seen[n])].append((t - t0) * 1e6)
    for k, v in sorted(rel.items(), key=lambda kv: statistics.median(kv[1])):
        if len(v) >= len(ss) / 2: print("  %-12s #%d  %6.0f  (n=%d)" % (k[0], k[1], statistics.median(v), len(v)))
shares = [s for s in seqs if any(a == 'localLook' for a, _ in s)]
resp = [s for s in seqs if any(a == 'respSend' for a, _ in s) and not any(a == 'localLook' for a, _ in s)]
show("Share in → …", shares[2:]); show("engine's reply in → Response", resp[2:])
PY
echo "(raw: $OUTD)"
