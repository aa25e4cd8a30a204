#!/usr/bin/env bats
# /dev/shm (review U-04): full mode gives the sandbox a private, writable
# tmpfs there, so POSIX shared memory and semaphores work (Python's
# multiprocessing); nothing written there reaches the host's /dev/shm.
# Landlock-only mode has no mount namespace: the host's /dev/shm is
# shared with every process of the user, so it stays hidden there.

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/../escape/_lib.bats"

setup() { esc_setup; }
teardown() { rm -f "/dev/shm/sbx-$MARK" 2>/dev/null; esc_teardown; }

@test "U-04 python multiprocessing (Pool, Lock, Queue) in a sandbox" {
	run --separate-stderr sbx -- "$PY" -c '
import multiprocessing as m
print(m.Pool(2).map(abs, [1, -2]))
l = m.Lock(); l.acquire(); l.release()
q = m.Queue(); q.put(3); print(q.get())'
	echo "$status $output $stderr"
	if [ "$SBX_MODE" = landlock-only ]; then
		# documented: no /dev/shm without a mount namespace
		[ "$status" -ne 0 ]
		[[ "$stderr" == *PermissionError* ]]
		return 0
	fi
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "[1, 2]" ] && [ "${lines[1]}" = 3 ]
}

@test "U-04 full mode: /dev/shm is the sandbox's own (a static write stays inside)" {
	if [ "$SBX_MODE" = landlock-only ]; then
		# landlock-only keeps the host's /dev/shm hidden: a static
		# write there fails and nothing appears outside
		run sbx -c "$SBX_SYS.static creat /dev/shm/sbx-$MARK payload"
		[ ! -e "/dev/shm/sbx-$MARK" ]
		return 0
	fi
	run --separate-stderr sbx -c "$SBX_SYS.static creat /dev/shm/sbx-$MARK payload && cat /dev/shm/sbx-$MARK"
	echo "$status $output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *payload* ]]
	[ ! -e "/dev/shm/sbx-$MARK" ]
	# and nothing but regular files: no device, no executable
	run --separate-stderr sbx -c "cp /bin/true /dev/shm/t && /dev/shm/t"
	[ "$status" -ne 0 ]
}
