/*
 * policy/confine.c - the labels confinement never makes harmless: a jail
 * (docs/jail.md) limits files, not what a call sends, whom it asks or
 * what it destroys inside the workspace.  allow_sandboxed_for may not
 * name them (policy.c refuses the policy) and never waives them
 * (decide.c).
 */
#include <string.h>

#include "internal.h"

/* clang-format off */
static const char *const never_confined[] = {
    "network",          "exec:network",    "exec:secrets",
    "exec:persistence", "exec:privilege",  "exec:vcs-push",
    "exec:force-push",  "exec:never",      "exec:destructive",
    "exec:remote-code", "exec:shutdown",   "exec:unparsed",
    "exec:background",  "agent-config",    "permission:ask",
    "permission:deny",  "unknown-tool",    "production",
    NULL,
};
/* clang-format on */

bool pl_never_confined(const char *label)
{
	for (size_t i = 0; never_confined[i]; i++)
		if (!strcmp(label, never_confined[i]))
			return true;
	return false;
}
