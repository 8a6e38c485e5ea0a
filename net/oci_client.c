/*
 * net/oci_client.c - the OCI Generative AI Sandboxes client: signed
 * JSON requests, the sandbox lifecycle, files.  Command streams are in
 * oci_stream.c.
 *
 * Every mutating call carries an opc-retry-token made once per call, so
 * net/http's retries (429, 5xx, transport failures) are idempotent; every
 * error names the operation, the HTTP status, the service's code and
 * message, and the opc-request-id.
 */
#include "net/oci_client.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/clock.h"

const char *loci_client_region(const loci_client *c)
{
	return c->region;
}

void loci_client_free(loci_client *c)
{
	if (!c)
		return;
	lhttp_client_free(c->http);
	loci_signer_free(c->signer);
	loci_routes_clear(&c->routes);
	free(c->region);
	free(c);
}

int loci_client_new(loci_client **out, const loci_client_options *opt,
                    loci_signer *signer, loci_routes *routes, locus_error *err)
{
	*out = NULL;
	loci_client *c = calloc(1, sizeof *c);
	if (!c) {
		loci_signer_free(signer);
		loci_routes_clear(routes);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	c->signer = signer;
	c->routes = *routes;
	memset(routes, 0, sizeof *routes);
	c->framing = opt->framing;
	c->data_base64 = opt->data_base64;
	c->expires_in_minutes = opt->expires_in_minutes;
	c->timeout_ms =
	    opt->request_timeout_ms ? opt->request_timeout_ms : 60000;
	const char *region = opt->region ? opt->region : "";
	lu_buf ep = {0};
	if (opt->endpoint)
		lu_buf_puts(&ep, opt->endpoint);
	else if (*region)
		lu_buf_printf(&ep,
		              "https://inference.generativeai.%s.oci."
		              "oraclecloud.com",
		              region);
	c->region = strdup(region);
	if (ep.oom || !c->region) {
		lu_buf_free(&ep);
		loci_client_free(c);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (!ep.d) {
		loci_client_free(c);
		return lu_err(err, LOCUS_EINVALID,
		              "OCI: no region and no endpoint");
	}
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.base_url = ep.d;
	o.ca_file = opt->ca_file;
	o.http_version = LHTTP_HTTP1;
	o.max_attempts = opt->max_attempts;
	o.request_id_header = "opc-request-id";
	o.sleep_ms = opt->sleep_ms;
	o.sleep_payload = opt->sleep_payload;
	int rc = lhttp_client_new(&c->http, &o, err);
	lu_buf_free(&ep);
	if (rc) {
		loci_client_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Requests                                                           */
/* ---------------------------------------------------------------- */

typedef struct tramp {
	loci_signer *signer;
	lhttp_body_fn on_body;
	void *ctx;
	const loci_client *c;
} tramp;

void loci_client_set_cancel(loci_client *c, bool (*fn)(void *ctx), void *ctx)
{
	c->cancel = fn;
	c->cancel_ctx = ctx;
}

static bool tramp_cancel(void *ctx)
{
	const loci_client *c = ((tramp *)ctx)->c;
	return c->cancel && c->cancel(c->cancel_ctx);
}

static int tramp_prepare(void *ctx, const lhttp_request *req, const char *url,
                         lhttp_headers *h, locus_error *err)
{
	return loci_prepare(((tramp *)ctx)->signer, req, url, h, err);
}

static int tramp_body(void *ctx, const lhttp_response *resp, const char *d,
                      size_t n)
{
	tramp *t = ctx;
	return t->on_body(t->ctx, resp, d, n);
}

static bool mutating(loci_op op)
{
	return op == LOCI_CREATE || op == LOCI_EXTEND || op == LOCI_STOP ||
	       op == LOCI_RESUME || op == LOCI_RUN ||
	       op == LOCI_RUN_AND_STREAM || op == LOCI_CANCEL ||
	       op == LOCI_WRITE_FILE;
}

int loci_request(loci_client *c, const loci_call *call, lhttp_response *resp,
                 locus_error *err)
{
	memset(resp, 0, sizeof *resp);
	const loci_route *rt = &c->routes.r[call->op];
	char *path = loci_route_path(&c->routes, call->op, call->vars);
	if (!path)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	lhttp_headers h = {0};
	char tok[33], rid[33];
	int rc = 0;
	if (lhttp_random_token(rid) ||
	    (mutating(call->op) && lhttp_random_token(tok)))
		rc = lu_err(err, LOCUS_EIO, "OCI: the random generator failed");
	bool body = strcmp(rt->method, "GET") && strcmp(rt->method, "DELETE");
	if (!rc &&
	    (lhttp_headers_add(&h, "opc-request-id", rid) ||
	     (mutating(call->op) &&
	      lhttp_headers_add(&h, "opc-retry-token", tok)) ||
	     (body &&
	      lhttp_headers_add(&h, "content-type",
	                        call->content_type ? call->content_type
	                                           : "application/json")) ||
	     (call->accept && lhttp_headers_add(&h, "accept", call->accept))))
		rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	for (size_t i = 0; !rc && call->extra && call->extra[i]; i += 2)
		if (lhttp_headers_add(&h, call->extra[i], call->extra[i + 1]))
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	/* prepare (the signer) and on_body share net/http's one ctx. */
	tramp tr = {c->signer, call->on_body, call->body_ctx, c};
	if (!rc) {
		lhttp_request rq = {
		    .method = rt->method,
		    .url = path,
		    .headers = &h,
		    .body = call->body,
		    .body_len = call->body_len,
		    .has_body = body,
		    .retry = LHTTP_RETRY_IDEMPOTENT,
		    .timeout_ms = call->timeout_ms ? call->timeout_ms
		                  : call->on_body  ? 0
		                                   : c->timeout_ms,
		    .idle_timeout_ms = call->idle_timeout_ms,
		    .prepare = tramp_prepare,
		    .on_body = call->on_body ? tramp_body : NULL,
		    .cancel = tramp_cancel,
		    .ctx = &tr,
		};
		rc = lhttp_perform(c->http, &rq, resp, err);
		if (rc && err) {
			size_t n = strlen(err->message);
			snprintf(err->message + n, sizeof err->message - n,
			         " [OCI %s]", loci_op_name(call->op));
		}
	}
	lhttp_headers_clear(&h);
	free(path);
	return rc;
}

int loci_status_error(const lhttp_response *r, loci_op op, locus_error *err)
{
	const char *code = "", *msg = "";
	cJSON *j = r->body ? cJSON_ParseWithLength(r->body, r->body_len) : NULL;
	if (cJSON_IsObject(j)) {
		const char *s =
		    cJSON_GetStringValue(cJSON_GetObjectItem(j, "code"));
		code = s ? s : "";
		s = cJSON_GetStringValue(cJSON_GetObjectItem(j, "message"));
		msg = s ? s : "";
	}
	int lc = r->status == 404                       ? LOCUS_ENOTFOUND
	         : r->status == 401 || r->status == 403 ? LOCUS_EDENIED
	         : r->status == 413                     ? LOCUS_ETOOBIG
	         : r->status == 400 || r->status == 409 ? LOCUS_EINVALID
	                                                : LOCUS_EIO;
	lu_err(err, lc, "OCI %s: HTTP %ld %s: %.100s (opc-request-id %s)",
	       loci_op_name(op), r->status, code, msg,
	       r->request_id[0] ? r->request_id : "none");
	cJSON_Delete(j);
	return lc;
}

int loci_request_ok(loci_client *c, const loci_call *call, lhttp_response *resp,
                    locus_error *err)
{
	int rc = loci_request(c, call, resp, err);
	if (!rc && (resp->status < 200 || resp->status > 299))
		rc = loci_status_error(resp, call->op, err);
	return rc;
}

/* A JSON call: *out the parsed 2xx body (NULL when empty). */
static int json_call(loci_client *c, loci_op op, const char *const *vars,
                     cJSON *body, cJSON **out, locus_error *err)
{
	if (out)
		*out = NULL;
	char *text = body ? cJSON_PrintUnformatted(body) : NULL;
	if (body && !text)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	loci_call call = {.op = op,
	                  .vars = vars,
	                  .body = text ? text : "",
	                  .body_len = text ? strlen(text) : 0};
	lhttp_response r;
	int rc = loci_request_ok(c, &call, &r, err);
	free(text);
	if (!rc && out && r.body_len) {
		*out = cJSON_ParseWithLength(r.body, r.body_len);
		if (!*out)
			rc = lu_err(err, LOCUS_EIO,
			            "OCI %s: the answer is not JSON "
			            "(opc-request-id %s)",
			            loci_op_name(op), r.request_id);
	}
	lhttp_response_clear(&r);
	return rc;
}

/* ---------------------------------------------------------------- */
/* Lifecycle                                                          */
/* ---------------------------------------------------------------- */

static char *jstr(cJSON *j, const char *k)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(j, k));
	return s ? strdup(s) : NULL;
}

int loci_sandbox_state(loci_client *c, const char *id, char **state,
                       char **expires, locus_error *err)
{
	*state = NULL;
	if (expires)
		*expires = NULL;
	const char *vars[] = {"sandboxId", id, NULL};
	cJSON *j;
	int rc = json_call(c, LOCI_GET, vars, NULL, &j, err);
	if (rc)
		return rc;
	*state = jstr(j, "lifecycleState");
	if (expires)
		*expires = jstr(j, "timeExpires");
	cJSON_Delete(j);
	if (!*state)
		return lu_err(err, LOCUS_EIO,
		              "OCI get: no lifecycleState for %s", id);
	return 0;
}

static void nap(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

/* Poll until state `want`; a terminal state or the timeout fails. */
static int wait_state(loci_client *c, const char *id, const char *want,
                      double timeout_s, double every_s, locus_error *err)
{
	double end = lu_now() + timeout_s;
	for (;;) {
		char *st;
		int rc = loci_sandbox_state(c, id, &st, NULL, err);
		if (rc)
			return rc;
		bool ok = !strcmp(st, want);
		bool dead = !strcmp(st, "FAILED") || !strcmp(st, "DELETED") ||
		            (!strcmp(st, "STOPPED") && strcmp(want, "STOPPED"));
		if (!ok && dead)
			lu_err(err, LOCUS_EIO, "OCI sandbox %s is %s, not %s",
			       id, st, want);
		free(st);
		if (ok)
			return 0;
		if (dead)
			return LOCUS_EIO;
		if (lu_now() + every_s > end)
			return lu_err(err, LOCUS_ETIMEOUT,
			              "OCI sandbox %s not %s after %.0f s", id,
			              want, timeout_s);
		nap(every_s);
	}
}

static cJSON *create_body(const loci_client *c, const loci_create *in,
                          long minutes)
{
	cJSON *b = cJSON_CreateObject();
	char name[64], tok[33];
	if (!in->display_name) {
		lhttp_random_token(tok);
		snprintf(name, sizeof name, "locus-harness-%.12s", tok);
	}
	cJSON_AddStringToObject(b, "displayName",
	                        in->display_name ? in->display_name : name);
	cJSON_AddStringToObject(b, "runtime",
	                        in->runtime ? in->runtime : "python-3.11");
	cJSON_AddStringToObject(b, "shape", in->shape ? in->shape : "SMALL");
	if (c->expires_in_minutes) {
		cJSON_AddNumberToObject(b, "expiresInMinutes", (double)minutes);
	} else {
		char d[32];
		snprintf(d, sizeof d, "PT%ldM", minutes);
		cJSON_AddStringToObject(b, "expirationDuration", d);
	}
	if (in->warmpool_name)
		cJSON_AddStringToObject(b, "warmpoolName", in->warmpool_name);
	if (in->env && in->env[0]) {
		cJSON *arr = cJSON_AddArrayToObject(b, "environmentVariables");
		for (size_t i = 0; in->env[i]; i++) {
			const char *eq = strchr(in->env[i], '=');
			if (!eq)
				continue;
			cJSON *e = cJSON_CreateObject();
			char *n =
			    strndup(in->env[i], (size_t)(eq - in->env[i]));
			cJSON_AddStringToObject(e, "name", n ? n : "");
			cJSON_AddStringToObject(e, "value", eq + 1);
			free(n);
			cJSON_AddItemToArray(arr, e);
		}
	}
	return b;
}

int loci_sandbox_create(loci_client *c, const loci_create *in, char **id_out,
                        locus_error *err)
{
	*id_out = NULL;
	if (!in->project_id || !*in->project_id)
		return lu_err(err, LOCUS_EINVALID, "OCI create: no project");
	long minutes;
	int rc = loci_duration_minutes(in->expiration ? in->expiration : "PT1H",
	                               &minutes, err);
	if (rc)
		return rc;
	cJSON *body = create_body(c, in, minutes), *j = NULL;
	const char *vars[] = {"projectId", in->project_id, NULL};
	rc = json_call(c, LOCI_CREATE, vars, body, &j, err);
	cJSON_Delete(body);
	if (rc)
		return rc;
	*id_out = jstr(j, "id");
	cJSON_Delete(j);
	if (!*id_out)
		return lu_err(err, LOCUS_EIO, "OCI create: no sandbox id");
	return wait_state(c, *id_out, "RUNNING",
	                  in->ready_timeout_s > 0 ? in->ready_timeout_s : 300,
	                  in->poll_interval_s > 0 ? in->poll_interval_s : 2,
	                  err);
}

int loci_sandbox_attach(loci_client *c, const char *id, double timeout_s,
                        locus_error *err)
{
	char *st;
	int rc = loci_sandbox_state(c, id, &st, NULL, err);
	if (rc)
		return rc;
	if (!strcmp(st, "SUSPENDED")) {
		const char *vars[] = {"sandboxId", id, NULL};
		cJSON *b = cJSON_CreateObject();
		rc = json_call(c, LOCI_RESUME, vars, b, NULL, err);
		cJSON_Delete(b);
	} else if (strcmp(st, "RUNNING") && strcmp(st, "RESUMING") &&
	           strcmp(st, "CREATING")) {
		rc = lu_err(err, LOCUS_EINVALID,
		            "OCI sandbox %s is %s: cannot attach", id, st);
	}
	free(st);
	if (!rc)
		rc = wait_state(c, id, "RUNNING", timeout_s, 1, err);
	return rc;
}

int loci_sandbox_destroy(loci_client *c, const char *id, locus_error *err)
{
	const char *vars[] = {"sandboxId", id, NULL};
	cJSON *b = cJSON_CreateObject();
	cJSON_AddBoolToObject(b, "isForce", false);
	int rc = json_call(c, LOCI_STOP, vars, b, NULL, err);
	cJSON_Delete(b);
	if (rc == LOCUS_ENOTFOUND)
		return 0;
	/* Stopped or not (409: already stopping or stopped), delete it:
	   leaving a sandbox behind costs money. */
	if (!rc)
		wait_state(c, id, "STOPPED", 60, 1, err);
	rc = json_call(c, LOCI_DELETE, vars, NULL, NULL, err);
	return rc == LOCUS_ENOTFOUND ? 0 : rc;
}

int loci_sandbox_extend(loci_client *c, const char *id, const char *duration,
                        char **expires, locus_error *err)
{
	*expires = NULL;
	long minutes;
	int rc = loci_duration_minutes(duration, &minutes, err);
	if (rc)
		return rc;
	char d[32];
	snprintf(d, sizeof d, "PT%ldM", minutes);
	cJSON *b = cJSON_CreateObject(), *j = NULL;
	cJSON_AddStringToObject(b, "additionalDuration", d);
	const char *vars[] = {"sandboxId", id, NULL};
	rc = json_call(c, LOCI_EXTEND, vars, b, &j, err);
	cJSON_Delete(b);
	if (!rc && j)
		*expires = jstr(j, "timeExpires");
	cJSON_Delete(j);
	if (!rc && !*expires) {
		char *st;
		rc = loci_sandbox_state(c, id, &st, expires, err);
		free(st);
	}
	return rc;
}

/* "PT1H30M", "P1DT2H", "PT90S" -> whole minutes (seconds round up);
   1 .. 48 h. */
int loci_duration_minutes(const char *iso, long *minutes, locus_error *err)
{
	const char *p = iso;
	long total = 0; /* seconds */
	bool t = false, any = false;
	if (*p++ != 'P')
		goto bad;
	while (*p) {
		if (*p == 'T' && !t) {
			t = true;
			p++;
			continue;
		}
		long v = 0;
		const char *s = p;
		while (*p >= '0' && *p <= '9' && v < 1000000)
			v = v * 10 + (*p++ - '0');
		if (p == s)
			goto bad;
		long mul = *p == 'D' && !t  ? 86400
		           : *p == 'H' && t ? 3600
		           : *p == 'M' && t ? 60
		           : *p == 'S' && t ? 1
		                            : 0;
		if (!mul)
			goto bad;
		total += v * mul;
		any = true;
		p++;
	}
	if (!any)
		goto bad;
	*minutes = (total + 59) / 60;
	if (*minutes < 1 || *minutes > 48 * 60)
		return lu_err(err, LOCUS_EINVALID,
		              "OCI: duration %.40s is not between 1 minute and "
		              "48 hours",
		              iso);
	return 0;
bad:
	return lu_err(err, LOCUS_EINVALID,
	              "OCI: \"%.40s\" is not an ISO 8601 duration (PT1H)", iso);
}

int loci_command_cancel(loci_client *c, const char *sandbox,
                        const char *command_id, const char *signal,
                        locus_error *err)
{
	const char *vars[] = {"sandboxId", sandbox, "commandId", command_id,
	                      NULL};
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "signal", signal);
	int rc = json_call(c, LOCI_CANCEL, vars, b, NULL, err);
	cJSON_Delete(b);
	return rc;
}

/* ---------------------------------------------------------------- */
/* Files                                                              */
/* ---------------------------------------------------------------- */

int loci_file_write(loci_client *c, const char *sandbox, const char *path,
                    const void *data, size_t len, locus_error *err)
{
	char sha[48];
	loci_sha256_b64(data, len, sha);
	const char *vars[] = {"sandboxId", sandbox, "filePath", path, NULL};
	const char *extra[] = {"opc-content-sha256", sha, NULL};
	loci_call call = {.op = LOCI_WRITE_FILE,
	                  .vars = vars,
	                  .body = data ? data : "",
	                  .body_len = len,
	                  .content_type = "application/octet-stream",
	                  .extra = extra,
	                  .timeout_ms = 300000};
	lhttp_response r;
	int rc = loci_request_ok(c, &call, &r, err);
	if (!rc) {
		/* The answer's hash, header or body, must be ours. */
		const char *h =
		    lhttp_headers_get(&r.headers, "opc-content-sha256");
		cJSON *j =
		    r.body ? cJSON_ParseWithLength(r.body, r.body_len) : NULL;
		const char *b = cJSON_GetStringValue(
		    cJSON_GetObjectItem(j, "contentSha256"));
		if ((h && strcmp(h, sha)) || (b && strcmp(b, sha)))
			rc = lu_err(err, LOCUS_EIO,
			            "OCI write %s: the service stored other "
			            "bytes (hash %s, sent %s)",
			            path, h && strcmp(h, sha) ? h : b, sha);
		cJSON_Delete(j);
	}
	lhttp_response_clear(&r);
	return rc;
}

int loci_file_read(loci_client *c, const char *sandbox, const char *path,
                   char **out, size_t *len, locus_error *err)
{
	*out = NULL;
	*len = 0;
	const char *vars[] = {"sandboxId", sandbox, "filePath", path, NULL};
	loci_call call = {
	    .op = LOCI_READ_FILE, .vars = vars, .timeout_ms = 300000};
	lhttp_response r;
	int rc = loci_request_ok(c, &call, &r, err);
	if (!rc) {
		const char *h =
		    lhttp_headers_get(&r.headers, "opc-content-sha256");
		char sha[48];
		loci_sha256_b64(r.body, r.body_len, sha);
		if (!h || strcmp(h, sha))
			rc = lu_err(err, LOCUS_EIO,
			            "OCI read %s: content hash %s does not "
			            "match the bytes (%s)",
			            path, h ? h : "missing", sha);
	}
	if (!rc) {
		*out = r.body ? r.body : calloc(1, 1);
		*len = r.body_len;
		r.body = NULL;
		if (!*out)
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	lhttp_response_clear(&r);
	return rc;
}
