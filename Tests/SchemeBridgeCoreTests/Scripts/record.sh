#!/bin/sh
# A handler for LauncherTests (copied into the test's folder): writes its argv (NUL-separated),
# session id, pid, signal mask, stdin, working directory and $SB_TEST beside itself, then `done`.
out="$(dirname "$0")"
printf '%s\0' "$@" > "$out/argv"
cut -d" " -f6 /proc/$$/stat > "$out/sid"
echo $$ > "$out/pid"
# builtins only: while sh waits for a child it blocks SIGCHLD itself
while read -r line; do case "$line" in SigBlk*) echo "$line";; esac; done < /proc/$$/status > "$out/sigblk"
readlink /proc/$$/fd/0 > "$out/stdin"
pwd > "$out/cwd"
printf '%s' "$SB_TEST" > "$out/env"
touch "$out/done"
