#!/bin/bash
# tmp-guard.sh [--warn] COMMAND...: runs COMMAND with TMPDIR a new, empty folder standing for /tmp,
# waits for the processes it started that still run with that TMPDIR (up to 5 minutes: a service
# stopping as its test's bus goes still writes), then fails (exit 1, naming the paths) if anything
# was left there; with --warn it names them and keeps COMMAND's status (for looking).
# Every suite makes its folders in $TMPDIR (NSTemporaryDirectory()) and removes them: a test that
# forgets, or a program that writes into a test's folder after its removal, fills a developer's /tmp
# (thousands of folders a run before this guard).
# The folder is /tmp/sbt.XXXXXX: short (unix socket paths under it stay below 108 bytes), lower-case
# letters and digits (tests type paths under it key by key), and like /tmp itself (mode 1777).
set -uo pipefail
WARN=0
if [ "${1:-}" = "--warn" ]; then WARN=1; shift; fi
GUARD_TMP=""
for _ in 1 2 3 4 5 6 7 8; do
    name="/tmp/sbt.$(tr -dc 'a-z0-9' </dev/urandom | head -c 6)"
    if mkdir -m 700 "$name" 2>/dev/null; then GUARD_TMP="$name"; break; fi
done
[ -n "$GUARD_TMP" ] || { echo "tmp-guard: cannot make a folder in /tmp" >&2; exit 2; }
chmod 1777 "$GUARD_TMP"
TMPDIR="$GUARD_TMP" "$@"
rc=$?

# The processes still running with this TMPDIR (their environment as they started).
stragglers() {
    local e pid
    for e in /proc/[0-9]*/environ; do
        pid="${e#/proc/}"; pid="${pid%/environ}"
        grep -qzxF "TMPDIR=$GUARD_TMP" "$e" 2>/dev/null && echo "$pid"
    done
}
waited=0
running="$(stragglers)"
while [ -n "$running" ] && [ "$waited" -lt 1500 ]; do
    sleep 0.2
    waited=$((waited + 1))
    running="$(stragglers)"
done
if [ -n "$running" ]; then
    echo "tmp-guard: still running 5 minutes after the run (their TMPDIR is $GUARD_TMP):" >&2
    for pid in $running; do
        printf '  %s %s\n' "$pid" "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | head -c 200)" >&2
    done
fi

# What SwiftPM itself leaves there (swift test): its empty lock files (_work_….lock) and empty
# temporary folders (TemporaryDirectory.XXXXXX holding a .keep-directory): not the suites', removed.
(cd "$GUARD_TMP" && find . -mindepth 1 -maxdepth 1 -name '_*.lock' -type f -empty -delete)
for d in "$GUARD_TMP"/TemporaryDirectory.??????; do
    [ -d "$d" ] && [ -z "$(find "$d" -mindepth 1 ! -path "$d/.keep-directory" -print -quit)" ] && rm -rf "$d"
done
left="$(cd "$GUARD_TMP" && find . -mindepth 1 -maxdepth 1 -print | sort)"
if [ -n "$left" ]; then
    echo "tmp-guard: the run left these in the temporary folder ($GUARD_TMP, $(printf '%s\n' "$left" | wc -l) entries):" >&2
    # Each with a few of the files in it: what wrote them says which test or program it was.
    printf '%s\n' "$left" | head -50 | while read -r entry; do
        echo "$entry" >&2
        (cd "$GUARD_TMP" && find "$entry" -mindepth 1 \( -type f -o -type s -o -type l \) -print 2>/dev/null | head -3 | sed 's/^/    /') >&2
    done
    [ "$rc" -ne 0 ] || [ "$WARN" = 1 ] || rc=1
else
    rmdir "$GUARD_TMP"
fi
exit $rc
