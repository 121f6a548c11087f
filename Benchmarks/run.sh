#!/bin/bash
# make bench: SchemeBridge side by side with a C libdbus reference service, the bus's own Ping,
# gio and xdg-open — every figure a ratio to a baseline measured in the same run, interleaved.
# Results: printed, Benchmarks/results/bench.json, and the table in docs/PERFORMANCE.md; content-type
# detection has its own script, run at the end (Benchmarks/content-types.sh, its own table there), and so
# have the share sheet's first frame (Benchmarks/sheet.sh, results/sheet.json) and sending to a nearby
# device (Benchmarks/devices.sh: two real kdeconnectd, as root; results/devices.json), whose figures
# join this table.
# Knobs (environment): ROUNDS (round trips, 5000), OPEN_ROUNDS (2000), REPLY_ROUNDS (1000), PROC_ROUNDS (40),
# START_ROUNDS (7), LIVE_ROUNDS (15), TP_SECONDS (1), TP_ROUNDS (5), CLIENTS (8), SIZES (trees for the
# start-up runs), PROC_SIZE (the tree the long-running service, the processes and live update use),
# PB_SIZES (pasteboard hand-off sizes in bytes) and PB_ROUNDS (rounds for each of them), DOC_ROUNDS (whole
# processes opening a file, 60), DOC_RT_ROUNDS (OpenFile round trips, 500), HANDOFF_BYTES and
# HANDOFF_ROUNDS (a pick and a share and their by-hand baselines: 1 MiB, 300 rounds).
# BASELINE_SCHEMEBRIDGED: an earlier schemebridged (say which in BASELINE_LABEL) to compare this
# one with in AB_BLOCKS (6) alternating blocks of AB_ROUNDS (1000) CanOpenURL, AB_OPEN_ROUNDS
# (400) OpenURL, AB_DOC_ROUNDS (100) OpenFile and AB_PB_ROUNDS (200) pasteboard rounds
# (issue 22's regression check; docs/PERFORMANCE.md says how the earlier one is built).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-5000}"
OPEN_ROUNDS="${OPEN_ROUNDS:-2000}"
REPLY_ROUNDS="${REPLY_ROUNDS:-1000}"
PROC_ROUNDS="${PROC_ROUNDS:-40}"
START_ROUNDS="${START_ROUNDS:-7}"
LIVE_ROUNDS="${LIVE_ROUNDS:-15}"
TP_SECONDS="${TP_SECONDS:-1}"
TP_ROUNDS="${TP_ROUNDS:-5}"
CLIENTS="${CLIENTS:-8}"
SIZES="${SIZES:-100 1000 10000 50000}"
PROC_SIZE="${PROC_SIZE:-10000}"
PB_SIZES="${PB_SIZES:-4096 1048576 104857600 1073741824}"
PB_ROUNDS="${PB_ROUNDS:-1000 1000 30 8}"
DOC_ROUNDS="${DOC_ROUNDS:-60}"
DOC_RT_ROUNDS="${DOC_RT_ROUNDS:-500}"
HANDOFF_BYTES="${HANDOFF_BYTES:-1048576}"
HANDOFF_ROUNDS="${HANDOFF_ROUNDS:-300}"
BASELINE_SCHEMEBRIDGED="${BASELINE_SCHEMEBRIDGED:-}"
BASELINE_LABEL="${BASELINE_LABEL:-the baseline}"
AB_BLOCKS="${AB_BLOCKS:-6}"
AB_ROUNDS="${AB_ROUNDS:-1000}"
AB_OPEN_ROUNDS="${AB_OPEN_ROUNDS:-400}"
AB_DOC_ROUNDS="${AB_DOC_ROUNDS:-100}"
AB_PB_ROUNDS="${AB_PB_ROUNDS:-200}"
URL='todolist://add?task=milk'
OUT=Benchmarks/results
mkdir -p "$OUT" Benchmarks/bin
WORK="$(mktemp -d /tmp/schemebridge-bench.XXXXXX)"
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
cut -d' ' -f1-3 /proc/loadavg > "$WORK/load-start.txt"  # the machine is shared: noted in the report

# The packages of make test (gio, xdg-open, update-desktop-database among them), a C
# compiler for the reference service and the client, and file (the content-type baseline).
sh scripts/deps.sh test gcc libc6-dev file

echo "==> building (release, Swift runtime static, as make install builds)"
# Its own build dir, so a debug build in .build is left alone. (The daemon's link prints gold's
# note that FoundationEssentials.a, pulled in by swift-argument-parser, uses mktemp: kept in the log.)
SB_BUILD=(swift build -c release --static-swift-stdlib --scratch-path .build-static)
for product in schemebridged schemebridge-splash schemebridge-bench-service schemebridge-open-probe ContentTypeBench; do
    "${SB_BUILD[@]}" --product "$product" >>"$WORK/static-build.log" 2>&1 || { cat "$WORK/static-build.log"; exit 1; }
done
SBIN="$("${SB_BUILD[@]}" --show-bin-path)"
CLI_NOTE=""
# schemebridge is the lean entry point (a plain `open URL`, timed below); schemebridge-cli beside it
# is the full command line it runs for everything else.
# The lean entry point is C, built by the Makefile as make release builds it (Sources/schemebridge-lean).
if ! { make -s lean-entry LEAN_DIR="$SBIN" && "${SB_BUILD[@]}" --product schemebridge-cli; } >"$WORK/cli-build.log" 2>&1; then
    CLI_NOTE="the schemebridge CLI does not build"
fi
# The binaries as make install installs them: stripped (install -s). Their sizes go in the report.
INST="$WORK/installed"
mkdir -p "$INST"
: > "$WORK/sizes.txt"
for b in schemebridged schemebridge schemebridge-cli schemebridge-splash; do
    [ -x "$SBIN/$b" ] || continue
    install -s -m 755 "$SBIN/$b" "$INST/$b"
    echo "$b $(stat -c %s "$SBIN/$b") $(stat -c %s "$INST/$b")" >> "$WORK/sizes.txt"
done
RBIN="$INST"
CFLAGS="-O2 -Wall $(pkg-config --cflags dbus-1)"
LIBS="$(pkg-config --libs dbus-1)"
gcc $CFLAGS -o Benchmarks/bin/ref-service Benchmarks/c/ref-service.c $LIBS
gcc $CFLAGS -o Benchmarks/bin/layer-client Benchmarks/c/layer-client.c $LIBS
gcc $CFLAGS -o Benchmarks/bin/reply-handler Benchmarks/c/reply-handler.c $LIBS
gcc $CFLAGS -o Benchmarks/bin/pasteboard-bench Benchmarks/c/pasteboard-bench.c $LIBS
gcc $CFLAGS -o Benchmarks/bin/handoff-bench Benchmarks/c/handoff-bench.c $LIBS
CLIENT=Benchmarks/bin/layer-client

echo "==> generating XDG trees ($SIZES installed entries)"
for n in $SIZES $PROC_SIZE; do
    [ -d "$WORK/t$n" ] && continue
    /usr/bin/python3 Benchmarks/gen-tree.py "$n" "$WORK/t$n" > "$WORK/t$n.env"
done
BIG="$PROC_SIZE"
# Documents (issue 15) on the same tree: the installed shared-mime-info database (the top-level
# files of /usr/share/mime: mime.cache, which we and gio read, and the globs, magic, aliases and
# sub-classes it is built from), and a viewer — a copy of /bin/true under $HOME, so the check
# below can put a recorder in its place — for application/pdf, which no generated entry lists,
# and text/plain, which every one of them does (9,999 handlers); mimeapps.list makes it the
# default of both, for us, gio and xdg-open alike (xdg-open in generic mode: `file --mime-type`,
# then `xdg-mime query default`, then the entry's Exec).
DOC_TREE="$WORK/t$BIG"
DOC_APP=io.github.schemebridge.BenchViewer
DOC_VIEWER="$DOC_TREE/home/bin/bench-viewer"
DOC_INBOX="$DOC_TREE/data-home/schemebridge/inbox/$DOC_APP"
mkdir -p "$DOC_TREE/share/mime" "$DOC_TREE/home/bin"
find /usr/share/mime -maxdepth 1 -type f -exec cp {} "$DOC_TREE/share/mime/" \;
cp /bin/true "$DOC_VIEWER"
printf '[Desktop Entry]\nType=Application\nName=Bench Viewer\nExec=%s %%f\nMimeType=application/pdf;text/plain;\n' \
    "$DOC_VIEWER" > "$DOC_TREE/share/applications/$DOC_APP.desktop"
printf '[Default Applications]\napplication/pdf=%s.desktop\ntext/plain=%s.desktop\n' "$DOC_APP" "$DOC_APP" > "$DOC_TREE/config/mimeapps.list"
# The documents, 1 MiB each, and a 4 KiB one (what the copy's size costs): a PDF (its magic and
# its name agree: `file`, gio and we all say application/pdf) and plain text.
/usr/bin/python3 - "$WORK" <<'PY'
import random, sys
random.seed(15)
line = lambda: bytes(random.choice(b"abcdefghijklmnopqrstuvwxyz     ") for _ in range(77))
pdf = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
while len(pdf) < 1 << 20:
    pdf += b"% " + line() + b"\n"
text = bytearray()
while len(text) < 1 << 20:
    text += line() + b"\n"
open(f"{sys.argv[1]}/report.pdf", "wb").write(pdf[:1 << 20])
open(f"{sys.argv[1]}/small.pdf", "wb").write(pdf[:4096])
open(f"{sys.argv[1]}/notes.txt", "wb").write(text[:1 << 20])
PY
update-desktop-database "$WORK/t$BIG/share/applications"  # for gio and xdg-open only
# Runs "$@" with the environment of tree $1 (no desktop, a Wayland name so xdg-open's generic
# mode looks up handlers; nothing connects to it).
tree_env() { echo $(cat "$WORK/t$1.env") XDG_CURRENT_DESKTOP= WAYLAND_DISPLAY=schemebridge-bench-none DISPLAY=; }
with_tree() {
    local n="$1"; shift
    env $(tree_env "$n") "$@"
}

. Benchmarks/lib/bus.sh
start_private_bus "$WORK"
PIDS+=("$BUS_PID")
export DBUS_SESSION_BUS_ADDRESS="$ADDR"


# Waits until the service can open each URL given (it has seen the entries just written).
wait_can_open() {
    for url in "$@"; do
        for _ in $(seq 250); do
            dbus-send --bus="$ADDR" --print-reply --dest=io.github.schemebridge.SchemeBridge1 /io/github/schemebridge/SchemeBridge1 \
                io.github.schemebridge.SchemeBridge1.CanOpenURL "string:$url" 2>/dev/null | grep -q "boolean true" && break
            sleep 0.02
        done
    done
}

echo "==> services on the $BIG-entry tree"
env $(tree_env "$BIG") Benchmarks/bin/ref-service "$ADDR" & PIDS+=($!)
env $(tree_env "$BIG") "$RBIN/schemebridged" --address "$ADDR" --max-launch-rate 0 2>"$WORK/schemebridged.log" & SB_PID=$!
PIDS+=("$SB_PID")
"$SBIN/schemebridge-bench-service" "$ADDR" & PIDS+=($!)
for name in io.github.schemebridge.BenchC io.github.schemebridge.BenchSwift io.github.schemebridge.SchemeBridge1; do
    wait_name "$name"
done
# The service writes its registry index about a second after a start without one (a walk and a
# write, in the background); the round trips below measure the steady state after it.
for _ in $(seq 100); do
    ls "$WORK/t$BIG/home/.cache/schemebridge/"*.index >/dev/null 2>&1 && break
    sleep 0.05
done
sleep 0.2

echo "==> round trips: Ping, Echo, CanOpenURL ($ROUNDS interleaved rounds)"
$CLIENT latency "$ADDR" "$ROUNDS" "$URL" > "$WORK/latency.json"
echo "==> CanOpenURL throughput ($CLIENTS connections, ${TP_SECONDS}s × $TP_ROUNDS interleaved rounds)"
$CLIENT throughput "$ADDR" "$TP_SECONDS" "$CLIENTS" "$TP_ROUNDS" "$URL" > "$WORK/throughput.json"
echo "==> OpenURL spawning /bin/true ($OPEN_ROUNDS interleaved rounds)"
$CLIENT open "$ADDR" "$OPEN_ROUNDS" "$URL" > "$WORK/open.json"

echo "==> request → reply round trips: OpenURLWithReply → handler → Reply → Response ($REPLY_ROUNDS interleaved rounds)"
# Two handlers (Benchmarks/c/reply-handler.c), added to the user's dir of the running service:
# a running D-Bus-activatable app (bus name = desktop id) and one spawned per URL.
REPLY_APPS="$WORK/t$BIG/data-home/applications"
REPLY_APP=io.github.schemebridge.BenchReply
printf '[Desktop Entry]\nType=Application\nName=Bench Reply (D-Bus)\nDBusActivatable=true\nExec=%s %%u\nMimeType=x-scheme-handler/benchreply;\n' \
    "$PWD/Benchmarks/bin/reply-handler" > "$REPLY_APPS/$REPLY_APP.desktop"
printf '[Desktop Entry]\nType=Application\nName=Bench Reply (spawned)\nExec=%s %%u\nMimeType=x-scheme-handler/benchspawn;\n' \
    "$PWD/Benchmarks/bin/reply-handler" > "$REPLY_APPS/bench-reply-spawned.desktop"
Benchmarks/bin/reply-handler serve "$ADDR" "$REPLY_APP" & REPLY_PID=$!
PIDS+=("$REPLY_PID")
wait_name "$REPLY_APP"
wait_can_open benchreply:x benchspawn:x
$CLIENT reply "$ADDR" "$REPLY_ROUNDS" 'benchreply://pick?color=teal' 'benchspawn://pick?color=teal' > "$WORK/reply.json"
kill "$REPLY_PID"; wait "$REPLY_PID" 2>/dev/null || true

echo "==> pasteboard hand-off: writer → schemebridged → reader, beside the memfd sent directly and ay ($PB_SIZES bytes; $PB_ROUNDS rounds)"
# Two apps with desktop entries of their own (programs under $HOME, so an entry in the user's dir
# may name them): the writer owns the pasteboards and grants the reader's app id. The reader's
# entry declares a scheme only so that we can ask when the service has seen it.
PB_BIN="$WORK/t$BIG/home/bin"
mkdir -p "$PB_BIN"
cp Benchmarks/bin/pasteboard-bench "$PB_BIN/pasteboard-writer"
cp Benchmarks/bin/pasteboard-bench "$PB_BIN/pasteboard-reader"
PB_READER=io.github.schemebridge.BenchPasteboardReader
printf '[Desktop Entry]\nType=Application\nName=Bench Pasteboard Writer\nExec=%s\nMimeType=x-scheme-handler/benchpbwriter;\n' \
    "$PB_BIN/pasteboard-writer" > "$REPLY_APPS/io.github.schemebridge.BenchPasteboardWriter.desktop"
printf '[Desktop Entry]\nType=Application\nName=Bench Pasteboard Reader\nExec=%s\nMimeType=x-scheme-handler/benchpbreader;\n' \
    "$PB_BIN/pasteboard-reader" > "$REPLY_APPS/$PB_READER.desktop"
wait_can_open benchpbwriter:x benchpbreader:x
with_tree "$BIG" "$PB_BIN/pasteboard-writer" writer "$ADDR" "$PB_BIN/pasteboard-reader" "$PB_READER" "$PB_SIZES" "$PB_ROUNDS" \
    > "$WORK/pasteboard.json"

echo "==> pick from a running provider and share to a running target, $((HANDOFF_BYTES >> 10)) KiB, beside the same done by hand ($HANDOFF_ROUNDS interleaved rounds)"
# Benchmarks/c/handoff-bench.c: a caller app and a running DBusActivatable app (a provider of
# image/png and a share target for image/*, with schemes for the by-hand baselines), each a
# program under $HOME with an entry of its own, as the pasteboard apps are.
cp Benchmarks/bin/handoff-bench "$PB_BIN/handoff-caller"
cp Benchmarks/bin/handoff-bench "$PB_BIN/handoff-app"
HO_APP=io.github.schemebridge.BenchScans HO_CALLER=io.github.schemebridge.BenchPicker
printf '[Desktop Entry]\nType=Application\nName=Bench Picker\nExec=%s\nMimeType=x-scheme-handler/benchpicker;\n' \
    "$PB_BIN/handoff-caller" > "$REPLY_APPS/$HO_CALLER.desktop"
printf '[Desktop Entry]\nType=Application\nName=Bench Scans\nDBusActivatable=true\nExec=%s %%u\nMimeType=x-scheme-handler/benchprovide;x-scheme-handler/benchshare;\nX-SchemeBridge-Provides=image/png;\nActions=share;\n\n[Desktop Action share]\nName=Send to Bench Scans\nExec=%s share\nX-SchemeBridge-Share-Types=image/*;\n' \
    "$PB_BIN/handoff-app" "$PB_BIN/handoff-app" > "$REPLY_APPS/$HO_APP.desktop"
wait_can_open benchpicker:x benchprovide:x benchshare:x
with_tree "$BIG" "$PB_BIN/handoff-caller" caller "$ADDR" "$PB_BIN/handoff-app" "$HO_APP" "$HO_CALLER" "$HANDOFF_BYTES" "$HANDOFF_ROUNDS" \
    > "$WORK/handoff.json"

echo "==> live update ($LIVE_ROUNDS new entries; baseline update-desktop-database + gio mime)"
with_tree "$BIG" $CLIENT live "$ADDR" "$LIVE_ROUNDS" "$WORK/t$BIG/data-home/applications" \
    "$WORK/t$BIG/share/applications" > "$WORK/live.json"

echo "==> whole processes: open URL ($PROC_ROUNDS interleaved rounds)"
N=io.github.schemebridge.SchemeBridge1 O=/io/github/schemebridge/SchemeBridge1
CLI_OUT="$(with_tree "$BIG" timeout 10 "$RBIN/schemebridge" open "$URL" 2>&1)" && CLI_RC=0 || CLI_RC=$?
PROCS=()
if [ -n "$CLI_NOTE" ]; then :
elif [ ! -x "$RBIN/schemebridge" ]; then CLI_NOTE="no schemebridge binary"
elif echo "$CLI_OUT" | grep -qi "not implemented"; then CLI_NOTE="schemebridge open is not implemented yet on this branch"
elif [ "$CLI_RC" != 0 ]; then CLI_NOTE="schemebridge open exited $CLI_RC: $(echo "$CLI_OUT" | head -c 200)"
else PROCS=(schemebridge_open_static "$RBIN/schemebridge" open "$URL" ::)
fi
PROCS+=(open_probe_static "$SBIN/schemebridge-open-probe" "$URL"
        :: gio_open gio open "$URL" :: xdg_open xdg-open "$URL"
        :: dbus_send_openurl dbus-send --session --print-reply "--dest=$N" "$O" "$N.OpenURL" "string:$URL"
        :: dbus_send_openurl_c_service dbus-send --session --print-reply --dest=io.github.schemebridge.BenchC "$O" "$N.OpenURL" "string:$URL")
with_tree "$BIG" $CLIENT proc "$PROC_ROUNDS" "${PROCS[@]}" > "$WORK/proc.json"

echo "==> documents: the same viewer for schemebridge open, gio open and xdg-open"
# The viewer is replaced for a moment by a script that records its arguments: each command must
# launch it with the file (ours: the file itself, opened in place as version 3 does by default,
# and with --copy the Inbox copy's path).
printf '#!/bin/sh\nprintf "%%s\\n" "$*" >> %s\n' "$WORK/viewer.log" > "$DOC_VIEWER.new"
chmod 755 "$DOC_VIEWER.new"
mv "$DOC_VIEWER.new" "$DOC_VIEWER"
viewer_got() {  # CMD... FILE: runs the command, prints what the viewer got
    : > "$WORK/viewer.log"
    with_tree "$BIG" timeout 10 "$@" >/dev/null 2>&1 || { echo "$* failed" >&2; return 1; }
    for _ in $(seq 250); do [ -s "$WORK/viewer.log" ] && break; sleep 0.02; done
    sleep 0.05
    cat "$WORK/viewer.log"
}
DOC_SB=()
[ -n "$CLI_NOTE" ] || DOC_SB=("$RBIN/schemebridge open" "$RBIN/schemebridge open --copy")
for f in report.pdf notes.txt; do
    for cmd in "gio open" "xdg-open" "${DOC_SB[@]}"; do
        got="$(viewer_got $cmd "$WORK/$f")"
        want="$WORK/$f"
        [ "${cmd%--copy}" != "$cmd" ] && want="$DOC_INBOX/$f"
        if [ "$got" != "$want" ]; then
            echo "$cmd $f: the viewer got '$got', not '$want'" >&2
            exit 1
        fi
        echo "    ${cmd#"$RBIN/"} $f → bench-viewer $got"
        rm -f "$DOC_INBOX"/*
    done
done
cp /bin/true "$DOC_VIEWER.new"
mv "$DOC_VIEWER.new" "$DOC_VIEWER"

echo "==> whole processes: open FILE, 1 MiB ($DOC_ROUNDS interleaved rounds; the Inbox emptied after each, untimed)"
DOCS=()
[ -n "$CLI_NOTE" ] || DOCS=(schemebridge_open_pdf "$RBIN/schemebridge" open "$WORK/report.pdf"
    :: schemebridge_open_txt "$RBIN/schemebridge" open "$WORK/notes.txt"
    :: schemebridge_open_copy_pdf "$RBIN/schemebridge" open --copy "$WORK/report.pdf"
    :: schemebridge_open_copy_small_pdf "$RBIN/schemebridge" open --copy "$WORK/small.pdf"
    :: schemebridge_open_url "$RBIN/schemebridge" open "$URL" ::)
DOCS+=(gio_open_pdf gio open "$WORK/report.pdf" :: gio_open_txt gio open "$WORK/notes.txt"
       :: xdg_open_pdf xdg-open "$WORK/report.pdf" :: xdg_open_txt xdg-open "$WORK/notes.txt")
with_tree "$BIG" $CLIENT proc "$DOC_ROUNDS" --clean "$DOC_INBOX" "${DOCS[@]}" > "$WORK/proc-documents.json"
echo "==> OpenFile round trips beside OpenURL, one connection ($DOC_RT_ROUNDS interleaved rounds)"
$CLIENT openfile "$ADDR" "$DOC_RT_ROUNDS" "$DOC_INBOX" "$URL" "$WORK/report.pdf" "$WORK/small.pdf" "$WORK/notes.txt" \
    > "$WORK/openfile.json"

if [ -n "$BASELINE_SCHEMEBRIDGED" ]; then
    # Issue 22: this build against an earlier schemebridged (built as make bench builds, from the
    # commit before the change to check), in alternating blocks on the same tree, bus, apps and
    # client: each block starts one of the two (its own cache dir, so neither reads the other's
    # index) and runs the CanOpenURL/OpenURL, OpenFile and pasteboard rounds above, fewer of them.
    # The C service's figures in the same blocks show the noise between blocks.
    echo "==> issue 22: this build against $BASELINE_LABEL, $AB_BLOCKS alternating blocks each"
    kill "$SB_PID"; wait "$SB_PID" 2>/dev/null || true
    mkdir -p "$WORK/ab"
    for block in $(seq "$AB_BLOCKS"); do
        order="new old"; [ $((block % 2)) = 0 ] && order="old new"
        for which in $order; do
            bin="$RBIN/schemebridged"; [ "$which" = old ] && bin="$BASELINE_SCHEMEBRIDGED"
            while dbus-send --bus="$ADDR" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.NameHasOwner string:io.github.schemebridge.SchemeBridge1 2>/dev/null | grep -q "boolean true"; do sleep 0.05; done
            env $(tree_env "$BIG") XDG_CACHE_HOME="$WORK/ab-cache-$which" "$bin" --address "$ADDR" --max-launch-rate 0 2>>"$WORK/ab-$which.log" & AB_PID=$!
            PIDS+=("$AB_PID")
            wait_name io.github.schemebridge.SchemeBridge1
            wait_can_open "$URL" benchpbwriter:x benchpbreader:x
            sleep 0.5
            b="$WORK/ab/$which-$block"
            $CLIENT latency "$ADDR" "$AB_ROUNDS" "$URL" > "$b-latency.json"
            $CLIENT open "$ADDR" "$AB_OPEN_ROUNDS" "$URL" > "$b-open.json"
            $CLIENT openfile "$ADDR" "$AB_DOC_ROUNDS" "$DOC_INBOX" "$URL" "$WORK/report.pdf" "$WORK/small.pdf" "$WORK/notes.txt" > "$b-openfile.json"
            with_tree "$BIG" "$PB_BIN/pasteboard-writer" writer "$ADDR" "$PB_BIN/pasteboard-reader" "$PB_READER" "4096 1048576" \
                "$AB_PB_ROUNDS $AB_PB_ROUNDS" > "$b-pasteboard.json"
            kill "$AB_PID"; wait "$AB_PID" 2>/dev/null || true
        done
    done
    printf '{"label": "%s", "blocks": %d}\n' "$BASELINE_LABEL" "$AB_BLOCKS" > "$WORK/ab/meta.json"
    env $(tree_env "$BIG") "$RBIN/schemebridged" --address "$ADDR" --max-launch-rate 0 2>>"$WORK/schemebridged.log" & SB_PID=$!
    PIDS+=("$SB_PID")
    wait_name io.github.schemebridge.SchemeBridge1
fi
# The start-up rounds below measure the 10,000-entry tree as it was before the documents were
# added (the shared-mime-info database alone adds ~0.2–0.4 MiB to the service's RSS at start).
rm -rf "$DOC_TREE/share/mime" "$DOC_INBOX"
rm -f "$DOC_TREE/share/applications/$DOC_APP.desktop" "$DOC_TREE/config/mimeapps.list"
update-desktop-database "$DOC_TREE/share/applications"

echo "==> start-up to first CanOpenURL answer and RSS ($START_ROUNDS interleaved rounds per tree)"
kill "$SB_PID"; wait "$SB_PID" 2>/dev/null || true  # the startup client waits until the name is free
# cold: no index (its cache directory cannot exist, so nothing is read or written); warm: the
# index a previous run wrote, every signature valid. Both go through env, so both pay its exec.
NO_CACHE=/proc/schemebridge-bench-no-cache
for n in $SIZES; do
    CACHE="$WORK/cache$n"
    # Two priming runs: the first writes the index; files changed just before it was written
    # are re-read by the second, which rewrites it (see docs/REGISTRY.md, "racy" files).
    sleep 0.3
    for _ in 1 2; do
        with_tree "$n" $CLIENT startup "$ADDR" 1 "$URL" \
            prime=io.github.schemebridge.SchemeBridge1 env XDG_CACHE_HOME="$CACHE" "$RBIN/schemebridged" --address "$ADDR" --max-launch-rate 0 \
            > /dev/null
        sleep 0.3
    done
    with_tree "$n" $CLIENT startup "$ADDR" "$START_ROUNDS" "$URL" \
        warm=io.github.schemebridge.SchemeBridge1 env XDG_CACHE_HOME="$CACHE" "$RBIN/schemebridged" --address "$ADDR" --max-launch-rate 0 :: \
        cold=io.github.schemebridge.SchemeBridge1 env XDG_CACHE_HOME="$NO_CACHE" "$RBIN/schemebridged" --address "$ADDR" --max-launch-rate 0 :: \
        c_service=io.github.schemebridge.BenchCStart Benchmarks/bin/ref-service "$ADDR" io.github.schemebridge.BenchCStart \
        > "$WORK/startup-$n.json"
done

bash Benchmarks/content-types.sh "$SBIN/ContentTypeBench"
# The share sheet's first frame on Xvfb (issue 23): its own script and results/sheet.json.
bash Benchmarks/sheet.sh
cp "$OUT/sheet.json" "$WORK/sheet.json"
# Sending to a nearby device (issue 24): two real kdeconnectd in network namespaces, paired; its
# own script and results/devices.json (it says why when it cannot run: not root, no kdeconnect).
if bash Benchmarks/devices.sh "$RBIN/schemebridged"; then
    cp "$OUT/devices.json" "$WORK/devices.json"
else
    echo '{"skipped": "Benchmarks/devices.sh failed (its output is in the make bench log)"}' > "$WORK/devices.json"
fi
# App links (issue 41): ResolveLink from the cache beside CanOpenURL, and an https link no app holds
# opened through SchemeBridge to the browser beside xdg-open; its own script and results/applinks.json.
bash Benchmarks/applinks.sh "$RBIN" || echo "Benchmarks/applinks.sh failed (its output is above)"
# The portal (issue 40): a Flatpak app's OpenURI decided by SchemeBridge's AppChooser from a route beside
# the portal's own path with its GTK backend; its own script and results/portal.json.
bash Benchmarks/portal.sh "$RBIN" || echo "Benchmarks/portal.sh failed (its output is above)"
cut -d' ' -f1-3 /proc/loadavg > "$WORK/load-end.txt"

/usr/bin/python3 Benchmarks/report.py "$WORK" "$OUT/bench.json" docs/PERFORMANCE.md "$CLI_NOTE" "$SIZES" "$BIG"
