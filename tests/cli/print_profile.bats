#!/usr/bin/env bats
# sbxrun --print-profile seatbelt: the policy as a macOS Seatbelt profile
# (the generator itself is tested in tests/unit/test_seatbelt.c).

load ../lib/common
bats_require_minimum_version 1.5.0

setup() { sbx_setup; }
teardown() { sbx_teardown; }

@test "--print-profile seatbelt: deny default, the project writable, secrets hidden" {
	run "$SBXRUN" --print-profile seatbelt
	[ "$status" -eq 0 ]
	[[ "$output" == *"(version 1)"$'\n'"(deny default)"* ]]
	[[ "$output" == *";; project: \"$P\""* ]]
	[[ "$output" == *"(allow file-write*"$'\n'"  (require-all"$'\n'"    (subpath \"$P\")"* ]]
	[[ "$output" == *"(deny file-read* process-exec file-map-executable (subpath \"$HOME/.ssh\")"* ]]
	# no rule allows everything (the text may name it in a comment)
	run grep -c "^(allow default" <<<"$output"
	[ "$output" = 0 ]
}

@test "--print-profile follows --workdir, --profile and flags" {
	mkdir -p "$T/other"
	run "$SBXRUN" --workdir "$T/other" --profile strict --hide "$T/other/keys" \
		--print-profile seatbelt
	[ "$status" -eq 0 ]
	[[ "$output" == *"generated from the policy \"strict\""* ]]
	[[ "$output" == *";; project: \"$T/other\""* ]]
	[[ "$output" == *"; \"$T/other/keys\" hide, from \"--hide\""* ]]
}

@test "--print-profile: an unknown format is exit 125 and prints nothing" {
	run --separate-stderr "$SBXRUN" --print-profile apparmor
	[ "$status" -eq 125 ]
	[ -z "$output" ]
	[[ "$stderr" == *"unknown profile format 'apparmor' (known: seatbelt)"* ]]
}

@test "--print-profile runs nothing" {
	run "$SBXRUN" --print-profile seatbelt -- touch "$P/x"
	[ "$status" -eq 125 ]
	[ ! -e "$P/x" ]
}
