/*
 * policy/decide.c - evaluation of a ControlPolicy on an Action (spec
 * policy.md sections 1-4): the checks in their fixed order, the permission
 * verdict, the decision record and the refusal JSON; and the gate, which
 * derives the Action of a tool call first.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../util/json.h"
#include "../util/tools.h"
#include "../util/array.h"
#include "../util/invariant.h"
#include "../util/path.h"
#include "../util/str.h"

typedef struct check {
	locus_outcome outcome;
	char *reason;
} check;

struct locus_decision {
	locus_outcome outcome;
	char *reason;
	char *action;
	char *asset;
	char *kind;
	check *checks;
	size_t nchecks, capchecks;
	char **waived;
	size_t nwaived, capwaived;
	pl_strset labels;
	const char *permission; /* static "allow" "ask" "deny" or NULL */
	char *permission_rule;
	char *version;
	bool confined; /* allowed only because the call runs confined */
	bool oom;
};

/* What the policy looks at, whatever the action came from. */
typedef struct subject {
	const char *tool;
	const char *kind;
	const char *asset;
	const char *env;
	int64_t blast;
	double cost;
	pl_strset tags;
	const locus_shell_result *shell;
	cJSON *args;
} subject;

void locus_decision_free(locus_decision *d)
{
	if (!d)
		return;
	free(d->reason);
	free(d->action);
	free(d->asset);
	free(d->kind);
	for (size_t i = 0; i < d->nchecks; i++)
		free(d->checks[i].reason);
	free(d->checks);
	for (size_t i = 0; i < d->nwaived; i++)
		free(d->waived[i]);
	free(d->waived);
	pl_strset_free(&d->labels);
	free(d->permission_rule);
	free(d->version);
	free(d);
}

/* Record a fired check (or, with `waive`, a require_human check waived by
 * a permission allow).  The reason is formatted to its full length: no
 * fixed buffer cuts a long label list short.  Out of memory sets d->oom,
 * which fails the whole decision (never a check silently skipped). */
static void add_check(locus_decision *d, locus_outcome o, bool waive,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add_check(locus_decision *d, locus_outcome o, bool waive,
                      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *r = n < 0 ? NULL : malloc((size_t)n + 1);
	if (!r) {
		d->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(r, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (waive) {
		if (!lu_reserve(&d->waived, &d->capwaived, d->nwaived + 1)) {
			free(r);
			d->oom = true;
			return;
		}
		d->waived[d->nwaived++] = r;
		return;
	}
	if (!lu_reserve(&d->checks, &d->capchecks, d->nchecks + 1)) {
		free(r);
		d->oom = true;
		return;
	}
	d->checks[d->nchecks].outcome = o;
	d->checks[d->nchecks].reason = r;
	d->nchecks++;
	if (o > d->outcome)
		d->outcome = o;
}

static bool in_set(const pl_strset *set, const char *extra, const char *l)
{
	return pl_strset_has(set, l) || (extra && strcmp(l, extra) == 0);
}

/* "['a', 'b']": the labels of `d` that are in `set` or equal `extra`,
 * sorted, as the original (Python) printed them.  NULL when none, and
 * when memory runs out (then d->oom: the decision fails, the check is
 * never skipped). */
static char *intersect(locus_decision *d, const pl_strset *set,
                       const char *extra)
{
	size_t len = 3, count = 0;
	for (size_t i = 0; i < d->labels.n; i++) {
		const char *l = d->labels.items[i];
		if (in_set(set, extra, l)) {
			len += strlen(l) + 4;
			count++;
		}
	}
	if (!count)
		return NULL;
	char *s = malloc(len);
	if (!s) {
		d->oom = true;
		return NULL;
	}
	size_t o = 0;
	s[o++] = '[';
	for (size_t i = 0, k = 0; i < d->labels.n; i++) {
		const char *l = d->labels.items[i];
		if (!in_set(set, extra, l))
			continue;
		if (k++) {
			s[o++] = ',';
			s[o++] = ' ';
		}
		s[o++] = '\'';
		size_t ll = strlen(l);
		memcpy(s + o, l, ll);
		o += ll;
		s[o++] = '\'';
	}
	s[o++] = ']';
	assert(o < len);
	s[o] = '\0';
	return s;
}

/* Holding label `l` may be waived for a confined call: it is in
 * allow_sandboxed_for, or the call carries a refinement `l:X` of it that
 * is (`outside-workspace:tmp`: every outside path is a scratch path the
 * jail makes private). */
static bool confinable(const locus_decision *d, const locus_policy *p,
                       const char *l)
{
	if (pl_never_confined(l))
		return false;
	if (pl_strset_has(&p->allow_sandboxed_for, l))
		return true;
	size_t n = strlen(l);
	for (size_t i = 0; i < d->labels.n; i++) {
		const char *r = d->labels.items[i];
		if (!strncmp(r, l, n) && r[n] == ':' && r[n + 1] &&
		    pl_strset_has(&p->allow_sandboxed_for, r))
			return true;
	}
	return false;
}

/* A sandboxed call whose every holding label (require_human_for, and
 * permission:ask) is confinable and none is never_confined. */
static bool confined_allow(const locus_decision *d, const locus_policy *p)
{
	if (!p->allow_sandboxed_for.n ||
	    !pl_strset_has(&d->labels, "sandboxed"))
		return false;
	for (size_t i = 0; i < d->labels.n; i++) {
		const char *l = d->labels.items[i];
		bool holds = pl_strset_has(&p->require_human_for, l) ||
		             !strcmp(l, "permission:ask");
		if (holds && !confinable(d, p, l))
			return false;
	}
	return true;
}

bool locus_policy_wants_sandbox(const locus_policy *p, const locus_decision *d)
{
	if (!p || !d)
		return false;
	/* an allow that holds only in the jail is confined, whatever
	   require_sandbox_for says */
	if (d->confined)
		return true;
	for (size_t i = 0; i < d->labels.n; i++)
		if (pl_strset_has(&p->require_sandbox_for, d->labels.items[i]))
			return true;
	return false;
}

static bool bad_number(double v)
{
	return !isfinite(v) || v < 0;
}

/* A decision for `s` under `p` with nothing fired yet. */
static locus_decision *decision_new(const locus_policy *p, const subject *s)
{
	locus_decision *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->outcome = LOCUS_OUTCOME_ALLOW;
	d->action = strdup(s->tool);
	d->asset = strdup(s->asset ? s->asset : "");
	d->kind = strdup(s->kind ? s->kind : "");
	d->version = strdup(p->version ? p->version : "");
	if (!d->action || !d->asset || !d->kind || !d->version)
		d->oom = true;
	return d;
}

/* The permission verdict of the rules, which becomes a label
 * (permission:allow|ask|deny).  True when it is allow: require_human
 * checks are then waived. */
static bool permission_verdict(locus_decision *d, const locus_policy *p,
                               subject *s, const locus_gate_input *in)
{
	if (!p->rules[PL_ALLOW].n && !p->rules[PL_ASK].n &&
	    !p->rules[PL_DENY].n)
		return false;
	pl_call call = {s->tool, s->args, s->shell,
	                in ? in->workspace_root : NULL};
	const pl_rule *rule = NULL;
	int v = pl_permission(p->rules, &call, &rule);
	static const char *const vn[3] = {"allow", "ask", "deny"};
	static const char *const vl[3] = {"permission:allow", "permission:ask",
	                                  "permission:deny"};
	if (v < 0)
		return false;
	/* pl_permission gives -1 or a list index, with the rule that fired */
	if (NEVER(v > PL_DENY || !rule)) {
		d->oom = true; /* fail the decision: closed */
		return false;
	}
	d->permission = vn[v];
	d->permission_rule = strdup(pl_rule_text(rule));
	if (!d->permission_rule || pl_strset_add(&s->tags, vl[v]))
		d->oom = true;
	return v == PL_ALLOW;
}

/* labels = {environment, kind} | tags, empty strings dropped */
static void collect_labels(locus_decision *d, const subject *s)
{
	const char *base[2] = {s->env, s->kind};
	for (int i = 0; i < 2; i++)
		if (base[i] && base[i][0] && pl_strset_add(&d->labels, base[i]))
			d->oom = true;
	for (size_t i = 0; i < s->tags.n; i++)
		if (s->tags.items[i][0] &&
		    pl_strset_add(&d->labels, s->tags.items[i]))
			d->oom = true;
}

/* Checks 1-3 (spec policy.md section 2): labels denied, labels needing a
 * sandbox, a finding below the minimum severity. */
static void deny_checks(locus_decision *d, const locus_policy *p,
                        const locus_gate_input *in)
{
	char *l;
	/* 1. deny_for (permission:deny always enforced) */
	if ((l = intersect(d, &p->deny_for, "permission:deny"))) {
		add_check(d, LOCUS_OUTCOME_DENY, false,
		          "labels %s are denied by policy", l);
		free(l);
	}
	/* 2. require_sandbox_for (not strict: only what a front end that
	   can confine confines, so an unconfined call is not denied) */
	if (p->require_sandbox_strict &&
	    !pl_strset_has(&d->labels, "sandboxed") &&
	    (l = intersect(d, &p->require_sandbox_for, NULL))) {
		add_check(d, LOCUS_OUTCOME_DENY, false,
		          "labels %s require a sandbox and the action is not "
		          "sandboxed",
		          l);
		free(l);
	}
	/* 3. min_severity */
	if (in && in->has_finding && in->finding_severity < p->min_severity)
		add_check(d, LOCUS_OUTCOME_DENY, false,
		          "finding severity %s is below the minimum %s",
		          locus_severity_name(in->finding_severity),
		          locus_severity_name(p->min_severity));
}

/* Checks 4-8: verification, blast radius, cost, spend limit, labels
 * needing a person.  A permission allow waives the require_human ones,
 * never a deny. */
static void bound_checks(locus_decision *d, const locus_policy *p,
                         const subject *s, const locus_gate_input *in,
                         bool waive)
{
	const locus_outcome H = LOCUS_OUTCOME_REQUIRE_HUMAN;
	/* 4. verification */
	if (p->require_verification_score > 0) {
		if (!in || !in->has_verification)
			add_check(d, H, waive, "no verification provided");
		else if (!in->survives)
			add_check(
			    d, LOCUS_OUTCOME_DENY, false,
			    "verification says the action does not survive");
		else if (in->confidence < p->require_verification_score)
			add_check(d, H, waive,
			          "verification confidence %.2f is below the "
			          "bar %.2f",
			          in->confidence,
			          p->require_verification_score);
	}
	/* 5. blast radius */
	if (s->blast > p->max_blast_radius)
		add_check(d, H, waive,
		          "blast radius %lld exceeds the maximum %lld",
		          (long long)s->blast, (long long)p->max_blast_radius);
	/* 6. cost needing approval */
	if (p->has_human_over && s->cost > p->require_human_over_usd)
		add_check(
		    d, H, waive,
		    "cost %.2f USD exceeds the approval threshold %.2f USD",
		    s->cost, p->require_human_over_usd);
	/* 7. spend limit: no approval overrides it */
	double spent = in ? in->spent_usd : 0;
	if (p->has_spend_limit && spent + s->cost > p->spend_limit_usd)
		add_check(
		    d, LOCUS_OUTCOME_DENY, false,
		    "spend %.2f USD plus cost %.2f USD exceeds the limit %.2f "
		    "USD",
		    spent, s->cost, p->spend_limit_usd);
	/* 8. require_human_for (permission:ask always enforced); waived
	   for a sandboxed call when every label that holds it is one the
	   policy allows confined */
	char *l = intersect(d, &p->require_human_for, "permission:ask");
	if (l) {
		bool confined = confined_allow(d, p);
		if (confined && !waive)
			d->confined = true;
		add_check(d, H, waive || confined,
		          confined ? "labels %s require human approval "
		                     "(waived: the call runs sandboxed)"
		                   : "labels %s require human approval",
		          l);
		free(l);
	}
}

/* reason: the fired checks joined by "; " */
static void join_reason(locus_decision *d)
{
	static const char passed[] = "all policy checks passed";
	size_t len = sizeof passed;
	for (size_t i = 0; i < d->nchecks; i++)
		len += strlen(d->checks[i].reason) + 2;
	d->reason = malloc(len);
	if (!d->reason) {
		d->oom = true;
		return;
	}
	d->reason[0] = '\0';
	if (!d->nchecks)
		strcpy(d->reason, passed);
	for (size_t i = 0; i < d->nchecks; i++) {
		if (i)
			strcat(d->reason, "; ");
		strcat(d->reason, d->checks[i].reason);
	}
}

/* The evaluation proper (spec policy.md section 2, in order). */
static int evaluate(locus_decision **out, const locus_policy *p, subject *s,
                    const locus_gate_input *in, locus_error *err)
{
	locus_decision *d = decision_new(p, s);
	if (!d)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	bool perm_allow = permission_verdict(d, p, s, in);
	collect_labels(d, s);
	deny_checks(d, p, in);
	bound_checks(d, p, s, in, perm_allow);
	join_reason(d);
	if (d->oom) {
		locus_decision_free(d);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	/* the strongest fired check is the outcome; waived ones never count */
	assert(d->nchecks || d->outcome == LOCUS_OUTCOME_ALLOW);
	*out = d;
	return 0;
}

/* A gate input of a version we do not know is refused: its fields may
   not mean what we would read (fail closed). */
static int check_input_version(const locus_gate_input *in, locus_error *err)
{
	if (in && in->version != LOCUS_GATE_INPUT_VERSION)
		return lu_err(err, LOCUS_EINVALID,
		              "gate input: unknown version %u (start from "
		              "LOCUS_GATE_INPUT_INIT)",
		              in->version);
	return 0;
}

static int apply_input(subject *s, const locus_gate_input *in, locus_error *err)
{
	if (!in)
		return 0;
	if (in->environment)
		s->env = in->environment;
	if (in->has_blast_radius) {
		if (in->blast_radius < 0)
			return lu_err(err, LOCUS_EINVALID,
			              "blast_radius must not be negative");
		s->blast = in->blast_radius;
	}
	if (in->has_cost) {
		if (bad_number(in->cost_usd))
			return lu_err(err, LOCUS_EINVALID,
			              "cost_usd must be a non-negative number");
		s->cost = in->cost_usd;
	}
	if (bad_number(in->spent_usd))
		return lu_err(err, LOCUS_EINVALID,
		              "spent_usd must be a non-negative number");
	if (in->has_verification && (!isfinite(in->confidence) ||
	                             in->confidence < 0 || in->confidence > 1))
		return lu_err(err, LOCUS_EINVALID,
		              "verification confidence must be within 0..1");
	if (in->has_finding && (unsigned)in->finding_severity > 3)
		return lu_err(err, LOCUS_EINVALID, "unknown finding severity");
	for (size_t i = 0; i < in->ntags; i++) {
		/* outside-workspace:tmp is the labeller's word on the paths
		   of the call (it may waive a hold when confined): a caller
		   cannot claim it */
		if (!in->tags[i] ||
		    !strncmp(in->tags[i], "outside-workspace:", 18))
			continue;
		if (pl_strset_add(&s->tags, in->tags[i]))
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	return 0;
}

static int subject_from_action(subject *s, const locus_action *a)
{
	memset(s, 0, sizeof(*s));
	s->tool = locus_action_tool(a);
	s->kind = locus_kind_name(locus_action_kind(a));
	s->asset = locus_action_asset(a);
	s->env = locus_action_environment(a);
	s->blast = locus_action_blast_radius(a);
	s->cost = locus_action_cost_usd(a);
	s->shell = locus_action_shell(a);
	size_t n = locus_action_tag_count(a);
	for (size_t i = 0; i < n; i++)
		if (pl_strset_add(&s->tags, locus_action_tag(a, i)))
			return LOCUS_ENOMEM;
	return 0;
}

int locus_decide(locus_decision **out, const locus_policy *policy,
                 const locus_action *action, const locus_gate_input *in,
                 locus_error *err)
{
	if (!out)
		return lu_err(err, LOCUS_EUSAGE, "out is required");
	*out = NULL;
	if (!policy || !action)
		return lu_err(err, LOCUS_EUSAGE,
		              "policy and action are required");
	int vrc = check_input_version(in, err);
	if (vrc)
		return vrc;
	subject s;
	int rc = subject_from_action(&s, action);
	if (rc) {
		pl_strset_free(&s.tags);
		return lu_err(err, rc, "out of memory");
	}
	rc = apply_input(&s, in, err);
	if (!rc)
		rc = evaluate(out, policy, &s, in, err);
	pl_strset_free(&s.tags);
	return rc;
}

/* --- files locus was started with ------------------------------ */

/* `abs` resolved as the kernel does (realpath: every link, then `..`
   where the link led), or for a file that does not exist yet its
   directory resolved, is one of the policy's protected files. */
static bool resolves_to_protected(const locus_policy *p, const char *abs)
{
	char real[PATH_MAX], dir[PATH_MAX], rdir[PATH_MAX];
	const char *cand = abs;
	if (realpath(abs, real)) {
		cand = real;
	} else if (lu_copy_fits(dir, sizeof dir, abs, strlen(abs))) {
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = '\0';
			if (realpath(dir, rdir) &&
			    lu_join_fits(real, sizeof real, rdir, slash + 1))
				cand = real;
		}
	}
	for (size_t i = 0; i < p->nprotected; i++)
		if (strcmp(cand, p->protected_paths[i]) == 0)
			return true;
	return false;
}

/* `path` (relative to root) is one of the policy's protected files:
   resolved as written (the kernel's order: `l/../../f` with l -> a/b is
   the root's f), and folded first (`./x/../f`, x need not exist: the
   program may create it); either counts. */
static bool is_protected(const locus_policy *p, const char *path,
                         const char *root)
{
	if (!path || !*path || path[0] == '~')
		return false;
	char joined[PATH_MAX];
	if (!(path[0] == '/' || !root
	          ? lu_copy_fits(joined, sizeof joined, path, strlen(path))
	          : lu_join_fits(joined, sizeof joined, root, path)))
		return false;
	if (resolves_to_protected(p, joined))
		return true;
	char *col = lu_path_collapse(joined, NULL);
	bool hit =
	    col && strlen(col) < sizeof joined && resolves_to_protected(p, col);
	free(col);
	return hit;
}

typedef struct protect_ctx {
	const locus_policy *p;
	const char *root;
} protect_ctx;

static int protect_cb(void *vctx, const char *path)
{
	const protect_ctx *x = vctx;
	return path && is_protected(x->p, path, x->root);
}

/* A write (file tool, apply_patch heads, a shell line's written paths)
   to a protected file adds `agent-config`.  0 or LOCUS_ENOMEM. */
static int protected_label(subject *s, const locus_policy *p, const cJSON *args,
                           const char *root)
{
	if (!p->nprotected)
		return 0;
	bool hit = false;
	if (s->shell) {
		protect_ctx x = {p, root};
		hit = pl_shell_paths(s->shell, PL_PATHS_WRITE, protect_cb,
		                     &x) != 0;
	} else if (s->kind && strcmp(s->kind, "workspace.write") == 0) {
		const cJSON *path =
		    cJSON_GetObjectItemCaseSensitive(args, "path");
		hit = cJSON_IsString(path) &&
		      is_protected(p, path->valuestring, root);
		const cJSON *patch =
		    cJSON_GetObjectItemCaseSensitive(args, "patch");
		static const char *const heads[] = {
		    "*** Add File:", "*** Update File:", "*** Delete File:",
		    "*** Move to:", NULL};
		for (const char *l = cJSON_IsString(patch) ? patch->valuestring
		                                           : NULL;
		     !hit && l && *l;) {
			const char *e = strchr(l, '\n');
			size_t n = e ? (size_t)(e - l) : strlen(l);
			for (size_t h = 0; !hit && heads[h]; h++) {
				size_t hn = strlen(heads[h]);
				if (n <= hn || strncmp(l, heads[h], hn) != 0)
					continue;
				char buf[PATH_MAX];
				size_t k = hn;
				while (k < n && l[k] == ' ')
					k++;
				size_t m = n - k;
				while (m && (l[k + m - 1] == ' ' ||
				             l[k + m - 1] == '\r'))
					m--;
				if (m >= sizeof buf)
					continue;
				memcpy(buf, l + k, m);
				buf[m] = '\0';
				hit = is_protected(p, buf, root);
			}
			l = e ? e + 1 : NULL;
		}
	}
	return hit && pl_strset_add(&s->tags, "agent-config") ? LOCUS_ENOMEM
	                                                      : 0;
}

/* --- the gate -------------------------------------------------------------- */

/* clang-format off */
static const char *const generic_asset_keys[] = {
	"path", "file_path", "command", "url", "query", "asset", "host",
	"hostname", "target", "resource", "resource_id", "account", "user",
	"username", "email", "order_id", "id", "ip", NULL};
/* clang-format on */

/* The subject of a tool that is not a harness tool: labelled by its name,
 * fail closed.  The asset is the first string of generic_asset_keys; the
 * strings are borrowed from `tool` and `args`.  0 or LOCUS_ENOMEM. */
static int unknown_tool_subject(subject *s, const char *tool, const cJSON *args)
{
	bool web = lu_tool_is_web(tool);
	s->tool = tool;
	s->kind = web ? "network" : "workspace.exec";
	s->env = "unknown";
	s->blast = 1;
	s->cost = 0;
	s->asset = "";
	for (size_t i = 0; generic_asset_keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		    args, generic_asset_keys[i]);
		if (cJSON_IsString(v)) {
			s->asset = v->valuestring;
			break;
		}
	}
	int rc = pl_strset_add(&s->tags, tool);
	/* a tool locus does not know: `standard` and `strict` hold it (fail
	   closed); web tools are also kind `network` */
	if (!rc)
		rc = pl_strset_add(&s->tags, "unknown-tool");
	return rc;
}

int locus_gate(locus_decision **out, const locus_policy *policy,
               locus_shell_parser *parser, const char *tool,
               const char *args_json, size_t args_len,
               const locus_gate_input *in, locus_error *err)
{
	if (!out)
		return lu_err(err, LOCUS_EUSAGE, "out is required");
	*out = NULL;
	if (!policy || !tool)
		return lu_err(err, LOCUS_EUSAGE,
		              "policy and tool are required");
	int vrc = check_input_version(in, err);
	if (vrc)
		return vrc;
	/* tool names are identifiers (harness, agents', mcp__server__tool):
	   anything else is refused rather than echoed into records */
	size_t tl = strlen(tool);
	if (tl == 0 || tl > 256 ||
	    strspn(tool, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                 "0123456789_-.:") != tl)
		return lu_err(
		    err, LOCUS_EINVALID,
		    "tool name must be 1 to 256 letters, digits, _ - . :");
	/* the arguments, strictly: a duplicate key would let the tool run a
	   value the policy never saw */
	pl_doc doc;
	int rc;
	/* A "\u0000" escape would cut the C string the tool is derived from
	  : the escapes are marked (\u0001, same length)
	   and the call is judged unparsed, never refused as not JSON. */
	bool nul = args_json && lu_json_has_nul_escape(args_json, args_len);
	char *marked = nul ? malloc(args_len) : NULL;
	if (nul && !marked)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (marked) {
		memcpy(marked, args_json, args_len);
		lu_json_mark_nul_escapes(marked, args_len);
		args_json = marked;
	}
	if (!args_json || args_len == 0)
		rc = pl_doc_parse(&doc, "arguments", "{}", 2, err);
	else
		rc = pl_doc_parse(&doc, "arguments", args_json, args_len, err);
	free(marked);
	if (rc)
		return rc;
	if (!cJSON_IsObject(doc.root)) {
		pl_doc_free(&doc);
		return lu_err(err, LOCUS_EINVALID,
		              "arguments: expected a JSON object");
	}
	const char *htool = lu_tool_from_agent(tool);
	if (!htool)
		htool = tool;
	rc = lu_tool_agent_args(doc.root) ? LOCUS_ENOMEM : 0;
	char *args = rc ? NULL : cJSON_PrintUnformatted(doc.root);
	if (!args) {
		pl_doc_free(&doc);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	locus_action *action = NULL;
	locus_error derr;
	memset(&derr, 0, sizeof(derr));
	/* outside-workspace is judged against the caller's root (the hook's
	   cwd, the harness root, --root), else the current directory */
	locus_action_options aopts = LOCUS_ACTION_OPTIONS_INIT;
	aopts.workspace_root = in ? in->workspace_root : NULL;
	rc = locus_action_derive_opts(&action, parser, htool, args,
	                              strlen(args), &aopts, &derr);
	cJSON_free(args);
	subject s;
	memset(&s, 0, sizeof(s));
	if (rc == 0) {
		rc = subject_from_action(&s, action);
		if (rc)
			lu_err(err, rc, "out of memory");
	} else if (rc == LOCUS_ENOTFOUND) {
		rc = unknown_tool_subject(&s, tool, doc.root);
		if (rc)
			lu_err(err, rc, "out of memory");
	} else {
		if (err)
			*err = derr;
	}
	if (!rc && nul) {
		/* what runs is unknown: an exec the parser could not read */
		if (!s.kind || strcmp(s.kind, "network"))
			s.kind = locus_kind_name(LOCUS_KIND_EXEC);
		if (pl_strset_add(&s.tags, "exec:unparsed"))
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (!rc && action) {
		rc = protected_label(&s, policy, doc.root,
		                     in ? in->workspace_root : NULL);
		if (rc)
			lu_err(err, rc, "out of memory");
	}
	if (!rc) {
		s.args = doc.root;
		rc = apply_input(&s, in, err);
	}
	if (!rc)
		rc = evaluate(out, policy, &s, in, err);
	pl_strset_free(&s.tags);
	locus_action_free(action);
	pl_doc_free(&doc);
	return rc;
}

/* --- accessors and JSON ------------------------------------------------ */

locus_outcome locus_decision_outcome(const locus_decision *d)
{
	return d ? d->outcome : LOCUS_OUTCOME_DENY;
}
const char *locus_decision_reason(const locus_decision *d)
{
	return d ? d->reason : "";
}
const char *locus_decision_action(const locus_decision *d)
{
	return d ? d->action : "";
}
const char *locus_decision_asset(const locus_decision *d)
{
	return d ? d->asset : "";
}
size_t locus_decision_check_count(const locus_decision *d)
{
	return d ? d->nchecks : 0;
}
locus_outcome locus_decision_check_outcome(const locus_decision *d, size_t i)
{
	return d && i < d->nchecks ? d->checks[i].outcome : LOCUS_OUTCOME_DENY;
}
const char *locus_decision_check_reason(const locus_decision *d, size_t i)
{
	return d && i < d->nchecks ? d->checks[i].reason : NULL;
}
size_t locus_decision_waived_count(const locus_decision *d)
{
	return d ? d->nwaived : 0;
}
const char *locus_decision_waived_reason(const locus_decision *d, size_t i)
{
	return d && i < d->nwaived ? d->waived[i] : NULL;
}
size_t locus_decision_label_count(const locus_decision *d)
{
	return d ? d->labels.n : 0;
}
const char *locus_decision_label(const locus_decision *d, size_t i)
{
	return d && i < d->labels.n ? d->labels.items[i] : NULL;
}
bool locus_decision_has_label(const locus_decision *d, const char *label)
{
	return d && label && pl_strset_has(&d->labels, label);
}
const char *locus_decision_permission(const locus_decision *d)
{
	return d ? d->permission : NULL;
}
const char *locus_decision_permission_rule(const locus_decision *d)
{
	return d ? d->permission_rule : NULL;
}
const char *locus_decision_policy_version(const locus_decision *d)
{
	return d ? d->version : "";
}


bool pl_decision_fields(const locus_decision *d, cJSON *o)
{
	bool ok = lu_json_add(o, "action", cJSON_CreateString(d->action));
	ok = ok && lu_json_add(o, "asset", cJSON_CreateString(d->asset));
	ok = ok && lu_json_add(o, "kind", cJSON_CreateString(d->kind));
	ok = ok &&
	     lu_json_add(o, "outcome",
	                 cJSON_CreateString(locus_outcome_name(d->outcome)));
	ok = ok && lu_json_add(o, "reason", cJSON_CreateString(d->reason));
	cJSON *checks = ok ? cJSON_CreateArray() : NULL;
	ok = ok && lu_json_add(o, "checks", checks);
	for (size_t i = 0; ok && i < d->nchecks; i++) {
		cJSON *c = cJSON_CreateObject();
		ok = c && cJSON_AddItemToArray(checks, c);
		if (!ok) {
			cJSON_Delete(c);
			break;
		}
		ok = lu_json_add(c, "outcome",
		                 cJSON_CreateString(
		                     locus_outcome_name(d->checks[i].outcome)));
		ok = ok && lu_json_add(c, "reason",
		                       cJSON_CreateString(d->checks[i].reason));
	}
	cJSON *w = ok ? cJSON_CreateArray() : NULL;
	ok = ok && lu_json_add(o, "waived", w);
	for (size_t i = 0; ok && i < d->nwaived; i++)
		ok = cJSON_AddItemToArray(w, cJSON_CreateString(d->waived[i]));
	cJSON *l = ok ? cJSON_CreateArray() : NULL;
	ok = ok && lu_json_add(o, "labels", l);
	for (size_t i = 0; ok && i < d->labels.n; i++)
		ok = cJSON_AddItemToArray(
		    l, cJSON_CreateString(d->labels.items[i]));
	if (ok && d->permission) {
		cJSON *p = cJSON_CreateObject();
		ok = lu_json_add(o, "permission", p);
		ok = ok && lu_json_add(p, "verdict",
		                       cJSON_CreateString(d->permission));
		ok = ok && lu_json_add(p, "rule",
		                       cJSON_CreateString(d->permission_rule));
	} else if (ok) {
		ok = lu_json_add(o, "permission", cJSON_CreateNull());
	}
	ok = ok &&
	     lu_json_add(o, "policy_version", cJSON_CreateString(d->version));
	return ok;
}

static int print(cJSON *o, unsigned flags, char **out)
{
	return lu_json_print(out, o, flags & LOCUS_JSON_PRETTY) ? LOCUS_ENOMEM
	                                                        : 0;
}

int locus_decision_json(char **out, const locus_decision *d, unsigned flags)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!d)
		return LOCUS_EUSAGE;
	cJSON *o = cJSON_CreateObject();
	if (!o || !pl_decision_fields(d, o)) {
		cJSON_Delete(o);
		return LOCUS_ENOMEM;
	}
	return print(o, flags, out);
}

int locus_decision_deny(locus_decision *d, const char *reason)
{
	if (!d || !reason)
		return LOCUS_EUSAGE;
	d->outcome = LOCUS_OUTCOME_DENY;
	add_check(d, LOCUS_OUTCOME_DENY, false, "%s", reason);
	free(d->reason);
	d->reason = NULL;
	join_reason(d);
	return d->oom || !d->reason ? LOCUS_ENOMEM : 0;
}

int locus_decision_refusal_json(char **out, const locus_decision *d)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (!d || d->outcome == LOCUS_OUTCOME_ALLOW)
		return LOCUS_EUSAGE;
	cJSON *o = cJSON_CreateObject();
	bool ok = o != NULL;
	ok = ok &&
	     lu_json_add(o, "status",
	                 cJSON_CreateString(d->outcome == LOCUS_OUTCOME_DENY
	                                        ? "denied"
	                                        : "held_for_approval"));
	ok = ok &&
	     lu_json_add(o, "outcome",
	                 cJSON_CreateString(locus_outcome_name(d->outcome)));
	ok = ok && lu_json_add(o, "action", cJSON_CreateString(d->action));
	ok = ok && lu_json_add(o, "asset", cJSON_CreateString(d->asset));
	ok = ok && lu_json_add(o, "reason", cJSON_CreateString(d->reason));
	if (!ok) {
		cJSON_Delete(o);
		return LOCUS_ENOMEM;
	}
	return print(o, 0, out);
}
