#!/usr/bin/env bats
# The --report file against the command it reports on (review W-15,
# THREATS FS-13): the report often lives in the project, which the
# command may write.  Whatever the command leaves at the path, sbxrun
# puts its own report there or fails (non-zero, with the reason): a
# harness that reads the path never reads a secret or a forgery.

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

# The document at $1 is sbxrun's report of a command that exited $2.
ours() {
	"$PY" - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["version"] == 1 and r["exit_code"] == int(sys.argv[2]), r
assert r["sbxrun_failed"] is False and "forged" not in r, r
PY
}

@test "W-15 the report path swapped for a symlink to a secret: the report is written in its place" {
	run --separate-stderr sbx --report "$P/report.json" -c \
		"rm -f report.json; ln -s $HOME/.aws/credentials report.json; exit 3"
	echo "$status $stderr"
	[ "$status" -eq 3 ]
	[ -f "$P/report.json" ] && [ ! -L "$P/report.json" ]
	no_canary "$(cat "$P/report.json")"
	ours "$P/report.json" 3
	grep -q "the report's path was replaced during the run" "$P/report.json"
	[[ "$stderr" == *"sbxrun: warning: the report's path $P/report.json was replaced during the run"* ]]
	# the secret is untouched
	grep -q "aws_secret_access_key = $CANARY" "$HOME/.aws/credentials"
}

@test "W-15 a forgery written into the report, or a process still writing it, does not survive" {
	run --separate-stderr sbx --report "$P/report.json" -c \
		'exec 7>>report.json; printf "{\"forged\": 1, \"pad\": \"%04000d\"}\n" 0 >&7; exit 0'
	echo "$status $stderr"
	[ "$status" -eq 0 ]
	ours "$P/report.json" 0
	# a hard link made by the command to the report (it kept the inode)
	# sees nothing of ours either way: no secret crosses
	run --separate-stderr sbx --report "$P/r2.json" -c 'ln r2.json keep.json; exit 0'
	[ "$status" -eq 0 ]
	ours "$P/r2.json" 0
}

@test "W-15 the report path replaced by a directory, or its directory by a symlink: exit 125, the reason" {
	run --separate-stderr sbx --report "$P/report.json" -c 'rm -f report.json; mkdir report.json'
	echo "$status $stderr"
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"sbxrun: cannot write the report $P/report.json: "*"replaced it during the run"* ]]
	mkdir "$P/out"
	run --separate-stderr sbx --report "$P/out/report.json" -c \
		"mv out out.old && ln -s $HOME/.aws out; exit 0"
	echo "$status $stderr"
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"cannot write the report $P/out/report.json: its directory $P/out was moved or replaced during the run"* ]]
	[ ! -e "$HOME/.aws/report.json" ]
	grep -q "aws_secret_access_key = $CANARY" "$HOME/.aws/credentials"
}

@test "W-15 a report that cannot be written at the start: exit 125 before the command runs" {
	run --separate-stderr sbx --report "$P/missing/report.json" -c "touch $P/ran"
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"sbxrun: cannot write the report $P/missing/report.json"* ]]
	[ ! -e "$P/ran" ]
	ln -s "$HOME/.aws/credentials" "$P/link.json"
	run --separate-stderr sbx --report "$P/link.json" -c "touch $P/ran"
	[ "$status" -eq 125 ]
	[ ! -e "$P/ran" ]
	grep -q "aws_secret_access_key = $CANARY" "$HOME/.aws/credentials"
}

@test "W-15 --report /dev/null and --report - still work" {
	run --separate-stderr sbx --report /dev/null -c 'exit 0'
	[ "$status" -eq 0 ]
	run --separate-stderr sbx --report - -c 'echo out'
	[ "$status" -eq 0 ] && [ "$output" = out ]
	printf '%s\n' "$stderr" | "$PY" -c 'import json,sys; assert json.load(sys.stdin)["exit_code"] == 0'
}

@test "the report's pid is the refused process's pid on the host, as the README says" {
	# a refused process that stays a while: the test finds its host pid
	sbx --report "$P/r.json" -- "$PY" -c "
import os, time, sys
try: open(os.path.expanduser('~/.ssh/id_rsa'))
except OSError: pass
time.sleep(2)  # $MARK" >/dev/null 2>&1 &
	bg=$!
	host=""
	for _ in $(seq 40); do
		host=$(pgrep -f "^$PY -c .*# $MARK" | head -1)
		[ -n "$host" ] && break
		sleep 0.05
	done
	wait "$bg" || true
	[ -n "$host" ]
	got=$(jq -r '.refusals[] | select(.target | endswith("/.ssh/id_rsa")) | .pid' "$P/r.json")
	echo "host pid $host, report pid $got"
	[ "$got" = "$host" ]
}

@test "W-20 --report /dev/fd/N: a channel the command cannot write, unlike - (stderr)" {
	# the command forges a report on stdout, stderr and fd 3: only
	# sbxrun's reaches fd 3 (the command does not inherit it)
	run --separate-stderr sbx --report /dev/fd/3 -c \
		'echo "{\"forged\": 1}"; echo "{\"forged\": 2}" >&2; echo "{\"forged\": 3}" >&3; exit 4' 3>"$T/fd3.json"
	echo "$status $output $stderr"
	[ "$status" -eq 4 ]
	ours "$T/fd3.json" 4
	# through a pipe, as a harness reads it
	run bash -c "'$SBXRUN' --mode $SBX_MODE --report /dev/fd/3 -- true 3>&1 >/dev/null 2>&1 | '$PY' -c 'import json,sys; print(json.load(sys.stdin)[\"exit_code\"])'"
	[ "$status" -eq 0 ] && [ "$output" = 0 ]
	# a descriptor that is not open: exit 125 before the command runs
	run --separate-stderr sbx --report /dev/fd/9 -c "touch $P/ran"
	[ "$status" -eq 125 ] && [ ! -e "$P/ran" ]
}
