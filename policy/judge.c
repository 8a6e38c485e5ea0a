/*
 * policy/judge.c - one tool call through locus_gate(), read into plain
 * fields (policy/judge.h): the tags, the family, the see-through tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"

/* The most telling tags first; a tag not listed (a new one) comes next. */
/* clang-format off */
static const char *const family_order[] = {
	"exec:never",      "exec:remote-code", "exec:destructive",
	"exec:secrets",    "exec:privilege",   "exec:persistence",
	"exec:force-push", "exec:shutdown",    "exec:vcs-push",
	"exec:network",    "outside-workspace", NULL};
/* clang-format on */
/* Telling tags outside the exec: namespace (docs/tags.md). */
static const char *const plain_telling[] = {"outside-workspace", NULL};
/* Tags that say nothing about harm. */
/* clang-format off */
static const char *const quiet_tags[] = {
	"exec:check", "exec:background", "exec:stdin", "exec:unparsed", NULL};
/* clang-format on */

static bool listed(const char *t, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(t, *list))
			return true;
	return false;
}

/* An exec:* tag (or another namespaced tag) that is not a quiet one. */
static bool telling(const char *t)
{
	return (strchr(t, ':') && strncmp(t, "permission:", 11) &&
	        !listed(t, quiet_tags)) ||
	       listed(t, plain_telling);
}

const char *pl_family(char *const *tags, size_t n)
{
	for (size_t k = 0; family_order[k]; k++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(tags[i], family_order[k]))
				return family_order[k];
	for (size_t i = 0; i < n; i++)
		if (telling(tags[i]))
			return tags[i];
	for (size_t i = 0; i < n; i++)
		if (listed(tags[i], quiet_tags))
			return tags[i];
	return "other";
}

bool pl_dangerous(char *const *tags, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (telling(tags[i]))
			return true;
	return false;
}

char *pl_judged_tags(const pl_judged *r)
{
	size_t n = 1;
	for (size_t i = 0; i < r->ntags; i++)
		n += strlen(r->tags[i]) + 1;
	char *s = malloc(n);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < r->ntags; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, r->tags[i]);
	}
	return s;
}

void pl_judged_free(pl_judged *r)
{
	free(r->reason);
	free(r->kind);
	for (size_t i = 0; i < r->ntags; i++)
		free(r->tags[i]);
	free(r->tags);
	free(r->verdict);
	free(r->rule);
	locus_free(r->commands);
	memset(r, 0, sizeof *r);
}

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Tags from the decision's labels: all but the kind, the environment and
   the permission:* labels the policy added. */
static int take_tags(pl_judged *r, const locus_decision *d)
{
	size_t n = locus_decision_label_count(d);
	r->tags = calloc(n ? n : 1, sizeof *r->tags);
	if (!r->tags)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *l = locus_decision_label(d, i);
		bool is_kind = false;
		for (int k = LOCUS_KIND_READ; k <= LOCUS_KIND_NETWORK; k++)
			if (!strcmp(l, locus_kind_name((locus_kind)k))) {
				is_kind = true;
				if (!r->kind)
					r->kind = strdup(l);
			}
		if (is_kind || !strcmp(l, "unknown") ||
		    !strncmp(l, "permission:", 11))
			continue;
		if (!(r->tags[r->ntags] = strdup(l)))
			return -1;
		r->ntags++;
	}
	return 0;
}

static int judged(pl_judged *r, const locus_decision *d,
                  locus_shell_parser *parser)
{
	r->outcome = locus_decision_outcome(d);
	r->reason = dup0(locus_decision_reason(d));
	r->verdict = dup0(locus_decision_permission(d));
	r->rule = dup0(locus_decision_permission_rule(d));
	r->waived = locus_decision_waived_count(d) > 0;
	if (!r->reason || take_tags(r, d))
		return -1;
	if (!r->kind)
		r->kind = strdup("");
	if (!strcmp(locus_decision_action(d), "bash")) {
		/* the see-through tree: every command the line runs */
		const char *line = locus_decision_asset(d);
		locus_action *a = NULL;
		if (locus_action_classify(&a, parser, line, strlen(line),
		                          NULL) == 0)
			locus_action_json(&r->commands, a, LOCUS_JSON_COMMANDS);
		locus_action_free(a);
	}
	return r->kind ? 0 : -1;
}

int pl_judge(pl_judged *r, const locus_policy *policy,
             locus_shell_parser *parser, const char *tool, const char *args,
             const char *cwd)
{
	memset(r, 0, sizeof *r);
	locus_gate_input in = LOCUS_GATE_INPUT_INIT;
	if (cwd && cwd[0] == '/')
		in.workspace_root = cwd;
	locus_decision *d = NULL;
	locus_error err;
	memset(&err, 0, sizeof err);
	int rc =
	    locus_gate(&d, policy, parser, tool, args, strlen(args), &in, &err);
	if (rc == LOCUS_ENOMEM)
		return -1;
	if (rc) {
		/* what the hook would do: refuse the call */
		char why[400];
		snprintf(why, sizeof why, "the gate could not decide: %s",
		         err.message[0] ? err.message
		                        : locus_error_code_name(rc));
		r->gate_error = true;
		r->outcome = LOCUS_OUTCOME_DENY;
		r->reason = strdup(why);
		r->kind = strdup("");
		r->tags = calloc(1, sizeof *r->tags);
		if (r->tags && (r->tags[0] = strdup(tool)))
			r->ntags = 1;
		rc = r->reason && r->kind && r->ntags ? 0 : -1;
	} else {
		rc = judged(r, d, parser);
	}
	locus_decision_free(d);
	if (rc) {
		pl_judged_free(r);
		return -1;
	}
	r->family = r->gate_error ? "gate-error" : pl_family(r->tags, r->ntags);
	r->dangerous = pl_dangerous(r->tags, r->ntags);
	return 0;
}
