#!/bin/bash
# The installed tree in a real systemd user session: a Debian 12 container booted with
# systemd-nspawn (systemd as its PID 1, on a host whose PID 1 need not be systemd), a normal user
# logged in through PAM (logind session, `systemd --user`, the session bus of dbus-user-session),
# SchemeBridge installed as that user (`make install PREFIX=~/.local`: the unit in
# ~/.local/share/systemd/user), then `schemebridge open` bus-activates the service through systemd.
# Also: the CLI without DBUS_SESSION_BUS_ADDRESS (the bus at $XDG_RUNTIME_DIR/bus), the service's
# log in the journal, and a masked unit reported as exit 3 with a hint.
# ServiceTests' SystemdSessionTests runs it (make test) and checks what it prints.
#
# Needs, as root: debootstrap systemd-container (scripts/deps.sh installs them), network to
# Debian's mirror the first time, and a build: BUILD_DIR (default .build/release; a debug build
# works too: the folder of the Swift runtime it links is bound into the container read-only).
# Usage: [BUILD_DIR=.build/debug] [CACHE=/var/cache/schemebridge-tests] scripts/systemd-session-proof.sh
#
# The container's root file system is made once per package list (debootstrap --variant=minbase,
# ~100 MB) and kept in CACHE/bookworm-HASH, outside the clone; each run boots an overlay of it (a
# temp upper layer, in a mount namespace of its own), so runs never change the cache and can run
# side by side.
set -euo pipefail
SELF=$(realpath "$0")
cd "$(dirname "$SELF")/.."
BUILD_DIR=$(realpath "${BUILD_DIR:-.build/release}")
CACHE=${CACHE:-/var/cache/schemebridge-tests}
. scripts/lib/nspawn-root.sh
for p in schemebridged schemebridge schemebridge-cli; do
  [ -x "$BUILD_DIR/$p" ] || { echo "needs a build in $BUILD_DIR: make release (or BUILD_DIR=.build/debug after swift build)" >&2; exit 2; }
done

# 1. The cached root file system (scripts/lib/nspawn-root.sh).
[ -n "${SB_SESSION_INNER:-}" ] || nspawn_root_ready

# 2. The rest runs in a mount namespace of its own: the overlay goes when the run ends, however it ends.
if [ -z "${SB_SESSION_INNER:-}" ]; then
  exec env SB_SESSION_INNER=1 BUILD_DIR="$BUILD_DIR" CACHE="$CACHE" unshare --mount --propagation private bash "$SELF"
fi
nspawn_overlay

# 3. SchemeBridge installed the way the README says, and an app declaring probe:.
H=/home/tester
t=$(now)
make --no-print-directory install DESTDIR="$R" PREFIX="$H/.local" HOME="$H" XDG_DATA_HOME= \
  CONFIG="$(basename "$BUILD_DIR")" BUILD_DIR="$BUILD_DIR" >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; exit 1; }
cat >"$R$H/.local/bin/probe-app" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" > "$HOME/probe.out"
EOF
chmod 755 "$R$H/.local/bin/probe-app"
cat >"$R$H/.local/share/applications/org.example.Probe.desktop" <<EOF
[Desktop Entry]
Type=Application
Name=Probe
Exec=$H/.local/bin/probe-app %u
MimeType=x-scheme-handler/probe;
EOF
chown -R $((BASE + 1000)):$((BASE + 1000)) "$R$H"
echo "installed: $(cd "$R$H/.local/share" && ls -d systemd/user/schemebridged.service dbus-1/services/*.service | tr '\n' ' ')($(el "$t"))"
# A debug build links the Swift runtime from the toolchain: the same folder, read-only, in the container.
BINDS=()
runtime=$(ldd "$BUILD_DIR/schemebridge-cli" | awk '$1 == "libswiftCore.so" { print $3 }')
[ -n "$runtime" ] && BINDS+=("--bind-ro=$(dirname "$runtime")")

# 4. Boot (see ../shared/recipes/systemd-session.sh: a cgroup of its own, no machined, a user namespace).
t=$(now)
in_cgroup systemd-nspawn -D "$R" --register=no --keep-unit --private-users="$BASE:65536" --private-users-ownership=off \
  --private-network "${BINDS[@]}" -b >"$WORK/console.log" 2>&1 &
NS=$!
L=
for _ in $(seq 1200); do
  L=$(ps -o pid=,comm= --ppid "$NS" | awk '$2=="systemd" {print $1}' || true)
  [ -n "$L" ] && break
  kill -0 "$NS" 2>/dev/null || { cat "$WORK/console.log"; exit 1; }
  sleep 0.1
done
[ -n "$L" ] || { echo "the container's systemd never appeared"; cat "$WORK/console.log"; exit 1; }
echo "systemd started: $(el "$t"), upper $(du -sh "$WORK/upper" | cut -f1)"
IN=(nsenter -t "$L" -a)
for _ in $(seq 600); do "${IN[@]}" systemctl is-system-running --wait >/dev/null 2>&1 && break || sleep 0.2; done
echo "container: $("${IN[@]}" systemctl is-system-running || true) ($(el "$t"))"
"${IN[@]}" systemd-analyze blame --no-pager 2>/dev/null | head -n 5 | sed 's/^ */slowest units: /' || true

# 5. Log in as the user (PAM, through the container's PID 1) and use it.
t=$(now)
"${IN[@]}" systemd-run --wait -P -q su -l tester -c '
  set -u
  export PATH=$HOME/.local/bin:$PATH
  echo "session: $XDG_SESSION_ID, XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR, DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
  echo "user manager: $(systemctl --user is-system-running)"
  echo "before: $(systemctl --user is-active schemebridged.service)"
  schemebridge open "probe://hello?x=1"; echo "open: exit $?"
  for _ in $(seq 600); do [ -s "$HOME/probe.out" ] && break; sleep 0.1; done
  echo "received: $(cat "$HOME/probe.out" 2>/dev/null)"
  echo "after: $(systemctl --user is-active schemebridged.service)"
  busctl --user status io.github.schemebridge.SchemeBridge1 | grep -E "^(PID|Exe|UserUnit)="
  out=$(env -u DBUS_SESSION_BUS_ADDRESS schemebridge can-open probe://x); echo "without DBUS_SESSION_BUS_ADDRESS: exit $? $out"
  echo "journal: $(journalctl --user -u schemebridged.service --no-pager -o cat | grep -c .) lines"
  journalctl --user -u schemebridged.service --no-pager -o cat | tail -n 5
  systemctl --user stop schemebridged.service; systemctl --user mask schemebridged.service 2>/dev/null
  schemebridge open probe://masked 2>"$HOME/masked.err"; echo "masked: exit $? $(cat "$HOME/masked.err")"
  systemctl --user unmask schemebridged.service 2>/dev/null
  schemebridge --version
' 2>&1
echo "session done ($(el "$t"))"
t=$(now)
kill -TERM "$NS"; wait "$NS" || true; NS=
echo "shutdown: $(el "$t")"
