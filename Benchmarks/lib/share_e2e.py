"""Benchmarks/share-e2e.sh's analysis: a device Share's time end to end, cut where it crosses a process.

Reads `perf script -F comm,pid,tid,cpu,time,event,trace` of syscall and scheduler tracepoints taken
on every CPU during Benchmarks/devices.sh. For each round of the service (its D-Bus loop thread,
`dbus-loop`, found by its `readlinkat` of the shared file's descriptor) and of the bare C relay
(device-bench's forked child), the medians of:
  deliver      the caller's `sendmsg` of Share -> the server's `recvmsg` of it (bus daemon, wake)
  to-engine    that `recvmsg` -> the server's `sendmsg` of the engine's `shareUrl`
  engine       -> the server's `recvmsg` of the engine's reply
  to-Response  -> the server's `sendmsg` of the Response
  deliver      -> the caller's `recvmsg` returning it
  total        the caller's Share -> its Response
and, per server, how long its thread ran on after each of those sends before it slept, how
long it ran between being switched in and reading the message it woke for, and where the bus
daemon was when its engine call and Response went out, with how long until it read them: woken
onto the sender's CPU (it runs when it preempts the sender), woken onto the other (in a VM, an
idle virtual CPU's wake can take tens of µs), or awake (runnable behind the sender, or busy).
"""
import collections
import re
import statistics
import sys

EAGAIN = '0xfffffffffffffff5'
LINE = re.compile(r'\s*(\S.*?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)')


def load(path):
    events = []
    for line in open(path):
        m = LINE.match(line)
        if m:
            events.append(dict(comm=m[1], pid=int(m[2]), tid=int(m[3]), cpu=int(m[4]), t=float(m[5]), ev=m[6].split(':')[1], tr=m[7]))
    return events


def is_data(e):
    return e['ev'] == 'sys_exit_recvmsg' and not e['tr'].endswith(EAGAIN)


def ran_on(thread, t):
    """µs the thread ran (or waited runnable) after `t` before it next slept."""
    for e in thread:
        if e['t'] > t and e['ev'] == 'sched_switch' and 'prev_state=S' in e['tr']:
            return (e['t'] - t) * 1e6
    return None


def daemon_read(events, at, send, daemon):
    """After `send` (a sendmsg, at index `at` of `events`): where the bus daemon (thread `daemon`)
    was — 'same' (woken onto the sender's CPU), 'other' (woken onto the other), 'awake' (not
    asleep: no wake) — and µs until it read a message (None when not found)."""
    where = 'awake'
    for k in range(at + 1, min(at + 2000, len(events))):
        e = events[k]
        if e['ev'] == 'sched_wakeup' and e['tid'] == send['tid'] and (' pid=%d ' % daemon) in e['tr']:
            where = 'same' if int(re.search(r'target_cpu=(\d+)', e['tr'])[1]) == send['cpu'] else 'other'
        elif e['tid'] == daemon and is_data(e):
            return where, (e['t'] - send['t']) * 1e6
    return where, None


def main(path):
    events = load(path)
    events.sort(key=lambda e: e['t'])
    position = {id(e): k for k, e in enumerate(events)}
    # The bus daemon of side A: the one the caller's and the servers' sends wake most.
    woken = collections.Counter(int(re.search(r' pid=(\d+)', e['tr'])[1]) for e in events
                                if e['ev'] == 'sched_wakeup' and 'comm=dbus-daemon ' in e['tr'] and e['comm'] in ('dbus-loop', 'device-bench'))
    daemon = woken.most_common(1)[0][0] if woken else -1
    by = collections.defaultdict(list)
    for e in events:
        by[e['tid']].append(e)
    loop = collections.Counter(e['tid'] for e in events if e['comm'] == 'dbus-loop' and e['ev'] == 'sys_enter_readlinkat')
    senders = collections.Counter(e['tid'] for e in events if e['comm'] == 'device-bench' and e['ev'] == 'sys_enter_sendmsg')
    if not loop or len(senders) < 2:
        sys.exit('share-e2e: no service or relay rounds in the trace')
    caller = senders.most_common(1)[0][0]
    caller_pid = by[caller][0]['pid']
    relay = next((tid for tid, n in senders.most_common() if tid != caller and by[tid][0]['pid'] != caller_pid), None)
    servers = {'share': loop.most_common(1)[0][0]}
    if relay is not None:
        servers['relay'] = relay
    C = by[caller]
    names = ['deliver', 'to-engine', 'engine', 'to-Response', 'deliver', 'total']
    for kind, tid in servers.items():
        S = by[tid]
        rows, after_call, after_response, wakes = [], [], [], []
        for i, e in enumerate(S):
            # A round starts where the server reads a Share: the service's first readlinkat after
            # it; the relay's first send after a pause (its reply), the relay replying first.
            if kind == 'share':
                if e['ev'] != 'sys_enter_readlinkat':
                    continue
            else:
                if e['ev'] != 'sys_enter_sendmsg':
                    continue
                earlier = [x['t'] for x in S[max(0, i - 40):i] if x['ev'] == 'sys_enter_sendmsg']
                if earlier and e['t'] - earlier[-1] < 0.005:
                    continue
            j = i
            while j >= 0 and not is_data(S[j]):
                j -= 1
            if j < 0:
                continue
            t1 = S[j]['t']
            sends = [x['t'] for x in S[i:i + 200] if x['ev'] == 'sys_enter_sendmsg']
            t2 = sends[0] if kind == 'share' else (sends[1] if len(sends) > 1 else None)
            if t2 is None:
                continue
            t3 = next((x['t'] for x in S if x['t'] > t2 and is_data(x)), None)
            t4 = next((x['t'] for x in S if t3 is not None and x['t'] > t3 and x['ev'] == 'sys_enter_sendmsg'), None)
            t0 = next((x['t'] for x in reversed(C) if x['t'] < t1 and x['ev'] == 'sys_enter_sendmsg'), None)
            t5 = next((x['t'] for x in C if t4 is not None and x['t'] > t4 and is_data(x)), None)
            if None in (t0, t3, t4, t5) or t5 - t0 > 0.05:
                continue
            rows.append([(b - a) * 1e6 for a, b in ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t0, t5))])
            after_call.append(ran_on(S, t2))
            after_response.append(ran_on(S, t4))
            for t in (t2, t4):
                send = next(x for x in S if x['t'] == t and x['ev'] == 'sys_enter_sendmsg')
                wakes.append(daemon_read(events, position[id(send)], send, daemon))
        if not rows:
            print(kind, 'no rounds found')
            continue
        med = lambda xs: statistics.median([x for x in xs if x is not None])
        print('%-5s %3d rounds, medians (µs): ' % (kind, len(rows)) + '  '.join('%s %.0f' % (n, med(r[c] for r in rows)) for c, n in enumerate(names))
              + '  | ran on after the engine call %.0f, after the Response %.0f' % (med(after_call), med(after_response)))
        # Switch-in to the first read of the message it woke for.
        woke, gaps = None, []
        for e in events:
            if e['ev'] == 'sched_switch' and ('next_pid=%d ' % tid) in e['tr'] + ' ':
                woke = e['t']
            elif e['tid'] == tid and woke is not None and is_data(e):
                gaps.append((e['t'] - woke) * 1e6)
                woke = None
        print('      switched in -> reading the message: p50 %.0f µs' % statistics.median(gaps))
        where = collections.defaultdict(list)
        for w, us in wakes:
            if us is not None:
                where[w].append(us)
        print('      the bus daemon reading its engine call and Response: ' + ', '.join(
            '%s %d (p50 %.0f µs)' % ({'same': 'woken on its CPU', 'other': 'woken on the other', 'awake': 'awake'}[w], len(where[w]), statistics.median(where[w]))
            for w in ('same', 'other', 'awake') if where[w]))


if __name__ == '__main__':
    main(sys.argv[1])
