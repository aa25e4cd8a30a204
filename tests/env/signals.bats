#!/usr/bin/env bats
# Signals and exit statuses as scripts and CI runners see them: SIGINT,
# SIGTERM and SIGHUP sent to sbxrun end the run in both modes, with or
# without a terminal, also when the shell started sbxrun with SIGINT
# ignored (a background job); the exit status says which signal; a
# second signal ends a command that ignores the first; the JSON report
# tells sbxrun's own 125 from the command's; scripts/demo.sh fails when
# its sandboxed run fails.  Nothing outlives the run (checked from
# outside).

load ../lib/common

setup() { sbx_setup; }
teardown() { sbx_teardown; }

# Start sbxrun in mode $1 with the rest as its command, in the
# background, as a non-interactive shell starts it (SIGINT ignored), and
# with no terminal.  Sets PID.
start() {
	local m=$1
	shift
	rm -f "$P/started"
	"$BATS_TEST_DIRNAME/_inmode.sh" "$m" "$SBXRUN" "$PROBES" --quiet -- "$@" \
		</dev/null >"$P/out" 2>&1 &
	PID=$!
	for _ in $(seq 100); do [ -e "$P/started" ] && return 0; sleep 0.05; done
	echo "never started: $(cat "$P/out")" >&2
	return 1
}

# Wait at most 5 s for PID; sets RC.
finish() {
	for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$PID" 2>/dev/null && { echo "still running" >&2; kill -KILL "$PID"; return 1; }
	RC=0
	wait "$PID" || RC=$?
}

# Nothing the command started is left: the marker process is gone.
none_left() {
	! pgrep -f "sleep 3$$" >/dev/null
}

@test "SIGINT, SIGTERM, SIGHUP without a terminal end the run: 128+sig, nothing left (both modes)" {
	require_kernel
	for m in full landlock-only; do
		for sig in INT TERM HUP; do
			start "$m" sh -c "touch '$P/started'; sleep 3$$; echo survived > '$P/survived'"
			kill -s "$sig" "$PID"
			finish
			case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
			[ "$RC" -eq "$want" ] || { echo "$m $sig: exit $RC, want $want" >&2; false; }
			[ ! -e "$P/survived" ]
			none_left
		done
	done
}

@test "a command that ignores SIGINT: a second one kills the sandbox, exit 130" {
	require_kernel
	for m in full landlock-only; do
		start "$m" sh -c "trap '' INT TERM HUP; touch '$P/started'; sleep 3$$; echo survived > '$P/survived'"
		kill -INT "$PID"
		sleep 0.3
		kill -0 "$PID"	# the first one was ignored by the command
		kill -INT "$PID"
		finish
		[ "$RC" -eq 130 ]
		[ ! -e "$P/survived" ]
		none_left
	done
}

@test "with a terminal: SIGINT to sbxrun ends the run the same way" {
	require_kernel
	command -v script >/dev/null || skip "script(1) is not installed"
	# script(1) gives sbxrun a terminal and exits with its status (-e)
	script -qec "sh -c 'echo \$\$ > \"$P/pid\"; exec \"$SBXRUN\" --quiet -c \"touch $P/started; sleep 3$$\"'" /dev/null \
		</dev/null >/dev/null 2>&1 &
	spid=$!
	for _ in $(seq 100); do [ -e "$P/started" ] && break; sleep 0.05; done
	[ -e "$P/started" ]
	kill -INT "$(cat "$P/pid")"
	rc=0
	wait "$spid" || rc=$?
	[ "$rc" -eq 130 ]
	none_left
}

@test "125: the report tells sbxrun's failure from the command's own" {
	require_kernel
	run "$SBXRUN" --report "$T/r1.json" -c 'exit 125'
	[ "$status" -eq 125 ]
	grep -q '"sbxrun_failed": false' "$T/r1.json"
	grep -q '"status": 125' "$T/r1.json"
	SBXRUN_TEST_LANDLOCK_ABI=0 run "$PROBES/nouserns" early "$SBXRUN" --report "$T/r2.json" -c 'echo ran > "$P/ran"'
	[ "$status" -eq 125 ]
	[ ! -e "$P/ran" ]
	grep -q '"sbxrun_failed": true' "$T/r2.json"
	grep -q '"error": "no kernel sandbox is available' "$T/r2.json"
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["sbxrun_failed"] and r["exit_code"] == 125 and r["status"] is None' "$T/r2.json"
}

@test "scripts/demo.sh passes here and fails when its sandboxed run fails" {
	require_kernel
	# a copy of the tree whose build is up to date, so make does nothing
	mkdir -p "$T/demo/scripts"
	cp "$SBX_TOP/scripts/demo.sh" "$T/demo/scripts/"
	printf 'all:\n\t@true\n' > "$T/demo/GNUmakefile"
	ln -s "$SBX_BUILD" "$T/demo/build"
	run sh "$T/demo/scripts/demo.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"demo: ok"* ]]
	SBXRUN_TEST_LANDLOCK_ABI=0 run "$PROBES/nouserns" early sh "$T/demo/scripts/demo.sh"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"demo: sbxrun itself failed (exit 125)"* ]]
}
