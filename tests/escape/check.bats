#!/usr/bin/env bats
# --check agrees with what a run enforces (review W-17): for each path,
# what --check's first line says about writing is compared with a raw
# write(2) from a static program inside a real run (no shim to ask),
# judged from outside.

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() {
	esc_setup
	git init -q "$P" 2>/dev/null || mkdir -p "$P/.git/hooks"
	mkdir -p "$P/.git/hooks"
}
teardown() { esc_teardown; }

# agree PATH: --check's verdict on writing PATH, then a static raw
# creat(2) of PATH inside a run; the two must say the same.  A protected
# path the run created is moved aside at exit, one it changed in
# landlock-only mode put back: judged by the call's result and what is
# left outside.
agree() {
	local path=$1 said got
	run --separate-stderr sbx --check "$path"
	echo "--check $path: $output"
	[ "$status" -eq 0 ]
	case "${lines[0]}" in
	*": writable"*|*": read-only for programs that load the shim only"*) said=writable ;;
	*": read-only"*|*": hidden"*) said=refused ;;
	*) echo "unexpected first line: ${lines[0]}" >&2; return 1 ;;
	esac
	run --separate-stderr sbx -- "$SBX_SYS.static" creat "$path" payload
	echo "run: $output $stderr"
	got=refused
	if [ -f "$path" ] && [ "$(cat "$path" 2>/dev/null)" = payload ]; then got=writable; fi
	case "$output" in *"RESULT -1 "*) ;; *"RESULT "*)
		# written in the run, set aside (or put back) at exit
		if compgen -G "$path.sbxrun-blocked-*" >/dev/null; then
			# moved aside (missing at launch), or put back as
			# it was (landlock-only, guard.c): payload not left
			got=writable
			grep -q payload "$path".sbxrun-blocked-*
			[ "$(cat "$path" 2>/dev/null)" != payload ]
		fi ;;
	esac
	echo "--check says $said, the run: $got"
	[ "$said" = "$got" ]
}

@test "W-17 --check agrees with a static write: absent and present protected paths, the project, outside" {
	agree "$P/.git/commondir"        # protected, missing at launch
	agree "$P/.git/hooks/pre-commit" # protected directory exists
	agree "$P/.git/config"
	agree "$P/file.txt"              # the project
	agree "$HOME/newfile"            # outside
}

@test "W-17 --check names who holds it: the note for a missing protected path and for landlock-only" {
	run --separate-stderr sbx --check "$P/.git/commondir"
	[[ "${lines[0]}" == *": writable in a run (protected, but missing)" ]]
	[[ "$output" == *"  note: protected, but missing now: no run can hold a missing name read-only, so the command can create it; sbxrun moves what it created aside at exit and warns"* ]]
	run --separate-stderr sbx --check "$P/.git/hooks/pre-commit"
	if [ "$SBX_MODE" = landlock-only ]; then
		[[ "${lines[0]}" == *": read-only for programs that load the shim only" ]]
		[[ "$output" == *"  note: in landlock-only mode only sbxrun's shim refuses this write: a static program or a raw system call can write it during the run, and sbxrun sets it aside at exit and warns"* ]]
	else
		[[ "${lines[0]}" == *": read-only" ]]
		[[ "$output" != *"note:"* ]]
	fi
}
