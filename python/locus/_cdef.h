/* The part of include/locus/*.h the Python package calls, for cffi's ABI
   mode (python/locus/_ffi.py).  Layouts must match the headers exactly:
   python/tests/test_abi.py compares every struct's size and field offsets
   with the C compiler's when one is installed. */
typedef struct locus_error {
	int code;
	long offset;
	int line;
	int sys;
	char message[256];
} locus_error;
const char *locus_version(void);
const char *locus_error_code_name(int code);
void locus_free(void *ptr);

typedef struct locus_shell_redirect {
	const char *op;
	int fd;
	const char *target;
	uint32_t target_flags;
} locus_shell_redirect;
typedef struct locus_shell_command {
	size_t argc;
	const char *const *argv;
	const uint32_t *argv_flags;
	const char *name;
	size_t nwords;
	const char *const *words;
	size_t nwrappers;
	const char *const *wrappers;
	size_t nassignments;
	const char *const *assignments;
	size_t nredirects;
	const locus_shell_redirect *redirects;
	const char *connector;
	size_t pipeline;
	const char *origin;
	size_t parent;
	unsigned depth;
	const char *function_name;
	uint32_t flags;
	size_t start, end;
} locus_shell_command;
typedef struct locus_shell_options {
	unsigned version;
	size_t max_bytes;
	unsigned max_depth;
	unsigned budget_ms;
	size_t max_commands;
	unsigned flags;
} locus_shell_options;
typedef struct locus_shell_result locus_shell_result;
typedef struct locus_shell_parser locus_shell_parser;
int locus_shell_parser_new(locus_shell_parser **out,
                           const locus_shell_options *opts);
void locus_shell_parser_free(locus_shell_parser *parser);
locus_shell_result *locus_shell_parser_parse(locus_shell_parser *parser,
                                             const char *line, size_t len);
void locus_shell_result_free(locus_shell_result *result);
bool locus_shell_result_parsed(const locus_shell_result *result);
const char *locus_shell_result_reason(const locus_shell_result *result);
size_t locus_shell_result_count(const locus_shell_result *result);
const locus_shell_command *
locus_shell_result_command(const locus_shell_result *result, size_t i);
bool locus_shell_result_has_substitution(const locus_shell_result *result);

typedef int locus_kind;
const char *locus_kind_name(locus_kind kind);
const char *locus_tag_name(uint32_t tag_bit);
typedef struct locus_action locus_action;
int locus_action_derive(locus_action **out, locus_shell_parser *parser,
                        const char *tool, const char *args_json,
                        size_t args_len, locus_error *err);
int locus_action_classify(locus_action **out, locus_shell_parser *parser,
                          const char *line, size_t len, locus_error *err);
int locus_action_new(locus_action **out, const char *tool, locus_kind kind,
                     const char *asset, locus_error *err);
void locus_action_free(locus_action *action);
const char *locus_action_tool(const locus_action *action);
locus_kind locus_action_kind(const locus_action *action);
const char *locus_action_asset(const locus_action *action);
const char *locus_action_environment(const locus_action *action);
int64_t locus_action_blast_radius(const locus_action *action);
double locus_action_cost_usd(const locus_action *action);
size_t locus_action_tag_count(const locus_action *action);
const char *locus_action_tag(const locus_action *action, size_t i);
uint32_t locus_action_exec_tags(const locus_action *action);
const char *locus_action_never(const locus_action *action);
size_t locus_action_reason_count(const locus_action *action);
const char *locus_action_reason(const locus_action *action, size_t i);
int locus_action_add_tag(locus_action *action, const char *tag);
int locus_action_set_environment(locus_action *action, const char *env);
int locus_action_set_blast_radius(locus_action *action, int64_t radius);
int locus_action_set_cost_usd(locus_action *action, double cost);
int locus_action_json(char **out, const locus_action *action, unsigned flags);

typedef int locus_outcome;
typedef int locus_severity;
typedef struct locus_policy locus_policy;
int locus_policy_load(locus_policy **out, const char *json, size_t len,
                      locus_error *err);
void locus_policy_free(locus_policy *policy);
int locus_policy_json(char **out, const locus_policy *policy, unsigned flags);
typedef struct locus_gate_input {
	unsigned version;
	const char *environment;
	bool has_blast_radius;
	int64_t blast_radius;
	bool has_cost;
	double cost_usd;
	const char *const *tags;
	size_t ntags;
	bool has_verification;
	bool survives;
	double confidence;
	bool has_finding;
	locus_severity finding_severity;
	double spent_usd;
	const char *workspace_root;
} locus_gate_input;
typedef struct locus_decision locus_decision;
int locus_decide(locus_decision **out, const locus_policy *policy,
                 const locus_action *action, const locus_gate_input *in,
                 locus_error *err);
int locus_gate(locus_decision **out, const locus_policy *policy,
               locus_shell_parser *parser, const char *tool,
               const char *args_json, size_t args_len,
               const locus_gate_input *in, locus_error *err);
void locus_decision_free(locus_decision *decision);
locus_outcome locus_decision_outcome(const locus_decision *d);
const char *locus_decision_reason(const locus_decision *d);
const char *locus_decision_permission(const locus_decision *d);
const char *locus_decision_permission_rule(const locus_decision *d);
int locus_decision_json(char **out, const locus_decision *d, unsigned flags);
int locus_decision_refusal_json(char **out, const locus_decision *d);

typedef struct locus_audit locus_audit;
int locus_audit_open(locus_audit **out, const char *path, unsigned flags,
                     locus_error *err);
int locus_audit_append(locus_audit *audit, const locus_decision *d,
                       locus_error *err);
void locus_audit_close(locus_audit *audit);
int locus_audit_verify(size_t *records, size_t *bad_line, const char *path,
                       locus_error *err);

/* harness.h */
typedef struct locus_stat {
	bool exists;
	bool is_dir;
	uint64_t size;
	int64_t mtime_ns;
} locus_stat;
typedef struct locus_dirent {
	char *name;
	bool is_dir;
	uint64_t size;
	int64_t mtime_ns;
} locus_dirent;
typedef struct locus_exec_result {
	bool finished;
	int exit_code;
	bool timed_out;
	char handle[16];
	char *output;
	size_t output_len;
	double duration_s;
	bool cancelled;
} locus_exec_result;
typedef struct locus_bg_status {
	bool running;
	int exit_code;
	size_t next;
} locus_bg_status;
typedef struct locus_call_ctl {
	unsigned version;
	int cancelled;
	void (*progress)(double elapsed_s, size_t output_bytes, void *payload);
	void *payload;
} locus_call_ctl;
typedef struct locus_write_op {
	const char *path;
	const char *data;
	size_t len;
	bool remove;
	const char *expect_sha256;
} locus_write_op;
typedef struct locus_backend locus_backend;
struct locus_backend {
	unsigned version;
	const char *label;
	const char *root;
	bool can_exec;
	bool isolated;
	int (*stat)(locus_backend *b, const char *path, locus_stat *out,
	            locus_error *err);
	int (*read)(locus_backend *b, const char *path, char **out, size_t *len,
	            locus_error *err);
	int (*write)(locus_backend *b, const char *path, const char *data,
	             size_t len, locus_error *err);
	int (*remove)(locus_backend *b, const char *path, locus_error *err);
	int (*list)(locus_backend *b, const char *path, locus_dirent **out,
	            size_t *n, locus_error *err);
	int (*walk)(locus_backend *b, const char *path, size_t max,
	            locus_dirent **out, size_t *n, locus_error *err);
	int (*exec)(locus_backend *b, const char *command, double timeout_s,
	            int flags, locus_exec_result *out, locus_error *err);
	int (*bg_output)(locus_backend *b, const char *handle, size_t since,
	                 char **out, size_t *len, locus_bg_status *st,
	                 locus_error *err);
	int (*bg_write)(locus_backend *b, const char *handle, const char *data,
	                size_t len, bool close_stdin, locus_error *err);
	int (*bg_kill)(locus_backend *b, const char *handle,
	               locus_bg_status *st, locus_error *err);
	int (*search)(locus_backend *b, const char *pattern, const char *path,
	              const char *glob, bool case_insensitive, int context,
	              int mode, size_t limit, char **out, locus_error *err);
	void (*free)(locus_backend *b);
	int (*exec_ctl)(locus_backend *b, const char *command, double timeout_s,
	                int flags, const locus_call_ctl *ctl,
	                locus_exec_result *out, locus_error *err);
	int (*write_cas)(locus_backend *b, const char *path, const char *data,
	                 size_t len, const char *expect_sha256,
	                 locus_error *err);
	int (*write_many)(locus_backend *b, const locus_write_op *ops, size_t n,
	                  size_t *failed, locus_error *err);
};
void locus_backend_free(locus_backend *b);
int locus_backend_local_new(locus_backend **out, const char *root,
                            const char *label, locus_error *err);
int locus_backend_memory_new(locus_backend **out, locus_error *err);
typedef struct locus_session locus_session;
struct locus_session {
	unsigned version;
	int (*exec)(locus_session *s, const char *command, double timeout_s,
	            int *exit_code, char **out, size_t *len, locus_error *err);
	int (*upload)(locus_session *s, const char *path, const char *data,
	              size_t len, locus_error *err);
	int (*download)(locus_session *s, const char *path, char **out,
	                size_t *len, locus_error *err);
	void (*free)(locus_session *s);
	int (*exec_ctl)(locus_session *s, const char *command, double timeout_s,
	                const locus_call_ctl *ctl, int *exit_code, char **out,
	                size_t *len, bool *cancelled, locus_error *err);
};
int locus_backend_session_new(locus_backend **out, locus_session *session,
                              const char *root, const char *label,
                              bool isolated, locus_error *err);
typedef struct locus_openshell_options {
	unsigned version;
	const char *endpoint;
	const char *sandbox_id;
	const char *create_name;
	const char *workspace;
	const char *image;
	const char *const *providers;
	const char *bearer_token;
	const char *ca_file;
	const char *cert_file;
	const char *key_file;
	double ready_timeout_s;
	double poll_interval_s;
	size_t output_max;
} locus_openshell_options;
int locus_backend_openshell_new(locus_backend **out,
                                const locus_openshell_options *opt,
                                locus_error *err);
typedef struct locus_oci_options {
	unsigned version;
	const char *sandbox_id;
	const char *create_project;
	const char *region;
	const char *config_file;
	const char *profile;
	const char *endpoint;
	const char *ca_file;
	const char *routes_file;
	const char *stream;
	const char *expiration;
	const char *shape;
	const char *runtime;
	const char *display_name;
	const char *warmpool_name;
	const char *const *env;
	size_t max_output_bytes;
	double ready_timeout_s;
	double poll_interval_s;
	bool data_base64;
	bool expires_in_minutes;
	size_t write_part_bytes;
} locus_oci_options;
int locus_backend_oci_new(locus_backend **out, locus_session **session_out,
                          const locus_oci_options *opt, locus_error *err);

typedef struct locus_exec_record {
	char command_sha256[65];
	bool has_exit_code;
	int exit_code;
	double duration_s;
	bool timed_out;
	char output_sha256[65];
	size_t output_bytes;
	bool truncated;
	const char *backend_label;
	bool background;
} locus_exec_record;
typedef char *(*locus_wrap_fn)(const char *tool, const char *args_json,
                               size_t args_len, void *payload);
typedef struct locus_harness_config {
	unsigned version;
	bool allow_unread_edits;
	int bash_timeout;
	int bash_max_timeout;
	bool on_timeout_kill;
	size_t output_chars;
	size_t output_head_chars;
	bool vision;
	const char *environment;
	char *(*result_store)(const char *data, size_t len, void *payload);
	void (*on_exec)(const locus_exec_record *rec, void *payload);
	void (*on_change)(const char *path, void *payload);
	void (*on_warning)(const char *message, void *payload);
	void *payload;
	double search_budget_s;
} locus_harness_config;
extern const char *const locus_all_tools[];
extern const char *const locus_default_tools[];
extern const char *const locus_patch_tools[];
typedef struct locus_harness locus_harness;
int locus_harness_new(locus_harness **out, locus_backend *backend,
                      const char *const *tools, locus_wrap_fn wrap,
                      void *wrap_payload, const locus_harness_config *config,
                      locus_error *err);
void locus_harness_free(locus_harness *h);
bool locus_harness_gated(const locus_harness *h);
size_t locus_harness_tool_count(const locus_harness *h);
const char *locus_harness_tool_name(const locus_harness *h, size_t i);
const char *locus_harness_tool_description(const locus_harness *h,
                                           const char *name);
const char *locus_harness_tool_schema(const locus_harness *h, const char *name);
int locus_harness_call(char **out, bool *is_error, locus_harness *h,
                       const char *tool, const char *args_json, size_t args_len,
                       locus_error *err);
int locus_harness_prompt_fragment(char **out, const locus_harness *h);
int locus_harness_preview(char **out, locus_harness *h, const char *tool,
                          const char *args_json, size_t args_len,
                          locus_error *err);
int locus_harness_todos_json(char **out, const locus_harness *h);
