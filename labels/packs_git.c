/*
 * labels/packs_git.c - git plumbing and porcelain that discard work, on
 * top of the spec's forms in tables.c (rules language: pack.h).
 * `git-X` dashed helpers are listed as programs of their own.
 */
#include <string.h>
#include <strings.h>

#include "../knowledge/programs.h"
#include "pack.h"
#include "../knowledge/git.h"

#define D LOCUS_TAG_DESTRUCTIVE
#define S LOCUS_TAG_SECRETS
#define P LOCUS_TAG_PERSISTENCE
#define O LOCUS_TAG_OUTSIDE

static const pk_grammar grammars[] = {
    {"git",
     "-C -c --git-dir --work-tree --namespace --config-env "
     "--super-prefix --exec-path",
     "--no-pager -P -p --paginate --bare --no-replace-objects "
     "--literal-pathspecs --no-optional-locks"},
    {"git-credential-store", "--file", NULL},
    {"git-credential-cache", "--timeout --socket", NULL},
    {NULL, NULL, NULL},
};


static bool ci_has(const char *hay, const char *needle)
{
	size_t n = strlen(hay), m = strlen(needle);
	for (size_t k = 0; k + m <= n; k++) {
		size_t i = 0;
		while (i < m) {
			char ch = hay[k + i];
			if (ch >= 'A' && ch <= 'Z')
				ch = (char)(ch - 'A' + 'a');
			if (ch != needle[i])
				break;
			i++;
		}
		if (i == m)
			return true;
	}
	return false;
}

/* `-c clean.requireForce=false`: `git clean` without -f then deletes. */
static bool require_force_off(const locus_shell_command *c,
                              const ll_context *ctx)
{
	(void)ctx;
	for (size_t i = 1; i < c->argc; i++)
		if (ci_has(c->argv[i], "clean.requireforce"))
			return true;
	return false;
}

/* A key not on knowledge/git.h's closed list of inert keys may name a
   program git runs later, or make git read hooks, templates or config from
   elsewhere (the old list of program keys missed
   trailer.*.cmd, man.*.path, url.*.insteadOf...).  alias.X=!cmd runs a
   shell command; a plain alias runs git. */
static bool program_key(const char *key, const char *value)
{
	size_t n = strlen(key);
	if (n > 6 && !strncasecmp(key, "alias.", 6))
		return !value || value[0] == '!';
	return !lk_git_key_inert(key, n);
}

/* The index of c's `config` subcommand word (c->argc: none). */
static size_t config_at(const locus_shell_command *c)
{
	size_t i = 1;
	while (i < c->argc && strcmp(c->argv[i], "config") != 0)
		i++;
	return i;
}

/* git config [--global|--system|--file F] KEY VALUE with a
   program-valued KEY: it runs on later git commands, in every repository
   with a global scope, and in the repository's own config (.git/config)
   on the next git command there, outside any jail (checked by a red
   team: filter.x.clean ran on `git add`, diff.external on `git diff`).
   (The repository's core.hooksPath has a rule of its own.) */
static bool program_key_written(const locus_shell_command *c,
                                const ll_context *ctx)
{
	(void)ctx;
	size_t i = config_at(c);
	size_t ops[2]; /* KEY VALUE, as every reader finds them (git.h) */
	return lk_git_config_operands(lk_argv_word, c->argv, i + 1, c->argc,
	                              ops, 2) == 2 &&
	       program_key(c->argv[ops[0]], c->argv[ops[1]]);
}

/* git config --global/--system (any abbreviation parse-options takes,
   `--gl`, `--sy`) that writes: KEY VALUE, or an option or (git 2.46)
   subcommand that sets, unsets, renames or edits.  ~/.gitconfig and
   /etc/gitconfig are outside the workspace, and every repository of the
   person reads them (http.sslVerify false, a user, a filter: checked by
   a red team).  A lone KEY, --get, --list are reads. */
static bool user_scope_written(const locus_shell_command *c,
                               const ll_context *ctx)
{
	(void)ctx;
	size_t i = config_at(c);
	bool user = false, writes = false;
	for (size_t k = i + 1; k < c->argc && strcmp(c->argv[k], "--"); k++) {
		const char *a = c->argv[k];
		user |= lk_long_abbrev(a, "global", 2) ||
		        lk_long_abbrev(a, "system", 2);
		writes |= lk_long_abbrev(a, "unset", 3) ||
		          lk_long_abbrev(a, "unset-all", 7) ||
		          lk_long_abbrev(a, "add", 2) ||
		          lk_long_abbrev(a, "replace-all", 2) ||
		          lk_long_abbrev(a, "rename-section", 3) ||
		          lk_long_abbrev(a, "remove-section", 3) ||
		          lk_long_abbrev(a, "edit", 1) || !strcmp(a, "-e");
	}
	if (!user)
		return false;
	if (i + 1 < c->argc) {
		const char *sub = c->argv[i + 1];
		writes |= !strcmp(sub, "set") || !strcmp(sub, "unset") ||
		          !strcmp(sub, "rename-section") ||
		          !strcmp(sub, "remove-section") ||
		          !strcmp(sub, "edit");
	}
	size_t ops[2];
	return writes || lk_git_config_operands(lk_argv_word, c->argv, i + 1,
	                                        c->argc, ops, 2) == 2;
}

/* The word a ends with `name` ignoring ASCII case. */
static bool ends_nocase(const char *a, const char *name)
{
	size_t n = strlen(a), m = strlen(name);
	return n >= m && !strcasecmp(a + n - m, name);
}

/* git config reads that print the person's own config (~/.gitconfig,
   /etc/gitconfig, where url.*.insteadOf may hold a token and
   http.*.extraheader an Authorization header, as actions/checkout
   writes it): --list/-l, --get-regexp, --get-urlmatch (any
   abbreviation parse-options takes), git 2.46's `list` and `get
   --regexp/--url`, and any read of an extraheader key.  Scoped to the
   repository's own config (--local, --worktree, --file, --blob) they
   print what `cat .git/config` prints, and stay reads. */
static bool config_prints_user_scope(const locus_shell_command *c,
                                     const ll_context *ctx)
{
	(void)ctx;
	size_t i = config_at(c);
	if (i + 1 >= c->argc)
		return false;
	bool list = !strcmp(c->argv[i + 1], "list");
	bool get_sub = !strcmp(c->argv[i + 1], "get");
	bool own = false, header = false;
	for (size_t k = i + 1; k < c->argc && strcmp(c->argv[k], "--"); k++) {
		const char *a = c->argv[k];
		header |= ends_nocase(a, "extraheader");
		if (a[0] == '-' && a[1] && a[1] != '-') {
			own |= a[1] == 'f'; /* -f FILE */
			list |= strchr(a, 'l') &&
			        strspn(a + 1, "lz") == strlen(a + 1);
			continue;
		}
		list |= lk_long_abbrev(a, "list", 2) ||
		        lk_long_abbrev(a, "get-regexp", 5) ||
		        lk_long_abbrev(a, "get-urlmatch", 5) ||
		        (get_sub && (lk_long_abbrev(a, "regexp", 1) ||
		                     lk_long_abbrev(a, "url", 1)));
		own |= lk_long_abbrev(a, "local", 2) ||
		       lk_long_abbrev(a, "worktree", 1) ||
		       lk_long_abbrev(a, "file", 3) ||
		       lk_long_abbrev(a, "blob", 2);
	}
	return !own && (list || header);
}

/* An option word of `git SUB` (before `--`) gives the LK_GIT_* bits fx
   (knowledge/git.c: git apply --unsafe-paths, init/clone --template). */
static bool git_opt_gives(const locus_shell_command *c, const char *sub,
                          unsigned fx)
{
	for (size_t i = 1; i < c->argc && strcmp(c->argv[i], "--"); i++)
		if (lk_git_opt_effect(sub, c->argv[i]) & fx)
			return true;
	return false;
}

/* git apply/am --directory=DIR: the patch's files land under DIR, a
   folder that may hold persistence files (checked by a red team: `git
   apply --directory=.github` made .github/workflows/x.yml). */
static bool applies_into_folder(const locus_shell_command *c,
                                const ll_context *ctx)
{
	(void)ctx;
	for (size_t i = 1; i < c->argc && strcmp(c->argv[i], "--"); i++) {
		const char *a = c->argv[i];
		if (!lk_long_abbrev(a, "directory", 2))
			continue;
		const char *eq = strchr(a, '=');
		const char *v = eq                ? eq + 1
		                : i + 1 < c->argc ? c->argv[i + 1]
		                                  : NULL;
		if (v && pk_persistence_folder(v, NULL))
			return true;
	}
	return false;
}

/* git apply --unsafe-paths: the patch's paths may name any file, a
   startup file or a hook among them (as tar -P does). */
static bool applies_anywhere(const locus_shell_command *c,
                             const ll_context *ctx)
{
	(void)ctx;
	return git_opt_gives(c, "apply", LK_GIT_ANYWHERE);
}

/* git init/clone --template=DIR copies DIR's hooks into .git/hooks. */
static bool init_template(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	return git_opt_gives(c, "init", LK_GIT_HOOKS);
}

static bool clone_template(const locus_shell_command *c, const ll_context *ctx)
{
	(void)ctx;
	return git_opt_gives(c, "clone", LK_GIT_HOOKS);
}

/* clang-format off */
static const pk_rule rules[] = {
    {"git", "apply", NULL, "--help -h", P,
     "persistence: git apply --unsafe-paths writes the patch's paths "
     "outside the repository (startup files, hooks)",
     applies_anywhere, 0},
    {"git", "init", NULL, "--help -h", P,
     "persistence: git init/clone --template installs the hooks of a "
     "directory, which later git commands run",
     init_template, 0},
    {"git", "clone", NULL, "--help -h", P,
     "persistence: git init/clone --template installs the hooks of a "
     "directory, which later git commands run",
     clone_template, 0},
    {"git", "branch", "-f --force -M -C", "--help -h", D,
     "git: branch -f/-M/-C moves or overwrites a branch, losing its "
     "commits",
     NULL, 0},
    {"git-branch", NULL, "-f --force -M -C", NULL, D,
     "git: branch -f/-M/-C moves or overwrites a branch, losing its "
     "commits",
     NULL, 0},
    {"git", "read-tree", "--reset -u", "--help -h", D,
     "git: read-tree --reset/-u overwrites the index and working files", NULL,
     0},
    {"git-read-tree", NULL, "--reset -u", NULL, D,
     "git: read-tree --reset/-u overwrites the index and working files", NULL,
     0},
    {"git", "checkout-index", "-f --force", "--help -h", D,
     "git: checkout-index -f overwrites working files", NULL, 0},
    {"git-checkout-index", NULL, "-f --force", NULL, D,
     "git: checkout-index -f overwrites working files", NULL, 0},
    {"git", "clean", NULL, "--help -h -n --dry-run", D,
     "git: clean with clean.requireForce=false deletes untracked files",
     require_force_off, 0},
    {"git", "filter-branch|filter-repo", NULL, "--help -h --dry-run", D,
     "git: filter-branch/filter-repo rewrites every commit", NULL, 0},
    {"git-filter-branch git-filter-repo", NULL, NULL, "--help -h --dry-run", D,
     "git: filter-branch/filter-repo rewrites every commit", NULL, 0},
    {"git", "tag", "-d --delete", "--help -h", D, "git: tag -d deletes a tag",
     NULL, 0},
    {"git", "symbolic-ref", "-d --delete", "--help -h", D,
     "git: symbolic-ref -d deletes a ref", NULL, 0},
    {"git", "submodule deinit", "-f --force --all", "--help -h", D,
     "git: submodule deinit -f discards a submodule's working tree", NULL, 0},
    {"git", "update-index", "--force-remove", "--help -h", D,
     "git: update-index --force-remove drops files from the index", NULL, 0},
    {"git", "config", "~hooksPath ~hookspath ~HOOKSPATH",
     "--help -h "
     "--get --get-all --list -l --get-regexp",
     P,
     "persistence: git config core.hooksPath makes git run other hooks "
     "later",
     NULL, 0},
    {"git", "config", NULL,
     "--help -h --get --get-all --list -l "
     "--get-regexp --unset --unset-all",
     P,
     "persistence: a program-valued git config key (a filter, pager, "
     "editor, alias, driver) runs on later git commands (with "
     "--global/--system in every repository)",
     program_key_written, 0},
    {"git", "config", NULL, "--help -h", O,
     "outside-workspace: git config --global/--system writes the person's "
     "own git config (~/.gitconfig, /etc/gitconfig), read by every "
     "repository",
     user_scope_written, 0},
    {"git", "config", NULL, "--help -h", S,
     "secrets: git config --list/--get-regexp prints the person's own git "
     "config (url.*.insteadOf tokens, http extraheaders)",
     config_prints_user_scope, 0},
    {"git", "var", "-l", "--help -h", S,
     "secrets: git var -l prints every git config value (tokens in "
     "url.*.insteadOf, http extraheaders)",
     NULL, 0},
    /* installs pre-push, post-checkout, post-commit and post-merge
       hooks, and (without --local) filters in ~/.gitconfig (checked by a
       red team) */
    {"git", "lfs install|update|uninstall", NULL, "--help -h", P,
     "persistence: git lfs install/update installs (uninstall removes) "
     "hooks and filters that run on later git commands",
     NULL, 0},
    {"git-lfs", "install|update|uninstall", NULL, "--help -h", P,
     "persistence: git lfs install/update installs (uninstall removes) "
     "hooks and filters that run on later git commands",
     NULL, 0},
    /* git credential-store store|erase / git credential approve|reject
       / git credential-cache: the person's ~/.git-credentials or
       credential cache (checked by a red team: `git credential reject`
       and `git credential-store erase` erased a stored token) */
    {"git", "credential-store|credential|credential-cache "
     "store|approve|reject|erase|exit",
     NULL, "--help -h", O,
     "outside-workspace: git credential store/approve/reject/erase "
     "changes the person's stored credentials",
     NULL, 0},
    /* the same helpers run by their own name, on PATH or by path
       (checked by a red team: /usr/lib/git-core/git-credential-store
       erase removed the stored token) */
    {"git-credential-store git-credential-cache", "store|erase|exit", NULL,
     "--help -h", O,
     "outside-workspace: git-credential-store/-cache store/erase/exit "
     "changes the person's stored credentials",
     NULL, 0},
    {"git-credential-store git-credential-cache", "get", NULL, NULL, S,
     "secrets: git-credential-store get prints stored credentials", NULL,
     0},
    {"git", "apply|am", NULL, "--help -h --check --stat --numstat", P,
     "persistence: git apply/am --directory puts the patch's files in a "
     "folder of hooks, workflows or editor tasks",
     applies_into_folder, 0},
    /* the repository (its hooks and config) moves to another folder,
       .git becomes a file naming it: later writes there are hooks
       (checked by a red team: a hook written in the new folder ran);
       `--se` is the shortest spelling parse-options takes for init */
    {"git", "init|clone", "~--se", "--help -h", P,
     "persistence: git init/clone --separate-git-dir moves the repository "
     "(its hooks and config) to another folder",
     NULL, 0},
    /* Start/register install a crontab, systemd timers or a
       launchd/schtasks job that runs git in this repository later */
    {"git", "maintenance start|register", NULL, "--help -h", P,
     "persistence: git maintenance start/register schedules git to run "
     "later (crontab, systemd timers)",
     NULL, 0},
    {"git",
     "credential|credential-store|credential-cache "
     "fill|get",
     NULL, NULL, S, "secrets: git credential fill prints stored credentials",
     NULL, 0},
    {NULL, NULL, NULL, NULL, 0, NULL, NULL, 0},
};
/* clang-format on */

const pk_pack pk_git = {"git", grammars, rules};
