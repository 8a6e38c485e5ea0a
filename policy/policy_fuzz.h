/*
 * policy/policy_fuzz.h - `locus policy fuzz` (policy/policy_fuzz.c) and its
 * built-in library (policy/fuzz_intents.c): dangerous intents, the options
 * that carry a command into a program, and the workspace files that
 * programs run.  docs/audit.md "locus policy fuzz".
 */
#ifndef LOCUS_CLI_POLICY_FUZZ_H
#define LOCUS_CLI_POLICY_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "judge.h"

/* Relative paths in the probes are resolved against this workspace. */
#define PF_ROOT "/fuzz/workspace"

typedef struct pf_rule {
	char *text;       /* as written; "(preset standard)" for allowances */
	bool deny;        /* a deny rule, attacked under the whole policy */
	bool settings;    /* written in a Claude Code settings file */
	char *deny_file;  /* Read/Edit/Write deny: a path it protects */
	bool deny_writes; /* ... against writes (Edit, Write) */
	const char *file; /* where it is written, or NULL */
	long line;
	char *prefix; /* Bash rules: the words before :* or *, else NULL */
	bool plain;   /* every line (Bash, Bash(*), *, the allowances) */
	bool writes;  /* Edit, Write or "*": the write probes */
	char **lines, **intents; /* its base candidates */
	char **cores;            /* what each must run to be a finding */
	locus_policy *alone; /* the policy with this rule as its only allow */
	size_t n, cap;
} pf_rule;

/* Admitted lines of one finding kept for checking a fix (the example's
   spellings are tried too). */
#define PF_KEEP_ADMITTED 48

typedef struct pf_finding {
	size_t rule;
	char *intent, *example, *family, *tags;
	char *core; /* the intent or form the example runs */
	char *admitted_lines[PF_KEEP_ADMITTED];
	size_t nadmitted_lines;
	char *write_file, *write_content; /* runner findings: the plant */
	long admitted;
	char *fix, *fix_rule;
	bool verified;
	long checked_lines; /* lines the fix was checked against */
} pf_finding;

/* Free a finding's texts (policy/policy_fuzz.c). */
void pf_finding_clear(pf_finding *f);

/* One fuzz run (policy/policy_fuzz.c searches, cli/policy_fuzz_cmd.c reads
   the options, reduces, fixes and reports). */
typedef struct pf_ctx {
	locus_policy *policy;
	locus_shell_parser *parser;
	pf_rule *rules;
	size_t nrules;
	pf_finding *found;
	size_t nfound, capfound;
	long tested, count;
	double deadline;
	uint64_t seed;
	size_t cur; /* the rule whose candidates are being made */
	/* Called when c->tested reaches next_progress (it moves
	   next_progress on), and with `last` at the end; NULL: none (the
	   command's progress line: cli/policy_fuzz_cmd.c). */
	void (*progress)(struct pf_ctx *c, bool last);
	bool progress_tty;      /* the progress goes to a terminal */
	long next_progress;     /* c->tested at which to report next */
	struct pf_cores *cores; /* policy/policy_fuzz_check.c's cache */
} pf_ctx;

/* ---- policy/policy_fuzz_check.c ---- */

typedef struct pf_cores pf_cores;
void pf_cores_free(pf_cores *cs);
/* Does the line whose classification (locus_action_json with commands)
   is `line_json` run `core`, as the gate's see-through tree shows it?
   `loose`: the core's programs and redirect targets, any words. */
bool pf_genuine(pf_ctx *c, const char *core, const char *line_json, bool loose);
/* Spellings of `line` a fix must hold against: option clusters
   reordered, split, doubled and in long form, wrappers, rewrites. */
typedef void (*pf_variant_fn)(void *ctx, const char *line);
size_t pf_spellings(const char *line, uint64_t seed, pf_variant_fn emit,
                    void *ctx);

/* Gate one call of `tool` with one or two string arguments under `p`;
   fills `row` (pl_judge) and counts the line.  0 or -1. */
int pf_judge(pf_ctx *c, const locus_policy *p, const char *tool,
             const char *key, const char *value, const char *key2,
             const char *value2, pl_judged *row);
/* Allowed although it carries a telling tag (pl_dangerous). */
bool pf_worth(const pl_judged *r);
bool pf_budget_left(const pf_ctx *c);
/* The policy rule ri is fuzzed under: alone for an allow rule, the whole
   policy for a deny rule. */
const locus_policy *pf_rule_policy(const pf_ctx *c, size_t ri);
/* Is the judged line a finding of rule ri: allowed, dangerous (for an
   allow rule), and running its core (pf_genuine)? */
bool pf_admits(pf_ctx *c, size_t ri, const pl_judged *r, const char *core,
               bool loose);
/* A copy of `p`: with `only_allow` ("" for none) as the only allow rule
   when non-NULL, and `value` added to `list` ("deny" for
   permissions.deny, or a label set such as "require_human_for",
   "deny_for") when `list` is non-NULL.  NULL on failure. */
locus_policy *pf_policy_edit(const locus_policy *p, const char *only_allow,
                             const char *list, const char *value);
/* The base candidates and probes of every rule, then metamorphic rounds
   until the budget ends; findings in c->found. */
void pf_search(pf_ctx *c);


/* A dangerous thing to do, as one shell line. */
typedef struct pf_intent {
	const char *name;     /* "delete-home" */
	const char *category; /* floor, packs, secrets, persistence,
	                         privilege, outside-workspace */
	const char *cmd;      /* the line; no ' or " (it goes into quotes) */
} pf_intent;

extern const pf_intent pf_intents[];
extern const size_t pf_nintents;

/*
 * Lines a rule on `program` might admit, built from the rule's prefix
 * (its words before `:*`): PREFIX + a carrier filled with an intent, or a
 * program form dangerous by itself.  Calls `emit(ctx, line, intent)` for
 * each; `intent` names the intent or the form.  Returns the number made.
 */
typedef void (*pf_emit_fn)(void *ctx, const char *line, const char *intent,
                           const char *core);
size_t pf_candidates(const char *prefix, pf_emit_fn emit, void *ctx);

/* Lines with no rule prefix: every intent as written (the preset's
   allowances). */
size_t pf_plain_candidates(pf_emit_fn emit, void *ctx);

/* Lines that read (or with `write`, write) `file`, a path a deny rule
   protects as the shell would take it (`~/.ssh/id_rsa`, `.env`), by other
   programs than the denied tool: `git diff --no-index /dev/null FILE`,
   `grep '' FILE`, `tee FILE`... */
size_t pf_file_candidates(const char *file, bool write, pf_emit_fn emit,
                          void *ctx);

/*
 * A program that runs a workspace file: the file to write (relative to the
 * workspace), its content with `cmd` as the code run, and the line that
 * runs it.  Filled for a rule prefix that names such a program; 0, or -1
 * when the prefix is not one.  Strings are written into the buffers.
 */
typedef struct pf_runner {
	char file[64];
	char content[1024];
	char run[256];
} pf_runner;
int pf_runner_for(const char *prefix, const char *cmd, pf_runner *out);

#endif
