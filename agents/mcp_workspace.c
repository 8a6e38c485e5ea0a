/*
 * agents/mcp_workspace.c - `locus mcp`'s workspace: the backend and the
 * harness over a root (at start-up, or when the client's roots change),
 * and closing them (see mcp.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook.h"
#include "mcp.h"
#include "../util/buf.h"

static void warn(const char *m, void *p)
{
	(void)p;
	fprintf(stderr, "locus mcp: warning: %s\n", m);
}

/* --- the workspace ---------------------------------------------------- */


int mcp_workspace_open(mcp_server *s, const char *root, char **why)
{
	*why = NULL;
	/* memory and a cloud sandbox have no host folder */
	bool memory = !strcmp(s->opt.backend, "memory") ||
	              !strcmp(s->opt.backend, "oci") ||
	              !strcmp(s->opt.backend, "openshell");
	char *real = memory ? NULL : realpath(root, NULL);
	if (!memory && !real) {
		*why = lu_format("the workspace %.400s is not a folder", root);
		return -1;
	}
	if (real && mcp_root_broad(real) && !s->opt.allow_broad_root) {
		*why =
		    lu_format("the workspace %.400s is / or the home folder: "
		              "give a project folder with --root (or "
		              "--allow-broad-root)",
		              real);
		free(real);
		return -1;
	}
	locus_error err;
	memset(&err, 0, sizeof err);
	locus_backend *b = NULL;
	locus_harness *h = NULL;
	int rc = s->opt.open_backend(s->opt.backend_ctx, root, real, &b, &err);
	bool open_failed = rc != 0;
	if (!rc) {
		locus_harness_config cfg = LOCUS_HARNESS_CONFIG_INIT;
		cfg.allow_unread_edits = s->opt.no_read_check;
		cfg.on_warning = warn;
		/* path rules are resolved against the root the tools see */
		s->gate.workspace_root =
		    strcmp(s->opt.backend, "local") || !real ? b->root : real;
		/* a shell wrapper is judged as the script it runs, as
		   locus gate and the hooks judge it */
		rc = locus_harness_new(&h, b, s->opt.tools, hook_policy_wrap,
		                       &s->gate, &cfg, &err);
	}
	const char *hint = open_failed ? s->opt.open_hint : NULL;
	if (rc) {
		*why = lu_format("%s%s%s",
		                 err.message[0] ? err.message
		                                : "cannot build the harness",
		                 hint ? "\n" : "", hint ? hint : "");
		locus_backend_free(b);
		if (s->root_real && s->backend)
			s->gate.workspace_root = strcmp(s->opt.backend, "local")
			                             ? s->backend->root
			                             : s->root_real;
		free(real);
		return -1;
	}
	/* the old harness ends its background jobs as it goes */
	pthread_mutex_lock(&s->ws_lock);
	locus_harness *oh = s->harness;
	locus_backend *ob = s->backend;
	char *oreal = s->root_real;
	s->harness = h;
	s->backend = b;
	s->root_real = real;
	free(s->no_workspace);
	s->no_workspace = NULL;
	pthread_mutex_unlock(&s->ws_lock);
	locus_harness_free(oh);
	locus_backend_free(ob);
	free(oreal);
	fprintf(stderr, "locus mcp: serving %zu tools on %s (%s), policy %s\n",
	        locus_harness_tool_count(h), b->label, b->root ? b->root : "",
	        locus_policy_version(s->policy));
	return 0;
}

void mcp_workspace_close(mcp_server *s)
{
	locus_harness_free(s->harness);
	locus_backend_free(s->backend);
	s->harness = NULL;
	s->backend = NULL;
	free(s->root_real);
	s->root_real = NULL;
	free(s->no_workspace);
	s->no_workspace = NULL;
}
