/*
 * harness/tools.h - what the harness's files share: the harness itself,
 * the tool table's entry, the read ledger, plans and the tool bodies
 * (harness/tools.c builds the table from them).
 */
#ifndef LOCUS_HARNESS_TOOLS_H
#define LOCUS_HARNESS_TOOLS_H

#include "internal.h"

#include "../util/json.h"

#include <cjson/cJSON.h>

#define MAX_READ_BYTES 200000
#define MAX_LINE_CHARS 2000
#define MAX_IMAGE_BYTES 5000000
#define LS_PER_DIR 40
#define LS_MAX_LINES 400
#define GLOB_MAX 1000
#define WALK_MAX 200000
#define GREP_MAX_FILE (16u << 20)

typedef struct ledger_ent {
	char *key;
	char sha[65];
} ledger_ent;

typedef struct bg_ent {
	char handle[16];
	size_t since;
	char *command_sha;
	double start;
} bg_ent;

typedef struct tooldef tooldef;

struct locus_harness {
	locus_backend *b;
	locus_harness_config cfg;
	locus_wrap_fn wrap;
	void *wrap_payload;
	const tooldef *tools[16];
	size_t ntools;
	ledger_ent *led;
	size_t nled, capled;
	cJSON *todos;
	bg_ent *bgs;
	size_t nbgs, capbgs;
	locus_call_ctl *ctl; /* the call in progress (borrowed), or NULL */
};

/* A tool that answers with text (read, ls, bash, todo_read...): true on
 * success, false for a refusal or failure; the text is in out either way. */
typedef bool lh_tool_run(locus_harness *h, const cJSON *args, lu_buf *out);

/* A file tool: it fills a plan, which the harness commits (or renders as a
 * diff for a preview), and leaves out empty; or false with the refusal in
 * out. */
typedef bool lh_tool_plan(locus_harness *h, const cJSON *args, lu_buf *out,
                          lh_change **plan, size_t *nplan);

struct tooldef {
	const char *name;
	const char *description;
	const char *schema;
	lh_tool_run *run;   /* exactly one of run and plan is set */
	lh_tool_plan *plan; /* set: the tool changes files */
	bool shell;
};

/*
 * Read a call's arguments with util's strict reader (util/json.h): one JSON
 * object, nothing after it, no key twice, UTF-8, no NUL (raw or \u0000),
 * so the gate and the tool body see one value.  NULL or 0 bytes are {}.
 * LU_JSON_OK with *out set (cJSON_Delete), else *out NULL and, except for
 * LU_JSON_NOMEM, the refusal text appended to why (optional).
 */
lu_json_problem lh_args_read(cJSON **out, const char *args, size_t len,
                             lu_buf *why);

/* Fetch an optional argument of a type; false (with a message in out) on
 * a wrong type. */
bool lh_arg_str(const cJSON *a, const char *k, const char *def, const char **v,
                lu_buf *out);

bool lh_arg_int(const cJSON *a, const char *k, long def, long lo, long hi,
                long *v, lu_buf *out);

bool lh_arg_bool(const cJSON *a, const char *k, bool def, bool *v, lu_buf *out);

void lh_ledger_note(locus_harness *h, const char *path, const char *data,
                    size_t len);

void lh_ledger_forget(locus_harness *h, const char *path);

/* NULL when a change to an existing file (with these current bytes) may
 * go ahead; else the refusal text (static format filled into out). */
bool lh_ledger_check(locus_harness *h, const char *path, const char *data,
                     size_t len, lu_buf *out);

/* Plan replacing path's content; `old` is taken over (may be NULL). */
bool lh_plan_write(lh_change **plan, size_t *n, const char *path, bool had,
                   char *old, size_t olen, const char *data, size_t len,
                   lu_buf *out);

void lh_err_text(lu_buf *out, const locus_error *err, const char *tail);

/* Read a file that must exist, and pass the ledger. */
bool lh_load_for_change(locus_harness *h, const char *path, char **data,
                        size_t *len, lu_buf *out);

size_t lh_utf8_chars(const char *s, size_t n);

/* The tool bodies (tool_files.c, tool_search.c, tool_shell.c,
 * tool_todo.c), listed in harness/tools.c's table. */
lh_tool_run lh_t_read, lh_t_ls, lh_t_glob, lh_t_grep, lh_t_bash,
    lh_t_bash_output, lh_t_write_stdin, lh_t_kill_shell, lh_t_todo_write,
    lh_t_todo_read;
lh_tool_plan lh_t_write, lh_t_edit, lh_t_multi_edit, lh_t_apply_patch,
    lh_t_notebook_edit;

/* Commit a plan.  With the backend's write_many, as one batch (all or
 * nothing).  Else one file after another, writes first and removals last,
 * and on a failure part way what was changed is put back (the backend's
 * write keeps the replaced file's mode and owner; a removed file comes
 * back with default metadata). */
bool lh_commit(locus_harness *h, lh_change *c, size_t n, lu_buf *out);

#endif
