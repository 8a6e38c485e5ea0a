/*
 * fuzz_json - tool calls and classify input through locus_action_derive /
 * locus_action_classify and locus_action_json.
 *
 * Input: a JSON object {"tool": NAME, "arguments": {...}} (the `classify
 * --jsonl` shape), or NAME, a newline and raw argument bytes (so the
 * argument parser sees malformed JSON too).  The whole input is also
 * classified as one bash line.
 *
 * Invariants: derive returns 0, ENOTFOUND or EINVALID (ETOOBIG for huge
 * input) and fills the error; an action's JSON is a valid object whose
 * "kind" matches the action and whose "tags" hold the tool's name; a
 * workspace.read action carries no exec:* tag.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "locus/labels.h"

#include "fuzz_check.h"

static void check_action(const locus_action *a, const char *tool)
{
	FUZZ_CHECK(a != NULL, "NULL action");
	const char *t = locus_action_tool(a);
	FUZZ_CHECK(t != NULL, "no tool");
	if (tool)
		FUZZ_CHECK(locus_action_has_tag(a, t), "tool tag missing");
	locus_kind k = locus_action_kind(a);
	FUZZ_CHECK(k <= LOCUS_KIND_NETWORK, "kind %d", (int)k);
	/* outside-workspace is a label of any tool, not an exec:* tag
	   (include/locus/labels.h): `cat /etc/hosts` reads; and the file
	   tools' read, grep and glob of a credential store stay reads with
	   exec:secrets (docs/tags.md, "One path classifier for every
	   tool": `read .env`, a glob of `.env` in any folder), which every
	   preset holds */
	if (k == LOCUS_KIND_READ)
		FUZZ_CHECK((locus_action_exec_tags(a) &
		            ~(LOCUS_TAG_OUTSIDE | LOCUS_TAG_SECRETS)) == 0,
		           "workspace.read with exec tags 0x%x",
		           locus_action_exec_tags(a));
	for (size_t i = 0; i + 1 < locus_action_tag_count(a); i++)
		FUZZ_CHECK(strcmp(locus_action_tag(a, i),
		                  locus_action_tag(a, i + 1)) < 0,
		           "tags not sorted/unique");
	char *js = NULL;
	for (int flags = 0; flags <= (LOCUS_JSON_PRETTY | LOCUS_JSON_COMMANDS);
	     flags += LOCUS_JSON_COMMANDS) {
		int rc = locus_action_json(&js, a, (unsigned)flags);
		if (rc == LOCUS_ENOMEM)
			return;
		FUZZ_CHECK(rc == 0 && js, "action_json rc %d", rc);
		cJSON *o = cJSON_Parse(js);
		FUZZ_CHECK(o && cJSON_IsObject(o),
		           "action JSON does not parse");
		cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
		FUZZ_CHECK(cJSON_IsString(kind) &&
		               !strcmp(kind->valuestring, locus_kind_name(k)),
		           "kind field");
		cJSON *tags = cJSON_GetObjectItemCaseSensitive(o, "tags");
		FUZZ_CHECK(cJSON_IsArray(tags) &&
		               (size_t)cJSON_GetArraySize(tags) ==
		                   locus_action_tag_count(a),
		           "tags field");
		cJSON_Delete(o);
		free(js);
		js = NULL;
	}
}

static void derive(locus_shell_parser *p, const char *tool, const char *args,
                   size_t len)
{
	locus_action *a = NULL;
	locus_error err;
	memset(&err, 0, sizeof err);
	int rc = locus_action_derive(&a, p, tool, args, len, &err);
	if (rc == 0) {
		check_action(a, tool);
	} else {
		FUZZ_CHECK(a == NULL, "action set on error");
		FUZZ_CHECK(rc == LOCUS_ENOTFOUND || rc == LOCUS_EINVALID ||
		               rc == LOCUS_ETOOBIG || rc == LOCUS_ENOMEM,
		           "derive rc %d", rc);
		FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message),
		           "error message not terminated");
	}
	locus_action_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static locus_shell_parser *parser;
	if (!parser && locus_shell_parser_new(&parser, NULL) != 0)
		abort();
	const char *d = (const char *)data;

	/* the whole input as a tool call object */
	char *copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, d, size);
	copy[size] = '\0';
	cJSON *o = cJSON_ParseWithLength(d, size);
	if (o && cJSON_IsObject(o)) {
		cJSON *tool = cJSON_GetObjectItemCaseSensitive(o, "tool");
		cJSON *args = cJSON_GetObjectItemCaseSensitive(o, "arguments");
		if (cJSON_IsString(tool)) {
			char *as = args ? cJSON_PrintUnformatted(args) : NULL;
			derive(parser, tool->valuestring, as,
			       as ? strlen(as) : 0);
			free(as);
		}
	}
	cJSON_Delete(o);

	/* NAME \n raw arguments */
	const char *nl = memchr(d, '\n', size);
	if (nl && !memchr(d, '\0', (size_t)(nl - d))) {
		size_t tl = (size_t)(nl - d);
		char *tool = malloc(tl + 1);
		if (tool) {
			memcpy(tool, d, tl);
			tool[tl] = '\0';
			derive(parser, tool, nl + 1, size - tl - 1);
			free(tool);
		}
	}

	/* classify: the input as one bash line */
	locus_action *a = NULL;
	int rc = locus_action_classify(&a, parser, d, size, NULL);
	FUZZ_CHECK(rc == 0 || rc == LOCUS_ENOMEM, "classify rc %d", rc);
	if (a)
		check_action(a, "bash");
	locus_action_free(a);
	free(copy);
	return 0;
}
