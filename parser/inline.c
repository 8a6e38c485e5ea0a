/*
 * parser/inline.c - interpreters given code inline (python -c, perl -e,
 * node -e, awk PROGRAM, a heredoc fed to python...).
 *
 * The code is never read-only (LOCUS_CMD_INLINE_CODE).  Inside it we look
 * for what we can see without running it: literal shell-outs
 * (os.system("..."), system("..."), backticks, execSync("...")), which are
 * parsed as shell with origin inline-code, and calls that delete files
 * (LOCUS_CMD_INLINE_DELETES).  The patterns live in one static table,
 * compiled once per parser; a match that hits a PCRE2 limit fails closed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "seethrough.h"
#include "../util/array.h"
#include "../util/regex.h"

/* Languages of the program table's interpreters (knowledge/programs.h). */
enum {
	L_PY = LK_LANG_PY,
	L_PERL = LK_LANG_PERL,
	L_RUBY = LK_LANG_RUBY,
	L_JS = LK_LANG_JS,
	L_PHP = LK_LANG_PHP,
	L_AWK = LK_LANG_AWK,
	L_LUA = LK_LANG_LUA,
	L_OSA = LK_LANG_OSA,
};

enum pat_kind {
	P_SHELL,      /* group 1: a string literal's body, run by a shell */
	P_CALL,       /* group 1: a call's argument list */
	P_CALL_SKIP1, /* the same, its first argument is not a command */
	P_CODE, /* group 1: a string literal of code in the same language */
	P_DELETE,
};

/* A string literal: group 1 is its body (branch reset over quotes). */
#define STR "(?|\"((?:[^\"\\\\]|\\\\.)*)\"|'((?:[^'\\\\]|\\\\.)*)')"
/* A call's arguments, one level of nested parentheses. */
#define ARGS "\\(((?:[^()]|\\((?:[^()]|\\([^()]*\\))*\\))*)\\)"

static const struct pattern {
	unsigned langs;
	enum pat_kind kind;
	const char *re;
	/* clang-format off */
} patterns[] = {
	/* shell-outs */
    /* clang-format on */
    {L_PY, P_CALL, "\\bos\\s*\\.\\s*(?:system|popen)\\s*" ARGS},
    {L_PY, P_CALL,
     "\\b(?:subprocess\\s*\\.\\s*)?(?:getoutput|getstatusoutput|"
     "check_output|check_call|Popen)\\s*" ARGS},
    {L_PY, P_CALL, "\\bsubprocess\\s*\\.\\s*(?:run|call)\\s*" ARGS},
    {L_PY, P_CALL, "(?<![.\\w])(?:run|call|system|popen)\\s*" ARGS},
    {L_PY, P_CALL, "\\bpty\\s*\\.\\s*spawn\\s*" ARGS},
    {L_PERL | L_RUBY | L_PHP, P_CALL,
     "(?<![.\\w$])(?:system|exec|passthru|shell_exec|popen|proc_open|"
     "pcntl_exec|spawn)\\s*" ARGS},
    {L_PERL | L_RUBY, P_CALL,
     "(?<![.\\w$])(?:system|exec)\\s+((?:" STR "\\s*,?\\s*)+)"},
    {L_RUBY, P_CALL,
     "\\b(?:IO\\s*\\.\\s*popen|Open3\\s*\\.\\s*(?:capture2e?|capture3|"
     "popen2e?|popen3|pipeline\\w*))\\s*" ARGS},
    {L_PERL | L_RUBY | L_PHP, P_SHELL, "`([^`]*)`"},
    {L_PERL, P_SHELL,
     "\\bqx\\s*(?|\\{([^}]*)\\}|\\(([^)]*)\\)|/([^/]*)/|!([^!]*)!|"
     "\\[([^\\]]*)\\]|'([^']*)')"},
    {L_RUBY, P_SHELL,
     "%x\\s*(?|\\{([^}]*)\\}|\\(([^)]*)\\)|\\[([^\\]]*)\\]|"
     "!([^!]*)!)"},
    {L_JS, P_CALL,
     "\\b(?:execSync|exec|execFileSync|execFile|spawnSync|spawn)\\s*" ARGS},
    {L_LUA, P_CALL, "\\b(?:os\\s*\\.\\s*execute|io\\s*\\.\\s*popen)\\s*" ARGS},
    {L_OSA, P_SHELL, "\\bdo\\s+shell\\s+script\\s+" STR},
    /* the same calls on any receiver: __import__("os").system(...),
	   importlib.import_module("os").popen(...), s.call(...) */
    {L_PY, P_CALL,
     "\\.\\s*(?:system|popen|call|run|check_call|check_output|Popen|"
     "getoutput|getstatusoutput)\\s*" ARGS},
    /* os.execvp("rm", [...]), os.execl(path, arg0, ...) */
    {L_PY, P_CALL, "\\b(?:os\\s*\\.\\s*)?exec[lv]p?e?\\s*" ARGS},
    /* os.spawnlp(mode, file, ...): the mode comes first */
    {L_PY, P_CALL_SKIP1, "\\bspawn[lv]p?e?\\s*" ARGS},
    /* code strings run by the interpreter itself: scanned again */
    {L_PY, P_CODE, "(?<![.\\w])(?:exec|eval|compile)\\s*\\(\\s*" STR},
    {L_PERL | L_RUBY | L_JS | L_PHP, P_CODE,
     "(?<![.\\w$])eval\\s*\\(?\\s*" STR},
    /* perl open with a pipe: open(F, "|cmd"), open(F, "cmd|"),
	   open F, "-|", "cmd" */
    {L_PERL, P_SHELL,
     "\\bopen\\s*\\(?\\s*[^,;]+,\\s*(?|\"\\s*\\|\\s*([^\"]+)\"|"
     "'\\s*\\|\\s*([^']+)'|\"\\s*([^\"\\s|-][^\"]*?)\\s*\\|\\s*\"|"
     "'\\s*([^'\\s|-][^']*?)\\s*\\|\\s*')"},
    {L_PERL, P_SHELL,
     "\\bopen\\s*\\(?\\s*[^,;]+,\\s*[\"'](?:-\\||\\|-)[\"']\\s*,\\s*" STR},
    /* Ruby: Kernel.spawn / Process.spawn / Kernel.system */
    {L_RUBY, P_CALL,
     "\\b(?:Kernel|Process)\\s*\\.\\s*(?:system|exec|spawn)\\s*" ARGS},
    /* Deno's subprocess API */
    {L_JS, P_CALL, "\\bDeno\\s*\\.\\s*(?:run|Command)\\s*" ARGS},

    /* file-deleting calls, however the module is reached */
    {L_PY, P_DELETE,
     "\\brmtree\\b|\\bos\\s*\\.\\s*(?:remove|unlink|rmdir|removedirs)\\b|"
     "\\.\\s*(?:unlink|rmdir)\\s*\\(|"
     "__import__\\s*\\(\\s*['\"](?:os|shutil)['\"]\\s*\\)\\s*\\.\\s*"
     "(?:remove|unlink|rmdir|removedirs|rmtree)\\b|"
     "\\bfrom\\s+os\\s+import\\b[^\\n;]*\\b(?:remove|unlink|rmdir|"
     "removedirs)\\b|\\bsend2trash\\b"},
    {L_JS, P_DELETE,
     "\\b(?:rmSync|unlinkSync|rmdirSync)\\b|"
     "\\.\\s*(?:rm|unlink|rmdir)\\s*\\(|"
     "\\{[^}]*\\b(?:rm|unlink|rmdir)\\b[^}]*\\}\\s*=\\s*require\\s*\\(|"
     "\\bimport\\s*\\{[^}]*\\b(?:rm|unlink|rmdir)\\b[^}]*\\}\\s*from\\b|"
     "\\b(?:fs|fsp|fsPromises)\\s*\\.\\s*(?:promises\\s*\\.\\s*)?"
     "(?:rm|unlink|rmdir)\\b|"
     "\\bDeno\\s*\\.\\s*remove(?:Sync)?\\b"},
    {L_RUBY, P_DELETE,
     "\\bFileUtils\\s*(?:\\.|::)\\s*(?:rm_rf|rm_r|rm_f|rm|remove_dir|"
     "remove_entry(?:_secure)?|remove_file|remove|rmdir|rmtree)\\b|"
     "\\b(?:File|Dir)\\s*(?:\\.|::)\\s*(?:delete|unlink|rmdir)\\b|"
     "(?<![.\\w])(?:rm_rf|rm_r|rm_f|rmtree)\\b"},
    {L_PERL, P_DELETE, "\\b(?:unlink|rmtree|remove_tree|rmdir)\\b"},
    {L_PHP, P_DELETE, "\\b(?:unlink|rmdir)\\b"},
    {L_LUA, P_DELETE, "\\bos\\s*\\.\\s*remove\\b"},
};

#define NPATTERNS (sizeof patterns / sizeof *patterns)

struct lp_inline_table {
	bool compiled; /* patterns are compiled on first use */
	bool failed;   /* compiling failed: every scan fails closed */
	pcre2_code *code[NPATTERNS];
	pcre2_match_context *mctx;
};

/*
 * The table is compiled lazily, the first time inline code is scanned: most
 * lines run no interpreter, and compiling (with JIT) every pattern up front
 * was the largest cost of a one-line `locus classify` process (the hook
 * path).  A parser is used by one thread at a time (shell.h), so filling it
 * in on first use needs no lock.
 */
lp_inline_table *lp_inline_table_new(void)
{
	return calloc(1, sizeof(lp_inline_table));
}

static bool table_ready(lp_inline_table *t)
{
	if (t->compiled)
		return !t->failed;
	t->compiled = true;
	for (size_t i = 0; i < NPATTERNS; i++) {
		/* compiled once per parser: worth the JIT */
		t->code[i] = lu_re_compile(patterns[i].re, 0, true, NULL);
		if (!t->code[i]) {
			t->failed = true;
			return false;
		}
	}
	static const lu_re_limits limits = {1000000, 2000, 16384};
	t->mctx = lu_re_context(&limits);
	if (!t->mctx) {
		t->failed = true;
		return false;
	}
	return true;
}

void lp_inline_table_free(lp_inline_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < NPATTERNS; i++)
		pcre2_code_free(t->code[i]);
	pcre2_match_context_free(t->mctx);
	free(t);
}

/* ---- call arguments -------------------------------------------------- */

/* Decode a string literal's body: the common escapes; others are kept. */
static void put_unescaped(lp_arena *a, lp_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\' && i + 1 < n) {
			char d = s[++i];
			switch (d) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '\\':
			case '"':
			case '\'':
			case '`': c = d; break;
			default: lp_buf_putc(a, b, '\\'); c = d;
			}
		}
		lp_buf_putc(a, b, c);
	}
}

/* A dynamic piece of a string expression: an unset variable, so the walk
   sees a dynamic word. */
#define DYN "${LOCUS_INLINE_DYNAMIC}"

typedef struct arg {
	const char *text; /* shell text: literals with DYN for the rest */
	bool literal;     /* only string literals */
	bool any_literal;
	bool list;     /* a [...] list */
	bool kwarg;    /* name=value or an {options} object */
	const char *s; /* source span */
	size_t n;
} arg;

/* Split s[0..n) at top-level commas. */
static size_t split_args(const char *s, size_t n, arg *out, size_t cap)
{
	size_t na = 0, start = 0;
	int depth = 0;
	char q = 0;
	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? s[i] : ',';
		if (q) {
			if (c == '\\')
				i++;
			else if (c == q)
				q = 0;
			continue;
		}
		if (c == '"' || c == '\'' || c == '`')
			q = c;
		else if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}')
			depth--;
		else if (c == ',' && depth <= 0) {
			size_t a = start, e = i;
			while (a < e && isspace((unsigned char)s[a]))
				a++;
			while (e > a && isspace((unsigned char)s[e - 1]))
				e--;
			if (e > a && na < cap) {
				memset(&out[na], 0, sizeof out[na]);
				out[na].s = s + a;
				out[na].n = e - a;
				na++;
			}
			start = i + 1;
		}
	}
	return na;
}

/* Build an argument's shell text: literals decoded, anything else DYN. */
static void arg_text(lp_arena *a, arg *g)
{
	lp_buf b = {0};
	const char *s = g->s;
	size_t n = g->n, i = 0;
	bool dyn_chunk = false;
	g->literal = true;
	if (n && s[0] == '[') {
		g->list = true;
		g->literal = false;
		return;
	}
	if (n && s[0] == '{') {
		g->kwarg = true;
		return;
	}
	size_t id = 0;
	while (id < n && (isalnum((unsigned char)s[id]) || s[id] == '_'))
		id++;
	if (id && id < n && s[id] == '=' && (id + 1 >= n || s[id + 1] != '=')) {
		g->kwarg = true;
		return;
	}
	while (i < n) {
		char c = s[i];
		size_t pre = 0;
		while (i + pre < n && pre < 2 && strchr("rbuRBUfF", s[i + pre]))
			pre++;
		if (i + pre < n && (s[i + pre] == '"' || s[i + pre] == '\'') &&
		    (pre == 0 || i == 0 || !isalnum((unsigned char)s[i - 1]))) {
			if (memchr(s + i, 'f', pre) || memchr(s + i, 'F', pre))
				g->literal =
				    false; /* an f-string interpolates */
			i += pre;
			char q = s[i++];
			size_t st = i;
			while (i < n && s[i] != q) {
				if (s[i] == '\\')
					i++;
				i++;
			}
			put_unescaped(a, &b, s + st, (i < n ? i : n) - st);
			g->any_literal = true;
			i++;
			dyn_chunk = false;
			continue;
		}
		if (isspace((unsigned char)c) || c == '+' || c == '.' ||
		    c == '~') {
			i++;
			continue;
		}
		/* something computed */
		g->literal = false;
		if (!dyn_chunk)
			lp_buf_append(a, &b, DYN, strlen(DYN));
		dyn_chunk = true;
		while (i < n && !isspace((unsigned char)s[i]) && s[i] != '+' &&
		       s[i] != '"' && s[i] != '\'')
			i++;
	}
	g->text = lp_buf_cstr(a, &b);
}

#define MAX_ARGS 64

/* Shell text of an argv list: literals quoted, the rest DYN. */
static void put_argv(lp_arena *a, lp_buf *b, arg *args, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (args[i].kwarg)
			continue;
		if (b->len)
			lp_buf_putc(a, b, ' ');
		if (!args[i].literal) {
			lp_buf_append(a, b, "\"" DYN "\"", strlen(DYN) + 2);
			continue;
		}
		lp_buf_putc(a, b, '\'');
		for (const char *p = args[i].text; *p; p++) {
			if (*p == '\'')
				lp_buf_append(a, b, "'\\''", 4);
			else
				lp_buf_putc(a, b, *p);
		}
		lp_buf_putc(a, b, '\'');
	}
}

/* The shell text a call runs, or NULL when nothing about it is known. */
static const char *call_text(lp_arena *a, const char *s, size_t n)
{
	arg args[MAX_ARGS];
	size_t na = split_args(s, n, args, MAX_ARGS), np = 0;
	arg *pos[MAX_ARGS];
	for (size_t i = 0; i < na; i++) {
		arg_text(a, &args[i]);
		if (!args[i].kwarg)
			pos[np++] = &args[i];
	}
	if (!np)
		return NULL;
	lp_buf b = {0};
	if (pos[0]->list || (np > 1 && pos[1]->list)) {
		/* ["rm", "-rf", x] or ("rm", ["-rf", x]) */
		if (!pos[0]->list) {
			put_argv(a, &b, pos[0], 1);
			pos[0] = pos[1];
		}
		arg items[MAX_ARGS];
		size_t ni =
		    split_args(pos[0]->s + 1, pos[0]->n - 2, items, MAX_ARGS);
		for (size_t i = 0; i < ni; i++)
			arg_text(a, &items[i]);
		put_argv(a, &b, items, ni);
		return lp_buf_cstr(a, &b);
	}
	if (!pos[0]->any_literal)
		return NULL; /* computed at run time: a known limit */
	if (np == 1)
		return pos[0]->text;
	/* system("rm", "-rf", "x"): a list of words */
	arg flat[MAX_ARGS];
	for (size_t i = 0; i < np; i++)
		flat[i] = *pos[i];
	put_argv(a, &b, flat, np);
	return lp_buf_cstr(a, &b);
}

/* ---- scanning -------------------------------------------------------- */

/*
 * Each call is parsed once.  Two patterns can match one call
 * (`os.system(...)` is also a `.system(...)` on any receiver), and the
 * code string of `exec("...")` is scanned again although the outer scan
 * has already seen the calls written in it verbatim.  A call is keyed on
 * its span in the interpreter's code and the shell text built from it:
 * the same span giving the same text is the same nested parse, so
 * skipping it loses nothing, and a span giving another text is parsed.
 * A code string whose escapes changed its text is a frame of its own (its
 * offsets are not the outer code's).
 */
typedef struct seen_call {
	const char *text; /* NULL: an empty slot */
	size_t start, end;
	unsigned frame;
} seen_call;

typedef struct inline_scan {
	lp_ctx *ctx;
	lp_inline_table *t;
	unsigned lang;
	size_t idx;      /* the interpreter's command */
	seen_call *seen; /* open addressing; cap is a power of two */
	size_t nseen, cap;
	unsigned frames; /* frames handed out */
} inline_scan;

static size_t seen_slot(const seen_call *v, size_t cap, const seen_call *k)
{
	size_t h = k->start * (size_t)0x9E3779B97F4A7C15ull;
	h ^= (k->end * 31u) ^ k->frame;
	h ^= h >> 17;
	for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1)) {
		const seen_call *s = &v[i];
		if (!s->text ||
		    (s->start == k->start && s->end == k->end &&
		     s->frame == k->frame && !strcmp(s->text, k->text)))
			return i;
	}
}

/* True when call k was parsed already; else it is recorded.  (When the
   arena is out of memory nothing is recorded: the call is parsed, never
   skipped, and the result fails anyway.) */
static bool seen_before(inline_scan *s, const seen_call *k)
{
	if (s->cap && s->seen[seen_slot(s->seen, s->cap, k)].text)
		return true;
	if ((s->nseen + 1) * 2 > s->cap) {
		size_t cap = lu_grow_capacity(s->cap, (s->nseen + 1) * 2, 16,
		                              sizeof *s->seen);
		seen_call *v =
		    cap ? lp_arena_alloc(s->ctx->arena, cap * sizeof *v) : NULL;
		if (!v)
			return false;
		for (size_t i = 0; i < s->cap; i++)
			if (s->seen[i].text)
				v[seen_slot(v, cap, &s->seen[i])] = s->seen[i];
		s->seen = v;
		s->cap = cap;
	}
	s->seen[seen_slot(s->seen, s->cap, k)] = *k;
	s->nseen++;
	return false;
}

static void scan_code(inline_scan *s, const char *code, size_t base,
                      unsigned frame, unsigned depth);

/* exec("..."): the string is code of the same language; its escapes are
   decoded and it is scanned again, one level deeper. */
static void scan_code_string(inline_scan *s, const char *code, size_t gs,
                             size_t ge, size_t base, unsigned frame,
                             unsigned depth)
{
	lp_ctx *ctx = s->ctx;
	if (depth + 1 > lp_max_depth(ctx)) {
		lp_unparsed(ctx, "inline code nested deeper than %u levels",
		            lp_max_depth(ctx));
		return;
	}
	lp_buf b = {0};
	put_unescaped(ctx->arena, &b, code + gs, ge - gs);
	const char *inner = lp_buf_cstr(ctx->arena, &b);
	if (!inner)
		return; /* out of memory: the result fails */
	/* verbatim: the same bytes at the same offsets as in the outer code */
	bool same = b.len == ge - gs && !memcmp(inner, code + gs, b.len);
	scan_code(s, inner, same ? base + gs : 0, same ? frame : ++s->frames,
	          depth + 1);
}

/* The shell text a match of pattern p runs (group 1 at code[*gs..ge);
   *gs moves past a skipped first argument), or NULL. */
static const char *match_text(lp_ctx *ctx, const struct pattern *p,
                              const char *code, size_t *gs, size_t ge)
{
	if (p->kind == P_CALL_SKIP1) {
		arg first[2];
		if (split_args(code + *gs, ge - *gs, first, 2) < 2)
			return NULL;
		*gs = (size_t)(first[1].s - code);
	}
	if (p->kind == P_SHELL) {
		lp_buf b = {0};
		put_unescaped(ctx->arena, &b, code + *gs, ge - *gs);
		return lp_buf_cstr(ctx->arena, &b);
	}
	return call_text(ctx->arena, code + *gs, ge - *gs);
}

/* `sh -c 'TEXT'`: what awk's system(), pipes and getline run; when the
   code writes its stdin (`print | "cmd"`), fed by output the line does not
   show (a shell there runs it: unparsed, as `printf ... | sh`). */
static const char *sh_c(lp_arena *a, const char *text, bool fed)
{
	static const char feed[] = "printf %s \"" DYN "\" | ";
	lp_buf b = {0};
	if (fed)
		lp_buf_append(a, &b, feed, sizeof feed - 1);
	lp_buf_append(a, &b, "sh -c '", 7);
	for (const char *p = text; *p; p++) {
		if (*p == '\'')
			lp_buf_append(a, &b, "'\\''", 4);
		else
			lp_buf_putc(a, &b, *p);
	}
	lp_buf_putc(a, &b, '\'');
	return lp_buf_cstr(a, &b);
}

/* One match of pattern p, group 1 at code[gs..ge). */
static void on_match(inline_scan *s, const struct pattern *p, const char *code,
                     size_t gs, size_t ge, size_t base, unsigned frame,
                     unsigned depth)
{
	lp_ctx *ctx = s->ctx;
	if (p->kind == P_CODE) {
		scan_code_string(s, code, gs, ge, base, frame, depth);
		return;
	}
	const char *text = match_text(ctx, p, code, &gs, ge);
	if (!text || !*text)
		return;
	/* past the depth limit the nested parse only marks the line
	   unparsed: not recorded, so a shallower copy is still parsed */
	seen_call k = {text, base + gs, base + ge, frame};
	if (depth <= lp_max_depth(ctx) && seen_before(s, &k))
		return;
	lp_parse_nested(ctx, text, strlen(text), LOCUS_ORIGIN_INLINE_CODE,
	                s->idx, depth);
}

/* Every match of pattern p in code[0..len).  False after a PCRE2 error
   (the line is then unparsed). */
static bool scan_pattern(inline_scan *s, size_t p, const char *code, size_t len,
                         pcre2_match_data *md, size_t base, unsigned frame,
                         unsigned depth)
{
	PCRE2_SIZE off = 0;
	while (off <= len) {
		int rc;
		lu_re_result m = lu_re_match(s->t->code[p], code, len, off, md,
		                             s->t->mctx, &rc);
		if (m == LU_RE_NOMATCH)
			return true;
		if (m == LU_RE_ERROR) {
			lp_unparsed(s->ctx,
			            "inline code too complex to scan "
			            "(PCRE2 error %d)",
			            rc);
			return false;
		}
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		size_t ms = ov[0], me = ov[1];
		size_t gs = rc > 1 ? ov[2] : 0, ge = rc > 1 ? ov[3] : 0;
		off = me > ms ? me : ms + 1;
		if (patterns[p].kind == P_DELETE) {
			s->ctx->result->commands[s->idx].flags |=
			    LOCUS_CMD_INLINE_DELETES;
			return true;
		}
		if (gs == PCRE2_UNSET || ge < gs)
			continue;
		/* the offsets were copied out of md: nesting is safe */
		on_match(s, &patterns[p], code, gs, ge, base, frame, depth);
	}
	return true;
}

static void scan_code(inline_scan *s, const char *code, size_t base,
                      unsigned frame, unsigned depth)
{
	size_t len = strlen(code);
	/* one match data per level: a nested scan must not overwrite it */
	pcre2_match_data *md = pcre2_match_data_create(8, NULL);
	if (!md) {
		lp_unparsed(s->ctx, "out of memory scanning inline code");
		return;
	}
	for (size_t p = 0; p < NPATTERNS; p++) {
		if (!(patterns[p].langs & s->lang))
			continue;
		if (lp_out_of_time(s->ctx))
			break;
		if (!scan_pattern(s, p, code, len, md, base, frame, depth))
			break;
	}
	pcre2_match_data_free(md);
}

/* awk: every command it runs is a lone literal seen through as sh -c, or
   the line is unparsed (awk.c). */
static void awk_scan(lp_ctx *ctx, const char *code, size_t idx, unsigned depth)
{
	lp_awk_cmds *cmds = lp_arena_alloc(ctx->arena, sizeof *cmds);
	if (!cmds)
		return; /* out of memory: the result fails */
	const char *why = lp_awk_commands(code, cmds);
	if (why)
		lp_unparsed(ctx, "the awk program runs %s", why);
	for (size_t k = 0; k < cmds->n; k++) {
		const lp_awk_cmd *m = &cmds->cmd[k];
		lp_buf b = {0};
		put_unescaped(ctx->arena, &b, code + m->start,
		              m->end - m->start);
		const char *text = lp_buf_cstr(ctx->arena, &b);
		if (!text || !*text)
			continue;
		text = sh_c(ctx->arena, text, m->fed);
		if (text)
			lp_parse_nested(ctx, text, strlen(text),
			                LOCUS_ORIGIN_INLINE_CODE, idx, depth);
	}
}

void lp_inline_scan(lp_ctx *ctx, const char *code, unsigned lang, size_t idx,
                    unsigned depth)
{
	lp_inline_table *t = ctx->parser ? ctx->parser->inline_table : NULL;
	if (!t || !table_ready(t)) {
		lp_unparsed(ctx, "inline code patterns are not available");
		return;
	}
	if (!code)
		return; /* out of memory building it: the result fails */
	if (lang == L_AWK) {
		awk_scan(ctx, code, idx, depth);
		return;
	}
	inline_scan s = {ctx, t, lang, idx, NULL, 0, 0, 0};
	scan_code(&s, code, 0, 0, depth);
	/* closed world: code is held unless its names are all known (awk's
	   programs have their own rules in labels/) */
	if (!(lang & LK_LANG_AWK) && !lp_inline_proven(code, lang))
		ctx->result->commands[idx].flags |= LOCUS_CMD_INLINE_UNPROVEN;
}

/* ---- interpreters ---------------------------------------------------- */

/* How each interpreter takes code is a row of the program table:
   lk_interp (code and value letters, stdin, operand programs). */

#define MAX_CODES 32

/* What an interpreter's options say: the code given inline (-c, -e,
   --eval...), a program file, an option after which no code follows. */
typedef struct interp_scan {
	const char *codes[MAX_CODES];
	const lp_word *code_words[MAX_CODES];
	size_t ncodes;
	bool file, stop, stdin_file;
	bool file_last; /* a program-file option ends the words, valueless */
	bool overflow;  /* more code options than MAX_CODES */
	const char *unsure; /* why the options cannot be followed, or NULL */
	size_t i;           /* the first word after the options */
	const char *module; /* the module a stop letter names (-m NAME) */
	size_t module_next; /* the word after it */
} interp_scan;

static void add_code(interp_scan *sc, const char *code, const lp_word *w)
{
	if (sc->ncodes == MAX_CODES) {
		sc->overflow = true; /* the rest would not be scanned */
		return;
	}
	sc->codes[sc->ncodes] = code;
	sc->code_words[sc->ncodes++] = w;
}

/* Scan words[sc->i..n) as the interpreter's options (grammar `it`). */
static void interp_options(const lk_interp *it, const lp_word *w, size_t n,
                           interp_scan *sc)
{
	size_t i = sc->i;
	for (; i < n && !sc->stop; i++) {
		const lp_word *x = &w[i];
		const char *v = x->value ? x->value : "";
		if (x->flags & LOCUS_WORD_DYNAMIC) {
			/* `python3 "$(echo -m)" poetry install`, `"$o"
			   CODE`: a run-time word that may be a code or
			   module option takes the next word */
			if (i + 1 < n && lp_word_may_be_option(x))
				sc->unsure = "an option only known at run time "
				             "may take the next word as code";
			break;
		}
		if (!strcmp(v, "--")) {
			i++;
			break;
		}
		if (v[0] != '-' || !v[1])
			break;
		if (v[1] == '-') {
			const char *name = v + 2, *eq = strchr(name, '=');
			size_t nl = eq ? (size_t)(eq - name) : strlen(name);
			if (eq && !strncmp(eq + 1, "data:", 5)) {
				/* node --import data:text/javascript,CODE */
				sc->unsure = "an option's value is a data: URL";
				break;
			}
			if (!lk_bar_has(it->code_long, name, nl) &&
			    !lk_bar_has(it->val_long, name, nl) &&
			    lk_bar_prefix(it->code_long, name, nl)) {
				/* an abbreviation getopt_long takes (gawk
				   --sour CODE) */
				sc->unsure =
				    "an abbreviated option may give code";
				break;
			}
			if (!eq && lk_bar_has(it->val_long, name, nl) &&
			    i + 1 < n && w[i + 1].value &&
			    !strncmp(w[i + 1].value, "data:", 5)) {
				sc->unsure = "an option's value is a data: URL";
				break;
			}
			if (lk_bar_has(it->code_long, name, nl)) {
				const lp_word *cw = x;
				const char *cv = eq ? eq + 1 : NULL;
				if (!eq && i + 1 < n) {
					cw = &w[++i];
					cv = cw->value;
				}
				if (cv)
					add_code(sc, cv, cw);
			} else if (!eq && lk_bar_has(it->val_long, name, nl)) {
				i++;
			} else if (it->flags & LK_I_OPERAND) {
				if ((nl == 4 && !strncmp(name, "file", 4)) ||
				    (nl == 4 && !strncmp(name, "exec", 4))) {
					sc->file = true;
					if (!eq)
						i++;
				}
			}
			continue;
		}
		for (size_t j = 1; v[j]; j++) {
			char c = v[j];
			if (c == ' ' || c == '\t' || c == '\n') {
				/* perl reads on after a blank in a switch word
				   (`perl '-i -e' CODE`, `'-Dx -e'`) */
				sc->unsure = "an option word holds a blank";
				break;
			}
			bool is_code = lk_has_letter(it->code, c),
			     is_file = lk_has_letter(it->file, c);
			if (is_code || is_file || lk_has_letter(it->val, c)) {
				const lp_word *vw = x;
				const char *vv = v + j + 1;
				if (!*vv) {
					sc->file_last |= is_file && i + 1 >= n;
					if (i + 1 >= n)
						break;
					vw = &w[++i];
					vv = vw->value;
				}
				if (is_code) {
					add_code(sc, vv, vw);
					if (it->flags & LK_I_CODE_ENDS)
						sc->stop = true;
				}
				if (is_file && lp_program_file_unseen(vw))
					sc->unsure =
					    "its program file is "
					    "another command's output "
					    "or only known at run time";
				else if (is_file && !lp_is_stdin_word(vw))
					sc->file = true;
				else if (is_file)
					sc->stdin_file = true;
				break;
			}
			const char *after =
			    lk_cluster_value(it->cluster, c, v + j + 1);
			if (after) {
				j = (size_t)(after - v) - 1; /* then j++ */
				if (!*after)
					break;
				continue;
			}
			if (lk_has_letter(it->rest, c)) {
				/* perl -M'strict;system q(CMD)': `use strict;
				   system q(CMD);` (checked by a red team) */
				const char *u = v + j + 1;
				if ((it->flags & LK_I_USE_TEXT) &&
				    (c == 'm' || c == 'M') &&
				    (u[strspn(u, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				                 "abcdefghijklmnopqrstuvwxyz"
				                 "0123456789_:=,-")] ||
				     (x->flags & LOCUS_WORD_DYNAMIC)))
					sc->unsure = "perl -M/-m text is "
					             "pasted into the program "
					             "as code";
				break;
			}
			if (lk_has_letter(it->stop, c)) {
				sc->stop = true;
				/* python -m "$MOD": any module, pip too */
				const lp_word *mod =
				    !v[j + 1] && i + 1 < n ? &w[i + 1] : x;
				if (mod->flags & LOCUS_WORD_DYNAMIC)
					sc->unsure = "a module only known at "
					             "run time";
				sc->module = mod == x ? v + j + 1 : mod->value;
				sc->module_next = mod == x ? i + 1 : i + 2;
				break;
			}
		}
	}
	sc->i = i;
}

/* The module sc's stop letter named, when the grammar lists it; a
   submodule of a package whose code locus does not read (LK_M_OPAQUE,
   LK_M_RUNS_COMMAND) is the package (checked by a red team: `-m
   IPython.terminal.ipapp -c CODE` ran CODE as `-m IPython` does). */
static const lk_module *module_of(const lk_interp *it, const interp_scan *sc)
{
	if (!sc->module || !it->modules)
		return NULL;
	size_t n = lk_module_name_len(sc->module); /* -m code.__main__ */
	for (const lk_module *m = it->modules; m->name; m++) {
		size_t k = strlen(m->name);
		if (strncmp(m->name, sc->module, k) != 0)
			continue;
		if (k == n || (k < n && sc->module[k] == '.' &&
		               (m->how & (LK_M_OPAQUE | LK_M_RUNS_COMMAND))))
			return m;
	}
	return NULL;
}

/* Some operand from w[i] on is stdin (`-`, /dev/stdin, /dev/fd/0,
   /proc/self/fd/0), or computed at run time. */
static bool loads_stdin(const lp_word *w, size_t n, size_t i)
{
	for (; i < n; i++) {
		const char *a = w[i].value ? w[i].value : "";
		if ((w[i].flags & LOCUS_WORD_DYNAMIC) || !strcmp(a, "-") ||
		    !strncmp(a, "/dev/", 5) || !strncmp(a, "/proc/", 6))
			return true;
	}
	return false;
}

/* A module that takes code (lk_module): its options, operands or stdin
   as the code sc holds, through runners that run another module
   (`-m cProfile -m timeit STMT`, `-m runpy MOD`, `-m trace --module
   MOD`), `depth` of them at most. */
static void module_options(const lk_interp *it, const lp_word *w, size_t n,
                           interp_scan *sc, unsigned depth)
{
	const lk_module *m = module_of(it, sc);
	if (!m || sc->unsure)
		return;
	if (m->how & LK_M_RUNS_COMMAND) {
		sc->unsure = "the module runs a command its line gives "
		             "(python -m dotenv run CMD), not read";
		return;
	}
	if (m->how & LK_M_OPAQUE) {
		sc->unsure = "the module runs code of its own language from "
		             "its line or stdin (IPython, isympy), not read";
		return;
	}
	if ((m->how & LK_M_LOADS_STDIN) && loads_stdin(w, n, sc->module_next)) {
		sc->unsure = "the module loads stdin's data as code (python "
		             "-m pickle -), not read";
		return;
	}
	if (!depth) {
		sc->unsure = "modules run modules too deep";
		return;
	}
	interp_scan ms;
	memset(&ms, 0, sizeof ms);
	ms.i = sc->module_next;
	interp_options(m->grammar, w, n, &ms);
	if (!ms.module && !ms.unsure && ms.i < n &&
	    (m->how & (LK_M_RUNS_FIRST | LK_M_RUNS_FLAG))) {
		bool runs = m->how & LK_M_RUNS_FIRST;
		for (size_t k = sc->module_next; k < ms.i && !runs; k++)
			runs = w[k].value &&
			       lk_long_abbrev(w[k].value, "module", 1);
		if (runs && (w[ms.i].flags & LOCUS_WORD_DYNAMIC))
			ms.unsure = "a module only known at run time";
		if (runs) {
			ms.stop = true;
			ms.module = w[ms.i].value;
			ms.module_next = ms.i + 1;
		}
	}
	if (!ms.stop && (m->how & LK_M_STDIN))
		ms.stdin_file = true; /* its code is stdin's (python -m code) */
	module_options(m->grammar, w, n, &ms, depth - 1);
	if (ms.unsure) {
		sc->unsure = ms.unsure;
		return;
	}
	for (size_t k = 0; k < ms.ncodes; k++)
		add_code(sc, ms.codes[k], ms.code_words[k]);
	sc->overflow |= ms.overflow;
	if (!ms.stop && (m->how & LK_M_OPERANDS))
		for (size_t k = ms.i; k < n; k++)
			add_code(sc, w[k].value, &w[k]);
	if (ms.stdin_file) {
		sc->stop = false;
		sc->stdin_file = true;
		sc->i = ms.i;
	}
}

bool lp_inline_command(lp_ctx *ctx, const lp_raw_command *raw, size_t pos,
                       size_t idx, const lk_program *prog)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	const lk_interp *it = prog ? prog->interp : NULL;
	if (!it)
		return false;
	interp_scan sc;
	memset(&sc, 0, sizeof sc);
	sc.i = pos + 1;
	if (it->flags & LK_I_EVAL_SUB) {
		size_t i = sc.i;
		if (i >= n || strcmp(w[i].value ? w[i].value : "", "eval"))
			return true; /* deno run FILE: a known limit */
		i++;
		while (i < n && w[i].value && w[i].value[0] == '-' &&
		       !(w[i].flags & LOCUS_WORD_DYNAMIC))
			i++;
		if (i < n)
			add_code(&sc, w[i].value, &w[i]);
		sc.i = n;
	}
	interp_options(it, w, n, &sc);
	module_options(it, w, n, &sc, 4);
	if (sc.unsure) {
		lp_unparsed(ctx, "%s: %s", prog->name, sc.unsure);
		return true;
	}
	if (sc.overflow) {
		lp_unparsed(ctx, "%s is given more than %d pieces of code",
		            prog->name, MAX_CODES);
		return true;
	}
	/* tree-sitter-bash drops a lone `-` right before `<<` (`awk -f -
	   <<EOF` reads as `awk -f`): a program-file option left without its
	   value before a heredoc is `-`, the heredoc (a real `awk -f <<EOF`
	   fails and runs nothing) */
	if (sc.file_last && raw->stdin_kind == LP_STDIN_HEREDOC)
		sc.stdin_file = true;
	const char **codes = sc.codes;
	const lp_word **code_words = sc.code_words;
	size_t ncodes = sc.ncodes, i = sc.i;
	bool file = sc.file, stop = sc.stop, stdin_file = sc.stdin_file;
	locus_shell_command *cmd = &ctx->result->commands[idx];
	if (!ncodes && !file && !stop && !stdin_file &&
	    (it->flags & LK_I_OPERAND) && i < n) {
		codes[ncodes] = w[i].value; /* ncodes is 0 */
		code_words[ncodes++] = &w[i];
	}
	if (ncodes) {
		cmd->flags |= LOCUS_CMD_INLINE_CODE;
		lp_buf all = {0};
		for (size_t k = 0; k < ncodes; k++) {
			if (code_words[k]->flags & LOCUS_WORD_DYNAMIC) {
				lp_unparsed(ctx,
				            "%s runs code only known at run "
				            "time: %s",
				            prog->name,
				            code_words[k]->text
				                ? code_words[k]->text
				                : "");
				return true;
			}
			if (k)
				lp_buf_putc(ctx->arena, &all, '\n');
			const char *c = codes[k] ? codes[k] : "";
			lp_buf_append(ctx->arena, &all, c, strlen(c));
		}
		lp_inline_scan(ctx, lp_buf_cstr(ctx->arena, &all), it->lang,
		               idx, raw->depth + 1);
		return true;
	}
	if (file || stop || (!(it->flags & LK_I_STDIN) && !stdin_file))
		return true;
	if (lp_stdin_procsub(raw)) {
		cmd->flags |= LOCUS_CMD_INLINE_CODE | LOCUS_CMD_STDIN_SCRIPT;
		lp_unparsed(ctx,
		            "%s reads its program from a process "
		            "substitution",
		            prog->name);
		return true;
	}
	if (!stdin_file && i < n && !lp_is_stdin_word(&w[i])) {
		const char *why = file ? NULL : lp_program_file_unseen(&w[i]);
		if (why)
			lp_unparsed(ctx, "%s runs a program file from %s",
			            prog->name, why);
		return true; /* a script file: a known limit */
	}
	if (raw->stdin_kind == LP_STDIN_NONE &&
	    lp_stdin_from_program(ctx->result, idx)) {
		cmd->flags |= LOCUS_CMD_INLINE_CODE | LOCUS_CMD_STDIN_SCRIPT;
		lp_unparsed(ctx,
		            "%s reads its program from the input the program "
		            "running it feeds it",
		            prog->name);
		return true;
	}
	if (raw->stdin_kind != LP_STDIN_HEREDOC &&
	    raw->stdin_kind != LP_STDIN_HERESTRING &&
	    raw->stdin_kind != LP_STDIN_PIPE)
		return true;
	cmd->flags |= LOCUS_CMD_INLINE_CODE | LOCUS_CMD_STDIN_SCRIPT;
	const char *text = lp_stdin_text(ctx, raw, "an interpreter");
	if (text)
		lp_inline_scan(ctx, text, it->lang, idx, raw->depth + 1);
	return true;
}
