/*
 * locus/policy.h - the ControlPolicy, permission rules, the gate and the
 * audit trail (spec policy.md).
 *
 * A policy decides on an Action: allow, require_human or deny.  Every rule
 * that fires adds a check (outcome, reason); the strongest outcome wins and
 * the reason is the fired reasons joined by "; " (or "all policy checks
 * passed").  Permission rules in the coding agents' syntax (Bash(git
 * diff:*), Edit(/etc/...), WebFetch(domain:x.com), mcp__server, *) give a
 * verdict that becomes the label permission:allow|ask|deny.
 *
 * Ownership: every object returned through `**out` is the caller's and is
 * freed with its type's _free function (all NULL-safe).  Strings returned by
 * accessors are borrowed from their object.  Policies are immutable once
 * loaded (except locus_policy_add_claude_settings) and may be shared by
 * threads for reading.
 */
#ifndef LOCUS_POLICY_H
#define LOCUS_POLICY_H

#include "common.h"
#include "labels.h"
#include "shell.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Outcomes, ordered: the strongest (largest) wins. */
typedef enum locus_outcome {
	LOCUS_OUTCOME_ALLOW = 0,
	LOCUS_OUTCOME_REQUIRE_HUMAN = 1,
	LOCUS_OUTCOME_DENY = 2,
} locus_outcome;

/** "allow", "require_human", "deny"; "" for an out-of-range value. */
LOCUS_API const char *locus_outcome_name(locus_outcome outcome);

/* Finding severities (the original's Severity: low < medium < high <
 * critical).  A finding below the policy's min_severity is denied. */
typedef enum locus_severity {
	LOCUS_SEVERITY_LOW = 0,
	LOCUS_SEVERITY_MEDIUM = 1,
	LOCUS_SEVERITY_HIGH = 2,
	LOCUS_SEVERITY_CRITICAL = 3,
} locus_severity;

/** "low" ... "critical"; "" for an out-of-range value. */
LOCUS_API const char *locus_severity_name(locus_severity severity);

/** Parse "low" ... "critical" (exact, lower case) into *out.  0, or
 *  LOCUS_EINVALID (*out untouched) for any other name or NULL. */
LOCUS_API int locus_severity_parse(locus_severity *out, const char *name);

typedef struct locus_policy locus_policy;

/**
 * A policy with the library's defaults (faithful to the original):
 * require_verification_score 0.8, max_blast_radius 1, require_human_for
 * {production}, min_severity low, everything else empty.
 *
 * @return 0 or LOCUS_ENOMEM
 */
LOCUS_API int locus_policy_new(locus_policy **out);

/**
 * Load a policy document (JSON object; every field optional; see
 * docs/policy.md).  Strict: unknown fields, wrong types, out-of-range
 * numbers, duplicate keys, invalid UTF-8, bad permission rules are errors.
 *
 * @param[out] out  the policy, or NULL on error
 * @param json      bytes, borrowed, need not be NUL-terminated
 * @param len       their count (at most 4 MiB)
 * @param err       optional; message names the field, offset/line set
 * @return 0, LOCUS_EINVALID, LOCUS_ETOOBIG or LOCUS_ENOMEM
 */
LOCUS_API int locus_policy_load(locus_policy **out, const char *json,
                                size_t len, locus_error *err);

/** Read and load a policy file.  Adds LOCUS_EIO (err->sys = errno).  The
 *  file is protected (locus_policy_protect_path). */
LOCUS_API int locus_policy_load_file(locus_policy **out, const char *path,
                                     locus_error *err);

/**
 * A file locus was started with (a policy or settings file): a
 * write to it by a file tool or a shell redirect gets the label
 * `agent-config` (standard holds it, strict denies it).  The path is
 * resolved now (realpath); a path that does not exist is kept as given.
 *
 * @return 0, LOCUS_EUSAGE for NULL arguments, LOCUS_ENOMEM
 */
LOCUS_API int locus_policy_protect_path(locus_policy *policy, const char *path);

/**
 * A named preset (standard, strict, permissive, readonly), embedded as
 * JSON text and loaded with locus_policy_load().
 *
 * @return 0, LOCUS_ENOTFOUND for an unknown name, LOCUS_ENOMEM
 */
LOCUS_API int locus_policy_preset(locus_policy **out, const char *name,
                                  locus_error *err);

/** The preset's JSON text (static), or NULL for an unknown name. */
LOCUS_API const char *locus_policy_preset_json(const char *name);

/** The preset names, NULL-terminated, static. */
LOCUS_API const char *const *locus_policy_preset_names(void);

/**
 * Merge the permission rules of a Claude Code settings.json
 * (`permissions.allow/ask/deny`; every other key is ignored, since the
 * file is not ours) into `policy`, read as Claude Code reads them (see
 * locus_policy_add_claude_settings_opts(); this is it with NULL options).
 * Rules are a union; precedence stays deny > ask > allow.  On error the
 * policy is unchanged.
 *
 * @return 0, LOCUS_EINVALID, LOCUS_ETOOBIG or LOCUS_ENOMEM
 */
LOCUS_API int locus_policy_add_claude_settings(locus_policy *policy,
                                               const char *json, size_t len,
                                               locus_error *err);

/*
 * How a Claude Code settings file is read: the project its relative path
 * rules belong to, the home directory, and where warnings go.
 */
typedef struct locus_claude_settings_options {
	unsigned version; /* LOCUS_CLAUDE_SETTINGS_OPTIONS_VERSION */
	/* absolute: "/x", "./x" and "x" in path rules are relative to it (the
	   folder holding .claude/); NULL: the gate's workspace_root */
	const char *project_root;
	/* what "~/" stands for; NULL: $HOME when the file is read */
	const char *home;
	/* told about every rule skipped or weakened (a bad allow rule is
	   skipped, a bad ask/deny rule holds its tool, an unanchored allow
	   glob is skipped); may be NULL */
	void (*warn)(void *ctx, const char *message);
	void *warn_ctx;
} locus_claude_settings_options;

#define LOCUS_CLAUDE_SETTINGS_OPTIONS_VERSION 1
#define LOCUS_CLAUDE_SETTINGS_OPTIONS_INIT                                     \
	{                                                                      \
		.version = LOCUS_CLAUDE_SETTINGS_OPTIONS_VERSION               \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_CLAUDE_SETTINGS_OPTIONS_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_CLAUDE_SETTINGS_OPTIONS_VERSION; opts untouched) */
LOCUS_API int
locus_claude_settings_options_init(locus_claude_settings_options *opts,
                                   unsigned version);

/**
 * locus_policy_add_claude_settings() with options (NULL: the defaults).
 * Rules are read as Claude Code reads them (docs/policy.md): a rule that
 * does not parse is reported to `opts->warn` and skipped when it is an
 * allow rule; a bad ask or deny rule holds every call of its tool (an ask
 * rule for the tool name; `*` when even the name is unreadable).  Errors
 * are only for the file itself (not JSON, `permissions` not an object,
 * a rule that is not a string) and for options of an unknown version.
 *
 * @return 0, LOCUS_EINVALID, LOCUS_ETOOBIG, LOCUS_ENOMEM
 */
LOCUS_API int locus_policy_add_claude_settings_opts(
    locus_policy *policy, const char *json, size_t len,
    const locus_claude_settings_options *opts, locus_error *err);

/** Free a policy.  NULL is accepted. */
LOCUS_API void locus_policy_free(locus_policy *policy);

/** The policy's `version` ("" by default).  Borrowed. */
LOCUS_API const char *locus_policy_version(const locus_policy *policy);

/* The three permission rule lists (policy.md: deny > ask > allow). */
typedef enum locus_rule_list {
	LOCUS_RULES_ALLOW = 0,
	LOCUS_RULES_ASK = 1,
	LOCUS_RULES_DENY = 2,
} locus_rule_list;

/** Number of permission rules in one list; 0 for NULL or an unknown
 *  list. */
LOCUS_API size_t locus_policy_rule_count(const locus_policy *policy,
                                         locus_rule_list list);

/**
 * The effective policy as JSON (every field, defaults included).
 *
 * @param[out] out  the text, freed with locus_free(); NULL on error
 * @param policy    borrowed
 * @param flags     LOCUS_JSON_PRETTY to indent
 * @return 0, LOCUS_ENOMEM, LOCUS_EUSAGE (NULL out or policy)
 */
LOCUS_API int locus_policy_json(char **out, const locus_policy *policy,
                                unsigned flags);

/*
 * What the caller knows besides the tool call: the action's environment,
 * blast radius and cost, extra tags, the verification result, a finding,
 * what was already spent, and the workspace root that relative paths in
 * path rules are resolved against.  Versioned: start from
 * LOCUS_GATE_INPUT_INIT and set what you know; an unknown version is
 * refused (LOCUS_EINVALID).
 */
typedef struct locus_gate_input {
	unsigned version;        /* LOCUS_GATE_INPUT_VERSION */
	const char *environment; /* NULL: the action's ("unknown") */
	bool has_blast_radius;
	int64_t blast_radius; /* >= 0 */
	bool has_cost;
	double cost_usd;         /* >= 0 */
	const char *const *tags; /* extra tags (e.g. "sandboxed"), copied */
	size_t ntags;
	bool has_verification; /* false: no verification provided */
	bool survives;
	double confidence; /* 0..1 */
	bool has_finding;
	locus_severity finding_severity;
	double spent_usd; /* spent so far in this scope, >= 0 */
	/* The workspace root, absolute, or NULL: relative paths of path rules
	   are resolved against it, and it is the root of the
	   outside-workspace label (a path the call reads or writes that is
	   not under it).  `locus gate --root DIR`, the hook payload's `cwd`
	   and the harness root set it; NULL means the process's current
	   directory for the label.  A relative root is refused
	   (LOCUS_EINVALID from locus_gate). */
	const char *workspace_root;
} locus_gate_input;

#define LOCUS_GATE_INPUT_VERSION 1
#define LOCUS_GATE_INPUT_INIT                                                  \
	{                                                                      \
		.version = LOCUS_GATE_INPUT_VERSION                            \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_GATE_INPUT_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_GATE_INPUT_VERSION; opts untouched) */
LOCUS_API int locus_gate_input_init(locus_gate_input *opts, unsigned version);

typedef struct locus_decision locus_decision;

/**
 * Decide on an Action.
 *
 * @param[out] out   the decision, freed with locus_decision_free()
 * @param policy     borrowed
 * @param action     borrowed (not modified)
 * @param in         optional (NULL: nothing known)
 * @return 0, LOCUS_EINVALID (negative or NaN numbers in `in`, or `in` of
 *         an unknown version), LOCUS_ENOMEM, LOCUS_EUSAGE (NULL out,
 *         policy or action)
 */
LOCUS_API int locus_decide(locus_decision **out, const locus_policy *policy,
                           const locus_action *action,
                           const locus_gate_input *in, locus_error *err);

/**
 * The gate: derive the Action of a tool call and decide on it.  Tool names
 * of the harness ("bash", "write"...) and Claude Code's ("Bash", "Write",
 * "MultiEdit"...) are understood; `file_path`/`notebook_path` stand for
 * `path`.  A tool that is not a harness tool is labelled by its name with
 * kind workspace.exec (web fetch/search tools: network), fail closed.
 *
 * @param parser     borrowed; may be NULL (a temporary one is made)
 * @param tool       NUL-terminated
 * @param args_json  the arguments object, borrowed, args_len bytes; NULL or
 *                   "" mean {}
 * @return 0, LOCUS_EINVALID (arguments not an object, wrong types, a
 *         tool name that is not an identifier, `in` as for locus_decide),
 *         LOCUS_ENOMEM, LOCUS_EUSAGE (NULL out, policy or tool)
 */
LOCUS_API int locus_gate(locus_decision **out, const locus_policy *policy,
                         locus_shell_parser *parser, const char *tool,
                         const char *args_json, size_t args_len,
                         const locus_gate_input *in, locus_error *err);

/** Free a decision.  NULL is accepted. */
LOCUS_API void locus_decision_free(locus_decision *decision);

/*
 * Decision getters: borrowed from the decision.  Each accepts NULL and
 * then gives the fail-closed or empty answer: outcome LOCUS_OUTCOME_DENY,
 * strings "" (NULL for the permission and its rule), counts 0, has_label
 * false.  An index past its count gives NULL (check outcomes: DENY).
 */
LOCUS_API locus_outcome locus_decision_outcome(const locus_decision *d);
/** The fired reasons joined by "; ", or "all policy checks passed". */
LOCUS_API const char *locus_decision_reason(const locus_decision *d);
/** The tool name and asset of the action decided on. */
LOCUS_API const char *locus_decision_action(const locus_decision *d);
LOCUS_API const char *locus_decision_asset(const locus_decision *d);
/** Checks that fired, in evaluation order. */
LOCUS_API size_t locus_decision_check_count(const locus_decision *d);
LOCUS_API locus_outcome locus_decision_check_outcome(const locus_decision *d,
                                                     size_t i);
LOCUS_API const char *locus_decision_check_reason(const locus_decision *d,
                                                  size_t i);
/** require_human checks waived by a permission allow verdict. */
LOCUS_API size_t locus_decision_waived_count(const locus_decision *d);
LOCUS_API const char *locus_decision_waived_reason(const locus_decision *d,
                                                   size_t i);
/** The labels the policy saw (sorted).  Borrowed. */
LOCUS_API size_t locus_decision_label_count(const locus_decision *d);
LOCUS_API const char *locus_decision_label(const locus_decision *d, size_t i);
LOCUS_API bool locus_decision_has_label(const locus_decision *d,
                                        const char *label);
/** "allow", "ask", "deny", or NULL when no permission rule matched; and
 *  the rule (as written) that gave it. */
LOCUS_API const char *locus_decision_permission(const locus_decision *d);
LOCUS_API const char *locus_decision_permission_rule(const locus_decision *d);
/** The policy version the decision was made under.  Borrowed. */
LOCUS_API const char *locus_decision_policy_version(const locus_decision *d);

/**
 * Does the policy want this call confined: does one of the decision's
 * labels appear in the policy's require_sandbox_for, or was the call
 * allowed only because it runs confined (a hold waived by
 * allow_sandboxed_for for a call tagged "sandboxed")?  A front end that
 * can confine a call (`locus hook --jail` for a shell line, the harness
 * on an isolated backend) confines the calls for which this is true
 * (docs/jail.md).  false for NULL arguments.
 */
LOCUS_API bool locus_policy_wants_sandbox(const locus_policy *p,
                                          const locus_decision *d);

/**
 * The decision record: {"action","asset","kind","outcome","reason",
 * "checks":[{"outcome","reason"}],"waived":[..],"labels":[..],
 * "permission":{"verdict","rule"}|null,"policy_version"}.
 *
 * @param[out] out  the text, freed with locus_free(); NULL on error
 * @param flags     LOCUS_JSON_PRETTY to indent
 * @return 0, LOCUS_ENOMEM, LOCUS_EUSAGE (NULL out or d)
 */
LOCUS_API int locus_decision_json(char **out, const locus_decision *d,
                                  unsigned flags);

/**
 * The refusal JSON handed to the model when the tool does not run:
 * {"status":"denied"|"held_for_approval","outcome","action","asset",
 * "reason"}.
 *
 * @param[out] out  the text, freed with locus_free(); NULL on error
 * @return 0, LOCUS_EUSAGE for an allow decision (or NULL out or d),
 *         LOCUS_ENOMEM
 */
LOCUS_API int locus_decision_refusal_json(char **out, const locus_decision *d);

/**
 * Turn a decision into a deny: `reason` is added as one more fired check
 * (a caller's own rule, such as the harness's audit-trail guard), the
 * outcome becomes LOCUS_OUTCOME_DENY and the reason is joined again, so
 * the refusal can be recorded and rendered like any other.
 *
 * @return 0, LOCUS_EUSAGE (NULL d or reason), LOCUS_ENOMEM (the decision
 *         is then a deny still, its reason possibly incomplete)
 */
LOCUS_API int locus_decision_deny(locus_decision *d, const char *reason);

/*
 * Audit trail: one JSON object per line, hash-chained.  Each record holds
 * seq, time, action, asset, outcome, reason, checks, labels, permission,
 * policy_version, `prev` (SHA-256 hex of the previous line, without its
 * newline; 64 zeros for the first) and `hash` (SHA-256 hex of the record
 * itself with `hash` left out: the text up to `,"hash":` followed by `}`).
 * Appends hold an exclusive flock(2) while reading the last line and
 * writing, and write each record with one write(2) on an O_APPEND
 * descriptor, so concurrent writers never tear a line or fork the chain.
 */
typedef struct locus_audit locus_audit;

/* Flags of an audit trail (or'd). */
typedef enum locus_audit_flags {
	LOCUS_AUDIT_FSYNC = 1 << 0, /* fsync(2) after every record */
} locus_audit_flags;

/**
 * Open (create) an audit file for appending.
 * @param flags  LOCUS_AUDIT_* or'd
 * @return 0, LOCUS_EIO, LOCUS_ENOMEM
 */
LOCUS_API int locus_audit_open(locus_audit **out, const char *path,
                               unsigned flags, locus_error *err);

/**
 * Append the record of a decision.
 * @return 0, LOCUS_EIO, LOCUS_EINVALID (the file ends with a partial or
 *         unparsable line, so the chain cannot be continued), LOCUS_ENOMEM
 */
LOCUS_API int locus_audit_append(locus_audit *audit, const locus_decision *d,
                                 locus_error *err);

#define LOCUS_AUDIT_OPTIONS_VERSION 2

/*
 * Options of an audit trail (start from LOCUS_AUDIT_OPTIONS_INIT).
 *
 * key_path: a file of at least 16 bytes, kept where the agent cannot reach
 * it.  With it, every `checkpoint_every` records (0: 100) and at close the
 * writer appends a checkpoint record whose `hmac` is HMAC-SHA256(key, the
 * chain up to it); locus_audit_verify_report() with the key then tells a trail
 * cut short, appended to, or re-chained by someone without the key.
 * lock_timeout_s: how long an append waits for the file's lock (0: 5 s);
 * longer is an error (the call is refused), never a hang.
 * workspace: the folder the agent's tools reach (version 2).  With a key,
 * the key must lie outside it (both resolved; locus_audit_check_key), else
 * the open fails with LOCUS_EDENIED.  NULL: the current working folder,
 * every front end's default workspace.
 */
typedef struct locus_audit_options {
	unsigned version; /* LOCUS_AUDIT_OPTIONS_VERSION */
	unsigned flags;   /* LOCUS_AUDIT_* or'd */
	const char *key_path;
	unsigned checkpoint_every;
	double lock_timeout_s;
	const char *workspace;
} locus_audit_options;

#define LOCUS_AUDIT_OPTIONS_INIT                                               \
	{                                                                      \
		.version = LOCUS_AUDIT_OPTIONS_VERSION                         \
	}

/** Fill `opts` with the defaults: zeroed (every field's zero is its
 *  default) with `version` set; the function form of LOCUS_AUDIT_OPTIONS_INIT.
 *  @return 0, LOCUS_EUSAGE (NULL opts), LOCUS_EINVALID (a version
 *          other than LOCUS_AUDIT_OPTIONS_VERSION; opts untouched) */
LOCUS_API int locus_audit_options_init(locus_audit_options *opts,
                                       unsigned version);

/**
 * Open (create, mode 0600) an audit file with options (NULL: defaults;
 * an unknown version: LOCUS_EINVALID).
 *
 * The writer remembers the file's identity (device, inode, size) and the
 * hash of the last record, and checks them before every append: a file
 * replaced, removed, truncated or rewritten under it is LOCUS_EINVALID,
 * and from then on every append fails (the gate refuses: fail closed).
 * Records other writers appended in between must continue the chain.
 * @return 0, LOCUS_EIO, LOCUS_EINVALID, LOCUS_ENOMEM
 */
LOCUS_API int locus_audit_open_opts(locus_audit **out, const char *path,
                                    const locus_audit_options *opts,
                                    locus_error *err);

/**
 * Is the audit key outside the workspace (both resolved; NULL workspace:
 * the current working folder)?  A key the agent can read lets it forge
 * checkpoints.  Front ends that change workspace call it for the new one.
 * @return 0, LOCUS_EDENIED (inside, with the message saying so),
 *         LOCUS_ENOTFOUND (the key or the workspace cannot be resolved)
 */
LOCUS_API int locus_audit_check_key(const char *key_path, const char *workspace,
                                    locus_error *err);

/** The audit file's resolved path and the key's (NULL when none). */
LOCUS_API const char *locus_audit_path(const locus_audit *audit);
LOCUS_API const char *locus_audit_key_path(const locus_audit *audit);

/**
 * Close: with a key, a closing checkpoint is appended first (its failure
 * is reported through err).  NULL is accepted.
 * @return 0, or the error of the closing checkpoint
 */
LOCUS_API int locus_audit_finish(locus_audit *audit, locus_error *err);

/** Close (locus_audit_finish, errors ignored).  NULL is accepted. */
LOCUS_API void locus_audit_close(locus_audit *audit);

/* What locus_audit_verify_report found. */
typedef struct locus_audit_report {
	size_t records;     /* intact records (checkpoints included) */
	size_t checkpoints; /* of them, checkpoints (checked with the key) */
	char last_hash[65]; /* SHA-256 of the last intact line: an anchor */
	bool closed;        /* the trail ends with a closing checkpoint */
	size_t bad_line;    /* 1-based first broken line, 0 if none */
} locus_audit_report;

/**
 * Verify a trail; with key_path, also every checkpoint's HMAC and that the
 * trail ends with a closing checkpoint (else LOCUS_EINVALID: cut short,
 * appended to without the key, or still being written).  Without a key
 * the chain alone is checked: compare report->records and last_hash with
 * an anchor kept elsewhere.
 * @param[out] report  filled in full, also on failure (optional)
 * @return 0, LOCUS_EINVALID (err says why), LOCUS_EIO, LOCUS_ENOMEM
 */
LOCUS_API int locus_audit_verify_report(locus_audit_report *report,
                                        const char *path, const char *key_path,
                                        locus_error *err);

/**
 * Verify an audit file's chain.
 *
 * @param[out] records   number of intact records read (optional)
 * @param[out] bad_line  1-based line of the first broken link, 0 if intact
 *                       (optional)
 * @return 0 when intact; LOCUS_EINVALID when broken (err says why);
 *         LOCUS_EIO; LOCUS_ENOMEM
 */
LOCUS_API int locus_audit_verify(size_t *records, size_t *bad_line,
                                 const char *path, locus_error *err);

#ifdef __cplusplus
}
#endif
#endif
