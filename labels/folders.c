/*
 * labels/folders.c - what a copy or an extraction writes into a folder:
 * the names it makes there (FOLDER/NAME for each source of cp, mv,
 * install, ln) and whether the folder is one where any new name may be a
 * persistence file (`.git`, `.github`, `.git/modules`: the leading
 * components of a persistence path, labels/packs_paths.c).
 *
 * A copy's folder is its last operand, the value of `-t` (attached, the
 * next word, or after any short cluster holding `t`) or of
 * `--target-directory` and its abbreviations.  An extraction's folder is
 * any of its words or option values (`tar -C .git`, `unzip -d .git`, `7z
 * x -o.git`): over-labelling is safe.  Paths are folded (`.git/.`,
 * `sub/../.git`) before they are matched; a word that does not fit the
 * buffers, or a line with more folders than are looked at, counts as
 * writing one (fail closed).
 */
#include <stdio.h>
#include <string.h>

#include "../knowledge/programs.h"
#include "../parser/linefacts.h"
#include "internal.h"
#include "pack.h"

enum {
	MAX_FOLDERS = 16, /* folder candidates of one copy */
	FOLDER_PATH = 4096,
};

/* The n bytes at a are an abbreviation of long option `name`, at least
   min bytes long, as getopt_long takes it. */
static bool long_prefix_of(const char *a, size_t n, const char *name,
                           size_t min)
{
	return n >= min && n <= strlen(name) && !strncmp(a, name, n);
}

/* --target-directory, or an abbreviation of it (`--t=DIR`,
   `--target DIR`): its value (NULL: the next word's). */
static bool target_option(const char *a, const char **value)
{
	if (a[0] != '-' || a[1] != '-')
		return false;
	size_t n = strcspn(a + 2, "=");
	if (!long_prefix_of(a + 2, n, "target-directory", 1))
		return false;
	*value = a[2 + n] ? a + 3 + n : NULL;
	return true;
}

typedef struct folders {
	const char *dir[MAX_FOLDERS];
	bool sure[MAX_FOLDERS]; /* a folder, not maybe a new name */
	size_t n;
	bool overflow;
} folders;

static void add_folder(folders *f, const char *d, bool sure)
{
	if (!d || !*d)
		return;
	if (f->n == MAX_FOLDERS) {
		f->overflow = true;
		return;
	}
	f->dir[f->n] = d;
	f->sure[f->n++] = sure;
}

static bool ends_as_folder(const char *d)
{
	size_t n = strlen(d);
	return !n || d[n - 1] == '/' || !strcmp(d, ".") || !strcmp(d, "..") ||
	       (n >= 2 && !strcmp(d + n - 2, "/.")) ||
	       (n >= 3 && !strcmp(d + n - 3, "/.."));
}

/* The folders copy c may write into, and how many sources it names. */
static void copy_folders(const locus_shell_command *c, folders *f,
                         size_t *sources)
{
	memset(f, 0, sizeof *f);
	size_t last = 0, operands = 0;
	bool dd = false, target = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i], *v = NULL;
		if (!dd && !strcmp(a, "--")) {
			dd = true;
			continue;
		}
		if (dd || a[0] != '-' || !a[1]) {
			last = i;
			operands++;
			continue;
		}
		if (target_option(a, &v)) {
			target = true;
			add_folder(f,
			           v                 ? v
			           : i + 1 < c->argc ? c->argv[i + 1]
			                             : NULL,
			           true);
		} else if (a[1] != '-') {
			/* any `t` may be -t (over-read); a sure one (the first
			   letter taking a value) makes the last operand a
			   source */
			target |=
			    a[1 + strcspn(a + 1, LK_COPY_VALUE_LETTERS)] == 't';
			const char *t = strchr(a + 1, 't');
			if (t)
				add_folder(f,
				           t[1]              ? t + 1
				           : i + 1 < c->argc ? c->argv[i + 1]
				                             : NULL,
				           true);
		}
	}
	*sources = operands;
	if (last && !target) { /* with -t, the last operand is a source */
		const char *d = c->argv[last];
		add_folder(f, d, ends_as_folder(d) || operands > 2);
		*sources = operands - 1;
	}
}

/* A copy that makes links, not copies (cp -l/-s, --link,
   --symbolic-link, in any cluster or abbreviation): over-read, an `s` or
   `l` in any short cluster counts. */
static bool copy_links(const locus_shell_command *c)
{
	for (size_t i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-' || !a[1])
			continue;
		if (a[1] == '-' ? lk_long_abbrev(a, "link", 1) ||
		                      lk_long_abbrev(a, "symbolic-link", 2)
		                : strpbrk(a + 1, "ls") != NULL)
			return true;
	}
	return false;
}

/* The last component of source s (`hooks/` is hooks), into name; false
   when it has none to give (`.`, `..`, `/`) or does not fit. */
static bool source_name(const char *s, char *name, size_t cap)
{
	size_t n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		n--;
	size_t b = n;
	while (b && s[b - 1] != '/')
		b--;
	size_t k = n - b;
	if (!k || (k == 1 && s[b] == '.') ||
	    (k == 2 && s[b] == '.' && s[b + 1] == '.') || k >= cap)
		return false;
	memcpy(name, s + b, k);
	name[k] = '\0';
	return true;
}

/* p's last component (trailing slashes aside) is `.git`: a repository's
   folder, its hooks and config among what lands there. */
static bool git_folder(const char *p)
{
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	return n >= 4 && !strncmp(p + n - 4, ".git", 4) &&
	       (n == 4 || p[n - 5] == '/');
}

/* d names the current folder (`.`, `./`, `.//.`). */
static bool here_folder(const char *d)
{
	char buf[FOLDER_PATH];
	const char *n = ll_normal_path(d, buf, sizeof buf);
	return n && (!strcmp(n, ".") || !strcmp(n, "./") || !*n);
}

bool pk_copy_names_path(const locus_shell_command *c, const lk_program *row,
                        bool (*is_path)(const char *))
{
	if (c->argc < 3 || !row || !(row->cls & LK_COPIES))
		return false;
	folders f;
	size_t sources;
	copy_folders(c, &f, &sources);
	if (f.overflow)
		return true;
	char name[FOLDER_PATH], buf[2 * FOLDER_PATH];
	bool dd = false;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i];
		if (!dd && !strcmp(s, "--")) {
			dd = true;
			continue;
		}
		if ((!dd && s[0] == '-' && s[1]) ||
		    !source_name(s, name, sizeof name))
			continue;
		for (size_t k = 0; k < f.n; k++) {
			if (f.dir[k] == s)
				continue;
			size_t dn = strlen(f.dir[k]), nn = strlen(name);
			if (dn + 1 + nn >= sizeof buf)
				return true; /* does not fit: fail closed */
			memcpy(buf, f.dir[k], dn);
			buf[dn] = '/';
			memcpy(buf + dn + 1, name, nn + 1);
			if (is_path(buf))
				return true;
			/* cp -r ../other/.git .: a repository folder where
			   the line surely copies into a folder (not `cp -r
			   .git .git.bak`, a new name) */
			if (is_path == pk_persistence_path && f.sure[k] &&
			    git_folder(buf))
				return true;
			/* mv tpl/.github ., cp -a tpl/.vscode .: a whole
			   persistence folder (its workflows, tasks) into the
			   current folder (checked by a red team; `cp -r
			   .github backup/` is a copy elsewhere) */
			if (is_path == pk_persistence_path &&
			    here_folder(f.dir[k]) &&
			    pk_persistence_folder_name(buf))
				return true;
		}
	}
	return false;
}

bool pk_persistence_folder(const char *p, const char *cwd)
{
	char joined[FOLDER_PATH], buf[FOLDER_PATH];
	if (cwd && p[0] != '/' && p[0] != '~') {
		int w = snprintf(joined, sizeof joined, "%s/%s", cwd, p);
		if (w < 0 || (size_t)w >= sizeof joined)
			return true;
		p = joined;
	}
	const char *n = ll_normal_path(p, buf, sizeof buf);
	if (!n)
		return true; /* does not fit: fail closed */
	return pk_persistence_path(n) || pk_persistence_folder_name(n);
}

/* tar's options that rename the members it writes (--transform,
   --xform, abbreviated as getopt_long takes them): any name. */
static bool renames_members(const char *a)
{
	if (a[0] != '-' || a[1] != '-')
		return false;
	size_t n = strcspn(a + 2, "=");
	return long_prefix_of(a + 2, n, "transform", 2) ||
	       long_prefix_of(a + 2, n, "xform", 2);
}

/* An extraction's word a (argument i) names a persistence folder: the
   word, a long option's value, or any tail of a short cluster (`-C.git`,
   `-xC.git`, `-d.git`). */
static bool extract_word_fills(const lk_program *p,
                               const locus_shell_command *c, size_t i,
                               const char *cwd)
{
	const char *a = c->argv[i];
	if (lk_pattern_operand(p, (const char *const *)c->argv, i))
		return false;
	if (a[0] != '-' || !a[1])
		return pk_persistence_folder(a, cwd);
	if (a[1] == '-') {
		const char *eq = strchr(a, '=');
		return eq && pk_persistence_folder(eq + 1, cwd);
	}
	for (const char *q = pk_next_attached(a, NULL); q;
	     q = pk_next_attached(a, q))
		if (pk_persistence_folder(q, cwd))
			return true;
	return false;
}

/* Python's standard modules that extract an archive into a folder
   (`python3 -m tarfile -e x.tar DIR`, `-m zipfile -e x.zip DIR`; checked
   by a red team: both planted a hook in .git). */
static const char *const extracting_modules = "tarfile zipfile";

/* python -m tarfile/zipfile -e ARCHIVE [DIR]: the folder it extracts
   into may hold persistence files (no DIR: the current one). */
static bool module_extracts(const locus_shell_command *c, const char *cwd)
{
	size_t i = 1;
	const char *mod = NULL;
	for (; i < c->argc && !mod; i++) {
		const char *a = c->argv[i], *m = strchr(a, 'm');
		if (a[0] != '-' || a[1] == '-' || !m)
			continue;
		mod = m[1] ? m + 1 : i + 1 < c->argc ? c->argv[++i] : NULL;
	}
	char name[16];
	size_t n = mod ? lk_module_name_len(mod) : 0;
	if (!n || n >= sizeof name)
		return false;
	memcpy(name, mod, n);
	name[n] = '\0';
	if (!pk_word_in(extracting_modules, name))
		return false;
	bool extract = false;
	size_t operands = 0;
	for (; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (!strcmp(a, "-e") || lk_long_abbrev(a, "extract", 1)) {
			extract = true;
			operands = 0;
		} else if (a[0] != '-' && extract && ++operands > 1 &&
		           pk_persistence_folder(a, cwd)) {
			return true;
		}
	}
	return extract && operands < 2 && cwd &&
	       pk_persistence_folder(".", cwd);
}

bool pk_fills_folders(const lk_program *p)
{
	return p && ((p->cls & (LK_COPIES | LK_EXTRACTS)) ||
	             (p->interp && p->interp->modules));
}

bool pk_writes_git_entry(const locus_shell_command *c, const lk_program *row)
{
	char buf[FOLDER_PATH];
	for (size_t i = 0; i < c->nredirects; i++) {
		const char *t = c->redirects[i].target;
		/* the folded target ends in .git only if it holds .git */
		if (t && strstr(t, ".git") &&
		    lk_redirect_writes(&c->redirects[i]) &&
		    !(c->redirects[i].target_flags & LOCUS_WORD_DYNAMIC)) {
			const char *n = ll_normal_path(t, buf, sizeof buf);
			if (!n || git_folder(n))
				return true;
		}
	}
	if (!row || !(row->cls & LK_WRITES_ARGS))
		return false; /* tee: every operand is written */
	for (size_t i = 1; i < c->argc; i++) {
		const char *n = ll_normal_path(c->argv[i], buf, sizeof buf);
		if (c->argv[i][0] != '-' && (!n || git_folder(n)))
			return true;
	}
	return false;
}

bool pk_fills_persistence_folder(const locus_shell_command *c,
                                 const lk_program *row, const char *cwd)
{
	if (c->argc < 2 || !row)
		return false;
	uint32_t cls = row->cls;
	if (row->interp && row->interp->modules)
		return module_extracts(c, cwd);
	if (cls & LK_COPIES) {
		folders f;
		size_t sources;
		copy_folders(c, &f, &sources);
		if (f.overflow)
			return true;
		for (size_t k = 0; k < f.n; k++)
			if (pk_persistence_folder(f.dir[k], cwd))
				return true;
		/* ln -s .git g, cp -al .git g: a name by which later writes
		   reach the folder (checked by a red team: `cp -al .git g2`
		   then a write to g2/config changed .git/config) */
		if (!strcmp(c->name, "ln") || copy_links(c))
			for (size_t i = 1; i < c->argc; i++)
				if (c->argv[i][0] != '-' &&
				    pk_persistence_folder(c->argv[i], cwd))
					return true;
		return false;
	}
	if (!(cls & LK_EXTRACTS))
		return false;
	const lk_program *p = row;
	if (!lk_extracts(p, (const char *const *)c->argv, c->argc))
		return false;
	/* an extraction in a persistence folder (`cd .git && tar xf
	   ../x.tar`): any member lands there */
	if (cwd && pk_persistence_folder(".", cwd))
		return true;
	for (size_t i = 1; i < c->argc; i++)
		if (renames_members(c->argv[i]) ||
		    extract_word_fills(p, c, i, cwd))
			return true;
	return false;
}
