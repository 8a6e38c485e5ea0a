/*
 * runner/json.h - the runner's JSON: util's strict reader, a canonical
 * writer, typed look-ups.
 *
 * Everything the runner reads from the gateway, the model, an MCP server
 * or its own files goes through lr_json_parse, which is lu_json_read
 * (util/json.h) with two settings: at most LR_JSON_MAX_DEPTH levels, and
 * every number keeps its text as written in `valuestring`
 * (opts.number_text), so the canonical writer prints it the way the
 * gateway's Python does (an integer as its digits, a float as Python's
 * repr) and a digest computed here matches the gateway's.  What it
 * refuses is util's list: anything but RFC 8259 (no NaN, no comments, no
 * trailing data, no raw control character), invalid UTF-8, lone
 * surrogates, "\u0000" (locus strings are C strings), a key twice in one
 * object, a fraction or exponent a double cannot hold (1e400), and (here)
 * a byte order mark.
 *
 * Everything the runner sends is written by lr_json_canonical: keys
 * sorted by code point, `,` and `:` without spaces, UTF-8 as is, the
 * escapes of Python's json.dumps(ensure_ascii=False).
 */
#ifndef LOCUS_RUNNER_JSON_H
#define LOCUS_RUNNER_JSON_H

#include "locus/common.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* Nesting of arrays and objects the runner reads (util counts containers,
   not scalars). */
#define LR_JSON_MAX_DEPTH 128
/* 2^53: integers below it are exact as a double. */
#define LR_JSON_INT_LIMIT 9007199254740992.0

/** Parse text[0..len) into *out (cJSON_Delete it).  LOCUS_EINVALID with
    the byte offset and the reason; LOCUS_ENOMEM. */
int lr_json_parse(const char *text, size_t len, cJSON **out, locus_error *err);

/** Canonical text of v (malloc'd), or NULL on ENOMEM or a value that has
    no JSON form (a non-finite number). */
char *lr_json_canonical(const cJSON *v);

/** "sha256:" + hex SHA-256 of the canonical text.  LOCUS_ENOMEM,
    LOCUS_EINVALID. */
int lr_json_digest(const cJSON *v, char out[72]);

/** Every key of object `o` is in the NULL-terminated `allowed`: else
    LOCUS_EINVALID naming `what` and the first unknown key. */
int lr_json_known(const cJSON *o, const char *const *allowed, const char *what,
                  locus_error *err);

/* Typed look-ups: the member, or NULL when absent or JSON null.  A member
   of the wrong type sets *bad (when not NULL) to its name. */
const char *lr_json_str(const cJSON *o, const char *key, const char **bad);
const cJSON *lr_json_obj(const cJSON *o, const char *key, const char **bad);
const cJSON *lr_json_arr(const cJSON *o, const char *key, const char **bad);
/* A number member: true and *v set when present; false when absent. */
bool lr_json_num(const cJSON *o, const char *key, double *v, const char **bad);
/* A bool member: true and *v set when present. */
bool lr_json_bool(const cJSON *o, const char *key, bool *v, const char **bad);

/** An integer number (no fraction, |x| < 2^53). */
bool lr_json_is_int(const cJSON *v);
/* o[key] as a count: an integer in [0, 2^53) (no float->long cast of an
   out-of-range number).  False when absent or null; false with *bad = key
   (when not yet set) when it is anything else. */
bool lr_json_count(const cJSON *o, const char *key, long *out,
                   const char **bad);

#endif
