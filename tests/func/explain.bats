#!/usr/bin/env bats
# Issue 13: every refusal explained once, and every "to allow" works.
# The exec rules for the command sbxrun starts, and the programs that run
# another one (the dynamic loader, busybox), judged like a program the
# shim sees inside; one line per distinct refusal.

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/../escape/_lib.bats"

setup() {
	esc_setup
	# Stand-ins named like the denied programs: each says it ran.
	mkdir -p "$T/bin"
	for p in sudo rm; do
		printf '#!/bin/sh\necho "%s RAN $*"\n' "$p" > "$T/bin/$p"
		chmod 755 "$T/bin/$p"
	done
	# an ELF the loader can run, named ssh
	cp /bin/true "$T/bin/ssh"
	cp /bin/true "$T/bin/busybox"
	chmod 755 "$T"
}
teardown() { esc_teardown; }

# count TEXT NEEDLE: how many lines of TEXT contain NEEDLE
count() { printf '%s\n' "$1" | grep -cF -- "$2" || true; }

SUDO_LINE="sbxrun: refused to run 'sudo': privilege escalation is not available in this sandbox (rule sudo from $SBX_TOP/profiles/default.conf:"

@test "the top-level command meets the exec rules: -- sudo ls as -c 'sudo ls'" {
	run --separate-stderr env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -- sudo ls
	echo "$stderr"
	[ "$status" -eq 126 ]
	[[ "$output" != *"RAN"* ]]
	[ "$(count "$stderr" "$SUDO_LINE")" = 1 ]
	top=$(printf '%s\n' "$stderr" | grep -F "refused to run")
	run --separate-stderr env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -c 'sudo ls'
	echo "$stderr"
	[ "$status" -eq 126 ]
	[[ "$output" != *"RAN"* ]]
	inside=$(printf '%s\n' "$stderr" | grep -F "refused to run")
	[ "$top" = "$inside" ]
	[[ "$stderr" == *"sbxrun: 1 refusal in this run:"* ]]
	# found in two PATH directories, and missing from the others the
	# shell tries first: still one line, one refusal
	mkdir "$T/bin2" && cp "$T/bin/sudo" "$T/bin2/sudo"
	run --separate-stderr env PATH="$T/none:$T/bin:$T/bin2:$PATH" "$SBXRUN" --mode "$SBX_MODE" -c 'sudo ls; sudo id'
	echo "$stderr"
	[ "$(count "$stderr" "$SUDO_LINE")" = 1 ]
	[[ "$stderr" == *"sbxrun: 1 refusal in this run:"* ]]
	# not installed at all: the shell's "not found", nothing refused
	run -127 --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'PATH=/nonexistent sudo ls'
	[[ "$stderr" != *"refused"* ]]
	# and in the report, as the launcher's own record
	run env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" --quiet --report "$T/r.json" -- sudo ls
	grep -q '"exec-denied"' "$T/r.json"
	# a user's own rule too
	printf 'profile = "default";\nexec = { deny = ( { program = "true"; reason = "no truth"; } ); };\n' > "$T/t.conf"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --profile "$T/t.conf" -- true
	echo "$stderr"
	[ "$status" -eq 126 ]
	[[ "$stderr" == *"refused to run 'true': no truth (rule true from $T/t.conf:2)"* ]]
}

@test "rm -r of every directory below / is refused like rm -rf /, outside and inside" {
	dirs=(/*)
	run --separate-stderr env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -- rm -rf "${dirs[@]}"
	echo "$output $stderr"
	[ "$status" -eq 126 ]
	[[ "$output" != *"RAN"* ]]
	[ "$(count "$stderr" "refused to run 'rm': deleting the whole filesystem is never allowed")" = 1 ]
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c "PATH=$T/bin:\$PATH; rm -rf /*"
	echo "$output $stderr"
	[[ "$output" != *"RAN"* ]]
	[ "$(count "$stderr" "refused to run 'rm': deleting the whole filesystem is never allowed")" = 1 ]
	# fewer than all of them, or not recursive: rm runs (the stand-in)
	run env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -- rm -rf /usr /etc
	[ "$status" -eq 0 ]
	[[ "$output" == *"rm RAN"* ]]
	run env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -- rm "${dirs[@]}"
	[[ "$output" == *"rm RAN"* ]]
}

@test "the dynamic loader and busybox are judged by the program they run" {
	ld=$(ls /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 2>/dev/null | head -1)
	[ -n "$ld" ] || skip "no dynamic loader at a known path"
	line="refused to run '$T/bin/ssh': remote logins are not available"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -- "$ld" "$T/bin/ssh"
	echo "$stderr"
	[ "$status" -eq 126 ]
	[ "$(count "$stderr" "$line")" = 1 ]
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c "$ld --argv0 x $T/bin/ssh"
	echo "$stderr"
	[ "$status" -eq 126 ]
	[ "$(count "$stderr" "$line")" = 1 ]
	# the loader with an allowed program runs it
	run "$SBXRUN" --mode "$SBX_MODE" -- "$ld" /bin/echo loaded
	[ "$status" -eq 0 ]
	[ "$output" = loaded ]
	# a multi-call program by its applet (the stand-in is /bin/true)
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -- "$T/bin/busybox" ssh host
	[ "$status" -eq 126 ]
	[ "$(count "$stderr" "refused to run 'ssh': remote logins")" = 1 ]
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c "$T/bin/busybox sudo id"
	[ "$status" -eq 126 ]
	[ "$(count "$stderr" "refused to run 'sudo': privilege escalation")" = 1 ]
	run "$SBXRUN" --mode "$SBX_MODE" -- "$T/bin/busybox" ls
	[ "$status" -eq 0 ]
}

@test "nothing is said of what is not there: absent hidden files, rm -rf of missing paths" {
	rm -f "$HOME/.npmrc"
	rm -rf "$HOME/.ssh"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --report "$T/r.json" \
		-c 'cat ~/.npmrc ~/.ssh/id_rsa; rm -rf missing ~/missing /usr/missing; chmod 600 ~/missing2; exit 0'
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"sbxrun:"* ]]
	jq -e '.refusals == []' "$T/r.json" >/dev/null
	# an absent file below a hidden directory that exists: landlock-only
	# mode can tell (a stat), full mode cannot see behind its mount and
	# says hidden
	mkdir -p "$HOME/.ssh"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'cat ~/.ssh/id_rsa'
	echo "$stderr"
	if full_mode; then
		[ "$(count "$stderr" "cannot read '$HOME/.ssh/id_rsa': hidden")" = 1 ]
	else
		[[ "$stderr" != *"sbxrun:"* ]]
	fi
	# one that exists is still explained, once
	echo "$CANARY" > "$HOME/.npmrc"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'cat ~/.npmrc ~/.npmrc'
	no_canary "$output"
	[ "$(count "$stderr" "cannot read '$HOME/.npmrc': hidden by the sandbox policy")" = 1 ]
}

@test "interactive bash: the .bash_history refusal is said once, listed once" {
	run --separate-stderr bash -c 'printf "echo hi\nexit\n" | "$0" --mode "$1" -- bash -i' "$SBXRUN" "$SBX_MODE"
	echo "$stderr"
	[ "$(count "$stderr" ".bash_history': hidden by the sandbox policy")" = 1 ]
	[ "$(count "$stderr" "$HOME/.bash_history (hidden")" = 1 ]
	no_canary "$output$stderr"
}

@test "--profile strict does not warn about its own rules" {
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --profile strict -- true
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}
