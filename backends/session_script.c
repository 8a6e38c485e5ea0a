/*
 * backends/session_script.c - what the SessionBackend's files share (see
 * backends/session.h): running a script in the sandbox, a path made
 * absolute and checked inside it, and a file staged beside its target.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "session.h"
#include "../util/array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run a script; exit code and output. */
int lh_srun(session_backend *sb, const char *script, double timeout, int *code,
            char **out, size_t *len, locus_error *err)
{
	char *o = NULL;
	size_t ol = 0;
	int c = -1;
	int rc = sb->s->exec(sb->s, script, timeout, &c, &o, &ol, err);
	if (rc) {
		free(o);
		return rc;
	}
	*code = c;
	if (out) {
		*out = o;
		*len = ol;
	} else {
		free(o);
	}
	return 0;
}

/* Absolute sandbox path of a user path (lexically inside the root). */
int lh_sabs(session_backend *sb, const char *path, lu_buf *abs,
            locus_error *err)
{
	char *rel;
	int rc = lh_path_rel(sb->root, path, &rel, err);
	if (rc)
		return rc;
	lu_buf_puts(abs, sb->root);
	if (*rel) {
		lu_buf_puts(abs, "/");
		lu_buf_puts(abs, rel);
	}
	free(rel);
	return abs->oom ? lu_err(err, LOCUS_ENOMEM, "out of memory") : 0;
}

/*
 * The prelude every path script starts with: P is the path; the deepest
 * existing ancestor is resolved and must stay under the root (exit 91).
 */
void lh_prelude(lu_buf *sc, session_backend *sb, const char *abs)
{
	lu_buf_puts(sc, "P=");
	lu_buf_shquote(sc, abs);
	lu_buf_puts(sc, "; R=");
	lu_buf_shquote(sc, sb->root);
	lu_buf_puts(sc,
	            "\nd=\"$P\"; while [ ! -e \"$d\" ] && [ ! -L \"$d\" ]; do "
	            "d=$(dirname -- \"$d\"); done\n"
	            "r=$(readlink -f -- \"$d\") || exit 91\n"
	            "case \"$r\" in \"$R\"|\"$R\"/*) ;; *) exit 91;; esac\n"
	            /* magic links (/proc/self/cwd...) resolve per process:
	             * a link into /proc is refused outright */
	            "x=\"$R\"; set -f; o=$IFS; IFS=/\n"
	            "for c in ${P#\"$R\"}; do [ -z \"$c\" ] && continue; "
	            "x=\"$x/$c\"; if [ -L \"$x\" ]; then "
	            "case $(readlink -- \"$x\") in /proc|/proc/*) exit 91;; "
	            "esac; fi; done; IFS=$o; set +f\n"
	            "if [ -L \"$P\" ] && [ ! -e \"$P\" ]; then exit 92; fi\n");
}

int lh_path_script(session_backend *sb, const char *path, const char *body,
                   int *code, char **out, size_t *len, locus_error *err)
{
	lu_buf abs = {0}, sc = {0};
	int rc = lh_sabs(sb, path, &abs, err);
	if (rc)
		return rc;
	lh_prelude(&sc, sb, abs.d);
	lu_buf_puts(&sc, body);
	lu_buf_free(&abs);
	if (sc.oom) {
		lu_buf_free(&sc);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	rc = lh_srun(sb, sc.d, 120, code, out, len, err);
	lu_buf_free(&sc);
	if (!rc && (*code == 91 || *code == 92)) {
		if (out) {
			free(*out);
			*out = NULL;
		}
		return *code == 91
		           ? lu_err(err, LOCUS_EDENIED,
		                    "%s resolves outside the workspace %s: "
		                    "refused",
		                    path, sb->root)
		           : lu_err(err, LOCUS_EINVALID,
		                    "%s is a dangling link: refused", path);
	}
	return rc;
}

int lh_path_check(session_backend *sb, const char *path, const char *body,
                  int *code, locus_error *err)
{
	int rc = lh_path_script(sb, path, body, code, NULL, NULL, err);
	if (rc)
		return rc;
	if (*code == 3)
		return lu_err(err, LOCUS_EINVALID, "%s is a folder, not a file",
		              path);
	if (*code == 4)
		return lu_err(err, LOCUS_ENOTFOUND, "%s does not exist", path);
	return 0;
}

int lh_s_stage(session_backend *sb, const char *path, const char *data,
               size_t len, lu_buf *tmp, locus_error *err)
{
	int code;
	int rc =
	    lh_path_check(sb, path,
	                  "[ -d \"$P\" ] && exit 3\n"
	                  "mkdir -p -- \"$(dirname -- \"$P\")\" || exit 5\n",
	                  &code, err);
	if (!rc && code != 0)
		rc = lu_err(err, LOCUS_EIO, "cannot make the folder of %s",
		            path);
	lu_buf ab = {0};
	if (!rc)
		rc = lh_sabs(sb, path, &ab, err);
	if (rc) {
		lu_buf_free(&ab);
		return rc;
	}
	/* the temporary file lies beside the target (rename stays on one
	 * file system), under a name no repository ships */
	char *slash = strrchr(ab.d, '/');
	lu_buf_add(tmp, ab.d, (size_t)(slash - ab.d));
	lu_buf_printf(tmp, "/.locus-w-%s-%u", sb->nonce, ++sb->seq);
	lu_buf_free(&ab);
	return tmp->oom ? lu_err(err, LOCUS_ENOMEM, "out of memory")
	                : sb->s->upload(sb->s, tmp->d, data, len, err);
}
