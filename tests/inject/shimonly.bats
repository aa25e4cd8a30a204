#!/usr/bin/env bats
# --shim-only: the shim and a compiled policy, no sandbox, for machines
# where none can nest.  What the shim owns holds for programs that load
# it (exec rules, suffixes, sizes, protected paths) and is explained;
# everything else is not, and sbxrun says ADVISORY before anything runs.
# Judged from outside: the files the refusals protect are unchanged.

load _inject
bats_require_minimum_version 1.5.0

setup() {
	inject_setup
	git -C "$P" init -q
	mkdir -p "$P/notes"
	head -c 4096 /dev/zero > "$P/notes/big.md"
	cat > "$T/notes.conf" <<-EOF
	profile = "default";
	paths = ( { root = "$P/notes"; mode = "rw"; suffixes = [ ".md" ]; max_file_bytes = "1K"; } );
	EOF
}
teardown() { inject_teardown; }

so() { "$SBXRUN" --profile "$T/notes.conf" --shim-only "$@"; }

@test "--shim-only says ADVISORY on stderr before the command, which runs on the host" {
	run --separate-stderr so -c 'echo "SBXRUN=$SBXRUN"; exit 7'
	[ "$status" -eq 7 ]
	[ "$output" = "SBXRUN=advisory" ]
	[[ "${stderr_lines[0]}" == "sbxrun: ADVISORY (--shim-only): NO SANDBOX."* ]]
	[[ "$stderr" == *"secrets are readable"* ]]
	[[ "$stderr" == *"not static programs, raw system calls or a cleared LD_PRELOAD"* ]]
}

@test "--shim-only --dry-run: ADVISORY first; --shim-only with another action is refused" {
	run so --dry-run
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "sbxrun: ADVISORY (--shim-only): NO SANDBOX."* ]]
	[[ "$output" == *"nothing below is kernel-enforced"* ]]
	run so --check /etc/hosts
	[ "$status" -eq 125 ]
	[[ "$output" == *"--shim-only goes with a command or --dry-run"* ]]
}

@test "--shim-only: exec rules, suffixes and sizes hold, explained" {
	run so -c 'su -c id; echo "su=$?"; echo x > notes/Makefile; echo ok > notes/ok.md; cat notes/big.md > /dev/null; echo "cat=$?"'
	echo "$output"
	[[ "$output" == *"refused to run 'su'"* ]]
	[[ "$output" == *su=126* ]]
	[[ "$output" == *"cannot write 'notes/Makefile': no allowed suffix in 'Makefile' (allowed: .md"* ]]
	[[ "$output" == *"cannot read 'notes/big.md': 4096 bytes, over the 1024-byte limit"* ]]
	[[ "$output" == *cat=1* ]]
	[ ! -e "$P/notes/Makefile" ]
	[ "$(cat "$P/notes/ok.md")" = ok ]
}

@test "--shim-only: a protected path holds; what it says to change works with --shim-only" {
	run so -c 'echo evil > .git/hooks/pre-commit'
	echo "$output"
	[ "$status" -ne 0 ]
	[ ! -e "$P/.git/hooks/pre-commit" ]
	[[ "$output" == *"cannot write '.git/hooks/pre-commit': protected, read-only even inside a writable path"* ]]
	# no flag is offered (none lifts a protect entry in full mode); the
	# way the policy changes is, and it works
	[[ "$output" != *"to allow:"* ]]
	[[ "$output" == *"no flag lifts that: to change it, use a profile of your own without it in 'protect' (--profile FILE)"* ]]
	printf 'paths = ( { root = "/"; mode = "ro"; } );\n' > "$T/noprotect.conf"
	run so --profile "$T/noprotect.conf" -c 'echo fine > .git/hooks/pre-commit'
	[ "$status" -eq 0 ]
	[ "$(cat "$P/.git/hooks/pre-commit")" = fine ]
}

@test "--shim-only is advisory, as it says: a static program goes around the shim" {
	# The label is the claim: show from outside that it is true.
	run so -- "$SBX_SYS.static" write "$P/notes/Makefile" x
	echo "$output"
	[ -e "$P/notes/Makefile" ]
}
