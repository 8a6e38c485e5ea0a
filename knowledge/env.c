/*
 * knowledge/env.c - the environment variable lists (see env.h).
 *
 * An entry ending in `_` is a prefix (LC_ matches LC_ALL).  The shell-text
 * and hidden-code lists were found by hand with the execution oracle and
 * from the programs' manuals; the inert list is closed: a name is on it
 * only when no program locus knows reads it to pick a program, a file of
 * code, options that run code, or a directory it loads code from.
 */
#include <stdbool.h>
#include <string.h>

#include "env.h"

/* clang-format off */
static const char *const shell_text[] = {
	"GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL",
	"GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS",
	"SSH_ASKPASS", "GIT_SEQUENCE_EDITOR", "GIT_PROXY_COMMAND", "MANPAGER",
	"SYSTEMD_PAGER", "LESSOPEN", "LESSCLOSE", "PROMPT_COMMAND",
	/* programs named by the environment of rsync, cvs, sudo, fc,
	   kubectl, systemctl edit, xdg-open and friends */
	"RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "SUDO_ASKPASS",
	"SUDO_EDITOR", "FCEDIT", "KUBE_EDITOR", "SYSTEMD_EDITOR", "BROWSER",
	"GIT_SSH_VARIANT", "SVN_EDITOR", "SVN_SSH", "HGEDITOR", "TAR_RSH",
	NULL,
};

static const char *const hidden_code[] = {
	"BASH_FUNC_", /* prefix: an exported function */
	"BASH_ENV", "ENV", "LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH",
	"SHELLOPTS", "BASHOPTS", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "PYTHONSTARTUP", "PERL5OPT",
	"NODE_OPTIONS", "RUBYOPT",
	/* prompts a child shell imports (PS4 is expanded for `-x`) */
	"PS0", "PS1", "PS2", "PS3", "PS4", NULL,
};

/* Known not to change which program runs or make one run code: locale
   and terminal, log levels and colour, build targets, identities and
   dates of git commits, proxies (they change where traffic goes, not
   what runs; a download is exec:network anyway).  Not here on purpose:
   PATH, HOME and XDG_* (config files that run programs), TMPDIR, SHELL,
   LESS (options with +cmd), GOFLAGS (-toolexec), CFLAGS/LDFLAGS
   (-fplugin, -B), MAKEFLAGS, PYTHONPATH/PYTHONWARNINGS (imports),
   PYTEST_ADDOPTS (-p plugin), JAVA_OPTS/MAVEN_OPTS (-javaagent),
   npm_config_* (script-shell), GIT_CONFIG_* (config that runs programs),
   GIT_DIR/GIT_WORK_TREE, DOCKER_HOST, KUBECONFIG, CARGO_TARGET_DIR and
   GIT_TRACE (write elsewhere). */
static const char *const inert[] = {
	"LANG", "LANGUAGE", "LC_", "TZ", "TERM", "COLORTERM", "COLUMNS",
	"LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
	"TERM_PROGRAM", "TIMEFORMAT",
	"CI", "DEBUG", "VERBOSE", "NODE_ENV", "RAILS_ENV", "RACK_ENV",
	"APP_ENV", "FLASK_ENV", "FLASK_DEBUG", "PORT",
	"RUST_LOG", "RUST_BACKTRACE", "RUST_LIB_BACKTRACE", "CARGO_TERM_COLOR",
	"CARGO_INCREMENTAL", "GOOS", "GOARCH", "GOARM", "GOAMD64",
	"CGO_ENABLED", "GO111MODULE", "GOGC", "GOMAXPROCS", "GOMEMLIMIT",
	"PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED",
	"PYTHONIOENCODING", "PYTHONUTF8", "PYTHONFAULTHANDLER",
	"PIP_DISABLE_PIP_VERSION_CHECK", "PIP_NO_INPUT", "NODE_NO_WARNINGS",
	"NO_UPDATE_NOTIFIER", "DEBIAN_FRONTEND", "SOURCE_DATE_EPOCH",
	"DOCKER_BUILDKIT", "BUILDKIT_PROGRESS", "TF_IN_AUTOMATION", "TF_INPUT",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "GIT_MERGE_AUTOEDIT",
	"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_DEFAULT_OUTPUT",
	"TOKENIZERS_PARALLELISM", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
	"CUDA_VISIBLE_DEVICES", "HOMEBREW_NO_AUTO_UPDATE",
	"HOMEBREW_NO_ANALYTICS", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
	"http_proxy", "https_proxy", "no_proxy",
	NULL,
};
/* clang-format on */

static bool name_is(const char *a, size_t n, const char *name)
{
	/* entries are never empty: a first byte that differs (most do)
	   decides without the length */
	if (!n || a[0] != name[0])
		return false;
	size_t l = strlen(name);
	if (name[l - 1] == '_') /* prefix entry */
		return n >= l && !strncmp(a, name, l);
	return n == l && !strncmp(a, name, l);
}

static bool in(const char *const *list, const char *a, size_t n)
{
	for (size_t k = 0; list[k]; k++)
		if (name_is(a, n, list[k]))
			return true;
	return false;
}

lk_env_class lk_env_class_of(const char *name, size_t n)
{
	if (in(hidden_code, name, n))
		return LK_ENV_HIDDEN_CODE;
	if (in(shell_text, name, n))
		return LK_ENV_SHELL_TEXT;
	if (in(inert, name, n))
		return LK_ENV_INERT;
	return LK_ENV_UNKNOWN;
}
