/*
 * labels/service.c - service and cloud CLIs: what every program
 * of the program table's effect class "service or cloud CLI" gets, by one
 * rule for all of them rather than a list per program.
 *
 * - exec:network: a service CLI talks to its service (aws, gcloud, az,
 *   kubectl, stripe, op, wrangler, velero, restic...).
 * - exec:destructive, the generic verb rule: a destructive verb (delete,
 *   destroy, remove, rm, rb, purge, drop, reset, prune, terminate,
 *   unregister, revoke, forget, wipe, truncate, flush...) as one of the
 *   first operands (the subcommand chain: `velero backup delete`, `aws ec2
 *   terminate-instances`, `heroku pg:reset`: words are split at - : _) or
 *   as a long option (`--delete`, `--prune`, `--delete-after`).  Credential
 *   stores (pass, sops, gopass...) get the verb rule without the network.
 *   A dry run (`--dry-run`, `--dryrun`, `--what-if`) or a help form leaves
 *   it off.  The packs (labels/packs_*.c) keep their specific rules on top.
 *
 * Decision: every call is exec:network, reads included (a read of a
 * remote API with the user's credentials is not a workspace-only read),
 * except the local forms (local_forms below: terraform fmt, helm lint,
 * the CLI's own configuration, help and completion), which the tools'
 * documentation describes as working on local files only.  The read form
 * (a read verb among the first operand words, no action word before it,
 * no secret noun, no URL, no other server or endpoint) is kept for one
 * thing: a `retention` word on it does not make the call destructive.
 *
 * `python -m MODULE` is judged as MODULE (`python -m twine upload`).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "../knowledge/programs.h"
#include "../util/str.h"

/* Sorted: the verbs, each with the reason it gives (static text). */
/* clang-format off */
static const struct verb {
	const char *verb;
	const char *reason;
} verbs[] = {
	{"cleanup", "a service CLI verb deletes (cleanup)"},
	{"clear", "a service CLI verb deletes (clear)"},
	{"compact", "a service CLI verb deletes (compact)"},
	{"del", "a service CLI verb deletes (del)"},
	{"delete", "a service CLI verb deletes (delete)"},
	{"deregister", "a service CLI verb deletes (deregister)"},
	{"destroy", "a service CLI verb deletes (destroy)"},
	{"disable", "a service CLI verb takes something out of service (disable)"},
	{"down", "a service CLI verb tears something down (down)"},
	{"drop", "a service CLI verb deletes (drop)"},
	{"erase", "a service CLI verb deletes (erase)"},
	{"evict", "a service CLI verb deletes (evict)"},
	{"expunge", "a service CLI verb deletes (expunge)"},
	{"flush", "a service CLI verb deletes (flush)"},
	{"flushall", "a service CLI verb deletes (flushall)"},
	{"forget", "a service CLI verb deletes (forget)"},
	{"kill", "a service CLI verb deletes (kill)"},
	{"nuke", "a service CLI verb deletes (nuke)"},
	{"prune", "a service CLI verb deletes (prune)"},
	{"purge", "a service CLI verb deletes (purge)"},
	{"rb", "a service CLI verb deletes (rb)"},
	{"remove", "a service CLI verb deletes (remove)"},
	{"reset", "a service CLI verb deletes (reset)"},
	{"revoke", "a service CLI verb deletes (revoke)"},
	{"rm", "a service CLI verb deletes (rm)"},
	{"rmdir", "a service CLI verb deletes (rmdir)"},
	{"rmi", "a service CLI verb deletes (rmi)"},
	{"teardown", "a service CLI verb tears something down (teardown)"},
	{"terminate", "a service CLI verb deletes (terminate)"},
	{"truncate", "a service CLI verb deletes (truncate)"},
	{"undeploy", "a service CLI verb deletes (undeploy)"},
	{"uninstall", "a service CLI verb deletes (uninstall)"},
	{"unpublish", "a service CLI verb deletes (unpublish)"},
	{"unregister", "a service CLI verb deletes (unregister)"},
	{"unset", "a service CLI verb deletes (unset)"},
	{"wipe", "a service CLI verb deletes (wipe)"},
	{"yank", "a service CLI verb deletes (yank)"},
};
/* clang-format on */
#define NVERBS (sizeof verbs / sizeof *verbs)

/* A long option whose first part is one of these keeps what the verb
   would delete (`--no-delete`, `--keep-remove`...). */
static const char *const negators[] = {"no",   "keep", "skip", "without",
                                       "dont", "dry",  NULL};

/* Options that make the call a dry run or a help form (read exactly:
   labels/harmless.c). */
#define DRY "--dry-run --dryrun --what-if --whatif --help -help -h"

/* First operands that only ask or show what would change. */
static const char *const preview_words[] = {"help", "plan", "preview", NULL};

/* Help and version forms: they print and exit (unless a word turns
   them off: --help=false). */
#define HELP "--help -help -h --version -version"
static const char *const help_words[] = {"--help",    "-help",    "-h",
                                         "--version", "-version", NULL};

/* Read verbs (sorted): a word of the leading chain whose first part is one
   of these makes the call a read form. */
/* clang-format off */
static const char *const read_verbs[] = {
    "check", "current", "describe", "diff", "explain", "fmt", "get",
    "graph", "help", "history", "info", "inspect", "lint", "list", "log",
    "logs", "ls", "output", "plan", "preview", "providers", "read", "scan",
    "show", "status", "tail", "template", "top", "validate", "version",
    "view", "whoami", NULL,
};
/* clang-format on */

/* Words before the read verb that make the chain do something else
   (`compute ssh vm list`, `exec pod ls`). */
/* clang-format off */
static const char *const action_words[] = {
    "add", "apply", "approve", "attach", "call", "close", "comment",
    "copy", "cp", "create", "debug", "deploy", "edit", "exec", "import",
    "install", "invoke", "login", "logout", "merge", "move", "mv", "open",
    "patch", "port-forward", "proxy", "publish", "push", "put", "rename",
    "reopen", "replace", "restart", "restore", "review", "run", "scale",
    "scp", "send", "set", "ssh", "start", "stop", "sync", "transfer",
    "update", "upload", NULL,
};
/* clang-format on */

/* The read verb is one of the first words of the chain (option values
   included): `aws --profile p s3 ls`, `kubectl --context c -n ns get`. */
#define READ_VERB_WORDS 3

/* Parts that name credentials: a chain holding one may print them. */
/* clang-format off */
static const char *const secret_parts[] = {
    "credential", "credentials", "key", "keys", "keyvault",
    "kms", "password", "passwords", "secret", "secrets", "secretsmanager",
    "token", "tokens", NULL,
};
/* clang-format on */

/* Option parts that send the request (and the credentials) elsewhere. */
static const char *const elsewhere_parts[] = {
    "endpoint", "host", "server", "url", NULL,
};

/* Secret managers: no read form (their reads print secrets). */
static const char *const secret_services[] = {
    "bw", "doppler", "infisical", "lpass", "op", "vault", NULL,
};

/* Destruction without a verb (each a class of its own):
   - a safeguard turned off: an option whose first part is a negator and a
     later part a safeguard (`--no-backup`, `--skip-final-snapshot`);
   - retention changed: a word with the part `retention` (`--config
     retention.ms=1000`, `--retention-period 1d`): older data is deleted
     (not on a read form: `describe --retention` prints it);
   - scaled to zero: a `scale` word in the chain and a count of 0 (`fly
     scale count 0`, `scale --replicas=0`): every instance stops. */
static const char *const safeguard_off[] = {"no",   "skip",    "without",
                                            "dont", "disable", NULL};
static const char *const safeguards[] = {"backup",    "backups", "snapshot",
                                         "snapshots", "retain",  "preserve",
                                         "archive",   NULL};
static const struct verb off_reason = {
    "--no-backup", "a service CLI option turns a safeguard off (backup, "
                   "snapshot)"};
static const struct verb retention_reason = {
    "retention", "a service CLI changes retention (older data is deleted)"};
static const struct verb zero_reason = {
    "scale", "a service CLI scales to zero (every instance stops)"};

/* Local forms: subcommands that the tools' own documentation describes as
   working on local files only, without a request to the service
   (terraform fmt/validate, helm lint/create/package, the CLI's own
   configuration, shell completion).  The chain's leading operands must
   be these words exactly (an option's value in front of them makes the
   call a network one: it only over-holds).  Sorted by program. */
/* clang-format off */
static const struct local_form {
	const char *prog;
	const char *words; /* space-separated leading operands */
} local_forms[] = {
	{"asdf", "current"},
	{"asdf", "exec"},
	{"asdf", "list"},
	{"asdf", "where"},
	{"asdf", "which"},
	{"aws", "configure list"},
	{"bundle", "check"},
	{"bundle", "exec"},
	{"bundle", "list"},
	{"bundle", "version"},
	{"bundler", "check"},
	{"bundler", "exec"},
	{"bundler", "list"},
	{"bundler", "version"},
	{"composer", "check-platform-reqs"},
	{"composer", "dump-autoload"},
	{"composer", "dumpautoload"},
	{"composer", "licenses"},
	{"composer", "run"},
	{"composer", "run-script"},
	{"composer", "validate"},
	{"conda", "env list"},
	{"conda", "info"},
	{"conda", "list"},
	{"conda", "run"},
	{"corepack", "disable"},
	{"corepack", "enable"},
	{"fnm", "current"},
	{"fnm", "env"},
	{"fnm", "exec"},
	{"fnm", "list"},
	{"gcloud", "auth list"},
	{"gcloud", "config get"},
	{"gcloud", "config get-value"},
	{"gcloud", "config list"},
	{"gcloud", "version"},
	{"goenv", "exec"},
	{"goenv", "local"},
	{"goenv", "version"},
	{"goenv", "versions"},
	{"goenv", "which"},
	{"hatch", "env show"},
	{"hatch", "status"},
	{"hatch", "version"},
	{"helm", "create"},
	{"helm", "lint"},
	{"helm", "package"},
	{"helm", "repo list"},
	{"helm", "version"},
	{"jenv", "exec"},
	{"jenv", "local"},
	{"jenv", "version"},
	{"jenv", "versions"},
	{"jenv", "which"},
	{"kubectl", "config current-context"},
	{"kubectl", "config get-contexts"},
	{"kubectl", "config view"},
	{"kubectl", "version --client"},
	{"mamba", "env list"},
	{"mamba", "info"},
	{"mamba", "list"},
	{"mamba", "run"},
	{"micromamba", "env list"},
	{"micromamba", "info"},
	{"micromamba", "list"},
	{"mise", "current"},
	{"mise", "ls"},
	{"mise", "which"},
	{"nodenv", "exec"},
	{"nodenv", "local"},
	{"nodenv", "version"},
	{"nodenv", "versions"},
	{"nodenv", "which"},
	{"nvm", "current"},
	{"nvm", "ls"},
	{"nvm", "use"},
	{"nvm", "which"},
	{"pdm", "info"},
	{"pdm", "list"},
	{"pdm", "run"},
	{"phpenv", "local"},
	{"phpenv", "version"},
	{"phpenv", "versions"},
	{"phpenv", "which"},
	{"pixi", "info"},
	{"pixi", "list"},
	{"poetry", "build"},
	{"poetry", "check"},
	{"poetry", "env info"},
	{"poetry", "env list"},
	{"poetry", "run"},
	{"poetry", "version"},
	{"pyenv", "exec"},
	{"pyenv", "local"},
	{"pyenv", "prefix"},
	{"pyenv", "root"},
	{"pyenv", "version"},
	{"pyenv", "versions"},
	{"pyenv", "which"},
	{"rbenv", "exec"},
	{"rbenv", "local"},
	{"rbenv", "version"},
	{"rbenv", "versions"},
	{"rbenv", "which"},
	{"rtx", "current"},
	{"rtx", "ls"},
	{"rtx", "which"},
	{"rustup", "component list"},
	{"rustup", "show"},
	{"rustup", "target list"},
	{"rustup", "toolchain list"},
	{"rustup", "which"},
	{"rye", "show"},
	{"rye", "version"},
	{"sdk", "current"},
	{"terraform", "fmt"},
	{"terraform", "graph"},
	{"terraform", "providers"},
	{"terraform", "validate"},
	{"terraform", "version"},
	{"tofu", "fmt"},
	{"tofu", "graph"},
	{"tofu", "providers"},
	{"tofu", "validate"},
	{"tofu", "version"},
	{"twine", "check"},
	{"volta", "list"},
	{"volta", "which"},
};
/* clang-format on */
#define NLOCAL (sizeof local_forms / sizeof *local_forms)

/* Operands of the subcommand chain that are read for a verb. */
#define SERVICE_OPERANDS 5

static const struct verb *verb_exact(const char *s, size_t n)
{
	size_t lo = 0, hi = NVERBS;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(verbs[mid].verb, s, n);
		if (c == 0 && verbs[mid].verb[n] != '\0')
			c = 1; /* the verb is longer than the part */
		if (c == 0)
			return &verbs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A verb, or its third-person or plural form (`rmdirs`, `removes`). */
static const struct verb *verb_of(const char *s, size_t n)
{
	const struct verb *v = verb_exact(s, n);
	if (!v && n > 2 && s[n - 1] == 's')
		v = verb_exact(s, n - 1);
	return v;
}

/* The first verb among the parts of w (split at - : _), or NULL; with
   `option`, none when the first part is a negator. */
static const struct verb *word_verb(const char *w, bool option)
{
	bool first = true;
	for (const char *p = w; *p;) {
		size_t n = strcspn(p, "-:_");
		if (n) {
			if (first && option) {
				for (const char *const *g = negators; *g; g++)
					if (strlen(*g) == n &&
					    strncmp(*g, p, n) == 0)
						return NULL;
			}
			first = false;
			const struct verb *v = verb_of(p, n);
			if (v)
				return v;
		}
		p += n;
		if (*p)
			p++;
	}
	return NULL;
}

/* A long option's name that is a proper prefix of a verb (`--de`, `--unreg`):
   getopt_long and most CLI parsers take an unambiguous prefix of a long
   option, and a service CLI's own option table is not known here, so the
   prefix counts as the verb it may abbreviate (soundness first). */
static const struct verb *verb_prefix(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || strpbrk(name, "-:_"))
		return NULL;
	for (size_t i = 0; i < NVERBS; i++)
		if (strncmp(verbs[i].verb, name, n) == 0)
			return &verbs[i];
	return NULL;
}

/* A word computed at run time whose literal start is the start of a
   verb (`rclone "rmd$(echo irs)"` is rmdirs: found by fuzz_bypass): it
   may be that verb.  A word with no literal start (`"$SRC"`) is an
   operand as before. */
static bool dynamic_verb(const char *a)
{
	char lit[64];
	size_t n = strcspn(a, "$`");
	if (!n || n >= sizeof lit || !a[n])
		return false;
	memcpy(lit, a, n);
	lit[n] = '\0';
	return !strpbrk(lit, "/.=@ ") && verb_prefix(lit) != NULL;
}

/* A word that names a thing, not a verb: a path, URL, reference or
   assignment. */
static bool names_a_thing(const char *w)
{
	return strpbrk(w, "/.=@$ ") != NULL;
}


/* python, python3, python3.12, pypy3: `-m MODULE` runs a module. */
static bool is_python(const lk_program *p)
{
	return p && (lu_streq(p->name, "python") || lu_streq(p->name, "pypy"));
}

/*
 * python's -m MODULE read with the row's grammar (`-u -m pip`, `-mpip`,
 * `-Im pip`, `-X dev -m pip`): the module's name, *rest the index of the
 * first word after it; NULL when the script, -c, `--` or the end comes
 * first.
 */
static const char *python_module(const locus_shell_command *c,
                                 const lk_program *p, size_t *rest)
{
	const lk_interp *it = is_python(p) ? p->interp : NULL;
	for (size_t i = 1; it && i < c->argc; i++) {
		const char *a = c->argv[i];
		if (a[0] != '-' || !a[1] || lu_streq(a, "--"))
			return NULL;
		if (a[1] == '-') {
			const char *name = a + 2;
			if (!strchr(name, '=') &&
			    lk_bar_has(it->val_long, name, strlen(name)))
				i++;
			continue;
		}
		for (size_t j = 1; a[j]; j++) {
			if (lk_has_letter(it->stop, a[j])) { /* -m */
				*rest = a[j + 1] ? i + 1 : i + 2;
				return a[j + 1]          ? a + j + 1
				       : i + 1 < c->argc ? c->argv[i + 1]
				                         : NULL;
			}
			if (lk_has_letter(it->code, a[j]))
				return NULL;
			if (lk_has_letter(it->val, a[j])) {
				i += !a[j + 1];
				break;
			}
		}
	}
	return NULL;
}

const char *ll_python_module(const locus_shell_command *c,
                             const lk_program *prog, const lk_program **row,
                             size_t *rest)
{
	const char *mod = python_module(c, prog, rest);
	if (mod) /* through runners: -m cProfile -m http.server */
		mod =
		    lk_module_runs(prog->interp, mod,
		                   (const char *const *)c->argv, c->argc, rest);
	*row = mod ? lk_program_find(mod) : NULL;
	/* -m pip.__main__ runs pip's __main__: pip's row */
	size_t mn = mod ? lk_module_name_len(mod) : 0;
	char name[64];
	if (mod && mn < strlen(mod) && mn < sizeof name) {
		memcpy(name, mod, mn);
		name[mn] = '\0';
		*row = lk_program_find(name);
	}
	return mod;
}

/* The program a command runs for this rule: MODULE of `python -m MODULE`
   in any spelling (`-mawscli`, `-m awscli.__main__`; args from the word
   after it), else its own row (args from argv[1]). */
static const lk_program *service_program(const locus_shell_command *c,
                                         const lk_program *prog, size_t *first)
{
	*first = 1;
	const lk_program *row = NULL;
	size_t rest = 1;
	if (prog && (prog->cls & LK_INTERP) && prog->interp &&
	    (prog->interp->lang & LK_LANG_PY) &&
	    ll_python_module(c, prog, &row, &rest)) {
		*first = rest;
		return row;
	}
	return prog;
}

static bool listed(const char *const *list, const char *s, size_t n)
{
	/* entries are never empty: the first byte is compared first */
	for (; n && *list; list++)
		if ((*list)[0] == s[0] && strlen(*list) == n &&
		    strncmp(*list, s, n) == 0)
			return true;
	return false;
}

/* Some part of w (split at - : _ .) is in list. */
static bool any_part(const char *const *list, const char *w)
{
	for (const char *p = w; *p;) {
		size_t n = strcspn(p, "-:_.");
		if (n && listed(list, p, n))
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

/* Some part of w (split at - : _ . =) is `part`. */
static bool has_part(const char *w, const char *part)
{
	for (const char *p = w; *p;) {
		size_t n = strcspn(p, "-:_.=");
		if (n == strlen(part) && strncmp(p, part, n) == 0)
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

/* s[0..n) is a proper prefix of a word of list (an abbreviated long
   option: getopt_long takes any unambiguous prefix). */
static bool prefix_of(const char *const *list, const char *s, size_t n)
{
	for (; n && *list; list++)
		if (strlen(*list) > n && strncmp(*list, s, n) == 0)
			return true;
	return false;
}

/* An option that turns a safeguard off (see safeguard_off), also
   abbreviated (`--no-backu`, `--no`, `--sk`: the CLI's own option table
   is not known, so a prefix counts). */
static bool drops_safeguard(const char *a)
{
	if (a[0] != '-' || a[1] != '-')
		return false;
	const char *name = a + 2;
	size_t len = strcspn(name, "=");
	size_t n = strcspn(name, "-_=");
	if (n == len)
		return listed(safeguard_off, name, n) ||
		       prefix_of(safeguard_off, name, n);
	if (!listed(safeguard_off, name, n))
		return false;
	for (const char *const *g = safeguards; *g; g++)
		if (has_part(name + n + 1, *g))
			return true;
	/* the last part abbreviated: `--no-backu`, or not begun at all:
	   `--no-` is a prefix of every `--no-SAFEGUARD` */
	const char *last = name + len;
	while (last > name && last[-1] != '-' && last[-1] != '_')
		last--;
	if (last == name + len)
		return true;
	return prefix_of(safeguards, last, (size_t)(name + len - last));
}

/* A long option whose last part abbreviates `retention` (`--reten`), or
   that may abbreviate a name with such a part. */
static bool abbreviates_retention(const lk_program *p, const char *a)
{
	static const char *const r[] = {"retention", NULL};
	if (a[0] != '-' || a[1] != '-')
		return false;
	size_t len = strcspn(a, "=");
	const char *last = a + len;
	while (last > a + 2 && last[-1] != '-' && last[-1] != '_')
		last--;
	/* a name that ends in a separator (`--data-`) may abbreviate
	   `--data-retention` */
	if (last == a + len && len > 2)
		return true;
	if (prefix_of(r, last, (size_t)(a + len - last)))
		return true;
	/* set to a count or a duration (`--log=1000`, `--keep=7d`) on a
	   program that takes any prefix of a name (LK_ABBREVS): a shorter
	   spelling of `--log-=1000` (`--log`, `--lo`) is the same option or
	   an error (found by fuzz_bypass's abbreviate step) */
	const char *v =
	    p && (p->cls & LK_ABBREVS) && a[len] == '=' ? a + len + 1 : NULL;
	if (!v || *v < '0' || *v > '9')
		return false;
	while (*v >= '0' && *v <= '9')
		v++;
	while ((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z'))
		v++;
	return *v == '\0';
}

/* A count of zero: `0`, or an option's `=0`. */
static bool zero_count(const char *a)
{
	const char *eq = strrchr(a, '=');
	return strcmp(eq && a[0] == '-' ? eq + 1 : a, "0") == 0;
}

/* Destruction without a verb (see safeguard_off): the reason, or NULL. */
static const struct verb *verbless(const locus_shell_command *c,
                                   const lk_program *p, size_t first, bool read)
{
	bool scale = false, zero = false;
	size_t operands = 0;
	for (size_t i = first; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (drops_safeguard(a))
			return &off_reason;
		if (!read &&
		    (has_part(a, "retention") || abbreviates_retention(p, a)))
			return &retention_reason;
		if (a[0] != '-' && operands++ < SERVICE_OPERANDS &&
		    !names_a_thing(a) && has_part(a, "scale"))
			scale = true;
		if (zero_count(a))
			zero = true;
	}
	return scale && zero ? &zero_reason : NULL;
}

/* The call is a local form of p (see local_forms), or only asks for
   help, version or completion (`X --help`, `X help ...`, `X completion
   bash`, `X --version` alone). */

/* An option (name up to `=`) that says the call acts elsewhere than its
   words suggest (any part in elsewhere_parts), or one too long to read. */
static bool option_elsewhere(const char *a)
{
	size_t n = strcspn(a, "=");
	char name[64];
	if (!lu_copy_fits(name, sizeof name, a, n))
		return true;
	return any_part(elsewhere_parts, name);
}
static bool local_form(const locus_shell_command *c, const lk_program *p,
                       size_t first)
{
	size_t ops[4], nops = 0;
	for (size_t i = first; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strstr(a, "://"))
			return false;
		if (a[0] == '-') {
			if (option_elsewhere(a))
				return false;
			continue;
		}
		if (nops < 4)
			ops[nops++] = i;
	}
	for (size_t i = first; i < c->argc; i++)
		if (listed(help_words, c->argv[i], strlen(c->argv[i])) &&
		    !ll_harmless_spoiled(c, first, HELP))
			return true;
	if (nops && (!strcmp(c->argv[ops[0]], "help") ||
	             !strcmp(c->argv[ops[0]], "completion")))
		return true;
	for (size_t k = 0; k < NLOCAL; k++) {
		if (local_forms[k].prog[0] != p->name[0] ||
		    strcmp(local_forms[k].prog, p->name) != 0)
			continue;
		const char *w = local_forms[k].words;
		size_t j = 0;
		while (*w) {
			size_t n = strcspn(w, " ");
			if (w[0] == '-') {
				/* an option the form needs, anywhere */
				bool seen = false;
				for (size_t i = first; i < c->argc; i++)
					seen |= strlen(c->argv[i]) == n &&
					        !strncmp(c->argv[i], w, n);
				if (!seen)
					break;
			} else {
				const char *op =
				    j < nops ? c->argv[ops[j]] : "";
				if (strlen(op) != n || strncmp(op, w, n) != 0)
					break;
				j++;
			}
			w += n;
			w += *w == ' ';
		}
		/* every word matched the leading operands in order */
		if (!*w && j)
			return true;
	}
	return false;
}

/* The call is a read form (see the file's header). */
static bool read_form(const locus_shell_command *c, const lk_program *p,
                      size_t first)
{
	if (listed(secret_services, p->name, strlen(p->name)))
		return false;
	bool verb = false;
	size_t words = 0, after = 0;
	for (size_t i = first; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strstr(a, "http://") || strstr(a, "https://"))
			return false;
		if (listed(help_words, a, strlen(a)) &&
		    !ll_harmless_spoiled(c, first, HELP))
			verb = true;
		if (a[0] == '-') {
			/* an option's value is read as a chain word: it
			   only over-holds */
			if (option_elsewhere(a))
				return false;
			continue;
		}
		if (verb) {
			/* a read verb that is a noun of the service (`aws
			   logs put-retention-policy`): a compound operation
			   name after it may still act (a plain word there is
			   a resource: `get deploy`) */
			size_t n = strcspn(a, "-_:");
			if (++after <= READ_VERB_WORDS - 1 && a[n] &&
			    (listed(action_words, a, n) || verb_of(a, n)))
				return false;
			continue;
		}
		if (++words > READ_VERB_WORDS || any_part(secret_parts, a))
			return false;
		/* heroku-style topic:command: the command is the verb */
		const char *colon = strrchr(a, ':');
		const char *w = colon ? colon + 1 : a;
		if (listed(read_verbs, w, strcspn(w, "-_")))
			verb = true;
		else if (listed(action_words, a, strlen(a)))
			return false;
	}
	return verb;
}

/* The program has subcommands that reach the network (its row's
   net_subs). */
bool ll_network_subs_known(const char *prog)
{
	const lk_program *p = lk_program_find(prog);
	return p && p->net_subs;
}

void ll_judge_service(const locus_shell_command *c, const lk_program *prog,
                      ll_judgement *j)
{
	size_t first;
	const lk_program *p = service_program(c, prog, &first);
	lk_effect fx = lk_effect_of(p);
	/* a package or language version manager that the subcommand table
	   does not describe installs from its registry in any form but a
	   local one (poetry install, dnf install, pyenv install, nix run) */
	if (fx == LK_FX_PACKAGES && !(p->cls & LK_NETWORK) &&
	    !ll_network_subs_known(p->name) && !local_form(c, p, first)) {
		j->tags |= LOCUS_TAG_NETWORK;
		ll_judgement_reason(j, "a package or version manager reaches "
		                       "its registry");
		return;
	}
	if (fx != LK_FX_SERVICE && fx != LK_FX_SECRETS)
		return;
	bool read = fx == LK_FX_SERVICE && read_form(c, p, first);
	if (fx == LK_FX_SERVICE && !(p->cls & LK_NETWORK) &&
	    !local_form(c, p, first)) {
		j->tags |= LOCUS_TAG_NETWORK;
		ll_judgement_reason(j, "a service or cloud CLI reaches the "
		                       "network");
	}
	if (ll_harmless(c, first, DRY))
		return;
	const struct verb *hit = NULL;
	size_t operands = 0;
	bool unknown = false; /* a word known only at run time */
	for (size_t i = first; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (hit)
			continue;
		if (c->argv_flags &&
		    (c->argv_flags[i] & LOCUS_WORD_MAY_BE_OPTION)) {
			/* `rclone sync a b "$(echo --delete-after)"`: it
			   may be any verb or option (issue 26) */
			unknown = true;
			continue;
		}
		if (a[0] == '-' && a[1] == '-') {
			size_t n = strcspn(a + 2, "=");
			char name[64];
			if (n == 0 || n >= sizeof name)
				continue;
			memcpy(name, a + 2, n);
			name[n] = '\0';
			hit = word_verb(name, true);
			if (!hit)
				hit = verb_prefix(name);
		} else if (a[0] == '-' && a[1] && a[2] && a[1] != '-') {
			/* Go's flag package (nomad, consul, terraform,
			   vault...) spells long options with one dash:
			   `-purge`, `-recurse`, `-delete` */
			size_t n = strcspn(a + 1, "=");
			char name[64];
			if (n >= sizeof name)
				continue;
			memcpy(name, a + 1, n);
			name[n] = '\0';
			hit = word_verb(name, true);
		} else if (a[0] != '-' && operands < SERVICE_OPERANDS) {
			operands++;
			if (!names_a_thing(a))
				hit = word_verb(a, false);
			else if (c->argv_flags &&
			         (c->argv_flags[i] &
			          (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST)))
				unknown |= dynamic_verb(a);
		}
	}
	/* `help delete`: the first operand asks; `plan -destroy`, `preview
	   --delete`: a preview shows what would change */
	if (hit && first < c->argc &&
	    listed(preview_words, c->argv[first], strlen(c->argv[first])))
		return;
	if (!hit)
		hit = verbless(c, p, first, read);
	if (hit) {
		j->tags |= LOCUS_TAG_DESTRUCTIVE;
		ll_judgement_reason(j, hit->reason);
	} else if (unknown) {
		j->tags |= LOCUS_TAG_DESTRUCTIVE;
		ll_judgement_reason(j, "a service or cloud CLI verb or option "
		                       "may delete");
		ll_judgement_reason(j, LL_REASON_DYNAMIC);
	}
}

bool ll_service_tables_consistent(char *why, size_t cap)
{
	for (size_t i = 1; i < NVERBS; i++)
		if (strcmp(verbs[i - 1].verb, verbs[i].verb) >= 0) {
			snprintf(why, cap, "service verbs: %s before %s",
			         verbs[i - 1].verb, verbs[i].verb);
			return false;
		}
	for (size_t i = 0; i < NVERBS; i++)
		if (verb_of(verbs[i].verb, strlen(verbs[i].verb)) !=
		    &verbs[i]) {
			snprintf(why, cap, "service verbs: %s not found",
			         verbs[i].verb);
			return false;
		}
	return true;
}
