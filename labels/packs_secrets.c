/*
 * labels/packs_secrets.c - exec:secrets: reading or printing credentials
 * (private keys and credential stores by any program, .env files,
 * environment dumps, token printers), exec:persistence and
 * exec:privilege (rules language: pack.h; path facts: packs_paths.c).
 */
#define _GNU_SOURCE /* FNM_CASEFOLD */
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "../knowledge/programs.h"
#include "../util/str.h"
#include "pack.h"

#define S LOCUS_TAG_SECRETS
#define P LOCUS_TAG_PERSISTENCE
#define V LOCUS_TAG_PRIVILEGE
#define O LOCUS_TAG_OUTSIDE

/* ---- secrets ----------------------------------------------------------- */

static bool word_is_secret(const char *w)
{
	return pk_secret_path(w);
}

/* Some argument, redirect target or heredoc body names a credential
   store (any program: cat, grep, base64, cp, tar, scp, an interpreter's
   inline code...). */
/* cp/mv/install/ln SRC... DEST: DEST is written, not read (`cp
   .env.example .env`); with -t/--target-directory every operand is a
   source.  0 when there is no such destination. */
static size_t copy_destination(const locus_shell_command *c)
{
	if (!lk_is(c->name, LK_COPIES))
		return 0;
	size_t last = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "-t") == 0 ||
		    strncmp(a, "--target-directory", 18) == 0)
			return 0;
		if (!pk_is_option(a))
			last = i;
	}
	return last;
}

/* Programs that look at a file's name or metadata, never its content
  : `test -f .env`, `ls -la .env`, `touch .env`, `chmod 600
   .env` read nothing.  A redirect of theirs into a secret still counts. */
static const char *const meta_programs =
    "test [ [[ ls stat touch mkdir realpath readlink du basename dirname";

/* `file NAME` prints the type it finds in the first bytes ("PEM RSA private
   key", "ASCII text"), not the content: with these options only.  -f and
   --files-from print each line of the named file (checked: `file -f
   .env` shows its lines), -m/--magic-file parses it; any other or
   abbreviated option keeps the read (exact spellings only). */
static const struct {
	const char *prog;
	const char *letters; /* flags allowed alone or in a cluster */
	const char *longs;   /* "|brief|": exact long options */
} type_only[] = {
    {"file", "bchikLlNprsSzZ0E",
     "|brief|mime|mime-type|mime-encoding|dereference|no-dereference|"
     "uncompress|uncompress-noreport|keep-going|raw|no-pad|"
     "preserve-date|special-files|print0|extension|apple|no-sandbox|"},
};

static bool long_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strchr(list, '|'); p && p[1];
	     p = strchr(p + 1, '|'))
		if (!strncmp(p + 1, name, n) && p[1 + n] == '|')
			return true;
	return false;
}

static bool prints_type_only(const locus_shell_command *c)
{
	for (size_t r = 0; r < sizeof type_only / sizeof *type_only; r++) {
		if (strcmp(c->name, type_only[r].prog) != 0)
			continue;
		for (size_t i = 1; i < c->argc; i++) {
			const char *a = c->argv[i];
			if (!strcmp(a, "--"))
				break;
			if (a[0] != '-' || !a[1])
				continue;
			if (a[1] == '-'
			        ? !long_listed(type_only[r].longs, a + 2)
			        : strspn(a + 1, type_only[r].letters) !=
			              strlen(a + 1))
				return false;
		}
		return true;
	}
	return false;
}

/* chmod with modes that grant nothing to group or others (600, 0400,
   go-rwx, u+x, go=): it only narrows who reads the file.  A mode that may
   open it to others (644, o+r, a=r, +r) is judged as before; chown and
   chgrp hand the file to someone else. */
static bool chmod_narrows(const locus_shell_command *c)
{
	if (strcmp(c->name, "chmod") != 0)
		return false;
	size_t i = 1;
	while (i < c->argc && c->argv[i][0] == '-' &&
	       strspn(c->argv[i] + 1, "RvcfH") == strlen(c->argv[i] + 1))
		i++;
	if (i >= c->argc)
		return false;
	const char *m = c->argv[i];
	size_t n = strlen(m);
	if (n && strspn(m, "01234567") == n)
		return n >= 2 && m[n - 1] == '0' && m[n - 2] == '0';
	for (const char *cl = m; *cl;) {
		size_t len = strcspn(cl, ",");
		size_t who = strspn(cl, "ugoa");
		bool others = who == 0 || memchr(cl, 'g', who) ||
		              memchr(cl, 'o', who) || memchr(cl, 'a', who);
		for (size_t k = who; k < len; k++) {
			char op = cl[k];
			if (op != '+' && op != '-' && op != '=')
				continue;
			size_t perms = strspn(cl + k + 1, "rwxXst");
			if (op != '-' && others && perms)
				return false;
			k += perms;
		}
		cl += len + (cl[len] == ',');
	}
	return true;
}

/* git check-ignore and git ls-files print names only. */
static bool git_names_only(const locus_shell_command *c)
{
	if (strcmp(c->name, "git") != 0)
		return false;
	size_t i = 1;
	while (i < c->argc && c->argv[i][0] == '-') {
		const char *a = c->argv[i];
		bool val = !strcmp(a, "-C") || !strcmp(a, "-c") ||
		           !strcmp(a, "--git-dir") ||
		           !strcmp(a, "--work-tree") ||
		           !strcmp(a, "--namespace");
		i += val ? 2 : 1;
	}
	return i < c->argc && (!strcmp(c->argv[i], "check-ignore") ||
	                       !strcmp(c->argv[i], "ls-files"));
}

/* c reads no operand's content (a data program, a name or metadata
   reader, git's name listers, a narrowing chmod, file's type line). */
static bool reads_no_content(const locus_shell_command *c)
{
	return pk_data_program(c->name) || pk_word_in(meta_programs, c->name) ||
	       git_names_only(c) || chmod_narrows(c) || prints_type_only(c);
}

bool pk_arg_read(const locus_shell_command *c, size_t i)
{
	return i > 0 && !reads_no_content(c) && i != pk_pattern_operand(c) &&
	       i != copy_destination(c);
}

/* A file sed reads (r, R) is a secret. */
static void sed_reads_secret(void *arg, char cmd, const char *name, size_t n)
{
	bool *hit = arg;
	char buf[1024];
	if (*hit || (cmd != 'r' && cmd != 'R'))
		return;
	if (n >= sizeof buf) {
		*hit = true; /* too long to tell */
		return;
	}
	memcpy(buf, name, n);
	buf[n] = '\0';
	*hit = pk_secret_path(buf);
}

/* The script or program operand (data for grep) that reads the secret it
   names: sed's `r FILE`/`R FILE` (`sed '1r .env' README.md` prints .env),
   awk's `getline < "FILE"`. */
static bool script_reads_secret(const locus_shell_command *c, size_t i)
{
	if (lk_is(c->name, LK_AWK))
		return strstr(c->argv[i], "getline") != NULL;
	bool hit = false;
	pk_sed_files(c, sed_reads_secret, &hit);
	return hit;
}

/* ---- find's and fd's name tests ----------------------------------------

   `find . -iname .ENV -exec cat {} +`, `fd -u '^\.env$' -X cat`: a name
   test in any of the programs' spellings that may pick a credential store
   counts as naming it (as `find . -name .env` does): find's -name/-path
   are globs (-iname/-ipath/-iwholename ignore case), -regex/-iregex a
   regex over the whole path (find's default emacs syntax read as GNU BRE);
   fd's pattern is a regex searched anywhere in the base name (the path
   with -p), a glob with -g, a fixed string with -F, and ignores case
   unless it has an upper-case letter (-i ignores, -s keeps case).  A test
   that also matches ordinary names (`*`, `.`, `py`) is a broad read
   (pk_secret_name_hit). */
enum name_mode { NM_GLOB, NM_REGEX, NM_FIXED };

typedef struct name_test {
	const char *pat;
	enum name_mode mode;
	bool icase, whole;
	regex_t re;
} name_test;

static bool fixed_in(const char *s, const char *pat, bool icase)
{
	size_t n = strlen(pat);
	for (; *s; s++) {
		size_t k = 0;
		while (k < n && s[k] &&
		       (icase ? pk_lower(s[k]) == pk_lower(pat[k])
		              : s[k] == pat[k]))
			k++;
		if (k == n)
			return true;
	}
	return n == 0;
}

static bool name_test_hit(const char *path, const void *arg)
{
	const name_test *t = arg;
	const char *b = strrchr(path, '/');
	const char *s = t->whole || !b ? path : b + 1;
	if (t->mode == NM_GLOB)
		return fnmatch(t->pat, s, t->icase ? FNM_CASEFOLD : 0) == 0;
	if (t->mode == NM_FIXED)
		return fixed_in(s, t->pat, t->icase);
	return regexec(&t->re, s, 0, NULL, 0) == 0;
}

/* The test t may pick a credential store; a regex that does not compile
   may pick anything (true). */
static bool name_test_secret(name_test *t, bool anchored)
{
	if (t->mode != NM_REGEX)
		return pk_secret_name_hit(name_test_hit, t, !t->whole);
	char buf[1024];
	int k =
	    snprintf(buf, sizeof buf, anchored ? "^\\(%s\\)$" : "%s", t->pat);
	int fl = (anchored ? 0 : REG_EXTENDED) | REG_NOSUB |
	         (t->icase ? REG_ICASE : 0);
	if (k < 0 || (size_t)k >= sizeof buf || regcomp(&t->re, buf, fl))
		return true;
	bool hit = pk_secret_name_hit(name_test_hit, t, !t->whole);
	regfree(&t->re);
	return hit;
}

/* clang-format off */
static const struct find_test {
	const char *name;
	enum name_mode mode;
	bool icase, whole;
} find_tests[] = {
	{"-name", NM_GLOB, false, false},   {"-iname", NM_GLOB, true, false},
	{"-path", NM_GLOB, false, true},    {"-ipath", NM_GLOB, true, true},
	{"-wholename", NM_GLOB, false, true},
	{"-iwholename", NM_GLOB, true, true},
	{"-regex", NM_REGEX, false, true},  {"-iregex", NM_REGEX, true, true},
	{NULL, NM_GLOB, false, false},
};
/* fd's options whose value is the next word (fd --help) */
static const char *const fd_valued_opts =
    "-e --extension -t --type -d --max-depth --min-depth --exact-depth "
    "-E --exclude -S --size -c --color -j --threads --changed-within "
    "--changed-before -o --owner --base-directory --path-separator "
    "--search-path --max-results --max-buffer-time --ignore-file "
    "--batch-size --format --and";
/* clang-format on */

static bool find_aims_secret(const locus_shell_command *c)
{
	for (size_t i = 1; i + 1 < c->argc; i++)
		for (const struct find_test *f = find_tests; f->name; f++) {
			if (strcmp(c->argv[i], f->name))
				continue;
			name_test t = {
			    c->argv[i + 1], f->mode, f->icase, f->whole, {0}};
			if (name_test_secret(&t, true))
				return true;
		}
	return false;
}

/* One fd option word a: its letters set t's mode and case; true when
   it takes the next word as its value. */
static bool fd_option(const char *a, name_test *t, bool *icase, bool *scase)
{
	if (a[1] == '-') {
		t->mode = !strcmp(a, "--glob")            ? NM_GLOB
		          : !strcmp(a, "--fixed-strings") ? NM_FIXED
		                                          : t->mode;
		*icase |= !strcmp(a, "--ignore-case");
		*scase |= !strcmp(a, "--case-sensitive");
		t->whole |= !strcmp(a, "--full-path");
		return !strchr(a, '=') && pk_word_in(fd_valued_opts, a);
	}
	for (const char *l = a + 1; *l; l++) {
		t->mode = *l == 'g' ? NM_GLOB : *l == 'F' ? NM_FIXED : t->mode;
		*icase |= *l == 'i';
		*scase |= *l == 's';
		t->whole |= *l == 'p';
		if (strchr("etdESjco", *l))
			return !l[1]; /* the value: the rest or the next word */
	}
	return false;
}

static bool fd_aims_secret(const locus_shell_command *c)
{
	name_test t = {NULL, NM_REGEX, false, false, {0}};
	bool icase = false, scase = false, opts = true;
	for (size_t i = 1; i < c->argc && !t.pat; i++) {
		const char *a = c->argv[i];
		if (opts && !strcmp(a, "--")) {
			opts = false;
		} else if (opts && a[0] == '-' && a[1]) {
			if (!strcmp(a, "-x") || !strcmp(a, "-X") ||
			    !strncmp(a, "--exec", 6))
				return false; /* no pattern before the command */
			if (fd_option(a, &t, &icase, &scase))
				i++;
		} else {
			t.pat = a;
		}
	}
	if (!t.pat)
		return false;
	bool upper = false;
	for (const char *p = t.pat; *p; p++)
		upper |= *p >= 'A' && *p <= 'Z';
	t.icase = icase || (!scase && !upper);
	return name_test_secret(&t, false);
}

static bool finder_aims_secret(const locus_shell_command *c)
{
	if (!c->name || (c->name[0] != 'f' && c->name[0] != 'g'))
		return false;
	if (!strcmp(c->name, "find") || !strcmp(c->name, "gfind"))
		return find_aims_secret(c);
	if (!strcmp(c->name, "fd") || !strcmp(c->name, "fdfind"))
		return fd_aims_secret(c);
	return false;
}

static bool names_secret(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	if (finder_aims_secret(c))
		return true;
	/* which operands are data or written is worked out only for a
	   command with a word that names a secret (few do) */
	bool known = false, data = false;
	size_t pattern = 0, dest = 0;
	for (size_t i = 1; i < c->argc; i++) {
		if (!word_is_secret(c->argv[i]))
			continue;
		if (!known) {
			known = true;
			data = reads_no_content(c);
			pattern = pk_pattern_operand(c);
			dest = copy_destination(c);
		}
		if (data)
			break;
		if (i != pattern && i != dest)
			return true;
		if (i == pattern && script_reads_secret(c, i))
			return true;
	}
	for (size_t i = 0; i < c->nredirects; i++)
		if (word_is_secret(c->redirects[i].target))
			return true;
	return false;
}

/* ---- file names computed at run time ------------------------------------

   `cat "$(printf .e)nv"`, `cat .e$(echo n)v`, `for f in .env; do cat $f;
   done`, `cat $F` (a variable an earlier call exported): a word whose value
   is only known at run time may name any file.  Its computed parts (a
   substitution, a variable the constants pass left unresolved) may be any
   text, so the word is matched as a glob with `*` for each of them:
   `*nv` names `.env` (tagged, as `cat ?env`); `"$D"/x.txt` names
   none.  A word
   that is computed whole (`$F`, `$(printf .env)`) may be a credential
   store whatever it is: a program that prints or copies a file's content
   (content_readers) reading one is tagged too, unless the substitution
   only lists the workspace's files (`cat $(git ls-files)`, `wc -l $(find
   . -name '*.py')`: a broad read, as `cat *` or `grep -r x .`; a
   `.env` written in it is matched as text by names_secret). */
/* clang-format off */
static const struct content_reader {
	const char *names;
	const char *vals; /* short options taking the next word as value */
} content_readers[] = {
	{"cat rev comm", ""},
	{"head", "nc"},
	{"tail", "ncs"},
	{"less more most", "bhjkoOpPtTxyz"},
	{"bat batcat", "lmHr"},
	{"grep egrep fgrep zgrep", "efmABCDd"},
	{"rg", "efgtTmABCMrEj"},
	{"ag", "GgABCm"},
	{"ack", "ABCm"},
	{"sed", "efl"},
	{"awk gawk mawk nawk", "fvFWeil"},
	{"jq yq", "L"},
	{"nl", "bdfhilnsvw"},
	{"strings", "ntTe"},
	{"od", "AjNSstw"},
	{"hexdump", "ensf"},
	{"xxd", "cglos"},
	{"base64 base32 basenc", "w"},
	{"sort", "kotST"},
	{"uniq", "fsw"},
	{"cut", "bcdf"},
	{"tac", "s"},
	{"paste", "d"},
	{"column", "cstoNRHWEl"},
	{"fold", "w"},
	{"expand", "t"},
	{"diff", "xXIFLSDCU"},
	{"cmp", "in"},
	{"cp", "tS"},
	{"scp", "cFiJlPoSDX"},
	{NULL, NULL},
};
/* clang-format on */

static const struct content_reader *content_reader_of(const char *name)
{
	for (const struct content_reader *r = content_readers; r->names; r++)
		if (pk_word_in(r->names, name))
			return r;
	return NULL;
}

/* argv[i] may be the value of the option before it (`sed -e $p`, `grep
   --regexp $P`), not a file: a short option of the row's value letters
   ending its cluster, or a long option without `=`. */
static bool option_value(const locus_shell_command *c, size_t i,
                         const struct content_reader *cr)
{
	const char *a = i > 1 ? c->argv[i - 1] : "";
	if (a[0] != '-' || !a[1] || !strcmp(a, "--"))
		return false;
	if (a[1] == '-')
		return !strchr(a, '=');
	return strchr(cr->vals, a[strlen(a) - 1]) != NULL;
}

/* The substitution w (computed whole) only lists the workspace's files:
   find, fd, ls, git ls-files, git diff --name-only, grep/rg -l, with no
   pipe. */
static bool lists_files(const char *w)
{
	while (*w == '"')
		w++;
	if (strncmp(w, "$(", 2) != 0 && w[0] != '`')
		return false;
	const char *p = w + (w[0] == '`' ? 1 : 2);
	while (*p == ' ')
		p++;
	if (strchr(p, '|') || strchr(p, ';') || strchr(p, '&') ||
	    strstr(p, "$(") || strchr(p, '`'))
		return false;
	size_t n = strcspn(p, " )`");
	char prog[16];
	if (!lu_copy_fits(prog, sizeof prog, p, n))
		return false;
	if (pk_word_in("find fd fdfind ls", prog))
		return true;
	if (!strcmp(prog, "git"))
		return strstr(p, " ls-files") || strstr(p, " ls-tree") ||
		       strstr(p, "--name-only");
	if (!strcmp(prog, "grep") || !strcmp(prog, "rg"))
		return strstr(p, " -l") || strstr(p, " -rl") ||
		       strstr(p, "--files");
	return false;
}

static bool computed_secret(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	if (!c->argv_flags)
		return false;
	/* the program's facts are read at its first computed word (most
	   commands have none) */
	const struct content_reader *cr = NULL;
	bool reader = false;
	size_t pattern = 0, dest = 0;
	bool known = false;
	for (size_t i = 1; i < c->argc; i++) {
		if (!(c->argv_flags[i] &
		      (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST)))
			continue;
		if (!known) {
			known = true;
			cr = content_reader_of(c->name);
			reader = cr != NULL;
			if (pk_data_program(c->name) ||
			    pk_word_in(meta_programs, c->name))
				return false;
			pattern = pk_pattern_operand(c);
			dest = copy_destination(c);
		}
		if (i == pattern || i == dest)
			continue;
		char buf[1024];
		bool whole;
		const char *g =
		    pk_glob_form(c->argv[i], buf, sizeof buf, &whole);
		if (!g)
			return reader; /* too long to tell */
		if (reader && option_value(c, i, cr))
			continue; /* `cut -f "$i-$N"`, `sed -e $p` */
		if (whole ? reader && !lists_files(c->argv[i])
		          : pk_secret_path(g))
			return true;
	}
	return false;
}

/* `env` with no command to run prints the environment (options such as
   -0, -u NAME and assignments included). */
static bool env_dump(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	if (c->flags & (LOCUS_CMD_WRAPPER | LOCUS_CMD_QUERY_ONLY))
		return false;
	for (size_t i = 1; i < c->argc; i++)
		if (strcmp(c->argv[i], "--help") == 0 ||
		    strcmp(c->argv[i], "--version") == 0)
			return false;
	return true;
}

static bool secret_name(const char *s, size_t *len);

/* export/declare/typeset/readonly with no names print variables; `set`
   alone prints them too (set -o prints options).  With -p and names they
   print those variables' values (`declare -p GITHUB_TOKEN`): a name
   that says it holds a secret, or one known only at run time
   (`declare -p $(compgen -e)`, `${!G*}`), counts. */
static bool declare_dump(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	bool names = false, p = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (pk_is_option(a)) {
			p |= a[1] != '-' && strchr(a + 1, 'p');
			continue;
		}
		names = true;
		if (!p || !strcmp(c->name, "set"))
			continue;
		uint32_t f = c->argv_flags ? c->argv_flags[i] : 0;
		size_t n;
		if ((f & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST |
		          LOCUS_WORD_GLOB | LOCUS_WORD_BRACE)) ||
		    (secret_name(a, &n) && n == strcspn(a, "=")))
			return true;
	}
	if (names)
		return false;
	if (strcmp(c->name, "set") == 0)
		return c->argc == 1;
	return true;
}

/* ps with BSD `e` (auxe, eww) prints every process's environment. */
static bool ps_environment(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (a[0] != '-' && strchr(a, 'e'))
			return true;
	}
	return false;
}

/* ${!NAME}: the value of the variable NAME names, any variable of the
   environment; ${!prefix*}, ${!prefix@} and ${!arr[@]} list
   names and keys only. */
static bool indirect_value(const char *s)
{
	if (s[0] != '!')
		return false;
	size_t n = strcspn(s + 1, "}");
	if (n == 0 || !s[1 + n])
		return false;
	char last = s[n];
	if (last == '*' || last == '@')
		return false; /* ${!prefix*}: names */
	return !(n > 2 && last == ']' && (s[n - 1] == '@' || s[n - 1] == '*'));
}

/* Marks of a variable name that says it holds a secret, matched on the
   upper-cased name: anywhere in it, as its ending, or the whole name.
   Credential-bearing URLs and DSNs (`postgres://user:pw@host`) and
   webhook URLs (the URL is the credential) count; PWD and OLDPWD (the
   shell's folders) are not `_PWD`. */
#define MARK(m, w)                                                             \
	{                                                                      \
		m, sizeof m - 1, w                                             \
	}
static const struct {
	const char *mark;
	size_t len;
	char where; /* 'a' anywhere, 'e' at the end, 'w' the whole name */
	            /* clang-format off */
} secret_marks[] = {
    MARK("TOKEN", 'a'),
                    /* clang-format on */
    MARK("SECRET", 'a'),
    MARK("PASSWORD", 'a'),
    MARK("PASSWD", 'a'),
    MARK("PASSPHRASE", 'a'),
    MARK("API_KEY", 'a'),
    MARK("APIKEY", 'a'),
    MARK("PRIVATE_KEY", 'a'),
    MARK("ACCESS_KEY", 'a'),
    MARK("CREDENTIAL", 'a'),
    MARK("_PAT_", 'a'),
    MARK("_KEY_", 'a'),
    MARK("WEBHOOK", 'a'),
    MARK("CONNECTION_STRING", 'a'),
    MARK("CONN_STR", 'a'),
    MARK("AUTH_CONFIG", 'a'),
    MARK("PASS", 'e'),
    MARK("_PWD", 'e'),
    MARK("_DSN", 'e'),
    MARK("DSN", 'w'),
    MARK("_AUTH", 'e'),
    MARK("AUTH", 'w'),
    MARK("__AUTH", 'a'), /* NPM_CONFIG__AUTH_IDENT: npm's _auth keys */
    MARK("_PAT", 'e'),
    MARK("_KEY", 'e'),
    MARK("_KEYS", 'e'),
    MARK("AUTHORIZATION", 'a'),
    MARK("AUTH*HEADER", 'a'), /* AUTH_HEADER, AUTHORIZATION_HEADER */
    MARK("CREDS", 'e'),
    MARK("JWT", 'a'),
    MARK("BEARER", 'a'),
    MARK("COOKIE", 'a'),
    MARK("KUBE_CONFIG", 'a'),
    MARK("KUBECONFIG", 'a'), /* KUBECONFIG_DATA; KUBECONFIG alone: plain */
    MARK("_SK", 'e'),        /* STRIPE_SK: a secret key */
    MARK("PRIVKEY", 'a'),
    MARK("MNEMONIC", 'a'),
    MARK("SEED_PHRASE", 'a'),
    MARK("SEEDPHRASE", 'a'),
    MARK("TOTP", 'a'),
    MARK("PAT", 'w'),
};
#undef MARK

/* Whole names that hold a mark but not a secret: KUBECONFIG is the
   path of the kube config file (its content is the path rules'). */
static const char *const plain_names[] = {"KUBECONFIG", NULL};

/* Name parts that say a URL, URI or DSN is a database's or a broker's,
   which carries user:password (`postgres://u:pw@db/x`): a part that is
   one of these, holds one of four letters or more (POSTGRESQL, MONGODB,
   RABBITMQ, MYMONGO), or ends in DB (INFLUXDB, USERDB). */
/* clang-format off */
static const char *const db_parts[] = {
    "DB",        "PG",        "SQL",       "POSTGRES", "MYSQL",
    "MARIADB",   "MONGO",     "REDIS",     "AMQP",     "RABBIT",
    "KAFKA",     "DATABASE",  "MSSQL",     "ORACLE",   "BROKER",
    "CELERY",    "ELASTIC",   "NEO4J",     "CLICKHOUSE", "CASSANDRA",
    "MEMCACHE",  "NATS",      "COUCH",     "VALKEY",   "SUPABASE",
    "TIMESCALE", "COCKROACH", "INDEX",     NULL,
};
/* clang-format on */

/* The part p (n bytes) of a name is a database's (db_parts). */
static bool db_part(const char *p, size_t n)
{
	if (n >= 2 && p[n - 2] == 'D' && p[n - 1] == 'B')
		return true;
	for (const char *const *d = db_parts; *d; d++) {
		size_t m = strlen(*d);
		if (n == m && !memcmp(p, *d, m))
			return true;
		for (size_t i = 0; m >= 4 && i + m <= n; i++)
			if (!memcmp(p + i, *d, m))
				return true;
	}
	return false;
}

/* A database or broker connection URL: a part URL, URI or DSN after a
   database part (POSTGRES_URL, PG_URI, DB_URL, MONGODB_URI,
   KAFKA_BROKER_URL, PIP_INDEX_URL, POSTGRES_URL_NON_POOLING). */
static bool db_url(const char *name)
{
	bool db = false;
	for (const char *p = name; *p;) {
		size_t m = strcspn(p, "_");
		if (db && m == 3 &&
		    (!memcmp(p, "URL", 3) || !memcmp(p, "URI", 3) ||
		     !memcmp(p, "DSN", 3)))
			return true;
		db |= m && db_part(p, m);
		p += m + (p[m] == '_');
	}
	return false;
}

/* Endings that say the variable names where or how big a secret is,
   not the secret (CERT_KEY_PATH, GITHUB_TOKEN_FILE, _KEY_LENGTH): its
   value is not a credential.  (A program that reads the file it names
   is the "file named only at run time" rule's.) */
static const char *const about_secret[] = {
    "_PATH", "_FILE", "_DIR", "_LENGTH", "_LEN", "_SIZE", NULL,
};

static bool names_about_secret(const char *name, size_t n)
{
	for (const char *const *e = about_secret; *e; e++) {
		size_t m = strlen(*e);
		if (n > m && !strcmp(name + n - m, *e))
			return true;
	}
	return false;
}

/* The mark m is in name (one `*` in m stands for any text). */
static bool mark_in(const char *name, const char *m)
{
	const char *star = strchr(m, '*');
	if (!star)
		return strstr(name, m) != NULL;
	char head[32];
	if (!lu_copy_fits(head, sizeof head, m, (size_t)(star - m)))
		return false;
	const char *h = strstr(name, head);
	return h && strstr(h + strlen(head), star + 1);
}

/* The letters (A-Z) and `_` of an upper-cased name, one bit each. */
static uint32_t name_letters(const char *name, size_t n)
{
	uint32_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (name[i] >= 'A' && name[i] <= 'Z')
			m |= 1u << (name[i] - 'A');
		else if (name[i] == '_')
			m |= 1u << 26;
	return m;
}

/* The upper-cased name holds one of the marks (or is a database URL).
   A mark is compared only when the name holds its first two bytes: most
   names (`$file`, `$i`, `$HOME`) hold no mark's, and the comparisons
   cost ~5,000 instructions a line when every mark was tried. */
static bool marked_name(const char *name, size_t n)
{
	uint32_t have = name_letters(name, n);
	for (size_t k = 0; k < sizeof secret_marks / sizeof *secret_marks;
	     k++) {
		const char *m = secret_marks[k].mark;
		size_t mn = secret_marks[k].len;
		uint32_t need = name_letters(m, 2);
		if ((need & have) != need)
			continue;
		bool hit = secret_marks[k].where == 'a' ? mark_in(name, m)
		           : secret_marks[k].where == 'w'
		               ? n == mn && !memcmp(name, m, mn)
		               : n >= mn && !memcmp(name + n - mn, m, mn);
		if (hit)
			return true;
	}
	/* a URL, URI or DSN part follows another part */
	return (strstr(name, "_UR") || strstr(name, "_DSN")) && db_url(name);
}

/* The upper-cased name up (n bytes) says it holds a secret: it holds
   one of the marks, does not name where or how big a secret is, and is
   not a plain name. */
static bool secret_upper(const char *up, size_t n)
{
	if (n < 3 || !marked_name(up, n) || names_about_secret(up, n))
		return false;
	for (const char *const *pn = plain_names; *pn; pn++)
		if (!strcmp(up, *pn))
			return false;
	return true;
}

/* The variable name at s (*len bytes of it) says it holds a secret: it
   holds one of the marks, and does not name where or how big a secret
   is, nor is a plain name. */
static bool secret_name(const char *s, size_t *len)
{
	char name[64];
	size_t n = 0;
	while (n + 1 < sizeof name &&
	       ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
	        (*s >= '0' && *s <= '9') || *s == '_')) {
		char ch = *s++;
		name[n++] =
		    ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
	}
	name[n] = '\0';
	*len = n;
	return secret_upper(name, n);
}

bool locus_secret_variable(const char *name)
{
	if (!name || !*name)
		return false;
	/* the whole name, upper-cased (secret_name stops at 63 bytes and
	   at the first byte a shell name cannot hold: an environment's
	   names are any bytes but `=`) */
	char up[256];
	size_t n = 0;
	for (; name[n]; n++) {
		if (n + 1 >= sizeof up)
			return true; /* a name this long: dropped (fail closed) */
		up[n] = name[n] >= 'a' && name[n] <= 'z'
		            ? (char)(name[n] - 'a' + 'A')
		            : name[n];
	}
	up[n] = '\0';
	return secret_upper(up, n);
}

/* Words [from, nwords) of c expand a variable whose name says it holds
   a secret, or the value of a variable another names (${!x}). */
static bool text_expands(const char *w)
{
	for (const char *d = strchr(w, '$'); d; d = strchr(d + 1, '$')) {
		const char *s = d + 1;
		if (*s == '{')
			s++;
		if (s[-1] == '{' && indirect_value(s))
			return true;
		size_t n;
		if (secret_name(s, &n))
			return true;
	}
	return false;
}

static bool words_expand(const locus_shell_command *c, size_t from)
{
	for (size_t i = from; i < c->nwords; i++)
		if (text_expands(c->words[i]))
			return true;
	return false;
}

/* A heredoc or herestring expands a secret variable into the command's
   input (`cat <<< "$GITHUB_TOKEN"`; a quoted heredoc, which does not
   expand, is held the same: over-read). */
static bool body_expands_secret(const locus_shell_command *c,
                                const ll_context *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (r->op && r->target && !strncmp(r->op, "<<", 2) &&
		    strchr(r->target, '$') && text_expands(r->target))
			return true;
	}
	return false;
}

/* Programs known not to print their arguments (no-ops): a secret
   variable given to them stays in the process.  Any other program may
   copy an argument to its output (basename, expr, realpath, date
   +FORMAT, yes, sed's script, awk -v, git log --format, `bash -c 'echo
   $1' _ "$TOKEN"`, an error message naming it).  test, [ and [[ print an
   operand only in an error message (test_quiet). */
static const char *const non_printers = "true : false";
static const char *const testers = "test [ [[";

/* test's words: what separates its clauses, its unary tests that take
   any string (file and string tests; -t, -v and the arithmetic ones
   read the operand as a number or a name) and its string comparisons. */
static const char *const test_bounds = "! ( ) -a -o && ||";
static const char *const test_unary =
    "-n -z -e -f -d -r -w -x -s -L -h -p -S -b -c -g -u -k -O -G -N";
static const char *const test_binary = "= == != < > =~";

static bool test_bound(const char *const *a, size_t lo, size_t hi, size_t i)
{
	return i < lo || i >= hi || pk_word_in(test_bounds, a[i]);
}

/* Argument i (in [lo, hi)) of a test is a whole clause, the operand of a
   unary string or file test, or a side of a string comparison: a test
   that prints no error naming it (`[: ghp_x: binary operator expected`,
   `integer expression expected` do). */
static bool test_quiet_at(const char *const *a, size_t lo, size_t hi, size_t i)
{
	bool pb = test_bound(a, lo, hi, i - 1),
	     nb = test_bound(a, lo, hi, i + 1);
	if (pb && nb)
		return true;
	if (nb && !pb && pk_word_in(test_unary, a[i - 1]) &&
	    test_bound(a, lo, hi, i - 2))
		return true;
	if (pb && !nb && pk_word_in(test_binary, a[i + 1]) &&
	    !test_bound(a, lo, hi, i + 2) && test_bound(a, lo, hi, i + 3))
		return true;
	return nb && !pb && i >= lo + 2 && pk_word_in(test_binary, a[i - 1]) &&
	       !test_bound(a, lo, hi, i - 2) && test_bound(a, lo, hi, i - 3);
}

/* Word k of the test c is quiet (test_quiet_at), its words and argv
   lining up (no brace expansion). */
static bool test_quiet(const locus_shell_command *c, size_t k)
{
	if (c->nwords < c->argc || k < c->nwords - c->argc)
		return false;
	size_t i = k - (c->nwords - c->argc), hi = c->argc;
	if (hi > 1 &&
	    (!strcmp(c->argv[hi - 1], "]") || !strcmp(c->argv[hi - 1], "]]")))
		hi--;
	return i >= 1 && i < hi && test_quiet_at(c->argv, 1, hi, i);
}

/* The declaration builtins: NAME=VALUE arguments of theirs assign, they
   print nothing (`export GH_TOKEN="$GITHUB_TOKEN"`). */
static const char *const declarers = "declare typeset local readonly export";

/* w is an assignment word: NAME=, NAME+= or NAME[...]=. */
static bool assignment_word(const char *w)
{
	size_t n = 0;
	while ((w[n] >= 'A' && w[n] <= 'Z') || (w[n] >= 'a' && w[n] <= 'z') ||
	       w[n] == '_' || (n && w[n] >= '0' && w[n] <= '9'))
		n++;
	if (!n)
		return false;
	if (w[n] == '[')
		n += strcspn(w + n, "]") + (w[n + strcspn(w + n, "]")] == ']');
	return w[n] == '=' || (w[n] == '+' && w[n + 1] == '=');
}

/* The source word w expands a secret variable (or ${!x}) where the shell
   expands: outside single quotes and $'...', not after a backslash
   (`grep '$API_KEY' src`, awk's '{print $TOKEN}' are literal text). */
static bool word_expands_live(const char *w)
{
	bool dq = false;
	for (const char *p = w; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '"') {
			dq = !dq;
		} else if (*p == '\'' && !dq) {
			const char *e = strchr(p + 1, '\'');
			if (!e)
				return false;
			p = e;
		} else if (*p == '$' && p[1] == '\'' && !dq) {
			for (p += 2; *p && *p != '\''; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return false;
		} else if (*p == '$') {
			const char *v = p + 1 + (p[1] == '{');
			size_t n;
			if ((p[1] == '{' && indirect_value(v)) ||
			    secret_name(v, &n))
				return true;
		}
	}
	return false;
}

/* Word i of c hands a value on rather than printing it: a leading
   assignment (`GH_TOKEN=$GITHUB_TOKEN gh ...`) or a declaration's
   NAME=VALUE argument (`export PATH="$X_PATH:$PATH"`). */
static bool hands_on(const locus_shell_command *c, size_t i)
{
	size_t first = c->nwords >= c->argc ? c->nwords - c->argc : 0;
	return (i < first || (i > first && pk_word_in(declarers, c->name))) &&
	       assignment_word(c->words[i]);
}

/* Some word of c that the program may print (not a leading
   assignment, a declaration's NAME=VALUE, an argument of a no-op, a
   quiet operand of a test) is one `hit` says expands the secret. */
static bool prints_word(const locus_shell_command *c,
                        bool (*hit)(const char *w, const void *arg),
                        const void *arg)
{
	/* the program's lists are read only for a command with a `$` in
	   some word (most have none) */
	size_t i = 1;
	while (i < c->nwords && !strchr(c->words[i], '$'))
		i++;
	if (!c->argc || i >= c->nwords || pk_word_in(non_printers, c->name))
		return false;
	bool test = pk_word_in(testers, c->name);
	for (; i < c->nwords; i++)
		if (strchr(c->words[i], '$') && !hands_on(c, i) &&
		    hit(c->words[i], arg) && !(test && test_quiet(c, i)))
			return true;
	return false;
}

static bool expands_live(const char *w, const void *arg)
{
	(void)arg;
	return word_expands_live(w);
}

/* A variable whose name says it holds a secret is expanded in the
   arguments of a program that may print them (echo and printf: any
   spelling, quoted or not; the others: where the shell expands it). */
static bool prints_secret_variable(const locus_shell_command *c,
                                   const ll_context *ctx)
{
	(void)ctx;
	if (c->argc && (!strcmp(c->name, "echo") || !strcmp(c->name, "printf")))
		return words_expand(c, 1);
	return prints_word(c, expands_live, NULL);
}

bool pk_copies_secret(const locus_shell_command *c)
{
	return c->argc == 0 && c->nassignments && words_expand(c, 0);
}

bool pk_declares_secret(const locus_shell_command *c, size_t i)
{
	/* the cheap tests first: most words hold no `=` */
	return c->argc && i < c->argc && strchr(c->argv[i], '=') &&
	       i + c->nwords >= c->argc &&
	       pk_word_in("declare typeset local readonly export", c->name) &&
	       text_expands(c->words[c->nwords - c->argc + i]);
}

/* The variable a copy names (secret_copies in label.c). */
typedef struct copy_name {
	const char *name;
	size_t n; /* 0: any variable (the count was lost) */
} copy_name;

static bool expands_copy(const char *w, const void *arg)
{
	const copy_name *cn = arg;
	for (const char *d = strchr(w, '$'); d; d = strchr(d + 1, '$')) {
		if (!cn->n)
			return true;
		const char *v = d + 1 + (d[1] == '{');
		char after = strncmp(v, cn->name, cn->n) ? 'x' : v[cn->n];
		if (!(after == '_' || (after >= 'a' && after <= 'z') ||
		      (after >= 'A' && after <= 'Z') ||
		      (after >= '0' && after <= '9')))
			return true;
	}
	return false;
}

bool pk_prints_name(const locus_shell_command *c, const char *name, size_t n)
{
	copy_name cn = {name, n};
	return prints_word(c, expands_copy, &cn);
}

/* git's variables that carry a value git prints: the identity (`git
   var GIT_AUTHOR_IDENT`, git commit's Author line; EMAIL is the
   fallback address) and config given through the environment. */
/* clang-format off */
static const char *const git_shown_vars[] = {
    "GIT_AUTHOR_NAME=",      "GIT_AUTHOR_EMAIL=", "GIT_COMMITTER_NAME=",
    "GIT_COMMITTER_EMAIL=",  "EMAIL=",            "GIT_CONFIG_PARAMETERS=",
    "GIT_CONFIG_VALUE_",     NULL,
};
/* clang-format on */

/* A test on a variable name (n bytes at name) or on a word's text. */
typedef struct git_hit {
	bool (*name)(const char *name, size_t n, const void *arg);
	bool (*text)(const char *w, const void *arg);
	const void *arg;
} git_hit;

/* git c takes a value it may print from a variable h names: a
   --config-env[=]KEY=ENVVAR (git reads ENVVAR, and git var, git config
   KEY, an Author line or an error message print it: any git command
   counts), or a leading assignment of one of git_shown_vars. */
static bool git_takes_value(const locus_shell_command *c, const git_hit *h)
{
	if (!c->argc || !lu_streq(c->name, "git"))
		return false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i], *kv = NULL;
		if (!strcmp(a, "--"))
			break;
		if (!strncmp(a, "--config-env=", 13))
			kv = a + 13;
		else if (!strcmp(a, "--config-env") && i + 1 < c->argc)
			kv = c->argv[++i];
		const char *env = kv ? strrchr(kv, '=') : NULL;
		if (env && h->name(env + 1, strlen(env + 1), h->arg))
			return true;
	}
	for (size_t i = 0; i < c->nassignments; i++)
		for (const char *const *v = git_shown_vars; *v; v++)
			if (!strncmp(c->assignments[i], *v, strlen(*v)) &&
			    h->text(c->assignments[i], h->arg))
				return true;
	return false;
}

static bool is_secret_name(const char *name, size_t n, const void *arg)
{
	(void)arg;
	size_t len;
	return secret_name(name, &len) && len == n;
}

static bool git_expands_secret(const char *w, const void *arg)
{
	(void)arg;
	return text_expands(w);
}

static bool git_prints_secret(const locus_shell_command *c,
                              const ll_context *ctx)
{
	(void)ctx;
	git_hit h = {is_secret_name, git_expands_secret, NULL};
	return git_takes_value(c, &h);
}

static bool is_copy_name(const char *name, size_t n, const void *arg)
{
	const copy_name *cn = arg;
	return !cn->n || (n == cn->n && !memcmp(name, cn->name, n));
}

bool pk_git_takes_name(const locus_shell_command *c, const char *name, size_t n)
{
	copy_name cn = {name, n};
	git_hit h = {is_copy_name, expands_copy, &cn};
	return git_takes_value(c, &h);
}

/* ---- the shell prints the value itself (R2-3) ------------------------ */

/* w holds ${NAME?WORD} or ${NAME:?WORD} whose WORD expands a secret
   variable: an unset or empty NAME makes the shell print WORD in its
   error (`bash: NOPE: ghp_...`), a no-op's argument or an assignment
   alike. */
static bool unset_error_expands(const char *w)
{
	for (const char *d = strstr(w, "${"); d; d = strstr(d + 1, "${")) {
		const char *p = d + 2;
		size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                     "abcdefghijklmnopqrstuvwxyz0123456789_");
		p += n ? n : (size_t)(*p && strchr("@*#?$!-", *p) != NULL);
		p += *p == ':';
		if (*p == '?' && p[1] != '}' && text_expands(p + 1))
			return true;
	}
	return false;
}

/* Some word, assignment or redirect target of c expands a secret
   variable where the shell expands it (`: "$GITHUB_TOKEN"`, x=$TOKEN):
   what xtrace prints.  A heredoc's or herestring's text counts too. */
static bool expands_anywhere(const locus_shell_command *c)
{
	for (size_t i = 0; i < c->nwords; i++)
		if (strchr(c->words[i], '$') && word_expands_live(c->words[i]))
			return true;
	for (size_t i = 0; i < c->nredirects; i++)
		if (c->redirects[i].target &&
		    text_expands(c->redirects[i].target))
			return true;
	return false;
}

bool pk_shell_prints_secret(const locus_shell_command *c, bool xtrace)
{
	for (size_t i = 0; i < c->nwords; i++)
		if (strchr(c->words[i], '?') &&
		    unset_error_expands(c->words[i]))
			return true;
	return xtrace && expands_anywhere(c);
}

/* Shells whose -x / -o xtrace options trace what they run. */
static const char *const xtrace_shells = "bash sh dash zsh ksh mksh ash";

/* The option words of c turn xtrace on: a cluster with x (`-x`, `-ex`,
   `-xc`) or `-o xtrace`. */
static bool xtrace_option(const locus_shell_command *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (!strcmp(a, "--"))
			return false;
		if (a[0] == '-' && a[1] != '-' && strchr(a, 'x'))
			return true;
		if (!strcmp(a, "xtrace") && !strcmp(c->argv[i - 1], "-o"))
			return true;
	}
	return false;
}

bool pk_turns_on_xtrace(const locus_shell_command *c)
{
	for (size_t i = 0; i < c->nwords; i++)
		if (strstr(c->words[i], "SHELLOPTS") &&
		    strstr(c->words[i], "xtrace"))
			return true;
	if (c->argc < 2)
		return false;
	if (!strcmp(c->name, "shopt")) {
		for (size_t i = 1; i < c->argc; i++)
			if (!strcmp(c->argv[i], "xtrace"))
				return true;
		return false;
	}
	/* the options first: most commands have none with an x */
	return xtrace_option(c) &&
	       (!strcmp(c->name, "set") || pk_word_in(xtrace_shells, c->name));
}

bool pk_expands_name(const locus_shell_command *c, const char *name, size_t n)
{
	copy_name cn = {name, n};
	for (size_t i = 0; i < c->nwords; i++)
		if (expands_copy(c->words[i], &cn))
			return true;
	return false;
}

/* `w` holds the identifier `id` as a token of its own: not a field
   (`.env`), a variable (`$env`), part of a name, or a string's start. */
static bool has_token(const char *w, const char *id)
{
	size_t n = strlen(id);
	for (const char *p = strstr(w, id); p; p = strstr(p + 1, id)) {
		char b = p == w ? ' ' : p[-1], a = p[n];
		bool word_b = (b >= 'a' && b <= 'z') ||
		              (b >= 'A' && b <= 'Z') ||
		              (b >= '0' && b <= '9') || b == '_' || b == '.' ||
		              b == '$' || b == '"';
		bool word_a = (a >= 'a' && a <= 'z') ||
		              (a >= 'A' && a <= 'Z') ||
		              (a >= '0' && a <= '9') || a == '_';
		if (!word_b && !word_a)
			return true;
	}
	return false;
}

/* The line names the shell's last argument (`$_`, `${_}`). */
static bool last_argument(const char *src)
{
	static const char *const forms[] = {"$_", "${_", NULL};
	for (const char *const *f = forms; *f; f++)
		for (const char *p = strstr(src, *f); p;
		     p = strstr(p + 1, *f)) {
			char a = p[strlen(*f)];
			if (!((a >= 'a' && a <= 'z') ||
			      (a >= 'A' && a <= 'Z') ||
			      (a >= '0' && a <= '9') || a == '_'))
				return true;
		}
	return false;
}

/* Programs and keywords that hand a value on under another name the
   copy tracking does not follow: a for/select loop variable, read,
   mapfile (`while read x ...; done <<< "$TOKEN"`). */
static const char *const reuse_words[] = {"for",     "select",    "read",
                                          "mapfile", "readarray", NULL};

bool pk_line_reuses_secret(const locus_shell_result *r)
{
	size_t len;
	const char *src = locus_shell_result_source(r, &len);
	if (!src || !strchr(src, '$'))
		return false;
	bool reuse = last_argument(src) || strstr(src, "BASH_REMATCH");
	for (const char *const *w = reuse_words; *w && !reuse; w++)
		reuse = has_token(src, *w);
	if (!reuse)
		return false;
	if (word_expands_live(src))
		return true;
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++)
		if (expands_anywhere(locus_shell_result_command(r, i)))
			return true;
	return false;
}

/* awk's program assigns ARGV or ARGC: it reads files the line does not
   name (`BEGIN{ARGV[1]="/etc/shadow"; ARGC=2}`). */
static bool awk_rewrites_argv(const char *w)
{
	static const char *const names[] = {"ARGV", "ARGC", NULL};
	for (const char *const *nm = names; *nm; nm++)
		for (const char *p = strstr(w, *nm); p;
		     p = strstr(p + 1, *nm)) {
			const char *q = p + 4;
			if (**nm == 'A' && (*nm)[3] == 'V' && *q == '[') {
				int depth = 0;
				for (; *q; q++) {
					depth += *q == '[';
					if (*q == ']' && --depth == 0)
						break;
				}
				if (*q)
					q++;
			}
			q += strspn(q, " \t");
			if (q[0] == '=' && q[1] != '=')
				return true;
			if (q[0] && strchr("+-*/%^", q[0]) && q[1] == '=')
				return true;
			if ((q[0] == '+' && q[1] == '+') ||
			    (q[0] == '-' && q[1] == '-'))
				return true;
		}
	return false;
}

/* jq's `$ENV`: `$` and the name are two tokens of jq's grammar, so
   blanks, newlines and `#` comments may stand between them (`$ ENV`,
   `$ # x<newline>ENV`); a comment ending in a backslash goes on to the
   next line (jq 1.7). */
static bool jq_env_variable(const char *a)
{
	for (const char *d = strchr(a, '$'); d; d = strchr(d + 1, '$')) {
		const char *p = d + 1;
		for (;;) {
			p += strspn(p, " \t\r\n\f\v");
			if (*p != '#')
				break;
			while (*p && (*p != '\n' || p[-1] == '\\'))
				p++;
		}
		char after = p[0] && p[1] && p[2] ? p[3] : 'x';
		if (!strncmp(p, "ENV", 3) &&
		    !((after >= 'a' && after <= 'z') ||
		      (after >= 'A' && after <= 'Z') ||
		      (after >= '0' && after <= '9') || after == '_'))
			return true;
	}
	return false;
}

/* ---- jq's program text from elsewhere (R2-2) -------------------------- */

/* jq's options that take the next word(s) as values: a positional word
   after them is no program. */
static const char *const jq_two_values =
    "--arg --argjson --slurpfile --rawfile";
static const char *const jq_one_value = "--indent -L --library-path";
/* Files that are jq's own stdin. */
static const char *const stdin_files = "/dev/stdin /dev/fd/0 /proc/self/fd/0 -";

/* jq's literal program text t reads the environment or another file of
   code (a module: `include "x"`, `import "x" as x`, found without -L in
   the working folder). */
static bool jq_text_reads_env(const char *t)
{
	return jq_env_variable(t) || has_token(t, "env") ||
	       strstr(t, "strenv(") || has_token(t, "envsubst") ||
	       has_token(t, "include") || has_token(t, "import");
}

/* Index of jq's program word (its file with -f), 0 when there is none:
   the first positional word (jq reads options anywhere, so `jq p -f x`
   reads the program from the file p); *from_file: -f/--from-file was
   given; *unknown: a word computed at run time stands at or before it
   (it may be the program or an option). */
static size_t jq_program_at(const locus_shell_command *c, bool *from_file,
                            bool *unknown)
{
	*from_file = *unknown = false;
	bool after_dd = false;
	size_t at = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (!at && c->argv_flags &&
		    (c->argv_flags[i] &
		     (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST)))
			*unknown = true;
		if (after_dd || a[0] != '-' || !a[1]) {
			at = at ? at : i; /* jq reads options after it too */
		} else if (!strcmp(a, "--")) {
			after_dd = true;
		} else if (pk_word_in(jq_two_values, a)) {
			i += 2;
		} else if (pk_word_in(jq_one_value, a)) {
			i += 1;
		} else if (!strcmp(a, "--from-file")) {
			*from_file = true;
		} else if (a[1] != '-' && a[1] != 'L') {
			*from_file |= strchr(a, 'f') != NULL;
		}
	}
	return at;
}

/* The text c's stdin gets from a heredoc or herestring (NULL: none). */
static const char *stdin_text(const locus_shell_command *c)
{
	const char *t = NULL;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		bool in = r->fd == -1 || r->fd == 0;
		if (r->op && in && r->op[0] == '<')
			t = !strncmp(r->op, "<<", 2) && r->target ? r->target
			                                          : NULL;
	}
	return t;
}

/* jq's program is not a literal word of the line: a word computed at
   run time (`jq -n "${a[0]}"`, `"$(cat p)"`), a file (`-f p.jq`: any
   file may hold env), or stdin that is no heredoc or herestring; a
   heredoc or herestring program is judged as the program text. */
static bool jq_program_unseen(const locus_shell_command *c,
                              const ll_context *ctx)
{
	(void)ctx;
	if (!c->argc || !pk_word_in("jq gojq jaq", c->name))
		return false;
	bool from_file, unknown;
	size_t at = jq_program_at(c, &from_file, &unknown);
	if (unknown)
		return true;
	if (!at)
		return false;
	if (!from_file)
		return jq_text_reads_env(c->argv[at]);
	if (!pk_word_in(stdin_files, c->argv[at]) &&
	    strncmp(c->argv[at], "/proc/", 6))
		return true;
	const char *t = stdin_text(c);
	return !t || jq_text_reads_env(t);
}

/* Programs whose own language reads the environment: jq's
   `env` and `$ENV`, yq's env()/strenv(), awk's ENVIRON; and an awk
   program that rewrites ARGV. */
static bool prints_environment(const locus_shell_command *c,
                               const ll_context *ctx)
{
	(void)ctx;
	if (c->argc < 2)
		return false; /* no program text */
	bool awk =
	    pk_word_in("awk gawk mawk nawk original-awk busybox", c->name);
	bool jq = !awk && pk_word_in("jq gojq jaq yq", c->name);
	if (!awk && !jq)
		return false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (awk && (strstr(a, "ENVIRON") || awk_rewrites_argv(a)))
			return true;
		if (jq && (jq_env_variable(a) || has_token(a, "env") ||
		           strstr(a, "strenv(") || has_token(a, "envsubst")))
			return true;
	}
	return false;
}

/* gpg's commands that print no secret material: listings, verifies,
   digests, help.  With no command option gpg decrypts (or verifies)
   its file or stdin with the user's secret key, so every other form is
   held (closed world: a command gpg may add later too). */
static const char *const gpg_listings =
    "|--list-keys|--list-public-keys|--list-secret-keys|--list-sigs|"
    "--list-signatures|--check-sigs|--check-signatures|--fingerprint|"
    "--verify|--verify-files|--show-keys|--version|--help|-h|"
    "--list-config|--dump-options|--gpgconf-list|--warranty|--print-md|"
    "--print-mds|";
/* Options that take no value: a listing right after one of them is a
   command, not the option's value (`gpg --batch --list-keys`; in `gpg
   --output --list-keys x.gpg` it is the output file, and x.gpg is
   decrypted). */
static const char *const gpg_flags =
    "|--batch|--yes|--no|--quiet|--verbose|--armor|--with-colons|"
    "--with-fingerprint|--with-subkey-fingerprint|--with-subkey-"
    "fingerprints|--with-keygrip|--with-secret|--fixed-list-mode|--no-tty|"
    "--no-default-keyring|--utf8-strings|--no-greeting|"
    "--no-permission-warning|--with-sig-check|--with-sig-list|"
    "--no-auto-check-trustdb|--with-wkd-hash|--no-verbose|--no-options|"
    "-v|-vv|-q|-a|-n|";

/* gpg's argument a (the word before it is prev) is a listing command. */
static bool gpg_listing_at(const char *a, const char *prev)
{
	size_t n = strcspn(a, "=");
	char name[32];
	bool listed;
	if (a[0] == '-' && a[1] != '-' && a[1])
		listed = strspn(a + 1, "kKvqa") == strlen(a + 1) &&
		         strpbrk(a + 1, "kK");
	else
		listed = lu_copy_fits(name, sizeof name, a, n) &&
		         long_listed(gpg_listings, name);
	bool value_before = prev[0] == '-' && !strchr(prev, '=') &&
	                    !long_listed(gpg_flags, prev) &&
	                    !long_listed(gpg_listings, prev);
	return listed && !value_before;
}

/* gpg decrypts or exports secret material: no listing command among its
   options (before `--`), or a decrypt or secret export at all. */
static bool gpg_not_listing(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	bool listing = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "-d") || !strncmp(a, "--decrypt", 9) ||
		    !strncmp(a, "--export-secret", 15))
			return true;
		listing |= gpg_listing_at(a, i > 1 ? c->argv[i - 1] : "");
	}
	return !listing;
}

/* make -p/--print-data-base prints every variable, and make imports the
   whole environment as variables (checked by a red team: `make -p -f
   /dev/null` printed GITHUB_TOKEN = ...).  GNU make's short options that
   take a value (the rest of the cluster or the next word) and those with
   an optional one (the rest of the cluster): a `p` after them is their
   value.  --print-data-base is taken from `--print-da` on (`--print-d`
   is also --print-directory). */
static const char make_values[] = "CfIoWE";
static const char make_optional[] = "jlO";

/* The word a (a make option, or a MAKEFLAGS word, whose single letters
   need no dash) asks for the database; *value: the next word is the
   value of its last letter. */
static bool make_p_word(const char *a, bool dashless, bool *value)
{
	*value = false;
	if (a[0] == '-' && a[1] == '-')
		return lk_long_abbrev(a, "print-data-base", 8);
	if (a[0] != '-' && !dashless)
		return false;
	for (const char *q = a + (a[0] == '-'); *q; q++) {
		if (*q == 'p')
			return true;
		if (*q == '=' || strchr(make_optional, *q))
			return false;
		if (strchr(make_values, *q)) {
			*value = !q[1];
			return false;
		}
	}
	return false;
}

/* make's assignment operators, longest first: a command-line word NAME
   OP VALUE (blanks allowed around NAME and OP) assigns a variable. */
static const char *const make_ops[] = {
    ":::=", "::=", ":=", "+=", "?=", "!=", "=", NULL};

/* The word w assigns MAKEFLAGS or GNUMAKEFLAGS (after blanks and an
   `override`/`export` keyword); *op and the value after it are set. */
static const char *makeflags_value(const char *w, const char **op)
{
	static const char *const names[] = {"MAKEFLAGS", "GNUMAKEFLAGS", NULL};
	static const char *const keywords[] = {"override", "export", NULL};
	for (bool again = true; again;) {
		w += strspn(w, " \t");
		again = false;
		for (const char *const *k = keywords; *k && !again; k++) {
			size_t kn = strlen(*k);
			again = !strncmp(w, *k, kn) &&
			        (w[kn] == ' ' || w[kn] == '\t');
			w += again ? kn : 0;
		}
	}
	for (const char *const *nm = names; *nm; nm++) {
		size_t n = strlen(*nm);
		if (strncmp(w, *nm, n))
			continue;
		const char *q = w + n + strspn(w + n, " \t");
		for (const char *const *o = make_ops; *o; o++)
			if (!strncmp(q, *o, strlen(*o))) {
				*op = *o;
				return q + strlen(*o);
			}
	}
	return NULL;
}

/* MAKEFLAGS or GNUMAKEFLAGS, assigned before make or on its line with any
   of make's operators, holds p (`MAKEFLAGS=p make`, `make MAKEFLAGS+=p`,
   `make 'MAKEFLAGS := -rp'`), or a value make computes: `!=` runs a
   shell command, and make expands a `$` reference when it reads the
   flags (`make X=p 'MAKEFLAGS=$(X)'`). */
static bool makeflags_p(const char *assign)
{
	const char *op = NULL, *v = makeflags_value(assign, &op);
	if (!v)
		return false;
	if (!strcmp(op, "!=") || strchr(v, '$'))
		return true;
	char word[64];
	for (size_t n; *v; v += n) {
		v += strspn(v, " \t");
		n = strcspn(v, " \t");
		bool value;
		if (n && (!lu_copy_fits(word, sizeof word, v, n) ||
		          make_p_word(word, true, &value)))
			return true;
	}
	return false;
}

static bool make_prints_database(const locus_shell_command *c,
                                 const ll_context *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < c->nassignments; i++)
		if (makeflags_p(c->assignments[i]))
			return true;
	/* after `--` no option is read, but NAME=VALUE still assigns (make
	   4.3: `make -- MAKEFLAGS+=p` printed the database) */
	bool options = true;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		bool value = false;
		if (!strcmp(a, "--"))
			options = false;
		if (makeflags_p(a) ||
		    (options && make_p_word(a, false, &value)))
			return true;
		i += value;
	}
	return false;
}

static const pk_rule secret_rules[] = {
    {"*", NULL, NULL, NULL, S,
     "secrets: a credential store or .env file is read or copied", names_secret,
     0},
    {"*", NULL, NULL, NULL, S,
     "secrets: a file named only at run time is read or copied (it may be a "
     "credential store)",
     computed_secret, 0},
    {"*", NULL, NULL, NULL, S,
     "secrets: a heredoc or herestring expands a token or password "
     "variable into the command's input",
     body_expands_secret, 0},
    {"*", NULL, NULL, NULL, S,
     "secrets: the program reads the environment (jq env/$ENV, awk "
     "ENVIRON) or files its program names (awk ARGV)",
     prints_environment, 0},
    {"*", NULL, NULL, NULL, S,
     "secrets: a token or password variable is given to a program that may "
     "print it",
     prints_secret_variable, 0},
    {"*", NULL, NULL, NULL, S,
     "secrets: git takes a token or password variable as config or as its "
     "identity (--config-env, GIT_AUTHOR_NAME) and may print it",
     git_prints_secret, 0},
    {"*", NULL, NULL, NULL, S,
     "secrets: jq's program is a file, stdin, a module or a word computed "
     "at run time (it may read the environment)",
     jq_program_unseen, 0},
    {"env", NULL, NULL, NULL, S,
     "secrets: env without a command prints the environment", env_dump, 0},
    {"make", NULL, NULL, NULL, S,
     "secrets: make -p prints its database: every variable, the whole "
     "environment among them",
     make_prints_database, 0},
    {"printenv", NULL, NULL, "--help --version", S,
     "secrets: printenv prints the environment", NULL, 0},
    {"export declare typeset readonly set local", NULL, NULL, NULL, S,
     "secrets: export -p/declare -p/set print every variable", declare_dump, 0},
    {"ps", NULL, NULL, NULL, S,
     "secrets: ps e prints the environment of processes", ps_environment, 0},
    {"security",
     "find-generic-password|find-internet-password|"
     "find-certificate|dump-keychain|export",
     NULL, NULL, S, "secrets: security prints keychain items", NULL, 0},
    {"pass gopass", NULL, NULL, "--help --version", S,
     "secrets: pass prints stored passwords", NULL, 0},
    {"op", "read|item|document|inject|run|signin|whoami", NULL, "--help -h", S,
     "secrets: op read/item get prints 1Password items", NULL, 0},
    {"bw lpass keepassxc-cli", "get|list|export|show|ls|export", NULL,
     "--help -h", S, "secrets: a password manager CLI prints secrets", NULL, 0},
    {"gpg gpg2", NULL, NULL, NULL, S,
     "secrets: gpg decrypts (its default action on a file or stdin, -d) or "
     "exports secret keys; only its listings and verifies read nothing "
     "secret",
     gpg_not_listing, 0},
    /* pip.conf's index-url and extra-index-url often hold a user and
       password (https://user:token@host/simple) */
    {"pip pip3", "config list|get|debug", NULL, "--help -h", S,
     "secrets: pip config list/get/debug prints pip.conf values (index URLs "
     "with credentials)",
     NULL, 0},
    /* the person's own keys, with no path on the line */
    {"gpg gpg2", NULL, NULL, "--help -h --version", O,
     "outside-workspace: gpg changes the person's key ring or trust "
     "database (~/.gnupg)",
     pk_gpg_writes_keyring, 0},
    {"ssh-keygen", NULL, NULL, NULL, O,
     "outside-workspace: ssh-keygen without -f writes the person's keys "
     "or known_hosts (~/.ssh), -A the host keys (/etc/ssh)",
     pk_ssh_keygen_writes_home, 0},
    {"sops", NULL, "-d --decrypt -e --exec-env --exec-file", NULL, S,
     "secrets: sops -d prints decrypted secrets", NULL, 0},
    {"doppler infisical", "secrets|export|run", NULL, "--help -h", S,
     "secrets: doppler/infisical print secrets", NULL, 0},
    {"vercel netlify", "env", NULL, "--help -h", S,
     "secrets: vercel/netlify env pulls or prints secrets", NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};

const pk_pack pk_secrets = {"secrets", NULL, secret_rules};

/* ---- persistence ------------------------------------------------------- */

/* Writes (or may write) a file that makes something run later: a
   redirect into one, or any program but a pure reader naming one. */
static bool writes_persistence(const locus_shell_command *c,
                               const ll_context *ctx)
{
	const lk_program *row = ctx->row;
	if (pk_writes_path(c, pk_persistence_path, pk_persistence_computed))
		return true;
	/* copies and extractions only (a test of the row for the rest) */
	if (pk_fills_folders(row) &&
	    (pk_copy_names_path(c, row, pk_persistence_path) ||
	     pk_fills_persistence_folder(c, row, NULL)))
		return true;
	return (c->nredirects || (row && (row->cls & LK_WRITES_ARGS))) &&
	       pk_writes_git_entry(c, row);
}

static bool writes_agent_config(const locus_shell_command *c,
                                const ll_context *ctx)
{
	return pk_writes_path(c, pk_agent_config_path,
	                      pk_agent_config_computed) ||
	       (pk_fills_folders(ctx->row) &&
	        pk_copy_names_path(c, ctx->row, pk_agent_config_path));
}

/* tar -xPf, cpio -i, unzip -: keep the archive's absolute member names:
   the archive may write a startup file or a hook anywhere. */
static bool extracts_anywhere(const locus_shell_command *c,
                              const ll_context *ctx)
{
	(void)ctx;
	return pk_word_in("tar gtar bsdtar busybox-tar cpio unzip", c->name) &&
	       lk_extracts_anywhere(lk_program_find(c->name), c->argv, c->argc);
}

/* crontab FILE, crontab -, crontab -e install or edit jobs; -l lists and
   -r removes (destructive, tables.c). */
static bool crontab_installs(const locus_shell_command *c,
                             const ll_context *ctx)
{
	(void)ctx;
	bool list_or_remove = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "-u") == 0) {
			i++; /* the user */
			continue;
		}
		if (!pk_is_option(a) || strchr(a, 'e'))
			return true; /* a file, `-`, or -e */
		if (strchr(a, 'l') || strchr(a, 'r'))
			list_or_remove = true;
	}
	return !list_or_remove;
}

/* clang-format off */
static const pk_rule persistence_rules[] = {
    {"*", NULL, NULL, NULL, P,
     "persistence: a shell startup file, scheduler, service unit, git "
     "hook, ssh or loader file is changed",
     writes_persistence, 0},
    {"*", NULL, NULL, NULL, LOCUS_TAG_AGENT_CONFIG,
     "agent-config: a coding agent's or locus's configuration is changed",
     writes_agent_config, 0},
    {"*", NULL, NULL, NULL, P,
     "persistence: an extraction that keeps the archive's absolute member "
     "names may write any file (startup files, hooks)",
     extracts_anywhere, 0},
    {"crontab", NULL, NULL, "--help -V", P,
     "persistence: crontab installs or edits scheduled jobs", crontab_installs,
     0},
    {"at batch", NULL, NULL, "-l -d -r -c -V --help", P,
     "persistence: at/batch schedules a command to run later", NULL, 0},
    {"systemd-run", NULL, "~--on- --timer-property", NULL, P,
     "persistence: systemd-run --on-calendar schedules a command", NULL, 0},
    {"go", "env", "-w -u --w --u ~-w= ~-u=", NULL, P,
     "persistence: go env -w/-u changes the user's Go environment file "
     "(GOFLAGS=-toolexec, CC, GOTOOLCHAIN run or fetch programs in every "
     "later go command)",
     NULL, 0},
    {"go", "telemetry on|local", NULL, NULL, P,
     "persistence: go telemetry on/local changes Go's telemetry mode for "
     "every later go command (on: it uploads reports)",
     NULL, 0},
    {"go", "telemetry *", "$", NULL, P,
     "persistence: go telemetry with a mode computed at run time may change "
     "Go's telemetry mode",
     NULL, 0},
    {"go", "clean", "-modcache", NULL,
     LOCUS_TAG_DESTRUCTIVE | LOCUS_TAG_OUTSIDE,
     "go clean -modcache deletes the module cache, outside the workspace "
     "(its modules are downloaded again)",
     NULL, 0},
    {"go", "clean", "-cache -fuzzcache -i", NULL, LOCUS_TAG_OUTSIDE,
     "go clean -cache/-fuzzcache/-i deletes Go's caches or installed binaries, outside "
     "the workspace",
     NULL, 0},
    /* tools that install what runs later outside any jail, as their
       manuals say: `direnv allow` makes the next `cd` into the folder
       run .envrc, `pre-commit install` writes .git/hooks/pre-commit,
       `husky` (and `husky init`/`install`) sets core.hooksPath */
    {"direnv", "allow|permit|grant|edit", NULL, "--help -h", P,
     "persistence: direnv allow makes every later shell that enters the "
     "folder run its .envrc",
     NULL, 0},
    {"pre-commit", "install|init-templatedir", NULL, "--help -h", P,
     "persistence: pre-commit install writes git hooks that run on later "
     "commits",
     NULL, 0},
    {"husky", NULL, NULL, "--help -h -v --version", P,
     "persistence: husky installs git hooks (core.hooksPath) that run on "
     "later commits",
     NULL, 0},
    {"loginctl", "enable-linger", NULL, NULL, P,
     "persistence: loginctl enable-linger keeps user services running", NULL,
     0},
    {"ssh-copy-id", NULL, NULL, "-h --help", P | LOCUS_TAG_NETWORK,
     "persistence: ssh-copy-id installs an authorized key", NULL, 0},
    {"visudo sudoedit", NULL, NULL, "-c --check -h --help -V", P | V,
     "privilege: sudoers is edited", NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};
/* clang-format on */

const pk_pack pk_persistence = {"persistence", NULL, persistence_rules};
