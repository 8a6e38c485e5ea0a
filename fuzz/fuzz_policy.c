/*
 * fuzz_policy - policy documents through the strict loader
 * (locus_policy_load) and Claude Code settings through
 * locus_policy_add_claude_settings.
 *
 * Invariants: load returns 0 or EINVALID/ETOOBIG/ENOMEM with a message; a
 * loaded policy renders to JSON that loads again (the effective policy is
 * a valid policy) and renders to the same text (idempotent); a failed
 * settings merge leaves the policy unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/policy.h"

#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *d = (const char *)data;
	locus_policy *p = NULL;
	locus_error err;
	memset(&err, 0, sizeof err);
	int rc = locus_policy_load(&p, d, size, &err);
	if (rc != 0) {
		FUZZ_CHECK(p == NULL, "policy set on error");
		FUZZ_CHECK(rc == LOCUS_EINVALID || rc == LOCUS_ETOOBIG ||
		               rc == LOCUS_ENOMEM,
		           "load rc %d", rc);
		FUZZ_CHECK(rc == LOCUS_ENOMEM || err.message[0],
		           "error without a message");
	} else {
		char *js = NULL;
		rc = locus_policy_json(&js, p, 0);
		if (rc == 0) {
			locus_policy *p2 = NULL;
			rc = locus_policy_load(&p2, js, strlen(js), &err);
			FUZZ_CHECK(rc == 0 || rc == LOCUS_ENOMEM,
			           "effective policy does not load: %s\n%s",
			           err.message, js);
			char *js2 = NULL;
			if (p2 && locus_policy_json(&js2, p2, 0) == 0)
				FUZZ_CHECK(
				    !strcmp(js, js2),
				    "policy JSON not idempotent:\n%s\n%s", js,
				    js2);
			locus_free(js2);
			locus_policy_free(p2);
		}
		locus_free(js);
	}
	locus_policy_free(p);

	/* the same bytes as a Claude Code settings.json */
	locus_policy *base = NULL;
	if (locus_policy_new(&base) != 0)
		return 0;
	size_t before[3], after[3];
	for (int i = 0; i < 3; i++)
		before[i] = locus_policy_rule_count(base, (locus_rule_list)i);
	rc = locus_policy_add_claude_settings(base, d, size, &err);
	for (int i = 0; i < 3; i++)
		after[i] = locus_policy_rule_count(base, (locus_rule_list)i);
	if (rc != 0)
		FUZZ_CHECK(!memcmp(before, after, sizeof before),
		           "failed merge changed the policy");
	locus_policy_free(base);
	return 0;
}
