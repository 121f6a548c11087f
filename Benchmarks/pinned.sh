#!/bin/bash
# Runs a device bench (Benchmarks/devices.sh, or /work/tools/share-stages.sh, which runs it) with its
# processes held to chosen CPUs, to tell cold caches from work (docs/perf-notes/layout14.md):
#   pinned.sh SERVICE_CPUS OTHER_CPUS COMMAND...
# SERVICE_CPUS: the CPUs (a comma list, e.g. 0) for every schemebridged the bench starts (all its
# threads, by the program's file name); OTHER_CPUS: for the rest of the bench's processes (both
# kdeconnectd, both dbus-daemon, the client). "0 1": the service alone on CPU 0; "0 0": everything
# on CPU 0, the others running between the service's steps (docs/perf-notes/layout14.md: on this
# VM the service alone on a core spent more CPU per share, not less: a waiting core idles).
# The bench's processes: those whose command line or environment names the run directory
# (/dev/shm/schemebridge-devices.*) of a process COMMAND started; looked for every 0.05 s.
set -euo pipefail
SVC_CPUS="$1" OTHER_CPUS="$2"; shift 2
"$@" &
CMD=$!
/usr/bin/python3 - "$CMD" "$SVC_CPUS" "$OTHER_CPUS" <<'PY' &
import os, re, sys, time
cmd = int(sys.argv[1]); svc = {int(c) for c in sys.argv[2].split(',')}; other = {int(c) for c in sys.argv[3].split(',')}
os.sched_setaffinity(0, other)
RUN = re.compile(rb'/dev/shm/schemebridge-devices\.\w+')
def read(p):
    try:
        with open(p, 'rb') as f: return f.read()
    except OSError: return b''
runs, pinned = set(), {}   # our bench's run directories; tid -> the program it was pinned as
while os.path.exists('/proc/%d' % cmd):
    procs = {}
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        stat = read('/proc/%s/stat' % p)
        if not stat: continue
        ppid = int(stat.rsplit(b')', 1)[1].split()[1])
        try: exe = os.readlink('/proc/%s/exe' % p)
        except OSError: exe = ''
        procs[int(p)] = (ppid, exe)
    mine = {cmd}
    for _ in range(8):
        mine |= {p for p, (pp, _) in procs.items() if pp in mine}
    for p in mine:
        runs |= set(RUN.findall(read('/proc/%d/cmdline' % p) + read('/proc/%d/environ' % p)))
    for p, (_, exe) in procs.items():
        name = os.path.basename(exe)
        if not exe or name in ('bash', 'sh', 'dash', 'perf', 'sleep', 'ip') or name.startswith('python'): continue
        text = read('/proc/%d/cmdline' % p) + read('/proc/%d/environ' % p)
        if not any(r in text for r in runs): continue
        try: tids = [int(t) for t in os.listdir('/proc/%d/task' % p)]
        except OSError: continue
        cpus = svc if 'schemebridged' in name else other
        for t in tids:
            if pinned.get(t) == exe: continue
            try: os.sched_setaffinity(t, cpus); pinned[t] = exe
            except OSError: pass
    time.sleep(0.05)
PY
wait "$CMD"
