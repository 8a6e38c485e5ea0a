/*
 * agents/hook.h - the engine of `locus hook` (agents/hook*.c), not public;
 * the command itself (options, stdin, the agents' answer shapes) is
 * cli/hook.c, `locus hook install` and `locus hook doctor` are
 * cli/hook_install.c.
 *
 *   hook_calls.c  what one payload asks for, as calls for the gate
 *                 (agent tool quirks: `bash -lc` wrappers, read_many_files,
 *                 web_fetch prompts, MCP tools carrying a command...)
 *   hook_safe.c   "known safe": the only calls a hook may answer `allow`
 *   hook_ask.c    whether the agent can ask a person
 *   hook_jail.c   an allowed shell call rewritten to run under locus jail
 *   hook_codex.c  Codex's hook trust, asked of Codex itself
 */
#ifndef LOCUS_CLI_HOOK_H
#define LOCUS_CLI_HOOK_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "locus/policy.h"

/* One call the gate decides: a tool name and its arguments object. */
typedef struct hook_call {
	char *tool;   /* as the gate should see it ("Bash", "Read"...) */
	cJSON *input; /* owned */
} hook_call;

/* Everything a payload asks for; the answer is the strongest decision of
 * all the calls, and `allow` only when every call is known safe. */
typedef struct hook_plan {
	hook_call *calls;
	size_t ncalls;
	/* a floor the payload itself sets (dangerouslyDisableSandbox):
	   at least require_human, with this reason; NULL when none */
	const char *hold_reason;
} hook_plan;

/*
 * Build the calls of one payload.  `tool` and `input` are the payload's
 * tool_name and tool_input, `mcp` Gemini's mcp_context or NULL (all
 * borrowed, not changed).  0; -1 out of memory; 1 when the payload cannot
 * be judged (two path fields that disagree, a shell argv that is not
 * strings): `why` then says so.
 */
int hook_plan_build(hook_plan *plan, const char *tool, const cJSON *input,
                    const cJSON *mcp, char *why, size_t whylen);
void hook_plan_free(hook_plan *plan);

/*
 * Does locus positively know that this allowed call is safe?  True only
 * for a decision whose outcome is allow and that either an explicit
 * permission allow rule covered, or that is a read-only call (kind
 * workspace.read, no exec:* tag) whose every path stays inside `root`
 * (symlinks resolved when the path exists).  `call` is what the decision
 * was made on; `root` is absolute or NULL (nothing is inside NULL).
 * `trust_rules` false: an allow rule alone does not make a call known
 * safe (Claude Code's plan mode, where nothing but reading may run).
 */
bool hook_known_safe(const locus_decision *d, const hook_call *call,
                     const char *root, bool trust_rules);

/*
 * agents/hook_jail.c: an allowed shell call rewritten to run under `locus
 * jail --root ROOT` (ROOT the call's workspace): the shell line `line` as
 * a new line (malloc'd), or a copy of the tool input with its `command`
 * (a string or an argv array) replaced (cJSON, the caller deletes).  NULL
 * when out of memory.
 */
char *hook_jail_line(const char *line, const char *root, bool network);
cJSON *hook_jail_input(const cJSON *input, const char *root, bool network);

/* agents/hook_ask.c: can the agent running this hook ask a person?  False
 * for a headless Gemini CLI run (gemini -p), whose ask would wait
 * forever; true otherwise. */
bool hook_agent_can_ask(const char *agent);

/* A shell tool's input, in place: an argv `command` becomes the line
 * that runs exactly it, and `bash -lc 'S'` (also sh, zsh, dash, ksh,
 * under /bin, /usr/bin, /usr/local/bin; two levels) becomes S, so every
 * front end judges the script the wrapper runs (locus gate does the same
 * as the hooks).  0; -1 out of memory; 1 an argv that is not strings. */
int hook_shell_unwrap(cJSON *input);

/* Is `tool` one of the agents' shell tools (Bash, Monitor, shell,
 * run_shell_command...)? */
bool hook_tool_is_shell(const char *tool);

/* A locus_wrap_fn for the harness front ends (`locus mcp`, `locus tool`),
 * its payload a locus_policy_wrap: a shell tool's call is judged as the
 * script its wrapper runs (hook_shell_unwrap, as `locus gate` and the
 * hooks judge it), then locus_harness_policy_wrap decides.  The call runs
 * as given; arguments that do not read strictly are judged as written. */
char *hook_policy_wrap(const char *tool, const char *args_json, size_t args_len,
                       void *wrap_payload);

/*
 * agents/hook_codex.c: the hooks Codex sees for `cwd` (its user config in
 * `codex_home`, NULL for Codex's default), as `codex app-server` lists
 * them (`hooks/list`: key, command, sourcePath, currentHash,
 * trustStatus...): a cJSON array, or NULL with `why` (codex not on PATH,
 * no answer within 30 s).
 */
cJSON *hook_codex_hooks(const char *codex_home, const char *cwd, char *why,
                        size_t wl);
/* Does this listed hook run `locus hook codex`, from the config file
   `source` (its sourcePath)? */
bool hook_codex_is_ours(const cJSON *hook, const char *source);

#endif
