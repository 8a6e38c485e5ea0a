/*
 * util/tools.h - the one table of harness tool names.
 *
 * Every layer that names the harness's tools reads this table: the
 * labeller (a tool's kind), the gate (agents' names -> ours), the harness
 * (which tools a preset builds) and MCP (annotations).  LU_TOOLS is an
 * X-macro so that data tables elsewhere (the public name lists of
 * include/locus/harness.h) are built from it at compile time:
 *
 *     X(name, kind, flags, in_default_set, in_patch_set, title)
 *
 * in the order of the spec (harness.md section 2).  The two set columns are
 * 1 or 0 so that LU_IF_1/LU_IF_0 can select entries.
 */
#ifndef LOCUS_UTIL_TOOLS_H
#define LOCUS_UTIL_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

/* What a tool does to the workspace (labels map this to locus_kind). */
typedef enum lu_tool_kind {
	LU_TOOL_READS = 0,
	LU_TOOL_WRITES = 1,
	LU_TOOL_EXECS = 2,
} lu_tool_kind;

/* Facts about a tool. */
enum {
	LU_TOOL_SHELL = 1 << 0,       /* runs its `command` as a shell line */
	LU_TOOL_STDIN = 1 << 1,       /* sends text to a running command */
	LU_TOOL_PATCH = 1 << 2,       /* takes an apply_patch text */
	LU_TOOL_READ_ONLY = 1 << 3,   /* MCP readOnlyHint */
	LU_TOOL_DESTRUCTIVE = 1 << 4, /* MCP destructiveHint */
	LU_TOOL_IDEMPOTENT = 1 << 5,  /* MCP idempotentHint */
	LU_TOOL_PROCESS = 1 << 6,     /* acts on processes (MCP openWorldHint
	                                unless the backend is isolated) */
};

#define LU_TOOL_RO_ (LU_TOOL_READ_ONLY | LU_TOOL_IDEMPOTENT)
#define LU_TOOL_RW_ LU_TOOL_DESTRUCTIVE
/* reading output moves the reader's offset: bash_output is not idempotent */
#define LU_TOOLS(X)                                                            \
	X(read, LU_TOOL_READS, LU_TOOL_RO_, 1, 1, "Read a file")               \
	X(ls, LU_TOOL_READS, LU_TOOL_RO_, 1, 1, "List a folder tree")          \
	X(glob, LU_TOOL_READS, LU_TOOL_RO_, 1, 1, "Find files by pattern")     \
	X(grep, LU_TOOL_READS, LU_TOOL_RO_, 1, 1, "Search file contents")      \
	X(edit, LU_TOOL_WRITES, LU_TOOL_RW_, 1, 0,                             \
	  "Edit a file (replace text)")                                        \
	X(multi_edit, LU_TOOL_WRITES, LU_TOOL_RW_, 1, 0,                       \
	  "Several edits to one file")                                         \
	X(write, LU_TOOL_WRITES, LU_TOOL_RW_ | LU_TOOL_IDEMPOTENT, 1, 0,       \
	  "Create or replace a file")                                          \
	X(apply_patch, LU_TOOL_WRITES, LU_TOOL_RW_ | LU_TOOL_PATCH, 0, 1,      \
	  "Apply a patch")                                                     \
	X(notebook_edit, LU_TOOL_WRITES, LU_TOOL_RW_, 1, 1,                    \
	  "Edit a notebook cell")                                              \
	X(bash, LU_TOOL_EXECS, LU_TOOL_RW_ | LU_TOOL_SHELL | LU_TOOL_PROCESS,  \
	  1, 1, "Run a shell command")                                         \
	X(bash_output, LU_TOOL_READS, LU_TOOL_READ_ONLY | LU_TOOL_PROCESS, 1,  \
	  1, "Read a background command's output")                             \
	X(kill_shell, LU_TOOL_EXECS,                                           \
	  LU_TOOL_RW_ | LU_TOOL_IDEMPOTENT | LU_TOOL_PROCESS, 1, 1,            \
	  "Stop a background command")                                         \
	X(write_stdin, LU_TOOL_EXECS,                                          \
	  LU_TOOL_RW_ | LU_TOOL_STDIN | LU_TOOL_PROCESS, 1, 1,                 \
	  "Send text to a background command")                                 \
	X(todo_write, LU_TOOL_READS, LU_TOOL_IDEMPOTENT, 1, 1,                 \
	  "Replace the todo list")                                             \
	X(todo_read, LU_TOOL_READS, LU_TOOL_RO_, 1, 1, "Read the todo list")

/* Select an X-macro entry by its 1/0 set column. */
#define LU_IF_1(...) __VA_ARGS__
#define LU_IF_0(...)

typedef struct lu_tool {
	const char *name;
	lu_tool_kind kind;
	unsigned flags;    /* LU_TOOL_* facts */
	const char *title; /* a short human title (MCP annotations) */
} lu_tool;

/* The row of a harness tool name (exact, case-sensitive), or NULL. */
const lu_tool *lu_tool_find(const char *name);

/* Row i in the spec's order, or NULL when i is past the last. */
const lu_tool *lu_tool_at(size_t i);

/* An agent's tool name normalised for matching: lower case, '_' and '-'
   dropped ("MultiEdit", "multi_edit" -> "multiedit"), cut to cap - 1. */
void lu_tool_norm(const char *in, char *out, size_t cap);

/* The harness tool a coding agent's tool name stands for (Claude Code,
   Gemini CLI, Codex: "Bash", "run_shell_command", "NotebookRead" ...), or
   NULL when it is none of ours.  mcp__ names are never ours. */
const char *lu_tool_from_agent(const char *name);

/* An agent's argument names copied to the harness's (file_path ->
   path, old_string -> old ...) where the harness name is absent; the
   object is a cJSON object.  0, or -1 when out of memory. */
struct cJSON;
int lu_tool_agent_args(struct cJSON *args);

/* Whether an agent's tool fetches from or searches the web (its kind is
   `network` when it is not a harness tool). */
bool lu_tool_is_web(const char *name);

#endif
