/*
 * util/json.c - strict JSON: byte checks, cJSON, then a scan of the text.
 *
 * cJSON records no positions.  Values appear in the text in the same
 * pre-order as in cJSON's tree, so one scanner both checks what cJSON
 * lets through ("\u0000", malformed numbers, depth) and finds the offset of
 * the Nth value, which locates any node of the tree in the text.
 */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "invariant.h"
#include "utf8.h"

#define NONE ((size_t)-1)
#define BOM "\xEF\xBB\xBF"

/* What the scanner checks. */
enum { C_NUL = 1, C_OTHER = 2, C_ALL = 3 };

/* What one pass of the scanner found. */
typedef struct scan_out {
	size_t found;            /* offset of value number `target`, or NONE */
	size_t bad;              /* offset of the first problem, or NONE */
	lu_json_problem problem; /* which */
} scan_out;

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Whether t[s..e) is a JSON number: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? */
static bool json_number(const char *t, size_t s, size_t e)
{
	size_t k = s;
	if (k < e && t[k] == '-')
		k++;
	if (k < e && t[k] == '0') {
		k++;
	} else if (k < e && t[k] >= '1' && t[k] <= '9') {
		while (k < e && t[k] >= '0' && t[k] <= '9')
			k++;
	} else {
		return false;
	}
	if (k < e && t[k] == '.') {
		size_t d = ++k;
		while (k < e && t[k] >= '0' && t[k] <= '9')
			k++;
		if (k == d)
			return false;
	}
	if (k < e && (t[k] == 'e' || t[k] == 'E')) {
		k++;
		if (k < e && (t[k] == '+' || t[k] == '-'))
			k++;
		size_t d = k;
		while (k < e && t[k] >= '0' && t[k] <= '9')
			k++;
		if (k == d)
			return false;
	}
	return k == e;
}

static void flag(scan_out *o, size_t at, lu_json_problem p)
{
	if (o->bad == NONE) {
		o->bad = at;
		o->problem = p;
	}
}

/* Whether t[i..i+4) are four hex digits (cJSON reads a bad digit as 0,
   so "\u00zz" would end the string there, like "\u0000"). */
static bool hex4(const char *t, size_t len, size_t i)
{
	if (len - i < 4)
		return false;
	for (size_t k = i; k < i + 4; k++)
		if (!t[k] || !strchr("0123456789abcdefABCDEF", t[k]))
			return false;
	return true;
}

/* Skip the string starting at t[i] == '"'; returns the offset after it. */
static size_t scan_string(const char *t, size_t len, size_t i, unsigned check,
                          scan_out *o)
{
	for (i++; i < len && t[i] != '"'; i++) {
		if ((unsigned char)t[i] < 0x20 && (check & C_OTHER))
			flag(o, i, LU_JSON_SYNTAX); /* cJSON keeps it raw */
		if (t[i] != '\\' || i + 1 >= len)
			continue;
		if ((check & C_NUL) && t[i + 1] == 'u' && i + 5 < len &&
		    memcmp(t + i + 2, "0000", 4) == 0)
			flag(o, i, LU_JSON_ESCAPED_NUL);
		if ((check & C_OTHER) && t[i + 1] == 'u' &&
		    !hex4(t, len, i + 2))
			flag(o, i, LU_JSON_SYNTAX);
		i++;
	}
	return i + 1;
}

/* Called at the start of every value, in pre-order. */
typedef struct value_hook {
	void (*at)(void *ctx, size_t offset);
	void *ctx;
} value_hook;

/*
 * One pass over the text.  Counts value starts in pre-order and records
 * where value number `target` starts (and tells `hook`, when given, where
 * each starts); `check` (C_*) asks it to record the first "\u0000"
 * (C_NUL), malformed number, nesting past max_depth, bad \u escape or raw
 * control character (C_OTHER; cJSON skips any byte below 0x21 as white
 * space, so this pass does too, to stay in step).  Iterative, with a
 * fixed stack: it never recurses and never reads past len, whatever the
 * text (it also runs on text cJSON refused, to tell depth from syntax).
 */
static void scan(const char *t, size_t len, size_t target, unsigned check,
                 unsigned max_depth, const value_hook *hook, scan_out *o)
{
	char stack[LU_JSON_MAX_DEPTH + 8];
	/* cJSON skips a UTF-8 byte order mark at the start: so must this
	   pass, or every value after it is counted out of step */
	size_t depth = 0, count = 0, i = len >= 3 && !memcmp(t, BOM, 3) ? 3 : 0;
	bool expect_value = true;
	o->found = o->bad = NONE;
	o->problem = LU_JSON_OK;
	while (i < len) {
		char c = t[i];
		if ((unsigned char)c <= ' ') {
			if (!is_ws(c) && (check & C_OTHER))
				flag(o, i, LU_JSON_SYNTAX);
			i++;
			continue;
		}
		if (expect_value && c == ']') {
			/* an empty array: no value here */
			depth -= depth > 0;
			expect_value = false;
			i++;
			continue;
		}
		if (!expect_value && c != '"') {
			/* between values */
			char top = depth && depth <= sizeof stack
			               ? stack[depth - 1]
			               : 0;
			if (c == ',')
				expect_value = top == '[';
			else if (c == ':')
				expect_value = true;
			else if (c == '}' || c == ']')
				depth -= depth > 0;
			i++;
			continue;
		}
		if (expect_value) {
			if (count == target)
				o->found = i;
			if (hook)
				hook->at(hook->ctx, i);
			count++;
		}
		expect_value = false;
		if (c == '"') {
			i = scan_string(t, len, i, check, o);
		} else if (c == '{' || c == '[') {
			if (depth < sizeof stack)
				stack[depth] = c;
			if (++depth > max_depth && (check & C_OTHER))
				flag(o, i, LU_JSON_DEPTH);
			expect_value = c == '[';
			i++;
		} else {
			size_t s = i;
			while (i < len && (unsigned char)t[i] > ' ' &&
			       !strchr(",]}", t[i]))
				i++;
			if ((check & C_OTHER) &&
			    (c == '-' || (c >= '0' && c <= '9')) &&
			    !json_number(t, s, i))
				flag(o, s, LU_JSON_NUMBER);
		}
	}
}

/* ---- positions --------------------------------------------------------- */

/* A walk in pre-order (the order of the values in the text) of the nodes
   below `top`, top itself left out.  cJSON has no parent pointers: the
   pending siblings wait on a stack. */
typedef struct preorder {
	Array(cJSON *) stack;
	bool oom;
} preorder;

static void preorder_start(preorder *w, const cJSON *top)
{
	memset(&w->stack, 0, sizeof w->stack);
	w->oom = top && top->child && !lu_array_push(&w->stack, top->child);
}

/* The next node, or NULL at the end (or out of memory: w->oom). */
static cJSON *preorder_next(preorder *w)
{
	if (w->oom || !w->stack.size)
		return NULL;
	cJSON *cur = lu_array_pop(&w->stack);
	/* the next sibling first, so the child is visited before it */
	if ((cur->next && !lu_array_push(&w->stack, cur->next)) ||
	    (cur->child && !lu_array_push(&w->stack, cur->child)))
		w->oom = true;
	return cur;
}

static void preorder_end(preorder *w)
{
	lu_array_delete(&w->stack);
}

/* Pre-order index of `node` under root, or NONE. */
static size_t preorder_index(const cJSON *root, const cJSON *node)
{
	if (node == root)
		return 0;
	preorder w;
	preorder_start(&w, root);
	size_t idx = 1, found = NONE;
	for (const cJSON *cur; (cur = preorder_next(&w)); idx++)
		if (cur == node) {
			found = idx;
			break;
		}
	preorder_end(&w);
	return found;
}

size_t lu_json_offset_of(const cJSON *root, const char *text, size_t len,
                         const cJSON *node)
{
	if (!root || !node || !text)
		return 0;
	size_t idx = preorder_index(root, node);
	if (idx == NONE)
		return 0;
	scan_out o;
	scan(text, len, idx, 0, LU_JSON_MAX_DEPTH, NULL, &o);
	return o.found == NONE ? 0 : o.found;
}

/* ---- duplicate keys ---------------------------------------------------- */

typedef struct member {
	const char *key;
	size_t pos; /* in the object */
	const cJSON *node;
} member;

typedef Array(member) member_array;

static int cmp_member(const void *x, const void *y)
{
	const member *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	if (c)
		return c;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The member of obj that repeats an earlier key, the earliest such; NULL
   when none.  Sorting keeps objects of 100,000 keys fast. */
static const cJSON *object_duplicate(const cJSON *obj, member_array *scratch,
                                     bool *oom)
{
	lu_array_clear(scratch);
	size_t pos = 0;
	for (const cJSON *c = obj->child; c; c = c->next) {
		member m = {c->string ? c->string : "", pos++, c};
		if (!lu_array_push(scratch, m)) {
			*oom = true;
			return NULL;
		}
	}
	if (scratch->size < 2)
		return NULL;
	qsort(scratch->contents, scratch->size, sizeof(member), cmp_member);
	const member *best = NULL;
	for (size_t k = 1; k < scratch->size; k++) {
		const member *m = lu_array_get(scratch, k);
		if (!strcmp(lu_array_get(scratch, k - 1)->key, m->key) &&
		    (!best || m->pos < best->pos))
			best = m;
	}
	return best ? best->node : NULL;
}

const cJSON *lu_json_duplicate(const cJSON *root, bool *oom)
{
	bool dummy = false;
	if (!oom)
		oom = &dummy;
	*oom = false;
	if (!root)
		return NULL;
	member_array scratch = LU_ARRAY_INIT;
	const cJSON *dup =
	    cJSON_IsObject(root) ? object_duplicate(root, &scratch, oom) : NULL;
	preorder w;
	preorder_start(&w, root);
	for (const cJSON *cur; !dup && !*oom && (cur = preorder_next(&w));)
		if (cJSON_IsObject(cur))
			dup = object_duplicate(cur, &scratch, oom);
	*oom = *oom || w.oom;
	preorder_end(&w);
	lu_array_delete(&scratch);
	return *oom ? NULL : dup;
}

/* ---- number text (opts.number_text) ----------------------------------- */

/* The scanner's value starts and the tree's nodes, both in pre-order. */
typedef struct numbers {
	cJSON *root;
	preorder walk;
	const char *text;
	size_t len;
	size_t bad; /* NONE, or where the first problem is */
	lu_json_problem problem;
} numbers;

static void number_problem(numbers *k, size_t at, lu_json_problem p)
{
	if (k->bad == NONE) {
		k->bad = at;
		k->problem = p;
	}
}

/* value_hook: the value at `off` is the next node; a number keeps its
   text. */
static void keep_number(void *ctx, size_t off)
{
	numbers *k = ctx;
	cJSON *node = k->root;
	if (k->bad != NONE)
		return;
	if (node)
		k->root = NULL; /* the first value is the root */
	else
		node = preorder_next(&k->walk);
	if (!node || !cJSON_IsNumber(node)) {
		/* cJSON took this text, so the two agree on every value */
		if (NEVER(!node))
			number_problem(k, off,
			               k->walk.oom ? LU_JSON_NOMEM
			                           : LU_JSON_SYNTAX);
		return;
	}
	size_t e = off;
	while (e < k->len && k->text[e] &&
	       strchr("+-.eE0123456789", k->text[e]))
		e++;
	/* an integer keeps its digits whatever its double (Python reads
	   it exactly); a fraction or exponent that is not finite has no
	   text another reader would print */
	bool frac = memchr(k->text + off, '.', e - off) ||
	            memchr(k->text + off, 'e', e - off) ||
	            memchr(k->text + off, 'E', e - off);
	if (NEVER(e == off) || (frac && !isfinite(node->valuedouble))) {
		number_problem(k, off, LU_JSON_NUMBER);
		return;
	}
	node->valuestring = strndup(k->text + off, e - off);
	if (!node->valuestring)
		number_problem(k, off, LU_JSON_NOMEM);
}

/* ---- the reader -------------------------------------------------------- */

static lu_json_problem failed(lu_json_fail *why, lu_json_problem p, size_t off)
{
	if (why) {
		memset(why, 0, sizeof *why);
		why->problem = p;
		why->offset = off;
	}
	return p;
}

/* cJSON over a NUL-terminated copy (its strings are C strings anyway). */
static lu_json_problem parse(cJSON **out, const char *text, size_t len,
                             unsigned depth, lu_json_fail *why)
{
	char *copy = malloc(len + 1);
	if (!copy)
		return failed(why, LU_JSON_NOMEM, 0);
	memcpy(copy, text, len);
	copy[len] = '\0';
	const char *end = NULL;
	locus__alloc_failed_reset(); /* cJSON's NULL may be out of memory */
	*out = cJSON_ParseWithLengthOpts(copy, len, &end, false);
	size_t off =
	    end && end >= copy && end <= copy + len ? (size_t)(end - copy) : 0;
	free(copy);
	if (!*out && locus__alloc_failed())
		return failed(why, LU_JSON_NOMEM, 0);
	if (!*out) {
		/* nesting past the limit is refused by cJSON as a syntax
		   error: say which it was */
		scan_out o;
		scan(text, len, NONE, C_OTHER, depth, NULL, &o);
		if (o.problem == LU_JSON_DEPTH && o.bad <= off)
			return failed(why, LU_JSON_DEPTH, o.bad);
		return failed(why, LU_JSON_SYNTAX, off);
	}
	while (off < len && is_ws(text[off]))
		off++;
	if (off < len) {
		cJSON_Delete(*out);
		*out = NULL;
		return failed(why, LU_JSON_TRAILING, off);
	}
	return LU_JSON_OK;
}

lu_json_problem lu_json_read(cJSON **out, const char *text, size_t len,
                             const lu_json_opts *opts, lu_json_fail *why)
{
	static const lu_json_opts def = LU_JSON_OPTS_INIT;
	if (!opts || opts->version != LU_JSON_OPTS_VERSION)
		opts = &def;
	unsigned depth = opts->max_depth && opts->max_depth < LU_JSON_MAX_DEPTH
	                     ? opts->max_depth
	                     : LU_JSON_MAX_DEPTH;
	*out = NULL;
	if (!text)
		len = 0;
	if (opts->max_len && len > opts->max_len)
		return failed(why, LU_JSON_TOOBIG, opts->max_len);
	const char *nul = len ? memchr(text, '\0', len) : NULL;
	size_t bad = opts->any_bytes ? len : lu_utf8_invalid_at(text, len);
	if (nul && (size_t)(nul - text) <= bad)
		return failed(why, LU_JSON_NUL, (size_t)(nul - text));
	if (bad < len)
		return failed(why, LU_JSON_UTF8, bad);
	cJSON *root = NULL;
	lu_json_problem p = parse(&root, text ? text : "", len, depth, why);
	if (p)
		return p;
	scan_out o;
	numbers k = {.root = root, .text = text, .len = len, .bad = NONE};
	value_hook keep = {keep_number, &k};
	if (opts->number_text)
		preorder_start(&k.walk, root);
	scan(text, len, NONE, opts->escaped_nul ? C_OTHER : C_ALL, depth,
	     opts->number_text ? &keep : NULL, &o);
	if (opts->number_text)
		preorder_end(&k.walk);
	if (o.bad != NONE || k.bad != NONE) {
		cJSON_Delete(root);
		return o.bad <= k.bad ? failed(why, o.problem, o.bad)
		                      : failed(why, k.problem, k.bad);
	}
	if (!opts->duplicates) {
		bool oom = false;
		const cJSON *dup = lu_json_duplicate(root, &oom);
		if (oom || dup) {
			size_t off =
			    dup ? lu_json_offset_of(root, text, len, dup) : 0;
			if (dup && why) {
				failed(why, LU_JSON_DUPLICATE, off);
				snprintf(why->key, sizeof why->key, "%s",
				         dup->string ? dup->string : "");
			}
			cJSON_Delete(root);
			return oom ? failed(why, LU_JSON_NOMEM, 0)
			           : LU_JSON_DUPLICATE;
		}
	}
	if (opts->object && !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return failed(why, LU_JSON_NOT_OBJECT, 0);
	}
	*out = root;
	return LU_JSON_OK;
}

bool lu_json_add(cJSON *o, const char *k, cJSON *v)
{
	if (!v)
		return false;
	if (!cJSON_AddItemToObject(o, k, v)) {
		cJSON_Delete(v);
		return false;
	}
	return true;
}

int lu_json_print(char **out, cJSON *o, bool pretty)
{
	*out = NULL;
	char *s =
	    o ? (pretty ? cJSON_Print(o) : cJSON_PrintUnformatted(o)) : NULL;
	cJSON_Delete(o);
	if (!s)
		return -1;
	size_t n = strlen(s) + 1;
	*out = malloc(n);
	if (*out)
		memcpy(*out, s, n);
	cJSON_free(s);
	return *out ? 0 : -1;
}

int lu_json_write(FILE *out, cJSON *o, bool pretty)
{
	char *s = !o       ? NULL
	          : pretty ? cJSON_Print(o)
	                   : cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		return -1;
	int rc = fprintf(out, "%s\n", s) < 0 ? -1 : 0;
	cJSON_free(s);
	return rc;
}

/* The "\u000<from>" escapes in strings; each is rewritten to "\u000<to>"
   in place when `mark` (the same text, writable) is given, else the first
   ends the scan. */
static bool nul_escapes(const char *t, size_t len, char *mark, char from,
                        char to)
{
	bool in_str = false, found = false;
	for (size_t i = 0; i < len; i++) {
		if (!in_str) {
			in_str = t[i] == '"';
			continue;
		}
		if (t[i] == '"') {
			in_str = false;
		} else if (t[i] == '\\' && i + 1 < len) {
			if (t[i + 1] == 'u' && i + 5 < len &&
			    !memcmp(t + i + 2, "000", 3) && t[i + 5] == from) {
				if (!mark)
					return true;
				mark[i + 5] = to;
				found = true;
			}
			i++; /* skip the escaped character */
		}
	}
	return found;
}

bool lu_json_has_nul_escape(const char *text, size_t len)
{
	return nul_escapes(text, len, NULL, '0', '0');
}

bool lu_json_mark_nul_escapes(char *text, size_t len)
{
	return nul_escapes(text, len, text, '0', '1');
}

bool lu_json_unmark_nul_escapes(char *text, size_t len)
{
	return nul_escapes(text, len, text, '1', '0');
}

const char *lu_json_problem_text(lu_json_problem p)
{
	switch (p) {
	case LU_JSON_OK: return "no problem";
	case LU_JSON_NOMEM: return "out of memory";
	case LU_JSON_TOOBIG: return "too large";
	case LU_JSON_NUL: return "NUL byte";
	case LU_JSON_UTF8: return "invalid UTF-8";
	case LU_JSON_SYNTAX: return "malformed JSON";
	case LU_JSON_TRAILING: return "text after the JSON value";
	case LU_JSON_DEPTH: return "nested too deeply";
	case LU_JSON_ESCAPED_NUL: return "\\u0000 is not allowed in a string";
	case LU_JSON_NUMBER: return "malformed number";
	case LU_JSON_DUPLICATE: return "duplicate key";
	case LU_JSON_NOT_OBJECT: return "not a JSON object";
	}
	return "unknown problem";
}
