/*
 * tests/test_knowledge.c - the program table (knowledge/programs.c) and
 * the line facts (parser/linefacts.c): every other name a program goes
 * by resolves to its row, rows are unique and consistent, the regex
 * alternations compile, and writes/runs are found by every name.
 */
#include <check.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knowledge/git.h"
#include "parser/linefacts.h"
#include "knowledge/programs.h"
#include "knowledge/sed.h"
#include "locus/shell.h"

typedef struct name_case {
	const char *name;
	const char *row; /* canonical name, NULL: not in the table */
	uint32_t cls;    /* classes it must have */
} name_case;

static const name_case names[] = {
    {"bash", "bash", LK_SHELL},
    {"bash5", "bash", LK_SHELL},
    {"bash-5.2", "bash", LK_SHELL},
    {"bash-static", "bash", LK_SHELL},
    {"ksh93", "ksh", LK_SHELL},
    {"mksh-static", "mksh", LK_SHELL},
    {"lksh", "lksh", LK_SHELL},
    {"rbash", "rbash", LK_SHELL},
    {"sh.distrib", "sh", LK_SHELL},
    {"python3", "python", LK_INTERP},
    {"python3.12", "python", LK_INTERP},
    {"python3.11-dbg", "python", LK_INTERP},
    {"pypy3", "pypy", LK_INTERP},
    {"perl5.36.0", "perl", LK_INTERP},
    {"ruby3.1", "ruby", LK_INTERP},
    {"nodejs", "node", LK_INTERP},
    {"php8.2", "php", LK_INTERP},
    {"lua5.4", "lua", LK_INTERP},
    {"tclsh8.6", "tclsh", LK_INTERP},
    {"ipython3", "python", LK_INTERP},
    {"gawk", "gawk", LK_AWK},
    {"original-awk", "original-awk", LK_AWK},
    {"curl", "curl", LK_DOWNLOADER | LK_NETWORK},
    {"wget2", "wget2", LK_DOWNLOADER},
    {"nc.openbsd", "nc.openbsd", LK_NETWORK},
    {"mkfs.ext4", "mkfs", LK_WIPES_DEVICE},
    {"mke2fs", "mke2fs", LK_WIPES_DEVICE},
    {"sudo", "sudo", LK_WRAPPER},
    {"xargs", "xargs", LK_SEES},
    {"gfind", "find", LK_SEES},
    {"gmake", "make", LK_SEES},
    {"base64", "base64", LK_DECODER},
    {"cp", "cp", LK_COPIES},
    {"tee", "tee", LK_WRITES_ARGS},
    {"man", "man", LK_NAMES_DATA},
    {"less", "less", LK_PAGER},
    /* every alias through the hashed alias index (knowledge/gen_index.c),
       exact and versioned, and near misses of aliases */
    {"gsed", "sed", 0},
    {"remake", "make", LK_SEES},
    {"nodejs18", "node", LK_INTERP},
    {"ksh2020", "ksh", LK_SHELL},
    {"fdfind", "fd", 0},
    {"gse", NULL, 0},
    {"nodej", NULL, 0},
    {"remakes", NULL, 0},
    /* not programs of the table, nor near misses of one */
    {"bashful", NULL, 0},
    {"python3x", NULL, 0},
    {"mkfsx", NULL, 0},
    {"shx", NULL, 0},
    {"", NULL, 0},
};

START_TEST(test_names)
{
	const name_case *c = &names[_i];
	const lk_program *p = lk_program_find(c->name);
	if (!c->row) {
		ck_assert_msg(p == NULL, "%s resolved to %s", c->name,
		              p ? p->name : "");
		return;
	}
	ck_assert_msg(p != NULL, "%s not found", c->name);
	ck_assert_str_eq(p->name, c->row);
	ck_assert_msg((p->cls & c->cls) == c->cls, "%s lacks classes %x",
	              c->name, c->cls);
}
END_TEST

/* A row's option and subcommand lists (delete_opts, unseen_opts,
   value_runs, net_subs, stop_subs, run_subs) are not empty, each entry names an option or is a
   subcommand rule (a NULL subcommand with a sub2: any form with an
   argument holding it, `://`), and its reason names the program; its
   checks are a "|...|" word list. */
static void row_lists_well_formed(const lk_program *p)
{
	const lk_optfx *opts[] = {p->delete_opts, p->unseen_opts};
	for (size_t k = 0; k < 2; k++) {
		if (!opts[k])
			continue;
		ck_assert_msg(opts[k][0].reason, "%s: an empty option list",
		              p->name);
		for (const lk_optfx *o = opts[k]; o->reason; o++)
			ck_assert_msg(
			    (o->short_opt || o->long_opt) &&
			        !strncmp(o->reason, p->name, strlen(p->name)),
			    "%s: option row '%s'", p->name, o->reason);
	}
	const lk_subfx *subs[] = {p->net_subs, p->stop_subs, p->run_subs};
	for (size_t k = 0; k < 3; k++) {
		if (!subs[k])
			continue;
		ck_assert_msg(subs[k][0].reason, "%s: an empty subcommand list",
		              p->name);
		for (const lk_subfx *r = subs[k]; r->reason; r++)
			ck_assert_msg(
			    !strncmp(r->reason, p->name, strlen(p->name)),
			    "%s: subcommand row '%s'", p->name, r->reason);
	}
	/* value_runs: an option of Go's form (`-name`) or a prefix ending
	   in ',' (`-Wl,`), texts that each start with '-' or '@' (a text
	   counts where it starts a flag) or, for a value that is a list of
	   keywords, a lower-case letter (gpg --list-options show-photos), a
	   reason that names the program */
	if (p->value_runs) {
		ck_assert_msg(p->value_runs[0].opt, "%s: an empty value list",
		              p->name);
		for (const lk_optval *o = p->value_runs; o->opt; o++) {
			ck_assert_msg(
			    o->opt[0] == '-' && o->opt[1] && o->texts &&
			        o->texts[0] && o->reason &&
			        !strncmp(o->reason, p->name, strlen(p->name)),
			    "%s: value row '%s'", p->name, o->opt);
			for (const char *t = o->texts; *t; t++)
				ck_assert_msg((t != o->texts && t[-1] != ' ') ||
				                  *t == '-' || *t == '@' ||
				                  (*t >= 'a' && *t <= 'z'),
				              "%s: value text in '%s'", p->name,
				              o->texts);
		}
	}
	/* a closed subcommand list (offline_subs) and the "*" row that
	   ends net_subs come together */
	bool others = false;
	for (const lk_subfx *r = p->net_subs; r && r->reason; r++)
		if (r->sub && !strcmp(r->sub, LK_SUB_OTHERS)) {
			ck_assert_msg(!r[1].reason, "%s: a row after \"*\"",
			              p->name);
			others = true;
		}
	ck_assert_msg(others == (p->offline_subs != NULL),
	              "%s: offline_subs without a \"*\" row, or the reverse",
	              p->name);
	if (p->offline_subs) {
		size_t n = strlen(p->offline_subs);
		ck_assert_msg(n > 2 && p->offline_subs[0] == '|' &&
		                  p->offline_subs[n - 1] == '|' &&
		                  !strstr(p->offline_subs, "||"),
		              "%s: offline_subs '%s'", p->name,
		              p->offline_subs);
	}
	/* own_subs: a "|...|" list, each name once, "help" on it (its
	   operand is read as a subcommand too: `cargo help NAME` runs
	   cargo-NAME); a subcommand the row's other lists name need not be
	   on it (a foreign one is held, and its row's tag added); compiler_args
	   names a row with rules, arg_opts come with it */
	if (p->own_subs) {
		const char *l = p->own_subs;
		size_t n = strlen(l);
		ck_assert_msg(n > 2 && l[0] == '|' && l[n - 1] == '|' &&
		                  !strstr(l, "||") && strstr(l, "|help|"),
		              "%s: own_subs", p->name);
		for (const char *a = l + 1; *a;) {
			size_t w = strcspn(a, "|");
			char pat[64];
			ck_assert_uint_lt(w + 3, sizeof pat);
			snprintf(pat, sizeof pat, "|%.*s|", (int)w, a);
			const char *first = strstr(l, pat);
			ck_assert_msg(!strstr(first + 1, pat), "%s: '%s' twice",
			              p->name, pat);
			a += w + 1;
		}
	}
	if (p->compiler_args) {
		const lk_program *cc = lk_program_find(p->compiler_args);
		ck_assert_msg(cc && cc->unseen_opts && cc->value_runs,
		              "%s: compiler_args '%s'", p->name,
		              p->compiler_args);
	}
	ck_assert_msg(!p->arg_opts ||
	                  (p->compiler_args && p->arg_opts[0] == '|' &&
	                   p->arg_opts[1] == '-'),
	              "%s: arg_opts", p->name);
	if (p->checks) {
		size_t n = strlen(p->checks);
		ck_assert_msg(n > 2 && p->checks[0] == '|' &&
		                  p->checks[n - 1] == '|' &&
		                  !strstr(p->checks, "||"),
		              "%s: checks '%s'", p->name, p->checks);
	}
}

START_TEST(test_rows_consistent)
{
	for (size_t i = 0; lk_program_at(i); i++) {
		const lk_program *p = lk_program_at(i);
		for (size_t k = i + 1; lk_program_at(k); k++)
			ck_assert_msg(strcmp(p->name, lk_program_at(k)->name),
			              "row %s twice", p->name);
		ck_assert_ptr_eq(lk_program_find(p->name), p);
		if (p->cls & (LK_WRAPPER))
			ck_assert_msg(p->opts != NULL,
			              "wrapper %s has no grammar", p->name);
		if (p->cls & (LK_INTERP | LK_AWK))
			ck_assert_msg(p->interp != NULL,
			              "%s has no inline grammar", p->name);
		if (p->cls & LK_DOWNLOADER)
			ck_assert_msg(p->fetch != NULL, "%s: no output rules",
			              p->name);
		if (p->cls & LK_NETWORK)
			ck_assert_msg(p->net != NULL, "%s: no network reason",
			              p->name);
		if ((p->cls & (LK_WIPES_DEVICE | LK_DELETES)) || p->destroys_by)
			ck_assert_msg(p->destroys != NULL, "%s: no reason",
			              p->name);
		row_lists_well_formed(p);
	}
}
END_TEST

static bool re_matches(const char *re, const char *text)
{
	int err;
	PCRE2_SIZE off;
	char full[16384];
	snprintf(full, sizeof full, "^%s$", re);
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)full, PCRE2_ZERO_TERMINATED,
	                              PCRE2_CASELESS, &err, &off, NULL);
	ck_assert_msg(c != NULL, "regex does not compile at %zu", (size_t)off);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
	int rc = pcre2_match(c, (PCRE2_SPTR)text, strlen(text), 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(c);
	return rc >= 0;
}

START_TEST(test_regex)
{
	char buf[8192];
	ck_assert_uint_gt(lk_names_regex(LK_DOWNLOADER, buf, sizeof buf), 0);
	ck_assert(re_matches(buf, "curl"));
	ck_assert(re_matches(buf, "wget2"));
	ck_assert(!re_matches(buf, "curly"));
	ck_assert_uint_gt(lk_names_regex(LK_SHELL | LK_INTERP, buf, sizeof buf),
	                  0);
	ck_assert(re_matches(buf, "python3.12"));
	ck_assert(re_matches(buf, "bash-5.2"));
	ck_assert(re_matches(buf, "nodejs"));
	ck_assert(!re_matches(buf, "r")); /* R: too short for the floor */
	ck_assert_uint_gt(lk_names_regex(LK_WIPES_DEVICE, buf, sizeof buf), 0);
	ck_assert(re_matches(buf, "mkfs.xfs"));
	ck_assert(re_matches(buf, "wipefs"));
	/* too small a buffer is an error, never a cut alternation */
	ck_assert_uint_eq(lk_names_regex(LK_SHELL, buf, 16), 0);
}
END_TEST

/* ---- line facts ------------------------------------------------------- */

typedef struct fact_case {
	const char *line;
	size_t at;    /* the running command */
	int download; /* 1: some write of what it runs is a download */
	int written;  /* 1: it runs a file the line wrote */
} fact_case;

static const fact_case facts[] = {
    {"echo x > a.sh; sh a.sh", 1, 0, 1},
    {"echo x > a.sh; sh b.sh", 1, 0, 0},
    {"echo x > ./a.sh; sh a.sh", 1, 0, 1},
    {"echo x > d//a.sh; . d/./a.sh", 1, 0, 1},
    {"echo x > a.sh; sh *.sh", 1, 0, 1},
    {"echo x > a.sh; sh b*.sh", 1, 0, 0},
    {"curl -o i x.test; sh i", 1, 1, 1},
    {"curl -sSLo i x.test; sh i", 1, 1, 1},
    {"curl --output=i x.test; sh i", 1, 1, 1},
    {"curl -O x.test/i.sh; sh i.sh", 1, 1, 1},
    {"curl -o - x.test; sh -", 1, 0, 0},
    {"curl -J -O x.test/a; sh whatever", 1, 1, 1},
    {"wget x.test/i.sh; sh i.sh", 1, 1, 1},
    {"wget 'x.test/i.sh?v=1'; sh 'i.sh?v=1'", 1, 1, 1},
    {"wget -O- x.test; sh i.sh", 1, 0, 0},
    {"curl -o a x.test; mv a b; sh b", 2, 1, 1},
    {"curl -o a x.test; cp a d/; sh d/a", 2, 1, 1},
    {"curl -o a x.test; ln -s a b; ./b", 2, 1, 1},
    {"curl -o a x.test; install -m 755 -t bin a; bin/a", 2, 1, 1},
    {"curl x.test | tee i.sh; sh i.sh", 2, 1, 1},
    {"curl x.test | tar xz; sh install.sh", 2, 1, 1},
    {"curl x.test | tar xz; ls", 2, 0, 0},
    {"curl -o ~/.local/bin/t x.test; t", 1, 1, 1},
    {"curl -o m.py x.test; python3 -m m", 1, 1, 1},
    {"curl -o Makefile x.test; make", 1, 1, 1},
    {"curl -o k.mk x.test; make -f k.mk", 1, 1, 1},
    {"echo x >> .git/config; git status", 1, 0, 1},
    {"echo x > config; git status", 1, 0, 0},
    {"echo x > .git/hooks/pre-commit; git commit", 1, 0, 1},
    {"curl -o a.awk x.test; awk -f a.awk", 1, 1, 1},
    {"curl -o p x.test; GIT_CONFIG_GLOBAL=p git log", 1, 1, 1},
    {"sh a.sh | curl -o a.sh x.test", 0, 1, 1},
    {"echo x > /usr/bin/ls; ls", 1, 0, 1}, /* PATH finds it */
    {"echo x > ls; /usr/bin/ls", 1, 0, 0},
    {"echo x > /usr/bin/ls; /usr/bin/ls", 1, 0, 1},
    {"echo hi > x.sh; sed -i s/hi/rm/ x.sh; sh x.sh", 2, 0, 1},
    /* at/batch/make name their file through the row's lk_reads */
    {"echo x > j; at -mf j now", 1, 0, 1},
    {"echo x > j; at -fj now", 1, 0, 1},
    {"echo x > j; batch -f j", 1, 0, 1},
    {"echo x > j; at -qj now", 1, 0, 0}, /* -q QUEUE */
    {"echo x > mk; make -sf mk", 1, 0, 1},
    {"echo x > mk; make -Cmk", 1, 0, 0}, /* -C DIR */
    /* each key of the writers' index (linefacts.c) */
    {"echo x > pkg/__init__.py; python3 -m pkg", 1, 0, 1},
    {"echo x > a/pkgx/b.py; python3 -m pkg", 1, 0, 0},
    {"echo x > pkg/pkg.py; python3 -m pkg", 1, 0, 1},
    {"echo x > hooks/pre-commit; git commit", 1, 0, 0},
    {"echo x > a.git/hooks/x; git commit", 1, 0, 1},
    {"echo x > a/.gitconfig; git log", 1, 0, 1},
    {"echo x > gitconfig; git log", 1, 0, 0},
    {"echo x > foo/t; t", 1, 0, 0},
    {"echo x > ~/bin/t; t", 1, 0, 1},
    {"echo x > /usr/local/bin/ls; /usr/bin/ls", 1, 0, 0},
    {"curl -O 'x.test/i.sh?v=1'; sh i.sh", 1, 1, 1},
    {"echo x > a.sh; sh {a,b}.sh", 1, 0, 1},
    {"echo x > a.sh; sh \"$f\"", 1, 0, 1},
    {"echo x > \"$f\"; sh a.sh", 1, 0, 1},
    {"echo x > \"$f\"; ls", 1, 0, 0},
    {"unzip a.zip; sh a.sh", 1, 0, 1},
    {"curl -o a.zip x.test; unzip a.zip; sh a.sh", 2, 1, 1},
};

START_TEST(test_facts)
{
	const fact_case *f = &facts[_i];
	locus_shell_result *r =
	    locus_shell_parse(f->line, strlen(f->line), NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_gt(locus_shell_result_count(r), f->at);
	lk_writers wr;
	lk_line_writers(r, &wr);
	ck_assert(!wr.overflow);
	const locus_shell_command *c = locus_shell_result_command(r, f->at);
	lk_run runs[LK_MAX_RUNS];
	size_t nr = lk_command_runs(c, runs, LK_MAX_RUNS);
	int written = 0, download = 0;
	for (size_t k = 0; k < nr; k++) {
		lk_write w[LK_MAX_WRITES];
		size_t nw =
		    lk_line_writes(r, &wr, f->at, &runs[k], w, LK_MAX_WRITES);
		written |= nw > 0;
		for (size_t m = 0; m < nw; m++)
			download |= w[m].content == LK_CONTENT_DOWNLOAD;
	}
	ck_assert_msg(written == f->written && download == f->download,
	              "%s: written %d download %d", f->line, written, download);
	ck_assert(!lk_writers_failed(&wr));
	lk_writers_free(&wr);
	locus_shell_result_free(r);
}
END_TEST

/* A search lists the writes in source order, each once, whichever keys
   found it (a scan's order: the first reason and the LK_MAX_WRITES cut
   depend on it). */
START_TEST(test_writes_order)
{
	static const char line[] =
	    "echo a > x; echo b > y; echo c > d/x; : > x; python3 -m x";
	locus_shell_result *r = locus_shell_parse(line, strlen(line), NULL);
	ck_assert_ptr_nonnull(r);
	lk_writers wr;
	lk_line_writers(r, &wr);
	ck_assert_uint_eq(wr.nwriters, 4);
	lk_run run = {"d/x", 0, LK_MATCH_BASE, LK_RUN_SHELL};
	lk_write w[LK_MAX_WRITES];
	size_t nw = lk_line_writes(r, &wr, 4, &run, w, LK_MAX_WRITES);
	ck_assert_uint_eq(nw, 3);
	ck_assert_uint_eq(w[0].by, 0);
	ck_assert_uint_eq(w[1].by, 2);
	ck_assert_uint_eq(w[2].by, 3);
	/* the cut at `max` keeps the first ones */
	ck_assert_uint_eq(lk_line_writes(r, &wr, 4, &run, w, 2), 2);
	ck_assert_uint_eq(w[1].by, 2);
	/* d/x is under its basename and its directory: listed once */
	lk_run mod = {"d", 0, LK_MATCH_MODULE, LK_RUN_INTERP};
	ck_assert_uint_eq(lk_line_writes(r, &wr, 4, &mod, w, LK_MAX_WRITES), 1);
	ck_assert_uint_eq(w[0].by, 2);
	ck_assert(!lk_writers_failed(&wr));
	lk_writers_free(&wr);
	locus_shell_result_free(r);
}
END_TEST

/* One sed address reader (knowledge/sed.h): where the addresses end, or
   NULL where GNU sed refuses them. */
static const struct {
	const char *script;
	long end; /* bytes of address; -1: refused */
	          /* clang-format off */
} sed_addrs[] = {
    {"p", 0},         {"12p", 2},        {"$p", 1},
                  /* clang-format on */
    {"1~3p", 3},
    {"2,~4p", 4},
    {"2,+3p", 4},
    {"/a/p", 3},
    {"/a\\/b/Ip", 7},
    {"\\%a%Mp", 5},
    {"0,/x/ e ls", 5},
    {"/a", -1},
    {"\\\\a\\\\p", -1},
    {"\\\na\np", -1},
    {"\\", -1},
};

START_TEST(test_sed_address)
{
	const char *s = sed_addrs[_i].script;
	const char *e = lk_sed_address(s);
	if (sed_addrs[_i].end < 0)
		ck_assert_msg(e == NULL, "%s: read as an address", s);
	else
		ck_assert_msg(e && e - s == sed_addrs[_i].end,
		              "%s: address ends at %ld", s,
		              e ? (long)(e - s) : -1L);
}
END_TEST

/* lk_reads_word over the at, make and crontab rows. */
static const struct {
	const char *prog, *word;
	unsigned bits;
	const char *value;
} reads_words[] = {
    {"at", "-f", LK_RW_FILE | LK_RW_NEXT, NULL},
    {"at", "-mf", LK_RW_FILE | LK_RW_NEXT, NULL},
    {"at", "-fjob", LK_RW_FILE, "job"},
    {"at", "-qf", 0, NULL}, /* queue f */
    {"at", "-q", LK_RW_NEXT, NULL},
    {"at", "-qa", 0, NULL},
    {"at", "-l", LK_RW_QUERY, NULL},
    {"at", "-lf", LK_RW_QUERY | LK_RW_FILE | LK_RW_NEXT, NULL},
    {"at", "now", 0, NULL},
    {"at", "-", 0, NULL},
    {"batch", "-f", LK_RW_FILE | LK_RW_NEXT, NULL},
    {"make", "--file", LK_RW_FILE | LK_RW_NEXT, NULL},
    {"make", "--makefile=mk", LK_RW_FILE, "mk"},
    {"make", "--files", 0, NULL},
    {"make", "-sf", LK_RW_FILE | LK_RW_NEXT, NULL},
    {"make", "-Cf", 0, NULL},
    {"make", "-C", LK_RW_NEXT, NULL},
    {"crontab", "-u", LK_RW_NEXT, NULL},
    {"crontab", "-s", 0, NULL},
    {"crontab", "-l", LK_RW_QUERY, NULL},
};

START_TEST(test_reads_word)
{
	const lk_program *p = lk_program_find(reads_words[_i].prog);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(p->reads);
	const char *v;
	unsigned bits = lk_reads_word(p->reads, reads_words[_i].word, &v);
	ck_assert_msg(bits == reads_words[_i].bits, "%s %s: bits %u",
	              reads_words[_i].prog, reads_words[_i].word, bits);
	if (reads_words[_i].value)
		ck_assert_str_eq(v, reads_words[_i].value);
	else
		ck_assert_ptr_null(v);
}
END_TEST

/* lk_optspec_word over read-only rows' grammars (lk_program.read_opts):
   -1 for what the grammar does not name, else the value words taken. */
static const struct {
	const char *prog, *word;
	int taken;
} optspec_words[] = {
    {"ps", "-ef", 0},
    {"ps", "-p", 1},
    {"ps", "-p123", 0},
    {"ps", "-eo", 1}, /* e, then o takes the next word */
    {"ps", "--pid=1", 0},
    {"ps", "--pid", 1},
    {"ps", "--forest", 0},
    {"ps", "--forest=x", -1}, /* a flag given a value */
    {"ps", "--for", -1},      /* never an abbreviation */
    {"ps", "-E", -1},
    {"bat", "--paging=never", 0},
    {"bat", "--pager=reboot", -1},
    {"bat", "--pag=reboot", -1},
    {"bat", "-n", 0},
    {"bat", "--help", 0},
    {"bat", "--version", 0},
    {"bat", "--", -1},
    {"bat", "-", -1},
    {"sdiff", "--diff-program=x", -1},
    {"sdiff", "-s", -1}, /* no grammar: nothing is known */
    {"yq", "-i", -1},
    {"yq", "-r", 0},
    {"yq", "-ro", 1},
    {"yq", "-oyaml", 0},
    {"dmesg", "-T", 0},
    {"dmesg", "-C", -1},
    {"dmesg", "-c", -1},
    {"ss", "-tlnp", 0},
    {"ss", "-K", -1},
    {"ss", "-tK", -1},
    {"journalctl", "--vacuum-time=1s", -1},
    {"journalctl", "--no-pager", 0},
    {"journalctl", "-n", 0}, /* an optional count, attached only */
    {"journalctl", "--lines=5", 0},
    {"journalctl", "--lines", 0}, /* optional: after '=' only */
    {"readelf", "-wi", 0},        /* optional value, attached */
    {"nm", "--plugin", -1},
    {"man", "-P", -1},
    {"man", "-k", 0},
    {"dpkg", "-i", -1},
    {"dpkg", "-l", 0},
    {"fd", "-x", LK_OPTW_COMMAND},
    {"fd", "-Hx", LK_OPTW_COMMAND},
    {"fd", "--exec", LK_OPTW_COMMAND},
    {"fd", "--exec-batch", LK_OPTW_COMMAND},
    {"fd", "-xrm", -1}, /* the command in the word: the parser unparses */
    {"fd", "--exec=rm", -1},
    {"ag", "-A", 0}, /* an optional number, attached only */
    {"ack", "-C", 0},
    {"journalctl", "-n5", 0},
    {"man", "-C", -1},
    {"man", "-u", -1},
    {"getent", "-s", -1},
    {"lspci", "-q", -1},
    {"yq", "-s", -1},
};

START_TEST(test_optspec_word)
{
	const lk_program *p = lk_program_find(optspec_words[_i].prog);
	ck_assert_ptr_nonnull(p);
	int k = lk_optspec_word(p->read_opts, optspec_words[_i].word);
	ck_assert_msg(k == optspec_words[_i].taken, "%s %s: %d",
	              optspec_words[_i].prog, optspec_words[_i].word, k);
}
END_TEST

/* lk_cluster_value: perl's and ruby's letters with a value of some
   characters only (the index past the value, -1 for "not such a letter"). */
static const struct {
	const char *spec;
	char letter;
	const char *rest;
	int end;
	/* clang-format off */
} cluster_values[] = {
    {"l:#|0:#|d:t=", 'l', "e", 0},       /* -le: no digits, e follows */
    /* clang-format on */
    {"l:#|0:#|d:t=", 'l', "012e", 3},   /* -l012e */
    {"l:#|0:#|d:t=", '0', "777", 3},    /* -0777 */
    {"l:#|0:#|d:t=", '0', "x0ae", 4},   /* -0x0ae: hex to the end */
    {"l:#|0:#|d:t=", 'd', ":Trace", 6}, /* -d:Trace: the rest */
    {"l:#|0:#|d:t=", 'd', "te", 1},     /* -dte: t, then e */
    {"l:#|0:#|d:t=", 'e', "x", -1},
    {"K:1esun|W:#=", 'K', "ue", 1}, /* one letter only */
    {"K:1esun|W:#=", 'W', "0e", 1},
    {"K:1esun|W:#=", 'W', ":no-x", 5},
    {"i:*|D:*", 'i', ".bak", 4}, /* -i.bak */
    {"i:*|D:*", 'i', " -e", 0},  /* stops at a blank */
    {"i:*|D:*", 'D', "x -e", 1},
    {NULL, 'l', "e", -1},
};

START_TEST(test_cluster_value)
{
	const char *r = cluster_values[_i].rest;
	const char *e = lk_cluster_value(cluster_values[_i].spec,
	                                 cluster_values[_i].letter, r);
	int got = e ? (int)(e - r) : -1;
	ck_assert_msg(got == cluster_values[_i].end, "%c%s: %d",
	              cluster_values[_i].letter, r, got);
}
END_TEST

/* lk_sed_walk: the files a script reads or writes, as "cmd:name;". */
static void collect_file(void *arg, char cmd, const char *name, size_t n)
{
	char *out = arg;
	size_t len = strlen(out);
	snprintf(out + len, 128 - len, "%c:%.*s;", cmd, (int)n, name);
}

static const struct {
	const char *script, *files;
	bool ok;
	/* clang-format off */
} sed_walks[] = {
    {"1r .env", "r:.env;", true},
    /* clang-format on */
    {"1R   x y", "R:x y;", true},
    {"/a/w out\np", "w:out;", true},
    {"s/a/b/gw /tmp/x", "w:/tmp/x;", true},
    {"s|a|b|;p", "", true},
    {"y/ab/cd/;r f", "r:f;", true},
    {"$!{N;D}", "", true},
    {"1e ls", "", true},
    {":a;1r x", "r:x;", true},         /* a label ends at ; */
    {":a 1r x", "r:x;", true},         /* or a blank */
    {"1i\\\ns#x\n1r y", "r:y;", true}, /* the text is one line */
    {"1a t\\\n1r y", "", true},        /* an escaped newline goes on */
    {"s/a", "", false},                /* unterminated */
    {"k", "", false},                  /* no such command */
};

START_TEST(test_sed_walk)
{
	char got[128] = "";
	const lk_sed_visitor v = {NULL, NULL, collect_file};
	bool ok = lk_sed_walk(sed_walks[_i].script, &v, got);
	ck_assert_msg(ok == sed_walks[_i].ok, "%s: ok %d", sed_walks[_i].script,
	              ok);
	ck_assert_str_eq(got, sed_walks[_i].files);
}
END_TEST

/* lk_sed_scripts: the scripts of a sed command line (words split at
   blanks), as "kind:index:text;". */
static const char *split_word(const void *words, size_t i)
{
	return ((const char *const *)words)[i];
}

static void collect_script(void *arg, size_t i, char kind, const char *text)
{
	char *out = arg;
	size_t len = strlen(out);
	snprintf(out + len, 160 - len, "%c:%zu:%s;", kind, i, text);
}

static const struct {
	const char *line, *scripts;
	/* clang-format off */
} sed_lines[] = {
    {"sed 1p f", "e:1:1p;"},
    /* clang-format on */
    {"sed -ifoo 1e f", "e:2:1e;"},           /* -i's suffix is foo */
    {"sed -ns -ifoo 1e f", "e:3:1e;"},       /* not -f oo */
    {"sed -ie s/a/b/ f", "e:2:s/a/b/;"},     /* -i with suffix e */
    {"sed --line-length 5 1e f", "e:3:1e;"}, /* 5 is its value */
    {"sed --e=1e f", "e:1:1e;"},
    {"sed --exp 1e f", "e:2:1e;"},
    {"sed --fi=- f", "f:1:-;"},
    {"sed -nf x.sed f", "f:2:x.sed;"},
    {"sed -fx.sed f", "f:1:x.sed;"},
    {"sed f -e 1e", "e:3:1e;"},  /* options after operands */
    {"sed -- -e f", "e:2:-e;"},  /* after --: the first operand */
    {"sed --s 1e f", "e:2:1e;"}, /* ambiguous: refused, skipped */
    {"sed -e", ""},              /* no value: sed fails */
    {"sed -l 9 1p", "e:3:1p;"},
    {"sed -zEe p -e q f", "e:2:p;e:4:q;"},
};

START_TEST(test_sed_scripts)
{
	char buf[160], got[160] = "";
	const char *words[16];
	size_t n = 0;
	snprintf(buf, sizeof buf, "%s", sed_lines[_i].line);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && n < 16;
	     w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	const lk_sed_args a = {split_word, words, 1, n, collect_script, got};
	lk_sed_scripts(&a);
	ck_assert_msg(!strcmp(got, sed_lines[_i].scripts), "%s: %s",
	              sed_lines[_i].line, got);
}
END_TEST

START_TEST(test_git_rows)
{
	const lk_git_runner *r = lk_git_runner_find("submodule");
	ck_assert(r && !strcmp(r->verb, "foreach") && r->verb_opts && !r->argv);
	r = lk_git_runner_find("bisect");
	ck_assert(r && !strcmp(r->verb, "run") && !r->verb_opts && r->argv);
	ck_assert_ptr_null(lk_git_runner_find("rebase"));
	ck_assert(lk_git_config_takes_value("--type"));
	ck_assert(lk_git_config_takes_value("-f"));
	ck_assert(!lk_git_config_takes_value("--global"));
	ck_assert(!lk_git_config_takes_value("--type=bool"));
	const char *const cfg[] = {"--global",   "--type", "bool", "set",
	                           "core.pager", "less",   "-"};
	size_t ops[3];
	ck_assert_uint_eq(
	    lk_git_config_operands(lk_argv_word, cfg, 0, 7, ops, 3), 3);
	ck_assert(ops[0] == 4 && ops[1] == 5 && ops[2] == 6);
	ck_assert_uint_eq(
	    lk_git_config_operands(lk_argv_word, cfg, 0, 3, ops, 3), 0);
	ck_assert(lk_bar_has("|a|bc|", "bc", 2));
	ck_assert(!lk_bar_has("|a|bc|", "b", 1));
	ck_assert(!lk_bar_has(NULL, "a", 1));
	ck_assert(!lk_bar_has("||", "", 0));
}
END_TEST

/* Pattern options (tar --exclude, zip -x lists) and a reader's written
   tail (xxd IN OUT), read off the rows. */
START_TEST(test_operand_roles)
{
	const lk_program *tar = lk_program_find("tar");
	const lk_program *zip = lk_program_find("zip");
	const lk_program *xxd = lk_program_find("xxd");
	ck_assert(tar && zip && xxd);
	const char *const t[] = {"tar",  "--exclude=.git", "--exclude", ".git",
	                         "-czf", "x.tgz",          "."};
	ck_assert(lk_pattern_operand(tar, t, 1));
	ck_assert(lk_pattern_operand(tar, t, 3));
	ck_assert(!lk_pattern_operand(tar, t, 5));
	ck_assert(!lk_pattern_operand(tar, t, 6));
	const char *const z[] = {"zip", "-r",  "x.zip", ".", "-x",
	                         "a/*", "b/*", "-q",    "c"};
	ck_assert(lk_pattern_operand(zip, z, 5));
	ck_assert(lk_pattern_operand(zip, z, 6));
	ck_assert(!lk_pattern_operand(zip, z, 2));
	ck_assert(!lk_pattern_operand(zip, z, 8)); /* after -q: a file */
	const char *const z1[] = {"zip", "x.zip"};
	ck_assert(!lk_pattern_operand(zip, z1, 1));
	ck_assert(!lk_pattern_operand(NULL, z1, 1));
	const char *const x[] = {"xxd", "-r", "-p", "in.hex", "out"};
	ck_assert(!lk_writes_operand(xxd, x, 3));
	ck_assert(lk_writes_operand(xxd, x, 4));
	const char *const xs[] = {"xxd", "-r", "-", ".git/config"};
	ck_assert(lk_writes_operand(xxd, xs, 3));
	const lk_program *cp = lk_program_find("cp");
	const lk_program *mv = lk_program_find("mv");
	const lk_program *inst = lk_program_find("install");
	const char *const c1[] = {"cp", "-r", "a", "b", "dst"};
	ck_assert(!lk_copy_writes(cp, c1, 5, 2));
	ck_assert(!lk_copy_writes(cp, c1, 5, 3));
	ck_assert(lk_copy_writes(cp, c1, 5, 4));
	ck_assert(
	    lk_copy_writes(mv, c1, 5, 2)); /* a move changes its sources */
	const char *const c2[] = {"cp", "-rt", "dst", "a"};
	ck_assert(lk_copy_writes(cp, c2, 4, 2));
	ck_assert(!lk_copy_writes(cp, c2, 4, 3));
	const char *const c3[] = {"cp", "--target=dst", "a", "b"};
	ck_assert(lk_copy_writes(cp, c3, 4, 1));
	const char *const c4[] = {"cp", "-al", "src", "dst"};
	ck_assert(lk_copy_writes(cp, c4, 4, 2)); /* links name the source */
	const char *const c5[] = {"install", "-d", "a", "b"};
	ck_assert(lk_copy_writes(inst, c5, 4, 2));
	const char *const c6[] = {"install", "-m", "644", "a", "b"};
	ck_assert(!lk_copy_writes(inst, c6, 5, 3));
	ck_assert(lk_copy_writes(inst, c6, 5, 4));
	const lk_program *tree = lk_program_find("tree");
	const char *const tr[] = {"tree", "-ao", "out.txt", "src"};
	ck_assert(tree && lk_writes_operand(tree, tr, 2));
	ck_assert(!lk_writes_operand(tree, tr, 3));
}
END_TEST

/* python -m runners: the module run in the end, and where its
   arguments start. */
START_TEST(test_module_runs)
{
	const lk_program *py = lk_program_find("python3");
	ck_assert(py && py->interp && py->interp->modules);
	const char *const a[] = {"python3", "-m",          "cProfile",
	                         "-o",      "out",         "-m",
	                         "runpy",   "http.server", "8000"};
	size_t at = 3;
	ck_assert_str_eq(lk_module_runs(py->interp, "cProfile", a, 9, &at),
	                 "http.server");
	ck_assert_uint_eq(at, 8);
	const char *const t[] = {"python3", "-m",    "trace",  "-m",
	                         "--count", "--mod", "timeit", "x=1"};
	at = 3;
	ck_assert_str_eq(lk_module_runs(py->interp, "trace", t, 8, &at),
	                 "timeit");
	ck_assert_uint_eq(at, 7);
	const char *const s[] = {"python3", "-m", "trace", "--count", "x.py"};
	at = 3; /* no --module: x.py is a script */
	ck_assert_str_eq(lk_module_runs(py->interp, "trace", s, 5, &at),
	                 "trace");
	ck_assert_uint_eq(at, 3);
	ck_assert_str_eq(lk_module_runs(py->interp, "pytest", s, 5, &at),
	                 "pytest");
	ck_assert(lk_long_abbrev("--mod", "module", 2));
	ck_assert(lk_long_abbrev("--module=x", "module", 2));
	ck_assert(!lk_long_abbrev("--m", "module", 2));
	ck_assert(!lk_long_abbrev("--modules", "module", 2));
	ck_assert(!lk_long_abbrev("-mod", "module", 2));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("knowledge");
	TCase *tc = tcase_create("programs");
	tcase_add_loop_test(tc, test_names, 0, sizeof names / sizeof *names);
	tcase_add_test(tc, test_rows_consistent);
	tcase_add_test(tc, test_regex);
	tcase_add_loop_test(tc, test_sed_address, 0,
	                    sizeof sed_addrs / sizeof *sed_addrs);
	tcase_add_loop_test(tc, test_reads_word, 0,
	                    sizeof reads_words / sizeof *reads_words);
	tcase_add_loop_test(tc, test_optspec_word, 0,
	                    sizeof optspec_words / sizeof *optspec_words);
	tcase_add_loop_test(tc, test_cluster_value, 0,
	                    sizeof cluster_values / sizeof *cluster_values);
	tcase_add_loop_test(tc, test_sed_scripts, 0,
	                    sizeof sed_lines / sizeof *sed_lines);
	tcase_add_loop_test(tc, test_sed_walk, 0,
	                    sizeof sed_walks / sizeof *sed_walks);
	tcase_add_test(tc, test_git_rows);
	tcase_add_test(tc, test_operand_roles);
	tcase_add_test(tc, test_module_runs);
	suite_add_tcase(s, tc);
	TCase *tf = tcase_create("linefacts");
	tcase_add_loop_test(tf, test_facts, 0, sizeof facts / sizeof *facts);
	tcase_add_test(tf, test_writes_order);
	suite_add_tcase(s, tf);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
