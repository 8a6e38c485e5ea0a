/*
 * agents/mcp_roots.c - `locus mcp` and the client's roots (MCP "roots"): when
 * --root is not given and the client declares capabilities.roots, the
 * server asks roots/list after notifications/initialized (and again on
 * notifications/roots/list_changed) and makes the first file:// root the
 * workspace.  Tool calls wait for the answer (MCP_ROOTS_WAIT_S at most);
 * the switch is made by the worker between two calls.  A root that is /
 * or the home folder is refused unless --allow-broad-root.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"
#include "../util/clock.h"
#include "../util/sha256.h"

#define ROOTS_ID_PREFIX "locus-roots-"

bool mcp_root_broad(const char *real)
{
	if (!real || !strcmp(real, "/"))
		return true;
	const char *home = getenv("HOME");
	char *h = home && *home ? realpath(home, NULL) : NULL;
	bool broad = h && !strcmp(h, real);
	free(h);
	return broad;
}

void mcp_roots_request(mcp_server *s)
{
	if (s->opt.root || !s->client_roots ||
	    !strcmp(s->opt.backend, "memory") ||
	    !strcmp(s->opt.backend, "oci") ||
	    !strcmp(s->opt.backend, "openshell"))
		return;
	char id[64];
	snprintf(id, sizeof id, ROOTS_ID_PREFIX "%u", ++s->next_request);
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "jsonrpc", "2.0") ||
	    !cJSON_AddStringToObject(o, "id", id) ||
	    !cJSON_AddStringToObject(o, "method", "roots/list")) {
		cJSON_Delete(o);
		return;
	}
	pthread_mutex_lock(&s->calls_lock);
	s->roots_pending = true;
	lu_cond_deadline_ms(&s->roots_deadline,
	                    (int64_t)(MCP_ROOTS_WAIT_S * 1000));
	pthread_mutex_unlock(&s->calls_lock);
	mcp_send(s, o);
}

/* The path of a file:// URI (percent-decoded), or NULL. */
static char *uri_path(const char *uri)
{
	const char *p = NULL;
	if (!strncmp(uri, "file:///", 8))
		p = uri + 7;
	else if (!strncmp(uri, "file://localhost/", 17))
		p = uri + 16;
	if (!p)
		return NULL;
	size_t n = strlen(p);
	char *o = malloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; o && i < n; i++) {
		int hi, lo;
		if (p[i] == '%' && i + 2 < n + 1 &&
		    (hi = lu_hex_digit(p[i + 1])) >= 0 &&
		    (lo = lu_hex_digit(p[i + 2])) >= 0) {
			o[k++] = (char)(hi * 16 + lo);
			i += 2;
		} else if (p[i] == '?' || p[i] == '#') {
			break;
		} else {
			o[k++] = p[i];
		}
	}
	if (o)
		o[k] = '\0';
	if (o && memchr(o, '\0', k)) { /* a %00 */
		free(o);
		return NULL;
	}
	return o;
}

/* The first root's real path (malloc'd), or NULL with a log line. */
static char *first_root(const cJSON *msg)
{
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(msg, "result");
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(res, "roots");
	const cJSON *first = cJSON_IsArray(roots) ? roots->child : NULL;
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(first, "uri");
	if (!cJSON_IsString(uri)) {
		fprintf(stderr, "locus mcp: roots/list gave no root: keeping "
		                "the workspace\n");
		return NULL;
	}
	char *path = uri_path(uri->valuestring);
	char *real = path ? realpath(path, NULL) : NULL;
	if (!real)
		fprintf(stderr,
		        "locus mcp: the client's root %.200s is not a "
		        "folder here: keeping the workspace\n",
		        uri->valuestring);
	free(path);
	return real;
}

void mcp_roots_response(mcp_server *s, const cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (!cJSON_IsString(id) || strncmp(id->valuestring, ROOTS_ID_PREFIX,
	                                   sizeof ROOTS_ID_PREFIX - 1))
		return; /* not ours: ignored */
	char *real = first_root(msg);
	if (real && mcp_root_broad(real) && !s->opt.allow_broad_root) {
		fprintf(stderr,
		        "locus mcp: the client's root %s is / or the "
		        "home folder: refused (--allow-broad-root)\n",
		        real);
		free(real);
		real = NULL;
	}
	pthread_mutex_lock(&s->calls_lock);
	s->roots_pending = false;
	if (real && (!s->root_real || strcmp(real, s->root_real))) {
		free(s->new_root);
		s->new_root = real;
		real = NULL;
	}
	pthread_cond_broadcast(&s->calls_cond);
	pthread_mutex_unlock(&s->calls_lock);
	free(real);
}
