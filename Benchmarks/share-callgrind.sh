#!/bin/bash
# Benchmarks/share-callgrind.sh (issue 38, session 21). Where a device Share's instructions go in the
# service: Benchmarks/devices.sh twice (1 KiB files; ROUNDS and 3 × ROUNDS send rounds) with side A's
# schemebridged under valgrind's callgrind, each run counted to the service's exit; the second run's
# counts less the first's are the extra rounds' shares alone (start-up, pairing, the sheet's round and
# the exit are in both). Benchmarks/lib/share_callgrind.py reports them per share: the instructions in
# all, by kind of code (libdbus, the Swift runtime, the standard library, ours, libc), the functions
# that cost most, and what building and sending each outgoing message costs. Instruction counts do not
# move with the machine's load as times do; they do not say what a cold cache costs (session 17: most
# of a share's time). Usage (root):
#   share-callgrind.sh [BIN] [ROUNDS]
# BIN: a static release schemebridged (default: built as make bench builds it); ROUNDS (12).
# Both engines run with the receiving fix (LD_PRELOAD, as the tests start them): slowed ~30× under
# callgrind, the service's shares met Debian's unfixed receiver's stall (a 0-byte .part on B, the
# round never ends) in most runs of 10-40 rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${2:-12}"
command -v valgrind >/dev/null || { echo "share-callgrind: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
SWIFT="$(command -v swift || echo /opt/swift/usr/bin/swift)"
BIN="${1:-}"
if [ -z "$BIN" ]; then
    "$SWIFT" build -c release --static-swift-stdlib --scratch-path .build-static --product schemebridged >/dev/null
    BIN="$("$SWIFT" build -c release --static-swift-stdlib --scratch-path .build-static --show-bin-path)/schemebridged"
fi
OUTD="$(mktemp -d /tmp/share-callgrind.XXXXXX)"
# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 the toolchain writes: a copy without it (its symbols kept).
objcopy --strip-debug "$BIN" "$OUTD/schemebridged"
g++ -shared -fPIC -O2 -Wall -o "$OUTD/receiving-fix.so" Tests/ServiceTests/Engines/kdeconnectd-receiving-fix.cpp $(pkg-config --cflags --libs Qt5Network)
# devices.sh writes its figures to Benchmarks/results/devices.json: put back what was there (make bench's).
[ ! -e Benchmarks/results/devices.json ] || cp Benchmarks/results/devices.json "$OUTD/devices.json.kept"
status=0
for rounds in "$ROUNDS" $((3 * ROUNDS)); do
    cat > "$OUTD/service" <<WRAP
#!/bin/sh
exec valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$OUTD/callgrind.$rounds" "$OUTD/schemebridged" "\$@" 2>"$OUTD/service.$rounds.log"
WRAP
    chmod +x "$OUTD/service"
    DEVICE_ROUNDS="$rounds" DEVICE_BYTES=1024 DEVICE_SHEET_ROUNDS=1 DEVICE_ENGINE_PRELOAD="$OUTD/receiving-fix.so" \
        bash Benchmarks/devices.sh "$OUTD/service" > "$OUTD/bench.$rounds.log" 2>&1 || { status=$?; cat "$OUTD/bench.$rounds.log" >&2; break; }
    # The service has written its counts once it has gone (devices.sh stops it as it ends).
    for _ in $(seq 100); do [ -s "$OUTD/callgrind.$rounds" ] && ! pgrep -f "$OUTD/schemebridged" >/dev/null && break; sleep 0.1; done
    callgrind_annotate --inclusive=no --threshold=100 "$OUTD/callgrind.$rounds" > "$OUTD/self.$rounds.txt"
    callgrind_annotate --inclusive=yes --tree=caller --threshold=100 "$OUTD/callgrind.$rounds" > "$OUTD/callers.$rounds.txt"
done
if [ -e "$OUTD/devices.json.kept" ]; then cp "$OUTD/devices.json.kept" Benchmarks/results/devices.json; else rm -f Benchmarks/results/devices.json; fi
[ "$status" = 0 ] || exit "$status"
/usr/bin/python3 Benchmarks/lib/share_callgrind.py "$OUTD" "$ROUNDS" $((3 * ROUNDS)) "$SWIFT"
echo "raw: $OUTD"
