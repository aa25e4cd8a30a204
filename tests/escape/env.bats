#!/usr/bin/env bats
# Environment and launcher hygiene (THREATS SEC-01, IPC-02/03/04, SHM-05,
# SHM-10, LCH-01/02/05): secret variables scrubbed, agent/IDE/terminal
# sockets not advertised, no leaked fds, fail closed.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

SECRET_VARS="GITHUB_TOKEN GH_TOKEN AWS_SECRET_ACCESS_KEY AWS_ACCESS_KEY_ID AWS_SESSION_TOKEN ANTHROPIC_API_KEY OPENAI_API_KEY NPM_TOKEN GITLAB_TOKEN PYPI_API_TOKEN DOCKER_PASSWORD MY_SERVICE_SECRET DB_PASSWORD STRIPE_KEY VAULT_TOKEN GOOGLE_APPLICATION_CREDENTIALS"
SOCKET_VARS="SSH_AUTH_SOCK GPG_AGENT_INFO DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR DISPLAY WAYLAND_DISPLAY XAUTHORITY TMUX TMUX_PANE VSCODE_IPC_HOOK_CLI VSCODE_GIT_IPC_HANDLE KITTY_LISTEN_ON SWAYSOCK I3SOCK DOCKER_HOST KUBECONFIG"

export_secrets() {
	local v
	for v in $SECRET_VARS $SOCKET_VARS; do export "$v=$CANARY-$v"; done
}

@test "SEC-01 token and key variables are scrubbed (env, dynamic)" {
	export_secrets
	run xsbx -- env
	echo "$output"
	no_canary "$output"
	[ "$status" -eq 0 ]
}

@test "SEC-01 scrubbed for a static reader of /proc/self/environ too" {
	export_secrets
	run xsbx -- "$SBX_SYS.static" read /proc/self/environ
	echo "$output"
	no_canary "$output"
	[[ "$output" == *"RESULT "*" OK"* ]]
}

@test "SEC-01 PATH, HOME, USER, LANG, TERM are kept" {
	export USER=u1 LANG=C.UTF-8 TERM=xterm-test
	run xsbx -c 'echo "PATH=$PATH"; echo "HOME=$HOME"; echo "USER=$USER"; echo "LANG=$LANG"; echo "TERM=$TERM"'
	echo "$output"
	[[ "$output" == *"PATH=$PATH"* ]]
	[[ "$output" == *"HOME=$HOME"* ]]
	[[ "$output" == *"USER=u1"* ]]
	[[ "$output" == *"LANG=C.UTF-8"* ]]
	[[ "$output" == *"TERM=xterm-test"* ]]
}

@test "SEC-01 --env-keep passes one variable, the rest stay scrubbed" {
	export_secrets
	run xsbx --env-keep GITHUB_TOKEN -- env
	echo "$output"
	[[ "$output" == *"GITHUB_TOKEN=$CANARY-GITHUB_TOKEN"* ]]
	[[ "$output" != *"AWS_SECRET_ACCESS_KEY="* ]]
	[[ "$output" != *"ANTHROPIC_API_KEY="* ]]
}

@test "IPC-02/03/04 agent, bus, display, terminal and IDE socket variables are dropped" {
	export_secrets
	run xsbx -c 'for v in '"$SOCKET_VARS"'; do eval "x=\${$v-}"; [ -n "$x" ] && echo "LEAK $v"; done; echo done'
	echo "$output"
	[[ "$output" == *done* ]]
	[[ "$output" != *LEAK* ]]
}

@test "IPC-02 no session bus or systemd user manager reachable" {
	run xsbx -c 'ls /run/user/$(id -u)/bus /run/user/$(id -u)/systemd/private 2>&1; systemd-run --user true 2>&1; busctl --user 2>&1; true'
	echo "$output"
	no_canary "$output"
	[[ "$output" != *"Running as unit"* ]]
}

@test "SHM-05 variables come back for descendants after env -i only from the sandbox, not the caller" {
	export_secrets
	run xsbx -c 'env -i sh -c env; '"$PY"' -c "import subprocess; print(subprocess.run([\"env\"], env={}, capture_output=True).stdout.decode())"'
	echo "$output"
	no_canary "$output"
}

@test "SEC-01 LD_PRELOAD / LD_AUDIT / LD_LIBRARY_PATH of the caller are not passed in" {
	export LD_AUDIT="$T/nope-audit.so" LD_LIBRARY_PATH="$T/evil-libs"
	run xsbx -c 'echo "audit=[${LD_AUDIT-}] llp=[${LD_LIBRARY_PATH-}] preload=[${LD_PRELOAD-}]"'
	unset LD_AUDIT LD_LIBRARY_PATH
	echo "$output"
	[[ "$output" == *"audit=[]"* ]]
	[[ "$output" == *"llp=[]"* ]]
	[[ "$output" != *"preload=[$T"* ]]
}

@test "LCH-02 no fds beyond 0,1,2 reach the command (static; caller holds 7 and bats' 3)" {
	exec 7<"$HOME"
	exec 9>"$T/logfile"
	run xsbx -- "$SBX_SYS.static" fds
	exec 7<&- 9>&-
	echo "$output"
	fds=$(printf '%s\n' "$output" | awk '/^FD /{print $2}' | sort -n | tr '\n' ' ')
	[ "$fds" = "0 1 2 " ]
}

@test "LCH-02 dynamic programs: only stdio and the shim's own channel" {
	exec 7<"$HOME"
	run xsbx -c 'ls -l /proc/$$/fd'
	exec 7<&-
	echo "$output"
	[[ "$output" != *"$HOME"* ]]
	[[ "$output" != *"/sys/fs/cgroup"* ]]
	[[ "$output" != *"sbxrun-"* ]]
	[ -z "$(printf '%s\n' "$output" | grep -E ' 7 -> ')" ]
}

@test "LCH-02 openat(7, \"../..\") through a leaked directory fd finds nothing" {
	exec 7<"$HOME/.ssh"
	run xsbx -- "$SBX_SYS.static" readat /proc/self/fd/7 id_rsa
	exec 7<&-
	echo "$output"
	no_canary "$output"
	denied
}

@test "LCH-02 the command starts in the project, not in a leaked directory" {
	run xsbx -- "$SBX_SYS.static" read /proc/self/cwd/../home/.ssh/id_rsa
	no_canary "$output"
	run xsbx -c 'pwd; readlink /proc/self/cwd'
	echo "$output"
	[[ "${lines[0]}" == "$P" ]]
}

@test "LCH-05 a broken conf: exit 125 and nothing runs" {
	printf 'paths = ( { root = "/"; mode = "rw" } \n' > "$HOME/.config/sbxrun/config"
	run xsbx -c "touch $P/ran"
	echo "$output"
	[ "$status" -eq 125 ]
	assert_absent "$P/ran"
}

@test "LCH-05 --net allow: with a bad entry: 125 and nothing runs" {
	run xsbx --net 'allow:exa mple.com:99999' -- touch "$P/ran"
	echo "$output"
	[ "$status" -eq 125 ]
	assert_absent "$P/ran"
}

@test "LCH-05 a conf that others can write is refused, nothing runs" {
	printf 'network = { mode = "on"; };\n' > "$HOME/.config/sbxrun/config"
	chmod 666 "$HOME/.config/sbxrun/config"
	run xsbx -- touch "$P/ran"
	echo "$output"
	[ "$status" -eq 125 ]
	assert_absent "$P/ran"
}

@test "LCH-05 --status and --dry-run name the mode and its layers" {
	run "$SBXRUN" --mode "$SBX_MODE" --status
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"mode: $(eff_mode)"* ]]
	run plan
	echo "$output"
	[[ "$output" == *"kernel plan ($(eff_mode) mode)"* ]]
	[[ "$output" == *andlock* ]]
	[[ "$output" == *eccomp* ]]
}

@test "LCH-01 a command named like a launcher option is run, never parsed" {
	run xsbx -- --allow-write="$HOME" -c "touch $HOME/owned"
	echo "$output"
	[ "$status" -eq 127 ] || [ "$status" -eq 126 ]
	assert_absent "$HOME/owned"
	run xsbx -- sh -c 'echo "$1"' sh --net=on
	[[ "$output" == *"--net=on"* ]]
}

@test "SEC-01 SBXRUN_* variables from the caller cannot pre-set the sandbox's own" {
	export SBXRUN_POLICY=/dev/null SBXRUN_NET=on SBXRUN_REPORT=/dev/null
	run xsbx -c 'echo "net=$SBXRUN_NET pol=$SBXRUN_POLICY"'
	unset SBXRUN_POLICY SBXRUN_NET SBXRUN_REPORT
	echo "$output"
	[[ "$output" == *"net=off"* ]]
	[[ "$output" != *"pol=/dev/null"* ]]
}

@test "LCH-02 started from inside a hidden directory: the old cwd does not leak it" {
	cd "$HOME/.ssh"
	run xsbx --unsafe-project -c "cat id_rsa; $SBX_SYS.static read id_rsa; $SBX_SYS.static read /proc/self/cwd/id_rsa; true"
	echo "$output"
	no_canary "$output"
	run xsbx --workdir "$HOME/.aws" -- cat credentials
	no_canary "$output"
}

# ------------------------------------------------------------ SEC-12

# Secrets in values with innocent names, and names in lower case.
export_value_secrets() {
	local c=${CANARY//-/}
	export DATABASE_URL="postgres://app:$c@db.internal:5432/prod"
	export https_proxy="http://user:$c@proxy.corp:3128"
	export REDIS_URL="redis://:$c@cache:6379/0"
	export npm_config__authToken="$c" github_token="$c" BW_SESSION="$c"
	export OP_SESSION_my="$c" DB_PASS="$c"
	export SENTRY_DSN="https://${c}0123456789@o1.ingest.sentry.io/1"
	export DEPLOY_NOTE="use ghp_${c}0123456789abcd" SLACK_HOOK="xoxb-${c}-1234"
	export OPENAI="sk-proj-${c}0123456789" AWSID="AKIAABCDEFGHIJKLMNOP"
	export GITLAB="glpat-${c}" FINE="github_pat_${c}_0123456789"
	# innocent look-alikes pass
	export SAFE_URL="https://example.com/a@b" GIT_REMOTE="ssh://git@github.com/a/b" DESK="desk-top"
	VALUE_SECRETS="DATABASE_URL https_proxy REDIS_URL npm_config__authToken github_token BW_SESSION OP_SESSION_my DB_PASS SENTRY_DSN DEPLOY_NOTE SLACK_HOOK OPENAI AWSID GITLAB FINE"
}

@test "SEC-12 credentials in values (URLs, token prefixes) and lower-case names are scrubbed (static reader of /proc/self/environ)" {
	export_value_secrets
	run xsbx --report "$T/r.json" -- "$SBX_SYS.static" read /proc/self/environ
	echo "$output"
	[[ "$output" == *"RESULT "*" OK"* ]]
	[[ "$output" != *"${CANARY//-/}"* ]]
	[[ "$output" != *AKIAABCDEFGHIJKLMNOP* ]]
	[[ "$output" == *"SAFE_URL=https://example.com/a@b"* ]]
	[[ "$output" == *"GIT_REMOTE=ssh://git@github.com/a/b"* ]]
	[[ "$output" == *"DESK=desk-top"* ]]
	# the report names each one, and holds no value
	for v in $VALUE_SECRETS; do
		jq -e --arg v "$v" '.env_withheld | index($v)' "$T/r.json" >/dev/null || { echo "not named: $v"; return 1; }
	done
	run grep -c "${CANARY//-/}" "$T/r.json"
	[ "$output" = 0 ]
}

@test "SEC-12 a variable withheld for its value is named with the fix, and the fix (--env-keep) passes it" {
	export DATABASE_URL="postgres://app:pw@db/prod"
	run xsbx -- sh -c 'echo "got=$DATABASE_URL"'
	[[ "$output" == *"got="* ]]
	[[ "$output" != *"got=postgres"* ]]
	[[ "$output" == *"DATABASE_URL withheld from the command: its value holds a credential"*"to pass it: sbxrun --env-keep DATABASE_URL"* ]]
	[[ "$output" != *"app:pw"* ]]
	run xsbx --env-keep DATABASE_URL -- sh -c 'echo "got=$DATABASE_URL"'
	[[ "$output" == *"got=postgres://app:pw@db/prod"* ]]
	[[ "$output" != *withheld* ]]
}
