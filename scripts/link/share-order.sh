#!/bin/bash
# Writes scripts/link/share.order, the functions the service runs for each device share, put first in
# the release link's order (scripts/link/order.sh puts it in front of the start's functions in
# scripts/link/schemebridged.order; docs/perf-notes/layout14.md). Between two shares kdeconnectd,
# dbus-daemon and the caller run on the same cores and evict the service's code from the caches and
# the TLBs: a share's ~1,700 functions (~470 KB) were spread over 10.8 MB of the program, in ~490
# pages of 4 KiB; placed together, the splittable ones take ~260 pages.
#
# How: Benchmarks/devices.sh (64 KiB files, many rounds) runs the service (a release build, default
# .build-static/release/schemebridged) under scripts/link/fntrace.c; at the bench's first share
# fntrace is told (SIGUSR1) to set every breakpoint again, and again every 2 s: the functions first
# entered between the third and the fourth of those marks, in that order, are those of shares in the
# steady state (the share, its reply, the engine's call and reply, the Response, the transfer's
# following). Left out: names several local functions bear (as order.sh does) and the functions in
# the standard library's and the concurrency library's unsplit `.text` (Swift.o, _Concurrency.o in
# the toolchain's static archives: ranking one would move the whole 1.6 MB section).
#
# Usage (root, as devices.sh): scripts/link/share-order.sh [SCHEMEBRIDGED]; then scripts/link/order.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="$(readlink -f "${1:-.build-static/release/schemebridged}")"
OUT=scripts/link/share.order
WORK="$(mktemp -d /tmp/schemebridge-share-order.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
gcc -O2 -Wall -o "$WORK/fntrace" scripts/link/fntrace.c
nm --defined-only "$BIN" | awk '$2 ~ /^[TtWw]$/ { print $1, $3 }' > "$WORK/functions"
awk '{ print $2 }' "$WORK/functions" | sort | uniq -d > "$WORK/skip"
STATIC="$(dirname "$(command -v swiftc)")/../lib/swift_static/linux"
for lib in libswiftCore.a:Swift.o libswift_Concurrency.a:_Concurrency.o; do
    (cd "$WORK" && ar x "$STATIC/${lib%%:*}" "${lib##*:}")
    # the functions in the object's first (unsplit) .text
    sec=$(readelf -SW "$WORK/${lib##*:}" | awk '$2 == ".text" { gsub(/[][]/, "", $1); print $1; exit }')
    readelf -sW "$WORK/${lib##*:}" | awk -v s="$sec" '$4 == "FUNC" && $7 == s { print $8 }' >> "$WORK/skip"
done
printf '#!/bin/sh\nexec %q %q %q %q "$@"\n' "$WORK/fntrace" "$WORK/functions" "$WORK/trace" "$BIN" > "$WORK/schemebridged"
chmod +x "$WORK/schemebridged"
DEVICE_ROUNDS=300 DEVICE_BYTES=65536 DEVICE_SHEET_ROUNDS=1 bash Benchmarks/devices.sh "$WORK/schemebridged" > "$WORK/bench.log" 2>&1 &
B=$!
until grep -q "interleaved rounds" "$WORK/bench.log" 2>/dev/null; do kill -0 "$B" 2>/dev/null || { cat "$WORK/bench.log" >&2; exit 1; }; sleep 0.05; done
T=$(pgrep -f "^$WORK/fntrace ")
for _ in 1 2 3 4; do kill -USR1 "$T"; sleep 2; done
wait "$B" || { cat "$WORK/bench.log" >&2; exit 1; }
git checkout -q -- Benchmarks/results 2>/dev/null || true
awk 'FILENAME == ARGV[1] { skip[$0] = 1; next } /^#$/ { n++; next } n == 3 && !skip[$0] && !seen[$0]++' "$WORK/skip" "$WORK/trace" > "$OUT"
[ -s "$OUT" ] || { echo "no share traced (the bench ended before the fourth mark?)" >&2; exit 1; }
echo "$OUT: $(wc -l < "$OUT") functions; now scripts/link/order.sh"
