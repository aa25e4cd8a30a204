#!/usr/bin/env bats
# Recipe: a Python agent whose shell tool calls libsbx through ctypes
# (examples/agent_tool.py): each tool call runs sandboxed, and the
# refusals come back as data the agent can show the model.

load _inject

setup() {
	inject_setup
	export SBX_LIB="$SBX_BUILD/libsbx.so"
	export PYTHONPATH="$SBX_TOP/examples"
	case "$SBX_MODE" in full) M=1 ;; landlock-only) M=2 ;; *) M=0 ;; esac
	cat > "$T/agent.py" <<'PY'
import json, sys
import agent_tool as at
mode, project = int(sys.argv[1]), sys.argv[2]
with at.Sandbox(project, mode=mode) as sb:
    out = []
    for cmd in sys.argv[3:]:
        o, e, code, viol = sb.execute(cmd, timeout=60)
        out.append({"cmd": cmd, "stdout": o, "stderr": e, "exit": code,
                    "violations": [[v["op"], v.get("target"), v["message"]] for v in viol]})
print(json.dumps({"inside": at.lib.sbx_inside(), "calls": out}))
PY
}
teardown() { inject_teardown; }

@test "the agent's tool calls do real work: git, python, a file in the project" {
	run env ${ASAN_PRELOAD:+LD_PRELOAD="$ASAN_PRELOAD"} "$PY" "$T/agent.py" "$M" "$P" \
		'git init -q && printf "x = 6 * 7\n" > calc.py && git add calc.py && git commit -qm calc && echo committed' \
		'python3 -c "import calc; print(calc.x)" > answer.txt && cat answer.txt'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r .inside <<<"$output")" = 0 ]
	[ "$(jq -r '.calls[0].stdout' <<<"$output")" = committed ]
	[ "$(jq -r '.calls[1].stdout' <<<"$output")" = 42 ]
	[ "$(cat "$P/answer.txt")" = 42 ]
	[ "$(git -C "$P" log -1 --format=%s)" = calc ]
	# The repository made during the call is named to the agent (its
	# hooks could run code outside the sandbox later).
	jq -e --arg h "$P/.git/hooks" '.calls[0].violations | map(select(.[0] == "warning" and (.[2] | contains($h)))) | length == 1' <<<"$output"
}

@test "the agent gets each refusal as data; the secret and the dotfile stay safe" {
	run env ${ASAN_PRELOAD:+LD_PRELOAD="$ASAN_PRELOAD"} "$PY" "$T/agent.py" "$M" "$P" 'cat ~/.ssh/id_rsa; echo x >> ~/.bashrc; exit 3'
	echo "$output"
	no_canary "$output"
	[ "$(jq -r '.calls[0].exit' <<<"$output")" = 3 ]
	jq -e --arg k "$HOME/.ssh/id_rsa" '.calls[0].violations | map(select(.[0] == "read" and .[1] == $k)) | length == 1' <<<"$output"
	jq -e --arg k "$HOME/.bashrc" '.calls[0].violations | map(select(.[0] == "write" and .[1] == $k)) | length == 1' <<<"$output"
	bashrc_unchanged
}

@test "sbx_inside(): 0 for the agent, 1 for a program the agent's sandbox runs" {
	run env ${ASAN_PRELOAD:+LD_PRELOAD="$ASAN_PRELOAD"} "$PY" "$T/agent.py" "$M" "$P" \
		"SBX_LIB='$SBX_LIB' PYTHONPATH='$PYTHONPATH' ${ASAN_PRELOAD:+LD_PRELOAD=\"$ASAN_PRELOAD \$LD_PRELOAD\"} $PY -c 'import agent_tool; print(agent_tool.lib.sbx_inside())'"
	echo "$output"
	[ "$(jq -r .inside <<<"$output")" = 0 ]
	[ "$(jq -r '.calls[0].stdout' <<<"$output")" = 1 ]
}
