/*
 * parser/word.c - the value of a word as bash would pass it in argv.
 *
 * tree-sitter leaves quotes and backslashes in the text, so every word is
 * re-read here: quote removal, backslash escapes, $'...' decoding, $"..."
 * read as "...", concatenation, same-line constants (vars.c) with field
 * splitting, and the flags that tell the labeller what is not static.
 *
 * A word's nodes are shallow (concatenation -> string -> parts); anything
 * that can nest deeply (${..}, $(..), $((..))) is opaque here: its text is
 * kept, it is flagged, and the walk descends into it with an explicit
 * stack.  So nothing here recurses on input depth.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "walk.h"
#include "../util/sha256.h"
#include "../util/utf8.h"

bool lp_wordvec_push(lp_arena *a, lp_wordvec *wv, lp_word w)
{
	if (wv->n == wv->cap) {
		size_t cap = lu_grow_capacity(wv->cap, wv->n + 1, 4, sizeof w);
		lp_word *v = cap ? lp_arena_grow(a, wv->v, wv->n * sizeof w,
		                                 cap * sizeof w)
		                 : NULL;
		if (!v)
			return false;
		wv->v = v;
		wv->cap = cap;
	}
	wv->v[wv->n++] = w;
	return true;
}

const char *lp_node_text(lp_tree *t, TSNode n)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > t->len)
		e = (uint32_t)t->len;
	if (s > e)
		s = e;
	const char *p = lp_arena_strndup(t->ctx->arena, t->src + s, e - s);
	return p ? p : "";
}

bool lp_has_descendant(TSNode n, const TSSymbol *kinds, size_t nkinds)
{
	lp_cursor c;
	lp_cursor_init(&c, n);
	bool found = false;
	for (bool more = true; more && !found;) {
		TSNode cur = lp_cursor_node(&c);
		TSSymbol k = ts_node_symbol(cur);
		if (ts_node_is_named(cur))
			for (size_t i = 0; i < nkinds; i++)
				found |= k == kinds[i];
		more = lp_cursor_next(&c, true);
	}
	lp_cursor_free(&c);
	return found;
}

/* ---- $'...' -------------------------------------------------------------- */

static bool put_utf8(lp_arena *a, lp_buf *b, uint32_t cp)
{
	char u[4];
	return lp_buf_append(a, b, u, lu_utf8_encode(cp, u));
}

/* bash's ansicstr(): the escapes of $'...'.  A decoded NUL ends the string
   (bash cannot hold it in a C string and truncates there). */
bool lp_ansi_c_decode(lp_arena *a, lp_buf *out, const char *s, size_t n)
{
	static const char simple_from[] = "abeEfnrtv\\'\"?";
	static const char simple_to[] = "\a\b\033\033\f\n\r\t\v\\'\"?";
	size_t i = 0;
	while (i < n) {
		char c = s[i];
		if (c != '\\' || i + 1 >= n) {
			if (!lp_buf_putc(a, out, c))
				return false;
			i++;
			continue;
		}
		char e = s[i + 1];
		const char *sp = strchr(simple_from, e);
		if (e && sp) {
			if (!lp_buf_putc(a, out, simple_to[sp - simple_from]))
				return false;
			i += 2;
			continue;
		}
		uint32_t v = 0;
		size_t j = i + 1, k;
		if (e >= '0' && e <= '7') {
			for (k = 0;
			     k < 3 && j < n && s[j] >= '0' && s[j] <= '7';
			     k++, j++)
				v = v * 8 + (uint32_t)(s[j] - '0');
			if ((v & 0xFF) == 0)
				return true;
			if (!lp_buf_putc(a, out, (char)(v & 0xFF)))
				return false;
			i = j;
			continue;
		}
		if (e == 'x' || e == 'u' || e == 'U') {
			size_t max = e == 'x' ? 2 : e == 'u' ? 4 : 8;
			j = i + 2;
			for (k = 0; k < max && j < n && lu_hex_digit(s[j]) >= 0;
			     k++, j++)
				v = v * 16 + (uint32_t)lu_hex_digit(s[j]);
			if (k == 0) { /* no digits: kept as written */
				if (!lp_buf_append(a, out, s + i, 2))
					return false;
				i += 2;
				continue;
			}
			if (v == 0)
				return true;
			bool ok;
			if (e == 'x')
				ok = lp_buf_putc(a, out, (char)v);
			else if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
				ok = lp_buf_append(a, out, s + i, j - i);
			else
				ok = put_utf8(a, out, v);
			if (!ok)
				return false;
			i = j;
			continue;
		}
		if (e == 'c' && i + 2 < n) {
			char x = s[i + 2];
			char r =
			    x == '?'
			        ? 0x7F
			        : (char)((x >= 'a' && x <= 'z' ? x - 32 : x) &
			                 0x1F);
			if (r == 0)
				return true;
			if (!lp_buf_putc(a, out, r))
				return false;
			i += 3;
			continue;
		}
		/* Unknown escape: bash keeps the backslash. */
		if (!lp_buf_append(a, out, s + i, 2))
			return false;
		i += 2;
	}
	return true;
}

/* ---- arithmetic ---------------------------------------------------------- */

/* Evaluate + - * / % and parentheses on decimal integers, iteratively
   (shunting-yard).  False for anything else; the caller keeps the text. */
static bool arith_eval(const char *s, size_t n, int64_t *res)
{
	enum { MAXS = 64 };
	uint64_t vals[MAXS];
	char ops[MAXS];
	size_t nv = 0, no = 0;
	bool want_operand = true;
	size_t i = 0;
#define PREC(o)                                                                \
	((o) == 'u' || (o) == 'p'                   ? 3                        \
	 : ((o) == '*' || (o) == '/' || (o) == '%') ? 2                        \
	 : ((o) == '+' || (o) == '-')               ? 1                        \
	                                            : 0)
	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
			i++;
		char c = i < n ? s[i] : '\0';
		if (want_operand) {
			if (c >= '0' && c <= '9') {
				if (c == '0' && i + 1 < n && s[i + 1] >= '0' &&
				    s[i + 1] <= '9')
					return false; /* octal: not handled */
				uint64_t v = 0;
				while (i < n && s[i] >= '0' && s[i] <= '9') {
					v = v * 10 + (uint64_t)(s[i] - '0');
					i++;
				}
				if (i < n &&
				    (s[i] == '#' || s[i] == 'x' || s[i] == 'X'))
					return false;
				if (nv == MAXS)
					return false;
				vals[nv++] = v;
				want_operand = false;
			} else if (c == '(' || c == '-' || c == '+') {
				if (no == MAXS)
					return false;
				ops[no++] = c == '('   ? '('
				            : c == '-' ? 'u'
				                       : 'p';
				i++;
			} else {
				return false;
			}
			continue;
		}
		/* operator position */
		if (c != '\0' && !strchr("+-*/%)", c))
			return false;
		int p = c == ')' || c == '\0' ? 0 : PREC(c);
		while (no > 0 && ops[no - 1] != '(' &&
		       (c == ')' || c == '\0' || PREC(ops[no - 1]) >= p)) {
			char o = ops[--no];
			if (o == 'u' || o == 'p') {
				if (nv < 1)
					return false;
				if (o == 'u')
					vals[nv - 1] =
					    (uint64_t)0 - vals[nv - 1];
				continue;
			}
			if (nv < 2)
				return false;
			uint64_t b = vals[--nv], a = vals[nv - 1], r;
			int64_t sa = (int64_t)a, sb = (int64_t)b;
			switch (o) {
			case '+': r = a + b; break;
			case '-': r = a - b; break;
			case '*': r = a * b; break;
			default:
				if (sb == 0 || (sa == INT64_MIN && sb == -1))
					return false;
				r = (uint64_t)(o == '/' ? sa / sb : sa % sb);
			}
			vals[nv - 1] = r;
		}
		if (c == '\0')
			break;
		if (c == ')') {
			if (no == 0 || ops[no - 1] != '(')
				return false;
			no--;
			i++;
			continue;
		}
		if (no == MAXS)
			return false;
		ops[no++] = c;
		i++;
		want_operand = true;
	}
#undef PREC
	if (no != 0 || nv != 1)
		return false;
	*res = (int64_t)vals[0];
	return true;
}

bool lp_is_fake_arith(lp_tree *t, TSNode n)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (b > t->len || b - a < 5)
		return false;
	const char *s = t->src + a;
	size_t len = b - a;
	return s[0] == '$' && s[1] == '(' && s[2] == '(' && s[len - 1] == ')' &&
	       s[len - 2] == ')';
}

/* ---- the evaluator ------------------------------------------------------- */

typedef struct wstate {
	lp_tree *t;
	lp_arena *a;
	lp_buf cur, shape; /* value; shape has 'q' for quoted bytes, and is
	                      made only once a quoted byte comes (until then
	                      it is the value: `shaped` false) */
	bool shaped;
	uint32_t flags;
	bool started; /* the field exists (quoted part or a byte) */
	bool split;   /* field splitting on (argv words) */
	bool use_vars;
	const char *text;
	lp_wordvec *out;
	lp_word single;
} wstate;

static void put(wstate *w, const char *s, size_t n, bool quoted)
{
	if (quoted && n && !w->shaped) {
		/* the first quoted byte: the shape so far is the value */
		w->shaped = true;
		lp_buf_append(w->a, &w->shape, w->cur.data ? w->cur.data : "",
		              w->cur.len);
	}
	lp_buf_append(w->a, &w->cur, s, n);
	if (w->shaped && quoted) {
		lp_buf_fill(w->a, &w->shape, 'q', n);
	} else if (w->shaped) {
		lp_buf_append(w->a, &w->shape, s, n);
	}
	if (n || quoted)
		w->started = true;
}

static uint32_t shape_flags(const char *s, size_t n)
{
	uint32_t f = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '*' || s[i] == '?')
			f |= LOCUS_WORD_GLOB;
		else if (s[i] == '[' && memchr(s + i + 1, ']', n - i - 1))
			f |= LOCUS_WORD_GLOB;
		else if (s[i] == '{') {
			const char *close = memchr(s + i + 1, '}', n - i - 1);
			if (close) {
				size_t m = (size_t)(close - (s + i + 1));
				if (memchr(s + i + 1, ',', m))
					f |= LOCUS_WORD_BRACE;
				for (size_t k = 0; k + 1 < m; k++)
					if (s[i + 1 + k] == '.' &&
					    s[i + 2 + k] == '.')
						f |= LOCUS_WORD_BRACE;
			}
		}
	}
	return f;
}

/* One level of brace expansion, {a,b,c} with no nested braces, on an
   argv word: x{a,b}y -> xay xby.  `{rm,-rf,/}` is `rm -rf /` to bash.
   Sequences {1..3} and nested groups are left as written (BRACE flag). */
/* The fields of one brace expansion (bash: left to right, each group's
   alternatives in turn, nested groups too: `{,{,/tmp/x}}` is /tmp/x, the
   empty words dropped).  sh is the word's shape (`{` `,` `}` where they
   are unquoted), val its value, both n bytes.  false when there is no
   group to expand; past BRACE_FIELDS fields, BRACE_DEPTH groups or a
   word of BRACE_BYTES the rest is not known (a run-time word: the copies
   stay bounded on a 1 MiB line). */
enum { BRACE_FIELDS = 256, BRACE_DEPTH = 16, BRACE_BYTES = 4096 };

static bool brace_rec(wstate *w, const lp_word *base, const char *sh,
                      const char *val, size_t n, unsigned depth, size_t *count)
{
	size_t i, j = 0;
	for (i = 0; i < n; i++) {
		if (sh[i] != '{')
			continue;
		/* the matching `}`, and whether a comma is at this level */
		int level = 0;
		bool comma = false;
		for (j = i + 1; j < n; j++) {
			if (sh[j] == '{')
				level++;
			else if (sh[j] == '}' && level-- == 0)
				break;
			else if (sh[j] == ',' && level == 0)
				comma = true;
		}
		if (j < n && comma)
			break;
	}
	if (i >= n)
		return false;
	if (!depth || n > BRACE_BYTES) {
		lp_word f = *base;
		f.flags |= LOCUS_WORD_DYNAMIC; /* too deep to tell */
		lp_wordvec_push(w->a, w->out, f);
		return true;
	}
	for (size_t k = i + 1; k <= j;) {
		if (*count > BRACE_FIELDS)
			return true; /* the rest is not known: said once */
		size_t e = k;
		for (int level = 0; e < j; e++) {
			if (sh[e] == '{')
				level++;
			else if (sh[e] == '}')
				level--;
			else if (sh[e] == ',' && level == 0)
				break;
		}
		lp_buf v = {0}, h = {0};
		lp_buf_append(w->a, &v, val, i);
		lp_buf_append(w->a, &v, val + k, e - k);
		lp_buf_append(w->a, &v, val + j + 1, n - j - 1);
		lp_buf_append(w->a, &h, sh, i);
		lp_buf_append(w->a, &h, sh + k, e - k);
		lp_buf_append(w->a, &h, sh + j + 1, n - j - 1);
		const char *fv = lp_buf_cstr(w->a, &v),
		           *fh = lp_buf_cstr(w->a, &h);
		if (!fv || !fh)
			return false;
		size_t fn = n - (j - i + 1) + (e - k);
		if (!brace_rec(w, base, fh, fv, fn, depth - 1, count)) {
			lp_word f = *base;
			f.value = fv;
			if (++*count > BRACE_FIELDS) {
				f.flags |= LOCUS_WORD_DYNAMIC;
				lp_wordvec_push(w->a, w->out, f);
				return true;
			}
			/* bash drops an empty unquoted result */
			if (f.value[0] || (base->flags & LOCUS_WORD_QUOTED))
				lp_wordvec_push(w->a, w->out, f);
		}
		k = e + 1;
	}
	return true;
}

static bool brace_expand(wstate *w, const lp_word *base)
{
	const lp_buf *shape = w->shaped ? &w->shape : &w->cur;
	const char *sh = shape->data, *val = w->cur.data;
	size_t n = shape->len;
	if (!sh || !val || n != w->cur.len)
		return false;
	size_t count = 0;
	return brace_rec(w, base, sh, val, n, BRACE_DEPTH, &count);
}

static void end_field(wstate *w, bool force)
{
	if (!w->started && !force)
		return;
	lp_word wd;
	wd.value = lp_buf_cstr(w->a, &w->cur);
	if (!wd.value)
		wd.value = "";
	wd.text = w->text;
	const lp_buf *shape = w->shaped ? &w->shape : &w->cur;
	wd.flags =
	    w->flags | shape_flags(shape->data ? shape->data : "", shape->len);
	/* a plain word's value is its text: share it, and give the value's
	   buffer back when nothing was allocated after it (not for a brace
	   word: brace_expand reads the buffer) */
	if (!(wd.flags & LOCUS_WORD_BRACE) && w->text && w->cur.data &&
	    !w->shaped && strcmp(w->cur.data, w->text) == 0 &&
	    lp_arena_pop(w->a, w->cur.data, w->cur.cap))
		wd.value = w->text;
	if (w->out && (wd.flags & LOCUS_WORD_BRACE) && w->split &&
	    brace_expand(w, &wd))
		; /* pushed */
	else if (w->out)
		lp_wordvec_push(w->a, w->out, wd);
	else
		w->single = wd;
	memset(&w->cur, 0, sizeof w->cur);
	memset(&w->shape, 0, sizeof w->shape);
	w->shaped = false;
	w->started = false;
	/* Flags describe the word as written: kept for every field. */
}

static void node_span(wstate *w, TSNode n, const char **s, size_t *len)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (b > w->t->len)
		b = (uint32_t)w->t->len;
	if (a > b)
		a = b;
	*s = w->t->src + a;
	*len = b - a;
}

/* An opaque part: its text stands for a value known only at run time. */
static void opaque(wstate *w, TSNode n, uint32_t flags)
{
	const lp_syms *sy = w->t->sy;
	const char *s;
	size_t len;
	node_span(w, n, &s, &len);
	put(w, s, len, true);
	w->flags |= flags | LOCUS_WORD_DYNAMIC;
	if (w->flags & LOCUS_WORD_SUBST)
		return; /* already known: no need to look for one */
	const TSSymbol substs[] = {sy->command_substitution,
	                           sy->process_substitution};
	if (lp_has_descendant(n, substs, 2))
		w->flags |= LOCUS_WORD_SUBST;
}

/* Unquoted word text: \x -> x, \<newline> vanishes. */
static void put_unquoted(wstate *w, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (s[i] == '\\') {
			if (i + 1 >= n) {
				put(w, s + i, 1, false);
				i++;
			} else if (s[i + 1] == '\n') {
				i += 2;
			} else {
				put(w, s + i + 1, 1, true);
				w->flags |= LOCUS_WORD_QUOTED;
				i += 2;
			}
			continue;
		}
		size_t j = i;
		while (j < n && s[j] != '\\')
			j++;
		put(w, s + i, j - i, false);
		i = j;
	}
}

/* Text inside double quotes (or an unquoted heredoc body when `heredoc`):
   backslash only escapes $ ` \ newline, and " outside heredocs. */
static void put_dq(wstate *w, const char *s, size_t n, bool heredoc)
{
	lp_buf *b = &w->cur;
	size_t i = 0;
	while (i < n) {
		if (s[i] == '\\' && i + 1 < n) {
			char e = s[i + 1];
			if (e == '\n') {
				i += 2;
				continue;
			}
			if (e == '$' || e == '`' || e == '\\' ||
			    (e == '"' && !heredoc)) {
				put(w, &e, 1, true);
				i += 2;
				continue;
			}
		}
		put(w, s + i, 1, true);
		i++;
	}
	(void)b;
	w->started = true;
}

static bool ifs_white(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* $NAME or ${NAME}: resolve a same-line constant or mark dynamic. */
static void expansion(wstate *w, TSNode n, TSNode var, bool quoted)
{
	const lp_syms *sy = w->t->sy;
	const lp_vars *v = w->t->vars;
	w->flags |= LOCUS_WORD_EXPANSION;
	const char *val = NULL;
	if (w->use_vars && v && !ts_node_is_null(var) &&
	    ts_node_symbol(var) == sy->variable_name &&
	    (quoted || !lp_vars_ifs_assigned(v))) {
		const char *s;
		size_t len;
		node_span(w, var, &s, &len);
		val = lp_vars_lookup(v, s, len, ts_node_start_byte(n));
	}
	if (!val) {
		opaque(w, n, LOCUS_WORD_EXPANSION);
		return;
	}
	size_t vl = strlen(val);
	if (quoted || !w->split) {
		/* Unquoted in an assignment or redirect: no splitting, but
		   the value is still subject to globbing. */
		put(w, val, vl, quoted);
		return;
	}
	for (size_t i = 0; i < vl; i++) {
		if (ifs_white(val[i])) {
			end_field(w, false);
			continue;
		}
		put(w, val + i, 1, false);
	}
}

static TSNode only_var_child(wstate *w, TSNode n)
{
	/* ${NAME}: exactly "${" NAME "}" */
	const lp_syms *sy = w->t->sy;
	TSNode none = {0};
	uint32_t cc = ts_node_child_count(n);
	if (cc != 3)
		return none;
	TSNode v = ts_node_child(n, 1);
	if (ts_node_symbol(v) != sy->variable_name)
		return none;
	return v;
}

static void arith(wstate *w, TSNode n, bool quoted)
{
	const lp_syms *sy = w->t->sy;
	w->flags |= LOCUS_WORD_ARITH;
	/* a substitution or a name: not a static value */
	/* clang-format off */
	const TSSymbol dynamic[] = {
	    sy->command_substitution, sy->process_substitution,
	    sy->variable_name,        sy->simple_expansion,
	    sy->expansion,            sy->subscript,
	    sy->special_variable_name};
	/* clang-format on */
	if (lp_has_descendant(n, dynamic, sizeof dynamic / sizeof *dynamic)) {
		opaque(w, n, LOCUS_WORD_ARITH);
		return;
	}
	const char *s;
	size_t len;
	node_span(w, n, &s, &len);
	int64_t r;
	/* $((expr)) or $[expr] */
	size_t open = len >= 3 && s[1] == '(' ? 3 : 2;
	size_t close = open == 3 ? 2 : 1;
	if (len >= open + close &&
	    arith_eval(s + open, len - open - close, &r)) {
		char num[32];
		int k = snprintf(num, sizeof num, "%lld", (long long)r);
		put(w, num, (size_t)k, quoted);
	} else {
		put(w, s, len, true);
	}
}

static void part(wstate *w, TSNode n, bool quoted);

/* "..." : children and the gaps between them (literal text). */
static void dq_string(wstate *w, TSNode n)
{
	const lp_syms *sy = w->t->sy;
	w->flags |= LOCUS_WORD_QUOTED;
	w->started = true;
	uint32_t end = ts_node_end_byte(n);
	uint32_t pos = ts_node_start_byte(n);
	uint32_t cc = ts_node_child_count(n);
	for (uint32_t i = 0; i < cc; i++) {
		TSNode c = ts_node_child(n, i);
		uint32_t cs = ts_node_start_byte(c), ce = ts_node_end_byte(c);
		if (!ts_node_is_named(c)) {
			if (cs > pos && i > 0)
				put_dq(w, w->t->src + pos, cs - pos, false);
			/* the quotes themselves are dropped; another token
			   (a lone `$`) is text.  The grammar's closing quote
			   can hold the blanks before it (`" "` is `"` then
			   ` "`): those blanks are the string's text. */
			uint32_t tl = ce - cs;
			if (tl >= 1 && w->t->src[ce - 1] == '"' &&
			    (tl == 1 || i + 1 == cc))
				tl--;
			if (tl > 0)
				put_dq(w, w->t->src + cs, tl, false);
			pos = ce;
			continue;
		}
		if (cs > pos)
			put_dq(w, w->t->src + pos, cs - pos, false);
		if (ts_node_symbol(c) == sy->string_content)
			put_dq(w, w->t->src + cs, ce - cs, false);
		else
			part(w, c, true);
		pos = ce;
	}
	(void)end;
}

bool lp_starts_name(const char *s, size_t n)
{
	if (n == 0)
		return false;
	unsigned char c = (unsigned char)s[0];
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("@*#?-$!{(", c));
}

/* The parts of a concatenation, in order. */
static void concatenation(wstate *w, TSNode n, bool quoted)
{
	const lp_syms *sy = w->t->sy;
	uint32_t cc = ts_node_child_count(n);
	for (uint32_t i = 0; i < cc; i++) {
		TSNode c = ts_node_child(n, i);
		if (ts_node_symbol(c) == sy->concatenation) {
			opaque(w, c, 0); /* never nests; be safe */
			continue;
		}
		/* `r$"m"` is `rm`: inside a concatenation the grammar gives
		   $"..." as an anonymous "$" token (holding any text glued
		   before it, `-$`) and a string (fuzz_bypass): keep the
		   text, drop the $. */
		uint32_t cs0 = ts_node_start_byte(c);
		uint32_t ce0 = ts_node_end_byte(c);
		if (!ts_node_is_named(c) && i + 1 < cc && !quoted &&
		    ce0 > cs0 && w->t->src[ce0 - 1] == '$') {
			TSNode nx = ts_node_child(n, i + 1);
			if (ts_node_symbol(nx) == sy->string &&
			    ts_node_start_byte(nx) == ce0) {
				size_t pl = ce0 - 1 - cs0;
				const char *ps = w->t->src + cs0;
				if (strspn(ps, "abcdefghijklmnopqrstuvwxyz"
				               "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				               "0123456789_.,:@%+=/-") < pl)
					opaque(w, c, 0);
				else if (pl)
					put(w, ps, pl, false);
				continue;
			}
		}
		/* after a quoted part the grammar ends the concatenation
		   with a lone `$` and reads the name after it as the next
		   word (`"a"b$x,`, `"$d"/$f.bak`): bash expands it.  The
		   walk glues the two; the value stays an expansion
		   (checks.c fails closed where nothing glues them) */
		if (!ts_node_is_named(c) && i + 1 == cc && !quoted &&
		    ce0 == cs0 + 1 && w->t->src[cs0] == '$' &&
		    lp_starts_name(w->t->src + ce0, w->t->len - ce0)) {
			put(w, "$", 1, true);
			w->flags |= LOCUS_WORD_EXPANSION | LOCUS_WORD_DYNAMIC;
			continue;
		}
		part(w, c, quoted);
	}
}

static void part(wstate *w, TSNode n, bool quoted)
{
	const lp_syms *sy = w->t->sy;
	TSSymbol k = ts_node_symbol(n);
	const char *s;
	size_t len;
	node_span(w, n, &s, &len);
	if (!ts_node_is_named(n)) {
		/* "$", "==", "=~" used as arguments */
		put(w, s, len, quoted);
	} else if (k == sy->word) {
		if (quoted)
			put(w, s, len, true);
		else
			put_unquoted(w, s, len);
	} else if (k == sy->raw_string) {
		w->flags |= LOCUS_WORD_QUOTED;
		if (len >= 2)
			put(w, s + 1, len - 2, true);
		w->started = true;
	} else if (k == sy->ansi_c_string) {
		w->flags |= LOCUS_WORD_QUOTED;
		lp_buf tmp = {0};
		if (len >= 3)
			lp_ansi_c_decode(w->a, &tmp, s + 2, len - 3);
		put(w, tmp.data ? tmp.data : "", tmp.len, true);
		w->started = true;
	} else if (k == sy->string) {
		dq_string(w, n);
	} else if (k == sy->translated_string) {
		TSNode c = ts_node_named_child(n, 0);
		if (!ts_node_is_null(c) && ts_node_symbol(c) == sy->string)
			dq_string(w, c);
		else
			opaque(w, n, 0);
	} else if (k == sy->concatenation) {
		concatenation(w, n, quoted);
	} else if (k == sy->number) {
		if (ts_node_named_child_count(n) > 0)
			opaque(w, n, 0);
		else
			put(w, s, len, quoted);
	} else if (k == sy->simple_expansion) {
		expansion(w, n, ts_node_named_child(n, 0), quoted);
	} else if (k == sy->expansion) {
		expansion(w, n, only_var_child(w, n), quoted);
	} else if (k == sy->command_substitution && lp_is_fake_arith(w->t, n)) {
		w->flags |= LOCUS_WORD_ARITH;
		put(w, s, len, true);
		if (memchr(s + 3, '$', len - 3) || memchr(s + 3, '`', len - 3))
			w->flags |= LOCUS_WORD_DYNAMIC;
	} else if (k == sy->command_substitution ||
	           k == sy->process_substitution) {
		opaque(w, n, LOCUS_WORD_SUBST);
	} else if (k == sy->arithmetic_expansion) {
		arith(w, n, quoted);
	} else if (k == sy->brace_expression) {
		w->flags |= LOCUS_WORD_BRACE;
		put(w, s, len, true);
	} else if (k == sy->extglob_pattern) {
		w->flags |= LOCUS_WORD_GLOB;
		put(w, s, len, true);
	} else if (k == sy->regex || k == sy->variable_name ||
	           k == sy->test_operator) {
		put(w, s, len, true);
	} else {
		/* Anything else in a word position (array, subshell
		   artefact, ERROR): not a static value. */
		opaque(w, n, 0);
	}
}

static void wstate_init(wstate *w, lp_tree *t, TSNode n, bool split,
                        bool use_vars, lp_wordvec *out)
{
	memset(w, 0, sizeof *w);
	w->t = t;
	w->a = t->ctx->arena;
	w->split = split;
	w->use_vars = use_vars;
	w->out = out;
	w->text = lp_node_text(t, n);
}

void lp_word_fields(lp_tree *t, TSNode n, lp_wordvec *out)
{
	wstate w;
	wstate_init(&w, t, n, true, true, out);
	part(&w, n, false);
	/* A word that expanded to nothing unquoted yields no field, as in
	   bash (`$EMPTY` disappears); one that had any quoted part yields
	   an empty field. */
	end_field(&w, false);
}

lp_word lp_word_value(lp_tree *t, TSNode n, bool use_vars)
{
	wstate w;
	wstate_init(&w, t, n, false, use_vars, NULL);
	part(&w, n, false);
	end_field(&w, true);
	return w.single;
}

lp_word lp_heredoc_value(lp_tree *t, TSNode body, bool quoted, bool strip_tabs)
{
	wstate w;
	wstate_init(&w, t, body, false, true, NULL);
	if (quoted) {
		const char *s;
		size_t len;
		node_span(&w, body, &s, &len);
		put(&w, s, len, true);
		w.flags |= LOCUS_WORD_QUOTED;
	} else {
		uint32_t pos = ts_node_start_byte(body);
		uint32_t cc = ts_node_child_count(body);
		for (uint32_t i = 0; i <= cc; i++) {
			TSNode c = i < cc ? ts_node_child(body, i) : body;
			uint32_t cs = i < cc ? ts_node_start_byte(c)
			                     : ts_node_end_byte(body);
			if (cs > pos)
				put_dq(&w, t->src + pos, cs - pos, true);
			if (i == cc)
				break;
			if (ts_node_symbol(c) == t->sy->heredoc_content)
				put_dq(&w, t->src + cs,
				       ts_node_end_byte(c) - cs, true);
			else
				part(&w, c, true);
			pos = ts_node_end_byte(c);
		}
		/* Backticks in an unquoted body are command substitutions
		   the grammar does not parse. */
		if (w.cur.data && memchr(w.cur.data, '`', w.cur.len))
			w.flags |= LOCUS_WORD_SUBST | LOCUS_WORD_DYNAMIC;
	}
	end_field(&w, true);
	lp_word r = w.single;
	r.flags &= ~(uint32_t)(LOCUS_WORD_GLOB | LOCUS_WORD_BRACE);
	if (strip_tabs && r.value) {
		/* <<- removes leading tabs from every line. */
		size_t n = strlen(r.value);
		char *o = lp_arena_alloc_raw(t->ctx->arena, n + 1);
		if (o) {
			size_t k = 0;
			bool bol = true;
			for (size_t i = 0; i < n; i++) {
				if (bol && r.value[i] == '\t')
					continue;
				bol = r.value[i] == '\n';
				o[k++] = r.value[i];
			}
			o[k] = '\0';
			r.value = o;
		}
	}
	return r;
}
