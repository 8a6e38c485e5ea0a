/*
 * labels/harmless.c - options that make a command harmless, read exactly.
 *
 * A dry run (`--dry-run`, `-n`) or a help form (`--help`, `-h`) turns a
 * destructive or pushing command into one that only prints.  Such an
 * option lowers the labels, so it counts only when the program cannot
 * read the word as anything else (closed world):
 *
 *   - spelled in full: never an abbreviation (getopt_long and git's
 *     parse-options take `--d` for `--dry-run` only when no other option
 *     starts so: `git push --d` is ambiguous, a newer version may add one),
 *     never a letter inside a cluster;
 *   - `--opt=VALUE` only with a value that turns it on (`--dry-run=client`,
 *     `=true`); `--dry-run=false`, `=none`, `-h=false` (Go's pflag) turn it
 *     off;
 *   - no word of the command turns it off again (`--no-dry-run`, any
 *     abbreviation of it down to `--n`, `--dry-run=none`): the last one
 *     wins, and the
 *     order is not worth trusting;
 *   - before `--`, and no word before `--` is computed at run time (it
 *     could be `--no-dry-run`).
 *
 * The tables (labels/tables.c), the packs' `unless` lists (labels/pack.c)
 * and the service CLIs' verb rule (labels/service.c) all read them here.
 */
#include <string.h>

#include "internal.h"

/* Values of `--opt=VALUE` that keep a harmless option on. */
static const char *const on_values[] = {"true",   "1",      "yes", "on",
                                        "client", "server", NULL};

static bool on_value(const char *v)
{
	for (const char *const *o = on_values; *o; o++)
		if (strcmp(*o, v) == 0)
			return true;
	return false;
}

/* `a` is opt (n bytes), or opt=VALUE (*value set). */
static bool spelled(const char *a, const char *opt, size_t n,
                    const char **value)
{
	*value = NULL;
	if (strncmp(a, opt, n) != 0)
		return false;
	if (a[n] == '=')
		*value = a + n + 1;
	return a[n] == '\0' || a[n] == '=';
}

/* A single-dash long option (-dry-run, -help: Go's flag package) is also
   read with two dashes. */
static bool single_dash_long(const char *opt, size_t n)
{
	return n > 2 && opt[0] == '-' && opt[1] != '-';
}

static bool any_spelling(const char *a, const char *opt, size_t n,
                         const char **value)
{
	if (spelled(a, opt, n, value))
		return true;
	return single_dash_long(opt, n) && a[0] == '-' &&
	       spelled(a + 1, opt, n, value);
}

bool ll_harmless_word(const char *a, const char *opt, size_t n)
{
	const char *value;
	if (!any_spelling(a, opt, n, &value))
		return false;
	return !value || on_value(value);
}

bool ll_harmless_undone(const char *a, const char *opt, size_t n)
{
	const char *value;
	if (any_spelling(a, opt, n, &value))
		return value && !on_value(value);
	if (n < 3 || opt[0] != '-')
		return false;
	const char *eq = strchr(a, '=');
	if (a[0] == '-' && a[1] == '-' && eq && !on_value(eq + 1)) {
		/* --dry=none: an abbreviation (getopt_long) set off */
		const char *nm = opt + (opt[1] == '-' ? 2 : 1);
		size_t k = (size_t)(eq - (a + 2));
		if (k && k <= n - (size_t)(nm - opt) && !strncmp(a + 2, nm, k))
			return true;
	}
	if (strncmp(a, "--n", 3) != 0)
		return false;
	/* --no-NAME and its abbreviations (--no-d, --no-, even --no and
	   --n: getopt_long and parse-options take any unambiguous prefix) */
	const char *name = opt + (opt[1] == '-' ? 2 : 1);
	size_t k = strcspn(a + 2, "=");
	if (k <= 3)
		return strncmp(a + 2, "no-", k) == 0;
	return k - 3 <= strlen(name) && strncmp(a + 2, "no-", 3) == 0 &&
	       strncmp(a + 5, name, k - 3) == 0;
}

/* The next space-separated token of *p, or NULL. */
static const char *token(const char **p, size_t *n)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (!*s)
		return NULL;
	*n = strcspn(s, " ");
	*p = s + *n;
	return s;
}

static bool dynamic(const locus_shell_command *c, size_t i)
{
	return c->argv_flags &&
	       (c->argv_flags[i] & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST));
}

bool ll_harmless_spoiled(const locus_shell_command *c, size_t from,
                         const char *list)
{
	for (size_t i = from; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (dynamic(c, i))
			return true;
		if (strcmp(a, "--") == 0)
			return false;
		const char *p = list;
		const char *t;
		size_t n;
		while ((t = token(&p, &n))) {
			/* --dry-run=client is undone as --dry-run is */
			size_t k = strcspn(t, "= ");
			if (t[0] == '-' && ll_harmless_undone(a, t, k))
				return true;
		}
	}
	return false;
}

bool ll_harmless(const locus_shell_command *c, size_t from, const char *list)
{
	bool on = false;
	for (size_t i = from; i < c->argc && !on; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			break;
		const char *p = list;
		const char *t;
		size_t n;
		while (!on && (t = token(&p, &n)))
			on = ll_harmless_word(a, t, n);
	}
	return on && !ll_harmless_spoiled(c, from, list);
}
