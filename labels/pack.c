/*
 * labels/pack.c - the one generic matcher of the knowledge packs (the
 * rule language is described in pack.h; the tables are packs_*.c).
 */
#include <stdio.h>
#include <string.h>

#include "../knowledge/programs.h"
#include "pack.h"

/* Each pack under the id a program's row in the program table names
   (knowledge/programs.h, lk_program.pack). */
static const pk_pack *const by_id[LK_PACK_COUNT] = {
    [LK_PACK_INFRASTRUCTURE] = &pk_infrastructure,
    [LK_PACK_KUBERNETES] = &pk_kubernetes,
    [LK_PACK_CONTAINERS] = &pk_containers,
    [LK_PACK_DATABASES] = &pk_databases,
    [LK_PACK_CLOUD] = &pk_cloud,
    [LK_PACK_PLATFORMS] = &pk_platforms,
    [LK_PACK_GIT] = &pk_git,
    [LK_PACK_SYSTEM] = &pk_system,
    [LK_PACK_SECRETS] = &pk_secrets,
    [LK_PACK_PERSISTENCE] = &pk_persistence,
    [LK_PACK_PRIVILEGE] = &pk_privilege,
};

/* The packs that hold rules for every program ("*": paths and words any
   program may hold), in id order, the order their reasons are added.  The
   other packs' rules are read only for their own programs (scanning every
   pack's rules for "*" was a tenth of the labeller); pk_tables_consistent
   fails when a pack outside this list has such a rule. */
static const lk_pack every_program_packs[] = {
    LK_PACK_SECRETS,
    LK_PACK_PERSISTENCE,
    LK_PACK_PRIVILEGE,
};
#define NEVERY_PROGRAM_PACKS                                                   \
	(sizeof every_program_packs / sizeof *every_program_packs)

/* w is a token of the space-separated list: one pass over the list,
   comparing each token with w as it goes (no strlen, strchr or strstr:
   the rules' program lists are a few short names, where the calls cost
   more than the scan; pk_word_in keeps strstr for the long lists).  The
   same answer as pk_word_in: a token holds no blank and is never empty,
   so a w that is empty or holds a blank is none of them. */
static bool short_list_has(const char *list, const char *w)
{
	const char *p = list;
	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			return false;
		size_t i = 0;
		while (p[i] && p[i] != ' ' && p[i] == w[i])
			i++;
		if ((p[i] == ' ' || !p[i]) && !w[i])
			return true;
		while (p[i] && p[i] != ' ')
			i++;
		p += i;
	}
}

/* ---- operands ---------------------------------------------------------- */

enum { MAX_OPERANDS = 64 };

typedef struct operands {
	const char *w[MAX_OPERANDS];
	bool skippable[MAX_OPERANDS]; /* may be an option's value */
	size_t n;
	bool truncated; /* more operands than MAX_OPERANDS */
	bool open;      /* words computed at run time follow w[n-1]: they
	                   may be any operands and options */
	size_t from;    /* conditions read argv[from..]: past the global
	                   options of a program with a grammar (git -C DIR
	                   is not branch -C) */
} operands;

/* The index of the first word that is not one of the grammar's global
   options before the subcommand (1 without a grammar). */
static size_t past_globals(const locus_shell_command *c, const pk_grammar *g)
{
	if (!g)
		return 1;
	size_t i = 1;
	while (i < c->argc) {
		const char *a = c->argv[i];
		if (!pk_is_option(a) || strcmp(a, "--") == 0)
			break;
		if (pk_word_in(g->value_opts, a))
			i += 2;
		else if (strchr(a, '=') || pk_word_in(g->flag_opts, a))
			i++;
		else
			break;
	}
	return i < c->argc ? i : c->argc;
}

static const pk_grammar *grammar_of(const pk_pack *pk, const char *name)
{
	for (const pk_grammar *g = pk->grammars; g && g->progs; g++)
		if (short_list_has(g->progs, name))
			return g;
	return NULL;
}

/* The operands of argv[1..stop); with `open`, words computed at run
   time follow (stop is the first of them, or c->argc). */
static void collect(const locus_shell_command *c, const pk_grammar *g,
                    size_t stop, bool open, operands *o)
{
	o->n = 0;
	o->truncated = false;
	o->open = open;
	bool maybe_value = false, after_dd = false;
	for (size_t i = 1; i < stop; i++) {
		const char *a = c->argv[i];
		if (!after_dd && strcmp(a, "--") == 0) {
			after_dd = true;
			maybe_value = false;
			continue;
		}
		if (!after_dd && pk_is_option(a)) {
			maybe_value = false;
			if (strchr(a, '='))
				continue;
			if (g && pk_word_in(g->value_opts, a)) {
				i++; /* its value */
				continue;
			}
			if (!(g && pk_word_in(g->flag_opts, a)))
				maybe_value = true;
			continue;
		}
		if (o->n == MAX_OPERANDS) {
			o->truncated = true;
			return;
		}
		o->w[o->n] = a;
		o->skippable[o->n] = maybe_value;
		o->n++;
		maybe_value = false;
	}
}

/* One pattern token against one operand: literal, a|b, prefix*, *. */
static bool word_matches(const char *tok, size_t n, const char *w, bool nocase)
{
	if (n == 1 && tok[0] == '*')
		return true;
	const char *end = tok + n;
	while (tok < end) {
		const char *bar = memchr(tok, '|', (size_t)(end - tok));
		size_t m = bar ? (size_t)(bar - tok) : (size_t)(end - tok);
		if (m && tok[m - 1] == '*') {
			size_t k = m - 1;
			bool ok = strlen(w) >= k;
			for (size_t i = 0; ok && i < k; i++)
				ok = nocase ? pk_lower(tok[i]) == pk_lower(w[i])
				            : tok[i] == w[i];
			if (ok)
				return true;
		} else if (pk_tok_eq(tok, m, w, nocase)) {
			return true;
		}
		tok += m + (bar ? 1 : 0);
	}
	return false;
}

/* Longer patterns are a table error (pk_tables_consistent): they bound
   the recursion of match_from() on `...`. */
enum { MAX_PAT = 8 };

/* Match the pattern tokens in `pat` (the rest of a rule's `words`, read
   token by token as the match proceeds: most rules fail on their first
   token) against operands j..; on success *end is the index after the
   last matched operand.  Past the operands of an open list the words
   computed at run time may be the rest of the pattern. */
static bool match_from(const char *pat, const operands *o, size_t j,
                       bool nocase, size_t *end)
{
	size_t n;
	const char *t = pk_next_tok(&pat, &n);
	if (!t) {
		*end = j;
		return true;
	}
	if (n == 3 && memcmp(t, "...", 3) == 0) {
		for (size_t jj = j; jj <= o->n; jj++)
			if (match_from(pat, o, jj, nocase, end))
				return true;
		return false;
	}
	for (; j < o->n; j++) {
		if (word_matches(t, n, o->w[j], nocase) &&
		    match_from(pat, o, j + 1, nocase, end))
			return true;
		if (!o->skippable[j])
			return false;
	}
	*end = o->n;
	return o->open;
}

/* ---- conditions --------------------------------------------------------- */

static bool value_eq(const char *a, const char *v, size_t n)
{
	return pk_tok_eq(v, n, a, true);
}

/* `-x` in a cluster, before `--`. */
static bool has_short(const locus_shell_command *c, size_t from, char x)
{
	for (size_t i = from; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			return false;
		if (a[0] == '-' && a[1] && a[1] != '-' && strchr(a + 1, x))
			return true;
	}
	return false;
}

/* The option `opt` (opt_n bytes) as a word, or `opt=...`.  For a
   single-dash long option (-word) the double-dash form counts too.  With
   `abbrev` a --long option also counts when abbreviated as getopt_long
   and git parse-options accept it (any prefix; one the program
   finds ambiguous makes it fail, so this over-reports only): for the
   conditions that make a rule apply, never for `unless`. */
static bool opt_word(const char *a, const char *opt, size_t opt_n, bool abbrev)
{
	if (strncmp(a, opt, opt_n) == 0 &&
	    (a[opt_n] == '\0' || a[opt_n] == '='))
		return true;
	if (abbrev && opt_n > 2 && opt[1] == '-' && a[0] == '-' &&
	    a[1] == '-') {
		size_t an = strcspn(a, "=");
		if (an > 2 && an < opt_n && strncmp(a, opt, an) == 0)
			return true;
	}
	/* --auto-ap for -auto-approve: Go's flag package refuses it, a
	   getopt-style reader would take it (found by fuzz_bypass) */
	if (abbrev && opt_n > 2 && opt[1] != '-' && a[0] == '-' &&
	    a[1] == '-') {
		size_t an = strcspn(a, "=");
		if (an > 2 && an - 1 < opt_n &&
		    strncmp(a + 1, opt, an - 1) == 0)
			return true;
	}
	if (opt[1] != '-' && a[0] == '-' && a[1] == '-')
		return strncmp(a + 1, opt, opt_n) == 0 &&
		       (a[opt_n + 1] == '\0' || a[opt_n + 1] == '=');
	return false;
}

static bool has_opt(const locus_shell_command *c, size_t from, const char *opt,
                    size_t n, bool abbrev)
{
	for (size_t i = from; i < c->argc; i++) {
		if (strcmp(c->argv[i], "--") == 0)
			return false;
		if (opt_word(c->argv[i], opt, n, abbrev))
			return true;
	}
	return false;
}

/* OPT=V: `OPT=V`, `OPT V`, and for a short OPT also `-XV`. */
static bool has_opt_value(const locus_shell_command *c, size_t from,
                          const char *opt, size_t on, const char *v, size_t vn,
                          bool abbrev)
{
	bool is_short = on == 2 && opt[1] != '-';
	for (size_t i = from; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			return false;
		if (!opt_word(a, opt, on, abbrev) &&
		    !(is_short && strncmp(a, opt, 2) == 0 && a[2]))
			continue;
		const char *eq = strchr(a, '=');
		const char *val = NULL;
		if (eq)
			val = eq + 1;
		else if (is_short && a[2])
			val = a + 2;
		else if (i + 1 < c->argc)
			val = c->argv[i + 1];
		if (val && value_eq(val, v, vn))
			return true;
	}
	return false;
}

/* A harmless option of an `unless` list (labels/harmless.c): spelled
   exactly, `=VALUE` only with a value that keeps it on. */
static bool has_harmless(const locus_shell_command *c, size_t from,
                         const char *opt, size_t n)
{
	for (size_t i = from; i < c->argc; i++) {
		if (strcmp(c->argv[i], "--") == 0)
			return false;
		if (ll_harmless_word(c->argv[i], opt, n))
			return true;
	}
	return false;
}

static bool any_dynamic(const locus_shell_command *c)
{
	if (!c->argv_flags)
		return false;
	for (size_t i = 1; i < c->argc; i++)
		if (c->argv_flags[i] & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST))
			return true;
	return false;
}

/* `strict` (the `unless` list, which makes a command look safer): a short
   option counts only as a word of its own, never inside a cluster (in
   `-chdir=x` of a Go program there is no -h). */
static bool condition(const locus_shell_command *c, const char *t, size_t n,
                      const operands *o, size_t end, bool nocase, bool strict)
{
	if (n == 1 && t[0] == '#')
		return end < o->n;
	if (n == 1 && t[0] == '$')
		return any_dynamic(c);
	if (t[0] == '~') {
		char buf[96];
		if (n - 1 >= sizeof buf)
			return true; /* a table error: fail closed */
		memcpy(buf, t + 1, n - 1);
		buf[n - 1] = '\0';
		return pk_any_arg_contains(c, buf);
	}
	if (t[0] == '^') {
		for (size_t j = end; j < o->n; j++)
			if (pk_tok_eq(t + 1, n - 1, o->w[j], nocase))
				return true;
		return false;
	}
	const char *eq = memchr(t, '=', n);
	if (eq)
		return has_opt_value(c, o->from, t, (size_t)(eq - t), eq + 1,
		                     n - (size_t)(eq - t) - 1, !strict);
	if (n == 2 && t[0] == '-' && !strict)
		return has_short(c, o->from, t[1]);
	if (strict)
		return has_harmless(c, o->from, t, n);
	return has_opt(c, o->from, t, n, true);
}

static bool any_condition(const locus_shell_command *c, const char *list,
                          const operands *o, size_t end, bool nocase,
                          bool strict)
{
	const char *p = list;
	const char *t;
	size_t n;
	while ((t = pk_next_tok(&p, &n)))
		if (condition(c, t, n, o, end, nocase, strict))
			return true;
	return false;
}

/* ---- rules ------------------------------------------------------------- */

/* With an open operand list (`o->open`) the rule matches when some
   value of the words computed at run time would make it: the pattern may
   end in them and they may be any `with` condition; `unless` is still
   judged on the words known, and `check` on the whole command (the
   predicates judge words computed at run time themselves: kill_broad). */
static bool rule_matches(const pk_rule *r, const locus_shell_command *c,
                         const operands *o, const ll_context *ctx)
{
	bool nocase = (r->flags & PK_NOCASE) != 0;
	size_t end = 0;
	if (r->words && r->words[0] &&
	    !match_from(r->words, o, 0, nocase, &end))
		return false;
	if (r->with && !o->open &&
	    !any_condition(c, r->with, o, end, nocase, false))
		return false;
	/* the unless list makes the command look safer: a word that turns
	   one of its options off, or one computed at run time, spoils it */
	if (r->unless && any_condition(c, r->unless, o, end, nocase, true) &&
	    !ll_harmless_spoiled(c, o->from, r->unless))
		return false;
	return !r->check || r->check(c, ctx);
}

static void add(ll_judgement *j, uint32_t tag, const char *reason)
{
	j->tags |= tag;
	ll_judgement_reason(j, reason);
}

static bool every_program(const pk_rule *r)
{
	return r->progs[0] == '*' && r->progs[1] == '\0';
}

/* rule_matches() reads the operands of `r`: for its pattern, and for the
   `#` and `^` conditions (any such byte in the lists counts: a superset,
   so an operand list is never skipped when one is read). */
static bool reads_operands(const pk_rule *r)
{
	return (r->words && r->words[0]) ||
	       (r->with && strpbrk(r->with, "#^")) ||
	       (r->unless && strpbrk(r->unless, "#^"));
}

/* The rules of `pk` for the program `canon`, or with canon NULL its
   rules for every program. */
static void judge_pack(const pk_pack *pk, const locus_shell_command *c,
                       const char *canon, const ll_context *ctx,
                       ll_judgement *j)
{
	bool collected = false;
	/* no operands until they are collected: a rule that reads none
	   (reads_operands) is judged without them; past MAX_OPERANDS
	   arguments they are always collected (`truncated` applies every
	   rule) */
	operands o, dyn; /* ~600 bytes: only the fields read are set */
	o.n = 0;
	o.truncated = false;
	o.open = false;
	o.from = canon ? past_globals(c, grammar_of(pk, canon)) : 1;
	dyn.from = o.from;
	/* A program's own rules also match what its arguments computed at
	   run time could make it (dynamic.c); the rules for every program
	   (paths) judge only the words known. */
	size_t first_dyn = canon ? ll_first_dynamic_arg(c) : 0;
	/* consecutive rules of one program share its list (one literal):
	   the answer for the last list read is kept */
	const char *last_progs = NULL;
	bool last_has = false;
	for (const pk_rule *r = pk->rules; r->progs; r++) {
		/* a pack's rules for every program come first
		   (pk_tables_consistent): the rest are not theirs */
		if (!canon && !every_program(r))
			break;
		if (canon && r->progs != last_progs) {
			last_progs = r->progs;
			last_has = !every_program(r) &&
			           short_list_has(r->progs, canon);
		}
		if (canon && !last_has)
			continue;
		if (!collected && (first_dyn || c->argc > MAX_OPERANDS ||
		                   reads_operands(r))) {
			const pk_grammar *g =
			    grammar_of(pk, canon ? canon : c->name);
			collect(c, g, c->argc, false, &o);
			if (first_dyn)
				collect(c, g, first_dyn, true, &dyn);
			collected = true;
		}
		/* Past the operand cap a rule that reads operands cannot
		   be judged: it applies (fail closed).  A rule that reads
		   none (reads_operands: the every-program rules, and
		   predicates on the whole command) is judged as always. */
		if ((o.truncated && reads_operands(r)) ||
		    rule_matches(r, c, &o, ctx)) {
			add(j, r->tag, r->reason);
		} else if (first_dyn && rule_matches(r, c, &dyn, ctx)) {
			add(j, r->tag, r->reason);
			add(j, 0, LL_REASON_DYNAMIC);
		}
	}
}

void pk_judge(const locus_shell_command *c, const lk_program *p,
              const ll_context *ctx, ll_judgement *j)
{
	if (c->argc == 0 || !c->name[0])
		return;
	ll_context with_row = *ctx;
	with_row.row = p;
	ctx = &with_row;
	/* rules about paths and words any program may hold */
	for (size_t k = 0; k < NEVERY_PROGRAM_PACKS; k++)
		judge_pack(by_id[every_program_packs[k]], c, NULL, ctx, j);
	/* the program's own pack, found through the program table under
	   its canonical name (every name it goes by maps there): p is the
	   row of c's name */
	if (p && p->pack != LK_PACK_NONE && p->pack < LK_PACK_COUNT)
		judge_pack(by_id[p->pack], c, p->name, ctx, j);
}

/* Pack k is in every_program_packs (which is in id order). */
static bool listed_every_program(size_t k, char *why, size_t cap)
{
	bool listed = false;
	for (size_t i = 0; i < NEVERY_PROGRAM_PACKS; i++) {
		if (i && every_program_packs[i - 1] >= every_program_packs[i]) {
			snprintf(why, cap,
			         "every_program_packs not in id order");
			return false;
		}
		listed |= every_program_packs[i] == (lk_pack)k;
	}
	return listed;
}

bool pk_tables_consistent(char *why, size_t cap)
{
	for (size_t k = 1; k < LK_PACK_COUNT; k++) {
		if (!by_id[k]) {
			snprintf(why, cap, "pack id %zu has no table", k);
			return false;
		}
		why[0] = '\0';
		bool listed = listed_every_program(k, why, cap);
		if (why[0])
			return false;
		for (const pk_rule *r = by_id[k]->rules; r->progs; r++) {
			if (every_program(r) && r != by_id[k]->rules &&
			    !every_program(r - 1)) {
				snprintf(why, cap,
				         "%s pack: a rule for every program "
				         "after a program's rule (they come "
				         "first: judge_pack stops there)",
				         by_id[k]->name);
				return false;
			}
			if (every_program(r) && !listed) {
				snprintf(
				    why, cap,
				    "%s pack: a rule for every program, but "
				    "the pack is not in every_program_packs",
				    by_id[k]->name);
				return false;
			}
			const char *wp = r->words ? r->words : "";
			size_t wn, ntok = 0;
			while (pk_next_tok(&wp, &wn))
				ntok++;
			if (ntok > MAX_PAT) {
				snprintf(
				    why, cap,
				    "%s pack: pattern '%s' has more than %d "
				    "words",
				    by_id[k]->name, r->words, MAX_PAT);
				return false;
			}
			if (every_program(r))
				continue;
			const char *s = r->progs, *t;
			size_t n;
			while ((t = pk_next_tok(&s, &n))) {
				char name[64];
				if (n >= sizeof name)
					n = sizeof name - 1;
				memcpy(name, t, n);
				name[n] = '\0';
				const lk_program *p = lk_program_find(name);
				if (!p || p->pack != (lk_pack)k ||
				    strcmp(p->name, name) != 0) {
					snprintf(
					    why, cap,
					    "%s pack: '%s' is not a program "
					    "table row of that pack",
					    by_id[k]->name, name);
					return false;
				}
			}
		}
	}
	return true;
}
