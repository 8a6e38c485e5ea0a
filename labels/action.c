/*
 * labels/action.c - Actions: what one tool call would do (spec shell.md
 * section 2), derived from the tool name and its JSON arguments, and their
 * `locus classify` JSON rendering (section 3).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "../parser/internal.h"
#include "../util/array.h"
#include "../util/json.h"
#include "../util/tools.h"
#include "../util/utf8.h"

/* The action's strings (tool, tags, asset, environment, reasons, the
   line) are copied into blocks the action owns, freed with it: one free
   a block, not one a string (about eleven strings a line, each with its
   malloc and free, were a twentieth of a line's instructions).  A string
   replaced (set_string) stays in its block until the action is freed. */
typedef struct str_block {
	struct str_block *next;
	size_t used, cap;
	char data[];
} str_block;
enum { STR_BLOCK = 1024 - sizeof(str_block) };

struct locus_action {
	str_block *strs; /* the newest block first */
	char *tool;
	locus_kind kind;
	char **tags; /* sorted, unique */
	size_t ntags, cap;
	uint32_t exec_tags;
	char *asset;
	char *environment;
	int64_t blast_radius;
	double cost_usd;
	const char *never; /* static */
	char **reasons;
	size_t nreasons, rcap;
	bool is_bash;
	char *command; /* bash only */
	locus_shell_result *shell;
};

/* ---- names ------------------------------------------------------------ */

/* clang-format off */
static const char *const kind_names[] = {
	"workspace.read", "workspace.write", "workspace.exec", "network",
};
/* clang-format on */

const char *locus_kind_name(locus_kind kind)
{
	if ((unsigned)kind >= sizeof kind_names / sizeof *kind_names)
		return "";
	return kind_names[kind];
}

static const struct {
	uint32_t bit;
	const char *name;
	/* clang-format off */
} tag_names[LOCUS_TAG_COUNT] = {
	{ LOCUS_TAG_DESTRUCTIVE, "exec:destructive" },
    /* clang-format on */
    {LOCUS_TAG_VCS_PUSH, "exec:vcs-push"},
    {LOCUS_TAG_FORCE_PUSH, "exec:force-push"},
    {LOCUS_TAG_NETWORK, "exec:network"},
    {LOCUS_TAG_REMOTE_CODE, "exec:remote-code"},
    {LOCUS_TAG_SHUTDOWN, "exec:shutdown"},
    {LOCUS_TAG_CHECK, "exec:check"},
    {LOCUS_TAG_NEVER, "exec:never"},
    {LOCUS_TAG_BACKGROUND, "exec:background"},
    {LOCUS_TAG_UNPARSED, "exec:unparsed"},
    {LOCUS_TAG_STDIN, "exec:stdin"},
    {LOCUS_TAG_SECRETS, "exec:secrets"},
    {LOCUS_TAG_PERSISTENCE, "exec:persistence"},
    {LOCUS_TAG_PRIVILEGE, "exec:privilege"},
    {LOCUS_TAG_OUTSIDE, "outside-workspace"},
    {LOCUS_TAG_UNKNOWN, "exec:unknown"},
    {LOCUS_TAG_AGENT_CONFIG, "agent-config"},
};

/* Row i holds bit 1 << i: a tag's name is one index away. */
const char *locus_tag_name(uint32_t bit)
{
	if (bit == 0 || (bit & (bit - 1)) != 0)
		return NULL; /* not exactly one bit */
	unsigned i = (unsigned)__builtin_ctz(bit);
	return i < LOCUS_TAG_COUNT && tag_names[i].bit == bit
	           ? tag_names[i].name
	           : NULL;
}

/* Every call names the tag it adds ("bash", "read", "exec:stdin"): the
   first byte rejects a tool's name without a call. */
uint32_t ll_tag_bit(const char *name)
{
	for (size_t i = 0; i < LOCUS_TAG_COUNT; i++)
		if (tag_names[i].name[0] == name[0] &&
		    strcmp(tag_names[i].name, name) == 0)
			return tag_names[i].bit;
	return 0;
}

/* A harness tool's kind (its row is util/tools.c's). */
static locus_kind tool_kind(const lu_tool *t)
{
	return t->kind == LU_TOOL_WRITES  ? LOCUS_KIND_WRITE
	       : t->kind == LU_TOOL_EXECS ? LOCUS_KIND_EXEC
	                                  : LOCUS_KIND_READ;
}

/* Arguments that name the asset, first present wins. */
static const char *const asset_keys[] = {"path", "command", "handle"};

/* ---- errors ------------------------------------------------------------ */

static int fail(locus_error *err, int code, const char *fmt, const char *arg)
{
	if (err) {
		memset(err, 0, sizeof *err);
		err->code = code;
		err->offset = -1;
		/* fmt is always one of this file's literals:
		   -Wformat-nonliteral cannot see that */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(err->message, sizeof err->message, fmt,
		         arg ? arg : "");
#pragma GCC diagnostic pop
	}
	return code;
}

/* ---- the action object ------------------------------------------------- */

void locus_action_free(locus_action *a)
{
	if (!a)
		return;
	for (str_block *b = a->strs, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a->tags);
	free(a->reasons);
	locus_shell_result_free(a->shell);
	free(a);
}

/* s[0..n) and a NUL, copied into the action's blocks; NULL when out of
   memory.  A string too long for the current block's room gets a block
   of its own, linked behind the current one (whose room stays for the
   short strings to come). */
static char *act_copy(locus_action *a, const char *s, size_t n)
{
	str_block *b = a->strs;
	if (!b || b->cap - b->used <= n) {
		if (n >= SIZE_MAX / 2)
			return NULL;
		size_t cap = n < STR_BLOCK ? STR_BLOCK : n + 1;
		str_block *nb = malloc(sizeof *nb + cap);
		if (!nb)
			return NULL;
		nb->used = 0;
		nb->cap = cap;
		if (b && n >= STR_BLOCK / 2) {
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			a->strs = nb;
		}
		b = nb;
	}
	char *o = b->data + b->used;
	if (n)
		memcpy(o, s, n);
	o[n] = '\0';
	b->used += n + 1;
	return o;
}

static char *act_strdup(locus_action *a, const char *s)
{
	return act_copy(a, s, strlen(s));
}

static locus_action *action_new(const char *tool, locus_kind kind)
{
	locus_action *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->kind = kind;
	a->blast_radius = 1;
	a->tool = act_strdup(a, tool);
	a->environment = act_strdup(a, "unknown");
	a->asset = act_strdup(a, "");
	if (!a->tool || !a->environment || !a->asset) {
		locus_action_free(a);
		return NULL;
	}
	return a;
}

/* The tag and its exec:* bit (0 for other tags), when the caller knows
   it: ll_tag_bit is a scan of the tag table with strcmp. */
static int add_tag_bit(locus_action *a, const char *tag, uint32_t bit)
{
	/* the tags stay sorted and unique (lu_strs_insert, copied into
	   the action's blocks) */
	bool found;
	size_t pos =
	    lu_sorted_find(a->tags, a->ntags, sizeof *a->tags, 0, tag, &found);
	if (!found) {
		char *copy;
		if (!lu_reserve(&a->tags, &a->cap, a->ntags + 1) ||
		    !(copy = act_strdup(a, tag)))
			return LOCUS_ENOMEM;
		memmove(a->tags + pos + 1, a->tags + pos,
		        (a->ntags - pos) * sizeof *a->tags);
		a->tags[pos] = copy;
		a->ntags++;
	}
	a->exec_tags |= bit;
	return 0;
}

int locus_action_add_tag(locus_action *a, const char *tag)
{
	if (!a || !tag)
		return LOCUS_EUSAGE;
	return add_tag_bit(a, tag, ll_tag_bit(tag));
}

static int add_reason(locus_action *a, const char *text)
{
	if (!lu_reserve(&a->reasons, &a->rcap, a->nreasons + 1))
		return LOCUS_ENOMEM;
	a->reasons[a->nreasons] = act_strdup(a, text);
	if (!a->reasons[a->nreasons])
		return LOCUS_ENOMEM;
	a->nreasons++;
	return 0;
}

static int add_exec_tags(locus_action *a, uint32_t bits)
{
	for (size_t i = 0; i < LOCUS_TAG_COUNT; i++) {
		if (!(bits & tag_names[i].bit))
			continue;
		int rc = add_tag_bit(a, tag_names[i].name, tag_names[i].bit);
		if (rc)
			return rc;
	}
	return 0;
}

/* The verdict says "a command's arguments hold a dangerous command" (its
   reasons are static); the action names each such command once:
   "NAME's arguments hold a dangerous command". */
static int add_args_reasons(locus_action *a, ll_floor *floor)
{
	static const char suffix[] =
	    "'s arguments hold a dangerous command (held: locus cannot tell "
	    "code from data there)";
	size_t n = locus_shell_result_count(a->shell);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c =
		    locus_shell_result_command(a->shell, i);
		const struct lk_program *p = lp_command_program(a->shell, i);
		if (ll_command_read_only(c, p) || !ll_args_floor(c, p, floor))
			continue;
		size_t len = strlen(c->name) + sizeof suffix;
		char *s = malloc(len);
		if (!s)
			return LOCUS_ENOMEM;
		snprintf(s, len, "%s%s", c->name, suffix);
		bool have = false;
		for (size_t k = 0; k < a->nreasons; k++)
			have |= strcmp(a->reasons[k], s) == 0;
		int rc = have ? 0 : add_reason(a, s);
		free(s);
		if (rc)
			return rc;
	}
	return 0;
}

/* The verdict says "runs a program locus does not know"; the action
   names each: "NAME is not in locus's program table (exec:unknown)". */
static int add_unknown_reasons(locus_action *a)
{
	static const char suffix[] =
	    " is not in locus's program table (exec:unknown)";
	size_t n = locus_shell_result_count(a->shell);
	ll_functions fns;
	ll_functions_init(&fns, a->shell);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (!ll_command_unknown(a->shell, i, &fns))
			continue;
		const locus_shell_command *c =
		    locus_shell_result_command(a->shell, i);
		size_t len = strlen(c->name) + sizeof suffix;
		char *s = malloc(len);
		if (!s) {
			rc = LOCUS_ENOMEM;
			break;
		}
		snprintf(s, len, "%s%s", c->name, suffix);
		bool have = false;
		for (size_t k = 0; k < a->nreasons && !have; k++)
			have = strcmp(a->reasons[k], s) == 0;
		rc = have ? 0 : add_reason(a, s);
		free(s);
	}
	ll_functions_free(&fns);
	return rc;
}

/* The verdict says LL_REASON_ENV; the action names each variable:
   "NAME in a program's environment is not a variable locus knows to be
   inert (exec:unknown)". */
static int add_env_reasons(locus_action *a)
{
	static const char suffix[] =
	    " in a program's environment is not a variable locus knows to be "
	    "inert: it may change which program runs (exec:unknown)";
	size_t n = locus_shell_result_count(a->shell);
	bool allexport = ll_line_allexport(a->shell);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t len;
		const char *name =
		    ll_env_not_inert(a->shell, i, allexport, &len);
		if (!name)
			continue;
		size_t sz = len + sizeof suffix;
		char *s = malloc(sz);
		if (!s) {
			rc = LOCUS_ENOMEM;
			break;
		}
		snprintf(s, sz, "%.*s%s", (int)len, name, suffix);
		bool have = false;
		for (size_t k = 0; k < a->nreasons && !have; k++)
			have = strcmp(a->reasons[k], s) == 0;
		rc = have ? 0 : add_reason(a, s);
		free(s);
	}
	return rc;
}

/* The rm commands a reason is about, named with their flags and targets
  : "rm -rf build: <what>" once per command.  inside: only the
   rm commands whose operands are all inside the workspace, else all. */
static int add_rm_reasons(locus_action *a, bool inside, const char *what)
{
	size_t n = locus_shell_result_count(a->shell);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c =
		    locus_shell_result_command(a->shell, i);
		if (strcmp(c->name, "rm") != 0 ||
		    (inside && !ll_rm_inside(c) &&
		     !ll_rm_found_inside(a->shell, i)))
			continue;
		char text[400];
		size_t k = (size_t)snprintf(text, sizeof text, "rm");
		for (size_t w = 1; w < c->argc && k < 250; w++)
			k += (size_t)snprintf(text + k, sizeof text - k,
			                      " %.100s", c->argv[w]);
		if (k >= 250)
			k = (size_t)snprintf(text + 250, sizeof text - 250,
			                     " ...") +
			    250;
		snprintf(text + k, sizeof text - k, ": %s", what);
		bool have = false;
		for (size_t r = 0; r < a->nreasons; r++)
			have |= strcmp(a->reasons[r], text) == 0;
		int rc = have ? 0 : add_reason(a, text);
		if (rc)
			return rc;
	}
	return 0;
}

/* rm FILE and git restore FILE as workspace writes (labels/rm.c) need the root: an operand
   whose directory a symlink of the workspace takes out of it (or into
   .git), or that names a protected file there, makes the line
   exec:destructive again, with a reason naming the command. */
static int check_rm_writes(locus_action *a, const char *root)
{
	bool any = false;
	for (size_t r = 0; a->is_bash && r < a->nreasons && !any; r++)
		any = strcmp(a->reasons[r], LL_REASON_RM_WRITE) == 0 ||
		      strcmp(a->reasons[r], LL_REASON_RESTORE_WRITE) == 0;
	if (!any)
		return 0;
	size_t n = locus_shell_result_count(a->shell);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c =
		    locus_shell_result_command(a->shell, i);
		bool rm = ll_rm_as_write(c);
		if (rm ? ll_rm_write_resolves(c, root)
		       : (!ll_git_restore_as_write(c) ||
		          ll_git_restore_resolves(c, root)))
			continue;
		int rc = locus_action_add_tag(a, "exec:destructive");
		char text[400];
		size_t k = (size_t)snprintf(text, sizeof text, "%s", c->name);
		for (size_t w = 1; w < c->argc && k < 200; w++)
			k += (size_t)snprintf(text + k, sizeof text - k,
			                      " %.100s", c->argv[w]);
		snprintf(text + (k < 300 ? k : 300),
		         sizeof text - (k < 300 ? k : 300),
		         ": a symlink of the workspace takes an operand out of "
		         "it or into .git, it names a directory (git) or a "
		         "protected file (a delete, not a workspace write)");
		bool have = false;
		for (size_t r = 0; r < a->nreasons; r++)
			have |= strcmp(a->reasons[r], text) == 0;
		if (!rc && !have)
			rc = add_reason(a, text);
		if (rc)
			return rc;
	}
	return 0;
}

/* Parse and label a bash line into `a` (kind, tags, reasons, shell). */
static int label_bash(locus_action *a, locus_shell_parser *parser,
                      const char *line, size_t len)
{
	a->is_bash = true;
	a->command = act_copy(a, line, len);
	if (!a->command)
		return LOCUS_ENOMEM;
	a->shell = parser ? locus_shell_parser_parse(parser, line, len)
	                  : locus_shell_parse(line, len, NULL);
	if (!a->shell)
		return LOCUS_ENOMEM;
	locus_shell_verdict *v;
	/* the parser's compiled floor patterns; a line of its own without
	   a parser */
	ll_floor *own = parser ? NULL : ll_floor_new();
	ll_floor *floor = parser ? ll_parser_floor(parser) : own;
	if (!floor)
		return LOCUS_ENOMEM;
	int rc = ll_label(&v, a->shell, floor);
	if (rc) {
		ll_floor_free(own);
		return rc;
	}
	a->kind = locus_shell_verdict_kind(v);
	a->never = locus_shell_verdict_never(v); /* static */
	rc = add_exec_tags(a, locus_shell_verdict_tags(v));
	size_t nreasons = locus_shell_verdict_reason_count(v);
	for (size_t i = 0; !rc && i < nreasons; i++) {
		const char *reason = locus_shell_verdict_reason(v, i);
		if (strcmp(reason, LL_REASON_UNPARSED) == 0) {
			/* The verdict's text is static; the action owns the
			   full "could not be parsed: <why>". */
			const char *why = locus_shell_result_reason(a->shell);
			size_t n = strlen(LL_REASON_UNPARSED) + 2 +
			           (why ? strlen(why) : 0) + 1;
			char *s = malloc(n);
			if (!s) {
				rc = LOCUS_ENOMEM;
				break;
			}
			snprintf(s, n, "%s%s%s", LL_REASON_UNPARSED,
			         why ? ": " : "", why ? why : "");
			rc = add_reason(a, s);
			free(s);
		} else if (strcmp(reason, LL_REASON_ARGS_HELD) == 0) {
			rc = add_args_reasons(a, floor);
		} else if (strcmp(reason, LL_REASON_UNKNOWN) == 0) {
			rc = add_unknown_reasons(a);
		} else if (strcmp(reason, LL_REASON_ENV) == 0) {
			rc = add_env_reasons(a);
		} else if (strcmp(reason, LL_REASON_RM_INSIDE) == 0) {
			rc = add_reason(a, reason);
			if (!rc)
				rc = add_rm_reasons(
				    a, true,
				    "deletes paths inside the workspace (held, "
				    "not on the floor)");
		} else if (strcmp(reason, LL_NEVER_RM
		                  " is on the never-allow floor") == 0) {
			rc = add_reason(a, reason);
			if (!rc)
				rc = add_rm_reasons(
				    a, false,
				    "a target is the workspace root, .git, "
				    "outside the workspace or known only at "
				    "run time, or a cd left the workspace (on "
				    "the floor)");
		} else {
			rc = add_reason(a, reason);
		}
	}
	locus_shell_verdict_free(v);
	ll_floor_free(own);
	return rc;
}

static int set_string(locus_action *a, char **dst, const char *s)
{
	char *copy = act_strdup(a, s);
	if (!copy)
		return LOCUS_ENOMEM;
	*dst = copy;
	return 0;
}

int locus_action_new(locus_action **out, const char *tool, locus_kind kind,
                     const char *asset, locus_error *err)
{
	if (!out)
		return fail(err, LOCUS_EUSAGE, "%s", "out is required");
	*out = NULL;
	if (!tool || !tool[0])
		return fail(err, LOCUS_EUSAGE, "%s", "a tool name is required");
	if ((unsigned)kind > LOCUS_KIND_NETWORK)
		return fail(err, LOCUS_EINVALID, "%s", "unknown kind");
	locus_action *a = action_new(tool, kind);
	if (a && asset && set_string(a, &a->asset, asset)) {
		locus_action_free(a);
		a = NULL;
	}
	if (!a)
		return fail(err, LOCUS_ENOMEM, "%s", "out of memory");
	*out = a;
	return 0;
}

/* Parse the arguments object; NULL/"" is {}.  Sets *obj (caller frees). */
static int parse_args(const char *json, size_t len, cJSON **obj,
                      locus_error *err)
{
	*obj = NULL;
	if (!json || len == 0) {
		*obj = cJSON_CreateObject();
		return *obj ? 0 : LOCUS_ENOMEM;
	}
	/* A NUL (raw or escaped) would cut the C string cJSON hands back: we
	   would judge less than the caller runs; two equal keys: parsers
	   disagree on which wins, so a harness could run the one we did not
	   judge. */
	lu_json_opts o = LU_JSON_OPTS_INIT;
	o.object = true;
	/* Bytes that are not UTF-8 are kept: a path on Linux is bytes, a
	   command holding them is unparsed by the parser, and
	   locus_action_json() writes them as U+FFFD. */
	o.any_bytes = true;
	lu_json_fail why;
	switch (lu_json_read(obj, json, len, &o, &why)) {
	case LU_JSON_OK: return 0;
	case LU_JSON_NOMEM: return LOCUS_ENOMEM;
	case LU_JSON_NUL:
		return fail(err, LOCUS_EINVALID, "arguments hold a NUL byte",
		            NULL);
	case LU_JSON_ESCAPED_NUL:
		return fail(err, LOCUS_EINVALID,
		            "arguments hold an escaped NUL (\\u0000)", NULL);
	case LU_JSON_TRAILING:
		return fail(err, LOCUS_EINVALID,
		            "arguments have text after the JSON value", NULL);
	case LU_JSON_NOT_OBJECT:
		return fail(err, LOCUS_EINVALID,
		            "arguments must be a JSON object", NULL);
	case LU_JSON_DUPLICATE:
		return fail(err, LOCUS_EINVALID,
		            "arguments repeat the key '%.200s'", why.key);
	default:
		return fail(err, LOCUS_EINVALID, "arguments are not valid JSON",
		            NULL);
	}
}

/* Present: there and not null. */
static const cJSON *arg(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	return it && !cJSON_IsNull(it) ? it : NULL;
}

/* ---- outside-workspace ------------------------------------------------- */

/* Paths an apply_patch text adds, updates, deletes or moves to. */
/* clang-format off */
static const char *const patch_heads[] = {
	"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:",
	NULL,
};
/* clang-format on */

/* The first path of a patch outside the root, copied into buf. */
static bool patch_outside(const char *patch, const char *root, char *buf,
                          size_t cap, bool *oom)
{
	for (const char *l = patch; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		for (const char *const *h = patch_heads; *h; h++) {
			size_t hn = strlen(*h);
			if (n < hn || strncmp(l, *h, hn) != 0)
				continue;
			const char *p = l + hn;
			size_t pn = n - hn;
			while (pn && (*p == ' ' || *p == '\t')) {
				p++;
				pn--;
			}
			while (pn && (p[pn - 1] == ' ' || p[pn - 1] == '\r'))
				pn--;
			if (pn >= cap)
				pn = cap - 1;
			memcpy(buf, p, pn);
			buf[pn] = '\0';
			if (ll_outside_path(buf, root, oom))
				return true;
		}
		l = e ? e + 1 : NULL;
	}
	return false;
}

/* The argument keys of a file tool that name paths (glob's pattern may be
   absolute: /etc/ and below). */
static const char *const path_keys[] = {"path", "pattern", "glob", NULL};

static int add_outside(locus_action *a, const cJSON *args, const char *root,
                       ll_shell_links *links)
{
	bool oom = false;
	const char *hit = NULL;
	char buf[512];
	memset(links, 0, sizeof *links);
	if (a->is_bash) {
		hit = ll_outside_shell(a->shell, root, &oom, links);
	} else {
		for (size_t i = 0; !hit && path_keys[i]; i++) {
			/* grep's pattern is a regex, not a path */
			if (strcmp(a->tool, "grep") == 0 &&
			    strcmp(path_keys[i], "pattern") == 0)
				continue;
			const cJSON *it = arg(args, path_keys[i]);
			if (!cJSON_IsString(it))
				continue;
			/* glob patterns: only their fixed leading part is a
			   path (`**` / `*` may not climb). */
			if (ll_outside_path(it->valuestring, root, &oom))
				hit = it->valuestring;
		}
		const cJSON *patch = arg(args, "patch");
		if (!hit && cJSON_IsString(patch) &&
		    patch_outside(patch->valuestring, root, buf, sizeof buf,
		                  &oom))
			hit = buf;
	}
	if (oom)
		return LOCUS_ENOMEM;
	if (!hit)
		return 0;
	int rc = locus_action_add_tag(a, "outside-workspace");
	if (rc)
		return rc;
	/* the refinement a policy may allow confined (docs/jail.md): every
	   outside path of the line is in a scratch folder the jail makes
	   private to the call */
	if (a->is_bash && ll_outside_scratch(a->shell, root, &oom) &&
	    (rc = locus_action_add_tag(a, "outside-workspace:tmp")))
		return rc;
	if (oom)
		return LOCUS_ENOMEM;
	static const char prefix[] = "outside-workspace: ";
	static const char suffix[] = " is outside the workspace root";
	char text[sizeof prefix + 200 + sizeof suffix];
	snprintf(text, sizeof text, "%s%.200s%s", prefix, hit, suffix);
	return add_reason(a, text);
}

/* ---- the path classifier for file tools --------------------- */

/* One path's labels: a write of a persistence or agent file, a read of a
   credential store. */
static int label_path(locus_action *a, const char *path, const char *root,
                      bool writes, bool reads)
{
	uint32_t c = ll_path_class(path, root);
	static const struct {
		uint32_t bit;
		bool on_write;
		const char *tag, *what;
	} rows[] = {
	    {LL_PATH_PERSISTENCE, true, "exec:persistence",
	     " makes programs run later (a hook, startup file, scheduler, "
	     "unit, editor task or CI workflow)"},
	    {LL_PATH_AGENT_CONFIG, true, "agent-config",
	     " is a coding agent's or locus's configuration"},
	    {LL_PATH_SECRET, false, "exec:secrets", " holds credentials"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		if (!(c & rows[i].bit) || (rows[i].on_write ? !writes : !reads))
			continue;
		int rc = locus_action_add_tag(a, rows[i].tag);
		char text[300];
		snprintf(text, sizeof text, "%s: %.200s%s", rows[i].tag, path,
		         rows[i].what);
		bool have = false;
		for (size_t k = 0; !rc && k < a->nreasons; k++)
			have |= strcmp(a->reasons[k], text) == 0;
		if (!rc && !have)
			rc = add_reason(a, text);
		if (rc)
			return rc;
	}
	return 0;
}

/* A bash line's paths through the workspace's symlinks (what
   add_outside's walk found): `printf x >> gl/config` with gl -> .git
   writes .git/config, as `write gl/config` does; a link out of the root
   is outside-workspace; a line past the resolver's bound is held as
   outside-workspace (unknown is not inside). */
static int add_link_labels(locus_action *a, const ll_shell_links *links)
{
	const ll_shell_links k = *links;
	static const struct {
		uint32_t bit;
		const char *tag, *what;
	} rows[] = {
	    {LL_PATH_PERSISTENCE, "exec:persistence",
	     "makes programs run later (a hook, startup file, scheduler, "
	     "unit, editor task or CI workflow)"},
	    {LL_PATH_AGENT_CONFIG, "agent-config",
	     "is a coding agent's or locus's configuration"},
	    {LL_PATH_SECRET, "exec:secrets", "holds credentials"},
	};
	char text[400];
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		unsigned b = 0;
		while (!(rows[i].bit & (1u << b)))
			b++;
		if (!k.word[b])
			continue;
		snprintf(text, sizeof text,
		         "%s: %.200s leads through a symlink of the workspace "
		         "to a file that %s",
		         rows[i].tag, k.word[b], rows[i].what);
		int rc = locus_action_add_tag(a, rows[i].tag);
		if (!rc)
			rc = add_reason(a, text);
		if (rc)
			return rc;
	}
	const char *out = k.outside ? k.outside : k.unknown;
	if (!out)
		return 0;
	snprintf(text, sizeof text,
	         k.outside ? "outside-workspace: %.200s leads out of the "
	                     "workspace root through a symlink"
	                   : "outside-workspace: %.200s: too many paths or "
	                     "links to resolve (unknown, not inside)",
	         out);
	int rc = locus_action_add_tag(a, "outside-workspace");
	return rc ? rc : add_reason(a, text);
}

/* The read tools whose path arguments read files (ls lists names). */
static const char *const reading_tools[] = {"read", "grep", "glob", NULL};

/* Every path a file tool names (path, glob's pattern, grep's glob, an
   apply_patch text's Add/Update/Delete/Move to paths) through the path
   classifier: writes of persistence and agent files, reads of
   credential stores. */
static int add_path_labels(locus_action *a, const lu_tool *t, const cJSON *args,
                           const char *root)
{
	if (a->is_bash || !args)
		return 0;
	bool writes = t->kind == LU_TOOL_WRITES;
	bool reads = false;
	for (size_t i = 0; reading_tools[i]; i++)
		reads |= strcmp(a->tool, reading_tools[i]) == 0;
	if (!writes && !reads)
		return 0;
	for (size_t i = 0; path_keys[i]; i++) {
		if (strcmp(a->tool, "grep") == 0 &&
		    strcmp(path_keys[i], "pattern") == 0)
			continue; /* a regex */
		const cJSON *it = arg(args, path_keys[i]);
		if (!cJSON_IsString(it))
			continue;
		int rc = label_path(a, it->valuestring, root, writes, reads);
		if (rc)
			return rc;
	}
	const cJSON *patch = arg(args, "patch");
	if (!writes || !cJSON_IsString(patch))
		return 0;
	for (const char *l = patch->valuestring; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		for (const char *const *h = patch_heads; *h; h++) {
			size_t hn = strlen(*h);
			if (n < hn || strncmp(l, *h, hn) != 0)
				continue;
			char buf[1024];
			const char *p = l + hn;
			size_t pn = n - hn;
			while (pn && (*p == ' ' || *p == '\t')) {
				p++;
				pn--;
			}
			while (pn && (p[pn - 1] == ' ' || p[pn - 1] == '\r'))
				pn--;
			if (pn >= sizeof buf)
				pn = sizeof buf - 1;
			memcpy(buf, p, pn);
			buf[pn] = '\0';
			int rc = label_path(a, buf, root, true, false);
			if (rc)
				return rc;
		}
		l = e ? e + 1 : NULL;
	}
	return 0;
}

/* The root to judge against: the caller's, else the current directory,
   else none (buf holds the copy). */
static int resolve_root(const locus_action_options *opts, char *buf, size_t cap,
                        const char **root, locus_error *err)
{
	*root = NULL;
	if (opts && opts->version != LOCUS_ACTION_OPTIONS_VERSION)
		return fail(err, LOCUS_EINVALID,
		            "unknown locus_action_options version", NULL);
	if (opts && opts->workspace_root) {
		if (opts->workspace_root[0] != '/')
			return fail(err, LOCUS_EINVALID,
			            "workspace root must be absolute: '%.200s'",
			            opts->workspace_root);
		*root = opts->workspace_root;
		return 0;
	}
	if (getcwd(buf, cap))
		*root = buf;
	return 0;
}

static int derive(locus_action **out, locus_shell_parser *parser,
                  const char *tool, const cJSON *args, const char *root,
                  locus_error *err)
{
	const lu_tool *t = lu_tool_find(tool);
	if (!t)
		return fail(err, LOCUS_ENOTFOUND,
		            "no harness tool named '%.200s'", tool);

	const char *asset = NULL;
	for (size_t i = 0; i < sizeof asset_keys / sizeof *asset_keys; i++) {
		const cJSON *it = arg(args, asset_keys[i]);
		if (!it)
			continue;
		if (!cJSON_IsString(it))
			return fail(err, LOCUS_EINVALID,
			            "argument '%s' must be a string",
			            asset_keys[i]);
		asset = it->valuestring;
		break;
	}
	const char *command = NULL;
	bool background = false;
	if (t->flags & LU_TOOL_SHELL) {
		const cJSON *c = arg(args, "command");
		if (!c || !cJSON_IsString(c))
			return fail(err, LOCUS_EINVALID,
			            "argument 'command' must be a string",
			            NULL);
		command = c->valuestring;
		const cJSON *bg = arg(args, "background");
		if (bg && !cJSON_IsBool(bg))
			return fail(err, LOCUS_EINVALID,
			            "argument 'background' must be a boolean",
			            NULL);
		background = bg && cJSON_IsTrue(bg);
	}

	locus_action *a = action_new(tool, tool_kind(t));
	if (!a)
		return LOCUS_ENOMEM;
	int rc = 0;
	if (asset)
		rc = set_string(a, &a->asset, asset);
	else if (t->flags & LU_TOOL_PATCH)
		rc = set_string(a, &a->asset, "patch");
	if (!rc)
		rc = locus_action_add_tag(a, tool);
	if (!rc && command)
		rc = label_bash(a, parser, command, strlen(command));
	if (!rc && background) {
		rc = locus_action_add_tag(a, "exec:background");
		bool have = false;
		for (size_t i = 0; i < a->nreasons; i++)
			have |=
			    strcmp(a->reasons[i], LL_REASON_BACKGROUND) == 0;
		if (!rc && !have)
			rc = add_reason(a, LL_REASON_BACKGROUND);
	}
	if (!rc && (t->flags & LU_TOOL_STDIN))
		rc = locus_action_add_tag(a, "exec:stdin");
	ll_shell_links links;
	if (!rc)
		rc = add_outside(a, args, root, &links);
	if (!rc)
		rc = add_link_labels(a, &links);
	if (!rc)
		rc = check_rm_writes(a, root);
	if (!rc)
		rc = add_path_labels(a, t, args, root);
	if (rc) {
		locus_action_free(a);
		return rc == LOCUS_ENOMEM ? rc : fail(err, rc, "%s", "");
	}
	/* A background bash line is never read-only. */
	if (background)
		a->kind = LOCUS_KIND_EXEC;
	*out = a;
	return 0;
}

int locus_action_derive_opts(locus_action **out, locus_shell_parser *parser,
                             const char *tool, const char *args_json,
                             size_t args_len, const locus_action_options *opts,
                             locus_error *err)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!tool)
		return fail(err, LOCUS_EUSAGE, "no tool name", NULL);
	char buf[PATH_MAX];
	const char *root;
	int rc = resolve_root(opts, buf, sizeof buf, &root, err);
	if (rc)
		return rc;
	cJSON *args;
	rc = parse_args(args_json, args_len, &args, err);
	if (rc)
		return rc == LOCUS_ENOMEM ? fail(err, rc, "out of memory", NULL)
		                          : rc;
	rc = derive(out, parser, tool, args, root, err);
	cJSON_Delete(args);
	return rc;
}

int locus_action_derive(locus_action **out, locus_shell_parser *parser,
                        const char *tool, const char *args_json,
                        size_t args_len, locus_error *err)
{
	return locus_action_derive_opts(out, parser, tool, args_json, args_len,
	                                NULL, err);
}

int locus_action_classify(locus_action **out, locus_shell_parser *parser,
                          const char *line, size_t len, locus_error *err)
{
	return locus_action_classify_opts(out, parser, line, len, NULL, err);
}

int locus_action_classify_opts(locus_action **out, locus_shell_parser *parser,
                               const char *line, size_t len,
                               const locus_action_options *opts,
                               locus_error *err)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!line && len)
		return fail(err, LOCUS_EUSAGE, "no line", NULL);
	char buf[PATH_MAX];
	const char *root;
	int rrc = resolve_root(opts, buf, sizeof buf, &root, err);
	if (rrc)
		return rrc;
	locus_action *a = action_new("bash", LOCUS_KIND_EXEC);
	if (!a)
		return fail(err, LOCUS_ENOMEM, "out of memory", NULL);
	/* The asset is the line (up to a NUL byte, which makes it
	   unparsed anyway). */
	char *asset = act_copy(a, line ? line : "", len);
	int rc = asset ? 0 : LOCUS_ENOMEM;
	if (asset)
		a->asset = asset;
	if (!rc)
		rc = locus_action_add_tag(a, "bash");
	if (!rc)
		rc = label_bash(a, parser, line ? line : "", len);
	ll_shell_links links;
	if (!rc)
		rc = add_outside(a, NULL, root, &links);
	if (!rc)
		rc = add_link_labels(a, &links);
	if (!rc)
		rc = check_rm_writes(a, root);
	if (rc) {
		locus_action_free(a);
		return fail(err, rc, "out of memory", NULL);
	}
	*out = a;
	return 0;
}

/* ---- accessors --------------------------------------------------------- */

const char *locus_action_tool(const locus_action *a)
{
	return a ? a->tool : "";
}

locus_kind locus_action_kind(const locus_action *a)
{
	return a ? a->kind : LOCUS_KIND_EXEC;
}

const char *locus_action_asset(const locus_action *a)
{
	return a ? a->asset : "";
}

const char *locus_action_environment(const locus_action *a)
{
	return a ? a->environment : "";
}

int64_t locus_action_blast_radius(const locus_action *a)
{
	return a ? a->blast_radius : 0;
}

double locus_action_cost_usd(const locus_action *a)
{
	return a ? a->cost_usd : 0.0;
}

size_t locus_action_tag_count(const locus_action *a)
{
	return a ? a->ntags : 0;
}

const char *locus_action_tag(const locus_action *a, size_t i)
{
	return a && i < a->ntags ? a->tags[i] : NULL;
}

bool locus_action_has_tag(const locus_action *a, const char *tag)
{
	if (!a || !tag)
		return false;
	bool found;
	lu_sorted_find(a->tags, a->ntags, sizeof *a->tags, 0, tag, &found);
	return found;
}

uint32_t locus_action_exec_tags(const locus_action *a)
{
	return a ? a->exec_tags : 0;
}

const char *locus_action_never(const locus_action *a)
{
	return a ? a->never : NULL;
}

size_t locus_action_reason_count(const locus_action *a)
{
	return a ? a->nreasons : 0;
}

const char *locus_action_reason(const locus_action *a, size_t i)
{
	return a && i < a->nreasons ? a->reasons[i] : NULL;
}

const locus_shell_result *locus_action_shell(const locus_action *a)
{
	return a ? a->shell : NULL;
}

int locus_action_set_environment(locus_action *a, const char *env)
{
	if (!a || !env)
		return LOCUS_EINVALID;
	return set_string(a, &a->environment, env);
}

int locus_action_set_blast_radius(locus_action *a, int64_t radius)
{
	if (!a || radius < 0)
		return LOCUS_EINVALID;
	a->blast_radius = radius;
	return 0;
}

int locus_action_set_cost_usd(locus_action *a, double cost)
{
	if (!a || isnan(cost) || cost < 0)
		return LOCUS_EINVALID;
	a->cost_usd = cost;
	return 0;
}

/* ---- JSON -------------------------------------------------------------- */

/*
 * The classify output is written straight into one growing buffer: building
 * a cJSON tree per line, printing it and freeing it was a third of the
 * batch's cost (callgrind).  Strings are escaped per RFC 8259 and invalid
 * UTF-8 becomes U+FFFD, so the output is valid JSON whatever bytes the line
 * held.  --pretty goes through cJSON once more (a human's view; speed does
 * not matter there).
 */
typedef struct jw {
	char *p;
	size_t n, cap;
	bool oom;
} jw;

static bool jw_reserve(jw *w, size_t extra);

static void jw_put(jw *w, const char *s, size_t n)
{
	if (!jw_reserve(w, n))
		return;
	memcpy(w->p + w->n, s, n);
	w->n += n;
}

static void jw_lit(jw *w, const char *s)
{
	jw_put(w, s, strlen(s));
}

/* Room for `extra` more bytes (and the NUL, written once at the end by
   locus_action_json); false once out of memory. */
static bool jw_reserve(jw *w, size_t extra)
{
	if (w->oom)
		return false;
	if (extra < SIZE_MAX - w->n - 1 && w->n + extra + 1 <= w->cap)
		return true;
	size_t need = w->n + extra + 1;
	size_t cap = need > w->n ? lu_grow_capacity(w->cap, need, 1024, 1) : 0;
	char *p = cap ? realloc(w->p, cap) : NULL;
	if (!p) {
		w->oom = true;
		return false;
	}
	w->p = p;
	w->cap = cap;
	return true;
}

/* How jw_str writes each byte: as is, a two-byte escape (the letter
   after the backslash), \u00XX, or the start of a UTF-8 sequence to
   check (table-driven: one lookup per byte). */
enum { JW_PLAIN = 0, JW_U00 = 1, JW_HIGH = 2 };
/* clang-format off */
static const unsigned char jw_class[256] = {
#define JW_U8 JW_U00, JW_U00, JW_U00, JW_U00, JW_U00, JW_U00, JW_U00, JW_U00
#define JW_H16                                                               \
	JW_HIGH, JW_HIGH, JW_HIGH, JW_HIGH, JW_HIGH, JW_HIGH, JW_HIGH,       \
	    JW_HIGH, JW_HIGH, JW_HIGH, JW_HIGH, JW_HIGH, JW_HIGH, JW_HIGH,   \
	    JW_HIGH, JW_HIGH
	/* 0x00-0x1f: control characters */
	JW_U00, JW_U00, JW_U00, JW_U00, JW_U00, JW_U00, JW_U00, JW_U00,
	'b', 't', 'n', JW_U00, 'f', 'r', JW_U00, JW_U00,
	JW_U8, JW_U8,
	[0x22] = '"', [0x5c] = '\\',
	[0x80] = JW_H16, JW_H16, JW_H16, JW_H16, JW_H16, JW_H16, JW_H16, JW_H16,
#undef JW_U8
#undef JW_H16
};
/* clang-format on */

/* Some byte of the eight in x is not JW_PLAIN: below 0x20, '"', '\\'
   or 0x80 and above (SWAR: exact for "any", which is all it is used for;
   the bytes are then written one by one). */
static inline bool jw_word_special(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101u, highs = ones << 7;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
	return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) |
	        ((b - ones) & ~b) | x) &
	       highs;
}

/* One byte of s at *i (a whole UTF-8 sequence when it starts one) to o;
   the end of what was written. */
static char *jw_byte(char *o, const unsigned char *p, size_t n, size_t *i)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = p[*i], k = jw_class[c];
	if (k == JW_PLAIN) {
		*o++ = (char)c;
		(*i)++;
	} else if (k == JW_HIGH) {
		size_t len = lu_utf8_seq((const char *)p + *i, n - *i);
		if (len) {
			memcpy(o, p + *i, len);
			o += len;
			*i += len;
		} else {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
			(*i)++;
		}
	} else if (k == JW_U00) {
		memcpy(o, "\\u00", 4);
		o[4] = hex[c >> 4];
		o[5] = hex[c & 15];
		o += 6;
		(*i)++;
	} else {
		o[0] = '\\';
		o[1] = (char)k;
		o += 2;
		(*i)++;
	}
	return o;
}

static void jw_str(jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);
	/* the worst case is 6 bytes out per byte in (\u00XX; U+FFFD is 3
	   for 1): one reservation, then plain stores */
	if (!jw_reserve(w, 6 * n + 2))
		return;
	char *o = w->p + w->n;
	*o++ = '"';
	for (size_t i = 0; i < n;) {
		/* eight plain bytes are copied at once (most text is plain) */
		uint64_t x;
		if (n - i >= 8) {
			memcpy(&x, p + i, 8);
			if (!jw_word_special(x)) {
				memcpy(o, &x, 8);
				o += 8;
				i += 8;
				continue;
			}
		} else if (n >= 8) {
			/* the last 1-7 bytes: the word ending at n, when
			   plain, overlaps bytes already written as they are
			   (plain too), so it is stored ending at the same
			   place */
			memcpy(&x, p + n - 8, 8);
			if (!jw_word_special(x)) {
				memcpy(o - (i - (n - 8)), &x, 8);
				o += n - i;
				break;
			}
		}
		for (size_t stop = n - i > 8 ? i + 8 : n; i < stop;) {
			if (jw_class[p[i]] == JW_PLAIN) {
				*o++ = (char)p[i++];
				continue;
			}
			o = jw_byte(o, p, n, &i);
		}
	}
	*o++ = '"';
	w->n = (size_t)(o - w->p);
}

/* Keys are our own ASCII literals: no escaping needed, and the quotes
   and colon are joined to them at compile time. */
/* Inlined at every key (jw_key): `n` is a constant there, so the copy is
   a few stores, not a memcpy call (~50 instructions a key before). */
static inline __attribute__((always_inline)) void
jw_key_n(jw *w, const char *lit, size_t n, bool first)
{
	if (!jw_reserve(w, n + 1))
		return;
	char *o = w->p + w->n;
	if (!first)
		*o++ = ',';
	memcpy(o, lit, n);
	o += n;
	w->n = (size_t)(o - w->p);
}

#define jw_key(w, key, first)                                                  \
	jw_key_n((w), "\"" key "\":", sizeof "\"" key "\":" - 1, (first))

static void jw_strs(jw *w, const char *const *v, size_t n)
{
	jw_put(w, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			jw_put(w, ",", 1);
		jw_str(w, v[i]);
	}
	jw_put(w, "]", 1);
}

static void jw_size(jw *w, size_t v)
{
	char buf[24]; /* 20 digits at most */
	size_t k = sizeof buf;
	do {
		buf[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	jw_put(w, buf + k, sizeof buf - k);
}

static void command_json(jw *w, const locus_shell_command *c)
{
	jw_key(w, "name", true);
	jw_str(w, c->name);
	jw_key(w, "argv", false);
	jw_strs(w, c->argv, c->argc);
	jw_key(w, "words", false);
	jw_strs(w, c->words, c->nwords);
	jw_key(w, "wrappers", false);
	jw_strs(w, c->wrappers, c->nwrappers);
	jw_key(w, "assignments", false);
	jw_strs(w, c->assignments, c->nassignments);
	jw_key(w, "redirects", false);
	jw_put(w, "[", 1);
	for (size_t i = 0; i < c->nredirects; i++) {
		jw_put(w, i ? ",{" : "{", i ? 2 : 1);
		jw_key(w, "op", true);
		jw_str(w, c->redirects[i].op);
		jw_key(w, "target", false);
		jw_str(w, c->redirects[i].target);
		jw_put(w, "}", 1);
	}
	jw_put(w, "]", 1);
	jw_key(w, "writes_files", false);
	jw_lit(w, (c->flags & LOCUS_CMD_WRITES_FILES) ? "true" : "false");
	jw_key(w, "connector", false);
	jw_str(w, c->connector);
	jw_key(w, "pipeline", false);
	jw_size(w, c->pipeline);
	jw_key(w, "origin", false);
	jw_str(w, c->origin);
	jw_key(w, "dynamic", false);
	jw_lit(w, (c->flags & LOCUS_CMD_DYNAMIC) ? "true" : "false");
	jw_key(w, "parent", false);
	if (c->parent == LOCUS_SHELL_NO_PARENT)
		jw_lit(w, "null");
	else
		jw_size(w, c->parent);
	jw_key(w, "depth", false);
	jw_size(w, c->depth);
}

/* Re-print compact JSON indented (cJSON's layout). */
static char *pretty(char *compact)
{
	cJSON *o = cJSON_Parse(compact);
	char *text = o ? cJSON_Print(o) : NULL;
	cJSON_Delete(o);
	if (!text)
		return NULL;
	/* cJSON_Print's memory is cJSON's to free (cJSON_free); what we hand
	   out is freed with locus_free(): copy it (one allocator contract per
	   returned buffer). */
	char *copy = strdup(text);
	cJSON_free(text);
	return copy;
}

int locus_action_json(char **out, const locus_action *a, unsigned flags)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!a)
		return LOCUS_EUSAGE;
	jw w = {NULL, 0, 0, false};
	jw_put(&w, "{", 1);
	bool first = true;
	if (a->is_bash) {
		jw_key(&w, "command", true);
		jw_str(&w, a->command);
		first = false;
	}
	jw_key(&w, "tool", first);
	jw_str(&w, a->tool);
	jw_key(&w, "kind", false);
	jw_str(&w, locus_kind_name(a->kind));
	jw_key(&w, "tags", false);
	jw_strs(&w, (const char *const *)a->tags, a->ntags);
	jw_key(&w, "asset", false);
	jw_str(&w, a->asset);
	if (a->is_bash) {
		bool parsed = locus_shell_result_parsed(a->shell);
		jw_key(&w, "parsed", false);
		jw_lit(&w, parsed ? "true" : "false");
		if (!parsed) {
			jw_key(&w, "unparsed_reason", false);
			jw_str(&w, locus_shell_result_reason(a->shell));
		}
		jw_key(&w, "never", false);
		if (a->never)
			jw_str(&w, a->never);
		else
			jw_lit(&w, "null");
		jw_key(&w, "reasons", false);
		jw_strs(&w, (const char *const *)a->reasons, a->nreasons);
		if (flags & LOCUS_JSON_COMMANDS) {
			jw_key(&w, "commands", false);
			jw_put(&w, "[", 1);
			size_t n = locus_shell_result_count(a->shell);
			for (size_t i = 0; i < n; i++) {
				jw_put(&w, i ? ",{" : "{", i ? 2 : 1);
				command_json(&w, locus_shell_result_command(
				                     a->shell, i));
				jw_put(&w, "}", 1);
			}
			jw_put(&w, "]", 1);
		}
	}
	jw_put(&w, "}", 1);
	if (w.oom) {
		free(w.p);
		return LOCUS_ENOMEM;
	}
	w.p[w.n] = '\0'; /* every reservation kept a byte for it */
	if (flags & LOCUS_JSON_PRETTY) {
		char *p = pretty(w.p);
		free(w.p);
		if (!p)
			return LOCUS_ENOMEM;
		*out = p;
		return 0;
	}
	*out = w.p;
	return 0;
}
