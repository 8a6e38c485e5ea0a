/*
 * policy/judge.h - one tool call through locus_gate(), and what the
 * decision says as plain fields: the outcome and reason, the kind, the
 * tags (sorted, without the kind and the policy's permission:* labels),
 * the most telling tag (the family), whether harm is possible, the
 * permission verdict and, for a shell line, every command it runs.
 *
 * Shared by the transcripts' audit (agents/audit_judge.c: a row of the
 * audit is a judged call and where it was found) and the policy fuzzer
 * (policy/policy_fuzz.c, cli/policy_fuzz_cmd.c).
 */
#ifndef LOCUS_POLICY_JUDGE_H
#define LOCUS_POLICY_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "locus/policy.h"

/* One judged call.  Strings are malloc'd. */
typedef struct pl_judged {
	locus_outcome outcome;
	bool gate_error; /* the gate refused the arguments: deny */
	char *reason;
	char *kind;  /* "workspace.exec"... */
	char **tags; /* the Action's tags, sorted */
	size_t ntags;
	char *verdict, *rule; /* permission verdict and rule, or NULL */
	char *commands;       /* bash: locus_action_json with commands */
	const char *family;   /* the most telling tag, or "other" */
	bool dangerous;       /* a tag that warrants a look */
	bool waived;          /* an allow rule waived a hold */
} pl_judged;

/* Judge the call of `tool` (the name locus_gate() takes) with `args` (a
   JSON object) in the working folder `cwd` (an absolute path is the
   workspace root; NULL or relative: none).  A call the gate refuses to
   decide is judged deny (gate_error).  0, or -1 out of memory (nothing
   to free). */
int pl_judge(pl_judged *j, const locus_policy *policy,
             locus_shell_parser *parser, const char *tool, const char *args,
             const char *cwd);
void pl_judged_free(pl_judged *j);
/* The tags joined by single spaces, malloc'd ("" for none; NULL out of
   memory). */
char *pl_judged_tags(const pl_judged *j);

/* The most telling tag ("exec:never" first), or "other". */
const char *pl_family(char *const *tags, size_t ntags);
/* True for tags that mean harm is possible (danger tags, new tags). */
bool pl_dangerous(char *const *tags, size_t ntags);

#endif
