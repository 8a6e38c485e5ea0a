/*
 * backends/local.c - LocalBackend: a host folder, commands on the host.
 * This file: the backend itself; its paths are confined in local_paths.c,
 * its files are in local_files.c, its commands in local_exec.c
 * (backends/local.h).
 */
#define _GNU_SOURCE
#include "internal.h"
#include "local.h"
#include "../util/array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void l_free(locus_backend *b)
{
	local_backend *lb = L(b);
	for (size_t i = 0; i < lb->njobs; i++) {
		job *j = &lb->jobs[i];
		lh_job_poll(j);
		lh_kill_group_wait(j->pid, j);
		if (j->stdin_fd >= 0)
			close(j->stdin_fd);
		free(j->out_path);
	}
	free(lb->jobs);
	if (lb->state_dir) {
		DIR *d = opendir(lb->state_dir);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d)))
				if (de->d_name[0] != '.')
					unlinkat(dirfd(d), de->d_name, 0);
			closedir(d);
		}
		rmdir(lb->state_dir);
		free(lb->state_dir);
	}
	if (lb->root_fd >= 0)
		close(lb->root_fd);
	for (size_t i = 0; lb->envp && lb->envp[i]; i++)
		free(lb->envp[i]);
	free(lb->envp);
	free(lb->root);
	free(lb->root_real);
	free((void *)(uintptr_t)lb->base.label);
	free(lb);
}

/* Tests: resolve paths without openat2 (backends/internal.h). */
void lh_local_disable_openat2(locus_backend *b)
{
	if (b && b->free == l_free)
		L(b)->no_openat2 = true;
}

/* The LocalBackend's members; root and label are each backend's own. */
static const locus_backend local_vtable = {
    .version = LOCUS_BACKEND_VERSION,
    .can_exec = true,
    .isolated = false,
    .stat = lh_l_stat,
    .read = lh_l_read,
    .write = lh_l_write,
    .write_cas = lh_l_write_cas,
    .write_many = lh_l_write_many,
    .remove = lh_l_remove,
    .list = lh_l_list,
    .walk = lh_l_walk,
    .exec = lh_l_exec,
    .exec_ctl = lh_l_exec_ctl,
    .bg_output = lh_l_bg_output,
    .bg_write = lh_l_bg_write,
    .bg_kill = lh_l_bg_kill,
    .free = l_free,
};

int locus_backend_local_new(locus_backend **out, const char *root,
                            const char *label, locus_error *err)
{
	return locus_backend_local_new_opts(out, root, label, NULL, err);
}

/* base_env: the allowed names that are set, as NAME=VALUE (a name with
   '=' or empty is never one).  0 or -1 (out of memory). */
static int make_envp(local_backend *lb, const char *const *names)
{
	size_t n = 0;
	while (names[n])
		n++;
	lb->envp = calloc(n + 1, sizeof *lb->envp);
	if (!lb->envp)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *v = *names[i] && !strchr(names[i], '=')
		                    ? getenv(names[i])
		                    : NULL;
		if (!v)
			continue;
		size_t len = strlen(names[i]) + strlen(v) + 2;
		if (!(lb->envp[k] = malloc(len)))
			return -1;
		snprintf(lb->envp[k++], len, "%s=%s", names[i], v);
	}
	return 0;
}

int locus_backend_local_new_opts(locus_backend **out, const char *root,
                                 const char *label,
                                 const locus_local_options *opts,
                                 locus_error *err)
{
	*out = NULL;
	locus_local_options def = LOCUS_LOCAL_OPTIONS_INIT;
	const locus_local_options *o = opts ? opts : &def;
	if (o->version == 1) {
		/* the fields a version 1 struct has; no base_env */
		def.output_max = o->output_max;
		def.rlimit_nproc = o->rlimit_nproc;
		def.rlimit_fsize = o->rlimit_fsize;
		def.stdin_timeout_s = o->stdin_timeout_s;
		o = &def;
	}
	if (o->version != LOCUS_LOCAL_OPTIONS_VERSION)
		return lu_err(err, LOCUS_EUSAGE,
		              "local options of another version");
	if (!root || !*root)
		return lu_err(err, LOCUS_EUSAGE, "no root folder");
	local_backend *lb = calloc(1, sizeof *lb);
	if (!lb)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	lb->base = local_vtable;
	lb->output_max = o->output_max ? o->output_max : (size_t)64 << 20;
	lb->rlimit_nproc = o->rlimit_nproc;
	lb->rlimit_fsize = o->rlimit_fsize;
	lb->stdin_timeout = o->stdin_timeout_s > 0 ? o->stdin_timeout_s : 10;
	lb->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lb->root_fd < 0) {
		int e = errno;
		free(lb);
		return lu_err(err, e == ENOENT ? LOCUS_ENOTFOUND : LOCUS_EIO,
		              "cannot open the workspace %s: %s", root,
		              strerror(e));
	}
	if (o->base_env && make_envp(lb, o->base_env)) {
		l_free(&lb->base);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	lb->root_real = realpath(root, NULL);
	lb->root = lh_strdup_dir(root);
	lb->base.label = strdup(label ? label : "UNISOLATED: host shell");
	if (!lb->root_real || !lb->root || !lb->base.label) {
		l_free(&lb->base);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	lb->base.root = lb->root;
	*out = &lb->base;
	return 0;
}
