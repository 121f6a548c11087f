#!/bin/bash
# `make run`: build, make sure a session bus exists (a private one if none is running),
# start schemebridged, and show real dbus-send calls against it.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN="$(swift build --show-bin-path)"
DAEMON="$BIN/schemebridged"
WORK="$(mktemp -d /tmp/schemebridge-demo.XXXXXX)"
BUS_PID=""
DAEMON_PID=""

cleanup() {
    [ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null || true
    [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

bus_alive() {
    [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] &&
        dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1
}

if bus_alive; then
    say "using the running session bus ($DBUS_SESSION_BUS_ADDRESS)"
else
    say "no session bus is running: starting a private one"
    mkdir -p "$WORK/services"
    sed "s|@bindir@|$BIN|" dbus/io.github.schemebridge.SchemeBridge1.service.in > "$WORK/services/io.github.schemebridge.SchemeBridge1.service"
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
    read -r DBUS_SESSION_BUS_ADDRESS BUS_PID < <(dbus-daemon --config-file="$WORK/bus.conf" --fork --print-address=1 --print-pid=1 | paste -s -d ' ')
    export DBUS_SESSION_BUS_ADDRESS
    echo "private bus at $DBUS_SESSION_BUS_ADDRESS (pid $BUS_PID)"
fi

NAME=io.github.schemebridge.SchemeBridge1
OBJ=/io/github/schemebridge/SchemeBridge1
if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner "string:$NAME" 2>/dev/null | grep -q "boolean true"; then
    say "$NAME is already running on this bus; using it"
else
    say "starting schemebridged"
    "$DAEMON" 2> "$WORK/daemon.log" &
    DAEMON_PID=$!
    for _ in $(seq 100); do
        dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.NameHasOwner "string:$NAME" 2>/dev/null | grep -q "boolean true" && break
        sleep 0.05
    done
    sed 's/^/    [schemebridged] /' "$WORK/daemon.log"
fi

say "ping it"
show dbus-send --session --print-reply --dest=$NAME $OBJ org.freedesktop.DBus.Peer.Ping

say "read its Version property"
show dbus-send --session --print-reply --dest=$NAME $OBJ org.freedesktop.DBus.Properties.Get \
    string:$NAME string:Version

say "introspect it (the interface part)"
printf '$ %s\n' "gdbus introspect --session --dest $NAME --object-path $OBJ"
gdbus introspect --session --dest $NAME --object-path $OBJ | sed -n "/interface $NAME/,/};/p"

say "done: stopping what this demo started"
