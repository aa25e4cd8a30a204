#!/usr/bin/env python3
"""agent_tool.py - an AI agent's shell tool built on libsbx, with ctypes.

    execute(command, workdir, timeout) -> (stdout, stderr, exit, violations)

runs `command` with /bin/sh -c in the sbxrun sandbox, with `workdir` as the
writable project directory, and returns what it wrote, how it ended and
every refusal (what was refused and why, in the sentence the sandbox
printed).  The agent can show the violations to the model so it can adapt.

    python3 examples/agent_tool.py                       # a demo
    python3 examples/agent_tool.py 'ls; cat ~/.ssh/id_rsa' [WORKDIR]

libsbx.so is looked for in $SBX_LIB, then next to this tree's build/, then
by the dynamic loader ("libsbx.so.0" once installed).  The shim
(libsbxshim.so) is found by libsbx next to itself.  The structures below
mirror include/sbx.h field for field; keep them in sync.
"""
import ctypes
import ctypes.util
import os
import sys
import threading
from ctypes import (POINTER, Structure, byref, c_char, c_char_p, c_double,
                    c_int, c_size_t, c_uint, c_void_p)

HERE = os.path.dirname(os.path.abspath(__file__))

# ------------------------------------------------------------ sbx.h

SBX_OK = 0
SBX_MODE_AUTO, SBX_MODE_FULL, SBX_MODE_LANDLOCK_ONLY = 0, 1, 2
SBX_OPT_NO_SYSTEM_CONF = 0x1
SBX_OPT_NO_USER_CONF = 0x2
SBX_OPT_UNSAFE_PROJECT = 0x4
SBX_OPT_QUIET = 0x8
SBX_ACCESS_READ, SBX_ACCESS_WRITE, SBX_ACCESS_EXEC = 1, 2, 3


class SbxOpts(Structure):
    _fields_ = [
        ("profile", c_char_p),
        ("project_dir", c_char_p),
        ("home", c_char_p),
        ("config_home", c_char_p),
        ("system_conf", c_char_p),
        ("profile_dir", c_char_p),
        ("mode", c_int),                    # enum sbx_mode_req
        ("flags", c_uint),
        ("overrides", POINTER(c_char_p)),   # NULL-terminated
    ]


class SbxAnswer(Structure):
    _fields_ = [
        ("allowed", c_int),
        ("verdict", c_char * 32),
        ("path", c_char * 4096),
        ("rule", c_char * 4096),
        ("mode", c_char * 8),
        ("source", c_char * 512),
        ("reason", c_char * 1024),
    ]


class SbxRunReq(Structure):
    _fields_ = [
        ("argv", POINTER(c_char_p)),
        ("shell", c_char_p),
        ("workdir", c_char_p),
        ("timeout", c_double),
        ("stdin_data", c_void_p),           # bytes, may hold NULs
        ("stdin_len", c_size_t),
        ("capture", c_int),
        ("max_output", c_size_t),
        ("interactive", c_int),
        ("on_warning", c_void_p),           # NULL: warnings in the result
        ("warning_ctx", c_void_p),
    ]


class SbxRefusal(Structure):
    _fields_ = [
        ("op", c_char_p),
        ("target", c_char_p),
        ("kind", c_char_p),
        ("rule", c_char_p),
        ("source", c_char_p),
        ("process", c_char_p),
        ("message", c_char_p),
        ("pid", c_int),
        ("count", c_uint),
    ]


class SbxResult(Structure):
    _fields_ = [
        ("exit_code", c_int),
        ("status", c_int),
        ("signal", c_int),
        ("timed_out", c_int),
        ("exec_errno", c_int),
        ("duration", c_double),
        ("out", POINTER(c_char)),           # not c_char_p: output may hold NULs
        ("err", POINTER(c_char)),
        ("out_len", c_size_t),
        ("err_len", c_size_t),
        ("out_truncated", c_int),
        ("err_truncated", c_int),
        ("refusals", POINTER(SbxRefusal)),
        ("nrefusals", c_size_t),
        ("warnings", POINTER(c_char_p)),    # NULL-terminated, or NULL
        ("mode", c_char * 32),
        ("layers", c_char * 256),
        ("env_withheld", POINTER(c_char_p)),  # names only, NULL-terminated
    ]


def _load():
    cands = [os.environ.get("SBX_LIB"),
             os.path.join(HERE, "..", "build", "libsbx.so"),
             "libsbx.so.0", ctypes.util.find_library("sbx")]
    errors = []
    for c in cands:
        if not c:
            continue
        try:
            return ctypes.CDLL(c)
        except OSError as e:
            errors.append(str(e))
    sys.exit("agent_tool: cannot load libsbx (build it with make, or set "
             "SBX_LIB): " + "; ".join(errors))


lib = _load()
libc = ctypes.CDLL(None)
libc.free.argtypes = [c_void_p]
libc.free.restype = None
lib.sbx_inside.argtypes = []
lib.sbx_inside.restype = c_int
lib.sbx_open.argtypes = [POINTER(c_void_p), POINTER(SbxOpts), c_char_p, c_size_t]
lib.sbx_open.restype = c_int
lib.sbx_close.argtypes = [c_void_p]
lib.sbx_close.restype = None
lib.sbx_warning.argtypes = [c_void_p, c_size_t]
lib.sbx_warning.restype = c_char_p
lib.sbx_check.argtypes = [c_void_p, c_char_p, c_int, ctypes.c_int64, POINTER(SbxAnswer)]
lib.sbx_check.restype = c_int
lib.sbx_run.argtypes = [c_void_p, POINTER(SbxRunReq), POINTER(POINTER(SbxResult)),
                        c_char_p, c_size_t]
lib.sbx_run.restype = c_int
lib.sbx_result_free.argtypes = [POINTER(SbxResult)]
lib.sbx_result_free.restype = None
lib.sbx_read_file.argtypes = [c_void_p, c_char_p, c_size_t, POINTER(POINTER(c_char)),
                              POINTER(c_size_t), POINTER(SbxAnswer)]
lib.sbx_read_file.restype = c_int
lib.sbx_write_file.argtypes = [c_void_p, c_char_p, c_char_p, c_size_t, POINTER(SbxAnswer)]
lib.sbx_write_file.restype = c_int
lib.sbx_strerror.argtypes = [c_int]
lib.sbx_strerror.restype = c_char_p
lib.sbx_version.argtypes = []
lib.sbx_version.restype = c_char_p


def _profile_dir():
    """The shipped profiles.  An installed libsbx finds its own; running
    from the source tree, the profiles are in ../profiles of build/."""
    if os.environ.get("SBXRUN_PROFILE_DIR"):
        return None
    tree = os.path.join(HERE, "..", "profiles")
    return os.path.abspath(tree).encode() if os.path.isdir(tree) else None


# ------------------------------------------------------------ the tool

class SbxError(Exception):
    pass


class Sandbox:
    """The policy of one project, loaded once; run as many commands as you
    like.  libsbx's launcher expects one sbx_run at a time per process
    (it takes SIGCHLD through a signalfd), so runs are serialised."""

    _run_lock = threading.Lock()

    def __init__(self, project_dir, profile=None, overrides=(),
                 mode=SBX_MODE_AUTO):
        self._keep = [os.fsencode(os.path.abspath(project_dir))]
        opts = SbxOpts()
        opts.project_dir = self._keep[0]
        opts.profile = profile.encode() if profile else None
        opts.profile_dir = _profile_dir()
        opts.mode = mode
        if overrides:
            arr = (c_char_p * (len(overrides) + 1))(
                *[o.encode() for o in overrides], None)
            self._keep.append(arr)
            opts.overrides = arr
        self._opts = opts
        self._h = c_void_p()
        err = ctypes.create_string_buffer(1200)
        rc = lib.sbx_open(byref(self._h), byref(opts), err, len(err))
        if rc != SBX_OK:
            raise SbxError("%s: %s" % (lib.sbx_strerror(rc).decode(),
                                       err.value.decode(errors="replace")))

    def warnings(self):
        out, i = [], 0
        while True:
            w = lib.sbx_warning(self._h, i)
            if not w:
                return out
            out.append(w.decode(errors="replace"))
            i += 1

    def check(self, path, access=SBX_ACCESS_READ):
        """What the policy says about a path, before acting on it."""
        ans = SbxAnswer()
        rc = lib.sbx_check(self._h, os.fsencode(path), access, -1, byref(ans))
        if rc != SBX_OK:
            raise SbxError(lib.sbx_strerror(rc).decode())
        return bool(ans.allowed), ans.reason.decode(errors="replace")

    def read_file(self, path, max_bytes=1 << 20):
        """The file's bytes when the policy lets the sandbox read it, else
        SbxError with the reason.  Never follows a symlink swapped in by a
        sandboxed process after the check (THREATS API-01)."""
        data, n, ans = POINTER(c_char)(), c_size_t(), SbxAnswer()
        rc = lib.sbx_read_file(self._h, os.fsencode(path), max_bytes,
                               byref(data), byref(n), byref(ans))
        if rc != SBX_OK:
            raise SbxError(ans.reason.decode(errors="replace") or
                           lib.sbx_strerror(rc).decode())
        try:
            return ctypes.string_at(data, n.value)
        finally:
            libc.free(data)

    def write_file(self, path, data):
        """Write data when the policy lets the sandbox write there."""
        ans = SbxAnswer()
        rc = lib.sbx_write_file(self._h, os.fsencode(path), data, len(data),
                                byref(ans))
        if rc != SBX_OK:
            raise SbxError(ans.reason.decode(errors="replace") or
                           lib.sbx_strerror(rc).decode())

    def execute(self, command, timeout=0, stdin=None, max_output=0):
        """(stdout, stderr, exit, violations) of `command` (sh -c)."""
        req = SbxRunReq()
        req.shell = command.encode() if isinstance(command, str) else command
        req.timeout = float(timeout or 0)
        req.capture = 1
        req.max_output = max_output
        if stdin is not None:
            buf = ctypes.create_string_buffer(stdin, len(stdin))
            req.stdin_data = ctypes.cast(buf, c_void_p)
            req.stdin_len = len(stdin)
        res = POINTER(SbxResult)()
        err = ctypes.create_string_buffer(1200)
        with self._run_lock:
            rc = lib.sbx_run(self._h, byref(req), byref(res), err, len(err))
        if rc != SBX_OK:
            raise SbxError("%s: %s" % (lib.sbx_strerror(rc).decode(),
                                       err.value.decode(errors="replace")))
        try:
            r = res.contents
            out = ctypes.string_at(r.out, r.out_len) if r.out else b""
            errb = ctypes.string_at(r.err, r.err_len) if r.err else b""
            violations = []
            for i in range(r.nrefusals):
                x = r.refusals[i]
                violations.append({
                    k: (getattr(x, k).decode(errors="replace")
                        if getattr(x, k) is not None else None)
                    for k in ("op", "target", "kind", "rule", "source",
                              "process", "message")})
                violations[-1].update(pid=x.pid, count=x.count)
            # What the agent must hear although nothing was refused: a
            # protected path created during the run, less protection.
            i = 0
            while r.warnings and r.warnings[i]:
                violations.append({"op": "warning", "kind": "warning",
                                   "message": "sbxrun: warning: " +
                                   r.warnings[i].decode(errors="replace")})
                i += 1
            if r.timed_out:
                violations.append({"op": "timeout", "kind": "timeout",
                                   "message": "sbxrun: timed out after %gs; "
                                   "everything in the sandbox was killed" % timeout})
            return (out.decode(errors="replace"), errb.decode(errors="replace"),
                    r.exit_code, violations)
        finally:
            lib.sbx_result_free(res)

    def close(self):
        if self._h:
            lib.sbx_close(self._h)
            self._h = c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def execute(command, workdir, timeout=60):
    """The agent's shell tool: (stdout, stderr, exit, violations)."""
    with Sandbox(workdir) as sb:
        return sb.execute(command, timeout=timeout)


# ------------------------------------------------------------ demo

def main(argv):
    command = argv[1] if len(argv) > 1 else "ls; cat ~/.ssh/id_rsa"
    workdir = argv[2] if len(argv) > 2 else os.getcwd()
    print("libsbx %s, project %s" % (lib.sbx_version().decode(), workdir))
    try:
        out, err, code, violations = execute(command, workdir, timeout=30)
    except SbxError as e:
        print("agent_tool: %s" % e, file=sys.stderr)
        return 125
    print("stdout:\n" + out, end="" if out.endswith("\n") or not out else "\n")
    print("stderr:\n" + err, end="" if err.endswith("\n") or not err else "\n")
    print("exit status: %d" % code)
    for v in violations:
        print("refused: %s %s (%s)\n  %s" % (v["op"], v.get("target") or "",
                                            v["kind"], v["message"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
