/*
 * locus/labels.h - kinds, exec:* tags, the never-allow floor and Actions.
 *
 * An Action is what one tool call would do (spec shell.md section 2,
 * policy.md section 1): the tool's name, its kind, a set of tags (always
 * holding the tool's name), an asset, and for `bash` the full shell analysis
 * of the command.  The policy engine decides on Actions; the harness derives
 * one for every call before it runs anything.
 *
 * Ownership: a locus_action owns everything reachable from it.  Strings and
 * the shell result returned by accessors are borrowed until
 * locus_action_free().  Actions are not shared between threads while being
 * modified (locus_action_add_tag and the setters); reading is thread safe.
 */
#ifndef LOCUS_LABELS_H
#define LOCUS_LABELS_H

#include "common.h"
#include "shell.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum locus_kind {
	LOCUS_KIND_READ = 0,    /* "workspace.read" */
	LOCUS_KIND_WRITE = 1,   /* "workspace.write" */
	LOCUS_KIND_EXEC = 2,    /* "workspace.exec" */
	LOCUS_KIND_NETWORK = 3, /* "network" (web tools) */
} locus_kind;

/** "workspace.read", ... ; never NULL ("" for an out-of-range value). */
LOCUS_API const char *locus_kind_name(locus_kind kind);

/* The exec:* tags, as bits of a uint32_t; locus_tag_name() gives the
   string. */
typedef enum locus_tag {
	LOCUS_TAG_DESTRUCTIVE = 1u << 0,  /* exec:destructive */
	LOCUS_TAG_VCS_PUSH = 1u << 1,     /* exec:vcs-push */
	LOCUS_TAG_FORCE_PUSH = 1u << 2,   /* exec:force-push */
	LOCUS_TAG_NETWORK = 1u << 3,      /* exec:network */
	LOCUS_TAG_REMOTE_CODE = 1u << 4,  /* exec:remote-code */
	LOCUS_TAG_SHUTDOWN = 1u << 5,     /* exec:shutdown */
	LOCUS_TAG_CHECK = 1u << 6,        /* exec:check */
	LOCUS_TAG_NEVER = 1u << 7,        /* exec:never */
	LOCUS_TAG_BACKGROUND = 1u << 8,   /* exec:background */
	LOCUS_TAG_UNPARSED = 1u << 9,     /* exec:unparsed */
	LOCUS_TAG_STDIN = 1u << 10,       /* exec:stdin */
	LOCUS_TAG_SECRETS = 1u << 11,     /* exec:secrets */
	LOCUS_TAG_PERSISTENCE = 1u << 12, /* exec:persistence */
	LOCUS_TAG_PRIVILEGE = 1u << 13,   /* exec:privilege */
	/* "outside-workspace": not an exec:* tag but a label of any tool (a
	   path outside the workspace root).  locus_shell_label() never sets
	   it (it has no root); locus_action_derive_opts() does. */
	LOCUS_TAG_OUTSIDE = 1u << 14,
	LOCUS_TAG_UNKNOWN = 1u << 15, /* exec:unknown: a program locus does
	                                 not know (closed world) */
	/* "agent-config": not an exec:* tag but a label of any tool (the
	   configuration of a coding agent or of locus itself is written) */
	LOCUS_TAG_AGENT_CONFIG = 1u << 16,
} locus_tag;
#define LOCUS_TAG_COUNT 17

/** "exec:destructive" for LOCUS_TAG_DESTRUCTIVE...; NULL for a value that is
 *  not exactly one known bit. */
LOCUS_API const char *locus_tag_name(uint32_t tag_bit);

/** The environment variable `name` says it holds a secret (GITHUB_TOKEN,
 *  AWS_SECRET_ACCESS_KEY, DATABASE_URL...): the names the exec:secrets
 *  label reads, the ones the jail never passes on (docs/jail.md).  A name
 *  of 256 bytes or more counts; NULL and "" do not. */
LOCUS_API bool locus_secret_variable(const char *name);

/**
 * The shell verdict for one line: what the labeller concluded from a parse
 * result.  Opaque, made by locus_shell_label() and freed with
 * locus_shell_verdict_free(); read through the accessors below.  The
 * strings it returns (`never`, reasons) are static or borrowed from the
 * parse result: valid while both the verdict and the result live.
 */
typedef struct locus_shell_verdict locus_shell_verdict;

typedef struct locus_action locus_action;

/**
 * Derive the Action of a tool call.
 *
 * @param[out] out  the action, freed with locus_action_free(); NULL on error
 * @param parser    used for `bash` commands; borrowed; may be NULL, then a
 *                  temporary parser with default limits is made
 * @param tool      tool name (NUL-terminated), e.g. "bash", "write"
 * @param args_json the call's arguments as a JSON object, borrowed, need not
 *                  be NUL-terminated; args_len is its byte count.  NULL or
 *                  "" mean {}.
 * @param err       optional detail on failure
 * @return 0; LOCUS_ENOTFOUND for a tool that is not a harness tool
 *         ("no harness tool named 'x'"); LOCUS_EINVALID for arguments that
 *         are not a JSON object or have a wrong type (`command` not a
 *         string...); LOCUS_ENOMEM.
 */
LOCUS_API int locus_action_derive(locus_action **out,
                                  locus_shell_parser *parser, const char *tool,
                                  const char *args_json, size_t args_len,
                                  locus_error *err);

/**
 * Classify one bash line: the Action of {"tool":"bash","arguments":
 * {"command": line}}.  Same contract as locus_action_derive().
 */
LOCUS_API int locus_action_classify(locus_action **out,
                                    locus_shell_parser *parser,
                                    const char *line, size_t len,
                                    locus_error *err);

/**
 * What the labeller knows besides the call: the workspace root, against
 * which the `outside-workspace` label is judged (a path the call reads,
 * writes, deletes, moves or changes modes of that is not under the root:
 * absolute paths elsewhere, `~`/`$HOME`, `..` that climbs out, relative
 * paths after a `cd` out, targets only known at run time).  Versioned:
 * initialise with LOCUS_ACTION_OPTIONS_INIT.
 */
typedef struct locus_action_options {
	unsigned version;           /* LOCUS_ACTION_OPTIONS_VERSION */
	const char *workspace_root; /* an absolute directory, borrowed for the
	                               call; NULL: the process's current
	                               directory (getcwd); when that cannot be
	                               read either, every path counts as
	                               outside */
} locus_action_options;

#define LOCUS_ACTION_OPTIONS_VERSION 1
#define LOCUS_ACTION_OPTIONS_INIT                                              \
	{                                                                      \
		.version = LOCUS_ACTION_OPTIONS_VERSION                        \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_ACTION_OPTIONS_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_ACTION_OPTIONS_VERSION; opts untouched) */
LOCUS_API int locus_action_options_init(locus_action_options *opts,
                                        unsigned version);

/**
 * locus_action_derive() with options (NULL: the defaults).  The plain
 * locus_action_derive() and locus_action_classify() use the current
 * directory as the root.
 *
 * @return as locus_action_derive(); LOCUS_EINVALID also for an options
 *         struct of an unknown version or a relative workspace_root
 */
LOCUS_API int locus_action_derive_opts(locus_action **out,
                                       locus_shell_parser *parser,
                                       const char *tool, const char *args_json,
                                       size_t args_len,
                                       const locus_action_options *opts,
                                       locus_error *err);

/** locus_action_classify() with options (NULL: the defaults). */
LOCUS_API int locus_action_classify_opts(locus_action **out,
                                         locus_shell_parser *parser,
                                         const char *line, size_t len,
                                         const locus_action_options *opts,
                                         locus_error *err);

/**
 * An Action from its fields, for a caller that labels a call itself (the
 * Python binding's `Action(name, kind=...)`, a tool locus does not know):
 * environment "unknown", blast radius 1, cost 0, no tags (add them with
 * locus_action_add_tag; unlike a derived action's, they do not hold the
 * tool's name unless added), no shell analysis.
 *
 * @param tool   NUL-terminated, copied; not empty
 * @param asset  copied; NULL: ""
 * @return 0; LOCUS_EUSAGE (NULL out, NULL or empty tool); LOCUS_EINVALID
 *         (a kind outside locus_kind); LOCUS_ENOMEM
 */
LOCUS_API int locus_action_new(locus_action **out, const char *tool,
                               locus_kind kind, const char *asset,
                               locus_error *err);

/** Free an action.  NULL is accepted. */
LOCUS_API void locus_action_free(locus_action *action);

LOCUS_API const char *locus_action_tool(const locus_action *action);
LOCUS_API locus_kind locus_action_kind(const locus_action *action);
LOCUS_API const char *locus_action_asset(const locus_action *action);
LOCUS_API const char *locus_action_environment(const locus_action *action);
LOCUS_API int64_t locus_action_blast_radius(const locus_action *action);
LOCUS_API double locus_action_cost_usd(const locus_action *action);

/** Sorted, de-duplicated tag strings (the tool name and exec:* tags among
 *  them).  Borrowed. */
LOCUS_API size_t locus_action_tag_count(const locus_action *action);
LOCUS_API const char *locus_action_tag(const locus_action *action, size_t i);
LOCUS_API bool locus_action_has_tag(const locus_action *action,
                                    const char *tag);

/** The exec:* tags as LOCUS_TAG_* bits. */
LOCUS_API uint32_t locus_action_exec_tags(const locus_action *action);

/** The floor's reason, or NULL. */
LOCUS_API const char *locus_action_never(const locus_action *action);

/** Reasons, in the order found.  Borrowed. */
LOCUS_API size_t locus_action_reason_count(const locus_action *action);
LOCUS_API const char *locus_action_reason(const locus_action *action, size_t i);

/** The shell analysis for `bash` actions, else NULL.  Borrowed. */
LOCUS_API const locus_shell_result *
locus_action_shell(const locus_action *action);

/** Add a tag (copied), keeping the set sorted.  0 or LOCUS_ENOMEM. */
LOCUS_API int locus_action_add_tag(locus_action *action, const char *tag);

/** Setters for the policy's inputs.  `environment` is copied.
 *  0, LOCUS_ENOMEM or LOCUS_EINVALID (negative blast radius or cost,
 *  NaN). */
LOCUS_API int locus_action_set_environment(locus_action *action,
                                           const char *env);
LOCUS_API int locus_action_set_blast_radius(locus_action *action,
                                            int64_t radius);
LOCUS_API int locus_action_set_cost_usd(locus_action *action, double cost);

/**
 * Label a parse result (spec shell.md section 2).  Pure: reads `result`
 * only.
 *
 * @param[out] out  the verdict, freed with locus_shell_verdict_free();
 *                  NULL on error
 * @param result    from locus_shell_parser_parse(); borrowed, must outlive
 *                  the verdict; NULL is labelled as an empty unparsed line
 * @return 0, LOCUS_ENOMEM, or LOCUS_EUSAGE when out is NULL
 */
LOCUS_API int locus_shell_label(locus_shell_verdict **out,
                                const locus_shell_result *result);

/** Free a verdict.  NULL is accepted. */
LOCUS_API void locus_shell_verdict_free(locus_shell_verdict *verdict);

/** LOCUS_KIND_READ or LOCUS_KIND_EXEC (LOCUS_KIND_EXEC for NULL). */
LOCUS_API locus_kind
locus_shell_verdict_kind(const locus_shell_verdict *verdict);

/** LOCUS_TAG_* bits (LOCUS_TAG_UNPARSED for NULL: fail closed). */
LOCUS_API uint32_t locus_shell_verdict_tags(const locus_shell_verdict *verdict);

/** The floor's reason, e.g. "recursive delete", or NULL. */
LOCUS_API const char *
locus_shell_verdict_never(const locus_shell_verdict *verdict);

/** Reasons ("rm deletes files", ...), in the order found, deduplicated;
 *  NULL for i out of range.  Static strings (see locus_action for the
 *  Action's owned copies, which carry the unparsed reason's detail). */
LOCUS_API size_t
locus_shell_verdict_reason_count(const locus_shell_verdict *verdict);
LOCUS_API const char *
locus_shell_verdict_reason(const locus_shell_verdict *verdict, size_t i);

/** Flags of the JSON renderers (locus_action_json, locus_policy_json,
 *  locus_decision_json), or'd together. */
typedef enum locus_json_flags {
	LOCUS_JSON_DEFAULT = 0,       /* compact */
	LOCUS_JSON_PRETTY = 1 << 0,   /* indent */
	LOCUS_JSON_COMMANDS = 1 << 1, /* include "commands" for bash */
} locus_json_flags;

/**
 * Render an action as the `locus classify` JSON object (spec shell.md
 * section 3).
 *
 * @param[out] out  NUL-terminated text, freed with locus_free(); NULL on
 *                  error
 * @param action    borrowed
 * @param flags     LOCUS_JSON_* or'd
 * @return 0, LOCUS_ENOMEM, or LOCUS_EUSAGE for a NULL out or action
 */
LOCUS_API int locus_action_json(char **out, const locus_action *action,
                                unsigned flags);

#ifdef __cplusplus
}
#endif
#endif
