#!/usr/bin/env bats
# The environments users run sbxrun in, each simulated inside the test and
# leaving nothing on the host: a container's masked /proc (a mount
# namespace of the test's own), user namespaces refused early (a seccomp
# filter on CLONE_NEWUSER, as Docker's) or late (created, but mounts in
# them refused, as Ubuntu's AppArmor), Landlock missing or capped at each
# ABI (SBXRUN_TEST_LANDLOCK_ABI, which can only lower it).  Each test
# asserts the mode used, the message, and, from outside, that the
# promised protections hold: the secret stays hidden (also from a static
# probe the shim never sees), writes outside the project are refused.
# Run as root and as the unprivileged test user by tests/run-all.sh.

load ../lib/common

setup() {
	sbx_setup
	NOUSERNS="$PROBES/nouserns"
	PROBE="$PROBES/probe.static"
}
teardown() { sbx_teardown; }

deny() {
	mkdir -p "$HOME/.config/sbxrun"
	echo 'fallback = "deny";' > "$HOME/.config/sbxrun/config"
}

# Run "$@" with part of /proc covered by a mount, as Docker, Podman and
# bwrap --proc leave it; in a mount namespace of its own (a user
# namespace too when not root), gone when the command ends.
masked() {
	local m
	for m in /proc/timer_list /proc/kcore /proc/keys /proc/sysrq-trigger; do
		[ -e "$m" ] && break
	done
	local sh='mount --bind /dev/null "$0" && exec "$@"'
	if [ "$(id -u)" = 0 ]; then
		unshare -m --propagation private sh -c "$sh" "$m" "$@"
	else
		# a user namespace of the test's own: root's files show as
		# nobody's there, which sbxrun does not trust for profiles
		[ -d "$T/profiles" ] || cp -r "$SBXRUN_PROFILE_DIR" "$T/profiles"
		SBXRUN_PROFILE_DIR="$T/profiles" unshare -rm sh -c "$sh" "$m" "$@"
	fi
}

# What the command does inside: try the secret (through the shim and with
# a static probe), write outside the project, and say it ran.
ATTEMPT='cat "$HOME/.ssh/id_rsa" > "$P/leak" 2>/dev/null
"$PROBE" open "$HOME/.ssh/id_rsa" r > "$P/probe-read" 2>&1
echo x > "$HOME/outside" 2>/dev/null
"$PROBE" creat "$HOME/outside2" > "$P/probe-write" 2>&1
echo ran > "$P/ran"'

# sbxrun's arguments, then the attempt.
attempt() {
	env HOME="$HOME" P="$P" PROBE="$PROBE" "$@" --verbose -c "$ATTEMPT"
}

# Judged from outside: it ran, and nothing got through.  Each check
# returns on its own, so the function fails under `run` too.
held() {
	[ "$(cat "$P/ran")" = ran ] || { echo "did not run" >&2; return 1; }
	[ ! -s "$P/leak" ] || { echo "leaked: $(cat "$P/leak")" >&2; return 1; }
	no_canary "$(cat "$P/leak" "$P/probe-read")" || return 1
	[[ "$(cat "$P/probe-read")" == "-1 "* ]] ||
		{ echo "static read: $(cat "$P/probe-read")" >&2; return 1; }
	[[ "$(cat "$P/probe-write")" == "-1 "* ]] ||
		{ echo "static write: $(cat "$P/probe-write")" >&2; return 1; }
	[ ! -e "$HOME/outside" ] || { echo "wrote outside" >&2; return 1; }
	[ ! -e "$HOME/outside2" ] || { echo "wrote outside (static)" >&2; return 1; }
}

@test "plain machine: full mode, no warning, protections hold" {
	require_kernel
	run attempt "$SBXRUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"mode full, layers userns,mntns,pidns"* ]]
	[[ "$output" != *"weaker"* ]]
	held
}

@test "masked /proc: full mode with the host's /proc, said in one line with the fix" {
	require_kernel
	run masked "$SBXRUN" --status
	[ "$status" -eq 0 ]
	[[ "$output" == *"fresh /proc: no -- parts of this /proc are covered"*"systempaths=unconfined"* ]]
	[[ "$output" == *"mode: full, weaker than full mode (fallback = warn): the host's /proc"* ]]
	[[ "$output" == *"/proc of outside processes"*"partial (the host's /proc"* ]]
	run masked "$SBXRUN" --dry-run
	[[ "$output" == *"/proc of outside processes"*"partial (the host's /proc"* ]]
	run masked env HOME="$HOME" P="$P" PROBE="$PROBE" "$SBXRUN" --verbose -c "$ATTEMPT"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'weaker sandbox' <<<"$output")" -eq 1 ]
	[[ "$output" == *"warning: weaker sandbox (fallback = warn): the host's /proc instead of a fresh one"*"fix: start the container with its /proc unmasked"* ]]
	[[ "$output" == *"mode full, layers userns,mntns,pidns"* ]]
	held
}

@test "masked /proc, fallback = deny: refused with the fix, nothing runs" {
	require_kernel
	deny
	run masked env HOME="$HOME" "$SBXRUN" -c "echo ran > '$P/ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *"a fresh /proc is refused"*"fix:"*'fallback = "deny" refuses'* ]]
	[ ! -e "$P/ran" ]
	run masked env HOME="$HOME" "$SBXRUN" --status
	[ "$status" -ne 0 ]
	[[ "$output" == *'mode: none: fallback = "deny" refuses a sandbox weaker than full mode'* ]]
}

@test "user namespaces refused early: landlock-only, said with the fix" {
	require_kernel
	run "$NOUSERNS" early "$SBXRUN" --status
	[[ "$output" == *"user namespaces: no -- unshare(CLONE_NEWUSER) is blocked by a seccomp filter"* ]]
	[[ "$output" == *"mode: landlock-only, weaker than full mode"* ]]
	run attempt "$NOUSERNS" early "$SBXRUN"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'weaker sandbox' <<<"$output")" -eq 1 ]
	[[ "$output" == *"weaker sandbox (fallback = warn): landlock-only mode, because user namespaces are not available: unshare(CLONE_NEWUSER) is blocked by a seccomp filter"*"allow unshare"* ]]
	[[ "$output" == *"mode landlock-only, layers landlock,seccomp"* ]]
	held
}

@test "user namespaces refused early, fallback = deny: refused, nothing runs" {
	require_kernel
	deny
	run "$NOUSERNS" early env HOME="$HOME" "$SBXRUN" -c "echo ran > '$P/ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *'fallback = "deny" refuses a sandbox weaker than full mode: landlock-only mode'*"seccomp filter"* ]]
	[ ! -e "$P/ran" ]
	# --mode landlock-only is the user's own choice: no fallback involved.
	run "$NOUSERNS" early env HOME="$HOME" "$SBXRUN" --mode landlock-only -c "echo ran > '$P/ran'"
	[ "$status" -eq 0 ]
	[[ "$output" != *"weaker"* ]]
	[ "$(cat "$P/ran")" = ran ]
}

@test "user namespaces refused late (mounts refused inside): landlock-only, said" {
	require_kernel
	run "$NOUSERNS" late "$SBXRUN" --status
	[[ "$output" == *"user namespaces: no -- user namespaces are created but mounts in them are refused"* ]]
	run attempt "$NOUSERNS" late "$SBXRUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"weaker sandbox (fallback = warn): landlock-only mode"*"mounts in them are refused"*"fix:"* ]]
	[[ "$output" == *"mode landlock-only"* ]]
	held
	run "$NOUSERNS" late env HOME="$HOME" "$SBXRUN" --mode full -c "echo ran > '$P/ran2'"
	[ "$status" -eq 125 ]
	[[ "$output" == *"mode full needs user namespaces: user namespaces are created but mounts in them are refused"* ]]
	[ ! -e "$P/ran2" ]
}

@test "Landlock missing: full mode without it, said; deny refuses" {
	require_kernel
	export SBXRUN_TEST_LANDLOCK_ABI=0
	run "$SBXRUN" --status
	[[ "$output" == *"landlock: no -- disabled by SBXRUN_TEST_LANDLOCK_ABI=0"* ]]
	run attempt "$SBXRUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"weaker sandbox (fallback = warn): no Landlock"* ]]
	[[ "$output" == *"mode full, layers userns"* ]]
	[[ "$output" != *"landlock,"* ]]
	held
	deny
	run env HOME="$HOME" "$SBXRUN" -c "echo ran > '$P/ran2'"
	[ "$status" -eq 125 ]
	[[ "$output" == *'fallback = "deny" refuses'*"no Landlock"* ]]
	[ ! -e "$P/ran2" ]
}

@test "neither user namespaces nor Landlock: no sandbox, refused even under warn" {
	require_kernel
	SBXRUN_TEST_LANDLOCK_ABI=0 run "$NOUSERNS" early env HOME="$HOME" "$SBXRUN" -c "echo ran > '$P/ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *"no kernel sandbox is available: user namespaces:"*"Landlock: disabled"* ]]
	[[ "$output" != *"weaker"* ]]	# no word about a mode that never ran
	[ ! -e "$P/ran" ]
}

@test "Landlock capped at each ABI 1-6: both modes hold, older ABIs said" {
	require_kernel
	real=$("$SBXRUN" --status | sed -n 's/^landlock: yes (ABI \([0-9]*\).*/\1/p')
	[ -n "$real" ]
	for abi in 1 2 3 4 5 6; do
		[ "$abi" -le "$real" ] || continue
		export SBXRUN_TEST_LANDLOCK_ABI=$abi
		run "$SBXRUN" --status
		[[ "$output" == *"landlock: yes (ABI $abi"* ]]
		if [ "$abi" -lt 6 ] && [ "$abi" -lt "$real" ]; then
			[[ "$output" == *"capped by SBXRUN_TEST_LANDLOCK_ABI; below 6"*"fix:"* ]]
		fi
		rm -f "$P"/ran "$P"/leak "$P"/probe-*
		run attempt "$SBXRUN"
		[ "$status" -eq 0 ]
		[[ "$output" == *"mode full, layers userns,mntns,pidns,ipcns,netns,landlock"* ]]
		held
		rm -f "$P"/ran "$P"/leak "$P"/probe-*
		run attempt "$NOUSERNS" early "$SBXRUN"
		[ "$status" -eq 0 ]
		[[ "$output" == *"mode landlock-only, layers landlock"* ]]
		if [ "$abi" -lt 4 ]; then
			[[ "$output" == *"network = off is held by the seccomp socket filter alone (Landlock ABI $abi"* ]]
		else
			[[ "$output" != *"network = off is held"* ]]
		fi
		held
	done
	unset SBXRUN_TEST_LANDLOCK_ABI
}

@test "the judge can fail: a secret let through is seen" {
	require_kernel
	run attempt "$SBXRUN" --allow-read "$HOME/.ssh" --allow-write "$HOME"
	[ "$status" -eq 0 ]
	run held
	[ "$status" -ne 0 ]
}

@test "SBXRUN_TEST_LANDLOCK_ABI never raises the ABI" {
	require_kernel
	real=$("$SBXRUN" --status | sed -n 's/^landlock: yes (ABI \([0-9]*\).*/\1/p')
	SBXRUN_TEST_LANDLOCK_ABI=$((real + 5)) run "$SBXRUN" --status
	[[ "$output" == *"landlock: yes (ABI $real"* ]]
	[[ "$output" != *"capped"* ]]
}

@test "bubblewrap's --proc (its masked /proc): runs, said, protections hold" {
	require_kernel
	command -v bwrap >/dev/null || skip "bubblewrap is not installed"
	local user=()
	[ "$(id -u)" = 0 ] || user=(--unshare-user)
	run bwrap --dev-bind / / --proc /proc --unshare-pid "${user[@]}" --die-with-parent \
		env HOME="$HOME" P="$P" PROBE="$PROBE" "$SBXRUN" --verbose -c "$ATTEMPT"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"mode full, layers userns"* ]]
	# as root, bwrap's read-only binds over /proc/irq and /proc/bus
	# mask it; the warning then says so, once
	if [[ "$output" == *"weaker"* ]]; then
		[ "$(grep -c 'weaker sandbox' <<<"$output")" -eq 1 ]
		[[ "$output" == *"the host's /proc instead of a fresh one"*"bwrap:"* ]]
	fi
	held
}
