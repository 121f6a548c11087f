# Shared by the benchmark scripts (and scripts/link/order.sh): a private session bus in a work
# folder, never the user's. Source it, then:
#   start_private_bus DIR   writes DIR/bus.conf, starts dbus-daemon listening on DIR/bus and sets
#                           ADDR (its address) and BUS_PID; the caller kills BUS_PID when done.
#   wait_name NAME [TRIES]  waits until NAME has an owner on $ADDR (0.02 s between looks).
start_private_bus() {
    local dir="$1"
    cat > "$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=$dir/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
CONF
    read -r ADDR BUS_PID < <(dbus-daemon --config-file="$dir/bus.conf" --fork --print-address=1 --print-pid=1 | paste -s -d ' ')
}

has_name() {
    dbus-send --bus="$ADDR" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q "boolean true"
}

wait_name() {
    for _ in $(seq "${2:-500}"); do has_name "$1" && return 0; sleep 0.02; done
    echo "$1 did not appear on the bus" >&2
    exit 1
}
