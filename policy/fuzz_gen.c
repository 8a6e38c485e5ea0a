/*
 * policy/fuzz_gen.c - metamorphic transformations of bash lines.
 *
 * Every transformation keeps what bash runs.  A line whose words are all
 * "plain" (letters, digits and _./:@%+,=-) joined by spaces and the
 * operators ; && || | & is tokenized and rewritten word by word (quote
 * splitting, backslashes, $'\x..', variables, continuations, absolute
 * paths, wrappers, busybox, redirections, git options and aliases, xargs,
 * find -exec, env -S); any line can then be wrapped whole (sh -c, bash
 * <<EOF, here-strings, pipes into sh, eval, $(...), backticks, comments,
 * git '!' aliases), several times.
 */
#include "fuzz_gen.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "locus/shell.h"
#include "../util/buf.h"
#include "../util/dir.h"

uint64_t gen_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

typedef struct rng {
	uint64_t s;
} rng;

static uint32_t rnd(rng *r, uint32_t n)
{
	r->s = gen_mix(r->s);
	return n ? (uint32_t)(r->s % n) : 0;
}

/* ---- strings: util's buffer (util/buf.h) ---- */

/* Double-quote a text: \ $ ` " escaped. */
static void buf_dquote(lu_buf *b, const char *s)
{
	lu_buf_puts(b, "\"");
	for (; *s; s++) {
		if (strchr("\\$`\"", *s))
			lu_buf_puts(b, "\\");
		lu_buf_add(b, s, 1);
	}
	lu_buf_puts(b, "\"");
}

/* ---- tokens of a simple line ---- */

enum { T_WORD, T_ASSIGN, T_OP, T_REDIR, T_RAW };

typedef struct tok {
	char *val; /* the value bash sees (for T_WORD) or the text */
	int kind;
	int cmdpos;  /* first word of a command */
	int encoded; /* val already rendered with quoting */
} tok;

#define MAX_TOKS 96

typedef struct line {
	tok t[MAX_TOKS];
	size_t n;
	lu_buf prefix; /* variable assignments put before the line */
	int nvars;
	int touched; /* some token was encoded (env -S cannot take it) */
	int exact;   /* the base line names a program whose long options take
	                no abbreviation (exact_flags, read before any step
	                encodes the name) */
} line;

/* clang-format off */
static const char *const reserved[] = {
	"if", "then", "else", "elif", "fi", "do", "done", "case", "esac",
	"while", "until", "for", "in", "function", "select", "time", "coproc",
	"!", "{", "}", "[[", "]]", NULL,
};
/* clang-format on */

static int is_op(const char *s)
{
	return !strcmp(s, ";") || !strcmp(s, "&&") || !strcmp(s, "||") ||
	       !strcmp(s, "|") || !strcmp(s, "&");
}

static int is_assign(const char *s)
{
	const char *eq = strchr(s, '=');
	if (!eq || eq == s)
		return 0;
	for (const char *p = s; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      *p == '_' || (p > s && *p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

static void line_free(line *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->t[i].val);
	lu_buf_free(&l->prefix);
}

/* Split a simple line; 0 when it is not one. */
static int tokenize(const char *s, line *l)
{
	memset(l, 0, sizeof *l);
	int want_cmd = 1;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		const char *e = strchr(s, ' ');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (l->n == MAX_TOKS)
			goto bad;
		char *v = strndup(s, n);
		if (!v)
			goto bad;
		tok *t = &l->t[l->n++];
		t->val = v;
		if (is_op(v)) {
			t->kind = T_OP;
			want_cmd = 1;
		} else if (!lu_sh_plain(v)) {
			goto bad;
		} else {
			for (size_t k = 0; reserved[k]; k++)
				if (!strcmp(v, reserved[k]))
					goto bad;
			if (want_cmd && is_assign(v)) {
				t->kind = T_ASSIGN;
			} else {
				t->kind = T_WORD;
				t->cmdpos = want_cmd;
				want_cmd = 0;
			}
		}
		s += n;
	}
	/* a line must start and end with a command */
	if (l->n == 0 || l->t[0].kind == T_OP ||
	    (l->t[l->n - 1].kind == T_OP && strcmp(l->t[l->n - 1].val, "&")))
		goto bad;
	return 1;
bad:
	line_free(l);
	memset(l, 0, sizeof *l);
	return 0;
}

static int insert_tok(line *l, size_t at, const char *val, int kind, int cmdpos)
{
	if (l->n == MAX_TOKS)
		return 0;
	char *v = strdup(val);
	if (!v)
		return 0;
	memmove(&l->t[at + 1], &l->t[at], (l->n - at) * sizeof l->t[0]);
	l->n++;
	l->t[at] = (tok){v, kind, cmdpos, 0};
	return 1;
}

static void set_val(tok *t, char *v)
{
	if (!v)
		return;
	free(t->val);
	t->val = v;
}

static size_t count_ops(const line *l)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->t[i].kind == T_OP;
	return n;
}

static int pick_tok(line *l, rng *r, int kind, int cmdpos_only, int unencoded,
                    size_t *out)
{
	size_t cand[MAX_TOKS], nc = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->t[i].kind != kind)
			continue;
		if (cmdpos_only && !l->t[i].cmdpos)
			continue;
		if (unencoded && l->t[i].encoded)
			continue;
		cand[nc++] = i;
	}
	if (!nc)
		return 0;
	*out = cand[rnd(r, (uint32_t)nc)];
	return 1;
}

static void trace_add(char *trace, size_t cap, const char *what)
{
	size_t n = strlen(trace);
	if (n + strlen(what) + 2 < cap) {
		if (n)
			strcat(trace, ",");
		strcat(trace, what);
	}
}

/* Encode one word value as bash text: split it into pieces, each quoted
 * its own way. */
static char *encode_word(line *l, rng *r, const char *v, int allow_dynamic)
{
	lu_buf b = {0};
	size_t len = strlen(v);
	size_t pos = 0;
	while (pos < len) {
		size_t left = len - pos;
		size_t n = left == 1 ? 1 : 1 + rnd(r, (uint32_t)left);
		char piece[256];
		if (n >= sizeof piece)
			n = sizeof piece - 1;
		memcpy(piece, v + pos, n);
		piece[n] = '\0';
		if (pos > 0 && rnd(r, 8) == 0)
			lu_buf_puts(
			    &b, "\\\n"); /* line continuation inside a word */
		uint32_t how = rnd(r, allow_dynamic ? 12 : 9);
		switch (how) {
		case 0: lu_buf_puts(&b, piece); break;
		case 1: lu_buf_printf(&b, "'%s'", piece); break;
		case 2: lu_buf_printf(&b, "\"%s\"", piece); break;
		case 3:
			for (size_t k = 0; k < n; k++) {
				lu_buf_puts(&b, "\\");
				lu_buf_add(&b, &piece[k], 1);
			}
			break;
		case 4:
			lu_buf_puts(&b, "$'");
			for (size_t k = 0; k < n; k++)
				lu_buf_printf(&b, "\\x%02x",
				              (unsigned char)piece[k]);
			lu_buf_puts(&b, "'");
			break;
		case 5:
			lu_buf_puts(&b, "$'");
			for (size_t k = 0; k < n; k++)
				lu_buf_printf(&b, "\\%03o",
				              (unsigned char)piece[k]);
			lu_buf_puts(&b, "'");
			break;
		case 6: lu_buf_printf(&b, "$\"%s\"", piece); break;
		case 7:
		case 8: {
			/* same-line variable indirection */
			int id = l->nvars++;
			lu_buf_printf(&l->prefix, "_v%d='%s'; ", id, piece);
			lu_buf_printf(&b, how == 7 ? "${_v%d}" : "\"${_v%d}\"",
			              id);
			break;
		}
		case 9: lu_buf_printf(&b, "$(printf %%s %s)", piece); break;
		case 10: lu_buf_printf(&b, "`echo %s`", piece); break;
		default: lu_buf_printf(&b, "\"$(echo %s)\"", piece); break;
		}
		pos += n;
	}
	return lu_buf_take(&b);
}

/* clang-format off */
static const char *const wrappers[] = {
	"sudo", "sudo -u root", "sudo -E --", "sudo -n -H", "doas",
	"env", "env -i", "env -u HOME", "env FOO=1", "env --", "nice",
	"nice -n 10", "nice -10", "nohup", "timeout 10", "timeout -s KILL 5",
	"timeout --preserve-status 5", "timeout -k 1 9", "command",
	"command -p", "time", "time -p", "stdbuf -o0", "stdbuf -oL -eL",
	"ionice -c3", "ionice -c 2 -n 7", "setsid", "setsid -f",
	"flock /tmp/locus.lock", "flock -w 3 /tmp/locus.lock", "chronic",
	"unbuffer", "taskset -c 0", "taskset 1", "nice -n 5 nohup",
	"sudo env", "exec", NULL,
};
/* clang-format on */

/* clang-format off */
static const char *const busybox_applets[] = {
	"rm", "rmdir", "dd", "wget", "reboot", "poweroff", "halt", "sh",
	"mkfs.ext2", "shred", "truncate", "unlink", "nc", "ssh", NULL,
};
/* clang-format on */

/* clang-format off */
static const char *const redirs[] = {
	"2>/dev/null", "</dev/null", ">/dev/null", "2>&1", "3</dev/null",
	">>/tmp/locus.log", "2>>/dev/null", "1>&2", NULL,
};
/* clang-format on */

/* clang-format off */
static const char *const git_globals[] = {
	"-C .", "--no-pager", "-c color.ui=never", "-c core.quotepath=off",
	"--git-dir=.git", "--work-tree=.", "-P", "--literal-pathspecs",
	"--no-replace-objects", "-c user.name=x", "--no-optional-locks", NULL,
};
/* clang-format on */

/* A `git` token that is the program run: in command position or right
   after a bare wrapper (not the value of `sudo -u git`). */
static int is_git_cmd(const line *l, size_t k)
{
	static const char *const bare[] = {
	    "sudo", "env",    "nohup",   "command",  "--",   "time", "exec",
	    "doas", "setsid", "chronic", "unbuffer", "nice", NULL};
	if (l->t[k].kind != T_WORD || l->t[k].encoded ||
	    strcmp(l->t[k].val, "git"))
		return 0;
	if (l->t[k].cmdpos)
		return 1;
	if (k == 0 || l->t[k - 1].kind != T_WORD)
		return 0;
	for (size_t i = 0; bare[i]; i++)
		if (!strcmp(l->t[k - 1].val, bare[i]))
			return 1;
	return 0;
}

static size_t table_len(const char *const *t)
{
	size_t n = 0;
	while (t[n])
		n++;
	return n;
}

/* Insert a space-separated text as plain tokens before `at`. */
static int insert_words(line *l, size_t at, const char *text, int first_cmd)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", text);
	int first = 1;
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		if (!insert_tok(l, at++, w, T_WORD, first && first_cmd))
			return 0;
		first = 0;
	}
	return 1;
}

/* A word of the line names a program whose options take no
   abbreviation, so cutting a name there is no spelling of the same line:
   Go's flag package and spf13/pflag (`go tool pprof --h=:8080` is no
   -http: pprof prints its usage), node (checked: `node --insp=...` is
   refused), php (php-src's getopt compares whole names), bun and deno
   (their parsers match long names whole), valgrind (checked: `valgrind
   --log-s=...` is an unknown option), svn (APR's apr_getopt_long
   matches a long name whole: `strncmp(p, name, strlen(name))` followed by
   the end or `=`). */
static int exact_flags(const line *l)
{
	/* clang-format off */
	static const char *const progs[] = {
	    "go",   "gofmt", "kubectl", "docker", "helm", "terraform",
	    "gh",   "node",  "php",     "bun",    "deno", "valgrind",
	    "svn",  NULL};
	/* clang-format on */
	for (size_t i = 0; i < l->n; i++)
		for (size_t k = 0; progs[k]; k++)
			if (l->t[i].val && !strcmp(l->t[i].val, progs[k]))
				return 1;
	return 0;
}

/* --name[=v] cut to a prefix of the name, as getopt_long and
   git's parse-options accept (an ambiguous one makes the program fail,
   so the line runs nothing more dangerous). */
static const char *abbreviate(line *l, rng *r)
{
	size_t i;
	if (l->exact || !pick_tok(l, r, T_WORD, 0, 1, &i))
		return NULL;
	const char *v = l->t[i].val;
	if (strncmp(v, "--", 2) != 0)
		return NULL;
	size_t name = strcspn(v + 2, "=");
	if (name < 3)
		return NULL;
	size_t keep = 1 + rnd(r, (uint32_t)(name - 1)); /* 1..name-1 */
	char buf[300];
	snprintf(buf, sizeof buf, "--%.*s%s", (int)keep, v + 2, v + 2 + name);
	set_val(&l->t[i], strdup(buf));
	return "abbreviate";
}

/* -abc split into -a -bc, for clusters of flag letters only
   (a letter taking an attached value would change meaning). */
static const char *split_cluster(line *l, rng *r)
{
	size_t i;
	if (!pick_tok(l, r, T_WORD, 0, 1, &i))
		return NULL;
	const char *v = l->t[i].val;
	size_t n = strlen(v);
	if (v[0] != '-' || v[1] == '-' || n < 3 || n > 5 ||
	    strspn(v + 1, "rfRdvxqF") != n - 1)
		return NULL;
	size_t at = 2 + rnd(r, (uint32_t)(n - 2)); /* split before v[at] */
	char a[8], b[8];
	snprintf(a, sizeof a, "%.*s", (int)at, v);
	snprintf(b, sizeof b, "-%s", v + at);
	set_val(&l->t[i], strdup(a));
	return insert_tok(l, i + 1, b, T_WORD, 0) ? "split-cluster" : NULL;
}

/* An option's value moved into the option's own word, as the program
   reads it the same: `-x VALUE` to `-xVALUE`, `--opt VALUE` to
   `--opt=VALUE`, Go's `-opt VALUE` to `-opt=VALUE`.  Only options known
   to take one value word (a few take a command: fd's -x reads on, the
   line is then unparsed, which the invariant accepts). */
static const struct {
	const char *prog, *opt;
	char style; /* 's' short, 'l' long, 'g' Go's flag package */
	            /* clang-format off */
} attachable[] = {
    {"fd", "-x", 's'},         {"fd", "-X", 's'},
                    /* clang-format on */
    {"fd", "--exec", 'l'},
    {"fd", "--exec-batch", 'l'},
    {"rsync", "-e", 's'},
    {"rsync", "--rsh", 'l'},
    {"tar", "-I", 's'},
    {"tar", "--use-compress-program", 'l'},
    {"tar", "--to-command", 'l'},
    {"sort", "--compress-program", 'l'},
    {"ssh", "-o", 's'},
    {"scp", "-S", 's'},
    {"man", "-P", 's'},
    {"man", "--pager", 'l'},
    {"split", "--filter", 'l'},
    {"install", "--strip-program", 'l'},
    {"go", "-exec", 'g'},
    {"go", "-toolexec", 'g'},
    {"env", "-S", 's'},
    {"env", "-u", 's'},
    {"sudo", "-u", 's'},
    {"nice", "-n", 's'},
    {"xargs", "-I", 's'},
    {"timeout", "-s", 's'},
};

static const char *attach_value(line *l, rng *r)
{
	size_t cand[MAX_TOKS], nc = 0;
	const char *prog = NULL;
	for (size_t k = 0; k + 1 < l->n; k++) {
		tok *t = &l->t[k], *v = &l->t[k + 1];
		if (t->cmdpos)
			prog = t->val;
		if (t->kind != T_WORD || t->encoded || v->kind != T_WORD ||
		    v->encoded || v->cmdpos || v->val[0] == '-' || !prog)
			continue;
		for (size_t a = 0; a < sizeof attachable / sizeof *attachable;
		     a++)
			if (!strcmp(prog, attachable[a].prog) &&
			    !strcmp(t->val, attachable[a].opt))
				cand[nc++] = k * 64 + a;
	}
	if (!nc)
		return NULL;
	size_t pick = cand[rnd(r, (uint32_t)nc)], k = pick / 64;
	char buf[300];
	snprintf(buf, sizeof buf, "%s%s%s", l->t[k].val,
	         attachable[pick % 64].style == 's' ? "" : "=",
	         l->t[k + 1].val);
	set_val(&l->t[k], strdup(buf));
	free(l->t[k + 1].val);
	memmove(&l->t[k + 1], &l->t[k + 2], (l->n - k - 2) * sizeof l->t[0]);
	l->n--;
	return "attach-value";
}

/* Blanks ssh skips before an -o KEY=VALUE. */
static const char *ssh_blank(line *l, rng *r)
{
	for (size_t k = 1; k < l->n; k++) {
		tok *t = &l->t[k];
		if (t->kind != T_WORD || t->encoded || strchr(t->val, '\'') ||
		    strcmp(l->t[k - 1].val, "-o") || !strchr(t->val, '='))
			continue;
		char buf[300];
		snprintf(buf, sizeof buf, "'%s%s'", rnd(r, 2) ? " " : "\t",
		         t->val);
		set_val(t, strdup(buf));
		t->encoded = 1;
		return "ssh-blank";
	}
	return NULL;
}

/* Options and variables that change how the line is read
   (set -k, CDPATH); the analysis must fail closed on them. */
static const char *reading_option(line *l, rng *r)
{
	/* clang-format off */
	static const char *const pre[] = {
	    "set -k; ",          "set -ek; ",   "set -o keyword; ",
	    "shopt -so keyword; ", "CDPATH=. ; ", "export CDPATH=.:/tmp; ",
	    "shopt -s cdable_vars; ",
	};
	/* clang-format on */
	const char *p = pre[rnd(r, (uint32_t)(sizeof pre / sizeof *pre))];
	lu_buf_puts(&l->prefix, p);
	return strstr(p, "CDPATH") || strstr(p, "cdable") ? "cdpath" : "set-k";
}

/* A relative path word (`.env`, `.git/hooks/pre-commit`) whose first
   bytes are computed at run time: `"$(printf %s .e)"nv`.  The labels
   match the word as a glob (`*nv`), so its tags stay. */
static const char *computed_path(line *l, rng *r)
{
	size_t cand[MAX_TOKS], nc = 0;
	for (size_t i = 0; i < l->n; i++) {
		const tok *t = &l->t[i];
		size_t n = strlen(t->val);
		if (t->kind != T_WORD || t->cmdpos || t->encoded || n < 3 ||
		    n > 200 || (t->val[0] != '.' && !strchr(t->val, '/')) ||
		    t->val[0] == '/' || t->val[0] == '-' ||
		    strspn(t->val,
		           "abcdefghijklmnopqrstuvwxyz"
		           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") != n)
			continue;
		cand[nc++] = i;
	}
	if (!nc)
		return NULL;
	tok *t = &l->t[cand[rnd(r, (uint32_t)nc)]];
	size_t k = 1 + rnd(r, 2);
	char buf[300];
	snprintf(buf, sizeof buf, "\"$(printf %%s %.*s)\"%s", (int)k, t->val,
	         t->val + k);
	set_val(t, strdup(buf));
	t->encoded = 1;
	l->touched = 1;
	return "computed-path";
}

/* A path-like operand written as `{,WORD}`: bash's brace expansion drops
   the empty word, so the command gets WORD (stop 45: a redirect's
   target was not expanded). */
static const char *brace_empty(line *l, rng *r)
{
	size_t cand[MAX_TOKS], nc = 0;
	for (size_t i = 0; i < l->n; i++) {
		const tok *t = &l->t[i];
		size_t n = strlen(t->val);
		if (t->kind != T_WORD || t->cmdpos || t->encoded || !n ||
		    n > 200 || t->val[0] == '-' ||
		    strspn(t->val,
		           "abcdefghijklmnopqrstuvwxyz"
		           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/~-") != n)
			continue;
		cand[nc++] = i;
	}
	if (!nc)
		return NULL;
	tok *t = &l->t[cand[rnd(r, (uint32_t)nc)]];
	char buf[300];
	snprintf(buf, sizeof buf, "{,%s}", t->val);
	set_val(t, strdup(buf));
	t->encoded = 1;
	l->touched = 1;
	return "brace-empty";
}

/* One word-level step; returns its name or NULL when it did not apply. */
static const char *word_step(line *l, rng *r)
{
	size_t i;
	switch (rnd(r, 14)) {
	case 0:
	case 1: /* quote splitting and friends, on any word */
		if (!pick_tok(l, r, T_WORD, rnd(r, 2), 1, &i))
			return NULL;
		set_val(&l->t[i],
		        encode_word(l, r, l->t[i].val, rnd(r, 5) == 0));
		l->t[i].encoded = 1;
		l->touched = 1;
		return "encode";
	case 2: /* absolute path */
		if (!pick_tok(l, r, T_WORD, 1, 1, &i) ||
		    strchr(l->t[i].val, '/'))
			return NULL;
		{
			static const char *const dirs[] = {
			    "/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/"};
			char buf[300];
			snprintf(buf, sizeof buf, "%s%s", dirs[rnd(r, 4)],
			         l->t[i].val);
			set_val(&l->t[i], strdup(buf));
		}
		return "abspath";
	case 3: { /* wrapper with options */
		if (!pick_tok(l, r, T_WORD, 1, 1, &i))
			return NULL;
		const char *w = wrappers[rnd(r, (uint32_t)table_len(wrappers))];
		/* exec ends the shell: only before the last command */
		if (!strcmp(w, "exec") && count_ops(l))
			return NULL;
		l->t[i].cmdpos = 0;
		if (!insert_words(l, i, w, 1))
			return NULL;
		return "wrapper";
	}
	case 4: /* busybox APPLET */
		if (!pick_tok(l, r, T_WORD, 1, 1, &i))
			return NULL;
		for (size_t k = 0; busybox_applets[k]; k++)
			if (!strcmp(l->t[i].val, busybox_applets[k])) {
				l->t[i].cmdpos = 0;
				return insert_words(l, i, "busybox", 1)
				           ? "busybox"
				           : NULL;
			}
		return NULL;
	case 5: { /* redirection spliced between words */
		if (l->n < 2)
			return NULL;
		size_t at = 1 + rnd(r, (uint32_t)(l->n - 1));
		/* not in front of an operator's right side's assignment */
		if (l->t[at - 1].kind == T_OP)
			return NULL;
		const char *rd = redirs[rnd(r, (uint32_t)table_len(redirs))];
		return insert_tok(l, at, rd, T_REDIR, 0) ? "redirect" : NULL;
	}
	case 6: { /* git global options */
		for (size_t k = 0; k < l->n; k++) {
			if (!is_git_cmd(l, k))
				continue;
			const char *g = git_globals[rnd(
			    r, (uint32_t)table_len(git_globals))];
			return insert_words(l, k + 1, g, 0) ? "git-global"
			                                    : NULL;
		}
		return NULL;
	}
	case 7: { /* git alias for the subcommand */
		for (size_t k = 0; k + 1 < l->n; k++) {
			if (!is_git_cmd(l, k))
				continue;
			tok *sub = &l->t[k + 1];
			if (sub->kind != T_WORD || sub->encoded ||
			    sub->val[0] == '-')
				return NULL;
			char buf[300];
			int id = (int)rnd(r, 100);
			snprintf(buf, sizeof buf, "alias.q%d=%s", id, sub->val);
			char name[16];
			snprintf(name, sizeof name, "q%d", id);
			set_val(sub, strdup(name));
			if (!insert_tok(l, k + 1, buf, T_WORD, 0) ||
			    !insert_tok(l, k + 1, "-c", T_WORD, 0))
				return NULL;
			return "git-alias";
		}
		return NULL;
	}
	case 8: { /* line continuation between words */
		if (l->n < 2)
			return NULL;
		size_t at = 1 + rnd(r, (uint32_t)(l->n - 1));
		return insert_tok(l, at, "\\\n", T_RAW, 0) ? "continuation"
		                                           : NULL;
	}
	case 9:
		return rnd(r, 2)   ? NULL
		       : rnd(r, 2) ? computed_path(l, r)
		                   : brace_empty(l, r);
	case 10: return abbreviate(l, r);
	case 11: {
		uint32_t w = rnd(r, 3);
		return w == 0   ? split_cluster(l, r)
		       : w == 1 ? ssh_blank(l, r)
		                : attach_value(l, r);
	}
	case 12:
	case 13: return rnd(r, 3) ? NULL : reading_option(l, r);
	default: /* comment at the end */ return NULL;
	}
}

static char *render(const line *l, size_t from, size_t to)
{
	lu_buf b = {0};
	for (size_t i = from; i < to; i++) {
		if (i > from && l->t[i].kind != T_RAW &&
		    l->t[i - 1].kind != T_RAW)
			lu_buf_puts(&b, " ");
		else if (l->t[i].kind == T_RAW)
			lu_buf_puts(&b, " ");
		lu_buf_puts(&b, l->t[i].val);
	}
	return lu_buf_take(&b);
}

/* Whole-command wraps that need one simple command (no operators). */
static char *single_wrap(line *l, rng *r, const char **name)
{
	if (count_ops(l) || l->t[0].kind != T_WORD)
		return NULL;
	char *inner = render(l, 0, l->n);
	if (!inner)
		return NULL;
	lu_buf b = {0};
	switch (rnd(r, 4)) {
	case 0: {
		static const char *const xa[] = {
		    "xargs",      "xargs -0",
		    "xargs -P2",  "xargs --max-procs=1",
		    "xargs -n 1", "xargs -t"};
		lu_buf_printf(&b, ": | %s %s", xa[rnd(r, 6)], inner);
		*name = "xargs";
		break;
	}
	case 1:
		lu_buf_printf(&b, "find . -maxdepth 0 %s %s \\;",
		              rnd(r, 2) ? "-exec" : "-execdir", inner);
		*name = "find-exec";
		break;
	case 2:
		if (l->touched || strchr(inner, '\n') || strchr(inner, '>') ||
		    strchr(inner, '<')) {
			free(inner);
			lu_buf_free(&b);
			return NULL;
		}
		lu_buf_puts(&b, rnd(r, 2) ? "env -S '" : "env -S'");
		lu_buf_puts(&b, inner);
		lu_buf_puts(&b, "'");
		*name = "env-S";
		break;
	default:
		lu_buf_printf(&b, "eval %s", inner);
		*name = "eval-words";
		break;
	}
	free(inner);
	return lu_buf_take(&b);
}

/* Wraps of any line. */
static char *line_wrap(const char *in, rng *r, int depth, const char **name)
{
	lu_buf b = {0};
	/* clang-format off */
	static const char *const shells[] = {
		"sh -c", "bash -c", "dash -c", "bash -e -c", "sh -ec",
		"bash --norc -c", "bash -lc", "sh -xc", "bash -o pipefail -c",
		"busybox sh -c",
	};
	/* clang-format on */
	switch (rnd(r, 14)) {
	case 12:
		/* awk runs sh -c for system(): a literal is seen through */
		if (strchr(in, '\n')) {
			lu_buf_free(&b);
			return NULL;
		}
		{
			lu_buf prog = {0};
			lu_buf_puts(&prog, "BEGIN{system(\"");
			for (const char *c = in; *c; c++) {
				if (*c == '\\' || *c == '"')
					lu_buf_add(&prog, "\\", 1);
				lu_buf_add(&prog, c, 1);
			}
			lu_buf_puts(&prog, "\")}");
			if (prog.oom) {
				lu_buf_free(&prog);
				lu_buf_free(&b);
				return NULL;
			}
			static const char *const awks[] = {
			    "awk", "mawk", "gawk", "busybox awk"};
			lu_buf_printf(&b, "%s ", awks[rnd(r, 4)]);
			lu_buf_shquote(&b, prog.d);
			lu_buf_free(&prog);
		}
		*name = "awk-system";
		break;
	case 13: {
		/* variables known to be inert change nothing */
		static const char *const inert[] = {
		    "export LANG=C; ", "export LC_ALL=C.UTF-8; ",
		    "export NO_COLOR=1 CI=1; ", "TZ=UTC; export TZ; "};
		lu_buf_puts(&b, inert[rnd(r, 4)]);
		lu_buf_puts(&b, in);
		*name = "inert-env";
		break;
	}
	case 0:
	case 1:
		lu_buf_printf(&b, "%s ", shells[rnd(r, 10)]);
		lu_buf_shquote(&b, in);
		*name = "sh-c";
		break;
	case 2: {
		/* a heredoc fed to a shell; the delimiter is unique per depth */
		static const char *const sh[] = {"bash", "sh", "bash -s",
		                                 "dash"};
		int quoted = rnd(r, 2) || strpbrk(in, "$`\\");
		lu_buf_printf(&b, "%s <<%sLOCUS_EOF_%d%s\n%s\nLOCUS_EOF_%d",
		              sh[rnd(r, 4)], quoted ? "'" : "", depth,
		              quoted ? "'" : "", in, depth);
		*name = "heredoc";
		break;
	}
	case 3:
		lu_buf_puts(&b, rnd(r, 2) ? "bash <<< " : "sh <<<");
		lu_buf_shquote(&b, in);
		*name = "herestring";
		break;
	case 4: {
		/* a shell, or a wrapper that runs one when given no command,
		   reading the line from a pipe */
		/* clang-format off */
		static const char *const to[] = {
		    " | sh",      " | bash -s",    " | sudo -s",
		    " | script -q /dev/null",      " | fakeroot",
		    " | unshare -r",               " | sg adm",
		    " | doas -s"};
		/* clang-format on */
		lu_buf_puts(&b, rnd(r, 2) ? "echo " : "printf '%s\\n' ");
		lu_buf_shquote(&b, in);
		lu_buf_puts(&b, to[rnd(r, 8)]);
		*name = "pipe-sh";
		break;
	}
	case 5:
		lu_buf_puts(&b, "eval ");
		if (rnd(r, 2))
			lu_buf_shquote(&b, in);
		else
			buf_dquote(&b, in);
		*name = "eval";
		break;
	case 6: {
		static const char *const fmt[] = {
		    "echo $(%s)", ": $(%s)", "x=$(%s)", ": \"$(%s)\"",
		    "echo \"$( %s )\" >/dev/null"};
		const char *f = fmt[rnd(r, 5)];
		const char *pct = strstr(f, "%s");
		lu_buf_add(&b, f, (size_t)(pct - f));
		lu_buf_puts(&b, in);
		lu_buf_puts(&b, pct + 2);
		*name = "subst";
		break;
	}
	case 7:
		if (strpbrk(in, "`\\$")) {
			lu_buf_free(&b);
			return NULL;
		}
		lu_buf_puts(&b, rnd(r, 2) ? ": `" : "echo `");
		lu_buf_puts(&b, in);
		lu_buf_puts(&b, "`");
		*name = "backticks";
		break;
	case 8:
		if (strstr(in, "<<")) {
			lu_buf_free(&b);
			return NULL; /* a comment after a heredoc word is body */
		}
		lu_buf_puts(&b, in);
		lu_buf_puts(&b,
		            rnd(r, 2) ? " # done" : " #rm -rf / is a comment");
		*name = "comment";
		break;
	case 9:
		lu_buf_puts(&b, rnd(r, 2) ? "# a comment\n" : ": note; # x\n");
		lu_buf_puts(&b, in);
		*name = "comment-before";
		break;
	case 10: {
		char alias[32];
		snprintf(alias, sizeof alias, "zz%d", depth);
		lu_buf_printf(&b, "git -c alias.%s=", alias);
		lu_buf v = {0};
		lu_buf_puts(&v, "!");
		lu_buf_puts(&v, in);
		if (v.oom) {
			lu_buf_free(&b);
			return NULL;
		}
		lu_buf_shquote(&b, v.d);
		lu_buf_free(&v);
		lu_buf_printf(&b, " %s", alias);
		*name = "git-!alias";
		break;
	}
	default:
		lu_buf_puts(&b, "find . -maxdepth 0 -exec sh -c ");
		lu_buf_shquote(&b, in);
		lu_buf_puts(&b, " \\;");
		*name = "find-sh-c";
		break;
	}
	return lu_buf_take(&b);
}

char *gen_transform(const char *base, uint64_t seed, char *trace,
                    size_t tracecap)
{
	rng r = {gen_mix(seed)};
	trace[0] = '\0';
	char *cur = NULL;
	line l;
	int simple = tokenize(base, &l);
	l.exact = simple && exact_flags(&l);
	/* a tokenized line owns its tokens even when the dice skip the word
	   steps: free them on both paths */
	if (simple && !rnd(&r, 5)) {
		line_free(&l);
		simple = 0;
	}
	if (simple) {
		unsigned steps = 1 + rnd(&r, 5);
		for (unsigned s = 0; s < steps; s++) {
			const char *n = word_step(&l, &r);
			if (n)
				trace_add(trace, tracecap, n);
		}
		const char *wn = NULL;
		if (rnd(&r, 4) == 0)
			cur = single_wrap(&l, &r, &wn);
		if (cur)
			trace_add(trace, tracecap, wn);
		else
			cur = render(&l, 0, l.n);
		if (cur && l.prefix.len) {
			lu_buf b = {0};
			lu_buf_puts(&b, l.prefix.d);
			lu_buf_puts(&b, cur);
			free(cur);
			cur = lu_buf_take(&b);
		}
		line_free(&l);
	} else {
		cur = strdup(base);
	}
	unsigned wraps = rnd(&r, 3) + (trace[0] == '\0');
	for (unsigned d = 0; cur && d < wraps; d++) {
		const char *wn = NULL;
		char *next = line_wrap(cur, &r, (int)d, &wn);
		if (!next)
			continue;
		free(cur);
		cur = next;
		trace_add(trace, tracecap, wn);
	}
	return cur;
}

/* ---- corpus ---- */

static int add_line(gen_corpus *c, locus_shell_parser *p, const char *text,
                    int need_tags)
{
	locus_action *a = NULL;
	if (locus_action_classify(&a, p, text, strlen(text), NULL) != 0)
		return 0;
	uint32_t tags = locus_action_exec_tags(a);
	const locus_shell_result *res = locus_action_shell(a);
	int parsed = res && locus_shell_result_parsed(res);
	int bomb = res && locus_shell_result_has_fork_bomb(res);
	locus_action_free(a);
	if (need_tags && (!parsed || !(tags & GEN_DANGER_TAGS)))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		gen_line *nl = realloc(c->lines, cap * sizeof *nl);
		if (!nl)
			return -1;
		c->lines = nl;
		c->cap = cap;
	}
	char *t = strdup(text);
	if (!t)
		return -1;
	c->lines[c->n++] = (gen_line){t, tags, bomb};
	return 0;
}

static int load_file(gen_corpus *c, locus_shell_parser *p, const char *path,
                     int need_tags)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *buf = NULL, *pending = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&buf, &cap, f)) >= 0) {
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			buf[--n] = '\0';
		if (!strncmp(buf, "> ", 2) || !strcmp(buf, ">")) {
			/* multi-line case: drop it (the oracle reads lines) */
			free(pending);
			pending = NULL;
			continue;
		}
		if (pending) {
			add_line(c, p, pending, need_tags);
			free(pending);
			pending = NULL;
		}
		if (!strncmp(buf, "$ ", 2) && buf[2])
			pending = strdup(buf + 2);
	}
	if (pending)
		add_line(c, p, pending, need_tags);
	free(pending);
	free(buf);
	fclose(f);
	return 0;
}

static int load_path(gen_corpus *c, locus_shell_parser *p, const char *path,
                     int need_tags, int depth)
{
	struct stat st;
	if (stat(path, &st) != 0 || depth > 8)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		size_t n = strlen(path);
		if (n < 4 || strcmp(path + n - 4, ".txt"))
			return 0;
		return load_file(c, p, path, need_tags);
	}
	char **names;
	size_t nn;
	if (lu_dir_paths(path, &names, &nn))
		return -1;
	int rc = 0;
	for (size_t i = 0; i < nn; i++) {
		const char *base = names[i] + strlen(path) + 1;
		/* hidden files, and policy cases (they are not shell lines) */
		if (base[0] == '.' || !strcmp(base, "policy"))
			continue;
		if (load_path(c, p, names[i], need_tags, depth + 1) != 0)
			rc = -1;
	}
	lu_dir_free(names, nn);
	return rc;
}

int gen_corpus_load(gen_corpus *c, locus_shell_parser *p,
                    const char *const *paths, size_t npaths, int need_tags)
{
	for (size_t i = 0; i < npaths; i++)
		if (load_path(c, p, paths[i], need_tags, 0) != 0)
			return -1;
	return 0;
}

void gen_corpus_free(gen_corpus *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->lines[i].text);
	free(c->lines);
	memset(c, 0, sizeof *c);
}
