/*
 * backends/session_batch.c - the SessionBackend's write_many: every file
 * uploaded beside its target first, then one script makes each change
 * under its compare-and-swap check, keeps the old file aside, and undoes
 * them all on a failure part way.
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

/* ---- write_many: upload every file, then one script swaps them in ---- */

/* The helpers of the batch script: cas PATH SHA (empty: absent), lk/ul
 * the folder's flock(1) when the sandbox has it, fail K CODE (undo the
 * changes before K, remove the temporaries with clean, report K). */
static const char BATCH_HEAD[] =
    "cas() { if [ -z \"$2\" ]; then [ ! -e \"$1\" ] && [ ! -L \"$1\" ]; "
    "else [ \"$(sha256sum < \"$1\" 2>/dev/null | cut -c1-64)\" = \"$2\" ]; "
    "fi; }\n"
    "FL=; command -v flock >/dev/null 2>&1 && FL=1\n"
    "lk() { [ -n \"$FL\" ] || return 0; exec 9<\"$(dirname -- \"$1\")\"; "
    "flock 9; }\n"
    "ul() { [ -n \"$FL\" ] && exec 9<&-; return 0; }\n"
    "fail() { k=$1; while [ \"$k\" -gt 0 ]; do k=$((k-1)); u$k; done; "
    "clean; echo \"failed $1\"; exit \"$2\"; }\n";

/* The script lines of change i: the path resolved and confined (the
 * prelude, in a subshell), the check, the change with the old file kept
 * aside as B<i>, and u<i>, its undo. */
static int batch_op(session_backend *sb, lu_buf *sc, size_t i,
                    const locus_write_op *op, const char *tmp, locus_error *err)
{
	lu_buf abs = {0};
	int rc = lh_sabs(sb, op->path, &abs, err);
	if (rc)
		return rc;
	lu_buf_puts(sc, "( ");
	lh_prelude(sc, sb, abs.d);
	lu_buf_printf(sc, ") || fail %zu $?\nP%zu=", i, i);
	lu_buf_shquote(sc, abs.d);
	lu_buf_printf(sc,
	              "\n[ -L \"$P%zu\" ] && P%zu=$(readlink -f -- "
	              "\"$P%zu\")\nB%zu=\"$(dirname -- \"$P%zu\")/"
	              ".locus-b-%s-%u\"\nlk \"$P%zu\"\n",
	              i, i, i, i, i, sb->nonce, ++sb->seq, i);
	lu_buf_printf(sc, "[ -d \"$P%zu\" ] && { ul; fail %zu 3; }\n", i, i);
	lu_buf_printf(sc, "cas \"$P%zu\" ", i);
	lu_buf_shquote(sc, op->expect_sha256 ? op->expect_sha256 : "");
	lu_buf_printf(sc, " || { ul; fail %zu 6; }\n", i);
	if (op->remove) {
		lu_buf_printf(
		    sc,
		    "mv -f -- \"$P%zu\" \"$B%zu\" || { ul; fail %zu 5; }\n"
		    "u%zu() { lk \"$P%zu\"; mv -f -- \"$B%zu\" "
		    "\"$P%zu\"; ul; }\n",
		    i, i, i, i, i, i, i);
	} else {
		lu_buf_printf(sc, "T%zu=", i);
		lu_buf_shquote(sc, tmp);
		if (op->expect_sha256)
			/* the replaced file's mode, never setuid/setgid (its
			 * owner cannot be kept); the old file kept aside as a
			 * hard link, or moved aside where it cannot be linked
			 * (protected_hardlinks, another user's file): either
			 * way the very file comes back on undo */
			lu_buf_printf(
			    sc,
			    "\nchmod --reference=\"$P%zu\" \"$T%zu\" "
			    "2>/dev/null "
			    "&& chmod ug-s \"$T%zu\"\n"
			    "{ ln -- \"$P%zu\" \"$B%zu\" 2>/dev/null || mv -f "
			    "-- "
			    "\"$P%zu\" \"$B%zu\"; } || { ul; fail %zu 5; }\n"
			    "mv -f -- \"$T%zu\" \"$P%zu\" || { rm -f -- "
			    "\"$B%zu\"; "
			    "ul; fail %zu 5; }\n"
			    "u%zu() { lk \"$P%zu\"; mv -f -- \"$B%zu\" "
			    "\"$P%zu\"; "
			    "ul; }\n",
			    i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i);
		else
			lu_buf_printf(sc,
			              "\n{ ln -- \"$T%zu\" \"$P%zu\" "
			              "2>/dev/null && rm -f -- "
			              "\"$T%zu\"; } || mv -f -- \"$T%zu\" "
			              "\"$P%zu\" || { ul; "
			              "fail %zu 5; }\n"
			              "u%zu() { lk \"$P%zu\"; rm -f -- "
			              "\"$P%zu\"; ul; }\n",
			              i, i, i, i, i, i, i, i, i);
	}
	lu_buf_puts(sc, "ul\n");
	lu_buf_free(&abs);
	return 0;
}

int lh_s_write_many(locus_backend *b, const locus_write_op *ops, size_t n,
                    size_t *failed, locus_error *err)
{
	session_backend *sb = S(b);
	*failed = 0;
	lu_buf *tmp = calloc(n ? n : 1, sizeof *tmp);
	lu_buf sc = {0}, temps = {0};
	int rc = tmp ? 0 : lu_err(err, LOCUS_ENOMEM, "out of memory");
	size_t i = 0;
	/* every file uploaded (and every path checked) before any change */
	for (; !rc && i < n; i++) {
		if (ops[i].remove) {
			int code;
			rc = lh_path_check(
			    sb, ops[i].path,
			    "[ -e \"$P\" ] || [ -L \"$P\" ] || exit 4\n", &code,
			    err);
			if (!rc && code)
				rc = lu_err(err, LOCUS_ENOTFOUND,
				            "%s does not exist", ops[i].path);
			continue;
		}
		rc = lh_s_stage(sb, ops[i].path, ops[i].data, ops[i].len,
		                &tmp[i], err);
		lu_buf_puts(&temps, " ");
		lu_buf_shquote(&temps, tmp[i].d ? tmp[i].d : "");
	}
	if (rc) {
		*failed = i - 1;
	} else {
		lu_buf_puts(&sc, BATCH_HEAD);
		lu_buf_printf(&sc, "clean() { rm -f --%s; }\n",
		              temps.d ? temps.d : "");
		for (size_t k = 0; !rc && k < n; k++)
			rc = batch_op(sb, &sc, k, &ops[k], tmp[k].d, err);
		lu_buf_puts(&sc, "rm -f --");
		for (size_t k = 0; k < n; k++)
			lu_buf_printf(&sc, " \"$B%zu\"", k);
		lu_buf_puts(&sc, "\necho done\n");
	}
	int code = 0;
	char *o = NULL;
	size_t ol = 0;
	if (!rc)
		rc = sc.oom ? lu_err(err, LOCUS_ENOMEM, "out of memory")
		            : lh_srun(sb, sc.d, 120, &code, &o, &ol, err);
	if (!rc && code) {
		unsigned long k = 0;
		const char *f = o ? strstr(o, "failed ") : NULL;
		if (f)
			k = strtoul(f + 7, NULL, 10);
		*failed = k < n ? (size_t)k : 0;
		const char *p = ops[*failed].path;
		rc = code == 6
		         ? lu_err(err, LOCUS_ECONFLICT,
		                  "%s changed on disk since it was read", p)
		     : code == 91 ? lu_err(err, LOCUS_EDENIED,
		                           "%s resolves outside the workspace "
		                           "%s: refused",
		                           p, sb->root)
		     : code == 3  ? lu_err(err, LOCUS_EINVALID,
		                           "%s is a folder, not a file", p)
		                 : lu_err(err, LOCUS_EIO, "cannot write %s", p);
	}
	if (rc && temps.d) {
		/* a failure before the script: remove what was uploaded */
		lu_buf rm = {0};
		lu_buf_printf(&rm, "rm -f -- %s\n", temps.d);
		int c2;
		locus_error e2;
		if (!rm.oom)
			lh_srun(sb, rm.d, 30, &c2, NULL, NULL, &e2);
		lu_buf_free(&rm);
	}
	free(o);
	for (size_t k = 0; tmp && k < n; k++)
		lu_buf_free(&tmp[k]);
	free(tmp);
	lu_buf_free(&sc);
	lu_buf_free(&temps);
	return rc;
}
