/*
 * agents/hook_codex.c - Codex's hook trust, asked of Codex itself.
 *
 * Codex 0.171 runs a configured hook only once the user trusts it: its
 * user config.toml then holds `[hooks.state."KEY"] trusted_hash =
 * "sha256:..."`, KEY naming the source file, the event and the entry
 * (`/home/u/.codex/config.toml:pre_tool_use:0:0`), the hash being Codex's
 * own digest of the entry.  Rather than recompute that digest (Codex's
 * private format), locus asks `codex app-server` (JSON-RPC on stdio, no
 * network needed): `hooks/list` gives every hook's key, currentHash and
 * trustStatus.  `locus hook install codex --write` then writes the
 * hashes of its own hooks as Codex's "Trust" does, and `locus hook
 * doctor` reports a locus hook Codex would not run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hook.h"
#include "../util/clock.h"
#include "../util/json.h"

/* Codex is a Node program: its app-server can take tens of seconds to
 * answer on a loaded machine, and install/doctor are run by a person, not
 * on every call, so the wait is long. */
#define CODEX_LIST_TIMEOUT_S 120

/* Send the three requests; read lines until the answer to id 2. */
static cJSON *converse(int in, int out, const char *cwd)
{
	cJSON *params = cJSON_CreateObject();
	cJSON *cwds = params ? cJSON_AddArrayToObject(params, "cwds") : NULL;
	if (!cwds || !cJSON_AddItemToArray(cwds, cJSON_CreateString(cwd))) {
		cJSON_Delete(params);
		return NULL;
	}
	char *p = cJSON_PrintUnformatted(params);
	cJSON_Delete(params);
	if (!p)
		return NULL;
	char *req = NULL;
	int n = asprintf(
	    &req,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"clientInfo\":{\"name\":\"locus\",\"version\":"
	    "\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"hooks/list\","
	    "\"params\":%s}\n",
	    p);
	cJSON_free(p);
	if (n < 0)
		return NULL;
	bool sent = write(in, req, (size_t)n) == n;
	free(req);
	if (!sent)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	double end = lu_now() + CODEX_LIST_TIMEOUT_S;
	cJSON *result = NULL;
	while (!result && lu_now() < end) {
		struct pollfd pf = {out, POLLIN, 0};
		if (poll(&pf, 1, 200) <= 0)
			continue;
		if (len + 65536 > cap) {
			char *nb = realloc(buf, cap = len + 65536 + cap);
			if (!nb)
				break;
			buf = nb;
		}
		ssize_t r = read(out, buf + len, cap - len - 1);
		if (r <= 0)
			break;
		len += (size_t)r;
		buf[len] = '\0';
		char *line = buf, *nl;
		while (!result && (nl = strchr(line, '\n'))) {
			*nl = '\0';
			cJSON *m = cJSON_Parse(line);
			const cJSON *id =
			    cJSON_GetObjectItemCaseSensitive(m, "id");
			if (cJSON_IsNumber(id) && id->valueint == 2)
				result =
				    cJSON_DetachItemFromObjectCaseSensitive(
				        m, "result");
			cJSON_Delete(m);
			line = nl + 1;
		}
		len -= (size_t)(line - buf);
		memmove(buf, line, len);
	}
	free(buf);
	return result;
}

cJSON *hook_codex_hooks(const char *codex_home, const char *cwd, char *why,
                        size_t wl)
{
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC)) {
		snprintf(why, wl, "pipe: %s", strerror(errno));
		return NULL;
	}
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		snprintf(why, wl, "pipe: %s", strerror(errno));
		return NULL;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		int nul = open("/dev/null", O_WRONLY);
		if (nul >= 0)
			dup2(nul, 2);
		setpgid(0, 0);
		if (codex_home)
			setenv("CODEX_HOME", codex_home, 1);
		execlp("codex", "codex", "app-server", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	cJSON *res = pid > 0 ? converse(in[1], out[0], cwd) : NULL;
	close(in[1]);
	close(out[0]);
	if (pid > 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (!res) {
		snprintf(
		    why, wl,
		    "`codex app-server` did not list the hooks within %d s "
		    "(is codex on PATH?)",
		    CODEX_LIST_TIMEOUT_S);
		return NULL;
	}
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(res, "data");
	cJSON *first = cJSON_IsArray(data) ? data->child : NULL;
	cJSON *hooks =
	    first ? cJSON_DetachItemFromObjectCaseSensitive(first, "hooks")
	          : NULL;
	cJSON_Delete(res);
	if (!cJSON_IsArray(hooks)) {
		cJSON_Delete(hooks);
		snprintf(why, wl, "`codex app-server` answered no hook list");
		return NULL;
	}
	return hooks;
}

bool hook_codex_is_ours(const cJSON *h, const char *source)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(h, "command");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(h, "sourcePath");
	return cJSON_IsString(c) &&
	       strstr(c->valuestring, "locus hook codex") &&
	       cJSON_IsString(src) && !strcmp(src->valuestring, source);
}
