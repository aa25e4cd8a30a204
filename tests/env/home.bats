#!/usr/bin/env bats
# sbxrun with the HOMEs users have: under /tmp (CI containers), unset,
# "/", read-only.  The compiled policy always loads (commands run), it is
# never stored where the sandbox can write, sbxrun never warns about its
# own files, and the protections hold, judged from outside.  Both kernel
# modes (landlock-only through tests/probes/nouserns).  Run as root and
# as the unprivileged test user by tests/run-all.sh.

load ../lib/common

setup() {
	sbx_setup
	PROBE="$PROBES/probe.static"
	STORE="/var/tmp/sbxrun-$(id -u)"
	[ -e "$STORE" ] && STORE_WAS=1 || STORE_WAS=
	TH=$(mktemp -d /tmp/sbxhome.XXXXXX)
	mkdir -p "$TH/.ssh"
	echo "$CANARY" > "$TH/.ssh/id_rsa"
}

teardown() {
	rm -rf "$TH"
	[ -n "$STORE_WAS" ] || rm -rf "$STORE"
	sbx_teardown
}

# Inside: an exec (the shim loads the compiled policy first), the
# secret, a write outside the project; print the policy's path.
ATTEMPT='ls "$P" > /dev/null && echo ran > "$P/ran"
cat "$SECRET" > "$P/leak" 2>/dev/null
"$PROBE" open "$SECRET" r > "$P/probe-read" 2>&1
"$PROBE" creat "$OUT/outside" > "$P/probe-write" 2>&1
echo "policy=$SBXRUN_POLICY"'

held() {	# the secret, the place outside
	[ "$(cat "$P/ran")" = ran ] || { echo "no exec" >&2; return 1; }
	[ ! -s "$P/leak" ] || { echo "leaked" >&2; return 1; }
	[[ "$(cat "$P/probe-read")" == "-1 "* ]] || { echo "read: $(cat "$P/probe-read")" >&2; return 1; }
	[[ "$(cat "$P/probe-write")" == "-1 "* ]] || { echo "write: $(cat "$P/probe-write")" >&2; return 1; }
	[ ! -e "$2/outside" ] || { echo "wrote outside" >&2; return 1; }
}

# The output of a run: no word about sbxrun's own files, a policy that
# is out of /tmp (which landlock-only sandboxes can write).
quiet_store() {
	[[ "$output" != *"could not be loaded"* ]] || return 1
	[[ "$output" != *"sbxrun/run' was created"* ]] || return 1
	[[ "$output" != *"/sbxrun-$(id -u)' was created"* ]] || return 1
	local pol
	pol=$(sed -n 's/^policy=//p' <<<"$output")
	[ -n "$pol" ] || { echo "no SBXRUN_POLICY" >&2; return 1; }
	[[ "$pol" != /tmp/* ]] || { echo "store in /tmp: $pol" >&2; return 1; }
	[ -f "$pol" ] || { echo "store missing outside: $pol" >&2; return 1; }
}

@test "HOME under /tmp, extra rules: the policy loads, no warning, secrets hidden (both modes)" {
	require_kernel
	for m in full landlock-only; do
		rm -f "$P"/ran "$P"/leak "$P"/probe-*
		mkdir -p "$P/sub"
		run env HOME="$TH" P="$P" PROBE="$PROBE" SECRET="$TH/.ssh/id_rsa" OUT="$T" \
			"$BATS_TEST_DIRNAME/_inmode.sh" "$m" "$SBXRUN" "$PROBES" \
			--allow-write "$P/sub" --allow-read /usr/share --verbose -c "$ATTEMPT"
		echo "$m: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"mode $m,"* ]]
		quiet_store
		held "$TH/.ssh/id_rsa" "$T"
		no_canary "$output"
	done
}

@test "a fresh HOME: the first run says nothing about sbxrun's own files" {
	require_kernel
	rm -rf "$HOME/.cache"
	run env P="$P" PROBE="$PROBE" SECRET="$HOME/.ssh/id_rsa" OUT="$T" \
		"$SBXRUN" --allow-read /usr/share -c "$ATTEMPT"
	[ "$status" -eq 0 ]
	[[ "$output" != *"warning"* ]]
	quiet_store
	held "$HOME/.ssh/id_rsa" "$T"
}

@test "HOME unset: the home of /etc/passwd, or a private store; it runs" {
	require_kernel
	for m in full landlock-only; do
		rm -f "$P"/ran "$P"/leak "$P"/probe-*
		run env -u HOME P="$P" PROBE="$PROBE" SECRET="$HOME/.ssh/id_rsa" OUT="$T" \
			"$BATS_TEST_DIRNAME/_inmode.sh" "$m" "$SBXRUN" "$PROBES" \
			--hide "$HOME/.ssh" --verbose -c "$ATTEMPT"
		echo "$m: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"mode $m,"* ]]
		quiet_store
		held "$HOME/.ssh/id_rsa" "$T"
	done
}

@test "HOME=/: no state in /, it runs, writes outside refused" {
	require_kernel
	for m in full landlock-only; do
		rm -f "$P"/ran "$P"/leak "$P"/probe-*
		run env HOME=/ P="$P" PROBE="$PROBE" SECRET="$T/home/.ssh/id_rsa" OUT="$T" \
			"$BATS_TEST_DIRNAME/_inmode.sh" "$m" "$SBXRUN" "$PROBES" \
			--hide "$T/home/.ssh" --verbose -c "$ATTEMPT"
		echo "$m: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"mode $m,"* ]]
		quiet_store
		[[ "$(sed -n 's/^policy=//p' <<<"$output")" != /.cache/* ]]
		held "$T/home/.ssh/id_rsa" "$T"
	done
}

@test "a read-only HOME: the store goes elsewhere, it runs" {
	require_kernel
	mkdir -p "$T/ro/.ssh"
	echo "$CANARY" > "$T/ro/.ssh/id_rsa"
	if [ "$(id -u)" = 0 ]; then
		# root writes anywhere: make the home a read-only mount, in a
		# mount namespace of the test's own
		wrap=(unshare -m --propagation private sh -c
			'mount --bind -o ro "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"' "$T/ro")
	else
		chmod 555 "$T/ro"
		wrap=()
	fi
	for m in full landlock-only; do
		rm -f "$P"/ran "$P"/leak "$P"/probe-*
		run "${wrap[@]}" env HOME="$T/ro" P="$P" PROBE="$PROBE" SECRET="$T/ro/.ssh/id_rsa" OUT="$T" \
			"$BATS_TEST_DIRNAME/_inmode.sh" "$m" "$SBXRUN" "$PROBES" --verbose -c "$ATTEMPT"
		echo "$m: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"mode $m,"* ]]
		quiet_store
		held "$T/ro/.ssh/id_rsa" "$T"
	done
	chmod 755 "$T/ro"
	[ ! -e "$T/ro/.cache" ]
}
