/*
 * backends/bwrap.c - the bubblewrap session shipped with locus: one
 * sandbox for the session's whole life, in which a small sh server reads
 * "run ID" / "kill ID" lines on its stdin; scripts and results pass
 * through a host folder bound at /run/locus.  The host opens files there
 * only with O_NOFOLLOW relative to a folder fd it holds, so the sandbox
 * cannot point it elsewhere.  Threat model: docs/harness.md.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "session.h"
#include "../util/array.h"
#include "../util/read.h"
#include "../util/write.h"

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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


/* ================= the bwrap session ================= */

typedef struct bwrap_session {
	locus_session base;
	pid_t pid; /* bwrap */
	int ended; /* its wait status once reaped by alive(), else -1 */
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
	if (lu_write_all(fd, data, len) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Read a regular file of the transfer folder; -1 when absent. */
static int x_read_max(bwrap_session *s, const char *name, size_t max,
                      char **out, size_t *len);

static int x_read(bwrap_session *s, const char *name, char **out, size_t *len)
{
	return x_read_max(s, name, SIZE_MAX - 1, out, len);
}

/* -1 when it cannot be read, 1 when it holds more than max bytes. */
static int x_read_max(bwrap_session *s, const char *name, size_t max,
                      char **out, size_t *len)
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
	int rc = lu_read_all(fd, max, out, len);
	close(fd);
	return rc > 0 ? 1 : rc ? -1 : 0;
}

static bool alive(bwrap_session *s)
{
	int st;
	if (s->pid <= 0 || s->ended >= 0)
		return false;
	pid_t r = waitpid(s->pid, &st, WNOHANG);
	if (r == s->pid)
		s->ended = st;
	return r == 0;
}

static int ctl_send(bwrap_session *s, const char *verb, unsigned id)
{
	char line[96];
	int n = snprintf(line, sizeof line, "%s %u %s\n", verb, id, s->nonce);
	/* a sandbox that died has closed its end: EPIPE, never a SIGPIPE
	   that kills the program locus runs in */
	return send(s->ctl, line, (size_t)n, MSG_NOSIGNAL) == n ? 0 : -1;
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
		return lu_err(err, LOCUS_EIO, "the bwrap sandbox has ended");
	unsigned id = ++s->seq;
	char name[64];
	x_clean(s, id); /* nothing of an earlier life answers for this id */
	snprintf(name, sizeof name, "%u.sh", id);
	if (x_write(s, name, command, strlen(command)) ||
	    ctl_send(s, "run", id))
		return lu_err(err, LOCUS_EIO, "cannot reach the sandbox: %s",
		              strerror(errno));
	double start = lu_now();
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
			return lu_err(err, LOCUS_EIO,
			              "the bwrap sandbox has ended");
		}
		if (!killed && lu_now() - start >= timeout_s) {
			ctl_send(s, "kill", id);
			killed = true;
			start = lu_now();
			timeout_s = 5; /* grace for the rc to appear */
		} else if (killed && lu_now() - start >= timeout_s) {
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
		return lu_err(err, LOCUS_EIO, "upload: %s", strerror(errno));
	lu_buf cmd = {0};
	lu_buf_printf(&cmd, "cat /run/locus/%s > ", name);
	lu_buf_shquote(&cmd, path);
	int code;
	char *o;
	size_t ol;
	int rc = bw_exec(ss, cmd.d ? cmd.d : "false", 60, &code, &o, &ol, err);
	lu_buf_free(&cmd);
	unlinkat(s->xfd, name, 0);
	if (!rc && code != 0)
		rc = lu_err(err, LOCUS_EIO, "upload to %s failed: %.200s", path,
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
	lu_buf cmd = {0};
	/* never more than the bound and one byte crosses to the host (the
	   file may grow after the size check) */
	lu_buf_printf(&cmd, "head -c %u -- ", LH_MAX_FILE_BYTES + 1u);
	lu_buf_shquote(&cmd, path);
	lu_buf_printf(&cmd, " > /run/locus/%s", name);
	int code;
	char *o;
	size_t ol;
	int rc = bw_exec(ss, cmd.d ? cmd.d : "false", 60, &code, &o, &ol, err);
	lu_buf_free(&cmd);
	free(o);
	if (!rc && code != 0)
		rc = lu_err(err, LOCUS_ENOTFOUND, "%s cannot be read", path);
	int xr = rc ? 0 : x_read_max(s, name, LH_MAX_FILE_BYTES, out, len);
	if (xr > 0)
		rc = lu_err(err, LOCUS_ETOOBIG, "%s is larger than %u bytes",
		            path, LH_MAX_FILE_BYTES);
	else if (xr)
		rc = lu_err(err, LOCUS_EIO, "download of %s failed", path);
	unlinkat(s->xfd, name, 0);
	return rc;
}

static void bw_free(locus_session *ss)
{
	bwrap_session *s = (bwrap_session *)ss;
	if (s->ctl >= 0)
		close(s->ctl);
	if (s->pid > 0 && s->ended < 0) {
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
static int pick_user(const char *real, const locus_bwrap_options *o, uid_t *uid,
                     gid_t *gid, bool *drop, locus_error *err)
{
	*drop = geteuid() == 0;
	if (!*drop) {
		if (o->uid > 0 || o->gid > 0)
			return lu_err(err, LOCUS_EUSAGE,
			              "only root can choose the sandbox's uid");
		*uid = getuid();
		*gid = getgid();
		return 0;
	}
	struct stat st;
	if (stat(real, &st) < 0)
		return lu_err(err, LOCUS_ENOTFOUND, "no folder %s", real);
	bool own = o->uid <= 0 && st.st_uid != 0;
	*uid = o->uid > 0 ? (uid_t)o->uid : own ? st.st_uid : 65534;
	*gid = o->gid > 0              ? (gid_t)o->gid
	       : own && st.st_gid != 0 ? st.st_gid
	                               : 65534;
	if (*uid == 0 || *gid == 0)
		return lu_err(err, LOCUS_EDENIED,
		              "the bwrap sandbox never runs as host uid or "
		              "gid 0: choose an unprivileged one");
	mode_t need = st.st_uid == *uid   ? S_IWUSR | S_IXUSR
	              : st.st_gid == *gid ? S_IWGRP | S_IXGRP
	                                  : S_IWOTH | S_IXOTH;
	if ((st.st_mode & need) != need)
		return lu_err(
		    err, LOCUS_EDENIED,
		    "the bwrap sandbox runs as host uid %u, not as "
		    "root, and uid %u cannot write %s (owned by uid "
		    "%u): give the workspace to that user (chown -R "
		    "%u:%u %s) or choose its owner as the sandbox uid",
		    (unsigned)*uid, (unsigned)*uid, real, (unsigned)st.st_uid,
		    (unsigned)*uid, (unsigned)*gid, real);
	return 0;
}

/*
 * The child: become the sandbox user (when root), then exec bwrap.
 * bwrap resolves its bind sources as that user, and the workspace may lie
 * under folders only root can enter (/root/...): so root first binds it,
 * in a mount namespace of the child's own, on `mnt` (a folder the user can
 * reach), and bwrap binds `mnt`.
 */
static void bw_child(int ctl, const char *ws, const char *mnt, bool drop,
                     uid_t uid, gid_t gid, char *const *argv)
{
	setsid();
	int nul = open("/dev/null", O_RDWR);
	if (dup2(ctl, 0) < 0 || nul < 0 || dup2(nul, 1) < 0)
		_exit(126);
	/* nothing the caller left open reaches the sandbox */
	lh_close_fds_from(3, -1);
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
		return lu_err(err, LOCUS_EIO,
		              "cannot hand the transfer folder "
		              "to the sandbox user: %s",
		              strerror(errno));
	lu_buf server = {0}, mnt = {0}, xd = {0};
	lu_buf_printf(&server, SERVER_FMT,
	              o->output_max ? o->output_max : (size_t)64 << 20);
	lu_buf_printf(&mnt, "%s/w", s->xdir);
	lu_buf_printf(&xd, "%s/x", s->xdir);
	char tmp_s[32];
	snprintf(tmp_s, sizeof tmp_s, "%zu",
	         o->tmp_max ? o->tmp_max : (size_t)256 << 20);
	if (mnt.oom || xd.oom || (drop && mkdir(mnt.d, 0700) < 0)) {
		lu_buf_free(&server);
		lu_buf_free(&mnt);
		lu_buf_free(&xd);
		return lu_err(err, LOCUS_EIO, "cannot make a mount point: %s",
		              strerror(errno));
	}
	int p[2];
	/* the control channel is a socket, so that a send to a sandbox
	   that died is an error (MSG_NOSIGNAL), as no pipe write can be */
	if (server.oom ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0) {
		lu_buf_free(&server);
		lu_buf_free(&mnt);
		lu_buf_free(&xd);
		return lu_err(err, LOCUS_EIO, "socketpair: %s",
		              strerror(errno));
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
		lu_buf_free(&server);
		lu_buf_free(&mnt);
		lu_buf_free(&xd);
		return lu_err(err, LOCUS_EIO, "fork: %s", strerror(errno));
	}
	if (pid == 0)
		bw_child(p[0], real, mnt.d, drop, uid, gid,
		         (char *const *)(uintptr_t)argv);
	close(p[0]);
	lu_buf_free(&server);
	lu_buf_free(&mnt);
	lu_buf_free(&xd);
	s->pid = pid;
	s->ctl = p[1];
	return 0;
}

static const locus_session bwrap_vtable = {
    .version = LOCUS_SESSION_VERSION,
    .exec = bw_exec,
    .upload = bw_upload,
    .download = bw_download,
    .free = bw_free,
};

int locus_session_bwrap_new_opts(locus_session **out, const char *dir,
                                 const locus_bwrap_options *opts,
                                 locus_error *err)
{
	*out = NULL;
	locus_bwrap_options def = LOCUS_BWRAP_OPTIONS_INIT;
	const locus_bwrap_options *o = opts ? opts : &def;
	if (o->version != LOCUS_BWRAP_OPTIONS_VERSION)
		return lu_err(err, LOCUS_EUSAGE,
		              "bwrap options of another version");
	char *real = dir ? realpath(dir, NULL) : NULL;
	if (!real)
		return lu_err(err, LOCUS_ENOTFOUND, "no folder %s",
		              dir ? dir : "(null)");
	bwrap_session *s = calloc(1, sizeof *s);
	if (!s) {
		free(real);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	s->ctl = s->xfd = -1;
	s->ended = -1;
	s->base = bwrap_vtable;
	const char *tmp = getenv("TMPDIR");
	char templ[4096];
	snprintf(templ, sizeof templ, "%s/locus-bwrap-XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	/* templ/x is the transfer folder (the sandbox user's), templ/w the
	 * mount point of the workspace when root; templ is entered only */
	lu_buf xd = {0};
	bool made = !lh_nonce(s->nonce) && mkdtemp(templ);
	lu_buf_printf(&xd, "%s/x", templ);
	if (!made || xd.oom || !(s->xdir = strdup(templ)) ||
	    chmod(templ, 0711) < 0 || mkdir(xd.d, 0700) < 0 ||
	    (s->xfd = open(xd.d, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		int e = errno;
		lu_buf_free(&xd);
		free(real);
		bw_free(&s->base);
		return lu_err(err, LOCUS_EIO,
		              "cannot make a transfer folder: %s", strerror(e));
	}
	lu_buf_free(&xd);
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
	out_ = NULL;
	/* the agent's commands run in a nested sandbox without /run/locus
	   (session_jobs.c): where that cannot be made, nothing runs */
	if (ok) {
		rc = bw_exec(&s->base,
		             LH_BWRAP_NEST " sh -c '[ -e /run/locus ] || "
		                           "echo nested'",
		             20, &code, &out_, &ol, err);
		ok = !rc && code == 0 && out_ && !strcmp(out_, "nested\n");
		if (!rc && !ok) {
			rc = lu_err(err, LOCUS_EIO,
			            "bwrap cannot make the nested sandbox the "
			            "agent's commands run in (a user namespace "
			            "inside the sandbox: %.200s)",
			            out_ ? out_ : "no output");
		}
		free(out_);
	}
	if (!ok && s->ended >= 0 && WIFEXITED(s->ended) &&
	    WEXITSTATUS(s->ended) == 127) {
		bw_free(&s->base);
		return lu_err(err, LOCUS_EIO,
		              "bwrap (bubblewrap) is not installed: no bwrap "
		              "on PATH");
	}
	if (!ok) {
		bw_free(&s->base);
		return rc ? rc
		          : lu_err(
		                err, LOCUS_EIO,
		                "bwrap did not start (is bubblewrap installed "
		                "and allowed to make namespaces?)");
	}
	*out = &s->base;
	return 0;
}

bool lh_session_is_bwrap(const locus_session *s)
{
	return s && s->free == bw_free;
}

int locus_session_bwrap_new(locus_session **out, const char *dir,
                            locus_error *err)
{
	return locus_session_bwrap_new_opts(out, dir, NULL, err);
}
