# Shared helpers of the escape and functional suites (no tests here: bats
# runs this file as an empty suite).  Sourced by every tests/escape/*.bats
# and tests/func/*.bats after ../lib/common:
#
#   setup()    { esc_setup; }
#   teardown() { esc_teardown; }
#
# Every attack runs INSIDE the sandbox and is judged from OUTSIDE: canary
# absent from the output, host files unchanged, no marker process left, no
# hit on a sink the test started in the host's network namespace.

SBX_SYS="$PROBES/atk_syscall"
SBX_FS="$PROBES/atk_fs"
# Interpreter paths the unprivileged user can reach (root's PATH may start
# with ~/.pyenv shims that other users cannot traverse).
# with PATH lookups only as a fallback (pyenv shims are bash wrappers:
# slow, and `exec -a NAME` on them loses the name).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 2>/dev/null)

# make check-asan: sbxrun is instrumented and dynamic, and inside a
# sandbox the shim comes first in LD_PRELOAD (as tests/cli/cli.bats's
# nested runs do).  A program that loads the instrumented libsbx.so
# (python's ctypes) needs the runtimes preloaded: ASAN_PRELOAD.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
ASAN_PRELOAD=
if nm -D "$SBX_BUILD/libsbx.so" 2>/dev/null | grep -q __asan_init; then
	ASAN_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
fi

# python3 with the sanitizer runtimes first when it loads an instrumented
# libsbx.so through ctypes (the agent recipes, API-01).
py_lib() {
	env ${ASAN_PRELOAD:+LD_PRELOAD="$ASAN_PRELOAD"} "$PY" "$@"
}

# Build the attack probes when they are missing or stale (bats run by hand
# after `make`, which does not build them).
esc_build_probes() {
	local p stale=0
	for p in atk_syscall atk_fs; do
		for v in "$PROBES/$p" "$PROBES/$p.static"; do
			if [ ! -x "$v" ] || [ "$SBX_TOP/tests/probes/$p.c" -nt "$v" ]; then
				stale=1
			fi
		done
	done
	[ "$stale" = 0 ] && return 0
	make -s -C "$SBX_TOP" B="$SBX_BUILD" "$PROBES/atk_syscall" \
		"$PROBES/atk_syscall.static" "$PROBES/atk_fs" "$PROBES/atk_fs.static" >&2 || true
}

esc_setup() {
	sbx_setup
	require_kernel
	esc_build_probes
	[ -x "$SBX_SYS.static" ] || { echo "probes missing: make $SBX_SYS.static" >&2; return 1; }
	MARK="sbxmark${BATS_ROOT_PID:-$$}x${BATS_TEST_NUMBER}x$RANDOM"
	BG_PIDS=()
	UNIQ_FILES=()
	# The usual places secrets and startup files live, all with the canary.
	mkdir -p "$HOME/.config/gh" "$HOME/.docker" "$HOME/.kube" "$HOME/.gnupg" \
		"$HOME/.local/bin" "$HOME/.config/sbxrun"
	echo "machine x login u password $CANARY" > "$HOME/.netrc"
	echo "https://u:$CANARY@github.com" > "$HOME/.git-credentials"
	echo "github.com: {oauth_token: $CANARY}" > "$HOME/.config/gh/hosts.yml"
	echo "{\"auths\":{\"x\":{\"auth\":\"$CANARY\"}}}" > "$HOME/.docker/config.json"
	echo "token: $CANARY" > "$HOME/.kube/config"
	echo "//registry.npmjs.org/:_authToken=$CANARY" > "$HOME/.npmrc"
	echo "export TOKEN=$CANARY" > "$HOME/.bash_history"
	echo "$CANARY" > "$HOME/.gnupg/private.key"
	echo "# profile" > "$HOME/.profile"
	chmod 600 "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials"
}

esc_teardown() {
	local p
	for p in "${BG_PIDS[@]+"${BG_PIDS[@]}"}"; do
		kill -KILL "$p" 2>/dev/null
		kill -CONT "$p" 2>/dev/null
	done
	# the attacks name their processes after $MARK: nothing may be left,
	# but never leave anything behind either
	[ -n "${MARK:-}" ] && pkill -KILL -f "$MARK" 2>/dev/null
	for p in "${UNIQ_FILES[@]+"${UNIQ_FILES[@]}"}"; do rm -rf "$p"; done
	sbx_teardown
}

# Remember a background process for teardown; disowned so that bash does
# not report its death in the test output.
bg_track() {
	BG_PIDS+=("$1")
	disown "$1" 2>/dev/null || true
}

# sbx with a safety net: nothing in the suite can hang CI.
xsbx() {
	timeout -k 5 "${XSBX_LIMIT:-60}" "$SBXRUN" --mode "$SBX_MODE" "$@"
}

# The mode actually used (SBX_MODE may be auto).
eff_mode() {
	if [ -z "${SBX_EFF_MODE:-}" ]; then
		SBX_EFF_MODE=$("$SBXRUN" --mode "$SBX_MODE" --status 2>/dev/null |
			sed -n 's/^mode: \([a-z-]*\).*/\1/p' | head -1)
	fi
	echo "$SBX_EFF_MODE"
}
full_mode() { [ "$(eff_mode)" = full ]; }

# The last "RESULT rc ERRNAME" of a probe, as "rc ERRNAME".
result() {
	local r
	r=$(printf '%s\n' "$output" | tr -d '\r' | grep '^RESULT ' | tail -1)
	echo "${r#RESULT }"
}

# The probe ran and its call failed (any errno), or it was killed by the
# kernel (SIGSYS from a filter): never "RESULT n OK".
denied() {
	local r
	r=$(result)
	case "$r" in
	"-1 "*) return 0 ;;
	"") [ "$status" -ge 128 ] && return 0 ;;
	esac
	echo "expected the call to fail; status=$status result='$r'" >&2
	echo "$output" >&2
	return 1
}

# Denied by the seccomp filter or an equivalent kernel refusal: EPERM,
# ENOSYS, EACCES (EAFNOSUPPORT for socket families), or killed by SIGSYS
# (exit 159).  Kernel errors such as
# EFAULT/EINVAL/EBADF mean the call reached the kernel unfiltered.
filtered() {
	local r
	r=$(result)
	case "$r" in
	"-1 EPERM" | "-1 ENOSYS" | "-1 EACCES") return 0 ;;
	# socket(2) families outside the allow-list
	"-1 EAFNOSUPPORT") return 0 ;;
	"") [ "$status" = 159 ] || [ "$status" = 137 ] && return 0 ;;
	esac
	echo "expected the filter to refuse it; status=$status result='$r'" >&2
	echo "$output" >&2
	return 1
}

# Checksum, size, mode and mtime of files (ABSENT if missing), for
# "unchanged on the host" assertions.
snap() {
	local f
	for f in "$@"; do
		if [ -L "$f" ]; then
			echo "$f LINK $(readlink "$f")"
		elif [ -e "$f" ]; then
			echo "$f $(stat -c '%s %Y %a %h' "$f") $( [ -f "$f" ] && sha256sum < "$f")"
		else
			echo "$f ABSENT"
		fi
	done
}

# assert_unchanged "$before" file...
assert_unchanged() {
	local before=$1 now
	shift
	now=$(snap "$@")
	if [ "$now" != "$before" ]; then
		echo "host files changed:" >&2
		diff <(echo "$before") <(echo "$now") >&2
		return 1
	fi
}

assert_absent() {
	local f
	for f in "$@"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			echo "created on the host: $f" >&2
			ls -la "$f" >&2
			return 1
		fi
	done
}

# No process whose command line starts with $MARK (give the kernel up to
# 2 s to finish tearing a namespace down).
assert_no_marker_procs() {	# [pattern, default ^$MARK]
	local i pat=${1:-^$MARK}
	for i in $(seq 20); do
		pgrep -f "$pat" >/dev/null || return 0
		sleep 0.1
	done
	echo "survivors:" >&2
	pgrep -af "$pat" >&2
	return 1
}

wait_for() {	# wait_for SECONDS test-command...
	local n=$(( $1 * 20 ))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# ---------------------------------------------------------------- victims

# An outside process with a secret in its environment, cwd in ~/.ssh.
start_victim() {
	(cd "$HOME/.ssh" && exec env SBX_VICTIM_SECRET="$CANARY" sleep 300) \
		</dev/null >/dev/null 2>&1 3>&- &
	VPID=$!
	bg_track "$VPID"
	wait_for 2 grep -q SBX_VICTIM_SECRET "/proc/$VPID/environ"
}

# An outside process that logs every catchable signal it gets.
start_sigvictim() {
	VLOG="$T/victim.log"
	"$PY" -c '
import os, signal, sys, time
log = sys.argv[1]
def h(s, f):
    with open(log, "a") as fp: fp.write("sig%d\n" % s)
for s in (signal.SIGWINCH, signal.SIGUSR1, signal.SIGUSR2, signal.SIGTERM,
          signal.SIGHUP, signal.SIGINT, signal.SIGCONT, signal.SIGURG):
    signal.signal(s, h)
open(log + ".ready", "w").close()
while True:
    time.sleep(0.05)
' "$VLOG" </dev/null >/dev/null 2>&1 3>&- &
	VPID=$!
	bg_track "$VPID"
	wait_for 5 test -e "$VLOG.ready"
}

proc_state() {	# R, S, T, Z... or "gone"
	local s
	s=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
	echo "${s:-gone}"
}

exited() {	# PID is gone or a zombie
	case "$(proc_state "$1")" in gone|Z|X) return 0 ;; esac
	return 1
}

# ---------------------------------------------------------------- sinks

# A loopback sink in the host's network namespace: TCP and UDP on the same
# port (dual stack, every address), an abstract unix socket @$MARK and any
# pathname unix sockets given as arguments.  Every contact appends a line
# to $SINK/hits.  A control connection from outside proves it works.
start_sink() {
	SINK="$T/sink"
	mkdir -p "$SINK"
	cat > "$SINK/sink.py" <<'PY'
import os, selectors, socket, sys
d, mark = sys.argv[1], sys.argv[2]
sel = selectors.DefaultSelector()
def hit(what, data=b""):
    with open(os.path.join(d, "hits"), "a") as f:
        f.write("%s %s\n" % (what, data[:60].decode(errors="replace").strip()))
t = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
t.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("::", 0)); t.listen(16)
port = t.getsockname()[1]
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
u.bind(("::", port))
sel.register(t, selectors.EVENT_READ, "tcp")
sel.register(u, selectors.EVENT_READ, "udp")
a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
a.bind("\0" + mark); a.listen(16)
sel.register(a, selectors.EVENT_READ, "abstract")
for p in sys.argv[3:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try: os.unlink(p)
    except OSError: pass
    s.bind(p); os.chmod(p, 0o777); s.listen(16)
    sel.register(s, selectors.EVENT_READ, "unix:" + p)
with open(os.path.join(d, "port.tmp"), "w") as f: f.write(str(port))
os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
while True:
    for key, _ in sel.select():
        s, what = key.fileobj, key.data
        if what == "udp":
            data, _ = s.recvfrom(4096); hit("udp", data); continue
        c, _ = s.accept()
        c.settimeout(0.5)
        try: data = c.recv(4096)
        except OSError: data = b""
        hit(what, data); c.close()
PY
	"$PY" "$SINK/sink.py" "$SINK" "$MARK" "$@" </dev/null >"$SINK/log" 2>&1 3>&- &
	bg_track "$!"
	wait_for 5 test -s "$SINK/port" || { cat "$SINK/log" >&2; return 1; }
	PORT=$(cat "$SINK/port")
	# control: the sink is reachable from outside the sandbox
	"$SBX_SYS.static" connect 127.0.0.1 "$PORT" >/dev/null
	wait_for 3 grep -q '^tcp' "$SINK/hits" || { echo "sink control failed" >&2; return 1; }
	: > "$SINK/hits"
}

# No contact reached the sink (give late packets a moment).
assert_no_hits() {
	sleep "${1:-0.2}"
	if [ -s "$SINK/hits" ]; then
		echo "the sink outside the sandbox was reached:" >&2
		cat "$SINK/hits" >&2
		return 1
	fi
}

host_ipv4() {
	ip -4 -o addr show scope global 2>/dev/null | awk '{sub("/.*","",$4); print $4; exit}'
}

# ---------------------------------------------------------------- plan

# What `--dry-run` says about the kernel plan in this mode.
plan() {
	"$SBXRUN" --mode "$SBX_MODE" --dry-run "$@" 2>&1
}

# The dry-run of this mode lists a protection matching PATTERN (an ERE,
# case-insensitive) as advisory / not kernel-enforced.  Used for rows that
# landlock-only mode cannot stop: the test then checks the mode is honest
# about it instead of skipping.
plan_says_advisory() {
	local out
	out=$(plan)
	if printf '%s\n' "$out" | grep -iE "$1" | grep -qiE 'advisory|not enforced|shim only|stay visible|are reachable|partial|stay reachable|visible outside|exempts|reported at exit'; then
		return 0
	fi
	echo "dry-run of mode $(eff_mode) does not say '$1' is advisory:" >&2
	printf '%s\n' "$out" >&2
	return 1
}

# Run a command in a fresh pseudo-terminal (the child is a session leader
# with the pty as controlling tty); print everything written to it.
# PTY_INPUT (optional) is typed after PTY_DELAY seconds.
pty_run() {
	"$PY" - "$@" <<'PY'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
inp = os.environ.get("PTY_INPUT", "").encode().decode("unicode_escape").encode()
delay = float(os.environ.get("PTY_DELAY", "0.5"))
start = time.time()
out = b""
while time.time() - start < 30:
    if inp and time.time() - start >= delay:
        os.write(fd, inp); inp = b""
    r, _, _ = select.select([fd], [], [], 0.1)
    if fd in r:
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        out += d
    elif os.waitpid(pid, os.WNOHANG)[0]:
        pid = 0
        # drain what is left
        while select.select([fd], [], [], 0.2)[0]:
            try:
                d = os.read(fd, 4096)
            except OSError:
                break
            if not d:
                break
            out += d
        break
sys.stdout.write(out.decode(errors="replace"))
if pid:
    try:
        _, st = os.waitpid(pid, 0)
    except ChildProcessError:
        st = 0
PY
}
