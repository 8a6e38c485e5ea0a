/*
 * agents/hook_calls.c - what one hook payload asks for, as calls for the gate.
 *
 * The gate (policy/decide.c) knows the agents' plain tool names; this file
 * handles what the agents really send beyond them:
 *
 *   Codex shell       ["bash","-lc","S"] or "bash -lc 'S'": judged as S, so
 *                     rules and labels see the script itself
 *   Claude Monitor    a Bash command run as a watcher: Bash rules apply
 *   Claude Bash       dangerouslyDisableSandbox: true is held
 *   Gemini shell      is_background: true is a background command
 *   Gemini web_fetch  the URLs sit inside `prompt`: each one is a fetch
 *   read_many_files   every entry of `include` is a read (the call is
 *                     those reads; without entries it is an unknown tool)
 *   MCP tools         mcp__server__tool (Claude, Codex), mcp_server_tool
 *                     (Gemini, renamed from its mcp_context): a string
 *                     `command`/`cmd`/`script` argument is also judged as a
 *                     shell line
 *   path fields       path, file_path, notebook_path, absolute_path must
 *                     agree when several are given
 *
 * Every other tool is one call with its name and input as sent.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"
#include "../util/buf.h"
#include "../util/json.h"
#include "locus/harness.h"
#include "locus/shell.h"

void hook_plan_free(hook_plan *plan)
{
	for (size_t i = 0; i < plan->ncalls; i++) {
		free(plan->calls[i].tool);
		cJSON_Delete(plan->calls[i].input);
	}
	free(plan->calls);
	memset(plan, 0, sizeof(*plan));
}

/* Add a call; takes `input` (deleted on failure).  0 or -1. */
static int add_call(hook_plan *plan, const char *tool, cJSON *input)
{
	char *t = strdup(tool);
	hook_call *n =
	    t && input ? realloc(plan->calls, (plan->ncalls + 1) * sizeof(*n))
	               : NULL;
	if (!n) {
		free(t);
		cJSON_Delete(input);
		return -1;
	}
	plan->calls = n;
	plan->calls[plan->ncalls].tool = t;
	plan->calls[plan->ncalls].input = input;
	plan->ncalls++;
	return 0;
}

/* A one-field input {key: value}. */
static cJSON *one_field(const char *key, const char *value)
{
	cJSON *o = cJSON_CreateObject();
	if (o && !cJSON_AddStringToObject(o, key, value)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static const char *str_field(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Set (or replace) a string field. 0 or -1. */
static int set_str(cJSON *o, const char *k, const char *v)
{
	cJSON *s = cJSON_CreateString(v);
	if (!s)
		return -1;
	if (cJSON_GetObjectItemCaseSensitive(o, k))
		return cJSON_ReplaceItemInObjectCaseSensitive(o, k, s) ? 0 : -1;
	return cJSON_AddItemToObject(o, k, s) ? 0 : -1;
}

/* --- shell lines ---------------------------------------------------------- */

static bool is_posix_shell(const char *argv0)
{
	static const char *const shells[] = {"bash", "sh",  "zsh",
	                                     "dash", "ksh", NULL};
	static const char *const dirs[] = {"", "/bin/", "/usr/bin/",
	                                   "/usr/local/bin/", NULL};
	for (size_t d = 0; dirs[d]; d++) {
		size_t dl = strlen(dirs[d]);
		if (strncmp(argv0, dirs[d], dl) != 0)
			continue;
		for (size_t s = 0; shells[s]; s++)
			if (strcmp(argv0 + dl, shells[s]) == 0)
				return true;
	}
	return false;
}

/* The index of the script in `sh -c S`, `bash -lc S`, `bash -l -c S`
 * (nothing after S), or 0 when argv is not exactly that. */
static size_t shell_c_script(size_t argc, const char *const *argv)
{
	if (argc < 3 || !is_posix_shell(argv[0]))
		return 0;
	if (argc == 3 && (!strcmp(argv[1], "-c") || !strcmp(argv[1], "-lc") ||
	                  !strcmp(argv[1], "-cl")))
		return 2;
	if (argc == 4 && !strcmp(argv[1], "-l") && !strcmp(argv[2], "-c"))
		return 3;
	return 0;
}

/* A line that is exactly `bash -lc 'SCRIPT'` (one static command, no
 * wrapper, assignment, redirect or connector): SCRIPT, malloc'd; else
 * NULL. */
static char *unwrap_line(const char *line)
{
	locus_shell_result *sh = locus_shell_parse(line, strlen(line), NULL);
	if (!sh)
		return NULL;
	char *out = NULL;
	size_t n = locus_shell_result_count(sh);
	const locus_shell_command *c =
	    n ? locus_shell_result_command(sh, 0) : NULL;
	bool one_top = c && locus_shell_result_parsed(sh);
	for (size_t i = 1; one_top && i < n; i++) {
		const locus_shell_command *o =
		    locus_shell_result_command(sh, i);
		one_top = o && o->depth > 0;
	}
	if (one_top && c->depth == 0 && c->nwrappers == 0 &&
	    c->nassignments == 0 && c->nredirects == 0 &&
	    !(c->flags & (LOCUS_CMD_BACKGROUND | LOCUS_CMD_DYNAMIC |
	                  LOCUS_CMD_DYNAMIC_ARGS | LOCUS_CMD_GLOB_ARGS))) {
		size_t k = shell_c_script(c->argc, c->argv);
		if (k && c->argc == c->nwords)
			out = strdup(c->argv[k]);
	}
	locus_shell_result_free(sh);
	return out;
}

/*
 * The shell line of a Bash-like input, in place: an argv array becomes
 * the one line that runs exactly it (["bash","-lc",S] becomes S), and a
 * line that is only `bash -lc 'S'` becomes S.  0; -1 out of memory; 1
 * for an argv that is not an array of strings.
 */
static int shell_line(cJSON *input)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(input, "command");
	char *line = NULL;
	if (cJSON_IsArray(c)) {
		size_t argc = (size_t)cJSON_GetArraySize(c), i = 0;
		const char **argv = calloc(argc + 1, sizeof(*argv));
		if (!argv)
			return -1;
		for (const cJSON *e = c->child; e; e = e->next) {
			if (!cJSON_IsString(e)) {
				free(argv);
				return 1;
			}
			argv[i++] = e->valuestring;
		}
		if (argc == 0) {
			free(argv);
			return 1;
		}
		size_t k = shell_c_script(argc, argv);
		if (k) {
			line = strdup(argv[k]);
		} else {
			lu_buf b = LU_BUF_INIT;
			for (i = 0; i < argc; i++) {
				if (i)
					lu_buf_putc(&b, ' ');
				lu_buf_shquote(&b, argv[i]);
			}
			line = lu_buf_take(&b);
		}
		free(argv);
		if (!line)
			return -1;
	} else if (cJSON_IsString(c)) {
		line = unwrap_line(c->valuestring);
		if (!line)
			return 0; /* judged as written */
	} else {
		return 0; /* the gate refuses the wrong type */
	}
	/* an unwrapped script may itself be a wrapper: one more level */
	char *inner = unwrap_line(line);
	if (inner) {
		free(line);
		line = inner;
	}
	int rc = set_str(input, "command", line);
	free(line);
	return rc;
}

/* --- the payload's quirks ------------------------------------------------- */

static const char *const path_fields[] = {"path", "file_path", "notebook_path",
                                          "absolute_path", NULL};

/* Several path fields must name the same path: the tool may read one and
 * the policy another.  0, or 1 with `why`. */
static int paths_agree(const cJSON *input, char *why, size_t wl)
{
	const char *first = NULL, *fname = NULL;
	for (size_t i = 0; path_fields[i]; i++) {
		const cJSON *v =
		    cJSON_GetObjectItemCaseSensitive(input, path_fields[i]);
		if (!v)
			continue;
		if (!cJSON_IsString(v)) {
			snprintf(why, wl, "\"%s\" must be a string",
			         path_fields[i]);
			return 1;
		}
		if (!first) {
			first = v->valuestring;
			fname = path_fields[i];
		} else if (strcmp(first, v->valuestring) != 0) {
			snprintf(
			    why, wl,
			    "\"%s\" and \"%s\" name different paths; the call "
			    "cannot be judged",
			    fname, path_fields[i]);
			return 1;
		}
	}
	return 0;
}

static bool tool_is(const char *tool, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(tool, *names) == 0)
			return true;
	return false;
}

static bool is_mcp(const char *tool)
{
	return strncmp(tool, "mcp_", 4) == 0;
}

/* Gemini names MCP tools mcp_<server>_<tool>; its mcp_context says which
 * is which.  The Claude form mcp__server__tool lets Claude-style rules
 * (mcp__server) apply.  NULL when it cannot be told. */
static char *gemini_mcp_name(const char *tool, const cJSON *mcp)
{
	const char *server = str_field(mcp, "server_name");
	const char *name = str_field(mcp, "tool_name");
	if (!server || !name || !server[0] || !name[0] ||
	    strncmp(tool, "mcp__", 5) == 0)
		return NULL;
	size_t n = strlen(server) + strlen(name) + 8;
	char *out = malloc(n);
	if (!out)
		return NULL;
	snprintf(out, n, "mcp__%s__%s", server, name);
	for (char *p = out; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-.:", *p))
			*p = '_';
	return out;
}

/* URLs written in a web_fetch prompt (http:// and https://). */
static int prompt_urls(hook_plan *plan, const char *prompt)
{
	for (const char *p = prompt; *p; p++) {
		if (strncasecmp(p, "http://", 7) != 0 &&
		    strncasecmp(p, "https://", 8) != 0)
			continue;
		size_t n = strcspn(p, " \t\r\n\"'<>()[]{}`");
		while (n && strchr(".,;:!?", p[n - 1]))
			n--;
		char *url = strndup(p, n);
		if (!url)
			return -1;
		int rc = add_call(plan, "WebFetch", one_field("url", url));
		free(url);
		if (rc)
			return -1;
		p += n ? n - 1 : 0;
	}
	return 0;
}

/* read_many_files: one Read per entry of `include` (strings). */
static int include_reads(hook_plan *plan, const cJSON *input)
{
	const cJSON *inc = cJSON_GetObjectItemCaseSensitive(input, "include");
	if (cJSON_IsString(inc))
		return add_call(plan, "Read",
		                one_field("file_path", inc->valuestring));
	if (!cJSON_IsArray(inc))
		return 0;
	for (const cJSON *e = inc->child; e; e = e->next)
		if (cJSON_IsString(e) &&
		    add_call(plan, "Read",
		             one_field("file_path", e->valuestring)))
			return -1;
	return 0;
}

/* MCP arguments that carry a shell line. */
static int mcp_shell(hook_plan *plan, const cJSON *input)
{
	static const char *const keys[] = {"command", "cmd", "script", NULL};
	for (size_t i = 0; keys[i]; i++) {
		const char *v = str_field(input, keys[i]);
		if (v && add_call(plan, "Bash", one_field("command", v)))
			return -1;
	}
	return 0;
}

static const char *const bash_like[] = {"Bash",  "Monitor",           "bash",
                                        "shell", "run_shell_command", NULL};

int hook_shell_unwrap(cJSON *input)
{
	return shell_line(input);
}

bool hook_tool_is_shell(const char *tool)
{
	return tool_is(tool, bash_like);
}

char *hook_policy_wrap(const char *tool, const char *args_json, size_t args_len,
                       void *wrap_payload)
{
	char *judged = NULL;
	if (tool && args_json && hook_tool_is_shell(tool) &&
	    !lu_json_has_nul_escape(args_json, args_len)) {
		cJSON *a = NULL;
		lu_json_read(&a, args_json, args_len, NULL, NULL);
		if (cJSON_IsObject(a) && hook_shell_unwrap(a) == 0)
			judged = cJSON_PrintUnformatted(a);
		cJSON_Delete(a);
	}
	char *r = judged ? locus_harness_policy_wrap(
	                       tool, judged, strlen(judged), wrap_payload)
	                 : locus_harness_policy_wrap(tool, args_json, args_len,
	                                             wrap_payload);
	cJSON_free(judged);
	return r;
}

int hook_plan_build(hook_plan *plan, const char *tool, const cJSON *input,
                    const cJSON *mcp, char *why, size_t whylen)
{
	memset(plan, 0, sizeof(*plan));
	if (paths_agree(input, why, whylen))
		return 1;
	cJSON *in = cJSON_Duplicate(input, true);
	if (!in)
		return -1;
	const char *name = tool;
	char *mcp_name = is_mcp(tool) ? gemini_mcp_name(tool, mcp) : NULL;
	if (mcp_name)
		name = mcp_name;
	int rc = 0;
	if (tool_is(tool, bash_like)) {
		rc = shell_line(in);
		if (rc == 1)
			snprintf(why, whylen,
			         "\"command\" must be a string or an array of "
			         "strings");
		const cJSON *dis = cJSON_GetObjectItemCaseSensitive(
		    in, "dangerouslyDisableSandbox");
		if (cJSON_IsTrue(dis))
			plan->hold_reason = "the call asks to run outside the "
			                    "agent's sandbox "
			                    "(dangerouslyDisableSandbox)";
		const cJSON *bg =
		    cJSON_GetObjectItemCaseSensitive(in, "is_background");
		if (!rc && cJSON_IsTrue(bg) &&
		    !cJSON_GetObjectItemCaseSensitive(in,
		                                      "run_in_background") &&
		    !cJSON_AddTrueToObject(in, "run_in_background"))
			rc = -1;
		/* Monitor runs its command as a watcher: Bash rules apply */
		if (!strcmp(tool, "Monitor"))
			name = "Bash";
	}
	if (rc) {
		cJSON_Delete(in);
		free(mcp_name);
		return rc;
	}
	/* read_many_files is its reads; any other call is judged itself (by
	   its name: an unknown tool is labelled by it) */
	if (!strcmp(tool, "read_many_files"))
		rc = include_reads(plan, input);
	if (!rc && plan->ncalls == 0)
		rc = add_call(plan, name, in);
	else
		cJSON_Delete(in);
	if (!rc && !strcmp(tool, "web_fetch") && str_field(input, "prompt"))
		rc = prompt_urls(plan, str_field(input, "prompt"));
	if (!rc && is_mcp(tool))
		rc = mcp_shell(plan, input);
	free(mcp_name);
	if (rc)
		hook_plan_free(plan);
	return rc;
}
