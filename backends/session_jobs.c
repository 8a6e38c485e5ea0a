/*
 * backends/session_jobs.c - the SessionBackend's commands: the agent's
 * commands run as jobs (run.sh: a setsid group, in a pid namespace of its
 * own where the sandbox can make one, output capped in a private state
 * folder, stdin on a FIFO held open by a sleeping writer until
 * write_stdin(close=true)), polled, killed and collected.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "session.h"
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

/* ---- commands ---- */

/* The background command named handle; NULL with err set
 * (LOCUS_ENOTFOUND) when there is none. */
static sjob *s_find(session_backend *sb, const char *handle, locus_error *err)
{
	for (size_t i = 0; i < sb->njobs; i++)
		if (!strcmp(sb->jobs[i].handle, handle))
			return &sb->jobs[i];
	lu_err(err, LOCUS_ENOTFOUND, "no background command %s", handle);
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
	"NS=; unshare -U --map-current-user -m -p -f --mount-proc "            \
	"--kill-child true >/dev/null 2>&1 && NS='unshare -U "                 \
	"--map-current-user -m -p -f --mount-proc --kill-child'\n"
#define NS_INIT_LINE "NS_INIT='exec 3<&0; sh \"$0.sh\" <&3 3<&- & wait $!'\n"

/*
 * On the bwrap session the job's namespace is a nested bwrap instead: the
 * sandbox's own mounts (bind / /: read-only stays read-only, the mounts
 * are locked), but a fresh tmpfs on /run, so the host-shared transfer
 * folder /run/locus (backends/bwrap.c) is not in the command's mount
 * tree; a pid namespace and /proc of its own, so no /proc/PID/root of a
 * process that still sees /run/locus (the server, its helpers) is
 * visible.  No probe and no fallback: the session checked at start that
 * this nesting works (bwrap.c), and a job whose bwrap fails does not run.
 */
#define NS_BWRAP "NS='" LH_BWRAP_NEST "'\n"

/*
 * The job runner, uploaded once a session as STATE/run.sh: run.sh J NONCE
 * MARK CAP.  The job runs as its own setsid group marked LOCUS_JOB=MARK,
 * stdin the FIFO J.in (held open by a sleeping writer), output through a
 * cap; when its leader ends, its group and every process still marked are
 * killed; then J.rc gets "NONCE STATUS".  The runner itself is not marked.
 */
#define RUNNER(ns)                                                             \
	"J=$1; N=$2; M=$3; CAP=$4\n"                                           \
	"echo $$ > \"$J.pid\"\n" ns NS_INIT_LINE RUNNER_REST
#define RUNNER_REST                                                            \
	"sleep 2147483647 > \"$J.in\" & echo $! > \"$J.hold\"\n"               \
	"{ LOCUS_JOB=$M setsid -w sh -c 'echo $$ > \"$0.jpid\"; "              \
	"exec $1 sh -c \"$2\" \"$0\"' \"$J\" \"$NS\" \"$NS_INIT\" "            \
	"< \"$J.in\"; "                                                        \
	"echo $? > \"$J.st\"\n"                                                \
	"  p=$(cat \"$J.jpid\" 2>/dev/null)\n"                                 \
	"  [ -n \"$p\" ] && kill -9 -\"$p\" 2>/dev/null\n"                     \
	"  for d in /proc/[0-9]*; do grep -qxz \"LOCUS_JOB=$M\" "              \
	"\"$d/environ\" "                                                      \
	"2>/dev/null && kill -9 \"${d#/proc/}\" 2>/dev/null; done\n"           \
	"} 2>&1 | { dd bs=65536 count=\"$CAP\" iflag=count_bytes "             \
	"status=none; "                                                        \
	"c=$(wc -c); [ \"$c\" -gt 0 ] && printf '\\n[... %s more bytes "       \
	"dropped: the output cap is %s bytes ...]\\n' \"$c\" \"$CAP\"; } "     \
	"> \"$J.out\"\n"                                                       \
	"echo \"$N $(cat \"$J.st\" 2>/dev/null || echo -1)\" > "               \
	"\"$J.rc.tmp\"\n"                                                      \
	"mv \"$J.rc.tmp\" \"$J.rc\"\n"                                         \
	"kill $(cat \"$J.hold\") 2>/dev/null\n"
static const char RUNNER_NS[] = RUNNER(NS_PROBE);
static const char RUNNER_BWRAP[] = RUNNER(NS_BWRAP);

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
	lu_buf sc = {0};
	lu_buf_puts(&sc, "umask 077; d=$(mktemp -d \"${TMPDIR:-/tmp}/"
	                 ".locus-harness-XXXXXXXX\" 2>/dev/null) || d=$(mktemp "
	                 "-d ");
	lu_buf_shquote(&sc, sb->root);
	lu_buf_puts(&sc, "/.locus-harness-XXXXXXXX) || exit 1\n"
	                 "chmod 700 \"$d\" && printf '%s' \"$d\"\n");
	int code = -1;
	char *o = NULL;
	size_t ol = 0;
	int rc =
	    sc.oom ? LOCUS_ENOMEM : lh_srun(sb, sc.d, 30, &code, &o, &ol, err);
	lu_buf_free(&sc);
	if (!rc && (code != 0 || !o || o[0] != '/' || memchr(o, '\'', ol) ||
	            memchr(o, '\n', ol)))
		rc = lu_err(err, LOCUS_EIO,
		            "cannot make a private folder for commands");
	if (!rc) {
		sb->state = o;
		lu_buf rp = {0};
		lu_buf_printf(&rp, "%s/run.sh", sb->state);
		bool bw = lh_session_is_bwrap(sb->s);
		const char *runner = bw ? RUNNER_BWRAP : RUNNER_NS;
		size_t rl = bw ? sizeof RUNNER_BWRAP - 1 : sizeof RUNNER_NS - 1;
		rc = rp.oom ? LOCUS_ENOMEM
		            : sb->s->upload(sb->s, rp.d, runner, rl, err);
		lu_buf_free(&rp);
	} else {
		free(o);
	}
	return rc;
}

/* "J=<state>/jN\n": the job's files, as a script line. */
static void job_var(lu_buf *sc, session_backend *sb, unsigned id)
{
	lu_buf_printf(sc, "J=%s/j%u\n", sb->state, id);
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
	lu_buf sc = {0}, f = {0};
	lu_buf_printf(&f, "%s/j%u.sh", sb->state, *id);
	int code;
	rc = sb->s->upload(sb->s, f.d, command, strlen(command), err);
	if (!rc) {
		lu_buf_puts(&sc, "cd ");
		lu_buf_shquote(&sc, sb->root);
		lu_buf_puts(&sc, " || exit 1\n");
		job_var(&sc, sb, *id);
		lu_buf_printf(
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
		            : lh_srun(sb, sc.d, 30, &code, NULL, NULL, err);
		if (!rc && code != 0)
			rc = lu_err(err, LOCUS_EIO, "cannot start the command");
	}
	lu_buf_free(&sc);
	lu_buf_free(&f);
	return rc;
}

/* Status and output of job id from byte since.  Only an rc file that
 * carries this session's nonce counts as the job's end. */
static int s_poll(session_backend *sb, unsigned id, size_t since,
                  bool *finished, int *exit_code, char **out, size_t *len,
                  locus_error *err)
{
	lu_buf sc = {0};
	job_var(&sc, sb, id);
	lu_buf_printf(&sc,
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
	    sc.oom ? LOCUS_ENOMEM : lh_srun(sb, sc.d, 30, &code, &o, &ol, err);
	lu_buf_free(&sc);
	if (rc)
		return rc;
	char *nl = o ? memchr(o, '\n', ol) : NULL;
	if (!nl) {
		free(o);
		return lu_err(err, LOCUS_EIO, "lost track of the command");
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
int lh_s_kill_job(session_backend *sb, unsigned id, locus_error *err)
{
	lu_buf sc = {0};
	job_var(&sc, sb, id);
	lu_buf_printf(
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
	int rc = sc.oom ? LOCUS_ENOMEM
	                : lh_srun(sb, sc.d, 30, &code, NULL, NULL, err);
	lu_buf_free(&sc);
	return rc;
}

/* A collected job leaves nothing behind: script, output, FIFO, status. */
static void s_collect(session_backend *sb, sjob *j)
{
	if (!sb->state || (j && j->collected))
		return;
	lu_buf sc = {0};
	job_var(&sc, sb, j->n);
	lu_buf_puts(&sc, "rm -f \"$J.sh\" \"$J.out\" \"$J.in\" \"$J.rc\" "
	                 "\"$J.rc.tmp\" \"$J.st\" \"$J.pid\" \"$J.jpid\" "
	                 "\"$J.hold\" \"$J\".w*\n");
	int code;
	locus_error e;
	if (!sc.oom && lh_srun(sb, sc.d, 30, &code, NULL, NULL, &e) == 0 &&
	    code == 0)
		j->collected = true;
	lu_buf_free(&sc);
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

/* A command run directly by the session (no job): cancellable only
 * through the session's own exec_ctl, and only the session's own kill at
 * its end. */
static int s_exec_direct(session_backend *sb, const char *command,
                         double timeout_s, const locus_call_ctl *ctl,
                         locus_exec_result *res, locus_error *err)
{
	double start = lu_now();
	lu_buf sc = {0};
	lu_buf_puts(&sc, "cd ");
	lu_buf_shquote(&sc, sb->root);
	lu_buf_puts(&sc, " || exit 125\n");
	lu_buf_puts(&sc, command);
	int code = -1;
	int rc;
	if (sc.oom)
		rc = LOCUS_ENOMEM;
	else if (ctl && LH_V2(sb->s, exec_ctl))
		rc = sb->s->exec_ctl(sb->s, sc.d, timeout_s, ctl, &code,
		                     &res->output, &res->output_len,
		                     &res->cancelled, err);
	else
		rc = lh_srun(sb, sc.d, timeout_s, &code, &res->output,
		             &res->output_len, err);
	lu_buf_free(&sc);
	if (rc)
		return rc;
	res->finished = code >= 0 && !res->cancelled;
	res->exit_code = code;
	res->timed_out = code < 0 && !res->cancelled;
	res->duration_s = lu_now() - start;
	return 0;
}

/* Wait for the job of a foreground command: it finishes (collected, no
 * handle), is cancelled or times out without KEEP (killed, collected), or
 * times out with KEEP (lives on under its handle). */
static int s_wait_job(session_backend *sb, sjob *j, double timeout_s,
                      locus_exec_flags flags, const locus_call_ctl *ctl,
                      locus_exec_result *res, locus_error *err)
{
	double start = lu_now(), last = start;
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
		if (lh_ctl_step(ctl, start, &last, res->output_len))
			res->cancelled = true;
		else if (lu_now() - start >= timeout_s)
			res->timed_out = true;
		if (res->timed_out && (flags & LOCUS_EXEC_KEEP)) {
			memcpy(res->handle, j->handle, sizeof j->handle);
			return 0;
		}
		if (res->cancelled || res->timed_out) {
			/* its whole tree goes (the job's pid namespace) */
			rc = lh_s_kill_job(sb, j->n, err);
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
int lh_s_exec_ctl(locus_backend *b, const char *command, double timeout_s,
                  locus_exec_flags flags, const locus_call_ctl *ctl,
                  locus_exec_result *res, locus_error *err)
{
	session_backend *sb = S(b);
	memset(res, 0, sizeof *res);
	double start = lu_now();
	if (!(flags & (LOCUS_EXEC_BACKGROUND | LOCUS_EXEC_KEEP)) &&
	    (!ctl || LH_V2(sb->s, exec_ctl)) && !lh_session_is_bwrap(sb->s))
		return s_exec_direct(sb, command, timeout_s, ctl, res, err);
	unsigned id;
	int rc = s_start(sb, command, &id, err);
	if (rc)
		return rc;
	sjob *j = s_add_job(sb, id);
	if (!j) {
		lh_s_kill_job(sb, id, err);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (flags & LOCUS_EXEC_BACKGROUND)
		memcpy(res->handle, j->handle, sizeof j->handle);
	else
		rc = s_wait_job(sb, j, timeout_s, flags, ctl, res, err);
	res->duration_s = lu_now() - start;
	return rc;
}

int lh_s_exec(locus_backend *b, const char *command, double timeout_s,
              locus_exec_flags flags, locus_exec_result *res, locus_error *err)
{
	return lh_s_exec_ctl(b, command, timeout_s, flags, NULL, res, err);
}

int lh_s_bg_output(locus_backend *b, const char *handle, size_t since,
                   char **out, size_t *len, locus_bg_status *st,
                   locus_error *err)
{
	session_backend *sb = S(b);
	*out = NULL;
	*len = 0;
	sjob *j = s_find(sb, handle, err);
	if (!j)
		return LOCUS_ENOTFOUND;
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

int lh_s_bg_write(locus_backend *b, const char *handle, const char *data,
                  size_t len, bool close_stdin, locus_error *err)
{
	session_backend *sb = S(b);
	sjob *j = s_find(sb, handle, err);
	if (!j)
		return LOCUS_ENOTFOUND;
	if (j->finished)
		return lu_err(err, LOCUS_EINVALID, "%s has exited", handle);
	lu_buf f = {0}, sc = {0};
	lu_buf_printf(&f, "%s/j%u", sb->state, j->n);
	job_var(&sc, sb, j->n);
	lu_buf_puts(&sc, "[ -f \"$J.rc\" ] && exit 3\n"
	                 "[ -e \"$J.hold\" ] || exit 4\n");
	int rc = 0;
	if (len) {
		lu_buf up = {0};
		lu_buf_printf(&up, "%s.w%u", f.d, ++sb->seq);
		rc = sb->s->upload(sb->s, up.d, data, len, err);
		lu_buf_puts(&sc, "W=");
		lu_buf_shquote(&sc, up.d);
		lu_buf_puts(&sc, "\ncat \"$W\" > \"$J.in\"; rm -f \"$W\"\n");
		lu_buf_free(&up);
	}
	if (close_stdin)
		lu_buf_puts(&sc, "kill $(cat \"$J.hold\") 2>/dev/null; "
		                 "rm -f \"$J.hold\"\n");
	int code = 0;
	if (!rc)
		rc = sc.oom ? LOCUS_ENOMEM
		            : lh_srun(sb, sc.d, 10, &code, NULL, NULL, err);
	lu_buf_free(&f);
	lu_buf_free(&sc);
	if (rc)
		return rc;
	if (code == 3)
		return lu_err(err, LOCUS_EINVALID, "%s has exited", handle);
	if (code == 4)
		return lu_err(err, LOCUS_EINVALID, "%s has no open stdin",
		              handle);
	if (code)
		return lu_err(err, LOCUS_EIO, "%s stdin: write failed", handle);
	return 0;
}

int lh_s_bg_kill(locus_backend *b, const char *handle, locus_bg_status *st,
                 locus_error *err)
{
	session_backend *sb = S(b);
	sjob *j = s_find(sb, handle, err);
	if (!j)
		return LOCUS_ENOTFOUND;
	if (!j->finished) {
		int rc = lh_s_kill_job(sb, j->n, err);
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
