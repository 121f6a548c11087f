# Shared by scripts/systemd-session-proof.sh and scripts/deb-session-proof.sh: a Debian 12 root
# file system made once (debootstrap --variant=minbase, ~100 MB) and kept in CACHE/bookworm-HASH,
# outside the clone, and an overlay of it per run, in a mount namespace of the caller's own, so
# runs never change the cache and can run side by side. Source it from the project root with
# CACHE set; then `nspawn_root_ready` (step 1, outside the namespace) and, inside it,
# `nspawn_overlay` (sets WORK, R — the merged root — and NS for the booted container's pid).

# libcurl4: the service loads libcurl to verify app links (dlopen at the first fetch); the Debian
# package depends on it, a user install brings only our files.
PACKAGES=systemd,systemd-sysv,dbus,dbus-user-session,libpam-systemd,libcurl4
# The container's user namespace: a fixed range, the cached tree's owners shifted into it once
# (an overlay cannot be ID-mapped, and shifting at each boot would copy the whole tree up).
BASE=1549467648
# What makes the tree: a new list or a new setup step makes a new tree.
KEY=$(printf 'bookworm minbase %s useradd tester 1000 base %s\n' "$PACKAGES" "$BASE" | sha256sum | cut -c1-12)
ROOT=$CACHE/bookworm-$KEY
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }
# Runs a command in a cgroup of its own (see ../shared/recipes/systemd-session.sh: with no
# systemd on the host, nspawn --keep-unit uses the cgroup it was started in). It ends in exec:
# run it in a subshell (or in the background, where the job's PID is then the command's).
CG=schemebridge-nspawn-$$
in_cgroup() {
  for h in systemd unified; do [ -d "/sys/fs/cgroup/$h" ] && mkdir -p "/sys/fs/cgroup/$h/$CG"; done
  exec sh -c 'for h in systemd unified; do [ -d /sys/fs/cgroup/$h/$0 ] && echo $$ >/sys/fs/cgroup/$h/$0/cgroup.procs; done; shift; exec "$@"' "$CG" -- "$@"
}
remove_cgroup() {
  for h in systemd unified; do
    [ -d "/sys/fs/cgroup/$h/$CG" ] && find "/sys/fs/cgroup/$h/$CG" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
}

for tool in debootstrap systemd-nspawn nsenter unshare flock; do
  command -v "$tool" >/dev/null || { echo "needs $tool: apt-get install -y --no-install-recommends debootstrap systemd-container" >&2; exit 2; }
done

# Step 1: the cached root file system, made under a lock in a temp folder renamed into place when
# complete (an interrupted debootstrap leaves no half tree behind).
nspawn_root_ready() {
  mkdir -p "$CACHE"
  if [ -e "$ROOT/.complete" ]; then
    echo "debootstrap: cached in $ROOT"
    return 0
  fi
  exec 9>"$ROOT.lock"
  flock 9
  if [ ! -e "$ROOT/.complete" ]; then
    local t
    t=$(now)
    rm -rf "$ROOT.new" "$ROOT"
    debootstrap --variant=minbase --include="$PACKAGES" bookworm "$ROOT.new" >"$ROOT.log" 2>&1 \
      || { tail -20 "$ROOT.log"; rm -rf "$ROOT.new"; exit 1; }
    chroot "$ROOT.new" useradd -m -u 1000 -s /bin/bash tester
    echo sb-session >"$ROOT.new/etc/hostname"
    rm -rf "$ROOT.new"/var/cache/apt/archives/*.deb "$ROOT.new"/var/lib/apt/lists/*
    (in_cgroup systemd-nspawn -q -D "$ROOT.new" --register=no --keep-unit --private-users="$BASE:65536" \
      --private-users-ownership=chown /bin/true) >>"$ROOT.log" 2>&1 || { tail -20 "$ROOT.log"; remove_cgroup; exit 1; }
    remove_cgroup
    touch "$ROOT.new/.complete"
    mv "$ROOT.new" "$ROOT"
    echo "debootstrap: $(el "$t"), $(du -sh "$ROOT" | cut -f1) in $ROOT"
  fi
  exec 9>&-
}

# Step 2, inside the mount namespace: an overlay of the root, gone when the run ends, however it ends.
nspawn_overlay() {
  WORK=$(mktemp -d)
  NS=
  trap nspawn_cleanup EXIT
  mkdir -p "$WORK/upper" "$WORK/work" "$WORK/merged"
  mount -t overlay overlay -o "lowerdir=$ROOT,upperdir=$WORK/upper,workdir=$WORK/work" "$WORK/merged"
  R=$WORK/merged
}
nspawn_cleanup() {
  if [ -n "$NS" ] && kill -0 "$NS" 2>/dev/null; then kill -TERM "$NS"; wait "$NS" 2>/dev/null || true; fi
  remove_cgroup
  umount "$WORK/merged" 2>/dev/null || true
  rm -rf "$WORK"
}
