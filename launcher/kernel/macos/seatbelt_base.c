/*
 * seatbelt_base.c - the parts of a Seatbelt profile that do not come from
 * the path rules: what every shell, git and compiler needs from the
 * system (processes, sysctl reads, a few mach services, devices, the
 * terminal), and the network section.
 *
 * Each allow here is something a real tool was seen to need in the
 * profiles srt and the Codex CLI ship (both default-deny), minus what
 * would reach outside the sandbox: the keychain, LaunchServices, other
 * processes, other terminals.  launcher/kernel/macos/README.md lists the
 * differences and the reasons.
 */
#include <string.h>

#include "seatbelt_int.h"

static const char *const platform[] = {
	";; Processes: fork and exec inherit this profile.  Signals and",
	";; process information only within the sandbox (PRC-01); exec is",
	";; allowed where reading is (the path rules below).",
	"(allow process-fork)",
	"(allow process-info* (target same-sandbox))",
	"(allow signal (target same-sandbox))",
	"",
	";; System information read by shells, runtimes and compilers.",
	"(allow sysctl-read",
	"  (sysctl-name \"hw.activecpu\")",
	"  (sysctl-name \"hw.busfrequency_compat\")",
	"  (sysctl-name \"hw.byteorder\")",
	"  (sysctl-name \"hw.cacheconfig\")",
	"  (sysctl-name \"hw.cachelinesize_compat\")",
	"  (sysctl-name \"hw.cpufamily\")",
	"  (sysctl-name \"hw.cpufrequency\")",
	"  (sysctl-name \"hw.cpufrequency_compat\")",
	"  (sysctl-name \"hw.cputype\")",
	"  (sysctl-name \"hw.l1dcachesize_compat\")",
	"  (sysctl-name \"hw.l1icachesize_compat\")",
	"  (sysctl-name \"hw.l2cachesize_compat\")",
	"  (sysctl-name \"hw.l3cachesize_compat\")",
	"  (sysctl-name \"hw.logicalcpu\")",
	"  (sysctl-name \"hw.logicalcpu_max\")",
	"  (sysctl-name \"hw.machine\")",
	"  (sysctl-name \"hw.memsize\")",
	"  (sysctl-name \"hw.model\")",
	"  (sysctl-name \"hw.ncpu\")",
	"  (sysctl-name \"hw.nperflevels\")",
	"  (sysctl-name \"hw.packages\")",
	"  (sysctl-name \"hw.pagesize\")",
	"  (sysctl-name \"hw.pagesize_compat\")",
	"  (sysctl-name \"hw.physicalcpu\")",
	"  (sysctl-name \"hw.physicalcpu_max\")",
	"  (sysctl-name \"hw.tbfrequency_compat\")",
	"  (sysctl-name \"hw.vectorunit\")",
	"  (sysctl-name \"kern.argmax\")",
	"  (sysctl-name \"kern.hostname\")",
	"  (sysctl-name \"kern.maxfiles\")",
	"  (sysctl-name \"kern.maxfilesperproc\")",
	"  (sysctl-name \"kern.maxproc\")",
	"  (sysctl-name \"kern.ngroups\")",
	"  (sysctl-name \"kern.osproductversion\")",
	"  (sysctl-name \"kern.osrelease\")",
	"  (sysctl-name \"kern.ostype\")",
	"  (sysctl-name \"kern.osvariant_status\")",
	"  (sysctl-name \"kern.osversion\")",
	"  (sysctl-name \"kern.secure_kernel\")",
	"  (sysctl-name \"kern.usrstack64\")",
	"  (sysctl-name \"kern.version\")",
	"  (sysctl-name \"machdep.ptrauth_enabled\")",
	"  (sysctl-name \"security.mac.lockdown_mode_state\")",
	"  (sysctl-name \"sysctl.proc_cputype\")",
	"  (sysctl-name \"vm.loadavg\")",
	"  (sysctl-name-prefix \"hw.optional.\")",
	"  (sysctl-name-prefix \"hw.perflevel\")",
	"  (sysctl-name-prefix \"kern.proc.pgrp.\")",
	"  (sysctl-name-prefix \"kern.proc.pid.\")",
	"  (sysctl-name-prefix \"machdep.cpu.\")",
	"  (sysctl-name-prefix \"net.routetable.\"))",
	";; The JVM reads its CPU type through a sysctl write.",
	"(allow sysctl-write (sysctl-name \"kern.grade_cputype\"))",
	"",
	";; Mach services: user and group lookups, logging, read-only",
	";; preferences, the per-user temporary directory helper.  Not here:",
	";; the keychain (com.apple.SecurityServer: credentials), LaunchServices",
	";; (open -a starts programs outside the sandbox, IPC-03), the",
	";; pasteboard, FSEvents.",
	"(allow mach-lookup",
	"  (global-name \"com.apple.bsd.dirhelper\")",
	"  (global-name \"com.apple.cfprefsd.agent\")",
	"  (global-name \"com.apple.cfprefsd.daemon\")",
	"  (global-name \"com.apple.logd\")",
	"  (global-name \"com.apple.system.DirectoryService.libinfo_v1\")",
	"  (global-name \"com.apple.system.logger\")",
	"  (global-name \"com.apple.system.notification_center\")",
	"  (global-name \"com.apple.system.opendirectoryd.libinfo\")",
	"  (global-name \"com.apple.system.opendirectoryd.membership\")",
	"  (local-name \"com.apple.cfprefsd.agent\"))",
	"(allow user-preference-read)",
	"(allow ipc-posix-shm-read* (ipc-posix-name-prefix \"apple.cfprefs.\"))",
	"(allow ipc-posix-shm-read-data",
	"  (ipc-posix-name \"apple.shm.notification_center\"))",
	";; Named semaphores: Python's multiprocessing locks.",
	"(allow ipc-posix-sem)",
	";; Unix socket(): socketpair for child stdio (libuv, Python).  Binding",
	";; and connecting are network rules (below).",
	"(allow system-socket (socket-domain AF_UNIX))",
	"",
	";; Devices.  /dev is left out of the path rules: only these devices,",
	";; as on Linux's minimal /dev (DEV-01).",
	"(allow file-read* (literal \"/dev\"))",
	"(allow file-read-metadata (subpath \"/dev\"))",
	"(allow file-read* file-write* file-ioctl",
	"  (literal \"/dev/null\")",
	"  (literal \"/dev/zero\")",
	"  (literal \"/dev/dtracehelper\"))",
	"(allow file-read* file-ioctl",
	"  (literal \"/dev/random\")",
	"  (literal \"/dev/urandom\"))",
	"(allow file-read* (literal \"/dev/autofs_nowait\"))",
	"(allow file-read* file-write*",
	"  (subpath \"/dev/fd\")",
	"  (literal \"/dev/stdin\")",
	"  (literal \"/dev/stdout\")",
	"  (literal \"/dev/stderr\"))",
	"",
	";; The terminal (MAC-01, TTY-05).  (deny default) above is what makes",
	";; Seatbelt refuse TIOCSTI, even on a terminal where file-ioctl is",
	";; allowed: this profile never says (allow default) and never allows",
	";; file-ioctl without a path.  The controlling terminal and",
	";; pseudo-terminals made inside the sandbox can be opened; other",
	";; terminals of the user cannot (they lack the pty extension), so",
	";; their keystrokes cannot be read nor prompts forged on them.",
	"(allow file-read* file-write* file-ioctl (literal \"/dev/tty\"))",
	"(allow pseudo-tty)",
	"(allow file-read* file-write* file-ioctl (literal \"/dev/ptmx\"))",
	"(allow file-read* file-write*",
	"  (require-all",
	"    (regex \"^/dev/ttys[0-9]+$\")",
	"    (extension \"com.apple.sandbox.pty\")))",
	";; ioctls on the terminal the command inherited (tcsetattr, window",
	";; size): it was opened before the sandbox, without the extension.",
	"(allow file-ioctl (regex \"^/dev/ttys[0-9]+$\"))",
	NULL,
};

void sbx_sb_platform(FILE *f)
{
	for (size_t i = 0; platform[i]; i++)
		fprintf(f, "%s\n", platform[i]);
}

/* DNS, TLS trust and network configuration, for mode "on". */
static const char *const net_on[] = {
	"(allow network-outbound (remote ip))",
	"(allow network-inbound (local ip))",
	"(allow network-bind (local ip))",
	";; The resolver (mDNSResponder) and network configuration.",
	"(allow network-outbound (literal \"/private/var/run/mDNSResponder\"))",
	"(allow system-socket)",
	"(allow mach-lookup",
	"  (global-name \"com.apple.SystemConfiguration.DNSConfiguration\")",
	"  (global-name \"com.apple.SystemConfiguration.configd\")",
	"  (global-name \"com.apple.dnssd.service\")",
	"  (global-name \"com.apple.networkd\")",
	"  (global-name \"com.apple.ocspd\")",
	"  (global-name \"com.apple.trustd\")",
	"  (global-name \"com.apple.trustd.agent\"))",
	NULL,
};

static void lines(FILE *f, const char *const *v)
{
	for (size_t i = 0; v[i]; i++)
		fprintf(f, "%s\n", v[i]);
}

void sbx_sb_network_notes(FILE *f, const struct sbx_policy *p,
			  const struct sbx_seatbelt_opts *o)
{
	if (p->net == SBX_NET_LOOPBACK)
		fputs("; NOTE: network \"loopback\" is the host's loopback here: "
		      "services\n"
		      ";   listening on 127.0.0.1 outside the sandbox are "
		      "reachable.  On\n"
		      ";   Linux the sandbox gets a private loopback; Seatbelt "
		      "has none.\n",
		      f);
	if (p->net == SBX_NET_FILTERED && !o->proxy_port)
		fputs("; NOTE: the network allow-list needs sbxrun's filtering "
		      "proxy; without\n"
		      ";   it (no proxy port given) this profile allows no "
		      "network at all.\n",
		      f);
}

/* Unix sockets: the policy's own (by path, as written and as resolved),
 * and any inside the project or the private temporary directory. */
static void unix_sockets(FILE *f, const struct sbx_policy *p,
			 const char *tmpdir)
{
	const char *own[2] = { p->project, tmpdir };
	char norm[4096];

	fputs(";; Unix sockets inside the project and the private temporary\n"
	      ";; directory; elsewhere only those the policy names.\n",
	      f);
	for (int i = 0; i < 2; i++) {
		if (!own[i])
			continue;
		fputs("(allow network-bind (local unix-socket (subpath ", f);
		sbx_sbpl_string(f, own[i], strlen(own[i]));
		fputs(")))\n(allow network-outbound (remote unix-socket "
		      "(subpath ",
		      f);
		sbx_sbpl_string(f, own[i], strlen(own[i]));
		fputs(")))\n", f);
	}
	for (size_t i = 0; i < p->unix_sockets.n; i++) {
		const char *s = p->unix_sockets.v[i];
		int resolved = sbx_path_norm(s, p->project, p->home, 1, norm,
					     sizeof(norm)) == 0 &&
			       strcmp(norm, s) != 0;

		fputs("(allow network-outbound\n  (literal ", f);
		sbx_sbpl_string(f, s, strlen(s));
		fputs(")\n  (remote unix-socket (subpath ", f);
		sbx_sbpl_string(f, s, strlen(s));
		fputs("))", f);
		if (resolved) {
			fputs("\n  (literal ", f);
			sbx_sbpl_string(f, norm, strlen(norm));
			fputs(")\n  (remote unix-socket (subpath ", f);
			sbx_sbpl_string(f, norm, strlen(norm));
			fputs("))", f);
		}
		fputs(")\n", f);
	}
}

void sbx_sb_network(FILE *f, const struct sbx_policy *p,
		    const struct sbx_seatbelt_opts *o, const char *tmpdir)
{
	fprintf(f, ";; Network: \"%s\".\n", sbx_net_name(p->net));
	switch (p->net) {
	case SBX_NET_OFF:
		fputs(";; No internet sockets, no resolver.\n", f);
		break;
	case SBX_NET_LOOPBACK:
		fputs(";; Loopback only (the host's: see the NOTE above).\n"
		      "(allow network-bind (local ip \"localhost:*\"))\n"
		      "(allow network-inbound (local ip \"localhost:*\"))\n"
		      "(allow network-outbound (remote ip \"localhost:*\"))\n",
		      f);
		break;
	case SBX_NET_ON: lines(f, net_on); break;
	case SBX_NET_FILTERED:
		if (!o->proxy_port) {
			fputs(";; No proxy port: no network (see the NOTE "
			      "above).\n",
			      f);
			break;
		}
		fprintf(f,
			";; Only the filtering proxy, which applies the "
			"allow-list; TLS\n"
			";; certificates are still checked here (trustd).\n"
			"(allow network-outbound (remote ip \"localhost:%u\"))\n"
			"(allow mach-lookup\n"
			"  (global-name \"com.apple.trustd\")\n"
			"  (global-name \"com.apple.trustd.agent\"))\n",
			o->proxy_port);
		break;
	}
	unix_sockets(f, p, tmpdir);
}
