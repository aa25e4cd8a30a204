#!/usr/bin/env bats
# The LD_PRELOAD shim on its own, without the launcher: probes run under
# LD_PRELOAD=libsbxshim.so with a compiled policy written by mkpol, and
# every result is judged from outside (rc and errno printed by the probe,
# the message on stderr, the file system afterwards, the report records).
# Kernel refusals are produced with user and mount/network namespaces
# (unshare), so the explanations of the kernel's answers are tested too.

load ../lib/common

bats_require_minimum_version 1.5.0

SHIM="$SBX_BUILD/libsbxshim.so"
PROBE="$PROBES/probe"

setup_file() {
	local mk="$SBX_BUILD/tests/mkpol"
	export SHIM_TOOLS="$BATS_FILE_TMPDIR"
	# mkpol: the make rule's binary when there is one, else build it here
	if [ ! -x "$mk" ] || [ "$mk" -ot "$SBX_BUILD/libsbx.a" ]; then
		mk="$SHIM_TOOLS/mkpol"
		# an instrumented libsbx.a (make check-asan) needs the runtime
		san=
		if nm "$SBX_BUILD/libsbx.a" 2>/dev/null | grep -q __asan_; then
			san=-fsanitize=address,undefined
		fi
		cc -std=gnu11 -O1 -D_GNU_SOURCE $san -I"$SBX_TOP/include" -I"$SBX_TOP/core" \
			-o "$mk" "$SBX_TOP/tests/shim/mkpol.c" "$SBX_BUILD/libsbx.a" \
			$(pkg-config --libs libconfig libxxhash libseccomp jansson)
	fi
	export MKPOL="$mk"
	cc -shared -fPIC -o "$SHIM_TOOLS/ctorlib.so" "$SBX_TOP/tests/shim/ctorlib.c"
}

setup() {
	sbx_setup
	mkdir -p notes data .git/hooks "$T/bin"
	echo md > notes/a.md
	echo txt > notes/a.txt
	head -c 2000 /dev/zero > data/big.csv
	echo small > data/small.csv
	echo '[core]' > .git/config
	printf '#!/bin/sh\necho "fake $0 $*"\n' > "$T/bin/sudo"
	chmod +x "$T/bin/sudo"
	POL="$T/pol"
	pol
}

# the shim's table of lines said in a run (shim/explain.c) is the
# launcher's to remove; these tests run the shim without one
teardown() {
	rm -f /tmp/.sbxrun-seen-nothing-$$ /tmp/.sbxrun-seen-sbxshimtest-$$-*
	sbx_teardown
}

# The default test policy; extra mkpol options are appended.
pol() {
	"$MKPOL" "$POL" --home "$HOME" --src /etc/sbxrun/test.conf \
		--secret '~/.ssh' --rw notes --suffix notes .md,.pdf \
		--rw data --max data 1000 \
		--deny sudo 'privilege escalation is not available in this sandbox' \
		--deny-args rm 'catastrophic delete' -rf,/ "$@"
}

shim() { LD_PRELOAD="$SHIM" SBXRUN_POLICY="$POL" "$@"; }
# the same with $T/bin (fake sudo, fake rm) first in PATH, for this
# command only: bats itself runs rm
shimp() { PATH="$T/bin:$PATH" LD_PRELOAD="$SHIM" SBXRUN_POLICY="$POL" "$@"; }

# Kernel refusals need a user namespace with mount/network namespaces.
need_userns() {
	if ! unshare -rm true 2>/dev/null; then
		[ "${SBX_MUST_WORK:-}" = 1 ] && { echo "no user namespaces" >&2; return 1; }
		skip "user namespaces unavailable"
	fi
}

# ------------------------------------------------------------ build

@test "exports exactly the hooks declared in hooks.def" {
	want=$(sed -nE 's/^SBX_HOOK\([^,]+, *([A-Za-z0-9_]+),.*/\1/p' "$SBX_TOP/shim/hooks.def" | sort)
	got=$(nm -D --defined-only "$SHIM" | awk '{print $3}' | sort)
	[ "$want" = "$got" ]
	# shim.map lists the same names
	map=$(sed -nE 's/^[[:space:]]+([A-Za-z0-9_]+);$/\1/p' "$SBX_TOP/shim/shim.map" | sort)
	[ "$want" = "$map" ]
	# no allocator, no stdio in the shim
	! nm -D --undefined-only "$SHIM" | grep -wE 'malloc|calloc|realloc|free|printf|fprintf|snprintf|fopen|fwrite|exit'
}

# ------------------------------------------------------------ pass-through

@test "no policy, or a corrupt one: everything passes, nothing is said" {
	run --separate-stderr env LD_PRELOAD="$SHIM" "$PROBE" open notes/x.exe w,creat
	[ "$output" = "3 0" ] && [ -z "$stderr" ]
	head -c 100 /dev/urandom > "$T/bad.pol"
	run --separate-stderr env LD_PRELOAD="$SHIM" SBXRUN_POLICY="$T/bad.pol" "$PROBE" open notes/y.exe w,creat
	[ "$output" = "3 0" ] && [ -z "$stderr" ]
	run --separate-stderr env LD_PRELOAD="$SHIM" SBXRUN_POLICY="$T/missing" "$PROBE" open notes/z.exe w,creat
	[ "$output" = "3 0" ] && [ -z "$stderr" ]
}

# A policy that went missing or bad under a sandbox: the exec rules can no
# longer be checked, so programs are refused, loudly (fail closed).
@test "a policy named but not loadable: programs are refused, with the reason" {
	head -c 100 /dev/urandom > "$T/bad.pol"
	# a real policy damaged where its structure breaks (no checksum:
	# cpol.h): one byte short, another version, the string table's end
	local n
	n=$(stat -c %s "$POL")
	head -c $((n - 1)) "$POL" > "$T/short.pol"
	cp "$POL" "$T/version.pol"
	printf 'c' | dd of="$T/version.pol" bs=1 seek=8 conv=notrunc 2>/dev/null
	cp "$POL" "$T/strend.pol"
	printf 'x' | dd of="$T/strend.pol" bs=1 seek=$((n - 1)) conv=notrunc 2>/dev/null
	run --separate-stderr env LD_PRELOAD="$SHIM" SBXRUN_POLICY="$POL" \
		/bin/sh -c "/bin/touch '$T/ran'"
	[ "$status" -eq 0 ] && [ -e "$T/ran" ] # the undamaged one loads
	mkfifo "$T/fifo.pol"
	# an empty value and a FIFO too (review 3, F2 and N2: an empty one
	# switched the rules off, a FIFO hung every program)
	for pol in "$T/bad.pol" "$T/missing" "$T/short.pol" "$T/version.pol" \
		"$T/strend.pol" "" "$T/fifo.pol" "$T"; do
		rm -f "$T/ran"
		run --separate-stderr timeout 20 env LD_PRELOAD="$SHIM" \
			SBXRUN_POLICY="$pol" /bin/sh -c "/bin/touch '$T/ran'"
		[ "$status" -ne 0 ]
		[[ "$stderr" == *"refused to run '/bin/touch'"*"could not be loaded"* ]]
		[ ! -e "$T/ran" ]
	done
}

# Every interposer, allowed: same output and same effect with the shim.
@test "allowed calls are unchanged: rc, errno and effect, for every interposer" {
	cmds=(
		"open notes/n1.md w,creat" "open notes/a.md r" "open nonexistent r"
		"open notes/a.md w,excl,creat" "open64 notes/n2.md w,creat"
		"openat notes n3.md w,creat" "openat64 - notes/n4.md rw,creat"
		"openat - /nonexistent/x r" "open notes tmpfile,w" "open notes/a.md path"
		"creat notes/n5.md" "creat64 notes/n6.md" "fopen notes/a.md r"
		"fopen notes/n7.md w" "fopen64 notes/n8.md a+" "fopen /nonexistent/x r"
		"freopen notes/a.md r" "freopen64 notes/n9.md w" "fopen notes/a.md bogus"
		"truncate notes/a.md 3" "truncate64 data/small.csv 900"
		"ftruncate data/small.csv 999" "ftruncate64 notes/a.md 1"
		"truncate /nonexistent 1" "mkdir notes/d.exe" "mkdir notes/d.exe"
		"mkdirat - notes/e" "rmdir notes/e" "rmdir notes/nonexistent"
		"unlink notes/n1.md" "unlink notes/n1.md" "unlinkat - notes/d.exe dir"
		"rename notes/n2.md notes/r.md" "renameat notes/r.md notes/r2.pdf"
		"renameat2 notes/r2.pdf notes/a.md noreplace" "rename notes/zz notes/zz.exe"
		"link notes/a.md notes/l.md" "linkat notes/a.md notes/l2.md"
		"symlink a.md notes/s.md" "symlinkat a.md notes/s2.md"
		"tmplink notes notes/t.md" "mknod notes/f.fifo fifo" "mknodat - notes/m.md"
		"chmod notes/a.md 600" "fchmodat - notes/a.md 640" "chown notes/a.md"
		"lchown notes/s.md" "fchownat - notes/a.md" "utimensat notes/a.md"
		"chdir notes" "chdir /nonexistent" "open data/small.csv r"
		"open data/big.csv w,trunc" "socket unix" "socket inet"
		"connect-unix $T/no.sock" "getaddrinfo localhost" "getaddrinfo 127.0.0.1"
		"posix_spawn /bin/true" "posix_spawnp true" "posix_spawn /nonexistent"
		"system true" "popen echo\ hi" "fork-exec /bin/true" "vfork-exec /bin/true"
		"execve /nonexistent" "execvp nonexistent-program" "execv /bin/echo echo ok"
	)
	mkdir -p "$T/bare" "$T/shim"
	cp -a notes data "$T/bare/"; cp -a notes data "$T/shim/"
	pol --rw "$T/bare/notes" --suffix "$T/bare/notes" .md,.pdf --rw "$T/shim/notes" \
		--suffix "$T/shim/notes" .md,.pdf --rw "$T/bare/data" --max "$T/bare/data" 1000 \
		--rw "$T/shim/data" --max "$T/shim/data" 1000
	list=("${cmds[@]}")
	for c in "${list[@]}"; do
		eval "set -- $c"
		a=$(cd "$T/bare" && "$PROBE" "$@" 2>&1)
		b=$(cd "$T/shim" && shim "$PROBE" "$@" 2>&1)
		[ "$a" = "$b" ] || { echo "differs: $c: bare '$a' shim '$b'"; return 1; }
	done
	# the same tree afterwards (names, types, sizes, modes)
	a=$(cd "$T/bare" && find . -printf '%p %y %s %m %l\n' | sort)
	b=$(cd "$T/shim" && find . -printf '%p %y %s %m %l\n' | sort)
	[ "$a" = "$b" ]
}

@test "the shim keeps no file descriptor open" {
	a=$(ls /proc/self/fd | wc -l)
	b=$(shim ls /proc/self/fd | wc -l)
	[ "$a" = "$b" ]
}

# ------------------------------------------------------------ suffixes

@test "suffix: the exact message, EACCES, nothing created" {
	run --separate-stderr shim "$PROBE" open notes/x.exe w,creat
	[ "$output" = "-1 13" ]
	[ "$stderr" = "sbxrun: cannot write 'notes/x.exe': suffix '.exe' not allowed (allowed: .md, .pdf; rule $P/notes from /etc/sbxrun/test.conf:8)" ]
	[ ! -e notes/x.exe ]
}

@test "suffix: every way a file gets a name is checked (FS-06)" {
	list=("open notes/x.sh w,creat" "open notes/a.txt w" "open notes/a.txt rw" "open notes/a.txt r,trunc" "openat notes x.sh w,creat" "openat64 - notes/x.sh w,creat" "open64 notes/x.sh w,creat" "creat notes/x.sh" "creat64 notes/x.sh" "fopen notes/x.sh w" "fopen notes/a.txt r+" "fopen64 notes/x.sh a" "freopen notes/x.sh w" "freopen64 notes/x.sh w" "truncate notes/a.txt 0" "rename notes/a.md notes/a.sh" "renameat notes/a.md notes/a.sh" "renameat2 notes/a.md notes/a.sh" "renameat2 notes/a.txt notes/a.md exchange" "link notes/a.md notes/a.sh" "linkat notes/a.md notes/a.sh follow" "symlink a.md notes/s.sh" "symlinkat a.md notes/s.sh" "tmplink notes notes/t.sh" "tmplink notes notes/t.sh proc" "mknod notes/n.sh" "mknodat - notes/n.sh")
	for c in "${list[@]}"; do
		run --separate-stderr shim "$PROBE" $c
		[ "$output" = "-1 13" ] || { echo "not refused: $c: $output"; return 1; }
		[[ "$stderr" == "sbxrun: cannot write '"*"': "*"not allowed (allowed: .md, .pdf; rule $P/notes from /etc/sbxrun/test.conf:8)" ]] ||
			{ echo "bad message: $c: $stderr"; return 1; }
	done
	[ "$(ls notes | sort | tr '\n' ' ')" = "a.md a.txt " ]
	[ "$(cat notes/a.txt)" = txt ] && [ "$(cat notes/a.md)" = md ]
}

@test "suffix: allowed names, directories, fifos and missing files pass" {
	list=("open notes/ok.md w,creat" "open notes/ok.PDF w,creat" "mkdir notes/dir.exe" "rename notes/dir.exe notes/dir2.exe" "mknod notes/f.fifo fifo" "rename notes/f.fifo notes/f2.fifo" "open notes/a.txt r")
	for c in "${list[@]}"; do
		run --separate-stderr shim "$PROBE" $c
		[[ "$output" == [03]" 0" ]] && [ -z "$stderr" ] || { echo "$c: $output $stderr"; return 1; }
	done
	# the real call's error, not a refusal, for names that do not exist
	run --separate-stderr shim "$PROBE" open notes/missing.exe w
	[ "$output" = "-1 2" ] && [ -z "$stderr" ]
	run --separate-stderr shim "$PROBE" rename notes/missing notes/m.exe
	[ "$output" = "-1 2" ] && [ -z "$stderr" ]
}

@test "suffix: the fortify and large-file builds reach the shim too" {
	nm -D "$PROBES/probe_fortify" | grep -qw __open_2
	nm -D "$PROBES/probe_fortify" | grep -qw __openat_2
	nm -D "$PROBES/probe_lfs" | grep -qw open64
	nm -D "$PROBES/probe_lfs" | grep -qw fopen64
	for p in probe_fortify probe_lfs; do
		list=("open notes/a.txt w" "openat - notes/a.txt rw" "open notes/x.sh w,creat" "fopen notes/x.sh w" "truncate notes/a.txt 0" "open64 notes/a.txt w")
		for c in "${list[@]}"; do
			run --separate-stderr shim "$PROBES/$p" $c
			[ "$output" = "-1 13" ] || { echo "$p $c: $output"; return 1; }
		done
		run shim "$PROBES/$p" open notes/a.md w
		[ "$output" = "3 0" ]
	done
}

@test "static binaries are not affected (the kernel is the boundary)" {
	run --separate-stderr shim "$PROBE.static" open notes/x.exe w,creat
	[ "$output" = "3 0" ] && [ -z "$stderr" ]
}

# ------------------------------------------------------------ sizes

@test "size: reading a file over the limit, exact message and EFBIG" {
	run --separate-stderr shim "$PROBE" open data/big.csv r
	[ "$output" = "-1 27" ]
	[ "$stderr" = "sbxrun: cannot read 'data/big.csv': 2000 bytes, over the 1000-byte limit (rule $P/data from /etc/sbxrun/test.conf:13)" ]
	list=("fopen data/big.csv r" "fopen64 data/big.csv r" "openat data big.csv r" "open data/big.csv w" "open data/big.csv w,append")
	for c in "${list[@]}"; do
		run --separate-stderr shim "$PROBE" $c
		[ "$output" = "-1 27" ] || { echo "$c: $output"; return 1; }
	done
	run shim "$PROBE" open data/small.csv r
	[[ "$output" == "3 0" ]]
	run shim "$PROBE" open data/big.csv w,trunc
	[[ "$output" == "3 0" ]]
}

@test "size: truncate and ftruncate past the limit" {
	for c in truncate truncate64 ftruncate ftruncate64; do
		run --separate-stderr shim "$PROBE" $c data/small.csv 1001
		[ "$output" = "-1 27" ] || { echo "$c: $output"; return 1; }
		[[ "$stderr" == *"1001 bytes, over the 1000-byte limit (rule $P/data from /etc/sbxrun/test.conf:13)" ]]
		run shim "$PROBE" $c data/small.csv 1000
		[ "$output" = "0 0" ]
	done
	[ "$(stat -c %s data/small.csv)" = 1000 ]
	run shim "$PROBE" truncate notes/a.md 5000
	[ "$output" = "0 0" ]
}

# ------------------------------------------------------------ exec

@test "exec deny rules: every entry point, exact message, EACCES" {
	run --separate-stderr shimp "$PROBE" execvp sudo id
	[ "$output" = "-1 13" ]
	[ "$stderr" = "sbxrun: refused to run 'sudo': privilege escalation is not available in this sandbox (rule sudo from /etc/sbxrun/test.conf:18)" ]
	list=("execve $T/bin/sudo" "execv $T/bin/sudo" "execvpe sudo" "execl $T/bin/sudo" "execlp sudo" "execle $T/bin/sudo" "fexecve $T/bin/sudo" "execveat $T/bin/sudo")
	for c in "${list[@]}"; do
		run shimp "$PROBE" $c
		[[ "$output" == *"-1 13" ]] || { echo "$c: $output"; return 1; }
	done
	list=("posix_spawn $T/bin/sudo" "posix_spawnp sudo")
	for c in "${list[@]}"; do
		run --separate-stderr shimp "$PROBE" $c
		[ "$output" = "13 0" ] || { echo "$c: $output"; return 1; }
		[[ "$stderr" == *"privilege escalation is not available"* ]]
	done
	# through a shell: the shell's own shim refuses
	run shimp "$PROBE" system "sudo id"
	[[ "$output" == *"refused to run 'sudo'"* ]]
	[[ "$output" != *"fake"* ]]
}

@test "exec deny rules: argument patterns, and allowed programs run" {
	# a fake rm first in PATH: if the refusal failed, nothing is deleted
	printf '#!/bin/sh\necho "fake rm $*"\n' > "$T/bin/rm"
	chmod +x "$T/bin/rm"
	run shimp "$PROBE" posix_spawnp rm -rf /
	[[ "$output" == *"refused to run 'rm': catastrophic delete"* ]]
	[[ "$output" == *"13 0" ]] && [[ "$output" != *fake* ]]
	run shimp "$PROBE" execvp rm -rf /
	[[ "$output" == *"-1 13" ]] && [[ "$output" != *fake* ]]
	touch victim
	run shimp "$PROBE" execv /bin/rm -f victim
	[ "$status" -eq 0 ] && [ ! -e victim ]
	run shimp "$PROBE" execl /bin/echo hello
	[ "$output" = hello ]
	# execle's own environment, with the shim's variables put back
	run shimp "$PROBE" execle /usr/bin/env
	[ "${lines[0]}" = PROBE_ENVLE=1 ]
	[[ "$output" == *"LD_PRELOAD=$SHIM"* ]] && [[ "$output" == *"SBXRUN_POLICY=$POL"* ]]
}

# ------------------------------------------------------------ protect

@test "protect rules: refused by the shim only when the policy says so" {
	run shim "$PROBE" open .git/hooks/pre-commit w,creat
	[ "$output" = "3 0" ]
	rm .git/hooks/pre-commit
	pol --protect .git/hooks --protect .git/config --shim-protect
	list=("open .git/hooks/pre-commit w,creat" "open .git/config w" "truncate .git/config 0" "unlink .git/config" "rmdir .git/hooks" "rename .git g" "chmod .git/config 777" "mkdir .git/hooks/x" "symlink /x .git/hooks/post-merge" "rename notes .git/hooks")
	for c in "${list[@]}"; do
		run --separate-stderr shim "$PROBE" $c
		[ "$output" = "-1 13" ] || { echo "$c: $output"; return 1; }
		[[ "$stderr" == "sbxrun: cannot write '"*"': protected, read-only even inside a writable path: it can make programs run outside the sandbox later (rule $P/.git/"*" from /etc/sbxrun/test.conf:"*"); no flag lifts that: to change it, use a profile of your own without it in 'protect' (--profile FILE)" ]] ||
			{ echo "$c: $stderr"; return 1; }
	done
	[ -d .git/hooks ] && [ "$(cat .git/config)" = "[core]" ] && [ ! -e .git/hooks/pre-commit ]
	run shim "$PROBE" open .git/config r
	[ "$output" = "3 0" ]
	run shim "$PROBE" open .git/description w,creat
	[ "$output" = "3 0" ]
}

# ------------------------------------------------------------ robustness

@test "lazy init: a library constructor calls a hook before ours ran" {
	for order in "$SHIM:$SHIM_TOOLS/ctorlib.so" "$SHIM_TOOLS/ctorlib.so:$SHIM"; do
		run --separate-stderr env CTORLIB_OPEN=notes/ctor.exe LD_PRELOAD="$order" \
			SBXRUN_POLICY="$POL" /bin/true
		[ "$output" = "ctor -1 13" ] || { echo "$order: $output"; return 1; }
		[[ "$stderr" == *"cannot write 'notes/ctor.exe'"* ]]
	done
	[ ! -e notes/ctor.exe ]
}

@test "threads: 8 threads refused and allowed concurrently" {
	run --separate-stderr shim "$PROBE" threads 8 2000 notes/t.exe w,creat
	[ "$output" = "16000 13" ]
	run shim "$PROBE" threads 8 2000 notes/t.md w,creat
	[ "$output" = "0 0" ]
}

@test "vfork: the child's exec leaves the parent's guard and cwd alone" {
	# a raised guard or a cwd cache moved by the child would let these through
	run shim "$PROBE" vfork-exec /bin/true :: open notes/v.exe w,creat
	[ "${lines[0]}" = "0 0" ] && [ "${lines[2]}" = "-1 13" ]
	run shim "$PROBE" vfork-exec -C / /bin/true :: open notes/w.exe w,creat :: open notes/w.md w,creat
	[ "${lines[0]}" = "0 0" ] && [ "${lines[2]}" = "-1 13" ] && [ "${lines[3]}" = "3 0" ]
	run shim "$PROBE" fork-exec /bin/true :: open notes/f.exe w,creat
	[ "${lines[0]}" = "0 0" ] && [ "${lines[2]}" = "-1 13" ]
}

@test "chdir/fchdir: relative paths follow the cached cwd" {
	run --separate-stderr shim "$PROBE" -C notes open x.exe w,creat :: open x.md w,creat
	[ "${lines[0]}" = "-1 13" ] && [ "${lines[1]}" = "3 0" ]
	[ "$stderr" = "sbxrun: cannot write 'x.exe': suffix '.exe' not allowed (allowed: .md, .pdf; rule $P/notes from /etc/sbxrun/test.conf:8)" ]
	run shim "$PROBE" -F notes open y.exe w,creat
	[[ "$output" == *"-1 13" ]]
}

@test "once per path and operation per process" {
	run --separate-stderr shim "$PROBE" open notes/x.exe w,creat :: open notes/x.exe w,creat :: creat notes/x.exe :: open notes/y.exe w,creat
	[ "$output" = "$(printf -- '-1 13\n-1 13\n-1 13\n-1 13')" ]
	[ "$(echo "$stderr" | grep -c "notes/x.exe")" = 1 ]
	[ "$(echo "$stderr" | grep -c "notes/y.exe")" = 1 ]
}

# ------------------------------------------------------------ environment

@test "env -i, clearenv, unsetenv and subprocess(env={}) keep the shim" {
	export SBXRUN=1 SBXRUN_NET=off SBXRUN_REPORT=@nothing-$$
	run shim env -i "$PROBE" maps
	[ "$output" = shim ]
	run shim env -i /bin/sh -c "$PROBE maps; env"
	[ "${lines[0]}" = shim ]
	for v in "LD_PRELOAD=$SHIM" "SBXRUN_POLICY=$POL" SBXRUN=1 SBXRUN_NET=off "SBXRUN_REPORT=@nothing-$$"; do
		printf '%s\n' "${lines[@]}" | grep -qx "$v" || { echo "missing $v"; return 1; }
	done
	run shim "$PROBE" clearenv-execvp "$PROBE" maps
	[ "$output" = shim ]
	run shim "$PROBE" unsetenv-system "$PROBE maps"
	[ "${lines[0]}" = shim ]
	run shim "$PROBE" unsetenv-popen "$PROBE maps"
	[ "${lines[0]}" = shim ]
	# the grandchild of Python's subprocess with close_fds=True and env={}
	command -v python3 >/dev/null || skip "no python3"
	run shim python3 -c "
import subprocess, sys
r = subprocess.run(['/bin/sh', '-c', '$PROBE maps; $PROBE open notes/py.exe w,creat'],
                   env={}, close_fds=True, capture_output=True, text=True)
sys.stdout.write(r.stdout + r.stderr)"
	[ "${lines[0]}" = shim ]
	[[ "$output" == *"-1 13"* ]]
	[[ "$output" == *"cannot write 'notes/py.exe'"* ]]
}

@test "an LD_PRELOAD replaced by the program gets the shim back in front" {
	printf 'int x;\n' > "$T/other.c"
	cc -shared -fPIC -o "$T/other.so" "$T/other.c"
	run shim python3 -c "
import subprocess, sys
r = subprocess.run(['/bin/sh', '-c', 'echo \$LD_PRELOAD'], env={'LD_PRELOAD': '$T/other.so'},
                   capture_output=True, text=True)
sys.stdout.write(r.stdout)"
	[ "$output" = "$SHIM:$T/other.so" ]
}

# ------------------------------------------------------------ kernel refusals

@test "kernel refusals are explained: hidden (ENOENT), read-only (EROFS)" {
	need_userns
	run --separate-stderr unshare -rm sh -c "
		mount -t tmpfs -o ro none '$HOME/.ssh'
		mount --bind /etc /etc && mount -o remount,bind,ro /etc
		export LD_PRELOAD='$SHIM' SBXRUN_POLICY='$POL'
		'$PROBE' open '$HOME/.ssh/id_rsa' r :: fopen /etc/hostname w :: mkdir /etc/x \
			:: open /etc/nonexistent r :: open '$HOME/.ssh/id_rsa' r"
	[ "$output" = "$(printf -- '-1 2\n-1 30\n-1 30\n-1 2\n-1 2')" ]
	[ "${stderr_lines[0]}" = "sbxrun: cannot read '$HOME/.ssh/id_rsa': hidden by the sandbox policy (secrets; rule ~/.ssh from /etc/sbxrun/test.conf:6); to allow: sbxrun --allow-read $HOME/.ssh/id_rsa" ]
	[ "${stderr_lines[1]}" = "sbxrun: cannot write '/etc/hostname': read-only in this sandbox (writable: $P, /tmp; rule / from /etc/sbxrun/test.conf:1); to allow: sbxrun --allow-write /etc/hostname" ]
	[[ "${stderr_lines[2]}" == "sbxrun: cannot write '/etc/x': read-only"* ]]
	# an ordinary ENOENT is not explained, and each path only once
	[ "${#stderr_lines[@]}" = 3 ]
}

@test "a hidden path opened relative to the cwd is explained: the hide filter the launcher writes" {
	need_userns
	run --separate-stderr unshare -rm sh -c "
		mount -t tmpfs -o ro none '$HOME/.ssh'
		cd '$HOME'
		export LD_PRELOAD='$SHIM' SBXRUN_POLICY='$POL'
		'$PROBE' open .ssh/id_rsa r :: open nothere/id_rsa r"
	[ "$output" = "$(printf -- '-1 2\n-1 2')" ]
	[ "${stderr_lines[0]}" = "sbxrun: cannot read '.ssh/id_rsa': hidden by the sandbox policy (secrets; rule ~/.ssh from /etc/sbxrun/test.conf:6); to allow: sbxrun --allow-read $HOME/.ssh/id_rsa" ]
	# an ordinary missing relative path is not explained
	[ "${#stderr_lines[@]}" = 1 ]
}

@test "kernel refusals are explained: network off, with the host's name" {
	need_userns
	printf '127.0.0.1 localhost\n192.0.2.7 example.test\n' > "$T/hosts"
	run --separate-stderr unshare -rmn sh -c "
		mount --bind '$T/hosts' /etc/hosts
		export LD_PRELOAD='$SHIM' SBXRUN_POLICY='$POL'
		'$PROBE' connect example.test 443 :: connect 192.0.2.8 80 :: sendto 192.0.2.9 53 \
			:: sendmsg example.test 53 :: connect 127.0.0.1 8080 :: getaddrinfo nowhere.test"
	[ "${lines[0]}" = "-1 101" ]
	[[ "$stderr" == *"sbxrun: cannot connect to example.test:443: network access is off in this sandbox (rule network off from built-in); to allow: sbxrun --net allow:example.test"* ]]
	[[ "$stderr" == *"sbxrun: cannot connect to 192.0.2.8:80: network access is off in this sandbox (rule network off from built-in); to allow: sbxrun --net allow:192.0.2.8"* ]]
	[[ "$stderr" == *"sbxrun: cannot send to 192.0.2.9:53: network access is off"* ]]
	[[ "$stderr" == *"sbxrun: cannot send to example.test:53: network access is off"* ]]
	[[ "$stderr" == *"sbxrun: cannot connect to 127.0.0.1:8080: network access is off in this sandbox (rule network off from built-in); to allow: sbxrun --net loopback"* ]]
	[[ "$stderr" == *"sbxrun: cannot resolve 'nowhere.test': network access is off"* ]]
	# the same errors as without the shim
	bare=$(unshare -rmn sh -c "mount --bind '$T/hosts' /etc/hosts; '$PROBE' connect example.test 443 :: connect 192.0.2.8 80 :: sendto 192.0.2.9 53 :: sendmsg example.test 53 :: connect 127.0.0.1 8080 :: getaddrinfo nowhere.test" 2>&1)
	[ "$output" = "$bare" ]
	# with the network on, nothing is said
	pol --net on
	run --separate-stderr unshare -rn env LD_PRELOAD="$SHIM" SBXRUN_POLICY="$POL" "$PROBE" connect 192.0.2.8 80
	[ "$output" = "-1 101" ] && [ -z "$stderr" ]
}

# ------------------------------------------------------------ report

# Start a receiver on @name; records land in $1.
recv_start() {
	python3 "$SBX_TOP/tests/shim/recv.py" "$2" "$1" 2 &
	RECV=$!
	for _ in $(seq 100); do [ -e "$1.ready" ] && return 0; sleep 0.05; done
	return 1
}

@test "report: one record per refusal with the launcher's fields" {
	command -v python3 >/dev/null || skip "no python3"
	name="sbxshimtest-$$-$RANDOM"
	recv_start "$T/rec" "$name"
	SBXRUN_REPORT="@$name" shimp "$PROBE" open notes/x.exe w,creat \
		:: open notes/x.exe w,creat :: open data/big.csv r :: execvp sudo 2>/dev/null
	wait "$RECV"
	[ "$(wc -l < "$T/rec")" = 3 ]
	IFS=$'\t' read -r pid op target kind rule src comm msg < <(sed -n 1p "$T/rec")
	[ "$pid" -gt 0 ] && [ "$op" = write ] && [ "$target" = "$P/notes/x.exe" ]
	[ "$kind" = suffix ] && [ "$rule" = "$P/notes" ] && [ "$comm" = probe ]
	[[ "$src" == /etc/sbxrun/test.conf:* ]]
	[[ "$msg" == "sbxrun: cannot write 'notes/x.exe': suffix '.exe'"* ]]
	grep -q $'\tread\t'"$P/data/big.csv"$'\tsize\t' "$T/rec"
	grep -q $'\texec\t'"$T/bin/sudo"$'\texec-denied\tsudo\t' "$T/rec"
}

@test "quiet and report-only: no stderr, the record still goes" {
	command -v python3 >/dev/null || skip "no python3"
	for flag in --quiet --report-only; do
		pol "$flag"
		name="sbxshimtest-$$-$RANDOM"
		rm -f "$T/rec" "$T/rec.ready"
		recv_start "$T/rec" "$name"
		run --separate-stderr env SBXRUN_REPORT="@$name" LD_PRELOAD="$SHIM" SBXRUN_POLICY="$POL" \
			"$PROBE" open notes/x.exe w,creat
		wait "$RECV"
		[ "$output" = "-1 13" ] && [ -z "$stderr" ]
		[ "$(wc -l < "$T/rec")" = 1 ]
	done
}
