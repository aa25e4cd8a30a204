#!/usr/bin/env bats
# Terminal (THREATS TTY-01/02/03/05): keystroke injection into the
# caller's terminal and access to other terminals.  sbxrun runs under a
# fresh pty (python's pty.fork: the shell around it is the session leader
# and reads the terminal after sbxrun exits).  If an injection worked, that
# shell would read "echo SBX-INJECTED" and print GOT:[echo SBX-INJECTED].

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

# Run sbxrun ARGS... under a pty, then let the shell around it read one
# line from the terminal for a second.
under_pty() {
	local q="" a
	for a in "$@"; do q+=" $(printf '%q' "$a")"; done
	run pty_run bash -c "$(printf '%q' "$SBXRUN") --mode $SBX_MODE $q; echo \"rc=\$?\"; read -t 1 l; echo \"GOT:[\$l]\""
	echo "$output"
}

no_injection() {
	[[ "$output" == *"GOT:["* ]] || { echo "the pty run did not finish" >&2; return 1; }
	if [[ "$output" == *"GOT:[echo SBX-INJECTED]"* || "$output" == *"GOT:[SBX"* ]]; then
		echo "keystrokes were injected into the caller's terminal" >&2
		return 1
	fi
}

@test "TTY-01 TIOCSTI on stdin (static, raw ioctl)" {
	under_pty -- "$SBX_SYS.static" tiocsti 0
	no_injection
	[[ "$output" == *"RESULT -1 E"* ]]
}

@test "TTY-01 TIOCSTI on stdout/stderr and /dev/tty" {
	under_pty -c "$SBX_SYS.static tiocsti 1; $SBX_SYS.static tiocsti 2; exec 5</dev/tty && $SBX_SYS.static tiocsti 5; true"
	no_injection
	[[ "$output" != *"RESULT 0 OK"* ]]
}

@test "TTY-02 TIOCSTI with the high 32 bits set ((1UL<<32)|TIOCSTI)" {
	under_pty -- "$SBX_SYS.static" tiocsti 0 hi
	no_injection
	[[ "$output" == *"RESULT -1 E"* ]]
}

@test "TTY-01 TIOCSTI from python (dynamic, fcntl.ioctl)" {
	under_pty -- "$PY" -c '
import fcntl, termios
for c in "echo SBX-INJECTED\n":
    try:
        fcntl.ioctl(0, termios.TIOCSTI, c)
    except OSError as e:
        print("ioctl failed", e.errno); break'
	no_injection
}

@test "TTY-01 the sandbox has no controlling terminal (setsid)" {
	under_pty -c 'exec 5</dev/tty && echo HAVE-CTTY; ps -o tty= -p $$; true'
	[[ "$output" != *HAVE-CTTY* ]]
}

@test "TTY-03 TIOCLINUX (paste selection) is refused by the filter" {
	under_pty -- "$SBX_SYS.static" tioclinux 0
	no_injection
	filtered
	under_pty -- "$SBX_SYS.static" tioclinux 0 hi
	filtered
}

@test "TTY-05 another of the user's terminals (/dev/pts/N) cannot be opened" {
	# an outside terminal held open by a python process
	"$PY" -c '
import os, sys, time
m, s = os.openpty()
open(sys.argv[1] + ".tmp", "w").write(os.ttyname(s))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)' "$T/ptsname" </dev/null >/dev/null 2>&1 3>&- &
	bg_track "$!"
	wait_for 5 test -s "$T/ptsname"
	pts=$(cat "$T/ptsname")
	run xsbx -- "$SBX_SYS.static" open "$pts" r
	echo "read: $output"
	r1=$(result)
	run xsbx -- "$SBX_SYS.static" open "$pts" rw
	echo "rw: $output"
	r2=$(result)
	run xsbx -c "exec 6<>$pts && echo OPENED; true"
	echo "$output"
	[[ "$output" != *OPENED* ]]
	if [[ "$r1" != "-1 "* || "$r2" != "-1 "* ]]; then
		echo "opened another terminal: read=[$r1] rw=[$r2]" >&2
		plan_says_advisory 'terminal|tty|pts|device'
	fi
}

@test "TTY-01 interactive sbxrun (keeps the terminal): TIOCSTI still cannot type into the caller" {
	# sbxrun with no command starts an interactive shell on the terminal;
	# the probe runs in it, then the shell exits.
	PTY_DELAY=1 PTY_INPUT="$SBX_SYS.static tiocsti 0; $SBX_SYS.static tiocsti 0 hi; exit 0\n" \
		run pty_run bash -c "SHELL=/bin/sh $(printf '%q' "$SBXRUN") --mode $SBX_MODE; echo \"rc=\$?\"; read -t 1 l; echo \"GOT:[\$l]\""
	echo "$output"
	no_injection
	[[ "$output" != *"RESULT 0 OK"* ]]
	[[ "$output" == *"RESULT -1 E"* ]]
	# dash used to exit 2 here (job control across the pid namespace)
	[[ "$output" == *"rc=0"* ]]
}

@test "TTY-01 interactive bash leading the terminal's foreground group: TIOCSTI still refused, from a job too" {
	# The shell's own process group is the terminal's foreground group
	# (job control); the probe runs as a foreground job, then from a job
	# brought back with fg, on stdin and on a fresh /dev/tty.
	PTY_DELAY=1.5 PTY_INPUT="$SBX_SYS.static tiocsti 0; (sleep 0.3; $SBX_SYS.static tiocsti 0 hi) & fg; exec 5</dev/tty; $SBX_SYS.static tiocsti 5; exit 0\n" \
		run pty_run bash -c "SHELL=/bin/bash $(printf '%q' "$SBXRUN") --mode $SBX_MODE; echo \"rc=\$?\"; read -t 1 l; echo \"GOT:[\$l]\""
	echo "$output"
	no_injection
	[[ "$output" != *"RESULT 0 OK"* ]]
	[ "$(grep -c 'RESULT -1 E' <<<"$output")" -ge 3 ]
	[[ "$output" == *"rc=0"* ]]
}
