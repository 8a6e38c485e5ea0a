/*
 * policy/policy_fuzz_check.c - what makes an admitted line a finding of
 * `locus policy fuzz`, and the spellings a fix is checked against
 * (docs/audit.md "locus policy fuzz").
 *
 * A line is a finding only when it *runs* its dangerous core (the intent,
 * or the program form, it was built from), as the gate's own analysis
 * sees it: every command of the core appears in the line's see-through
 * tree (the same program, the core's words in order with only options
 * before the first, its redirect targets), or the core's text is the
 * value of a long option (`make --eval='x: ; CORE'`), which the tree
 * does not open.  A core
 * that has become a mere argument (`git log /dev/sda1`, `npm run
 * ~/.ssh/id_rsa`) is labelled by the gate's path scan, soundly for the
 * gate, but is not a bypass a person would accept.
 *
 * A spelling of a finding (the fix is checked against) is matched
 * loosely: the core's programs and redirect targets, any words, since
 * `git clean -xdf` spells `git clean -fdx` with other words.
 *
 * Spellings (pf_spellings): the option clusters of a line reordered,
 * split and doubled (`-fdx`, `-xdf`, `-f -d -x`, `-ffdx`), long forms
 * from a small table, the line behind wrappers and `sh -c`, and
 * metamorphic rewrites (policy/fuzz_gen.c gen_transform).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_gen.h"
#include "policy_fuzz.h"

/* One core's commands, parsed once. */
typedef struct pf_core {
	char *text;
	cJSON *commands; /* the "commands" array of its classification */
} pf_core;

struct pf_cores {
	pf_core *v;
	size_t n, cap;
};

void pf_cores_free(pf_cores *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->v[i].text);
		cJSON_Delete(cs->v[i].commands);
	}
	free(cs->v);
	free(cs);
}

static cJSON *classify_commands(locus_shell_parser *p, const char *line)
{
	locus_action *a = NULL;
	char *json = NULL;
	cJSON *doc = NULL, *list = NULL;
	if (locus_action_classify(&a, p, line, strlen(line), NULL) == 0 &&
	    locus_action_json(&json, a, LOCUS_JSON_COMMANDS) == 0)
		doc = cJSON_Parse(json);
	locus_free(json);
	locus_action_free(a);
	list = cJSON_DetachItemFromObjectCaseSensitive(doc, "commands");
	cJSON_Delete(doc);
	return list;
}

static const cJSON *core_commands(pf_ctx *c, const char *core)
{
	if (!c->cores && !(c->cores = calloc(1, sizeof *c->cores)))
		return NULL;
	pf_cores *cs = c->cores;
	for (size_t i = 0; i < cs->n; i++)
		if (!strcmp(cs->v[i].text, core))
			return cs->v[i].commands;
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 64;
		pf_core *v = realloc(cs->v, cap * sizeof *v);
		if (!v)
			return NULL;
		cs->v = v;
		cs->cap = cap;
	}
	pf_core *k = &cs->v[cs->n];
	k->text = strdup(core);
	k->commands = classify_commands(c->parser, core);
	if (!k->text) {
		cJSON_Delete(k->commands);
		return NULL;
	}
	cs->n++;
	return k->commands;
}

static const char *base(const char *w)
{
	const char *s = strrchr(w, '/');
	return s ? s + 1 : w;
}

static const char *str_at(const cJSON *arr, int i)
{
	const cJSON *e = cJSON_GetArrayItem(arr, i);
	return cJSON_IsString(e) ? e->valuestring : NULL;
}

/* Does line command `lc` run core command `cc`: the same program, the
   core's other words in order among its words, the core's redirect
   targets among its redirects? */
static bool runs(const cJSON *cc, const cJSON *lc, bool loose)
{
	const cJSON *ca = cJSON_GetObjectItemCaseSensitive(cc, "argv");
	const cJSON *la = cJSON_GetObjectItemCaseSensitive(lc, "argv");
	int cn = cJSON_GetArraySize(ca), ln = cJSON_GetArraySize(la);
	if (cn == 0 || ln == 0)
		return false;
	const char *c0 = str_at(ca, 0), *l0 = str_at(la, 0);
	if (!c0 || !l0 || strcmp(base(c0), base(l0)))
		return false;
	int j = 1;
	for (int i = 1; !loose && i < cn; i++) {
		const char *w = str_at(ca, i);
		while (j < ln && (!str_at(la, j) || strcmp(str_at(la, j), w))) {
			/* before the core's first word only options and their
			   values (`git -C . push`), never another subcommand
			   (`git checkout push --force` pushes nothing) */
			const char *x = str_at(la, j), *px = str_at(la, j - 1);
			if (i == 1 && x && x[0] != '-' &&
			    !(j > 1 && px && px[0] == '-'))
				return false;
			j++;
		}
		if (j == ln)
			return false;
		j++;
	}
	const cJSON *cr = cJSON_GetObjectItemCaseSensitive(cc, "redirects");
	const cJSON *lr = cJSON_GetObjectItemCaseSensitive(lc, "redirects");
	const cJSON *r;
	cJSON_ArrayForEach(r, cr)
	{
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "target");
		if (!cJSON_IsString(t))
			continue;
		bool seen = false;
		const cJSON *q;
		cJSON_ArrayForEach(q, lr)
		{
			const cJSON *u =
			    cJSON_GetObjectItemCaseSensitive(q, "target");
			if (cJSON_IsString(u) &&
			    !strcmp(u->valuestring, t->valuestring))
				seen = true;
		}
		if (!seen)
			return false;
	}
	return true;
}

/* The core's text as the value of a long option of a line command,
   `--opt=...CORE...` (make --eval, tar --to-command...): the fuzzer's
   carriers put code only there, and a reduced line keeps the option
   with its value (a separate word after an option, `git diff --exec
   'CORE'`, is too often a mere argument to count). */
static bool in_option_value(const char *core, const cJSON *line_cmds)
{
	const cJSON *lc;
	cJSON_ArrayForEach(lc, line_cmds)
	{
		const cJSON *la = cJSON_GetObjectItemCaseSensitive(lc, "argv");
		int n = cJSON_GetArraySize(la);
		for (int i = 1; i < n; i++) {
			const char *w = str_at(la, i);
			if (!w || !strstr(w, core))
				continue;
			const char *eq = strchr(w, '=');
			if (w[0] == '-' && w[1] == '-' && eq &&
			    strstr(eq, core))
				return true;
		}
	}
	return false;
}

bool pf_genuine(pf_ctx *c, const char *core, const char *line_json, bool loose)
{
	if (!core || !line_json)
		return false;
	const cJSON *cc = core_commands(c, core);
	if (!cJSON_GetArraySize(cc))
		return false;
	cJSON *doc = cJSON_Parse(line_json);
	const cJSON *lcs = cJSON_GetObjectItemCaseSensitive(doc, "commands");
	bool all = true;
	const cJSON *one;
	cJSON_ArrayForEach(one, cc)
	{
		if (!cJSON_GetArraySize(
		        cJSON_GetObjectItemCaseSensitive(one, "argv")))
			continue; /* an assignment alone */
		bool found = false;
		const cJSON *lc;
		cJSON_ArrayForEach(lc, lcs)
		{
			if (runs(one, lc, loose)) {
				found = true;
				break;
			}
		}
		if (!found) {
			all = false;
			break;
		}
	}
	if (!all)
		all = in_option_value(core, lcs);
	cJSON_Delete(doc);
	return all;
}

/* ---- spellings ---- */

/* Short options and their long forms, for the programs the fuzzer knows
   (`git clean`, `rm`, `find`...): a fix must hold against both. */
/* clang-format off */
static const char *const long_forms[][2] = {
	{"-f", "--force"}, {"-r", "--recursive"}, {"-R", "--recursive"},
	{"-d", "-d"}, {"-x", "-x"}, {"-a", "--all"}, {"-v", "--verbose"},
	{"-n", "--dry-run"}, {"-i", "--interactive"}, {"-q", "--quiet"},
};
static const char *const wrappers[] = {
	"env %s", "command %s", "nice %s", "timeout 5 %s", "nohup %s",
	"sh -c '%s'", "bash -c '%s'", "x=1; %s", "true && %s",
};
/* clang-format on */

static const char *long_of(char ch)
{
	for (size_t i = 0; i < sizeof long_forms / sizeof *long_forms; i++)
		if (long_forms[i][0][1] == ch)
			return long_forms[i][1];
	return NULL;
}

/* The line with its word [ws, we) replaced by `rep`. */
static void with_word(const char *line, size_t ws, size_t we, const char *rep,
                      pf_variant_fn emit, void *ctx)
{
	size_t n = strlen(line) + strlen(rep) + 1;
	char *s = malloc(n);
	if (!s)
		return;
	snprintf(s, n, "%.*s%s%s", (int)ws, line, rep, line + we);
	emit(ctx, s);
	free(s);
}

/* Variants of one short-option cluster `-abc` (letters only). */
static void cluster_variants(const char *line, size_t ws, size_t we,
                             pf_variant_fn emit, void *ctx)
{
	const char *w = line + ws + 1;
	size_t k = we - ws - 1;
	char rep[256];
	if (k < 1 || k > 8)
		return;
	/* reversed, rotated */
	for (size_t r = 1; r <= k && k > 1; r++) {
		size_t o = 0;
		rep[o++] = '-';
		for (size_t i = 0; i < k; i++)
			rep[o++] = r == k ? w[k - 1 - i] : w[(i + r) % k];
		rep[o] = '\0';
		with_word(line, ws, we, rep, emit, ctx);
	}
	/* split, with long forms where known, and the first letter twice */
	size_t o = 0, ol = 0;
	char lng[256];
	for (size_t i = 0; i < k && o + 4 < sizeof rep; i++) {
		o += (size_t)snprintf(rep + o, sizeof rep - o, "%s-%c",
		                      i ? " " : "", w[i]);
		const char *lf = long_of(w[i]);
		ol += (size_t)snprintf(lng + ol, sizeof lng - ol, "%s%s",
		                       i ? " " : "", lf ? lf : rep + o - 2);
		if (ol >= sizeof lng)
			return;
	}
	with_word(line, ws, we, rep, emit, ctx);
	with_word(line, ws, we, lng, emit, ctx);
	snprintf(rep, sizeof rep, "-%c%.*s", w[0], (int)k, w);
	with_word(line, ws, we, rep, emit, ctx);
}

size_t pf_spellings(const char *line, uint64_t seed, pf_variant_fn emit,
                    void *ctx)
{
	size_t made = 0;
	/* each short-option cluster of the line, one at a time */
	for (size_t i = 0; line[i];) {
		size_t ws = i, we = i;
		while (line[we] && line[we] != ' ')
			we++;
		bool letters =
		    line[ws] == '-' && we - ws >= 2 && line[ws + 1] != '-';
		for (size_t k = ws + 1; letters && k < we; k++)
			if (!((line[k] >= 'a' && line[k] <= 'z') ||
			      (line[k] >= 'A' && line[k] <= 'Z')))
				letters = false;
		if (letters && (ws == 0 || line[ws - 1] == ' ')) {
			cluster_variants(line, ws, we, emit, ctx);
			made++;
		}
		i = line[we] ? we + 1 : we;
	}
	/* wrappers: quotes would break `sh -c '...'` around a quoted line */
	bool quoted = strchr(line, '\'') != NULL;
	for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++) {
		if (quoted && strchr(wrappers[i], '\''))
			continue;
		size_t n = strlen(line) + strlen(wrappers[i]) + 1;
		char *s = malloc(n);
		if (!s)
			continue;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		/* wrappers[] is this file's table of literals with one %s:
		   -Wformat-nonliteral cannot see that */
		snprintf(s, n, wrappers[i], line);
#pragma GCC diagnostic pop
		emit(ctx, s);
		free(s);
		made++;
	}
	/* metamorphic rewrites */
	for (uint64_t r = 1; r <= 24; r++) {
		char trace[256];
		char *v = gen_transform(line, gen_mix(seed ^ (r * 7919u)),
		                        trace, sizeof trace);
		if (v) {
			emit(ctx, v);
			made++;
		}
		free(v);
	}
	return made;
}
