/*
 * harness/options.c - the *_init functions of every public options struct
 * (libgit2's git_clone_options_init style).
 *
 * `locus_X_init(&opts, LOCUS_X_VERSION)` is the function form of
 * LOCUS_X_INIT, for callers that cannot use the macro (other languages
 * through an FFI, a struct allocated on the heap): it zeroes the struct and
 * sets its version.  Every field's zero means "the default" (docs/api.md),
 * so the zeroed struct is the defaults.  Only the version this library was
 * built with is accepted: another is LOCUS_EINVALID and the struct is left
 * alone, so a caller compiled against other headers finds out at once.
 */
#include <string.h>

#include "locus/locus.h"

/* Every options struct starts with `unsigned version`. */
static int init_struct(void *opts, size_t size, unsigned version,
                       unsigned current)
{
	if (!opts)
		return LOCUS_EUSAGE;
	if (version != current)
		return LOCUS_EINVALID;
	memset(opts, 0, size);
	memcpy(opts, &version, sizeof version);
	return 0;
}

#define OPTIONS_INIT(fn, type, current)                                        \
	int fn(type *opts, unsigned version)                                   \
	{                                                                      \
		return init_struct(opts, sizeof *opts, version, current);      \
	}

OPTIONS_INIT(locus_shell_options_init, locus_shell_options,
             LOCUS_SHELL_OPTIONS_VERSION)
OPTIONS_INIT(locus_action_options_init, locus_action_options,
             LOCUS_ACTION_OPTIONS_VERSION)
OPTIONS_INIT(locus_claude_settings_options_init, locus_claude_settings_options,
             LOCUS_CLAUDE_SETTINGS_OPTIONS_VERSION)
OPTIONS_INIT(locus_gate_input_init, locus_gate_input, LOCUS_GATE_INPUT_VERSION)
OPTIONS_INIT(locus_audit_options_init, locus_audit_options,
             LOCUS_AUDIT_OPTIONS_VERSION)
OPTIONS_INIT(locus_harness_config_init, locus_harness_config,
             LOCUS_HARNESS_CONFIG_VERSION)
OPTIONS_INIT(locus_call_ctl_init, locus_call_ctl, LOCUS_CALL_CTL_VERSION)
OPTIONS_INIT(locus_policy_wrap_init, locus_policy_wrap,
             LOCUS_POLICY_WRAP_VERSION)
OPTIONS_INIT(locus_local_options_init, locus_local_options,
             LOCUS_LOCAL_OPTIONS_VERSION)
OPTIONS_INIT(locus_bwrap_options_init, locus_bwrap_options,
             LOCUS_BWRAP_OPTIONS_VERSION)
OPTIONS_INIT(locus_oci_options_init, locus_oci_options,
             LOCUS_OCI_OPTIONS_VERSION)
OPTIONS_INIT(locus_openshell_options_init, locus_openshell_options,
             LOCUS_OPENSHELL_OPTIONS_VERSION)
