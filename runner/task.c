/*
 * runner/task.c - the `task` tool: a child run.  The gateway makes the
 * child (`POST /internal/v1/runs/{id}/children {call_id, agent, prompt}`
 * -> `{run_id, admit_token}`), and the child's own runner process runs in
 * the same box with the child's token, its state under
 * .locus/children/<child run id>/.  The parent waits for it (up to its own
 * time left) and gives the model the child's final message, read from the
 * child's result.json.  The child's token and the placeholders go through
 * an inherited socket (LOCUS_ADMIT_TOKEN_FD), never through the child's
 * exec environment; the child reads and closes it first thing and wipes
 * what it read like any runner before its commands run.
 */
#include "runner/runner.h"

#include "util/clock.h"
#include "util/buf.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *const child_fields[] = {"run_id", "admit_token", NULL};

/* environ minus LOCUS_*, plus the child's variables; its token and the
   placeholders the parent holds go through the socket `fd`
   (LOCUS_ADMIT_TOKEN_FD), never in the exec environment, which
   /proc/<child pid>/environ shows to the box's commands for the child's
   whole life. */
static char **child_environ(lr_run *r, const char *child_id, const char *state,
                            int fd)
{
	size_t n = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	char **v = calloc(n + 9, sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0;
	/* the runner's own variables are the child's own, set below */
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "LOCUS_ADMIT_", 12) &&
		    strncmp(*e, "LOCUS_RUN_ID=", 13) &&
		    strncmp(*e, "LOCUS_RUNNER_", 13))
			v[k++] = strdup(*e);
	char fds[16];
	snprintf(fds, sizeof fds, "%d", fd);
	const char *pairs[][2] = {
	    {"LOCUS_ADMIT_URL", r->env->url},
	    {"LOCUS_ADMIT_TOKEN_FD", fds},
	    {"LOCUS_RUN_ID", child_id},
	    {"LOCUS_RUNNER_ROOT", r->env->root},
	    {"LOCUS_RUNNER_STATE_DIR", state},
	    {"LOCUS_RUNNER_HARDEN", r->env->harden ? "non-dumpable" : NULL}};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		if (!pairs[i][1])
			continue;
		char *kv = lr_strf("%s=%s", pairs[i][0], pairs[i][1]);
		if (kv)
			v[k++] = kv;
	}
	/* the names (not values) of every secret, for the child to wipe */
	lu_buf names = {0};
	lu_buf_puts(&names, "LOCUS_RUNNER_SECRETS=");
	for (size_t i = 0; i < r->secrets.n; i++)
		if (strcmp(r->secrets.names[i], "LOCUS_ADMIT_TOKEN")) {
			lu_buf_puts(&names, r->secrets.names[i]);
			lu_buf_puts(&names, ",");
		}
	char *nv = lu_buf_take(&names);
	if (nv)
		v[k++] = nv;
	/* n inherited, 6 pairs, the names, the NULL: the n + 9 allocated */
	assert(k < n + 9);
	return v;
}

/* The child's secrets, NAME=VALUE each ended by a NUL, written to `fd`
   and its writing side shut (the child reads to EOF).  0 or -1. */
static int send_secrets(lr_run *r, int fd, const char *token)
{
	lu_buf b = {0};
	lu_buf_puts(&b, "LOCUS_ADMIT_TOKEN=");
	lu_buf_puts(&b, token);
	lu_buf_add(&b, "", 1);
	for (size_t i = 0; i < r->secrets.n; i++) {
		if (!strcmp(r->secrets.names[i], "LOCUS_ADMIT_TOKEN"))
			continue;
		lu_buf_puts(&b, r->secrets.names[i]);
		lu_buf_puts(&b, "=");
		lu_buf_puts(&b, r->secrets.values[i]);
		lu_buf_add(&b, "", 1);
	}
	/* well under the socket's buffer: written whole before the fork */
	int rc = b.oom || b.len > (32u << 10) ? -1 : 0;
	for (size_t off = 0; !rc && off < b.len;) {
		ssize_t w = write(fd, b.d + off, b.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = -1;
		else
			off += (size_t)w;
	}
	if (b.d)
		explicit_bzero(b.d, b.len);
	lu_buf_free(&b);
	if (shutdown(fd, SHUT_WR))
		rc = -1;
	return rc;
}

static void free_environ(char **v)
{
	for (size_t i = 0; v && v[i]; i++) {
		explicit_bzero(v[i], strlen(v[i]));
		free(v[i]);
	}
	free(v);
}

/* Wait for pid up to `left` seconds; its exit code, or -1 (killed). */
static int wait_child(pid_t pid, double left)
{
	double end = lu_now() + left;
	for (;;) {
		int st;
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (w < 0 && errno != EINTR)
			return -1;
		if (lu_now() > end) {
			kill(pid, SIGTERM);
			waitpid(pid, &st, 0);
			return -1;
		}
		struct timespec ts = {0, 50 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

/* The child's result.json: its status and final message (or error). */
static char *child_outcome(lr_run *r, const char *state, int code,
                           bool *is_error)
{
	char *dir = lr_path(r->env->root, state);
	cJSON *res = NULL;
	locus_error err;
	if (!dir || lr_json_file_read(dir, "result.json", LR_MAX_STATE_FILE,
	                              &res, &err)) {
		free(dir);
		*is_error = true;
		char m[120];
		snprintf(m, sizeof m,
		         "the child run ended (exit %d) without a "
		         "readable result",
		         code);
		return strdup(m);
	}
	free(dir);
	const char *status = lr_json_str(res, "status", NULL);
	const char *msg = lr_json_str(res, "final_message", NULL);
	const char *emsg = lr_json_str(res, "error", NULL);
	*is_error = !status || strcmp(status, "done") || code != 0;
	char *out;
	if (!*is_error)
		out = strdup(msg ? msg : "");
	else {
		char head[120];
		snprintf(head, sizeof head,
		         "the child run ended %s (exit %d)%s",
		         status ? status : "without a status", code,
		         emsg ? ": " : "");
		out = lr_strf("%s%s", head, emsg ? emsg : "");
	}
	cJSON_Delete(res);
	return out;
}

char *lr_task_run(lr_run *r, const char *call_id, const cJSON *args,
                  bool *is_error)
{
	*is_error = true;
	const char *agent = lr_json_str(args, "agent", NULL);
	const char *prompt = lr_json_str(args, "prompt", NULL);
	if (!prompt)
		return strdup("task needs a \"prompt\" string");
	cJSON *body = cJSON_CreateObject();
	if (!body)
		return NULL;
	cJSON_AddStringToObject(body, "call_id", call_id);
	if (agent)
		cJSON_AddStringToObject(body, "agent", agent);
	else
		cJSON_AddNullToObject(body, "agent");
	cJSON_AddStringToObject(body, "prompt", prompt);
	cJSON *ans = NULL;
	locus_error err;
	int rc = lr_gw_run_request(&r->gw, "POST", "children", body,
	                           LHTTP_RETRY_UNSENT, &ans, &err);
	cJSON_Delete(body);
	const char *cid = ans ? lr_json_str(ans, "run_id", NULL) : NULL;
	const char *tok = ans ? lr_json_str(ans, "admit_token", NULL) : NULL;
	if (rc || !cid || !tok || !*tok ||
	    lr_json_known(ans, child_fields, "the child", &err) ||
	    strspn(cid, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                "0123456789._-") != strlen(cid) ||
	    !strcmp(cid, ".") || !strcmp(cid, "..") || !*cid ||
	    !strcmp(cid, r->env->run_id)) {
		cJSON_Delete(ans);
		return lr_strf("the gateway did not make a child run: %s",
		               rc ? err.message : "a malformed answer");
	}
	char *state = lr_strf("%s/children/%s", r->env->state_dir, cid);
	int sv[2] = {-1, -1};
	char **env = NULL;
	lr_logf(&r->log, "task %s: child run %s", call_id, cid);
	if (state && !socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) &&
	    !send_secrets(r, sv[0], tok))
		env = child_environ(r, cid, state, sv[1]);
	cJSON *tv = cJSON_GetObjectItem(ans, "admit_token");
	explicit_bzero(tv->valuestring, strlen(tv->valuestring));
	cJSON_Delete(ans);
	if (sv[0] >= 0)
		close(sv[0]);
	if (!env) {
		if (sv[1] >= 0)
			close(sv[1]);
		free(state);
		return strdup("the child runner could not be started");
	}
	const char *exe =
	    r->env->self_exe ? r->env->self_exe : "/proc/self/exe";
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* the one descriptor the child inherits on purpose */
		if (fcntl(sv[1], F_SETFD, 0))
			_exit(127);
		char *const argv[] = {"locus", "runner", NULL};
		execve(exe, argv, env);
		_exit(127);
	}
	close(sv[1]);
	free_environ(env);
	if (pid < 0) {
		free(state);
		return strdup("the child runner could not be started");
	}
	int code = wait_child(pid, lr_run_left(r));
	lr_logf(&r->log, "task %s: child exit %d", call_id, code);
	char *out = child_outcome(r, state, code, is_error);
	free(state);
	return out;
}
