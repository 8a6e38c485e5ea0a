/*
 * policy/json.c - strict JSON for policy and settings files.
 *
 * The checks themselves (invalid UTF-8, NUL, duplicate keys: a second
 * "deny_for" would be silently ignored, "\u0000", numbers like "01") are
 * util/json.c's strict reader; this file words its findings as policy
 * errors with a line and column.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../util/json.h"

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

void pl_doc_free(pl_doc *doc)
{
	if (!doc)
		return;
	cJSON_Delete(doc->root);
	free((void *)(uintptr_t)doc->text);
	memset(doc, 0, sizeof(*doc));
}

int pl_doc_parse(pl_doc *doc, const char *what, const char *text, size_t len,
                 locus_error *err)
{
	memset(doc, 0, sizeof(*doc));
	doc->what = what;
	if (len > PL_MAX_DOC)
		return lu_err(err, LOCUS_ETOOBIG,
		              "%s: file is larger than %zu bytes", what,
		              PL_MAX_DOC);
	lu_json_fail why;
	cJSON *root = NULL;
	lu_json_problem p = lu_json_read(&root, text, len, NULL, &why);
	if (p == LU_JSON_NOMEM)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (p) {
		char msg[300];
		if (p == LU_JSON_SYNTAX || p == LU_JSON_TRAILING)
			snprintf(msg, sizeof msg, "%s",
			         len == 0 ? "empty document"
			                  : "malformed JSON");
		else if (p == LU_JSON_DUPLICATE)
			snprintf(msg, sizeof msg, "field \"%s\": duplicate key",
			         why.key);
		else
			snprintf(msg, sizeof msg, "%s",
			         lu_json_problem_text(p));
		return error_at(err, what, text, why.offset, msg);
	}
	char *copy = malloc(len + 1);
	if (!copy) {
		cJSON_Delete(root);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	doc->root = root;
	doc->text = copy;
	doc->len = len;
	return 0;
}

int pl_doc_error(const pl_doc *doc, const cJSON *node, const char *field,
                 locus_error *err, const char *fmt, ...)
{
	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t off = lu_json_offset_of(doc->root, doc->text, doc->len, node);
	char full[240];
	snprintf(full, sizeof(full), "field \"%s\": %s", field ? field : "",
	         msg);
	return error_at(err, doc->what, doc->text ? doc->text : "", off, full);
}
