/*
 * agents/transcript_calls.c - the call list the formats fill
 * (agents/transcript.h): calls added and matched to their results by id,
 * the session and working folder they run in, and the lines counted as
 * unknown or malformed.
 */
#include "transcript.h"
#include "../util/array.h"
#include "../util/json.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

const char *tr_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *tr_object(const char *text)
{
	lu_json_opts o = LU_JSON_OPTS_INIT;
	o.object = true;
	cJSON *v = NULL;
	if (text)
		lu_json_read(&v, text, strlen(text), &o, NULL);
	return v;
}

static void problem(tr_reader *r, const char *kind, const char *why)
{
	tr_file *f = &r->set->files[r->file];
	if (f->problem_line)
		return;
	f->problem_line = r->line;
	snprintf(f->problem, sizeof f->problem, "%s: %s", kind, why);
}

void tr_unknown(tr_reader *r, const char *why)
{
	r->set->files[r->file].unknown++;
	problem(r, "unknown", why);
}

void tr_malformed(tr_reader *r, const char *why)
{
	r->set->files[r->file].malformed++;
	problem(r, "malformed", why);
}

static void replace(char **slot, const char *v)
{
	if (!v)
		return;
	char *n = strdup(v);
	if (!n)
		return;
	free(*slot);
	*slot = n;
}

void tr_set_session(tr_reader *r, const char *session)
{
	replace(&r->session, session);
}

void tr_set_cwd(tr_reader *r, const char *cwd)
{
	replace(&r->cwd, cwd);
}

void tr_call_free(tr_call *c)
{
	free(c->session);
	free(c->time);
	free(c->cwd);
	free(c->tool);
	free(c->call_id);
	free(c->gate_tool);
	free(c->args);
	free(c->text);
	free(c->status);
}

static size_t hash_id(const char *s)
{
	size_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* Calls are found by id in a hash table of the file's calls: transcripts
   hold 100,000 calls, a scan per result would be quadratic. */
static tr_call *find_call(tr_reader *r, const char *id)
{
	if (!id || !r->capids)
		return NULL;
	for (size_t i = hash_id(id) & (r->capids - 1);;
	     i = (i + 1) & (r->capids - 1)) {
		size_t v = r->ids[i];
		if (!v)
			return NULL;
		tr_call *c = &r->set->calls[v - 1];
		if (!strcmp(c->call_id, id))
			return c;
	}
}

static void index_call(tr_reader *r, size_t idx)
{
	if ((r->nids + 1) * 2 > r->capids) {
		size_t cap = r->capids ? r->capids * 2 : 256;
		size_t *n = calloc(cap, sizeof *n);
		if (!n) {
			r->set->oom = 1;
			return;
		}
		for (size_t i = 0; i < r->capids; i++) {
			size_t v = r->ids[i];
			if (!v)
				continue;
			size_t k =
			    hash_id(r->set->calls[v - 1].call_id) & (cap - 1);
			while (n[k])
				k = (k + 1) & (cap - 1);
			n[k] = v;
		}
		free(r->ids);
		r->ids = n;
		r->capids = cap;
	}
	size_t k = hash_id(r->set->calls[idx].call_id) & (r->capids - 1);
	while (r->ids[k])
		k = (k + 1) & (r->capids - 1);
	r->ids[k] = idx + 1;
	r->nids++;
}

int tr_add_call(tr_reader *r, const char *time, const char *tool,
                const char *id, const char *gate_tool, const char *args,
                const char *text, const char *status)
{
	tr_set *s = r->set;
	tr_call *old = find_call(r, id);
	if (old) {
		replace(&old->time, time);
		replace(&old->gate_tool, gate_tool);
		replace(&old->args, args);
		replace(&old->text, text);
		replace(&old->status, status);
		return 0;
	}
	if (!lu_reserve(&s->calls, &s->capcalls, s->ncalls + 1)) {
		s->oom = 1;
		return -1;
	}
	tr_call c = {
	    .file = r->file,
	    .line = r->line,
	    .agent = s->files[r->file].agent,
	    .session = dup_or_null(r->session),
	    .time = dup_or_null(time),
	    .cwd = dup_or_null(r->cwd),
	    .tool = dup_or_null(tool),
	    .call_id = dup_or_null(id),
	    .gate_tool = dup_or_null(gate_tool),
	    .args = dup_or_null(args),
	    .text = dup_or_null(text ? text : ""),
	    .status = dup_or_null(status),
	};
	if (!c.tool || !c.gate_tool || !c.args || !c.text) {
		tr_call_free(&c);
		s->oom = 1;
		return -1;
	}
	s->calls[s->ncalls++] = c;
	s->files[r->file].calls++;
	if (c.call_id)
		index_call(r, s->ncalls - 1);
	return 0;
}

void tr_result(tr_reader *r, const char *id, const char *status)
{
	if (!id || !status)
		return;
	tr_call *c = find_call(r, id);
	if (c) {
		replace(&c->status, status);
		return;
	}
	if (!lu_reserve(&r->pending, &r->cappending, r->npending + 1))
		return;
	char *i = strdup(id), *st = strdup(status);
	if (!i || !st) {
		free(i);
		free(st);
		return;
	}
	r->pending[r->npending++] = (struct tr_pending){i, st};
}

void tr_apply_pending(tr_reader *r)
{
	for (size_t i = 0; i < r->npending; i++) {
		tr_call *c = find_call(r, r->pending[i].id);
		if (c)
			replace(&c->status, r->pending[i].status);
		free(r->pending[i].id);
		free(r->pending[i].status);
	}
	free(r->pending);
}
