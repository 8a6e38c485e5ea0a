/*
 * policy/json.c - strict JSON for policy and settings files.
 *
 * cJSON is lenient where a policy loader must not be: it takes invalid
 * UTF-8, keeps duplicate keys (first wins on lookup, so a second "deny_for"
 * would be silently ignored), reads "\u0000" as the end of a string and
 * numbers like "01" or "1.".  It also records no positions.  This file adds
 * the missing checks around cJSON and finds a node's line and column by
 * re-scanning the text: values appear in the text in the same pre-order as
 * in cJSON's tree, so the node's pre-order index locates it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define PL_MAX_NESTING 1000 /* cJSON's own limit; the scanner's stack */

int pl_error(locus_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		memset(err, 0, sizeof(*err));
		err->code = code;
		err->offset = -1;
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return code;
}

static void line_col(const char *text, size_t off, int *line, int *col)
{
	int l = 1;
	size_t last = 0;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			l++;
			last = i + 1;
		}
	}
	*line = l;
	*col = (int)(off - last) + 1;
}

static int error_at(locus_error *err, const char *what, const char *text,
                    size_t off, const char *msg)
{
	if (err) {
		int line, col;
		line_col(text, off, &line, &col);
		memset(err, 0, sizeof(*err));
		err->code = LOCUS_EINVALID;
		err->offset = (long)off;
		err->line = line;
		snprintf(err->message, sizeof(err->message),
		         "%s: line %d, column %d: %s", what, line, col, msg);
	}
	return LOCUS_EINVALID;
}

/* Offset of the first byte that is not valid UTF-8 (or a NUL), or len. */
static size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned c = s[i];
		if (c == 0)
			return i;
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t n;
		unsigned min;
		unsigned cp;
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			min = 0x80;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			min = 0x800;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			min = 0x10000;
			cp = c & 0x07;
		} else {
			return i;
		}
		if (len - i <= n)
			return i;
		for (size_t k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += n + 1;
	}
	return len;
}

/*
 * One pass over (already cJSON-accepted) text.  Counts value starts in
 * pre-order; returns the offset of value number `target` (0-based) in
 * *found.  With `check`, also rejects "\u0000" in strings and numbers that
 * are not JSON numbers, reporting the offset in *bad.  Iterative, with a
 * stack bounded by cJSON's nesting limit (the text parsed, so it holds).
 */
static void scan(const char *t, size_t len, size_t target, size_t *found,
                 bool check, size_t *bad, const char **badmsg)
{
	char stack[PL_MAX_NESTING + 8];
	size_t depth = 0, count = 0, i = 0;
	bool expect_value = true;
	*found = (size_t)-1;
	if (bad)
		*bad = (size_t)-1;
	while (i < len) {
		char c = t[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			i++;
			continue;
		}
		if (expect_value && c == ']') {
			/* an empty array: no value here */
			if (depth)
				depth--;
			expect_value = false;
			i++;
			continue;
		}
		if (c == '"') {
			bool is_value = expect_value;
			if (is_value) {
				if (count == target)
					*found = i;
				count++;
			}
			size_t start = i++;
			while (i < len && t[i] != '"') {
				if (t[i] == '\\' && i + 1 < len) {
					if (check && t[i + 1] == 'u' && i + 5 < len &&
					    memcmp(t + i + 2, "0000", 4) == 0 && *bad == (size_t)-1) {
						*bad = i;
						*badmsg = "\\u0000 is not allowed in a string";
					}
					i += 2;
					continue;
				}
				i++;
			}
			i++;
			(void)start;
			expect_value = false;
			continue;
		}
		if (expect_value) {
			if (count == target)
				*found = i;
			count++;
			if (c == '{' || c == '[') {
				if (depth < sizeof(stack))
					stack[depth] = c;
				depth++;
				expect_value = (c == '[');
				i++;
				continue;
			}
			size_t s = i;
			while (i < len && !strchr(",]} \t\r\n", t[i]))
				i++;
			if (check && (c == '-' || (c >= '0' && c <= '9')) &&
			    *bad == (size_t)-1) {
				/* JSON number: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? */
				size_t k = s;
				bool ok = true;
				if (t[k] == '-')
					k++;
				if (k < i && t[k] == '0') {
					k++;
				} else if (k < i && t[k] >= '1' && t[k] <= '9') {
					while (k < i && t[k] >= '0' && t[k] <= '9')
						k++;
				} else {
					ok = false;
				}
				if (ok && k < i && t[k] == '.') {
					k++;
					size_t d = k;
					while (k < i && t[k] >= '0' && t[k] <= '9')
						k++;
					ok = k > d;
				}
				if (ok && k < i && (t[k] == 'e' || t[k] == 'E')) {
					k++;
					if (k < i && (t[k] == '+' || t[k] == '-'))
						k++;
					size_t d = k;
					while (k < i && t[k] >= '0' && t[k] <= '9')
						k++;
					ok = k > d;
				}
				if (!ok || k != i) {
					*bad = s;
					*badmsg = "malformed number";
				}
			}
			expect_value = false;
			continue;
		}
		/* between values */
		char top = (depth && depth <= sizeof(stack)) ? stack[depth - 1] : 0;
		if (c == ',') {
			expect_value = (top == '[');
		} else if (c == ':') {
			expect_value = true;
		} else if (c == '}' || c == ']') {
			if (depth)
				depth--;
		}
		i++;
	}
}

void pl_doc_free(pl_doc *doc)
{
	if (!doc)
		return;
	cJSON_Delete(doc->root);
	free((void *)(uintptr_t)doc->text);
	memset(doc, 0, sizeof(*doc));
}

/* Duplicate keys: cJSON keeps both members in the child list.  Walk every
 * object with an explicit stack; report the second occurrence. */
static int check_duplicates(pl_doc *doc, locus_error *err)
{
	size_t cap = 64, n = 0;
	const cJSON **stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return pl_error(err, LOCUS_ENOMEM, "out of memory");
	stack[n++] = doc->root;
	int rc = 0;
	while (n && !rc) {
		const cJSON *node = stack[--n];
		for (const cJSON *c = node->child; c; c = c->next) {
			if (cJSON_IsObject(node)) {
				for (const cJSON *p = node->child; p != c; p = p->next) {
					if (p->string && c->string &&
					    strcmp(p->string, c->string) == 0) {
						rc = pl_doc_error(doc, c, c->string, err,
						                  "duplicate key");
						break;
					}
				}
				if (rc)
					break;
			}
			if (c->child) {
				if (n == cap) {
					const cJSON **ns = realloc(stack, 2 * cap * sizeof(*ns));
					if (!ns) {
						rc = pl_error(err, LOCUS_ENOMEM, "out of memory");
						break;
					}
					stack = ns;
					cap *= 2;
				}
				stack[n++] = c;
			}
		}
	}
	free(stack);
	return rc;
}

int pl_doc_parse(pl_doc *doc, const char *what, const char *text, size_t len,
                 locus_error *err)
{
	memset(doc, 0, sizeof(*doc));
	doc->what = what;
	if (len > PL_MAX_DOC)
		return pl_error(err, LOCUS_ETOOBIG, "%s: file is larger than %zu bytes",
		                what, PL_MAX_DOC);
	size_t bad = utf8_invalid_at((const unsigned char *)text, len);
	if (bad < len)
		return error_at(err, what, text, bad,
		                text[bad] ? "invalid UTF-8" : "NUL byte");
	char *copy = malloc(len + 1);
	if (!copy)
		return pl_error(err, LOCUS_ENOMEM, "out of memory");
	memcpy(copy, text, len);
	copy[len] = '\0';
	doc->text = copy;
	doc->len = len;
	const char *end = NULL;
	/* len + 1: cJSON's require_null_terminated needs to see the NUL */
	doc->root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, true);
	if (!doc->root) {
		size_t off = (end && end >= copy && end <= copy + len)
		                     ? (size_t)(end - copy)
		                     : 0;
		int rc = error_at(err, what, copy, off,
		                  len == 0 ? "empty document" : "malformed JSON");
		pl_doc_free(doc);
		return rc;
	}
	size_t found;
	const char *msg = NULL;
	scan(copy, len, (size_t)-1, &found, true, &bad, &msg);
	if (bad != (size_t)-1) {
		int rc = error_at(err, what, copy, bad, msg);
		pl_doc_free(doc);
		return rc;
	}
	int rc = check_duplicates(doc, err);
	if (rc) {
		pl_doc_free(doc);
		return rc;
	}
	return 0;
}

/* Pre-order index of `node` in the tree, or (size_t)-1.  cJSON has no
 * parent pointers, so the walk keeps the pending siblings on a stack. */
static size_t preorder_index(const cJSON *root, const cJSON *node)
{
	size_t cap = 64, n = 0, idx = 0;
	const cJSON **stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return (size_t)-1;
	stack[n++] = root;
	while (n) {
		const cJSON *cur = stack[--n];
		if (cur == node) {
			free(stack);
			return idx;
		}
		idx++;
		/* push next sibling first so the child is visited before it */
		const cJSON *pend[2] = {cur != root ? cur->next : NULL, cur->child};
		for (int k = 0; k < 2; k++) {
			if (!pend[k])
				continue;
			if (n == cap) {
				const cJSON **ns = realloc(stack, 2 * cap * sizeof(*ns));
				if (!ns) {
					free(stack);
					return (size_t)-1;
				}
				stack = ns;
				cap *= 2;
			}
			stack[n++] = pend[k];
		}
	}
	free(stack);
	return (size_t)-1;
}

int pl_doc_error(const pl_doc *doc, const cJSON *node, const char *field,
                 locus_error *err, const char *fmt, ...)
{
	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t off = 0;
	if (node && doc->text) {
		size_t idx = preorder_index(doc->root, node);
		size_t found;
		if (idx != (size_t)-1) {
			scan(doc->text, doc->len, idx, &found, false, NULL, NULL);
			if (found != (size_t)-1)
				off = found;
		}
	}
	char full[240];
	snprintf(full, sizeof(full), "field \"%s\": %s", field ? field : "", msg);
	return error_at(err, doc->what, doc->text ? doc->text : "", off, full);
}
