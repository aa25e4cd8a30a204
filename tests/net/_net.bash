# Set-up for the network proxy tests: a network namespace of the test's
# own (a user namespace too, so the unprivileged test user can make it),
# with only a loopback device carrying the test addresses, the servers of
# servers.py inside it, and the proxy harness (build/tests/proxyd) run in
# it on demand.  Every packet of these tests stays in that namespace: it
# has no other device and no route, which setup checks before anything
# starts.  Names come from a hosts file; refused names are .invalid.
: "${SBX_TOP:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
: "${SBX_BUILD:=$SBX_TOP/build}"
PROXYD="$SBX_BUILD/tests/proxyd"
NETT="$SBX_TOP/tests/net"

# Run a command inside the test namespace.  nsenter enters a user and a
# network namespace without forking, so "exec nsx_cmd ... &" leaves $! the
# pid of the command itself (needed to signal it).
# With NET_HOSTS_MOUNT=1 (before net_setup_file) the namespace has a mount
# namespace too, where the test hosts file is /etc/hosts: for sbxrun's
# own proxy, which resolves as on any machine (nsx then starts in /).
nsx() {
	nsenter --target "$NS_PID" --user --net ${NET_HOSTS_MOUNT:+--mount} \
		--preserve-credentials -- "$@"
}

net_skip() {
	if [ "${SBX_MUST_WORK:-}" = 1 ]; then
		echo "network tests cannot run: $*" >&2
		return 1
	fi
	skip "$*"
}

make_files() {
	mkdir -p "$W/www" "$W/home"
	echo "hello from allowed.test" > "$W/www/index.html"
	head -c 8388608 /dev/urandom > "$W/www/big.bin"
	cat > "$W/hosts" <<-EOF
		203.0.113.10 allowed.test www.allowed.test
		203.0.113.11 other.test
		127.0.0.1 rebind.test
		::1 rebind6.test
		10.0.0.5 private.test
		169.254.169.254 meta.test
		203.0.113.10 mixed.test
		127.0.0.1 mixed.test
	EOF
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=allowed.test \
		-addext subjectAltName=DNS:allowed.test,DNS:other.test \
		-keyout "$W/key.pem" -out "$W/cert.pem" >/dev/null 2>&1
	git init -q "$W/src" &&
		echo "tracked" > "$W/src/file.txt" &&
		git -C "$W/src" add file.txt &&
		git -C "$W/src" -c user.name=t -c user.email=t@t commit -qm one &&
		git clone -q --bare "$W/src" "$W/www/repo.git" &&
		git -C "$W/www/repo.git" update-server-info
}

# The namespace: a holder process, loopback up, the test addresses, and a
# check that there is nothing else (no device, no route out).
make_namespace() {
	# shellcheck disable=SC2016 # for the inner shell
	unshare --user --map-root-user --net ${NET_HOSTS_MOUNT:+--mount} sh -c \
		'[ -z "$2" ] || mount --bind "$2" /etc/hosts || exit 1
		echo $$ > "$1"; exec sleep 100000' \
		sh "$W/ns.pid" "${NET_HOSTS_MOUNT:+$W/hosts}" >/dev/null 2>&1 3>&- &
	for _ in $(seq 50); do [ -s "$W/ns.pid" ] && break; sleep 0.1; done
	NS_PID=$(cat "$W/ns.pid" 2>/dev/null)
	[ -n "$NS_PID" ] || return 1
	nsx ip link set lo up || return 1
	for a in 203.0.113.10/32 203.0.113.11/32 10.0.0.5/32 169.254.169.254/32; do
		nsx ip addr add "$a" dev lo || return 1
	done
	[ "$(nsx ip -o link show | wc -l)" = 1 ] || return 1
	[ -z "$(nsx ip route show default)" ] || return 1
	[ -z "$(nsx ip -6 route show default)" ] || return 1
}

net_setup_file() {
	W=$(mktemp -d /var/tmp/sbxnet.XXXXXX)
	export W
	command -v openssl >/dev/null && command -v curl >/dev/null ||
		{ net_skip "needs openssl and curl"; return; }
	unshare --user --map-root-user --net true 2>/dev/null ||
		{ net_skip "cannot make a user+network namespace here"; return; }
	make_files || return 1
	make_namespace || { echo "test namespace not as expected" >&2; return 1; }
	export NS_PID
	nsenter --target "$NS_PID" --user --net --preserve-credentials -- \
		python3 "$NETT/servers.py" --dir "$W/www" --cert "$W/cert.pem" \
		--key "$W/key.pem" --log "$W/hits" --dns 127.0.0.1:5353 \
		--dns-hosts "$W/hosts" > "$W/servers.out" 2> "$W/servers.err" 3>&- &
	echo $! > "$W/servers.pid"
	for _ in $(seq 100); do grep -q ready "$W/servers.out" && break; sleep 0.1; done
	grep -q ready "$W/servers.out" || { cat "$W/servers.err" >&2; return 1; }
	: > "$W/hits"
}

net_teardown_file() {
	[ -n "${W:-}" ] || return 0
	[ -s "$W/servers.pid" ] && kill "$(cat "$W/servers.pid")" 2>/dev/null
	[ -s "$W/ns.pid" ] && kill "$(cat "$W/ns.pid")" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$W"
}

# start_proxy NAME ARGS...: proxyd in the namespace on a free port of its
# loopback; sets PORT and PX_PID; its stderr is $W/NAME.err.
start_proxy() {
	local name=$1
	shift
	: > "$W/$name.out"
	nsenter --target "$NS_PID" --user --net --preserve-credentials -- \
		"$PROXYD" --listen 127.0.0.1:0 "$@" > "$W/$name.out" 2> "$W/$name.err" 3>&- &
	PX_PID=$!
	for _ in $(seq 50); do grep -q '^port ' "$W/$name.out" && break; sleep 0.1; done
	PORT=$(sed -n 's/^port //p' "$W/$name.out")
	[ -n "$PORT" ] || { cat "$W/$name.err" >&2; return 1; }
	for _ in $(seq 20); do grep -q '^env NODE_USE_ENV_PROXY' "$W/$name.out" && break; sleep 0.1; done
	PX_ENV=$(sed -n 's/^env //p' "$W/$name.out")
	echo "$PX_PID" >> "$W/proxies"
}

stop_proxies() {
	[ -s "$W/proxies" ] || return 0
	while read -r p; do kill "$p" 2>/dev/null; done < "$W/proxies"
	: > "$W/proxies"
	wait 2>/dev/null || true
}

# Is the proxy still alive and answering?
proxy_alive() {
	kill -0 "$PX_PID" && nsx curl -sS -m 5 -x "http://127.0.0.1:$PORT" \
		http://allowed.test:8080/index.html | grep -q "hello from allowed.test"
}

# The canaries (loopback, private, metadata listeners) saw nothing.
no_hits() {
	if grep canary "$W/hits"; then
		echo "a refused address was reached" >&2
		return 1
	fi
}

# Clients inside the namespace with the environment the supervisor will
# give the sandbox's command (sbx_proxy_env, as proxyd printed it), plus
# the test CA.
with_proxy() {
	# shellcheck disable=SC2086 # one NAME=value per word, no spaces
	nsx env HOME="$W/home" $PX_ENV SSL_CERT_FILE="$W/cert.pem" \
		GIT_SSL_CAINFO="$W/cert.pem" CURL_CA_BUNDLE="$W/cert.pem" "$@"
}

# The same with hand-made proxy URLs: with_url URL CMD...
with_url() {
	nsx env HOME="$W/home" http_proxy="$1" HTTP_PROXY="$1" https_proxy="$1" \
		HTTPS_PROXY="$1" no_proxy= NO_PROXY= SSL_CERT_FILE="$W/cert.pem" \
		CURL_CA_BUNDLE="$W/cert.pem" "${@:2}"
}
