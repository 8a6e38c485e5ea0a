/*
 * agents/transcript.c - reading agent session logs: folders, files, lines
 * and format detection (agents/transcript.h).  The formats themselves are
 * in agents/transcript_agents.c, the call list they fill in
 * agents/transcript_calls.c.
 */
#define _GNU_SOURCE /* memmem */
#include "transcript.h"
#include "../util/dir.h"
#include "../util/json.h"
#include "../util/read.h"
#include "../util/array.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#ifdef LOCUS_HAVE_ZSTD
#include <zstd.h>
#endif

/* One record line may hold a whole file's contents (a Write's content, a
   Read's result): 64 MiB, past that the line is malformed. */
#define TR_MAX_LINE ((size_t)64 << 20)
/* A whole-file JSON document (Gemini's older session-*.json). */
#define TR_MAX_DOC ((size_t)256 << 20)
#define TR_MAX_DEPTH 32

const char *tr_agent_name(tr_agent agent)
{
	switch (agent) {
	case TR_CLAUDE: return "claude-code";
	case TR_CODEX: return "codex";
	case TR_GEMINI: return "gemini";
	default: return "unknown";
	}
}

/* ---- detection ---- */

static int in_list(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

tr_agent tr_detect(const cJSON *rec)
{
	/* clang-format off */
	static const char *const codex_types[] = {
		"session_meta", "response_item", "turn_context", "event_msg",
		"compacted", NULL};
	/* clang-format on */
	/* clang-format off */
	static const char *const codex_bare[] = {
		"function_call", "function_call_output", "local_shell_call",
		"custom_tool_call", "custom_tool_call_output", "message",
		"reasoning", NULL};
	/* clang-format on */
	/* clang-format off */
	static const char *const claude_types[] = {
		"user", "assistant", "summary", "system",
		"file-history-snapshot", "queue-operation", NULL};
	/* clang-format on */
	const char *type = tr_str(rec, "type");
	if (in_list(type, codex_types) &&
	    cJSON_GetObjectItemCaseSensitive(rec, "payload"))
		return TR_CODEX;
	if (tr_str(rec, "sessionId") && tr_str(rec, "projectHash"))
		return TR_GEMINI;
	if (in_list(type, claude_types) &&
	    (tr_str(rec, "sessionId") || tr_str(rec, "uuid") ||
	     tr_str(rec, "leafUuid") || tr_str(rec, "messageId")))
		return TR_CLAUDE;
	if (tr_str(rec, "id") &&
	    in_list(type, (const char *const[]){"user", "gemini", "info",
	                                        "error", "warning", NULL}))
		return TR_GEMINI;
	/* Codex before September 2025: a bare first line, bare items */
	if (in_list(type, codex_bare) || tr_str(rec, "record_type") ||
	    (tr_str(rec, "instructions") && tr_str(rec, "timestamp")))
		return TR_CODEX;
	return TR_UNKNOWN;
}

/* ---- files ---- */

static int add_file(tr_set *s, const char *path)
{
	if (!lu_reserve(&s->files, &s->capfiles, s->nfiles + 1))
		return -1;
	tr_file f = {.path = strdup(path), .root = s->root};
	if (!f.path)
		return -1;
	s->files[s->nfiles++] = f;
	return 0;
}

static void dispatch(tr_reader *r, const cJSON *rec)
{
	tr_file *f = &r->set->files[r->file];
	if (f->agent == TR_UNKNOWN)
		f->agent = tr_detect(rec);
	switch (f->agent) {
	case TR_CLAUDE: tr_claude_record(r, rec); break;
	case TR_CODEX: tr_codex_record(r, rec); break;
	case TR_GEMINI: tr_gemini_record(r, rec); break;
	default: tr_unknown(r, "not a record of a known agent format");
	}
}

static void one_line(tr_reader *r, const char *buf, size_t n)
{
	while (n &&
	       (buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	if (!n)
		return;
	tr_file *f = &r->set->files[r->file];
	lu_json_opts o = LU_JSON_OPTS_INIT;
	o.object = true;
	cJSON *rec = NULL;
	switch (lu_json_read(&rec, buf, n, &o, NULL)) {
	case LU_JSON_OK: break;
	case LU_JSON_NUL:
	case LU_JSON_ESCAPED_NUL: tr_malformed(r, "a NUL byte"); return;
	case LU_JSON_UTF8: tr_malformed(r, "invalid UTF-8"); return;
	case LU_JSON_DUPLICATE: tr_malformed(r, "a duplicate key"); return;
	default: tr_malformed(r, "not a JSON object"); return;
	}
	f->records++;
	dispatch(r, rec);
	cJSON_Delete(rec);
}

/* Skip an over-long line's rest. */
static void skip_rest(FILE *fp)
{
	int ch;
	while ((ch = getc(fp)) != EOF && ch != '\n')
		;
}

static void read_lines(tr_reader *r, FILE *fp)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int ch;
	int too_long = 0;
	for (;;) {
		ch = getc(fp);
		if (ch == EOF || ch == '\n') {
			if (ch == EOF && n == 0 && !too_long)
				break;
			r->line++;
			r->set->files[r->file].lines++;
			if (too_long)
				tr_malformed(r, "line longer than 64 MiB");
			else
				one_line(r, buf ? buf : "", n);
			n = 0;
			too_long = 0;
			if (ch == EOF)
				break;
			continue;
		}
		if (n + 1 >= cap) {
			if (cap >= TR_MAX_LINE) {
				too_long = 1;
				skip_rest(fp);
				r->line++;
				r->set->files[r->file].lines++;
				tr_malformed(r, "line longer than 64 MiB");
				n = 0;
				too_long = 0;
				continue;
			}
			size_t nc = cap ? cap * 2 : 4096;
			char *nb = realloc(buf, nc);
			if (!nb) {
				r->set->oom = 1;
				break;
			}
			buf = nb;
			cap = nc;
		}
		buf[n++] = (char)ch;
	}
	free(buf);
}

/* A .json file: one document (Gemini's older sessions, logs.json), at
   most TR_MAX_DOC bytes (util/read.c); -1 when it is not one (the caller
   rewinds fp and reads JSON lines). */
static int read_document(tr_reader *r, FILE *fp)
{
	char *buf;
	size_t n;
	if (lu_read_all(fileno(fp), TR_MAX_DOC, &buf, &n))
		return -1;
	tr_file *f = &r->set->files[r->file];
	for (size_t i = 0; i < n; i++)
		f->lines += buf[i] == '\n';
	if (n && buf[n - 1] != '\n')
		f->lines++;
	cJSON *doc = NULL;
	int rc = -1;
	if (lu_json_read(&doc, buf, n, NULL, NULL) == LU_JSON_OK) {
		f->records = 1;
		rc = tr_gemini_document(r, doc, buf);
	}
	cJSON_Delete(doc);
	free(buf);
	return rc;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* ---- .jsonl.zst: decompressed as it is read (fopencookie) ---- */

#ifdef LOCUS_HAVE_ZSTD
typedef struct zst_in {
	FILE *fp;
	ZSTD_DCtx *d;
	ZSTD_inBuffer in;
	char *ibuf;
	size_t icap;
	int error; /* a corrupt frame: the rest is not read */
	int eof;
} zst_in;

static ssize_t zst_read(void *cookie, char *buf, size_t size)
{
	zst_in *z = cookie;
	ZSTD_outBuffer out = {buf, size, 0};
	while (out.pos == 0 && !z->error) {
		if (z->in.pos == z->in.size) {
			if (z->eof)
				break;
			size_t got = fread(z->ibuf, 1, z->icap, z->fp);
			if (got == 0) {
				z->eof = 1;
				break;
			}
			z->in = (ZSTD_inBuffer){z->ibuf, got, 0};
		}
		size_t rc = ZSTD_decompressStream(z->d, &out, &z->in);
		if (ZSTD_isError(rc))
			z->error = 1;
	}
	return (ssize_t)out.pos;
}

static int zst_close(void *cookie)
{
	zst_in *z = cookie;
	ZSTD_freeDCtx(z->d);
	free(z->ibuf);
	fclose(z->fp);
	free(z);
	return 0;
}

static FILE *zst_open(const char *path, zst_in **zp)
{
	zst_in *z = calloc(1, sizeof *z);
	if (!z)
		return NULL;
	z->icap = ZSTD_DStreamInSize();
	z->ibuf = malloc(z->icap);
	z->d = ZSTD_createDCtx();
	z->fp = fopen(path, "rb");
	cookie_io_functions_t io = {.read = zst_read, .close = zst_close};
	FILE *f = z->ibuf && z->d && z->fp ? fopencookie(z, "r", io) : NULL;
	if (!f) {
		ZSTD_freeDCtx(z->d);
		free(z->ibuf);
		if (z->fp)
			fclose(z->fp);
		free(z);
		return NULL;
	}
	*zp = z;
	return f;
}
#endif

static void unreadable(tr_file *f, const char *why)
{
	f->unreadable = 1;
	snprintf(f->problem, sizeof f->problem, "%s", why);
}

/* The file's calls handed to the caller, then freed (streaming). */
static void hand_over(tr_set *s)
{
	if (!s->each)
		return;
	s->each(s, s->each_arg);
	for (size_t i = 0; i < s->ncalls; i++)
		tr_call_free(&s->calls[i]);
	s->ncalls = 0;
}

static int read_file(tr_set *s, const char *path)
{
	bool zst = ends_with(path, ".jsonl.zst");
	FILE *fp = zst ? NULL : fopen(path, "rb");
	if (!fp && !zst)
		return -1;
	if (add_file(s, path)) {
		if (fp)
			fclose(fp);
		s->oom = 1;
		return 0;
	}
	tr_reader r = {.set = s, .file = s->nfiles - 1};
	if (zst) {
#ifdef LOCUS_HAVE_ZSTD
		zst_in *z = NULL;
		fp = zst_open(path, &z);
		if (!fp) {
			unreadable(&s->files[r.file],
			           "compressed (zstd): cannot be opened");
			hand_over(s);
			return 0;
		}
		read_lines(&r, fp);
		if (z->error)
			unreadable(&s->files[r.file],
			           "compressed (zstd): corrupt; read up to the "
			           "damage");
		fclose(fp);
#else
		unreadable(&s->files[r.file],
		           "compressed (zstd) and this locus was built "
		           "without libzstd: not read");
#endif
	} else {
		int done = 0;
		if (ends_with(path, ".json")) {
			done = read_document(&r, fp) == 0;
			if (!done) {
				/* not one document: maybe JSON lines after all */
				tr_file *f = &s->files[r.file];
				f->lines = f->records = 0;
				rewind(fp);
			}
		}
		if (!done)
			read_lines(&r, fp);
		fclose(fp);
	}
	tr_apply_pending(&r);
	free(r.ids);
	free(r.session);
	free(r.cwd);
	hand_over(s);
	return 0;
}

static int read_dir(tr_set *s, const char *path, int depth)
{
	char **names;
	size_t n;
	if (lu_dir_paths(path, &names, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (lstat(names[i], &st) == 0) {
			if (S_ISDIR(st.st_mode) && depth < TR_MAX_DEPTH)
				read_dir(s, names[i], depth + 1);
			else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
			         (ends_with(names[i], ".jsonl") ||
			          ends_with(names[i], ".json") ||
			          ends_with(names[i], ".jsonl.zst")))
				read_file(s, names[i]);
		}
	}
	lu_dir_free(names, n);
	return 0;
}

int tr_read_path(tr_set *s, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	if (S_ISDIR(st.st_mode))
		return read_dir(s, path, 0);
	return read_file(s, path);
}

void tr_set_free(tr_set *s)
{
	for (size_t i = 0; i < s->ncalls; i++)
		tr_call_free(&s->calls[i]);
	free(s->calls);
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].project);
	}
	free(s->files);
	memset(s, 0, sizeof *s);
}
