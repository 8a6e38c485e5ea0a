/*
 * locus/locus.h - the whole public API in one include.
 *
 * common.h   error codes, locus_error, version
 * shell.h    locus_shell_parse: a bash line -> the simple commands it runs
 * labels.h   kinds, exec:* tags, the never-allow floor, Actions
 * policy.h   ControlPolicy, permission rules, the gate, the audit trail
 * harness.h  the coding tools over Local, Memory and Session backends
 * alloc.h    the allocator hook (process-wide, set before any other call)
 *
 * Link with `pkg-config --cflags --libs locus`.
 */
#ifndef LOCUS_LOCUS_H
#define LOCUS_LOCUS_H

#include "common.h"
#include "shell.h"
#include "labels.h"
#include "policy.h"
#include "harness.h"
#include "alloc.h"

#endif
