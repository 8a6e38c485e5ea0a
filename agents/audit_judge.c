/*
 * agents/audit_judge.c - one transcript call through locus_gate() (the
 * judge is policy/judge.c), and the JSON shapes every report is made
 * from: the row object (one JSONL line) and the summary (docs/audit.md
 * "The JSONL records").
 */
#include <stdlib.h>
#include <string.h>

#include "audit_report.h"

int au_judge(au_row *r, const locus_policy *policy, locus_shell_parser *parser,
             const tr_call *c, const char *file)
{
	memset(r, 0, sizeof *r);
	r->call = c;
	r->file = file;
	return pl_judge(&r->j, policy, parser, c->gate_tool, c->args, c->cwd);
}

void au_row_free(au_row *r)
{
	pl_judged_free(&r->j);
	memset(r, 0, sizeof *r);
}

/* ---- JSON ---- */

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *au_row_json(const au_row *r)
{
	const tr_call *c = r->call;
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "type", "call");
	cJSON_AddStringToObject(o, "file", r->file);
	cJSON_AddNumberToObject(o, "line", (double)c->line);
	cJSON_AddStringToObject(o, "agent", tr_agent_name(c->agent));
	add_str(o, "session", c->session);
	add_str(o, "time", c->time);
	add_str(o, "cwd", c->cwd);
	cJSON_AddStringToObject(o, "tool", c->tool);
	add_str(o, "call_id", c->call_id);
	cJSON_AddStringToObject(o, "text", c->text);
	add_str(o, "status", c->status);
	cJSON_AddStringToObject(o, "outcome", locus_outcome_name(r->j.outcome));
	cJSON_AddStringToObject(o, "reason", r->j.reason);
	cJSON_AddStringToObject(o, "kind", r->j.kind);
	cJSON *tags = cJSON_AddArrayToObject(o, "tags");
	for (size_t i = 0; tags && i < r->j.ntags; i++)
		cJSON_AddItemToArray(tags, cJSON_CreateString(r->j.tags[i]));
	cJSON_AddStringToObject(o, "family", r->j.family);
	cJSON_AddBoolToObject(o, "dangerous", r->j.dangerous);
	if (r->j.verdict) {
		cJSON *p = cJSON_AddObjectToObject(o, "permission");
		add_str(p, "verdict", r->j.verdict);
		add_str(p, "rule", r->j.rule);
	} else {
		cJSON_AddNullToObject(o, "permission");
	}
	/* our own output (locus_action_json): lenient is right */
	cJSON *cmds = r->j.commands ? cJSON_Parse(r->j.commands) : NULL;
	cJSON *list = cJSON_DetachItemFromObjectCaseSensitive(cmds, "commands");
	if (list)
		cJSON_AddItemToObject(o, "commands", list);
	cJSON_Delete(cmds);
	return o;
}
