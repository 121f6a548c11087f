#!/bin/bash
# The installed tree in a real systemd user session: a Debian 12 container booted with
# systemd-nspawn (systemd as its PID 1, on a host whose PID 1 need not be systemd), a normal user
# logged in through PAM (logind session, `systemd --user`, the session bus of dbus-user-session),
# SchemeBridge installed as that user (`make install PREFIX=~/.local`: the unit in
# ~/.local/share/systemd/user), then `schemebridge open` bus-activates the service through systemd.
# Also: the CLI without DBUS_SESSION_BUS_ADDRESS (the bus at $XDG_RUNTIME_DIR/bus), the service's
# log in the journal, and a masked unit reported as exit 3 with a hint.
#
# Needs, as root: debootstrap systemd-container (apt-get install -y --no-install-recommends ...),
# network to Debian's mirror for the first run, and the release build (`make release`: the
# binaries link the Swift runtime statically, so the container needs no toolchain).
# Usage: scripts/systemd-session-proof.sh [ROOTFS]   (default /var/cache/schemebridge-nspawn/bookworm,
#        kept between runs; the installed files and the user's home are reset each run)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=${1:-/var/cache/schemebridge-nspawn/bookworm}
WORK=$(mktemp -d)
CG=schemebridge-nspawn-$$
NS=
cleanup() {
  if [ -n "$NS" ] && kill -0 "$NS" 2>/dev/null; then kill -TERM "$NS"; wait "$NS" 2>/dev/null || true; fi
  for h in systemd unified; do
    [ -d "/sys/fs/cgroup/$h/$CG" ] && find "/sys/fs/cgroup/$h/$CG" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
for tool in debootstrap systemd-nspawn nsenter; do
  command -v "$tool" >/dev/null || { echo "needs $tool: apt-get install -y --no-install-recommends debootstrap systemd-container" >&2; exit 2; }
done
[ -x .build/release/schemebridged ] || { echo "needs the release build: make release" >&2; exit 2; }

# 1. The container's root file system (Debian's mirror; kept for the next run).
if [ ! -x "$ROOT/lib/systemd/systemd" ]; then
  mkdir -p "$(dirname "$ROOT")"
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,dbus-user-session,libpam-systemd,procps \
    bookworm "$ROOT" >"$WORK/debootstrap.log" 2>&1 || { tail -20 "$WORK/debootstrap.log"; exit 1; }
fi

# 2. A user with SchemeBridge installed the way the README says, and an app declaring probe:.
chroot "$ROOT" id tester >/dev/null 2>&1 || chroot "$ROOT" useradd -m -s /bin/bash tester
echo sb-session >"$ROOT/etc/hostname"
H=/home/tester
rm -rf "${ROOT:?}$H/.local" "$ROOT$H/probe.out" "$ROOT$H/.config/schemebridge"
make --no-print-directory install DESTDIR="$ROOT" PREFIX="$H/.local" HOME="$H" XDG_DATA_HOME= >"$WORK/install.log"
mkdir -p "$ROOT$H/.local/share/applications"
cat >"$ROOT$H/.local/bin/probe-app" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" > "$HOME/probe.out"
EOF
chmod 755 "$ROOT$H/.local/bin/probe-app"
cat >"$ROOT$H/.local/share/applications/org.example.Probe.desktop" <<EOF
[Desktop Entry]
Type=Application
Name=Probe
Exec=$H/.local/bin/probe-app %u
MimeType=x-scheme-handler/probe;
EOF
chroot "$ROOT" chown -R tester:tester "$H"
echo "installed into $ROOT$H/.local: $(cd "$ROOT$H/.local/share" && ls -d systemd/user/schemebridged.service dbus-1/services/*.service | tr '\n' ' ')"

# 3. Boot (see ../shared/recipes/systemd-session.sh: a cgroup of its own, no machined, -U).
for h in systemd unified; do [ -d "/sys/fs/cgroup/$h" ] && mkdir -p "/sys/fs/cgroup/$h/$CG"; done
sh -c 'for h in systemd unified; do [ -d /sys/fs/cgroup/$h/$0 ] && echo $$ >/sys/fs/cgroup/$h/$0/cgroup.procs; done; shift; exec "$@"' \
  "$CG" -- systemd-nspawn -D "$ROOT" --register=no --keep-unit -U --private-network -b >"$WORK/console.log" 2>&1 &
NS=$!
L=
for _ in $(seq 600); do
  L=$(ps -o pid=,comm= --ppid "$NS" | awk '$2=="systemd" {print $1}' || true)
  [ -n "$L" ] && break
  kill -0 "$NS" 2>/dev/null || { cat "$WORK/console.log"; exit 1; }
  sleep 0.1
done
[ -n "$L" ] || { echo "the container's systemd never appeared"; exit 1; }
IN=(nsenter -t "$L" -a)
for _ in $(seq 300); do "${IN[@]}" systemctl is-system-running --wait >/dev/null 2>&1 && break || sleep 0.2; done
echo "container: $("${IN[@]}" systemctl is-system-running || true)"

# 4. Log in as the user (PAM, through the container's PID 1) and use it.
"${IN[@]}" systemd-run --wait -P -q su -l tester -c '
  set -u
  export PATH=$HOME/.local/bin:$PATH
  echo "session $XDG_SESSION_ID, XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR, DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
  echo "user manager: $(systemctl --user is-system-running)"
  echo "before: schemebridged.service is $(systemctl --user is-active schemebridged.service)"
  schemebridge open "probe://hello?x=1"; echo "schemebridge open: exit $?"
  for _ in $(seq 50); do [ -s "$HOME/probe.out" ] && break; sleep 0.1; done
  echo "the app received: $(cat "$HOME/probe.out" 2>/dev/null)"
  echo "after: schemebridged.service is $(systemctl --user is-active schemebridged.service)"
  busctl --user status io.github.schemebridge.SchemeBridge1 | grep -E "^(PID|Exe|UserUnit)="
  echo "without DBUS_SESSION_BUS_ADDRESS: $(env -u DBUS_SESSION_BUS_ADDRESS schemebridge can-open probe://x) (exit $?)"
  echo "the journal:"; journalctl --user -u schemebridged.service --no-pager -o cat | tail -n 5
  systemctl --user stop schemebridged.service; systemctl --user mask schemebridged.service 2>/dev/null
  schemebridge open probe://masked; echo "with the unit masked: exit $?"
  systemctl --user unmask schemebridged.service 2>/dev/null
  schemebridge --version
' 2>&1
kill -TERM "$NS"; wait "$NS" || true; NS=
