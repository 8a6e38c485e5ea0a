/*
 * cli/classify.c - `locus classify`: label bash lines (spec shell.md s. 3).
 *
 *   locus classify [--pretty] [--root DIR] [--] WORD...
 *                                            the words joined by one space
 *                                            form ONE command
 *   locus classify [--pretty]                one command per stdin line
 *   locus classify [--pretty] --jsonl        one JSON object per stdin line:
 *       {"command": "..."}                   a bash line (may hold newlines)
 *       {"tool": NAME, "arguments": {...}}   a tool call: its full Action
 *
 * One JSON object is printed per input, in input order (locus_action_json
 * with the commands).  A malformed input line prints {"error":..,"line":N}
 * in its place and a message on stderr; the other lines are still
 * processed and the exit status is 2.  Exit 1 on memory or output failure.
 *
 * --jobs N classifies stdin lines on N threads, one parser each, in blocks
 * of BATCH_LINES lines; each line's output is captured and the block is
 * printed in input order, so the output is the bytes --jobs 1 prints.
 *
 * Bytes: lines are taken with the length getline() reports, so NUL bytes
 * and invalid UTF-8 reach the analyzer as data (which calls such a line
 * unparsed).  In plain-line mode only the "\n" is removed: a "\r" before it
 * is part of the command, as it would be for bash.  In --jsonl mode a
 * trailing "\r" is JSON whitespace and is dropped, and blank lines are
 * skipped.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "locus/labels.h"
#include "cli.h"
#include "parallel.h"
#include "../util/json.h"
#include "../util/tools.h"

#define BATCH_LINES 1024               /* lines per block with --jobs */
#define BATCH_BYTES ((size_t)32 << 20) /* or this much text */

typedef struct classify_ctx {
	locus_shell_parser *parser; /* one parser for every line */
	unsigned json_flags;        /* LOCUS_JSON_* */
	int status;                 /* 0, 2 after a malformed line */
	bool fatal;                 /* out of memory: stop */
	locus_action_options opts;  /* the workspace root (--root) */
	FILE *out, *err;            /* stdout, stderr (or a capture) */
} classify_ctx;

static void classify_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: locus classify [--pretty] [--root DIR] [--] COMMAND "
	    "WORDS...\n"
	    "       locus classify [--pretty] [--root DIR] < lines\n"
	    "       locus classify [--pretty] [--root DIR] --jsonl < objects\n"
	    "       (with stdin: --jobs N classifies on N threads, output "
	    "in input order)\n"
	    "\n"
	    "--root DIR is the workspace root for the outside-workspace\n"
	    "label (default: the current directory).\n"
	    "Prints one JSON object per command: kind, tags, never, reasons\n"
	    "and the simple commands found.  With arguments, all of them\n"
	    "joined by one space are one command.  With --jsonl each line\n"
	    "is {\"command\": STRING} or a tool call {\"tool\": NAME,\n"
	    "\"arguments\": OBJECT}.  A malformed line prints\n"
	    "{\"error\": ..., \"line\": N}; the exit status is then 2.\n");
}

/* Print the error object for input line `line` and note the failure. */
static void emit_error(classify_ctx *c, unsigned long line, const char *msg)
{
	cJSON *o = cJSON_CreateObject();
	char *txt = NULL;
	if (o && cJSON_AddStringToObject(o, "error", msg) &&
	    cJSON_AddNumberToObject(o, "line", (double)line))
		txt = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!txt) {
		c->fatal = true;
		return;
	}
	fprintf(c->out, "%s\n", txt);
	cJSON_free(txt);
	fprintf(c->err, "locus classify: line %lu: %s\n", line, msg);
	if (c->status == 0)
		c->status = 2;
}

/* Print an action, or the error that deriving it gave. */
static void emit_action(classify_ctx *c, unsigned long line, int rc,
                        locus_action *a, const locus_error *err)
{
	if (rc == LOCUS_ENOMEM) {
		c->fatal = true;
		return;
	}
	if (rc != 0 || !a) {
		emit_error(c, line,
		           err->message[0] ? err->message
		                           : locus_error_code_name(rc));
		return;
	}
	char *txt = NULL;
	if (locus_action_json(&txt, a, c->json_flags) != 0 || !txt) {
		c->fatal = true;
		return;
	}
	/* not fprintf: its format machinery was ~1,200 instructions a line */
	fputs(txt, c->out);
	putc('\n', c->out);
	locus_free(txt);
}

static void classify_line(classify_ctx *c, unsigned long line, const char *s,
                          size_t n)
{
	locus_action *a = NULL;
	locus_error err = {0};
	int rc =
	    locus_action_classify_opts(&a, c->parser, s, n, &c->opts, &err);
	emit_action(c, line, rc, a, &err);
	locus_action_free(a);
}

/*
 * cJSON keeps strings NUL-terminated, so a string holding \u0000 would be
 * cut short and a command like "ls\u0000; rm -rf /" judged on "ls" alone:
 * classify_jsonl() has every such escape rewritten to \u0001 first
 * (lu_json_mark_nul_escapes, same length), so the decoded string keeps
 * its length, and classify_nul_command() turns the marks back into NULs.
 */

/*
 * A command holding NUL bytes (written \u0000 in the JSON, marked as
 * \x01 by lu_json_mark_nul_escapes): classified with the NULs put back, so the
 * parser calls it unparsed and the floor patterns see the raw text (what
 * runs is the text before the first NUL, which that text holds).  Every
 * \x01 becomes a NUL: a real \u0001 beside a \u0000 changes nothing, the
 * line is unparsed either way.
 */
static void classify_nul_command(classify_ctx *c, unsigned long line,
                                 const char *cmd)
{
	size_t n = strlen(cmd);
	char *s = malloc(n + 1);
	if (!s) {
		c->fatal = true;
		return;
	}
	for (size_t i = 0; i <= n; i++)
		s[i] = cmd[i] == '\x01' ? '\0' : cmd[i];
	classify_line(c, line, s, n);
	free(s);
}

/* The bash tool's command of a tool call whose arguments held \u0000. */
static const char *nul_tool_command(cJSON *tool, cJSON *args)
{
	const char *h = lu_tool_from_agent(tool->valuestring);
	if (!h || strcmp(h, "bash") || !cJSON_IsObject(args))
		return NULL;
	cJSON *cmd = cJSON_GetObjectItemCaseSensitive(args, "command");
	return cJSON_IsString(cmd) ? cmd->valuestring : NULL;
}

/*
 * The object of a --jsonl line, read strictly (util/json.h): a second
 * "command" or "tool" is refused, not one of the two judged (another
 * reader of the same line may take the other).  Invalid UTF-8 is kept: the
 * analyzer judges such a command unparsed, as on a plain line.  NULL after
 * printing the line's error.
 */
static cJSON *jsonl_object(classify_ctx *c, unsigned long line, const char *s,
                           size_t n)
{
	lu_json_opts jo = LU_JSON_OPTS_INIT;
	jo.object = true;
	jo.any_bytes = true;
	cJSON *root = NULL;
	lu_json_fail why;
	char msg[320];
	switch (lu_json_read(&root, s, n, &jo, &why)) {
	case LU_JSON_OK: return root;
	case LU_JSON_NOMEM: c->fatal = true; return NULL;
	case LU_JSON_SYNTAX: emit_error(c, line, "malformed JSON"); break;
	case LU_JSON_TRAILING:
		emit_error(c, line, "text after the JSON object");
		break;
	case LU_JSON_NOT_OBJECT:
		emit_error(c, line, "line is not a JSON object");
		break;
	case LU_JSON_DUPLICATE:
		snprintf(msg, sizeof msg, "duplicate key \"%s\"", why.key);
		emit_error(c, line, msg);
		break;
	default: emit_error(c, line, lu_json_problem_text(why.problem));
	}
	return NULL;
}

static void classify_jsonl(classify_ctx *c, unsigned long line, char *s,
                           size_t n)
{
	if (n && s[n - 1] == '\r')
		n--;
	size_t k = 0;
	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k == n)
		return; /* blank line: nothing to classify */
	if (memchr(s, '\0', n)) {
		emit_error(c, line, "line holds a NUL byte");
		return;
	}
	bool nul = lu_json_mark_nul_escapes(s, n);
	cJSON *root = jsonl_object(c, line, s, n);
	if (!root)
		return;
	cJSON *tool = cJSON_GetObjectItemCaseSensitive(root, "tool");
	cJSON *cmd = cJSON_GetObjectItemCaseSensitive(root, "command");
	if (tool) {
		if (!cJSON_IsString(tool)) {
			emit_error(c, line, "\"tool\" is not a string");
			goto out;
		}
		cJSON *args =
		    cJSON_GetObjectItemCaseSensitive(root, "arguments");
		if (args && !cJSON_IsObject(args)) {
			emit_error(c, line, "\"arguments\" is not an object");
			goto out;
		}
		if (nul) {
			/* the bash tool's command is judged with its NULs;
			   any other argument holding one is refused */
			const char *bc = nul_tool_command(tool, args);
			if (bc)
				classify_nul_command(c, line, bc);
			else
				emit_error(c, line,
				           "JSON string holds \\u0000");
			goto out;
		}
		/* an agent's tool name and argument names (Claude Code's
		   "Bash", "file_path"...) as `locus gate` reads them */
		const char *htool = lu_tool_from_agent(tool->valuestring);
		if (args && lu_tool_agent_args(args)) {
			c->fatal = true;
			goto out;
		}
		char *args_txt = args ? cJSON_PrintUnformatted(args) : NULL;
		if (args && !args_txt) {
			c->fatal = true;
			goto out;
		}
		locus_action *a = NULL;
		locus_error err = {0};
		int rc = locus_action_derive_opts(
		    &a, c->parser, htool ? htool : tool->valuestring,
		    args_txt ? args_txt : "{}", args_txt ? strlen(args_txt) : 2,
		    &c->opts, &err);
		cJSON_free(args_txt);
		emit_action(c, line, rc, a, &err);
		locus_action_free(a);
	} else if (cmd) {
		if (!cJSON_IsString(cmd)) {
			emit_error(c, line, "\"command\" is not a string");
			goto out;
		}
		if (nul)
			classify_nul_command(c, line, cmd->valuestring);
		else
			classify_line(c, line, cmd->valuestring,
			              strlen(cmd->valuestring));
	} else {
		emit_error(c, line, "object has no \"command\" or \"tool\"");
	}
out:
	cJSON_Delete(root);
}

/* ---- --jobs N -------------------------------------------------------- */

typedef struct batch_line {
	char *text; /* a copy of the line (jsonl mode edits it) */
	size_t n;
	unsigned long lineno;
	cli_capture cap;
	int status;
	bool fatal;
} batch_line;

typedef struct batch {
	const classify_ctx *proto; /* flags and options for every thread */
	bool jsonl;
	batch_line *lines;
} batch;

static void *batch_state_new(void *arg)
{
	const batch *b = arg;
	classify_ctx *c = malloc(sizeof *c);
	if (!c)
		return NULL;
	*c = *b->proto;
	if (locus_shell_parser_new(&c->parser, NULL)) {
		free(c);
		return NULL;
	}
	return c;
}

static void batch_state_free(void *state, void *arg)
{
	(void)arg;
	classify_ctx *c = state;
	locus_shell_parser_free(c->parser);
	free(c);
}

static void batch_run(void *state, size_t i, void *arg)
{
	classify_ctx *c = state;
	batch_line *l = &((batch *)arg)->lines[i];
	if (!cli_capture_open(&l->cap)) {
		l->fatal = true;
		return;
	}
	c->out = l->cap.fout;
	c->err = l->cap.ferr;
	c->status = 0;
	c->fatal = false;
	if (((batch *)arg)->jsonl)
		classify_jsonl(c, l->lineno, l->text, l->n);
	else
		classify_line(c, l->lineno, l->text, l->n);
	cli_capture_close(&l->cap);
	l->status = c->status;
	l->fatal = c->fatal;
}

/* Classify one block on the threads, then print it in order. */
static void batch_flush(classify_ctx *c, batch *b, size_t n, size_t jobs)
{
	cli_parallel p = {jobs, batch_state_new, batch_state_free, batch_run,
	                  b};
	if (cli_parallel_run(&p, 0, n))
		c->fatal = true;
	for (size_t i = 0; i < n; i++) {
		batch_line *l = &b->lines[i];
		if (!c->fatal && !l->fatal)
			cli_capture_flush(&l->cap);
		else
			cli_capture_discard(&l->cap);
		c->fatal |= l->fatal;
		if (l->status && !c->status)
			c->status = l->status;
		free(l->text);
		memset(l, 0, sizeof *l);
	}
}

/* stdin on `jobs` threads: blocks of BATCH_LINES lines (or BATCH_BYTES). */
static void classify_batch(classify_ctx *c, bool jsonl, size_t jobs)
{
	batch b = {.proto = c, .jsonl = jsonl};
	b.lines = calloc(BATCH_LINES, sizeof *b.lines);
	if (!b.lines) {
		c->fatal = true;
		return;
	}
	cli_lines in = CLI_LINES_INIT(stdin);
	in.answers = stdout;
	char *buf;
	size_t len, n = 0, bytes = 0;
	for (;;) {
		/* a client waiting for its answers gets the lines so far */
		if (n && cli_lines_idle(&in)) {
			batch_flush(c, &b, n, jobs);
			n = bytes = 0;
		}
		if (c->fatal || !cli_lines_next(&in, &buf, &len))
			break;
		batch_line *l = &b.lines[n];
		l->text = malloc(len + 1);
		if (!l->text) {
			c->fatal = true;
			break;
		}
		memcpy(l->text, buf, len);
		l->text[len] = '\0';
		l->n = len;
		l->lineno = in.lineno;
		bytes += len;
		if (++n == BATCH_LINES || bytes >= BATCH_BYTES) {
			batch_flush(c, &b, n, jobs);
			n = bytes = 0;
		}
	}
	if (n)
		batch_flush(c, &b, n, jobs);
	if (ferror(stdin)) {
		perror("locus classify: reading stdin");
		c->status = 1;
	}
	cli_lines_free(&in);
	free(b.lines);
}

/* Join argv[0..argc) with single spaces; malloc'd, NULL on OOM. */
static char *join_words(int argc, char **argv, size_t *len)
{
	size_t n = 0;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	size_t at = 0;
	for (int i = 0; i < argc; i++) {
		size_t k = strlen(argv[i]);
		if (i)
			s[at++] = ' ';
		memcpy(s + at, argv[i], k);
		at += k;
	}
	s[at] = '\0';
	*len = at;
	return s;
}

/* What the options asked for. */
typedef struct classify_args {
	bool jsonl;
	size_t jobs;
	char *root; /* --root, absolute (malloc'd), or NULL */
	int first;  /* argv index of the command's first word, or argc */
} classify_args;

/* Read the options into c and a: -1 to go on, else the exit status (with
   a->root freed). */
static int classify_opts(classify_ctx *c, classify_args *a, int argc,
                         char **argv)
{
	int i = 1;
	for (; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--")) {
			i++;
			break;
		} else if (!strcmp(o, "--pretty")) {
			c->json_flags |= LOCUS_JSON_PRETTY;
		} else if (!strcmp(o, "--jsonl")) {
			a->jsonl = true;
		} else if (!strcmp(o, "--jobs") && i + 1 < argc) {
			if (!cli_parse_jobs("classify", argv[++i], &a->jobs))
				goto fail;
		} else if (!strcmp(o, "--root") && i + 1 < argc) {
			free(a->root);
			a->root = cli_absolute_dir(argv[++i]);
			if (!a->root) {
				fprintf(stderr,
				        "locus classify: --root %s: not a "
				        "directory\n",
				        argv[i]);
				return 2;
			}
		} else if ((!strcmp(o, "--root") || !strcmp(o, "--jobs")) &&
		           i + 1 == argc) {
			fprintf(stderr, "locus classify: %s needs a value\n",
			        o);
			classify_usage(stderr);
			goto fail;
		} else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			classify_usage(stdout);
			free(a->root);
			return 0;
		} else if (o[0] == '-' && o[1] == '-') {
			fprintf(stderr,
			        "locus classify: unknown option '%s' (use -- "
			        "before a command that starts with --)\n",
			        o);
			classify_usage(stderr);
			goto fail;
		} else {
			break; /* the command's first word */
		}
	}
	a->first = i;
	if (a->jsonl && i < argc) {
		fprintf(stderr, "locus classify: --jsonl reads stdin and "
		                "takes no command arguments\n");
		goto fail;
	}
	return -1;
fail:
	free(a->root);
	a->root = NULL;
	return 2;
}

/* stdin on this thread, a line at a time. */
static void classify_stdin(classify_ctx *c, bool jsonl)
{
	cli_lines in = CLI_LINES_INIT(stdin);
	in.answers = stdout;
	char *line;
	size_t n;
	while (!c->fatal && cli_lines_next(&in, &line, &n)) {
		if (jsonl)
			classify_jsonl(c, in.lineno, line, n);
		else
			classify_line(c, in.lineno, line, n);
	}
	cli_lines_free(&in);
	if (ferror(stdin)) {
		perror("locus classify: reading stdin");
		c->status = 1;
	}
}

int cli_classify(int argc, char **argv)
{
	classify_ctx c = {.json_flags = LOCUS_JSON_COMMANDS,
	                  .opts = LOCUS_ACTION_OPTIONS_INIT,
	                  .out = stdout,
	                  .err = stderr};
	classify_args a = {.jobs = 1};
	int rc = classify_opts(&c, &a, argc, argv);
	if (rc >= 0)
		return rc;
	/* No --root: the current directory, read once here rather than by
	   the library for every line (a getcwd(2) per line was ~2% of a
	   batch's CPU time; this process never changes directory).  When it
	   cannot be read, the library tries again per line and, failing the
	   same way, judges every path as outside (as before). */
	char cwd[PATH_MAX];
	c.opts.workspace_root = a.root                    ? a.root
	                        : getcwd(cwd, sizeof cwd) ? cwd
	                                                  : NULL;
	rc = locus_shell_parser_new(&c.parser, NULL);
	if (rc) {
		fprintf(stderr,
		        "locus classify: cannot create the parser: %s\n",
		        locus_error_code_name(rc));
		free(a.root);
		return 1;
	}
	if (a.first < argc) {
		size_t len = 0;
		char *line = join_words(argc - a.first, argv + a.first, &len);
		if (!line)
			c.fatal = true;
		else
			classify_line(&c, 1, line, len);
		free(line);
	} else if (a.jobs > 1) {
		classify_batch(&c, a.jsonl, a.jobs);
	} else {
		classify_stdin(&c, a.jsonl);
	}
	locus_shell_parser_free(c.parser);
	free(a.root);
	if (c.fatal) {
		fprintf(stderr, "locus classify: out of memory\n");
		return 1;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("locus classify: writing stdout");
		return 1;
	}
	return c.status;
}
