/*
 * runner/json.c - the runner's JSON: util's strict reader with each
 * number's text kept, the canonical writer, typed look-ups (runner/json.h).
 */
#include "runner/json.h"

#include "util/error.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/sha256.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reader is util's (util/json.h), with the number text kept: the
   canonical writer prints an integer as written, and lr_json_is_int tells
   1 from 1.0, the way the gateway's Python reads them. */
int lr_json_parse(const char *text, size_t len, cJSON **out, locus_error *err)
{
	/* a byte order mark, which cJSON skips, is not JSON to the gateway's
	   Python either */
	if (text && len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		*out = NULL;
		lu_err(err, LOCUS_EINVALID,
		       "malformed JSON at byte 0: a byte order mark");
		if (err)
			err->offset = 0;
		return LOCUS_EINVALID;
	}
	lu_json_opts o = LU_JSON_OPTS_INIT;
	o.max_depth = LR_JSON_MAX_DEPTH;
	o.number_text = true;
	lu_json_fail why;
	lu_json_problem p = lu_json_read(out, text, len, &o, &why);
	if (p == LU_JSON_OK)
		return 0;
	if (p == LU_JSON_NOMEM)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (p == LU_JSON_DUPLICATE)
		lu_err(err, LOCUS_EINVALID,
		       "malformed JSON at byte %zu: key \"%.60s\" given twice",
		       why.offset, why.key);
	else
		lu_err(err, LOCUS_EINVALID, "malformed JSON at byte %zu: %s",
		       why.offset, lu_json_problem_text(p));
	if (err)
		err->offset = (long)why.offset;
	return LOCUS_EINVALID;
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
	if (!lex && d == floor(d) && fabs(d) < LR_JSON_INT_LIMIT) {
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
		return lu_err(err, LOCUS_EINVALID, "%s is not a JSON object",
		              what);
	for (const cJSON *c = o->child; c; c = c->next) {
		bool ok = false;
		for (size_t i = 0; allowed[i] && !ok; i++)
			ok = !strcmp(c->string, allowed[i]);
		if (!ok)
			return lu_err(err, LOCUS_EINVALID,
			              "%s: unknown field \"%.60s\"", what,
			              c->string);
	}
	return 0;
}

bool lr_json_is_int(const cJSON *v)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return false;
	if (v->valuestring && !lexeme_is_int(v->valuestring))
		return false;
	double d = v->valuedouble;
	return d == floor(d) && fabs(d) < LR_JSON_INT_LIMIT;
}

static cJSON_bool is_finite_number(const cJSON *v)
{
	return cJSON_IsNumber(v) && isfinite(v->valuedouble);
}

static cJSON_bool is_count(const cJSON *v)
{
	return lr_json_is_int(v) && v->valuedouble >= 0;
}

/* o[key] when it is there, not null and passes `test`; else NULL, and
   *bad (when given and not yet set) = key when it is there but fails. */
static const cJSON *typed(const cJSON *o, const char *key,
                          cJSON_bool (*test)(const cJSON *), const char **bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v))
		return NULL;
	if (!test(v)) {
		if (bad && !*bad)
			*bad = key;
		return NULL;
	}
	return v;
}

const char *lr_json_str(const cJSON *o, const char *key, const char **bad)
{
	const cJSON *v = typed(o, key, cJSON_IsString, bad);
	return v ? v->valuestring : NULL;
}

const cJSON *lr_json_obj(const cJSON *o, const char *key, const char **bad)
{
	return typed(o, key, cJSON_IsObject, bad);
}

const cJSON *lr_json_arr(const cJSON *o, const char *key, const char **bad)
{
	return typed(o, key, cJSON_IsArray, bad);
}

bool lr_json_num(const cJSON *o, const char *key, double *out, const char **bad)
{
	const cJSON *v = typed(o, key, is_finite_number, bad);
	if (v)
		*out = v->valuedouble;
	return v != NULL;
}

bool lr_json_bool(const cJSON *o, const char *key, bool *out, const char **bad)
{
	const cJSON *v = typed(o, key, cJSON_IsBool, bad);
	if (v)
		*out = cJSON_IsTrue(v);
	return v != NULL;
}

bool lr_json_count(const cJSON *o, const char *key, long *out, const char **bad)
{
	const cJSON *v = typed(o, key, is_count, bad);
	if (v)
		*out = (long)v->valuedouble;
	return v != NULL;
}
