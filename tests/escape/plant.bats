#!/usr/bin/env bats
# Code planted for git or an agent to run later, outside the sandbox
# (THREATS GIT-01, GIT-03, PER-02, PER-03; review E-03..E-21): the sandbox writes
# with a static program (raw syscalls, no shim), then the REAL git runs
# OUTSIDE, and the test checks that what was planted did not run.
#
# Protected paths missing at launch cannot take a mount; the sandbox can
# create them, and sbxrun moves them aside at exit (plant.c), in both
# modes.  Protected paths that exist are read-only mounts in full mode; in
# landlock-only mode the kernel cannot hold them (Landlock cannot refuse
# a path below a writable directory while git may still create files in
# .git), so there sbxrun keeps a copy at launch and puts it back at exit
# (guard.c, E-06).

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() {
	esc_setup
	printf '[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n' > "$HOME/.gitconfig"
	git -C "$P" init -q
	echo hi > "$P/README"
	git -C "$P" add README
	git -C "$P" commit -qm init
	RAN="$T/planted-code-ran"
	FSMON="[core]
	repositoryformatversion = 0
	fsmonitor = \"touch $RAN; false\"
"
	HOOK="#!/bin/sh
touch $RAN
"
}
teardown() {
	[ -n "${P:-}" ] && chmod -R u+rwx "$P" 2>/dev/null
	esc_teardown
}

# The planted code did not run when git ran outside.
did_not_run() {
	if [ -e "$RAN" ]; then
		echo "planted code ran outside the sandbox" >&2
		return 1
	fi
}


@test "GIT-01 E-03 .git/commondir planted (static): git status outside runs nothing" {
	# control: the attack works without the sandbox (the test can fail)
	mkdir "$T/ctl" && git -C "$T/ctl" init -q && mkdir "$T/ctl/ev" &&
		cp -r "$T/ctl/.git/." "$T/ctl/ev/" && printf '%s' "$FSMON" > "$T/ctl/ev/config" &&
		echo ../ev > "$T/ctl/.git/commondir"
	git -C "$T/ctl" status >/dev/null 2>&1 || true
	[ -e "$RAN" ]
	rm -f "$RAN"

	run xsbx -c "mkdir ev && cp -r .git/. ev/ && $SBX_SYS.static creat ev/config '$FSMON' && $SBX_SYS.static creat .git/commondir ../ev"
	echo "$output"
	[[ "$output" == *"'$P/.git/commondir' was created during the run"*"moved aside"* ]]
	[ ! -e "$P/.git/commondir" ]
	ls "$P"/.git/commondir.sbxrun-blocked-*
	git -C "$P" status >/dev/null 2>&1 || true
	did_not_run
}

@test "PER-02 E-04 core.hooksPath in the work tree: its hooks are protected (static)" {
	mkdir "$P/.githooks"
	printf '#!/bin/sh\n' > "$P/.githooks/pre-commit"
	chmod +x "$P/.githooks/pre-commit"
	git -C "$P" config core.hooksPath .githooks
	run xsbx -c "$SBX_SYS.static creat .githooks/pre-commit '$HOOK'; $SBX_SYS.static creat .githooks/post-commit '$HOOK'; $SBX_SYS.static chmod .githooks/post-commit 755; true"
	echo "$output"
	echo b >> "$P/README"
	git -C "$P" commit -qam x || true
	did_not_run
	"$SBXRUN" --list-paths 2>&1 | grep -F "$P/.githooks  [protected]"
}

@test "GIT-01 E-05 an absent include.path target is planted (static): git status outside runs nothing" {
	git -C "$P" config include.path ../.gitconfig.local
	run xsbx -c "$SBX_SYS.static creat .gitconfig.local '$FSMON'"
	echo "$output"
	[[ "$output" == *"'$P/.gitconfig.local' was created during the run"*"moved aside"* ]]
	git -C "$P" status >/dev/null 2>&1 || true
	did_not_run
}

@test "GIT-01 E-21 ~/.gitconfig includes living in the project (existing and absent)" {
	echo '[user]' > "$P/.gitconfig-work"
	printf '[includeIf "gitdir:%s/"]\n\tpath = %s/.gitconfig-work\n[include]\n\tpath = %s/.gitconfig-all\n' \
		"$P" "$P" "$P" >> "$HOME/.gitconfig"
	run xsbx -c "$SBX_SYS.static write .gitconfig-work '$FSMON'; $SBX_SYS.static creat .gitconfig-all '$FSMON'; true"
	echo "$output"
	[ ! -e "$P/.gitconfig-all" ]
	git -C "$P" status >/dev/null 2>&1 || true
	did_not_run
}

@test "N-42 scripts named by git config keys (repo and global) are protected (static)" {
	mkdir "$P/tools"
	for s in fsmon lg ssh; do
		printf '#!/bin/sh\nexit 0\n' > "$P/tools/$s.sh"
		chmod +x "$P/tools/$s.sh"
	done
	git -C "$P" config core.fsmonitor "$P/tools/fsmon.sh"
	git -C "$P" config alias.lg '!sh tools/lg.sh'
	printf '[core]\n\tsshCommand = %s/tools/ssh.sh\n' "$P" >> "$HOME/.gitconfig"
	"$SBXRUN" --list-paths 2>&1 | grep -F "$P/tools/fsmon.sh  [protected]"
	"$SBXRUN" --list-paths 2>&1 | grep -F "$P/tools/lg.sh  [protected]"
	"$SBXRUN" --list-paths 2>&1 | grep -F "$P/tools/ssh.sh  [protected]"
	run xsbx -c "for s in fsmon lg ssh; do $SBX_SYS.static creat tools/\$s.sh '$HOOK'; done; true"
	echo "$output"
	# the real git, outside: each key runs its script
	git -C "$P" status >/dev/null 2>&1 || true
	did_not_run
	git -C "$P" lg >/dev/null 2>&1 || true
	did_not_run
	git -C "$P" ls-remote ssh://example.invalid/x >/dev/null 2>&1 || true
	did_not_run
}

@test "N-42 an absent script named by ~/.config/git/config (diff textconv, filter) is moved aside when planted (static)" {
	mkdir -p "$HOME/.config/git" "$P/tools"
	printf '[diff "x"]\n\ttextconv = %s/tools/conv.sh\n[filter "f"]\n\tclean = sh tools/clean.sh\n' "$P" > "$HOME/.config/git/config"
	"$SBXRUN" --list-paths 2>&1 | grep -F "$P/tools/conv.sh"
	run xsbx -c "$SBX_SYS.static creat tools/conv.sh '$HOOK'; $SBX_SYS.static chmod tools/conv.sh 755; true"
	echo "$output"
	[[ "$output" == *"'$P/tools/conv.sh' was created during the run"*"moved aside"* ]]
	echo '*.txt diff=x' > "$P/.gitattributes"
	echo a > "$P/a.txt" && git -C "$P" add a.txt && git -C "$P" commit -qm a
	echo b >> "$P/a.txt"
	git -C "$P" diff >/dev/null 2>&1 || true
	did_not_run
}

@test "N-38 per-directory names below the root (existing and new) are protected (static, npm outside)" {
	command -v npm >/dev/null || skip "npm not installed"
	mkdir -p "$P/packages/a" "$P/packages/b" "$P/crates/foo/src" "$P/d1/d2/d3/d4/d5"
	for d in a b; do
		echo '{"name":"'$d'","version":"1.0.0","scripts":{"test":"true"}}' > "$P/packages/$d/package.json"
	done
	echo 'fund=false' > "$P/packages/a/.npmrc"
	mkdir "$P/crates/foo/.cargo" && echo '[term]' > "$P/crates/foo/.cargo/config.toml.orig"
	"$SBXRUN" --list-paths 2>&1 | grep -F "$P/packages/a/.npmrc  [protected]"
	"$SBXRUN" --dry-run 2>&1 | grep -F "protected only 3 directory levels down"
	run xsbx -c "$SBX_SYS.static creat tools.sh '$HOOK'; $SBX_SYS.static chmod tools.sh 755;
		$SBX_SYS.static creat packages/a/.npmrc 'script-shell=$P/tools.sh
';
		$SBX_SYS.static creat packages/b/.npmrc 'script-shell=$P/tools.sh
';
		$SBX_SYS.static creat crates/foo/.cargo/config.toml '[build]
rustc-wrapper = \"$P/tools.sh\"
';
		$SBX_SYS.static creat d1/d2/d3/d4/d5/.envrc 'touch $RAN'; true"
	echo "$output"
	[[ "$output" == *"'$P/packages/b/.npmrc' was created during the run"*"moved aside"* ]]
	[ ! -e "$P/crates/foo/.cargo/config.toml" ]
	# an existing .cargo is not taken for a new one (only its new file moves)
	[ -e "$P/crates/foo/.cargo/config.toml.orig" ]
	[ ! -e "$P/d1/d2/d3/d4/d5/.envrc" ]
	# the real npm, outside, in each package: script-shell would run tools.sh
	for d in a b; do
		(cd "$P/packages/$d" && npm test >/dev/null 2>&1) || true
		did_not_run
	done
	if command -v cargo >/dev/null; then
		(cd "$P/crates/foo" && cargo build -q --offline >/dev/null 2>&1) || true
		did_not_run
	fi
}

@test "N-38 GIT-02 a leaf directory's times set back after a plant (static, touch -d without the shim): still found at exit" {
	mkdir -p "$P/d1/d2/d3/d4/d5" "$P/e1/e2/e3/e4/e5"
	run xsbx -c "$SBX_SYS.static creat d1/d2/d3/d4/d5/.envrc 'touch $RAN';
		$SBX_SYS.static creat e1/e2/e3/e4/e5/.git 'gitdir: $T/elsewhere';
		env -u LD_PRELOAD touch -d '2001-01-01 00:00' d1/d2/d3/d4/d5 e1/e2/e3/e4/e5;
		env -u LD_PRELOAD touch -d '2001-01-01 00:00' d1/d2/d3/d4/d5/.envrc; true"
	echo "$output"
	[ ! -e "$P/d1/d2/d3/d4/d5/.envrc" ]
	ls -A "$P/d1/d2/d3/d4/d5/" | grep -q '^\.envrc\.sbxrun-blocked-'
	[[ "$output" == *"'$P/e1/e2/e3/e4/e5/.git' was created during the run"* ]]
}

@test "N-23 .bazelrc and pnpm-workspace.yaml (root and nested) cannot be rewritten (static)" {
	mkdir -p "$P/sub/x"
	for f in .bazelrc pnpm-workspace.yaml sub/x/.bazelrc sub/pnpm-workspace.yaml; do
		echo 'orig' > "$P/$f"
	done
	run xsbx -c "for f in .bazelrc pnpm-workspace.yaml sub/x/.bazelrc sub/pnpm-workspace.yaml; do $SBX_SYS.static creat \$f 'build --workspace_status_command=$P/evil.sh
scriptShell: $P/evil.sh
'; done; true"
	echo "$output"
	for f in .bazelrc pnpm-workspace.yaml sub/x/.bazelrc sub/pnpm-workspace.yaml; do
		[ "$(cat "$P/$f")" = orig ]
	done
}

@test "PER-02 E-18 a nested repository that exists at launch: hooks and config (static)" {
	git -C "$P" init -q sub
	git -C "$P/sub" commit -q --allow-empty -m i
	run xsbx -c "$SBX_SYS.static creat sub/.git/hooks/post-checkout '$HOOK'; $SBX_SYS.static chmod sub/.git/hooks/post-checkout 755; $SBX_SYS.static append sub/.git/config '$FSMON'; true"
	echo "$output"
	git -C "$P/sub" checkout -q -b z 2>/dev/null || true
	git -C "$P/sub" status >/dev/null 2>&1 || true
	did_not_run
}

@test "PER-02 E-11 a paused rebase: its todo list cannot gain an exec line (static)" {
	for i in 1 2; do echo $i >> "$P/README"; git -C "$P" commit -qam c$i; done
	GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/edit/" git -C "$P" rebase -qi HEAD~2 >/dev/null 2>&1
	[ -e "$P/.git/rebase-merge/git-rebase-todo" ]
	run xsbx -c "$SBX_SYS.static append .git/rebase-merge/git-rebase-todo 'exec touch $RAN
'; true"
	echo "$output"
	git -C "$P" rebase --continue >/dev/null 2>&1 || true
	did_not_run
}

@test "PER-03 E-20 absent agent and editor config (.claude, .mcp.json, .vscode) is moved aside (static)" {
	run xsbx -c "$SBX_SYS.static mkdir .claude; $SBX_SYS.static creat .claude/settings.local.json '{\"disableAllHooks\":true}'; $SBX_SYS.static creat .mcp.json '{}'; $SBX_SYS.static mkdir .vscode; $SBX_SYS.static creat .vscode/tasks.json '{}'; $SBX_SYS.static creat .windsurf '{}'"
	echo "$output"
	assert_absent "$P/.claude" "$P/.mcp.json" "$P/.vscode" "$P/.windsurf"
	for f in .claude .mcp.json .vscode .windsurf; do
		[[ "$output" == *"'$P/$f' was created during the run"*"moved aside to '$P/$f.sbxrun-blocked-"* ]]
	done
}

@test "GIT-03 W-11 what protected entry points run: yarn releases, gradle wrapper jar, lefthook, rust-toolchain, pnpmfile (static)" {
	mkdir -p "$P/.yarn/releases" "$P/gradle/wrapper"
	for f in .yarn/releases/yarn-4.cjs gradle/wrapper/gradle-wrapper.jar lefthook.yml rust-toolchain.toml .pnpmfile.cjs bunfig.toml .lintstagedrc.json; do
		echo orig > "$P/$f"
		touch -d @1500000000 "$P/$f" # put back with its own mtime, not the run's
	done
	before=$(snap "$P/.yarn/releases/yarn-4.cjs" "$P/gradle/wrapper/gradle-wrapper.jar" "$P/lefthook.yml" "$P/rust-toolchain.toml" "$P/.pnpmfile.cjs" "$P/bunfig.toml" "$P/.lintstagedrc.json")
	run xsbx -c "for f in .yarn/releases/yarn-4.cjs gradle/wrapper/gradle-wrapper.jar lefthook.yml rust-toolchain.toml .pnpmfile.cjs bunfig.toml .lintstagedrc.json; do $SBX_SYS.static write \$f evil; done; $SBX_SYS.static creat .yarn/plugins; true"
	echo "$output"
	assert_unchanged "$before" "$P/.yarn/releases/yarn-4.cjs" "$P/gradle/wrapper/gradle-wrapper.jar" "$P/lefthook.yml" "$P/rust-toolchain.toml" "$P/.pnpmfile.cjs" "$P/bunfig.toml" "$P/.lintstagedrc.json"
	assert_absent "$P/.yarn/plugins"
}

@test "PER-02 E-06 .git/hooks and .git/config written by a static program: git outside runs nothing" {
	cp "$P/.git/config" "$T/config.orig"
	run xsbx -c "$SBX_SYS.static creat .git/hooks/post-checkout '$HOOK'; $SBX_SYS.static chmod .git/hooks/post-checkout 755; $SBX_SYS.static append .git/config '$FSMON'; $SBX_SYS.static unlink .git/hooks/pre-commit.sample; true"
	echo "$output"
	if ! full_mode; then
		# landlock-only: written, then put back at exit, and said
		[[ "$output" == *"'$P/.git/config' is protected and was changed during the run"*"put back"* ]]
		[[ "$output" == *"'$P/.git/hooks/post-checkout' is protected and was created during the run"*"moved aside"* ]]
	fi
	cmp "$P/.git/config" "$T/config.orig"
	[ ! -e "$P/.git/hooks/post-checkout" ]
	[ -e "$P/.git/hooks/pre-commit.sample" ]
	git -C "$P" checkout -q -b other
	git -C "$P" status >/dev/null 2>&1 || true
	did_not_run
}

@test "PER-02 E-06 a protected directory replaced by a symlink is put back, nothing outside is written" {
	mkdir "$T/outside"
	echo keep > "$T/outside/pre-commit"
	before=$(snap "$T/outside/pre-commit")
	run xsbx -c "$SBX_SYS.static rename .git/hooks hooks.old; $SBX_SYS.static symlink $T/outside .git/hooks; true"
	echo "$output"
	assert_unchanged "$before" "$T/outside/pre-commit"
	[ -d "$P/.git/hooks" ] && [ ! -L "$P/.git/hooks" ]
	[ -e "$P/.git/hooks/pre-commit.sample" ]
}

@test "PER-02 E-06 FS-05 .git swapped for a planted one (static): git outside runs nothing" {
	run xsbx -- "$SBX_FS.static" gitswap .
	echo "$output"
	if ! full_mode; then
		[[ "$output" == *"'$P/.git' holds protected paths and was replaced during the run"*"moved aside to"* ]]
	fi
	# the planted config names core.fsmonitor and core.hooksPath, the
	# planted hook prints sbx-attack-hook-ran: git outside sees neither
	[ -z "$(git -C "$P" config core.fsmonitor 2>/dev/null)" ]
	[ -z "$(git -C "$P" config core.hooksPath 2>/dev/null)" ]
	echo b >> "$P/README"
	run git -C "$P" commit -qam x
	echo "$output"
	[[ "$output" != *sbx-attack-hook-ran* ]]
}

@test "PER-02 E-06 mode changes, a directory turned into a file, a file into a symlink: all put back (static)" {
	cp "$P/.git/config" "$T/config.orig"
	mode=$(stat -c %a "$P/.git/config")
	echo x > "$T/target"
	before=$(snap "$T/target")
	run xsbx -c "$SBX_SYS.static chmod .git/config 755; $SBX_SYS.static rename .git/info info.old; $SBX_SYS.static creat .git/info '$FSMON'; $SBX_SYS.static rename .git/hooks/pre-push.sample p.old; $SBX_SYS.static symlink $T/target .git/hooks/pre-push.sample; true"
	echo "$output"
	[ "$(stat -c %a "$P/.git/config")" = "$mode" ]
	cmp "$P/.git/config" "$T/config.orig"
	[ -d "$P/.git/info" ] && [ -f "$P/.git/info/exclude" ]
	[ -f "$P/.git/hooks/pre-push.sample" ] && [ ! -L "$P/.git/hooks/pre-push.sample" ]
	assert_unchanged "$before" "$T/target"
	git -C "$P" status >/dev/null 2>&1 || true
	did_not_run
}

# N-16/N-29: the run prepares for the exit repair.  It plants .git/commondir
# (a repository whose config runs core.fsmonitor) and writes .git/config,
# then makes the move aside fail.  The repair must still leave nothing of
# it in place, and git outside must run nothing.
plant_and_block() {
	local block="$1"
	cp "$P/.git/config" "$T/config.orig"
	run xsbx -c "mkdir ev && cp -r .git/. ev/ && $SBX_SYS.static creat ev/config '$FSMON' && $SBX_SYS.static creat .git/commondir ../ev; $SBX_SYS.static append .git/config '$FSMON'; $block; true"
	echo "$output"
	[[ "$output" != *"could not be"* ]]
	# the user gives the directories back their modes, as one would
	eval "${2:-true}"
	[ ! -e "$P/.git/commondir" ]
	cmp "$P/.git/config" "$T/config.orig"
	git -C "$P" status >/dev/null 2>&1 || true
	did_not_run
}

@test "N-16 the names sbxrun moves aside to are occupied in advance (static): git outside runs nothing" {
	# the pid sbxrun used in them is in \$SBXRUN_REPORT (@sbxrun-PID-...)
	plant_and_block 'P=${SBXRUN_REPORT#@sbxrun-}; P=${P%%-*}; for i in $(seq 0 100); do for n in commondir config; do '"$SBX_SYS.static"' mkdir .git/$n.sbxrun-blocked-$P-$i >/dev/null; done; done'
	[ "$status" -eq 0 ]
}

@test "N-29 the run takes write permission from .git (chmod 555, static): git outside runs nothing" {
	plant_and_block "$SBX_SYS.static chmod .git 555"
	[ "$status" -eq 0 ]
	# the directory's mode is the run's again, and the repair said it
	[ "$(stat -c %a "$P/.git")" = 555 ]
	[[ "$output" == *"'$P/.git/commondir' was created during the run"* ]]
}

@test "N-29 the run makes .git and .git/hooks unreadable (chmod 000, static): git outside runs nothing once readable" {
	printf '#!/bin/sh\ntrue\n' > "$P/.git/hooks/post-checkout"
	chmod 755 "$P/.git/hooks/post-checkout"
	plant_and_block "$SBX_SYS.static write .git/hooks/post-checkout '$HOOK'; $SBX_SYS.static creat .git/hooks/pre-commit '$HOOK'; $SBX_SYS.static chmod .git/hooks/pre-commit 755; $SBX_SYS.static chmod .git/hooks 0; $SBX_SYS.static chmod .git 0" 'chmod u+rwx "$P/.git" "$P/.git/hooks"'
	[ "$status" -eq 0 ]
	[ ! -e "$P/.git/hooks/pre-commit" ]
	git -C "$P" checkout -q -b other
	echo b >> "$P/README"
	git -C "$P" commit -qam x || true
	did_not_run
}

# N-04/N-21: sbxrun is killed (SIGKILL: a harness's `timeout -k` after the
# command ignored SIGTERM) before its exit repair.  What it had to check
# was written down before the command started: the next run in the
# project does the repair first, and says so.
@test "N-21 sbxrun SIGKILLed before its exit repair: the next run does it (static): git outside runs nothing" {
	"$SBXRUN" --mode "$SBX_MODE" -c "trap '' TERM INT HUP; mkdir ev && cp -r .git/. ev/ && $SBX_SYS.static creat ev/config '$FSMON' && $SBX_SYS.static creat .git/commondir ../ev && $SBX_SYS.static mkdir .claude && $SBX_SYS.static creat .claude/settings.local.json '{\"disableAllHooks\":true}' && exec sleep 60" >/dev/null 2>&1 &
	pid=$!
	bg_track "$pid"
	for _ in $(seq 100); do [ -e "$P/.claude/settings.local.json" ] && break; sleep 0.1; done
	sleep 0.3
	kill -KILL "$pid"
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	# the kill did skip the repair (the test can fail)
	[ -e "$P/.git/commondir" ]
	# any later run in the project repairs first
	run xsbx -c true
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"an earlier sbxrun in '$P' was killed before its exit repair"* ]]
	[[ "$output" == *"'$P/.git/commondir' was created during the run"*"moved aside"* ]]
	assert_absent "$P/.git/commondir" "$P/.claude"
	git -C "$P" status >/dev/null 2>&1 || true
	did_not_run
	# done once: the run after says nothing of it
	run xsbx -c true
	[[ "$output" != *"killed before its exit repair"* ]]
}

# N-33: a protected file with a second hard link (made by an earlier run,
# in landlock-only mode where linkat in the project is allowed): the read-
# only mount and the shim hold the name, not the inode.  At launch the
# protected name gets its own copy; a static write through the other name
# changes nothing git reads.
@test "N-33 hard links to .git/config and a hook, written through by a static program: git outside runs nothing" {
	printf '#!/bin/sh\ntrue\n' > "$P/.git/hooks/post-checkout"
	chmod 755 "$P/.git/hooks/post-checkout"
	cp "$P/.git/config" "$T/config.orig"
	# the earlier run (landlock-only allows the link in the project)
	run timeout -k 5 60 "$SBXRUN" --mode landlock-only -c "$SBX_SYS.static link .git/config notes.txt; $SBX_SYS.static link .git/hooks/post-checkout docs.txt; true"
	echo "$output"
	[ -e "$P/notes.txt" ] || ln "$P/.git/config" "$P/notes.txt"
	[ -e "$P/docs.txt" ] || ln "$P/.git/hooks/post-checkout" "$P/docs.txt"
	[ "$(stat -c %i "$P/notes.txt")" = "$(stat -c %i "$P/.git/config")" ]
	run xsbx -c "$SBX_SYS.static append notes.txt '$FSMON'; $SBX_SYS.static write docs.txt '$HOOK'; true"
	echo "$output"
	[[ "$output" == *"'$P/.git/config' is protected but had another hard link"* ]]
	[[ "$output" == *"'$P/.git/hooks/post-checkout' is protected but had another hard link"* ]]
	cmp "$P/.git/config" "$T/config.orig"
	[ "$(stat -c %a "$P/.git/hooks/post-checkout")" = 755 ]
	git -C "$P" checkout -q -b other
	git -C "$P" status >/dev/null 2>&1 || true
	did_not_run
}

# N-16/N-29: when a planted entry can neither be moved aside nor removed
# (here: made immutable from outside, which the run itself cannot do), the
# run fails loudly (exit 125, ERROR), not with a warning alone.
@test "N-16 a planted entry that cannot be moved aside nor removed fails the run (exit 125)" {
	# chattr +i needs root: not applicable to the unprivileged run (not a
	# skip: under CI a skip fails)
	[ "$(id -u)" = 0 ] || return 0
	command -v chattr >/dev/null || skip "no chattr"
	touch "$T/probe-i" && chattr +i "$T/probe-i" 2>/dev/null || skip "no immutable files here"
	chattr -i "$T/probe-i"
	(xsbx -c "$SBX_SYS.static creat .git/commondir ../ev >/dev/null; exec sleep 3" > "$T/out" 2>&1 && echo 0 > "$T/rc" || echo $? > "$T/rc") &
	for _ in $(seq 50); do [ -e "$P/.git/commondir" ] && break; sleep 0.1; done
	chattr +i "$P/.git/commondir"
	for _ in $(seq 150); do [ -s "$T/rc" ] && break; sleep 0.1; done
	chattr -i "$P/.git/commondir"
	cat "$T/out"
	[ "$(cat "$T/rc")" -eq 125 ]
	grep -F "ERROR: '$P/.git/commondir' was created during the run" "$T/out"
	grep -F "sbxrun fails the run" "$T/out"
}
