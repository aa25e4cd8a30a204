#!/usr/bin/env bats
# Reading secrets (THREATS SEC-02, FS-02/03/04/08/10/12, PROC-01/02,
# SHM-01/03/05/07): every route to ~/.ssh/id_rsa and friends, as an
# ordinary dynamic program and with the shim bypassed (static build, raw
# syscall, no LD_PRELOAD).  Judged by the canary never showing up.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

SECRETS='~/.ssh/id_rsa ~/.aws/credentials ~/.netrc ~/.git-credentials ~/.config/gh/hosts.yml ~/.docker/config.json ~/.kube/config ~/.npmrc ~/.bash_history ~/.gnupg/private.key'

@test "SEC-02 dynamic: cat ~/.ssh/id_rsa and ~/.aws/credentials" {
	run xsbx -c 'cat ~/.ssh/id_rsa; cat ~/.aws/credentials'
	echo "$output"
	no_canary "$output"
	[ "$status" -ne 0 ]
}

@test "SEC-02 dynamic: every secret location of the default profile" {
	run xsbx -c "for f in $SECRETS; do cat \$f; done; grep -r sbxrun-canary ~ 2>&1"
	echo "$output"
	no_canary "$output"
}

@test "SEC-02 static: read ~/.ssh/id_rsa" {
	run xsbx -- "$SBX_SYS.static" read "$HOME/.ssh/id_rsa"
	echo "$output"
	no_canary "$output"
	denied
}

@test "SEC-02 raw syscall: openat ~/.aws/credentials from a dynamic binary" {
	run xsbx -- "$SBX_SYS" read "$HOME/.aws/credentials"
	echo "$output"
	no_canary "$output"
	denied
}

@test "SEC-02 libc through the shim: open ~/.ssh/id_rsa" {
	run xsbx -- "$SBX_SYS" -l read "$HOME/.ssh/id_rsa"
	echo "$output"
	no_canary "$output"
	denied
}

@test "SHM-05 env -u LD_PRELOAD / env -i: cat the secrets" {
	run xsbx -c 'env -u LD_PRELOAD cat ~/.ssh/id_rsa; env -i /bin/cat "$HOME/.aws/credentials"; env -i /bin/sh -c "cat $HOME/.netrc"'
	echo "$output"
	no_canary "$output"
	run xsbx -- env -i "$SBX_SYS" read "$HOME/.ssh/id_rsa"
	no_canary "$output"
	denied
}

@test "SHM-05 python subprocess(env={}) and os.execve without the shim" {
	run xsbx -- "$PY" -c '
import os, subprocess
h = os.environ["HOME"]
print(subprocess.run(["/bin/cat", h + "/.ssh/id_rsa"], env={}, capture_output=True).stdout)
os.execve("/bin/cat", ["cat", h + "/.aws/credentials"], {})'
	echo "$output"
	no_canary "$output"
}

@test "SHM-07 python ctypes raw syscall(openat) bypassing libc open" {
	run xsbx -- "$PY" -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(257, -100, (os.environ["HOME"] + "/.ssh/id_rsa").encode(), 0)
print("fd", fd, "errno", ctypes.get_errno())
if fd >= 0: print(os.read(fd, 100))'
	echo "$output"
	no_canary "$output"
	[[ "$output" == *"fd -1"* ]]
}

@test "SHM-01 busybox (a second static binary): cat the secrets" {
	bb=$(command -v busybox || echo "$SBX_SYS.static")
	if [ "$bb" = "$SBX_SYS.static" ]; then
		run xsbx -- "$bb" read "$HOME/.netrc"
	else
		run xsbx -- "$bb" cat "$HOME/.ssh/id_rsa" "$HOME/.aws/credentials" "$HOME/.netrc"
	fi
	echo "$output"
	no_canary "$output"
	[ "$status" -ne 0 ]
}

@test "SEC-02 listing ~/.ssh does not show the key's contents; grep -r ~ finds nothing" {
	run xsbx -c 'ls -la ~/.ssh ~/.aws; grep -r -l sbxrun-canary ~ /var/tmp 2>/dev/null; true'
	echo "$output"
	no_canary "$output"
	[[ "$output" != *"$HOME/.ssh/id_rsa"* ]]
}

@test "FS-02 symlink in the project to ~/.ssh/id_rsa: dynamic and static read" {
	ln -s "$HOME/.ssh/id_rsa" "$P/innocent.txt"
	run xsbx -c "cat innocent.txt; $SBX_SYS.static read innocent.txt"
	echo "$output"
	no_canary "$output"
}

@test "FS-02 symlink made inside the sandbox" {
	run xsbx -c "ln -s ~/.aws/credentials c; cat c; $SBX_SYS.static symlink $HOME/.ssh/id_rsa k; $SBX_SYS.static read k"
	echo "$output"
	no_canary "$output"
}

@test "FS-03 ancestor symlink: project/link -> ~/.ssh, read link/id_rsa" {
	ln -s "$HOME/.ssh" "$P/link"
	run xsbx -c "cat link/id_rsa; $SBX_SYS.static read link/id_rsa; $SBX_SYS read link/../link/id_rsa"
	echo "$output"
	no_canary "$output"
}

@test "FS-04 hardlink of ~/.ssh/id_rsa into the project (static link(2))" {
	run xsbx -c "$SBX_SYS.static link $HOME/.ssh/id_rsa $P/h; cat $P/h; ln $HOME/.aws/credentials $P/h2; cat $P/h2"
	echo "$output"
	no_canary "$output"
	assert_absent "$P/h" "$P/h2"
}

@test "FS-08 dirfd: openat(fd of project, ../home/.ssh/id_rsa)" {
	run xsbx -- "$SBX_SYS.static" readat "$P" ../home/.ssh/id_rsa
	echo "$output"
	no_canary "$output"
	denied
	run xsbx -- "$SBX_SYS.static" readat "$HOME" .ssh/id_rsa
	no_canary "$output"
	denied
}

@test "FS-08 fchdir to a pre-opened fd, then a relative path" {
	run xsbx -- "$SBX_FS.static" fchdir "$HOME/.ssh" id_rsa
	echo "$output"
	no_canary "$output"
	denied
	run xsbx -- "$SBX_FS" fchdir "$P" ../home/.aws/credentials
	no_canary "$output"
	denied
}

@test "FS-12 O_PATH fd then reopen /proc/self/fd/N for reading" {
	run xsbx -- "$SBX_FS.static" reopen "$HOME/.ssh/id_rsa" r
	echo "$output"
	no_canary "$output"
	denied
}

@test "SCF-05 openat2 on a secret (static)" {
	run xsbx -- "$SBX_SYS.static" openat2 "$HOME/.ssh/id_rsa"
	echo "$output"
	no_canary "$output"
	denied
}

@test "SCF-01 x32 openat on a secret" {
	run xsbx -- "$SBX_SYS.static" x32open "$HOME/.ssh/id_rsa"
	echo "$output"
	no_canary "$output"
	filtered
}

# W-19: credential stores the first hide list missed, read with the shim
# bypassed.  The files are the caller's own (0600), so only the policy
# stands between the sandbox and them.
W19='.cache/huggingface/token .config/github-copilot/apps.json .m2/settings.xml .m2/settings-security.xml .gradle/gradle.properties .config/configstore/firebase-tools.json .config/glab-cli/config.yml .local/share/fish/fish_history .kaggle/kaggle.json .fly/config.yml .config/doctl/config.yaml .viminfo .continue/config.json .histfile .local/share/atuin/key .config/ngrok/ngrok.yml .config/openstack/clouds.yaml .oci/config .wrangler/config/default.toml .node_repl_history .sqlite_history .config/stripe/config.toml .config/containers/auth.json .config/BraveSoftware/Brave-Browser/Default/Cookies .pki/nssdb/key4.db .config/Code/User/globalStorage/state.vscdb .boto .databrickscfg'

@test "SEC-02 W-19 more credential stores and histories of the default profile (static, raw)" {
	for f in $W19; do
		mkdir -p "$(dirname "$HOME/$f")"
		echo "$CANARY $f" > "$HOME/$f"
		chmod 600 "$HOME/$f"
	done
	run xsbx -c "for f in $W19; do $SBX_SYS.static read \$HOME/\$f; done; cat ~/.cache/huggingface/token ~/.m2/settings.xml 2>&1; true"
	echo "$output"
	no_canary "$output"
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT -1')" -eq "$(echo $W19 | wc -w)" ]
}

# W-21: variables move credentials (XDG_CONFIG_HOME, AWS_*_FILE,
# KUBECONFIG, GNUPGHOME, DOCKER_CONFIG, CLOUDSDK_CONFIG, ...): what they
# name is hidden at launch, and the variables themselves are dropped.
@test "SEC-02 W-21 credentials moved by XDG_CONFIG_HOME, AWS_SHARED_CREDENTIALS_FILE, KUBECONFIG, GNUPGHOME, DOCKER_CONFIG (static, raw)" {
	mkdir -p "$HOME/xdg/gh" "$HOME/creds/gnupg" "$HOME/creds/docker" "$HOME/creds/gcloud"
	echo "$CANARY gh" > "$HOME/xdg/gh/hosts.yml"
	echo "$CANARY aws" > "$HOME/creds/aws"
	echo "$CANARY kube" > "$HOME/creds/kube"
	echo "$CANARY gpg" > "$HOME/creds/gnupg/private.key"
	echo "$CANARY docker" > "$HOME/creds/docker/config.json"
	echo "$CANARY gcloud" > "$HOME/creds/gcloud/credentials.db"
	files="$HOME/xdg/gh/hosts.yml $HOME/creds/aws $HOME/creds/kube $HOME/creds/gnupg/private.key $HOME/creds/docker/config.json $HOME/creds/gcloud/credentials.db"
	XDG_CONFIG_HOME="$HOME/xdg" AWS_SHARED_CREDENTIALS_FILE="$HOME/creds/aws" \
		KUBECONFIG="$HOME/nonexistent:$HOME/creds/kube" GNUPGHOME="$HOME/creds/gnupg" \
		DOCKER_CONFIG="$HOME/creds/docker" CLOUDSDK_CONFIG="$HOME/creds/gcloud" \
		run xsbx -c "for f in $files; do $SBX_SYS.static read \$f; done; cat $files; env | grep -E '^(AWS_SHARED|KUBECONFIG|GNUPGHOME|DOCKER_CONFIG|CLOUDSDK_CONFIG)='; true"
	echo "$output"
	no_canary "$output"
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT -1')" -eq 6 ]
	[[ "$output" != *"KUBECONFIG="* && "$output" != *"GNUPGHOME="* && "$output" != *"DOCKER_CONFIG="* ]]
	# the explanation names the variable that moved the secret
	[[ "$output" == *'from $AWS_SHARED_CREDENTIALS_FILE'* ]] || [[ "$output" != *"cannot read"* ]]
}

# N-31: Kerberos ticket caches and keytabs named by KRB5CCNAME,
# KRB5_KTNAME ("FILE:path", "DIR:path" or a path) are hidden like the
# other moved credentials; the default cache /tmp/krb5cc_UID is out of
# sight in full mode (private /tmp).  Landlock-only shares the host's /tmp
# (declared in SECURITY.md): a ticket cache named there is not hidden,
# since a hide in /tmp would take /tmp away from the command.
@test "SEC-02 N-31 Kerberos ticket cache and keytab named by KRB5CCNAME / KRB5_KTNAME (static, raw); /tmp stays usable" {
	mkdir -p "$HOME/krb/dcc"
	echo "$CANARY tgt" > "$HOME/krb/cc"
	echo "$CANARY kt" > "$HOME/krb/keytab"
	echo "$CANARY dir" > "$HOME/krb/dcc/tkt"
	chmod 600 "$HOME/krb/cc" "$HOME/krb/keytab" "$HOME/krb/dcc/tkt"
	files="$HOME/krb/cc $HOME/krb/keytab $HOME/krb/dcc/tkt"
	KRB5CCNAME="FILE:$HOME/krb/cc" KRB5_KTNAME="$HOME/krb/keytab" \
		KRB5_CLIENT_KTNAME="DIR:$HOME/krb/dcc" \
		run xsbx -c "for f in $files; do $SBX_SYS.static read \$f; done; cat $files; env | grep -E '^KRB5'; true"
	echo "$output"
	no_canary "$output"
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT -1')" -eq 3 ]
	[[ "$output" != *"KRB5CCNAME="* && "$output" != *"KRB5_KTNAME="* ]]
	# not a file (KCM:, KEYRING:) or in /tmp: nothing hidden, /tmp works
	KRB5CCNAME="KEYRING:persistent:1000" KRB5_KTNAME="FILE:/tmp/krb5kt_none" \
		run xsbx -- sh -c 'echo ok > /tmp/n31.$$ && cat /tmp/n31.$$ && rm /tmp/n31.$$'
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	# the default cache: private /tmp in full mode
	cc=/tmp/krb5cc_$(id -u)
	if [ "$SBX_MODE" = full ] && [ ! -e "$cc" ]; then
		( umask 077; echo "$CANARY default" > "$cc" )
		run xsbx -- "$SBX_SYS.static" read "$cc"
		rm -f "$cc"
		echo "$output"
		no_canary "$output"
		[[ "$output" == "RESULT -1 ENOENT"* ]]
	fi
}

# W-03: another account's world-readable secrets (umask 022) are hidden
# like the caller's: every ~ hide holds under every passwd home.
@test "SEC-02 W-03 another account's world-readable ~/.aws/credentials and gh token" {
	# Needs root to plant files in another account's home; not applicable
	# to the unprivileged run (not a skip: under CI a skip fails).
	[ "$(id -u)" = 0 ] || return 0
	other=$(getent passwd sbxtest | cut -d: -f6)
	[ -n "$other" ] && [ -d "$other" ] || skip "no second account (sbxtest) here"
	for f in .aws/credentials .config/gh/hosts.yml; do
		[ -e "$other/$f" ] && skip "$other/$f exists: not touching it"
	done
	for d in .aws .config/gh .config; do
		[ -e "$other/$d" ] || UNIQ_FILES+=("$other/$d")
	done
	UNIQ_FILES+=("$other/.aws/credentials" "$other/.config/gh/hosts.yml")
	mkdir -p "$other/.aws" "$other/.config/gh"
	echo "$CANARY other-aws" > "$other/.aws/credentials"
	echo "$CANARY other-gh" > "$other/.config/gh/hosts.yml"
	chmod 644 "$other/.aws/credentials" "$other/.config/gh/hosts.yml"
	run xsbx -c "$SBX_SYS.static read $other/.aws/credentials; $SBX_SYS.static read $other/.config/gh/hosts.yml; cat $other/.aws/credentials; true"
	echo "$output"
	no_canary "$output"
	[ "$(printf '%s\n' "$output" | grep -c '^RESULT -1')" -eq 2 ]
}

# W-02: a sandbox run by root keeps uid 0 (no capabilities): root-only
# system secrets outside the home are hidden too.
@test "SEC-02 W-02 root's system secrets (/etc/ssl/private) are hidden from a sandbox run by root" {
	# Only root can read /etc/ssl/private: for others the kernel's
	# permissions already refuse it (not a skip: under CI a skip fails).
	[ "$(id -u)" = 0 ] || return 0
	[ -d /etc/ssl/private ] || skip "no /etc/ssl/private here"
	key="/etc/ssl/private/sbxt-$MARK.key"
	UNIQ_FILES+=("$key")
	echo "$CANARY" > "$key"
	chmod 600 "$key"
	run xsbx -c "cat $key; $SBX_SYS.static read $key; true"
	echo "$output"
	no_canary "$output"
	[[ "$output" == *"RESULT -1"* ]]
}

@test "SEC-02 /etc/shadow (hidden by the profile) is not readable" {
	[ -r /etc/shadow ] && outside=$(head -c 200 /etc/shadow) || outside=""
	run xsbx -c "cat /etc/shadow; $SBX_SYS.static read /etc/shadow"
	echo "$output"
	if [ -n "$outside" ]; then
		[[ "$output" != *"$outside"* ]]
	fi
	[[ "$output" != *'root:$'* && "$output" != *"root:*:"* && "$output" != *"root:!"* ]]
}

@test "PROC-01 /proc/<outside pid>/environ of a process holding a secret" {
	start_victim
	run xsbx -c "cat /proc/$VPID/environ; $SBX_SYS.static read /proc/$VPID/environ; cat /proc/*/environ 2>/dev/null | tr '\0' '\n' | grep SBX_VICTIM; true"
	echo "$output"
	no_canary "$output"
	[ "$(proc_state "$VPID")" != gone ]
}

@test "PROC-01 the supervisor's own environment (it holds the caller's secrets)" {
	export AWS_SECRET_ACCESS_KEY="$CANARY" GITHUB_TOKEN="$CANARY"
	run xsbx -c 'for p in /proc/[0-9]*; do cat $p/environ; done 2>/dev/null | tr "\0" "\n"; cat /proc/$PPID/environ; for p in /proc/[0-9]*; do '"$SBX_SYS.static"' read $p/environ; done 2>/dev/null; true'
	unset AWS_SECRET_ACCESS_KEY GITHUB_TOKEN
	echo "$output"
	no_canary "$output"
}

@test "PROC-01 outside processes are invisible (full) / dry-run says so (landlock-only)" {
	start_victim
	if full_mode; then
		run xsbx -c "test -e /proc/$VPID && echo VISIBLE $VPID; ls /proc | grep -c '^[0-9]'"
		echo "$output"
		[[ "$output" != *VISIBLE* ]]
		# only the sandbox's own few processes
		[ "$(printf '%s\n' "$output" | tail -1)" -lt 10 ]
	else
		plan_says_advisory 'outside processes'
	fi
}

@test "PROC-02 /proc/<outside pid>/root and /cwd lead back to ~/.ssh" {
	start_victim
	run xsbx -c "cat /proc/$VPID/root$HOME/.ssh/id_rsa; cat /proc/$VPID/cwd/id_rsa; ls /proc/$VPID/cwd/; $SBX_SYS.static read /proc/$VPID/cwd/id_rsa; $SBX_SYS.static read /proc/$VPID/root$HOME/.aws/credentials; true"
	echo "$output"
	no_canary "$output"
}

@test "PROC-02 /proc/1/root of the sandbox or the host" {
	run xsbx -c "cat /proc/1/root$HOME/.ssh/id_rsa; $SBX_SYS.static read /proc/1/root$HOME/.ssh/id_rsa; true"
	echo "$output"
	no_canary "$output"
}

@test "IPC-06/LCH-02 an fd the caller left open on a secret is not inherited" {
	exec 7<"$HOME/.ssh/id_rsa"
	run xsbx -c "cat <&7; $SBX_SYS.static read /proc/self/fd/7; cat /dev/fd/7; true"
	exec 7<&-
	echo "$output"
	no_canary "$output"
}

@test "FS-10 metadata of hidden secrets (full: absent; landlock-only: dry-run says it leaks)" {
	if full_mode; then
		run xsbx -- "$SBX_SYS.static" stat "$HOME/.aws/credentials"
		echo "$output"
		size=$(stat -c %s "$HOME/.aws/credentials")
		[[ "$output" != *"SIZE $size"* ]]
	else
		plan_says_advisory 'metadata|stat|existence'
	fi
}

# W-18: in full mode each hidden path that exists is a mount point, so
# /proc/self/mountinfo names it (never its contents).  Declared, not
# hidden: a masked mountinfo breaks findmnt, df and container tools.
@test "FS-10 W-18 mountinfo names hidden paths that exist, and --dry-run says so" {
	run xsbx -c "grep -c '$HOME/.ssh ' /proc/self/mountinfo; cat /proc/self/mountinfo"
	echo "$output"
	no_canary "$output"
	if printf '%s\n' "$output" | grep -q "$HOME/\.ssh "; then
		plan_says_advisory 'names, stat metadata'
		plan | grep -i 'names, stat metadata' | grep -q mountinfo
	fi
}

@test "SHM-10 a forged SBXRUN_POLICY / LD_PRELOAD does not widen the kernel policy" {
	run xsbx -c 'SBXRUN_POLICY=/dev/null cat ~/.ssh/id_rsa; LD_PRELOAD= SBXRUN_POLICY= cat ~/.aws/credentials; true'
	echo "$output"
	no_canary "$output"
}

@test "SHM-04 posix_spawn (make), fopen (python), fortified open (tar)" {
	printf 'all:\n\tcat %s/.ssh/id_rsa\n' "$HOME" > "$P/Makefile"
	run xsbx -c "make -s; tar cf - -C $HOME .ssh .aws 2>&1 | strings | grep -a canary; $PY -c 'print(open(\"$HOME/.aws/credentials\").read())'; true"
	echo "$output"
	no_canary "$output"
}

@test "SHM-09 node fs.readFileSync / fs.promises (libuv, io_uring) of a secret" {
	node=$(command -v node || true)
	if [ -z "$node" ]; then
		# no node: the equivalent raw path is covered by the static probe
		run xsbx -- "$SBX_SYS.static" read "$HOME/.ssh/id_rsa"
	else
		run xsbx -- "$node" -e '
const fs = require("fs"); const h = process.env.HOME;
try { console.log(fs.readFileSync(h + "/.ssh/id_rsa", "utf8")); } catch (e) { console.log("sync", e.code); }
fs.promises.readFile(h + "/.aws/credentials", "utf8").then(console.log, e => console.log("async", e.code));'
	fi
	echo "$output"
	no_canary "$output"
}

@test "SHM-11 close every fd (the shim's channel too), then read" {
	run xsbx -- "$PY" -c '
import os
os.closerange(3, 4096)
for f in ("/.ssh/id_rsa", "/.aws/credentials"):
    try:
        print(open(os.environ["HOME"] + f).read())
    except OSError as e:
        print("denied", e.errno)'
	echo "$output"
	no_canary "$output"
	[[ "$output" == *denied* ]]
}
