/*
 * parser/git.c - what git runs besides itself: aliases (`-c alias.x=!..`,
 * chained), executable config (`-c core.pager=..` and friends), and the
 * subcommands that take program-valued options.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "seethrough.h"
#include "../knowledge/git.h"

/* ---- git ------------------------------------------------------------- */

/* Config keys whose value git runs as a shell command ('*' is a
   subsection). */
/* clang-format off */
static const char *const git_exec_keys[] = {
	"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor",
	"core.askpass", "core.gitproxy", "sequence.editor", "diff.external",
	"diff.*.command", "diff.*.textconv", "merge.*.driver",
	"filter.*.clean", "filter.*.smudge", "filter.*.process",
	"credential.helper", "credential.*.helper", "gpg.program",
	"gpg.*.program", "pager.*", "interactive.difffilter",
	"mergetool.*.cmd", "difftool.*.cmd", "remote.*.uploadpack",
	"remote.*.receivepack", "uploadpack.packobjectshook",
	"sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd",
	"browser.*.cmd", "man.*.cmd", "core.hookspath",
	/* More program-valued keys */
	"core.alternaterefscommand", "gpg.*.defaultkeycommand",
	"submodule.*.update", "sendemail.smtpserver", "include.path",
	"includeif.*.path", "sendemail.*.smtpserver", NULL,
};
/* clang-format on */

/* key is "section[.sub].var" (n bytes); case-insensitive for section and
   variable as git compares them. */
static bool git_key_match(const char *pat, const char *key, size_t n)
{
	const char *pdot = strchr(pat, '.');
	const char *kdot = memchr(key, '.', n);
	if (!pdot || !kdot)
		return false;
	size_t ps = (size_t)(pdot - pat), ks = (size_t)(kdot - key);
	if (ps != ks || strncasecmp(pat, key, ps))
		return false;
	const char *klast = kdot;
	for (const char *p = kdot; p < key + n; p++)
		if (*p == '.')
			klast = p;
	const char *pvar = strrchr(pat, '.') + 1;
	bool psub = strchr(pdot + 1, '.') != NULL; /* "a.*.b" */
	bool ksub = klast != kdot;
	size_t kvl = (size_t)(key + n - (klast + 1));
	if (lu_streq(pdot + 1, "*")) /* "pager.*": any var, no subsection */
		return !ksub && kvl > 0;
	if (psub != ksub)
		return false;
	return strlen(pvar) == kvl && !strncasecmp(pvar, klast + 1, kvl);
}

static bool git_bool(const char *v)
{
	static const char *const b[] = {"",   "true", "false", "yes", "no",
	                                "on", "off",  "1",     "0",   NULL};
	for (const char *const *p = b; *p; p++)
		if (!strcasecmp(*p, v))
			return true;
	return false;
}

typedef struct git_alias {
	const char *name;
	size_t nlen;
	const char *value;
} git_alias;

/* One -c KEY=VALUE. */
static void git_config(lp_ctx *ctx, const lp_raw_command *raw, const lp_word *w,
                       const char *kv, size_t idx, git_alias *aliases,
                       size_t *naliases, size_t cap)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
	const char *value = eq ? eq + 1 : "";
	bool alias = klen > 6 && !strncasecmp(kv, "alias.", 6);
	bool exec = false;
	for (const char *const *k = git_exec_keys; *k && !exec; k++)
		exec = git_key_match(*k, kv, klen);
	if (!alias && !exec && w && wdyn(w) &&
	    (memchr(kv, '$', klen) || memchr(kv, '`', klen))) {
		lp_unparsed(ctx, "git -c sets a key only known at run time: %s",
		            kv);
		return;
	}
	if (!alias && !exec) {
		/* a closed list: a key not known to be inert may
		   name a program (trailer.*.cmd, man.*.path, an ext:: URL
		   in remote.*.url or url.*.insteadOf) */
		if (!lk_git_key_inert(kv, klen))
			lp_unparsed(ctx,
			            "git config key %.*s is not known to be "
			            "inert: it may name a program",
			            (int)klen, kv);
		return;
	}
	if (w && wdyn(w)) {
		lp_unparsed(ctx,
		            "git -c sets %.*s to a value only known at "
		            "run time",
		            (int)klen, kv);
		return;
	}
	if (alias) {
		if (naliases && *naliases < cap) {
			aliases[*naliases].name = kv + 6;
			aliases[*naliases].nlen = klen - 6;
			aliases[*naliases].value = value;
			(*naliases)++;
		}
		return;
	}
	if (git_bool(value) ||
	    (klen == 14 && !strncasecmp(kv, "core.hookspath", 14)))
		return; /* hooksPath names a directory: a known limit */
	if (!strncasecmp(kv, "credential.", 11)) {
		/* "!cmd" is shell, an absolute path runs as is, a bare name
		   is git credential-NAME */
		if (value[0] == '!')
			value++;
		else if (value[0] != '/')
			return;
	}
	if (!strncasecmp(kv, "submodule.", 10)) {
		/* update = !cmd runs cmd; checkout, rebase, merge, none */
		if (value[0] != '!')
			return;
		value++;
	}
	if (!strncasecmp(kv, "sendemail.", 10) && value[0] != '/')
		return; /* smtpServer is a host unless it is a program path */
	if (!strncasecmp(kv, "include", 7)) {
		lp_unparsed(ctx,
		            "git reads configuration from %s, which the "
		            "line does not show",
		            value);
		return;
	}
	lp_parse_text(ctx, value, LOCUS_ORIGIN_GIT_CONFIG, idx, raw->depth + 1);
}

/* git's split_cmdline: blanks separate, '' and "" quote, \ escapes. */
static size_t git_split(lp_ctx *ctx, const char *s, lp_word **out)
{
	size_t cap = strlen(s) / 2 + 2, n = 0;
	/* read up to n only */
	lp_word *v = lp_arena_alloc_raw(ctx->arena, cap * sizeof *v);
	if (!v)
		return 0;
	const char *p = s;
	while (*p) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		lp_buf b = {0};
		char q = 0;
		for (; *p && (q || !isspace((unsigned char)*p)); p++) {
			if (*p == '\\' && p[1] && q != '\'') {
				p++;
			} else if (!q && (*p == '"' || *p == '\'')) {
				q = *p;
				continue;
			} else if (q && *p == q) {
				q = 0;
				continue;
			}
			lp_buf_putc(ctx->arena, &b, *p);
		}
		if (n < cap) {
			v[n].value = lp_buf_cstr(ctx->arena, &b);
			v[n].text = v[n].value;
			v[n].flags = LOCUS_WORD_QUOTED;
			n++;
		}
	}
	*out = v;
	return n;
}

static const git_alias *git_find_alias(const git_alias *a, size_t n,
                                       const char *name)
{
	const git_alias *found = NULL;
	for (size_t i = 0; i < n; i++) /* the last -c wins */
		if (strlen(name) == a[i].nlen &&
		    !strncasecmp(name, a[i].name, a[i].nlen))
			found = &a[i];
	return found;
}

/* A command string git runs with a shell (rebase -x, filter-branch...). */
static void git_run(lp_ctx *ctx, const lp_raw_command *raw, const lp_word *w,
                    const char *value, const char *origin, size_t idx)
{
	if (wdyn(w)) {
		lp_unparsed(ctx,
		            "git runs a command only known at run time: %s",
		            w->text ? w->text : "");
		return;
	}
	lp_parse_text(ctx, value, origin, idx, raw->depth + 1);
}

/*
 * Subcommands with an option whose value is a shell command git runs:
 * the long option (`suffix`: any --NAME ending in it, as filter-branch's
 * --env-filter, --tree-filter...), and the short letter (0: none).
 */
static const struct git_cmd_option {
	const char *sub;
	const char *opt;
	bool suffix;
	char letter;
	/* clang-format off */
} git_cmd_options[] = {
	{"rebase", "--exec", false, 'x'},
    /* clang-format on */
    {"difftool", "--extcmd", false, 'x'},
    {"filter-branch", "-filter", true, 0},
};

static bool git_cmd_option_is(const struct git_cmd_option *o, const char *v,
                              size_t nl)
{
	size_t ol = strlen(o->opt);
	if (o->suffix)
		return nl > 2 + ol && !strncmp(v, "--", 2) &&
		       !strncmp(v + nl - ol, o->opt, ol);
	/* parse-options takes any unambiguous prefix (`rebase --ex=CMD`;
	   an ambiguous one fails), and a short letter anywhere in a cluster
	   of flags (`rebase -ix CMD`) */
	if (nl > 2 && nl <= ol && !strncmp(v, o->opt, nl))
		return true;
	return o->letter && v[0] == '-' && v[1] != '-' &&
	       memchr(v + 1, o->letter, nl > 1 ? nl - 1 : 0);
}

/* The value of each of o's options in w[i+1..n) is parsed as a script. */
static void git_cmd_option_run(lp_ctx *ctx, const lp_raw_command *raw,
                               const struct git_cmd_option *o, const lp_word *w,
                               size_t i, size_t n, size_t idx)
{
	for (size_t k = i + 1; k < n; k++) {
		const char *v = wval(&w[k]);
		if (lp_word_may_be_option(&w[k])) {
			/* `git rebase $X main` with X=--exec=CMD, and
			   `git rebase -i "$BASE"` (one word: --exec=CMD) */
			lp_unparsed(ctx,
			            "git %s may take an option only known at "
			            "run time, and its %s runs a command: %s",
			            o->sub, o->opt, w[k].text ? w[k].text : "");
			return;
		}
		if (!wdyn(&w[k]) && lu_streq(v, "--"))
			return; /* operands follow */
		const char *eq = strchr(v, '=');
		size_t nl = eq ? (size_t)(eq - v) : strlen(v);
		if (!git_cmd_option_is(o, v, nl) || wdyn(&w[k]))
			continue;
		if (eq)
			git_run(ctx, raw, &w[k], eq + 1, LOCUS_ORIGIN_SHELL_C,
			        idx);
		else if (v[1] != '-' && strchr(v + 1, o->letter)[1])
			git_run(ctx, raw, &w[k], strchr(v + 1, o->letter) + 1,
			        LOCUS_ORIGIN_SHELL_C, idx);
		else if (k + 1 < n) {
			k++;
			git_run(ctx, raw, &w[k], wval(&w[k]),
			        LOCUS_ORIGIN_SHELL_C, idx);
		}
	}
}

static const char *word_value(const void *words, size_t i)
{
	return wval(&((const lp_word *)words)[i]);
}

/* Subcommands that take a shell command: their value is parsed. */
static void git_subcommand(lp_ctx *ctx, const lp_raw_command *raw,
                           const lp_word *w, size_t i, size_t n, size_t idx)
{
	const char *sub = wval(&w[i]);
	for (size_t r = 0; r < sizeof git_cmd_options / sizeof *git_cmd_options;
	     r++)
		if (lu_streq(sub, git_cmd_options[r].sub)) {
			git_cmd_option_run(ctx, raw, &git_cmd_options[r], w, i,
			                   n, idx);
			return;
		}
	const lk_git_runner *run = lk_git_runner_find(sub);
	if (run) {
		/* git submodule foreach CMD, git bisect run CMD ARGS */
		size_t k = i + 1;
		while (k < n && wval(&w[k])[0] == '-')
			k++;
		if (k >= n || strcmp(wval(&w[k]), run->verb))
			return;
		k++;
		while (k < n && run->verb_opts && wval(&w[k])[0] == '-')
			k++;
		if (k < n)
			lp_parse_text(
			    ctx, lp_join_words(ctx, w, k, n, run->argv),
			    LOCUS_ORIGIN_SHELL_C, idx, raw->depth + 1);
		return;
	}
	if (lu_streq(sub, "config")) {
		/* git config [opts] [set] KEY VALUE: the value runs later on */
		size_t ops[2];
		size_t nops =
		    lk_git_config_operands(word_value, w, i + 1, n, ops, 2);
		if (nops < 2 || wdyn(&w[ops[0]]))
			return;
		const char *key = wval(&w[ops[0]]);
		const lp_word *vw = &w[ops[1]];
		size_t kl = strlen(key);
		if (kl > 6 && !strncasecmp(key, "alias.", 6)) {
			if (!wdyn(vw) && wval(vw)[0] == '!')
				git_run(ctx, raw, vw, wval(vw) + 1,
				        LOCUS_ORIGIN_GIT_ALIAS, idx);
			else if (wdyn(vw))
				git_run(ctx, raw, vw, "",
				        LOCUS_ORIGIN_GIT_ALIAS, idx);
			return;
		}
		char *kv =
		    lp_arena_printf(ctx->arena, "%s=%s", key,
		                    wdyn(vw) && vw->text ? vw->text : wval(vw));
		if (kv)
			git_config(ctx, raw, vw, kv, idx, NULL, NULL, 0);
	}
}

#define GIT_MAX_ALIASES 64
#define GIT_ALIAS_CHAIN 16

/* git's global options before the subcommand (-c sets config and
   aliases): the subcommand's index (n when there is none), or n + 1 when
   git only prints or the line is unparsed. */
static size_t git_global_options(lp_ctx *ctx, const lp_raw_command *raw,
                                 size_t pos, size_t idx, git_alias *aliases,
                                 size_t *naliases)
{
	/* clang-format off */
	static const char *const val_opts[] = {
		"-C", "--git-dir", "--work-tree", "--namespace",
		"--super-prefix", "--attr-source", "--list-cmds", NULL,
	};
	/* clang-format on */
	/* clang-format off */
	static const char *const flag_opts[] = {
		"-p", "--paginate", "-P", "--no-pager", "--bare",
		"--no-replace-objects", "--literal-pathspecs",
		"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
		"--no-optional-locks", "--no-lazy-fetch", "--no-advice", NULL,
	};
	/* clang-format on */
	/* clang-format off */
	static const char *const query_opts[] = {
		"--version", "-v", "--help", "-h", "--exec-path", "--html-path",
		"--man-path", "--info-path", NULL,
	};
	/* clang-format on */
	const lp_word *w = raw->words;
	size_t n = raw->nwords, i = pos + 1;
	for (; i < n; i++) {
		const char *v = wval(&w[i]);
		if (wdyn(&w[i]))
			break;
		if (v[0] != '-')
			break;
		if (lu_streq(v, "-c")) {
			if (i + 1 < n) {
				i++;
				const char *kv = wdyn(&w[i]) && w[i].text
				                     ? w[i].text
				                     : wval(&w[i]);
				git_config(ctx, raw, &w[i], kv, idx, aliases,
				           naliases, GIT_MAX_ALIASES);
			}
			continue;
		}
		if (!strncmp(v, "--config-env", 12)) {
			const char *kv = v[12] == '=' ? v + 13
			                 : i + 1 < n  ? wval(&w[++i])
			                              : "";
			size_t kl = strcspn(kv, "=");
			/* the value is an environment variable's: only a key
			   known to be inert is safe */
			bool risky = !lk_git_key_inert(kv, kl);
			if (risky)
				lp_unparsed(ctx,
				            "git --config-env sets %.*s from "
				            "the environment",
				            (int)kl, kv);
			continue;
		}
		if (lp_in_list(val_opts, v)) {
			i++;
			continue;
		}
		if (lp_in_list(flag_opts, v) || !strncmp(v, "--exec-path=", 12))
			continue;
		bool attached = false;
		for (const char *const *o = val_opts; *o && !attached; o++) {
			size_t ol = strlen(*o);
			attached = (*o)[1] == '-' && !strncmp(v, *o, ol) &&
			           v[ol] == '=';
		}
		if (attached || (v[1] == 'C' && v[2]))
			continue;
		if (lp_in_list(query_opts, v))
			return n + 1; /* only prints */
		lp_unparsed(ctx, "unknown git option %s", v);
		return n + 1;
	}
	return i;
}

/* Resolve the aliases given with -c (chained ones included) for the
   subcommand at words[i], and emit or parse what they run. */
static void git_expand_aliases(lp_ctx *ctx, const lp_raw_command *raw,
                               size_t pos, size_t i, size_t idx,
                               const git_alias *aliases, size_t naliases)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	lp_word *cur = (lp_word *)(uintptr_t)(w + i);
	size_t ncur = n - i;
	bool expanded = false;
	for (unsigned k = 0;; k++) {
		if (k == GIT_ALIAS_CHAIN) {
			lp_unparsed(ctx, "git alias chain longer than %u",
			            GIT_ALIAS_CHAIN);
			return;
		}
		const git_alias *a =
		    git_find_alias(aliases, naliases, wval(&cur[0]));
		if (!a)
			break;
		if (a->value[0] == '!') {
			/* git runs `sh -c 'VALUE "$@"' VALUE ARGS...` */
			lp_buf b = {0};
			const char *args =
			    lp_join_words(ctx, cur, 1, ncur, true);
			if (!args)
				return;
			lp_buf_append(ctx->arena, &b, a->value + 1,
			              strlen(a->value + 1));
			if (*args) {
				lp_buf_putc(ctx->arena, &b, ' ');
				lp_buf_append(ctx->arena, &b, args,
				              strlen(args));
			}
			lp_parse_text(ctx, lp_buf_cstr(ctx->arena, &b),
			              LOCUS_ORIGIN_GIT_ALIAS, idx,
			              raw->depth + 1);
			return;
		}
		lp_word *split;
		size_t ns = git_split(ctx, a->value, &split);
		if (!ns)
			break;
		if (wval(&split[0])[0] == '-') {
			lp_unparsed(ctx, "git alias %.*s starts with an option",
			            (int)a->nlen, a->name);
			return;
		}
		lp_word *next =
		    lp_arena_alloc_raw(ctx->arena, (ns + ncur) * sizeof *next);
		if (!next)
			return;
		memcpy(next, split, ns * sizeof *next);
		memcpy(next + ns, cur + 1, (ncur - 1) * sizeof *next);
		cur = next;
		ncur = ns + ncur - 1;
		expanded = true;
	}
	if (!expanded) {
		git_subcommand(ctx, raw, w, i, n, idx);
		return;
	}
	lp_word *argv =
	    lp_arena_alloc_raw(ctx->arena, (ncur + 1) * sizeof *argv);
	if (!argv)
		return;
	argv[0] = w[pos];
	memcpy(argv + 1, cur, ncur * sizeof *argv);
	lp_emit_nested(ctx, raw, argv, ncur + 1, LOCUS_ORIGIN_GIT_ALIAS, idx,
	               0);
}

void lp_see_git(lp_ctx *ctx, const lp_raw_command *raw, size_t pos, size_t idx)
{
	const lp_word *w = raw->words;
	size_t n = raw->nwords;
	git_alias aliases[GIT_MAX_ALIASES];
	size_t naliases = 0;
	size_t i = git_global_options(ctx, raw, pos, idx, aliases, &naliases);
	if (i > n)
		return;
	for (size_t k = pos + 1; k < n; k++)
		if (!wdyn(&w[k]) && !strncasecmp(wval(&w[k]), "ext::", 5)) {
			/* git runs the rest of an ext:: URL as a command */
			lp_unparsed(ctx, "git ext:: URL runs a command: %s",
			            wval(&w[k]));
			return;
		}
	if (i < n && wdyn(&w[i])) {
		lp_unparsed(ctx, "subcommand of git is dynamic: %s",
		            w[i].text ? w[i].text : "");
		return;
	}
	if (i >= n)
		return;
	lp_see_optvals(ctx, raw, pos, i, idx);
	if (!naliases) {
		git_subcommand(ctx, raw, w, i, n, idx);
		return;
	}

	git_expand_aliases(ctx, raw, pos, i, idx, aliases, naliases);
}
