/*
 * backends/session.c - SessionBackend: a backend over any sandbox with
 * exec, upload and download (locus_session): its paths and files.  Its
 * scripts and checked paths are in session_script.c, its commands in
 * session_jobs.c, its batches of changes in session_batch.c, the
 * bubblewrap session in bwrap.c (backends/session.h).
 *
 * SessionBackend does everything with short POSIX sh scripts through
 * exec, every path single-quoted.  Paths are normalised lexically against
 * the root, then resolved inside the sandbox (readlink -f of the deepest
 * existing ancestor) and refused unless the result stays under the root:
 * the sandbox is the isolation boundary, this check keeps the tools to the
 * workspace inside it.  Listings use GNU find -printf (NUL-separated),
 * search rg when present else grep -P.
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

static int s_stat(locus_backend *b, const char *path, locus_stat *st,
                  locus_error *err)
{
	memset(st, 0, sizeof *st);
	int code;
	char *o;
	size_t ol;
	int rc =
	    lh_path_script(S(b), path,
	                   "if [ -d \"$P\" ]; then echo d; elif [ -e \"$P\" ]; "
	                   "then find \"$P\" -maxdepth 0 -printf 'f %s "
	                   "%T@\\n'; else echo n; fi\n",
	                   &code, &o, &ol, err);
	if (rc)
		return rc;
	if (o && o[0] == 'd') {
		st->exists = st->is_dir = true;
	} else if (o && o[0] == 'f') {
		unsigned long long sz = 0;
		double t = 0;
		sscanf(o + 2, "%llu %lf", &sz, &t);
		st->exists = true;
		st->size = sz;
		st->mtime_ns = (int64_t)(t * 1e9);
	}
	free(o);
	return 0;
}

static int s_read(locus_backend *b, const char *path, char **out, size_t *len,
                  locus_error *err)
{
	*out = NULL;
	*len = 0;
	int code;
	/* the size first, in the sandbox: a file past the bound is never
	   moved (a 1.5 GB `truncate -s` file once went whole into the host's
	   memory and /tmp); the bwrap download bounds the copy itself too */
	char body[200];
	snprintf(body, sizeof body,
	         "if [ -d \"$P\" ]; then exit 3; fi; "
	         "[ -f \"$P\" ] || exit 4\n"
	         "[ \"$(wc -c < \"$P\")\" -le %u ] || exit 6\n",
	         LH_MAX_FILE_BYTES);
	int rc = lh_path_check(S(b), path, body, &code, err);
	if (rc)
		return rc;
	if (code == 6)
		return lu_err(err, LOCUS_ETOOBIG, "%s is larger than %u bytes",
		              path, LH_MAX_FILE_BYTES);
	lu_buf abs = {0};
	rc = lh_sabs(S(b), path, &abs, err);
	if (!rc)
		rc = S(b)->s->download(S(b)->s, abs.d, out, len, err);
	lu_buf_free(&abs);
	if (!rc && *len > LH_MAX_FILE_BYTES) {
		free(*out);
		*out = NULL;
		*len = 0;
		rc = lu_err(err, LOCUS_ETOOBIG, "%s is larger than %u bytes",
		            path, LH_MAX_FILE_BYTES);
	}
	return rc;
}

static int s_write_at(locus_backend *b, const char *path, const char *data,
                      size_t len, bool cas, const char *expect,
                      locus_error *err);

static int s_write(locus_backend *b, const char *path, const char *data,
                   size_t len, locus_error *err)
{
	return s_write_at(b, path, data, len, false, NULL, err);
}

static int s_write_cas(locus_backend *b, const char *path, const char *data,
                       size_t len, const char *expect, locus_error *err)
{
	return s_write_at(b, path, data, len, true, expect, err);
}

static int s_write_at(locus_backend *b, const char *path, const char *data,
                      size_t len, bool cas, const char *expect,
                      locus_error *err)
{
	session_backend *sb = S(b);
	int code;
	lu_buf tmp = {0}, body = {0};
	int rc = lh_s_stage(sb, path, data, len, &tmp, err);
	if (!rc) {
		/* keep the mode of a replaced file; rename is atomic */
		lu_buf_puts(&body, "T=");
		lu_buf_shquote(&body, tmp.d);
		/* the mode of a replaced file, without setuid/setgid: the
		 * sandbox user writes it, so its owner may not be kept */
		lu_buf_puts(&body,
		            "\n[ -L \"$P\" ] && P=$(readlink -f -- \"$P\")\n"
		            "[ -f \"$P\" ] && chmod --reference=\"$P\" "
		            "\"$T\" 2>/dev/null && chmod ug-s \"$T\"\n");
		if (cas) {
			/* compare right before the rename, under flock(1)
			 * of the folder when the sandbox has it */
			lu_buf_puts(&body, "E=");
			lu_buf_shquote(&body, expect ? expect : "");
			lu_buf_puts(
			    &body,
			    "\ncas() { if [ -z \"$E\" ]; then [ ! -e "
			    "\"$P\" ]; else [ \"$(sha256sum < \"$P\" "
			    "2>/dev/null | cut -c1-64)\" = \"$E\" ]; "
			    "fi; }\n"
			    "if command -v flock >/dev/null 2>&1; then "
			    "exec 9<\"$(dirname -- \"$P\")\"; flock 9; fi\n"
			    "cas || { rm -f -- \"$T\"; exit 6; }\n");
		}
		lu_buf_puts(&body, "mv -f -- \"$T\" \"$P\" || { rm -f -- "
		                   "\"$T\"; exit 5; }\n");
		rc = lh_path_script(sb, path, body.d, &code, NULL, NULL, err);
		if (!rc && code == 6)
			rc = lu_err(err, LOCUS_ECONFLICT,
			            "%s changed on disk since it was read",
			            path);
		else if (!rc && code != 0)
			rc = lu_err(err, LOCUS_EIO, "cannot write %s", path);
	}
	lu_buf_free(&tmp);
	lu_buf_free(&body);
	return rc;
}

static int s_remove(locus_backend *b, const char *path, locus_error *err)
{
	int code;
	/* a folder is a failure to remove (5), as on the other backends */
	int rc = lh_path_check(S(b), path,
	                       "[ -d \"$P\" ] && exit 5; [ -e \"$P\" ] || "
	                       "[ -L \"$P\" ] || exit 4; rm -f -- \"$P\"\n",
	                       &code, err);
	if (rc)
		return rc;
	if (code)
		return lu_err(err, LOCUS_EIO, "cannot remove %s", path);
	return 0;
}

/* Parse "TYPE SIZE MTIME NAME\0" records from find -printf. */
static int parse_find(const char *o, size_t ol, bool files_only, size_t max,
                      locus_dirent **out, size_t *n)
{
	size_t cap = 0;
	const char *p = o, *end = o + ol;
	while (p < end && *n < max) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		if (!z)
			break;
		char type = *p;
		unsigned long long sz = 0;
		double t = 0;
		int used = 0;
		if (sscanf(p + 1, " %llu %lf %n", &sz, &t, &used) < 2 ||
		    !used) {
			p = z + 1;
			continue;
		}
		const char *name = p + 1 + used;
		if (!(files_only && type != 'f') && *name &&
		    lh_dirent_push(out, n, &cap, name, (size_t)(z - name),
		                   type == 'd', sz, (int64_t)(t * 1e9)))
			return LOCUS_ENOMEM;
		p = z + 1;
	}
	return 0;
}

static int s_listwalk(locus_backend *b, const char *path, bool walk, size_t max,
                      locus_dirent **out, size_t *n, locus_error *err)
{
	*out = NULL;
	*n = 0;
	lu_buf body = {0};
	lu_buf_puts(&body, "[ -e \"$P\" ] || exit 4; [ -d \"$P\" ] || exit 3\n"
	                   "cd -- \"$P\" || exit 4\n");
	if (walk) {
		lu_buf_puts(&body, "find . -mindepth 1 \\( -type d \\( -name "
		                   "'.locus-harness*'");
		for (size_t i = 0; locus_skip_dirs[i]; i++)
			lu_buf_printf(&body, " -o -name '%s'",
			              locus_skip_dirs[i]);
		lu_buf_puts(&body, " \\) -prune \\) -o -type f -printf '%y %s "
		                   "%T@ %P\\0'\n");
	} else {
		lu_buf_puts(&body, "find . -mindepth 1 -maxdepth 1 -printf '%y "
		                   "%s %T@ %P\\0'\n");
	}
	int code;
	char *o = NULL;
	size_t ol = 0;
	int rc = body.oom
	             ? LOCUS_ENOMEM
	             : lh_path_script(S(b), path, body.d, &code, &o, &ol, err);
	lu_buf_free(&body);
	if (rc)
		return rc;
	if (code == 4 || code == 3) {
		free(o);
		return code == 4 ? lu_err(err, LOCUS_ENOTFOUND,
		                          "%s does not exist", path)
		                 : lu_err(err, LOCUS_EINVALID,
		                          "%s is not a folder", path);
	}
	rc = parse_find(o ? o : "", ol, walk, max, out, n);
	free(o);
	return lh_dirents_finish(out, n, rc, err);
}

static int s_list(locus_backend *b, const char *path, locus_dirent **out,
                  size_t *n, locus_error *err)
{
	return s_listwalk(b, path, false, SIZE_MAX, out, n, err);
}

static int s_walk(locus_backend *b, const char *path, size_t max,
                  locus_dirent **out, size_t *n, locus_error *err)
{
	return s_listwalk(b, path, true, max, out, n, err);
}

static int s_search(locus_backend *b, const char *pattern, const char *path,
                    const char *glob, bool ci, int context,
                    locus_grep_mode mode, size_t limit, char **out,
                    locus_error *err)
{
	session_backend *sb = S(b);
	*out = NULL;
	lu_buf body = {0}, rel = {0};
	char *r = NULL;
	int rc = lh_path_rel(sb->root, path, &r, err);
	if (rc)
		return rc;
	lu_buf_puts(&rel, *r ? r : ".");
	free(r);
	lu_buf_puts(&body, "cd \"$R\" || exit 4\nQ=");
	lu_buf_shquote(&body, pattern);
	lu_buf_puts(&body, "; G=");
	lu_buf_shquote(&body, glob);
	lu_buf_puts(&body, "; D=");
	lu_buf_shquote(&body, rel.d);
	lu_buf_printf(&body, "\nset -- -e \"$Q\"%s%s", ci ? " -i" : "",
	              mode == LOCUS_GREP_FILES   ? " -l"
	              : mode == LOCUS_GREP_COUNT ? " -c"
	                                         : "");
	if (context && mode == LOCUS_GREP_CONTENT)
		lu_buf_printf(&body, " -C %d", context);
	/* a time budget in the sandbox too: timeout(1) when it is there */
	lu_buf_puts(&body, "\nT=; command -v timeout >/dev/null 2>&1 && "
	                   "T='timeout 10'\n"
	                   "if command -v rg >/dev/null 2>&1; then\n"
	                   "  [ -n \"$G\" ] && set -- \"$@\" -g \"$G\"\n"
	                   "  $T rg -n --no-heading --color never --hidden -g "
	                   "'!.locus-harness*'");
	for (size_t i = 0; locus_skip_dirs[i]; i++)
		lu_buf_printf(&body, " -g '!%s'", locus_skip_dirs[i]);
	lu_buf_puts(&body, " \"$@\" -- \"$D\"\nelse\n"
	                   "  [ -n \"$G\" ] && set -- \"$@\" --include=\"$G\"\n"
	                   "  $T grep -rnIP --exclude-dir='.locus-harness*'");
	for (size_t i = 0; locus_skip_dirs[i]; i++)
		lu_buf_printf(&body, " --exclude-dir='%s'", locus_skip_dirs[i]);
	lu_buf_printf(&body,
	              " \"$@\" -- \"$D\"%s\nfi > \"/tmp/.locus-grep\" "
	              "2>&1\ns=$?\n"
	              "sed 's|^\\./||' /tmp/.locus-grep | head -n %zu\n"
	              "n=$(wc -l < /tmp/.locus-grep); rm -f "
	              "/tmp/.locus-grep\n"
	              "[ \"$n\" -gt %zu ] && echo \"... (stopped at "
	              "limit=%zu)\"\nexit $s\n",
	              mode == LOCUS_GREP_COUNT ? " | grep -v ':0$'" : "", limit,
	              limit, limit);
	int code;
	char *o = NULL;
	size_t ol;
	rc = body.oom ? LOCUS_ENOMEM
	              : lh_path_script(sb, path, body.d, &code, &o, &ol, err);
	lu_buf_free(&body);
	lu_buf_free(&rel);
	if (rc)
		return rc;
	if (code == 1 && (!o || !*o)) {
		free(o);
		lu_buf nb = {0};
		lu_buf_printf(&nb, "No matches for %s", pattern);
		*out = lu_buf_take(&nb);
		return 0;
	}
	if (code == 124) {
		lu_buf nb = {0};
		lu_buf_printf(&nb,
		              "%s... (stopped: the search's time budget of "
		              "10 s ran out; narrow the path or the "
		              "pattern)\n",
		              o ? o : "");
		free(o);
		*out = lu_buf_take(&nb);
		return *out ? 0 : lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (code != 0 && code != 1) {
		rc = lu_err(err, LOCUS_EINVALID, "grep failed: %.200s",
		            o ? o : "");
		free(o);
		return rc;
	}
	*out = o;
	return 0;
}

static void s_free(locus_backend *b)
{
	session_backend *sb = S(b);
	locus_error err;
	for (size_t i = 0; i < sb->njobs; i++)
		if (!sb->jobs[i].finished)
			lh_s_kill_job(sb, sb->jobs[i].n, &err);
	if (sb->state) {
		lu_buf sc = {0};
		int code;
		lu_buf_puts(&sc, "rm -rf -- ");
		lu_buf_shquote(&sc, sb->state);
		if (!sc.oom)
			lh_srun(sb, sc.d, 30, &code, NULL, NULL, &err);
		lu_buf_free(&sc);
		free(sb->state);
	}
	locus_session_free(sb->s);
	free(sb->jobs);
	free(sb->root);
	free(sb->label);
	free(sb);
}

/* The SessionBackend's members; root, label and isolated are each
 * backend's own. */
static const locus_backend session_vtable = {
    .version = LOCUS_BACKEND_VERSION,
    .can_exec = true,
    .stat = s_stat,
    .read = s_read,
    .write = s_write,
    .write_cas = s_write_cas,
    .write_many = lh_s_write_many,
    .remove = s_remove,
    .list = s_list,
    .walk = s_walk,
    .exec = lh_s_exec,
    .exec_ctl = lh_s_exec_ctl,
    .bg_output = lh_s_bg_output,
    .bg_write = lh_s_bg_write,
    .bg_kill = lh_s_bg_kill,
    .search = s_search,
    .free = s_free,
};

int locus_backend_session_new(locus_backend **out, locus_session *session,
                              const char *root, const char *label,
                              bool isolated, locus_error *err)
{
	*out = NULL;
	if (!session ||
	    (session->version != 1 &&
	     session->version != LOCUS_SESSION_VERSION) ||
	    !session->exec || !session->upload || !session->download) {
		locus_session_free(session);
		return lu_err(err, LOCUS_EUSAGE, "an incomplete session");
	}
	session_backend *sb = calloc(1, sizeof *sb);
	if (!sb) {
		locus_session_free(session);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	sb->base = session_vtable;
	sb->s = session;
	if (lh_nonce(sb->nonce)) {
		s_free(&sb->base);
		return lu_err(err, LOCUS_EIO, "no randomness for a nonce");
	}
	sb->root = lh_strdup_dir(root && *root ? root : "/workspace");
	sb->label = strdup(label ? label : "sandbox session");
	if (!sb->root || !sb->label) {
		s_free(&sb->base);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	sb->base.label = sb->label;
	sb->base.root = sb->root;
	sb->base.isolated = isolated;
	*out = &sb->base;
	return 0;
}
