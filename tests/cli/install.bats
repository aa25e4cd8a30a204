#!/usr/bin/env bats
# make install / make uninstall with DESTDIR: exactly the expected files in
# the standard places, an installed sbxrun that finds its own shim and
# profiles, and nothing left after uninstall.

load ../lib/common

setup() {
	sbx_setup
	D="$T/dest"
	# The build this suite tests, as make knows it (B relative to the
	# tree when it is inside), installed as built: NOBUILD=1 never
	# rebuilds a tree the other suites are using.
	B_ARG=$SBX_BUILD
	case $SBX_BUILD in "$SBX_TOP"/*) B_ARG=${SBX_BUILD#"$SBX_TOP"/} ;; esac
	unset MAKEFLAGS MAKELEVEL MFLAGS
}
teardown() { sbx_teardown; }

mk() {
	make -s -C "$SBX_TOP" B="$B_ARG" NOBUILD=1 DESTDIR="$D" "$@"
}

# What make install must put under prefix (/usr/local).
expected() {
	local p
	printf '%s\n' bin/sbxrun bin/sbxrun-sh share/man/man1/sbxrun-sh.1 \
		lib/sbxrun/libsbxshim.so lib/libsbx.a \
		lib/libsbx.so.0 lib/libsbx.so lib/pkgconfig/sbx.pc include/sbx.h \
		share/man/man1/sbxrun.1 share/man/man5/sbxrun.conf.5 \
		share/bash-completion/completions/sbxrun \
		share/zsh/site-functions/_sbxrun \
		share/fish/vendor_completions.d/sbxrun.fish
	for p in "$SBX_TOP"/profiles/*.conf; do echo "share/sbxrun/profiles/${p##*/}"; done
	for p in "$SBX_TOP"/conf/*.conf; do echo "share/sbxrun/conf/${p##*/}"; done
}

@test "make install DESTDIR= installs exactly the expected files" {
	run mk install
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	[ -d "$D/usr/local" ]
	got=$(cd "$D/usr/local" && find . ! -type d | sed 's|^\./||' | sort)
	want=$(expected | sort)
	if [ "$got" != "$want" ]; then
		diff <(echo "$want") <(echo "$got") >&2
		false
	fi
	# Nothing outside the prefix.
	[ "$(ls -A "$D")" = usr ] && [ "$(ls -A "$D/usr")" = local ]
	[ "$(readlink "$D/usr/local/lib/libsbx.so")" = libsbx.so.0 ]
	[ "$(readlink "$D/usr/local/bin/sbxrun-sh")" = sbxrun ]
	[ "$(readlink "$D/usr/local/share/man/man1/sbxrun-sh.1")" = sbxrun.1 ]
	[ -x "$D/usr/local/bin/sbxrun" ]
	[ "$(stat -c %a "$D/usr/local/lib/sbxrun/libsbxshim.so")" = 644 ]
	run objdump -p "$D/usr/local/lib/libsbx.so.0"
	[[ "$output" == *"SONAME               libsbx.so.0"* ]]
	grep -q '^prefix=/usr/local$' "$D/usr/local/lib/pkgconfig/sbx.pc"
	# The shipped pages and completions are the built ones.
	cmp "$D/usr/local/share/man/man1/sbxrun.1" "$SBX_BUILD/man/sbxrun.1"
	cmp "$D/usr/local/share/bash-completion/completions/sbxrun" "$SBX_BUILD/completion/sbxrun.bash"
}

@test "an installed sbxrun finds its own profiles and shim" {
	require_kernel
	mk install
	unset SBXRUN_PROFILE_DIR SBXRUN_SHIM
	bin="$D/usr/local/bin/sbxrun"
	run "$bin" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "sbxrun "* ]]
	run "$bin" --list-paths
	[ "$status" -eq 0 ]
	[[ "$output" == *"$D/usr/local/bin/../share/sbxrun/profiles/default.conf"* ]]
	# A real run, explained by the installed shim (no "not found" warning).
	run "$bin" --mode "$SBX_MODE" -c 'cat ~/.ssh/id_rsa; echo "shim=$LD_PRELOAD"'
	no_canary "$output"
	[[ "$output" != *"libsbxshim.so not found"* ]]
	[[ "$output" == *"shim=$D/usr/local/lib/sbxrun/libsbxshim.so"* ]]
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa'"* ]]
}

@test "make uninstall DESTDIR= removes every file install put there" {
	mk install
	[ -n "$(find "$D" ! -type d)" ]
	run mk uninstall
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	left=$(find "$D" ! -type d)
	[ -z "$left" ] || { echo "left behind: $left" >&2; false; }
	# sbxrun's own directories are gone; only standard ones may stay.
	[ ! -e "$D/usr/local/share/sbxrun" ]
	[ ! -e "$D/usr/local/lib/sbxrun" ]
	# Uninstalling twice is harmless.
	run mk uninstall
	[ "$status" -eq 0 ]
}
