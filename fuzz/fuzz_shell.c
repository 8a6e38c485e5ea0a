/*
 * fuzz_shell - bytes -> locus_shell_parser_parse -> locus_shell_label.
 *
 * Invariants: no crash or leak (ASan/LSan), the result is well
 * formed, a workspace.read verdict never carries an exec:* tag, every
 * command name is non-empty unless the command is dynamic or has argc 0,
 * an unparsed line is exec with exec:unparsed, and one parse stays within a
 * bounded time.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "locus/labels.h"
#include "locus/shell.h"

#include "fuzz_check.h"
#include "util/clock.h"

/* The parse budget is 500 ms; sanitizers slow things down a few times, so
 * the bound checked here is generous but still catches a hang. */
#define FUZZ_TIME_BOUND_MS 5000.0

static void check_word(const char *w)
{
	FUZZ_CHECK(w != NULL, "NULL word");
	(void)strlen(w); /* ASan: must be a NUL-terminated string */
}

static void check_result(const locus_shell_result *r, size_t len)
{
	bool parsed = locus_shell_result_parsed(r);
	const char *reason = locus_shell_result_reason(r);
	FUZZ_CHECK(parsed == (reason == NULL), "reason iff unparsed");
	if (reason)
		check_word(reason);
	size_t slen = 0;
	const char *src = locus_shell_result_source(r, &slen);
	FUZZ_CHECK(src != NULL && slen == len, "source length %zu != %zu", slen,
	           len);
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		FUZZ_CHECK(c != NULL, "command %zu NULL", i);
		FUZZ_CHECK(c->argc == 0 || c->argv != NULL, "argv NULL");
		for (size_t k = 0; k < c->argc; k++)
			check_word(c->argv[k]);
		FUZZ_CHECK(c->argc == 0 || c->argv_flags != NULL, "flags NULL");
		check_word(c->name);
		if (c->argc == 0) {
			FUZZ_CHECK(c->name[0] == '\0', "argc 0 but name '%s'",
			           c->name);
		} else {
			const char *slash = strrchr(c->argv[0], '/');
			const char *base = slash ? slash + 1 : c->argv[0];
			FUZZ_CHECK(strcmp(base, c->name) == 0 ||
			               (c->flags & LOCUS_CMD_DYNAMIC),
			           "name '%s' is not basename of '%s'", c->name,
			           c->argv[0]);
			FUZZ_CHECK(c->name[0] != '\0' ||
			               (c->flags & LOCUS_CMD_DYNAMIC) ||
			               !parsed,
			           "empty name of static command %zu", i);
		}
		for (size_t k = 0; k < c->nwords; k++)
			check_word(c->words[k]);
		for (size_t k = 0; k < c->nwrappers; k++)
			check_word(c->wrappers[k]);
		for (size_t k = 0; k < c->nassignments; k++)
			check_word(c->assignments[k]);
		for (size_t k = 0; k < c->nredirects; k++) {
			check_word(c->redirects[k].op);
			check_word(c->redirects[k].target);
		}
		check_word(c->connector);
		check_word(c->origin);
		FUZZ_CHECK(c->parent == LOCUS_SHELL_NO_PARENT || c->parent < n,
		           "parent %zu out of range", c->parent);
		FUZZ_CHECK(c->start <= c->end && c->end <= len,
		           "span %zu..%zu of %zu", c->start, c->end, len);
		if (c->flags & LOCUS_CMD_FUNCTION_DEF)
			FUZZ_CHECK(c->function_name != NULL, "function name");
		if (c->flags & LOCUS_CMD_DYNAMIC)
			FUZZ_CHECK(!parsed, "dynamic command in a parsed line");
	}
}

static void check_verdict(const locus_shell_result *r)
{
	locus_shell_verdict *v = NULL;
	if (locus_shell_label(&v, r) == LOCUS_ENOMEM)
		return;
	FUZZ_CHECK(v != NULL, "label gave no verdict");
	locus_kind kind = locus_shell_verdict_kind(v);
	uint32_t tags = locus_shell_verdict_tags(v);
	FUZZ_CHECK(kind == LOCUS_KIND_READ || kind == LOCUS_KIND_EXEC,
	           "kind %d", (int)kind);
	FUZZ_CHECK(tags < (1u << LOCUS_TAG_COUNT), "tags 0x%x", tags);
	if (kind == LOCUS_KIND_READ)
		FUZZ_CHECK(tags == 0, "workspace.read with exec tags 0x%x",
		           tags);
	if (!locus_shell_result_parsed(r))
		FUZZ_CHECK(kind == LOCUS_KIND_EXEC &&
		               (tags & LOCUS_TAG_UNPARSED),
		           "unparsed line not exec:unparsed");
	if (locus_shell_verdict_never(v))
		FUZZ_CHECK(tags & LOCUS_TAG_NEVER, "never without exec:never");
	size_t nreasons = locus_shell_verdict_reason_count(v);
	for (size_t i = 0; i < nreasons; i++) {
		FUZZ_CHECK(locus_shell_verdict_reason(v, i) != NULL,
		           "reason %zu of %zu is NULL", i, nreasons);
		check_word(locus_shell_verdict_reason(v, i));
	}
	FUZZ_CHECK(locus_shell_verdict_reason(v, nreasons) == NULL,
	           "reason past the count");
	locus_shell_verdict_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* One parser for the whole run, as a real caller keeps it. */
	static locus_shell_parser *parser;
	if (!parser && locus_shell_parser_new(&parser, NULL) != 0)
		abort();
	double t0 = lu_now() * 1e3;
	locus_shell_result *r =
	    locus_shell_parser_parse(parser, (const char *)data, size);
	FUZZ_CHECK(r != NULL, "parse returned NULL");
	check_result(r, size);
	check_verdict(r);
	locus_shell_result_free(r);
	double dt = lu_now() * 1e3 - t0;
	FUZZ_CHECK(dt < FUZZ_TIME_BOUND_MS, "parse took %.0f ms", dt);
	return 0;
}
