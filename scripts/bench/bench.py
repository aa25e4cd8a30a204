#!/usr/bin/env python3
"""make bench: sbxrun against a bare run and against bubblewrap.

Run through scripts/bench.sh, which builds the helpers (tests/bench/*.c)
into BUILD/bench/ first.  Every scenario runs its variants (bare, sbxrun
in one or more configurations, bwrap) with build/bench/tm, which warms
each variant up and then alternates them round by round (A B C, C B A,
...), so that neighbours in time are compared.  Ratios and overheads are
the median of the per-round ratios and differences, not ratios of
medians: machine drift cancels pair by pair.

Prints a summary table (with the targets, met or missed) and a detail
table (median, min, max of every variant), and writes BUILD/bench.json.
Benchmarks report figures; they never fail on speed: the exit status is
0 unless the harness itself could not run.

Environment:
  BENCH_ONLY=startup,rss,crosscheck,shim,exec,make,script,git,python,rules,
             layers,phases,seccomp
             run only these groups (default: all)
  BENCH_QUICK=1   a quick smoke run: few rounds, small loops (figures
                  are then only indicative)
  BENCH_NO_BWRAP=1   leave bubblewrap out
  BENCH_KEEP=1    keep the scratch directory
  BENCH_OUT=FILE  where the JSON goes (default BUILD/bench.json, or
                  BUILD/bench-partial.json for BENCH_ONLY / BENCH_QUICK runs,
                  so a partial run never replaces the figures of a full one);
                  the printed tables also go to the same name with .txt
"""
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.environ.get("SBX_TOP") or
                      os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.abspath(os.environ.get("SBX_BUILD") or os.path.join(TOP, "build"))
BENCHBIN = os.path.join(BUILD, "bench")
QUICK = os.environ.get("BENCH_QUICK") == "1"
ONLY = set(filter(None, os.environ.get("BENCH_ONLY", "").split(",")))
T0 = time.time()


def want(group):
    return not ONLY or group in ONLY


def q(full, quick):
    """A setting for the full run, or for BENCH_QUICK=1."""
    return quick if QUICK else full


LOG = []


def say(msg):
    LOG.append(msg)
    print(msg, flush=True)


# ------------------------------------------------------------ scratch space

def setup_scratch():
    """A throw-away HOME with secrets, a project, the binaries under test."""
    # Not under /tmp: the sandbox has a private /tmp, and the project and
    # HOME must exist on both sides.
    base = "/var/tmp" if os.path.isdir("/var/tmp") else None
    t = tempfile.mkdtemp(prefix="sbxbench.", dir=base)
    os.chmod(t, 0o755)
    home = os.path.join(t, "home")
    proj = os.path.join(t, "proj")
    for d in (".ssh", ".aws", ".gnupg", ".config/gh", ".kube"):
        os.makedirs(os.path.join(home, d), mode=0o700)
    with open(os.path.join(home, ".ssh", "id_rsa"), "w") as f:
        f.write("bench-not-a-secret\n")
    with open(os.path.join(home, ".aws", "credentials"), "w") as f:
        f.write("[default]\n")
    for name in (".netrc", ".bash_history"):
        with open(os.path.join(home, name), "w") as f:
            f.write("x\n")
    os.makedirs(proj)
    with open(os.path.join(proj, "allowed.txt"), "w") as f:
        f.write("hello\n")
    # The binaries under test, copied so that a rebuild of BUILD while
    # the bench runs cannot change them under our feet.  The launcher
    # finds the shim next to itself; a copy without it runs shim-less.
    bindir = os.path.join(t, "bin")
    nsdir = os.path.join(t, "bin-noshim")
    os.makedirs(bindir)
    os.makedirs(nsdir)
    for name in ("sbxrun", "libsbxshim.so"):
        shutil.copy2(os.path.join(BUILD, name), os.path.join(bindir, name))
    shutil.copy2(os.path.join(BUILD, "sbxrun"), os.path.join(nsdir, "sbxrun"))
    return t, home, proj, os.path.join(bindir, "sbxrun"), os.path.join(nsdir, "sbxrun")


def bench_env(home):
    env = dict(os.environ)
    env["HOME"] = home
    env["LC_ALL"] = "C"
    env["SBXRUN_PROFILE_DIR"] = os.path.join(TOP, "profiles")
    for k in ("XDG_CONFIG_HOME", "SBXRUN_SHIM", "LD_PRELOAD", "SBXRUN_POLICY",
              "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GIT_DIR", "GIT_WORK_TREE"):
        env.pop(k, None)
    return env


def hidden_roots(home):
    """The hide roots of the default profile, '~' expanded."""
    out = []
    with open(os.path.join(TOP, "profiles", "default.conf")) as f:
        for m in re.finditer(r'root\s*=\s*"([^"]+)"\s*;\s*mode\s*=\s*"hide"', f.read()):
            p = m.group(1)
            if p.startswith("~"):
                p = home + p[1:]
            out.append(p)
    return out


def bwrap_argv(proj, home, extra=()):
    """bubblewrap with the agent policy of sbxrun's default profile;
    extra: more bind options, after the project's."""
    a = ["bwrap", "--ro-bind", "/", "/", "--bind", proj, proj]
    for p in hidden_roots(home):
        if os.path.isdir(p) and not os.path.islink(p):
            a += ["--tmpfs", p]
        elif os.path.exists(p):
            a += ["--ro-bind", "/dev/null", p]
    for rel in (".git/hooks", ".git/config", ".git/info"):
        p = os.path.join(proj, rel)
        if os.path.exists(p):
            a += ["--ro-bind", p, p]
    a += list(extra)
    a += ["--unshare-all", "--die-with-parent", "--new-session",
          "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
          "--chdir", proj, "--"]
    return a


def try_run(argv, cwd, env):
    """Run once; None if it worked, else a one-line reason."""
    try:
        r = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if r.returncode == 0:
        return None
    err = r.stderr.decode(errors="replace").strip().splitlines()
    return "exit %d%s" % (r.returncode, (": " + err[-1]) if err else "")


# ------------------------------------------------------------ measuring

def parse_fields(text):
    out = {}
    for m in re.finditer(r"([A-Za-z_]+)=([-0-9.]+)", text or ""):
        out[m.group(1)] = float(m.group(2))
    return out


def run_tm(variants, cwd, env, rounds, warmup, prep=None, capture=False,
           quiet=True):
    """variants: [(key, argv)].  Returns {key: {"wall": [...], "rss": [...],
    "fields": {name: [...]}, "status": [...], "warm_status": [...]}};
    the lists are indexed by round."""
    cmd = [os.path.join(BENCHBIN, "tm"), "-n", str(rounds), "-w", str(warmup)]
    if prep:
        cmd += ["-p", prep]
    if quiet:
        cmd.append("-q")
    if capture:
        cmd.append("-c")
    cmd.append("--")
    for i, (_, argv) in enumerate(variants):
        if i:
            cmd.append(":::")
        cmd += argv
    res = {k: {"wall": [None] * rounds, "rss": [None] * rounds,
               "fields": {}, "status": [None] * rounds, "warm_status": []}
           for k, _ in variants}
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("tm failed: " + p.stderr.decode(errors="replace"))
    for line in p.stdout.decode(errors="replace").splitlines():
        parts = line.split(" ", 6)
        if len(parts) < 6 or parts[0] != "run":
            continue
        v, r = int(parts[1]), int(parts[2])
        key = variants[v][0]
        d = res[key]
        st = int(parts[5])
        if r < 0:
            d["warm_status"].append(st)
            continue
        d["wall"][r] = int(parts[3])
        d["rss"][r] = int(parts[4])
        d["status"][r] = st
        for name, val in parse_fields(parts[6] if len(parts) > 6 else "").items():
            d["fields"].setdefault(name, [None] * rounds)[r] = val
    return res


def stats(values):
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {"median": statistics.median(v), "min": min(v), "max": max(v),
            "n": len(v)}


def paired(xs, bs, kind):
    """Median of per-round ratios (kind "ratio") or differences."""
    out = []
    for x, b in zip(xs, bs):
        if x is None or b is None:
            continue
        if kind == "ratio":
            if b > 0:
                out.append(x / b)
        else:
            out.append(x - b)
    return statistics.median(out) if out else None


# ------------------------------------------------------------ the results

RESULTS = {"version": 1, "scenarios": {}, "summary": [], "notes": []}
ROWS = []          # summary rows, in order
DETAIL = []        # (scenario, variant label, unit, stats)


class Scenario:
    def __init__(self, name, title, unit, scale, variants, data, labels,
                 rounds, warmup, extra=None):
        self.name, self.title, self.unit, self.scale = name, title, unit, scale
        self.data, self.labels = data, labels
        self.keys = [k for k, _ in variants]
        entry = {"title": title, "unit": unit, "rounds": rounds,
                 "warmup": warmup, "variants": {}}
        if extra:
            entry.update(extra)
        for k, argv in variants:
            d = data[k]
            bad = [s for s in d["status"] + d["warm_status"] if s not in (None, 0)]
            v = {"label": labels[k], "argv": argv, "errors": len(bad),
                 "metrics": {}}
            metrics = {"wall": d["wall"], "rss_kb": d["rss"]}
            metrics.update(d["fields"])
            for m, vals in metrics.items():
                s = stats(vals)
                if s:
                    s["values"] = vals
                    v["metrics"][m] = s
            entry["variants"][k] = v
        RESULTS["scenarios"][name] = entry

    def ok(self, key):
        d = self.data.get(key)
        return d is not None and all(s in (None, 0) for s in d["status"] + d["warm_status"])

    def series(self, key, metric):
        d = self.data[key]
        if metric == "wall":
            return d["wall"]
        if metric == "rss":
            return d["rss"]
        return d["fields"].get(metric, [])

    def value(self, key, metric):
        s = stats(self.series(key, metric))
        return s["median"] if s else None


def fmt(v, unit, scale=1.0):
    if v is None:
        return "-"
    x = v * scale
    if unit in ("ns", "µs") and abs(x) >= 100:
        return "%.0f %s" % (x, unit)
    if abs(x) >= 100:
        return "%.0f %s" % (x, unit)
    if abs(x) >= 10:
        return "%.1f %s" % (x, unit)
    return "%.2f %s" % (x, unit)


def fmt_delta(v, unit, scale=1.0):
    if v is None:
        return "-"
    s = fmt(abs(v), unit, scale)
    return ("+" if v >= 0 else "-") + s


def add_row(sc, label, metric, bare, sbx, bwrap=None, target=None,
            over="diff", ref=None, over_metric=None, scale=None, unit=None,
            note=None, sbx_metric=None):
    """One summary line.  over: how the target quantity is measured:
    "diff" (sbx - ref, paired), "ratio" (sbx / ref, paired) or "field"
    (the median of over_metric of the sbx variant).  target: a limit on
    that quantity (None: reported only)."""
    unit = unit or sc.unit
    scale = sc.scale if scale is None else scale
    ref = ref or bare
    sm = sbx_metric or metric       # the sbxrun variant's metric
    row = {"scenario": sc.name, "label": label, "metric": metric,
           "unit": unit, "note": note}
    have = lambda k: k is not None and k in sc.data and sc.ok(k)
    if not have(sbx):
        row["error"] = "sbxrun variant failed or unavailable"
    b = sc.value(bare, metric) if have(bare) else None
    s = sc.value(sbx, sm) if have(sbx) else None
    w = sc.value(bwrap, metric) if have(bwrap) else None
    row["bare"] = b * scale if b is not None else None
    row["sbxrun"] = s * scale if s is not None else None
    row["bwrap"] = w * scale if w is not None else None
    if have(bare) and have(sbx):
        row["sbxrun_x_bare"] = paired(sc.series(sbx, sm), sc.series(bare, metric), "ratio")
        d = paired(sc.series(sbx, sm), sc.series(bare, metric), "diff")
        row["sbxrun_minus_bare"] = d * scale if d is not None else None
    if have(bare) and have(bwrap):
        row["bwrap_x_bare"] = paired(sc.series(bwrap, metric), sc.series(bare, metric), "ratio")
    if have(bwrap) and have(sbx):
        row["sbxrun_x_bwrap"] = paired(sc.series(sbx, sm), sc.series(bwrap, metric), "ratio")
    measured = None
    if have(sbx):
        if over == "field":
            m = sc.value(sbx, over_metric)
            measured = m * scale if m is not None else None
        elif have(ref):
            m = paired(sc.series(sbx, sm), sc.series(ref, metric), over)
            if m is not None:
                measured = m if over == "ratio" else m * scale
    row["over"] = over
    row["measured"] = measured
    if target:
        kind, limit = target
        row["target"] = {"kind": kind, "limit": limit}
        if measured is None:
            row["result"] = "n/a"
        else:
            row["result"] = "met" if measured <= limit else "missed"
            row["missed_by"] = max(0.0, measured - limit)
    ROWS.append(row)
    RESULTS["summary"].append(row)
    return row


def detail(sc, metric, keys=None, scale=None, unit=None, label_suffix=""):
    scale = sc.scale if scale is None else scale
    for k in keys or sc.keys:
        d = sc.data.get(k)
        if d is None:
            continue
        s = stats(sc.series(k, metric))
        errs = sum(1 for x in d["status"] + d["warm_status"] if x not in (None, 0))
        DETAIL.append((sc.title + label_suffix, sc.labels[k], unit or sc.unit,
                       s, scale, errs))


# ------------------------------------------------------------ scenarios

class Ctx:
    pass


def scenario_startup(c):
    say("== start-up: /bin/true bare, under sbxrun (full, landlock-only, "
        "no shim), under bwrap, and the floors: unshare -Urmpi (full mode's), "
        "llfloor (landlock-only's)")
    v = [("bare", ["/bin/true"]),
         ("full", [c.sbx, "--mode", "full", "--", "/bin/true"])]
    labels = {"bare": "/bin/true", "full": "sbxrun (default profile, full mode)",
              "ll": "sbxrun --mode landlock-only",
              "noshim": "sbxrun full mode, shim not installed",
              "bwrap": "bwrap (equivalent policy)",
              "unshare": "floor: " + " ".join(UNSHARE_FLOOR),
              "llfloor": "floor: llfloor (Landlock + seccomp, exec)"}
    if c.ll_ok:
        v.append(("ll", [c.sbx, "--mode", "landlock-only", "--", "/bin/true"]))
    v.append(("noshim", [c.sbx_noshim, "--mode", "full", "--", "/bin/true"]))
    if c.bwrap:
        v.append(("bwrap", c.bwrap + ["/bin/true"]))
    if c.unshare_ok:
        v.append(("unshare", UNSHARE_FLOOR + ["/bin/true"]))
    if c.llfloor_ok:
        v.append(("llfloor", [c.llfloor, "/bin/true"]))
    rounds, warm = q(200, 20), q(20, 3)
    data = run_tm(v, c.proj, c.env, rounds, warm)
    sc = Scenario("startup", "start-up", "ms", 1e-6, v, data, labels, rounds, warm)
    add_row(sc, "start-up, default profile (full mode)", "wall", "bare", "full",
            "bwrap")
    if c.ll_ok:
        add_row(sc, "start-up, landlock-only mode", "wall", "bare", "ll", "bwrap")
    if c.unshare_ok:
        add_row(sc, "floor: unshare -Urmpi --fork --mount-proc", "wall", "bare",
                "unshare", "bwrap", note="full mode's floor")
    if c.llfloor_ok:
        add_row(sc, "floor: llfloor (Landlock + seccomp only)", "wall", "bare",
                "llfloor", "bwrap", note="landlock-only mode's floor")
    add_row(sc, "start-up, full mode, without the shim", "wall", "bare",
            "noshim", "bwrap", note="diagnostic: launcher cost alone")
    detail(sc, "wall")
    c.startup = sc
    if want("rss"):
        add_row(sc, "peak RSS (wait4 ru_maxrss), launcher vs /bin/true", "rss",
                "bare", "full", "bwrap", target=("ratio", 1.1), over="ratio",
                scale=1 / 1024.0, unit="MB")
        if c.ll_ok:
            add_row(sc, "peak RSS, landlock-only mode", "rss", "bare", "ll",
                    "bwrap", scale=1 / 1024.0, unit="MB", over="ratio")
        detail(sc, "rss", scale=1 / 1024.0, unit="MB", label_suffix=" (peak RSS)")


def scenario_crosscheck(c):
    """Start-up again, timed by another tool: perf stat -r (the mean of
    each batch), batches alternating, the median of the batch means.  An
    independent measurement beside tm's, to show the two agree."""
    if not shutil.which("perf"):
        say("== cross-check: skipped (perf is not installed)")
        return
    say("== cross-check: start-up timed by perf stat -r, batches alternating")
    cmds = [("bare", ["/bin/true"]),
            ("sbx", [c.sbx, "--mode", "full", "--", "/bin/true"])]
    if c.bwrap:
        cmds.append(("bwrap", c.bwrap + ["/bin/true"]))
    got = {k: [] for k, _ in cmds}
    for rnd in range(q(10, 2)):
        for k, argv in (cmds if rnd % 2 == 0 else cmds[::-1]):
            r = subprocess.run(["perf", "stat", "-r", "30", "--null", "--"] + argv,
                               cwd=c.proj, env=c.env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            m = re.search(r"([\d.]+) \+- [\d.]+ seconds time elapsed",
                          r.stderr.decode(errors="replace"))
            if r.returncode == 0 and m:
                got[k].append(float(m.group(1)) * 1e3)
    med = {k: statistics.median(v) for k, v in got.items() if v}
    if "bare" not in med or "sbx" not in med:
        say("   perf stat gave no figures")
        return
    RESULTS["crosscheck"] = {"tool": "perf stat -r 30 --null", "median_of_means_ms": med}
    line = "   perf stat: /bin/true %.2f ms, sbxrun %.2f ms (+%.2f ms)" % (
        med["bare"], med["sbx"], med["sbx"] - med["bare"])
    if "bwrap" in med:
        line += ", bwrap %.2f ms (+%.2f ms)" % (med["bwrap"], med["bwrap"] - med["bare"])
    say(line)


def scenario_shim(c):
    n_open, n_other = q(1000000, 100000), q(100000, 20000)
    say("== shim per call: %d openat+close, %d stat / refused open / missing "
        "open, with and without the shim" % (n_open, n_other))
    prog = [os.path.join(BENCHBIN, "shimloop"), str(n_open), str(n_other),
            "allowed.txt", os.path.join(c.home, ".ssh", "id_rsa"),
            "does-not-exist.h"]
    v = [("host", prog),
         ("sbx", [c.sbx, "--quiet", "--"] + prog),
         ("sbx_noshim", [c.sbx, "--quiet", "--",
                         os.path.join(BENCHBIN, "noshim")] + prog)]
    labels = {"host": "no sandbox", "sbx": "sbxrun (kernel layers + shim)",
              "sbx_noshim": "sbxrun, shim removed (kernel layers only)",
              "bwrap": "bwrap (equivalent policy)"}
    if c.bwrap:
        v.append(("bwrap", c.bwrap + prog))
    rounds = q(3, 1)
    data = run_tm(v, c.proj, c.env, rounds, 0, capture=True)
    # derived: the shim's own cost, measured inside one process
    for k, d in data.items():
        f = d["fields"]
        for op in ("openat", "stat", "refused", "missing"):
            a, b = f.get(op), f.get(op + "_direct")
            if a and b:
                f[op + "_shim"] = [x - y if x is not None and y is not None else None
                                   for x, y in zip(a, b)]
    sc = Scenario("shim_call", "shim per call", "ns", 1.0, v, data, labels,
                  rounds, 0, {"iterations": {"openat": n_open, "other": n_other},
                              "method": "in-process A/B: libc entry point (through "
                                        "the shim) vs libc.so.6's own symbol, "
                                        "alternating chunks of 500, median"})
    add_row(sc, "shim pass-through: openat+close of an allowed file", "openat",
            "host", "sbx", "bwrap", over="field",
            over_metric="openat_shim",
            note="bare = no sandbox; overhead = shim, in-process A/B")
    add_row(sc, "stat (not interposed: control)", "stat", "host", "sbx", "bwrap",
            over="field", over_metric="stat_shim")
    add_row(sc, "refused open (hidden ~/.ssh/id_rsa)", "refused", "host", "sbx",
            "bwrap", over="field", over_metric="refused_shim",
            note="bare: not refused outside a sandbox")
    add_row(sc, "open of a missing relative path (ENOENT)", "missing", "host",
            "sbx", "bwrap", over="field", over_metric="missing_shim")
    add_row(sc, "kernel layers alone: openat+close (sbxrun w/o shim)", "openat",
            "host", "sbx_noshim", "bwrap", over="diff",
            note="Landlock + seccomp + mount namespace, no shim")
    c.shim_call = sc
    for m in ("openat", "stat", "refused", "missing"):
        detail(sc, m, label_suffix=": " + m)
    detail(sc, "openat_shim", keys=["sbx", "sbx_noshim"], label_suffix=": openat, shim A/B delta")
    detail(sc, "refused_shim", keys=["sbx", "sbx_noshim"], label_suffix=": refused, shim A/B delta")
    detail(sc, "missing_shim", keys=["sbx", "sbx_noshim"], label_suffix=": missing, shim A/B delta")


def scenario_seccomp(c):
    """An allowed call under the notify filter (the supervisor's listener,
    issue 13) against the plain filter and no filter: it must not pay."""
    n = q(2000000, 200000)
    say("== seccomp: %d getppid calls with no filter, the plain filter and "
        "the notify filter (fastest chunk of 1000)" % n)
    v = [("host", [os.path.join(BENCHBIN, "sysloop"), str(n)])]
    labels = {"host": "sysloop (filters loaded in children)"}
    rounds = q(5, 1)
    data = run_tm(v, c.proj, c.env, rounds, 0, capture=True)
    sc = Scenario("seccomp", "allowed syscall under the filters", "ns", 1.0,
                  v, data, labels, rounds, 0,
                  {"iterations": n, "method": "per-call time of the fastest "
                   "chunk of 1000 getppid calls, one child per filter"})
    add_row(sc, "allowed getppid: notify filter (sbxrun) vs plain", "plain",
            "host", "host", sbx_metric="notif", over="field",
            over_metric="notif_delta", target=("field", 5.0),
            note="bare = the plain filter; the listener is never asked "
                 "about an allowed call")
    for m in ("bare", "plain", "notif", "notif_delta"):
        detail(sc, m, label_suffix=": " + m)


def scenario_exec(c):
    n = q(2000, 200)
    say("== shim per exec: %d fork+execve of /bin/true, with and without "
        "the shim" % n)
    prog = [os.path.join(BENCHBIN, "execloop"), str(n), "/bin/true"]
    v = [("host", prog), ("sbx", [c.sbx, "--quiet", "--"] + prog)]
    labels = {"host": "no sandbox", "sbx": "sbxrun (with shim)",
              "bwrap": "bwrap (equivalent policy)"}
    if c.bwrap:
        v.append(("bwrap", c.bwrap + prog))
    rounds = q(3, 1)
    data = run_tm(v, c.proj, c.env, rounds, 0, capture=True)
    for k, d in data.items():
        f = d["fields"]
        if "exec_noshim" in f:
            f["shim_total"] = [x - y if x is not None and y is not None else None
                               for x, y in zip(f["exec"], f["exec_noshim"])]
            f["shim_load"] = [x - y if x is not None and y is not None else None
                              for x, y in zip(f["exec_load"], f["exec_noshim"])]
            f["shim_wrapper"] = [x - y if x is not None and y is not None else None
                                 for x, y in zip(f["exec"], f["exec_load"])]
    sc = Scenario("shim_exec", "shim per exec", "µs", 1.0, v, data, labels,
                  rounds, 0, {"execs": n, "method": "in-process A/B/C: execve "
                              "through the shim / libc's execve with LD_PRELOAD / "
                              "libc's execve without it, alternating chunks of 50"})
    add_row(sc, "fork+exec /bin/true: shim load + exec wrapper", "exec", "host",
            "sbx", "bwrap", over="field",
            over_metric="shim_total",
            note="bare = no sandbox; overhead = shim, in-process A/B")
    add_row(sc, "  of which loading the shim in the child", "exec", "host", "sbx",
            None, over="field", over_metric="shim_load", sbx_metric="exec_load")
    add_row(sc, "fork+exec /bin/true in the sandbox without the shim",
            "exec", "host", "sbx", "bwrap", over="diff", sbx_metric="exec_noshim",
            note="kernel layers alone")
    c.shim_exec = sc
    detail(sc, "exec")
    for m in ("exec_load", "exec_noshim", "shim_total", "shim_load", "shim_wrapper"):
        detail(sc, m, keys=["sbx"], label_suffix=": " + m)


def scenario_make(c):
    if not c.srctar:
        say("== make -j2: skipped (no source archive)")
        return
    say("== make -j2 of sbxrun's own sources, a clean copy each time")
    src = os.path.join(c.t, "make", "src")
    os.makedirs(src)
    prep = "find %s -mindepth 1 -delete && tar -xf %s -C %s" % (src, c.srctar, src)
    mk = ["make", "-j2"]
    v = [("bare", mk), ("sbx", [c.sbx, "--"] + mk),
         ("sbx_build", [c.sbx, "--profile", "build", "--"] + mk)]
    labels = {"bare": "make -j2", "sbx": "sbxrun -- make -j2",
              "sbx_build": "sbxrun --profile build -- make -j2",
              "bare_tmpfs": "TMPDIR=/dev/shm make -j2 (tmpfs, like the "
                            "sandboxes' private /tmp)",
              "bwrap": "bwrap ... make -j2"}
    # The sandboxes give the build a private tmpfs /tmp, where gcc writes
    # its temporary files; a bare run with a tmpfs TMPDIR tells how much
    # of any difference is that, not the sandbox.
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        v.insert(1, ("bare_tmpfs", ["env", "TMPDIR=" + shm] + mk))
    if c.bwrap:
        v.append(("bwrap", bwrap_argv(src, c.home) + mk))
    rounds, warm = q(5, 1), q(1, 0)
    data = run_tm(v, src, c.env, rounds, warm, prep=prep)
    sc = Scenario("make", "make -j2", "s", 1e-9, v, data, labels, rounds, warm)
    add_row(sc, "make -j2 of sbxrun (default profile)", "wall", "bare", "sbx",
            "bwrap", target=("ratio", 1.02), over="ratio")
    add_row(sc, "make -j2 of sbxrun (--profile build)", "wall", "bare",
            "sbx_build", "bwrap", target=("ratio", 1.02), over="ratio")
    if "bare_tmpfs" in data:
        add_row(sc, "make -j2 (default) vs bare with TMPDIR on tmpfs", "wall",
                "bare_tmpfs", "sbx", "bwrap", over="ratio",
                note="diagnostic: the sandboxes' /tmp is tmpfs")
    detail(sc, "wall")


def scenario_script(c):
    n = q(500, 50)
    say("== exec-heavy shell script: %d iterations, %d program starts" % (n, 5 * n))
    prog = ["/bin/sh", os.path.join(TOP, "tests", "bench", "execheavy.sh"), str(n)]
    v = [("bare", prog), ("sbx", [c.sbx, "--"] + prog)]
    labels = {"bare": "sh execheavy.sh", "sbx": "sbxrun -- sh execheavy.sh",
              "bwrap": "bwrap ... sh execheavy.sh"}
    if c.bwrap:
        v.append(("bwrap", c.bwrap + prog))
    rounds, warm = q(5, 1), 1
    data = run_tm(v, c.proj, c.env, rounds, warm)
    sc = Scenario("script", "exec-heavy script", "s", 1e-9, v, data, labels,
                  rounds, warm, {"iterations": n, "programs": 5 * n})
    add_row(sc, "exec-heavy script (%d programs)" % (5 * n), "wall", "bare",
            "sbx", "bwrap", over="ratio")
    c.script = sc
    detail(sc, "wall")


def scenario_git(c):
    if not c.repo:
        say("== git: skipped (no git repository to clone)")
        return
    say("== git status, git log -p on a clone of sbxrun's repository")
    for name, args, target in (
            ("git_status", ["git", "status"], None),
            ("git_log", ["git", "--no-pager", "log", "-p"], None)):
        v = [("bare", args), ("sbx", [c.sbx, "--"] + args)]
        labels = {"bare": " ".join(args), "sbx": "sbxrun -- " + " ".join(args),
                  "bwrap": "bwrap ... " + " ".join(args)}
        if c.bwrap:
            v.append(("bwrap", bwrap_argv(c.repo, c.home) + args))
        rounds, warm = q(30, 5), q(3, 1)
        data = run_tm(v, c.repo, c.env, rounds, warm)
        sc = Scenario(name, " ".join(a for a in args if a != "--no-pager"), "ms",
                      1e-6, v, data, labels, rounds, warm)
        add_row(sc, sc.title, "wall", "bare", "sbx", "bwrap", target=target,
                over="diff")
        detail(sc, "wall")
        setattr(c, name, sc)


def scenario_python(c):
    say("== python3 -c 'import json, email, http.client, asyncio'")
    prog = [c.python, "-c", "import json, email, http.client, asyncio"]
    v = [("bare", prog), ("sbx", [c.sbx, "--"] + prog)]
    labels = {"bare": "python3 imports", "sbx": "sbxrun -- python3 imports",
              "bwrap": "bwrap ... python3 imports"}
    if c.bwrap:
        v.append(("bwrap", c.bwrap + prog))
    rounds, warm = q(20, 5), q(3, 1)
    data = run_tm(v, c.proj, c.env, rounds, warm)
    sc = Scenario("python", "python3 imports", "ms", 1e-6, v, data, labels,
                  rounds, warm, {"python": c.python})
    add_row(sc, "python3 -c 'import json, email, http.client, asyncio'", "wall",
            "bare", "sbx", "bwrap", target=("ratio", 1.02), over="ratio")
    detail(sc, "wall")


def scenario_rules(c):
    counts = (10, 100, 1000)
    say("== start-up as the policy grows: %s read-only rules (on top of the "
        "default profile's own)" % ", ".join(map(str, counts)))
    rdir = os.path.join(c.proj, "rules")
    os.makedirs(rdir, exist_ok=True)
    for i in range(max(counts)):
        os.makedirs(os.path.join(rdir, "d%04d" % i), exist_ok=True)
    v = [("bare", ["/bin/true"])]
    labels = {"bare": "/bin/true"}
    for n in counts:
        conf = os.path.join(c.t, "rules-%d.conf" % n)
        with open(conf, "w") as f:
            f.write("# %d read-only islands inside the writable project\n" % n)
            f.write('profile = "default";\npaths = (\n')
            f.write(",\n".join('  { root = "%s/d%04d"; mode = "ro"; }' % (rdir, i)
                               for i in range(n)))
            f.write("\n);\n")
        v.append(("full%d" % n, [c.sbx, "--mode", "full", "--profile", conf, "--",
                                 "/bin/true"]))
        labels["full%d" % n] = "sbxrun full, +%d rules" % n
        if c.bwrap:
            binds = []
            for i in range(n):
                d = "%s/d%04d" % (rdir, i)
                binds += ["--ro-bind", d, d]
            v.append(("bwrap%d" % n, bwrap_argv(c.proj, c.home, binds) + ["/bin/true"]))
            labels["bwrap%d" % n] = "bwrap, +%d --ro-bind" % n
        if c.ll_ok:
            v.append(("ll%d" % n, [c.sbx, "--mode", "landlock-only", "--profile",
                                   conf, "--", "/bin/true"]))
            labels["ll%d" % n] = "sbxrun landlock-only, +%d rules" % n
    rounds, warm = q(20, 3), q(2, 1)
    data = run_tm(v, c.proj, c.env, rounds, warm)
    sc = Scenario("rules", "start-up vs rules", "ms", 1e-6, v, data, labels,
                  rounds, warm, {"rules": list(counts),
                                 "rule": "ro directory inside the writable project"})
    for n in counts:
        add_row(sc, "start-up, full, +%d rules" % n, "wall", "bare", "full%d" % n,
                "bwrap%d" % n if c.bwrap else None)
    add_row(sc, "start-up, full: 1,000 rules vs 10 rules", "wall", "bare",
            "full1000", "bwrap1000" if c.bwrap else None,
            over="ratio", ref="full10")
    if c.ll_ok:
        add_row(sc, "start-up, landlock-only: 1,000 rules vs 10 rules", "wall",
                "bare", "ll1000", over="ratio", ref="ll10")
    c.rules = sc
    detail(sc, "wall")


def scenario_layers(c):
    """The start-up of each layer issue 11 added, as a difference between
    two runs that differ by that layer alone."""
    say("== layers: hidden paths (mounts + Landlock carving), network "
        "namespace for --net off, a git repository (protected paths, pid 1's "
        "watch, git's indirections), the search for new repositories at exit")
    plain = os.path.join(c.t, "lay-plain")
    gitp = os.path.join(c.t, "lay-git")
    dirs = os.path.join(c.t, "lay-dirs")
    os.makedirs(plain, exist_ok=True)
    os.makedirs(dirs, exist_ok=True)
    for i in range(50):
        for j in range(100):
            d = os.path.join(dirs, "d%02d" % i, "e%03d" % j)
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, "f"), "w").close()
    git = lambda *a: subprocess.run(["git"] + list(a), env=c.env,
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
    git("init", "-q", gitp)
    git("-C", gitp, "-c", "user.name=b", "-c", "user.email=b@b", "commit",
        "-q", "--allow-empty", "-m", "b")
    for w in ("wt1", "wt2"):
        git("-C", gitp, "worktree", "add", "-q", os.path.join(c.t, "lay-" + w))
    for m in ("m1", "m2"):
        git("init", "-q", "--bare", os.path.join(gitp, ".git", "modules", m))
    with open(os.path.join(gitp, ".git", "config"), "a") as f:
        f.write("[include]\n\tpath = extra.cfg\n")
    open(os.path.join(gitp, ".git", "extra.cfg"), "w").close()
    nohide = os.path.join(c.t, "nohide.conf")
    with open(os.path.join(TOP, "profiles", "default.conf")) as f:
        text = f.read()
    text = "\n".join(l for l in text.splitlines() if 'mode = "hide"' not in l)
    with open(nohide, "w") as f:
        f.write(re.sub(r",(\s*(#[^\n]*\n\s*)*)\)", r"\1)", text) + "\n")
    run = lambda *a: [c.sbx] + list(a) + ["--", "/bin/true"]
    v = [("bare", ["/bin/true"]),
         ("hide", run("--mode", "full", "--workdir", plain)),
         ("nohide", run("--mode", "full", "--workdir", plain, "--profile", nohide)),
         ("neton", run("--mode", "full", "--workdir", plain, "--net", "on")),
         ("git", run("--mode", "full", "--workdir", gitp)),
         ("dirs", run("--mode", "full", "--workdir", dirs))]
    labels = {"bare": "/bin/true", "hide": "sbxrun full, default profile",
              "nohide": "sbxrun full, default profile without its hides",
              "neton": "sbxrun full, --net on (no network namespace)",
              "git": "sbxrun full, in a repository (2 worktrees, 2 submodules)",
              "dirs": "sbxrun full, in a project of 5,000 directories",
              "llhide": "sbxrun landlock-only, default profile",
              "llnohide": "sbxrun landlock-only, without the hides",
              "llgit": "sbxrun landlock-only, in the repository"}
    if c.ll_ok:
        v += [("llhide", run("--mode", "landlock-only", "--workdir", plain)),
              ("llnohide", run("--mode", "landlock-only", "--workdir", plain,
                               "--profile", nohide)),
              ("llgit", run("--mode", "landlock-only", "--workdir", gitp))]
    rounds, warm = q(100, 10), q(10, 2)
    data = run_tm(v, plain, c.env, rounds, warm)
    sc = Scenario("layers", "start-up by layer", "ms", 1e-6, v, data, labels,
                  rounds, warm)
    add_row(sc, "hidden paths: mounts + Landlock carving (full)", "wall",
            "bare", "hide", ref="nohide")
    if c.ll_ok:
        add_row(sc, "hidden paths: Landlock carving (landlock-only)", "wall",
                "bare", "llhide", ref="llnohide")
    add_row(sc, "network namespace for --net off (vs --net on)", "wall",
            "bare", "hide", ref="neton")
    add_row(sc, "a git repository: protect, watch, indirections", "wall",
            "bare", "git", ref="hide")
    add_row(sc, "exit: new repositories in 5,000 directories", "wall",
            "bare", "dirs", ref="hide")
    if c.ll_ok:
        add_row(sc, "a git repository, landlock-only: protected paths kept "
                "and put back (guard.c)", "wall", "bare", "llgit",
                ref="llhide")
    detail(sc, "wall")


def scenario_proxy(c):
    """The filtering proxy (issue 14): the engine alone (tests/proxyd) and
    real `sbxrun --net allow:` runs, in a user+net+mount namespace of the
    bench's own where every packet stays on its loopback."""
    proxyd = os.path.join(BUILD, "tests", "proxyd")
    if not os.access(proxyd, os.X_OK) or not shutil.which("curl") or \
            not shutil.which("unshare"):
        say("== filtering proxy: skipped (needs build/tests/proxyd, curl, unshare)")
        return
    say("== filtering proxy: download and connection set-up, direct and "
        "through the proxy")
    script = os.path.join(TOP, "scripts", "bench", "proxy.py")
    p = subprocess.run(["unshare", "--user", "--map-root-user", "--net",
                        "--mount", sys.executable, script, proxyd,
                        str(q(1024, 64)), "--sbxrun", c.sbx],
                       cwd=c.proj, env=c.env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    lines = p.stdout.decode(errors="replace").splitlines()
    for line in lines:
        if line.startswith("figures: "):
            c.proxy_figs = json.loads(line[len("figures: "):])
            continue
        say("   " + line)
    if p.returncode != 0:
        say("   proxy: failed: %s" % p.stderr.decode(errors="replace").strip()[-500:])
    RESULTS["proxy"] = [x for x in lines if not x.startswith("figures: ")]
    RESULTS["proxy_figures"] = getattr(c, "proxy_figs", None)


def proxy_targets(c):
    """Issue 14's performance targets, from scripts/bench/proxy.py's
    figures: the engine alone (tests/proxyd) for download and set-up, the
    real supervisor (sbxrun, each mode that ran) for resident memory."""
    f = getattr(c, "proxy_figs", None)
    if f is None:
        return
    tab = PROXY_TARGETS
    dl = (f.get("dl_ratio") or {}).get("CONNECT")
    sbx_dl = f.get("sbx_dl_ratio") or {}
    target("download through a CONNECT tunnel: time vs direct", dl, 1.10,
           "%.2fx" % dl if dl else "-", "plain http %s; in sbxrun %s" % (
               xs((f.get("dl_ratio") or {}).get("http"), 1.0),
               ", ".join("%s %s" % (m, xs(v, 1.0))
                         for m, v in sorted(sbx_dl.items())) or "-"),
           "x", into=tab)
    su = f.get("setup_us")
    sbx_su = f.get("sbx_setup_us") or {}
    target("connection set-up through the proxy: delta", su, 1000.0,
           fmt_delta(su, "µs"), "in sbxrun " + (", ".join(
               "%s %s" % (m, fmt_delta(v, "µs"))
               for m, v in sorted(sbx_su.items())) or "-"), "µs", into=tab)
    many = f.get("many") or {}
    fresh = many.get("fresh_us")
    n, ok = many.get("n", 1000), many.get("ok")
    target("1,000 concurrent tunnels on one loop (+ one fresh)",
           None if ok is None else (n - ok) + (fresh is None), 0,
           "%s of %d, fresh %s" % (ok, n, fmt(fresh, "µs") if fresh
                                   is not None else "failed"),
           "-", "", into=tab, lim_text="all, fresh served")
    rss = f.get("sbx_rss_kb") or {}
    worst = max(rss.values()) if rss else None
    target("supervisor resident when idle (sbxrun, proxy on)", worst,
           2048.0, "%d KiB" % worst if worst else "-",
           ", ".join("%s %d KiB" % kv for kv in sorted(rss.items())) +
           "; engine %s KiB" % f.get("idle_rss_kb", "-"), "KiB", into=tab,
           lim_text="<= 2048 KiB")


def scenario_phases(c):
    if not shutil.which("perf") or os.geteuid() != 0:
        say("== start-up phases: skipped (needs perf and root)")
        return
    say("== start-up phases (perf record of trace points, median of runs)")
    script = os.path.join(TOP, "scripts", "bench", "phases.py")
    out = {}
    for mode in ("full", "landlock-only"):
        if mode == "landlock-only" and not c.ll_ok:
            continue
        p = subprocess.run([sys.executable, script, "--json", "--runs",
                            str(q(30, 5)), "--", c.sbx, "--mode", mode, "--",
                            "/bin/true"], cwd=c.proj, env=c.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            say("   phases (%s): %s" % (mode, p.stderr.decode(errors="replace").strip()))
            continue
        out[mode] = json.loads(p.stdout)
    if out:
        RESULTS["phases"] = out


# ------------------------------------------------------------ issue 17's targets

UNSHARE_FLOOR = ["unshare", "-Urmpi", "--fork", "--mount-proc"]
TARGETS = []       # issue 17: [label, measured, limit, ratio, result]
PROXY_TARGETS = []  # issue 14 (the filtering proxy), the same columns


def target(label, measured, limit, text, ratio, unit="", into=None,
           lim_text=None):
    """One target: met when measured <= limit.  text: the measured value
    as shown; ratio: the ratio that target is about, as shown; into: the
    table (issue 17's by default); lim_text: the limit as shown."""
    if measured is None:
        res = "n/a"
    else:
        res = "MET" if measured <= limit else "MISSED"
    lim = lim_text or (("<= %.2fx" % limit) if unit == "x" else
                       ("<= %s%s" % ("+" if limit >= 0 else "",
                                     fmt(limit, unit))))
    (TARGETS if into is None else into).append(
        [label, text if measured is not None else "-", lim,
         ratio if measured is not None else "-", res])
    RESULTS.setdefault("targets", []).append(
        {"label": label, "measured": measured, "limit": limit, "unit": unit,
         "ratio": ratio, "result": res})


def pdiff(sc, a, b, metric="wall"):
    """Median of a - b per round, in the scenario's unit."""
    if sc is None or not (sc.ok(a) and sc.ok(b)):
        return None
    d = paired(sc.series(a, metric), sc.series(b, metric), "diff")
    return d * sc.scale if d is not None else None


def pratio(sc, a, b, metric="wall"):
    if sc is None or not (sc.ok(a) and sc.ok(b)):
        return None
    return paired(sc.series(a, metric), sc.series(b, metric), "ratio")


def xs(a, b):
    return "%.2fx" % (a / b) if a is not None and b else "-"


def issue_targets(c):
    su = getattr(c, "startup", None)
    full = pdiff(su, "full", "bare")
    ll = pdiff(su, "ll", "bare")
    unsh = pdiff(su, "unshare", "bare")
    llf = pdiff(su, "llfloor", "bare")
    if su is not None:
        r = full / unsh if full is not None and unsh else None
        target("start-up, full: overhead vs unshare floor's", r, 1.3,
               "%s vs %s" % (fmt_delta(full, "ms"), fmt_delta(unsh, "ms")),
               xs(full, unsh) + " floor", "x")
        r = ll / full if ll is not None and full else None
        target("start-up, landlock-only: overhead vs full mode's", r, 1.0,
               "%s vs %s" % (fmt_delta(ll, "ms"), fmt_delta(full, "ms")),
               xs(ll, llf) + " llfloor", "x")
        target("start-up, landlock-only: overhead over bare", ll, 1.0,
               fmt_delta(ll, "ms"), "%s bare, %s llfloor" % (
                   "%.2fx" % pratio(su, "ll", "bare") if ll is not None else "-",
                   xs(ll, llf)), "ms")
    ex = getattr(c, "shim_exec", None)
    if ex is not None:
        m = ex.value("sbx", "shim_total") if ex.ok("sbx") else None
        target("shim per exec (load + exec wrapper)", m, 40.0,
               fmt_delta(m, "µs"), xs(m, 40.0) + " limit", "µs")
    sp = getattr(c, "script", None)
    if sp is not None:
        m = pratio(sp, "sbx", "bare")
        target("exec-heavy script vs bare", m, 1.04,
               "%.3fx" % m if m else "-", "bwrap %s" % (
                   "%.3fx" % pratio(sp, "bwrap", "bare")
                   if pratio(sp, "bwrap", "bare") else "-"), "x")
    sh = getattr(c, "shim_call", None)
    if sh is not None:
        m = sh.value("sbx", "openat_shim") if sh.ok("sbx") else None
        target("shim pass-through per call (openat+close)", m, 15.0,
               fmt_delta(m, "ns"), xs(m, 15.0) + " limit", "ns")
    g = getattr(c, "git_status", None)
    if g is not None:
        m = pdiff(g, "sbx", "bwrap")
        ds, db = pdiff(g, "sbx", "bare"), pdiff(g, "bwrap", "bare")
        target("git status: overhead minus bwrap's", m, -1.0,
               "%s vs bwrap %s" % (fmt_delta(ds, "ms"), fmt_delta(db, "ms")),
               xs(ds, db) + " bwrap's", "ms")
    ru = getattr(c, "rules", None)
    if ru is not None:
        for mode, k in (("full", "full"), ("landlock-only", "ll")):
            if k + "10" not in ru.data:
                continue
            m = pratio(ru, k + "1000", k + "10")
            target("start-up, %s: 1,000 rules vs 10" % mode, m, 2.0,
                   "%.2fx" % m if m else "-", "%.2fx" % m if m else "-", "x")


def print_targets():
    if PROXY_TARGETS:
        say("")
        say("issue 14's targets (the filtering proxy; medians of interleaved "
            "rounds, engine alone unless it says sbxrun):")
        say(table(PROXY_TARGETS, ["target", "measured", "limit", "ratio",
                                  "result"]))
    if not TARGETS:
        return
    say("")
    say("issue 17's targets (overheads: paired medians over sbxrun's rounds; "
        "floors measured in the same run):")
    say(table(TARGETS, ["target", "measured", "limit", "ratio", "result"]))


# ------------------------------------------------------------ printing

def result_text(row):
    t = row.get("target")
    if not t:
        return "", ""
    lim, kind = t["limit"], t["kind"]
    unit = row["unit"]
    if kind == "ratio":
        tgt = "<= %.2fx" % lim
    else:
        tgt = "<= +%s" % fmt(lim, unit).replace(" ", " ")
    r = row.get("result", "n/a")
    if r == "met":
        return tgt, "MET"
    if r == "missed":
        by = row["missed_by"]
        return tgt, "MISSED by %s" % (("%.2fx" % by) if kind == "ratio" else fmt(by, unit))
    return tgt, r


def measured_text(row):
    m = row.get("measured")
    if m is None:
        return "-"
    if row["over"] == "ratio":
        return "%.2fx" % m
    return fmt_delta(m, row["unit"])


def table(rows, headers):
    w = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
    line = lambda r: "  ".join(str(x).ljust(w[i]) for i, x in enumerate(r)).rstrip()
    out = [line(headers), line(["-" * x for x in w])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def print_summary():
    rows = []
    for r in ROWS:
        u = r["unit"]
        sb = fmt(r.get("sbxrun"), u)
        if r.get("sbxrun_x_bare") is not None:
            sb += " (%.2fx)" % r["sbxrun_x_bare"]
        bw = fmt(r.get("bwrap"), u)
        if r.get("bwrap_x_bare") is not None:
            bw += " (%.2fx)" % r["bwrap_x_bare"]
        vs = "%.2fx" % r["sbxrun_x_bwrap"] if r.get("sbxrun_x_bwrap") is not None else "-"
        tgt, res = result_text(r)
        if r.get("error"):
            res = (res + " " if res else "") + "(" + r["error"] + ")"
        rows.append([r["label"], fmt(r.get("bare"), u), sb, bw, vs,
                     measured_text(r), tgt, res])
    say("")
    say(table(rows, ["scenario", "bare", "sbxrun (x bare)", "bwrap (x bare)",
                     "sbx/bwrap", "overhead", "target", "result"]))
    say("")
    say("overhead: sbxrun minus bare (paired median) for time targets, "
        "sbxrun/bare for ratio targets;")
    say("  for the shim rows the shim's own cost, measured in one process "
        "(through the shim vs libc's own symbol).")
    say("x: median of per-round ratios (runs alternate A B C, C B A, ...); "
        "values are medians.")


def print_detail():
    rows = []
    for title, label, unit, s, scale, errs in DETAIL:
        if not s:
            rows.append([title, label, "-", "-", "-", "0", str(errs) if errs else ""])
            continue
        rows.append([title, label, fmt(s["median"], unit, scale),
                     fmt(s["min"], unit, scale), fmt(s["max"], unit, scale),
                     str(s["n"]), ("%d failed" % errs) if errs else ""])
    say("")
    say(table(rows, ["scenario", "variant", "median", "min", "max", "n", "errors"]))


def print_crosscheck():
    cc = RESULTS.get("crosscheck")
    row = next((r for r in ROWS if r["label"].startswith("start-up, default")), None)
    if not cc:
        return
    m = cc["median_of_means_ms"]
    say("")
    say("independent check of the start-up row (%s, median of batch means):" % cc["tool"])
    say("  sbxrun +%.2f ms over /bin/true%s; tm above: %s" % (
        m["sbx"] - m["bare"],
        ", bwrap +%.2f ms" % (m["bwrap"] - m["bare"]) if "bwrap" in m else "",
        measured_text(row) if row else "-"))


def print_phases():
    ph = RESULTS.get("phases")
    if not ph:
        return
    say("")
    say("start-up phases of sbxrun -- /bin/true (perf record of trace points, "
        "median over runs):")
    names = []
    for mode in ph.values():
        for p in mode["phases"]:
            if p["name"] not in names:
                names.append(p["name"])
    modes = list(ph.keys())
    rows = []
    for n in names:
        row = [n]
        for m in modes:
            d = {p["name"]: p for p in ph[m]["phases"]}.get(n)
            row.append("%.2f ms" % d["median_ms"] if d else "-")
        rows.append(row)
    rows.append(["total (traced)"] + ["%.2f ms" % ph[m]["total_median_ms"] for m in modes])
    for k, label in (("landlock_add_rule", "landlock_add_rule calls"),
                     ("mount", "mount calls")):
        rows.append([label] + ["%d" % ph[m]["counts"].get(k, 0) for m in modes])
    say(table(rows, ["phase"] + modes))


# ------------------------------------------------------------ main

def main():
    for tool in ("tm", "shimloop", "execloop", "noshim", "sysloop", "llfloor"):
        if not os.access(os.path.join(BENCHBIN, tool), os.X_OK):
            sys.exit("bench: %s/%s is missing (run through scripts/bench.sh)" %
                     (BENCHBIN, tool))
    for f in ("sbxrun", "libsbxshim.so"):
        if not os.path.exists(os.path.join(BUILD, f)):
            sys.exit("bench: %s/%s is missing (make all)" % (BUILD, f))
    c = Ctx()
    c.t, c.home, c.proj, c.sbx, c.sbx_noshim = setup_scratch()
    c.env = bench_env(c.home)
    say("bench: scratch directory %s, HOME=%s" % (c.t, c.home))
    c.python = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"],
                              stdout=subprocess.PIPE).stdout.decode().strip() or "python3"
    # modes and bubblewrap
    err = try_run([c.sbx, "--mode", "full", "--", "/bin/true"], c.proj, c.env)
    if err:
        say("bench: sbxrun --mode full does not run here (%s); full-mode "
            "figures will show as failed" % err)
    err = try_run([c.sbx, "--mode", "landlock-only", "--", "/bin/true"], c.proj, c.env)
    c.ll_ok = err is None
    if err:
        say("bench: landlock-only mode unavailable (%s); skipped" % err)
    # the floors
    c.unshare_ok = shutil.which("unshare") is not None and \
        try_run(UNSHARE_FLOOR + ["/bin/true"], c.proj, c.env) is None
    if not c.unshare_ok:
        say("bench: %s does not run here: no full-mode floor" % " ".join(UNSHARE_FLOOR))
    c.llfloor = os.path.join(BENCHBIN, "llfloor")
    err = try_run([c.llfloor, "/bin/true"], c.proj, c.env)
    c.llfloor_ok = err is None
    if err:
        say("bench: llfloor does not run here (%s): no landlock-only floor" % err)
    c.bwrap = None
    if os.environ.get("BENCH_NO_BWRAP") == "1" or not shutil.which("bwrap"):
        say("bench: bubblewrap is not installed: bwrap columns are empty")
        RESULTS["notes"].append("bubblewrap not installed")
    else:
        a = bwrap_argv(c.proj, c.home)
        err = try_run(a + ["/bin/true"], c.proj, c.env)
        if err:
            say("bench: bwrap does not run here (%s): bwrap columns are empty" % err)
            RESULTS["notes"].append("bwrap failed: " + err)
        else:
            c.bwrap = a
    # sources for make, a clone for git
    c.srctar = c.repo = None
    if want("make") or want("git"):
        if os.path.exists(os.path.join(TOP, ".git")) and shutil.which("git"):
            tar = os.path.join(c.t, "src.tar")
            if subprocess.run(["git", "-C", TOP, "archive", "-o", tar, "HEAD"],
                              env=c.env).returncode == 0:
                c.srctar = tar
            repo = os.path.join(c.t, "repo")
            if subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", TOP, repo],
                              env=c.env).returncode == 0:
                c.repo = repo
        else:
            tar = os.path.join(c.t, "src.tar")
            parts = [p for p in ("GNUmakefile", "core", "launcher", "shim", "include")
                     if os.path.exists(os.path.join(TOP, p))]
            if subprocess.run(["tar", "-cf", tar, "-C", TOP] + parts).returncode == 0:
                c.srctar = tar
    RESULTS["machine"] = {
        "kernel": platform.release(), "cpus": os.cpu_count(),
        "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                     if l.startswith("model name")), "?"),
        "uid": os.geteuid(), "python": c.python,
        "xdg_runtime_dir": os.environ.get("XDG_RUNTIME_DIR"),
        "bwrap": subprocess.run(["bwrap", "--version"], stdout=subprocess.PIPE)
        .stdout.decode().strip() if c.bwrap else None,
    }
    RESULTS["date"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    RESULTS["quick"] = QUICK
    try:
        rev = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        RESULTS["commit"] = rev.stdout.decode().strip() or None
        st = subprocess.run(["git", "-C", TOP, "status", "--porcelain",
                             "--untracked-files=no"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
        RESULTS["dirty"] = bool(st.stdout.strip())
    except OSError:
        RESULTS["commit"] = None

    groups = [("startup", scenario_startup), ("crosscheck", scenario_crosscheck),
              ("shim", scenario_shim), ("seccomp", scenario_seccomp),
              ("exec", scenario_exec), ("make", scenario_make),
              ("script", scenario_script), ("git", scenario_git),
              ("python", scenario_python), ("rules", scenario_rules),
              ("layers", scenario_layers), ("proxy", scenario_proxy),
              ("phases", scenario_phases)]
    for name, fn in groups:
        if want(name) or (name == "startup" and want("rss")):
            t = time.time()
            try:
                fn(c)
            except Exception as e:     # report, never fail on a scenario
                say("   %s: failed: %s" % (name, e))
                RESULTS["notes"].append("%s failed: %s" % (name, e))
            say("   (%.0f s)" % (time.time() - t))

    RESULTS["duration_s"] = round(time.time() - T0, 1)
    issue_targets(c)
    proxy_targets(c)
    print_summary()
    print_detail()
    print_crosscheck()
    print_phases()
    print_targets()
    out = os.environ.get("BENCH_OUT") or os.path.join(
        BUILD, "bench-partial.json" if (ONLY or QUICK) else "bench.json")
    with open(out, "w") as f:
        json.dump(RESULTS, f, indent=1, ensure_ascii=False)
    say("")
    say("bench: %.0f s; results in %s" % (time.time() - T0, out))
    with open(re.sub(r"\.json$", "", out) + ".txt", "w") as f:
        f.write("\n".join(LOG) + "\n")
    if os.environ.get("BENCH_KEEP") == "1":
        say("bench: scratch directory kept: %s" % c.t)
    else:
        shutil.rmtree(c.t, ignore_errors=True)


if __name__ == "__main__":
    main()
