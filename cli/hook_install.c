/*
 * cli/hook_install.c - `locus hook install AGENT [--project DIR] [--write]`
 * and `locus hook doctor [AGENT...] [--project DIR]`.
 *
 * install writes (or merges into) the agent's own configuration the hook
 * entries of docs/integrations.md: Claude Code's settings.json
 * (PreToolUse and PermissionRequest), Codex's config.toml (PreToolUse and
 * PermissionRequest), Gemini CLI's settings.json (BeforeTool).  Without
 * --write it is a dry run: the file it would write goes to stdout.  An
 * entry of ours already there (a hook command running `locus hook AGENT`)
 * is replaced, everything else is kept.  JSON files are parsed strictly
 * (a file that is not a JSON object is left alone: exit 2); the TOML file
 * is not parsed: our block sits between two marker comments and is
 * replaced there, or appended.
 *
 * doctor checks an installed setup: `locus` on PATH, each config file
 * found, parsed, holding our hook on the right events with a matcher that
 * sends the agent's main tools, the fail-closed guard in the command, and
 * then runs the configured command itself, the way the agent runs it, on
 * a dangerous call (must be denied) and on malformed input (must block).
 * Exit 0 when all is well, 1 when something is wrong, 2 for usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "agents/hook.h"
#include "policy_cli.h"
#include "../util/buf.h"
#include "../util/json.h"
#include "../util/path.h"
#include "../util/read.h"

#define GUARD                                                                  \
	"command -v locus >/dev/null 2>&1 || { echo 'locus is not installed: " \
	"the call is blocked' >&2; exit 2; }; "

static const char claude_matcher[] =
    "Bash|Monitor|PowerShell|Read|Write|Edit|MultiEdit|NotebookEdit|Glob|"
    "Grep|LS|WebFetch|WebSearch|mcp__.*";
/* The hook commands, [0] with --jail (the default: an allowed shell call
 * runs confined in `locus jail`), [1] without (install --no-jail). */
#define CLAUDE_COMMAND(jail)                                                   \
	GUARD "locus hook claude-code" jail                                    \
	      " --claude-project \"$CLAUDE_PROJECT_DIR\""
static const char *const claude_command[2] = {CLAUDE_COMMAND(" --jail"),
                                              CLAUDE_COMMAND("")};
static const char gemini_matcher[] =
    "run_shell_command|read_file|write_file|replace|read_many_files|"
    "list_directory|glob|grep_search|web_fetch|google_web_search|mcp_.*";
static const char *const gemini_command[2] = {GUARD "locus hook gemini --jail",
                                              GUARD "locus hook gemini"};

static const char toml_begin[] = "# >>> locus hook (locus hook install codex)";
static const char toml_end[] = "# <<< locus hook";

/* The Codex block, as in docs/integrations.md ([0] --jail, [1] not). */
#define CODEX_BLOCK(jail)                                                      \
	"[[hooks.PreToolUse]]\n"                                               \
	"matcher = \"Bash|apply_patch|mcp__.*\"\n"                             \
	"\n"                                                                   \
	"[[hooks.PreToolUse.hooks]]\n"                                         \
	"type = \"command\"\n"                                                 \
	"command = \"" GUARD "locus hook codex" jail "\"\n"                    \
	"\n"                                                                   \
	"[[hooks.PermissionRequest]]\n"                                        \
	"matcher = \"Bash|NetworkAccess\"\n"                                   \
	"\n"                                                                   \
	"[[hooks.PermissionRequest.hooks]]\n"                                  \
	"type = \"command\"\n"                                                 \
	"command = \"" GUARD "locus hook codex" jail "\"\n"
static const char *const codex_block[2] = {CODEX_BLOCK(" --jail"),
                                           CODEX_BLOCK("")};

/* The MCP server block of docs/integrations.md (left out when the file
 * already has its own [mcp_servers.locus] table: TOML allows one). */
static const char codex_mcp_block[] = "\n[mcp_servers.locus]\n"
                                      "command = \"locus\"\n"
                                      "args = [\"mcp\", \"--root\", \".\"]\n";

/* One block per hook file: "# >>> locus hook trust: PATH" ... */
static const char toml_trust_begin[] = "# >>> locus hook trust: ";
static const char toml_trust_end[] = "# <<< locus hook trust: ";

typedef enum agent_id { A_CLAUDE, A_CODEX, A_GEMINI } agent_id;

static const char *const agent_names[] = {"claude-code", "codex", "gemini"};

static int agent_of(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, agent_names[i]))
			return i;
	return -1;
}

/* The agent's config file: the project's, or the user's. */
static int config_path(agent_id a, const char *project, char *out, size_t cap)
{
	static const char *const rel[] = {".claude/settings.json",
	                                  ".codex/config.toml",
	                                  ".gemini/settings.json"};
	const char *base = project;
	if (!base && a == A_CODEX && getenv("CODEX_HOME") &&
	    getenv("CODEX_HOME")[0]) {
		return (size_t)snprintf(out, cap, "%s/config.toml",
		                        getenv("CODEX_HOME")) < cap
		           ? 0
		           : -1;
	}
	if (!base)
		base = getenv("HOME");
	if (!base || !base[0])
		return -1;
	return (size_t)snprintf(out, cap, "%s/%s", base, rel[a]) < cap ? 0 : -1;
}

/* Read a file; *text NULL when it does not exist.  0, or -1 (errno). */
static int read_opt(const char *path, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	char *raw;
	if (cli_read_file(path, (size_t)4 << 20, &raw, len))
		return errno == ENOENT ? 0 : -1;
	/* NUL-terminated, for the line scanners */
	*text = malloc(*len + 1);
	if (*text) {
		memcpy(*text, raw, *len);
		(*text)[*len] = '\0';
	}
	free(raw);
	if (!*text) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Does this hook entry ({matcher, hooks:[{command}]}) run `locus hook
 * AGENT`? */
static bool entry_is_ours(const cJSON *entry, agent_id a)
{
	char needle[64];
	snprintf(needle, sizeof(needle), "locus hook %s", agent_names[a]);
	const cJSON *hs = cJSON_GetObjectItemCaseSensitive(entry, "hooks");
	const cJSON *h;
	cJSON_ArrayForEach(h, hs)
	{
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(h, "command");
		if (cJSON_IsString(c) && strstr(c->valuestring, needle))
			return true;
	}
	return false;
}

static cJSON *our_entry(const char *matcher, const char *command, int timeout)
{
	cJSON *e = cJSON_CreateObject();
	if (!e || !cJSON_AddStringToObject(e, "matcher", matcher))
		goto fail;
	cJSON *hs = cJSON_AddArrayToObject(e, "hooks");
	cJSON *h = cJSON_CreateObject();
	if (!hs || !h || !cJSON_AddItemToArray(hs, h)) {
		cJSON_Delete(h);
		goto fail;
	}
	if (!cJSON_AddStringToObject(h, "type", "command") ||
	    !cJSON_AddStringToObject(h, "command", command) ||
	    !cJSON_AddNumberToObject(h, "timeout", timeout))
		goto fail;
	return e;
fail:
	cJSON_Delete(e);
	return NULL;
}

/* hooks[event]: drop our old entries, append the new one.  0 or -1. */
static int merge_event(cJSON *hooks, const char *event, agent_id a,
                       cJSON *entry)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(hooks, event);
	if (!arr) {
		arr = cJSON_AddArrayToObject(hooks, event);
	} else if (!cJSON_IsArray(arr)) {
		cJSON_Delete(entry);
		return -1;
	}
	for (cJSON *e = arr->child; e;) {
		cJSON *next = e->next;
		if (entry_is_ours(e, a))
			cJSON_Delete(cJSON_DetachItemViaPointer(arr, e));
		e = next;
	}
	if (!entry || !cJSON_AddItemToArray(arr, entry)) {
		cJSON_Delete(entry);
		return -1;
	}
	return 0;
}

/* The merged JSON settings (Claude Code, Gemini).  Malloc'd, or NULL with
 * a message printed. */
static char *merge_json(agent_id a, const char *path, const char *text,
                        size_t len, bool no_jail)
{
	lu_json_opts jo = LU_JSON_OPTS_INIT;
	jo.object = true;
	cJSON *doc = NULL;
	if (text)
		lu_json_read(&doc, text, len, &jo, NULL);
	else
		doc = cJSON_CreateObject();
	if (!doc) {
		fprintf(stderr,
		        "locus hook install: %s is not a JSON object (or has a "
		        "duplicate key); left alone\n",
		        path);
		cJSON_Delete(doc);
		return NULL;
	}
	cJSON *hooks = cJSON_GetObjectItemCaseSensitive(doc, "hooks");
	if (!hooks)
		hooks = cJSON_AddObjectToObject(doc, "hooks");
	int rc = cJSON_IsObject(hooks) ? 0 : -1;
	if (!rc && a == A_CLAUDE) {
		const char *cmd = claude_command[no_jail];
		rc = merge_event(hooks, "PreToolUse", a,
		                 our_entry(claude_matcher, cmd, 30));
		if (!rc)
			rc = merge_event(hooks, "PermissionRequest", a,
			                 our_entry(claude_matcher, cmd, 30));
	} else if (!rc) {
		rc = merge_event(
		    hooks, "BeforeTool", a,
		    our_entry(gemini_matcher, gemini_command[no_jail], 30000));
	}
	char *out = rc ? NULL : cJSON_Print(doc);
	cJSON_Delete(doc);
	if (!out) {
		fprintf(
		    stderr,
		    "locus hook install: %s: \"hooks\" (or one of its events) "
		    "is not of the agent's shape; left alone\n",
		    path);
		return NULL;
	}
	size_t n = strlen(out);
	char *line = malloc(n + 2);
	if (line) {
		memcpy(line, out, n);
		memcpy(line + n, "\n", 2);
	}
	cJSON_free(out);
	return line;
}

/* `text` with the block between `begin` and `end` cut out; `*at` the
 * offset where it was (or the end).  Malloc'd. */
static char *cut_block(const char *text, const char *begin, const char *end,
                       size_t *at)
{
	const char *t = text ? text : "";
	const char *b = strstr(t, begin);
	const char *e = b ? strstr(b, end) : NULL;
	*at = b ? (size_t)(b - t) : strlen(t);
	const char *tail = "";
	if (b && e) {
		tail = e + strlen(end);
		if (*tail == '\n')
			tail++;
	} else if (b) {
		tail = b + strlen(b); /* an unclosed block: to the end */
	}
	char *out = NULL;
	if (asprintf(&out, "%.*s%s", (int)*at, t, tail) < 0)
		return NULL;
	return out;
}

/* `text` with `block` (between begin and end) put back at `at`. */
static char *put_block(const char *text, size_t at, const char *begin,
                       const char *block, const char *end)
{
	const char *sep = at && text[at - 1] != '\n' ? "\n\n" : at ? "\n" : "";
	char *out = NULL;
	if (asprintf(&out, "%.*s%s%s\n%s%s\n%s", (int)at, text, sep, begin,
	             block, end, text + at) < 0)
		return NULL;
	return out;
}

/* The Codex config with our block replaced or appended.  Malloc'd. */
static char *merge_toml(const char *text, bool no_jail)
{
	size_t at;
	char *rest = cut_block(text, toml_begin, toml_end, &at);
	if (!rest)
		return NULL;
	char *block = NULL;
	bool own_mcp = strstr(rest, "[mcp_servers.locus]") != NULL;
	if (asprintf(&block, "%s%s", codex_block[no_jail],
	             own_mcp ? "" : codex_mcp_block) < 0) {
		free(rest);
		return NULL;
	}
	char *out = put_block(rest, at, toml_begin, block, toml_end);
	free(block);
	free(rest);
	return out;
}

/* Write `text` to `path` atomically (a temporary file renamed over it),
 * creating the folder.  0, or -1 with a message. */
static int write_atomic(const char *path, const char *text)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			fprintf(stderr, "locus hook install: %s: %s\n", dir,
			        strerror(errno));
			return -1;
		}
	}
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "locus hook install: %s: %s\n", path,
		        strerror(errno));
		return -1;
	}
	struct stat st;
	fchmod(fd, stat(path, &st) == 0 ? (st.st_mode & 07777) : 0644);
	size_t n = strlen(text), off = 0;
	while (off < n) {
		ssize_t w = write(fd, text + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	if (off != n || fsync(fd) || close(fd) || rename(tmp, path)) {
		fprintf(stderr, "locus hook install: %s: %s\n", path,
		        strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The folder of Codex's user config (CODEX_HOME, else ~/.codex). */
static bool codex_home(char *out, size_t cap)
{
	const char *ch = getenv("CODEX_HOME");
	const char *h = getenv("HOME");
	if (ch && ch[0])
		return (size_t)snprintf(out, cap, "%s", ch) < cap;
	return h && h[0] && (size_t)snprintf(out, cap, "%s/.codex", h) < cap;
}

static void codex_trust_howto(const char *dir)
{
	fprintf(stderr,
	        "locus hook install: Codex runs a hook only after you trust "
	        "it. Start `codex` in %s and choose \"Trust all and "
	        "continue\" when it asks to review the hooks (or open "
	        "/hooks), or run `locus hook install codex --write` again "
	        "with codex on PATH; `locus hook doctor codex` checks it\n",
	        dir ? dir : "your project");
}

/*
 * After `install codex --write`: ask Codex for the hashes of the locus
 * hooks in `path` and write them, as Codex's own trust does, into the
 * user config (a marked block, replaced on every install).  0, or 2 when
 * the user config cannot be written.
 */
static int codex_trust(const char *path_given, const char *project)
{
	char home[PATH_MAX], cwd[PATH_MAX], why[256], path[PATH_MAX];
	if (!realpath(path_given, path))
		snprintf(path, sizeof path, "%s", path_given);
	const char *dir = project ? project : getcwd(cwd, sizeof cwd);
	char real[PATH_MAX];
	if (dir && realpath(dir, real))
		dir = real;
	if (!codex_home(home, sizeof home) || !dir) {
		codex_trust_howto(dir);
		return 0;
	}
	cJSON *hooks = hook_codex_hooks(home, dir, why, sizeof why);
	if (!hooks) {
		fprintf(stderr, "locus hook install: %s\n", why);
		codex_trust_howto(dir);
		return 0;
	}
	lu_buf block = LU_BUF_INIT;
	char upath[PATH_MAX + 16];
	snprintf(upath, sizeof upath, "%s/config.toml", home);
	char *text = NULL;
	size_t len = 0;
	if (read_opt(upath, &text, &len)) {
		cJSON_Delete(hooks);
		fprintf(stderr, "locus hook install: %s: %s\n", upath,
		        strerror(errno));
		return 2;
	}
	size_t at;
	char begin[PATH_MAX + 64], end[PATH_MAX + 64];
	snprintf(begin, sizeof begin, "%s%s (hashes from codex app-server)",
	         toml_trust_begin, path);
	snprintf(end, sizeof end, "%s%s", toml_trust_end, path);
	char *rest = cut_block(text, begin, end, &at);
	int found = 0, added = 0;
	const cJSON *h;
	cJSON_ArrayForEach(h, hooks)
	{
		const cJSON *key = cJSON_GetObjectItemCaseSensitive(h, "key");
		const cJSON *hash =
		    cJSON_GetObjectItemCaseSensitive(h, "currentHash");
		if (!hook_codex_is_ours(h, path) || !cJSON_IsString(key) ||
		    !cJSON_IsString(hash))
			continue;
		found++;
		char *k = cJSON_PrintUnformatted(key);
		char *v = cJSON_PrintUnformatted(hash);
		char header[PATH_MAX + 64];
		snprintf(header, sizeof header, "[hooks.state.%s]", k ? k : "");
		/* a table Codex wrote itself stays (TOML allows one) */
		if (k && v && rest && !strstr(rest, header)) {
			lu_buf_printf(&block, "%s\ntrusted_hash = %s\n", header,
			              v);
			added++;
		}
		cJSON_free(k);
		cJSON_free(v);
	}
	cJSON_Delete(hooks);
	int rc = 0;
	if (!found) {
		fprintf(stderr,
		        "locus hook install: Codex does not list the hooks of "
		        "%s: Codex reads a project's .codex/config.toml only "
		        "once you trust the project; run `codex exec --trust` "
		        "in %s (or answer \"Trust\" when codex starts there), "
		        "then this install again\n",
		        path, dir);
	} else {
		char *b = lu_buf_take(&block);
		char *out =
		    rest ? put_block(rest, at, begin, b ? b : "", end) : NULL;
		if (!out || write_atomic(upath, out))
			rc = 2;
		else
			fprintf(stderr,
			        "locus hook install: Codex trusts the %d locus "
			        "hook%s of %s (%d hash%s written to %s)\n",
			        found, found == 1 ? "" : "s", path, added,
			        added == 1 ? "" : "es", upath);
		free(out);
		free(b);
	}
	lu_buf_free(&block);
	free(rest);
	free(text);
	return rc;
}

int cli_hook_install(int argc, char **argv)
{
	const char *agent = NULL, *project = NULL;
	bool do_write = false, no_jail = false;
	static const char usage[] = "usage: locus hook install "
	                            "claude-code|codex|gemini [--project DIR] "
	                            "[--no-jail] [--write]\n";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--write"))
			do_write = true;
		else if (!strcmp(argv[i], "--no-jail"))
			no_jail = true;
		else if (!strcmp(argv[i], "--jail"))
			no_jail = false;
		else if (!strcmp(argv[i], "--project") && i + 1 < argc)
			project = argv[++i];
		else if (argv[i][0] != '-' && !agent)
			agent = argv[i];
		else {
			fputs(usage, stderr);
			return 2;
		}
	}
	int a = agent ? agent_of(agent) : -1;
	if (a < 0) {
		fprintf(stderr,
		        "locus hook install: expected claude-code, codex "
		        "or gemini\n");
		return 2;
	}
	char path[PATH_MAX];
	if (config_path((agent_id)a, project, path, sizeof(path))) {
		fprintf(stderr, "locus hook install: no project given and no "
		                "$HOME\n");
		return 2;
	}
	char *text;
	size_t len;
	if (read_opt(path, &text, &len)) {
		fprintf(stderr, "locus hook install: %s: %s\n", path,
		        strerror(errno));
		return 2;
	}
	char *out = a == A_CODEX
	                ? merge_toml(text, no_jail)
	                : merge_json((agent_id)a, path, text, len, no_jail);
	free(text);
	if (!out)
		return 2;
	int rc = 0;
	if (do_write) {
		rc = write_atomic(path, out) ? 2 : 0;
		if (!rc)
			fprintf(stderr, "locus hook install: wrote %s\n", path);
		if (!rc && a == A_CODEX)
			rc = codex_trust(path, project);
	} else {
		fputs(out, stdout);
		fprintf(stderr,
		        "locus hook install: dry run; this is what would be "
		        "written to %s (run again with --write)\n",
		        path);
	}
	free(out);
	return rc;
}

/* --- doctor ---------------------------------------------------------------- */

typedef struct doctor {
	int problems;
	const char *project; /* absolute, or NULL */
} doctor;

/* One line of the report: "  <what>: " and the message. */
__attribute__((format(printf, 2, 0))) static void
say(const char *what, const char *fmt, va_list ap)
{
	printf("  %s: ", what);
	vprintf(fmt, ap);
	printf("\n");
}

__attribute__((format(printf, 1, 2))) static void ok(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("ok", fmt, ap);
	va_end(ap);
}

/* A fact worth saying that is not a problem (an explicit choice). */
__attribute__((format(printf, 1, 2))) static void say_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("note", fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void problem(doctor *d,
                                                          const char *fmt, ...)
{
	d->problems++;
	va_list ap;
	va_start(ap, fmt);
	say("PROBLEM", fmt, ap);
	va_end(ap);
}

/* The first executable `name` on PATH, into out.  true when found. */
static bool on_path(const char *name, char *out, size_t cap)
{
	return lu_path_find(getenv("PATH"), name, true, out, cap);
}

/* What run_hook reads of the command's stdout at most (an answer is a
 * line of JSON). */
#define HOOK_OUT_MAX ((size_t)4 << 20)

/* Run `cmd` with /bin/sh -c as the agent does, `input` on stdin; the
 * status and stdout (malloc'd; NULL when over HOOK_OUT_MAX).  -1 when it
 * cannot run or outlives 30 s. */
static int run_hook(const char *cmd, const char *dir, const char *input,
                    char **out)
{
	*out = NULL;
	int in[2], o[2];
	if (pipe(in))
		return -1;
	if (pipe(o)) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(in[0]);
		close(in[1]);
		close(o[0]);
		close(o[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(o[1], 1);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, 2);
		close(in[1]);
		close(o[0]);
		if (dir && chdir(dir))
			_exit(127);
		if (dir) {
			setenv("CLAUDE_PROJECT_DIR", dir, 1);
			setenv("GEMINI_PROJECT_DIR", dir, 1);
		}
		alarm(30);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(o[1]);
	size_t n = strlen(input), off = 0;
	while (off < n) {
		ssize_t w = write(in[1], input + off, n - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(in[1]);
	char *buf;
	size_t len;
	if (lu_read_all(o[0], HOOK_OUT_MAX, &buf, &len))
		buf = NULL;
	close(o[0]);
	int st = 0;
	pid_t r;
	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	*out = buf;
	if (r < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The configured command, run on a dangerous call and on bad input. */
static void live_test(doctor *d, agent_id a, const char *event, const char *cmd)
{
	const char *tool = a == A_GEMINI ? "run_shell_command" : "Bash";
	char dir[PATH_MAX];
	const char *cwd = d->project;
	if (!cwd && getcwd(dir, sizeof(dir)))
		cwd = dir;
	/* built, not printed: the folder's name may hold a quote or a
	   backslash */
	cJSON *o = cJSON_CreateObject(), *in = cJSON_CreateObject();
	if (in)
		cJSON_AddStringToObject(in, "command", "rm -rf /");
	if (o) {
		cJSON_AddStringToObject(o, "session_id", "locus-doctor");
		cJSON_AddStringToObject(o, "cwd", cwd ? cwd : "/");
		cJSON_AddStringToObject(o, "hook_event_name", event);
		cJSON_AddStringToObject(o, "tool_name", tool);
		if (in && cJSON_AddItemToObject(o, "tool_input", in))
			in = NULL;
	}
	cJSON_Delete(in);
	char *payload = o ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	if (!payload) {
		problem(d, "%s: out of memory", event);
		return;
	}
	char *out = NULL;
	int st = run_hook(cmd, d->project, payload, &out);
	cJSON_free(payload);
	if (st == 0 && out && strstr(out, "deny"))
		ok("%s: a dangerous call (rm -rf /) is denied", event);
	else
		problem(d,
		        "%s: the hook command did not deny rm -rf / (exit %s)",
		        event,
		        st == 2 ? "2: is locus on the agent's PATH?" : "!= 0");
	free(out);
	st = run_hook(cmd, d->project, "{\"tool_name\": ", &out);
	if (st == 2)
		ok("%s: malformed input is blocked (exit 2)", event);
	else
		problem(d, "%s: malformed input was not blocked", event);
	free(out);
}

static bool matcher_sends(const char *matcher, const char *tool)
{
	if (!matcher[0] || !strcmp(matcher, "*"))
		return true;
	char re[1024];
	snprintf(re, sizeof(re), "^(%s)$", matcher);
	regex_t rx;
	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return false;
	bool m = regexec(&rx, tool, 0, NULL, 0) == 0;
	regfree(&rx);
	return m;
}

/* clang-format off */
static const char *const main_tools[3][6] = {
	{"Bash", "Read", "Write", "Edit", "WebFetch", NULL},
	{"Bash", "apply_patch", NULL},
	{"run_shell_command", "read_file", "write_file", "replace", NULL},
};
/* clang-format on */

/* One configured hook: its matcher, guard, and a live run. */
static void check_hook(doctor *d, agent_id a, const char *event,
                       const char *matcher, const char *cmd)
{
	/* Codex asks its PermissionRequest hooks about Bash (and network)
	   approvals only */
	static const char *const codex_pr[] = {"Bash", NULL};
	const char *const *tools = main_tools[a];
	if (a == A_CODEX && !strcmp(event, "PermissionRequest"))
		tools = codex_pr;
	for (size_t i = 0; tools[i]; i++) {
		if (!matcher_sends(matcher, tools[i]))
			problem(d, "%s: the matcher does not send %s to locus",
			        event, tools[i]);
	}
	if (!strstr(cmd, "command -v locus"))
		problem(d,
		        "%s: the command has no guard; if locus goes missing "
		        "the agent ignores the failed hook and runs the call",
		        event);
	else
		ok("%s: the command fails closed when locus is missing", event);
	/* which mode: --jail (install's default) or not */
	if (strstr(cmd, " --jail"))
		ok("%s: --jail: an allowed shell call runs confined in locus "
		   "jail",
		   event);
	else
		say_note("%s: no --jail (installed with --no-jail): an allowed "
		         "shell call runs unconfined; `locus hook install %s` "
		         "installs --jail",
		         event, agent_names[a]);
	live_test(d, a, event, cmd);
}

/* JSON settings (Claude Code, Gemini): our entries on each event. */
static bool doctor_json(doctor *d, agent_id a, const char *path,
                        const char *text, size_t len)
{
	cJSON *doc = NULL;
	lu_json_read(&doc, text, len, NULL, NULL);
	if (!cJSON_IsObject(doc)) {
		problem(d, "%s is not a JSON object", path);
		cJSON_Delete(doc);
		return false;
	}
	static const char *const claude_events[] = {"PreToolUse",
	                                            "PermissionRequest", NULL};
	static const char *const gemini_events[] = {"BeforeTool", NULL};
	const char *const *events =
	    a == A_CLAUDE ? claude_events : gemini_events;
	const cJSON *hooks = cJSON_GetObjectItemCaseSensitive(doc, "hooks");
	bool any = false;
	int ours = 0;
	for (size_t i = 0; events[i]; i++) {
		const cJSON *e;
		cJSON_ArrayForEach(
		    e, cJSON_GetObjectItemCaseSensitive(hooks, events[i]))
		    ours += entry_is_ours(e, a);
	}
	/* a file without any locus hook is not a problem by itself (the
	   user's own settings, when the project has the hook) */
	if (!ours) {
		printf("  (no locus hook in %s)\n", path);
		cJSON_Delete(doc);
		return false;
	}
	for (size_t i = 0; events[i]; i++) {
		const cJSON *arr =
		    cJSON_GetObjectItemCaseSensitive(hooks, events[i]);
		const cJSON *e, *found = NULL;
		cJSON_ArrayForEach(e, arr) if (entry_is_ours(e, a)) found = e;
		if (!found) {
			problem(d,
			        "%s: no locus hook on %s (locus hook install)",
			        path, events[i]);
			continue;
		}
		any = true;
		const cJSON *m =
		    cJSON_GetObjectItemCaseSensitive(found, "matcher");
		const cJSON *h;
		cJSON_ArrayForEach(
		    h, cJSON_GetObjectItemCaseSensitive(found, "hooks"))
		{
			const cJSON *c =
			    cJSON_GetObjectItemCaseSensitive(h, "command");
			if (cJSON_IsString(c) &&
			    strstr(c->valuestring, "locus hook"))
				check_hook(d, a, events[i],
				           cJSON_IsString(m) ? m->valuestring
				                             : "",
				           c->valuestring);
		}
	}
	cJSON_Delete(doc);
	return any;
}

/* A TOML basic string value on a `key = "..."` line, unescaped. */
static bool toml_value(const char *line, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, key, kl) != 0)
		return false;
	const char *p = line + kl;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '=')
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '"')
		return false;
	size_t n = 0;
	for (; *p && *p != '"' && n + 1 < cap; p++) {
		if (*p == '\\' && p[1])
			p++;
		out[n++] = *p;
	}
	out[n] = '\0';
	return *p == '"';
}

/* Does Codex trust (and so run) the locus hooks of `path`?  Asked of
 * `codex app-server` (agents/hook_codex.c). */
static void doctor_codex_trust(doctor *d, const char *path_given)
{
	char bin[PATH_MAX], home[PATH_MAX], cwd[PATH_MAX], why[256];
	char path[PATH_MAX];
	if (!realpath(path_given, path))
		snprintf(path, sizeof path, "%s", path_given);
	if (!on_path("codex", bin, sizeof bin)) {
		printf("  note: codex is not on PATH; cannot check that Codex "
		       "trusts these hooks\n");
		return;
	}
	const char *dir = d->project ? d->project : getcwd(cwd, sizeof cwd);
	/* the user config is CODEX_HOME's; a project file is read with the
	   user's CODEX_HOME too */
	if (!codex_home(home, sizeof home) || !dir) {
		problem(d, "cannot tell where Codex keeps its configuration");
		return;
	}
	cJSON *hooks = hook_codex_hooks(home, dir, why, sizeof why);
	if (!hooks) {
		problem(d, "cannot check Codex's hook trust: %s", why);
		return;
	}
	int listed = 0;
	const cJSON *h;
	cJSON_ArrayForEach(h, hooks)
	{
		const cJSON *key = cJSON_GetObjectItemCaseSensitive(h, "key");
		const cJSON *st =
		    cJSON_GetObjectItemCaseSensitive(h, "trustStatus");
		if (!hook_codex_is_ours(h, path))
			continue;
		listed++;
		const char *k = cJSON_IsString(key) ? key->valuestring : "?";
		if (cJSON_IsString(st) &&
		    (!strcmp(st->valuestring, "trusted") ||
		     !strcmp(st->valuestring, "managed")))
			ok("Codex trusts %s", k);
		else
			problem(d,
			        "Codex does not trust %s (%s): it will not run "
			        "it; run `locus hook install codex --write%s` "
			        "again, or trust it in codex's /hooks",
			        k, cJSON_IsString(st) ? st->valuestring : "?",
			        d->project ? " --project DIR" : "");
	}
	cJSON_Delete(hooks);
	if (!listed)
		problem(
		    d,
		    "Codex does not load %s: a project's .codex/config.toml "
		    "counts only in a trusted project (`codex exec --trust` "
		    "there), then `locus hook install codex --project DIR "
		    "--write` again",
		    path);
}

/* Codex's config.toml, scanned line by line for our hook tables. */
static bool doctor_toml(doctor *d, const char *path, const char *text)
{
	static const char *const events[] = {"PreToolUse", "PermissionRequest"};
	char table[128] = "", matcher[2][1024] = {"", ""};
	bool found[2] = {false, false};
	char line[8192], val[4096];
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
		if (line[0] == '[') {
			snprintf(table, sizeof(table), "%s", line);
			continue;
		}
		for (int e = 0; e < 2; e++) {
			char t1[64], t2[64];
			snprintf(t1, sizeof(t1), "[[hooks.%s]]", events[e]);
			snprintf(t2, sizeof(t2), "[[hooks.%s.hooks]]",
			         events[e]);
			if (!strcmp(table, t1) &&
			    toml_value(line, "matcher", val, sizeof(val)))
				snprintf(matcher[e], sizeof(matcher[e]), "%s",
				         val);
			if (!strcmp(table, t2) &&
			    toml_value(line, "command", val, sizeof(val)) &&
			    strstr(val, "locus hook codex")) {
				found[e] = true;
				check_hook(d, A_CODEX, events[e], matcher[e],
				           val);
			}
		}
	}
	if (!found[0] && !found[1]) {
		printf("  (no locus hook in %s)\n", path);
		return false;
	}
	for (int e = 0; e < 2; e++)
		if (!found[e])
			problem(d,
			        "%s: no locus hook on %s (locus hook install "
			        "codex)",
			        path, events[e]);
	doctor_codex_trust(d, path);
	return true;
}

static void doctor_agent(doctor *d, agent_id a)
{
	printf("%s:\n", agent_names[a]);
	char paths[2][PATH_MAX];
	int np = 0;
	if (d->project && !config_path(a, d->project, paths[np], PATH_MAX))
		np++;
	if (!config_path(a, NULL, paths[np], PATH_MAX))
		np++;
	bool installed = false;
	for (int i = 0; i < np; i++) {
		char *text;
		size_t len;
		if (read_opt(paths[i], &text, &len) || !text) {
			printf("  (no %s)\n", paths[i]);
			free(text);
			continue;
		}
		printf("  %s\n", paths[i]);
		installed |= a == A_CODEX
		                 ? doctor_toml(d, paths[i], text)
		                 : doctor_json(d, a, paths[i], text, len);
		free(text);
	}
	if (!installed)
		problem(d,
		        "no locus hook is installed (locus hook install %s%s)",
		        agent_names[a], d->project ? " --project DIR" : "");
}

int cli_hook_doctor(int argc, char **argv)
{
	doctor d = {0, NULL};
	bool which[3] = {false, false, false}, any = false;
	char proj[PATH_MAX];
	static const char usage[] =
	    "usage: locus hook doctor "
	    "[claude-code|codex|gemini]... [--project DIR]\n";
	for (int i = 1; i < argc; i++) {
		int a;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--project") && i + 1 < argc) {
			if (!realpath(argv[++i], proj)) {
				fprintf(stderr, "locus hook doctor: %s: %s\n",
				        argv[i], strerror(errno));
				return 2;
			}
			d.project = proj;
		} else if ((a = agent_of(argv[i])) >= 0) {
			which[a] = any = true;
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	char bin[PATH_MAX];
	if (on_path("locus", bin, sizeof(bin)))
		printf("locus on PATH: %s\n", bin);
	else {
		printf(
		    "PROBLEM: locus is not on PATH: every hook call is blocked "
		    "(the guard exits 2)\n");
		d.problems++;
	}
	for (int a = 0; a < 3; a++)
		if (which[a] || !any)
			doctor_agent(&d, (agent_id)a);
	printf("%d problem%s\n", d.problems, d.problems == 1 ? "" : "s");
	return d.problems ? 1 : 0;
}
