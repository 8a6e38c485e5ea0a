/*
 * runner/prompt.c - the system prompt the agent starts with: the
 * manifest's `instructions`, then a "Plan mode" section when
 * `harness.plan_mode` is true, then the `playbook` as an outline of its
 * steps (docs/runner.md, decision 17).  Both objects are free-form: only
 * those keys are read, everything else in them is carried unread (the
 * gateway's own copy decides, through admission).
 */
#include "runner/runner.h"

#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

static const char plan_mode_text[] =
    "## Plan mode\n"
    "You are in plan mode: investigate and write a plan, but change "
    "nothing. When the plan is ready, present it and wait. Calls that "
    "change the workspace are refused until the plan is accepted.";

static const char playbook_tail[] =
    "Work through the steps in order. The gateway checks every step.";

/* Python's truthiness of a JSON value (the original reads
   `harness.get("plan_mode")` and `x or y` that way). */
static bool truthy(const cJSON *v)
{
	if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v))
		return false;
	if (cJSON_IsTrue(v))
		return true;
	if (cJSON_IsNumber(v))
		return v->valuedouble != 0;
	if (cJSON_IsString(v))
		return v->valuestring && v->valuestring[0];
	return v->child != NULL; /* array or object */
}

/* The first truthy member of o among keys (NULL-terminated), or NULL. */
static const cJSON *first_of(const cJSON *o, const char *const *keys)
{
	for (size_t i = 0; keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keys[i]);
		if (truthy(v))
			return v;
	}
	return NULL;
}

/* A value as prompt text: a string as it is, anything else as its
   canonical JSON, nothing for null or absent. */
static void put_value(lu_buf *b, const cJSON *v)
{
	if (!v || cJSON_IsNull(v))
		return;
	if (cJSON_IsString(v)) {
		lu_buf_puts(b, v->valuestring);
		return;
	}
	char *t = lr_json_canonical(v);
	if (!t) {
		b->oom = true;
		return;
	}
	lu_buf_puts(b, t);
	free(t);
}

static void put_playbook(lu_buf *b, const cJSON *pb)
{
	static const char *const name_keys[] = {"name", "id", NULL};
	static const char *const title_keys[] = {"title", "id", NULL};
	static const char *const detail_keys[] = {"instructions", "description",
	                                          NULL};
	const cJSON *name = first_of(pb, name_keys);
	lu_buf_puts(b, "## Playbook: ");
	if (name)
		put_value(b, name);
	else
		lu_buf_puts(b, "unnamed");
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(pb, "steps");
	for (const cJSON *s = cJSON_IsArray(steps) ? steps->child : NULL; s;
	     s = s->next) {
		if (!cJSON_IsObject(s))
			continue;
		const cJSON *detail = first_of(s, detail_keys);
		lu_buf_puts(b, "\n- ");
		put_value(b, cJSON_GetObjectItemCaseSensitive(s, "id"));
		lu_buf_puts(b, ": ");
		put_value(b, first_of(s, title_keys));
		if (detail) {
			lu_buf_puts(b, " -- ");
			put_value(b, detail);
		}
	}
	lu_buf_putc(b, '\n');
	lu_buf_puts(b, playbook_tail);
}

char *lr_system_prompt(const lr_manifest *m)
{
	lu_buf b = LU_BUF_INIT;
	const char *sep = "";
	if (m->instructions && m->instructions[0]) {
		lu_buf_puts(&b, m->instructions);
		sep = "\n\n";
	}
	const cJSON *pm =
	    m->harness
	        ? cJSON_GetObjectItemCaseSensitive(m->harness, "plan_mode")
	        : NULL;
	if (truthy(pm)) {
		lu_buf_puts(&b, sep);
		lu_buf_puts(&b, plan_mode_text);
		sep = "\n\n";
	}
	if (m->playbook) {
		lu_buf_puts(&b, sep);
		put_playbook(&b, m->playbook);
	}
	return lu_buf_take(&b);
}
