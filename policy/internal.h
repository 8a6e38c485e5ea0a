/*
 * policy/internal.h - shared pieces of the policy engine (not public).
 */
#ifndef LOCUS_POLICY_INTERNAL_H
#define LOCUS_POLICY_INTERNAL_H

#include <cjson/cJSON.h>

#include "locus/policy.h"
#include "../util/error.h"

#define PL_MAX_DOC ((size_t)4 << 20) /* policy/settings file size limit */

/* --- strict JSON (policy/json.c) ------------------------------------ */

/* A parsed document and its text, for error positions. */
typedef struct pl_doc {
	cJSON *root;
	const char *text;
	size_t len;
	const char *what; /* "policy", "settings" */
} pl_doc;

/* Parse `text` strictly: valid UTF-8, no NUL, no "\u0000", no duplicate
 * keys anywhere, nothing after the value.  Fills err on failure. */
int pl_doc_parse(pl_doc *doc, const char *what, const char *text, size_t len,
                 locus_error *err);
void pl_doc_free(pl_doc *doc);

/* Fill err (LOCUS_EINVALID) with "WHAT: FIELD at line L, column C: MSG",
 * locating `node` in the text.  Returns LOCUS_EINVALID. */
int pl_doc_error(const pl_doc *doc, const cJSON *node, const char *field,
                 locus_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* --- string sets -------------------------------------------------------- */

typedef struct pl_strset {
	char **items; /* sorted, unique */
	size_t n, cap;
} pl_strset;

int pl_strset_add(pl_strset *s, const char *v);
bool pl_strset_has(const pl_strset *s, const char *v);
void pl_strset_free(pl_strset *s);

/* --- permission rules (policy/rules.c) ------------------------------ */

enum { PL_ALLOW = 0, PL_ASK = 1, PL_DENY = 2 };

typedef struct pl_rule pl_rule;

typedef struct pl_rules {
	pl_rule **items;
	size_t n, cap;
} pl_rules;

/* How rule texts are read (docs/policy.md, "Claude Code settings"). */
typedef struct pl_rule_ctx {
	bool claude;      /* Claude Code's reading: "/x" is relative to the
	                     project, "//x" absolute; bad rules are skipped
	                     (allow) or hold their tool (ask, deny) */
	const char *base; /* the project root relative paths are read against;
	                     NULL: the call's workspace root */
	const char *home; /* what "~/" stands for; NULL: $HOME at parse time */
	void (*warn)(void *ctx, const char *message); /* may be NULL */
	void *warn_ctx;
} pl_rule_ctx;

/* Parse one rule text.  0, LOCUS_EINVALID (message in `why`), ENOMEM.
 * `ctx` may be NULL (locus's own policy format). */
int pl_rule_parse(pl_rule **out, const char *text, const pl_rule_ctx *ctx,
                  char *why, size_t whylen);
void pl_rule_free(pl_rule *r);
const char *pl_rule_text(const pl_rule *r);
int pl_rules_push(pl_rules *rs, pl_rule *r);
void pl_rules_free(pl_rules *rs);

/* The call a permission verdict is given on. */
typedef struct pl_call {
	const char *tool; /* normalised harness name or the name as given */
	cJSON *args;      /* borrowed, may be NULL */
	const locus_shell_result *shell; /* bash, else NULL */
	const char *workspace_root;
} pl_call;

/* The strongest verdict (PL_ALLOW.. PL_DENY) of the rule lists, or -1 when
 * no rule matched; *rule gets the rule that gave it. */
int pl_permission(const pl_rules lists[3], const pl_call *call,
                  const pl_rule **rule);

/* --- shell facts for rules (policy/rules_shell.c) ----------------- */

/* How many argv words after `git` are global options (0: not git). */
size_t pl_git_globals(const locus_shell_command *c);

/* The first argv word at or after *from that carries an action for its
 * program (find -delete, sed -i, git -c, --output...); *from is set to
 * its index.  NULL when none. */
const char *pl_action_word(const locus_shell_command *c, size_t *from);

/* The paths a line reads (PL_PATHS_READ) and/or writes (PL_PATHS_WRITE),
 * each handed to `cb` (NULL for a word known only at run time).  A
 * non-zero return from cb stops the walk and is returned. */
enum { PL_PATHS_READ = 1, PL_PATHS_WRITE = 2 };
typedef int (*pl_path_cb)(void *ctx, const char *path);
int pl_shell_paths(const locus_shell_result *sh, int kind, pl_path_cb cb,
                   void *ctx);

/* --- the policy -------------------------------------------------------- */

struct locus_policy {
	pl_strset deny_for;
	pl_strset require_sandbox_for;
	/* false: require_sandbox_for only names what a front end that can
	   confine a call confines; an unconfined call is not denied for it
	   (the presets; docs/jail.md) */
	bool require_sandbox_strict;
	/* holds (require_human_for) waived for a call tagged `sandboxed`;
	   never a label of pl_never_confined (docs/jail.md) */
	pl_strset allow_sandboxed_for;
	pl_strset require_human_for;
	locus_severity min_severity;
	double require_verification_score;
	int64_t max_blast_radius;
	bool has_human_over;
	double require_human_over_usd;
	bool has_spend_limit;
	double spend_limit_usd;
	char *version;
	pl_rules rules[3];      /* PL_ALLOW, PL_ASK, PL_DENY */
	char **protected_paths; /* resolved; writes are agent-config */
	size_t nprotected, protected_cap;
};

/* Load the "permissions" object into `lists` (strict: only allow, ask,
 * deny when `strict`, else other keys are ignored).  `ctx` as for
 * pl_rule_parse (NULL: locus's own format, every bad rule an error). */
int pl_load_permissions(const pl_doc *doc, const cJSON *perm, const char *field,
                        bool strict, const pl_rule_ctx *ctx, pl_rules lists[3],
                        locus_error *err);

/* A label confinement never makes harmless (network, secrets,
 * persistence, agent config, pushes, privilege, the floor...): refused
 * in allow_sandboxed_for, never waived by it. */
bool pl_never_confined(const char *label);

/* Fill `o` with a decision's fields (decision JSON and audit record). */
bool pl_decision_fields(const locus_decision *d, cJSON *o);

/* SHA-256 of data as 64 lower-case hex digits plus NUL. */

#endif
