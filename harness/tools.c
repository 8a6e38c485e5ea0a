/*
 * harness/tools.c - the harness: the tool table, building a harness over a
 * backend, the single gate every call passes (run_tool), previews, the
 * prompt fragment.  The tools themselves live in tool_*.c, the read ledger
 * in ledger.c, plans and their commit in plan.c (harness/tools.h).
 *
 * File-changing tools plan their changes in memory first (lh_change); a
 * call commits the plan, a preview renders it as a unified diff.  So a
 * failed edit, multi_edit or apply_patch writes nothing, and preview shows
 * exactly what a call would do.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"
#include "locus/labels.h"
#include "../util/regex.h"
#include "../util/tools.h"
#include "../util/array.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The public name lists, built from util/tools.h's table. */
#define ALL_(n, k, f, d, p, t) #n,
#define DEFAULT_(n, k, f, d, p, t) LU_IF_##d(#n, )
#define PATCHSET_(n, k, f, d, p, t) LU_IF_##p(#n, )
const char *const locus_all_tools[] = {LU_TOOLS(ALL_) NULL};
const char *const locus_default_tools[] = {LU_TOOLS(DEFAULT_) NULL};
const char *const locus_patch_tools[] = {LU_TOOLS(PATCHSET_) NULL};
#undef ALL_
#undef DEFAULT_
#undef PATCHSET_

/* ---------------- the table ---------------- */

#define S_PATH "\"path\":{\"type\":\"string\"}"
/* clang-format off */
static const tooldef TOOLS[] = {
    {"read",
     "Read a text file: numbered lines (1-based), offset/limit in lines.",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"offset\":{\"type\":\"integer\",\"default\":0},\"limit\":{"
     "\"type\":\"integer\",\"default\":2000}},\"required\":[\"path\"]}",
     lh_t_read, NULL, false},
    {"ls",
     "List a folder as a tree (hidden entries and build folders "
     "left out).",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"depth\":{\"type\":\"integer\",\"default\":2}}}",
     lh_t_ls, NULL, false},
    {"glob", "Find files by pattern (** for any depth), newest first.",
     "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":"
     "\"string\"}," S_PATH "},\"required\":[\"pattern\"]}",
     lh_t_glob, NULL, false},
    {"grep", "Search file contents with a PCRE2 regular expression.",
     "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":"
     "\"string\"}," S_PATH ",\"glob\":{\"type\":\"string\"},"
     "\"case_insensitive\":{\"type\":\"boolean\"},\"context\":{\"type\":"
     "\"integer\"},\"output_mode\":{\"enum\":[\"content\",\"files\","
     "\"count\"]},\"limit\":{\"type\":\"integer\"}},\"required\":["
     "\"pattern\"]}",
     lh_t_grep, NULL, false},
    {"edit",
     "Replace text in a file you have read; old must occur once "
     "unless replace_all.",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"old\":{\"type\":\"string\"},\"new\":{\"type\":\"string\"},"
     "\"replace_all\":{\"type\":\"boolean\",\"default\":false}},"
     "\"required\":[\"path\",\"old\",\"new\"]}",
     NULL, lh_t_edit, false},
    {"multi_edit", "Several edits to one file, all or nothing.",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"edits\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
     "\"properties\":{\"old\":{\"type\":\"string\"},\"new\":{\"type\":"
     "\"string\"},\"replace_all\":{\"type\":\"boolean\"}},\"required\":["
     "\"old\",\"new\"]}}},\"required\":[\"path\",\"edits\"]}",
     NULL, lh_t_multi_edit, false},
    {"write",
     "Create or replace a file (an existing one must have been "
     "read).",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"content\":{\"type\":\"string\"}},\"required\":[\"path\","
     "\"content\"]}",
     NULL, lh_t_write, false},
    {"apply_patch",
     "Apply a patch in the *** Begin Patch format, all or "
     "nothing.",
     "{\"type\":\"object\",\"properties\":{\"patch\":{\"type\":"
     "\"string\"}},\"required\":[\"patch\"]}",
     NULL, lh_t_apply_patch, false},
    {"notebook_edit", "Replace, insert or delete a Jupyter notebook cell.",
     "{\"type\":\"object\",\"properties\":{" S_PATH
     ",\"cell\":{\"type\":[\"integer\",\"string\"]},\"source\":{\"type\":"
     "\"string\"},\"mode\":{\"enum\":[\"replace\",\"insert\",\"delete\"]},"
     "\"cell_type\":{\"enum\":[\"code\",\"markdown\",\"raw\"]}},"
     "\"required\":[\"path\",\"cell\"]}",
     NULL, lh_t_notebook_edit, false},
    {"bash", "Run a shell command in the workspace.",
     "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":"
     "\"string\"},\"timeout\":{\"type\":\"integer\",\"default\":120},"
     "\"background\":{\"type\":\"boolean\",\"default\":false},"
     "\"on_timeout\":{\"enum\":[\"background\",\"kill\"]}},\"required\":["
     "\"command\"]}",
     lh_t_bash, NULL, true},
    {"bash_output", "New output of a background command.",
     "{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":"
     "\"string\"},\"since\":{\"type\":\"integer\"}},\"required\":["
     "\"handle\"]}",
     lh_t_bash_output, NULL, true},
    {"kill_shell", "Stop a background command (its whole process group).",
     "{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":"
     "\"string\"}},\"required\":[\"handle\"]}",
     lh_t_kill_shell, NULL, true},
    {"write_stdin", "Send text to a background command's stdin.",
     "{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":"
     "\"string\"},\"text\":{\"type\":\"string\"},\"close\":{\"type\":"
     "\"boolean\",\"default\":false}},\"required\":[\"handle\"]}",
     lh_t_write_stdin, NULL, true},
    {"todo_write", "Replace the session's todo list.",
     "{\"type\":\"object\",\"properties\":{\"todos\":{\"type\":\"array\","
     "\"items\":{\"type\":\"object\",\"properties\":{\"content\":{"
     "\"type\":\"string\"},\"status\":{\"enum\":[\"pending\","
     "\"in_progress\",\"completed\"]},\"id\":{\"type\":\"string\"}},"
     "\"required\":[\"content\",\"status\"]}}},\"required\":[\"todos\"]}",
     lh_t_todo_write, NULL, false},
    {"todo_read", "The session's todo list.",
     "{\"type\":\"object\",\"properties\":{}}", lh_t_todo_read, NULL,
     false},
};
/* clang-format on */
#define NTOOLS (sizeof TOOLS / sizeof *TOOLS)

static const tooldef *tool_by_name(const char *name)
{
	for (size_t i = 0; i < NTOOLS; i++)
		if (!strcmp(TOOLS[i].name, name))
			return &TOOLS[i];
	return NULL;
}

static const tooldef *built(const locus_harness *h, const char *name)
{
	for (size_t i = 0; i < h->ntools; i++)
		if (!strcmp(h->tools[i]->name, name))
			return h->tools[i];
	return NULL;
}

/* ---------------- the harness ---------------- */

int locus_harness_new(locus_harness **out, locus_backend *b,
                      const char *const *tools, locus_wrap_fn wrap,
                      void *wrap_payload, const locus_harness_config *cfg,
                      locus_error *err)
{
	if (!out)
		return lu_err(err, LOCUS_EUSAGE, "out is required");
	*out = NULL;
	if (!b || b->version < 1 || b->version > LOCUS_BACKEND_VERSION ||
	    !b->free)
		return lu_err(err, LOCUS_EUSAGE,
		              "the backend is missing or of another version");
	if (cfg && cfg->version != LOCUS_HARNESS_CONFIG_VERSION &&
	    cfg->version != 1)
		return lu_err(err, LOCUS_EINVALID,
		              "harness config: unknown version %u (start from "
		              "LOCUS_HARNESS_CONFIG_INIT)",
		              cfg->version);
	locus_harness *h = calloc(1, sizeof *h);
	if (!h)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	locus_harness_config def = LOCUS_HARNESS_CONFIG_INIT;
	h->cfg = cfg ? *cfg : def;
	/* version 1's bool at this place was require_read (true: the rule
	   on); version 2's is its negation, so that zero is the default */
	if (cfg && cfg->version == 1)
		h->cfg.allow_unread_edits = !cfg->allow_unread_edits;
	h->cfg.version = LOCUS_HARNESS_CONFIG_VERSION;
	/* unset or out-of-range values take LOCUS_HARNESS_CONFIG_INIT's, the
	   defaults' one home */
	if (!h->cfg.output_head_chars)
		h->cfg.output_head_chars = def.output_head_chars;
	if (h->cfg.bash_max_timeout < 1)
		h->cfg.bash_max_timeout = def.bash_max_timeout;
	if (h->cfg.bash_timeout < 1 ||
	    h->cfg.bash_timeout > h->cfg.bash_max_timeout)
		h->cfg.bash_timeout = h->cfg.bash_max_timeout < def.bash_timeout
		                          ? h->cfg.bash_max_timeout
		                          : def.bash_timeout;
	if (!h->cfg.output_chars)
		h->cfg.output_chars = def.output_chars;
	h->b = b;
	h->wrap = wrap;
	h->wrap_payload = wrap_payload;
	h->todos = cJSON_CreateArray();
	if (!h->todos) {
		free(h);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	bool defaults = tools == NULL;
	if (defaults)
		tools = locus_default_tools;
	/* keep the spec's order, whatever the order asked */
	for (size_t i = 0; tools[i]; i++) {
		const tooldef *t = tool_by_name(tools[i]);
		if (!t) {
			locus_harness_free(h);
			return lu_err(err, LOCUS_ENOTFOUND,
			              "no harness tool named '%s'", tools[i]);
		}
		if (t->shell && !b->can_exec) {
			if (defaults)
				continue;
			locus_harness_free(h);
			return lu_err(err, LOCUS_EINVALID,
			              "the %s backend has no shell for %s",
			              b->label, t->name);
		}
	}
	for (size_t k = 0; k < NTOOLS; k++)
		for (size_t i = 0; tools[i]; i++)
			if (!strcmp(tools[i], TOOLS[k].name) &&
			    (!TOOLS[k].shell || b->can_exec)) {
				h->tools[h->ntools++] = &TOOLS[k];
				break;
			}
	bool shell = false;
	for (size_t i = 0; i < h->ntools; i++)
		shell |= h->tools[i]->shell;
	if (!wrap && shell && !b->isolated && h->cfg.on_warning)
		h->cfg.on_warning(
		    "ungated shell tools: commands run on the host "
		    "with no gate deciding them",
		    h->cfg.payload);
	*out = h;
	return 0;
}

void locus_harness_free(locus_harness *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nled; i++)
		free(h->led[i].key);
	free(h->led);
	free(h->bgs);
	cJSON_Delete(h->todos);
	free(h);
}

bool locus_harness_gated(const locus_harness *h)
{
	return h && h->wrap;
}

size_t locus_harness_tool_count(const locus_harness *h)
{
	return h ? h->ntools : 0;
}

const char *locus_harness_tool_name(const locus_harness *h, size_t i)
{
	return h && i < h->ntools ? h->tools[i]->name : NULL;
}

const char *locus_harness_tool_description(const locus_harness *h,
                                           const char *name)
{
	const tooldef *t = h ? built(h, name) : NULL;
	return t ? t->description : NULL;
}

const char *locus_harness_tool_schema(const locus_harness *h, const char *name)
{
	const tooldef *t = h ? built(h, name) : NULL;
	return t ? t->schema : NULL;
}

static int run_tool(locus_harness *h, const char *tool, const char *args,
                    size_t args_len, bool preview, char **out, bool *is_error,
                    locus_error *err);

/*
 * The public entry: `args_len` bytes of arguments, not NUL-terminated.  A
 * raw NUL byte among them is refused like an escaped one (the gate and the
 * body must see one text); the rest runs on a NUL-terminated copy.
 */
static int run_call(locus_harness *h, const char *tool, const char *args,
                    size_t args_len, bool preview, char **out, bool *is_error,
                    locus_error *err)
{
	if (!out)
		return lu_err(err, LOCUS_EUSAGE, "out is required");
	*out = NULL;
	if (is_error)
		*is_error = true;
	if (!h || !tool)
		return lu_err(err, LOCUS_EUSAGE, "a harness and a tool name");
	if (!args)
		args_len = 0;
	char *z = malloc(args_len + 1);
	if (!z)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (args_len)
		memcpy(z, args, args_len);
	z[args_len] = '\0';
	int rc = run_tool(h, tool, z, args_len, preview, out, is_error, err);
	free(z);
	return rc;
}

static int run_tool(locus_harness *h, const char *tool, const char *args,
                    size_t args_len, bool preview, char **out, bool *is_error,
                    locus_error *err)
{
	const tooldef *t = built(h, tool);
	if (!t)
		return lu_err(err, LOCUS_ENOTFOUND,
		              "no tool named '%s' in this "
		              "harness",
		              tool);
	lu_buf o = {0};
	bool ok = false;
	cJSON *a = NULL;
	/* strict: the gate and the body must read one value */
	lu_json_problem jp = lh_args_read(&a, args, args_len, &o);
	if (jp == LU_JSON_NOMEM)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (jp != LU_JSON_OK)
		goto done;
	if (!preview && h->wrap && !locus_call_cancelled(h->ctl)) {
		/* the single gate: nothing runs unless it allows */
		char *why = NULL;
		if (!lh_wrap_allows(h->wrap, h->wrap_payload, tool,
		                    *args ? args : "{}", *args ? args_len : 2,
		                    &why)) {
			/* the wrap's text is what the model gets: the
			   policy wrap gives the refusal JSON */
			lu_buf_puts(&o, why ? why
			                    : "refused: the gate did "
			                      "not allow this call");
			free(why);
			goto done;
		}
	}
	if (locus_call_cancelled(h->ctl)) {
		lu_buf_puts(&o, "cancelled before it started: nothing ran");
		goto done;
	}
	lh_change *plan = NULL;
	size_t np = 0;
	if (preview && !t->plan) {
		cJSON_Delete(a);
		return 0; /* *out NULL: not a file tool */
	}
	ok = t->plan ? t->plan(h, a, &o, &plan, &np) : t->run(h, a, &o);
	if (ok && t->plan && locus_call_cancelled(h->ctl)) {
		/* cancelled while planning: the change is never made */
		ok = false;
		lu_buf_puts(&o, "cancelled: no file was changed");
	} else if (ok && t->plan) {
		if (preview) {
			for (size_t i = 0; i < np; i++) {
				char *d = lh_unified_diff(
				    plan[i].path,
				    plan[i].had ? plan[i].old : NULL,
				    plan[i].olen,
				    plan[i].del ? NULL : plan[i].data,
				    plan[i].len);
				if (d)
					lu_buf_puts(&o, d);
				free(d);
			}
		} else {
			ok = lh_commit(h, plan, np, &o);
		}
	}
	lh_changes_free(plan, np);
done:
	cJSON_Delete(a);
	if (is_error)
		*is_error = !ok;
	if (!o.oom && memchr(o.d ? o.d : "", '\0', o.len)) {
		/* the last net: whatever a tool put in, nothing is cut */
		lu_buf shown = {0};
		lh_buf_add_shown(&shown, o.d, o.len);
		lu_buf_free(&o);
		o = shown;
	}
	*out = lu_buf_take(&o);
	if (!*out)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	return 0;
}

int locus_harness_call(char **out, bool *is_error, locus_harness *h,
                       const char *tool, const char *args_json, size_t args_len,
                       locus_error *err)
{
	return run_call(h, tool, args_json, args_len, false, out, is_error,
	                err);
}

void locus_call_cancel(locus_call_ctl *ctl)
{
	if (ctl)
		__atomic_store_n(&ctl->cancelled, 1, __ATOMIC_SEQ_CST);
}

int locus_harness_call_ctl(char **out, bool *is_error, locus_harness *h,
                           const char *tool, const char *args_json,
                           size_t args_len, locus_call_ctl *ctl,
                           locus_error *err)
{
	if (ctl && ctl->version != LOCUS_CALL_CTL_VERSION) {
		if (out)
			*out = NULL;
		return lu_err(err, LOCUS_EINVALID,
		              "call control: unknown version %u", ctl->version);
	}
	if (!h)
		return run_call(h, tool, args_json, args_len, false, out,
		                is_error, err);
	h->ctl = ctl;
	int rc =
	    run_call(h, tool, args_json, args_len, false, out, is_error, err);
	h->ctl = NULL;
	if (!rc && locus_call_cancelled(ctl) && is_error)
		*is_error = true;
	return rc;
}

int locus_harness_preview(char **out, locus_harness *h, const char *tool,
                          const char *args_json, size_t args_len,
                          locus_error *err)
{
	bool e;
	return run_call(h, tool, args_json, args_len, true, out, &e, err);
}

/* What bash does at its timeout: only what the gate really allows. */
static void bash_fragment(const locus_harness *h, lu_buf *o)
{
	lh_bg_word bg = h->wrap ? lh_wrap_background(h->wrap, h->wrap_payload)
	                        : LH_BG_ALLOWED;
	lu_buf_printf(o, "bash waits %ds by default (at most %ds). ",
	              h->cfg.bash_timeout, h->cfg.bash_max_timeout);
	if (bg == LH_BG_ALLOWED)
		lu_buf_puts(o, "Run servers and watchers with background=true "
		               "and read them with bash_output.\n");
	else if (bg == LH_BG_REFUSED)
		lu_buf_puts(o, "This policy does not allow background "
		               "commands (exec:background): background=true "
		               "is refused and a command still running at its "
		               "timeout is killed, so do not start servers or "
		               "watchers.\n");
	else /* held, or a wrap whose word is per call */
		lu_buf_puts(o, "A background command (background=true, or "
		               "one still running at its timeout) needs the "
		               "policy's approval (exec:background); without "
		               "it the command is refused or killed at its "
		               "timeout.\n");
}

int locus_harness_prompt_fragment(char **out, const locus_harness *h)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!h)
		return LOCUS_EUSAGE;
	lu_buf o = {0};
	lu_buf_printf(&o,
	              "## Workspace\nThe workspace is %s, rooted at %s. "
	              "Paths are relative to that root.\n",
	              h->b->label, h->b->root);
	if (h->b->can_exec && !h->b->isolated)
		lu_buf_puts(&o,
		            "Commands run directly on the host machine, not "
		            "in a sandbox: anything a command does is "
		            "real.\n");
	bool edit = built(h, "edit") || built(h, "write") ||
	            built(h, "multi_edit") || built(h, "apply_patch") ||
	            built(h, "notebook_edit");
	if (!h->cfg.allow_unread_edits && edit)
		lu_buf_puts(&o,
		            "Read a file before you change it. A change to a "
		            "file you have not read, or that changed since "
		            "you read it, is refused.\n");
	if (built(h, "bash"))
		bash_fragment(h, &o);
	if (built(h, "apply_patch"))
		lu_buf_puts(&o, "Change files with apply_patch.\n");
	*out = lu_buf_take(&o);
	return *out ? 0 : LOCUS_ENOMEM;
}

int locus_harness_todos_json(char **out, const locus_harness *h)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!h)
		return LOCUS_EUSAGE;
	/* cJSON's buffer is copied: what we hand out is locus_free's */
	char *s = cJSON_PrintUnformatted(h->todos);
	if (!s)
		return LOCUS_ENOMEM;
	*out = strdup(s);
	cJSON_free(s);
	return *out ? 0 : LOCUS_ENOMEM;
}

int locus_harness_spec(struct locus_action **out, const locus_harness *h,
                       const char *tool, const char *args_json, size_t args_len,
                       locus_error *err)
{
	if (!out)
		return lu_err(err, LOCUS_EUSAGE, "out is required");
	*out = NULL;
	if (!h || !tool || !built(h, tool))
		return lu_err(err, LOCUS_ENOTFOUND,
		              "no tool named '%s' in this harness",
		              tool ? tool : "(null)");
	bool empty = !args_json || args_len == 0;
	/* outside-workspace is judged against the backend's root */
	locus_action_options ao = LOCUS_ACTION_OPTIONS_INIT;
	if (h->b->root && h->b->root[0] == '/')
		ao.workspace_root = h->b->root;
	int rc =
	    locus_action_derive_opts(out, NULL, tool, empty ? "{}" : args_json,
	                             empty ? 2 : args_len, &ao, err);
	if (!rc && h->cfg.environment &&
	    locus_action_set_environment(*out, h->cfg.environment)) {
		locus_action_free(*out);
		*out = NULL;
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return rc;
}
