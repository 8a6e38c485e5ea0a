/*
 * runner/json.c - strict JSON reader and canonical writer (runner/json.h).
 */
#include "runner/json.h"

#include "harness/internal.h"
#include "util/buf.h"
#include "util/sha256.h"
#include "util/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jp {
	const char *s;
	size_t n, i;
	int depth;
	locus_error *err;
} jp;

static int jp_fail(jp *p, const char *why)
{
	lh_err(p->err, LOCUS_EINVALID, "malformed JSON at byte %zu: %s", p->i,
	       why);
	if (p->err)
		p->err->offset = (long)p->i;
	return LOCUS_EINVALID;
}

static void jp_ws(jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
	                       p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static int jp_value(jp *p, cJSON **out);

/* One raw UTF-8 sequence at p->i (first byte >= 0x80), copied to b. */
static int jp_utf8(jp *p, lu_buf *b)
{
	size_t len = lu_utf8_seq(p->s + p->i, p->n - p->i);
	if (!len)
		return jp_fail(p, "invalid UTF-8");
	lu_buf_add(b, p->s + p->i, len);
	p->i += len;
	return 0;
}

static int jp_hex4(jp *p, unsigned *v)
{
	if (p->n - p->i < 4)
		return jp_fail(p, "truncated \\u escape");
	*v = 0;
	for (int k = 0; k < 4; k++) {
		int d = lu_hex_digit((unsigned char)p->s[p->i + k]);
		if (d < 0)
			return jp_fail(p, "bad \\u escape");
		*v = (*v << 4) | (unsigned)d;
	}
	p->i += 4;
	return 0;
}

static void put_cp(lu_buf *b, unsigned cp)
{
	char o[4];
	size_t n;
	if (cp < 0x80) {
		o[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		o[0] = (char)(0xf0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	lu_buf_add(b, o, n);
}

static int jp_escape(jp *p, lu_buf *b)
{
	if (p->i >= p->n)
		return jp_fail(p, "truncated escape");
	char c = p->s[p->i++];
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = c ? strchr(from, c) : NULL;
	if (k) {
		lu_buf_add(b, &to[k - from], 1);
		return 0;
	}
	if (c != 'u')
		return jp_fail(p, "bad escape");
	unsigned cp, lo;
	if (jp_hex4(p, &cp))
		return LOCUS_EINVALID;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return jp_fail(p, "lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (p->n - p->i < 2 || p->s[p->i] != '\\' ||
		    p->s[p->i + 1] != 'u')
			return jp_fail(p, "lone high surrogate");
		p->i += 2;
		if (jp_hex4(p, &lo))
			return LOCUS_EINVALID;
		if (lo < 0xdc00 || lo > 0xdfff)
			return jp_fail(p, "bad surrogate pair");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0)
		return jp_fail(p, "NUL in a string");
	put_cp(b, cp);
	return 0;
}

/* A string at p->i (the opening quote); *out malloc'd. */
static int jp_string(jp *p, char **out)
{
	lu_buf b = {0};
	p->i++;
	int rc = 0;
	for (;;) {
		if (p->i >= p->n) {
			rc = jp_fail(p, "unterminated string");
			break;
		}
		unsigned char c = (unsigned char)p->s[p->i];
		if (c == '"') {
			p->i++;
			break;
		}
		if (c < 0x20) {
			rc = jp_fail(p, "control character in a string");
			break;
		}
		if (c == '\\') {
			p->i++;
			rc = jp_escape(p, &b);
		} else if (c >= 0x80) {
			rc = jp_utf8(p, &b);
		} else {
			size_t j = p->i;
			while (j < p->n && (unsigned char)p->s[j] >= 0x20 &&
			       (unsigned char)p->s[j] < 0x80 &&
			       p->s[j] != '"' && p->s[j] != '\\')
				j++;
			lu_buf_add(&b, p->s + p->i, j - p->i);
			p->i = j;
		}
		if (rc)
			break;
	}
	if (!rc && !b.d)
		lu_buf_add(&b, "", 0);
	if (!rc && b.oom)
		rc = lh_err(p->err, LOCUS_ENOMEM, "out of memory");
	if (rc) {
		lu_buf_free(&b);
		return rc;
	}
	*out = lu_buf_take(&b);
	return 0;
}

static int jp_number(jp *p, cJSON **out)
{
	size_t st = p->i;
	if (p->s[p->i] == '-')
		p->i++;
	if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
		return jp_fail(p, "bad number");
	if (p->s[p->i] == '0')
		p->i++;
	else
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
	bool is_float = false;
	if (p->i < p->n && p->s[p->i] == '.') {
		is_float = true;
		p->i++;
		size_t d = p->i;
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
		if (d == p->i)
			return jp_fail(p, "bad number (no digit after '.')");
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		is_float = true;
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		size_t d = p->i;
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
		if (d == p->i)
			return jp_fail(p, "bad number (empty exponent)");
	}
	size_t len = p->i - st;
	if (len > 400)
		return jp_fail(p, "number too long");
	char tmp[401];
	memcpy(tmp, p->s + st, len);
	tmp[len] = '\0';
	double v = strtod(tmp, NULL);
	if (is_float && !isfinite(v))
		return jp_fail(p, "number out of range");
	cJSON *n = cJSON_CreateNumber(v);
	char *lex = n ? strdup(tmp) : NULL;
	if (!lex) {
		cJSON_Delete(n);
		return lh_err(p->err, LOCUS_ENOMEM, "out of memory");
	}
	n->valuestring = lex;
	*out = n;
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* No key twice: sort the keys and look at neighbours. */
static int jp_no_dups(jp *p, cJSON *o)
{
	size_t n = (size_t)cJSON_GetArraySize(o), k = 0;
	if (n < 2)
		return 0;
	char **keys = malloc(n * sizeof *keys);
	if (!keys)
		return lh_err(p->err, LOCUS_ENOMEM, "out of memory");
	for (cJSON *c = o->child; c; c = c->next)
		keys[k++] = c->string;
	qsort(keys, n, sizeof *keys, key_cmp);
	int rc = 0;
	for (k = 1; k < n && !rc; k++)
		if (!strcmp(keys[k - 1], keys[k])) {
			lh_err(p->err, LOCUS_EINVALID,
			       "malformed JSON: key \"%.60s\" given twice",
			       keys[k]);
			rc = LOCUS_EINVALID;
		}
	free(keys);
	return rc;
}

static int jp_object(jp *p, cJSON **out)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return lh_err(p->err, LOCUS_ENOMEM, "out of memory");
	p->i++;
	jp_ws(p);
	int rc = 0;
	if (p->i < p->n && p->s[p->i] == '}') {
		p->i++;
		*out = o;
		return 0;
	}
	for (;;) {
		jp_ws(p);
		if (p->i >= p->n || p->s[p->i] != '"') {
			rc = jp_fail(p, "expected a key");
			break;
		}
		char *key = NULL;
		cJSON *v = NULL;
		if ((rc = jp_string(p, &key)))
			break;
		jp_ws(p);
		if (p->i >= p->n || p->s[p->i] != ':') {
			free(key);
			rc = jp_fail(p, "expected ':'");
			break;
		}
		p->i++;
		if ((rc = jp_value(p, &v))) {
			free(key);
			break;
		}
		/* cJSON takes the key over without a copy */
		v->string = key;
		cJSON_AddItemToArray(o, v);
		jp_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == '}') {
			p->i++;
			break;
		}
		rc = jp_fail(p, "expected ',' or '}'");
		break;
	}
	if (!rc)
		rc = jp_no_dups(p, o);
	if (rc) {
		cJSON_Delete(o);
		return rc;
	}
	*out = o;
	return 0;
}

static int jp_array(jp *p, cJSON **out)
{
	cJSON *a = cJSON_CreateArray();
	if (!a)
		return lh_err(p->err, LOCUS_ENOMEM, "out of memory");
	p->i++;
	jp_ws(p);
	if (p->i < p->n && p->s[p->i] == ']') {
		p->i++;
		*out = a;
		return 0;
	}
	for (;;) {
		cJSON *v = NULL;
		int rc = jp_value(p, &v);
		if (rc) {
			cJSON_Delete(a);
			return rc;
		}
		cJSON_AddItemToArray(a, v);
		jp_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == ']') {
			p->i++;
			*out = a;
			return 0;
		}
		cJSON_Delete(a);
		return jp_fail(p, "expected ',' or ']'");
	}
}

static int jp_word(jp *p, const char *w, cJSON *(*make)(void), cJSON **out)
{
	size_t n = strlen(w);
	if (p->n - p->i < n || memcmp(p->s + p->i, w, n))
		return jp_fail(p, "unexpected character");
	p->i += n;
	*out = make();
	return *out ? 0 : lh_err(p->err, LOCUS_ENOMEM, "out of memory");
}

static cJSON *mk_true(void)
{
	return cJSON_CreateTrue();
}
static cJSON *mk_false(void)
{
	return cJSON_CreateFalse();
}

static int jp_value(jp *p, cJSON **out)
{
	jp_ws(p);
	if (p->i >= p->n)
		return jp_fail(p, "unexpected end");
	if (++p->depth > LR_JSON_MAX_DEPTH)
		return jp_fail(p, "nested too deeply");
	int rc;
	char c = p->s[p->i];
	if (c == '{')
		rc = jp_object(p, out);
	else if (c == '[')
		rc = jp_array(p, out);
	else if (c == '"') {
		char *s = NULL;
		rc = jp_string(p, &s);
		if (!rc) {
			*out = cJSON_CreateString(s);
			free(s);
			if (!*out)
				rc = lh_err(p->err, LOCUS_ENOMEM,
				            "out of memory");
		}
	} else if (c == '-' || (c >= '0' && c <= '9'))
		rc = jp_number(p, out);
	else if (c == 't')
		rc = jp_word(p, "true", mk_true, out);
	else if (c == 'f')
		rc = jp_word(p, "false", mk_false, out);
	else if (c == 'n')
		rc = jp_word(p, "null", cJSON_CreateNull, out);
	else
		rc = jp_fail(p, "unexpected character");
	p->depth--;
	return rc;
}

int lr_json_parse(const char *text, size_t len, cJSON **out, locus_error *err)
{
	*out = NULL;
	jp p = {text ? text : "", text ? len : 0, 0, 0, err};
	cJSON *v = NULL;
	int rc = jp_value(&p, &v);
	if (rc)
		return rc;
	jp_ws(&p);
	if (p.i != p.n) {
		cJSON_Delete(v);
		return jp_fail(&p, "trailing data after the value");
	}
	*out = v;
	return 0;
}

/* ---- the canonical writer ---- */

/* Python's repr() of a finite double: the shortest digits that read back
   the same, fixed notation for exponents -4..15 (with ".0" when integral),
   else d[.ddd]e[+-]XX. */
static void py_float_repr(double v, lu_buf *b)
{
	char tmp[40];
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	/* tmp: [-]d[.ddd]e[+-]XX */
	char digits[24];
	size_t nd = 0;
	const char *q = tmp;
	bool neg = *q == '-';
	if (neg)
		q++;
	for (; *q && *q != 'e'; q++)
		if (*q >= '0' && *q <= '9')
			digits[nd++] = *q;
	int exp = atoi(q + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (neg)
		lu_buf_puts(b, "-");
	if (exp >= -4 && exp < 16) {
		if (exp < 0) {
			lu_buf_puts(b, "0.");
			for (int k = -1; k > exp; k--)
				lu_buf_puts(b, "0");
			lu_buf_add(b, digits, nd);
		} else {
			for (int k = 0; k <= exp; k++)
				lu_buf_add(b, (size_t)k < nd ? &digits[k] : "0",
				           1);
			lu_buf_puts(b, ".");
			if ((size_t)exp + 1 < nd)
				lu_buf_add(b, digits + exp + 1,
				           nd - (size_t)exp - 1);
			else
				lu_buf_puts(b, "0");
		}
		return;
	}
	lu_buf_add(b, digits, 1);
	if (nd > 1) {
		lu_buf_puts(b, ".");
		lu_buf_add(b, digits + 1, nd - 1);
	}
	lu_buf_printf(b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
}

static bool lexeme_is_int(const char *s)
{
	return s && !strpbrk(s, ".eE");
}

static bool put_number(const cJSON *v, lu_buf *b)
{
	const char *lex = v->valuestring;
	if (lexeme_is_int(lex)) {
		lu_buf_puts(b, strcmp(lex, "-0") ? lex : "0");
		return true;
	}
	double d = v->valuedouble;
	if (!isfinite(d))
		return false;
	if (!lex && d == floor(d) && fabs(d) < 9007199254740992.0) {
		lu_buf_printf(b, "%.0f", d == 0 ? 0.0 : d);
		return true;
	}
	py_float_repr(d, b);
	return true;
}

static void put_string(const char *s, lu_buf *b)
{
	lu_buf_puts(b, "\"");
	const char *run = s;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *esc = NULL;
		char u[8];
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\t': esc = "\\t"; break;
		case '\r': esc = "\\r"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		default:
			if (c < 0x20) {
				snprintf(u, sizeof u, "\\u%04x", c);
				esc = u;
			}
		}
		if (esc) {
			lu_buf_add(b, run, (size_t)(s - run));
			lu_buf_puts(b, esc);
			run = s + 1;
		}
	}
	lu_buf_add(b, run, (size_t)(s - run));
	lu_buf_puts(b, "\"");
}

static bool put_value(const cJSON *v, lu_buf *b);

/* Code-point order: byte order of UTF-8 (keys hold no NUL). */
static int item_cmp(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a,
	            *y = *(const cJSON *const *)b;
	return strcmp(x->string ? x->string : "", y->string ? y->string : "");
}

static bool put_object(const cJSON *v, lu_buf *b)
{
	size_t n = 0, k = 0;
	for (const cJSON *c = v->child; c; c = c->next)
		n++;
	const cJSON **items = n ? malloc(n * sizeof *items) : NULL;
	if (n && !items) {
		b->oom = true;
		return false;
	}
	for (const cJSON *c = v->child; c; c = c->next)
		items[k++] = c;
	if (n > 1)
		qsort(items, n, sizeof *items, item_cmp);
	bool ok = true;
	lu_buf_puts(b, "{");
	for (size_t i = 0; i < n && ok; i++) {
		if (i)
			lu_buf_puts(b, ",");
		put_string(items[i]->string ? items[i]->string : "", b);
		lu_buf_puts(b, ":");
		ok = put_value(items[i], b);
	}
	lu_buf_puts(b, "}");
	free(items);
	return ok;
}

static bool put_value(const cJSON *v, lu_buf *b)
{
	if (cJSON_IsNull(v))
		lu_buf_puts(b, "null");
	else if (cJSON_IsTrue(v))
		lu_buf_puts(b, "true");
	else if (cJSON_IsFalse(v))
		lu_buf_puts(b, "false");
	else if (cJSON_IsNumber(v))
		return put_number(v, b);
	else if (cJSON_IsString(v))
		put_string(v->valuestring ? v->valuestring : "", b);
	else if (cJSON_IsArray(v)) {
		lu_buf_puts(b, "[");
		for (const cJSON *c = v->child; c; c = c->next) {
			if (c != v->child)
				lu_buf_puts(b, ",");
			if (!put_value(c, b))
				return false;
		}
		lu_buf_puts(b, "]");
	} else if (cJSON_IsObject(v))
		return put_object(v, b);
	else
		return false;
	return true;
}

char *lr_json_canonical(const cJSON *v)
{
	lu_buf b = {0};
	if (!v || !put_value(v, &b) || b.oom) {
		lu_buf_free(&b);
		return NULL;
	}
	return lu_buf_take(&b);
}

int lr_json_digest(const cJSON *v, char out[72])
{
	char *t = lr_json_canonical(v);
	if (!t)
		return LOCUS_EINVALID;
	char hex[65];
	lu_sha256_hex(t, strlen(t), hex);
	free(t);
	snprintf(out, 72, "sha256:%s", hex);
	return 0;
}

/* ---- look-ups ---- */

int lr_json_known(const cJSON *o, const char *const *allowed, const char *what,
                  locus_error *err)
{
	if (!cJSON_IsObject(o))
		return lh_err(err, LOCUS_EINVALID, "%s is not a JSON object",
		              what);
	for (const cJSON *c = o->child; c; c = c->next) {
		bool ok = false;
		for (size_t i = 0; allowed[i] && !ok; i++)
			ok = !strcmp(c->string, allowed[i]);
		if (!ok)
			return lh_err(err, LOCUS_EINVALID,
			              "%s: unknown field \"%.60s\"", what,
			              c->string);
	}
	return 0;
}

static const cJSON *member(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return v && !cJSON_IsNull(v) ? v : NULL;
}

#define LR_TYPED(name, type, test, ret)                                        \
	type name(const cJSON *o, const char *key, const char **bad)           \
	{                                                                      \
		const cJSON *v = member(o, key);                               \
		if (!v)                                                        \
			return NULL;                                           \
		if (!test(v)) {                                                \
			if (bad && !*bad)                                      \
				*bad = key;                                    \
			return NULL;                                           \
		}                                                              \
		return ret;                                                    \
	}
LR_TYPED(lr_json_str, const char *, cJSON_IsString, v->valuestring)
LR_TYPED(lr_json_obj, const cJSON *, cJSON_IsObject, v)
LR_TYPED(lr_json_arr, const cJSON *, cJSON_IsArray, v)

bool lr_json_num(const cJSON *o, const char *key, double *out, const char **bad)
{
	const cJSON *v = member(o, key);
	if (!v)
		return false;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
		if (bad && !*bad)
			*bad = key;
		return false;
	}
	*out = v->valuedouble;
	return true;
}

bool lr_json_bool(const cJSON *o, const char *key, bool *out, const char **bad)
{
	const cJSON *v = member(o, key);
	if (!v)
		return false;
	if (!cJSON_IsBool(v)) {
		if (bad && !*bad)
			*bad = key;
		return false;
	}
	*out = cJSON_IsTrue(v);
	return true;
}

bool lr_json_count(const cJSON *o, const char *key, long *out, const char **bad)
{
	const cJSON *v = member(o, key);
	if (!v)
		return false;
	if (!lr_json_is_int(v) || v->valuedouble < 0) {
		if (bad && !*bad)
			*bad = key;
		return false;
	}
	*out = (long)v->valuedouble;
	return true;
}

bool lr_json_is_int(const cJSON *v)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return false;
	if (v->valuestring && !lexeme_is_int(v->valuestring))
		return false;
	double d = v->valuedouble;
	return d == floor(d) && fabs(d) < 9007199254740992.0;
}
