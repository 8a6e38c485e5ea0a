/*
 * fuzz_mcp - the text handling of `locus mcp` that is not cJSON's: the raw
 * member scanner behind exact ids and progress tokens, id keys for
 * cancellation, the escaped-NUL check, and the readers of ls/glob/grep
 * text into structuredContent (agents/mcp_io.c, agents/mcp_struct.c).
 *
 * Input: any bytes.  When they make a message the server acts on (read as
 * mcp_rpc.c's parse_line reads a line: strict UTF-8, no raw NUL, one
 * value; and no key twice anywhere, which the server refuses or ignores),
 * the scanner must find a member cJSON has
 * (unless its key is spelled with escapes), inside the input, and a
 * number id's raw text must parse to the same number.  Every input is
 * also read as ls, glob and grep output: the structure is an object.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agents/mcp.h"
#include "util/json.h"

#include "fuzz_check.h"

/* a and b are the same JSON value, numbers compared as doubles with two
   infinities of one sign the same (cJSON_Compare never finds two
   infinities equal, 1e400, at any depth: `[{"d":52e333}]`, found by this
   target); objects member by member (no key twice: checked first). */
static bool same_json(const cJSON *a, const cJSON *b)
{
	if ((a->type & 0xff) != (b->type & 0xff))
		return false;
	if (cJSON_IsNumber(a))
		return a->valuedouble == b->valuedouble;
	if (cJSON_IsString(a))
		return !strcmp(a->valuestring, b->valuestring);
	if (cJSON_IsArray(a) || cJSON_IsObject(a)) {
		int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
		if (na != nb)
			return false;
		const cJSON *y = b->child;
		for (const cJSON *x = a->child; x; x = x->next, y = y->next) {
			const cJSON *other =
			    cJSON_IsObject(a)
			        ? cJSON_GetObjectItemCaseSensitive(b, x->string)
			        : y;
			if (!other || !same_json(x, other))
				return false;
		}
		return true;
	}
	return true; /* null, true, false: the type says it */
}

static void check_member(const char *s, size_t n, const cJSON *obj,
                         const char *key)
{
	const char *at;
	size_t len;
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	size_t same = 0;
	for (const cJSON *c = obj->child; c; c = c->next)
		same += c->string && !strcmp(c->string, key);
	if (same > 1)
		return; /* the server refuses duplicate keys first */
	if (mcp_raw_member(s, n, key, &at, &len) != 0)
		return; /* not found: a key with escapes, or none */
	FUZZ_CHECK(it != NULL, "found '%s' cJSON does not have", key);
	FUZZ_CHECK(at >= s && at + len <= s + n, "span outside the input");
	cJSON *v = cJSON_ParseWithLength(at, len);
	FUZZ_CHECK(v != NULL, "the raw value of '%s' is not JSON", key);
	FUZZ_CHECK(same_json(v, it), "the raw value of '%s' differs", key);
	cJSON_Delete(v);
}

static void check_id(const char *s, size_t n, const cJSON *obj)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, "id");
	for (const cJSON *c = obj->child; c; c = c->next)
		if (c != id && c->string && !strcmp(c->string, "id"))
			return; /* duplicate keys: refused before this */
	char *t = mcp_id_text(s, n, id);
	if (!t)
		return;
	cJSON *back = cJSON_Parse(t);
	FUZZ_CHECK(back != NULL, "id text is not JSON: %s", t);
	if (cJSON_IsNumber(id))
		FUZZ_CHECK(cJSON_IsNumber(back) &&
		               back->valuedouble == id->valuedouble,
		           "number id changed: %s", t);
	char *k = mcp_id_key(t);
	FUZZ_CHECK(k && (k[0] == 'n' || k[0] == 's') && k[1] == ':', "bad key");
	free(k);
	cJSON_Delete(back);
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)lu_json_has_nul_escape(s, size);
	/* the server's reading (the lenient cJSON read let in
	   duplicate keys and invalid UTF-8, which the server never scans, and
	   cJSON_Compare takes the first of two keys: a false break) */
	lu_json_opts o = LU_JSON_OPTS_INIT;
	o.duplicates = true;
	o.escaped_nul = true;
	cJSON *obj = NULL;
	lu_json_read(&obj, s, size, &o, NULL);
	if (obj && lu_json_duplicate(obj, NULL)) {
		cJSON_Delete(obj);
		obj = NULL;
	}
	if (cJSON_IsObject(obj)) {
		check_member(s, size, obj, "id");
		check_member(s, size, obj, "params");
		check_member(s, size, obj, "method");
		check_id(s, size, obj);
	}
	cJSON_Delete(obj);
	static const char *const tools[] = {"ls", "glob", "grep"};
	/* clang-format off */
	static const char *const args[] = {
	    NULL, "{\"output_mode\":\"files\"}", "{\"output_mode\":\"count\"}"};
	/* clang-format on */
	for (size_t t = 0; t < 3; t++)
		for (size_t a = 0; a < 3; a++) {
			cJSON *st = mcp_struct_of(tools[t], s, args[a]);
			FUZZ_CHECK(st == NULL || cJSON_IsObject(st),
			           "structure of %s is not an object",
			           tools[t]);
			cJSON_Delete(st);
		}
	free(s);
	return 0;
}
