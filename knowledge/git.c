/*
 * knowledge/git.c - git's command grammar (see git.h).
 */
#include "git.h"
#include "programs.h"

#include <string.h>
#include <strings.h>

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

/*
 * Config keys known to be inert: their value is data git never
 * runs, and they name no program, URL, file of config or hook directory.
 * "section.var" is one key; "section.*" is any variable of the section
 * without a subsection (advice.detachedHead), never section.SUB.var
 * (branch.x.remote may be an ext:: URL); "section.**" any key of the
 * section (color.diff.meta: colours only).  Any key not
 * listed (trailer.*.cmd, man.*.path, remote.*.url, url.*.insteadOf,
 * safe.directory, include.path...) is not known to be inert: `git -c`,
 * `--config-env` and `git config` setting it are unparsed unless the
 * parser knows the key runs its value and sees the value through.
 */
/* clang-format off */
static const char *const inert_keys[] = {
	"user.name", "user.email", "user.signingkey", "user.useconfigonly",
	"author.name", "author.email", "committer.name", "committer.email",
	"color.**", "advice.*", "column.*", "status.*", "pretty.*",
	"core.quotepath", "core.autocrlf", "core.safecrlf", "core.eol",
	"core.filemode", "core.ignorecase", "core.precomposeunicode",
	"core.longpaths", "core.abbrev", "core.commentchar",
	"core.commentstring", "core.whitespace", "core.symlinks",
	"core.logallrefupdates", "core.compression", "core.bigfilethreshold",
	"core.untrackedcache", "core.fscache", "core.preloadindex",
	"core.checkstat", "core.trustctime",
	"core.multipackindex", "core.commitgraph", "core.splitindex",
	"init.defaultbranch", "i18n.commitencoding", "i18n.logoutputencoding",
	"log.date", "log.decorate", "log.abbrevcommit", "log.follow",
	"log.showroot", "log.showsignature", "log.mailmap", "log.excludedecoration",
	"format.pretty", "diff.noprefix", "diff.mnemonicprefix",
	"diff.renames", "diff.renamelimit", "diff.algorithm", "diff.colormoved",
	"diff.colormovedws", "diff.context", "diff.interhunkcontext",
	"diff.relative", "diff.statgraphwidth", "diff.submodule",
	"diff.ignoresubmodules", "diff.indentheuristic",
	"diff.wserrorhighlight", "diff.suppressblankempty", "diff.dirstat",
	"diff.statnamewidth", "merge.ff", "merge.conflictstyle", "merge.log",
	"merge.renames", "merge.stat", "merge.verbosity", "merge.autostash",
	"merge.renamelimit", "pull.rebase", "pull.ff", "push.default",
	"push.autosetupremote", "push.followtags", "fetch.prune",
	"fetch.prunetags", "fetch.parallel", "fetch.writecommitgraph",
	"fetch.fsckobjects", "transfer.fsckobjects", "receive.fsckobjects",
	"rebase.autosquash", "rebase.autostash", "rebase.updaterefs",
	"rebase.abbreviatecommands", "rebase.stat", "rebase.missingcommitscheck",
	"commit.gpgsign", "commit.verbose", "commit.status", "commit.cleanup",
	"tag.gpgsign", "tag.sort", "branch.sort", "branch.autosetupmerge",
	"branch.autosetuprebase", "gc.auto", "gc.autodetach", "gc.autopacklimit",
	"maintenance.auto", "am.threeway", "feature.manyfiles",
	"feature.experimental", "index.version", "index.threads",
	"pack.threads", "grep.linenumber", "grep.patterntype",
	"grep.extendedregexp", "grep.fullname", "grep.column",
	"grep.fallbacktonoindex", "blame.date", "blame.coloring",
	"blame.showemail", "blame.blankboundary", "blame.showroot",
	"versionsort.suffix", "http.sslverify", "http.postbuffer",
	"http.version", "http.lowspeedlimit", "http.lowspeedtime",
	"checkout.defaultremote", "checkout.workers", "clone.defaultremotename",
	"rerere.enabled", "rerere.autoupdate", "stash.showpatch",
	"stash.showstat", "submodule.fetchjobs", "notes.displayref", NULL,
};
/* clang-format on */

bool lk_git_key_inert(const char *key, size_t n)
{
	const char *dot = memchr(key, '.', n);
	if (!dot || dot == key || dot + 1 == key + n)
		return false;
	size_t sl = (size_t)(dot - key);
	bool sub = memchr(dot + 1, '.', n - sl - 1) != NULL;
	for (const char *const *k = inert_keys; *k; k++) {
		const char *kd = strchr(*k, '.');
		if ((size_t)(kd - *k) != sl || strncasecmp(*k, key, sl))
			continue;
		if (!strcmp(kd, ".**"))
			return true;
		if (kd[1] == '*' && !kd[2]) {
			if (!sub)
				return true;
			continue;
		}
		if (strlen(*k) == n && !strncasecmp(*k, key, n))
			return true;
	}
	return false;
}

bool lk_git_sub_output_opts(const char *sub)
{
	static const char list[] =
	    "|log|show|diff|diff-tree|diff-index|diff-files|whatchanged|"
	    "format-patch|rev-list|shortlog|reflog|range-diff|blame|annotate|"
	    "cherry-pick|revert|fast-export|bundle|archive|grep|cat-file|"
	    "stash|";
	return sub && *sub && lk_bar_has(list, sub, strlen(sub));
}

bool lk_git_rev_value_opt(const char *opt)
{
	static const char list[] =
	    "|-n|--max-count|--skip|--author|--committer|--grep|--since|"
	    "--until|--after|--before|-S|-G|-O|--diff-filter|";
	return opt && *opt && lk_bar_has(list, opt, strlen(opt));
}

/* Options of a subcommand that reach past the repository, any prefix of
   them from `--` and one letter (checked in git 2.39 inside bubblewrap:
   `git apply --uns` wrote ../out/evil, `--un` is refused as ambiguous
   with --unidiff-zero; `git init --t=DIR` installed DIR's hooks; `git
   clone --t=` is refused as ambiguous with --no-tags, `--te=` ran the
   template's post-checkout hook during the clone).  A prefix git refuses
   runs nothing, so counting it costs nothing. */
/* clang-format off */
static const struct {
	const char *sub;
	const char *opt;
	size_t min;
	unsigned fx;
} git_opt_rows[] = {
	{ "apply", "--unsafe-paths", 3, LK_GIT_ANYWHERE },
	{ "init", "--template", 3, LK_GIT_HOOKS },
	{ "clone", "--template", 3, LK_GIT_HOOKS },
};
/* clang-format on */

unsigned lk_git_opt_effect(const char *sub, const char *arg)
{
	if (!sub || !arg || arg[0] != '-' || arg[1] != '-')
		return 0;
	size_t n = strcspn(arg, "=");
	unsigned fx = 0;
	for (size_t i = 0; i < sizeof git_opt_rows / sizeof *git_opt_rows; i++)
		if (!strcmp(git_opt_rows[i].sub, sub) &&
		    n >= git_opt_rows[i].min &&
		    n <= strlen(git_opt_rows[i].opt) &&
		    !strncmp(arg, git_opt_rows[i].opt, n))
			fx |= git_opt_rows[i].fx;
	return fx;
}
