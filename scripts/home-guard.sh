#!/bin/bash
# home-guard.sh [--warn] COMMAND...: runs COMMAND with HOME set to a new, empty folder standing for the
# user's home, then fails (exit 1, naming the paths) if anything but the toolchain's own caches was left
# there; with --warn it names them and keeps COMMAND's status (for looking, not for make test).
# The suites use temporary XDG trees and private buses: a test, or a program a test starts, that falls
# back to $HOME (~/.config, ~/.local/state, ~/.cache, ~/.local/share) would write into the real
# user's files on a developer's machine. XDG_* are cleared, as in a session that sets none.
set -uo pipefail
WARN=0
if [ "${1:-}" = "--warn" ]; then WARN=1; shift; fi
GUARD_HOME="$(mktemp -d /tmp/schemebridge-home.XXXXXX)"
chmod 700 "$GUARD_HOME"
env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_STATE_HOME -u XDG_CACHE_HOME -u XDG_RUNTIME_DIR \
    HOME="$GUARD_HOME" "$@"
rc=$?
# What Swift's toolchain keeps in a home of its own (module and manifest caches, SwiftPM's folders).
left="$(cd "$GUARD_HOME" && find . -mindepth 1 \
    \( -path ./.cache/clang -o -path './.cache/org.swift.*' -o -path ./.swiftpm -o -path ./.local/share/bin \) -prune \
    -o -type f -print -o -type s -print -o -type l -print -o -type d -empty -print | sort)"
left="$(printf '%s\n' "$left" | grep -v -x -e '' -e './.cache' -e './.local' -e './.local/share' || true)"
if [ -n "$left" ]; then
    echo "home-guard: the run left these in the user's home ($GUARD_HOME):" >&2
    printf '%s\n' "$left" | head -50 >&2
    [ "$rc" -ne 0 ] || [ "$WARN" = 1 ] || rc=1
else
    rm -rf "$GUARD_HOME"
fi
exit $rc
