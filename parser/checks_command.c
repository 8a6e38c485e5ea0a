/*
 * parser/checks_command.c - fail-closed checks on one raw command, run by
 * the walk as each command is built (docs/design.md "Fail-closed checks"):
 * reserved words, braces and globs as command names, a dynamic or empty
 * name, builtins that rebind command names or run command text, history
 * expansion turned on, subscripts that would run code, `time`/`coproc`
 * before a compound command.
 */
#include <stdlib.h>
#include <string.h>

#include "walk.h"
#include "../knowledge/programs.h"

/* Reserved words (and `{ }`) that bash never runs as a command name when
   unquoted; tree-sitter lets some through (misparses S2, S3, `fi;`).
   `time` and `coproc` are not here: before a simple command they are
   wrappers; before a compound command see lp_checks_command.  Sorted
   (strcmp order) for a binary search: tests/test_parser.c looks every
   word up. */
/* clang-format off */
static const char *const reserved[] = {
	"!", "[[", "]]", "case", "do", "done", "elif", "else", "esac", "fi",
	"for", "function", "if", "in", "select", "then", "until", "while",
	"{", "}",
};
/* clang-format on */

/* strcmp's order; the first bytes, which tell almost every name from
   the table's, are compared without a call. */
static int cmp_word(const void *key, const void *elem)
{
	const unsigned char *a = key;
	const unsigned char *b = *(const unsigned char *const *)elem;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return strcmp(key, *(const char *const *)elem);
}

/* Builtins that rebind what a command name runs for the rest of the line:
   `hash -p /bin/rm ls` makes `ls` run rm; `enable -f x.so NAME` loads a
   builtin; an alias definition is expanded on later lines when
   expand_aliases is on.  The line then runs what it does not name
   (found by the oracle).  `opt` is a short option letter that must be
   given, or 0 when any NAME=VALUE argument does it. */
static const struct rebinder {
	const char *name;
	char opt;
	/* clang-format off */
} rebinders[] = {
	{"hash", 'p'},
    /* clang-format on */
    {"enable", 'f'},
    {"alias", 0},
    {"declare", 'n'}, /* a nameref: assignments go elsewhere */
    {"typeset", 'n'},
    {"local", 'n'},
    {"compgen", 'C'},  /* runs its -C text as a command */
    {"compgen", 'F'},  /* calls a function */
    {"complete", 'C'}, /* registers a command run on completion */
    {"mapfile", 'C'},  /* evaluates its -C callback every -c lines */
    {"readarray", 'C'},
    {"bind", 'x'}, /* binds a key to a shell command */
    {NULL, 0},
};

static bool rebinds(const lp_raw_command *raw, const char *name)
{
	for (const struct rebinder *r = rebinders; r->name; r++) {
		if (!lu_streq(r->name, name))
			continue;
		for (size_t i = 1; i < raw->nwords; i++) {
			const char *v = raw->words[i].value;
			if (!v)
				continue;
			if (r->opt && v[0] == '-' && v[1] != '-' &&
			    strchr(v + 1, r->opt))
				return true;
			if (!r->opt && strchr(v, '='))
				return true;
		}
	}
	return false;
}

/*
 * History expansion and `fc`: with `set -o history` (and -H /
 * histexpand), bash -c expands `!!`, `!str` on the lines it reads next and
 * `fc -s` / `fc -e PROG` re-run earlier commands (fc -e runs PROG as the
 * editor, then the edited text; checked in a sandbox).  A line that turns
 * history on, or runs fc other than to list, does what its text does not
 * show.  Shells started with -H, -o history or -i (interactive: history
 * expansion on its input, and its startup files) are caught the same way.
 */
static bool history_on(const lp_raw_command *raw, const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	if (lu_streq(base, "fc")) {
		for (size_t i = 1; i < raw->nwords; i++) {
			const char *v = raw->words[i].value;
			if (v && v[0] == '-' && strchr(v, 'l') &&
			    !strchr(v, 'e') && !strchr(v, 's'))
				return false; /* fc -l lists */
		}
		return true;
	}
	/* only option words can turn it on: the program table is read once
	   the first argument is seen to be one (most commands have none) */
	const char *v1 = raw->nwords > 1 ? raw->words[1].value : NULL;
	if (!v1 || (v1[0] != '-' && v1[0] != '+'))
		return false;
	bool is_set = lu_streq(base, "set") || lk_is(base, LK_SHELL);
	if (!is_set)
		return false;
	for (size_t i = 1; i < raw->nwords; i++) {
		const char *v = raw->words[i].value;
		if (!v || (v[0] != '-' && v[0] != '+'))
			break;
		/* -H history expansion; -k (keyword): NAME=VALUE
		   words after a command name are assignments (`set -k; git
		   diff GIT_EXTERNAL_DIFF=CMD`), also in `-ek`, `bash -kc` */
		if (v[0] == '-' && v[1] != '-' && strpbrk(v + 1, "Hk"))
			return true;
		/* an interactive shell expands history on what it reads and
		   runs its startup files */
		if (!lu_streq(base, "set") && v[0] == '-' && v[1] != '-' &&
		    strchr(v + 1, 'i'))
			return true;
		if (strchr(v + 1, 'o') && i + 1 < raw->nwords) {
			const char *o = raw->words[i + 1].value;
			if (v[0] == '-' && o &&
			    (!strcmp(o, "history") ||
			     !strcmp(o, "histexpand") || !strcmp(o, "keyword")))
				return true;
			/* `+o NAME`, `-o NAME`: NAME is the option's value, and
			   the options go on after it (`set +o history -o
			   history` turns history on; checked in a sandbox).  A
			   word that looks like an option is read as one: `set
			   -o -H` lists the options, then sets -H. */
			if (v[1] != '-' && o && o[0] != '-' && o[0] != '+')
				i++;
		}
	}
	return false;
}

/*
 * shopt -s NAME for the options that change how later text is read:
 * cdable_vars (`cd NAME` goes to $NAME), and with -o the set
 * options history, histexpand and keyword.  A name only known at run time
 * may be any of them.
 */
static bool shopt_reads(const lp_raw_command *raw, const char *name)
{
	static const char *const risky[] = {"cdable_vars", "history",
	                                    "histexpand", "keyword", NULL};
	if (!lu_streq(name, "shopt"))
		return false;
	bool set = false;
	for (size_t i = 1; i < raw->nwords; i++) {
		const char *v = raw->words[i].value;
		if (!v)
			continue;
		if (v[0] == '-' && v[1] != '-') {
			set |= strchr(v + 1, 's') != NULL;
			continue;
		}
		if (raw->words[i].flags & LOCUS_WORD_DYNAMIC)
			return true;
		if (set && lp_in_list(risky, v))
			return true;
	}
	return false;
}

bool lp_is_reserved_word(const char *s)
{
	return bsearch(s, reserved, sizeof reserved / sizeof *reserved,
	               sizeof *reserved, cmp_word) != NULL;
}

/* Commands that evaluate an argument (or what they read) as a variable
   name or an arithmetic expression, where a subscript is expanded
   again: `test -v 'a[$(rm y)]'`, `printf -v`, `declare`, `unset`, `let`,
   `read` into a name, `[[ x -eq y ]]`.  env and export pass values on to
   a shell that may do the same. */
/* clang-format off */
static const char *const subscript_evaluators[] = {
	"test", "[", "[[", "printf", "declare", "typeset", "local", "export",
	"readonly", "unset", "let", "read", "mapfile", "readarray", "getopts",
	"wait", "env", "shift", "return", "exit", "ulimit", NULL,
};
/* clang-format on */

/* NAME[ ... $( or a backtick: once the value reaches arithmetic (`$((x))`,
   `${!x}`, `[[ $x -eq 1 ]]`, `declare -i`) bash expands the subscript,
   command substitution included. */
static bool subscript_code(const char *s)
{
	if (!s)
		return false;
	for (size_t i = 1; s[i]; i++) {
		char c = s[i - 1];
		if (s[i] != '[' ||
		    !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			continue;
		return strchr(s + i, '`') || strstr(s + i, "$(");
	}
	return false;
}

static void check_subscripts(lp_ctx *ctx, const lp_raw_command *raw)
{
	for (size_t i = 0; i < raw->nassigns; i++) {
		if (subscript_code(raw->assigns[i].value)) {
			lp_unparsed(ctx, "subscript could run code: %s",
			            raw->assigns[i].value);
			return;
		}
	}
	if (raw->nwords == 0 || !raw->words[0].value)
		return;
	const char *name = raw->words[0].value;
	if (!lp_in_list(subscript_evaluators, name))
		return;
	for (size_t i = 1; i < raw->nwords; i++) {
		if (subscript_code(raw->words[i].value)) {
			lp_unparsed(ctx, "subscript could run code: %s",
			            raw->words[i].value);
			return;
		}
	}
	if ((raw->stdin_kind == LP_STDIN_HERESTRING ||
	     raw->stdin_kind == LP_STDIN_HEREDOC) &&
	    subscript_code(raw->stdin_text))
		lp_unparsed(ctx, "subscript could run code in %s's input",
		            name);
}

void lp_checks_command(lp_tree *t, const lp_raw_command *raw)
{
	lp_ctx *ctx = t->ctx;
	check_subscripts(ctx, raw);
	if (raw->nwords == 0)
		return;
	const lp_word *w0 = &raw->words[0];
	const char *name = w0->value ? w0->value : "";
	if (w0->flags & LOCUS_WORD_DYNAMIC) {
		lp_unparsed(ctx, "command name is dynamic: %s",
		            w0->text ? w0->text : name);
		return;
	}
	const char *slash = strrchr(name, '/');
	if ((slash ? slash[1] : name[0]) == '\0') {
		/* `"" rm -rf x`, `dir/ x`: the name (its basename) is empty
		   and bash runs nothing; a line we cannot read as bash does
		   is not understood (fuzz_shell). */
		lp_unparsed(ctx, "command name is empty");
		return;
	}
	if (history_on(raw, name)) {
		lp_unparsed(ctx,
		            "'%s' turns on history or keyword assignments, "
		            "or re-runs history: later text is not read as "
		            "written",
		            name);
		return;
	}
	if (shopt_reads(raw, name)) {
		lp_unparsed(ctx,
		            "'%s' sets an option that changes how later "
		            "text is read (cdable_vars, keyword, history)",
		            name);
		return;
	}
	if (rebinds(raw, name)) {
		lp_unparsed(ctx,
		            "'%s' rebinds a command name or runs command "
		            "text",
		            name);
		return;
	}
	if (lp_is_reserved_word(name) && !t->test_keyword) {
		lp_unparsed(ctx,
		            "reserved word '%s' used as a command name "
		            "(misparse)",
		            name);
		return;
	}
	if (w0->flags & (LOCUS_WORD_GLOB | LOCUS_WORD_BRACE)) {
		lp_unparsed(ctx, "command name is a glob or brace pattern: %s",
		            w0->text ? w0->text : name);
		return;
	}
	if (name[0] == '{') {
		lp_unparsed(ctx,
		            "command name starts with '{' (brace "
		            "expansion): %s",
		            name);
		return;
	}
	if (lu_streq(name, "time") || lu_streq(name, "coproc")) {
		/* The grammar has no rule for `time { ..; }`, `coproc NAME
		   { ..; }`, `time ( .. )`: it reads them as words. */
		for (size_t i = 1; i < raw->nwords; i++) {
			const char *v = raw->words[i].value;
			if (!v)
				continue;
			if (lp_is_reserved_word(v) || v[0] == '(' ||
			    !strcmp(v, "((")) {
				lp_unparsed(ctx,
				            "%s before a compound command "
				            "(misparse)",
				            name);
				return;
			}
		}
	}
}
