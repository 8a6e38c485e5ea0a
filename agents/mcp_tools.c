/*
 * agents/mcp_tools.c - `locus mcp` tools as MCP sees them: tools/list (title,
 * annotations true to the backend, an inputSchema that compiles under a
 * strict validator, outputSchema where the result is structured), the
 * check of a call's arguments (errors the model can act on: a tool result
 * with isError naming the field, SEP-1303), and the call's result
 * (structuredContent for refusals and todo_read).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"
#include "../util/buf.h"
#include "../util/tools.h"

/* The refusal JSON of the gate (locus_decision_refusal_json). */
#define REFUSAL_SCHEMA                                                         \
	"{\"type\":\"object\",\"properties\":{\"status\":{\"type\":"           \
	"\"string\",\"enum\":[\"denied\",\"held_for_approval\"]},"             \
	"\"outcome\":{\"type\":\"string\"},\"action\":{\"type\":\"string\"},"  \
	"\"asset\":{\"type\":\"string\"},\"reason\":{\"type\":\"string\"}},"   \
	"\"required\":[\"status\",\"outcome\",\"action\",\"reason\"]}"

/* Output schemas: the tool's own structure or the refusal (oneOf: a
   client validating structuredContent accepts both). */
#define ONE_OF(result)                                                         \
	"{\"type\":\"object\",\"oneOf\":[" result "," REFUSAL_SCHEMA "]}"
#define STR "{\"type\":\"string\"}"
#define INT "{\"type\":\"integer\"}"
#define TRUNC ",\"truncated\":{\"type\":\"boolean\"}"

static const struct {
	const char *tool, *schema;
	/* clang-format off */
} outputs[] = {
    {"todo_read",
     ONE_OF("{\"type\":\"object\",\"properties\":{\"todos\":{\"type\":"
            "\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
            "\"id\":" STR ",\"content\":" STR ",\"status\":{\"type\":"
            "\"string\",\"enum\":[\"pending\",\"in_progress\","
            "\"completed\"]}},\"required\":[\"content\",\"status\"]}}},"
            "\"required\":[\"todos\"]}")},
    /* clang-format on */
    {"ls", ONE_OF("{\"type\":\"object\",\"properties\":{\"entries\":{\"type\":"
                  "\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
                  "\"path\":" STR ",\"type\":{\"type\":\"string\",\"enum\":["
                  "\"file\",\"dir\"]}},\"required\":[\"path\",\"type\"]}}" TRUNC
                  "},\"required\":[\"entries\"]}")},
    {"glob", ONE_OF("{\"type\":\"object\",\"properties\":{\"files\":{\"type\":"
                    "\"array\",\"items\":" STR "}" TRUNC
                    "},\"required\":[\"files\"]}")},
    {"grep",
     ONE_OF("{\"type\":\"object\",\"properties\":{\"matches\":{\"type\":"
            "\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
            "\"path\":" STR ",\"line\":" INT ",\"text\":" STR ",\"context\":"
            "{\"type\":\"boolean\"}},\"required\":[\"path\",\"line\","
            "\"text\"]}},\"files\":{\"type\":\"array\",\"items\":" STR "},"
            "\"counts\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
            "\"properties\":{\"path\":" STR ",\"count\":" INT "},"
            "\"required\":[\"path\",\"count\"]}}" TRUNC "},"
            "\"required\":[\"truncated\"]}")},
};

static const char *output_schema(const char *tool)
{
	for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++)
		if (!strcmp(outputs[i].tool, tool))
			return outputs[i].schema;
	return NULL;
}

/*
 * The harness's schema made strict for clients that validate (Ajv strict):
 * every object closed (additionalProperties false: an unknown field is an
 * error), a union type spelled as anyOf, an enum typed.
 */
static void strict_schema(cJSON *sc)
{
	if (!cJSON_IsObject(sc))
		return;
	cJSON *type = cJSON_GetObjectItemCaseSensitive(sc, "type");
	if (cJSON_IsArray(type)) {
		cJSON *any = cJSON_CreateArray();
		cJSON *t;
		cJSON_ArrayForEach(t, type)
		{
			cJSON *one = cJSON_CreateObject();
			if (one && cJSON_IsString(t))
				cJSON_AddStringToObject(one, "type",
				                        t->valuestring);
			cJSON_AddItemToArray(any, one);
		}
		cJSON_DeleteItemFromObjectCaseSensitive(sc, "type");
		cJSON_AddItemToObject(sc, "anyOf", any);
		type = NULL;
	}
	cJSON *en = cJSON_GetObjectItemCaseSensitive(sc, "enum");
	if (!type && cJSON_IsArray(en)) {
		bool strs = true;
		cJSON *e;
		cJSON_ArrayForEach(e, en) strs &= cJSON_IsString(e) != 0;
		if (strs)
			cJSON_AddStringToObject(sc, "type", "string");
	}
	cJSON *props = cJSON_GetObjectItemCaseSensitive(sc, "properties");
	if (cJSON_IsObject(props) &&
	    !cJSON_GetObjectItemCaseSensitive(sc, "additionalProperties"))
		cJSON_AddFalseToObject(sc, "additionalProperties");
	cJSON *p;
	cJSON_ArrayForEach(p, props) strict_schema(p);
	strict_schema(cJSON_GetObjectItemCaseSensitive(sc, "items"));
}

/* What a tool does, as hints a client may show or use to decide what to
   confirm (the gate decides regardless); the facts are util/tools.c's. */
static cJSON *annotations(const mcp_server *s, const lu_tool *in)
{
	cJSON *a = cJSON_CreateObject();
	if (!a)
		return NULL;
	bool isolated = s->backend && s->backend->isolated;
	cJSON_AddStringToObject(a, "title", in->title);
	cJSON_AddBoolToObject(a, "readOnlyHint", in->flags & LU_TOOL_READ_ONLY);
	cJSON_AddBoolToObject(a, "destructiveHint",
	                      in->flags & LU_TOOL_DESTRUCTIVE);
	cJSON_AddBoolToObject(a, "idempotentHint",
	                      in->flags & LU_TOOL_IDEMPOTENT);
	/* a host shell reaches whatever the machine reaches; the bwrap
	   sandbox has no network; file tools stay in the workspace */
	cJSON_AddBoolToObject(a, "openWorldHint",
	                      (in->flags & LU_TOOL_PROCESS) && !isolated);
	return a;
}

static cJSON *tool_entry(const mcp_server *s, const char *name)
{
	const char *desc = locus_harness_tool_description(s->harness, name);
	const char *schema = locus_harness_tool_schema(s->harness, name);
	const lu_tool *in = lu_tool_find(name);
	cJSON *t = cJSON_CreateObject();
	/* the schemas are the library's and this file's own text */
	cJSON *sc = schema ? cJSON_Parse(schema) : NULL;
	if (!cJSON_IsObject(sc)) {
		cJSON_Delete(sc);
		sc = cJSON_Parse("{\"type\":\"object\",\"properties\":{}}");
	}
	if (!t || !sc) {
		cJSON_Delete(t);
		cJSON_Delete(sc);
		return NULL;
	}
	strict_schema(sc);
	cJSON_AddStringToObject(t, "name", name);
	cJSON_AddStringToObject(t, "title", in ? in->title : name);
	cJSON_AddStringToObject(t, "description", desc ? desc : "");
	cJSON_AddItemToObject(t, "inputSchema", sc);
	const char *os = output_schema(name);
	if (os)
		cJSON_AddItemToObject(t, "outputSchema", cJSON_Parse(os));
	if (in)
		cJSON_AddItemToObject(t, "annotations", annotations(s, in));
	return t;
}

cJSON *mcp_tools_list(const mcp_server *s)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *arr = r ? cJSON_AddArrayToObject(r, "tools") : NULL;
	if (!arr) {
		cJSON_Delete(r);
		return NULL;
	}
	size_t n = s->harness ? locus_harness_tool_count(s->harness) : 0;
	for (size_t i = 0; i < n; i++) {
		cJSON *t =
		    tool_entry(s, locus_harness_tool_name(s->harness, i));
		if (!t) {
			cJSON_Delete(r);
			return NULL;
		}
		cJSON_AddItemToArray(arr, t);
	}
	return r;
}

/* --- arguments --- */

static cJSON_bool is_integer(const cJSON *v)
{
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
	       floor(v->valuedouble) == v->valuedouble;
}

/* JSON Schema's types: what each accepts and, for the types a value is
   named by in messages (integer is a number), that name. */
typedef struct schema_type {
	const char *name;
	const char *a_value; /* "a string": a value of this type, or NULL */
	cJSON_bool (*is)(const cJSON *v);
} schema_type;

/* clang-format off */
static const schema_type schema_types[] = {
	{"string", "a string", cJSON_IsString},
	{"boolean", "a boolean", cJSON_IsBool},
	{"number", "a number", cJSON_IsNumber},
	{"integer", NULL, is_integer},
	{"array", "an array", cJSON_IsArray},
	{"object", "an object", cJSON_IsObject},
	{"null", "null", cJSON_IsNull},
};
/* clang-format on */
#define N_SCHEMA_TYPES (sizeof schema_types / sizeof schema_types[0])

static const char *json_type(const cJSON *v)
{
	for (size_t i = 0; i < N_SCHEMA_TYPES; i++)
		if (schema_types[i].a_value && schema_types[i].is(v))
			return schema_types[i].a_value;
	return "null";
}

static bool type_ok(const cJSON *v, const char *type)
{
	for (size_t i = 0; i < N_SCHEMA_TYPES; i++)
		if (!strcmp(type, schema_types[i].name))
			return schema_types[i].is(v);
	return true; /* a type we do not know: the tool checks */
}

static const char *article(const char *type)
{
	return strchr("aeiou", type[0]) && type[0] ? "an" : "a";
}

/* The schema's type(s) of a property as text ("a string or an integer"),
   and whether v is one of them. */
static bool prop_type_ok(const cJSON *p, const cJSON *v, char *want, size_t wl)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "type");
	want[0] = '\0';
	if (cJSON_IsString(t)) {
		snprintf(want, wl, "%s %s", article(t->valuestring),
		         t->valuestring);
		return type_ok(v, t->valuestring);
	}
	if (!cJSON_IsArray(t))
		return true;
	bool ok = false;
	const cJSON *e;
	size_t k = 0;
	cJSON_ArrayForEach(e, t)
	{
		if (!cJSON_IsString(e))
			continue;
		ok |= type_ok(v, e->valuestring);
		k += (size_t)snprintf(want + k, k < wl ? wl - k : 0, "%s%s %s",
		                      k ? " or " : "", article(e->valuestring),
		                      e->valuestring);
		if (k >= wl)
			k = wl - 1;
	}
	return ok;
}


/* One argument against its property schema: NULL or the message. */
static char *check_one(const cJSON *p, const cJSON *a)
{
	char want[120];
	if (!prop_type_ok(p, a, want, sizeof want)) {
		char field[200];
		snprintf(field, sizeof field, "'%.60s' must be %s", a->string,
		         want);
		return lu_format("%s, not %s", field, json_type(a));
	}
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(p, "enum");
	if (cJSON_IsArray(en)) {
		const cJSON *e;
		cJSON_ArrayForEach(e, en)
		{
			if (cJSON_Compare(e, a, true))
				return NULL;
		}
		char *list = cJSON_PrintUnformatted(en);
		char *m = lu_format("'%.60s' must be one of %.200s", a->string,
		                    list ? list : "the schema's values");
		cJSON_free(list);
		return m;
	}
	return NULL;
}

/*
 * The top level of the tool's schema: every required key present, no key
 * the schema does not name, each property's type and enum.  Deeper
 * structure is the tool's to check (its message comes back as isError).
 */
char *mcp_check_args(const char *schema_text, const cJSON *args)
{
	/* the library's own schema text (locus_harness_tool_schema) */
	cJSON *schema = schema_text ? cJSON_Parse(schema_text) : NULL;
	if (!schema)
		return NULL;
	char *why = NULL;
	const cJSON *r;
	cJSON_ArrayForEach(r,
	                   cJSON_GetObjectItemCaseSensitive(schema, "required"))
	{
		if (cJSON_IsString(r) &&
		    !cJSON_GetObjectItemCaseSensitive(args, r->valuestring)) {
			why = lu_format("missing required argument '%.60s'",
			                r->valuestring);
			goto out;
		}
	}
	const cJSON *props =
	    cJSON_GetObjectItemCaseSensitive(schema, "properties");
	const cJSON *a;
	cJSON_ArrayForEach(a, args)
	{
		const cJSON *p =
		    cJSON_GetObjectItemCaseSensitive(props, a->string);
		if (!p) {
			why = lu_format("unknown argument '%.60s' (not in the "
			                "tool's inputSchema)",
			                a->string);
			goto out;
		}
		if ((why = check_one(p, a)))
			goto out;
	}
out:
	cJSON_Delete(schema);
	return why;
}

/* --- results --- */

static cJSON *text_result(const char *text, bool is_error)
{
	char *clean = mcp_utf8_clean(text);
	cJSON *r = cJSON_CreateObject();
	cJSON *content = r ? cJSON_AddArrayToObject(r, "content") : NULL;
	cJSON *block = content ? cJSON_CreateObject() : NULL;
	if (!clean || !block) {
		free(clean);
		cJSON_Delete(block);
		cJSON_Delete(r);
		return NULL;
	}
	cJSON_AddStringToObject(block, "type", "text");
	cJSON_AddStringToObject(block, "text", clean);
	cJSON_AddItemToArray(content, block);
	cJSON_AddBoolToObject(r, "isError", is_error);
	free(clean);
	return r;
}

cJSON *mcp_error_result(const char *message)
{
	return text_result(message, true);
}

/* The gate's refusal JSON, when that is what the text is. */
static cJSON *refusal_of(const char *text)
{
	if (text[0] != '{')
		return NULL;
	/* the harness's own result text; it only shapes structuredContent
	   (the text itself is sent as is) */
	cJSON *j = cJSON_Parse(text);
	if (cJSON_IsObject(j) &&
	    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "status")) &&
	    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "outcome")) &&
	    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "reason")))
		return j;
	cJSON_Delete(j);
	return NULL;
}

cJSON *mcp_tool_result(const mcp_server *s, const char *tool, const char *args,
                       const char *text, bool is_error)
{
	cJSON *r = text_result(text, is_error);
	if (!r)
		return NULL;
	cJSON *sc = is_error ? refusal_of(text) : NULL;
	if (!is_error && !strcmp(tool, "todo_read") && s->harness) {
		char *todos = NULL;
		locus_harness_todos_json(&todos, s->harness);
		/* ours (locus_harness_todos_json) */
		cJSON *list = todos ? cJSON_Parse(todos) : NULL;
		locus_free(todos);
		sc = cJSON_IsArray(list) ? cJSON_CreateObject() : NULL;
		if (sc)
			cJSON_AddItemToObject(sc, "todos", list);
		else
			cJSON_Delete(list);
	}
	if (!is_error && !sc)
		sc = mcp_struct_of(tool, text, args);
	if (sc)
		cJSON_AddItemToObject(r, "structuredContent", sc);
	return r;
}
