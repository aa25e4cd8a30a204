#!/usr/bin/env python3
"""Where sbxrun's start-up time goes, from kernel trace points.

    phases.py [--runs N] [--json] -- SBXRUN [ARGS...] -- /bin/true

Runs the command N times under `perf record` of a few trace points (no
ptrace: recording costs about a microsecond per event, not the tens of
microseconds strace adds per system call), finds marker events in the process tree (execs,
forks, exits, and the first or last of a few system calls of each
process: the feature probe, the run directory, the namespace clone, the
mounts, Landlock, seccomp), and prints the median time between
consecutive markers.  Needs root (or perf_event_paranoid <= -1) and perf.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

EVENTS = ",".join([
    "sched:sched_process_exec", "sched:sched_process_fork",
    "sched:sched_process_exit",
    "syscalls:sys_enter_landlock_create_ruleset",
    "syscalls:sys_enter_landlock_add_rule",
    "syscalls:sys_enter_landlock_restrict_self",
    "syscalls:sys_enter_seccomp", "syscalls:sys_enter_mount",
    "syscalls:sys_enter_mkdir", "syscalls:sys_enter_socketpair",
])

# perf script -F comm,pid,time,event,trace:
#   "  sbxrun 16579  4492.431169: syscalls:sys_enter_mkdir: pathname: ..."
LINE = re.compile(r"^\s*(.*?)\s+(\d+)\s+([\d.]+):\s+([\w:]+):\s?(.*)$")

# (marker, phase that ends at it)
MARKERS = [
    ("exec", None),
    ("probe", "launcher start: ld.so, conf files, policy"),
    ("rundir", "kernel feature probe (no fork)"),
    ("spawn", "compiled policy file (stored by content)"),
    ("mount0", "clone(user, mnt, pid, ipc) + uid maps"),
    ("mount1", "mount view (bind, tmpfs, proc, dev)"),
    ("fork", "fork of the command (full: from pid 1; else keeper)"),
    ("ll0", "command: setsid, rlimits, caps, chdir"),
    ("ll1", "Landlock ruleset (incl. sibling carving)"),
    ("sec", "report socket, close fds, seccomp filter"),
    ("cexec", "execve"),
    ("cexit", "the command itself (/bin/true, shim loaded)"),
    ("pexit", "pid 1 / keeper: reap, kill the tree, exit"),
    ("end", "launcher: collect, exit"),
]


def parse(path):
    ev = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                ev.append((float(m.group(3)) * 1000.0, m.group(1),
                           int(m.group(2)), m.group(4).split(":")[-1],
                           m.group(5)))
    return ev


def markers(ev):
    t = {}
    execs = [e for e in ev if e[3] == "sched_process_exec"]
    if not execs:
        return None, {}
    L = execs[0][2]
    t["exec"] = execs[0][0]
    cmd = next((e for e in execs[1:]), None)
    if not cmd:
        return None, {}
    C = cmd[2]
    t["cexec"] = cmd[0]
    parent = {}
    forks = {}
    for e in ev:
        if e[3] == "sched_process_fork":
            m = re.search(r"\bpid=(\d+).*child_pid=(\d+)", e[4])
            if m:
                parent[int(m.group(2))] = int(m.group(1))
                forks[int(m.group(2))] = e[0]
    P = parent.get(C)
    if C in forks:
        t["fork"] = forks[C]

    def first(pid, name):
        return next((e[0] for e in ev if e[2] == pid and e[3] == name), None)

    def last(pid, name, before=None):
        xs = [e[0] for e in ev if e[2] == pid and e[3] == name and
              (before is None or e[0] <= before)]
        return xs[-1] if xs else None

    t["probe"] = first(L, "sys_enter_landlock_create_ruleset")
    t["rundir"] = first(L, "sys_enter_mkdir")
    t["spawn"] = first(L, "sys_enter_socketpair")
    if P is not None and P != L:
        t["mount0"] = first(P, "sys_enter_mount")
        t["mount1"] = last(P, "sys_enter_mount")
        t["pexit"] = last(P, "sched_process_exit")
    t["ll0"] = first(C, "sys_enter_landlock_create_ruleset")
    t["ll1"] = first(C, "sys_enter_landlock_restrict_self")
    t["sec"] = last(C, "sys_enter_seccomp", before=t["cexec"])
    t["cexit"] = last(C, "sched_process_exit")
    t["end"] = last(L, "sched_process_exit")
    counts = {
        "landlock_add_rule": sum(1 for e in ev if e[2] == C and
                                 e[3] == "sys_enter_landlock_add_rule"),
        "mount": sum(1 for e in ev if e[2] == P and e[3] == "sys_enter_mount")
        if P != L else 0,
        "processes": len({e[2] for e in ev if e[3] == "sched_process_exit"}),
    }
    return {k: v for k, v in t.items() if v is not None}, counts


def main():
    args = sys.argv[1:]
    runs, as_json = 20, False
    while args and args[0] != "--":
        a = args.pop(0)
        if a == "--runs":
            runs = int(args.pop(0))
        elif a == "--json":
            as_json = True
        else:
            sys.exit(__doc__)
    if not args:
        sys.exit(__doc__)
    cmd = args[1:]
    per = {}
    totals = []
    counts = []
    fd, data = tempfile.mkstemp(prefix="sbxphases.", dir="/var/tmp")
    os.close(fd)
    os.unlink(data)     # perf renames an existing output to .old
    out = data + ".txt"
    # One recording for all the runs (perf itself is slow to start); the
    # runs are sequential, each begins with the exec of the launcher.
    loop = ('i=0; while [ "$i" -lt %d ]; do "$@" || exit 1; i=$((i+1)); done'
            % (runs + 2))
    try:
        r = subprocess.run(["perf", "record", "-q", "-o", data, "-e", EVENTS,
                            "--", "/bin/sh", "-c", loop, "sh"] + cmd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode != 0:
            sys.exit("phases: perf record failed: " +
                     r.stderr.decode(errors="replace").strip()[-300:])
        with open(out, "w") as f:
            subprocess.run(["perf", "script", "-i", data, "-F",
                            "comm,pid,time,event,trace"], stdout=f,
                           stderr=subprocess.DEVNULL)
        ev = parse(out)
    finally:
        for f in (data, data + ".old", out):
            if os.path.exists(f):
                os.unlink(f)
    launcher = os.path.realpath(cmd[0])
    runs_ev, cur = [], None
    for e in ev:
        if e[3] == "sched_process_exec" and \
                re.search(r"filename=(\S+)", e[4]) and \
                os.path.realpath(re.search(r"filename=(\S+)", e[4]).group(1)) == launcher:
            cur = []
            runs_ev.append(cur)
        if cur is not None:
            cur.append(e)
    for one in runs_ev[2:]:         # the first two are a warm-up
        t, cnt = markers(one)
        if not t:
            continue
        counts.append(cnt)
        present = [m for m, _ in MARKERS if m in t]
        for a, b in zip(present, present[1:]):
            name = dict(MARKERS)[b] if b in dict(MARKERS) else b
            per.setdefault((a, b, name), []).append((t[b] - t[a]))
        totals.append(t[present[-1]] - t[present[0]])
    if not totals:
        sys.exit("phases: no usable trace (perf trace output not understood)")
    order = [m for m, _ in MARKERS]
    phases = [{"from": a, "to": b, "name": n,
               "median_ms": statistics.median(v), "n": len(v)}
              for (a, b, n), v in sorted(per.items(),
                                         key=lambda kv: order.index(kv[0][1]))]
    res = {"command": cmd, "runs": len(totals), "phases": phases,
           "total_median_ms": statistics.median(totals),
           "counts": {k: statistics.median(c[k] for c in counts)
                      for k in counts[0]}}
    if as_json:
        json.dump(res, sys.stdout, indent=1)
        return
    for p in phases:
        print("%-55s %7.2f ms" % (p["name"], p["median_ms"]))
    print("%-55s %7.2f ms" % ("total (traced)", res["total_median_ms"]))
    print("counts: %s" % res["counts"])


if __name__ == "__main__":
    main()
