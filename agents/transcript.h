/*
 * agents/transcript.h - agent session logs read as a list of tool calls
 * (agents/transcript.c: files, detection, lines; agents/transcript_agents.c:
 * the three formats).  Used by `locus audit transcripts` (docs/audit.md).
 *
 * Formats, as their agents write them (the sources are cited in
 * docs/audit.md and next to each recorded sample in tests/transcripts/):
 *   claude-code  ~/.claude/projects/<project>/<session>.jsonl: one record a
 *                line; `assistant` messages' `tool_use` blocks, `user`
 *                messages' `tool_result` blocks.
 *   codex        ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl: RolloutLine
 *                {timestamp,type,payload}; response items `function_call`,
 *                `custom_tool_call`, `local_shell_call` and their outputs.
 *   gemini       ~/.gemini/tmp/<project_hash>/chats/session-*.jsonl (one
 *                record a line, a message re-appended when it changes) or
 *                the older session-*.json (one ConversationRecord);
 *                `gemini` messages' `toolCalls`.  logs.json (the user's
 *                prompts) holds no tool call and is read as such.
 *
 * A line that is not JSON, or a known record of the wrong shape, is
 * counted as malformed; a JSON record of a type we do not know is counted
 * as unknown.  Neither stops the reading.
 */
#ifndef LOCUS_CLI_TRANSCRIPT_H
#define LOCUS_CLI_TRANSCRIPT_H

#include <stddef.h>

struct cJSON;

typedef enum tr_agent {
	TR_UNKNOWN = 0,
	TR_CLAUDE,
	TR_CODEX,
	TR_GEMINI,
} tr_agent;

/* "claude-code", "codex", "gemini", "unknown". */
const char *tr_agent_name(tr_agent agent);

/* One tool call.  Every string is malloc'd and owned by the set. */
typedef struct tr_call {
	size_t file; /* index into tr_set.files */
	long line;   /* 1-based line of the call in its file */
	tr_agent agent;
	char *session;   /* may be NULL */
	char *time;      /* ISO 8601 as written, may be NULL */
	char *cwd;       /* the session's working folder, may be NULL */
	char *tool;      /* the agent's tool name, as written */
	char *call_id;   /* may be NULL */
	char *gate_tool; /* the name handed to locus_gate() */
	char *args;      /* its arguments: a JSON object */
	char *text;      /* what to show: command, patch, path... */
	char *status;    /* "ok", "error", "cancelled" or NULL (no result) */
} tr_call;

typedef struct tr_file {
	char *path;
	const char *root; /* the PATH it was found under (borrowed) */
	int unreadable;   /* read in part or not at all: `problem` says why */
	tr_agent agent;
	char *project; /* Gemini's projectHash, else NULL */
	long lines, records, calls, unknown, malformed;
	long problem_line; /* first unknown or malformed line, 0 if none */
	char problem[160]; /* what was wrong with it */
} tr_file;

typedef struct tr_set tr_set;
/* Called once per file read, with the file's calls in the set (and only
   them, when `each` is set); the calls are freed after it returns, the
   file's entry (counts, problem) is kept.  Memory is then bounded by the
   largest file, not the whole input. */
typedef void tr_each_fn(tr_set *set, void *arg);

struct tr_set {
	tr_call *calls;
	size_t ncalls, capcalls;
	tr_file *files;
	size_t nfiles, capfiles;
	int oom;          /* an allocation failed: the set is incomplete */
	tr_each_fn *each; /* optional: stream file by file */
	void *each_arg;
	const char *root; /* the PATH being read (tr_file.root) */
};

/*
 * Read a file, or every *.jsonl / *.json / *.jsonl.zst file under a folder
 * (sorted, symbolic links to folders not followed).  A .jsonl.zst file
 * (Codex's compressed rollouts) is decompressed as it is read (libzstd);
 * one that cannot be is listed with `unreadable` and its reason, never
 * skipped silently.  Returns 0, or -1 when the path
 * cannot be opened (errno set); other files of a folder are still read.
 */
int tr_read_path(tr_set *set, const char *path);

void tr_set_free(tr_set *set);

/* ---- shared by transcript.c and transcript_agents.c ---- */

/* The reader of one file: its set entry, and where results are matched. */
typedef struct tr_reader {
	tr_set *set;
	size_t file;
	long line; /* the line being read */
	char *session, *cwd;
	/* call ids of this file -> call index + 1 (open addressing) */
	size_t *ids;
	size_t capids, nids;
	/* a whole-file document: its text, to find each call's line */
	const char *doc, *doc_pos;
	long doc_line;
	/* results seen before their call, applied at the end */
	struct tr_pending {
		char *id, *status;
	} * pending;
	size_t npending, cappending;
} tr_reader;

/* Count the current line as unknown or malformed (first one kept). */
void tr_unknown(tr_reader *r, const char *why);
void tr_malformed(tr_reader *r, const char *why);

/* A string member, or NULL. */
const char *tr_str(const struct cJSON *obj, const char *key);
/* JSON text a transcript holds inside a string (Codex's function-call
   arguments), read strictly (util/json.h): the object, the caller's to
   cJSON_Delete(), or NULL when it is not one, has a key twice, or text is
   NULL.  A duplicate "command" is not read as either of its values: the
   call is then reported as written, which the gate refuses. */
struct cJSON *tr_object(const char *text);

/*
 * Add a call (strings copied; `args` is a JSON object text).  A call whose
 * id is already in this file replaces its fields (Gemini re-appends a
 * message as its tool calls progress); the first line stays.
 */
int tr_add_call(tr_reader *r, const char *time, const char *tool,
                const char *id, const char *gate_tool, const char *args,
                const char *text, const char *status);

/* Record a call's result by id. */
void tr_result(tr_reader *r, const char *id, const char *status);

/* Set the session / working folder for the calls that follow. */
void tr_set_session(tr_reader *r, const char *session);
void tr_set_cwd(tr_reader *r, const char *cwd);

/* At a file's end: the results seen before their call, matched now. */
void tr_apply_pending(tr_reader *r);
/* Free a call's strings. */
void tr_call_free(tr_call *c);

/* Which format a record belongs to (TR_UNKNOWN: cannot tell). */
tr_agent tr_detect(const struct cJSON *record);

/* One record of a JSONL file, by format. */
void tr_claude_record(tr_reader *r, const struct cJSON *rec);
void tr_codex_record(tr_reader *r, const struct cJSON *rec);
void tr_gemini_record(tr_reader *r, const struct cJSON *rec);

/* A whole-file Gemini JSON document (session-*.json or logs.json); `text`
   is used to find each call's line.  0, or -1 when it is neither. */
int tr_gemini_document(tr_reader *r, const struct cJSON *doc, const char *text);

/* Shell-quote an argv array into the one line that runs exactly it.
   malloc'd, or NULL when an element is not a string (or out of memory). */
char *tr_argv_line(const struct cJSON *argv);

#endif
