/*
 * agents/hook_jail.c - `locus hook --jail`: the rewrite that runs an allowed
 * shell call under `locus jail` (docs/jail.md, docs/integrations.md).
 *
 * A shell line S becomes
 *
 *   'LOCUS' jail --root 'ROOT' [--network] -- /bin/bash -c 'S'
 *
 * where every word is single-quoted (a ' inside becomes '\''), so any line
 * (newlines, heredocs, quotes of every kind, $, `, \) reaches bash -c
 * byte for byte: the agent's shell performs no expansion inside single
 * quotes.  A NUL cannot occur (the hook refuses a payload that holds
 * one).  An argv array (Codex) becomes the argv that runs it in the jail,
 * element for element.  LOCUS is this program's own absolute path, so the
 * agent's PATH cannot put another `locus` in its place.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook.h"
#include "../util/buf.h"

/* This executable, absolute; "locus" when /proc cannot tell. */
static void self_path(char out[PATH_MAX])
{
	ssize_t n = readlink("/proc/self/exe", out, PATH_MAX - 1);
	if (n <= 0 || out[0] != '/') {
		snprintf(out, PATH_MAX, "locus");
		return;
	}
	out[n] = '\0';
}

static const char *shell_path(void)
{
	return access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh";
}

char *hook_jail_line(const char *line, const char *root, bool network)
{
	char self[PATH_MAX];
	self_path(self);
	lu_buf b = LU_BUF_INIT;
	lu_buf_shquote(&b, self);
	lu_buf_puts(&b, " jail --root ");
	lu_buf_shquote(&b, root);
	if (network)
		lu_buf_puts(&b, " --network");
	lu_buf_puts(&b, " -- ");
	lu_buf_puts(&b, shell_path());
	lu_buf_puts(&b, " -c ");
	lu_buf_shquote(&b, line);
	return lu_buf_take(&b);
}

/* ["LOCUS","jail","--root",ROOT,("--network"),"--", argv...] */
static cJSON *jail_argv(const cJSON *argv, const char *root, bool network)
{
	char self[PATH_MAX];
	self_path(self);
	cJSON *a = cJSON_CreateArray();
	const char *head[] = {self, "jail", "--root", root, "--network", "--"};
	for (size_t i = 0; a && i < 6; i++) {
		if (i == 4 && !network)
			continue;
		cJSON *s = cJSON_CreateString(head[i]);
		if (!s || !cJSON_AddItemToArray(a, s)) {
			cJSON_Delete(s);
			cJSON_Delete(a);
			return NULL;
		}
	}
	for (const cJSON *e = argv->child; a && e; e = e->next) {
		cJSON *s = cJSON_Duplicate(e, false);
		if (!s || !cJSON_AddItemToArray(a, s)) {
			cJSON_Delete(s);
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

cJSON *hook_jail_input(const cJSON *input, const char *root, bool network)
{
	cJSON *out = cJSON_Duplicate(input, true);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(input, "command");
	cJSON *nc = NULL;
	if (cJSON_IsString(c)) {
		char *line = hook_jail_line(c->valuestring, root, network);
		nc = line ? cJSON_CreateString(line) : NULL;
		free(line);
	} else if (cJSON_IsArray(c)) {
		nc = jail_argv(c, root, network);
	}
	if (!out || !nc ||
	    !cJSON_ReplaceItemInObjectCaseSensitive(out, "command", nc)) {
		cJSON_Delete(nc);
		cJSON_Delete(out);
		return NULL;
	}
	return out;
}
