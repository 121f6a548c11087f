#!/bin/bash
# `make run`: build, start a private session bus (always: the demo never touches your own
# session), install a demo handler into a temporary XDG tree, let the bus activate
# schemebridged, and drive it with dbus-send and gdbus while dbus-monitor prints its signals.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN="$(swift build --show-bin-path)"
WORK="$(mktemp -d /tmp/schemebridge-demo.XXXXXX)"
BUS_PID=""
MON_PID=""
cleanup() {
    [ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null || true
    [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

say "a private session bus, a temporary XDG tree, the demo handler"
mkdir -p "$WORK/services" "$WORK/data/applications" "$WORK/config"
sed "s|@bindir@|$BIN|" dbus/io.github.schemebridge.SchemeBridge1.service.in > "$WORK/services/io.github.schemebridge.SchemeBridge1.service"
sed "s|@demodir@|$PWD/desktop/demo|" desktop/demo/org.example.TodoList.desktop.in > "$WORK/data/applications/org.example.TodoList.desktop"
cat > "$WORK/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$WORK/bus</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$WORK/services</servicedir>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
CONF
export XDG_DATA_HOME="$WORK/data" XDG_DATA_DIRS="$WORK/none" XDG_CONFIG_HOME="$WORK/config" XDG_CONFIG_DIRS="$WORK/none"
export SCHEMEBRIDGE_DEMO_LOG="$WORK/handler.log"
: > "$SCHEMEBRIDGE_DEMO_LOG"
read -r DBUS_SESSION_BUS_ADDRESS BUS_PID < <(dbus-daemon --config-file="$WORK/bus.conf" --fork --print-address=1 --print-pid=1 | paste -s -d ' ')
export DBUS_SESSION_BUS_ADDRESS
echo "bus: $DBUS_SESSION_BUS_ADDRESS"
echo "handler: $XDG_DATA_HOME/applications/org.example.TodoList.desktop (MimeType=x-scheme-handler/todolist;)"

dbus-monitor --session "type='signal',interface='io.github.schemebridge.SchemeBridge1'" > "$WORK/monitor.log" 2>&1 &
MON_PID=$!
sleep 0.3

NAME=io.github.schemebridge.SchemeBridge1
OBJ=/io/github/schemebridge/SchemeBridge1
say "can it open a todolist: URL? (the first call bus-activates schemebridged)"
show dbus-send --session --print-reply --dest=$NAME $OBJ $NAME.CanOpenURL string:'todolist://add?task=milk'

say "open one — quotes, \$() and backticks stay one argument, no shell runs"
show dbus-send --session --print-reply --dest=$NAME $OBJ $NAME.OpenURL string:'todolist://add?task="milk & eggs" $(rm -rf ~) `id`'

say "the rich variant, with options, through gdbus"
show gdbus call --session --dest $NAME --object-path $OBJ --method $NAME.OpenURLWithOptions \
    'todolist://show?list=groceries' "{'activation-token': <'demo-token'>}"

say "its launch image (the iOS convention: Default-todolist@2x.png), shown while the handler starts"
show dbus-send --session --print-reply --dest=$NAME $OBJ $NAME.LaunchImageForURL string:'todolist://add?task=milk'
if [ -n "${DISPLAY:-}" ]; then
    echo "(DISPLAY=$DISPLAY: schemebridge-splash shows it centred on screen while the demo handler starts)"
else
    echo "(no DISPLAY here: with a notification server on the bus it would come as a notification; nothing is shown, opening works the same)"
fi

say "a scheme nobody handles is an error, not a silent success"
printf '$ %s\n' "dbus-send ... $NAME.OpenURL string:'nothing://here'"
dbus-send --session --print-reply --dest=$NAME $OBJ $NAME.OpenURL string:'nothing://here' || true

if [ -x "$BIN/schemebridge" ]; then
    say "the xdg-open style command"
    show "$BIN/schemebridge" open 'todolist://from-the-cli' && echo "exit status $?"
fi

sleep 0.5
say "what the handler got"
cat "$SCHEMEBRIDGE_DEMO_LOG"
say "the signals dbus-monitor saw"
grep -A26 -E "member=(URLHandled|URLFailed)" "$WORK/monitor.log" | grep -vE "^--$" | sed -n "1,80p"
say "done: the private bus and the service stop now"
