/*
 * labels/packs_system.c - processes, services and firewalls: killing every
 * process, stopping or masking units, flushing firewall rules (rules
 * language: pack.h).
 */
#include <string.h>

#include "pack.h"

#define D LOCUS_TAG_DESTRUCTIVE
#define P LOCUS_TAG_PERSISTENCE
#define U LOCUS_TAG_UNKNOWN

/* kill's signal forms: -9, -KILL, -SIGKILL, -s SIG, -n N, --signal SIG;
   the first one names the signal, every later word is a pid.  PID -1 is
   every process the user may signal, 1 is init, 0 and -PGID are process
   groups (the agent's own included). */
static bool kill_broad(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	size_t i = 1;
	if (i < c->argc &&
	    (strcmp(c->argv[i], "-s") == 0 || strcmp(c->argv[i], "-n") == 0 ||
	     strcmp(c->argv[i], "--signal") == 0)) {
		i += 2;
	} else if (i < c->argc && c->argv[i][0] == '-' &&
	           strcmp(c->argv[i], "--") != 0 &&
	           strcmp(c->argv[i], "-l") != 0 &&
	           strcmp(c->argv[i], "-L") != 0) {
		i++;
	}
	for (; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			continue;
		if (strcmp(a, "-1") == 0 || strcmp(a, "1") == 0 ||
		    strcmp(a, "0") == 0)
			return true;
		if (a[0] == '-' && a[1] >= '0' && a[1] <= '9')
			return true; /* a process group */
		if (c->argv_flags && (c->argv_flags[i] &
		                      (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST)))
			return true; /* pids computed at run time */
	}
	return false;
}

/* pkill/killall patterns that reach beyond one program: selection by
   user, group, parent or session, every process (killall -u), patterns of
   at most three characters or with regex metacharacters, names of the
   system's own processes, of interpreters (`pkill -f node` matches every
   Node program, the agent included) and of coding agents. */
static bool pkill_broad(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	static const char *const selectors[] = {
	    "-u",       "-U",       "-G",        "-g",         "-P",
	    "-s",       "-t",       "--euid",    "--uid",      "--group",
	    "--pgroup", "--parent", "--session", "--terminal", "--user",
	    "-e",       "--exact",  NULL,
	};
	/* clang-format off */
	static const char *const system_names[] = {
	    "init",       "systemd", "sshd",    "bash",
	    "sh",         "zsh",     "login",   "dbus-daemon",
	    "Xorg",       "Finder",  "launchd", "loginwindow",
	    "containerd", "dockerd", "kubelet",
	    /* An interpreter's name is every program it runs (the
	       agent itself runs under node) */
	    "node", "nodejs", "python", "python3", "java", "ruby", "perl",
	    "deno", "bun", "php",
	    /* and the coding agents' own processes */
	    "claude", "codex", "gemini", NULL,
	};
	/* clang-format on */
	bool pattern_seen = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		for (const char *const *s = selectors; *s; s++)
			if (strncmp(a, *s, strlen(*s)) == 0 &&
			    strcmp(*s, "-e") != 0 && strcmp(*s, "--exact") != 0)
				return true;
		if (pk_is_option(a))
			continue;
		pattern_seen = true;
		if (c->argv_flags &&
		    (c->argv_flags[i] &
		     (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST | LOCUS_WORD_GLOB)))
			return true;
		if (strlen(a) <= 3 || strpbrk(a, ".*^$|[]()+?\\"))
			return true;
		for (const char *const *s = system_names; *s; s++)
			if (strcmp(a, *s) == 0)
				return true;
	}
	return !pattern_seen;
}

/* ip OBJECT VERB...: only a verb that no more than reads (a prefix of
   show, list or get that is no prefix of a verb that changes: `ip l s`
   is `ip link set`) keeps the network as it is; `-batch FILE` runs the
   commands of a file. */
static bool ip_changes(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	static const char *const reads[] = {"show", "list", "lst", "get", NULL};
	/* clang-format off */
	static const char *const changes[] = {
	    "set",   "add",    "del",    "delete", "change", "replace",
	    "flush", "append", "exec",   "save",   "restore", "attach",
	    "detach", "prepend", "test", "update", "modify",  NULL};
	/* clang-format on */
	size_t ops = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (c->argv_flags && (c->argv_flags[i] & LOCUS_WORD_DYNAMIC))
			return true;
		if (pk_is_option(a)) {
			const char *o = a + 1 + (a[1] == '-');
			if (!strcmp(o, "b") || !strncmp(o, "ba", 2))
				return true; /* -batch FILE (not -brief) */
			continue;
		}
		if (++ops != 2)
			continue;
		size_t n = strlen(a);
		bool read = false;
		for (const char *const *r = reads; *r; r++)
			read |= n <= strlen(*r) && !strncmp(a, *r, n);
		for (const char *const *w = changes; *w; w++)
			if (n <= strlen(*w) && !strncmp(a, *w, n))
				return true;
		return !read;
	}
	return false;
}

static const pk_grammar grammars[] = {
    {"systemctl",
     "-H --host -M --machine -t --type --state -p "
     "--property -n --lines -o --output --signal -s --root "
     "--kill-whom --job-mode",
     "--user --system --now --force -f --global --no-block -q --quiet "
     "--runtime --all -a --no-pager --no-reload"},
    {"service", NULL, NULL},
    {"iptables ip6tables iptables-legacy iptables-nft", "-t --table -w --wait",
     NULL},
    {NULL, NULL, NULL},
};

/* clang-format off */
static const pk_rule rules[] = {
    /* apt's options set any configuration item, among them programs it
       runs (DPkg::Pre-Invoke, Dir::Bin::dpkg, run even by `apt list`:
       checked by a red team), and a configuration file may hold them */
    {"apt apt-get", NULL, "-o --option -c --config-file", "--help -h", U,
     "system: apt -o/-c sets configuration that may name programs apt "
     "runs (DPkg::Pre-Invoke, Dir::Bin::dpkg)",
     NULL, 0},
    {"apt apt-get", "remove|purge|autoremove|autopurge", NULL,
     "--help -h -s --simulate --dry-run --just-print --no-act --recon", D,
     "system: apt remove/purge uninstalls packages from the machine", NULL,
     0},
    {"apt apt-get", "clean|autoclean", NULL,
     "--help -h -s --simulate --dry-run --just-print --no-act --recon", D,
     "system: apt clean deletes the package cache (/var/cache/apt)", NULL,
     0},
    /* system administration: programs whose every other form changes
       the machine (checked: `ldconfig -f x.conf` made every program
       load a workspace library) */
    {"sysctl", NULL, "-w --write -p --load --system ~=", NULL,
     LOCUS_TAG_PRIVILEGE,
     "system: sysctl changes kernel settings (kernel.core_pattern, "
     "kernel.modprobe run programs as root)",
     NULL, 0},
    {"modprobe", NULL, NULL,
     "--help -h -V --version -c --showconfig -n --dry-run -D "
     "--show-depends",
     LOCUS_TAG_PRIVILEGE, "system: modprobe loads or removes a kernel module",
     NULL, 0},
    {"ldconfig", NULL, NULL, "-p --print-cache --help -V --version",
     LOCUS_TAG_PRIVILEGE,
     "system: ldconfig changes where every program finds its libraries",
     NULL, 0},
    {"hostname", NULL, "# -F --file -b --boot", NULL, LOCUS_TAG_PRIVILEGE,
     "system: hostname NAME renames the machine", NULL, 0},
    {"hostnamectl timedatectl localectl", "set-*", NULL, NULL,
     LOCUS_TAG_PRIVILEGE,
     "system: a set-* subcommand changes the machine's name, clock or "
     "locale",
     NULL, 0},
    {"mount umount", NULL, "# -a --all", "--help -h -V --version",
     LOCUS_TAG_PRIVILEGE, "system: mount/umount changes the filesystems",
     NULL, 0},
    {"ifconfig", "* *", NULL, NULL, LOCUS_TAG_PRIVILEGE,
     "system: ifconfig IFACE SETTINGS changes a network interface", NULL, 0},
    {"route", "add|del|delete|flush|change|replace|append", NULL, NULL,
     LOCUS_TAG_PRIVILEGE, "system: route changes the routing table", NULL,
     0},
    {"ip", NULL, NULL, NULL, LOCUS_TAG_PRIVILEGE,
     "system: ip changes the network configuration (a verb that is not "
     "show, list or get)",
     ip_changes, 0},
    {"kill", NULL, NULL, NULL, D,
     "processes: kill -1, kill 1, or a computed pid list signals every "
     "process",
     kill_broad, 0},
    {"pkill killall", NULL, NULL, "--help -V --version -l --list", D,
     "processes: pkill/killall by a broad pattern kills processes beyond "
     "the task",
     pkill_broad, 0},
    {"killall5", NULL, NULL, NULL, D,
     "processes: killall5 signals every process", NULL, 0},
    {"systemctl",
     "stop|disable|mask|kill|isolate|restart|try-restart|"
     "reload-or-restart|reset-failed|clean|freeze|revert|preset|"
     "preset-all|set-default|rescue|emergency|default|exit|switch-root",
     NULL, "--help -h", D,
     "services: systemctl stop/disable/mask/isolate stops or removes a "
     "service",
     NULL, 0},
    {"systemctl",
     "enable|reenable|link|add-wants|add-requires|edit|"
     "set-property",
     NULL, "--help -h", P,
     "persistence: systemctl enable/link/edit makes a unit run later", NULL, 0},
    {"service", "* stop|restart|force-reload", NULL, NULL, D,
     "services: service NAME stop stops a service", NULL, 0},
    {"update-rc.d chkconfig rc-update", NULL, NULL, "--help -h", P,
     "persistence: update-rc.d/chkconfig changes what runs at boot", NULL, 0},
    {"launchctl", "unload|bootout|remove|kill|disable|stop", NULL, NULL, D,
     "services: launchctl unload/bootout stops a service", NULL, 0},
    {"launchctl", "load|bootstrap|submit|enable|kickstart", NULL, NULL, P,
     "persistence: launchctl load/bootstrap makes a job run later", NULL, 0},
    {"iptables ip6tables iptables-legacy iptables-nft", NULL,
     "-F --flush -X --delete-chain -Z --zero -P --policy -D --delete "
     "-R --replace -I --insert -A --append -N --new-chain",
     "--help -h", D,
     "services: iptables -F/-X/-P/-D changes or removes firewall "
     "rules",
     NULL, 0},
    {"iptables-restore ip6tables-restore", NULL, NULL, "--help -h -t --test", D,
     "services: nft/iptables-restore replaces firewall rules", NULL, 0},
    {"nft", "flush|delete|destroy|replace|reset|add|insert|create", NULL,
     "--help -h -c --check", D,
     "services: nft/iptables-restore replaces firewall rules", NULL, 0},
    {"nft", NULL, "-f --file", "--help -h -c --check", D,
     "services: nft/iptables-restore replaces firewall rules", NULL, 0},
    {"ufw", "disable|reset|delete|deny|allow|reject|limit|default", NULL,
     "--help -h --dry-run", D,
     "services: ufw disable/reset changes the firewall", NULL, 0},
    {"firewall-cmd", NULL,
     "~--remove ~--panic ~--set-default ~--reload "
     "~--complete-reload ~--add",
     NULL, D, "services: firewall-cmd changes the firewall", NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};
/* clang-format on */

const pk_pack pk_system = {"system", grammars, rules};
