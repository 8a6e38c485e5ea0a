/*
 * labels/env.c - environment assignments a line gives its programs: the
 * closed world of variables (docs/tags.md "Environment assignments").
 *
 * `PATH=/tmp ls`, `GIT_CONFIG_GLOBAL=./evil.cfg git status`, `LESS=+!sh
 * less f`: a variable can change which program runs or make one run code.
 * A variable a program runs as shell text is seen through by the parser,
 * one that runs hidden code makes the line unparsed (knowledge/env.c); any
 * other name that reaches a program's environment and is not on the inert
 * list makes the command exec:unknown (held).  What reaches it: an
 * assignment before the command (also through env, sudo...), `export` and
 * `declare -x`/`typeset -x` (with or without a value), and a bare
 * `NAME=VALUE` statement when `set -a` is on or when the name is upper
 * case (environment names are; a bare lower-case name is a shell variable
 * unless the environment already exports it, a known limit).  A statement
 * or export with no command after it on the line reaches no program.
 */
#include <string.h>

#include "internal.h"
#include "../knowledge/env.h"

/* The name of assignment a (`NAME=V`, `NAME+=V`, `NAME[i]=V`, or `NAME`
   alone for export), its length in *n; NULL when a is not one. */
static const char *assigned_name(const char *a, size_t *n)
{
	size_t i = 0;
	while (a[i] == '_' || (a[i] >= 'a' && a[i] <= 'z') ||
	       (a[i] >= 'A' && a[i] <= 'Z') ||
	       (i && a[i] >= '0' && a[i] <= '9'))
		i++;
	if (!i || (a[i] && a[i] != '=' && a[i] != '+' && a[i] != '['))
		return NULL;
	*n = i;
	return a;
}

static bool upper_name(const char *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] >= 'a' && a[i] <= 'z')
			return false;
	return true;
}

/* The name is given to programs and not known to be harmless. */
static bool risky(const char *a, size_t n)
{
	return lk_env_class_of(a, n) == LK_ENV_UNKNOWN;
}

/* declare/typeset/local/readonly: -x among the options exports. */
static bool declares_export(const locus_shell_command *c)
{
	for (size_t k = 1; k < c->argc; k++) {
		const char *a = c->argv[k];
		if (a[0] != '-' || !a[1])
			break;
		if (strchr(a + 1, 'x'))
			return true;
	}
	return false;
}

bool ll_command_follows(const locus_shell_result *r, size_t i)
{
	const locus_shell_command *c = locus_shell_result_command(r, i);
	size_t n = locus_shell_result_count(r);
	/* the commands of c's own substitutions come after it in the result
	   but run before it: only one that starts past c's end follows */
	for (size_t k = i + 1; k < n; k++)
		if (locus_shell_result_command(r, k)->start >= c->end)
			return true;
	return false;
}

bool ll_line_allexport(const locus_shell_result *r)
{
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		if (!c->name || strcmp(c->name, "set"))
			continue;
		for (size_t k = 1; k < c->argc; k++) {
			const char *a = c->argv[k];
			if ((a[0] == '-' && a[1] != '-' && strchr(a, 'a')) ||
			    !strcmp(a, "allexport"))
				return true;
		}
	}
	return false;
}

const char *ll_env_not_inert(const locus_shell_result *r, size_t i,
                             bool allexport, size_t *len)
{
	const locus_shell_command *c = locus_shell_result_command(r, i);
	bool bare = !c->name || !c->name[0];
	/* read only for a command that may export (most have nothing) */
	int later = -1;
	size_t n;
	for (size_t k = 0; k < c->nassignments; k++) {
		const char *a = assigned_name(c->assignments[k], &n);
		if (!a || !risky(a, n))
			continue;
		if (!bare) {
			*len = n;
			return a;
		}
		if (!allexport && !upper_name(a, n))
			continue;
		if (later < 0)
			later = ll_command_follows(r, i);
		if (later) {
			*len = n;
			return a;
		}
	}
	if (bare || c->argc < 2)
		return NULL;
	/* export, declare, typeset, local, readonly: any other first byte
	   is none of them (most commands: five compares saved) */
	char c0 = c->name[0];
	if (c0 != 'e' && c0 != 'd' && c0 != 't' && c0 != 'l' && c0 != 'r')
		return NULL;
	bool exp = !strcmp(c->name, "export");
	bool decl =
	    !exp &&
	    (!strcmp(c->name, "declare") || !strcmp(c->name, "typeset") ||
	     !strcmp(c->name, "local") || !strcmp(c->name, "readonly"));
	if ((!exp && !decl) || !ll_command_follows(r, i))
		return NULL; /* an export with no command after it: inert */
	exp |= declares_export(c);
	for (size_t k = 1; k < c->argc; k++) {
		const char *w = c->argv[k];
		if (w[0] == '-')
			continue;
		const char *a = assigned_name(w, &n);
		if (!a || !risky(a, n))
			continue;
		/* declare NAME=V changes NAME if the environment has it */
		if (exp || allexport || (strchr(w, '=') && upper_name(a, n))) {
			*len = n;
			return a;
		}
	}
	return NULL;
}
