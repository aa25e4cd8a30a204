#!/usr/bin/env bats
# Kept conf trees (launcher/lib/confcache.c, issue 17): a conf's parse is
# kept by the hash of its bytes in sbxrun's private state directory.  It
# must be invisible: a conf edited between runs (same size, same mtime)
# gives the new policy; a damaged, truncated, foreign or planted entry is
# parsed anew, never trusted; the sandboxed command cannot write one.

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() {
	esc_setup
	ISLE="$T/isle" # outside the project: the kernel holds ro in both modes
	mkdir -p "$ISLE"
	CONF="$HOME/.config/sbxrun/config"
	STATE="$HOME/.cache/sbxrun/run"
	xsbx -- true # the first run makes the state directory
}
teardown() { esc_teardown; }

# The user conf with the island's mode (ro or rw: the same size).
put_conf() {
	printf 'paths = ( { root = "%s"; mode = "%s"; } );\n' "$ISLE" "$1" > "$CONF"
	chmod 600 "$CONF"
}

# Writes into the island with a raw syscall (neither libc nor the shim).
# Read-only by default (outside the project); the conf decides.
try_write() {
	run xsbx -- "$SBX_SYS.static" creat "$ISLE/f" "x$1"
	echo "$1: $output"
}

entries() { ls "$STATE"/conf-* 2>/dev/null; }

@test "a conf edited between runs, same size and mtime, gives the new policy" {
	put_conf ro
	touch -d '2024-01-02 03:04:05' "$CONF"
	try_write 1
	[[ "$output" == *"RESULT -1"* ]]
	[ ! -e "$ISLE/f" ]
	[ -n "$(entries)" ] # the tree is kept
	size=$(stat -c %s "$CONF")
	put_conf rw
	touch -d '2024-01-02 03:04:05' "$CONF"
	[ "$(stat -c %s "$CONF")" = "$size" ]
	try_write 2
	[[ "$output" == *"RESULT 3 OK"* || "$output" == *"RESULT"*" OK"* ]]
	[ "$(cat "$ISLE/f")" = x2 ]
	rm -f "$ISLE/f"
	put_conf ro # back: the first tree, kept, still means ro
	touch -d '2024-01-02 03:04:05' "$CONF"
	try_write 3
	[[ "$output" == *"RESULT -1"* ]]
	[ ! -e "$ISLE/f" ]
	# the same with the in-place edit of one byte (same inode)
	sed -i 's/"ro"/"rw"/' "$CONF" && touch -d '2024-01-02 03:04:05' "$CONF"
	try_write 4
	[ "$(cat "$ISLE/f")" = x4 ]
}

# The entries of the ro conf, after runs of both; $T/rw-entry: the rw
# conf's tree, which must never be taken for the ro conf.
keep_both() {
	put_conf ro
	xsbx -- true
	mapfile -t RO < <(entries)
	put_conf rw
	xsbx -- true
	for f in $(entries); do
		case " ${RO[*]} " in *" $f "*) ;; *) cp "$f" "$T/rw-entry" ;; esac
	done
	[ "${#RO[@]}" -ge 1 ] && [ -s "$T/rw-entry" ]
	put_conf ro
}

@test "a damaged, truncated or foreign kept tree is parsed anew, never trusted" {
	keep_both
	for how in flip truncate empty foreign symlink; do
		for e in "${RO[@]}"; do
			case $how in
			flip) chmod u+w "$e"
				printf '\377\377\377\377' | dd of="$e" bs=1 seek=200 conv=notrunc 2>/dev/null ;;
			truncate) chmod u+w "$e"; truncate -s 100 "$e" ;;
			empty) rm -f "$e"; : > "$e" ;;
			foreign) rm -f "$e"; cp "$T/rw-entry" "$e" ;;
			symlink) rm -f "$e"; ln -s "$T/rw-entry" "$e" ;;
			esac
			[ -L "$e" ] || chmod 444 "$e"
		done
		rm -f "$ISLE/f"
		try_write "$how"
		[[ "$output" == *"RESULT -1"* ]]
		[ ! -e "$ISLE/f" ]
		# parsed anew and kept again: a plain file of ours
		for e in "${RO[@]}"; do [ -f "$e" ] && [ ! -L "$e" ]; done
	done
}

@test "a kept tree left writable, or another user's, is not read" {
	keep_both
	for e in "${RO[@]}"; do
		rm -f "$e" && cp "$T/rw-entry" "$e" && chmod 644 "$e"
	done
	try_write mode
	[[ "$output" == *"RESULT -1"* ]]
	[ ! -e "$ISLE/f" ]
	if [ "$(id -u)" = 0 ]; then
		for e in "${RO[@]}"; do
			rm -f "$e" && cp "$T/rw-entry" "$e" && chmod 444 "$e" &&
				chown 65534 "$e"
		done
		try_write owner
		[[ "$output" == *"RESULT -1"* ]]
		[ ! -e "$ISLE/f" ]
	fi
}

@test "the sandboxed command cannot plant a kept tree, even bypassing the shim" {
	put_conf rw
	xsbx -- true
	put_conf ro
	xsbx -- true
	mapfile -t E < <(entries)
	[ "${#E[@]}" -ge 2 ]
	sum0=$(cat "${E[@]}" | md5sum)
	# from inside: overwrite each entry with another (the rw tree), make
	# new ones, rename one over another; raw syscalls, static probe
	cmds=""
	for e in "${E[@]}"; do
		for f in "${E[@]}"; do
			[ "$e" = "$f" ] && continue
			cmds+="'$SBX_SYS.static' creat '$e' x; "
			cmds+="cp '$f' '$P/planted'; '$SBX_SYS.static' rename '$P/planted' '$e'; "
			cmds+="'$SBX_SYS.static' unlink '$e'; "
		done
	done
	cmds+="'$SBX_SYS.static' creat '$STATE/conf-00112233445566778899aabbccddeeff' x; "
	run xsbx -c "$cmds"
	echo "$output"
	[[ "$output" != *"RESULT "[0-9]*" OK"* ]]
	[ "$(cat "${E[@]}" | md5sum)" = "$sum0" ]
	[ ! -e "$STATE/conf-00112233445566778899aabbccddeeff" ]
	rm -f "$ISLE/f"
	try_write after
	[[ "$output" == *"RESULT -1"* ]]
	[ ! -e "$ISLE/f" ]
}

@test "a tree kept by one build of sbxrun is not taken by another" {
	put_conf ro
	xsbx -- true
	n0=$(entries | wc -l)
	"$SBXRUN" --list-paths >/dev/null
	[ "$(entries | wc -l)" = "$n0" ] # the same build: taken, none added
	cp "$SBXRUN" "$T/sbxrun-other" # another file: another build
	touch -r "$SBXRUN" "$T/sbxrun-other"
	run "$T/sbxrun-other" --list-paths
	[ "$status" -eq 0 ]
	[[ "$output" == *"ro    $ISLE"* ]]
	[ "$(entries | wc -l)" -gt "$n0" ] # parsed anew and kept apart
}
