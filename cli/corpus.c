/*
 * cli/corpus.c - `locus corpus DIR|FILE...`: run golden cases.
 *
 * The format is documented in docs/corpus.md.  In short, a shell case is
 *
 *     # comment
 *     $ sudo -u bob rm -rf /srv            (or `$e` with C escapes, or
 *     > continuation line                   `tool: {"tool":..,"arguments":..}`)
 *     kind: workspace.exec
 *     tags+: exec:destructive exec:never
 *
 * and cases are separated by blank lines.  Each case is classified with
 * the same code as `locus classify` (locus_action_classify / _derive and
 * locus_action_json), so the expectations are checked against exactly
 * what the CLI prints.  Files whose first non-comment line is
 * `format: policy`, or that sit in a directory named `policy`, go to
 * cli_corpus_policy_file() (cli/cli.h).
 *
 * --jobs N runs the files on N threads, one parser each; each file's
 * report is captured and printed in the files' order, so the output is
 * the bytes --jobs 1 prints.
 *
 * Output: one block per failing case (expected vs got), then the last line
 * `N passed, N failed`.  Exit 0 when nothing failed, 1 when a case failed,
 * 2 on a usage or format error (a malformed case also counts as failed).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "locus/labels.h"
#include "cli.h"
#include "parallel.h"
#include "../util/buf.h"
#include "../util/sha256.h"
#include "../util/array.h"
#include "../util/json.h"

/* ---- small helpers ----------------------------------------------------- */

/* Append; false when out of memory (then and after). */
static bool cli_buf_add(lu_buf *b, const char *s, size_t n)
{
	lu_buf_add(b, s, n);
	return !b->oom;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/*
 * Decode the C-escape form of `$e` lines into `out`.  Returns NULL on
 * success or a static message naming the bad escape.
 */
static const char *decode_escapes(const char *s, lu_buf *out)
{
	for (size_t i = 0; s[i]; i++) {
		char c = s[i];
		if (c != '\\') {
			if (!cli_buf_add(out, &c, 1))
				return "out of memory";
			continue;
		}
		char e = s[++i];
		switch (e) {
		case 'n': c = '\n'; break;
		case 't': c = '\t'; break;
		case 'r': c = '\r'; break;
		case 'v': c = '\v'; break;
		case 'f': c = '\f'; break;
		case 'a': c = '\a'; break;
		case 'e': c = 27; break;
		case '0': c = '\0'; break;
		case '\\': c = '\\'; break;
		case 's': c = ' '; break; /* a visible trailing space */
		case 'x': {
			int h = lu_hex_digit(s[i + 1]),
			    l = h < 0 ? -1 : lu_hex_digit(s[i + 2]);
			if (h < 0 || l < 0)
				return "\\x needs two hex digits";
			c = (char)(h * 16 + l);
			i += 2;
			break;
		}
		default: return "unknown escape (use \\\\ for a backslash)";
		}
		if (!cli_buf_add(out, &c, 1))
			return "out of memory";
	}
	return NULL;
}

/* ---- cases ------------------------------------------------------------- */

typedef struct expect {
	char *key;   /* "kind", "tags+", ... */
	char *value; /* the rest of the line, trimmed */
	unsigned long line;
} expect;

typedef struct corpus_case {
	unsigned long line; /* of the `$`/`tool:` line */
	char *shown;        /* the input line as written, for reports */
	bool escaped;       /* `$e`: continuation lines are decoded too */
	bool is_tool;       /* `tool:` case */
	lu_buf input;       /* the command bytes, or the tool call JSON */
	expect *ex;
	size_t nex, capex;
	const char *format_error; /* set: the case is malformed */
	unsigned long error_line;
} corpus_case;

typedef struct corpus_run {
	locus_shell_parser *parser;
	int passed, failed;
	bool format_errors;
	bool fatal;
	FILE *err; /* stderr, or a file's capture */
} corpus_run;

static void case_clear(corpus_case *k)
{
	free(k->shown);
	free(k->input.d);
	for (size_t i = 0; i < k->nex; i++) {
		free(k->ex[i].key);
		free(k->ex[i].value);
	}
	free(k->ex);
	memset(k, 0, sizeof *k);
}

static void case_format_error(corpus_case *k, unsigned long line,
                              const char *msg)
{
	if (!k->format_error) {
		k->format_error = msg;
		k->error_line = line;
	}
}

/* ---- checking ---------------------------------------------------------- */

/* Split a space-separated list into a cJSON array of strings. */
static cJSON *split_words(const char *s)
{
	cJSON *a = cJSON_CreateArray();
	while (a && *s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		const char *w = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		char tmp[512];
		size_t n = (size_t)(s - w);
		if (n >= sizeof tmp)
			n = sizeof tmp - 1;
		memcpy(tmp, w, n);
		tmp[n] = '\0';
		/* "-" stands for the empty name of an assignment-only command */
		cJSON *item = cJSON_CreateString(strcmp(tmp, "-") ? tmp : "");
		if (!item) {
			cJSON_Delete(a);
			return NULL;
		}
		cJSON_AddItemToArray(a, item);
	}
	return a;
}

static bool array_has_string(const cJSON *arr, const char *s)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, arr)
	{
		if (cJSON_IsString(it) && !strcmp(it->valuestring, s))
			return true;
	}
	return false;
}

/* Space-joined strings of a JSON array, for messages. */
static void print_list(FILE *f, const cJSON *arr)
{
	const cJSON *it;
	bool first = true;
	fputc('[', f);
	cJSON_ArrayForEach(it, arr)
	{
		if (!first)
			fputc(' ', f);
		first = false;
		if (cJSON_IsString(it))
			fputs(it->valuestring[0] ? it->valuestring : "-", f);
		else
			fputs("?", f);
	}
	fputc(']', f);
}

/* The names of the commands, as a new JSON array. */
static cJSON *command_names(const cJSON *got)
{
	cJSON *names = cJSON_CreateArray();
	const cJSON *cmds = cJSON_GetObjectItemCaseSensitive(got, "commands");
	const cJSON *c;
	cJSON_ArrayForEach(c, cmds)
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
		cJSON_AddItemToArray(
		    names, cJSON_CreateString(cJSON_IsString(n) ? n->valuestring
		                                                : "?"));
	}
	return names;
}

/* Do all members of `want` equal the same members of `have`? */
static bool subset_match(const cJSON *want, const cJSON *have)
{
	const cJSON *w;
	cJSON_ArrayForEach(w, want)
	{
		const cJSON *h =
		    cJSON_GetObjectItemCaseSensitive(have, w->string);
		if (!h || !cJSON_Compare(w, h, true))
			return false;
	}
	return true;
}

typedef struct checker {
	FILE *out;
	const char *path;
	corpus_case *k;
	bool failed;
} checker;

static void fail_header(checker *ck)
{
	if (ck->failed)
		return;
	ck->failed = true;
	fprintf(ck->out, "FAIL %s:%lu: %s\n", ck->path, ck->k->line,
	        ck->k->shown);
}

/*
 * The checks, one a key (docs/corpus.md).  Each gets the expectation's key
 * and value and the rendered action `got` (never NULL: check_one reports a
 * missing action before it looks for a check) and reports a mismatch.
 */
typedef void check_fn(checker *ck, const char *key, const char *val,
                      const cJSON *got);

static void check_string(checker *ck, const char *key, const char *val,
                         const cJSON *got)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(got, key);
	if (!cJSON_IsString(v) || strcmp(v->valuestring, val)) {
		fail_header(ck);
		fprintf(ck->out, "  %s: expected %s got %s\n", key, val,
		        cJSON_IsString(v) ? v->valuestring : "(none)");
	}
}

static void check_parsed(checker *ck, const char *key, const char *val,
                         const cJSON *got)
{
	(void)key;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(got, "parsed");
	bool want = !strcmp(val, "true");
	if (!cJSON_IsBool(v) || cJSON_IsTrue(v) != want) {
		fail_header(ck);
		fprintf(ck->out, "  parsed: expected %s got %s\n", val,
		        !cJSON_IsBool(v)  ? "(none)"
		        : cJSON_IsTrue(v) ? "true"
		                          : "false");
	}
}

static void check_never(checker *ck, const char *key, const char *val,
                        const cJSON *got)
{
	(void)key;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(got, "never");
	const char *have = cJSON_IsString(v) ? v->valuestring : NULL;
	bool ok;
	if (!strcmp(val, "null"))
		ok = have == NULL;
	else if (!strcmp(val, "*"))
		ok = have != NULL;
	else
		ok = have && !strcmp(have, val);
	if (!ok) {
		fail_header(ck);
		fprintf(ck->out, "  never: expected %s got %s\n", val,
		        have ? have : "null");
	}
}

/* Does `have` match the list `want` under `mode`: '\0' exact (the same set
   for tags, the same sequence for commands), '+' all in, '-' none in? */
static bool list_matches(const cJSON *want, const cJSON *have, bool tags,
                         char mode)
{
	const cJSON *w;
	if (mode == '\0' && !tags)
		return cJSON_Compare(want, have, true);
	if (mode == '\0' &&
	    cJSON_GetArraySize(want) != cJSON_GetArraySize(have))
		return false;
	cJSON_ArrayForEach(w, want)
	{
		bool in = array_has_string(have, w->valuestring);
		if (in != (mode != '-'))
			return false;
	}
	return true;
}

/* tags, tags+, tags-, commands, commands+, commands- */
static void check_list(checker *ck, const char *key, const char *val,
                       const cJSON *got)
{
	bool tags = key[0] == 't';
	char mode = key[tags ? 4 : 8]; /* '\0', '+' or '-' */
	cJSON *want = split_words(val);
	cJSON *have_owned = tags ? NULL : command_names(got);
	const cJSON *have =
	    tags ? cJSON_GetObjectItemCaseSensitive(got, "tags") : have_owned;
	if (!list_matches(want, have, tags, mode)) {
		fail_header(ck);
		fprintf(ck->out, "  %s: expected %s%s [%s] got ", key,
		        mode == '+' ? "to include" : "",
		        mode == '-' ? "to exclude" : "", val);
		print_list(ck->out, have);
		fputc('\n', ck->out);
	}
	cJSON_Delete(want);
	cJSON_Delete(have_owned);
}

static void check_reason(checker *ck, const char *key, const char *val,
                         const cJSON *got)
{
	(void)key;
	const cJSON *rs = cJSON_GetObjectItemCaseSensitive(got, "reasons");
	const cJSON *r;
	bool ok = false;
	cJSON_ArrayForEach(r, rs)
	{
		if (cJSON_IsString(r) && strstr(r->valuestring, val))
			ok = true;
	}
	if (!ok) {
		fail_header(ck);
		fprintf(ck->out, "  reason+: expected a reason holding '%s'\n",
		        val);
	}
}

/* The object `command:` asks for: `NAME`, `NAME {json}` or `{json}` (NAME
   `-` is the empty name); NULL with *why set when the JSON is bad.  The
   JSON is read strictly (util/json.h): a duplicate key would otherwise
   leave one of its two values unchecked. */
static cJSON *command_want(const char *val, const char **why)
{
	char name[256] = "";
	const char *js = val;
	if (*val != '{') {
		size_t n = strcspn(val, " \t");
		if (n >= sizeof name)
			n = sizeof name - 1;
		memcpy(name, val, n);
		name[n] = '\0';
		js = val + strcspn(val, " \t");
		while (*js == ' ' || *js == '\t')
			js++;
		if (!strcmp(name, "-"))
			name[0] = '\0';
	}
	cJSON *want = NULL;
	lu_json_opts jo = LU_JSON_OPTS_INIT;
	jo.object = true;
	lu_json_problem p = LU_JSON_OK;
	if (*js)
		p = lu_json_read(&want, js, strlen(js), &jo, NULL);
	else if (!(want = cJSON_CreateObject()))
		p = LU_JSON_NOMEM;
	if (p == LU_JSON_OK && *val != '{' &&
	    !lu_json_add(want, "name", cJSON_CreateString(name)))
		p = LU_JSON_NOMEM;
	if (p != LU_JSON_OK) {
		cJSON_Delete(want);
		*why = lu_json_problem_text(p);
		return NULL;
	}
	return want;
}

/* `command:`: some command matches every field given. */
static void check_command(checker *ck, const char *key, const char *val,
                          const cJSON *got)
{
	(void)key;
	const char *why = NULL;
	cJSON *want = command_want(val, &why);
	if (!want) {
		fail_header(ck);
		fprintf(ck->out,
		        "  command: bad JSON in the expectation (%s)\n", why);
		return;
	}
	const cJSON *cmds = cJSON_GetObjectItemCaseSensitive(got, "commands");
	const cJSON *c;
	bool ok = false;
	cJSON_ArrayForEach(c, cmds)
	{
		if (subset_match(want, c))
			ok = true;
	}
	if (!ok) {
		fail_header(ck);
		fprintf(ck->out, "  command: expected one matching %s\n", val);
	}
	cJSON_Delete(want);
}

/* The keys a case may use, each with its check; `error` (NULL here) is
   checked against the call's result, before any action is looked at. */
typedef struct check_row {
	const char *key;
	check_fn *check;
} check_row;

/* clang-format off */
static const check_row checks[] = {
	{"kind", check_string},      {"asset", check_string},
	{"parsed", check_parsed},    {"never", check_never},
	{"tags", check_list},        {"tags+", check_list},
	{"tags-", check_list},       {"commands", check_list},
	{"commands+", check_list},   {"commands-", check_list},
	{"command", check_command},  {"reason+", check_reason},
	{"error", NULL},
};
/* clang-format on */

/* The index of `key` in checks[], or -1: an unknown key (a format error). */
static int check_index(const char *key)
{
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
		if (!strcmp(key, checks[i].key))
			return (int)i;
	return -1;
}

/* Check one expectation against the rendered action `got`. */
static void check_one(checker *ck, const expect *e, const cJSON *got,
                      int derive_rc, const char *derive_msg)
{
	const char *key = e->key, *val = e->value;
	if (!strcmp(key, "error")) {
		bool want = !strcmp(val, "yes") || !strcmp(val, "true");
		if (want != (derive_rc != 0)) {
			fail_header(ck);
			fprintf(ck->out, "  error: expected %s got %s%s\n",
			        want ? "an error" : "no error",
			        derive_rc ? "error: " : "success",
			        derive_rc ? derive_msg : "");
		}
		return;
	}
	if (!got) {
		fail_header(ck);
		fprintf(ck->out, "  %s: expected %s got no action (%s)\n", key,
		        val, derive_msg);
		return;
	}
	int i = check_index(key);
	if (i >= 0 && checks[i].check)
		checks[i].check(ck, key, val, got);
}

/* Classify one case, check it, count it. */
static void run_case(corpus_run *run, FILE *out, const char *path,
                     corpus_case *k)
{
	checker ck = {.out = out, .path = path, .k = k};
	if (!k->format_error && k->nex == 0)
		case_format_error(k, k->line, "case has no expectation");
	if (k->format_error) {
		fprintf(out, "FORMAT %s:%lu: %s\n", path, k->error_line,
		        k->format_error);
		run->format_errors = true;
		run->failed++;
		return;
	}

	locus_action *a = NULL;
	locus_error err = {0};
	int rc;
	/* One fixed workspace root, so outside-workspace cases mean the same
	   wherever the corpus runs (docs/corpus.md). */
	locus_action_options opts = LOCUS_ACTION_OPTIONS_INIT;
	opts.workspace_root = CLI_CORPUS_ROOT;
	if (k->is_tool) {
		/* strict (util/json.h): a second "tool" or "arguments" would
		   be judged by one reader and run by another */
		cJSON *call = NULL;
		lu_json_fail why = {0};
		lu_json_read(&call, k->input.d ? k->input.d : "", k->input.len,
		             NULL, &why);
		const cJSON *tool =
		    cJSON_GetObjectItemCaseSensitive(call, "tool");
		const cJSON *args =
		    cJSON_GetObjectItemCaseSensitive(call, "arguments");
		if (!cJSON_IsString(tool) || (args && !cJSON_IsObject(args))) {
			cJSON_Delete(call);
			fprintf(out,
			        "FORMAT %s:%lu: tool: needs {\"tool\": "
			        "STRING, \"arguments\": OBJECT}%s%s%s\n",
			        path, k->line, why.problem ? " (" : "",
			        why.problem ? lu_json_problem_text(why.problem)
			                    : "",
			        why.problem ? ")" : "");
			run->format_errors = true;
			run->failed++;
			return;
		}
		char *args_txt = args ? cJSON_PrintUnformatted(args) : NULL;
		rc = locus_action_derive_opts(
		    &a, run->parser, tool->valuestring,
		    args_txt ? args_txt : "{}", args_txt ? strlen(args_txt) : 2,
		    &opts, &err);
		cJSON_free(args_txt);
		cJSON_Delete(call);
	} else {
		rc = locus_action_classify_opts(&a, run->parser,
		                                k->input.d ? k->input.d : "",
		                                k->input.len, &opts, &err);
	}
	if (rc == LOCUS_ENOMEM) {
		run->fatal = true;
		return;
	}
	char *txt = NULL;
	cJSON *got = NULL;
	if (rc == 0 && a) {
		if (locus_action_json(&txt, a, LOCUS_JSON_COMMANDS) != 0) {
			locus_action_free(a);
			run->fatal = true;
			return;
		}
		/* our own output (locus_action_json): lenient is right */
		got = cJSON_Parse(txt);
		if (!got) {
			fail_header(&ck);
			fprintf(out, "  locus_action_json printed invalid "
			             "JSON\n");
		}
	}
	const char *msg =
	    err.message[0] ? err.message : locus_error_code_name(rc);
	for (size_t i = 0; i < k->nex; i++)
		check_one(&ck, &k->ex[i], got, rc, msg);
	if (ck.failed) {
		run->failed++;
		if (txt) {
			/* a very long line would drown the report */
			size_t n = strlen(txt);
			fprintf(out, "  got: %.*s%s\n",
			        n > 4000 ? 4000 : (int)n, txt,
			        n > 4000 ? "..." : "");
		}
	} else {
		run->passed++;
	}
	cJSON_Delete(got);
	locus_free(txt);
	locus_action_free(a);
}

/* ---- files ------------------------------------------------------------- */

static void trim_right(char *s, size_t *n)
{
	while (*n &&
	       (s[*n - 1] == ' ' || s[*n - 1] == '\t' || s[*n - 1] == '\r'))
		s[--*n] = '\0';
}

/* Start a case from a `$`, `$e` or `tool:` line. */
static void case_start(corpus_case *k, unsigned long lineno, char *line)
{
	k->line = lineno;
	k->shown = xstrdup(line);
	const char *text;
	if (!strncmp(line, "tool:", 5)) {
		k->is_tool = true;
		text = line + 5;
		while (*text == ' ')
			text++;
	} else if (!strncmp(line, "$e ", 3) || !strcmp(line, "$e")) {
		k->escaped = true;
		text = line[2] ? line + 3 : "";
	} else if (!strcmp(line, "$")) {
		text = "";
	} else if (!strncmp(line, "$ ", 2)) {
		text = line + 2;
	} else {
		text = "";
		case_format_error(k, lineno,
		                  "a case starts with `$ `, `$e ` or `tool: `");
	}
	if (!k->shown) {
		case_format_error(k, lineno, "out of memory");
		return;
	}
	const char *bad = NULL;
	if (k->escaped)
		bad = decode_escapes(text, &k->input);
	else if (!cli_buf_add(&k->input, text, strlen(text)))
		bad = "out of memory";
	if (!bad && !k->input.d && !cli_buf_add(&k->input, "", 0))
		bad = "out of memory";
	if (bad)
		case_format_error(k, lineno, bad);
}

static void case_continue(corpus_case *k, unsigned long lineno, char *line)
{
	const char *text = line[1] ? line + 2 : "";
	if (line[1] && line[1] != ' ') {
		case_format_error(k, lineno, "continuation is `> TEXT`");
		return;
	}
	if (k->is_tool || k->nex) {
		case_format_error(k, lineno,
		                  "`>` continues the command: it must come "
		                  "right after the `$` line");
		return;
	}
	const char *bad = NULL;
	if (!cli_buf_add(&k->input, "\n", 1))
		bad = "out of memory";
	else if (k->escaped)
		bad = decode_escapes(text, &k->input);
	else if (!cli_buf_add(&k->input, text, strlen(text)))
		bad = "out of memory";
	if (bad)
		case_format_error(k, lineno, bad);
}

static void case_expect(corpus_case *k, unsigned long lineno, char *line)
{
	char *colon = strchr(line, ':');
	if (!colon) {
		case_format_error(k, lineno, "expected `key: value`");
		return;
	}
	*colon = '\0';
	const char *val = colon + 1;
	while (*val == ' ' || *val == '\t')
		val++;
	if (check_index(line) < 0) {
		case_format_error(k, lineno, "unknown key");
		return;
	}
	if (!lu_reserve(&k->ex, &k->capex, k->nex + 1)) {
		case_format_error(k, lineno, "out of memory");
		return;
	}
	expect *e = &k->ex[k->nex];
	e->key = xstrdup(line);
	e->value = xstrdup(val);
	e->line = lineno;
	if (!e->key || !e->value) {
		free(e->key);
		free(e->value);
		case_format_error(k, lineno, "out of memory");
		return;
	}
	k->nex++;
	if (!strcmp(line, "parsed") && strcmp(val, "true") &&
	    strcmp(val, "false"))
		case_format_error(k, lineno, "parsed: is true or false");
}

/* Does the file open with a `format: NAME` header?  Returns NAME or "". */
static void read_format(FILE *f, char *name, size_t cap)
{
	cli_lines in = CLI_LINES_INIT(f);
	char *line;
	size_t n;
	name[0] = '\0';
	while (cli_lines_next(&in, &line, &n)) {
		trim_right(line, &n);
		if (n == 0 || line[0] == '#')
			continue;
		if (!strncmp(line, "format:", 7)) {
			const char *v = line + 7;
			while (*v == ' ')
				v++;
			snprintf(name, cap, "%s", v);
		}
		break;
	}
	cli_lines_free(&in);
	rewind(f);
}

static bool parent_is_policy(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	const char *end = slash;
	while (end > path && end[-1] == '/')
		end--;
	const char *start = end;
	while (start > path && start[-1] != '/')
		start--;
	return end - start == 6 && !strncmp(start, "policy", 6);
}

/* Reading the cases of one file, a line at a time. */
typedef struct case_reader {
	corpus_run *run;
	FILE *out;
	const char *path;
	corpus_case k;  /* the case being read */
	bool open;      /* k is a case (its `$` line was read) */
	bool seen_case; /* a case was read: `format:` is no header now */
} case_reader;

/* One line of a case file (its "\n" removed; n counts NUL bytes). */
static void case_line(case_reader *st, unsigned long lineno, char *line,
                      size_t n)
{
	corpus_run *run = st->run;
	FILE *out = st->out;
	const char *path = st->path;
	if (memchr(line, '\0', n)) {
		fprintf(out,
		        "FORMAT %s:%lu: NUL byte in the file (use "
		        "$e and \\0)\n",
		        path, lineno);
		run->format_errors = true;
		return;
	}
	/* a command line keeps its trailing blanks except a CR */
	if (n && line[n - 1] == '\r')
		line[--n] = '\0';
	if (line[0] == '$' || !strncmp(line, "tool:", 5)) {
		if (st->open)
			run_case(run, out, path, &st->k);
		case_clear(&st->k);
		st->open = true;
		st->seen_case = true;
		case_start(&st->k, lineno, line);
		return;
	}
	if (line[0] == '>') {
		if (!st->open) {
			fprintf(out, "FORMAT %s:%lu: `>` outside a case\n",
			        path, lineno);
			run->format_errors = true;
		} else {
			case_continue(&st->k, lineno, line);
		}
		return;
	}
	trim_right(line, &n);
	if (n == 0) {
		if (st->open)
			run_case(run, out, path, &st->k);
		case_clear(&st->k);
		st->open = false;
		return;
	}
	if (line[0] == '#')
		return;
	if (!st->open) {
		if (!strncmp(line, "format:", 7) && !st->seen_case)
			return; /* the header, read above */
		fprintf(out, "FORMAT %s:%lu: expectation outside a case\n",
		        path, lineno);
		run->format_errors = true;
		return;
	}
	case_expect(&st->k, lineno, line);
}

static void run_file(corpus_run *run, FILE *out, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(run->err, "locus corpus: %s: %s\n", path,
		        strerror(errno));
		run->format_errors = true;
		return;
	}
	char format[64];
	read_format(f, format, sizeof format);
	if (!strcmp(format, "policy") ||
	    (!format[0] && parent_is_policy(path))) {
		fclose(f);
		if (cli_corpus_policy_file(path, out, &run->passed,
		                           &run->failed) != 0)
			run->format_errors = true;
		return;
	}
	if (format[0] && strcmp(format, "shell")) {
		fclose(f);
		fprintf(out, "FORMAT %s: unknown format '%s'\n", path, format);
		run->format_errors = true;
		return;
	}

	case_reader st = {.run = run, .out = out, .path = path};
	cli_lines in = CLI_LINES_INIT(f);
	char *line;
	size_t n;
	while (!run->fatal && cli_lines_next(&in, &line, &n))
		case_line(&st, in.lineno, line, n);
	if (st.open && !run->fatal)
		run_case(run, out, path, &st.k);
	case_clear(&st.k);
	cli_lines_free(&in);
	if (ferror(f)) {
		fprintf(run->err, "locus corpus: %s: read error\n", path);
		run->format_errors = true;
	}
	fclose(f);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

/* The files to run, in order, each with what a --jobs run keeps of it. */
typedef struct corpus_file {
	char *path;
	cli_capture cap;
	corpus_run r;
} corpus_file;

typedef struct file_list {
	corpus_file *v;
	size_t n, cap;
} file_list;

static bool add_file(file_list *l, const char *path)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 64;
		corpus_file *v = realloc(l->v, nc * sizeof *v);
		if (!v)
			return false;
		l->v = v;
		l->cap = nc;
	}
	memset(&l->v[l->n], 0, sizeof l->v[l->n]);
	if (!(l->v[l->n].path = xstrdup(path)))
		return false;
	l->n++;
	return true;
}

/*
 * List every *.txt under `root`, in sorted order, with an explicit stack
 * (no recursion); symlinked directories are not followed.
 */
static void run_dir(corpus_run *run, file_list *out, const char *root)
{
	size_t cap = 16, n = 0;
	char **stack = malloc(cap * sizeof *stack);
	char *first = xstrdup(root);
	if (!stack || !first) {
		free(stack);
		free(first);
		run->fatal = true;
		return;
	}
	stack[n++] = first;
	while (n && !run->fatal) {
		char *dir = stack[--n];
		struct dirent **ents = NULL;
		int m = scandir(dir, &ents, NULL, alphasort);
		if (m < 0) {
			fprintf(stderr, "locus corpus: %s: %s\n", dir,
			        strerror(errno));
			run->format_errors = true;
			free(dir);
			continue;
		}
		/* files first, in order; then push subdirectories in reverse
		   so they pop in order */
		size_t sub_base = n;
		for (int i = 0; i < m; i++) {
			const char *nm = ents[i]->d_name;
			if (nm[0] == '.')
				continue;
			size_t plen = strlen(dir) + strlen(nm) + 2;
			char *p = malloc(plen);
			if (!p) {
				run->fatal = true;
				break;
			}
			snprintf(p, plen, "%s/%s", dir, nm);
			struct stat st;
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
				if (n == cap) {
					char **s2 = realloc(
					    stack, 2 * cap * sizeof *stack);
					if (!s2) {
						free(p);
						run->fatal = true;
						break;
					}
					stack = s2;
					cap *= 2;
				}
				stack[n++] = p;
				continue;
			}
			if (S_ISREG(st.st_mode) && has_suffix(nm, ".txt") &&
			    !add_file(out, p))
				run->fatal = true;
			free(p);
		}
		for (size_t a = sub_base, b = n; b > a + 1; a++, b--) {
			char *t = stack[a];
			stack[a] = stack[b - 1];
			stack[b - 1] = t;
		}
		for (int i = 0; i < m; i++)
			free(ents[i]);
		free(ents);
		free(dir);
	}
	while (n)
		free(stack[--n]);
	free(stack);
}

/* --jobs: a thread's parser, a file's run. */
static void job_file(void *state, size_t i, void *arg)
{
	corpus_file *f = &((file_list *)arg)->v[i];
	if (!cli_capture_open(&f->cap)) {
		f->r.fatal = true;
		return;
	}
	f->r.parser = state;
	f->r.err = f->cap.ferr;
	run_file(&f->r, f->cap.fout, f->path);
	cli_capture_close(&f->cap);
}

/* Run the listed files: here (one job), or on threads then reported in
   order; the counts summed into run. */
static void run_files(corpus_run *run, file_list *l, size_t jobs)
{
	if (jobs == 1) {
		for (size_t i = 0; i < l->n && !run->fatal; i++)
			run_file(run, stdout, l->v[i].path);
		return;
	}
	cli_parallel p = {jobs, cli_parallel_parser_new,
	                  cli_parallel_parser_free, job_file, l};
	if (cli_parallel_run(&p, 0, l->n))
		run->fatal = true;
	for (size_t i = 0; i < l->n; i++) {
		corpus_file *f = &l->v[i];
		if (!run->fatal)
			cli_capture_flush(&f->cap);
		else
			cli_capture_discard(&f->cap);
		run->passed += f->r.passed;
		run->failed += f->r.failed;
		run->format_errors |= f->r.format_errors;
		run->fatal |= f->r.fatal;
	}
}

int cli_corpus(int argc, char **argv)
{
	int first = 1;
	size_t jobs = 1;
	if (argc > 1 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: locus corpus [--jobs N] DIR|FILE...\n"
		       "Runs the golden cases (docs/corpus.md): prints each "
		       "failure, then `N passed, N failed`.\n"
		       "Exit 0 when every case passed, 1 when one failed, 2 on "
		       "a usage or format error.  --jobs N runs the files on N "
		       "threads\n(the output is the same, in the same "
		       "order).\n");
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--jobs")) {
		if (!cli_parse_jobs("corpus", argv[2], &jobs))
			return 2;
		first = 3;
	}
	if (argc > first && !strcmp(argv[first], "--"))
		first++;
	else
		/* an unknown option fails before any case is run */
		for (int i = first; i < argc; i++)
			if (argv[i][0] == '-' && argv[i][1]) {
				fprintf(
				    stderr,
				    "locus corpus: unknown option '%s' (use "
				    "-- before a path that starts with -)\n"
				    "usage: locus corpus [--jobs N] "
				    "DIR|FILE...\n",
				    argv[i]);
				return 2;
			}
	if (first >= argc) {
		fprintf(stderr, "usage: locus corpus [--jobs N] DIR|FILE...\n");
		return 2;
	}
	corpus_run run = {.err = stderr};
	file_list files = {0};
	int rc = locus_shell_parser_new(&run.parser, NULL);
	if (rc) {
		fprintf(stderr, "locus corpus: cannot create the parser: %s\n",
		        locus_error_code_name(rc));
		return 1;
	}
	for (int i = first; i < argc && !run.fatal; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "locus corpus: %s: %s\n", argv[i],
			        strerror(errno));
			run.format_errors = true;
		} else if (S_ISDIR(st.st_mode)) {
			run_dir(&run, &files, argv[i]);
		} else if (!add_file(&files, argv[i])) {
			run.fatal = true;
		}
	}
	if (!run.fatal)
		run_files(&run, &files, jobs);
	for (size_t i = 0; i < files.n; i++)
		free(files.v[i].path);
	free(files.v);
	locus_shell_parser_free(run.parser);
	if (run.fatal)
		fprintf(stderr, "locus corpus: out of memory\n");
	printf("%d passed, %d failed\n", run.passed, run.failed);
	fflush(stdout);
	if (run.fatal)
		return 1;
	if (run.format_errors)
		return 2;
	return run.failed ? 1 : 0;
}
