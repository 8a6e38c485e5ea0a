/*
 * gateway/box.c - starting a run's box.  `none`: nothing (a runner is
 * started by hand with the run id, token and url create printed).
 * `openshell`: an OpenShell sandbox whose main process is the runner
 * (box_openshell.c), with the token minted here.  Each kind with a
 * process is a table of operations (gateway/box.h) this file dispatches
 * to by the run's `box`.
 * `local`: `locus runner` under bubblewrap (the same mounts as the
 * harness's bwrap sandbox: /usr, /etc and the libraries read-only, a
 * private /tmp, /proc and /dev, every namespace unshared but the network,
 * which the runner needs to reach this gateway and the model) over the
 * run's workspace folder, bound at /sandbox.  The token and the model's
 * placeholder go in the exec environment of bwrap (never its argv, which
 * every process of the uid can read); inside the box's pid namespace no
 * command sees bwrap's process, and the runner wipes its own copy.
 *
 * Each start mints a fresh run token and revokes the run's earlier ones
 * (tokens are kept only as hashes, so a restarted box cannot be handed
 * the old one); the runner's spool is signed with its token, and a
 * parked runner has delivered all its events before it exits.
 */
#include "gateway/box.h"

#include <stdio.h>

#include "harness/internal.h"
#include "runner/json.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BOX_BIN "/run/locus-bin/locus"

/* What a box start reads and makes (inside a transaction). */
typedef struct box_start {
	char token[48];
	char *box, *ws, *manifest, *key_env;
	int64_t n; /* this start's number (openshell: its sandbox's name) */
	const gw_box_ops *ops; /* the kind's, NULL: a box with no process */
} box_start;

static const gw_box_ops *box_kind(const char *box);

/* The start as the kind's operations read it (borrowed from b). */
static gw_box_run run_of(const char *run_id, const box_start *b)
{
	return (gw_box_run){.run_id = run_id,
	                    .token = b->token,
	                    .manifest = b->manifest,
	                    .workspace = b->ws,
	                    .key_env = b->key_env,
	                    .n = b->n};
}

static void box_start_free(box_start *b)
{
	explicit_bzero(b->token, sizeof b->token);
	free(b->box);
	free(b->ws);
	free(b->manifest);
	free(b->key_env);
}

/* A fresh token for the run, the old ones revoked; box, workspace,
   manifest and the model's key variable read; the start counted (inside
   a transaction).  1: a box with no process (none). */
static int fresh_token(gw_db *db, const char *run_id, box_start *b,
                       locus_error *err)
{
	gw_stmt *st = gw_q(db, err,
	                   "SELECT box, workspace, manifest, tenant, box_n "
	                   "FROM runs WHERE run_id = ?",
	                   "s", run_id);
	char *tenant = NULL;
	if (st && gw_row(st)) {
		b->box = gw_col_dup(st, 0);
		b->ws = gw_col_dup(st, 1);
		b->manifest = gw_col_dup(st, 2);
		tenant = gw_col_dup(st, 3);
		b->n = gw_int(st, 4) + 1;
	}
	gw_done(st);
	int rc = b->box && b->manifest && tenant ? 0 : LOCUS_EIO;
	cJSON *m = NULL;
	if (!rc && !lr_json_parse(b->manifest, strlen(b->manifest), &m, err)) {
		const char *k = lr_json_str(lr_json_obj(m, "model", NULL),
		                            "api_key_env", NULL);
		b->key_env = k ? strdup(k) : NULL;
		cJSON_Delete(m);
	}
	b->ops = !rc ? box_kind(b->box) : NULL;
	if (!rc && !b->ops)
		rc = 1; /* nothing to start */
	if (!rc && b->ops->check) {
		gw_box_run run = run_of(run_id, b);
		rc = b->ops->check(&run, err);
	}
	if (!rc)
		rc = gw_new_id("lgr_", b->token, err);
	char hash[65];
	gw_token_hash(b->token, hash);
	if (!rc)
		rc = gw_exec(db, err,
		             "UPDATE tokens SET revoked = 1 WHERE run_id = ? "
		             "AND kind = 'run'",
		             "s", run_id);
	if (!rc)
		rc = gw_exec(db, err,
		             "INSERT INTO tokens VALUES (?, 'run', ?, ?, ?, 0)",
		             "sssi", hash, run_id, tenant, (int64_t)time(NULL));
	/* the earlier sandbox is this start's to delete: the monitor no
	   longer takes its end for this run's */
	if (!rc)
		rc = gw_exec(db, err,
		             "UPDATE runs SET box_n = ?, sandbox = NULL WHERE "
		             "run_id = ?",
		             "is", b->n, run_id);
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "box", b->box ? b->box : "?");
	char name[24];
	if (!rc && b->ops->name) {
		b->ops->name(run_id, b->n, name);
		cJSON_AddStringToObject(rec, "sandbox", name);
	}
	if (!rc)
		rc = gw_audit(db, "box.start", run_id, rec, NULL, err);
	cJSON_Delete(rec);
	free(tenant);
	return rc;
}

static void put_env(char **env, size_t *n, const char *k, const char *v)
{
	size_t len = strlen(k) + strlen(v) + 2;
	char *e = malloc(len);
	if (e) {
		snprintf(e, len, "%s=%s", k, v);
		env[(*n)++] = e;
	}
}

/* The grandchild: bwrap with the runner; the child exits at once so the
   gateway never has a zombie to reap and the box outlives a restart of
   the gateway. */
static void spawn(const char *ws, const char *bin, char **env)
{
	/* clang-format off */
	const char *argv[] = {
	    "bwrap", "--unshare-all", "--share-net", "--new-session",
	    "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr", "--ro-bind-try",
	    "/bin", "/bin", "--ro-bind-try", "/sbin", "/sbin", "--ro-bind-try",
	    "/lib", "/lib", "--ro-bind-try", "/lib64", "/lib64",
	    "--ro-bind-try", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
	    "--tmpfs", "/tmp", "--bind", ws, "/sandbox", "--ro-bind", bin,
	    BOX_BIN, "--chdir", "/sandbox", BOX_BIN, "runner", NULL};
	/* clang-format on */
	pid_t pid = fork();
	if (pid != 0)
		_exit(pid < 0 ? 1 : 0);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	execve("/usr/bin/bwrap", (char *const *)(uintptr_t)argv, env);
	_exit(127);
}

/* The local box needs the workspace and the model's key variable. */
static int local_check(const gw_box_run *b, locus_error *err)
{
	if (!b->workspace || !b->key_env)
		return lu_err(err, LOCUS_EINVALID,
		              "a local box needs a workspace");
	return 0;
}

/* The local box: bwrap with the runner over the workspace. */
static int local_start(gw_server *s, const gw_box_run *b, locus_error *err)
{
	char *env[16] = {0};
	size_t n = 0;
	char bin[PATH_MAX];
	int rc = 0;
	if (!realpath(s->cfg.locus_bin ? s->cfg.locus_bin : "", bin))
		rc = lu_err(err, LOCUS_EIO, "the runner binary: %s",
		            strerror(errno));
	if (!rc) {
		put_env(env, &n, "PATH", "/usr/bin:/bin");
		put_env(env, &n, "HOME", "/sandbox");
		put_env(env, &n, "LANG", "C.UTF-8");
		put_env(env, &n, "LOCUS_ADMIT_URL", s->url);
		put_env(env, &n, "LOCUS_ADMIT_TOKEN", b->token);
		put_env(env, &n, "LOCUS_RUN_ID", b->run_id);
		put_env(env, &n, "LOCUS_RUNNER_ROOT", "/sandbox");
		/* no credential proxy in a local box: the gateway's own
		   value of the model's key variable */
		const char *key = getenv(b->key_env);
		put_env(env, &n, b->key_env, key ? key : "");
		static const char *const pass[] = {
		    "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", NULL};
		for (size_t i = 0; pass[i]; i++)
			if (getenv(pass[i]))
				put_env(env, &n, pass[i], getenv(pass[i]));
		pid_t pid = fork();
		if (pid == 0)
			spawn(b->workspace, bin, env);
		int status = 0;
		if (pid < 0 || waitpid(pid, &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			rc = lu_err(err, LOCUS_EIO, "the box could not start");
	}
	for (size_t i = 0; i < n; i++) {
		explicit_bzero(env[i], strlen(env[i]));
		free(env[i]);
	}
	return rc;
}

static const gw_box_ops box_local = {
    .kind = "local", .check = local_check, .start = local_start};

/* The kinds of box that have a process. */
static const gw_box_ops *const kinds[] = {&box_local, &gw_box_openshell};

static const gw_box_ops *box_kind(const char *box)
{
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (!strcmp(kinds[i]->kind, box))
			return kinds[i];
	return NULL;
}

int gw_box_start(gw_server *s, const char *run_id, locus_error *err)
{
	box_start b = {0};
	int rc = gw_tx_begin(&s->db, err);
	if (!rc) {
		rc = fresh_token(&s->db, run_id, &b, err);
		if (gw_tx_end(&s->db, rc == 0, err) && !rc)
			rc = LOCUS_EIO;
	}
	if (!rc) {
		gw_box_run run = run_of(run_id, &b);
		rc = b.ops->start(s, &run, err);
	}
	box_start_free(&b);
	return rc == 1 ? 0 : rc;
}
