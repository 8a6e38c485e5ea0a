/*
 * labels/symlink.c - where `ln -s` resolves its targets.
 *
 * The kernel resolves a relative symlink's text from the folder the link
 * is in, not from the directory ln ran in: `cd sub && ln -s .. ../up`
 * makes up -> .. in the root, which points at the root's parent (checked
 * by a red team in bash: `touch ../up/MARK` then wrote the parent).  The
 * outside rule (outside.c) judges each relative TARGET joined to the
 * folder its link lands in (ll_ln_targets).
 *
 * GNU ln's forms (ln(1), coreutils 9): `ln -s TARGET` (a link in the
 * current directory), `ln -s TARGET LINK` (LINK, or LINK/TARGET's name
 * when LINK is a folder), `ln -s TARGET... DIR`, `ln -s -t DIR TARGET...`,
 * `ln -s -T TARGET LINK`.  With -r (--relative) ln computes the text from
 * the current directory itself; a hard link (no -s) names an existing
 * file: both are judged from the current directory as before.
 */
#include <string.h>

#include "internal.h"
#include "../util/str.h"

/* ln's long options (getopt_long: any unambiguous prefix): the shortest
   prefix read as each, and whether it takes a value (1: = or the next
   word; 2: only with =). */
static const struct ln_long {
	const char *name;
	size_t min;
	char arity;
	char letter; /* the short option it is, or 0 */
} ln_longs[] = {
    {"backup", 2, 2, 0},
    {"directory", 1, 0, 'd'},
    {"force", 1, 0, 'f'},
    {"interactive", 1, 0, 'i'},
    {"logical", 1, 0, 'L'},
    {"no-dereference", 4, 0, 'n'},
    {"no-target-directory", 4, 0, 'T'},
    {"physical", 1, 0, 'P'},
    {"relative", 1, 0, 'r'},
    {"suffix", 2, 1, 'S'},
    {"symbolic", 2, 0, 's'},
    {"target-directory", 1, 1, 't'},
    {"verbose", 1, 0, 'v'},
    {NULL, 0, 0, 0},
};

/* ln's short letters taking a value (the rest of the cluster, or the
   next word). */
static const char ln_short_values[] = "St";

/* What option word argv[*i] sets in *f; the word holding its value, when
   it takes one, is consumed (*i moves past it).  False for an option ln
   refuses or locus does not know (closed world: not read). */
static bool ln_option(const locus_shell_command *c, size_t *i, ll_ln *f)
{
	const char *a = c->argv[*i];
	char letter = 0;
	const char *value = NULL;
	if (a[1] == '-') {
		const char *eq = strchr(a, '=');
		size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		const struct ln_long *hit = NULL;
		for (const struct ln_long *l = ln_longs; l->name; l++)
			if (n >= l->min && n <= strlen(l->name) &&
			    !strncmp(a + 2, l->name, n))
				hit = l;
		if (!hit || (eq && hit->arity == 0))
			return false;
		if (hit->arity == 1 && !eq) {
			if (*i + 1 >= c->argc)
				return false;
			value = c->argv[++*i];
		} else if (eq) {
			value = eq + 1;
		}
		letter = hit->letter;
		f->sym |= letter == 's';
		f->rel |= letter == 'r';
		f->no_tdir |= letter == 'T';
		if (letter == 't')
			f->tdir = value;
		return true;
	}
	for (size_t k = 1; a[k]; k++) {
		letter = a[k];
		if (!strchr("bdfFinLPrsTvSt", letter))
			return false;
		f->sym |= letter == 's';
		f->rel |= letter == 'r';
		f->no_tdir |= letter == 'T';
		if (!strchr(ln_short_values, letter))
			continue;
		if (a[k + 1])
			value = a + k + 1;
		else if (*i + 1 < c->argc)
			value = c->argv[++*i];
		else
			return false;
		if (letter == 't')
			f->tdir = value;
		break;
	}
	return true;
}

bool ll_ln_targets(const locus_shell_command *c, ll_ln *f)
{
	if (!lu_streq(c->name, "ln") || c->argc < 2)
		return false; /* *f is not read (and not cleared: most
		                 commands are no ln) */
	memset(f, 0, sizeof *f);
	bool dd = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (c->argv_flags &&
		    (c->argv_flags[i] & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST |
		                         LOCUS_WORD_GLOB | LOCUS_WORD_BRACE)))
			return false; /* which word is which is not known */
		if (!dd && !strcmp(a, "--")) {
			dd = true;
			continue;
		}
		if (!dd && a[0] == '-' && a[1]) {
			if (!ln_option(c, &i, f))
				return false;
			continue;
		}
		if (f->nops == LL_LN_MAX)
			return false;
		f->ops[f->nops++] = i;
	}
	if (!f->sym || f->rel || f->nops == 0)
		return false;
	if (f->tdir) {
		f->ntargets = f->nops;
		f->dir = f->tdir;
		return true;
	}
	if (f->nops == 1)
		return false; /* a link in the current directory */
	if (f->no_tdir && f->nops != 2)
		return false;
	f->ntargets = f->nops - 1;
	const char *last = c->argv[f->ops[f->nops - 1]];
	size_t len = strlen(last);
	bool folder = len && last[len - 1] == '/';
	if (f->nops == 2 && !folder) {
		/* LINK, or a folder LINK: the link lands in dirname(LINK)
		   or in LINK */
		f->link = last;
		f->dir = f->no_tdir ? NULL : last;
		return true;
	}
	f->dir = last;
	return true;
}
