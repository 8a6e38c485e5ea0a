/*
 * labels/words.c - the word helpers the labeller's files share: tokens
 * of a space-separated list, options and their values, a word computed at
 * run time as a glob, the words a command writes, programs whose operands
 * are data or that only read, and a path in its lexical normal form.
 * Below the pack matcher (pack.c), the packs (packs_*.c) and the
 * judgements (tables.c, paths.c, label.c): it calls none of them.
 */
#include <string.h>

#include "../knowledge/git.h"
#include "../knowledge/programs.h"
#include "../knowledge/sed.h"
#include "../parser/linefacts.h"
#include "pack.h"

/* ---- tokens of a space-separated list ---------------------------------- */

bool pk_word_in(const char *list, const char *w)
{
	const char *p = list ? list : "";
	/* tokens are never empty and hold no blank, and a word the list
	   does not hold as text is none of its tokens: one (vectorised)
	   strstr rejects most words without a scan token by token.  (A
	   scan from each occurrence of the first byte with strchr ran 2 %
	   faster natively on a CPU whose glibc strstr is the generic one,
	   for 2.5M more instructions on the project's batch: stop 43 kept
	   the instruction target.) */
	if (!*w || !strstr(p, w) || strchr(w, ' '))
		return false;
	const char *t;
	size_t n;
	while ((t = pk_next_tok(&p, &n)))
		if (pk_tok_eq(t, n, w, false))
			return true;
	return false;
}

bool pk_is_option(const char *a)
{
	return a[0] == '-' && a[1] != '\0';
}

bool pk_any_arg_contains(const locus_shell_command *c, const char *needle)
{
	for (size_t i = 1; i < c->argc; i++)
		if (strstr(c->argv[i], needle))
			return true;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (r->op && r->target && strncmp(r->op, "<<", 2) == 0 &&
		    strstr(r->target, needle))
			return true;
	}
	return false;
}

/* The end of the expansion that starts at s[0] == '$' or '`' (one past
   it). */
static const char *expansion_end(const char *s)
{
	if (s[0] == '`') {
		const char *e = strchr(s + 1, '`');
		return e ? e + 1 : s + strlen(s);
	}
	if (s[1] == '(' || s[1] == '{') {
		char open = s[1], close = open == '(' ? ')' : '}';
		int depth = 0;
		for (const char *p = s + 1; *p; p++) {
			if (*p == open)
				depth++;
			else if (*p == close && --depth == 0)
				return p + 1;
		}
		return s + strlen(s);
	}
	const char *p = s + 1;
	if (strchr("0123456789@*#?$!-", *p))
		return *p ? p + 1 : p;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
	       (*p >= '0' && *p <= '9') || *p == '_')
		p++;
	return p;
}

/* w with each expansion replaced by `*` and quotes dropped, into buf;
   *whole when nothing but `*` is left.  NULL when it does not fit. */
/* `$(echo WORDS)` of plain words (no expansion, quote, escape, glob or
   operator): its output, else NULL (*n its length). */
static const char *echo_output(const char *p, const char *end, size_t *n)
{
	if (strncmp(p, "$(echo ", 7) != 0 || end[-1] != ')')
		return NULL;
	const char *s = p + 7, *e = end - 1;
	while (s < e && *s == ' ')
		s++;
	while (e > s && e[-1] == ' ')
		e--;
	for (const char *q = s; q < e; q++)
		if (strchr("$`\\'\"*?[{;|&<>()-", *q) && !(*q == '-' && q > s))
			return NULL;
	*n = (size_t)(e - s);
	return s;
}

const char *pk_glob_form(const char *w, char *buf, size_t cap, bool *whole)
{
	size_t k = 0;
	*whole = true;
	for (const char *p = w; *p;) {
		if (k + 2 >= cap)
			return NULL;
		if ((p[0] == '$' && p[1] && p[1] != '\'') || p[0] == '`') {
			const char *end = expansion_end(p);
			size_t n = 0;
			const char *out = echo_output(p, end, &n);
			if (out && k + n + 2 < cap) {
				memcpy(buf + k, out, n);
				k += n;
				*whole = *whole && n == 0;
			} else if (!k || buf[k - 1] != '*') {
				buf[k++] = '*';
			}
			p = end;
			continue;
		}
		if (*p != '"' && *p != '\'') {
			buf[k++] = *p;
			*whole = false;
		}
		p++;
	}
	buf[k] = '\0';
	return buf;
}

/* w, or when it is computed at run time its glob form (pk_glob_form),
   names a path of is_path. */
static bool names_path(const char *w, uint32_t flags,
                       bool (*is_path)(const char *),
                       bool (*computed)(const char *))
{
	if (is_path(w))
		return true;
	if (!computed || !(flags & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST)))
		return false;
	char buf[1024];
	bool whole;
	const char *g = pk_glob_form(w, buf, sizeof buf, &whole);
	return g && !whole && computed(g);
}

/* A tail of option word a (pk_next_attached) names a path of is_path:
   `sort -uo.claude/settings.json` writes .claude/settings.json. */
static bool attached_names_path(const char *a, bool (*is_path)(const char *))
{
	for (const char *q = pk_next_attached(a, NULL); q;
	     q = pk_next_attached(a, q))
		if (is_path(q))
			return true;
	return false;
}

bool pk_writes_path(const locus_shell_command *c, bool (*is_path)(const char *),
                    bool (*computed)(const char *))
{
	for (size_t i = 0; i < c->nredirects; i++)
		if (lk_redirect_writes(&c->redirects[i]) &&
		    c->redirects[i].target &&
		    names_path(c->redirects[i].target,
		               c->redirects[i].target_flags, is_path, computed))
			return true;
	/* a computed operand is matched by its glob form only where it is
	   a path the program writes (cp/mv/install/ln, tee): another
	   program's computed word is a script, a pattern or a field list
	   (`sed "s/.$d//"` is `s/.*` as a glob) */
	/* (the program is looked up at the first computed word only: most
	   commands have none) */
	int copies = computed && c->argc ? -1 : 0; /* -1: not looked up */
	/* a pure reader is asked about only when a word names such a file
	   (the common line names none: the program lookup is skipped) */
	for (size_t i = 1; i < c->argc; i++) {
		uint32_t f = c->argv_flags ? c->argv_flags[i] : 0;
		if (copies < 0 && (f & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST)))
			copies = (lk_classes(c->name) &
			          (LK_COPIES | LK_WRITES_ARGS)) != 0;
		if ((names_path(c->argv[i], f, is_path,
		                copies > 0 ? computed : NULL) ||
		     attached_names_path(c->argv[i], is_path)) &&
		    pk_arg_written(c, i))
			return true;
	}
	return false;
}

bool pk_arg_written(const locus_shell_command *c, size_t i)
{
	const lk_program *p = lk_program_find(c->name);
	if (pk_reader_program(c->name))
		return lk_writes_operand(p, c->argv, i);
	/* tar --exclude=.git: a pattern, not a file written; cp's sources
	   are read (`cp .git/config git-config.bak`) */
	return !lk_pattern_operand(p, (const char *const *)c->argv, i) &&
	       lk_copy_writes(p, (const char *const *)c->argv, c->argc, i);
}

const char *pk_option_value(const locus_shell_command *c, size_t *i,
                            const char *shrt, const char *lng)
{
	const char *a = c->argv[*i];
	size_t ln = strlen(lng);
	if (strcmp(a, shrt) == 0 || strcmp(a, lng) == 0)
		return *i + 1 < c->argc ? c->argv[++*i] : NULL;
	if (strncmp(a, lng, ln) == 0 && a[ln] == '=')
		return a + ln + 1;
	if (strncmp(a, shrt, 2) == 0 && a[2])
		return a + 2;
	return NULL;
}

/* ---- data operands ------------------------------------------------------ */

static const char *const data_programs =
    "echo printf true false : logger basename dirname which type";
static const char *const pattern_programs =
    "grep egrep fgrep rg ag ack sed awk gawk mawk nawk jq yq perl";

bool pk_data_program(const char *name)
{
	return pk_word_in(data_programs, name);
}

/* An awk's option word a (its row's interpreter grammar): 1 when the next
   word is its value (-i FILE, -l LIB, --include FILE), -1 when the
   program comes from a file (-f, -E: no operand is the program), 0
   otherwise. */
static int awk_option(const lk_interp *g, const char *a)
{
	if (!g)
		return 0;
	if (a[1] == '-') {
		size_t n = strcspn(a + 2, "=");
		return !a[2 + n] && lk_bar_has(g->val_long, a + 2, n) ? 1 : 0;
	}
	for (const char *p = a + 1; *p; p++) {
		if (g->file && strchr(g->file, *p))
			return -1;
		if (g->val && strchr(g->val, *p))
			return p[1] ? 0 : 1;
	}
	return 0;
}

size_t pk_pattern_operand(const locus_shell_command *c)
{
	if (!pk_word_in(pattern_programs, c->name))
		return 0;
	const lk_program *row =
	    lk_is(c->name, LK_AWK) ? lk_program_find(c->name) : NULL;
	const lk_interp *g = row ? row->interp : NULL;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			return i + 1 < c->argc ? i + 1 : 0;
		if (!pk_is_option(a))
			return i;
		/* an awk's -i FILE, -l LIB: the value is no program (a path
		   judged as one); -f, -E FILE: no operand is */
		int k = awk_option(g, a);
		if (k < 0)
			return 0;
		i += (size_t)k;
		/* -e PATTERN / -f FILE: no operand is the pattern */
		if (strcmp(a, "-e") == 0 || strcmp(a, "-f") == 0 ||
		    strncmp(a, "--regexp", 8) == 0 ||
		    strncmp(a, "--file", 6) == 0 ||
		    strncmp(a, "--expression", 12) == 0)
			return 0;
	}
	return 0;
}

static const char *const readers =
    "cat head tail less more bat batcat grep egrep fgrep rg ag ack ls "
    "stat wc diff cmp file md5sum sha1sum sha256sum sha512sum du tree "
    "readlink realpath source . nl strings od hexdump xxd jq yq test [ [[ "
    "type which basename dirname find fd locate";

bool pk_reader_program(const char *name)
{
	return pk_word_in(readers, name);
}

/* ---- paths ------------------------------------------------------------- */

/*
 * A path as the kernel resolves it, lexically: repeated
 * slashes and `.` segments dropped, `..` applied, and the /proc/PID/root
 * prefix (the root seen through a process: /proc/self/root/dev/sda is
 * /dev/sda) removed, into buf.  NULL when it does not fit.
 */
const char *ll_normal_path(const char *p, char *buf, size_t cap)
{
	size_t k = 0;
	bool abs = p[0] == '/';
	if (abs)
		buf[k++] = '/';
	while (*p) {
		while (*p == '/')
			p++;
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.' && k > 1) {
			k--;
			while (k > 1 && buf[k - 1] != '/')
				k--;
		} else if (n == 2 && p[0] == '.' && p[1] == '.' && abs) {
			/* /.. is / */
		} else {
			if (k + n + 2 >= cap)
				return NULL;
			if (k > 0 && buf[k - 1] != '/')
				buf[k++] = '/';
			memcpy(buf + k, p, n);
			k += n;
		}
		p += n;
	}
	buf[k] = '\0';
	/* /proc/<pid>/root/...: the same path from the root */
	if (!strncmp(buf, "/proc/", 6)) {
		const char *r = strchr(buf + 6, '/');
		if (r && !strncmp(r, "/root", 5) && (r[5] == '/' || !r[5])) {
			memmove(buf, r + 5, strlen(r + 5) + 1);
			if (!buf[0])
				strcpy(buf, "/");
		}
	}
	return buf;
}

/* ---- sed scripts ------------------------------------------------------- */

typedef struct sed_files {
	const lk_sed_visitor *v;
	void *arg;
	bool ok;
} sed_files;

static void sed_files_of(void *arg, size_t i, char kind, const char *text)
{
	sed_files *f = arg;
	(void)i;
	if (kind == 'e')
		f->ok &= !text || lk_sed_walk(text, f->v, f->arg);
}

bool pk_sed_files(const locus_shell_command *c,
                  void (*cb)(void *arg, char cmd, const char *name, size_t n),
                  void *arg)
{
	const lk_program *p = c->argc ? lk_program_find(c->name) : NULL;
	if (!p || strcmp(p->name, "sed") != 0)
		return false;
	const lk_sed_visitor v = {NULL, NULL, cb};
	sed_files f = {&v, arg, true};
	const lk_sed_args a = {lk_argv_word, c->argv,      1,
	                       c->argc,      sed_files_of, &f};
	lk_sed_scripts(&a);
	return f.ok;
}
