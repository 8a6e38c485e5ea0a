/*
 * gateway/answer.c - what the route files answer and refuse with
 * (gateway/gw.h): a JSON reply, an error with {"detail"}, a refusal that
 * is also an audit record, the strict JSON body of a request and its
 * query arguments, and the change notice the long polls wait for.  The
 * server (server.c) dispatches to the routes; the routes use these.
 */
#include "gateway/gw.h"

#include <stdio.h>

#include "runner/json.h"

#include <microhttpd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void gw_reply(gw_resp *r, int status, cJSON *o)
{
	free(r->body);
	r->status = status;
	r->content_type = "application/json";
	r->body = o ? lr_json_canonical(o) : strdup("{}");
	cJSON_Delete(o);
	if (!r->body) {
		r->status = 500;
		r->body = NULL;
	}
}

static void vfail(gw_resp *r, int status, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void vfail(gw_resp *r, int status, const char *fmt, va_list ap)
{
	char why[400];
	vsnprintf(why, sizeof why, fmt, ap);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "detail", why);
	gw_reply(r, status, o);
}

void gw_fail(gw_resp *r, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(r, status, fmt, ap);
	va_end(ap);
}

void gw_refuse(gw_req *q, gw_resp *r, int status, const char *fmt, ...)
{
	char why[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	gw_fail(r, status, "%s", why);
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "method", q->method);
	cJSON_AddStringToObject(rec, "path", q->path);
	cJSON_AddNumberToObject(rec, "status", status);
	cJSON_AddStringToObject(rec, "why", why);
	cJSON_AddStringToObject(rec, "caller",
	                        q->who == GW_RUN        ? "run"
	                        : q->who == GW_OPERATOR ? "operator"
	                                                : "nobody");
	cJSON_AddStringToObject(rec, "client", q->client);
	locus_error err;
	if (!gw_tx_begin(&q->srv->db, &err)) {
		int rc = gw_audit(&q->srv->db, "refusal",
		                  q->who == GW_RUN ? q->run_id : NULL, rec,
		                  NULL, &err);
		gw_tx_end(&q->srv->db, rc == 0, &err);
	}
	cJSON_Delete(rec);
}

static bool in_list(const char *k, const char *const *list)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(k, list[i]))
			return true;
	return false;
}

cJSON *gw_body(gw_req *q, gw_resp *r, const char *const *required,
               const char *const *optional)
{
	const char *ct = q->content_type ? q->content_type : "";
	size_t n = strlen("application/json");
	if (strncmp(ct, "application/json", n) || (ct[n] && ct[n] != ';')) {
		gw_refuse(q, r, 415, "Content-Type is not application/json");
		return NULL;
	}
	cJSON *o = NULL;
	locus_error err;
	if (lr_json_parse(q->body ? q->body : "", q->body_len, &o, &err)) {
		gw_refuse(q, r, 400, "malformed JSON: %s", err.message);
		return NULL;
	}
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		gw_refuse(q, r, 400, "the body is not a JSON object");
		return NULL;
	}
	for (const cJSON *c = o->child; c; c = c->next)
		if (!in_list(c->string, required) &&
		    !in_list(c->string, optional)) {
			gw_refuse(q, r, 422, "unknown field \"%.60s\"",
			          c->string);
			cJSON_Delete(o);
			return NULL;
		}
	for (size_t i = 0; required && required[i]; i++)
		if (!cJSON_GetObjectItemCaseSensitive(o, required[i])) {
			gw_refuse(q, r, 422, "missing field \"%s\"",
			          required[i]);
			cJSON_Delete(o);
			return NULL;
		}
	return o;
}

bool gw_no_body(gw_req *q, gw_resp *r)
{
	if (q->body_len) {
		gw_refuse(q, r, 400, "a %s with a body", q->method);
		return false;
	}
	return true;
}

const char *gw_arg(const gw_req *q, const char *name)
{
	return MHD_lookup_connection_value(q->conn, MHD_GET_ARGUMENT_KIND,
	                                   name);
}

static enum MHD_Result count_arg(void *cls, enum MHD_ValueKind kind,
                                 const char *key, const char *value)
{
	(void)kind;
	(void)value;
	const char *const *allowed = ((const char *const **)cls)[0];
	bool *bad = ((bool **)cls)[1];
	if (!in_list(key, allowed))
		*bad = true;
	return MHD_YES;
}

bool gw_args_known(const gw_req *q, const char *const *allowed)
{
	bool bad = false;
	const void *pair[2] = {allowed, &bad};
	MHD_get_connection_values(q->conn, MHD_GET_ARGUMENT_KIND, count_arg,
	                          (void *)pair);
	return !bad;
}

void gw_notify(gw_server *s)
{
	pthread_mutex_lock(&s->change_lock);
	s->changes++;
	pthread_cond_broadcast(&s->change_cond);
	pthread_mutex_unlock(&s->change_lock);
}
