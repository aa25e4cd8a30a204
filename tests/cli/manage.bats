#!/usr/bin/env bats
# Managing the per-project conf as a person does (issue 15): --add-path
# PATH=MODE validated, a missing directory made, --edit rolled back like
# visudo, --trust saying what it widens, type errors naming the type,
# colour on a terminal unless NO_COLOR.  Judged by what the next run does.

load ../lib/common

setup() { sbx_setup; }
teardown() { sbx_teardown; }

PTY="$BATS_TEST_DIRNAME/../lib/ptyrun.py"

@test "--add-path PATH=MODE: an unknown mode is refused and nothing is stored" {
	run "$SBXRUN" --add-path /srv=rwx
	[ "$status" -eq 125 ]
	[[ "$output" == *"unknown mode 'rwx' in '/srv=rwx': a mode is rw, ro or hide"* ]]
	run "$SBXRUN" --list-paths
	[[ "$output" != *"/srv=rwx"* ]]
	[[ "$output" != *"rw    /srv "* ]]
	# A '=' inside a path is a path.
	mkdir -p "$T/a=b/c"
	run "$SBXRUN" --add-path "$T/a=b/c=ro"
	[ "$status" -eq 0 ]
	run "$SBXRUN" --list-paths
	[[ "$output" == *"ro    $T/a=b/c "* ]]
}

@test "--add-path: a rule the policy would ignore is refused with the reason, the conf put back" {
	mkdir -p "$T/x"
	"$SBXRUN" --add-path "$T/x=ro"
	conf=$("$SBXRUN" --add-path "$T/x=ro" | sed -n 's/.* to //p')
	before=$(cat "$conf")
	run "$SBXRUN" --add-path ~/.ssh/known_hosts=ro
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" == *"not added, the rule would be ignored: $conf:"*"'$HOME/.ssh/known_hosts' is inside hidden '$HOME/.ssh'"*"a command-line flag can lift a hide"* ]]
	[ "$(cat "$conf")" = "$before" ]
	# No warning left behind for later runs.
	run "$SBXRUN" --list-paths
	[[ "$output" != *warning* ]]
}

@test "--add-path of a missing directory makes it outside, and the sandbox can use it" {
	run "$SBXRUN" --add-path ~/.cache/my-tool
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"created the directory $HOME/.cache/my-tool"* ]]
	[ -d "$HOME/.cache/my-tool" ]
	run "$SBXRUN" -c 'mkdir ~/.cache/my-tool/sub && echo made > ~/.cache/my-tool/sub/f'
	[ "$status" -eq 0 ]
	[ "$(cat "$HOME/.cache/my-tool/sub/f")" = made ]
}

@test "--edit: a conf that does not load is rolled back (non-interactive: exit 125)" {
	mkdir -p "$T/x"
	conf=$("$SBXRUN" --add-path "$T/x=ro" | sed -n 's/.* to //p')
	before=$(cat "$conf")
	EDITOR="sh -c 'echo \"limits = { timeout = \\\"ten\\\"; };\" >> \$0'" run "$SBXRUN" --edit </dev/null
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" == *"does not load: $conf:"*"'timeout' must be a number of seconds, such as 30, not a string \"ten\""* ]]
	[[ "$output" == *"rolled back"* ]]
	[ "$(cat "$conf")" = "$before" ]
	run "$SBXRUN" -- true
	[ "$status" -eq 0 ]
	# A good edit stays.
	EDITOR="sh -c 'echo \"# fine\" >> \$0'" run "$SBXRUN" --edit
	[ "$status" -eq 0 ]
	[[ "$(cat "$conf")" == *"# fine"* ]]
}

@test "--edit on a terminal: re-edit or roll back, like visudo" {
	mkdir -p "$T/x"
	conf=$("$SBXRUN" --add-path "$T/x=ro" | sed -n 's/.* to //p')
	before=$(cat "$conf")
	# first edit breaks it; asked, edit again: the second edit fixes it
	printf '#!/bin/sh\nif [ -e "%s/broke" ]; then sed -i "/^garbage/d" "$1"; else touch "%s/broke"; echo "garbage =" >> "$1"; fi\n' "$T" "$T" > "$T/ed"
	chmod 755 "$T/ed"
	run python3 "$PTY" --send e -- env EDITOR="$T/ed" "$SBXRUN" --edit
	echo "$output"
	[[ "$output" == *"(e)dit again or (r)oll back"* ]]
	[[ "$output" == *"is valid"* ]]
	[[ "$output" == *"EXIT 0"* ]]
	[ "$(cat "$conf")" = "$before" ]
	# broken again, rolled back on request
	rm -f "$T/broke"
	run python3 "$PTY" --send r -- env EDITOR="sh -c 'echo garbage = >> \$0'" "$SBXRUN" --edit
	[[ "$output" == *"rolled back"* ]]
	[[ "$output" == *"EXIT 125"* ]]
	[ "$(cat "$conf")" = "$before" ]
}

@test "--trust says what the conf widens before recording it; declined on a terminal, nothing recorded" {
	mkdir -p "$T/srv"
	printf 'paths = ( { root = "%s/srv"; mode = "rw"; }, { root = "build"; mode = "rw"; } );\nnetwork = { mode = "filtered"; allow = [ "example.org" ]; };\nenv = { keep = [ "AWS_*" ]; };\n' "$T" > .sbxrun.conf
	run python3 "$PTY" --send n -- "$SBXRUN" --trust
	echo "$output"
	[[ "$output" == *"$P/.sbxrun.conf widens the sandbox with:"* ]]
	[[ "$output" == *"rw    $T/srv  ($P/.sbxrun.conf:1)"* ]]
	[[ "$output" != *"$P/build"* ]]
	[[ "$output" == *"network: filtered ($P/.sbxrun.conf:2)"*"allow example.org"* ]]
	[[ "$output" == *"env keep: AWS_* ($P/.sbxrun.conf:3)"* ]]
	[[ "$output" == *"EXIT 125"* ]]
	run "$SBXRUN" --check "$T/srv/f"
	[[ "$output" == *"not trusted"* ]]
	run "$SBXRUN" --trust </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *"rw    $T/srv"*"trusted $P/.sbxrun.conf"* ]]
	run "$SBXRUN" --check "$T/srv/f"
	[[ "$output" == *": writable"* ]]
}

@test "type errors name the type expected" {
	for kv in 'timeout = "ten"' 'memory = true' 'nofile = "many"'; do
		printf 'profile = "default";\nlimits = { %s; };\n' "$kv" > "$T/l.conf"
		run "$SBXRUN" --profile "$T/l.conf" --list-paths
		[ "$status" -eq 125 ]
		echo "$output" >&2
		case $kv in
		timeout*) [[ "$output" == *"'timeout' must be a number of seconds, such as 30, not a string \"ten\""* ]] ;;
		memory*) [[ "$output" == *"'memory' must be a number of bytes or a size such as \"512M\" or \"8G\", not true or false"* ]] ;;
		nofile*) [[ "$output" == *"'nofile' must be a whole number, such as 1024, not a string \"many\""* ]] ;;
		esac
	done
}

@test "colour for sbxrun's own lines on a terminal, none with NO_COLOR or off a terminal" {
	run python3 "$PTY" -- env TERM=xterm "$SBXRUN" --mode bogus
	[[ "$output" == *$'\e[1msbxrun:\e[0m --mode takes'* ]]
	run python3 "$PTY" -- env TERM=xterm NO_COLOR=1 "$SBXRUN" --mode bogus
	[[ "$output" == *"sbxrun: --mode takes"* ]]
	[[ "$output" != *$'\e['* ]]
	run "$SBXRUN" --mode bogus
	[[ "$output" != *$'\e['* ]]
}

@test "--help has examples, --version the version" {
	run "$SBXRUN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"examples:"*"sbxrun -- npm install"* ]]
	[[ "$output" == *"--sh"*"--shim-only"* ]]
	run "$SBXRUN" --version
	[[ "$output" == "sbxrun $(sed -n 's/^VERSION *:*= *//p' "$SBX_TOP/GNUmakefile")" ]]
}
