/*
 * fuzz_gate - a policy and a tool call through locus_gate.
 *
 * Input: POLICY \n TOOL \n ARGS, where POLICY is a policy JSON document or
 * a preset name (an unloadable policy falls back to the standard preset).
 *
 * Invariants: the gate returns 0, EINVALID or ENOMEM; a decision has an
 * outcome in range, a reason, JSON that parses, and a refusal JSON exactly
 * when it is not allow; the outcome is the strongest of its checks; and a
 * call whose labels hold exec:never or exec:unparsed is never allowed by
 * the standard preset.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "locus/policy.h"

#include "fuzz_check.h"

static void gate(const locus_policy *pol, locus_shell_parser *parser,
                 const char *tool, const char *args, size_t alen, int standard)
{
	locus_decision *d = NULL;
	locus_error err;
	memset(&err, 0, sizeof err);
	int rc = locus_gate(&d, pol, parser, tool, args, alen, NULL, &err);
	if (rc != 0) {
		FUZZ_CHECK(d == NULL, "decision set on error");
		FUZZ_CHECK(rc == LOCUS_EINVALID || rc == LOCUS_ENOMEM ||
		               rc == LOCUS_ETOOBIG,
		           "gate rc %d", rc);
		return;
	}
	locus_outcome o = locus_decision_outcome(d);
	FUZZ_CHECK(o <= LOCUS_OUTCOME_DENY, "outcome %d", (int)o);
	FUZZ_CHECK(locus_decision_reason(d) != NULL, "no reason");
	locus_outcome strongest = LOCUS_OUTCOME_ALLOW;
	for (size_t i = 0; i < locus_decision_check_count(d); i++)
		if (locus_decision_check_outcome(d, i) > strongest)
			strongest = locus_decision_check_outcome(d, i);
	FUZZ_CHECK(o == strongest || locus_decision_permission(d) != NULL,
	           "outcome %d but strongest check %d", (int)o, (int)strongest);
	if (standard && (locus_decision_has_label(d, "exec:never") ||
	                 locus_decision_has_label(d, "exec:unparsed")))
		FUZZ_CHECK(o != LOCUS_OUTCOME_ALLOW,
		           "standard preset allows a never/unparsed call");
	char *js = NULL;
	if (locus_decision_json(&js, d, 0) == 0) {
		cJSON *j = cJSON_Parse(js);
		FUZZ_CHECK(j && cJSON_IsObject(j), "decision JSON: %s", js);
		cJSON_Delete(j);
	}
	locus_free(js);
	js = NULL;
	rc = locus_decision_refusal_json(&js, d);
	if (o == LOCUS_OUTCOME_ALLOW)
		FUZZ_CHECK(rc == LOCUS_EUSAGE, "refusal of an allow: %d", rc);
	else
		FUZZ_CHECK(rc == 0 || rc == LOCUS_ENOMEM, "refusal rc %d", rc);
	locus_free(js);
	locus_decision_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static locus_shell_parser *parser;
	static locus_policy *standard;
	if (!parser && locus_shell_parser_new(&parser, NULL) != 0)
		abort();
	if (!standard && locus_policy_preset(&standard, "standard", NULL) != 0)
		abort();
	const char *d = (const char *)data;
	const char *nl1 = memchr(d, '\n', size);
	if (!nl1)
		return 0;
	const char *rest = nl1 + 1;
	size_t rlen = size - (size_t)(rest - d);
	const char *nl2 = memchr(rest, '\n', rlen);
	if (!nl2 || memchr(rest, '\0', (size_t)(nl2 - rest)))
		return 0;
	size_t plen = (size_t)(nl1 - d);
	char *tool = malloc((size_t)(nl2 - rest) + 1);
	char *pname = malloc(plen + 1);
	if (!tool || !pname) {
		free(tool);
		free(pname);
		return 0;
	}
	memcpy(tool, rest, (size_t)(nl2 - rest));
	tool[nl2 - rest] = '\0';
	memcpy(pname, d, plen);
	pname[plen] = '\0';
	const char *args = nl2 + 1;
	size_t alen = size - (size_t)(args - d);

	locus_policy *pol = NULL;
	if (locus_policy_load(&pol, d, plen, NULL) != 0 &&
	    !memchr(d, '\0', plen))
		locus_policy_preset(&pol, pname, NULL);
	if (pol)
		gate(pol, parser, tool, args, alen, 0);
	gate(standard, parser, tool, args, alen, 1);
	locus_policy_free(pol);
	free(tool);
	free(pname);
	return 0;
}
