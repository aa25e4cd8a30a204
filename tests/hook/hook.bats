#!/usr/bin/env bats
# Hook mode (sbxrun --hook claude-code) and scripts/install-hook.sh.
#
# Inputs are recorded PreToolUse payloads (fixtures/, cwd replaced by the
# test project) or built with jq for hostile commands.  The rewritten
# command is judged by running it with sh -c, as the agent's shell would:
# same stdout and status as the original run unsandboxed for harmless
# commands; refused, explained and canary-free for secrets.

bats_require_minimum_version 1.5.0
load ../lib/common

FIX="$BATS_TEST_DIRNAME/fixtures"
INSTALL="$SBX_TOP/scripts/install-hook.sh"

setup() {
	sbx_setup
	SBX_REAL=$(readlink -f "$SBXRUN")
}
teardown() { sbx_teardown; }

# ------------------------------------------------------------ helpers

hook() { "$SBXRUN" --mode "$SBX_MODE" --hook claude-code; }

# A recorded fixture, for the test project.
fx() { jq -c --arg cwd "$P" '.cwd = $cwd' "$FIX/$1"; }
answer_fx() { fx "$1" | hook; }

# A PreToolUse input for the Bash tool running $1 in ${2:-$P}.
cmd_input() {
	jq -nc --arg c "$1" --arg cwd "${2:-$P}" '{session_id: "s",
		transcript_path: "/t", cwd: $cwd, permission_mode: "default",
		hook_event_name: "PreToolUse", tool_name: "Bash",
		tool_input: {command: $c, description: "test"},
		tool_use_id: "toolu_test"}'
}
answer_cmd() { cmd_input "$@" | hook; }
answer_raw() { printf '%s' "$1" | hook; }

decision() { jq -r '.hookSpecificOutput.permissionDecision' <<<"$1"; }
reason() { jq -r '.hookSpecificOutput.permissionDecisionReason' <<<"$1"; }
# file:line of the default profile's sudo rule, as explanations name it
sudo_rule_src() {
	echo "$SBX_TOP/profiles/default.conf:$(grep -n 'program = "sudo"' "$SBX_TOP/profiles/default.conf" | cut -d: -f1)"
}
rewritten() { jq -r '.hookSpecificOutput.updatedInput.command' <<<"$1"; }

# The answer is a deny with a reason from sbxrun.
is_deny() {
	[ "$(jq -r '.hookSpecificOutput.hookEventName' <<<"$1")" = PreToolUse ]
	[ "$(decision "$1")" = deny ]
	[[ "$(reason "$1")" == sbxrun* ]]
	[ "$(jq -r '.hookSpecificOutput | has("updatedInput")' <<<"$1")" = false ]
}

# stdout and status of $1 run plainly, then through the hook's rewrite,
# each with sh -c in the project (stdin from $2 if given).
roundtrip() {
	local c=$1 in=${2:-} a rw want got
	a=$(answer_cmd "$c")
	[ "$(decision "$a")" = allow ] || { echo "not allowed: $a"; return 1; }
	rw=$(rewritten "$a")
	want=$(cd "$P" && printf '%s' "$in" | sh -c "$c" 2>/dev/null; echo "status=$?")
	got=$(cd "$P" && printf '%s' "$in" | sh -c "$rw" 2>/dev/null; echo "status=$?")
	if [ "$got" != "$want" ]; then
		echo "command:   $c"
		echo "rewritten: $rw"
		echo "want: $want"
		echo "got:  $got"
		return 1
	fi
}

# ------------------------------------------------------------ protocol

@test "other tools pass through: no output, exit 0" {
	for f in tool-read.json tool-edit.json tool-write.json tool-mcp.json; do
		run --separate-stderr answer_fx "$f"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
	done
}

@test "Bash: allow, with the command rewritten and every tool_input field kept" {
	run --separate-stderr answer_fx bash-background.json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.hookSpecificOutput.hookEventName' <<<"$output")" = PreToolUse ]
	[ "$(decision "$output")" = allow ]
	[[ "$(reason "$output")" == "sbxrun: the command runs in the sandbox"*"project $P"* ]]
	# every field but the command is what the agent sent
	[ "$(jq -S '.hookSpecificOutput.updatedInput | del(.command)' <<<"$output")" = \
	  "$(jq -S '.tool_input | del(.command)' "$FIX/bash-background.json")" ]
	rw=$(rewritten "$output")
	[[ "$rw" == "'$SBX_REAL' "*"--workdir '$P' --command-base64 '"*"' # npm run dev" ]]
	# the command travels as base64 of exactly the original bytes, decoded
	# by sbxrun itself (no program from the agent's PATH runs outside)
	b64=$(sed -n "s/.*--command-base64 '\([A-Za-z0-9+/=]*\)'.*/\1/p" <<<"$rw")
	[ "$(printf '%s' "$b64" | base64 -d)" = "npm run dev" ]
}

@test "Bash: the answer is one line of JSON on stdout, nothing on stderr" {
	run --separate-stderr answer_fx bash-harmless.json
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$stderr" ]
	jq -e . <<<"$output" >/dev/null
}

@test "an event other than PreToolUse: exit 2 (blocking) with the reason on stderr" {
	run --separate-stderr answer_fx event-post.json
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"answers PreToolUse only, not 'PostToolUse'"* ]]
}

@test "an unknown agent: exit 2 (blocking), never a pass" {
	run --separate-stderr "$SBXRUN" --hook other-agent < "$FIX/bash-sudo.json"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"unknown agent"* ]]
}

@test "--hook with a command to run: refused" {
	run "$SBXRUN" --hook claude-code -- ls
	[ "$status" -eq 125 ]
}

# ------------------------------------------------------------ malformed

@test "malformed input: deny with a reason, exit 0, never a crash" {
	local inputs=(
		''
		'not json'
		'[1,2,3]'
		'"PreToolUse"'
		'null'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp"}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp","tool_input":[]}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp","tool_input":"ls"}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp","tool_input":{}}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp","tool_input":{"command":42}}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp","tool_input":{"command":null}}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp","tool_input":{"command":["ls"]}}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"proj","tool_input":{"command":"ls"}}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":7,"tool_input":{"command":"ls"}}'
		'{"tool_name":"Bash","cwd":"/tmp","tool_input":{"command":"ls"}}'
		'{"hook_event_name":"PreToolUse","cwd":"/tmp","tool_input":{"command":"ls"}}'
		'{"hook_event_name":"PreToolUse","tool_name":7,"cwd":"/tmp","tool_input":{"command":"ls"}}'
		'{"hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash","cwd":"/tmp","tool_input":{"command":"ls"}}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp","tool_input":{"command":"ls\u0000; sudo id"}}'
		'{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/tmp","tool_input":{"command":"ls"}} trailing'
	)
	for i in "${inputs[@]}"; do
		run --separate-stderr answer_raw "$i"
		[ "$status" -eq 0 ] || { echo "input: $i -> status $status"; false; }
		is_deny "$output" || { echo "input: $i -> $output"; false; }
	done
}

@test "malformed input: bytes that are not UTF-8 are not JSON: deny" {
	run --separate-stderr bash -c 'printf "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"cwd\":\"/tmp\",\"tool_input\":{\"command\":\"echo \xff\xfe\x80\"}}" | "$0" --hook claude-code' "$SBXRUN"
	[ "$status" -eq 0 ]
	is_deny "$output"
	[[ "$(reason "$output")" == *"not valid JSON"* ]]
}

@test "malformed input: huge input (9 MiB) is refused unparsed" {
	run --separate-stderr bash -c '{ printf "{\"x\":\""; head -c 9437184 /dev/zero | tr "\0" a; printf "\"}"; } | "$0" --hook claude-code' "$SBXRUN"
	[ "$status" -eq 0 ]
	is_deny "$output"
	[[ "$(reason "$output")" == *"over 8388608 bytes"* ]]
}

@test "malformed input: deep nesting is refused, not a stack overflow" {
	run --separate-stderr bash -c '{ head -c 100000 /dev/zero | tr "\0" "["; } | "$0" --hook claude-code' "$SBXRUN"
	[ "$status" -eq 0 ]
	is_deny "$output"
}

# ------------------------------------------------------------ hostile commands

@test "round trip: the brief's harmless command gives the same output as unsandboxed" {
	require_kernel
	roundtrip "printf 'a\nb' ; echo \"q'uote\""
	# and the recorded fixture's own command
	a=$(answer_fx bash-harmless.json)
	out=$(cd "$P" && sh -c "$(rewritten "$a")")
	[ "$out" = "a
bq'uote" ]
}

@test "round trip: quotes, newlines, trailing newlines, \$(...), backticks, globs, arithmetic" {
	require_kernel
	roundtrip "echo \"double \\\"quoted\\\"\" 'single' \"it's\" \$'ansi\\tc'"
	roundtrip 'echo one
echo two


'
	roundtrip 'echo "$(echo inner "$(echo nested)")" $(printf %s x) `echo bq`'
	roundtrip 'echo *.none $((6 * 7)) ${HOME:+home-set}; false || echo or && echo and'
	roundtrip 'x=1; if [ "$x" = 1 ]; then echo yes; fi; for i in 1 2; do echo "$i"; done; exit 3'
	roundtrip "echo '\\' \"\\\\\" \\\$HOME '\$HOME' \"#\" #comment"
}

@test "round trip: here-documents, quoted and unquoted, at the end of the command" {
	require_kernel
	roundtrip "cat <<'EOF'
\$HOME \`x\` \"q\" 'q' \\
EOF"
	roundtrip 'cat <<EOF
home is set: ${HOME:+yes}
EOF
'
	roundtrip "cat <<-'X' | tr a-z A-Z
	tabbed
	X
echo after"
}

@test "round trip: control characters and non-ASCII text" {
	require_kernel
	# every code point 1..255 but the single quote, plus a few beyond
	junk=$(jq -nr '[range(1; 256)] + [8232, 8233, 65279, 128512] | map(select(. != 39)) | implode')
	roundtrip "printf '%s' '$junk' | od -An -tx1"
	roundtrip "printf '%s\\n' 'ünïcödé ✓ 日本語 🙂'"
}

@test "the rewritten command carries the original as a one-line comment, for transcripts" {
	a=$(answer_cmd "$(printf 'echo one\necho "two $HOME" \x1b[31m\xc2\x85x')")
	rw=$(rewritten "$a")
	[[ "$rw" == *" --command-base64 '"*"' # echo one?echo \"two \$HOME\" ?[31m?x" ]]
	[ "$(wc -l <<<"$rw")" -eq 1 ]
	# cut on a character, marked
	long=$(printf '%0300d' 0)é
	rw=$(rewritten "$(answer_cmd "echo $long")")
	[[ "$rw" == *" # echo 00"*"0..." ]]
}

@test "round trip: the agent's stdin reaches the sandboxed command" {
	require_kernel
	roundtrip 'cat; echo; wc -l' 'line 1
line 2
'
}

@test "round trip: a long command (80 KB) is allowed and runs" {
	require_kernel
	long=": $(head -c 81920 /dev/zero | tr '\0' x); echo long"
	roundtrip "$long"
}

@test "a 100 KB command: deny, it would not fit in one shell argument" {
	long=": $(head -c 102400 /dev/zero | tr '\0' x); echo long"
	run --separate-stderr answer_cmd "$long"
	[ "$status" -eq 0 ]
	is_deny "$output"
	[[ "$(reason "$output")" == *"over the 122880-byte limit"* ]]
}

@test "a project directory with quotes and spaces" {
	require_kernel
	d="$T/it's a \"dir\" \$x"
	mkdir -p "$d"
	a=$(answer_cmd 'pwd; echo x > f; cat f' "$d")
	[ "$(decision "$a")" = allow ]
	out=$(cd "$d" && sh -c "$(rewritten "$a")")
	[ "$out" = "$d
x" ]
}

@test "rewritten commands also work under bash -c" {
	require_kernel
	a=$(answer_fx bash-harmless.json)
	out=$(cd "$P" && bash -c "$(rewritten "$a")")
	[ "$out" = "a
bq'uote" ]
}

# ------------------------------------------------------------ secrets

@test "cat ~/.ssh/id_rsa: allowed, then refused and explained when run; the canary never shows" {
	require_kernel
	run --separate-stderr answer_fx bash-cat-ssh.json
	[ "$status" -eq 0 ]
	[ "$(decision "$output")" = allow ]
	rw=$(rewritten "$output")
	no_canary "$rw"
	run --separate-stderr sh -c "cd \"\$0\" && $rw" "$P"
	[ "$status" -ne 0 ]
	no_canary "$output"
	no_canary "$stderr"
	[[ "$stderr" == *"sbxrun: cannot read '$HOME/.ssh/id_rsa': hidden by the sandbox policy"* ]]
	[[ "$stderr" == *"1 refusal in this run"* ]]
}

# ------------------------------------------------------------ denials

@test "sudo ls: deny with the shim's explanation" {
	run --separate-stderr answer_fx bash-sudo.json
	[ "$status" -eq 0 ]
	is_deny "$output"
	[ "$(reason "$output")" = "sbxrun: refused to run 'sudo': privilege escalation is not available in this sandbox (rule sudo from $(sudo_rule_src))" ]
}

@test "ls && sudo rm x: deny with the reason" {
	run --separate-stderr answer_fx bash-and-sudo.json
	[ "$status" -eq 0 ]
	is_deny "$output"
	[ "$(reason "$output")" = "sbxrun: refused to run 'sudo': privilege escalation is not available in this sandbox (rule sudo from $(sudo_rule_src))" ]
}

@test "denied programs anywhere in the command are found" {
	local cmds=(
		'echo hi | sudo tee /etc/x'
		'if true; then sudo ls; fi'
		'x=$(sudo id)'
		'echo "$(sudo id)"'
		'echo `sudo id`'
		'(cd /; sudo ls)'
		'{ sudo ls; }'
		'FOO=1 sudo ls'
		'env -i PATH=/bin sudo ls'
		'nohup sudo ls &'
		'exec sudo ls'
		'/usr/bin/sudo ls'
		'\sudo ls'
		"'sudo' ls"
		'2>/dev/null sudo ls'
		'cat <<EOF
text
EOF
sudo ls'
		'ssh host uptime'
		'rm -rf /'
		'rm -r -f //'
		'mkfs.ext4 /dev/sda1'
		'dd if=/dev/zero of=/dev/sda bs=1M'
	)
	for c in "${cmds[@]}"; do
		run --separate-stderr answer_cmd "$c"
		[ "$status" -eq 0 ]
		is_deny "$output" || { echo "not denied: $c -> $output"; false; }
		[[ "$(reason "$output")" == "sbxrun: refused to run '"* ]] ||
			{ echo "$c -> $(reason "$output")"; false; }
	done
	run answer_cmd 'rm -rf /'
	[[ "$(reason "$output")" == *"deleting the whole filesystem is never allowed"* ]]
}

@test "a denied program only mentioned is not refused" {
	local cmds=(
		'echo "sudo ls"'
		"git commit -m 'do not sudo'"
		'grep -r sudo .'
		'# sudo ls'
		'echo hi # ; sudo ls'
		'command -v sudo'
		"cat <<'EOF'
sudo ls
EOF"
		'cat <<-EOF
	sudo ls
	EOF'
		'rm -rf ./build'
		'dd if=/dev/zero of=disk.img bs=1M count=1'
		'echo sudo'
		'pseudo ls'
	)
	for c in "${cmds[@]}"; do
		run --separate-stderr answer_cmd "$c"
		[ "$status" -eq 0 ]
		[ "$(decision "$output")" = allow ] || { echo "refused: $c -> $output"; false; }
	done
}

@test "the project is \$HOME: deny with the policy's reason, why every command is, and what to do" {
	run --separate-stderr answer_cmd ls "$HOME"
	[ "$status" -eq 0 ]
	is_deny "$output"
	[[ "$(reason "$output")" == *"cannot load the sandbox policy"*"refusing to make your home directory '$HOME' the writable project"* ]]
	# why every command is denied, and what to do about it
	[[ "$(reason "$output")" == *"The agent is working in your home directory, so every shell command is denied: start the agent from a project directory"*"sbxrun --workdir DIR --hook claude-code"* ]]
	# the second way, as the reason words it: the hook with a project
	run --separate-stderr bash -c 'cmd_input() { jq -nc --arg c "$1" --arg cwd "$2" "{session_id: \"s\", transcript_path: \"/t\", cwd: \$cwd, permission_mode: \"default\", hook_event_name: \"PreToolUse\", tool_name: \"Bash\", tool_input: {command: \$c}, tool_use_id: \"t\"}"; }
		cmd_input "echo hi" "$HOME" | "$0" --mode "$1" --workdir "$2" --hook claude-code' "$SBXRUN" "$SBX_MODE" "$P"
	[ "$status" -eq 0 ]
	[ "$(decision "$output")" = allow ]
	# and the rewritten command runs, in the sandbox, in that project
	run --separate-stderr bash -c "cd '$HOME' && $(rewritten "$output")"
	[ "$status" -eq 0 ]
	[ "$output" = hi ]
	# a project directory that is not $HOME: no such hint
	run --separate-stderr answer_cmd ls /
	[[ "$(reason "$output")" != *"working in your home directory"* ]]
}

@test "a project directory that does not exist: deny" {
	run --separate-stderr answer_cmd ls "$T/nope"
	[ "$status" -eq 0 ]
	is_deny "$output"
	[[ "$(reason "$output")" == *"No such file or directory"* ]]
}

@test "a broken conf: deny with where and why" {
	mkdir -p "$T/badprof"
	printf 'paths = ( { root = ; } );\n' > "$T/badprof/default.conf"
	SBXRUN_PROFILE_DIR="$T/badprof" run --separate-stderr answer_fx bash-harmless.json
	[ "$status" -eq 0 ]
	is_deny "$output"
	[[ "$(reason "$output")" == *"cannot load the sandbox policy"*"default.conf"* ]]
}

@test "the hook's own policy options are carried into the rewritten command" {
	run --separate-stderr bash -c 'jq -c --arg cwd "$1" ".cwd = \$cwd" "$2" | "$0" --profile strict --allow-read "/da ta" --net loopback --quiet --hook claude-code' \
		"$SBXRUN" "$P" "$FIX/bash-harmless.json"
	[ "$status" -eq 0 ]
	[ "$(decision "$output")" = allow ]
	rw=$(rewritten "$output")
	[[ "$rw" == "'$SBX_REAL' --profile 'strict' --quiet --allow-read '/da ta' --net 'loopback' --workdir '$P' --command-base64 "* ]]
}

# ------------------------------------------------------------ install-hook.sh

entries() {	# how many sbxrun hook entries the settings file holds
	jq '[.hooks.PreToolUse[]?.hooks[]? | select(.command | test("sbxrun.* --hook claude-code$"))] | length' "$1"
}

@test "install-hook.sh --project: a new settings file with exactly the hook" {
	run "$INSTALL" --project "$P" --sbxrun "$SBXRUN"
	[ "$status" -eq 0 ]
	f="$P/.claude/settings.json"
	[ "$(jq -c . "$f")" = "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"$SBXRUN --hook claude-code\",\"timeout\":30}]}]}}" ]
	! ls "$P/.claude/" | grep -q bak
}

@test "install-hook.sh: keeps other settings and hooks, idempotent, backup, --remove only ours" {
	mkdir -p "$P/.claude"
	f="$P/.claude/settings.json"
	cp "$FIX/settings-existing.json" "$f"
	run "$INSTALL" --project "$P" --sbxrun "$SBXRUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed the sbxrun hook"* ]]
	[ "$(entries "$f")" -eq 1 ]
	# everything else is as it was
	[ "$(jq -S 'del(.hooks.PreToolUse[-1])' "$f")" = "$(jq -S . "$FIX/settings-existing.json")" ]
	[ "$(jq -r '.hooks.PreToolUse[-1].matcher' "$f")" = Bash ]
	# a backup of the original
	bak=("$f".bak-*)
	[ "${#bak[@]}" -eq 1 ]
	cmp "${bak[0]}" "$FIX/settings-existing.json"
	# twice: nothing changes, no new backup
	before=$(cat "$f")
	run "$INSTALL" --project "$P" --sbxrun "$SBXRUN"
	[ "$status" -eq 0 ]
	[[ "$output" == *"nothing to do"* ]]
	[ "$(cat "$f")" = "$before" ]
	bak=("$f".bak-*)
	[ "${#bak[@]}" -eq 1 ]
	# remove: back to the original, other hooks kept
	run "$INSTALL" --project "$P" --remove
	[ "$status" -eq 0 ]
	[ "$(jq -S . "$f")" = "$(jq -S . "$FIX/settings-existing.json")" ]
	[ "$(entries "$f")" -eq 0 ]
	run "$INSTALL" --project "$P" --remove
	[ "$status" -eq 0 ]
	[[ "$output" == *"nothing to remove"* ]]
}

@test "install-hook.sh: an entry for another sbxrun path is replaced, not doubled" {
	mkdir -p "$P/.claude"
	f="$P/.claude/settings.json"
	jq '.hooks.PreToolUse += [{matcher: "Bash", hooks: [{type: "command", command: "/old/bin/sbxrun --hook claude-code"}, {type: "command", command: "echo keep"}]}]' \
		"$FIX/settings-existing.json" > "$f"
	run "$INSTALL" --project "$P" --sbxrun "$SBXRUN"
	[ "$status" -eq 0 ]
	[ "$(entries "$f")" -eq 1 ]
	[ "$(jq -r '[.hooks.PreToolUse[].hooks[].command] | map(select(test("--hook"))) | .[0]' "$f")" = "$SBXRUN --hook claude-code" ]
	[ "$(jq '[.hooks.PreToolUse[].hooks[].command] | map(select(. == "echo keep")) | length' "$f")" -eq 1 ]
}

@test "install-hook.sh --user: ~/.claude/settings.json" {
	run "$INSTALL" --user --sbxrun "$SBXRUN"
	[ "$status" -eq 0 ]
	[ "$(entries "$HOME/.claude/settings.json")" -eq 1 ]
	run "$INSTALL" --user --remove
	[ "$status" -eq 0 ]
	[ "$(jq -c . "$HOME/.claude/settings.json")" = "{}" ]
}

@test "install-hook.sh: invalid JSON and bad usage are refused, nothing touched" {
	mkdir -p "$P/.claude"
	printf '{ "model": ' > "$P/.claude/settings.json"
	run "$INSTALL" --project "$P" --sbxrun "$SBXRUN"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not valid JSON"* ]]
	[ "$(cat "$P/.claude/settings.json")" = '{ "model": ' ]
	! ls "$P/.claude/" | grep -q bak
	echo '{"hooks": []}' > "$P/.claude/settings.json"
	run "$INSTALL" --project "$P" --sbxrun "$SBXRUN"
	[ "$status" -eq 1 ]
	run "$INSTALL"
	[ "$status" -eq 2 ]
	run "$INSTALL" --project "$T/nope"
	[ "$status" -eq 1 ]
	run "$INSTALL" --project "$P" --sbxrun /bin/false
	[ "$status" -eq 1 ]
}

@test "the installed hook command works as the agent runs it" {
	require_kernel
	run "$INSTALL" --project "$P" --sbxrun "$SBXRUN"
	[ "$status" -eq 0 ]
	cmd=$(jq -r '.hooks.PreToolUse[-1].hooks[0].command' "$P/.claude/settings.json")
	a=$(fx bash-cat-ssh.json | sh -c "$cmd")
	[ "$(decision "$a")" = allow ]
	run --separate-stderr sh -c "cd \"\$0\" && $(rewritten "$a")" "$P"
	[ "$status" -ne 0 ]
	no_canary "$output$stderr"
	[[ "$stderr" == *"hidden by the sandbox policy"* ]]
	a=$(fx bash-sudo.json | sh -c "$cmd")
	[ "$(decision "$a")" = deny ]
}
