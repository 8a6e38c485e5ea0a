/*
 * harness/session.c - SessionBackend (any sandbox with exec, upload and
 * download) and the bubblewrap session shipped with locus.
 *
 * SessionBackend does everything with short POSIX sh scripts through
 * exec, every path single-quoted.  Paths are normalised lexically against
 * the root, then resolved inside the sandbox (readlink -f of the deepest
 * existing ancestor) and refused unless the result stays under the root:
 * the sandbox is the isolation boundary, this check keeps the tools to the
 * workspace inside it.  The agent's commands are jobs (run.sh): setsid
 * groups, each in a pid namespace of its own where the sandbox can make
 * one, output in a private state folder, stdin on a FIFO held open by a
 * sleeping writer until write_stdin(close=true).  Listings use
 * GNU find -printf (NUL-separated), search rg when present else grep -P.
 *
 * The bwrap session runs one sandbox for its whole life: bwrap starts a
 * small sh server reading "run ID" / "kill ID" lines on its stdin; scripts
 * and results pass through a host folder bound at /run/locus.  The host
 * opens files there only with O_NOFOLLOW relative to a folder fd it holds,
 * so the sandbox cannot point it elsewhere.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "../util/array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


/* ================= the bwrap session ================= */

typedef struct bwrap_session {
	locus_session base;
	pid_t pid; /* bwrap */
	int ctl;   /* its stdin */
	int xfd;   /* host transfer folder */
	char *xdir;
	unsigned seq;
	char nonce[33]; /* in every rc file this session's server writes */
} bwrap_session;

/*
 * The server inside the sandbox.  `run ID NONCE`: the script /run/locus/ID.sh
 * runs as its own setsid group, marked LOCUS_JOB=ID in its environment;
 * stdout and stderr go through a pipe that keeps the first CAP bytes in
 * ID.out (dd writes as it reads; head would buffer) and counts the rest;
 * when the leader ends, whatever is left of its group, and every process
 * still marked with its id (double forks, setsid escapes), is killed; then
 * ID.rc gets "NONCE STATUS".  `kill ID`: the same kill, at once.  CAP is
 * substituted by the host (printf %zu).  These are the SessionBackend's own
 * scripts: it runs the agent's commands as jobs (run.sh below), each in a
 * pid namespace of its own.  A server command is not in one, so that a job
 * it starts outlives it.
 */
static const char SERVER_FMT[] =
    "cd /workspace || exit 1\n"
    "CAP=%zu\n"
    "reap() { p=$(cat \"/run/locus/$1.pid\" 2>/dev/null); "
    "[ -n \"$p\" ] && kill -9 -\"$p\" 2>/dev/null; "
    "for d in /proc/[0-9]*; do "
    "grep -qxz \"LOCUS_JOB=$1\" \"$d/environ\" 2>/dev/null && "
    "kill -9 \"${d#/proc/}\" 2>/dev/null; done; }\n"
    "cap() { dd bs=65536 count=\"$CAP\" iflag=count_bytes status=none; "
    "c=$(wc -c); [ \"$c\" -gt 0 ] && printf "
    "'\\n[... %%s more bytes dropped: the output cap is %%s bytes ...]\\n' "
    "\"$c\" \"$CAP\"; }\n"
    "while IFS= read -r line; do\n"
    "  set -f; set -- $line; set +f\n"
    "  case \"$1\" in\n"
    "  run) id=$2; n=$3; J=/run/locus/$id\n"
    "    ( { LOCUS_JOB=$id setsid -w sh -c 'echo $$ > \"$0.pid\"; "
    "exec sh \"$0.sh\"' \"$J\" </dev/null 2>&1; echo $? >\"$J.st\"; "
    "reap \"$id\"; } | cap >\"$J.out\"; s=$(cat \"$J.st\" 2>/dev/null); "
    "echo \"$n ${s:--1}\" >\"$J.rc.tmp\"; mv \"$J.rc.tmp\" \"$J.rc\" ) &\n"
    "    ;;\n"
    "  kill) reap \"$2\" ;;\n"
    "  esac\n"
    "done\n";

static int x_write(bwrap_session *s, const char *name, const char *data,
                   size_t len)
{
	unlinkat(s->xfd, name, 0);
	int fd =
	    openat(s->xfd, name,
	           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	return close(fd);
}

/* Read a regular file of the transfer folder; -1 when absent. */
static int x_read(bwrap_session *s, const char *name, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	int fd = openat(s->xfd, name,
	                O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	lh_buf b = {0};
	char tmp[65536];
	ssize_t r;
	while ((r = read(fd, tmp, sizeof tmp)) > 0)
		lh_buf_add(&b, tmp, (size_t)r);
	close(fd);
	*len = b.len;
	*out = lh_buf_take(&b);
	return *out ? 0 : -1;
}

static bool alive(bwrap_session *s)
{
	int st;
	return s->pid > 0 && waitpid(s->pid, &st, WNOHANG) == 0;
}

static int ctl_send(bwrap_session *s, const char *verb, unsigned id)
{
	char line[96];
	int n = snprintf(line, sizeof line, "%s %u %s\n", verb, id, s->nonce);
	return write(s->ctl, line, (size_t)n) == n ? 0 : -1;
}

/* An rc file is an answer only when it carries this session's nonce: a
 * file the session did not write (planted, stale) is no answer. */
static bool rc_parse(const bwrap_session *s, const char *rc, size_t len,
                     int *code)
{
	if (len < 34 || memcmp(rc, s->nonce, 32) || rc[32] != ' ')
		return false;
	char *end;
	long v = strtol(rc + 33, &end, 10);
	if (end == rc + 33 || (*end && *end != '\n') || v < -1 || v > 255)
		return false;
	*code = (int)v;
	return true;
}

static void x_clean(bwrap_session *s, unsigned id)
{
	static const char *const ext[] = {"sh",     "out", "rc", "pid",
	                                  "rc.tmp", "st",  NULL};
	char name[64];
	for (size_t i = 0; ext[i]; i++) {
		snprintf(name, sizeof name, "%u.%s", id, ext[i]);
		unlinkat(s->xfd, name, 0);
	}
}

static int bw_exec(locus_session *ss, const char *command, double timeout_s,
                   int *exit_code, char **out, size_t *len, locus_error *err)
{
	bwrap_session *s = (bwrap_session *)ss;
	*exit_code = -1;
	*out = NULL;
	*len = 0;
	if (!alive(s))
		return lh_err(err, LOCUS_EIO, "the bwrap sandbox has ended");
	unsigned id = ++s->seq;
	char name[64];
	x_clean(s, id); /* nothing of an earlier life answers for this id */
	snprintf(name, sizeof name, "%u.sh", id);
	if (x_write(s, name, command, strlen(command)) ||
	    ctl_send(s, "run", id))
		return lh_err(err, LOCUS_EIO, "cannot reach the sandbox: %s",
		              strerror(errno));
	double start = lh_now();
	useconds_t nap = 500;
	snprintf(name, sizeof name, "%u.rc", id);
	char *rc = NULL;
	size_t rl;
	bool killed = false, answered = false;
	int code = -1;
	for (;;) {
		if (x_read(s, name, &rc, &rl) == 0) {
			answered = rc_parse(s, rc, rl, &code);
			free(rc);
			rc = NULL;
			if (answered)
				break;
		}
		if (!alive(s)) {
			x_clean(s, id);
			return lh_err(err, LOCUS_EIO,
			              "the bwrap sandbox has ended");
		}
		if (!killed && lh_now() - start >= timeout_s) {
			ctl_send(s, "kill", id);
			killed = true;
			start = lh_now();
			timeout_s = 5; /* grace for the rc to appear */
		} else if (killed && lh_now() - start >= timeout_s) {
			break;
		}
		usleep(nap);
		if (nap < 20000)
			nap *= 2;
	}
	if (answered && !killed)
		*exit_code = code;
	snprintf(name, sizeof name, "%u.out", id);
	x_read(s, name, out, len);
	x_clean(s, id);
	return 0;
}

static int bw_upload(locus_session *ss, const char *path, const char *data,
                     size_t len, locus_error *err)
{
	bwrap_session *s = (bwrap_session *)ss;
	unsigned id = ++s->seq;
	char name[64];
	snprintf(name, sizeof name, "u%u", id);
	if (x_write(s, name, data, len))
		return lh_err(err, LOCUS_EIO, "upload: %s", strerror(errno));
	lh_buf cmd = {0};
	lh_buf_printf(&cmd, "cat /run/locus/%s > ", name);
	lh_buf_shquote(&cmd, path);
	int code;
	char *o;
	size_t ol;
	int rc = bw_exec(ss, cmd.d ? cmd.d : "false", 60, &code, &o, &ol, err);
	lh_buf_free(&cmd);
	unlinkat(s->xfd, name, 0);
	if (!rc && code != 0)
		rc = lh_err(err, LOCUS_EIO, "upload to %s failed: %.200s", path,
		            o ? o : "");
	free(o);
	return rc;
}

static int bw_download(locus_session *ss, const char *path, char **out,
                       size_t *len, locus_error *err)
{
	bwrap_session *s = (bwrap_session *)ss;
	*out = NULL;
	*len = 0;
	unsigned id = ++s->seq;
	char name[64];
	snprintf(name, sizeof name, "d%u", id);
	lh_buf cmd = {0};
	lh_buf_puts(&cmd, "cat -- ");
	lh_buf_shquote(&cmd, path);
	lh_buf_printf(&cmd, " > /run/locus/%s", name);
	int code;
	char *o;
	size_t ol;
	int rc = bw_exec(ss, cmd.d ? cmd.d : "false", 60, &code, &o, &ol, err);
	lh_buf_free(&cmd);
	free(o);
	if (!rc && code != 0)
		rc = lh_err(err, LOCUS_ENOTFOUND, "%s cannot be read", path);
	if (!rc && x_read(s, name, out, len))
		rc = lh_err(err, LOCUS_EIO, "download of %s failed", path);
	unlinkat(s->xfd, name, 0);
	return rc;
}

static void bw_free(locus_session *ss)
{
	bwrap_session *s = (bwrap_session *)ss;
	if (s->ctl >= 0)
		close(s->ctl);
	if (s->pid > 0) {
		kill(-s->pid, SIGKILL);
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (s->xfd >= 0)
		close(s->xfd);
	if (s->xdir) {
		lh_rmtree(s->xdir); /* the sandbox may have made folders */
		free(s->xdir);
	}
	free(s);
}

/*
 * Which host user the sandbox runs as (never uid 0), and whether it can
 * write the workspace.  Not root: our own uid, nothing to choose.
 */
static int pick_user(const char *real, const locus_bwrap_options *o,
                     uid_t *uid, gid_t *gid, bool *drop, locus_error *err)
{
	*drop = geteuid() == 0;
	if (!*drop) {
		if (o->uid >= 0 || o->gid >= 0)
			return lh_err(err, LOCUS_EUSAGE,
			              "only root can choose the sandbox's uid");
		*uid = getuid();
		*gid = getgid();
		return 0;
	}
	struct stat st;
	if (stat(real, &st) < 0)
		return lh_err(err, LOCUS_ENOTFOUND, "no folder %s", real);
	bool own = o->uid < 0 && st.st_uid != 0;
	*uid = o->uid >= 0 ? (uid_t)o->uid : own ? st.st_uid : 65534;
	*gid = o->gid >= 0              ? (gid_t)o->gid
	       : own && st.st_gid != 0 ? st.st_gid
	                               : 65534;
	if (*uid == 0 || *gid == 0)
		return lh_err(err, LOCUS_EDENIED,
		              "the bwrap sandbox never runs as host uid or "
		              "gid 0: choose an unprivileged one");
	mode_t need = st.st_uid == *uid   ? S_IWUSR | S_IXUSR
	              : st.st_gid == *gid ? S_IWGRP | S_IXGRP
	                                  : S_IWOTH | S_IXOTH;
	if ((st.st_mode & need) != need)
		return lh_err(err, LOCUS_EDENIED,
		              "the bwrap sandbox runs as host uid %u, not as "
		              "root, and uid %u cannot write %s (owned by uid "
		              "%u): give the workspace to that user (chown -R "
		              "%u:%u %s) or choose its owner as the sandbox uid",
		              (unsigned)*uid, (unsigned)*uid, real,
		              (unsigned)st.st_uid, (unsigned)*uid,
		              (unsigned)*gid, real);
	return 0;
}

/*
 * The child: become the sandbox user (when root), then exec bwrap.
 * bwrap resolves its bind sources as that user, and the workspace may lie
 * under folders only root can enter (/root/...): so root first binds it,
 * in a mount namespace of the child's own, on `mnt` (a folder the user can
 * reach), and bwrap binds `mnt`.
 */
static void bw_child(int ctl, const char *ws, const char *mnt,
                     bool drop, uid_t uid, gid_t gid, char *const *argv)
{
	setsid();
	int nul = open("/dev/null", O_RDWR);
	if (dup2(ctl, 0) < 0 || nul < 0 || dup2(nul, 1) < 0)
		_exit(126);
	if (drop && (unshare(CLONE_NEWNS) < 0 ||
	             mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	             mount(ws, mnt, NULL, MS_BIND | MS_REC, NULL) < 0))
		_exit(126);
	if (drop && (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	             setresuid(uid, uid, uid) < 0))
		_exit(126);
	if (drop && (getuid() == 0 || geteuid() == 0 || getegid() == 0))
		_exit(126); /* never hand uid 0 to the sandbox */
	execvp("bwrap", argv);
	_exit(127);
}

static int bw_start(bwrap_session *s, const char *real,
                    const locus_bwrap_options *o, locus_error *err)
{
	uid_t uid = (uid_t)-1; /* set by pick_user when drop */
	gid_t gid = (gid_t)-1;
	bool drop = false;
	int rc = pick_user(real, o, &uid, &gid, &drop, err);
	if (rc)
		return rc;
	if (drop && fchown(s->xfd, uid, gid) < 0)
		return lh_err(err, LOCUS_EIO, "cannot hand the transfer folder "
		                              "to the sandbox user: %s",
		              strerror(errno));
	lh_buf server = {0}, mnt = {0}, xd = {0};
	lh_buf_printf(&server, SERVER_FMT, o->output_max ? o->output_max
	                                                 : (size_t)64 << 20);
	lh_buf_printf(&mnt, "%s/w", s->xdir);
	lh_buf_printf(&xd, "%s/x", s->xdir);
	char tmp_s[32];
	snprintf(tmp_s, sizeof tmp_s, "%zu",
	         o->tmp_max ? o->tmp_max : (size_t)256 << 20);
	if (mnt.oom || xd.oom || (drop && mkdir(mnt.d, 0700) < 0)) {
		lh_buf_free(&server);
		lh_buf_free(&mnt);
		lh_buf_free(&xd);
		return lh_err(err, LOCUS_EIO, "cannot make a mount point: %s",
		              strerror(errno));
	}
	int p[2];
	if (server.oom || pipe2(p, O_CLOEXEC) < 0) {
		lh_buf_free(&server);
		lh_buf_free(&mnt);
		lh_buf_free(&xd);
		return lh_err(err, LOCUS_EIO, "pipe: %s", strerror(errno));
	}
	const char *argv[] = {
	    "bwrap", "--unshare-all", "--die-with-parent", "--new-session",
	    "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr", "--ro-bind-try",
	    "/bin", "/bin", "--ro-bind-try", "/sbin", "/sbin", "--ro-bind-try",
	    "/lib", "/lib", "--ro-bind-try", "/lib64", "/lib64",
	    "--ro-bind-try", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
	    "--size", tmp_s, "--tmpfs", "/tmp",
	    /* bwrap binds nosuid (and nodev when unprivileged): the test
	     * checks /proc/self/mountinfo says both */
	    "--bind", drop ? mnt.d : real, "/workspace", "--bind", xd.d,
	    "/run/locus", "--chdir", "/workspace", "--clearenv", "--setenv",
	    "PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "--setenv",
	    "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8", "/bin/sh", "-c",
	    server.d, NULL};
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		lh_buf_free(&server);
		lh_buf_free(&mnt);
		lh_buf_free(&xd);
		return lh_err(err, LOCUS_EIO, "fork: %s", strerror(errno));
	}
	if (pid == 0)
		bw_child(p[0], real, mnt.d, drop, uid, gid,
		         (char *const *)(uintptr_t)argv);
	close(p[0]);
	lh_buf_free(&server);
	lh_buf_free(&mnt);
	lh_buf_free(&xd);
	s->pid = pid;
	s->ctl = p[1];
	return 0;
}

int locus_session_bwrap_new_ext(locus_session **out, const char *dir,
                                const locus_bwrap_options *opts,
                                locus_error *err)
{
	*out = NULL;
	locus_bwrap_options def = LOCUS_BWRAP_OPTIONS_INIT;
	const locus_bwrap_options *o = opts ? opts : &def;
	if (o->version != LOCUS_BWRAP_OPTIONS_VERSION)
		return lh_err(err, LOCUS_EUSAGE,
		              "bwrap options of another version");
	char *real = dir ? realpath(dir, NULL) : NULL;
	if (!real)
		return lh_err(err, LOCUS_ENOTFOUND, "no folder %s",
		              dir ? dir : "(null)");
	bwrap_session *s = calloc(1, sizeof *s);
	if (!s) {
		free(real);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	s->ctl = s->xfd = -1;
	s->base.version = LOCUS_SESSION_VERSION;
	s->base.exec = bw_exec;
	s->base.upload = bw_upload;
	s->base.download = bw_download;
	s->base.free = bw_free;
	const char *tmp = getenv("TMPDIR");
	char templ[4096];
	snprintf(templ, sizeof templ, "%s/locus-bwrap-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	/* templ/x is the transfer folder (the sandbox user's), templ/w the
	 * mount point of the workspace when root; templ is entered only */
	lh_buf xd = {0};
	bool made = !lh_nonce(s->nonce) && mkdtemp(templ);
	lh_buf_printf(&xd, "%s/x", templ);
	if (!made || xd.oom || !(s->xdir = strdup(templ)) ||
	    chmod(templ, 0711) < 0 || mkdir(xd.d, 0700) < 0 ||
	    (s->xfd = open(xd.d, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		int e = errno;
		lh_buf_free(&xd);
		free(real);
		bw_free(&s->base);
		return lh_err(err, LOCUS_EIO,
		              "cannot make a transfer folder: %s", strerror(e));
	}
	lh_buf_free(&xd);
	int rc = bw_start(s, real, o, err);
	free(real);
	if (rc) {
		bw_free(&s->base);
		return rc;
	}
	/* prove the sandbox runs before handing it out */
	int code;
	char *out_ = NULL;
	size_t ol;
	rc = bw_exec(&s->base, "echo ready", 20, &code, &out_, &ol, err);
	bool ok = !rc && code == 0 && out_ && !strcmp(out_, "ready\n");
	free(out_);
	if (!ok) {
		bw_free(&s->base);
		return rc ? rc
		          : lh_err(
		                err, LOCUS_EIO,
		                "bwrap did not start (is bubblewrap installed "
		                "and allowed to make namespaces?)");
	}
	*out = &s->base;
	return 0;
}

int locus_session_bwrap_new(locus_session **out, const char *dir,
                            locus_error *err)
{
	return locus_session_bwrap_new_ext(out, dir, NULL, err);
}

/* ================= SessionBackend ================= */

typedef struct sjob {
	char handle[16];
	unsigned n;
	bool finished;
	bool collected; /* its files are gone: finished and read to the end */
	int exit_code;
} sjob;

typedef struct session_backend {
	locus_backend base;
	locus_session *s;
	char *root;
	char *label;
	char *state; /* private job folder in the sandbox (mktemp -d), or NULL */
	char nonce[33];
	sjob *jobs;
	size_t njobs, cap;
	unsigned seq, next_handle;
} session_backend;

#define SESSION_OUTPUT_MAX ((size_t)64 << 20)

static session_backend *S(locus_backend *b)
{
	return (session_backend *)b;
}

/* Run a script; exit code and output. */
static int srun(session_backend *sb, const char *script, double timeout,
                int *code, char **out, size_t *len, locus_error *err)
{
	char *o = NULL;
	size_t ol = 0;
	int c = -1;
	int rc = sb->s->exec(sb->s, script, timeout, &c, &o, &ol, err);
	if (rc) {
		free(o);
		return rc;
	}
	*code = c;
	if (out) {
		*out = o;
		*len = ol;
	} else {
		free(o);
	}
	return 0;
}

/* Absolute sandbox path of a user path (lexically inside the root). */
static int sabs(session_backend *sb, const char *path, lh_buf *abs,
                locus_error *err)
{
	char *rel;
	int rc = lh_path_rel(sb->root, path, &rel, err);
	if (rc)
		return rc;
	lh_buf_puts(abs, sb->root);
	if (*rel) {
		lh_buf_puts(abs, "/");
		lh_buf_puts(abs, rel);
	}
	free(rel);
	return abs->oom ? lh_err(err, LOCUS_ENOMEM, "out of memory") : 0;
}

/*
 * The prelude every path script starts with: P is the path; the deepest
 * existing ancestor is resolved and must stay under the root (exit 91).
 */
static void prelude(lh_buf *sc, session_backend *sb, const char *abs)
{
	lh_buf_puts(sc, "P=");
	lh_buf_shquote(sc, abs);
	lh_buf_puts(sc, "; R=");
	lh_buf_shquote(sc, sb->root);
	lh_buf_puts(sc,
	            "\nd=\"$P\"; while [ ! -e \"$d\" ] && [ ! -L \"$d\" ]; do "
	            "d=$(dirname -- \"$d\"); done\n"
	            "r=$(readlink -f -- \"$d\") || exit 91\n"
	            "case \"$r\" in \"$R\"|\"$R\"/*) ;; *) exit 91;; esac\n"
	            /* magic links (/proc/self/cwd...) resolve per process:
	             * a link into /proc is refused outright */
	            "x=\"$R\"; set -f; o=$IFS; IFS=/\n"
	            "for c in ${P#\"$R\"}; do [ -z \"$c\" ] && continue; "
	            "x=\"$x/$c\"; if [ -L \"$x\" ]; then "
	            "case $(readlink -- \"$x\") in /proc|/proc/*) exit 91;; "
	            "esac; fi; done; IFS=$o; set +f\n"
	            "if [ -L \"$P\" ] && [ ! -e \"$P\" ]; then exit 92; fi\n");
}

static int path_script(session_backend *sb, const char *path, const char *body,
                       int *code, char **out, size_t *len, locus_error *err)
{
	lh_buf abs = {0}, sc = {0};
	int rc = sabs(sb, path, &abs, err);
	if (rc)
		return rc;
	prelude(&sc, sb, abs.d);
	lh_buf_puts(&sc, body);
	lh_buf_free(&abs);
	if (sc.oom) {
		lh_buf_free(&sc);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	rc = srun(sb, sc.d, 120, code, out, len, err);
	lh_buf_free(&sc);
	if (!rc && (*code == 91 || *code == 92)) {
		if (out) {
			free(*out);
			*out = NULL;
		}
		return *code == 91
		           ? lh_err(err, LOCUS_EDENIED,
		                    "%s resolves outside the workspace %s: "
		                    "refused",
		                    path, sb->root)
		           : lh_err(err, LOCUS_EINVALID,
		                    "%s is a dangling link: refused", path);
	}
	return rc;
}

static int s_stat(locus_backend *b, const char *path, locus_stat *st,
                  locus_error *err)
{
	memset(st, 0, sizeof *st);
	int code;
	char *o;
	size_t ol;
	int rc =
	    path_script(S(b), path,
	                "if [ -d \"$P\" ]; then echo d; elif [ -e \"$P\" ]; "
	                "then find \"$P\" -maxdepth 0 -printf 'f %s "
	                "%T@\\n'; else echo n; fi\n",
	                &code, &o, &ol, err);
	if (rc)
		return rc;
	if (o && o[0] == 'd') {
		st->exists = st->is_dir = true;
	} else if (o && o[0] == 'f') {
		unsigned long long sz = 0;
		double t = 0;
		sscanf(o + 2, "%llu %lf", &sz, &t);
		st->exists = true;
		st->size = sz;
		st->mtime_ns = (int64_t)(t * 1e9);
	}
	free(o);
	return 0;
}

static int s_read(locus_backend *b, const char *path, char **out, size_t *len,
                  locus_error *err)
{
	*out = NULL;
	*len = 0;
	int code;
	int rc = path_script(S(b), path,
	                     "if [ -d \"$P\" ]; then exit 3; fi; "
	                     "[ -f \"$P\" ] || exit 4\n",
	                     &code, NULL, NULL, err);
	if (rc)
		return rc;
	if (code == 3)
		return lh_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
		              path);
	if (code == 4)
		return lh_err(err, LOCUS_ENOTFOUND, "%s does not exist", path);
	lh_buf abs = {0};
	rc = sabs(S(b), path, &abs, err);
	if (!rc)
		rc = S(b)->s->download(S(b)->s, abs.d, out, len, err);
	lh_buf_free(&abs);
	return rc;
}

static int s_write_at(locus_backend *b, const char *path, const char *data,
                      size_t len, bool cas, const char *expect,
                      locus_error *err);

static int s_write(locus_backend *b, const char *path, const char *data,
                   size_t len, locus_error *err)
{
	return s_write_at(b, path, data, len, false, NULL, err);
}

static int s_write_cas(locus_backend *b, const char *path, const char *data,
                       size_t len, const char *expect, locus_error *err)
{
	return s_write_at(b, path, data, len, true, expect, err);
}

static int s_write_at(locus_backend *b, const char *path, const char *data,
                      size_t len, bool cas, const char *expect,
                      locus_error *err)
{
	session_backend *sb = S(b);
	int code;
	int rc = path_script(sb, path,
	                     "[ -d \"$P\" ] && exit 3\n"
	                     "mkdir -p -- \"$(dirname -- \"$P\")\" || exit 4\n",
	                     &code, NULL, NULL, err);
	if (rc)
		return rc;
	if (code == 3)
		return lh_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
		              path);
	if (code != 0)
		return lh_err(err, LOCUS_EIO, "cannot make the folder of %s",
		              path);
	/* the temporary file lies beside the target (rename stays on one
	 * file system), under a name no repository ships */
	lh_buf tmp = {0}, body = {0}, ab = {0};
	rc = sabs(sb, path, &ab, err);
	if (rc)
		return rc;
	char *slash = strrchr(ab.d, '/');
	lh_buf_add(&tmp, ab.d, (size_t)(slash - ab.d));
	lh_buf_printf(&tmp, "/.locus-w-%s-%u", sb->nonce, ++sb->seq);
	lh_buf_free(&ab);
	rc = tmp.oom ? lh_err(err, LOCUS_ENOMEM, "out of memory")
	             : sb->s->upload(sb->s, tmp.d, data, len, err);
	if (!rc) {
		/* keep the mode of a replaced file; rename is atomic */
		lh_buf_puts(&body, "T=");
		lh_buf_shquote(&body, tmp.d);
		/* the mode of a replaced file, without setuid/setgid: the
		 * sandbox user writes it, so its owner may not be kept */
		lh_buf_puts(&body,
		            "\n[ -L \"$P\" ] && P=$(readlink -f -- \"$P\")\n"
		            "[ -f \"$P\" ] && chmod --reference=\"$P\" "
		            "\"$T\" 2>/dev/null && chmod ug-s \"$T\"\n");
		if (cas) {
			/* compare right before the rename, under flock(1)
			 * of the folder when the sandbox has it */
			lh_buf_puts(&body, "E=");
			lh_buf_shquote(&body, expect ? expect : "");
			lh_buf_puts(&body,
			            "\ncas() { if [ -z \"$E\" ]; then [ ! -e "
			            "\"$P\" ]; else [ \"$(sha256sum < \"$P\" "
			            "2>/dev/null | cut -c1-64)\" = \"$E\" ]; "
			            "fi; }\n"
			            "if command -v flock >/dev/null 2>&1; then "
			            "exec 9<\"$(dirname -- \"$P\")\"; flock 9; fi\n"
			            "cas || { rm -f -- \"$T\"; exit 6; }\n");
		}
		lh_buf_puts(&body, "mv -f -- \"$T\" \"$P\" || { rm -f -- "
		                   "\"$T\"; exit 5; }\n");
		rc = path_script(sb, path, body.d, &code, NULL, NULL, err);
		if (!rc && code == 6)
			rc = lh_err(err, LOCUS_ECONFLICT,
			            "%s changed on disk since it was read", path);
		else if (!rc && code != 0)
			rc = lh_err(err, LOCUS_EIO, "cannot write %s", path);
	}
	lh_buf_free(&tmp);
	lh_buf_free(&body);
	return rc;
}

/* ---- write_many: upload every file, then one script swaps them in ---- */

/* Stage a write: make the target's folder, upload the bytes beside it;
 * *tmp gets the temporary file's sandbox path. */
static int s_stage(session_backend *sb, const char *path, const char *data,
                   size_t len, lh_buf *tmp, locus_error *err)
{
	int code;
	int rc = path_script(sb, path,
	                     "[ -d \"$P\" ] && exit 3\n"
	                     "mkdir -p -- \"$(dirname -- \"$P\")\" || exit 4\n",
	                     &code, NULL, NULL, err);
	if (!rc && code == 3)
		rc = lh_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
		            path);
	else if (!rc && code != 0)
		rc = lh_err(err, LOCUS_EIO, "cannot make the folder of %s", path);
	lh_buf ab = {0};
	if (!rc)
		rc = sabs(sb, path, &ab, err);
	if (rc) {
		lh_buf_free(&ab);
		return rc;
	}
	char *slash = strrchr(ab.d, '/');
	lh_buf_add(tmp, ab.d, (size_t)(slash - ab.d));
	lh_buf_printf(tmp, "/.locus-w-%s-%u", sb->nonce, ++sb->seq);
	lh_buf_free(&ab);
	return tmp->oom ? lh_err(err, LOCUS_ENOMEM, "out of memory")
	                : sb->s->upload(sb->s, tmp->d, data, len, err);
}

/* The helpers of the batch script: cas PATH SHA (empty: absent), lk/ul
 * the folder's flock(1) when the sandbox has it, fail K CODE (undo the
 * changes before K, remove the temporaries with clean, report K). */
static const char BATCH_HEAD[] =
    "cas() { if [ -z \"$2\" ]; then [ ! -e \"$1\" ] && [ ! -L \"$1\" ]; "
    "else [ \"$(sha256sum < \"$1\" 2>/dev/null | cut -c1-64)\" = \"$2\" ]; "
    "fi; }\n"
    "FL=; command -v flock >/dev/null 2>&1 && FL=1\n"
    "lk() { [ -n \"$FL\" ] || return 0; exec 9<\"$(dirname -- \"$1\")\"; "
    "flock 9; }\n"
    "ul() { [ -n \"$FL\" ] && exec 9<&-; return 0; }\n"
    "fail() { k=$1; while [ \"$k\" -gt 0 ]; do k=$((k-1)); u$k; done; "
    "clean; echo \"failed $1\"; exit \"$2\"; }\n";

/* The script lines of change i: the path resolved and confined (the
 * prelude, in a subshell), the check, the change with the old file kept
 * aside as B<i>, and u<i>, its undo. */
static int batch_op(session_backend *sb, lh_buf *sc, size_t i,
                    const locus_write_op *op, const char *tmp,
                    locus_error *err)
{
	lh_buf abs = {0};
	int rc = sabs(sb, op->path, &abs, err);
	if (rc)
		return rc;
	lh_buf_puts(sc, "( ");
	prelude(sc, sb, abs.d);
	lh_buf_printf(sc, ") || fail %zu $?\nP%zu=", i, i);
	lh_buf_shquote(sc, abs.d);
	lh_buf_printf(sc, "\n[ -L \"$P%zu\" ] && P%zu=$(readlink -f -- "
	                  "\"$P%zu\")\nB%zu=\"$(dirname -- \"$P%zu\")/"
	                  ".locus-b-%s-%u\"\nlk \"$P%zu\"\n",
	              i, i, i, i, i, sb->nonce, ++sb->seq, i);
	lh_buf_printf(sc, "[ -d \"$P%zu\" ] && { ul; fail %zu 3; }\n", i, i);
	lh_buf_printf(sc, "cas \"$P%zu\" ", i);
	lh_buf_shquote(sc, op->expect_sha256 ? op->expect_sha256 : "");
	lh_buf_printf(sc, " || { ul; fail %zu 6; }\n", i);
	if (op->remove) {
		lh_buf_printf(sc,
		              "mv -f -- \"$P%zu\" \"$B%zu\" || { ul; fail %zu 5; }\n"
		              "u%zu() { lk \"$P%zu\"; mv -f -- \"$B%zu\" "
		              "\"$P%zu\"; ul; }\n",
		              i, i, i, i, i, i, i);
	} else {
		lh_buf_printf(sc, "T%zu=", i);
		lh_buf_shquote(sc, tmp);
		if (op->expect_sha256)
			/* the replaced file's mode, never setuid/setgid (its
			 * owner cannot be kept); the old file kept aside as a
			 * hard link, or moved aside where it cannot be linked
			 * (protected_hardlinks, another user's file): either
			 * way the very file comes back on undo */
			lh_buf_printf(
			    sc,
			    "\nchmod --reference=\"$P%zu\" \"$T%zu\" 2>/dev/null "
			    "&& chmod ug-s \"$T%zu\"\n"
			    "{ ln -- \"$P%zu\" \"$B%zu\" 2>/dev/null || mv -f -- "
			    "\"$P%zu\" \"$B%zu\"; } || { ul; fail %zu 5; }\n"
			    "mv -f -- \"$T%zu\" \"$P%zu\" || { rm -f -- \"$B%zu\"; "
			    "ul; fail %zu 5; }\n"
			    "u%zu() { lk \"$P%zu\"; mv -f -- \"$B%zu\" \"$P%zu\"; "
			    "ul; }\n",
			    i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i);
		else
			lh_buf_printf(
			    sc,
			    "\n{ ln -- \"$T%zu\" \"$P%zu\" 2>/dev/null && rm -f -- "
			    "\"$T%zu\"; } || mv -f -- \"$T%zu\" \"$P%zu\" || { ul; "
			    "fail %zu 5; }\n"
			    "u%zu() { lk \"$P%zu\"; rm -f -- \"$P%zu\"; ul; }\n",
			    i, i, i, i, i, i, i, i, i);
	}
	lh_buf_puts(sc, "ul\n");
	lh_buf_free(&abs);
	return 0;
}

static int s_write_many(locus_backend *b, const locus_write_op *ops, size_t n,
                        size_t *failed, locus_error *err)
{
	session_backend *sb = S(b);
	*failed = 0;
	lh_buf *tmp = calloc(n ? n : 1, sizeof *tmp);
	lh_buf sc = {0}, temps = {0};
	int rc = tmp ? 0 : lh_err(err, LOCUS_ENOMEM, "out of memory");
	size_t i = 0;
	/* every file uploaded (and every path checked) before any change */
	for (; !rc && i < n; i++) {
		if (ops[i].remove) {
			int code;
			rc = path_script(sb, ops[i].path,
			                 "[ -e \"$P\" ] || [ -L \"$P\" ] || exit 4\n",
			                 &code, NULL, NULL, err);
			if (!rc && code)
				rc = lh_err(err, LOCUS_ENOTFOUND,
				            "%s does not exist", ops[i].path);
			continue;
		}
		rc = s_stage(sb, ops[i].path, ops[i].data, ops[i].len, &tmp[i],
		             err);
		lh_buf_puts(&temps, " ");
		lh_buf_shquote(&temps, tmp[i].d ? tmp[i].d : "");
	}
	if (rc) {
		*failed = i - 1;
	} else {
		lh_buf_puts(&sc, BATCH_HEAD);
		lh_buf_printf(&sc, "clean() { rm -f --%s; }\n",
		              temps.d ? temps.d : "");
		for (size_t k = 0; !rc && k < n; k++)
			rc = batch_op(sb, &sc, k, &ops[k], tmp[k].d, err);
		lh_buf_puts(&sc, "rm -f --");
		for (size_t k = 0; k < n; k++)
			lh_buf_printf(&sc, " \"$B%zu\"", k);
		lh_buf_puts(&sc, "\necho done\n");
	}
	int code = 0;
	char *o = NULL;
	size_t ol = 0;
	if (!rc)
		rc = sc.oom ? lh_err(err, LOCUS_ENOMEM, "out of memory")
		            : srun(sb, sc.d, 120, &code, &o, &ol, err);
	if (!rc && code) {
		unsigned long k = 0;
		const char *f = o ? strstr(o, "failed ") : NULL;
		if (f)
			k = strtoul(f + 7, NULL, 10);
		*failed = k < n ? (size_t)k : 0;
		const char *p = ops[*failed].path;
		rc = code == 6  ? lh_err(err, LOCUS_ECONFLICT,
		                         "%s changed on disk since it was read", p)
		     : code == 91 ? lh_err(err, LOCUS_EDENIED,
		                           "%s resolves outside the workspace "
		                           "%s: refused", p, sb->root)
		     : code == 3  ? lh_err(err, LOCUS_EINVALID,
		                           "%s is a folder, not a file", p)
		                  : lh_err(err, LOCUS_EIO, "cannot write %s", p);
	}
	if (rc && temps.d) {
		/* a failure before the script: remove what was uploaded */
		lh_buf rm = {0};
		lh_buf_printf(&rm, "rm -f -- %s\n", temps.d);
		int c2;
		locus_error e2;
		if (!rm.oom)
			srun(sb, rm.d, 30, &c2, NULL, NULL, &e2);
		lh_buf_free(&rm);
	}
	free(o);
	for (size_t k = 0; tmp && k < n; k++)
		lh_buf_free(&tmp[k]);
	free(tmp);
	lh_buf_free(&sc);
	lh_buf_free(&temps);
	return rc;
}

static int s_remove(locus_backend *b, const char *path, locus_error *err)
{
	int code;
	int rc = path_script(S(b), path,
	                     "[ -d \"$P\" ] && exit 3; [ -e \"$P\" ] || "
	                     "[ -L \"$P\" ] || exit 4; rm -f -- \"$P\"\n",
	                     &code, NULL, NULL, err);
	if (rc)
		return rc;
	if (code == 4)
		return lh_err(err, LOCUS_ENOTFOUND, "%s does not exist", path);
	if (code)
		return lh_err(err, LOCUS_EIO, "cannot remove %s", path);
	return 0;
}

/* Parse "TYPE SIZE MTIME NAME\0" records from find -printf. */
static int parse_find(const char *o, size_t ol, bool files_only, size_t max,
                      locus_dirent **out, size_t *n)
{
	size_t cap = 0;
	const char *p = o, *end = o + ol;
	while (p < end && *n < max) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		if (!z)
			break;
		char type = *p;
		unsigned long long sz = 0;
		double t = 0;
		int used = 0;
		if (sscanf(p + 1, " %llu %lf %n", &sz, &t, &used) < 2 ||
		    !used) {
			p = z + 1;
			continue;
		}
		const char *name = p + 1 + used;
		if (!(files_only && type != 'f') && *name) {
			if (!lu_reserve(out, &cap, *n + 1))
				return LOCUS_ENOMEM;
			locus_dirent *d = &(*out)[*n];
			d->name = strndup(name, (size_t)(z - name));
			if (!d->name)
				return LOCUS_ENOMEM;
			d->is_dir = type == 'd';
			d->size = sz;
			d->mtime_ns = (int64_t)(t * 1e9);
			(*n)++;
		}
		p = z + 1;
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const locus_dirent *)a)->name,
	              ((const locus_dirent *)b)->name);
}

static int s_listwalk(locus_backend *b, const char *path, bool walk, size_t max,
                      locus_dirent **out, size_t *n, locus_error *err)
{
	*out = NULL;
	*n = 0;
	lh_buf body = {0};
	lh_buf_puts(&body, "[ -e \"$P\" ] || exit 4; [ -d \"$P\" ] || exit 3\n"
	                   "cd -- \"$P\" || exit 4\n");
	if (walk) {
		lh_buf_puts(&body, "find . -mindepth 1 \\( -type d \\( -name "
		                   "'.locus-harness*'");
		for (size_t i = 0; locus_skip_dirs[i]; i++)
			lh_buf_printf(&body, " -o -name '%s'",
			              locus_skip_dirs[i]);
		lh_buf_puts(&body, " \\) -prune \\) -o -type f -printf '%y %s "
		                   "%T@ %P\\0'\n");
	} else {
		lh_buf_puts(&body, "find . -mindepth 1 -maxdepth 1 -printf '%y "
		                   "%s %T@ %P\\0'\n");
	}
	int code;
	char *o = NULL;
	size_t ol = 0;
	int rc = body.oom
	             ? LOCUS_ENOMEM
	             : path_script(S(b), path, body.d, &code, &o, &ol, err);
	lh_buf_free(&body);
	if (rc)
		return rc;
	if (code == 4 || code == 3) {
		free(o);
		return code == 4 ? lh_err(err, LOCUS_ENOTFOUND,
		                          "%s does not exist", path)
		                 : lh_err(err, LOCUS_EINVALID,
		                          "%s is not a folder", path);
	}
	rc = parse_find(o ? o : "", ol, walk, max, out, n);
	free(o);
	if (rc) {
		locus_dirents_free(*out, *n);
		*out = NULL;
		*n = 0;
		return lh_err(err, rc, "out of memory");
	}
	if (*n)
		qsort(*out, *n, sizeof **out, cmp_name);
	return 0;
}

static int s_list(locus_backend *b, const char *path, locus_dirent **out,
                  size_t *n, locus_error *err)
{
	return s_listwalk(b, path, false, SIZE_MAX, out, n, err);
}

static int s_walk(locus_backend *b, const char *path, size_t max,
                  locus_dirent **out, size_t *n, locus_error *err)
{
	return s_listwalk(b, path, true, max, out, n, err);
}

/* ---- commands ---- */

static sjob *s_find(session_backend *sb, const char *handle)
{
	for (size_t i = 0; i < sb->njobs; i++)
		if (!strcmp(sb->jobs[i].handle, handle))
			return &sb->jobs[i];
	return NULL;
}

/*
 * Every command's tree in a pid namespace of its own, so that nothing it
 * starts outlives it: not a setsid child, not a double fork, not a process
 * that cleared its environment (and with it the LOCUS_JOB mark).  NS is the
 * prefix that makes one, probed once (util-linux unshare: a nested user
 * namespace mapping the sandbox user to itself, so no privilege changes;
 * a mount namespace with a /proc of the new pid namespace, so $$ and
 * /proc agree and ps works; --kill-child: when unshare dies, SIGKILL
 * reaches the namespace's init).
 * The init is a shell that runs the job as its child and waits: when the
 * job ends, or the init is killed, the kernel kills every process left in
 * the namespace.  Without unshare (or user namespaces) NS is empty and
 * the LOCUS_JOB mark is the only net.  NS_INIT's "$0" is the job's path
 * stem; the job's stdin is passed on (an async list would get /dev/null).
 */
#define NS_PROBE                                                               \
	"NS=; unshare -U --map-current-user -m -p -f --mount-proc "           \
	"--kill-child true >/dev/null 2>&1 && NS='unshare -U "                \
	"--map-current-user -m -p -f --mount-proc --kill-child'\n"
#define NS_INIT_LINE                                                           \
	"NS_INIT='exec 3<&0; sh \"$0.sh\" <&3 3<&- & wait $!'\n"

/*
 * The job runner, uploaded once a session as STATE/run.sh: run.sh J NONCE
 * MARK CAP.  The job runs as its own setsid group marked LOCUS_JOB=MARK,
 * stdin the FIFO J.in (held open by a sleeping writer), output through a
 * cap; when its leader ends, its group and every process still marked are
 * killed; then J.rc gets "NONCE STATUS".  The runner itself is not marked.
 */
static const char RUNNER[] =
    "J=$1; N=$2; M=$3; CAP=$4\n"
    "echo $$ > \"$J.pid\"\n" NS_PROBE NS_INIT_LINE
    "sleep 2147483647 > \"$J.in\" & echo $! > \"$J.hold\"\n"
    "{ LOCUS_JOB=$M setsid -w sh -c 'echo $$ > \"$0.jpid\"; "
    "exec $1 sh -c \"$2\" \"$0\"' \"$J\" \"$NS\" \"$NS_INIT\" "
    "< \"$J.in\"; "
    "echo $? > \"$J.st\"\n"
    "  p=$(cat \"$J.jpid\" 2>/dev/null)\n"
    "  [ -n \"$p\" ] && kill -9 -\"$p\" 2>/dev/null\n"
    "  for d in /proc/[0-9]*; do grep -qxz \"LOCUS_JOB=$M\" \"$d/environ\" "
    "2>/dev/null && kill -9 \"${d#/proc/}\" 2>/dev/null; done\n"
    "} 2>&1 | { dd bs=65536 count=\"$CAP\" iflag=count_bytes status=none; "
    "c=$(wc -c); [ \"$c\" -gt 0 ] && printf '\\n[... %s more bytes "
    "dropped: the output cap is %s bytes ...]\\n' \"$c\" \"$CAP\"; } "
    "> \"$J.out\"\n"
    "echo \"$N $(cat \"$J.st\" 2>/dev/null || echo -1)\" > \"$J.rc.tmp\"\n"
    "mv \"$J.rc.tmp\" \"$J.rc\"\n"
    "kill $(cat \"$J.hold\") 2>/dev/null\n";

/*
 * The private folder for job files: mktemp -d (mkdir, so never an
 * existing one; 0700) in the sandbox's $TMPDIR or /tmp, or, where only
 * the workspace is writable, ROOT/.locus-harness-XXXXXXXX (skipped by
 * every walk).  Made once a session, removed when the backend is freed.
 */
static int s_state(session_backend *sb, locus_error *err)
{
	if (sb->state)
		return 0;
	lh_buf sc = {0};
	lh_buf_puts(&sc, "umask 077; d=$(mktemp -d \"${TMPDIR:-/tmp}/"
	                 ".locus-harness-XXXXXXXX\" 2>/dev/null) || d=$(mktemp "
	                 "-d ");
	lh_buf_shquote(&sc, sb->root);
	lh_buf_puts(&sc, "/.locus-harness-XXXXXXXX) || exit 1\n"
	                 "chmod 700 \"$d\" && printf '%s' \"$d\"\n");
	int code = -1;
	char *o = NULL;
	size_t ol = 0;
	int rc = sc.oom ? LOCUS_ENOMEM : srun(sb, sc.d, 30, &code, &o, &ol, err);
	lh_buf_free(&sc);
	if (!rc && (code != 0 || !o || o[0] != '/' || memchr(o, '\'', ol) ||
	            memchr(o, '\n', ol)))
		rc = lh_err(err, LOCUS_EIO,
		            "cannot make a private folder for commands");
	if (!rc) {
		sb->state = o;
		lh_buf rp = {0};
		lh_buf_printf(&rp, "%s/run.sh", sb->state);
		rc = rp.oom ? LOCUS_ENOMEM
		            : sb->s->upload(sb->s, rp.d, RUNNER,
		                            sizeof RUNNER - 1, err);
		lh_buf_free(&rp);
	} else {
		free(o);
	}
	return rc;
}

/* "J=<state>/jN\n": the job's files, as a script line. */
static void job_var(lh_buf *sc, session_backend *sb, unsigned id)
{
	lh_buf_printf(sc, "J=%s/j%u\n", sb->state, id);
}

/* Start a background job N: script file, FIFO with a holder, setsid.
 * Its output passes a cap (the first SESSION_OUTPUT_MAX bytes kept, the
 * rest counted); its rc file carries the session's nonce. */
static int s_start(session_backend *sb, const char *command, unsigned *id,
                   locus_error *err)
{
	*id = ++sb->seq;
	int rc = s_state(sb, err);
	if (rc)
		return rc;
	lh_buf sc = {0}, f = {0};
	lh_buf_printf(&f, "%s/j%u.sh", sb->state, *id);
	int code;
	rc = sb->s->upload(sb->s, f.d, command, strlen(command), err);
	if (!rc) {
		lh_buf_puts(&sc, "cd ");
		lh_buf_shquote(&sc, sb->root);
		lh_buf_puts(&sc, " || exit 1\n");
		job_var(&sc, sb, *id);
		lh_buf_printf(
		    &sc,
		    "rm -f \"$J.in\" \"$J.rc\" \"$J.out\" \"$J.pid\" "
		    "\"$J.jpid\" && mkfifo -m 600 \"$J.in\" || exit 1\n"
		    "LOCUS_JOB=w%u-%s setsid sh \"${J%%/*}/run.sh\" \"$J\" %s "
		    "b%u-%s %zu </dev/null >/dev/null 2>&1 &\n"
		    "i=0; while [ ! -s \"$J.pid\" ] && [ $i -lt 500 ]; "
		    "do sleep 0.01; i=$((i+1)); done\n",
		    *id, sb->nonce, sb->nonce, *id, sb->nonce,
		    SESSION_OUTPUT_MAX);
		rc = sc.oom ? LOCUS_ENOMEM
		            : srun(sb, sc.d, 30, &code, NULL, NULL, err);
		if (!rc && code != 0)
			rc = lh_err(err, LOCUS_EIO, "cannot start the command");
	}
	lh_buf_free(&sc);
	lh_buf_free(&f);
	return rc;
}

/* Status and output of job id from byte since.  Only an rc file that
 * carries this session's nonce counts as the job's end. */
static int s_poll(session_backend *sb, unsigned id, size_t since,
                  bool *finished, int *exit_code, char **out, size_t *len,
                  locus_error *err)
{
	lh_buf sc = {0};
	job_var(&sc, sb, id);
	lh_buf_printf(&sc,
	              "if [ -f \"$J.rc\" ] && [ ! -L \"$J.rc\" ]; then "
	              "printf 'rc %%s\\n' \"$(head -c 64 \"$J.rc\")\"; "
	              "else echo run; fi\n"
	              "[ -L \"$J.out\" ] || tail -c +%zu \"$J.out\" "
	              "2>/dev/null\n",
	              since + 1);
	int code;
	char *o = NULL;
	size_t ol = 0;
	int rc =
	    sc.oom ? LOCUS_ENOMEM : srun(sb, sc.d, 30, &code, &o, &ol, err);
	lh_buf_free(&sc);
	if (rc)
		return rc;
	char *nl = o ? memchr(o, '\n', ol) : NULL;
	if (!nl) {
		free(o);
		return lh_err(err, LOCUS_EIO, "lost track of the command");
	}
	*finished = false;
	*exit_code = -1;
	if (!strncmp(o, "rc ", 3) && (size_t)(nl - o) > 3 + 33 &&
	    !memcmp(o + 3, sb->nonce, 32) && o[35] == ' ') {
		char *end;
		long v = strtol(o + 36, &end, 10);
		if (end != o + 36 && end == nl && v >= -1 && v <= 255) {
			*finished = true;
			*exit_code = (int)v;
		}
	}
	size_t skip = (size_t)(nl - o) + 1;
	*len = ol - skip;
	memmove(o, o + skip, *len);
	o[*len] = '\0';
	*out = o;
	return 0;
}

/* Kill the job's group and every process still marked with its id. */
static int s_kill_job(session_backend *sb, unsigned id, locus_error *err)
{
	lh_buf sc = {0};
	job_var(&sc, sb, id);
	lh_buf_printf(
	    &sc,
	    "q=$(cat \"$J.jpid\" 2>/dev/null)\n"
	    "[ -n \"$q\" ] && kill -9 -\"$q\" 2>/dev/null\n"
	    "p=$(cat \"$J.pid\" 2>/dev/null)\n"
	    "[ -n \"$p\" ] && kill -9 -\"$p\" 2>/dev/null\n"
	    "for d in /proc/[0-9]*; do grep -qxz 'LOCUS_JOB=b%u-%s' "
	    "\"$d/environ\" 2>/dev/null && kill -9 \"${d#/proc/}\" "
	    "2>/dev/null; done\n"
	    "[ -n \"$p\" ] || exit 0\n"
	    "i=0; while kill -0 -\"$p\" 2>/dev/null && [ $i -lt 500 ];"
	    " do sleep 0.01; i=$((i+1)); done\n",
	    id, sb->nonce);
	int code;
	int rc =
	    sc.oom ? LOCUS_ENOMEM : srun(sb, sc.d, 30, &code, NULL, NULL, err);
	lh_buf_free(&sc);
	return rc;
}

/* A collected job leaves nothing behind: script, output, FIFO, status. */
static void s_collect(session_backend *sb, sjob *j)
{
	if (!sb->state || (j && j->collected))
		return;
	lh_buf sc = {0};
	job_var(&sc, sb, j->n);
	lh_buf_puts(&sc, "rm -f \"$J.sh\" \"$J.out\" \"$J.in\" \"$J.rc\" "
	                 "\"$J.rc.tmp\" \"$J.st\" \"$J.pid\" \"$J.jpid\" "
	                 "\"$J.hold\" \"$J\".w*\n");
	int code;
	locus_error e;
	if (!sc.oom && srun(sb, sc.d, 30, &code, NULL, NULL, &e) == 0 &&
	    code == 0)
		j->collected = true;
	lh_buf_free(&sc);
}

static sjob *s_add_job(session_backend *sb, unsigned id)
{
	if (!lu_reserve(&sb->jobs, &sb->cap, sb->njobs + 1))
		return NULL;
	sjob *j = &sb->jobs[sb->njobs++];
	memset(j, 0, sizeof *j);
	j->n = id;
	snprintf(j->handle, sizeof j->handle, "sh%u", ++sb->next_handle);
	return j;
}

/* One wait step of a job under ctl: progress about once a second; true
 * when the call was cancelled. */
static bool s_ctl_step(const locus_call_ctl *ctl, double start, double *last,
                       size_t bytes)
{
	if (!ctl)
		return false;
	if (locus_call_cancelled(ctl))
		return true;
	double now = lh_now();
	if (ctl->progress && now - *last >= 1.0) {
		*last = now;
		ctl->progress(now - start, bytes, ctl->payload);
	}
	return false;
}

/* A command run directly by the session (no job): cancellable only
 * through the session's own exec_ctl, and only the session's own kill at
 * its end. */
static int s_exec_direct(session_backend *sb, const char *command,
                         double timeout_s, const locus_call_ctl *ctl,
                         locus_exec_result *res, locus_error *err)
{
	double start = lh_now();
	lh_buf sc = {0};
	lh_buf_puts(&sc, "cd ");
	lh_buf_shquote(&sc, sb->root);
	lh_buf_puts(&sc, " || exit 125\n");
	lh_buf_puts(&sc, command);
	int code = -1;
	int rc;
	if (sc.oom)
		rc = LOCUS_ENOMEM;
	else if (ctl && sb->s->exec_ctl)
		rc = sb->s->exec_ctl(sb->s, sc.d, timeout_s, ctl, &code,
		                     &res->output, &res->output_len,
		                     &res->cancelled, err);
	else
		rc = srun(sb, sc.d, timeout_s, &code, &res->output,
		          &res->output_len, err);
	lh_buf_free(&sc);
	if (rc)
		return rc;
	res->finished = code >= 0 && !res->cancelled;
	res->exit_code = code;
	res->timed_out = code < 0 && !res->cancelled;
	res->duration_s = lh_now() - start;
	return 0;
}

/* Wait for the job of a foreground command: it finishes (collected, no
 * handle), is cancelled or times out without KEEP (killed, collected), or
 * times out with KEEP (lives on under its handle). */
static int s_wait_job(session_backend *sb, sjob *j, double timeout_s,
                      int flags, const locus_call_ctl *ctl,
                      locus_exec_result *res, locus_error *err)
{
	double start = lh_now(), last = start;
	useconds_t nap = 5000;
	for (;;) {
		bool fin;
		int code;
		free(res->output);
		res->output = NULL;
		int rc = s_poll(sb, j->n, 0, &fin, &code, &res->output,
		                &res->output_len, err);
		if (rc)
			return rc;
		if (fin) {
			res->finished = true;
			res->exit_code = code;
			break;
		}
		if (s_ctl_step(ctl, start, &last, res->output_len))
			res->cancelled = true;
		else if (lh_now() - start >= timeout_s)
			res->timed_out = true;
		if (res->timed_out && (flags & LOCUS_EXEC_KEEP)) {
			memcpy(res->handle, j->handle, sizeof j->handle);
			return 0;
		}
		if (res->cancelled || res->timed_out) {
			/* its whole tree goes (the job's pid namespace) */
			rc = s_kill_job(sb, j->n, err);
			if (rc)
				return rc;
			locus_error e2;
			free(res->output);
			res->output = NULL;
			if (s_poll(sb, j->n, 0, &fin, &code, &res->output,
			           &res->output_len, &e2))
				res->output_len = 0;
			break;
		}
		usleep(nap);
		if (nap < 100000)
			nap *= 2;
	}
	/* done, one way or the other: an ordinary foreground result */
	s_collect(sb, j);
	sb->njobs--; /* it was the last added: its handle too */
	sb->next_handle--;
	return 0;
}

/*
 * The agent's commands run as jobs (run.sh: a pid namespace each, so
 * nothing they start outlives them), on the bwrap session always, on other
 * sessions when backgrounded, kept on timeout, or run under a call's
 * control on a session without exec_ctl (a job can be killed).
 * Otherwise, a plain command goes straight through the session's exec
 * (its exec_ctl under a call's control), with fewer round trips.
 */
static int s_exec_ctl(locus_backend *b, const char *command, double timeout_s,
                      int flags, const locus_call_ctl *ctl,
                      locus_exec_result *res, locus_error *err)
{
	session_backend *sb = S(b);
	memset(res, 0, sizeof *res);
	double start = lh_now();
	if (!(flags & (LOCUS_EXEC_BACKGROUND | LOCUS_EXEC_KEEP)) &&
	    (!ctl || sb->s->exec_ctl) && sb->s->free != bw_free)
		return s_exec_direct(sb, command, timeout_s, ctl, res, err);
	unsigned id;
	int rc = s_start(sb, command, &id, err);
	if (rc)
		return rc;
	sjob *j = s_add_job(sb, id);
	if (!j) {
		s_kill_job(sb, id, err);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (flags & LOCUS_EXEC_BACKGROUND)
		memcpy(res->handle, j->handle, sizeof j->handle);
	else
		rc = s_wait_job(sb, j, timeout_s, flags, ctl, res, err);
	res->duration_s = lh_now() - start;
	return rc;
}

static int s_exec(locus_backend *b, const char *command, double timeout_s,
                  int flags, locus_exec_result *res, locus_error *err)
{
	return s_exec_ctl(b, command, timeout_s, flags, NULL, res, err);
}

static int s_bg_output(locus_backend *b, const char *handle, size_t since,
                       char **out, size_t *len, locus_bg_status *st,
                       locus_error *err)
{
	session_backend *sb = S(b);
	*out = NULL;
	*len = 0;
	sjob *j = s_find(sb, handle);
	if (!j)
		return lh_err(err, LOCUS_ENOTFOUND, "no background command %s",
		              handle);
	bool fin = false;
	int code = -1;
	int rc = j->collected
	             ? 0
	             : s_poll(sb, j->n, since, &fin, &code, out, len, err);
	if (rc)
		return rc;
	if (fin && !j->finished) {
		j->finished = true;
		j->exit_code = code;
	}
	if (j->finished)
		s_collect(sb, j); /* read to the end: nothing stays behind */
	st->running = !j->finished;
	st->exit_code = j->exit_code;
	st->next = since + *len;
	return 0;
}

static int s_bg_write(locus_backend *b, const char *handle, const char *data,
                      size_t len, bool close_stdin, locus_error *err)
{
	session_backend *sb = S(b);
	sjob *j = s_find(sb, handle);
	if (!j)
		return lh_err(err, LOCUS_ENOTFOUND, "no background command %s",
		              handle);
	if (j->finished)
		return lh_err(err, LOCUS_EINVALID, "%s has exited", handle);
	lh_buf f = {0}, sc = {0};
	lh_buf_printf(&f, "%s/j%u", sb->state, j->n);
	job_var(&sc, sb, j->n);
	lh_buf_puts(&sc, "[ -f \"$J.rc\" ] && exit 3\n"
	                 "[ -e \"$J.hold\" ] || exit 4\n");
	int rc = 0;
	if (len) {
		lh_buf up = {0};
		lh_buf_printf(&up, "%s.w%u", f.d, ++sb->seq);
		rc = sb->s->upload(sb->s, up.d, data, len, err);
		lh_buf_puts(&sc, "W=");
		lh_buf_shquote(&sc, up.d);
		lh_buf_puts(&sc, "\ncat \"$W\" > \"$J.in\"; rm -f \"$W\"\n");
		lh_buf_free(&up);
	}
	if (close_stdin)
		lh_buf_puts(&sc, "kill $(cat \"$J.hold\") 2>/dev/null; "
		                 "rm -f \"$J.hold\"\n");
	int code = 0;
	if (!rc)
		rc = sc.oom ? LOCUS_ENOMEM
		            : srun(sb, sc.d, 10, &code, NULL, NULL, err);
	lh_buf_free(&f);
	lh_buf_free(&sc);
	if (rc)
		return rc;
	if (code == 3)
		return lh_err(err, LOCUS_EINVALID, "%s has exited", handle);
	if (code == 4)
		return lh_err(err, LOCUS_EINVALID, "%s has no open stdin",
		              handle);
	if (code)
		return lh_err(err, LOCUS_EIO, "%s stdin: write failed", handle);
	return 0;
}

static int s_bg_kill(locus_backend *b, const char *handle, locus_bg_status *st,
                     locus_error *err)
{
	session_backend *sb = S(b);
	sjob *j = s_find(sb, handle);
	if (!j)
		return lh_err(err, LOCUS_ENOTFOUND, "no background command %s",
		              handle);
	if (!j->finished) {
		int rc = s_kill_job(sb, j->n, err);
		if (rc)
			return rc;
		/* the wrapper died with its group: no rc file, SIGKILL */
		j->finished = true;
		j->exit_code = 128 + SIGKILL;
	}
	s_collect(sb, j);
	st->running = false;
	st->exit_code = j->exit_code;
	st->next = 0;
	return 0;
}

static int s_search(locus_backend *b, const char *pattern, const char *path,
                    const char *glob, bool ci, int context,
                    locus_grep_mode mode, size_t limit, char **out,
                    locus_error *err)
{
	session_backend *sb = S(b);
	*out = NULL;
	lh_buf body = {0}, rel = {0};
	char *r = NULL;
	int rc = lh_path_rel(sb->root, path, &r, err);
	if (rc)
		return rc;
	lh_buf_puts(&rel, *r ? r : ".");
	free(r);
	lh_buf_puts(&body, "cd \"$R\" || exit 4\nQ=");
	lh_buf_shquote(&body, pattern);
	lh_buf_puts(&body, "; G=");
	lh_buf_shquote(&body, glob);
	lh_buf_puts(&body, "; D=");
	lh_buf_shquote(&body, rel.d);
	lh_buf_printf(&body, "\nset -- -e \"$Q\"%s%s", ci ? " -i" : "",
	              mode == LOCUS_GREP_FILES   ? " -l"
	              : mode == LOCUS_GREP_COUNT ? " -c"
	                                         : "");
	if (context && mode == LOCUS_GREP_CONTENT)
		lh_buf_printf(&body, " -C %d", context);
	/* a time budget in the sandbox too: timeout(1) when it is there */
	lh_buf_puts(&body, "\nT=; command -v timeout >/dev/null 2>&1 && "
	                   "T='timeout 10'\n"
	                   "if command -v rg >/dev/null 2>&1; then\n"
	                   "  [ -n \"$G\" ] && set -- \"$@\" -g \"$G\"\n"
	                   "  $T rg -n --no-heading --color never --hidden -g "
	                   "'!.locus-harness*'");
	for (size_t i = 0; locus_skip_dirs[i]; i++)
		lh_buf_printf(&body, " -g '!%s'", locus_skip_dirs[i]);
	lh_buf_puts(&body, " \"$@\" -- \"$D\"\nelse\n"
	                   "  [ -n \"$G\" ] && set -- \"$@\" --include=\"$G\"\n"
	                   "  $T grep -rnIP --exclude-dir='.locus-harness*'");
	for (size_t i = 0; locus_skip_dirs[i]; i++)
		lh_buf_printf(&body, " --exclude-dir='%s'", locus_skip_dirs[i]);
	lh_buf_printf(&body,
	              " \"$@\" -- \"$D\"%s\nfi > \"/tmp/.locus-grep\" "
	              "2>&1\ns=$?\n"
	              "sed 's|^\\./||' /tmp/.locus-grep | head -n %zu\n"
	              "n=$(wc -l < /tmp/.locus-grep); rm -f "
	              "/tmp/.locus-grep\n"
	              "[ \"$n\" -gt %zu ] && echo \"... (stopped at "
	              "limit=%zu)\"\nexit $s\n",
	              mode == LOCUS_GREP_COUNT ? " | grep -v ':0$'" : "", limit,
	              limit, limit);
	int code;
	char *o = NULL;
	size_t ol;
	rc = body.oom ? LOCUS_ENOMEM
	              : path_script(sb, path, body.d, &code, &o, &ol, err);
	lh_buf_free(&body);
	lh_buf_free(&rel);
	if (rc)
		return rc;
	if (code == 1 && (!o || !*o)) {
		free(o);
		lh_buf nb = {0};
		lh_buf_printf(&nb, "No matches for %s", pattern);
		*out = lh_buf_take(&nb);
		return 0;
	}
	if (code == 124) {
		lh_buf nb = {0};
		lh_buf_printf(&nb, "%s... (stopped: the search's time budget of "
		                   "10 s ran out; narrow the path or the "
		                   "pattern)\n", o ? o : "");
		free(o);
		*out = lh_buf_take(&nb);
		return *out ? 0 : lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (code != 0 && code != 1) {
		rc = lh_err(err, LOCUS_EINVALID, "grep failed: %.200s",
		            o ? o : "");
		free(o);
		return rc;
	}
	*out = o;
	return 0;
}

static void s_free(locus_backend *b)
{
	session_backend *sb = S(b);
	locus_error err;
	for (size_t i = 0; i < sb->njobs; i++)
		if (!sb->jobs[i].finished)
			s_kill_job(sb, sb->jobs[i].n, &err);
	if (sb->state) {
		lh_buf sc = {0};
		int code;
		lh_buf_puts(&sc, "rm -rf -- ");
		lh_buf_shquote(&sc, sb->state);
		if (!sc.oom)
			srun(sb, sc.d, 30, &code, NULL, NULL, &err);
		lh_buf_free(&sc);
		free(sb->state);
	}
	locus_session_free(sb->s);
	free(sb->jobs);
	free(sb->root);
	free(sb->label);
	free(sb);
}

int locus_backend_session_new(locus_backend **out, locus_session *session,
                              const char *root, const char *label,
                              bool isolated, locus_error *err)
{
	*out = NULL;
	if (!session || session->version != LOCUS_SESSION_VERSION ||
	    !session->exec || !session->upload || !session->download) {
		locus_session_free(session);
		return lh_err(err, LOCUS_EUSAGE, "an incomplete session");
	}
	session_backend *sb = calloc(1, sizeof *sb);
	if (!sb) {
		locus_session_free(session);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	sb->s = session;
	if (lh_nonce(sb->nonce)) {
		s_free(&sb->base);
		return lh_err(err, LOCUS_EIO, "no randomness for a nonce");
	}
	sb->root = strdup(root && *root ? root : "/workspace");
	sb->label = strdup(label ? label : "sandbox session");
	if (!sb->root || !sb->label) {
		s_free(&sb->base);
		return lh_err(err, LOCUS_ENOMEM, "out of memory");
	}
	size_t rl = strlen(sb->root);
	while (rl > 1 && sb->root[rl - 1] == '/')
		sb->root[--rl] = '\0';
	sb->base.version = LOCUS_BACKEND_VERSION;
	sb->base.label = sb->label;
	sb->base.root = sb->root;
	sb->base.can_exec = true;
	sb->base.isolated = isolated;
	sb->base.stat = s_stat;
	sb->base.read = s_read;
	sb->base.write = s_write;
	sb->base.write_cas = s_write_cas;
	sb->base.write_many = s_write_many;
	sb->base.remove = s_remove;
	sb->base.list = s_list;
	sb->base.walk = s_walk;
	sb->base.exec = s_exec;
	sb->base.exec_ctl = s_exec_ctl;
	sb->base.bg_output = s_bg_output;
	sb->base.bg_write = s_bg_write;
	sb->base.bg_kill = s_bg_kill;
	sb->base.search = s_search;
	sb->base.free = s_free;
	*out = &sb->base;
	return 0;
}
