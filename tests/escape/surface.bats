#!/usr/bin/env bats
# What stays on the host and what the host shows (THREATS PERS-01,
# SEC-10, RES-01, PRC-06, DEV-01, NET-10), and the repair of a planted
# symlink: set-uid files and device nodes left behind, secrets the
# default profile missed, the private /tmp and fork storms past the
# limits, host devices and the host's socket table.  Static probes
# (raw syscalls, no shim) and dynamic programs; judged from outside.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

# ------------------------------------------------------------------ PERS-01

@test "PERS-01 set-uid and set-gid bits by chmod, fchmod, fchmodat2, open, creat and O_TMPFILE (static, raw)" {
	cp /bin/true "$P/shell"
	chmod 755 "$P/shell"
	mkdir "$P/tmpd"
	chmod 755 "$P/tmpd"
	run xsbx -c "for how in chmod fchmod fchmodat2; do for m in 4755 2755 6755; do $SBX_SYS.static setid \$how shell \$m; done; done
for how in open openat creat; do $SBX_SYS.static setid \$how new-\$how 4755; $SBX_SYS.static setid \$how g-\$how 2755; done
$SBX_SYS.static setid tmpfile tmpd 4755; true"
	echo "$output"
	# every attempt refused by the filter, none reached the kernel
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT -1 EPERM')" -eq 16 ]
	# and from outside: no set-id bit anywhere in the project
	found=$(find "$P" -perm /6000)
	[ -z "$found" ] || { echo "set-id files left on the host: $found" >&2; return 1; }
}

# W-14: the mode of mknodat (a regular file) and mkdirat carries the
# bits too: a 0-byte set-uid file of the caller's is left on the host.
@test "PERS-01 W-14 set-uid and set-gid bits in the modes of mknod and mkdir (static, raw)" {
	run xsbx -c "for m in 4755 2755 6755; do $SBX_SYS.static setid mknod n\$m \$m; $SBX_SYS.static setid mkdir d\$m \$m; done
$SBX_SYS.static setid mknod plain 0755; $SBX_SYS.static setid mkdir plaindir 0755; true"
	echo "$output"
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT -1 EPERM')" -eq 6 ]
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT 0 OK')" -eq 2 ]
	[ -f "$P/plain" ] && [ -d "$P/plaindir" ]
	found=$(find "$P" -perm /6000)
	[ -z "$found" ] || { echo "set-id files left on the host: $found" >&2; return 1; }
}

@test "PERS-01 chmod u+s / g+s with coreutils and python (dynamic)" {
	cp /bin/true "$P/shell"
	run xsbx -c "chmod u+s shell; chmod g+s shell; $PY -c 'import os; os.chmod(\"shell\", 0o4755)'; install -m 4755 /bin/true inst; true"
	echo "$output"
	found=$(find "$P" -perm /6000)
	[ -z "$found" ] || { echo "set-id files left on the host: $found" >&2; return 1; }
}

@test "PERS-01 device nodes: mknod of a character or block device is refused, fifos still work (static)" {
	run xsbx -c "$SBX_SYS.static mknod chr chr; $SBX_SYS.static mknod blk blk; $SBX_SYS.static mknodold old; $SBX_SYS.static mknod fifo fifo"
	echo "$output"
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT -1 EPERM')" -eq 3 ]
	assert_absent "$P/chr" "$P/blk" "$P/old"
	[ -p "$P/fifo" ]
}

@test "PERS-01 mknod of a device is refused by the filter, before the kernel looks at the path (static)" {
	# the kernel would say ENOENT for the missing directory; the filter
	# says EPERM first
	for t in chr blk; do
		run xsbx -- "$SBX_SYS.static" mknod "missing-dir/$t" "$t"
		echo "$output"
		[ "$(result)" = "-1 EPERM" ]
	done
}

@test "PERS-01 ordinary modes still work (chmod +x, 0600, sticky directories)" {
	echo x > "$P/f"
	mkdir "$P/d"
	run xsbx -c "chmod 755 f && chmod 600 f && chmod +t d && chmod 1777 d && echo OK"
	echo "$output"
	[[ "$output" == *OK* ]]
	[ "$(stat -c %a "$P/f")" = 600 ]
}

# ------------------------------------------------------------------- SEC-10

SEC10='.claude/.credentials.json .codex/auth.json .gemini/oauth_creds.json .openclaw/openclaw.json .config/git/credentials .pgpass .my.cnf .vault-token .terraform.d/credentials.tfrc.json .config/op/config .config/rclone/rclone.conf'

@test "SEC-10 the agents' own credentials and the other secrets the review found (dynamic and static)" {
	for f in $SEC10; do
		mkdir -p "$(dirname "$HOME/$f")"
		echo "token $CANARY" > "$HOME/$f"
	done
	run xsbx -c "cd ~; cat $SEC10; grep -r sbxrun-canary ~ 2>&1; for f in $SEC10; do $SBX_SYS.static read ~/\$f; done; true"
	echo "$output"
	no_canary "$output"
}

@test "SEC-10 /etc/shadow- and /etc/gshadow- are hidden by the default profile" {
	run "$SBXRUN" --mode "$SBX_MODE" --check /etc/shadow-
	echo "$output"
	[[ "$output" == *hidden* ]]
	run "$SBXRUN" --mode "$SBX_MODE" --check /etc/gshadow-
	[[ "$output" == *hidden* ]]
	# and the kernel refuses them even to a root caller (static)
	for f in /etc/shadow- /etc/gshadow-; do
		[ -e "$f" ] || continue
		run xsbx -- "$SBX_SYS.static" read "$f"
		echo "$output"
		denied
	done
}

# ------------------------------------------------------------------- RES-01

@test "RES-01 the private /tmp holds no more than limits.memory" {
	if ! full_mode; then
		plan_says_advisory 'private /tmp|host.s /tmp'
		return 0
	fi
	printf 'limits = { memory = "64M"; };\n' > "$HOME/.config/sbxrun/config"
	run xsbx -c "head -c 100000000 /dev/zero > /tmp/fill; stat -c 'SIZE %s' /tmp/fill; df -k /tmp"
	echo "$output"
	size=$(printf '%s\n' "$output" | sed -n 's/^SIZE //p')
	[ -n "$size" ]
	[ "$size" -le $((64 * 1024 * 1024)) ]
}

@test "RES-01 --dry-run says how big the private /tmp is and what bounds memory" {
	run "$SBXRUN" --mode "$SBX_MODE" --dry-run
	echo "$output"
	[[ "$output" == *"memory "* ]]
	if full_mode; then
		[[ "$output" == *"tmpfs in the mount namespace, at most limits.memory"* ]]
	fi
	# which mechanism: rlimits, not a cgroup (no cgroup leaf is made)
	[[ "$output" == *"RLIMIT_AS per process, not a cgroup"* ]]
}

# ------------------------------------------------------------------- PRC-06

@test "PRC-06 a fork storm is bounded at limits.nproc for every caller, root too (static)" {
	printf 'limits = { nproc = 100; };\n' > "$HOME/.config/sbxrun/config"
	run xsbx --timeout 20 -- "$SBX_SYS.static" forkcount 1000
	echo "$output"
	n=$(printf '%s\n' "$output" | sed -n 's/^FORKED //p')
	[ -n "$n" ]
	# pid_max is per pid namespace since Linux 6.14
	k=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
	if full_mode && [ "$k" -ge 6014 ]; then
		[ "$n" -le 100 ]
	elif [ "$(id -u)" = 0 ]; then
		plan_says_advisory 'process count'
	else
		# RLIMIT_NPROC counts every process of the uid
		[ "$n" -lt 200 ]
	fi
}

# ------------------------------------------------------------------- DEV-01

@test "DEV-01 host consoles, loop devices and disks cannot be opened; null, zero, urandom, tty can (static)" {
	for d in /dev/tty1 /dev/console /dev/loop0 /dev/loop-control /dev/vda /dev/sda /dev/mem /dev/kmsg /dev/fuse; do
		[ -e "$d" ] || continue
		run xsbx -- "$SBX_SYS.static" open "$d" r
		echo "$d: $output"
		denied
	done
	run xsbx -c "head -c 4 /dev/urandom | wc -c; head -c 4 /dev/zero | wc -c; echo x > /dev/null && echo NULL-OK; $SBX_SYS.static open /dev/full w"
	echo "$output"
	[[ "$output" == *NULL-OK* ]]
	[ "$(result)" != "" ]
	[[ "$(result)" == *OK* ]]
}

@test "DEV-01 --dry-run names the devices that stay reachable" {
	run "$SBXRUN" --mode "$SBX_MODE" --dry-run
	echo "$output"
	if full_mode; then
		[[ "$output" == *"minimal /dev"* ]]
	else
		[[ "$output" == *"/dev hidden but null, zero, full, random, urandom, tty"* ]]
	fi
}

# ------------------------------------------------------------------- NET-10

@test "NET-10 with the network off, /proc/net does not list the host's sockets and connections (static, dynamic)" {
	start_sink "$T/sink-$MARK.sock"
	run xsbx -c "cat /proc/net/unix /proc/net/tcp /proc/net/tcp6 /proc/self/net/unix /proc/1/net/unix 2>&1; $SBX_SYS.static read /proc/net/unix; true"
	echo "$output" | head -50
	port=$(printf '%04X' "$PORT")
	if full_mode; then
		[[ "$output" != *"sink-$MARK"* ]]
		[[ "$output" != *"$MARK"* ]]
		[[ "$output" != *":$port "* ]]
	else
		plan_says_advisory '/proc/net'
	fi
}

@test "NET-10 --net on still shows the host's network (it is the host's), and --dry-run says so" {
	run "$SBXRUN" --mode "$SBX_MODE" --net on --dry-run
	echo "$output"
	printf '%s\n' "$output" | grep '/proc/net' | grep -q "host's network namespace"
}

# ---------------------------------------------- a planted symlink, repaired

@test "PER-03 a protected name planted as a symlink: the refusal says how to repair it, and the repair works" {
	mkdir -p "$P/docs"
	ln -s docs "$P/.vscode"
	run xsbx -c "touch $P/ran"
	echo "$output"
	[ "$status" -eq 125 ]
	assert_absent "$P/ran"
	[[ "$output" == *"protected path '$P/.vscode' is a symbolic link (to 'docs')"* ]]
	[[ "$output" == *"To repair: rm $P/.vscode (removes the link only"* ]]
	[[ "$output" != *"mkdir"* ]] # .vscode may be a file (U-01)
	# follow the advice
	cmd=$(printf '%s\n' "$output" | sed -n "s/.*To repair: \(rm [^(]*\) (removes.*/\1/p")
	[ -n "$cmd" ]
	eval "$cmd"
	[ -d "$P/docs" ]
	run xsbx -c "touch $P/ran"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -e "$P/ran" ]
}

# ------------------------------ catalogue rows that had no test of their own

@test "NS-06 sbxrun is never set-uid or set-gid, built or installed" {
	found=$(find "$SBX_BUILD" -maxdepth 1 -type f -perm /6000)
	[ -z "$found" ] || { echo "set-id: $found" >&2; return 1; }
	# no install rule gives a set-id mode
	! grep -nE 'install[^#]*-m *[0-7]*[4-7][0-7]{3}\b|chmod [ug]\+s|chmod [0-7]*[246][0-7]{3}\b' "$SBX_TOP/GNUmakefile"
}

@test "LCH-08 every thread of the command is confined: no_new_privs, seccomp, Landlock" {
	run xsbx -- "$PY" -c "
import threading, os
def t(i):
    st = open('/proc/thread-self/status').read()
    nnp = [l for l in st.splitlines() if l.startswith(('NoNewPrivs', 'Seccomp:'))]
    try:
        open(os.environ['HOME'] + '/.ssh/id_rsa').read(); r = 'READ'
    except OSError as e:
        r = 'denied'
    out.append('T %d %s %s' % (i, ' '.join(x.split()[1] for x in nnp), r))
out = []
ts = [threading.Thread(target=t, args=(i,)) for i in range(4)]
[x.start() for x in ts]; [x.join() for x in ts]
print('\\n'.join(out))"
	echo "$output"
	no_canary "$output"
	[ "$(printf '%s\n' "$output" | grep -c '^T [0-9] 1 2 denied$')" -eq 4 ]
}

@test "SHM-02/SHM-03 raw syscalls that never touch libc (as Go programs make them): secrets and ~/.bashrc" {
	before=$(snap "$HOME/.bashrc")
	run xsbx -c "$SBX_SYS read $HOME/.ssh/id_rsa; $SBX_SYS readat $HOME/.aws credentials; $SBX_SYS write $HOME/.bashrc; env -u LD_PRELOAD $SBX_SYS read $HOME/.netrc; true"
	echo "$output"
	no_canary "$output"
	assert_unchanged "$before" "$HOME/.bashrc"
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT -1 ')" -eq 4 ]
}
