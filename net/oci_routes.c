/*
 * net/oci_routes.c - the one table of OCI sandbox operations.
 *
 * No method or path of this service has been seen: the defaults below
 * are a draft table (docs/backends.md, "Confirmed and assumed"), OCI REST
 * conventions with the GenAI version segment 20231130, and every entry
 * can be replaced by `--oci-routes FILE`.  tests/fake_oci.py reads the
 * same JSON form, so both sides move together.
 */
#include "net/oci.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"

#define V "/20231130"
#define SBX V "/sandboxes/{sandboxId}"

static const struct {
	const char *name;
	const char *method;
	const char *path;
} defaults[LOCI_OP_COUNT] = {
    [LOCI_CREATE] = {"create", "POST", V "/sandboxes?projectId={projectId}"},
    [LOCI_GET] = {"get", "GET", SBX},
    [LOCI_DELETE] = {"delete", "DELETE", SBX},
    [LOCI_EXTEND] = {"extend", "POST", SBX "/actions/extend"},
    [LOCI_STOP] = {"stop", "POST", SBX "/actions/stop"},
    [LOCI_RESUME] = {"resume", "POST", SBX "/actions/resume"},
    [LOCI_RUN] = {"run", "POST", SBX "/commands"},
    [LOCI_RUN_AND_STREAM] = {"run_and_stream", "POST",
                             SBX "/commands/actions/runAndStream"},
    [LOCI_EVENTS] = {"stream_events", "GET",
                     SBX "/commands/{commandId}/events?fromSeq={fromSeq}"},
    [LOCI_GET_COMMAND] = {"get_command", "GET", SBX "/commands/{commandId}"},
    [LOCI_OUTPUT] = {"get_output", "GET", SBX "/commands/{commandId}/output"},
    [LOCI_CANCEL] = {"cancel", "POST",
                     SBX "/commands/{commandId}/actions/cancel"},
    [LOCI_WRITE_FILE] = {"write_file", "PUT", SBX "/files?filePath={filePath}"},
    [LOCI_READ_FILE] = {"read_file", "GET", SBX "/files?filePath={filePath}"},
};

const char *loci_op_name(loci_op op)
{
	return op < LOCI_OP_COUNT ? defaults[op].name : "?";
}

void loci_routes_clear(loci_routes *rt)
{
	for (int i = 0; i < LOCI_OP_COUNT; i++)
		free(rt->r[i].path);
	memset(rt, 0, sizeof *rt);
}

static int set_route(loci_route *r, const char *method, const char *path)
{
	char *p = strdup(path);
	if (!p)
		return LOCUS_ENOMEM;
	free(r->path);
	r->path = p;
	snprintf(r->method, sizeof r->method, "%s", method);
	return 0;
}

int loci_routes_default(loci_routes *out, locus_error *err)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < LOCI_OP_COUNT; i++)
		if (set_route(&out->r[i], defaults[i].method,
		              defaults[i].path)) {
			loci_routes_clear(out);
			return lu_err(err, LOCUS_ENOMEM, "out of memory");
		}
	return 0;
}

static int op_by_name(const char *name)
{
	for (int i = 0; i < LOCI_OP_COUNT; i++)
		if (strcmp(defaults[i].name, name) == 0)
			return i;
	return -1;
}

static bool good_method(const char *m, size_t n)
{
	static const char *const ok[] = {"GET", "POST", "PUT", "DELETE"};
	for (size_t i = 0; i < 4; i++)
		if (strlen(ok[i]) == n && memcmp(ok[i], m, n) == 0)
			return true;
	return false;
}

/* Printable ASCII, no space, no '#': what may go on the request line. */
static bool good_path(const char *p)
{
	if (*p != '/')
		return false;
	for (; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f ||
		    *p == '#')
			return false;
	return true;
}

int loci_routes_apply_json(loci_routes *rt, const char *json, size_t len,
                           locus_error *err)
{
	cJSON *j = cJSON_ParseWithLength(json, len);
	if (!j || !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return lu_err(err, LOCUS_EINVALID,
		              "OCI routes: not a JSON object");
	}
	int rc = 0;
	cJSON *it;
	cJSON_ArrayForEach(it, j)
	{
		int op = op_by_name(it->string);
		if (op < 0) {
			rc = lu_err(err, LOCUS_EINVALID,
			            "OCI routes: unknown operation \"%.60s\"",
			            it->string);
			break;
		}
		const char *v = cJSON_GetStringValue(it);
		const char *sp = v ? strchr(v, ' ') : NULL;
		if (!sp || !good_method(v, (size_t)(sp - v)) ||
		    !good_path(sp + 1)) {
			rc = lu_err(
			    err, LOCUS_EINVALID,
			    "OCI routes: \"%s\" must be \"METHOD /path\" "
			    "(GET, POST, PUT or DELETE)",
			    it->string);
			break;
		}
		char m[8];
		snprintf(m, sizeof m, "%.*s", (int)(sp - v), v);
		if (set_route(&rt->r[op], m, sp + 1)) {
			rc = lu_err(err, LOCUS_ENOMEM, "out of memory");
			break;
		}
	}
	cJSON_Delete(j);
	return rc;
}

char *loci_pct_encode(const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	lu_buf b = {0};
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~' || (keep_slash && *p == '/')) {
			lu_buf_add(&b, (const char *)p, 1);
		} else {
			char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
			lu_buf_add(&b, e, 3);
		}
	}
	return b.oom ? ((void)lu_buf_free(&b), NULL) : lu_buf_take(&b);
}

/* The value of variable name (len n) in vars, or NULL. */
static const char *var(const char *const *vars, const char *name, size_t n)
{
	for (size_t i = 0; vars && vars[i] && vars[i + 1]; i += 2)
		if (strlen(vars[i]) == n && memcmp(vars[i], name, n) == 0)
			return vars[i + 1];
	return NULL;
}

char *loci_route_path(const loci_routes *rt, loci_op op,
                      const char *const *vars)
{
	const char *t = rt->r[op].path;
	lu_buf b = {0};
	bool used[16] = {false};
	while (*t) {
		const char *o = strchr(t, '{'), *c = o ? strchr(o, '}') : NULL;
		if (!o || !c) {
			lu_buf_puts(&b, t);
			break;
		}
		lu_buf_add(&b, t, (size_t)(o - t));
		const char *v = var(vars, o + 1, (size_t)(c - o - 1));
		if (v) {
			char *e = loci_pct_encode(v, true);
			lu_buf_puts(&b, e ? e : "");
			b.oom |= !e;
			free(e);
			for (size_t i = 0; vars[i] && i < 32; i += 2)
				if (vars[i + 1] == v)
					used[i / 2] = true;
		}
		t = c + 1;
	}
	for (size_t i = 0; vars && vars[i] && vars[i + 1] && i < 32; i += 2) {
		if (used[i / 2] || !strcmp(vars[i], "sandboxId") ||
		    !strcmp(vars[i], "commandId"))
			continue;
		char *e = loci_pct_encode(vars[i + 1], true);
		lu_buf_printf(&b, "%c%s=%s",
		              strchr(b.d ? b.d : "", '?') ? '&' : '?', vars[i],
		              e ? e : "");
		b.oom |= !e;
		free(e);
	}
	return b.oom ? ((void)lu_buf_free(&b), NULL) : lu_buf_take(&b);
}
