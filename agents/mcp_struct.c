/*
 * agents/mcp_struct.c - `locus mcp` structured results: the text of ls, glob
 * and grep read back into the structure the harness printed it from, for
 * structuredContent (the text block stays the same).  The formats are the
 * harness's own (harness/tools.c); a line that does not fit one is left
 * out of the structure, never guessed at, and the text still has it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"

/* The lines of text, one at a time (line and len), false at the end. */
static bool next_line(const char **p, const char **line, size_t *len)
{
	if (!**p)
		return false;
	const char *nl = strchr(*p, '\n');
	*line = *p;
	*len = nl ? (size_t)(nl - *p) : strlen(*p);
	*p = nl ? nl + 1 : *p + *len;
	return true;
}

static bool starts(const char *l, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(l, prefix, k);
}

static cJSON *str_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	char *c = mcp_utf8_clean(d);
	free(d);
	cJSON *j = c ? cJSON_CreateString(c) : NULL;
	free(c);
	return j;
}

/* ls: "root/" then two spaces of indent per level, "name" or "name/",
   and "... N more" / "... (stopped at N lines)" notes. */
static cJSON *ls_struct(const char *text)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *ents = o ? cJSON_AddArrayToObject(o, "entries") : NULL;
	if (!ents) {
		cJSON_Delete(o);
		return NULL;
	}
	const char *p = text, *l;
	size_t n;
	bool truncated = false;
	char root[4096] = "";
	char *names[24] = {0};
	if (next_line(&p, &l, &n) && n && l[n - 1] == '/' && n < sizeof root)
		snprintf(root, sizeof root, "%.*s", (int)(n - 1), l);
	while (next_line(&p, &l, &n)) {
		size_t sp = 0;
		while (sp < n && l[sp] == ' ')
			sp++;
		size_t depth = sp / 2;
		const char *name = l + sp;
		size_t nl = n - sp;
		if (starts(name, nl, "... ")) {
			truncated = true;
			continue;
		}
		if (depth < 1 || depth >= 24 || sp % 2 || !nl)
			continue;
		bool dir = name[nl - 1] == '/';
		free(names[depth]);
		names[depth] = strndup(name, dir ? nl - 1 : nl);
		char path[8192];
		size_t k = 0;
		if (strcmp(root, ".") && root[0])
			k = (size_t)snprintf(path, sizeof path, "%s", root);
		for (size_t d = 1; d <= depth && k < sizeof path; d++)
			k += (size_t)snprintf(path + k, sizeof path - k, "%s%s",
			                      k ? "/" : "",
			                      names[d] ? names[d] : "");
		cJSON *e = cJSON_CreateObject();
		if (e && k < sizeof path) {
			cJSON_AddItemToObject(e, "path", str_n(path, k));
			cJSON_AddStringToObject(e, "type",
			                        dir ? "dir" : "file");
			cJSON_AddItemToArray(ents, e);
		} else {
			cJSON_Delete(e);
		}
	}
	for (size_t d = 0; d < 24; d++)
		free(names[d]);
	cJSON_AddBoolToObject(o, "truncated", truncated);
	return o;
}

/* grep's output_mode; glob's lines are grep's files lines. */
typedef enum grep_mode { GREP_CONTENT, GREP_FILES, GREP_COUNT } grep_mode;

/* The array each mode fills. */
static const char *const grep_keys[] = {"matches", "files", "counts"};

typedef void line_fn(cJSON *o, grep_mode mode, const char *l, size_t n);

/* A glob or grep listing: a text starting with `none` ("No files match
   P") lists nothing, "... N more" notes set "truncated", every other
   non-empty line goes to `add`. */
static cJSON *listing(const char *text, const char *none, grep_mode mode,
                      line_fn *add)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddArrayToObject(o, grep_keys[mode])) {
		cJSON_Delete(o);
		return NULL;
	}
	const char *p = starts(text, strlen(text), none) ? "" : text, *l;
	size_t n;
	bool truncated = false;
	while (next_line(&p, &l, &n)) {
		if (starts(l, n, "... "))
			truncated = true;
		else if (n)
			add(o, mode, l, n);
	}
	cJSON_AddBoolToObject(o, "truncated", truncated);
	return o;
}

/* glob: one path a line. */
static void glob_line(cJSON *o, grep_mode mode, const char *l, size_t n)
{
	cJSON_AddItemToArray(cJSON_GetObjectItem(o, grep_keys[mode]),
	                     str_n(l, n));
}

/* "path<sep>digits<sep>rest": the first <sep> followed by digits and
   <sep> again (a path holding ":12:" is misread; the text has it right). */
static bool split_match(const char *l, size_t n, char sep, size_t *pe,
                        long *num, size_t *rest)
{
	for (size_t i = 0; i < n; i++) {
		if (l[i] != sep || i == 0)
			continue;
		size_t j = i + 1;
		long v = 0;
		while (j < n && l[j] >= '0' && l[j] <= '9' && v < 100000000)
			v = v * 10 + (l[j++] - '0');
		if (j > i + 1 && (rest ? j < n && l[j] == sep : j == n)) {
			*pe = i;
			*num = v;
			if (rest)
				*rest = j + 1;
			return true;
		}
	}
	return false;
}

/* grep: "path", "path:count" or "path:line:text" ("path-line-text" for
   context lines); the "--" between groups is not a line. */
static void grep_line(cJSON *o, grep_mode mode, const char *l, size_t n)
{
	size_t pe, rest;
	long v;
	if (n == 2 && !memcmp(l, "--", 2))
		return;
	if (mode == GREP_FILES) {
		glob_line(o, mode, l, n);
		return;
	}
	if (mode == GREP_COUNT) {
		if (!split_match(l, n, ':', &pe, &v, NULL))
			return;
		cJSON *c = cJSON_CreateObject();
		cJSON_AddItemToObject(c, "path", str_n(l, pe));
		cJSON_AddNumberToObject(c, "count", (double)v);
		cJSON_AddItemToArray(cJSON_GetObjectItem(o, "counts"), c);
		return;
	}
	bool match = split_match(l, n, ':', &pe, &v, &rest);
	if (!match && !split_match(l, n, '-', &pe, &v, &rest))
		return;
	cJSON *m = cJSON_CreateObject();
	cJSON_AddItemToObject(m, "path", str_n(l, pe));
	cJSON_AddNumberToObject(m, "line", (double)v);
	cJSON_AddItemToObject(m, "text", str_n(l + rest, n - rest));
	cJSON_AddBoolToObject(m, "context", !match);
	cJSON_AddItemToArray(cJSON_GetObjectItem(o, "matches"), m);
}

static cJSON *grep_struct(const char *text, const cJSON *args)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(args, "output_mode");
	const char *ms = cJSON_IsString(m) ? m->valuestring : "content";
	grep_mode mode = !strcmp(ms, "files")   ? GREP_FILES
	                 : !strcmp(ms, "count") ? GREP_COUNT
	                                        : GREP_CONTENT;
	return listing(text, "No matches for ", mode, grep_line);
}

cJSON *mcp_struct_of(const char *tool, const char *text, const char *args)
{
	if (!strcmp(tool, "ls"))
		return ls_struct(text);
	if (!strcmp(tool, "glob"))
		return listing(text, "No files match ", GREP_FILES, glob_line);
	if (!strcmp(tool, "grep")) {
		/* the arguments as mcp_calls.c printed them: ours */
		cJSON *a = cJSON_Parse(args ? args : "{}");
		cJSON *o = grep_struct(text, a);
		cJSON_Delete(a);
		return o;
	}
	return NULL;
}
