#!/usr/bin/env bats
# Regression tests from the security review of the start-up changes
# (lazy shim lookups, the /proc-scan skip in landlock-only mode, the
# content-addressed policy store, the precompiled seccomp filter).  Every
# attack runs inside and is judged from outside: a marker file that must
# not appear, a host file that must not change, no survivor with $MARK.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() {
	esc_setup
	# A harmless stand-in for a denied program: if it ever runs, it
	# leaves a file in the project that the test finds from outside.
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho ran > "%s/ran-$(basename "$0")"\n' "$P" > "$T/bin/sudo"
	cp "$T/bin/sudo" "$T/bin/rm"
	chmod 755 "$T/bin/sudo" "$T/bin/rm" "$T/bin"
}
teardown() { esc_teardown; }

# ------------------------------------------------- exec deny, lazy lookups

@test "review: exec deny holds on the first exec-family call from a vfork child (python subprocess)" {
	run xsbx -- "$PY" -c "
import subprocess
subprocess.call(['$T/bin/sudo', 'x'])
subprocess.call(['$T/bin/rm', '-rf', '/'])
"
	echo "$output"
	assert_absent "$P/ran-sudo" "$P/ran-rm"
}

@test "review: exec deny holds through posix_spawn, posix_spawnp and a thread's execv" {
	run xsbx -- "$PY" -c "
import os, threading
try: os.posix_spawn('$T/bin/sudo', ['sudo', 'a'], os.environ)
except OSError as e: print('spawn', e)
try: os.posix_spawnp('sudo', ['sudo', 'b'], dict(os.environ, PATH='$T/bin'))
except OSError as e: print('spawnp', e)
def t():
    try: os.execv('$T/bin/sudo', ['sudo', 'c'])
    except OSError as e: print('thread', e)
th = threading.Thread(target=t); th.start(); th.join()
try: os.wait()
except ChildProcessError: pass
"
	echo "$output"
	sleep 0.2
	assert_absent "$P/ran-sudo"
}

@test "review: exec deny holds through fexecve and execveat (python os.execve on an fd)" {
	run xsbx -- "$PY" -c "
import os
fd = os.open('$T/bin/sudo', os.O_RDONLY)
try: os.execve(fd, ['sudo', 'fd'], os.environ)
except OSError as e: print('fexecve', e)
"
	echo "$output"
	assert_absent "$P/ran-sudo"
}

@test "review: exec deny holds in a program started by system() and popen() (sh -c)" {
	run xsbx -- "$PY" -c "
import os
os.system('$T/bin/sudo s')
os.popen('$T/bin/rm -rf /').read()
"
	echo "$output"
	assert_absent "$P/ran-sudo" "$P/ran-rm"
}

# ------------------------------------------- PRC-03 with the /proc-scan skip

@test "review PRC-03: setsid double fork, a subreaper's orphan and forks racing the exit leave nothing" {
	run xsbx -- "$PY" -c "
import os, time, ctypes
libc = ctypes.CDLL(None)
def run(name):
    os.execl('/bin/sleep', '$MARK-' + name, '30')
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0: run('daemon')
    os._exit(0)
if os.fork() == 0:
    libc.prctl(36, 1, 0, 0, 0)          # PR_SET_CHILD_SUBREAPER
    if os.fork() == 0:
        if os.fork() == 0: run('orphan')
        os._exit(0)
    time.sleep(0.2)
    os._exit(0)
if os.fork() == 0:
    for i in range(10):
        if os.fork() == 0: run('race')
    os._exit(0)
time.sleep(0.4)
"
	echo "$output"
	[ "$status" -eq 0 ]
	assert_no_marker_procs
}

@test "review PRC-03: nohup and setsid daemons from a shell are killed" {
	run xsbx -c "(setsid sh -c 'exec -a $MARK-sleep sleep 30' </dev/null >/dev/null 2>&1 &); (nohup sh -c 'exec -a $MARK-nohup sleep 30' </dev/null >/dev/null 2>&1 &); sleep 0.2"
	echo "$output"
	assert_no_marker_procs
}

# ---------------------------------------------------------- policy store

@test "review LCH-03: the sandbox cannot change, replace or remove a stored compiled policy" {
	run xsbx -- sh -c 'echo "$SBXRUN_POLICY"'
	[ "$status" -eq 0 ]
	pol=$(printf '%s\n' "$output" | grep '/policy-' | tail -1)
	[ -n "$pol" ] && [ -f "$pol" ]
	before=$(snap "$pol")
	dir=${pol%/*}
	run xsbx -c "
printf x >> '$pol'; $SBX_SYS.static write '$pol' evil
$SBX_SYS.static unlink '$pol'
$SBX_SYS.static creat '$dir/.new-evil'
$SBX_SYS.static rename '$pol' '$dir/gone'
$SBX_SYS.static symlink /etc/passwd '$dir/policy-evil'
true"
	echo "$output"
	assert_unchanged "$before" "$pol"
	assert_absent "$dir/.new-evil" "$dir/gone" "$dir/policy-evil"
}

@test "review: an exclusive flock on the compiled policy from inside does not hold up another run" {
	run xsbx -- sh -c 'echo "$SBXRUN_POLICY"'
	pol=$(printf '%s\n' "$output" | grep '/policy-' | tail -1)
	XSBX_LIMIT=8 xsbx -- "$PY" -c "
import os, fcntl, time
f = open(os.environ['SBXRUN_POLICY'])
try: fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB); print('locked')
except OSError as e: print('lock refused', e)
time.sleep(3)
" > "$T/locker.out" 2>&1 &
	bg_track $!
	sleep 1
	run timeout 5 "$SBXRUN" --mode "$SBX_MODE" -- true
	echo "$output"
	[ "$status" -eq 0 ]
	cat "$T/locker.out"
	! grep -q '^locked' "$T/locker.out"
}

# ------------------------------------------------- precompiled seccomp filter

@test "review SCF-01/02: the precompiled filter kills x32 and ia32 calls (static probe)" {
	run xsbx -- "$SBX_SYS.static" x32open /etc/passwd
	echo "$output"
	[ "$status" -eq 159 ]
	run xsbx -- "$SBX_SYS.static" ia32socketcall
	echo "$output"
	[ "$status" -eq 159 ]
}

@test "review SCF-05/06: clone3, openat2, new mount API and io_uring still get ENOSYS" {
	for op in clone3 "nr 467" "nr 428" "nr 429" "nr 430" "nr 442" io_uring; do
		run xsbx -- "$SBX_SYS.static" $op
		echo "$op: $output"
		[ "$(result)" = "-1 ENOSYS" ]
	done
}
