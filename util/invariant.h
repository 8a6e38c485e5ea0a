/*
 * util/invariant.h - invariant checks for library code
 * (SQLite's ALWAYS/NEVER).
 *
 * assert(X)  an invariant that holds by construction (an index below a
 *            bound the code itself keeps); checked in debug builds only.
 * ALWAYS(X)  a condition believed always true that guards a defensive
 *            branch:   if (!ALWAYS(n < cap)) return fail_closed(...);
 * NEVER(X)   one believed always false:   if (NEVER(!row)) goto deny;
 *
 * In a debug build (NDEBUG unset) a broken belief traps at once, so tests
 * and fuzzers find it; in a release build (meson's b_ndebug=if-release)
 * ALWAYS/NEVER are just X and the defensive branch runs: the library fails
 * closed instead of aborting.  Never use any of them on input: bad input
 * gets an error code or an exec:unparsed verdict (docs/api.md).
 */
#ifndef LOCUS_UTIL_INVARIANT_H
#define LOCUS_UTIL_INVARIANT_H

#include <assert.h>

#ifdef NDEBUG
#define ALWAYS(X) (!!(X))
#define NEVER(X) (!!(X))
#else
#define ALWAYS(X) ((X) ? 1 : (assert(!"ALWAYS(" #X ")"), 0))
#define NEVER(X) ((X) ? (assert(!"NEVER(" #X ")"), 1) : 0)
#endif

#endif
