#!/usr/bin/env bats
# sbxrun inside sbxrun, with the outer sandbox in each mode and nothing
# set by hand (no XDG_RUNTIME_DIR): the inner sandbox runs (landlock-only,
# stacked on the outer's layers, without a "weaker" warning), keeps the
# secrets hidden and writes outside refused, judged from outside; asking
# the inner sandbox for more than the outer allows is refused before
# anything runs, with the flag that would allow it.  Run as root and as
# the unprivileged test user by tests/run-all.sh.

load ../lib/common

setup() {
	sbx_setup
	PROBE="$PROBES/probe.static"
}
teardown() { sbx_teardown; }

# outer mode, outer args..., --, inner args...
nest() {
	local m=$1 outer=()
	shift
	while [ "$1" != -- ]; do outer+=("$1"); shift; done
	shift
	"$SBXRUN" --quiet --mode "$m" "${outer[@]}" -- \
		env ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 \
		"$SBXRUN" "$@"
}

ATTEMPT='cat "$HOME/.ssh/id_rsa" > "$P/leak" 2>/dev/null
"$PROBE" open "$HOME/.ssh/id_rsa" r > "$P/probe-read" 2>&1
"$PROBE" creat "$HOME/outside" > "$P/probe-write" 2>&1
echo ran > "$P/ran"'

held() {
	[ "$(cat "$P/ran")" = ran ] || { echo "did not run" >&2; return 1; }
	[ ! -s "$P/leak" ] || { echo "leaked" >&2; return 1; }
	[[ "$(cat "$P/probe-read")" == "-1 "* ]] || { echo "read: $(cat "$P/probe-read")" >&2; return 1; }
	[[ "$(cat "$P/probe-write")" == "-1 "* ]] || { echo "write: $(cat "$P/probe-write")" >&2; return 1; }
	[ ! -e "$HOME/outside" ] || { echo "wrote outside" >&2; return 1; }
}

@test "nested in both outer modes: runs, no warning, protections hold" {
	require_kernel
	for m in full landlock-only; do
		rm -f "$P"/ran "$P"/leak "$P"/probe-*
		run nest "$m" -- --verbose -c "P='$P' PROBE='$PROBE'; $ATTEMPT"
		echo "$m: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"mode landlock-only, layers landlock"* ]]
		[[ "$output" != *"weaker"* ]]
		held
		no_canary "$output"
	done
}

@test "nested: --status says why the inner sandbox is landlock-only" {
	require_kernel
	run nest full -- --status
	[ "$status" -eq 0 ]
	[[ "$output" == *"user namespaces: no -- inside another sbxrun sandbox"*"stacked on the outer one's layers"* ]]
	[[ "$output" == *"mode: landlock-only"$'\n'* ]]
}

@test "nested: asking more than the outer sandbox allows is refused, nothing runs" {
	require_kernel
	for m in full landlock-only; do
		run nest "$m" -- --allow-read "$HOME/.ssh" -c "cat '$HOME/.ssh/id_rsa'; echo ran > '$P/ran'"
		echo "$output"
		[ "$status" -eq 125 ]
		[[ "$output" == *"this sbxrun runs inside another sandbox, which hides '$HOME/.ssh' (asked by --allow-read)"*"to allow: run the outer sbxrun with --allow-read $HOME/.ssh"* ]]
		[ ! -e "$P/ran" ]
		no_canary "$output"
		run nest "$m" -- --allow-write "$HOME" -c "echo x > '$HOME/outside'; echo ran > '$P/ran'"
		[ "$status" -eq 125 ]
		[[ "$output" == *"does not allow writing '$HOME'"* ]]
		[ ! -e "$P/ran" ]
		[ ! -e "$HOME/outside" ]
	done
}

@test "nested: the inner sandbox narrows the outer one" {
	require_kernel
	# the outer lets the secret through; the inner's default profile
	# hides it (in a landlock-only outer, which lets sbxrun read but not
	# list your home, the inner cannot and says so: nothing runs)
	run nest full --allow-read "$HOME/.ssh" -- -c "cat '$HOME/.ssh/id_rsa' > '$P/leak' 2>/dev/null; echo ran > '$P/ran'"
	[ "$status" -eq 0 ]
	[ "$(cat "$P/ran")" = ran ]
	[ ! -s "$P/leak" ]
	rm -f "$P/ran"
	run nest landlock-only --allow-read "$HOME/.ssh" -- -c "cat '$HOME/.ssh/id_rsa' > '$P/leak' 2>/dev/null; echo ran > '$P/ran'"
	if [ "$status" -eq 0 ]; then
		[ "$(cat "$P/ran")" = ran ]
	else
		[ "$status" -eq 125 ]
		[[ "$output" == *"cannot keep '$HOME/.ssh' hidden"*"hide it in the outer sandbox too"* ]]
		[ ! -e "$P/ran" ]
	fi
	[ ! -s "$P/leak" ]
	# the inner sandbox's own hide, inside the project: held in a full
	# outer sandbox; a landlock-only outer lets sbxrun read but not list
	# "/", so the inner cannot carve around it: refused, nothing runs
	mkdir -p "$P/private" && echo "$CANARY" > "$P/private/k"
	run nest full -- --hide "$P/private" -c "cat '$P/private/k'; '$PROBE' open '$P/private/k' r"
	echo "$output"
	[ "$status" -eq 0 ]
	no_canary "$output"
	[[ "$output" == *"-1 13"* ]]
	run nest landlock-only -- --hide "$P/private" -c "cat '$P/private/k'; echo ran > '$P/ran'"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" == *"cannot keep '$P/private' hidden"* ]]
	[ ! -e "$P/ran" ]
	no_canary "$output"
}
