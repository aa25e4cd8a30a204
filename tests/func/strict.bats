#!/usr/bin/env bats
# --profile strict as people use it (review U-05): the project in the
# home directory, which strict hides, and no XDG_RUNTIME_DIR.  The shim
# must find its compiled policy (it refused every exec when the store sat
# in the hidden ~/.cache) and the run must not drown in warnings about
# the protect list inside the hidden home.

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/../escape/_lib.bats"

setup() {
	esc_setup
	unset XDG_RUNTIME_DIR
	mkdir -p "$HOME/proj" && cd "$HOME/proj"
	git init -q . 2>/dev/null || true
	echo 'print("py ran")' > t.py
}
teardown() { esc_teardown; }

@test "U-05 --profile strict: real programs run from a shell in a project under ~" {
	run --separate-stderr sbx --profile strict -c "ls t.py && $PY t.py && git --version >/dev/null && echo done"
	echo "$status
$output
$stderr"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = t.py ] && [ "${lines[1]}" = "py ran" ] && [ "${lines[2]}" = done ]
	[[ "$stderr" != *"refused to run"* ]]
	[[ "$stderr" != *"could not be loaded"* ]]
	[[ "$stderr" != *"is inside hidden"* ]]
	# the secrets stay hidden, the project read-only
	run --separate-stderr sbx --profile strict -c "cat $HOME/.ssh/id_rsa; echo x > t.py"
	[ "$status" -ne 0 ]
	no_canary "$output$stderr"
	[ "$(cat t.py)" = 'print("py ran")' ]
}

@test "U-05 --profile strict --allow-write the project: make-like work, protect entries still hold" {
	run --separate-stderr sbx --profile strict --allow-write "$HOME/proj" -c 'echo built > out.txt && echo x > .git/hooks/pre-commit'
	echo "$status $output $stderr"
	[ "$(cat out.txt)" = built ]
	[ ! -e .git/hooks/pre-commit ]
	[[ "$stderr" == *"cannot write '.git/hooks/pre-commit': protected"* ]]
}
