/*
 * tests/test_cli.c - the `locus` command as a black box (LOCUS_BIN).
 *
 * Each test spawns the built binary with a given stdin and collects its
 * stdout, stderr and exit status (poll() on all three pipes, so a 1 MiB
 * input cannot deadlock against a full output pipe).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "run_locus.h"

/* Split stdout into lines; returns the count, lines in *out (malloc'd). */
static size_t split_lines(char *s, char ***out)
{
	size_t n = 0, cap = 8;
	char **v = malloc(cap * sizeof *v);
	for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof *v);
		v[n++] = line;
	}
	*out = v;
	return n;
}

static cJSON *parse_obj(const char *line)
{
	cJSON *o = cJSON_Parse(line);
	ck_assert_msg(cJSON_IsObject(o), "not a JSON object: %.200s", line);
	return o;
}

static bool has_tag(const cJSON *o, const char *tag)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(o, "tags"))
	{
		if (cJSON_IsString(t) && !strcmp(t->valuestring, tag))
			return true;
	}
	return false;
}

static const char *str_field(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ---- top level --------------------------------------------------------- */

START_TEST(help_lists_subcommands)
{
	const char *av[] = {"locus", "--help", NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	const char *names[] = {"classify", "corpus", "gate", "policy",
	                       "audit",    "tool",   "hook", "mcp"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		ck_assert_msg(strstr(r.out, names[i]), "--help lacks %s",
		              names[i]);
	run_free(&r);
}
END_TEST

START_TEST(version)
{
	const char *av[] = {"locus", "--version", NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "locus 0.3.0\n");
	run_free(&r);
}
END_TEST

START_TEST(unknown_subcommand)
{
	const char *av[] = {"locus", "frobnicate", NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_uint_eq(r.out_len, 0);
	ck_assert_ptr_nonnull(strstr(r.err, "frobnicate"));
	run_free(&r);

	const char *av2[] = {"locus", NULL};
	r = run(av2, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
}
END_TEST

/* ---- classify ---------------------------------------------------------- */

START_TEST(classify_args_are_one_command)
{
	/* joined: sudo sh -c 'rm -rf /srv' (the quotes are the shell's; a
	   path outside the workspace, on the floor) */
	const char *av[] = {"locus", "classify",      "sudo", "sh",
	                    "-c",    "'rm -rf /srv'", NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	char **lines;
	size_t n = split_lines(r.out, &lines);
	ck_assert_uint_eq(n, 1);
	cJSON *o = parse_obj(lines[0]);
	ck_assert_str_eq(str_field(o, "command"), "sudo sh -c 'rm -rf /srv'");
	ck_assert_str_eq(str_field(o, "kind"), "workspace.exec");
	ck_assert(has_tag(o, "bash"));
	ck_assert(has_tag(o, "exec:never"));
	ck_assert(cJSON_IsArray(cJSON_GetObjectItem(o, "commands")));
	cJSON_Delete(o);
	free(lines);
	run_free(&r);
}
END_TEST

/* --root DIR is the workspace root of outside-workspace. */
START_TEST(classify_and_gate_root)
{
	const char *in_root[] = {"locus", "classify", "--root", "/tmp",
	                         "--",    "cat",      "/tmp/x", NULL};
	run_out r = run(in_root, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_null(strstr(r.out, "outside-workspace"));
	run_free(&r);
	const char *out_root[] = {"locus", "classify", "--root", "/usr",
	                          "--",    "cat",      "/tmp/x", NULL};
	r = run(out_root, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\"outside-workspace\""));
	run_free(&r);
	const char *bad[] = {"locus", "classify", "--root", "/nonexistent/dir",
	                     "ls",    NULL};
	r = run(bad, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
	/* the gate holds a read outside its root under standard */
	const char *gate[] = {"locus", "gate", "--root", "/usr", NULL};
	const char *call =
	    "{\"tool\":\"read\",\"arguments\":{\"path\":\"/tmp/x\"}}\n"
	    "{\"tool\":\"read\",\"arguments\":{\"path\":\"/usr/x\"}}\n";
	r = run(gate, call, strlen(call));
	ck_assert_int_eq(r.status, 0);
	char *second = strchr(r.out, '\n');
	ck_assert_ptr_nonnull(second);
	ck_assert_ptr_nonnull(strstr(r.out, "\"outcome\":\"require_human\""));
	ck_assert(strstr(r.out, "\"outcome\":\"require_human\"") < second);
	ck_assert_ptr_nonnull(strstr(second, "\"outcome\":\"allow\""));
	run_free(&r);
}
END_TEST

/* Without --root, classify judges against the directory it was started
   in, read once (not a getcwd per line), for every stdin line
   and with --jobs; when that directory is gone every path is outside, as
   when the library itself cannot read it. */
static void classify_in(const char *dir, const char *extra)
{
	char old[4096];
	ck_assert_ptr_nonnull(getcwd(old, sizeof old));
	ck_assert_int_eq(chdir(dir), 0);
	const char *av[] = {"locus", "classify", extra, extra ? "2" : NULL,
	                    NULL};
	char in[8192];
	snprintf(in, sizeof in, "cat x\ncat %s/y\ncat /usr/z\ncat x\n", dir);
	run_out r = run(av, in, strlen(in));
	ck_assert_int_eq(chdir(old), 0);
	ck_assert_int_eq(r.status, 0);
	char **lines;
	size_t n = split_lines(r.out, &lines);
	ck_assert_uint_eq(n, 4);
	for (size_t i = 0; i < n; i++) {
		cJSON *o = parse_obj(lines[i]);
		/* only /usr/z is outside the start directory */
		ck_assert_msg(has_tag(o, "outside-workspace") == (i == 2),
		              "line %zu: %s", i, lines[i]);
		cJSON_Delete(o);
	}
	free(lines);
	run_free(&r);
}

START_TEST(classify_default_root_is_start_directory)
{
	char dir[] = "/tmp/locus-cwd-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	classify_in(dir, NULL);
	classify_in(dir, "--jobs");
	/* a directory that no longer exists: getcwd fails */
	char gone[] = "/tmp/locus-gone-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(gone));
	char old[4096];
	ck_assert_ptr_nonnull(getcwd(old, sizeof old));
	ck_assert_int_eq(chdir(gone), 0);
	ck_assert_int_eq(rmdir(gone), 0);
	const char *av[] = {"locus", "classify", NULL};
	run_out r = run(av, "cat x\n", 6);
	ck_assert_int_eq(chdir(old), 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\"outside-workspace\""));
	run_free(&r);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(classify_read_line)
{
	const char *av[] = {"locus", "classify", "ls", "-la", NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	cJSON *o = parse_obj(r.out);
	ck_assert_str_eq(str_field(o, "kind"), "workspace.read");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "tags")), 1);
	cJSON_Delete(o);
	run_free(&r);
}
END_TEST

START_TEST(classify_stdin_lines)
{
	const char *av[] = {"locus", "classify", NULL};
	const char *in = "ls -la\nrm -rf /\ngit push --force\n";
	run_out r = run(av, in, strlen(in));
	ck_assert_int_eq(r.status, 0);
	char **lines;
	size_t n = split_lines(r.out, &lines);
	ck_assert_uint_eq(n, 3);
	cJSON *a = parse_obj(lines[0]), *b = parse_obj(lines[1]),
	      *c = parse_obj(lines[2]);
	ck_assert_str_eq(str_field(a, "command"), "ls -la");
	ck_assert_str_eq(str_field(b, "command"), "rm -rf /");
	ck_assert(has_tag(b, "exec:never"));
	ck_assert(!has_tag(a, "exec:never"));
	ck_assert(has_tag(c, "exec:force-push"));
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
	free(lines);
	run_free(&r);
}
END_TEST

START_TEST(classify_stdin_last_line_without_newline)
{
	const char *av[] = {"locus", "classify", NULL};
	const char *in = "ls\nreboot";
	run_out r = run(av, in, strlen(in));
	ck_assert_int_eq(r.status, 0);
	char **lines;
	ck_assert_uint_eq(split_lines(r.out, &lines), 2);
	cJSON *o = parse_obj(lines[1]);
	ck_assert_str_eq(str_field(o, "command"), "reboot");
	cJSON_Delete(o);
	free(lines);
	run_free(&r);
}
END_TEST

START_TEST(classify_jsonl)
{
	const char *av[] = {"locus", "classify", "--jsonl", NULL};
	const char *in =
	    "{\"command\":\"cat <<EOF | sh\\nrm -rf /\\nEOF\"}\r\n"
	    "\n"
	    "{\"tool\":\"write\",\"arguments\":{\"path\":\"a.txt\","
	    "\"content\":\"x\"}}\n"
	    "{\"tool\":\"bash\",\"arguments\":{\"command\":\"sleep 1\","
	    "\"background\":true}}\n";
	run_out r = run(av, in, strlen(in));
	ck_assert_int_eq(r.status, 0);
	char **lines;
	size_t n = split_lines(r.out, &lines);
	ck_assert_uint_eq(n, 3); /* the blank line is skipped */
	cJSON *a = parse_obj(lines[0]), *b = parse_obj(lines[1]),
	      *c = parse_obj(lines[2]);
	ck_assert(has_tag(a, "exec:never"));
	ck_assert_str_eq(str_field(b, "kind"), "workspace.write");
	ck_assert_str_eq(str_field(b, "asset"), "a.txt");
	ck_assert(has_tag(b, "write"));
	ck_assert(has_tag(c, "exec:background"));
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
	free(lines);
	run_free(&r);
}
END_TEST

/* A command holding \u0000 is judged, not refused: unparsed,
   with the floor on its raw text, and every line judged exits 0. */
START_TEST(classify_jsonl_nul_command)
{
	const char *av[] = {"locus", "classify", "--jsonl", NULL};
	const char *in = "{\"command\":\"ls\\u0000; rm -rf /\"}\n"
	                 "{\"tool\":\"bash\",\"arguments\":{\"command\":"
	                 "\"rm -rf /\\u0000 ls\"}}\n"
	                 "{\"command\":\"echo a\\u0000b\"}\n";
	run_out r = run(av, in, strlen(in));
	ck_assert_int_eq(r.status, 0);
	char **lines;
	size_t n = split_lines(r.out, &lines);
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		cJSON *o = parse_obj(lines[i]);
		ck_assert_msg(!str_field(o, "error"), "%s", lines[i]);
		ck_assert(has_tag(o, "exec:unparsed"));
		ck_assert(has_tag(o, "exec:never") == (i < 2));
		cJSON_Delete(o);
	}
	free(lines);
	run_free(&r);
}
END_TEST

START_TEST(classify_pretty)
{
	const char *av[] = {"locus", "classify", "--pretty", "ls", NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	/* indented: more than one line, and still one valid JSON object */
	ck_assert_ptr_nonnull(strchr(r.out, '\n'));
	ck_assert_ptr_ne(strchr(r.out, '\n'), r.out + r.out_len - 1);
	cJSON *o = parse_obj(r.out);
	ck_assert_str_eq(str_field(o, "kind"), "workspace.read");
	cJSON_Delete(o);
	run_free(&r);
}
END_TEST

/* Lines 2-10 are errors, each with its line number.  Lines are read
   strictly (util/json.h): a key given twice (lines 8 and 9) is an error,
   not one of its values judged; invalid UTF-8 inside a string (line 11) is
   judged, unparsed, as on a plain line. */
START_TEST(classify_bad_lines_are_reported_and_skipped)
{
	const char *av[] = {"locus", "classify", "--jsonl", NULL};
	const char *in =
	    "{\"command\":\"ls\"}\n"
	    "{not json\n"
	    "{\"command\":42}\n"
	    "[1,2]\n"
	    "{\"tool\":\"nope\",\"arguments\":{}}\n"
	    "{\"other\":1}\n"
	    "{\"tool\":\"read\",\"arguments\":{\"path\":\"a\\u0000\"}}\n"
	    "{\"command\":\"ls\",\"command\":\"rm -rf /\"}\n"
	    "{\"tool\":\"bash\",\"arguments\":{\"command\":\"ls\","
	    "\"command\":\"rm -rf /\"}}\n"
	    "{\"command\":\"ls\",\"n\":01}\n"
	    "{\"command\":\"rm \xff -rf /\"}\n"
	    "{\"command\":\"reboot\"}\n";
	run_out r = run(av, in, strlen(in));
	ck_assert_int_eq(r.status, 2);
	char **lines;
	size_t n = split_lines(r.out, &lines);
	ck_assert_uint_eq(n, 12);
	for (size_t i = 1; i <= 9; i++) {
		cJSON *o = parse_obj(lines[i]);
		ck_assert_msg(str_field(o, "error"), "line %zu: %s", i + 1,
		              lines[i]);
		const cJSON *ln = cJSON_GetObjectItem(o, "line");
		ck_assert(cJSON_IsNumber(ln));
		ck_assert_int_eq(ln->valueint, (int)i + 1);
		cJSON_Delete(o);
	}
	ck_assert_ptr_nonnull(strstr(lines[7], "duplicate key \\\"command"));
	ck_assert_ptr_nonnull(strstr(lines[8], "duplicate key \\\"command"));
	ck_assert_ptr_nonnull(strstr(lines[9], "malformed number"));
	cJSON *bad = parse_obj(lines[10]);
	ck_assert(!str_field(bad, "error") && has_tag(bad, "exec:unparsed"));
	cJSON_Delete(bad);
	cJSON *last = parse_obj(lines[11]);
	ck_assert(has_tag(last, "exec:shutdown"));
	cJSON_Delete(last);
	ck_assert_ptr_nonnull(strstr(r.err, "line 2"));
	ck_assert_ptr_nonnull(strstr(r.err, "line 8: duplicate key"));
	free(lines);
	run_free(&r);
}
END_TEST

START_TEST(classify_one_mib_line)
{
	const size_t n = (size_t)1 << 20;
	char *in = malloc(n + 16);
	/* `echo aaaa...a; rm -rf /` padded past 1 MiB */
	memcpy(in, "echo ", 5);
	memset(in + 5, 'a', n - 5);
	memcpy(in + n, "; rm -rf /\n", 11);
	const char *av[] = {"locus", "classify", NULL};
	run_out r = run(av, in, n + 11);
	ck_assert_int_eq(r.status, 0);
	char **lines;
	ck_assert_uint_eq(split_lines(r.out, &lines), 1);
	cJSON *o = parse_obj(lines[0]);
	/* past the 1 MiB size limit: unparsed, and never read-only */
	ck_assert_str_eq(str_field(o, "kind"), "workspace.exec");
	ck_assert(has_tag(o, "exec:unparsed"));
	cJSON_Delete(o);
	free(lines);
	free(in);
	run_free(&r);
}
END_TEST

START_TEST(classify_nul_and_invalid_utf8)
{
	const char in[] = "ls\0; rm -rf /\n"
	                  "rm \xff\xfe -rf /\n"
	                  "ls -la\n";
	const char *av[] = {"locus", "classify", NULL};
	run_out r = run(av, in, sizeof in - 1);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_eq(memchr(r.out, '\0', r.out_len), NULL);
	char **lines;
	size_t n = split_lines(r.out, &lines);
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < 2; i++) {
		cJSON *o = parse_obj(lines[i]);
		ck_assert(has_tag(o, "exec:unparsed"));
		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(o, "parsed")));
		ck_assert_str_eq(str_field(o, "kind"), "workspace.exec");
		cJSON_Delete(o);
	}
	cJSON *o = parse_obj(lines[2]);
	ck_assert_str_eq(str_field(o, "kind"), "workspace.read");
	cJSON_Delete(o);
	free(lines);
	run_free(&r);
}
END_TEST

START_TEST(classify_cr_is_part_of_plain_line)
{
	const char *av[] = {"locus", "classify", NULL};
	const char *in = "ls\r\n";
	run_out r = run(av, in, strlen(in));
	ck_assert_int_eq(r.status, 0);
	cJSON *o = parse_obj(r.out);
	ck_assert_str_eq(str_field(o, "command"), "ls\r");
	cJSON_Delete(o);
	run_free(&r);
}
END_TEST

/* Every subcommand's options go through one table (cli/opts.c): an option
   that takes a value, given last, is the same usage error everywhere, and
   the Claude settings options keep their cap (16) in hook as elsewhere. */
START_TEST(options_missing_value)
{
	const char *cases[][5] = {
	    {"gate", "--policy", NULL},
	    {"gate", "--exit-code", "--root", NULL},
	    {"policy", "show", "--preset", NULL},
	    {"hook", "claude-code", "--root", NULL},
	    {"mcp", "--backend", NULL},
	    {"audit", "transcripts", "--policy", NULL},
	    {"policy", "fuzz", "--count", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *av[7] = {"locus"};
		size_t n = 1;
		for (size_t k = 0; cases[i][k]; k++)
			av[n++] = cases[i][k];
		run_out r = run(av, "", 0);
		char want[80];
		snprintf(want, sizeof want,
		         ": unknown or incomplete option '%s'", av[n - 1]);
		ck_assert_msg(r.status == 2 && strstr(r.err, want),
		              "%s %s: %d %s", av[1], av[n - 1], r.status,
		              r.err);
		run_free(&r);
	}
	const char *av[40] = {"locus", "hook", "claude-code"};
	for (size_t k = 0; k < 17; k++) {
		av[3 + 2 * k] = "--claude-settings";
		av[4 + 2 * k] = "/nonexistent";
	}
	run_out r = run(av, "", 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "at most 16 --claude-settings"));
	run_free(&r);
}
END_TEST

START_TEST(classify_unknown_option)
{
	const char *av[] = {"locus", "classify", "--frob", "ls", NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
	const char *av2[] = {"locus", "classify", "--", "--frob", NULL};
	r = run(av2, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	cJSON *o = parse_obj(r.out);
	ck_assert_str_eq(str_field(o, "command"), "--frob");
	cJSON_Delete(o);
	run_free(&r);
}
END_TEST

/* ---- corpus ------------------------------------------------------------ */

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/locus-cli-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -r '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* The last line of the output. */
static const char *last_line(run_out *r)
{
	while (r->out_len && r->out[r->out_len - 1] == '\n')
		r->out[--r->out_len] = '\0';
	const char *nl = strrchr(r->out, '\n');
	return nl ? nl + 1 : r->out;
}

START_TEST(corpus_counts_passes_and_failures)
{
	make_tmpdir();
	write_file("a.txt", "# two passing cases\n"
	                    "$ ls -la\n"
	                    "kind: workspace.read\n"
	                    "tags: bash\n"
	                    "\n"
	                    "$ rm -rf /srv\n"
	                    "tags+: exec:destructive exec:never\n"
	                    "tags-: exec:check\n");
	write_file("b.txt", "# a deliberately wrong expectation\n"
	                    "$ rm -rf build\n"
	                    "kind: workspace.read\n"
	                    "\n"
	                    "$e ls\\0\n"
	                    "parsed: false\n"
	                    "\n"
	                    "$ cat <<EOF | sh\n"
	                    "> rm -rf /\n"
	                    "> EOF\n"
	                    "tags+: exec:never\n");
	write_file("ignored.md", "$ ls\nkind: nonsense\n");
	const char *av[] = {"locus", "corpus", tmpdir, NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.out, "FAIL "));
	ck_assert_ptr_nonnull(strstr(r.out, "b.txt:2"));
	ck_assert_ptr_nonnull(strstr(r.out, "expected workspace.read"));
	ck_assert_str_eq(last_line(&r), "4 passed, 1 failed");
	run_free(&r);

	/* one file alone, all passing: exit 0 */
	char path[256];
	snprintf(path, sizeof path, "%s/a.txt", tmpdir);
	const char *av2[] = {"locus", "corpus", path, NULL};
	r = run(av2, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "2 passed, 0 failed\n");
	run_free(&r);
	remove_tmpdir();
}
END_TEST

START_TEST(corpus_format_errors)
{
	make_tmpdir();
	write_file("bad.txt", "$ ls\n"
	                      "colour: blue\n"
	                      "\n"
	                      "$ ls\n"
	                      "\n"
	                      "$e ls\\q\n"
	                      "kind: workspace.read\n");
	/* The JSON in a case (`tool:` calls, `command:` objects) is read
	   strictly (util/json.h): a duplicate key or text after the value is
	   refused, not half-read; the same cases well-formed pass. */
	write_file(
	    "j.txt",
	    "tool: {\"tool\":\"bash\",\"arguments\":{\"command\":"
	    "\"ls\"}}\n"
	    "kind: workspace.read\n"
	    "\n"
	    "tool: {\"tool\":\"bash\",\"tool\":\"read\","
	    "\"arguments\":{}}\n"
	    "kind: workspace.read\n"
	    "\n"
	    "tool: {\"tool\":\"bash\",\"arguments\":{}} x\n"
	    "kind: workspace.read\n"
	    "\n"
	    "$ ls -la\n"
	    "command: ls {\"argv\":[\"ls\",\"-la\"]}\n"
	    "\n"
	    "$ ls -la\n"
	    "command: ls {\"argv\":[\"ls\"],\"argv\":[\"ls\",\"-la\"]}\n");
	const char *av[] = {"locus", "corpus", tmpdir, NULL};
	run_out r = run(av, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.out, "FORMAT"));
	ck_assert_ptr_nonnull(strstr(r.out, "j.txt:4: tool: needs {\"tool\": "
	                                    "STRING, \"arguments\": OBJECT} "
	                                    "(duplicate key)"));
	ck_assert_ptr_nonnull(strstr(r.out, "j.txt:7: tool: needs {\"tool\": "
	                                    "STRING, \"arguments\": OBJECT} "
	                                    "(text after the JSON value)"));
	ck_assert_ptr_nonnull(strstr(r.out, "FAIL "));
	ck_assert_ptr_nonnull(strstr(r.out, "j.txt:13"));
	ck_assert_ptr_nonnull(strstr(r.out, "command: bad JSON in the "
	                                    "expectation (duplicate key)"));
	ck_assert_str_eq(last_line(&r), "2 passed, 6 failed");
	run_free(&r);
	remove_tmpdir();

	const char *av2[] = {"locus", "corpus", NULL};
	r = run(av2, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
	const char *av3[] = {"locus", "corpus", "/nonexistent/corpus", NULL};
	r = run(av3, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	run_free(&r);
}
END_TEST

/* --claude-settings (repeatable) and --claude-project DIR work the same in
   gate, policy show and mcp as in hook (docs/integrations.md). */
START_TEST(claude_project_everywhere)
{
	make_tmpdir();
	char home[160], proj[160];
	snprintf(home, sizeof home, "%s/home", tmpdir);
	snprintf(proj, sizeof proj, "%s/p", tmpdir);
	ck_assert_int_eq(mkdir(home, 0700), 0);
	ck_assert_int_eq(mkdir(proj, 0700), 0);
	char claude_dir[200];
	snprintf(claude_dir, sizeof claude_dir, "%s/.claude", proj);
	ck_assert_int_eq(mkdir(claude_dir, 0700), 0);
	write_file("p/.claude/settings.json",
	           "{\"permissions\":{\"deny\":[\"Bash(rm:*)\"]}}");
	write_file("p/.claude/settings.local.json",
	           "{\"permissions\":{\"ask\":[\"Read(./secret/**)\"]}}");
	write_file("extra.json",
	           "{\"permissions\":{\"deny\":[\"Bash(curl:*)\"]}}");
	/* the user's own settings are read from $HOME: keep it empty */
	ck_assert_int_eq(setenv("HOME", home, 1), 0);
	char extra[200];
	snprintf(extra, sizeof extra, "%s/extra.json", tmpdir);

	const char *show[] = {"locus",
	                      "policy",
	                      "show",
	                      "--compact",
	                      "--claude-project",
	                      proj,
	                      "--claude-settings",
	                      extra,
	                      NULL};
	run_out r = run(show, NULL, 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "\"Bash(rm:*)\"") &&
	                  strstr(r.out, "\"Read(./secret/**)\"") &&
	                  strstr(r.out, "\"Bash(curl:*)\""),
	              "%s", r.out);
	run_free(&r);

	const char *gate[] = {
	    "locus",  "gate", "--preset",         "permissive",
	    "--root", proj,   "--claude-project", proj,
	    NULL};
	const char *calls =
	    "{\"tool\":\"bash\",\"arguments\":{\"command\":\"rm -f x\"}}\n"
	    "{\"tool\":\"read\",\"arguments\":{\"path\":\"secret/k\"}}\n"
	    "{\"tool\":\"bash\",\"arguments\":{\"command\":\"ls\"}}\n";
	r = run(gate, calls, strlen(calls));
	ck_assert_int_eq(r.status, 0);
	char *l2 = strchr(r.out, '\n'), *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
	ck_assert_ptr_nonnull(l3);
	*l2 = *l3 = '\0';
	ck_assert_msg(strstr(r.out, "\"outcome\":\"deny\""), "%s", r.out);
	ck_assert_msg(strstr(l2 + 1, "\"outcome\":\"require_human\""), "%s",
	              l2 + 1);
	ck_assert_msg(strstr(l3 + 1, "\"outcome\":\"allow\""), "%s", l3 + 1);
	run_free(&r);

	const char *mcp[] = {"locus",  "mcp",      "--backend",
	                     "local",  "--preset", "permissive",
	                     "--root", proj,       "--claude-project",
	                     proj,     NULL};
	const char *msgs =
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"2025-11-25\"}}\n"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/"
	    "call\",\"params\":"
	    "{\"name\":\"bash\",\"arguments\":{\"command\":\"rm -f "
	    "keep\"}}}\n";
	write_file("p/keep", "x");
	r = run(mcp, msgs, strlen(msgs));
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "\"id\":2") &&
	                  strstr(r.out, "\\\"status\\\":\\\"denied\\\""),
	              "%s", r.out);
	char keep[200];
	snprintf(keep, sizeof keep, "%s/keep", proj);
	ck_assert_int_eq(access(keep, F_OK), 0);
	run_free(&r);

	/* a project that is not a folder, and too many files: exit 2 */
	const char *bad_show[] = {"locus",          "policy",
	                          "show",           "--claude-project",
	                          "/nonexistent/p", NULL};
	const char *bad_gate[] = {"locus", "gate", "--claude-project",
	                          "/nonexistent/p", NULL};
	const char *bad_mcp[] = {
	    "locus",  "mcp", "--backend",        "local",
	    "--root", proj,  "--claude-project", "/nonexistent/p",
	    NULL};
	const char *const *bad[] = {bad_show, bad_gate, bad_mcp};
	for (size_t i = 0; i < 3; i++) {
		r = run(bad[i], "", 0);
		ck_assert_int_eq(r.status, 2);
		ck_assert_ptr_nonnull(strstr(r.err, "not a folder"));
		run_free(&r);
	}
	const char *many[40] = {"locus", "gate"};
	size_t n = 2;
	for (int k = 0; k < 17; k++) {
		many[n++] = "--claude-settings";
		many[n++] = extra;
	}
	many[n] = NULL;
	r = run(many, "", 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "at most 16"));
	run_free(&r);
	remove_tmpdir();
}
END_TEST

/* --jobs N: the same bytes as one job, in input order, and the same exit
   status (docs/batch.md).  The ThreadSanitizer run is tests/test_tsan.sh. */
START_TEST(jobs_same_output)
{
	/* clang-format off */
	static const char *const samples[] = {
	    "ls -la", "rm -rf /", "git push --force origin main",
	    "curl -s x | sh", "echo 'unterminated", "sudo env X=1 sh -c id",
	    "cat README.md | grep x", "find . -delete"};
	/* clang-format on */
	char *lines = NULL;
	size_t len = 0;
	for (int k = 0; k < 600; k++) {
		const char *l = samples[k % 8];
		append(&lines, &len, l, strlen(l));
		char tail[32];
		int n = snprintf(tail, sizeof tail, " # %d\n", k);
		append(&lines, &len, tail, (size_t)n);
	}
	const char *one[] = {"locus", "classify", NULL};
	const char *four[] = {"locus", "classify", "--jobs", "4", NULL};
	run_out a = run(one, lines, len), b = run(four, lines, len);
	ck_assert_int_eq(a.status, 0);
	ck_assert_int_eq(b.status, 0);
	ck_assert_uint_eq(a.out_len, b.out_len);
	ck_assert_int_eq(memcmp(a.out, b.out, a.out_len), 0);
	run_free(&a);
	run_free(&b);
	free(lines);

	const char *jl = "{\"command\":\"ls\"}\nnot json\n\n"
	                 "{\"tool\":\"read\",\"arguments\":{\"path\":\"x\"}}\n"
	                 "{\"command\":7}\n{\"command\":\"rm -rf ~\"}\n";
	const char *j1[] = {"locus", "classify", "--jsonl", NULL};
	const char *j3[] = {"locus",  "classify", "--jsonl",
	                    "--jobs", "3",        NULL};
	a = run(j1, jl, strlen(jl));
	b = run(j3, jl, strlen(jl));
	ck_assert_int_eq(a.status, 2);
	ck_assert_int_eq(b.status, 2);
	ck_assert_str_eq(a.out, b.out);
	ck_assert_str_eq(a.err, b.err);
	run_free(&a);
	run_free(&b);

	const char *bad[][5] = {{"locus", "classify", "--jobs", "0", NULL},
	                        {"locus", "corpus", "--jobs", "x", NULL},
	                        {"locus", "classify", "--jobs", "257", NULL}};
	for (int k = 0; k < 3; k++) {
		a = run(bad[k], "", 0);
		ck_assert_int_eq(a.status, 2);
		ck_assert_ptr_nonnull(strstr(a.err, "--jobs"));
		run_free(&a);
	}

	const char *src = getenv("LOCUS_SOURCE_ROOT");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/corpus/shell", src ? src : ".");
	const char *c1[] = {"locus", "corpus", dir, NULL};
	const char *c4[] = {"locus", "corpus", "--jobs", "4", dir, NULL};
	a = run(c1, NULL, 0);
	b = run(c4, NULL, 0);
	ck_assert_int_eq(a.status, b.status);
	ck_assert_str_eq(a.out, b.out);
	ck_assert_ptr_nonnull(strstr(b.out, " passed, 0 failed"));
	run_free(&a);
	run_free(&b);
}
END_TEST

/* ---- every --help exits 0, errors say what is wrong -------- */

START_TEST(every_help_exits_zero)
{
	const char *cases[][4] = {
	    {"audit", "verify", "--help", NULL},
	    {"tool", "--help", NULL},
	    {"hook", "install", "--help", NULL},
	    {"hook", "doctor", "--help", NULL},
	    {"classify", "--help", NULL},
	    {"corpus", "--help", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *av[6] = {"locus"};
		size_t n = 1;
		for (size_t k = 0; cases[i][k]; k++)
			av[n++] = cases[i][k];
		run_out r = run(av, "", 0);
		ck_assert_msg(r.status == 0 && strstr(r.out, "usage: locus"),
		              "%s %s: %d %s", av[1], av[2], r.status, r.err);
		run_free(&r);
	}
}
END_TEST

START_TEST(errors_name_the_problem)
{
	/* --root with no value: the value is missing, not "unknown" */
	const char *av[] = {"locus", "classify", "--root", NULL};
	run_out r = run(av, "", 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "--root needs a value"));
	run_free(&r);

	/* an unknown corpus option fails before any case runs */
	make_tmpdir();
	write_file("a.txt", "$ ls\nkind: workspace.read\n");
	const char *av2[] = {"locus", "corpus", "--bogus", tmpdir, NULL};
	r = run(av2, NULL, 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "unknown option '--bogus'"));
	ck_assert_ptr_null(strstr(r.out, "passed"));
	run_free(&r);
	remove_tmpdir();

	/* a policy that cannot be read: the subcommand, the path once */
	const char *av3[] = {"locus", "gate", "--policy", "/nonexistent/p.json",
	                     NULL};
	r = run(av3, "", 0);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "locus gate: "));
	const char *p = strstr(r.err, "/nonexistent/p.json");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_null(strstr(p + 1, "/nonexistent/p.json"));
	run_free(&r);

	/* the runner without its environment names the variable */
	unsetenv("LOCUS_ADMIT_URL");
	unsetenv("LOCUS_ADMIT_TOKEN_FD");
	const char *av4[] = {"locus", "runner", NULL};
	r = run(av4, "", 0);
	ck_assert_int_eq(r.status, 1);
	ck_assert_ptr_nonnull(strstr(r.err, "LOCUS_ADMIT_URL is unset"));
	ck_assert_ptr_null(strstr(r.err, "runner.log"));
	run_free(&r);
}
END_TEST

/* classify --jsonl reads agents' tool calls as `locus gate` does */
START_TEST(classify_jsonl_agent_names)
{
	const char *av[] = {"locus", "classify", "--jsonl", NULL};
	const char *in = "{\"tool\":\"Bash\",\"arguments\":{\"command\":"
	                 "\"rm -rf /\"}}\n"
	                 "{\"tool\":\"Write\",\"arguments\":{\"file_path\":"
	                 "\"a.txt\",\"content\":\"x\"}}\n";
	run_out r = run(av, in, strlen(in));
	ck_assert_msg(r.status == 0, "%s", r.err);
	char **lines;
	size_t n = split_lines(r.out, &lines);
	ck_assert_uint_eq(n, 2);
	cJSON *a = parse_obj(lines[0]), *b = parse_obj(lines[1]);
	ck_assert(has_tag(a, "exec:never"));
	ck_assert_str_eq(str_field(b, "kind"), "workspace.write");
	ck_assert_str_eq(str_field(b, "asset"), "a.txt");
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(lines);
	run_free(&r);
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *t = tcase_create("main");
	tcase_add_test(t, help_lists_subcommands);
	tcase_add_test(t, version);
	tcase_add_test(t, unknown_subcommand);
	suite_add_tcase(s, t);
	t = tcase_create("classify");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, classify_args_are_one_command);
	tcase_add_test(t, classify_read_line);
	tcase_add_test(t, classify_and_gate_root);
	tcase_add_test(t, classify_default_root_is_start_directory);
	tcase_add_test(t, classify_stdin_lines);
	tcase_add_test(t, classify_stdin_last_line_without_newline);
	tcase_add_test(t, classify_jsonl);
	tcase_add_test(t, classify_jsonl_nul_command);
	tcase_add_test(t, classify_pretty);
	tcase_add_test(t, classify_bad_lines_are_reported_and_skipped);
	tcase_add_test(t, classify_one_mib_line);
	tcase_add_test(t, classify_nul_and_invalid_utf8);
	tcase_add_test(t, classify_cr_is_part_of_plain_line);
	tcase_add_test(t, classify_unknown_option);
	tcase_add_test(t, options_missing_value);
	suite_add_tcase(s, t);
	t = tcase_create("corpus");
	tcase_add_test(t, corpus_counts_passes_and_failures);
	tcase_add_test(t, corpus_format_errors);
	tcase_add_test(t, claude_project_everywhere);
	tcase_add_test(t, jobs_same_output);
	tcase_add_test(t, every_help_exits_zero);
	tcase_add_test(t, errors_name_the_problem);
	tcase_add_test(t, classify_jsonl_agent_names);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cli_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
