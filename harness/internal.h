/*
 * harness/internal.h - what the harness's files share: the backends' helpers
 * (backends/internal.h), notebooks, diffs, planned changes, patches and the
 * wrap's word.
 */
#ifndef LOCUS_HARNESS_INTERNAL_H
#define LOCUS_HARNESS_INTERNAL_H

#include "backends/internal.h"

/* What notebook_edit does to cell idx (its `mode` argument). */
typedef enum lh_notebook_mode {
	LH_NOTEBOOK_REPLACE, /* replace the cell's source */
	LH_NOTEBOOK_INSERT,  /* a new cell before it (idx == cells: append) */
	LH_NOTEBOOK_DELETE,  /* remove the cell */
} lh_notebook_mode;

/*
 * notebook_edit on the text: `mode` applied to cell idx.  Bytes outside
 * the change are kept.  LOCUS_EINVALID when the text is not a notebook or
 * idx is out of range; *out malloc'd.
 */
int lh_notebook_splice(const char *t, size_t n, long idx, lh_notebook_mode mode,
                       const char *source, const char *ctype, char **out,
                       size_t *olen);

/* A unified diff (malloc'd); old or new_ NULL for a created or deleted
 * file.  NULL on allocation failure. */
char *lh_unified_diff(const char *path, const char *old, size_t olen,
                      const char *new_, size_t nlen);

/* One planned file change of a tool call (write, edit, apply_patch...). */
typedef struct lh_change {
	char *path;
	bool had; /* the file existed: old holds its bytes */
	char *old;
	size_t olen;
	bool del; /* remove the file */
	char *data;
	size_t len;
} lh_change;

void lh_changes_free(lh_change *c, size_t n);

/*
 * Plan an apply_patch call against the backend's files.  On a malformed
 * patch or one that does not apply, returns LOCUS_EINVALID with *msg set
 * (malloc'd) and no plan.
 */
int lh_patch_plan(locus_backend *b, const char *patch, lh_change **out,
                  size_t *n, char **msg);

/* The policy's word on background commands, for the prompt (gate.c). */
typedef enum lh_bg_word {
	LH_BG_ALLOWED, /* background commands run */
	LH_BG_REFUSED, /* denied, or held with nobody to approve */
	LH_BG_HELD,    /* held for a person who may approve */
	LH_BG_UNKNOWN, /* not the policy wrap: its word is per call */
} lh_bg_word;

lh_bg_word lh_wrap_background(locus_wrap_fn wrap, const void *wrap_payload);

/*
 * Ask the wrap, with an explicit outcome: true only for a clear allow.
 * The standard policy wrap is asked in its explicit form, so an allocation
 * failure while building a refusal still refuses; *why is the refusal
 * (malloc'd; NULL when it could not be made: show a fixed text).
 */
bool lh_wrap_allows(locus_wrap_fn wrap, void *payload, const char *tool,
                    const char *args, size_t args_len, char **why);
#endif
