/*
 * knowledge/sed.c - GNU sed script addresses and commands (see sed.h).
 */
#include "sed.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

const char *lk_sed_delimited(const char *p, char d)
{
	for (; *p && *p != d; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p == d ? p + 1 : NULL;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* One regex address, p at its `/` or `\`: past its flags, or NULL. */
static const char *regex_address(const char *p)
{
	char d = '/';
	if (*p == '\\') {
		p++;
		/* GNU sed refuses these delimiters; fail closed */
		if (!*p || *p == '\n' || *p == '\\')
			return NULL;
		d = *p;
	}
	p = lk_sed_delimited(p + 1, d);
	while (p && (*p == 'I' || *p == 'M'))
		p++;
	return p;
}

const char *lk_sed_address(const char *p)
{
	for (int k = 0; k < 2; k++) {
		if (digit(*p)) {
			while (digit(*p) || *p == '~') /* N, first~step */
				p++;
		} else if (*p == '$') {
			p++;
		} else if (*p == '/' || *p == '\\') {
			p = regex_address(p);
			if (!p)
				return NULL;
		} else if (k == 1 && (*p == '+' || *p == '~')) {
			p++; /* addr1,+N and addr1,~N */
			while (digit(*p))
				p++;
		}
		if (k == 0 && *p == ',')
			p++;
		else
			break;
	}
	return p;
}

/* Skip to the end of a `;`- or newline-terminated argument. */
static const char *to_end(const char *p, bool semicolon)
{
	while (*p && *p != '\n' && !(semicolon && (*p == ';' || *p == '}')))
		p++;
	return p;
}

/* A label after : b t T: GNU sed 4.9 ends it at a blank or `;` (checked:
   `:a;1e CMD` and `:a 1e CMD` run CMD), `}` and a newline too. */
static const char *label_end(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	while (*p && !strchr(" \t\n;}", *p))
		p++;
	return p;
}

/* The text of a i c: to the first newline no backslash escapes (`a\`
   and a newline, or a line ending in `\`, go on to the next line). */
static const char *text_end(const char *p)
{
	while (*p && *p != '\n')
		p += p[0] == '\\' && p[1] ? 2 : 1;
	return p;
}

/* A file name after r R w W (blanks skipped), to the end of the line. */
static const char *file_arg(const char *p, char cmd, const lk_sed_visitor *v,
                            void *arg)
{
	while (*p == ' ' || *p == '\t')
		p++;
	const char *e = to_end(p, false);
	if (v->file && e > p)
		v->file(arg, cmd, p, (size_t)(e - p));
	return e;
}

/* The s or y command at p (after its letter): past its flags, or NULL. */
static const char *subst(const char *p, char cmd, const lk_sed_visitor *v,
                         void *arg)
{
	char d = *p;
	if (!d || d == '\n' || d == '\\')
		return NULL;
	p = lk_sed_delimited(p + 1, d);
	p = p ? lk_sed_delimited(p, d) : NULL;
	if (!p || cmd == 'y')
		return p;
	/* flags: g p i I m M e NUMBER, w FILE ends the line */
	for (; *p && strchr("gpiImMe0123456789w", *p); p++) {
		if (*p == 'e' && v->run_space)
			v->run_space(arg);
		if (*p == 'w')
			return file_arg(p + 1, 'w', v, arg);
	}
	return p;
}

bool lk_sed_walk(const char *p, const lk_sed_visitor *v, void *arg)
{
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';' ||
		       *p == '}')
			p++;
		if (!*p)
			return true;
		if (*p == '#') {
			p = to_end(p, false);
			continue;
		}
		p = lk_sed_address(p);
		if (!p)
			return false;
		while (*p == ' ' || *p == '\t' || *p == '!')
			p++;
		char cmd = *p ? *p++ : 0;
		if (cmd && strchr("{=dDgGhHxnNpPzF", cmd))
			continue;
		if (cmd && strchr(":btT", cmd)) {
			p = label_end(p);
		} else if (cmd && strchr("qQlLv", cmd)) {
			p = to_end(p, true);
		} else if (cmd && strchr("aic", cmd)) {
			p = text_end(p);
		} else if (cmd && strchr("rRwW", cmd)) {
			p = file_arg(p, cmd, v, arg);
		} else if (cmd == 'e') {
			while (*p == ' ' || *p == '\t')
				p++;
			const char *e = to_end(p, false);
			if (v->exec)
				v->exec(arg, p, (size_t)(e - p));
			p = e;
		} else if (cmd == 's' || cmd == 'y') {
			p = subst(p, cmd, v, arg);
			if (!p)
				return false;
		} else {
			return false;
		}
	}
}

/* GNU sed 4.9's options (sed.c; each checked with the real sed): the
   long ones with their short letter (0: none) and whether they take a
   value (1), an optional attached one (2) or none (0); the short ones
   taking a value, and -i with an optional attached suffix. */
/* clang-format off */
static const struct sed_long {
	const char *name;
	char letter;
	char arg;
} sed_longs[] = {
	{"binary", 'b', 0},          {"debug", 0, 0},
	{"expression", 'e', 1},      {"file", 'f', 1},
	{"follow-symlinks", 0, 0},   {"help", 0, 0},
	{"in-place", 'i', 2},        {"line-length", 'l', 1},
	{"null-data", 'z', 0},       {"posix", 0, 0},
	{"quiet", 'n', 0},           {"regexp-extended", 'r', 0},
	{"sandbox", 0, 0},           {"separate", 's', 0},
	{"silent", 'n', 0},          {"unbuffered", 'u', 0},
	{"version", 0, 0},           {"zero-terminated", 'z', 0},
};
/* clang-format on */
#define SED_SHORT_VALUE "efl"
#define SED_SHORT_FLAGS "bnrsuzE"

/* The long option `v` (past its "--") names, as getopt_long resolves an
   abbreviation: the exact name, else the one option it is a prefix of;
   NULL when it names none or several (sed refuses it and runs nothing). */
static const struct sed_long *sed_long_of(const char *v)
{
	size_t n = strcspn(v, "=");
	const struct sed_long *hit = NULL;
	for (size_t k = 0; k < sizeof sed_longs / sizeof *sed_longs; k++) {
		const struct sed_long *o = &sed_longs[k];
		if (strncmp(o->name, v, n) != 0)
			continue;
		if (o->name[n] == '\0')
			return o;
		if (hit)
			return NULL;
		hit = o;
	}
	return n ? hit : NULL;
}

/* The script (e) or script file (f) of an option: its value in word i
   (from `at` on) or in the next word; *i moves past a value taken from
   the next word. */
static void sed_value(const lk_sed_args *a, size_t *i, const char *at,
                      char kind, bool *given)
{
	size_t w = *i;
	if (!*at) {
		if (*i + 1 >= a->n)
			return; /* sed refuses an option without its value */
		w = ++*i;
		at = a->word(a->words, w);
		at = at ? at : "";
	}
	if (kind == 'l')
		return; /* -l N: a line length */
	*given = true;
	a->cb(a->arg, w, kind, at);
}

/* One option word v (i: its index); false when v is not an option. */
static bool sed_option(const lk_sed_args *a, size_t *i, const char *v,
                       bool *given)
{
	if (v[0] != '-' || !v[1])
		return false;
	if (v[1] == '-') {
		const struct sed_long *o = sed_long_of(v + 2);
		if (!o || !o->letter || o->arg == 0)
			return true;
		const char *eq = strchr(v, '=');
		if (o->arg == 2)
			return true; /* --in-place[=SUFFIX] */
		sed_value(a, i, eq ? eq + 1 : "", o->letter, given);
		return true;
	}
	for (const char *q = v + 1; *q; q++) {
		if (*q == 'i')
			return true; /* -iSUFFIX: the rest is the suffix */
		if (strchr(SED_SHORT_VALUE, *q)) {
			sed_value(a, i, q + 1, *q, given);
			return true;
		}
		if (!strchr(SED_SHORT_FLAGS, *q))
			return true; /* sed refuses the letter */
	}
	return true;
}

void lk_sed_scripts(const lk_sed_args *a)
{
	bool given = false; /* a script given by -e or -f */
	size_t first = a->n;
	for (size_t i = a->from; i < a->n; i++) {
		const char *v = a->word(a->words, i);
		v = v ? v : "";
		if (!strcmp(v, "--")) {
			if (first == a->n && i + 1 < a->n)
				first = i + 1;
			break;
		}
		if (!sed_option(a, &i, v, &given) && first == a->n)
			first = i;
	}
	if (!given && first < a->n)
		a->cb(a->arg, first, 'e', a->word(a->words, first));
}
