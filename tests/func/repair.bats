#!/usr/bin/env bats
# A protected name planted as a symlink by an earlier run (review U-01):
# sbxrun refuses to start, and its repair advice, followed as printed,
# makes the next run start, touches no link target and brings back what
# the project needs.  And a first run with a fresh home says nothing
# about sbxrun's own state directory (U-02).

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/../escape/_lib.bats"

setup() {
	esc_setup
	command -v git >/dev/null || skip "no git"
	git init -q "$P"
	git -C "$P" config user.email t@t && git -C "$P" config user.name t
}
teardown() { esc_teardown; }

# follow_repair: the refused run's advice, run in bash as printed.
follow_repair() {
	run --separate-stderr sbx -- true
	echo "refused: $status $stderr"
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"perhaps planted by a command run earlier"* ]]
	[[ "$stderr" != *mkdir* ]]
	fix=$(printf '%s\n' "${stderr#*To repair: }" |
		sed -e 's/ (removes the link only, not its target); then, if git [a-z]* it, / \&\& /' \
		    -e 's/ makes a default one again$//')
	echo "following: $fix"
	bash -c "$fix"
	run --separate-stderr sbx -- true
	echo "after: $status $stderr"
	[ "$status" -eq 0 ]
}

@test "U-01 .git/config planted as a symlink: the advice removes the link, git init makes a config" {
	cp "$P/.git/config" "$T/config.orig"
	rm "$P/.git/config"
	ln -s "$HOME/.bashrc" "$P/.git/config"
	before=$(cat "$HOME/.bashrc")
	follow_repair
	[ -f "$P/.git/config" ] && [ ! -L "$P/.git/config" ]
	[ "$(cat "$HOME/.bashrc")" = "$before" ]
	git -C "$P" status >/dev/null
}

@test "U-01 a tracked .vscode/ replaced by a symlink: the advice brings the tracked files back" {
	mkdir "$P/.vscode" && echo '{}' > "$P/.vscode/settings.json"
	git -C "$P" add .vscode && git -C "$P" commit -qm vscode
	rm -r "$P/.vscode" && ln -s "$HOME" "$P/.vscode"
	follow_repair
	[ -d "$P/.vscode" ] && [ ! -L "$P/.vscode" ]
	[ "$(cat "$P/.vscode/settings.json")" = '{}' ]
	[ -f "$HOME/.bashrc" ]
}

@test "U-01 a project path with shell characters: the advice is quoted" {
	Q="$T/pro j;x"
	mkdir -p "$Q" && git init -q "$Q" && cd "$Q"
	ln -s "$HOME/.bashrc" "$Q/.envrc"
	run --separate-stderr sbx -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"To repair: rm '$Q/.envrc' (removes"* ]]
	[[ "$stderr" == *"git -C '$Q' checkout -- .envrc"* ]]
	bash -c "rm '$Q/.envrc'"
	[ -f "$HOME/.bashrc" ]
	run --separate-stderr sbx -- true
	[ "$status" -eq 0 ]
}

@test "U-02 a first run with a fresh home: no warning about sbxrun's own state directory" {
	export HOME="$T/fresh" && mkdir -p "$HOME/p" && cd "$HOME/p"
	run --separate-stderr sbx -- true
	echo "$status $stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"created during the run"* ]]
	[[ "$stderr" != *sbxrun/run* ]]
}
