#!/bin/bash
# The Debian package in a real systemd user session (issue 35 item 6): a Debian 12 container
# booted with systemd-nspawn, as scripts/systemd-session-proof.sh boots it (the same cached root
# file system, an overlay per run), then, inside:
#   1. `apt install ./schemebridge_VERSION_ARCH.deb` (apt fetches its dependencies from Debian's
#      mirror: this container shares the host's network; --no-install-recommends unless
#      RECOMMENDS=1: the recommended sheet and chooser toolkits are ~200 MB);
#   2. a user logs in through PAM (logind, `systemd --user`, dbus-user-session) with a demo
#      handler of todolist: in ~/.local (desktop/demo/todolist-demo), and `schemebridge open
#      todolist://x` opens it through the package's user unit (/usr/lib/systemd/user);
#   3. the package's autopkgtest (debian/tests) runs against the installed .deb
#      (`autopkgtest DEB SRC -- null`, inside the throwaway container);
#   4. `apt purge schemebridge` (and autoremove of what it pulled in): the file list of the
#      system before the install and after the purge are compared, and every path the package
#      held must be gone.
# Needs, as root: debootstrap systemd-container (scripts/deps.sh test), the .deb
# (dpkg-buildpackage -us -uc -b writes it beside the clone), network to Debian's mirror.
# Usage: scripts/deb-session-proof.sh ../schemebridge_*.deb   (exit 0: every check held)
set -euo pipefail
SELF=$(realpath "$0")
cd "$(dirname "$SELF")/.."
SRC=$PWD
CACHE=${CACHE:-/var/cache/schemebridge-tests}
DEB=$(realpath "${1:-}" 2>/dev/null || true)
[ -n "${1:-}" ] && [ -f "$DEB" ] || { echo "usage: $0 PATH/schemebridge_VERSION_ARCH.deb (dpkg-buildpackage -us -uc -b)" >&2; exit 2; }
# The same root file system as scripts/systemd-session-proof.sh.
. scripts/lib/nspawn-root.sh

# 1. The cached root file system (scripts/lib/nspawn-root.sh).
[ -n "${SB_SESSION_INNER:-}" ] || nspawn_root_ready

# 2. The rest runs in a mount namespace of its own: the overlay goes when the run ends, however it ends.
if [ -z "${SB_SESSION_INNER:-}" ]; then
  exec env SB_SESSION_INNER=1 CACHE="$CACHE" unshare --mount --propagation private bash "$SELF" "$DEB"
fi
nspawn_overlay
U=$((BASE + 1000))

# 3. What goes in: the .deb and the package's tests (for autopkgtest) under /root; the demo
#    handler of todolist: as the user's own app (~/.local), logging what it gets to ~/todolist.log.
mkdir -p "$R/root/deb" "$R/root/src"
cp "$DEB" "$R/root/deb/"
cp -r debian "$R/root/src/"
chown -R "$BASE:$BASE" "$R/root/deb" "$R/root/src"
H=/home/tester
mkdir -p "$R$H/.local/share/schemebridge-demo" "$R$H/.local/share/applications"
install -m 755 desktop/demo/todolist-demo "$R$H/.local/share/schemebridge-demo/"
sed -e "s|^Exec=@demodir@/todolist-demo|Exec=env SCHEMEBRIDGE_DEMO_LOG=$H/todolist.log $H/.local/share/schemebridge-demo/todolist-demo|" \
  -e '/^X-LaunchImageDir=/d' desktop/demo/org.example.TodoList.desktop.in >"$R$H/.local/share/applications/org.example.TodoList.desktop"
chown -R "$U:$U" "$R$H/.local"

# 4. Boot (see ../shared/recipes/systemd-session.sh), on the host's network (apt).
t=$(now)
in_cgroup systemd-nspawn -D "$R" --register=no --keep-unit --private-users="$BASE:65536" --private-users-ownership=off \
  --resolv-conf=copy-host -b >"$WORK/console.log" 2>&1 &
NS=$!
L=
for _ in $(seq 1200); do
  L=$(ps -o pid=,comm= --ppid "$NS" | awk '$2=="systemd" {print $1}' || true)
  [ -n "$L" ] && break
  kill -0 "$NS" 2>/dev/null || { cat "$WORK/console.log"; exit 1; }
  sleep 0.1
done
[ -n "$L" ] || { echo "the container's systemd never appeared"; cat "$WORK/console.log"; exit 1; }
IN=(nsenter -t "$L" -a)
for _ in $(seq 600); do "${IN[@]}" systemctl is-system-running --wait >/dev/null 2>&1 && break || sleep 0.2; done
echo "container: $("${IN[@]}" systemctl is-system-running || true) ($(el "$t"))"

FAILED=0
check() { if [ "$2" = "$3" ]; then echo "ok: $1: $2"; else echo "FAILED: $1: '$2', expected '$3'"; FAILED=1; fi; }
# Every file of the system but the kernel's, the runtime's and the temp folders.
LIST='find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /var/tmp \) -prune -o -print | LC_ALL=C sort'

# 5. apt: its lists, and autopkgtest (for step 7) before the "before" list, with dpkg-dev: given the
#    source tree, autopkgtest installs dpkg-dev (binutils, make, patch, xz-utils, bzip2) for
#    dpkg-source, and apt's autoremove keeps it (installed by hand), so it would count as left behind.
t=$(now)
"${IN[@]}" sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends autopkgtest dpkg-dev >/dev/null' \
  || { echo "apt in the container failed (network to Debian's mirror?)"; exit 1; }
echo "apt-get update, autopkgtest and dpkg-dev installed ($(el "$t"))"
"${IN[@]}" sh -c "$LIST" >"$WORK/before"
t=$(now)
NORECOMMENDS=--no-install-recommends; [ -n "${RECOMMENDS:-}" ] && NORECOMMENDS=
deb=/root/deb/$(basename "$DEB")
echo "# apt install $NORECOMMENDS .$deb (in /)"
"${IN[@]}" sh -c "cd / && DEBIAN_FRONTEND=noninteractive apt-get install -y $NORECOMMENDS .$deb" >"$WORK/apt.log" 2>&1 \
  || { cat "$WORK/apt.log"; exit 1; }
grep -E '^(The following NEW packages|Recommended packages|  |[0-9]+ upgraded)' "$WORK/apt.log" || true
"${IN[@]}" dpkg -L schemebridge >"$WORK/owned"
echo "installed ($(el "$t")): $(wc -l <"$WORK/owned") paths, $("${IN[@]}" dpkg-query -W -f='${Package} ${Version} ${Installed-Size} KiB' schemebridge)"
"${IN[@]}" dpkg -L schemebridge | grep -E '^/usr/(bin/|lib/systemd/user/|share/dbus-1/services/)' | sed 's/^/  /'

# 6. The user logs in and opens todolist://x: the session bus activates the package's unit.
t=$(now)
"${IN[@]}" systemd-run --wait -P -q su -l tester -c '
  set -u
  echo "session: $XDG_SESSION_ID, $DBUS_SESSION_BUS_ADDRESS, user manager $(systemctl --user is-system-running)"
  echo "unit: $(systemctl --user show -P FragmentPath schemebridged.service), $(systemctl --user is-active schemebridged.service) before"
  echo "which schemebridge: $(command -v schemebridge)"
  schemebridge open todolist://x; echo "schemebridge open todolist://x: exit $?"
  for _ in $(seq 600); do [ -s "$HOME/todolist.log" ] && break; sleep 0.1; done
  echo "handler log: $(tr -s " \n" " " <"$HOME/todolist.log" 2>/dev/null)"
  echo "unit after: $(systemctl --user is-active schemebridged.service)"
  busctl --user status io.github.schemebridge.SchemeBridge1 | grep -E "^(Exe|UserUnit)="
  schemebridge --version | head -n 1
' >"$WORK/session.log" 2>&1 || true
cat "$WORK/session.log"
echo "session done ($(el "$t"))"
check "the open's exit status" "$(grep -o 'todolist://x: exit [0-9]*' "$WORK/session.log")" "todolist://x: exit 0"
check "the handler's argument" "$(grep -o '\[todolist://x\]' "$WORK/session.log")" "[todolist://x]"
check "the unit before" "$(grep -o 'service, [a-z]* before' "$WORK/session.log")" "service, inactive before"
check "the unit file" "$(grep -o 'unit: [^,]*' "$WORK/session.log")" "unit: /usr/lib/systemd/user/schemebridged.service"
check "the name's owner" "$(grep '^Exe=' "$WORK/session.log")" "Exe=/usr/bin/schemebridged"
check "the owner's unit" "$(grep '^UserUnit=' "$WORK/session.log")" "UserUnit=schemebridged.service"
check "the unit after" "$(grep -o 'unit after: .*' "$WORK/session.log")" "unit after: active"

# 7. The package's autopkgtest against the installed .deb.
t=$(now)
set +e
"${IN[@]}" sh -c "cd /root && autopkgtest $deb /root/src -- null" >"$WORK/autopkgtest.log" 2>&1
rc=$?
set -e
grep -E '^(before: |CanOpenURL |owner: |handler received: |FAIL|PASS$|dbus-activation +[A-Z])' "$WORK/autopkgtest.log" | sed 's/^/  /' | uniq
check "autopkgtest $deb /root/src -- null: exit ($(el "$t"))" "$rc" 0
[ "$rc" = 0 ] || tail -n 40 "$WORK/autopkgtest.log"

# 8. Purge: the user's manager stopped first (its service runs the package's program), then
#    apt purge and autoremove; no path of the package, and no file the install added, remains.
"${IN[@]}" systemctl stop user@1000.service
t=$(now)
"${IN[@]}" sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get purge -y schemebridge && apt-get autoremove --purge -y' >"$WORK/purge.log" 2>&1 \
  || { cat "$WORK/purge.log"; exit 1; }
echo "apt purge schemebridge, autoremove --purge ($(el "$t")): $(grep -c '^Removing' "$WORK/purge.log") packages removed"
"${IN[@]}" sh -c "$LIST" >"$WORK/after"
left=$("${IN[@]}" sh -c 'while read -r p; do [ -e "$p" ] && [ ! -d "$p" ] && echo "$p"; done; true' <"$WORK/owned")
check "the package's files left after purge" "$(echo "$left" | grep -c . || true)" 0
# apt's and dpkg's own records, logs and caches change by design, and the user's home holds what
# the session made (a package never touches it: listed, not counted); the rest must not change.
STATE='^/(var/lib/(dpkg|apt|systemd)|var/cache|var/log|home)(/|$)'
echo "the user's home after the session (the demo handler we put there, what the session made):"
diff "$WORK/before" "$WORK/after" | grep -E '^[<>] /home/' | sed 's/^/  /' || true
diff "$WORK/before" "$WORK/after" | grep -E '^[<>] ' | grep -vE "^[<>] ${STATE#^}" >"$WORK/diff" || true
echo "file list before the install vs after the purge (outside ${STATE}):"
sed 's/^/  /' "$WORK/diff"
check "files added or removed by install + purge" "$(grep -c . "$WORK/diff" || true)" 0

t=$(now)
kill -TERM "$NS"; wait "$NS" || true; NS=
echo "shutdown: $(el "$t")"
[ "$FAILED" = 0 ] && echo "deb-session-proof: every check held" || { echo "deb-session-proof: FAILED"; exit 1; }
