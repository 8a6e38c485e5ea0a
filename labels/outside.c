/*
 * labels/outside.c - the outside-workspace label: a tool call that reads,
 * writes, deletes, moves or changes modes of a path outside the workspace
 * root (docs/tags.md says which words count as paths).
 *
 * Paths are judged lexically: `.` and `..` segments and repeated slashes
 * are folded; then, with the same walk, through the workspace's symlinks
 * (labels/paths.c's resolver: links_command, docs/tags.md "Symlinks of
 * the workspace"): a link out of the root is outside too.  `~` and
 * `$HOME` are outside; so is a `..` that climbs above the root, a relative
 * path after a `cd` that left the root, and a target whose value is only
 * known at run time (a dynamic word given to a program that writes).
 */
#include <stdio.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "../knowledge/git.h"
#include "../knowledge/programs.h"
#include "../parser/internal.h"
#include "../parser/linefacts.h"
#include "pack.h"
#include "../util/str.h"

/* Devices and descriptors that are not files of anyone's. */
static const char *const harmless[] = {
    "/dev/null",   "/dev/zero",   "/dev/random", "/dev/urandom", "/dev/stdin",
    "/dev/stdout", "/dev/stderr", "/dev/tty",    "/dev/full",    NULL,
};
/* /dev/tcp and /dev/udp are sockets (exec:network says so), not files. */
static const char *const harmless_prefixes[] = {
    "/dev/fd/", "/proc/self/fd/", "/dev/tcp/", "/dev/udp/", NULL,
};

/* Where programs live: running one is not touching a path. */
static const char *const program_dirs[] = {
    "/usr/",       "/bin/",
    "/sbin/",      "/opt/homebrew/",
    "/nix/store/", "/run/current-system/",
    NULL,
};

/* Cloud and platform CLIs name remote things with leading slashes (log
   groups, parameters, API endpoints): their operands are not local paths,
   except `file://PATH` parameters and the storage subcommands that copy
   local files (aws s3, gcloud storage, gsutil). */
static const char *const remote_name_programs =
    "aws awslocal gcloud az gh glab";
static const char *const local_copy_subcommands = "s3 storage";

/* Programs that write, delete, move or change the modes of their
   operands: a dynamic operand may be anywhere. */
static const char *const writers =
    "rm rmdir unlink mv cp ln chmod chown chgrp touch mkdir tee truncate "
    "install dd rsync scp shred tar unzip cpio patch sed";

/* Archive extractors whose row says how member names may leave the
   directory (knowledge/programs.c, lk_extract). */
static const char *const extractors = "tar gtar bsdtar busybox-tar cpio unzip";

/* ---- lexical paths ------------------------------------------------------ */

/* Fold `base/rel` (base absolute, may be NULL when rel is absolute) into a
   normalised absolute path in a malloc'd buffer: no `.`, `..` or empty
   segments; `..` at the top stays at `/`.  NULL on OOM. */
static char *fold(const char *base, const char *rel)
{
	size_t bl = base ? strlen(base) : 0, rl = strlen(rel);
	char *out = malloc(bl + rl + 3);
	if (!out)
		return NULL;
	size_t n = 0;
	out[n++] = '/';
	const char *parts[2] = {rel[0] == '/' ? NULL : base, rel};
	for (int k = 0; k < 2; k++) {
		const char *p = parts[k];
		while (p && *p) {
			while (*p == '/')
				p++;
			const char *e = p;
			while (*e && *e != '/')
				e++;
			size_t m = (size_t)(e - p);
			if (m == 0 || (m == 1 && p[0] == '.')) {
				/* nothing */
			} else if (m == 2 && p[0] == '.' && p[1] == '.') {
				while (n > 1 && out[n - 1] != '/')
					n--;
				if (n > 1)
					n--; /* the slash before the segment */
			} else {
				if (out[n - 1] != '/')
					out[n++] = '/';
				memcpy(out + n, p, m);
				n += m;
			}
			p = e;
		}
	}
	if (n > 1 && out[n - 1] == '/')
		n--;
	out[n] = '\0';
	return out;
}

/* `abs` (folded) is the root or below it. */
static bool under(const char *abs, const char *root)
{
	if (!root)
		return false;
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return true;
	return strncmp(abs, root, n) == 0 && (abs[n] == '\0' || abs[n] == '/');
}

static bool harmless_path(const char *p)
{
	for (const char *const *h = harmless; *h; h++)
		if (strcmp(p, *h) == 0)
			return true;
	for (const char *const *h = harmless_prefixes; *h; h++)
		if (lu_starts_with(p, *h))
			return true;
	return false;
}

/* The cwd candidates of a line: every directory the line may be in when a
   command runs (cd in a subshell or after a failing && does not persist,
   so candidates are only ever added).  `lost` means a cd went somewhere we
   cannot know or outside the root. */
enum { MAX_CWD = 8 };

typedef struct cwds {
	char *dir[MAX_CWD];
	bool active[MAX_CWD]; /* where the next command may run: after
	                         `cd X &&` only X's results, else all */
	size_t n;
	bool lost;
	bool oom;
	bool
	    scratch_ok; /* /tmp and /var/tmp count as inside (ll_outside_scratch) */
	bool moved;     /* a cd or pushd DIR ran earlier on the line */
	int may_link; /* some command of the line may make a symlink: 1, 0,
	                 -1 not looked at yet (line_links) */
	const locus_shell_result *r; /* the line, for line_links */
	const char *root;            /* folded */
} cwds;

/* The scratch folders a jail makes private and empty for each call
   (docs/jail.md): a path there reaches nothing of the host's. */
static const char *const scratch_dirs[] = {"/tmp", "/var/tmp", NULL};

/* `abs` (folded) is inside: under the root, or in scratch mode under a
   scratch folder. */
static bool inside(const cwds *w, const char *abs)
{
	if (under(abs, w->root))
		return true;
	if (!w->scratch_ok)
		return false;
	for (const char *const *d = scratch_dirs; *d; d++)
		if (under(abs, *d))
			return true;
	return false;
}

/* Path `p` (a static word value) as seen from every candidate: outside? */
/* Programs that write files and never make a symlink (the line's
   other writers, and any program locus does not know, may). */
/* clang-format off */
static const char *const no_link_writers[] = {
	"echo", "printf", "cat", "tee", "touch", "mkdir", "rm", "rmdir",
	"chmod", "chown", "chgrp", "truncate", "sort", "uniq", "sed", "cut",
	"tr", "head", "tail", "true", "false", ":", "cd", "pushd", "popd",
	"export", "set", "unset", "test", "[", "[[", "sleep", "wc", "grep",
	"diff", "read", NULL,
};
/* clang-format on */

/* Some command of r may make a symlink (ln, cp -s or -a, mv, an
   extraction, git, an interpreter, a program locus does not know...):
   then a `..` after a name is not folded as text (climbs_after_name). */
static bool line_may_link(const locus_shell_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		bool plain = false;
		for (const char *const *l = no_link_writers; *l; l++)
			plain |= lu_streq(c->name, *l);
		if (!c->argc || !c->name[0] || plain)
			continue;
		if (!ll_command_read_only(c, lp_command_program(r, i)))
			return true;
	}
	return false;
}

/* line_may_link of w's line, looked at on first need (a path with a `..`
   after a name is rare) */
static bool line_links(cwds *w)
{
	if (w->may_link < 0)
		w->may_link =
		    w->r && line_may_link(w->r, locus_shell_result_count(w->r));
	return w->may_link > 0;
}

/* A `..` after a named component (`x/..`, `/ws/a/../f`): the kernel
   takes it from where the name really is, which a symlink the line makes
   (`ln -s . x; echo > x/../f` writes the root's parent) moves; folding it
   away as text is only right for a real directory. */
static bool climbs_after_name(const char *p)
{
	if (!strstr(p, "/.."))
		return false; /* a name, then `/..` */
	bool named = false;
	for (const char *c = p; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (named)
				return true;
		} else if (n && !(n == 1 && c[0] == '.')) {
			named = true;
		}
		c += n;
		while (*c == '/')
			c++;
	}
	return false;
}

/* p with every component that is a glob that may match `..` written as
   `..` (dash, bash before 5.2 or without globskipdots: `.?` and `.*`
   match `..`; checked by a red team: `sh -c "cp dc .?/victim"` wrote the
   workspace's parent); false when there is none or it does not fit. */
static bool dotdot_globs(const char *p, char *buf, size_t cap)
{
	size_t o = 0;
	bool any = false;
	for (const char *c = p;;) {
		size_t n = strcspn(c, "/");
		char comp[256];
		bool dd = false;
		if (n && n < sizeof comp && c[0] == '.' && strpbrk(c, "*?[") &&
		    strpbrk(c, "*?[") < c + n) {
			memcpy(comp, c, n);
			comp[n] = '\0';
			dd = fnmatch(comp, "..", FNM_PERIOD) == 0;
		}
		const char *part = dd ? ".." : c;
		size_t pn = dd ? 2 : n;
		any |= dd;
		if (o + pn + 2 > cap)
			return false;
		memcpy(buf + o, part, pn);
		o += pn;
		c += n;
		if (!*c)
			break;
		buf[o++] = *c++; /* the slash */
	}
	buf[o] = '\0';
	return any;
}

static bool path_outside(cwds *w, const char *p)
{
	if (!p || !*p)
		return false;
	if (p[0] == '~')
		return true;
	if (lu_starts_with(p, "$HOME") || lu_starts_with(p, "${HOME"))
		return true;
	if (p[0] == '/') {
		if (harmless_path(p))
			return false;
		char *f = fold(NULL, p);
		if (!f) {
			w->oom = true;
			return true;
		}
		bool out = !inside(w, f);
		free(f);
		return out || (climbs_after_name(p) && line_links(w));
	}
	if (w->lost)
		return true;
	/* relative: only `..` can climb out */
	if (!strstr(p, ".."))
		return false;
	if (climbs_after_name(p) && line_links(w))
		return true;
	for (size_t i = 0; i < w->n; i++) {
		if (!w->active[i])
			continue;
		char *f = fold(w->dir[i], p);
		if (!f) {
			w->oom = true;
			return true;
		}
		bool out = !inside(w, f);
		free(f);
		if (out)
			return true;
	}
	return false;
}

static void cwds_free(cwds *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->dir[i]);
	w->n = 0;
}

static void activate_all(cwds *w)
{
	for (size_t i = 0; i < w->n; i++)
		w->active[i] = true;
}

/* cd/pushd TARGET from every active candidate.  `chain`: the next command
   runs only if the cd succeeded (`cd X && ...`), so it runs in X. */
static void change_dir(cwds *w, const char *target, bool dynamic, bool chain,
                       bool physical)
{
	if (!target || dynamic || target[0] == '~' ||
	    lu_starts_with(target, "$") ||
	    (physical && climbs_after_name(target) && line_links(w))) {
		w->lost = true;
		return;
	}
	if (strcmp(target, "-") == 0) {
		activate_all(w); /* back to one of the candidates */
		return;
	}
	bool result[MAX_CWD] = {false};
	size_t n = w->n;
	for (size_t i = 0; i < n && !w->lost; i++) {
		if (!w->active[i])
			continue;
		char *f = fold(w->dir[i], target);
		if (!f) {
			w->oom = w->lost = true;
			return;
		}
		if (!inside(w, f)) {
			free(f);
			w->lost = true;
			return;
		}
		size_t at = w->n;
		for (size_t k = 0; k < w->n; k++)
			if (strcmp(w->dir[k], f) == 0)
				at = k;
		if (at == w->n) {
			if (w->n == MAX_CWD) {
				/* past the cap the candidates are unknown */
				free(f);
				w->lost = true;
				return;
			}
			w->dir[w->n++] = f;
		} else {
			free(f);
		}
		result[at] = true;
	}
	for (size_t i = 0; i < w->n; i++)
		w->active[i] = chain ? result[i] : true;
}

/* ---- bash lines --------------------------------------------------------- */

static bool ancestor_remote(const locus_shell_result *r,
                            const locus_shell_command *c)
{
	static const char *const remote_wrappers =
	    "docker podman nerdctl kubectl oc";
	for (unsigned hops = 0; c && hops < 64; hops++) {
		if (c->origin && strcmp(c->origin, LOCUS_ORIGIN_SSH) == 0)
			return true;
		for (size_t i = 0; i < c->nwrappers; i++)
			if (pk_word_in(remote_wrappers, c->wrappers[i]))
				return true;
		if ((c->flags & LOCUS_CMD_WRAPPER) &&
		    pk_word_in(remote_wrappers, c->name))
			return true;
		if (c->parent == LOCUS_SHELL_NO_PARENT)
			return false;
		c = locus_shell_result_command(r, c->parent);
	}
	return false;
}

/* The part of a word that names a path: `--opt=PATH`, `-IPATH`,
   `-xyIPATH`, `@PATH` (curl -d @file), `NAME=PATH`; else the word.  NULL when the word holds
   no path position. */
/* strstr(a, "://"), by its colons (most words have none: one strchr) */
static const char *scheme_sep(const char *a)
{
	for (const char *p = strchr(a, ':'); p; p = strchr(p + 1, ':'))
		if (p[1] == '/' && p[2] == '/')
			return p;
	return NULL;
}

/* p has a `..` component (`..`, `../x`, `a/../..`). */
static bool has_dotdot(const char *p)
{
	for (const char *d = strstr(p, ".."); d; d = strstr(d + 1, ".."))
		if ((d == p || d[-1] == '/') && (d[2] == '/' || !d[2]))
			return true;
	return false;
}

/* The value of a KEY=VALUE value (`--emit=link=../x`,
   `--emit=link,obj=/x`, `--print sysroot=/x`: rustc writes VALUE), or
   NULL: KEY is letters, digits, `-`, `_`, `.` or `,`. */
static const char *inner_value(const char *p)
{
	size_t k =
	    strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	              "0123456789-_.,");
	return k && p[k] == '=' ? p + k + 1 : NULL;
}

static const char *path_part(const char *a)
{
	const char *sep = scheme_sep(a);
	if (lu_starts_with(a, "file://") || lu_starts_with(a, "fileb://"))
		return sep + 3;
	if (sep)
		return NULL;
	if (a[0] == '@')
		return a + 1;
	if (a[0] == '-') {
		const char *eq = strchr(a, '=');
		if (eq)
			return eq + 1;
		/* -IPATH, and a cluster's last letter's value: `sort
		   -uo/tmp/x`, `cp -rfvat/tmp`; after two letters or more
		   a lone `/` is a separator (`sort -nt/`, `awk -Fbooks/`),
		   after one it stays the root (`tar -C/`) */
		if (!a[1] || a[1] == '-')
			return NULL;
		const char *q = a + 1;
		while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))
			q++;
		if (q > a + 2 && q[0] == '/' && !q[1])
			return NULL;
		/* a relative value led by `./` or holding a `..`
		   component: `sort -o../x`, `tar -C..`, `gcc -o./../x`,
		   `sort -o.git/../../x` (`cut -d.`, `awk -F.` are not) */
		bool rel = (q[0] == '.' && q[1] == '/') || has_dotdot(q);
		return q > a + 1 && (*q == '/' || *q == '~' || rel) ? q : NULL;
	}
	const char *eq = strchr(a, '=');
	if (eq && eq > a) {
		bool ident = true;
		for (const char *p = a; p < eq; p++)
			ident &= (*p >= 'A' && *p <= 'Z') ||
			         (*p >= 'a' && *p <= 'z') ||
			         (*p >= '0' && *p <= '9') || *p == '_' ||
			         *p == '-' || *p == '.' || *p == ',';
		if (ident)
			return eq + 1;
	}
	return a;
}

/* The elements after the first of an option's comma list, the ones
   another tool reads as its own words (`-Wl,-Map,/x`, `-Wa,--MD,/x`,
   `-Wl,@/x`: gcc passes each to the linker or assembler): each in turn
   in buf (NUL-ended), *at the cursor; false when none is left.  An
   element that does not fit in buf is cut there: its start, which is
   what path_part reads, is kept. */
static bool next_comma_element(const char **at, char *buf, size_t cap)
{
	const char *c = strchr(*at, ',');
	if (!c)
		return false;
	size_t n = strcspn(c + 1, ",");
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, c + 1, n);
	buf[n] = '\0';
	*at = c + 1;
	return true;
}

/* An option word (not a URL, no `=` before its list) whose comma list
   names an outside path as one of its elements. */
static bool comma_outside(cwds *w, const char *a)
{
	if (a[0] != '-' || !strchr(a, ',') || scheme_sep(a))
		return false;
	char buf[LL_LINK_PATH];
	for (const char *at = a; next_comma_element(&at, buf, sizeof buf);) {
		const char *p = path_part(buf);
		if (p &&
		    (path_outside(w, p) || (buf[0] == '-' && inner_value(p) &&
		                            path_outside(w, inner_value(p)))))
			return true;
	}
	return false;
}

/* A glob word (the shell expands it: not a quoted regex) whose `..`
   reading (dotdot_globs) is outside. */
static bool glob_climbs_out(cwds *w, const char *p, uint32_t flags)
{
	char dd[1024];
	return (flags & LOCUS_WORD_GLOB) && dotdot_globs(p, dd, sizeof dd) &&
	       path_outside(w, dd);
}

static bool redirect_outside(cwds *w, const locus_shell_redirect *rd)
{
	const char *op = rd->op ? rd->op : "";
	while (*op >= '0' && *op <= '9')
		op++;
	if (lu_starts_with(op, "<<"))
		return false; /* heredoc or herestring: text, not a file */
	const char *t = rd->target ? rd->target : "";
	bool dup = strchr(op, '&') && op[0] != '&';
	if (dup &&
	    (strcmp(t, "-") == 0 || strspn(t, "0123456789") == strlen(t)))
		return false; /* 2>&1, >&- */
	if (rd->target_flags & LOCUS_WORD_DYNAMIC)
		return true;
	return path_outside(w, t) || glob_climbs_out(w, t, rd->target_flags);
}

/* c's operands name remote things (a cloud CLI, not its storage
   subcommands). */
static bool remote_names(const locus_shell_command *c)
{
	return pk_word_in(remote_name_programs, c->name) &&
	       !(c->argc > 1 && pk_word_in(local_copy_subcommands, c->argv[1]));
}

/* dir/t, relative, with `.` and a `..` after a name folded away as text
   (leading `..` kept), into buf; NULL when it does not fit. */
static const char *join_lexical(const char *dir, const char *t, char *buf,
                                size_t cap)
{
	size_t k = 0, keep = 0; /* keep: bytes of leading `../` */
	const char *parts[2] = {dir, t};
	for (int j = 0; j < 2; j++)
		for (const char *p = parts[j]; *p;) {
			size_t n = strcspn(p, "/");
			if (n == 2 && p[0] == '.' && p[1] == '.' && k > keep) {
				while (k > keep && buf[k - 1] != '/')
					k--;
				k -= k > keep; /* the slash before it */
			} else if (n && !(n == 1 && p[0] == '.')) {
				if (k + n + 2 >= cap)
					return NULL;
				if (k)
					buf[k++] = '/';
				memcpy(buf + k, p, n);
				k += n;
				if (n == 2 && p[0] == '.' && p[1] == '.')
					keep = k;
			}
			p += n + (p[n] == '/');
		}
	buf[k] = '\0';
	return buf;
}

/* Target t of an `ln -s` whose link lands in folder `dir` (relative to
   the current directory, or absolute) is outside: t as the kernel
   resolves it, dir/t.  `lexical`: dir/.. is dir's parent as text (dir is
   the link name, a folder only when it exists); else a `..` after a name
   of dir counts as a link the line may make (path_outside). */
static bool ln_target_outside(cwds *w, const char *dir, const char *t,
                              bool lexical)
{
	if (t[0] == '/' || t[0] == '~' || t[0] == '$')
		return path_outside(w, t);
	char buf[4096];
	if (lexical && dir[0] != '/') {
		const char *j = join_lexical(dir, t, buf, sizeof buf);
		return !j || path_outside(w, j);
	}
	int n = snprintf(buf, sizeof buf, "%s/%s", dir, t);
	if (n < 0 || (size_t)n >= sizeof buf)
		return true; /* too long to tell */
	return path_outside(w, buf);
}

/* The folder of link name `link` (dirname) into buf. */
static const char *link_folder(const char *link, char *buf, size_t cap)
{
	const char *slash = strrchr(link, '/');
	if (!slash)
		return ".";
	size_t n = (size_t)(slash - link);
	if (n == 0)
		return "/";
	if (n >= cap)
		return NULL;
	memcpy(buf, link, n);
	buf[n] = '\0';
	return buf;
}

/* The first target of `ln -s` (ll_ln_targets) that climbs out of the
   root from the folder its link lands in, or NULL. */
static const char *ln_outside(cwds *w, const locus_shell_command *c,
                              const ll_ln *f)
{
	char buf[4096];
	const char *ld = f->link ? link_folder(f->link, buf, sizeof buf) : NULL;
	for (size_t k = 0; k < f->ntargets; k++) {
		const char *t = c->argv[f->ops[k]];
		if ((f->link && (!ld || ln_target_outside(w, ld, t, false))) ||
		    (f->dir &&
		     ln_target_outside(w, f->dir, t, f->dir == f->link)))
			return t;
	}
	return NULL;
}

static bool ln_target(const ll_ln *f, size_t i)
{
	for (size_t k = 0; k < f->ntargets; k++)
		if (f->ops[k] == i)
			return true;
	return false;
}

/* Argument i of c (an option when opt) names a path outside the
   workspace; *remote and *writer memoise what the program is (-1: not
   read yet). */
static bool arg_outside(cwds *w, const locus_shell_command *c, size_t i,
                        bool opt, int *remote, int *writer)
{
	const char *a = c->argv[i];
	uint32_t f = c->argv_flags ? c->argv_flags[i] : 0;
	if ((f & LOCUS_WORD_DYNAMIC) && !opt) {
		if (*writer < 0)
			*writer = pk_word_in(writers, c->name);
		if (*writer)
			return true;
	}
	const char *p = path_part(a);
	if (p && p[0] == '/' && !lu_starts_with(a, "file")) {
		if (*remote < 0)
			*remote = remote_names(c);
		if (*remote)
			return false; /* a remote name */
	}
	if (p && !(f & LOCUS_WORD_DYNAMIC) &&
	    (path_outside(w, p) || (a[0] == '-' && inner_value(p) &&
	                            path_outside(w, inner_value(p)))))
		return true;
	if (!opt && !(f & LOCUS_WORD_DYNAMIC) && glob_climbs_out(w, a, f))
		return true;
	if (opt && !(f & LOCUS_WORD_DYNAMIC) && comma_outside(w, a))
		return true;
	return p && (f & LOCUS_WORD_DYNAMIC) &&
	       (p[0] == '~' || lu_starts_with(p, "$HOME") ||
	        lu_starts_with(p, "${HOME"));
}

/* The first outside path of command c, or NULL; data: c has an
   argument and its operands are data (pk_data_program). */
static const char *command_outside(cwds *w, const locus_shell_command *c,
                                   bool data)
{
	for (size_t i = 0; i < c->nredirects; i++)
		if (redirect_outside(w, &c->redirects[i]))
			return c->redirects[i].target ? c->redirects[i].target
			                              : "?";
	if (c->argc == 0)
		return NULL;
	const char *a0 = c->argv[0];
	if (strchr(a0, '/') || a0[0] == '~') {
		bool sys = false;
		for (const char *const *d = program_dirs; *d; d++)
			sys |= lu_starts_with(a0, *d);
		if (!sys && path_outside(w, a0))
			return a0;
	}
	if (c->argc < 2 || data)
		return NULL;
	/* tar -xPf, cpio -i, unzip -: keep the archive's absolute names */
	if (pk_word_in(extractors, c->name)) {
		const lk_program *x = lk_program_find(c->name);
		if (lk_extracts_anywhere(x, c->argv, c->argc))
			return "an absolute member name of the archive";
		if (lk_names_from_list(x, c->argv, c->argc))
			return "a `-C DIR` line of the archive's file list "
			       "(-T)";
	}
	if (ll_git_opt_effects(c) & LK_GIT_ANYWHERE)
		return "a path of the patch (git apply --unsafe-paths)";
	/* ln -s: its relative targets from the folder the link lands in */
	ll_ln ln;
	bool lns = ll_ln_targets(c, &ln);
	const char *lh = lns ? ln_outside(w, c, &ln) : NULL;
	if (lh)
		return lh;
	/* grep's pattern, sed's script are data: which operand that is
	   is read at the first word that would count (few do) */
	size_t pattern = SIZE_MAX;
	/* what the program is, read on first need: most words are neither
	   dynamic nor absolute paths (-1: not looked up yet) */
	int remote = -1, writer = -1;
	bool after_dd = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0) {
			after_dd = true;
			continue;
		}
		if (lns && ln_target(&ln, i))
			continue; /* an ln -s target: judged above */
		if (!arg_outside(w, c, i, !after_dd && pk_is_option(a), &remote,
		                 &writer))
			continue;
		if (pattern == SIZE_MAX)
			pattern = pk_pattern_operand(c);
		if (i != pattern)
			return a;
	}
	return NULL;
}

/* The n bytes at p hold a `..` component. */
static bool climbs(const char *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (p[i] == '.' && p[i + 1] == '.' &&
		    (i == 0 || p[i - 1] == '/') &&
		    (i + 2 == n || p[i + 2] == '/'))
			return true;
	return false;
}

/* Interpreter code given inline names paths inside string literals:
   open('/etc/x'), "~/.bashrc", `print > "../x"`.  A quote followed by
   `/` or `~`, or a literal with a `..` component, counts. */
static const char *inline_code_outside(cwds *w, const locus_shell_command *c)
{
	if (!(c->flags & LOCUS_CMD_INLINE_CODE))
		return NULL;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		for (const char *q = strpbrk(a, "'\"`"); q;
		     q = strpbrk(q + 1, "'\"`")) {
			size_t n = strcspn(q + 1, "'\"` \t\n)");
			/* an absolute or home path, or one that climbs
			   (`print > "../x"`, `open("a/../../x")`) */
			if (q[1] != '/' && q[1] != '~' && !climbs(q + 1, n))
				continue;
			char buf[512];
			if (n >= sizeof buf)
				return a;
			memcpy(buf, q + 1, n);
			buf[n] = '\0';
			if (path_outside(w, buf))
				return a;
		}
	}
	return NULL;
}

/* The files a sed script reads or writes (r R w W, s///w): `sed -n '1r
   /etc/hosts' f` prints /etc/hosts, `sed -n 'w /tmp/x' f` writes there. */
typedef struct sed_out {
	cwds *w;
	bool hit;
} sed_out;

static void sed_file_outside(void *arg, char cmd, const char *name, size_t n)
{
	sed_out *o = arg;
	char buf[512];
	(void)cmd;
	if (o->hit || n >= sizeof buf) {
		o->hit = true;
		return;
	}
	memcpy(buf, name, n);
	buf[n] = '\0';
	o->hit = path_outside(o->w, buf);
}

static const char *sed_script_outside(cwds *w, const locus_shell_command *c)
{
	sed_out o = {w, false};
	if (!c->argc || !strstr(c->name, "sed"))
		return NULL; /* sed, gsed, /bin/sed: pk_sed_files tells */
	pk_sed_files(c, sed_file_outside, &o);
	for (size_t i = 1; o.hit && i < c->argc; i++)
		if (!pk_is_option(c->argv[i]))
			return c->argv[i]; /* the script names it */
	return o.hit ? c->name : NULL;
}

static bool is_cd(const locus_shell_command *c)
{
	return c->argc &&
	       (strcmp(c->name, "cd") == 0 || strcmp(c->name, "pushd") == 0 ||
	        strcmp(c->name, "popd") == 0);
}

/* pushd with no directory (it swaps the top two of the stack), pushd or
   popd +N/-N (rotations) and popd: back to a directory the stack holds,
   one the line already went to (each judged when it was named), or the
   one the line started in: like `cd -`, any candidate.  Not HOME: bash's
   pushd alone never goes there (it made `pushd` read-only with
   outside-workspace). */
static bool stack_move(const locus_shell_command *c, const char *t)
{
	if (strcmp(c->name, "popd") == 0)
		return true;
	if (strcmp(c->name, "pushd") != 0)
		return false;
	if (!t)
		return true;
	return (t[0] == '+' || t[0] == '-') && t[1] &&
	       strspn(t + 1, "0123456789") == strlen(t + 1);
}

/* The cd target (skipping -L -P -e -@); NULL for `cd` alone (HOME). */
static const char *cd_target(const locus_shell_command *c, bool *dynamic)
{
	*dynamic = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "--") == 0)
			continue;
		if (pk_is_option(a) && strcmp(a, "-") != 0)
			continue;
		*dynamic =
		    c->argv_flags &&
		    (c->argv_flags[i] & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_GLOB));
		return a;
	}
	return NULL;
}

/* ---- symlinks of the workspace ----------------------------------------- */

/* The walk's state when it also follows the workspace's symlinks
   (ll_outside_shell with links): the resolver's bound, the answer. */
typedef struct links_walk {
	ll_links l;
	ll_shell_links *out;
} links_walk;

static void links_note(links_walk *k, uint32_t bits, const char *word)
{
	for (unsigned b = 0; b < LL_SHELL_LINK_BITS; b++)
		if ((bits & (1u << b)) && !k->out->word[b])
			k->out->word[b] = word;
}

/* What `word` (a static path word) has only through the workspace's
   links, from every directory the command may run in; notes a word a
   link leads out of the root (not a `pattern`), or that the bound left
   unresolved. */
static uint32_t link_bits(links_walk *k, const cwds *w, const char *word,
                          bool follow, bool pattern)
{
	if (!word || !*word || word[0] == '~' || word[0] == '$')
		return 0;
	bool abs = word[0] == '/';
	if (!abs && w->lost)
		return 0; /* outside-workspace already: a cd went anywhere */
	uint32_t bits = 0;
	char buf[LL_LINK_PATH];
	for (size_t i = 0; i < (abs ? 1 : w->n); i++) {
		if (!abs && !w->active[i])
			continue;
		if (!(abs ? lu_copy_fits(buf, sizeof buf, word, strlen(word))
		          : lu_join_fits(buf, sizeof buf, w->dir[i], word)))
			continue;
		int where;
		bits |= ll_path_links(&k->l, buf, follow, &where);
		if (where == LL_LINK_OUTSIDE && !k->out->outside && !pattern)
			k->out->outside = word;
		if (where == LL_LINK_BUDGET && !k->out->unknown)
			k->out->unknown = word;
	}
	return bits;
}

/* Interpreter code given inline names paths in its string literals
   (`open("gl/config", "w")`): each literal through the links, in any
   role (the code may read or write it), as the shell's rules match a
   literal's text. */
static void links_inline(links_walk *k, const cwds *w,
                         const locus_shell_command *c)
{
	char buf[512];
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		for (const char *q = strpbrk(a, "'\"`"); q;
		     q = strpbrk(q + 1, "'\"`")) {
			size_t n = strcspn(q + 1, "'\"` \t\n)");
			if (!n || n >= sizeof buf || q[1 + n] != q[0])
				continue;
			memcpy(buf, q + 1, n);
			buf[n] = '\0';
			uint32_t b = link_bits(k, w, buf, true, false);
			if (b || k->out->outside == buf ||
			    k->out->unknown == buf) {
				/* the note keeps the word: the argument */
				if (k->out->outside == buf)
					k->out->outside = a;
				if (k->out->unknown == buf)
					k->out->unknown = a;
				links_note(k, b, a);
			}
			q += n + 1;
		}
	}
}

/* link_bits of `part`, a piece of argument `word` (a comma element, a
   cluster's tail) that may not outlive the call: a note names word. */
static uint32_t link_bits_of(links_walk *k, const cwds *w, const char *part,
                             const char *word, bool follow)
{
	uint32_t b =
	    link_bits(k, w, part, follow, strpbrk(part, "*?[") != NULL);
	if (k->out->outside == part)
		k->out->outside = word;
	if (k->out->unknown == part)
		k->out->unknown = word;
	return b;
}

/* The elements of option a's comma list (comma_outside) through the
   links; a note names a, not the element. */
static uint32_t links_comma(links_walk *k, const cwds *w, const char *a,
                            bool follow)
{
	if (!strchr(a, ',') || scheme_sep(a))
		return 0;
	uint32_t bits = 0;
	char buf[LL_LINK_PATH];
	for (const char *at = a; next_comma_element(&at, buf, sizeof buf);) {
		const char *p = path_part(buf);
		if (!p || (pk_is_option(buf) && p == buf))
			continue;
		bits |= link_bits_of(k, w, p, a, follow);
	}
	return bits;
}

/* The tails of option word a (pk_next_attached: `sort -ohk/pre-commit`,
   `-uohk/x`) that hold a `/` through the links: a relative value that
   path_part does not take (no `./`, no `..`) may still reach a link's
   target.  A note names a. */
static uint32_t links_attached(links_walk *k, const cwds *w, const char *a,
                               bool follow)
{
	uint32_t bits = 0;
	for (const char *q = pk_next_attached(a, NULL); q;
	     q = pk_next_attached(a, q)) {
		if (q[0] == '/' || !strchr(q, '/'))
			continue; /* absolute: path_part's; no directory */
		bits |= link_bits_of(k, w, q, a, follow);
	}
	return bits;
}

/* A copy's or an extraction's operand a (a static path word) that the
   workspace's links take to a persistence folder (`cp -r hooks g/` with
   g -> .git): any new name there may be a hook (pk_persistence_folder). */
static bool links_into_folder(links_walk *k, const cwds *w, const char *a)
{
	if (!a[0] || a[0] == '-' || a[0] == '~' || a[0] == '$' ||
	    (a[0] != '/' && w->lost))
		return false;
	char buf[LL_LINK_PATH], real[LL_LINK_PATH];
	for (size_t i = 0; i < (a[0] == '/' ? 1 : w->n); i++) {
		if (a[0] != '/' && !w->active[i])
			continue;
		if (!(a[0] == '/'
		          ? lu_copy_fits(buf, sizeof buf, a, strlen(a))
		          : lu_join_fits(buf, sizeof buf, w->dir[i], a)))
			continue;
		int where =
		    ll_link_resolve(&k->l, buf, true, real, sizeof real);
		if (where == LL_LINK_BUDGET)
			return true; /* unresolved: fail closed */
		if (where == LL_LINK_INSIDE && k->l.linked &&
		    pk_persistence_folder_name(real))
			return true;
	}
	return false;
}

/* The redirects and path arguments of c through the links: a written
   path that is a persistence or agent file where it really is, a read
   one that is a credential store (the roles as the shell's rules judge
   them: lk_redirect_writes, pk_arg_written, pk_arg_read); data as for
   command_outside. */
static void links_command(links_walk *k, const cwds *w,
                          const locus_shell_command *c, const lk_program *row,
                          bool data)
{
	const uint32_t on_write = LL_PATH_PERSISTENCE | LL_PATH_AGENT_CONFIG;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *rd = &c->redirects[i];
		const char *op = rd->op ? rd->op : "";
		const char *t = rd->target;
		op += strspn(op, "0123456789");
		if (lu_starts_with(op, "<<") || !t ||
		    (rd->target_flags & LOCUS_WORD_DYNAMIC) ||
		    (strchr(op, '&') && op[0] != '&' &&
		     (!strcmp(t, "-") || strspn(t, "0123456789") == strlen(t))))
			continue;
		uint32_t b = link_bits(k, w, t, true, false);
		links_note(k, b & (lk_redirect_writes(rd) ? ~0u : ~on_write),
		           t);
	}
	if (c->argc < 2 || data)
		return;
	if (c->flags & LOCUS_CMD_INLINE_CODE) {
		links_inline(k, w, c);
		return;
	}
	/* rm, rmdir, unlink remove a link, not what it points to */
	bool follow = !(row && (row->cls & LK_UNLINKS));
	/* a copy or an extraction fills the folders it names */
	bool fills =
	    row && ((row->cls & LK_COPIES) ||
	            ((row->cls & LK_EXTRACTS) &&
	             lk_extracts(row, (const char *const *)c->argv, c->argc)));
	bool after_dd = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		uint32_t f = c->argv_flags ? c->argv_flags[i] : 0;
		if (!after_dd && a[0] == '-' && a[1] == '-' && !a[2]) {
			after_dd = true;
			continue;
		}
		if (f & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST))
			continue;
		uint32_t cb = !after_dd && a[0] == '-'
		                  ? links_comma(k, w, a, follow) |
		                        links_attached(k, w, a, follow)
		                  : 0;
		const char *p = path_part(a);
		if (!p || (!after_dd && pk_is_option(a) && p == a))
			p = NULL;
		if (!p && !cb)
			continue;
		/* a quoted `*`, `?` or `[`: a pattern the program matches
		   (find -path 'node_modules/x*'), not a file it opens */
		bool pattern = p && !(f & LOCUS_WORD_GLOB) && strpbrk(p, "*?[");
		uint32_t b = p ? link_bits(k, w, p, follow, pattern) | cb : cb;
		if (fills && p && !pattern && links_into_folder(k, w, p))
			b |= LL_PATH_PERSISTENCE;
		if ((b & on_write) && !pk_arg_written(c, i))
			b &= ~on_write;
		if ((b & LL_PATH_SECRET) && !pk_arg_read(c, i))
			b &= ~LL_PATH_SECRET;
		links_note(k, b, p ? p : a);
	}
}

/* A cd, pushd or popd of the walk (command i of n): the candidates move;
   the outside path it names (or "$OLDPWD"), or NULL. */
static const char *walk_cd(cwds *w, const locus_shell_result *r, size_t i,
                           size_t n, const locus_shell_command *c)
{
	bool dyn;
	const char *t = cd_target(c, &dyn);
	const locus_shell_command *next =
	    i + 1 < n ? locus_shell_result_command(r, i + 1) : NULL;
	bool chain = next && c->depth == 0 && (!c->origin || !c->origin[0]) &&
	             next->connector && strcmp(next->connector, "&&") == 0 &&
	             next->depth == c->depth && next->parent == c->parent &&
	             !(c->flags & LOCUS_CMD_PIPED_IN);
	bool stack = stack_move(c, t) && !dyn;
	if (!stack && !dyn && t && strcmp(t, "-") == 0 && !w->moved) {
		/* OLDPWD of the environment: any directory */
		w->lost = true;
		return "$OLDPWD";
	}
	/* `cd -P x/..` climbs from where a link x points; bash's cd is
	   logical by default and folds `x/..` as text (`set -P` on the
	   line is not read: a known limit) */
	bool physical = false;
	for (size_t k = 1; k < c->argc && c->argv[k][0] == '-'; k++)
		physical |= c->argv[k][1] != '-' && strchr(c->argv[k], 'P');
	if (stack)
		change_dir(w, "-", false, chain, false);
	else
		change_dir(w, t, dyn, chain, physical);
	w->moved |= !stack && t && strcmp(t, "-") != 0;
	return w->lost ? (t ? t : "~") : NULL;
}


/* The first outside path of the line, or NULL.  With k, the walk goes on
   to the end and also follows every command's paths through the
   workspace's symlinks (links_command). */
static const char *outside_shell(const locus_shell_result *r, const char *root,
                                 bool scratch_ok, bool *oom, links_walk *k)
{
	cwds w;
	memset(&w, 0, sizeof w);
	w.scratch_ok = scratch_ok;
	*oom = false;
	char *froot = root ? fold(NULL, root) : NULL;
	if (root && !froot) {
		*oom = true;
		return "?";
	}
	w.root = froot;
	const char *hit = NULL;
	if (froot) {
		w.dir[0] = strdup(froot);
		if (!w.dir[0])
			w.oom = true;
		else
			w.n = 1;
		w.active[0] = true;
	} else {
		w.lost = true; /* no root known: every path is outside */
	}
	size_t n = locus_shell_result_count(r);
	w.may_link = -1;
	w.r = r;
	size_t srclen = 0;
	const char *src = locus_shell_result_source(r, &srclen);
	size_t prev_end = 0;
	for (size_t i = 0; i < n && (!hit || k) && !w.oom; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		/* only `&&` keeps a cd's result alone in view, and not past
		   the `)` that ends a subshell the cd ran in */
		if (!c->connector || strcmp(c->connector, "&&") != 0)
			activate_all(&w);
		if (c->depth == 0 && src && c->start >= prev_end &&
		    c->start <= srclen &&
		    memchr(src + prev_end, ')', c->start - prev_end))
			activate_all(&w);
		if (c->depth == 0 && c->end <= srclen)
			prev_end = c->end;
		if (ancestor_remote(r, c))
			continue;
		const char *h = NULL;
		if (is_cd(c)) {
			h = walk_cd(&w, r, i, n, c);
		} else {
			/* a link made in the workspace outlives the jail's
			   scratch folder: it points at the host's */
			bool link = w.scratch_ok && c->argc &&
			            (!strcmp(c->name, "ln") ||
			             !strcmp(c->name, "link"));
			w.scratch_ok = scratch_ok && !link;
			bool data = c->argc >= 2 && pk_data_program(c->name);
			h = command_outside(&w, c, data);
			if (!h)
				h = inline_code_outside(&w, c);
			if (!h)
				h = sed_script_outside(&w, c);
			w.scratch_ok = scratch_ok;
			if (k)
				links_command(k, &w, c,
				              lp_command_program(r, i), data);
		}
		if (!hit)
			hit = h;
	}
	*oom = w.oom;
	cwds_free(&w);
	free(froot);
	return hit;
}

const char *ll_outside_shell(const locus_shell_result *r, const char *root,
                             bool *oom, ll_shell_links *links)
{
	if (!links || !root)
		return outside_shell(r, root, false, oom, NULL);
	memset(links, 0, sizeof *links);
	/* on the stack (~8 KiB, as ll_path_class's): a malloc of this size
	   is served past the small-object caches, ~800 instructions a line */
	links_walk k;
	ll_links_init(&k.l, root);
	k.out = links;
	return outside_shell(r, root, false, oom, &k);
}

bool ll_outside_scratch(const locus_shell_result *r, const char *root,
                        bool *oom)
{
	return root && !outside_shell(r, root, true, oom, NULL) && !*oom;
}

/* ---- file tools ------------------------------------------------------- */

bool ll_outside_path(const char *path, const char *root, bool *oom)
{
	cwds w;
	memset(&w, 0, sizeof w);
	*oom = false;
	char *froot = root ? fold(NULL, root) : NULL;
	w.root = froot;
	if (froot) {
		w.dir[0] = froot;
		w.active[0] = true;
		w.n = 1;
	} else {
		w.lost = true;
	}
	bool out = path_outside(&w, path && *path ? path : ".");
	/* a relative path always starts inside the root */
	*oom = w.oom || (root && !froot);
	free(froot);
	/* inside as written, out through a symlink of the workspace */
	return out || *oom || ll_path_leaves(path, root);
}
