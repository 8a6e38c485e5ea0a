/*
 * parser/ts_patch.h - what locus adds to tree-sitter's runtime when it
 * compiles it (parser/ts_patch.py writes the patched amalgamation).
 */
#ifndef LOCUS_PARSER_TS_PATCH_H
#define LOCUS_PARSER_TS_PATCH_H

#include <stdbool.h>

/* A stack merge on this thread stopped at its bound since the flag was
   last reset (`reset`: clear it after reading).  The parse that ran then
   read a stack cut short: its tree, if any, is not to be used. */
bool locus_ts_merge_overflowed(bool reset);

#endif
