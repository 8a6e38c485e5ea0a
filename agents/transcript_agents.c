/*
 * agents/transcript_agents.c - the three agents' session formats
 * (agents/transcript.h, docs/audit.md "Formats").  Each record function reads
 * one parsed line and adds the tool calls in it, or counts it as unknown
 * or malformed.  Each call is turned into what locus_gate() understands:
 * the agent's tool name where the gate maps it (Claude's Bash, Gemini's
 * run_shell_command...), else a harness tool with rebuilt arguments (a
 * Codex argv becomes the one quoted line that runs exactly it).
 */
#include "transcript.h"
#include "../util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* ---- helpers ---- */

char *tr_argv_line(const cJSON *argv)
{
	if (!cJSON_IsArray(argv) || !argv->child)
		return NULL;
	lu_buf b = LU_BUF_INIT;
	for (const cJSON *e = argv->child; e; e = e->next) {
		if (!cJSON_IsString(e)) {
			lu_buf_free(&b);
			return NULL;
		}
		if (e != argv->child)
			lu_buf_putc(&b, ' ');
		if (lu_sh_plain(e->valuestring))
			lu_buf_puts(&b, e->valuestring);
		else
			lu_buf_shquote(&b, e->valuestring);
	}
	return lu_buf_take(&b);
}

/* What a call shows: its command, patch, path, URL... */
static const char *call_text(const cJSON *args)
{
	/* clang-format off */
	static const char *const keys[] = {
		"command", "cmd", "file_path", "path", "absolute_path",
		"notebook_path", "dir_path", "url", "pattern", "query", "patch",
		"input", "prompt", "description", NULL};
	/* clang-format on */
	for (size_t i = 0; keys[i]; i++) {
		const char *v = tr_str(args, keys[i]);
		if (v)
			return v;
	}
	return "";
}

/* Agents' bookkeeping tools, judged as the harness tool that does the
   same (docs/audit.md): a plan or a subagent's task list changes nothing
   (todo_write); view_image reads the file at `path` (read: a key or a
   file outside the workspace is still flagged).  Any other name goes by
   itself, as the gate takes unknown tools. */
static const char *const bookkeeping[][2] = {
    {"update_plan", "todo_write"},
    {"view_image", "read"},
    {"Task", "todo_write"},
};

/* Add a call whose arguments object is `args` (printed here). */
static void add_object(tr_reader *r, const char *time, const char *tool,
                       const char *id, const char *gate_tool, const cJSON *args,
                       const char *status)
{
	char *txt = cJSON_PrintUnformatted(args);
	if (!txt) {
		r->set->oom = 1;
		return;
	}
	for (size_t i = 0; i < sizeof bookkeeping / sizeof *bookkeeping; i++)
		if (!strcmp(gate_tool, bookkeeping[i][0]))
			gate_tool = bookkeeping[i][1];
	/* a tool with none of the usual keys (an MCP call): its arguments
	   are what it shows */
	const char *text = call_text(args);
	tr_add_call(r, time, tool, id, gate_tool, txt, *text ? text : txt,
	            status);
	cJSON_free(txt);
}

/* Add a call of harness tool `gate_tool` with one string argument. */
static void add_one(tr_reader *r, const char *time, const char *tool,
                    const char *id, const char *gate_tool, const char *key,
                    const char *value, const char *status)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, key, value)) {
		cJSON_Delete(o);
		r->set->oom = 1;
		return;
	}
	add_object(r, time, tool, id, gate_tool, o, status);
	cJSON_Delete(o);
}

/* ---- Claude Code ---- */

/* A tool_result the user declined: Claude Code answers the model with
   "The user doesn't want to proceed with this tool use..." (its
   permission prompt's reject). */
static int claude_declined(const cJSON *b)
{
	static const char lead[] = "The user doesn't want to proceed";
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(b, "content");
	const char *t = cJSON_IsString(c) ? c->valuestring : NULL;
	if (cJSON_IsArray(c) && c->child)
		t = tr_str(c->child, "text");
	return t && !strncmp(t, lead, sizeof lead - 1);
}

static void claude_blocks(tr_reader *r, const cJSON *rec, int assistant)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(rec, "message");
	if (!cJSON_IsObject(msg)) {
		tr_malformed(r, "\"message\" is not an object");
		return;
	}
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	if (cJSON_IsString(content))
		return;
	if (!cJSON_IsArray(content)) {
		tr_malformed(r,
		             "\"message.content\" is neither text nor a list");
		return;
	}
	const char *time = tr_str(rec, "timestamp");
	for (const cJSON *b = content->child; b; b = b->next) {
		const char *type = tr_str(b, "type");
		if (!type) {
			tr_malformed(r, "a content block without a type");
			continue;
		}
		if (assistant && !strcmp(type, "tool_use")) {
			const char *name = tr_str(b, "name");
			const cJSON *in =
			    cJSON_GetObjectItemCaseSensitive(b, "input");
			if (!name || !cJSON_IsObject(in)) {
				tr_malformed(r,
				             "tool_use without name or input");
				continue;
			}
			add_object(r, time, name, tr_str(b, "id"), name, in,
			           NULL);
		} else if (!assistant && !strcmp(type, "tool_result")) {
			const cJSON *err =
			    cJSON_GetObjectItemCaseSensitive(b, "is_error");
			tr_result(r, tr_str(b, "tool_use_id"),
			          !cJSON_IsTrue(err)   ? "ok"
			          : claude_declined(b) ? "cancelled"
			                               : "error");
		}
	}
}

void tr_claude_record(tr_reader *r, const cJSON *rec)
{
	/* clang-format off */
	static const char *const quiet[] = {
		"summary", "system", "file-history-snapshot", "queue-operation",
		"progress", "attachment", "custom-title", "ai-title", "tag",
		"last-prompt", "permission-mode", "agent-name", NULL};
	/* clang-format on */
	const char *type = tr_str(rec, "type");
	if (!type) {
		tr_unknown(r, "a record without a type");
		return;
	}
	tr_set_session(r, tr_str(rec, "sessionId"));
	tr_set_cwd(r, tr_str(rec, "cwd"));
	if (!strcmp(type, "assistant") || !strcmp(type, "user")) {
		claude_blocks(r, rec, type[0] == 'a');
		return;
	}
	for (size_t i = 0; quiet[i]; i++)
		if (!strcmp(type, quiet[i]))
			return;
	tr_unknown(r, type);
}

/* ---- Codex CLI ---- */

/* A shell function call: `command` (argv or text) or `cmd`. */
static void codex_shell(tr_reader *r, const char *time, const char *name,
                        const char *id, const cJSON *args)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(args, "command");
	if (!cmd)
		cmd = cJSON_GetObjectItemCaseSensitive(args, "cmd");
	if (cJSON_IsString(cmd)) {
		add_one(r, time, name, id, "bash", "command", cmd->valuestring,
		        NULL);
		return;
	}
	char *line = tr_argv_line(cmd);
	if (!line) {
		/* no command we can read: the gate refuses it (fail closed) */
		add_object(r, time, name, id, "bash", args, NULL);
		return;
	}
	add_one(r, time, name, id, "bash", "command", line, NULL);
	free(line);
}

static void codex_function(tr_reader *r, const char *time, const cJSON *it)
{
	/* clang-format off */
	static const char *const shells[] = {
		"shell", "container.exec", "local_shell", "shell_command",
		"exec_command", NULL};
	/* clang-format on */
	const char *name = tr_str(it, "name");
	const char *raw = tr_str(it, "arguments");
	const char *id = tr_str(it, "call_id");
	if (!name || !raw) {
		tr_malformed(r, "function_call without name or arguments");
		return;
	}
	cJSON *args = tr_object(raw);
	if (!args) {
		/* the arguments as written, which the gate refuses */
		cJSON_Delete(args);
		int sh = 0;
		for (size_t i = 0; shells[i]; i++)
			sh |= !strcmp(name, shells[i]);
		tr_add_call(r, time, name, id, sh ? "bash" : name, raw, raw,
		            NULL);
		return;
	}
	for (size_t i = 0; shells[i]; i++)
		if (!strcmp(name, shells[i])) {
			codex_shell(r, time, name, id, args);
			cJSON_Delete(args);
			return;
		}
	const char *patch = tr_str(args, "input");
	if (!strcmp(name, "apply_patch") && patch) {
		add_one(r, time, name, id, "apply_patch", "patch", patch, NULL);
	} else if (!strcmp(name, "write_stdin")) {
		const cJSON *sid =
		    cJSON_GetObjectItemCaseSensitive(args, "session_id");
		char handle[32] = "";
		if (cJSON_IsNumber(sid))
			snprintf(handle, sizeof handle, "%.0f",
			         sid->valuedouble);
		cJSON *o = cJSON_CreateObject();
		if (o && cJSON_AddStringToObject(o, "handle", handle) &&
		    cJSON_AddStringToObject(
		        o, "text",
		        tr_str(args, "chars") ? tr_str(args, "chars") : ""))
			add_object(r, time, name, id, "write_stdin", o, NULL);
		cJSON_Delete(o);
	} else {
		add_object(r, time, name, id, name, args, NULL);
	}
	cJSON_Delete(args);
}

/* A tool output: a shell's JSON {"metadata":{"exit_code":N}} or text. */
static const char *codex_status(const cJSON *out)
{
	if (cJSON_IsObject(out)) {
		const cJSON *ok =
		    cJSON_GetObjectItemCaseSensitive(out, "success");
		return cJSON_IsFalse(ok) ? "error" : "ok";
	}
	if (!cJSON_IsString(out))
		return "ok";
	/* lenient: the output only sets the status the report shows (a
	   malformed one reads "ok" either way), never the judgement */
	cJSON *j = cJSON_Parse(out->valuestring);
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(j, "metadata");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(meta, "exit_code");
	const char *st =
	    cJSON_IsNumber(code) && code->valuedouble != 0 ? "error" : "ok";
	cJSON_Delete(j);
	return st;
}

static void codex_item(tr_reader *r, const char *time, const cJSON *it)
{
	/* clang-format off */
	static const char *const quiet[] = {
		"message", "reasoning", "ghost_snapshot", "compaction",
		"compaction_summary", "other", NULL};
	/* clang-format on */
	const char *type = tr_str(it, "type");
	if (!type) {
		tr_malformed(r, "a response item without a type");
		return;
	}
	if (!strcmp(type, "function_call")) {
		codex_function(r, time, it);
	} else if (!strcmp(type, "custom_tool_call")) {
		const char *name = tr_str(it, "name");
		const char *input = tr_str(it, "input");
		if (!name || !input) {
			tr_malformed(r,
			             "custom_tool_call without name or input");
			return;
		}
		int patch = !strcmp(name, "apply_patch");
		add_one(r, time, name, tr_str(it, "call_id"),
		        patch ? "apply_patch" : name, patch ? "patch" : "input",
		        input, NULL);
	} else if (!strcmp(type, "local_shell_call")) {
		const cJSON *act =
		    cJSON_GetObjectItemCaseSensitive(it, "action");
		const char *id = tr_str(it, "call_id");
		if (!cJSON_IsObject(act)) {
			tr_malformed(r, "local_shell_call without an action");
			return;
		}
		codex_shell(r, time, "local_shell_call",
		            id ? id : tr_str(it, "id"), act);
	} else if (!strcmp(type, "function_call_output") ||
	           !strcmp(type, "custom_tool_call_output")) {
		tr_result(r, tr_str(it, "call_id"),
		          codex_status(
		              cJSON_GetObjectItemCaseSensitive(it, "output")));
	} else if (!strcmp(type, "web_search_call")) {
		const cJSON *act =
		    cJSON_GetObjectItemCaseSensitive(it, "action");
		const char *q = tr_str(act, "query");
		if (!q)
			q = tr_str(act, "url");
		add_one(r, time, "web_search_call", tr_str(it, "id"),
		        "web_search", "query", q ? q : "", NULL);
	} else {
		for (size_t i = 0; quiet[i]; i++)
			if (!strcmp(type, quiet[i]))
				return;
		tr_unknown(r, type);
	}
}

void tr_codex_record(tr_reader *r, const cJSON *rec)
{
	static const char *const quiet[] = {"event_msg", "compacted", NULL};
	const char *type = tr_str(rec, "type");
	const cJSON *payload = cJSON_GetObjectItemCaseSensitive(rec, "payload");
	const char *time = tr_str(rec, "timestamp");
	if (!payload) {
		/* before September 2025: a bare header, then bare items */
		if (tr_str(rec, "record_type"))
			return;
		if (!type && tr_str(rec, "id")) {
			tr_set_session(r, tr_str(rec, "id"));
			return;
		}
		codex_item(r, time, rec);
		return;
	}
	if (!type || !cJSON_IsObject(payload)) {
		tr_malformed(r,
		             "a rollout line without type or payload object");
		return;
	}
	if (!strcmp(type, "session_meta")) {
		const cJSON *meta =
		    cJSON_GetObjectItemCaseSensitive(payload, "meta");
		if (!cJSON_IsObject(meta))
			meta = payload;
		tr_set_session(r, tr_str(meta, "id"));
		tr_set_cwd(r, tr_str(meta, "cwd"));
	} else if (!strcmp(type, "turn_context")) {
		tr_set_cwd(r, tr_str(payload, "cwd"));
	} else if (!strcmp(type, "response_item")) {
		codex_item(r, time, payload);
	} else {
		for (size_t i = 0; quiet[i]; i++)
			if (!strcmp(type, quiet[i]))
				return;
		tr_unknown(r, type);
	}
}

/* ---- Gemini CLI ---- */

static const char *gemini_status(const char *st)
{
	if (!st)
		return NULL;
	if (!strcmp(st, "success"))
		return "ok";
	if (!strcmp(st, "error"))
		return "error";
	if (!strcmp(st, "cancelled"))
		return "cancelled";
	return NULL; /* scheduled, executing, awaiting_approval... */
}

/* The line of the first `"id"` value equal to `id` at or after the
   reader's position in its document (the position moves there). */
static long line_of(tr_reader *r, const char *id)
{
	char needle[300];
	snprintf(needle, sizeof needle, "\"%s\"", id ? id : "");
	const char *hit = id ? strstr(r->doc_pos, needle) : NULL;
	if (!hit)
		return r->doc_line;
	for (const char *p = r->doc_pos; p < hit; p++)
		r->doc_line += *p == '\n';
	r->doc_pos = hit;
	return r->doc_line;
}

static void gemini_message(tr_reader *r, const cJSON *m)
{
	const cJSON *calls = cJSON_GetObjectItemCaseSensitive(m, "toolCalls");
	if (!calls)
		return;
	if (!cJSON_IsArray(calls)) {
		tr_malformed(r, "\"toolCalls\" is not a list");
		return;
	}
	for (const cJSON *c = calls->child; c; c = c->next) {
		const char *name = tr_str(c, "name");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(c, "args");
		if (!name || !cJSON_IsObject(args)) {
			tr_malformed(r, "a tool call without name or args");
			continue;
		}
		const char *time = tr_str(c, "timestamp");
		if (r->doc)
			r->line = line_of(r, tr_str(c, "id"));
		add_object(r, time ? time : tr_str(m, "timestamp"), name,
		           tr_str(c, "id"), name, args,
		           gemini_status(tr_str(c, "status")));
	}
}

static void gemini_meta(tr_reader *r, const cJSON *rec)
{
	tr_set_session(r, tr_str(rec, "sessionId"));
	const char *ph = tr_str(rec, "projectHash");
	tr_file *f = &r->set->files[r->file];
	if (ph && !f->project)
		f->project = strdup(ph);
}

void tr_gemini_record(tr_reader *r, const cJSON *rec)
{
	const cJSON *set = cJSON_GetObjectItemCaseSensitive(rec, "$set");
	if (set) {
		const cJSON *msgs =
		    cJSON_GetObjectItemCaseSensitive(set, "messages");
		for (const cJSON *m = cJSON_IsArray(msgs) ? msgs->child : NULL;
		     m; m = m->next)
			gemini_message(r, m);
		return;
	}
	if (tr_str(rec, "$rewindTo"))
		return; /* the calls before it ran all the same: kept */
	if (tr_str(rec, "id") && tr_str(rec, "type")) {
		gemini_message(r, rec);
		return;
	}
	if (tr_str(rec, "sessionId") && tr_str(rec, "projectHash")) {
		gemini_meta(r, rec);
		return;
	}
	tr_unknown(r, "not a Gemini session record");
}

int tr_gemini_document(tr_reader *r, const cJSON *doc, const char *text)
{
	tr_file *f = &r->set->files[r->file];
	if (cJSON_IsArray(doc)) {
		/* logs.json: the user's prompts {sessionId,messageId,type,...} */
		const cJSON *first = doc->child;
		if (first && !tr_str(first, "sessionId"))
			return -1;
		f->agent = TR_GEMINI;
		f->records = cJSON_GetArraySize(doc);
		return 0;
	}
	const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(doc, "messages");
	if (!cJSON_IsObject(doc) || !tr_str(doc, "sessionId") ||
	    !cJSON_IsArray(msgs))
		return -1;
	f->agent = TR_GEMINI;
	gemini_meta(r, doc);
	f->records = cJSON_GetArraySize(msgs);
	r->doc = r->doc_pos = text;
	r->doc_line = 1;
	for (const cJSON *m = msgs->child; m; m = m->next) {
		r->line = line_of(r, tr_str(m, "id"));
		gemini_message(r, m);
	}
	r->doc = r->doc_pos = NULL;
	return 0;
}
