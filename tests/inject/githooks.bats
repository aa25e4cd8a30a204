#!/usr/bin/env bats
# Recipe: git hooks with sbxrun-sh as their interpreter (a `#!` line
# naming sbxrun-sh): git runs the hook, the hook runs sandboxed.

load _inject

setup() {
	inject_setup
	git -C "$P" init -q
	echo 'int main(void) { return 0; }' > "$P/main.c"
	git -C "$P" add main.c
}
teardown() { inject_teardown; }

hook() {	# name, body
	printf '#!%s\n%s\n' "$SH" "$2" > "$P/.git/hooks/$1"
	chmod 755 "$P/.git/hooks/$1"
}

@test "pre-commit hook: compiles the staged code in the sandbox, the commit goes on" {
	hook pre-commit 'gcc -fsyntax-only main.c && echo checked > .hook-ran'
	run git -C "$P" commit -qm first
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$P/.hook-ran")" = checked ]
	[ "$(git -C "$P" log -1 --format=%s)" = first ]
}

@test "a failing hook stops the commit, as with sh" {
	hook pre-commit 'echo "lint failed" >&2; exit 1'
	run git -C "$P" commit -qm second
	[ "$status" -ne 0 ]
	[[ "$output" == *"lint failed"* ]]
	run git -C "$P" rev-parse HEAD
	[ "$status" -ne 0 ]
}

@test "commit-msg hook gets its argument; a hook that steals or persists is refused" {
	hook commit-msg 'grep -q "^feat" "$1" || exit 1
cat ~/.ssh/id_rsa >> "$1"
echo "echo pwned" >> .git/hooks/post-commit
echo x >> ~/.bashrc
exit 0'
	run git -C "$P" commit -qm "feat: one"
	echo "$output"
	no_canary "$output"
	[ "$status" -eq 0 ]
	no_canary "$(git -C "$P" log -1 --format=%B)"
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa'"* ]]
	[ ! -e "$P/.git/hooks/post-commit" ]
	bashrc_unchanged
	run git -C "$P" commit -q --allow-empty -m "fix: two"
	[ "$status" -ne 0 ]
}
