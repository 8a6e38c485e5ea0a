/*
 * harness/tool_todo.c - todo_write and todo_read.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"
#include "locus/labels.h"
#include "../util/regex.h"
#include "../util/tools.h"
#include "../util/array.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- todos ---------------- */

static void render_todos(const cJSON *todos, lu_buf *out)
{
	const cJSON *t;
	if (!cJSON_GetArraySize(todos)) {
		lu_buf_puts(out, "(no todos)");
		return;
	}
	cJSON_ArrayForEach(t, todos)
	{
		const char *st = cJSON_GetObjectItem(t, "status")->valuestring;
		const cJSON *id = cJSON_GetObjectItem(t, "id");
		lu_buf_printf(out, "[%s] %s%s%s\n",
		              !strcmp(st, "completed")     ? "x"
		              : !strcmp(st, "in_progress") ? "~"
		                                           : " ",
		              cJSON_IsString(id) ? id->valuestring : "",
		              cJSON_IsString(id) ? ": " : "",
		              cJSON_GetObjectItem(t, "content")->valuestring);
	}
}

bool lh_t_todo_write(locus_harness *h, const cJSON *a, lu_buf *out)
{
	const cJSON *todos = cJSON_GetObjectItemCaseSensitive(a, "todos");
	if (!cJSON_IsArray(todos)) {
		lu_buf_puts(out, "argument 'todos' must be a list of {content, "
		                 "status, id}");
		return false;
	}
	cJSON *copy = cJSON_CreateArray();
	if (!copy) {
		lu_buf_puts(out, "out of memory");
		return false;
	}
	const cJSON *t;
	int k = 0;
	cJSON_ArrayForEach(t, todos)
	{
		k++;
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(t, "content");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(t, "status");
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(t, "id");
		const char *sv = cJSON_IsString(s) ? s->valuestring : "pending";
		if (!cJSON_IsString(c) || (s && !cJSON_IsString(s)) ||
		    (strcmp(sv, "pending") && strcmp(sv, "in_progress") &&
		     strcmp(sv, "completed")) ||
		    (id && !cJSON_IsString(id) && !cJSON_IsNumber(id))) {
			lu_buf_printf(out,
			              "todo %d: needs content (text), status "
			              "(pending, in_progress or completed) and "
			              "an optional id",
			              k);
			cJSON_Delete(copy);
			return false;
		}
		cJSON *o = cJSON_CreateObject();
		char idb[32];
		if (cJSON_IsNumber(id))
			snprintf(idb, sizeof idb, "%g", id->valuedouble);
		else
			snprintf(idb, sizeof idb, "%d", k);
		if (!o ||
		    !cJSON_AddStringToObject(o, "content", c->valuestring) ||
		    !cJSON_AddStringToObject(o, "status", sv) ||
		    !cJSON_AddStringToObject(
		        o, "id", cJSON_IsString(id) ? id->valuestring : idb)) {
			cJSON_Delete(o);
			cJSON_Delete(copy);
			lu_buf_puts(out, "out of memory");
			return false;
		}
		cJSON_AddItemToArray(copy, o);
	}
	cJSON_Delete(h->todos);
	h->todos = copy;
	render_todos(h->todos, out);
	return true;
}

bool lh_t_todo_read(locus_harness *h, const cJSON *a, lu_buf *out)
{
	(void)a;
	render_todos(h->todos, out);
	return true;
}
