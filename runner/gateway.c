/*
 * runner/gateway.c - the gateway client: every request carries the run's
 * bearer token; answers are read strictly.  Transport errors, timeouts
 * and 5xx mean the gateway is unavailable (LOCUS_EIO); a 4xx is the
 * gateway's refusal.  Neither the token nor a body is ever logged.
 */
#include "runner/runner.h"

#include "util/error.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

int lr_gw_open(lr_gw *g, const char *url, const char *token, const char *run_id,
               lr_log *log, locus_error *err)
{
	memset(g, 0, sizeof *g);
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.base_url = url;
	o.timeout_ms = 30000;
	o.connect_timeout_ms = 5000;
	o.max_attempts = 3;
	o.backoff_initial_ms = 100;
	o.backoff_max_ms = 1000;
	o.max_body = 16u << 20;
	int rc = lhttp_client_new(&g->http, &o, err);
	if (rc)
		return rc;
	g->auth = lr_strf("Bearer %s", token);
	if (!g->auth) {
		lhttp_client_free(g->http);
		g->http = NULL;
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	g->run_id = run_id;
	g->log = log;
	return 0;
}

void lr_gw_close(lr_gw *g)
{
	lhttp_client_free(g->http);
	if (g->auth) {
		explicit_bzero(g->auth, strlen(g->auth));
		free(g->auth);
	}
	memset(g, 0, sizeof *g);
}

int lr_gw_run_request(lr_gw *g, const char *method, const char *tail,
                      const cJSON *body, lhttp_retry retry, cJSON **out,
                      locus_error *err)
{
	*out = NULL;
	char *path = lr_strf("/internal/v1/runs/%s/%s", g->run_id, tail);
	if (!path)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	int rc = lr_gw_request(g, method, path, body, retry, out, NULL, err);
	free(path);
	return rc;
}

static int parse_body(const lhttp_response *resp, cJSON **out, locus_error *err)
{
	if (!resp->body || resp->body_len == 0)
		return 0;
	int rc = lr_json_parse(resp->body, resp->body_len, out, err);
	if (rc == LOCUS_EINVALID) {
		char why[200];
		snprintf(why, sizeof why, "%s", err ? err->message : "");
		lu_err(err, LOCUS_EINVALID, "the gateway answered %ld with %s",
		       resp->status, why);
	}
	return rc;
}

int lr_gw_request(lr_gw *g, const char *method, const char *path,
                  const cJSON *body, lhttp_retry retry, cJSON **out,
                  long *status, locus_error *err)
{
	*out = NULL;
	if (status)
		*status = 0;
	char *text = NULL;
	if (body && !(text = lr_json_canonical(body)))
		return lu_err(err, LOCUS_ENOMEM,
		              "a request body could not be "
		              "written");
	lhttp_headers h = {0};
	int rc = lhttp_headers_add(&h, "Authorization", g->auth);
	if (!rc)
		rc = lhttp_headers_add(&h, "Accept", "application/json");
	if (!rc && text)
		rc = lhttp_headers_add(&h, "Content-Type", "application/json");
	if (rc) {
		lhttp_headers_clear(&h);
		free(text);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	lhttp_request req = {.method = method,
	                     .url = path,
	                     .headers = &h,
	                     .body = text,
	                     .body_len = text ? strlen(text) : 0,
	                     .has_body = text != NULL,
	                     .retry = retry};
	lhttp_response resp = {0};
	rc = lhttp_perform(g->http, &req, &resp, err);
	/* the header list holds the token: wipe it before it is freed */
	for (size_t i = 0; i < h.n; i++)
		if (h.v[i].value)
			explicit_bzero(h.v[i].value, strlen(h.v[i].value));
	lhttp_headers_clear(&h);
	free(text);
	if (status)
		*status = resp.status;
	if (rc) {
		lr_logf(g->log, "gateway %s %s: unavailable (%s)", method, path,
		        locus_error_code_name(rc));
		rc = rc == LOCUS_ENOMEM ? rc : LOCUS_EIO;
	} else if (resp.status >= 200 && resp.status < 300) {
		rc = parse_body(&resp, out, err);
		if (rc)
			lr_logf(g->log,
			        "gateway %s %s: %ld with a malformed "
			        "body",
			        method, path, resp.status);
	} else if (resp.status >= 500 || resp.status == 408 ||
	           resp.status == 429 || resp.status < 200) {
		lr_logf(g->log, "gateway %s %s: %ld (unavailable)", method,
		        path, resp.status);
		rc = lu_err(err, LOCUS_EIO, "%s %s: the gateway answered %ld",
		            method, path, resp.status);
	} else {
		lr_logf(g->log, "gateway %s %s: %ld", method, path,
		        resp.status);
		locus_error ignored;
		if (parse_body(&resp, out, &ignored))
			*out = NULL;
		const char *detail = NULL;
		if (*out && cJSON_IsObject(*out)) {
			detail = lr_json_str(*out, "detail", NULL);
			if (!detail)
				detail = lr_json_str(*out, "error", NULL);
		}
		int code = resp.status == 404   ? LOCUS_ENOTFOUND
		           : resp.status == 409 ? LOCUS_ECONFLICT
		                                : LOCUS_EDENIED;
		rc = lu_err(err, code,
		            "%s %s: the gateway refused (%ld)%s%.120s", method,
		            path, resp.status, detail ? ": " : "",
		            detail ? detail : "");
	}
	lhttp_response_clear(&resp);
	return rc;
}
