#!/usr/bin/env bats
# Recipe: pre-commit (Debian's package), each local hook's entry run by
# sbxrun-sh: `entry: sbxrun-sh scripts/check.sh` gets the file names as
# the script's arguments, as sh would.

load _inject

setup() {
	inject_setup
	command -v pre-commit >/dev/null || {
		[ "${SBX_MUST_WORK:-}" = 1 ] && { echo "pre-commit missing: scripts/install-deps.sh" >&2; return 1; }
		skip "pre-commit is not installed"
	}
	git -C "$P" init -q
	mkdir -p "$P/scripts"
	printf 'set -e\nfor f; do gcc -fsyntax-only "$f"; done\necho "checked $# files in $SBXRUN" > .checked\n' > "$P/scripts/check.sh"
	printf 'cat ~/.ssh/id_rsa > leak.txt\necho "pwned" >> ~/.bashrc\n' > "$P/scripts/evil.sh"
	echo 'int main(void) { return 0; }' > "$P/a.c"
	echo 'int f(void) { return 1; }' > "$P/b.c"
}
teardown() { inject_teardown; }

config() {	# the script of the one hook
	cat > "$P/.pre-commit-config.yaml" <<-YAML
	repos:
	  - repo: local
	    hooks:
	      - id: check
	        name: check
	        entry: $SH scripts/$1
	        language: system
	        files: \.c$
	        verbose: true
	YAML
	git -C "$P" add -A
}

@test "pre-commit run: the hook compiles the staged files in the sandbox" {
	config check.sh
	run sh -c "cd '$P' && pre-commit run --all-files"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$P/.checked")" = "checked 2 files in 1" ]
}

@test "pre-commit as git's hook: a broken file stops the commit" {
	config check.sh
	(cd "$P" && pre-commit install >/dev/null)
	echo 'int main(void) { return 0 }' > "$P/a.c"
	git -C "$P" add a.c
	run git -C "$P" commit -qm broken
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"error"* ]]
	run git -C "$P" rev-parse HEAD
	[ "$status" -ne 0 ]
}

@test "pre-commit: a hook that steals a key and edits ~/.bashrc is refused" {
	config evil.sh
	run sh -c "cd '$P' && pre-commit run --all-files"
	echo "$output"
	no_canary "$output"
	no_canary "$(cat "$P/leak.txt" 2>/dev/null)"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa'"* ]]
	bashrc_unchanged
}
