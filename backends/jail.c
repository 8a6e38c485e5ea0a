/*
 * backends/jail.c - `locus jail`: one command under bubblewrap, confined to
 * its workspace (docs/jail.md).
 *
 * The jail: the whole file system read-only (`--ro-bind / /`); the
 * workspace read-write at its own path; private /tmp, /var/tmp and /run
 * (the host's sockets under /run, docker's among them, are not there); a
 * fresh /dev and /proc; the credential stores of every home masked (an
 * empty read-only folder, or /dev/null for a file), and /etc/shadow,
 * /etc/gshadow and the ssh host keys; the agents' configuration and the
 * git hooks and config inside the workspace read-only; new user, pid,
 * ipc, uts, cgroup and (unless network) net namespaces; every capability
 * dropped, no_new_privs, a new session (no terminal injection), killed
 * with its parent; a seccomp filter that keeps setuid/setgid bits off
 * every file (jail_seccomp.c).  The exit status, stdin, stdout and stderr
 * are the command's own.
 *
 * What else may be written (build caches), what else is masked and which
 * environment variables are dropped comes from a profile (a small line
 * format, parsed here): the user's ~/.config/locus/jail.profile when it
 * exists, else the built-in one (locus_jail_default_profile()).  A profile
 * adds; it cannot take away a built-in mask.
 *
 * The jail is made by bwrap, found on PATH.  When it cannot be made (no
 * bwrap, no user namespaces, a container that forbids them) the command
 * does not run: LOCUS_EIO, never an unconfined run.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "jail.h"
#include "locus/labels.h"
#include "../util/path.h"
#include "../util/read.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The credential stores masked in every home: the home-anchored paths of
 * the exec:secrets label (labels/packs_paths.c; tests/test_jail.c checks
 * each is labelled so) and the agents' own login tokens. */
static const char *const home_secrets[] = {
    ".ssh",
    ".aws",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".gnupg",
    ".password-store",
    ".pgpass",
    ".my.cnf",
    ".pypirc",
    ".npmrc",
    ".config/gh",
    ".azure",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".config/op",
    ".config/sops",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".m2/settings.xml",
    ".boto",
    ".s3cfg",
    "Library/Keychains",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    NULL,
};

/* Masked wherever they are: the system's own secrets. */
/* clang-format off */
static const char *const system_secrets[] = {
    "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
    "/etc/sudoers.d", NULL,
};
/* clang-format on */

/* Read-only inside the workspace: what would run later, outside the jail,
 * or change the agent's own rules. */
/* clang-format off */
static const char *const workspace_ro[] = {
    ".git/hooks", ".git/config", ".claude", ".codex", ".gemini",
    ".mcp.json",  ".envrc",      ".vscode", ".cursor", NULL,
};
/* clang-format on */

static const char default_profile[] =
    "# locus jail profile (docs/jail.md).  Copy it to\n"
    "# ~/.config/locus/jail.profile (or pass --profile FILE) and edit.\n"
    "#\n"
    "#   write PATH     bound read-write when it exists (~ is your home)\n"
    "#   mask PATH      hidden (an empty folder, or an empty file)\n"
    "#   unsetenv GLOB  environment variables dropped (fnmatch pattern)\n"
    "#   keepenv NAME   passed on although its name says it is a secret\n"
    "#\n"
    "# The workspace, a private /tmp and these caches are the only\n"
    "# writable places; the credential stores (~/.ssh, ~/.aws, ...) are\n"
    "# always masked, whatever a profile says, and variables whose name\n"
    "# says they hold a secret (GITHUB_TOKEN, DATABASE_URL...) are always\n"
    "# dropped but for keepenv.\n"
    "write ~/.cache\n"
    "write ~/.npm\n"
    "write ~/.yarn/berry/cache\n"
    "write ~/.local/share/pnpm\n"
    "write ~/.cargo/registry\n"
    "write ~/.cargo/git\n"
    "write ~/go/pkg\n"
    "write ~/.m2/repository\n"
    "write ~/.gradle/caches\n"
    "write ~/.ccache\n"
    "unsetenv *_TOKEN\n"
    "unsetenv *_TOKEN_*\n"
    "unsetenv *SECRET*\n"
    "unsetenv *PASSWORD*\n"
    "unsetenv *_API_KEY\n"
    "unsetenv AWS_ACCESS_KEY_ID\n"
    "unsetenv AWS_SESSION_TOKEN\n"
    "unsetenv SSH_AUTH_SOCK\n"
    "unsetenv GPG_AGENT_INFO\n";

const char *locus_jail_default_profile(void)
{
	return default_profile;
}

/* --- a growing argv ------------------------------------------------------- */

typedef struct strv {
	char **v;
	size_t n, cap;
	bool oom;
} strv;

static void sv_add(strv *s, const char *x)
{
	if (s->oom)
		return;
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		char **v = realloc(s->v, cap * sizeof *v);
		if (!v) {
			s->oom = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	char *c = strdup(x);
	if (!c) {
		s->oom = true;
		return;
	}
	s->v[s->n++] = c;
	s->v[s->n] = NULL;
}

static void sv_add3(strv *s, const char *a, const char *b, const char *c)
{
	sv_add(s, a);
	sv_add(s, b);
	if (c)
		sv_add(s, c);
}

static void sv_free(strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static bool sv_has(const strv *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], x))
			return true;
	return false;
}

/* --- the profile ---------------------------------------------------------- */

typedef struct profile {
	strv write, mask, unset, keep;
} profile;

static void profile_free(profile *p)
{
	sv_free(&p->write);
	sv_free(&p->mask);
	sv_free(&p->unset);
	sv_free(&p->keep);
}

/* ~ and ~/x against home; else the path must be absolute.  Malloc'd, or
 * NULL (errno EINVAL for a relative path). */
static char *expand(const char *p, const char *home)
{
	char *out = NULL;
	if (p[0] == '~' && (p[1] == '\0' || p[1] == '/')) {
		if (!home) {
			errno = EINVAL;
			return NULL;
		}
		if (asprintf(&out, "%s%s", home, p + 1) < 0)
			return NULL;
		return out;
	}
	if (p[0] != '/') {
		errno = EINVAL;
		return NULL;
	}
	return strdup(p);
}

static int profile_parse(profile *pr, const char *text, const char *name,
                         const char *home, locus_error *err)
{
	unsigned lineno = 0;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		char line[PATH_MAX + 64];
		lineno++;
		if (n >= sizeof line)
			return lu_err(err, LOCUS_EINVALID,
			              "%s:%u: line too long", name, lineno);
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (p[n] == '\n');
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		size_t e = strlen(s);
		while (e && (s[e - 1] == ' ' || s[e - 1] == '\t' ||
		             s[e - 1] == '\r'))
			s[--e] = '\0';
		if (!*s || *s == '#')
			continue;
		size_t kw = strcspn(s, " \t");
		char *arg = s + kw;
		while (*arg == ' ' || *arg == '\t')
			arg++;
		if (!s[kw] || !*arg)
			return lu_err(
			    err, LOCUS_EINVALID,
			    "%s:%u: expected `write PATH`, `mask PATH`, "
			    "`unsetenv GLOB` or `keepenv NAME`",
			    name, lineno);
		s[kw] = '\0';
		if (!strcmp(s, "unsetenv") || !strcmp(s, "keepenv")) {
			sv_add(s[0] == 'u' ? &pr->unset : &pr->keep, arg);
			continue;
		}
		strv *to = !strcmp(s, "write")  ? &pr->write
		           : !strcmp(s, "mask") ? &pr->mask
		                                : NULL;
		if (!to)
			return lu_err(err, LOCUS_EINVALID,
			              "%s:%u: unknown directive \"%s\" (write, "
			              "mask, unsetenv, keepenv)",
			              name, lineno, s);
		char *x = expand(arg, home);
		if (!x)
			return lu_err(err, LOCUS_EINVALID,
			              "%s:%u: %s must be absolute or start "
			              "with ~/",
			              name, lineno, arg);
		sv_add(to, x);
		free(x);
	}
	return pr->write.oom || pr->mask.oom || pr->unset.oom || pr->keep.oom
	           ? lu_err(err, LOCUS_ENOMEM, "out of memory")
	           : 0;
}

/* The profile's text: the file given, else the user's, else built in. */
static int profile_load(profile *pr, const char *file, const char *home,
                        locus_error *err)
{
	char user[PATH_MAX];
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (!file && xdg && xdg[0] == '/' &&
	    (size_t)snprintf(user, sizeof user, "%s/locus/jail.profile", xdg) <
	        sizeof user &&
	    access(user, F_OK) == 0)
		file = user;
	else if (!file && home &&
	         (size_t)snprintf(user, sizeof user,
	                          "%s/.config/locus/jail.profile",
	                          home) < sizeof user &&
	         access(user, F_OK) == 0)
		file = user;
	if (!file)
		return profile_parse(pr, default_profile, "(built-in profile)",
		                     home, err);
	char *text = NULL;
	size_t len = 0;
	if (lu_read_path(file, (size_t)1 << 20, &text, &len))
		return lu_err(err, LOCUS_ENOTFOUND,
		              "cannot read the jail profile %s: %s", file,
		              strerror(errno));
	int rc = strlen(text) != len
	             ? lu_err(err, LOCUS_EINVALID,
	                      "%s: a NUL byte in the profile", file)
	             : profile_parse(pr, text, file, home, err);
	free(text);
	return rc;
}

/* --- the bwrap command line ------------------------------------------------ */

/* Hide `path` when it exists: a folder under an empty read-only tmpfs, any
 * other file under /dev/null.  A symlink is followed (bwrap binds on the
 * target), so its target is what gets hidden. */
static void mask(strv *a, strv *done, const char *path)
{
	struct stat st;
	char real[PATH_MAX];
	if (stat(path, &st) < 0 || !realpath(path, real) || sv_has(done, real))
		return;
	sv_add(done, real);
	if (S_ISDIR(st.st_mode)) {
		sv_add3(a, "--tmpfs", real, NULL);
		sv_add3(a, "--remount-ro", real, NULL);
	} else {
		sv_add3(a, "--ro-bind", "/dev/null", real);
	}
}

static void mask_home(strv *a, strv *done, const char *home)
{
	char p[PATH_MAX];
	for (size_t i = 0; home_secrets[i]; i++)
		if ((size_t)snprintf(p, sizeof p, "%s/%s", home,
		                     home_secrets[i]) < sizeof p)
			mask(a, done, p);
}

/* Every home on the machine: $HOME, /root and /home/x. */
static void mask_homes(strv *a, strv *done, const char *home)
{
	if (home)
		mask_home(a, done, home);
	mask_home(a, done, "/root");
	DIR *d = opendir("/home");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char p[PATH_MAX];
		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(p, sizeof p, "/home/%s", e->d_name) >=
		        sizeof p)
			continue;
		mask_home(a, done, p);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; system_secrets[i]; i++)
		mask(a, done, system_secrets[i]);
	/* the ssh host keys */
	d = opendir("/etc/ssh");
	while (d && (e = readdir(d))) {
		char p[PATH_MAX];
		if (strncmp(e->d_name, "ssh_host_", 9) ||
		    !strstr(e->d_name, "_key") ||
		    (size_t)snprintf(p, sizeof p, "/etc/ssh/%s", e->d_name) >=
		        sizeof p)
			continue;
		mask(a, done, p);
	}
	if (d)
		closedir(d);
}

/* An existing path, resolved; false when absent. */
static bool resolved(const char *path, char real[PATH_MAX])
{
	return realpath(path, real) != NULL;
}

/* The name resolution file may live under /run (systemd-resolved): keep
 * it readable when the network is shared. */
static void keep_resolv(strv *a)
{
	char real[PATH_MAX];
	if (resolved("/etc/resolv.conf", real) && !strncmp(real, "/run/", 5))
		sv_add3(a, "--ro-bind", real, real);
}

/* The working folder: the current one when it is inside the root, else
 * the root. */
static void chdir_arg(strv *a, const char *root)
{
	char cwd[PATH_MAX];
	size_t rl = strlen(root);
	if (getcwd(cwd, sizeof cwd) && !strncmp(cwd, root, rl) &&
	    (cwd[rl] == '\0' || cwd[rl] == '/'))
		sv_add3(a, "--chdir", cwd, NULL);
	else
		sv_add3(a, "--chdir", root, NULL);
}

static void build_argv(strv *a, const char *root, const char *home,
                       const profile *pr, bool network, int seccomp_fd)
{
	char real[PATH_MAX], p[PATH_MAX];
	sv_add(a, "bwrap");
	/* fd 3 (spawn): a line with "exit-code" once the command ran */
	sv_add3(a, "--json-status-fd", "3", NULL);
	/* the same hardening as the bwrap session (harness/bwrap.c) */
	sv_add3(a, "--unshare-all", "--die-with-parent", "--new-session");
	if (network)
		sv_add(a, "--share-net");
	sv_add3(a, "--cap-drop", "ALL", NULL);
	sv_add3(a, "--ro-bind", "/", "/");
	sv_add3(a, "--dev", "/dev", NULL);
	sv_add3(a, "--proc", "/proc", NULL);
	sv_add3(a, "--tmpfs", "/tmp", NULL);
	if (resolved("/var/tmp", real))
		sv_add3(a, "--tmpfs", real, NULL);
	if (resolved("/run", real))
		sv_add3(a, "--tmpfs", real, NULL);
	if (network)
		keep_resolv(a);
	for (size_t i = 0; i < pr->write.n; i++)
		if (resolved(pr->write.v[i], real))
			sv_add3(a, "--bind", real, real);
	sv_add3(a, "--bind", root, root);
	for (size_t i = 0; workspace_ro[i]; i++)
		if ((size_t)snprintf(p, sizeof p, "%s/%s", root,
		                     workspace_ro[i]) < sizeof p &&
		    resolved(p, real))
			sv_add3(a, "--ro-bind", real, real);
	strv done = {0};
	mask_homes(a, &done, home);
	for (size_t i = 0; i < pr->mask.n; i++)
		mask(a, &done, pr->mask.v[i]);
	if (done.oom)
		a->oom = true;
	sv_free(&done);
	chdir_arg(a, root);
	if (seccomp_fd >= 0) {
		char fd[16];
		snprintf(fd, sizeof fd, "%d", seccomp_fd);
		sv_add3(a, "--seccomp", fd, NULL);
	}
}

/* Never passed on, whatever a profile says (but `keepenv NAME`): the
 * agents' sockets, which sign and decrypt with the person's keys.  Names
 * that say they hold a secret (locus_secret_variable) are dropped too. */
/* clang-format off */
static const char *const agent_sockets[] = {
    "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "SSH_AGENT_PID", NULL,
};
/* clang-format on */

static bool secret_env(const char *name)
{
	for (size_t i = 0; agent_sockets[i]; i++)
		if (!strcmp(name, agent_sockets[i]))
			return true;
	return locus_secret_variable(name);
}

/* The command's environment: the caller's, less the profile's unsetenv
 * patterns and every secret (secret_env) the profile does not keep
 * (keepenv: exact names); a TMPDIR the jail cannot write becomes /tmp. */
static void build_env(strv *env, const profile *pr, const char *root)
{
	for (char **e = environ; e && *e; e++) {
		size_t n = strcspn(*e, "=");
		char name[256];
		if (n >= sizeof name)
			continue;
		memcpy(name, *e, n);
		name[n] = '\0';
		bool drop = secret_env(name);
		for (size_t i = 0; i < pr->unset.n && !drop; i++)
			drop = fnmatch(pr->unset.v[i], name, 0) == 0;
		if (drop && sv_has(&pr->keep, name))
			drop = false;
		if (!strcmp(name, "TMPDIR")) {
			const char *v = *e + n + 1;
			size_t rl = strlen(root);
			drop = !(!strncmp(v, "/tmp", 4) &&
			         (v[4] == '/' || !v[4])) &&
			       !(!strncmp(v, root, rl) &&
			         (v[rl] == '/' || !v[rl]));
		}
		if (!drop)
			sv_add(env, *e);
	}
}

/* The first executable `bwrap` on PATH. */
static bool find_bwrap(char out[PATH_MAX])
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	/* an empty entry is skipped: never a bwrap in the working folder */
	return lu_path_find(path, "bwrap", false, out, PATH_MAX);
}

/* Close every descriptor from `lo` up (in the child, before exec). */
static void close_fds_from(int lo)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lo, ~0U, 0) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	for (long fd = lo; fd < (max > 0 ? max : 65536); fd++)
		close((int)fd);
}

/* Run argv with env; *status as a shell shows it.  *made: the jail was
 * made (bwrap reported the command's exit). */
static int spawn(const char *bwrap, char *const *argv, char *const *env,
                 int seccomp_fd, int *status, bool *made, locus_error *err)
{
	int st[2];
	if (pipe2(st, O_CLOEXEC) < 0)
		return lu_err(err, LOCUS_EIO, "pipe: %s", strerror(errno));
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(st[0]);
		close(st[1]);
		return lu_err(err, LOCUS_EIO, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* killed with us from the first instruction: bwrap's own
		   --die-with-parent comes later, and a parent killed in
		   between would leave the jail running orphaned */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(125);
		/* the status pipe and the filter are bwrap's, at the
		   numbers argv names (3, 4); no other descriptor of ours
		   enters the jail (an open folder would lead out of it) */
		int a = fcntl(st[1], F_DUPFD_CLOEXEC, 10);
		int b = seccomp_fd >= 0 ? fcntl(seccomp_fd, F_DUPFD_CLOEXEC, 10)
		                        : -1;
		if (a < 0 || (seccomp_fd >= 0 && b < 0) || dup2(a, 3) < 0 ||
		    (b >= 0 && dup2(b, 4) < 0))
			_exit(125);
		close_fds_from(5);
		execve(bwrap, argv, env);
		_exit(127);
	}
	close(st[1]);
	char *text = NULL;
	size_t len = 0;
	int rrc = lu_read_all(st[0], (size_t)1 << 20, &text, &len);
	close(st[0]);
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	*made = rrc == 0 && text && strstr(text, "\"exit-code\"");
	free(text);
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

int locus_jail_run(int *status, const char *const *argv,
                   const locus_jail_options *o, locus_error *err)
{
	if (status)
		*status = -1;
	locus_jail_options def = LOCUS_JAIL_OPTIONS_INIT;
	if (!o)
		o = &def;
	if (!status || !argv || !argv[0] || !argv[0][0])
		return lu_err(err, LOCUS_EUSAGE, "locus_jail_run: no command");
	if (o->version != LOCUS_JAIL_OPTIONS_VERSION)
		return lu_err(err, LOCUS_EUSAGE,
		              "jail options of another version");
	char root[PATH_MAX], home_buf[PATH_MAX];
	const char *r = o->root ? o->root : ".";
	if (!realpath(r, root))
		return lu_err(err, LOCUS_ENOTFOUND, "no folder %s: %s", r,
		              strerror(errno));
	struct stat st;
	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
		return lu_err(err, LOCUS_ENOTFOUND, "%s is not a folder", r);
	if (!strcmp(root, "/"))
		return lu_err(err, LOCUS_EUSAGE,
		              "the jail's root cannot be / (it would make the "
		              "whole system writable)");
	const char *h = o->home ? o->home : getenv("HOME");
	const char *home =
	    h && h[0] == '/' && realpath(h, home_buf) ? home_buf : NULL;
	char bwrap[PATH_MAX];
	if (!find_bwrap(bwrap))
		return lu_err(err, LOCUS_EIO,
		              "bubblewrap (bwrap) is not installed: the jail "
		              "cannot be made, and the command was not run");
	profile pr = {0};
	int rc = profile_load(&pr, o->profile, home, err);
	if (rc) {
		profile_free(&pr);
		return rc;
	}
	int sfd = lh_jail_seccomp_fd(err);
	if (sfd < 0) {
		profile_free(&pr);
		return sfd;
	}
	strv a = {0}, env = {0};
	build_argv(&a, root, home, &pr, o->network, 4);
	sv_add(&a, "--");
	for (size_t i = 0; argv[i]; i++)
		sv_add(&a, argv[i]);
	build_env(&env, &pr, root);
	sv_add(&a, ""); /* make sure the vectors exist when empty */
	sv_add(&env, "");
	if (a.oom || env.oom) {
		rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	} else {
		/* drop the placeholders */
		free(a.v[--a.n]);
		a.v[a.n] = NULL;
		free(env.v[--env.n]);
		env.v[env.n] = NULL;
		bool made = false;
		rc = spawn(bwrap, a.v, env.v, sfd, status, &made, err);
		if (!rc && !made) {
			*status = -1;
			rc = lu_err(err, LOCUS_EIO,
			            "bubblewrap could not make the jail (its "
			            "message is above: are user namespaces "
			            "allowed here?); the command was not run");
		}
	}
	close(sfd);
	sv_free(&a);
	sv_free(&env);
	profile_free(&pr);
	return rc;
}
