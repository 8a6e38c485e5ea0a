/*
 * knowledge/git.c - git's command grammar (see git.h).
 */
#include "git.h"

#include <string.h>

/* clang-format off */
static const lk_git_runner runners[] = {
	{ "submodule", "foreach", true, false },
	{ "bisect", "run", false, true },
};

/* Options of `git config` that take a value (git-config(1)). */
static const char *const config_val_opts[] = {
	"-f", "--file", "--blob", "--type", "--default", "--comment",
	"--value", NULL,
};
/* clang-format on */

const lk_git_runner *lk_git_runner_find(const char *sub)
{
	for (size_t i = 0; i < sizeof runners / sizeof *runners; i++)
		if (!strcmp(runners[i].sub, sub))
			return &runners[i];
	return NULL;
}

bool lk_git_config_takes_value(const char *opt)
{
	for (const char *const *p = config_val_opts; *p; p++)
		if (!strcmp(*p, opt))
			return true;
	return false;
}

size_t lk_git_config_operands(const char *(*word)(const void *, size_t),
                              const void *words, size_t from, size_t n,
                              size_t *ops, size_t max)
{
	size_t nops = 0;
	for (size_t k = from; k < n && nops < max; k++) {
		const char *a = word(words, k);
		if (a[0] == '-' && a[1]) {
			if (lk_git_config_takes_value(a))
				k++;
			continue;
		}
		if (nops == 0 && !strcmp(a, "set"))
			continue;
		ops[nops++] = k;
	}
	return nops;
}

const char *lk_argv_word(const void *argv, size_t i)
{
	return ((const char *const *)argv)[i];
}
