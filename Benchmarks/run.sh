#!/bin/bash
# make bench: measurements reported as ratios to baselines taken in the same run, interleaved.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-5000}"
OUT=Benchmarks/results
mkdir -p "$OUT" Benchmarks/bin
WORK="$(mktemp -d /tmp/schemebridge-bench.XXXXXX)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

echo "==> building (release)"
swift build -c release --product schemebridge-bench-service >/dev/null
RBIN="$(swift build -c release --show-bin-path)"
CFLAGS="-O2 $(pkg-config --cflags dbus-1)"
LIBS="$(pkg-config --libs dbus-1)"
gcc $CFLAGS -o Benchmarks/bin/ref-service Benchmarks/c/ref-service.c $LIBS
gcc $CFLAGS -o Benchmarks/bin/layer-client Benchmarks/c/layer-client.c $LIBS

cat > "$WORK/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=$WORK/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
CONF
read -r ADDR BUS_PID < <(dbus-daemon --config-file="$WORK/bus.conf" --fork --print-address=1 --print-pid=1 | paste -s -d ' ')
PIDS+=("$BUS_PID")
Benchmarks/bin/ref-service "$ADDR" & PIDS+=($!)
"$RBIN/schemebridge-bench-service" "$ADDR" & PIDS+=($!)
for name in io.github.schemebridge.BenchC io.github.schemebridge.BenchSwift; do
    for _ in $(seq 100); do
        timeout 2 dbus-send --bus="$ADDR" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner "string:$name" 2>/dev/null | grep -q "boolean true" && break
        sleep 0.02
    done
done

echo "==> D-Bus layer round trips ($ROUNDS interleaved rounds)"
Benchmarks/bin/layer-client "$ADDR" "$ROUNDS" > "$OUT/layer.json"
/usr/bin/python3 - "$OUT/layer.json" <<'PY'
import json, sys, platform, datetime, os
r = json.load(open(sys.argv[1]))
r["machine"] = f"{platform.node()} {platform.machine()} {os.cpu_count()} cores"
r["date"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
c = r["c_service_echo"]["p50_us"]
ping = r["bus_ping"]["p50_us"]
for k in ("swift_inline_echo", "swift_async_echo"):
    r[k]["ratio_to_c_p50"] = round(r[k]["p50_us"] / c, 3)
r["c_service_echo"]["ratio_to_bus_ping_p50"] = round(c / ping, 3)
json.dump(r, open(sys.argv[1], "w"), indent=2)
print(f"{'call':<22}{'p50 µs':>10}{'p99 µs':>10}{'× C p50':>10}")
for k in ("bus_ping", "c_service_echo", "swift_inline_echo", "swift_async_echo"):
    ratio = f"{r[k]['p50_us'] / c:.2f}"
    print(f"{k:<22}{r[k]['p50_us']:>10.1f}{r[k]['p99_us']:>10.1f}{ratio:>10}")
print(f"({r['rounds']} rounds, {r['machine']}, {r['date']})")
PY
