/*
 * fuzz_runner - the box runner's strict JSON reader, canonical writer and
 * manifest loader (runner/json.c, runner/manifest.c) on arbitrary bytes:
 * what a gateway that lies sends.
 *
 * Invariants: parsing returns 0, EINVALID or ENOMEM and never crashes; a
 * parsed value has a canonical form, and that form parses back to a value
 * with the same canonical form (the digest is stable); a manifest either
 * loads or is refused with EINVALID and a message, and a loaded one's
 * mcp:/api: tools point at entries that exist.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner.h"

#include "fuzz_check.h"

static void check_manifest(cJSON *v)
{
	lr_manifest m;
	locus_error err = {0};
	int rc = lr_manifest_load(&m, v, &err);
	FUZZ_CHECK(rc == 0 || rc == LOCUS_EINVALID || rc == LOCUS_ENOMEM,
	           "manifest rc %d", rc);
	if (rc) {
		FUZZ_CHECK(err.message[0], "a refusal without a message");
	} else {
		FUZZ_CHECK(m.run_id && *m.run_id && m.model && m.model_key_env,
		           "a loaded manifest without run_id or model");
		FUZZ_CHECK(!strncmp(m.digest, "sha256:", 7), "no digest");
		for (size_t i = 0; i < m.n_tools; i++) {
			const lr_tool *t = &m.tools[i];
			if (t->runs == LR_RUNS_MCP)
				FUZZ_CHECK(t->target_index < m.n_mcp,
				           "mcp index");
			if (t->runs == LR_RUNS_API)
				FUZZ_CHECK(t->target_index < m.n_api &&
				               t->op_path &&
				               t->op_path[0] == '/',
				           "api index or path");
		}
	}
	lr_manifest_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *v = NULL;
	locus_error err;
	int rc = lr_json_parse((const char *)data, size, &v, &err);
	FUZZ_CHECK(rc == 0 || rc == LOCUS_EINVALID || rc == LOCUS_ENOMEM,
	           "parse rc %d", rc);
	if (rc) {
		FUZZ_CHECK(v == NULL, "a value on failure");
		return 0;
	}
	char *c1 = lr_json_canonical(v);
	FUZZ_CHECK(c1 != NULL, "a parsed value without a canonical form");
	cJSON *w = NULL;
	FUZZ_CHECK(lr_json_parse(c1, strlen(c1), &w, &err) == 0,
	           "the canonical form does not parse: %s", err.message);
	char *c2 = lr_json_canonical(w);
	FUZZ_CHECK(c2 && !strcmp(c1, c2), "canonical form not stable");
	free(c1);
	free(c2);
	cJSON_Delete(w);
	if (cJSON_IsObject(v))
		check_manifest(v); /* takes v over */
	else
		cJSON_Delete(v);
	return 0;
}
