#!/usr/bin/env bats
# Kernel surface and self-widening (THREATS SCF-01..09, NS-01..05, SHM-06,
# FS-15): foreign syscall ABIs, io_uring, clone3/openat2, the new mount API,
# nested namespaces, mount games, chroot, bpf/perf/userfaultfd/keyctl and
# friends, set-uid binaries.  The probe passes arguments that make a call
# which reached the kernel fail harmlessly (EFAULT/EINVAL/EBADF), so
# "refused by the filter" (EPERM/ENOSYS/SIGSYS) is told apart.

load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

# One probe call that the filter must refuse, static and dynamic.
must_filter() {
	run xsbx -- "$SBX_SYS.static" "$@"
	echo "static $*: $output"
	filtered
	run xsbx -- "$SBX_SYS" "$@"
	echo "dynamic $*: $output"
	filtered
}

@test "SCF-01 x32 ABI syscall (0x40000000|__NR_getpid)" {
	run xsbx -- "$SBX_SYS.static" x32
	echo "$output"
	filtered
	run xsbx -- "$SBX_SYS.static" nr $((0x40000000 + 39))
	filtered
}

@test "SCF-02 ia32 entry (int 0x80 getpid) from a 64-bit process" {
	run xsbx -- "$SBX_SYS.static" ia32
	echo "status=$status $output"
	# must not return a pid: killed (SIGSYS/SIGKILL) or an error
	case "$(result)" in
	"-1 "*) ;;
	"") [ "$status" -ge 128 ] ;;
	*) echo "ia32 syscall executed" >&2; false ;;
	esac
}

@test "SCF-03 ia32 socketcall (address family behind a pointer)" {
	run xsbx -- "$SBX_SYS.static" ia32socketcall
	echo "status=$status $output"
	case "$(result)" in
	"-1 EFAULT") echo "ia32 socketcall reached the kernel" >&2; false ;;
	"-1 "*) ;;
	"") [ "$status" -ge 128 ] ;;
	*) false ;;
	esac
}

@test "SCF-02 personality(READ_IMPLIES_EXEC) and PER_BSD" {
	must_filter personality 0x0400000
	run xsbx -- "$SBX_SYS.static" personality 0x0006
	echo "$output"
	filtered
}

@test "SCF-04 io_uring_setup" {
	must_filter io_uring
}

@test "SCF-05 clone3 -> ENOSYS (libc falls back to clone)" {
	run xsbx -- "$SBX_SYS.static" clone3
	echo "$output"
	[ "$(result)" = "-1 ENOSYS" ]
}

@test "SCF-05 clone3 with CLONE_NEWUSER|CLONE_NEWNS in clone_args" {
	must_filter clone3ns
}

@test "SCF-05 openat2 -> ENOSYS (libc falls back to openat)" {
	run xsbx -- "$SBX_SYS.static" openat2 /etc/hostname
	echo "$output"
	[ "$(result)" = "-1 ENOSYS" ]
}

@test "SCF-06 new mount API: open_tree, fsopen, fspick, fsconfig, fsmount, move_mount, mount_setattr" {
	for op in "open_tree /" "open_tree_clone /" "open_tree_attr /" fsopen fspick fsconfig fsmount move_mount mount_setattr; do
		run xsbx -- "$SBX_SYS.static" $op
		echo "$op: $output"
		filtered
	done
}

@test "SCF-08 seccomp(SET_MODE_FILTER, NEW_LISTENER)" {
	must_filter seccomp_listener
}

@test "SCF-09 ptrace(TRACEME) (tracer rewriting syscalls)" {
	run xsbx -- "$SBX_SYS.static" ptrace_traceme
	echo "$output"
	filtered
}

@test "NS-01 unshare(CLONE_NEWUSER) / NEWNS / NEWNET (static)" {
	for ns in user mnt net pid ipc uts cgroup; do
		run xsbx -- "$SBX_SYS.static" unshare "$ns"
		echo "$ns: $output"
		filtered
	done
}

@test "NS-01 unshare -Urm and clone(CLONE_NEWUSER) (dynamic)" {
	run xsbx -c 'unshare -Urm id && echo NESTED-USERNS; unshare -r true && echo NESTED2; true'
	echo "$output"
	[[ "$output" != *NESTED* ]]
	must_filter clonens
}

@test "NS-01 setns into another namespace" {
	must_filter setns_bad
	run xsbx -- "$SBX_SYS.static" setns /proc/1/ns/mnt
	echo "$output"
	denied
}

@test "NS-02 umount the tmpfs hiding ~/.ssh, then read the key" {
	run xsbx -c "$SBX_SYS.static umount $HOME/.ssh; $SBX_SYS.static umount $HOME/.aws; umount -l $HOME/.ssh; cat $HOME/.ssh/id_rsa $HOME/.aws/credentials; $SBX_SYS.static read $HOME/.ssh/id_rsa; true"
	echo "$output"
	no_canary "$output"
	[[ "$output" != *"RESULT 0 OK"* ]]
}

@test "NS-02 mount / bind-mount / remount to see under a hide or make / writable" {
	run xsbx -c "$SBX_SYS.static bindmount $HOME $P/h; $SBX_SYS.static mount $HOME/.ssh; $SBX_SYS.static remount /; $SBX_SYS.static bindmount / $P; cat $P/h/.ssh/id_rsa; true"
	echo "$output"
	no_canary "$output"
	[[ "$output" != *"RESULT 0 OK"* ]]
	run xsbx -- "$SBX_SYS.static" mount "$P"
	filtered
}

@test "NS-02 umount in a nested user+mount namespace" {
	run xsbx -c "unshare -Urm sh -c 'umount -l $HOME/.ssh; cat $HOME/.ssh/id_rsa' ; true"
	echo "$output"
	no_canary "$output"
}

@test "NS-03 chroot and pivot_root" {
	run xsbx -- "$SBX_SYS.static" chroot "$P"
	echo "$output"
	filtered
	run xsbx -- "$SBX_SYS.static" pivot_root
	echo "$output"
	filtered
}

@test "NS-04 bpf" { must_filter bpf; }
@test "NS-04 perf_event_open" { must_filter perf_event_open; }
@test "NS-04 userfaultfd" { must_filter userfaultfd; }
@test "NS-04 open_by_handle_at / name_to_handle_at (Shocker)" {
	must_filter open_by_handle_at
	run xsbx -- "$SBX_SYS.static" name_to_handle_at
	echo "$output"
	filtered
}
@test "NS-04 kexec_load, init_module, finit_module, delete_module" {
	for op in kexec_load init_module finit_module delete_module; do
		run xsbx -- "$SBX_SYS.static" $op
		echo "$op: $output"
		filtered
	done
}
@test "NS-04 acct, quotactl, swapoff, reboot, syslog" {
	for op in acct quotactl swapoff reboot; do
		run xsbx -- "$SBX_SYS.static" $op
		echo "$op: $output"
		filtered
	done
	run xsbx -- "$SBX_SYS.static" syslog
	echo "syslog: $output"
	denied
}

@test "NS-05/SHM-06 no_new_privs is set and every capability is dropped" {
	run xsbx -- "$SBX_SYS.static" status
	echo "$output"
	[[ "$output" == *$'NoNewPrivs:\t1'* ]]
	[[ "$output" == *$'CapEff:\t0000000000000000'* ]]
	[[ "$output" == *$'CapPrm:\t0000000000000000'* ]]
	[[ "$output" == *$'CapAmb:\t0000000000000000'* ]]
	[[ "$output" == *$'Seccomp:\t2'* ]]
}

@test "NS-05 set-uid helpers (su, mount, umount) gain nothing" {
	run xsbx -c "env -u LD_PRELOAD su -c 'echo SU-UID=\$(id -u)' root </dev/null; env -u LD_PRELOAD mount -t tmpfs none $P && echo MOUNTED; env -u LD_PRELOAD umount $HOME/.ssh && echo UMOUNTED; cat $HOME/.ssh/id_rsa; true"
	echo "$output"
	no_canary "$output"
	[[ "$output" != *MOUNTED* ]]
	if [ "$(id -u)" != 0 ]; then
		[[ "$output" != *"SU-UID=0"* ]]
	fi
}

@test "SHM-06 a set-uid-root binary runs without privilege (root prepares it, user runs it)" {
	if [ "$(id -u)" != 0 ]; then
		# the unprivileged run: no set-uid file can be made here; the
		# guarantee is NNP (checked above) and nosuid mounts in full mode
		if full_mode; then
			run xsbx -c "grep -E ' / ' /proc/self/mountinfo"
			echo "$output"
			[[ "$output" == *nosuid* ]]
		else
			run xsbx -- "$SBX_SYS.static" status
			[[ "$output" == *$'NoNewPrivs:\t1'* ]]
		fi
		return 0
	fi
	id sbxtest >/dev/null 2>&1 || useradd -m -s /bin/bash sbxtest
	cp "$SBX_SYS.static" "$T/suid-probe"
	chmod 4755 "$T/suid-probe"
	u_home=$(getent passwd sbxtest | cut -d: -f6)
	run runuser -u sbxtest -- env -i PATH=/usr/bin:/bin HOME="$u_home" \
		SBXRUN_PROFILE_DIR="$SBXRUN_PROFILE_DIR" \
		timeout 30 "$SBXRUN" --mode "$SBX_MODE" --workdir "$u_home" --unsafe-project -- "$T/suid-probe" status
	echo "$output"
	[[ "$output" == *"EUID "* ]]
	[[ "$output" != *"EUID 0"* ]]
}

@test "FS-14/FS-15 memfd exec of a copy of a binary: still no capabilities, still filtered" {
	run xsbx -- "$SBX_SYS.static" memfd_exec "$SBX_SYS.static" unshare user
	echo "$output"
	filtered
}

@test "SCF-05 libc still works after the clone3/openat2 refusals (fork, posix_spawn, threads)" {
	run xsbx -c "$PY -c 'import subprocess, threading; t = threading.Thread(target=lambda: None); t.start(); t.join(); print(subprocess.run([\"echo\", \"spawned\"], capture_output=True).stdout.decode().strip())'"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *spawned* ]]
}
