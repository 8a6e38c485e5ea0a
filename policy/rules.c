/*
 * policy/rules.c - permission rules in the coding agents' syntax (spec
 * policy.md section 3): parsing, tool aliases, and the any/every matching
 * that turns them into a verdict.
 *
 * Forms: `Tool`, `Tool(spec)`, `*`, `mcp__server`, `mcp__server__tool`,
 * `mcp__server__*`.  Shell specs: `git diff:*` (word prefix), `npm test`
 * (exact), `npm run *` (glob, `*` matches anything).  Path specs: globs with
 * `*` (within a segment), `**` (across), `?`; `/abs`, `//abs`, `~/home`,
 * `./rel` or `rel` (relative to the workspace root; a pattern without a
 * slash matches a name at any depth, like .gitignore).  Fetch specs:
 * `domain:HOST` (the host and its subdomains).
 *
 * Soundness: an allow rule must cover EVERY element of the call (each
 * simple command of a shell line, wrappers and nested ones included; each
 * file of a patch); a word whose value is only known at run time can only
 * be covered by a `*`.  Ask and deny match when ANY element matches, and
 * there an unknown word matches anything.  When in doubt, allow does not
 * match and deny does.
 */
#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "internal.h"
#include "../util/buf.h"
#include "../util/regex.h"
#include "../util/path.h"
#include "../util/tools.h"
#include "../util/array.h"

#define PL_MAX_RULE 4096
#define DYN '\x01' /* stands for a word whose value is unknown */

enum group {
	G_NAME,      /* an exact (normalised) tool name */
	G_ANY,       /* `*` */
	G_BASH,      /* bash, shell */
	G_EDIT,      /* every file-changing tool */
	G_READ,      /* read, ls, glob, grep */
	G_WEBFETCH,  /* webfetch, fetch */
	G_WEBSEARCH, /* websearch */
	G_MCP,       /* mcp__server or mcp__server__tool */
	G_MCP_GLOB,  /* mcp__server__* */
	G_AGENT,     /* agent, task (subagents) */
};

enum spec {
	S_NONE,
	S_CMD,    /* shell: alternatives in pat[] */
	S_PATH,   /* path glob: re (anchored), re_any (at any depth) */
	S_DOMAIN, /* host suffix */
	S_VALUE,  /* glob over the call's main value */
	S_PARAM,  /* Tool(param:value): glob over one argument's value */
	S_AGENT,  /* Agent(Explore): the subagent type */
};

/* P_PROJ: Claude's "/x", relative to the project root (and, for ask and
 * deny, also read as the absolute /x: stricter, never looser) */
enum pathroot { P_REL, P_ABS, P_HOME, P_PROJ };

struct pl_rule {
	char *text;
	char *name; /* as written before the '(' */
	enum group group;
	enum spec spec;
	char *pat[2]; /* S_CMD alternatives; S_DOMAIN host in pat[0] */
	enum pathroot root;
	pcre2_code *re;
	pcre2_code *re_any;
	pcre2_code *re_abs;  /* P_PROJ read as an absolute path */
	pcre2_code *re_here; /* "./x": anchored at the root, for allow rules */
	char *param;         /* S_PARAM: the argument's name */
	char *base;          /* project root of the rule's file, or NULL */
	char *home;          /* what "~" stands for, or NULL */
	bool sub;            /* S_DOMAIN: "*.host" (subdomains only) */
	bool here;           /* written "./x" */
};

/* Tool families, over names normalised by lu_tool_norm(). */
static const char *const edit_tools[] = {
    "edit", "write", "multiedit", "applypatch", "notebookedit", "append", NULL};
static const char *const read_tools[] = {"read", "ls", "glob", "grep", NULL};
static const char *const bash_tools[] = {"bash", "shell", NULL};
static const char *const fetch_tools[] = {"webfetch", "fetch", NULL};
static const char *const search_tools[] = {"websearch", NULL};
static const char *const agent_tools[] = {"agent", "task", NULL};

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (strcmp(*l, s) == 0)
			return true;
	return false;
}

static bool is_mcp(const char *s)
{
	return strncmp(s, "mcp__", 5) == 0;
}

const char *pl_rule_text(const pl_rule *r)
{
	return r->text;
}

void pl_rule_free(pl_rule *r)
{
	if (!r)
		return;
	free(r->text);
	free(r->name);
	free(r->pat[0]);
	free(r->pat[1]);
	pcre2_code_free(r->re);
	pcre2_code_free(r->re_any);
	pcre2_code_free(r->re_abs);
	pcre2_code_free(r->re_here);
	free(r->param);
	free(r->base);
	free(r->home);
	free(r);
}

int pl_rules_push(pl_rules *rs, pl_rule *r)
{
	if (!lu_reserve(&rs->items, &rs->cap, rs->n + 1))
		return LOCUS_ENOMEM;
	rs->items[rs->n++] = r;
	return 0;
}

void pl_rules_free(pl_rules *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		pl_rule_free(rs->items[i]);
	free(rs->items);
	memset(rs, 0, sizeof(*rs));
}

/* --- glob to PCRE2 ------------------------------------------------------- */

/* Append the regex for glob `g`; `path` makes `*` stop at '/'. */
static void glob_to_re(lu_buf *b, const char *g, bool path)
{
	for (size_t i = 0; g[i]; i++) {
		char c = g[i];
		if (c == '*') {
			if (path && g[i + 1] == '*') {
				if (g[i + 2] == '/') {
					lu_buf_puts(b, "(?:.*/)?");
					i += 2;
				} else {
					lu_buf_puts(b, ".*");
					i += 1;
				}
			} else {
				lu_buf_puts(b, path ? "[^/]*" : ".*");
			}
		} else if (c == '?' && path) {
			lu_buf_puts(b, "[^/]");
		} else if (isalnum((unsigned char)c) ||
		           (unsigned char)c >= 0x80) {
			lu_buf_add(b, &c, 1);
		} else {
			char esc[8];
			snprintf(esc, sizeof(esc), "\\x{%02x}",
			         (unsigned char)c);
			lu_buf_puts(b, esc);
		}
	}
}

static pcre2_code *compile(const char *re)
{
	return lu_re_compile(
	    re, PCRE2_DOTALL | PCRE2_ANCHORED | PCRE2_ENDANCHORED, false, NULL);
}

/* 1 match, 0 no match, -1 error (a limit): callers fail closed. */
static int re_match(const pcre2_code *re, const char *s)
{
	return (int)lu_re_match_once(re, s, strlen(s), NULL);
}

/* --- parsing --------------------------------------------------------------- */

static int fail(char *why, size_t wl, const char *msg)
{
	snprintf(why, wl, "%s", msg);
	return LOCUS_EINVALID;
}

static bool valid_name(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!(isalnum(c) || c == '_' || c == '-' || c == '.' ||
		      c == '*'))
			return false;
	}
	return true;
}

/* The pattern of a path rule, its root resolved: "//x" absolute, "/x"
 * absolute (locus) or project-relative (Claude), "~/x" under the home
 * directory (expanded when it is known), else relative.  Malloc'd. */
static char *path_pattern(pl_rule *r, const char *spec, bool claude,
                          const char *home)
{
	if (strncmp(spec, "//", 2) == 0) {
		r->root = P_ABS;
		return strdup(spec + 1);
	}
	if (spec[0] == '/') {
		r->root = claude ? P_PROJ : P_ABS;
		return strdup(claude ? spec + 1 : spec);
	}
	if (spec[0] == '~' && (spec[1] == '/' || spec[1] == '\0')) {
		if (!home || home[0] != '/') {
			r->root = P_HOME;
			return strdup(spec);
		}
		/* ~/x is the home directory's x: Claude sends absolute paths */
		r->root = P_ABS;
		size_t hl = strlen(home);
		while (hl > 1 && home[hl - 1] == '/')
			hl--;
		size_t n = hl + strlen(spec) + 1;
		char *o = malloc(n);
		if (o)
			snprintf(o, n, "%.*s%s", (int)hl, home, spec + 1);
		return o;
	}
	r->root = P_REL;
	if (spec[0] == '.' && spec[1] == '/')
		r->here = true;
	while (spec[0] == '.' && spec[1] == '/')
		spec += 2;
	return strdup(spec);
}

static int parse_path_spec(pl_rule *r, const char *spec, const pl_rule_ctx *ctx,
                           char *why, size_t wl)
{
	bool claude = ctx && ctx->claude;
	char *pat = path_pattern(r, spec, claude, r->home);
	if (!pat)
		return LOCUS_ENOMEM;
	const char *g = pat;
	size_t gl = strlen(g);
	while (gl > 1 && g[gl - 1] == '/')
		gl--; /* "dir/" is "dir" and everything under it */
	/* a trailing "/ **" means the folder and everything under it: itself
	   too (a search of it reads what is under it) */
	if (gl > 3 && strncmp(g + gl - 3, "/**", 3) == 0)
		gl -= 3;
	char *trim = strndup(g, gl);
	free(pat);
	if (!trim)
		return LOCUS_ENOMEM;
	if (!trim[0] || (r->root == P_PROJ && !strcmp(trim, "/"))) {
		free(trim);
		return fail(why, wl, "empty path pattern");
	}
	/* a relative pattern without an inner slash matches at any depth; a
	   project-anchored one ("/x") only at the root */
	bool basename = r->root == P_REL && !strchr(trim, '/');
	lu_buf a = LU_BUF_INIT, b = LU_BUF_INIT, c = LU_BUF_INIT;
	if (basename)
		lu_buf_puts(&a, "(?:.*/)?");
	glob_to_re(&a, trim, true);
	lu_buf_puts(&a, "(?:/.*)?"); /* a path names itself and all under it */
	lu_buf_puts(&b, "(?:.*/)?");
	glob_to_re(&b, trim, true);
	lu_buf_puts(&b, "(?:/.*)?");
	if (r->root == P_PROJ) {
		lu_buf_puts(&c, "/");
		glob_to_re(&c, trim, true);
		lu_buf_puts(&c, "(?:/.*)?");
	}
	/* "./x" is the x at the root: an allow covers only that one (a deny
	   still matches the name at any depth, like "x") */
	lu_buf d = LU_BUF_INIT;
	if (basename && r->here) {
		glob_to_re(&d, trim, true);
		lu_buf_puts(&d, "(?:/.*)?");
	}
	free(trim);
	int rc = 0;
	if (a.oom || b.oom || c.oom || d.oom) {
		rc = LOCUS_ENOMEM;
	} else {
		r->re = compile(a.d);
		r->re_any = compile(b.d);
		if (c.d)
			r->re_abs = compile(c.d);
		if (d.d)
			r->re_here = compile(d.d);
		if (!r->re || !r->re_any || (c.d && !r->re_abs) ||
		    (d.d && !r->re_here))
			rc = fail(why, wl, "path pattern does not compile");
	}
	free(a.d);
	free(b.d);
	free(c.d);
	free(d.d);
	return rc;
}

static int parse_value_spec(pl_rule *r, const char *spec, char *why, size_t wl)
{
	lu_buf a = LU_BUF_INIT;
	glob_to_re(&a, spec, false);
	if (a.oom)
		return LOCUS_ENOMEM;
	r->re = compile(a.d);
	free(a.d);
	return r->re ? 0 : fail(why, wl, "pattern does not compile");
}

static int parse_cmd_spec(pl_rule *r, const char *spec, char *why, size_t wl)
{
	size_t n = strlen(spec);
	const char *colon = strstr(spec, ":*");
	if (colon && colon != spec + n - 2)
		return fail(why, wl, "\":*\" may only end a shell rule");
	if (colon) {
		/* word prefix: "X" alone or "X" followed by a space and more */
		if (n == 2)
			return fail(why, wl,
			            "empty command prefix before \":*\"");
		r->pat[0] = strndup(spec, n - 2);
		if (!r->pat[0])
			return LOCUS_ENOMEM;
		size_t pl = n - 2;
		r->pat[1] = malloc(pl + 3);
		if (!r->pat[1])
			return LOCUS_ENOMEM;
		memcpy(r->pat[1], spec, pl);
		memcpy(r->pat[1] + pl, " *", 3);
		return 0;
	}
	r->pat[0] = strdup(spec);
	if (!r->pat[0])
		return LOCUS_ENOMEM;
	/* "npm run *" also matches a bare "npm run" */
	if (n > 2 && strcmp(spec + n - 2, " *") == 0) {
		r->pat[1] = strndup(spec, n - 2);
		if (!r->pat[1])
			return LOCUS_ENOMEM;
	}
	return 0;
}

/* Known arguments of the tool families, for Tool(param:value) rules of
 * tools whose specifier may itself hold a ':' (a shell prefix, a path). */
/* clang-format off */
static const char *const bash_params[] = {
	"run_in_background", "dangerouslyDisableSandbox", "timeout",
	"description", "is_background", "dir_path", NULL};
/* clang-format on */
/* clang-format off */
static const char *const file_params[] = {
	"file_path", "path", "notebook_path", "pattern", "glob", "offset",
	"limit", "replace_all", "output_mode", "type", "edit_mode", NULL};
/* clang-format on */

/* "name:value" with an identifier name: the name's length, else 0. */
static size_t param_name_len(const char *spec)
{
	size_t n = 0;
	if (!(isalpha((unsigned char)spec[0]) || spec[0] == '_'))
		return 0;
	while (isalnum((unsigned char)spec[n]) || spec[n] == '_')
		n++;
	return spec[n] == ':' ? n : 0;
}

static int parse_param_spec(pl_rule *r, const char *spec, size_t nl, char *why,
                            size_t wl)
{
	r->spec = S_PARAM;
	r->param = strndup(spec, nl);
	r->pat[0] = strdup(spec + nl + 1);
	if (!r->param || !r->pat[0])
		return LOCUS_ENOMEM;
	if (!spec[nl + 1])
		return fail(why, wl, "empty value after \"param:\"");
	return parse_value_spec(r, spec + nl + 1, why, wl);
}

static int parse_domain_spec(pl_rule *r, const char *d, char *why, size_t wl)
{
	r->spec = S_DOMAIN;
	/* Claude Code: domain:x is that host exactly, domain:*.x its
	   subdomains */
	if (strncmp(d, "*.", 2) == 0) {
		r->sub = true;
		d += 2;
	}
	if (!*d || strchr(d, '*'))
		return fail(why, wl, "a domain is a host name, or *.host");
	r->pat[0] = strdup(d);
	if (!r->pat[0])
		return LOCUS_ENOMEM;
	for (char *p = r->pat[0]; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	size_t n = strlen(r->pat[0]);
	while (n > 1 && r->pat[0][n - 1] == '.')
		r->pat[0][--n] = '\0';
	return 0;
}

static enum group group_of(const char *name, const char *norm)
{
	if (strcmp(name, "*") == 0)
		return G_ANY;
	if (is_mcp(name))
		return strchr(name, '*') ? G_MCP_GLOB : G_MCP;
	if (in_list(bash_tools, norm))
		return G_BASH;
	if (strcmp(norm, "edit") == 0)
		return G_EDIT;
	if (strcmp(norm, "read") == 0)
		return G_READ;
	if (in_list(fetch_tools, norm))
		return G_WEBFETCH;
	if (in_list(search_tools, norm))
		return G_WEBSEARCH;
	if (in_list(agent_tools, norm))
		return G_AGENT;
	return G_NAME;
}

/* The specifier of `r` (a group already set). */
static int parse_spec(pl_rule *r, const char *spec, const char *norm,
                      const pl_rule_ctx *ctx, char *why, size_t wl)
{
	size_t pn = param_name_len(spec);
	bool files = r->group == G_EDIT || r->group == G_READ ||
	             in_list(edit_tools, norm) || in_list(read_tools, norm);
	if (!spec[0])
		return fail(why, wl, "empty specifier `()`");
	if (r->group == G_ANY || r->group == G_MCP || r->group == G_MCP_GLOB)
		return fail(why, wl, "`*` and mcp__ rules take no specifier");
	if (r->group == G_WEBFETCH && strncmp(spec, "domain:", 7) == 0)
		return parse_domain_spec(r, spec + 7, why, wl);
	if (pn) {
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(pn < 63 ? pn : 63),
		         spec);
		bool known = r->group == G_BASH ? in_list(bash_params, name)
		             : files            ? in_list(file_params, name)
		                                : true;
		if (known)
			return parse_param_spec(r, spec, pn, why, wl);
	}
	if (r->group == G_BASH) {
		r->spec = S_CMD;
		return parse_cmd_spec(r, spec, why, wl);
	}
	if (files) {
		r->spec = S_PATH;
		return parse_path_spec(r, spec, ctx, why, wl);
	}
	if (r->group == G_AGENT) {
		r->spec = S_AGENT;
		return parse_value_spec(r, spec, why, wl);
	}
	r->spec = S_VALUE;
	return parse_value_spec(r, spec, why, wl);
}

int pl_rule_parse(pl_rule **out, const char *text, const pl_rule_ctx *ctx,
                  char *why, size_t wl)
{
	*out = NULL;
	size_t n = strlen(text);
	if (n == 0)
		return fail(why, wl, "empty rule");
	if (n > PL_MAX_RULE)
		return fail(why, wl, "rule longer than 4096 bytes");
	pl_rule *r = calloc(1, sizeof(*r));
	if (!r)
		return LOCUS_ENOMEM;
	int rc = 0;
	r->text = strdup(text);
	const char *open = strchr(text, '(');
	size_t nl = open ? (size_t)(open - text) : n;
	r->name = strndup(text, nl);
	const char *home = ctx && ctx->home ? ctx->home : getenv("HOME");
	if (home && home[0] == '/')
		r->home = strdup(home);
	if (ctx && ctx->base && ctx->base[0] == '/')
		r->base = strdup(ctx->base);
	if (!r->text || !r->name || (home && home[0] == '/' && !r->home) ||
	    (ctx && ctx->base && ctx->base[0] == '/' && !r->base)) {
		rc = LOCUS_ENOMEM;
		goto out;
	}
	if (!valid_name(text, nl)) {
		rc = fail(why, wl,
		          "a rule starts with a tool name (letters, "
		          "digits, _ - .), `*` or mcp__server");
		goto out;
	}
	char norm[128];
	lu_tool_norm(r->name, norm, sizeof(norm));
	if (strchr(r->name, '*') && strcmp(r->name, "*") != 0 &&
	    !is_mcp(r->name)) {
		rc = fail(why, wl,
		          "`*` in a tool name is only allowed as `*` or in "
		          "mcp__server__*");
		goto out;
	}
	r->group = group_of(r->name, norm);
	if (!open) {
		r->spec = S_NONE;
		goto out;
	}
	if (text[n - 1] != ')') {
		rc = fail(why, wl, "a rule with `(` must end with `)`");
		goto out;
	}
	char *spec = strndup(open + 1, n - nl - 2);
	if (!spec) {
		rc = LOCUS_ENOMEM;
		goto out;
	}
	/* Tool(*) is Tool */
	if (strcmp(spec, "*") == 0 && r->group != G_ANY && r->group != G_MCP &&
	    r->group != G_MCP_GLOB)
		r->spec = S_NONE;
	else
		rc = parse_spec(r, spec, norm, ctx, why, wl);
	free(spec);
out:
	if (rc) {
		if (rc == LOCUS_ENOMEM)
			snprintf(why, wl, "out of memory");
		pl_rule_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

static void warn(const pl_rule_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn(const pl_rule_ctx *ctx, const char *fmt, ...)
{
	if (!ctx || !ctx->warn)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->warn(ctx->warn_ctx, msg);
}

/* An allow rule Claude Code does not apply: `*`, or an mcp__ glob whose
 * server part is a glob (mcp__*, mcp__*__x): not anchored to a tool or a
 * server. */
static bool unanchored_allow(const pl_rule *r)
{
	if (r->group == G_ANY)
		return true;
	if (r->group != G_MCP_GLOB)
		return false;
	const char *server = r->name + 5;
	const char *end = strstr(server, "__");
	size_t sl = end ? (size_t)(end - server) : strlen(server);
	return memchr(server, '*', sl) != NULL;
}

/*
 * Claude's reading of a rule that does not parse: an allow rule is skipped;
 * an ask or deny rule holds its tool (an ask rule for the tool name, `*`
 * when even that is unreadable), so what it meant to stop is never let
 * through and nothing else is blocked.  0 or LOCUS_ENOMEM.
 */
static int bad_rule(const pl_rule_ctx *ctx, int list, const char *iname,
                    const char *text, const char *why, pl_rules lists[3])
{
	if (list == PL_ALLOW) {
		warn(ctx, "%s: bad rule \"%.200s\" (%s): skipped", iname, text,
		     why);
		return 0;
	}
	char name[160];
	size_t nl = strcspn(text, "(");
	snprintf(name, sizeof(name), "%.*s", (int)(nl < 150 ? nl : 150), text);
	pl_rule *r = NULL;
	char w2[128];
	if (!name[0] || pl_rule_parse(&r, name, ctx, w2, sizeof(w2)) ||
	    r->group == G_ANY) {
		pl_rule_free(r);
		r = NULL;
		snprintf(name, sizeof(name), "*");
		if (pl_rule_parse(&r, "*", ctx, w2, sizeof(w2)))
			return LOCUS_ENOMEM;
	}
	warn(ctx, "%s: bad rule \"%.200s\" (%s): every %s call is held instead",
	     iname, text, why, name);
	if (pl_rules_push(&lists[PL_ASK], r)) {
		pl_rule_free(r);
		return LOCUS_ENOMEM;
	}
	return 0;
}

int pl_load_permissions(const pl_doc *doc, const cJSON *perm, const char *field,
                        bool strict, const pl_rule_ctx *ctx, pl_rules lists[3],
                        locus_error *err)
{
	static const char *const names[3] = {"allow", "ask", "deny"};
	bool claude = ctx && ctx->claude;
	if (!cJSON_IsObject(perm))
		return pl_doc_error(doc, perm, field, err,
		                    "expected an object with allow, ask, deny");
	for (const cJSON *c = perm->child; c; c = c->next) {
		int l = -1;
		for (int k = 0; k < 3; k++)
			if (strcmp(c->string, names[k]) == 0)
				l = k;
		char fname[64];
		snprintf(fname, sizeof(fname), "%s.%.40s", field, c->string);
		if (l < 0) {
			if (strict)
				return pl_doc_error(doc, c, fname, err,
				                    "unknown field");
			continue;
		}
		if (!cJSON_IsArray(c))
			return pl_doc_error(
			    doc, c, fname, err,
			    "expected an array of rule strings");
		size_t idx = 0;
		for (const cJSON *it = c->child; it; it = it->next, idx++) {
			char iname[96];
			snprintf(iname, sizeof(iname), "%s[%zu]", fname, idx);
			if (!cJSON_IsString(it))
				return pl_doc_error(doc, it, iname, err,
				                    "expected a rule string");
			char why[128];
			pl_rule *r = NULL;
			int rc = pl_rule_parse(&r, it->valuestring, ctx, why,
			                       sizeof(why));
			if (rc == LOCUS_ENOMEM)
				return lu_err(err, rc, "out of memory");
			if (rc && claude) {
				if (bad_rule(ctx, l, iname, it->valuestring,
				             why, lists))
					return lu_err(err, LOCUS_ENOMEM,
					              "out of memory");
				continue;
			}
			if (rc)
				return pl_doc_error(doc, it, iname, err,
				                    "bad rule: %s", why);
			if (claude && l == PL_ALLOW && unanchored_allow(r)) {
				warn(ctx,
				     "%s: allow rule \"%.200s\" names no tool "
				     "or "
				     "server; Claude Code skips it, and so "
				     "does locus",
				     iname, it->valuestring);
				pl_rule_free(r);
				continue;
			}
			if (claude && l != PL_ALLOW && r->root == P_PROJ &&
			    r->spec == S_PATH)
				warn(
				    ctx,
				    "%s: \"%.200s\" is relative to the project "
				    "in "
				    "Claude Code (write //path for an absolute "
				    "path); locus also matches it as absolute",
				    iname, it->valuestring);
			if (pl_rules_push(&lists[l], r)) {
				pl_rule_free(r);
				return lu_err(err, LOCUS_ENOMEM,
				              "out of memory");
			}
		}
	}
	return 0;
}

/* --- matching ----------------------------------------------------------- */

/*
 * Does glob `p` (only `*` is special: any run of characters) match subject
 * `s`?  A DYN byte in `s` is a word whose value is unknown: with `any`
 * (ask/deny) it may stand for any stretch of the pattern; without (allow)
 * only a `*` may consume it.  NFA simulation over pattern positions: linear
 * in the subject, no recursion.
 */
static int cmd_glob(const char *p, const char *s, bool any)
{
	size_t pn = strlen(p);
	bool *cur = calloc(2 * (pn + 1), sizeof(bool));
	if (!cur)
		return -1;
	bool *nxt = cur + pn + 1;
	cur[0] = true;
	for (size_t i = 0; i < pn; i++)
		if (cur[i] && p[i] == '*')
			cur[i + 1] = true;
	for (; *s; s++) {
		memset(nxt, 0, pn + 1);
		bool alive = false;
		if (*s == DYN && any) {
			size_t lo = pn + 1;
			for (size_t i = 0; i <= pn; i++)
				if (cur[i]) {
					lo = i;
					break;
				}
			for (size_t i = lo; i <= pn; i++)
				nxt[i] = true;
		} else {
			for (size_t i = 0; i < pn; i++) {
				if (!cur[i])
					continue;
				if (p[i] == '*')
					nxt[i] = true;
				else if (p[i] == *s && *s != DYN)
					nxt[i + 1] = true;
			}
		}
		for (size_t i = 0; i <= pn; i++) {
			if (i < pn && nxt[i] && p[i] == '*')
				nxt[i + 1] = true;
			alive |= nxt[i];
		}
		bool *t = cur;
		cur = nxt;
		nxt = t;
		if (!alive)
			break;
	}
	int res = cur[pn];
	free(cur < nxt ? cur : nxt);
	return res;
}

/* The text a shell rule is matched against: assignments (when asked) then
 * argv, joined by spaces; unknown words become DYN.  Glob words are
 * literal for allow (the rule must spell the same glob) and DYN for
 * ask/deny (a glob can expand to anything, an option included). */
static char *cmd_text(const locus_shell_command *c, bool with_assign, bool any,
                      bool by_name, size_t skip)
{
	lu_buf b = LU_BUF_INIT;
	lu_buf_puts(&b, "");
	bool first = true;
	if (with_assign) {
		for (size_t i = 0; i < c->nassignments; i++) {
			if (!first)
				lu_buf_puts(&b, " ");
			lu_buf_puts(&b, c->assignments[i]);
			first = false;
		}
	}
	for (size_t i = 0; i < c->argc; i++) {
		if (i >= 1 && i <= skip)
			continue; /* git's global options, seen through */
		if (!first)
			lu_buf_puts(&b, " ");
		first = false;
		uint32_t f =
		    c->argv_flags ? c->argv_flags[i] : LOCUS_WORD_DYNAMIC;
		uint32_t unknown = LOCUS_WORD_DYNAMIC;
		if (any)
			unknown |= LOCUS_WORD_GLOB | LOCUS_WORD_BRACE;
		if (f & unknown) {
			char d = DYN;
			lu_buf_add(&b, &d, 1);
		} else {
			/* by_name: `/bin/rm` is matched as `rm` */
			const char *word =
			    (i == 0 && by_name && c->name && c->name[0])
			        ? c->name
			        : c->argv[i];
			/* a DYN byte can never come from a real word */
			for (const char *w = word; *w; w++)
				lu_buf_add(&b, *w == DYN ? "?" : w, 1);
		}
	}
	if (c->flags & LOCUS_CMD_DYNAMIC) {
		/* the program itself is unknown */
		char d = DYN;
		lu_buf_clear(&b);
		lu_buf_add(&b, &d, 1);
	}
	return lu_buf_take(&b);
}

/* Does the allow rule's own text spell `word` (as a whole word)?  Then
 * the user allowed that option by name. */
static bool rule_spells(const pl_rule *r, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = r->pat[0]; p && (p = strstr(p, word)); p++)
		if ((p == r->pat[0] || p[-1] == ' ') &&
		    (p[wl] == '\0' || p[wl] == ' ' || p[wl] == '='))
			return true;
	return false;
}

/* 1 / 0; -1 on a resource failure (callers fail closed). */
static int cmd_rule_match(const pl_rule *r, const locus_shell_command *c,
                          bool any)
{
	if (r->spec == S_NONE)
		return 1;
	if (r->spec != S_CMD)
		return 0;
	size_t git = pl_git_globals(c);
	int res = 0;
	for (int pass = 0; pass < 8 && res == 0; pass++) {
		/* allow: the text with assignments, program as written (FOO=1
		   git diff is not `git diff`, ./git is not git); ask/deny: with
		   and without assignments, the program as written and by its
		   name (`/bin/rm` is `rm`); both: git's global options seen
		   through (`git -C repo push` is `git push`) */
		bool with_assign = (pass & 1) == 0;
		bool by_name = (pass & 2) != 0;
		size_t skip = (pass & 4) ? git : 0;
		if (!any && (pass & 3) != 0)
			continue;
		if ((pass & 4) && git == 0)
			continue;
		if (!with_assign && c->nassignments == 0)
			continue;
		if (by_name && (c->argc == 0 || !c->name ||
		                strcmp(c->name, c->argv[0]) == 0))
			continue;
		char *t = cmd_text(c, with_assign, any, by_name, skip);
		if (!t)
			return -1;
		for (int k = 0; k < 2 && res == 0; k++)
			if (r->pat[k])
				res = cmd_glob(r->pat[k], t, any);
		free(t);
	}
	/* a wildcard allow never covers an option that carries an action
	   (find -delete, sed -i, git -c, --output...) the rule does not
	   spell itself */
	if (res == 1 && !any && strchr(r->text, '*')) {
		const char *w;
		for (size_t from = 1; (w = pl_action_word(c, &from)); from++)
			if (!rule_spells(r, w))
				return 0;
	}
	return res;
}

static bool rule_tool_matches(const pl_rule *r, const char *tool)
{
	char norm[128];
	lu_tool_norm(tool, norm, sizeof(norm));
	switch (r->group) {
	case G_ANY: return true;
	case G_BASH: return !is_mcp(tool) && in_list(bash_tools, norm);
	case G_EDIT: return !is_mcp(tool) && in_list(edit_tools, norm);
	case G_READ: return !is_mcp(tool) && in_list(read_tools, norm);
	case G_WEBFETCH: return !is_mcp(tool) && in_list(fetch_tools, norm);
	case G_WEBSEARCH: return !is_mcp(tool) && in_list(search_tools, norm);
	case G_AGENT: return !is_mcp(tool) && in_list(agent_tools, norm);
	case G_MCP: {
		size_t n = strlen(r->name);
		return strncmp(tool, r->name, n) == 0 &&
		       (tool[n] == '\0' || strncmp(tool + n, "__", 2) == 0);
	}
	case G_MCP_GLOB: {
		lu_buf b = LU_BUF_INIT;
		glob_to_re(&b, r->name, false);
		if (b.oom)
			return false;
		pcre2_code *re = compile(b.d);
		free(b.d);
		int m = re ? re_match(re, tool) : 0;
		pcre2_code_free(re);
		return m == 1;
	}
	case G_NAME: {
		if (is_mcp(tool))
			return false;
		char rn[128];
		lu_tool_norm(r->name, rn, sizeof(rn));
		return strcmp(rn, norm) == 0;
	}
	}
	return false;
}

/* --- the elements of a call ------------------------------------------------ */

typedef struct strs {
	char **v;
	size_t n, cap;
	bool oom;
} strs;

static void spush(strs *s, char *v)
{
	if (!v) {
		s->oom = true;
		return;
	}
	if (!lu_reserve(&s->v, &s->cap, s->n + 1)) {
		free(v);
		s->oom = true;
		return;
	}
	s->v[s->n++] = v;
}

static void sfree(strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static const char *arg_str(const cJSON *args, const char *const *keys)
{
	for (; *keys; keys++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, *keys);
		if (cJSON_IsString(v))
			return v->valuestring;
	}
	return NULL;
}

/* Files an apply_patch call touches: "*** Add/Update/Delete File: P",
 * "*** Move to: P", and unified-diff "--- a/P" / "+++ b/P" lines. */
static void patch_paths(const char *patch, strs *out)
{
	static const char *const heads[] = {"*** Add File: ",
	                                    "*** Update File: ",
	                                    "*** Delete File: ",
	                                    "*** Move to: ",
	                                    "--- ",
	                                    "+++ ",
	                                    NULL};
	const char *p = patch;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		for (const char *const *h = heads; *h; h++) {
			size_t hl = strlen(*h);
			if (ll > hl && strncmp(p, *h, hl) == 0) {
				const char *s = p + hl;
				size_t sl = ll - hl;
				while (sl &&
				       (s[sl - 1] == '\r' || s[sl - 1] == ' '))
					sl--;
				bool diff = (*h)[0] == '-' || (*h)[0] == '+';
				if (diff && sl == 9 &&
				    strncmp(s, "/dev/null", 9) == 0)
					break;
				if (diff && sl > 2 &&
				    (s[0] == 'a' || s[0] == 'b') &&
				    s[1] == '/') {
					s += 2;
					sl -= 2;
				}
				/* "--- a/x\t2020-..." : drop a tab-separated date */
				const char *tab = memchr(s, '\t', sl);
				if (tab)
					sl = (size_t)(tab - s);
				if (sl)
					spush(out, strndup(s, sl));
				break;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
}

/* `abs` (collapsed) relative to `root`: "." for the root itself, NULL
 * when it is not under it.  Malloc'd; *oom on allocation failure. */
static char *rel_to(const char *abs, const char *root, bool *oom)
{
	char *rt = lu_path_collapse(root, NULL);
	char *rel = NULL;
	if (!rt) {
		*oom = true;
		return NULL;
	}
	size_t rl = strlen(rt);
	if (strcmp(rt, "/") == 0)
		rel = strdup(abs[1] ? abs + 1 : ".");
	else if (strncmp(abs, rt, rl) == 0 && abs[rl] == '/')
		rel = strdup(abs + rl + 1);
	else if (strcmp(abs, rt) == 0)
		rel = strdup(".");
	else {
		free(rt);
		return NULL;
	}
	free(rt);
	if (!rel)
		*oom = true;
	return rel;
}

/*
 * 1 / 0 / -1 (error) for a path rule against one path.  A relative `path`
 * is relative to the call's workspace `call_root`; the rule's relative
 * patterns to its own project (r->base) or, without one, the same root.
 */
static int path_match(const pl_rule *r, const char *path, const char *call_root,
                      bool any)
{
	const char *base = r->base ? r->base : call_root;
	char *exp = NULL;
	if (r->home && path[0] == '~' && (path[1] == '/' || path[1] == '\0')) {
		size_t n = strlen(r->home) + strlen(path) + 1;
		exp = malloc(n);
		if (!exp)
			return -1;
		snprintf(exp, n, "%s%s", r->home, path + 1);
		path = exp;
	}
	if (r->root == P_HOME || path[0] == '~') {
		/* the home directory is unknown: "~/x" matches "~/x" as
		   written; an absolute deny matches any "~" path */
		int res;
		if (r->root == P_HOME)
			res = path[0] == '~' ? re_match(r->re, path) : 0;
		else
			res = any && r->root == P_ABS ? 1 : 0;
		free(exp);
		return res;
	}
	bool esc = false, oom = false;
	char *abs = NULL, *rel = NULL;
	int res = 0;
	if (path[0] == '/') {
		abs = lu_path_collapse(path, NULL);
		oom = !abs;
	} else if (call_root) {
		size_t l = strlen(call_root) + strlen(path) + 2;
		char *j = malloc(l);
		if (j) {
			snprintf(j, l, "%s/%s", call_root, path);
			abs = lu_path_collapse(j, NULL);
			free(j);
		}
		oom = !abs;
	}
	if (!oom && abs && base)
		rel = rel_to(abs, base, &oom);
	else if (!oom && !abs && path[0] != '/') {
		/* no workspace known: the path relative to an unknown root */
		rel = lu_path_collapse(path, &esc);
		oom = !rel;
		if (esc) {
			free(rel);
			rel = NULL;
		}
	}
	if (oom) {
		res = -1;
	} else if (r->root == P_ABS) {
		if (abs)
			res = re_match(r->re, abs);
		else
			res = any ? 1 : 0; /* where it lands is unknown */
	} else {
		if (rel)
			res = re_match(!any && r->re_here ? r->re_here : r->re,
			               rel);
		else if (any && abs)
			/* outside the project, or the project is unknown: a
			   deny on a relative pattern matches the name anywhere in
			   the absolute path */
			res = re_match(r->re_any, abs);
		/* Claude's "/x" is project-relative; ask and deny also read it
		   as the absolute /x (what its writer may have meant) */
		if (res == 0 && any && abs && r->re_abs)
			res = re_match(r->re_abs, abs);
	}
	free(abs);
	free(rel);
	free(exp);
	return res;
}

/*
 * The path as it really is when it exists: resolved with realpath(3) and,
 * when it lands inside the (resolved) root, rewritten under `root` as
 * written, so relative rules still read it.  NULL when it does not exist,
 * cannot be resolved, or resolves to itself.
 */
static char *resolved_path(const char *path, const char *root)
{
	if (path[0] == '~' || (!root && path[0] != '/'))
		return NULL;
	char joined[PATH_MAX], real[PATH_MAX], realroot[PATH_MAX];
	if (path[0] == '/')
		snprintf(joined, sizeof(joined), "%s", path);
	else if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", root,
	                          path) >= sizeof(joined))
		return NULL;
	if (!realpath(joined, real))
		return NULL;
	char *col = lu_path_collapse(joined, NULL);
	bool same = col && strcmp(col, real) == 0;
	free(col);
	if (same)
		return NULL;
	if (root && realpath(root, realroot)) {
		size_t rl = strlen(realroot);
		if (strncmp(real, realroot, rl) == 0 &&
		    (real[rl] == '/' || real[rl] == '\0') &&
		    strcmp(realroot, "/")) {
			size_t n = strlen(root) + strlen(real + rl) + 1;
			char *o = malloc(n);
			if (o)
				snprintf(o, n, "%s%s", root, real + rl);
			return o;
		}
	}
	return strdup(real);
}

/* An ask or deny rule against a glob word (`cat .e*` under a deny on
 * .env): bash hands the program the names the pattern matches, so the
 * pattern is expanded where the line runs (the workspace root), leading
 * dots matched too (dotglob) and braces expanded, and each name is
 * matched.  At most GLOB_NAMES names are tried; past them, it may be. */
enum { GLOB_NAMES = 4096 };
static int glob_match_rule(const pl_rule *r, const char *path, const char *root)
{
	char pat[PATH_MAX];
	int n;
	if (path[0] == '/')
		n = snprintf(pat, sizeof pat, "%s", path);
	else if (path[0] == '~' && path[1] == '/' && r->home)
		n = snprintf(pat, sizeof pat, "%s%s", r->home, path + 1);
	else if (path[0] != '~' && root)
		n = snprintf(pat, sizeof pat, "%s/%s", root, path);
	else
		return 0; /* a home we do not know: the word as written */
	if (n < 0 || (size_t)n >= sizeof pat)
		return 1;
	glob_t g;
	memset(&g, 0, sizeof g);
	int rc = glob(pat, GLOB_NOSORT | GLOB_PERIOD | GLOB_BRACE, NULL, &g);
	if (rc == GLOB_NOSPACE)
		return -1;
	int res = 0;
	for (size_t i = 0; rc == 0 && i < g.gl_pathc && res == 0; i++)
		res = i < GLOB_NAMES ? path_match(r, g.gl_pathv[i], root, true)
		                     : 1;
	globfree(&g);
	return res;
}

/* path_match() on the path as written and, when it exists, as it really
 * is (symlinks resolved): ask/deny match either, allow must cover both. */
static int path_match_real(const pl_rule *r, const char *path, const char *root,
                           bool any)
{
	int res = path_match(r, path, root, any);
	if (res < 0 || (any && res == 1) || (!any && res == 0))
		return res;
	if (any && strpbrk(path, "*?[{")) {
		res = glob_match_rule(r, path, root);
		if (res != 0)
			return res;
	}
	char *real = resolved_path(path, root);
	if (!real)
		return res;
	int res2 = path_match(r, real, root, any);
	free(real);
	return res2;
}

static char *url_host(const char *url)
{
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	size_t n = strcspn(p, "/?#\\");
	const char *at = NULL;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '@')
			at = p + i;
	if (at) {
		n -= (size_t)(at + 1 - p);
		p = at + 1;
	}
	size_t hl;
	if (p[0] == '[') {
		const char *e = memchr(p, ']', n);
		hl = e ? (size_t)(e - p) + 1 : n;
	} else {
		const char *c = memchr(p, ':', n);
		hl = c ? (size_t)(c - p) : n;
	}
	while (hl && p[hl - 1] == '.')
		hl--;
	char *h = strndup(p, hl);
	for (char *q = h; q && *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return h;
}

/* domain:x is the host x (Claude Code), domain:*.x a host below x; an ask
 * or deny rule (`any`) on domain:x also covers x's subdomains (stricter
 * than Claude, never looser). */
static int domain_match(const pl_rule *r, const char *url, bool any)
{
	char *h = url_host(url);
	if (!h)
		return -1;
	size_t hl = strlen(h), dl = strlen(r->pat[0]);
	bool below = hl > dl && h[hl - dl - 1] == '.' &&
	             strcmp(h + hl - dl, r->pat[0]) == 0;
	bool same = strcmp(h, r->pat[0]) == 0;
	int res = hl > 0 && (r->sub ? below : (same || (any && below)));
	free(h);
	return res;
}

/*
 * Does one rule of a list match the call?  For allow (any == false) the
 * call's elements must each be covered by some rule of the list, so this
 * answers per element (index `el`); for ask/deny any element counts.
 */

static const char *const path_keys[] = {"path", "file_path", "notebook_path",
                                        NULL};
/* clang-format off */
static const char *const value_keys[] = {
	"path", "command", "url", "query", "asset", "host", "hostname",
	"target", "resource", "resource_id", "account", "user", "username",
	"email", "order_id", "id", "ip", NULL};
/* clang-format on */

typedef struct elems {
	int family;   /* S_CMD, S_PATH, S_VALUE */
	strs items;   /* paths or values */
	bool unknown; /* the call has no value to match: allow cannot cover */
} elems;

static void call_elems(const pl_call *call, elems *e)
{
	char norm[128];
	lu_tool_norm(call->tool, norm, sizeof(norm));
	memset(e, 0, sizeof(*e));
	if (!is_mcp(call->tool) && in_list(bash_tools, norm)) {
		e->family = S_CMD;
		return;
	}
	if (!is_mcp(call->tool) &&
	    (in_list(edit_tools, norm) || in_list(read_tools, norm))) {
		e->family = S_PATH;
		if (strcmp(norm, "applypatch") == 0) {
			const char *patch = arg_str(
			    call->args,
			    (const char *const[]){"patch", "input", NULL});
			if (patch)
				patch_paths(patch, &e->items);
		} else {
			const char *p = arg_str(call->args, path_keys);
			if (!p && (strcmp(norm, "ls") == 0 ||
			           strcmp(norm, "glob") == 0 ||
			           strcmp(norm, "grep") == 0))
				p = "."; /* their default: the workspace root */
			if (p)
				spush(&e->items, strdup(p));
		}
		e->unknown = e->items.n == 0;
		return;
	}
	e->family = S_VALUE;
	if (!is_mcp(call->tool) && in_list(agent_tools, norm)) {
		/* Agent(Explore): the subagent type; none is the default one */
		const char *t = arg_str(
		    call->args, (const char *const[]){"subagent_type", NULL});
		spush(&e->items, strdup(t ? t : "general-purpose"));
		return;
	}
	const char *v = arg_str(call->args, value_keys);
	if (v)
		spush(&e->items, strdup(v));
	e->unknown = e->items.n == 0;
}

/* Rule vs element `i` of the call (S_PATH/S_VALUE). */
static int rule_elem_match(const pl_rule *r, const pl_call *call,
                           const char *item, bool any)
{
	switch (r->spec) {
	case S_NONE: return 1;
	case S_CMD: return 0; /* a shell spec on a non-shell call */
	case S_PATH: return path_match_real(r, item, call->workspace_root, any);
	case S_DOMAIN: return domain_match(r, item, any);
	case S_VALUE:
	case S_AGENT: return re_match(r->re, item);
	case S_PARAM: return 0; /* judged on the whole call */
	}
	return 0;
}

/*
 * Tool(param:value): 1 when the call's argument `param` has that value
 * (strings as they are, true/false, numbers as written); an argument that
 * is absent is false.  -1 on error.
 */
static int param_match(const pl_rule *r, const cJSON *args)
{
	const cJSON *v =
	    args ? cJSON_GetObjectItemCaseSensitive(args, r->param) : NULL;
	if (!v)
		return strcmp(r->pat[0], "false") == 0;
	if (cJSON_IsString(v))
		return re_match(r->re, v->valuestring);
	if (cJSON_IsBool(v))
		return re_match(r->re, cJSON_IsTrue(v) ? "true" : "false");
	char *t = cJSON_PrintUnformatted(v);
	if (!t)
		return -1;
	int res = re_match(r->re, t);
	cJSON_free(t);
	return res;
}

/* A Read or Edit rule against the paths a shell line reads or writes. */
typedef struct shell_paths_ctx {
	const pl_rule *rule;
	const char *root;
} shell_paths_ctx;

static int shell_path_cb(void *vctx, const char *path)
{
	const shell_paths_ctx *x = vctx;
	if (!path)
		return 1; /* known only at run time: it may be that file */
	if (x->rule->spec == S_NONE)
		return 1;
	return path_match_real(x->rule, path, x->root, true) != 0;
}

/* Is `r` a Read or an Edit rule (on paths, or on the whole tool)?  Its
 * PL_PATHS_* kind, else 0. */
static int file_rule_kind(const pl_rule *r)
{
	if (r->spec != S_PATH && r->spec != S_NONE)
		return 0;
	if (r->group == G_READ)
		return PL_PATHS_READ;
	if (r->group == G_EDIT)
		return PL_PATHS_WRITE;
	char norm[128];
	lu_tool_norm(r->name, norm, sizeof(norm));
	if (r->group == G_NAME && !is_mcp(r->name) && in_list(edit_tools, norm))
		return PL_PATHS_WRITE;
	if (r->group == G_NAME && !is_mcp(r->name) && in_list(read_tools, norm))
		return PL_PATHS_READ;
	return 0;
}

/* Ask/deny: does any rule of `list` match any element?  Errors count as
 * a match (fail closed). */
static const pl_rule *list_any(const pl_rules *list, const pl_call *call,
                               const elems *e)
{
	for (size_t k = 0; k < list->n; k++) {
		const pl_rule *r = list->items[k];
		/* Read and Edit rules reach the shell: `cat .env`, `> src/a` */
		int fk = e->family == S_CMD ? file_rule_kind(r) : 0;
		if (fk && call->shell) {
			shell_paths_ctx x = {r, call->workspace_root};
			if (pl_shell_paths(call->shell, fk, shell_path_cb, &x))
				return r;
			continue;
		}
		if (!rule_tool_matches(r, call->tool))
			continue;
		if (r->spec == S_NONE)
			return r;
		if (r->spec == S_PARAM) {
			if (param_match(r, call->args) != 0)
				return r;
			continue;
		}
		if (e->family == S_CMD) {
			if (!call->shell)
				return r; /* no analysis: fail closed */
			size_t n = locus_shell_result_count(call->shell);
			for (size_t i = 0; i < n; i++) {
				const locus_shell_command *c =
				    locus_shell_result_command(call->shell, i);
				if (c && cmd_rule_match(r, c, true) != 0)
					return r;
			}
			continue;
		}
		if (e->unknown || e->items.oom)
			return r; /* nothing to look at: fail closed */
		for (size_t i = 0; i < e->items.n; i++)
			if (rule_elem_match(r, call, e->items.v[i], true) != 0)
				return r;
	}
	return NULL;
}

/* The first rule of `list` for the call's tool that covers one item of
   it: the shell command `c`, or else the element `elem`. */
static const pl_rule *cover_of(const pl_rules *list, const pl_call *call,
                               const locus_shell_command *c, const char *elem)
{
	for (size_t k = 0; k < list->n; k++) {
		const pl_rule *r = list->items[k];
		if (!rule_tool_matches(r, call->tool))
			continue;
		if (c ? cmd_rule_match(r, c, false) == 1
		      : rule_elem_match(r, call, elem, false) == 1)
			return r;
	}
	return NULL;
}

/* Allow: is every element covered by some rule of `list`?  Returns the
 * first covering rule, or NULL. */
static const pl_rule *list_every(const pl_rules *list, const pl_call *call,
                                 const elems *e)
{
	const pl_rule *first = NULL;
	if (e->family == S_CMD) {
		const locus_shell_result *sh = call->shell;
		size_t n = sh ? locus_shell_result_count(sh) : 0;
		if (!sh || !locus_shell_result_parsed(sh) || n == 0)
			return NULL;
		for (size_t i = 0; i < n; i++) {
			const locus_shell_command *c =
			    locus_shell_result_command(sh, i);
			if (!c || (c->flags & LOCUS_CMD_WRITES_FILES))
				return NULL;
			const pl_rule *cov = cover_of(list, call, c, NULL);
			if (!cov)
				return NULL;
			if (!first)
				first = cov;
		}
		return first;
	}
	if (e->items.oom)
		return NULL;
	/* a Tool(param:value) allow covers a (non-shell) call whole */
	for (size_t k = 0; k < list->n; k++) {
		const pl_rule *r = list->items[k];
		if (r->spec == S_PARAM && rule_tool_matches(r, call->tool) &&
		    param_match(r, call->args) == 1)
			return r;
	}
	if (e->unknown) {
		/* only a rule without specifier covers a call with no value */
		for (size_t k = 0; k < list->n; k++)
			if (rule_tool_matches(list->items[k], call->tool) &&
			    list->items[k]->spec == S_NONE)
				return list->items[k];
		return NULL;
	}
	for (size_t i = 0; i < e->items.n; i++) {
		const pl_rule *cov = cover_of(list, call, NULL, e->items.v[i]);
		if (!cov)
			return NULL;
		if (!first)
			first = cov;
	}
	return first;
}

int pl_permission(const pl_rules lists[3], const pl_call *call,
                  const pl_rule **rule)
{
	elems e;
	call_elems(call, &e);
	int verdict = -1;
	const pl_rule *r = NULL;
	if ((r = list_any(&lists[PL_DENY], call, &e))) {
		verdict = PL_DENY;
	} else if ((r = list_any(&lists[PL_ASK], call, &e))) {
		verdict = PL_ASK;
	} else if ((r = list_every(&lists[PL_ALLOW], call, &e))) {
		verdict = PL_ALLOW;
	}
	sfree(&e.items);
	if (rule)
		*rule = r;
	return verdict;
}
