#!/bin/bash
# Sending to a nearby device (issue 24), with two real KDE Connect engines: `kdeconnectd` A and B,
# each in a network namespace of its own joined by a veth pair (10.79.0.1 <-> 10.79.0.2, no other
# route), each with its own HOME and private session bus, paired over their D-Bus API (as
# Tests/ServiceTests/KDEConnectPair.swift does); side A's schemebridged on A's bus. Then
# (Benchmarks/c/device-bench.c), interleaved round by round (each round: Share and the relay back
# to back, taking turns at going first — ABAB, so each pair meets the same load — then the others
# in rotating order; the relay's own figure moves with the load from run to run, so Share is given
# as the ratio of the two p50s and as the median of the rounds' paired ratios):
#   - a 10 MiB file sent to B through `Share` (target: B's device id) until the Response, against
#     the engine's own `shareUrl` of the same file until it returns, against a bare C relay in the
#     service's place (the floor for anything between a caller and the engine: a call, its reply,
#     the engine's call, a Response signal), and against a copy of the file made as the outbox
#     makes it (or with sendfile) followed by `shareUrl` of the copy;
#     every send waits (untimed) for B's engine to report the file before the next one;
#     beside the times, the CPU the service (for Share) and the relay spent within each call (their
#     threads' schedstat, call to Response): a figure the machine's load moves far less;
#   - the sheet: `Share` with `ask`, a probe configured as the chooser ([Chooser] Command=) that
#     notes when it started and when it had read its candidates, B among them, and cancels.
# make bench runs it with the schemebridged it built (argument 1); alone it builds one as
# make bench does:  sudo bash Benchmarks/devices.sh
# With an earlier schemebridged as argument 2 (or BASELINE_SCHEMEBRIDGED, as make bench takes it),
# the send is then timed again in DEVICE_AB_BLOCKS (6) alternating blocks of DEVICE_AB_ROUNDS (20)
# rounds, this build and the earlier one taking turns as side A's service, each block's Share
# against the relay of the same block (results: "ab" in devices.json).
# Needs root (namespaces), iproute2, busctl and kdeconnect; without them it says why and writes
# that to results/devices.json. Knobs: DEVICE_ROUNDS (200: one run's Share/relay p50 ratio moved ±0.1 at
# 15 rounds and 1.10-1.30 at 40 for one build, as wide as the aim's margin; runs of 2,000 and 6,000
# rounds of 1 MiB read 1.20 and 1.19), DEVICE_SHEET_ROUNDS (20), DEVICE_BYTES (the
# file's size, 10 MiB; a small one makes many rounds quick, for profiling the service's share).
# SB_ROUND_LOG=FILE: device-bench appends each round's Share and relay times there.
# DEVICE_ENGINE_PRELOAD=LIB: both engines run with LD_PRELOAD=LIB (share-callgrind.sh: the receiving
# fix, Tests/ServiceTests/Engines/kdeconnectd-receiving-fix.cpp).
# Results: printed and Benchmarks/results/devices.json.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=Benchmarks/results
ROUNDS="${DEVICE_ROUNDS:-200}"
SHEET_ROUNDS="${DEVICE_SHEET_ROUNDS:-20}"
BYTES="${DEVICE_BYTES:-$((10 << 20))}"
KDECONNECTD=/usr/lib/x86_64-linux-gnu/libexec/kdeconnectd
SVC=org.kde.kdeconnect
mkdir -p "$OUT" Benchmarks/bin
skip() {
    echo "==> devices: not measured: $1"
    printf '{"skipped": "%s"}\n' "$1" > "$OUT/devices.json"
    exit 0
}
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
[ -x "$KDECONNECTD" ] || skip "kdeconnectd is not installed (scripts/deps.sh installs kdeconnect)"
command -v ip >/dev/null && command -v busctl >/dev/null || skip "needs ip (iproute2) and busctl"
SB="${1:-}"
if [ -z "$SB" ]; then
    swift build -c release --static-swift-stdlib --scratch-path .build-static --product schemebridged >/dev/null
    SB="$(swift build -c release --static-swift-stdlib --scratch-path .build-static --show-bin-path)/schemebridged"
fi
gcc -O2 -Wall $(pkg-config --cflags dbus-1) -o Benchmarks/bin/device-bench Benchmarks/c/device-bench.c $(pkg-config --libs dbus-1)
BENCH="$PWD/Benchmarks/bin/device-bench"

WORK="$(mktemp -d /tmp/schemebridge-devices.XXXXXX)"
# Each side's XDG_RUNTIME_DIR (the outbox, the bus) on tmpfs, as a session's /run/user/UID is.
RUNS="$(mktemp -d /dev/shm/schemebridge-devices.XXXXXX)"
TAG=$(( $$ % 100000 ))
NSA="sbbA$TAG" NSB="sbbB$TAG"
PIDS=()
cleanup() {
    set +e
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    sleep 0.5
    for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
    ip netns del "$NSA" 2>/dev/null
    ip netns del "$NSB" 2>/dev/null
    rm -rf "$WORK" "$RUNS"
}
trap cleanup EXIT

ip netns add "$NSA"
ip netns add "$NSB"
ip link add "sbbvA$TAG" type veth peer name "sbbvB$TAG"
ip link set "sbbvA$TAG" netns "$NSA"
ip link set "sbbvB$TAG" netns "$NSB"
ip -n "$NSA" addr add 10.79.0.1/24 dev "sbbvA$TAG"
ip -n "$NSB" addr add 10.79.0.2/24 dev "sbbvB$TAG"
for ns in "$NSA" "$NSB"; do ip -n "$ns" link set lo up; done
ip -n "$NSA" link set "sbbvA$TAG" up
ip -n "$NSB" link set "sbbvB$TAG" up

side_env() {  # the environment of side $1
    local d="$WORK/$1"
    echo "HOME=$d/home XDG_CONFIG_HOME=$d/home/.config XDG_DATA_HOME=$d/home/.local/share XDG_DATA_DIRS=$d/share" \
         "XDG_CONFIG_DIRS=$d/etc-xdg XDG_CACHE_HOME=$d/home/.cache XDG_RUNTIME_DIR=$RUNS/$1" \
         "DBUS_SESSION_BUS_ADDRESS=unix:path=$RUNS/$1/bus QT_QPA_PLATFORM=offscreen" \
         "DBUS_SYSTEM_BUS_ADDRESS=unix:path=$RUNS/$1/no-system-bus XDG_CURRENT_DESKTOP="
}
bus() { local s="$1"; shift; env $(side_env "$s") busctl --user "$@"; }
engine() { local s="$1"; shift; bus "$s" call "$SVC" "$@"; }
for s in A B; do
    d="$WORK/$s"
    mkdir -p "$d/home/.config/kdeconnect" "$d/home/.config/schemebridge" "$d/home/.local/share/applications" "$d/share/applications" "$d/etc-xdg" "$RUNS/$s"
    chmod 700 "$RUNS/$s"
    printf '[General]\nname=side%s\n' "$s" > "$d/home/.config/kdeconnect/config"
    read -r _ pid < <(dbus-daemon --session --fork --address="unix:path=$RUNS/$s/bus" --print-address=1 --print-pid=1 | paste -s -d ' ')
    PIDS+=("$pid")
    ns="$NSA"; [ "$s" = B ] && ns="$NSB"
    # The engine's working directory is its side's (received text lands there).
    ( cd "$d" && exec env -u DISPLAY -u WAYLAND_DISPLAY $(side_env "$s") ip netns exec "$ns" \
        env ${DEVICE_ENGINE_PRELOAD:+LD_PRELOAD="$DEVICE_ENGINE_PRELOAD"} "$KDECONNECTD" >"$d/kdeconnectd.log" 2>&1 </dev/null ) &
    PIDS+=("$!")
done
wait_for() {  # SECONDS WHAT CMD...
    local t="$1" what="$2"; shift 2
    local end=$(( $(date +%s) + t ))
    until "$@" >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$end" ]; then
            echo "devices: timed out waiting for: $what" >&2
            tail -n 20 "$WORK"/?/kdeconnectd.log >&2
            exit 1
        fi
        sleep 0.2
    done
}
has_engine() { bus "$1" call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s "$SVC" | grep -q true; }
wait_for 30 "engine A" has_engine A
wait_for 30 "engine B" has_engine B
AID=$(engine A /modules/kdeconnect org.kde.kdeconnect.daemon selfId | awk '{print $2}' | tr -d '"')
BID=$(engine B /modules/kdeconnect org.kde.kdeconnect.daemon selfId | awk '{print $2}' | tr -d '"')
# No broadcast route in a namespace: A is told B's address, and only A starts discovery.
bus A set-property "$SVC" /modules/kdeconnect org.kde.kdeconnect.daemon customDevices as 1 10.79.0.2
DA="/modules/kdeconnect/devices/$BID" DB="/modules/kdeconnect/devices/$AID"
reachable() { bus "$1" get-property "$SVC" "$2" org.kde.kdeconnect.device isReachable | grep -q true; }
wait_for 30 "A sees B" reachable A "$DA"
wait_for 30 "B sees A" reachable B "$DB"
engine A "$DA" org.kde.kdeconnect.device requestPair >/dev/null
has_request() { engine B "$DB" org.kde.kdeconnect.device hasPairingRequests | grep -q true; }
wait_for 30 "B has A's pairing request" has_request
engine B "$DB" org.kde.kdeconnect.device acceptPairing >/dev/null
trusted() { bus "$1" get-property "$SVC" "$2" org.kde.kdeconnect.device isTrusted | grep -q true; }
share_plugin() { engine "$1" "$2" org.kde.kdeconnect.device loadedPlugins | grep -q kdeconnect_share; }
wait_for 30 "A trusts B" trusted A "$DA"
wait_for 30 "B trusts A" trusted B "$DB"
wait_for 30 "A's share plugin for B" share_plugin A "$DA"
wait_for 30 "B's share plugin for A" share_plugin B "$DB"

# Side A's service, its chooser the probe (the sheet's stand-in; see device-bench.c).
RECORD="$WORK/A/probe-record"
printf '[Chooser]\nCommand=%s probe %s %s\n' "$BENCH" "$RECORD" "$BID" > "$WORK/A/home/.config/schemebridge/config"
env $(side_env A) "$SB" --address "unix:path=$RUNS/A/bus" --max-launch-rate 0 2>"$WORK/A/schemebridged.log" &
SB_PID=$!
PIDS+=("$SB_PID")
lists_b() { bus A call io.github.schemebridge.SchemeBridge1 /io/github/schemebridge/SchemeBridge1 io.github.schemebridge.Share1 ShareTargets as 1 application/octet-stream | grep -q "$BID"; }
wait_for 30 "schemebridged on A lists B as a share target" lists_b

head -c "$BYTES" /dev/urandom > "$WORK/A/payload.bin"
mkdir -p "$WORK/A/scratch"
echo "==> devices: a file of $BYTES bytes to a paired kdeconnectd through Share, beside the engine's shareUrl ($ROUNDS interleaved rounds; load now: $(cut -d' ' -f1-3 /proc/loadavg))"
"$BENCH" send "unix:path=$RUNS/A/bus" "unix:path=$RUNS/B/bus" "$BID" "$WORK/A/payload.bin" "$RUNS/A" "$ROUNDS" > "$WORK/send.json" 2>"$WORK/send.err" \
    || { cat "$WORK/send.err" "$WORK/A/schemebridged.log" >&2; exit 1; }
echo "==> devices: the sheet's device list (Share with ask; the chooser a probe; $SHEET_ROUNDS rounds)"
"$BENCH" sheet "unix:path=$RUNS/A/bus" "$WORK/A/payload.bin" "$RECORD" "$SHEET_ROUNDS" > "$WORK/sheet.json" 2>"$WORK/sheet.err" \
    || { cat "$WORK/sheet.err" "$WORK/A/schemebridged.log" >&2; exit 1; }
BASE="${2:-${BASELINE_SCHEMEBRIDGED:-}}"
mkdir -p "$WORK/ab"
if [ -n "$BASE" ]; then
    AB_BLOCKS="${DEVICE_AB_BLOCKS:-6}" AB_ROUNDS="${DEVICE_AB_ROUNDS:-20}"
    echo "==> devices: Share against the relay, this build and $BASE taking turns ($AB_BLOCKS blocks of $AB_ROUNDS rounds each)"
    kill "$SB_PID"; wait "$SB_PID" 2>/dev/null || true
    for b in $(seq 1 "$AB_BLOCKS"); do
        order="new old"; [ $((b % 2)) = 0 ] && order="old new"
        for which in $order; do
            bin="$SB"; [ "$which" = old ] && bin="$BASE"
            env $(side_env A) "$bin" --address "unix:path=$RUNS/A/bus" --max-launch-rate 0 2>>"$WORK/A/schemebridged-$which.log" &
            pid=$!
            PIDS+=("$pid")
            wait_for 30 "schemebridged ($which) on A lists B as a share target" lists_b
            "$BENCH" send "unix:path=$RUNS/A/bus" "unix:path=$RUNS/B/bus" "$BID" "$WORK/A/payload.bin" "$RUNS/A" "$AB_ROUNDS" > "$WORK/ab/$which-$b.json" 2>"$WORK/send.err" \
                || { cat "$WORK/send.err" "$WORK/A/schemebridged-$which.log" >&2; exit 1; }
            kill "$pid"; wait "$pid" 2>/dev/null || true
        done
    done
fi
/usr/bin/python3 - "$WORK/send.json" "$WORK/sheet.json" "$OUT/devices.json" "$WORK/ab" "$BASE" <<'PY'
import glob, json, statistics, sys
send, sheet = (json.load(open(p)) for p in sys.argv[1:3])
result = {"loadavg": open("/proc/loadavg").read().split()[:3], "engine": "kdeconnect", "send": send, "sheet": sheet}
ab = {w: [json.load(open(f)) for f in sorted(glob.glob("%s/%s-*.json" % (sys.argv[4], w)))] for w in ("new", "old")}
if ab["new"] and ab["old"]:
    result["ab"] = {"baseline": sys.argv[5], "blocks": len(ab["new"])}
    for w, label in (("new", "this build"), ("old", "the baseline")):
        ratios = [r["share"]["p50_us"] / r["relay"]["p50_us"] for r in ab[w]]
        contract = [r["share"]["p50_us"] / r["relay_contract"]["p50_us"] for r in ab[w] if "relay_contract" in r]
        paired = [r["share_over_relay_paired_p50"] for r in ab[w]]
        arrived = [r["share"]["received_by_b_p50_us"] / r["engine"]["received_by_b_p50_us"] for r in ab[w]]
        cpu = [r["cpu_us"]["share_p50"] for r in ab[w]]
        result["ab"][w] = {"share_over_relay_by_block": ratios, "paired_by_block": paired, "share_p50_us": [r["share"]["p50_us"] for r in ab[w]],
                           "relay_p50_us": [r["relay"]["p50_us"] for r in ab[w]], "received_over_engine_by_block": arrived,
                           "cpu_share_us_by_block": cpu, "cpu_relay_us_by_block": [r["cpu_us"]["relay_p50"] for r in ab[w]],
                           "share_over_relay_contract_by_block": contract}
        print("%s: Share %.2f× the relay (median of %d blocks' p50 ratios %s; paired rounds' medians %s); on B %.3f× the engine's shareUrl; "
              "CPU per Share %.0f µs (blocks %s)"
              % (label, statistics.median(ratios), len(ratios), " ".join("%.2f" % x for x in ratios), " ".join("%.2f" % x for x in paired),
                 statistics.median(arrived), statistics.median(cpu), " ".join("%.0f" % x for x in cpu)))
        if contract:
            print("%s: Share %.2f× the relay that speaks the contract (blocks %s)" % (label, statistics.median(contract), " ".join("%.2f" % x for x in contract)))
json.dump(result, open(sys.argv[3], "w"), indent=1)
s, e, c, k, r = (send[v]["p50_us"] for v in ("share", "engine", "copy_engine", "sendfile_engine", "relay"))
print("Share → engine accepted %.1f ms p50 (Share returned after %.1f ms); engine's shareUrl %.1f ms; copy + shareUrl %.1f ms, "
      "sendfile copy + shareUrl %.1f ms: %.2f× (aim ≤ 1.2×), %.2f× the copy + shareUrl"
      % (s / 1000, send["share_returned_p50_us"] / 1000, e / 1000, c / 1000, k / 1000, s / e, s / c))
print("the floor, a bare C relay in the service's place: %.1f ms, %.2f× the engine's shareUrl; Share is %.2f× the relay "
      "(p50s; paired rounds' median %.2f×; aim ≤ 1.2×)" % (r / 1000, r / e, s / r, send["share_over_relay_paired_p50"]))
if "relay_contract" in send:
    rc = send["relay_contract"]["p50_us"]
    print("the floor that speaks the contract (the same Share and Response as the service's): %.1f ms, %.2f× the engine's shareUrl; "
          "Share is %.2f× it (p50s; paired rounds' median %.2f×; aim ≤ 1.2×)" % (rc / 1000, rc / e, s / rc, send["share_over_relay_contract_paired_p50"]))
print("CPU within the call (call to Response, p50): the service %.0f µs per Share, the relay %.0f µs: %.2f×%s"
      % (send["cpu_us"]["share_p50"], send["cpu_us"]["relay_p50"], send["cpu_us"]["share_p50"] / send["cpu_us"]["relay_p50"],
         "; the contract's relay %.0f µs" % send["cpu_us"]["relay_contract_p50"] if "relay_contract_p50" in send["cpu_us"] else ""))
print("sheet: started %.1f ms after Share; device list read %.2f ms after it started (aim ≤ 50 ms)"
      % (sheet["share_to_sheet_started"]["p50_us"] / 1000, sheet["sheet_started_to_device_list"]["p50_us"] / 1000))
PY
