/*
 * runner/secrets.c - what commands in the box must never see: the run's
 * token and the placeholders the manifest names (the model key's, the
 * connectors' and mounts' credentials).  The runner copies their values
 * for its own use, then, before any command runs, overwrites each value in
 * place (the strings `environ` points at: for variables set before exec
 * they are the initial environment block /proc/<pid>/environ shows) and
 * removes the variable from `environ`, so commands neither inherit it nor
 * read it from the runner's /proc entry.  It then reads its own
 * /proc/self/environ back and fails closed if a value is still there.
 * LOCUS_RUNNER_HARDEN=non-dumpable adds prctl(PR_SET_DUMPABLE, 0): no
 * ptrace, no /proc/<pid>/mem, no core dump by the same user.
 */
#include "runner/runner.h"

#include "util/error.h"
#include "util/read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char **environ;

int lr_secrets_take(lr_secrets *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!names[i] || !*names[i])
			continue;
		bool seen = false;
		for (size_t k = 0; k < s->n && !seen; k++)
			seen = !strcmp(s->names[k], names[i]);
		const char *v = getenv(names[i]);
		if (seen || !v)
			continue;
		char **nn = realloc(s->names, (s->n + 1) * sizeof *nn);
		if (!nn)
			return LOCUS_ENOMEM;
		s->names = nn;
		char **vv = realloc(s->values, (s->n + 1) * sizeof *vv);
		if (!vv)
			return LOCUS_ENOMEM;
		s->values = vv;
		s->names[s->n] = strdup(names[i]);
		s->values[s->n] = strdup(v);
		if (!s->names[s->n] || !s->values[s->n]) {
			free(s->names[s->n]);
			free(s->values[s->n]);
			return LOCUS_ENOMEM;
		}
		s->n++;
	}
	return 0;
}

const char *lr_secrets_get(const lr_secrets *s, const char *name)
{
	for (size_t i = 0; name && i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return s->values[i];
	return NULL;
}

/* Overwrite NAME's value in every environ string that sets it, then drop
   the variable. */
static void wipe_one(const char *name)
{
	size_t nl = strlen(name);
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, name, nl) && (*e)[nl] == '=')
			explicit_bzero(*e + nl + 1, strlen(*e + nl + 1));
	unsetenv(name);
}

/* True when /proc/self/environ still holds one of the values. */
static bool proc_shows(const lr_secrets *s)
{
	char *env = NULL;
	size_t len = 0;
	int rc =
	    lu_read_path("/proc/self/environ", LR_MAX_STATE_FILE, &env, &len);
	if (rc < 0 && errno != ENOMEM)
		return false; /* no /proc: nothing for a command to read either */
	if (rc)
		return true; /* it could not be checked: fail closed */
	bool found = false;
	for (size_t i = 0; i < s->n && !found; i++) {
		size_t vl = strlen(s->values[i]);
		for (size_t k = 0; vl && k + vl <= len && !found; k++)
			found = !memcmp(env + k, s->values[i], vl);
	}
	explicit_bzero(env, len);
	free(env);
	return found;
}

int lr_secrets_wipe(const lr_secrets *s, bool harden, locus_error *err)
{
	for (size_t i = 0; i < s->n; i++)
		wipe_one(s->names[i]);
	if (harden && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return lu_err(err, LOCUS_EIO, "prctl(PR_SET_DUMPABLE) failed");
	if (proc_shows(s))
		return lu_err(err, LOCUS_EIO,
		              "a secret is still readable in "
		              "/proc/self/environ");
	return 0;
}

void lr_secrets_free(lr_secrets *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->names[i]);
		if (s->values[i])
			explicit_bzero(s->values[i], strlen(s->values[i]));
		free(s->values[i]);
	}
	free(s->names);
	free(s->values);
	memset(s, 0, sizeof *s);
}
