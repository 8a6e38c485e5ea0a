/*
 * agents/sarif.c - SARIF 2.1.0 logs (OASIS sarif-v2.1.0, the subset GitHub
 * code scanning and VS Code's SARIF viewer read), for `locus audit
 * transcripts` and `locus policy fuzz` (docs/audit.md).
 *
 * One run of the `locus` driver.  Rules are "<outcome>/<tag>" families
 * added as results use them, each with its help text taken from the
 * built-in docs/tags.md section of the tag.  Levels: deny = error,
 * require_human = warning, allow (a dangerous call let through) = note.
 * Locations are the transcript's (or policy file's) path as a URI
 * reference and a 1-based startLine.
 */
#include <stdlib.h>
#include <string.h>

#include "audit_report.h"
#include "../util/json.h"
#include "locus/common.h"
#include "../util/sha256.h"

struct sarif_doc {
	cJSON *root, *rules, *results, *notes;
};

const char *sarif_level(locus_outcome oc)
{
	return oc == LOCUS_OUTCOME_DENY            ? "error"
	       : oc == LOCUS_OUTCOME_REQUIRE_HUMAN ? "warning"
	                                           : "note";
}

bool cli_tag_help(const char *tag, char *title, size_t tcap, char **body)
{
	*body = NULL;
	size_t tl = strlen(tag);
	for (const char *p = cli_tags_md; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		/* a "### " heading naming the tag as a whole word */
		const char *hit =
		    n > 4 && !strncmp(p, "### ", 4) ? p + 4 : NULL;
		while (hit && (hit = strstr(hit, tag)) && hit < p + n) {
			char after = hit[tl];
			if (after == ' ' || after == '\n' || after == '\0')
				break;
			hit += tl;
		}
		if (hit && hit < p + n) {
			snprintf(title, tcap, "%.*s", (int)(n - 4), p + 4);
			const char *start = eol ? eol + 1 : p + n;
			const char *end = start;
			while (*end && !(end[0] == '#' &&
			                 (end == start || end[-1] == '\n')))
				end++;
			*body = strndup(start, (size_t)(end - start));
			return *body != NULL;
		}
		p = eol ? eol + 1 : NULL;
	}
	return false;
}

/* What an outcome means, for the rules' descriptions. */
static const char *outcome_text(const char *oc)
{
	if (!strcmp(oc, "admit"))
		return "Admitted by a grant: `locus policy fuzz` found a "
		       "dangerous "
		       "line that this allow rule lets through.";
	if (!strcmp(oc, "deny"))
		return "Denied: the policy refuses this call; the tool would "
		       "not "
		       "have run under locus.";
	if (!strcmp(oc, "require_human"))
		return "Held for a human: locus would have asked before "
		       "running "
		       "this call.";
	return "Allowed although dangerous: the policy (usually a "
	       "permission allow rule) let a call through that carries a "
	       "dangerous tag.";
}

static cJSON *make_rule(const char *id)
{
	char oc[32];
	const char *slash = strchr(id, '/');
	const char *tag = slash ? slash + 1 : id;
	snprintf(oc, sizeof oc, "%.*s", slash ? (int)(slash - id) : 0, id);
	char title[200];
	char *body = NULL;
	if (!cli_tag_help(tag, title, sizeof title, &body))
		snprintf(title, sizeof title, "%s", tag);
	cJSON *r = cJSON_CreateObject();
	if (!r) {
		free(body);
		return NULL;
	}
	cJSON_AddStringToObject(r, "id", id);
	char name[160], *o = name;
	/* a PascalCase name: DenyExecNever */
	for (const char *p = id; *p && o < name + sizeof name - 1; p++) {
		bool up = p == id || strchr("/:_-", p[-1]);
		if (strchr("/:_-", *p))
			continue;
		*o++ = up && *p >= 'a' && *p <= 'z' ? (char)(*p - 32) : *p;
	}
	*o = '\0';
	cJSON_AddStringToObject(r, "name", name);
	char shorttext[300];
	snprintf(shorttext, sizeof shorttext, "%s: %s.",
	         !strcmp(oc, "deny")            ? "Denied"
	         : !strcmp(oc, "require_human") ? "Held for a human"
	         : !strcmp(oc, "admit")         ? "Admitted by a grant"
	                                        : "Allowed although dangerous",
	         title);
	cJSON *sd = cJSON_AddObjectToObject(r, "shortDescription");
	cJSON_AddStringToObject(sd, "text", shorttext);
	cJSON *fd = cJSON_AddObjectToObject(r, "fullDescription");
	cJSON_AddStringToObject(fd, "text", outcome_text(oc));
	const char *b = body ? body
	                     : "See docs/tags.md (no section for this "
	                       "tag).\n";
	size_t ml = strlen(title) + strlen(b) + 64;
	char *md = malloc(ml);
	if (md) {
		snprintf(md, ml, "**%s**\n\n%s", title, b);
		cJSON *h = cJSON_AddObjectToObject(r, "help");
		cJSON_AddStringToObject(h, "text", b);
		cJSON_AddStringToObject(h, "markdown", md);
	}
	free(md);
	free(body);
	cJSON *dc = cJSON_AddObjectToObject(r, "defaultConfiguration");
	cJSON_AddStringToObject(dc, "level",
	                        !strcmp(oc, "deny") || !strcmp(oc, "admit")
	                            ? "error"
	                        : !strcmp(oc, "require_human") ? "warning"
	                                                       : "note");
	cJSON *pr = cJSON_AddObjectToObject(r, "properties");
	cJSON *tags = cJSON_AddArrayToObject(pr, "tags");
	cJSON_AddItemToArray(tags, cJSON_CreateString("security"));
	cJSON_AddItemToArray(tags, cJSON_CreateString(tag));
	cJSON_AddStringToObject(pr, "security-severity",
	                        !strcmp(oc, "deny") || !strcmp(oc, "admit")
	                            ? "8.0"
	                        : !strcmp(oc, "require_human") ? "5.0"
	                                                       : "7.0");
	return r;
}

sarif_doc *sarif_new(void)
{
	sarif_doc *d = calloc(1, sizeof *d);
	if (!d || !(d->root = cJSON_CreateObject())) {
		free(d);
		return NULL;
	}
	cJSON_AddStringToObject(
	    d->root, "$schema",
	    "https://json.schemastore.org/sarif-2.1.0.json");
	cJSON_AddStringToObject(d->root, "version", "2.1.0");
	cJSON *runs = cJSON_AddArrayToObject(d->root, "runs");
	cJSON *run = cJSON_CreateObject();
	cJSON_AddItemToArray(runs, run);
	cJSON *tool = cJSON_AddObjectToObject(run, "tool");
	cJSON *drv = cJSON_AddObjectToObject(tool, "driver");
	cJSON_AddStringToObject(drv, "name", "locus");
	cJSON_AddStringToObject(drv, "version", locus_version());
	cJSON_AddStringToObject(drv, "semanticVersion", locus_version());
	d->rules = cJSON_AddArrayToObject(drv, "rules");
	cJSON *inv = cJSON_AddArrayToObject(run, "invocations");
	cJSON *one = cJSON_CreateObject();
	cJSON_AddItemToArray(inv, one);
	cJSON_AddBoolToObject(one, "executionSuccessful", true);
	d->notes = cJSON_AddArrayToObject(one, "toolExecutionNotifications");
	d->results = cJSON_AddArrayToObject(run, "results");
	if (!d->rules || !d->results || !d->notes) {
		sarif_free(d);
		return NULL;
	}
	return d;
}

/* A path as a URI reference: unreserved bytes and '/' kept, the rest
   %-encoded; absolute paths become file:// URIs. */
static char *path_uri(const char *path)
{
	size_t n = strlen(path);
	char *u = malloc(3 * n + 8);
	if (!u)
		return NULL;
	char *o = u;
	if (path[0] == '/')
		o += sprintf(o, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
			*o++ = (char)*p;
		else
			o += sprintf(o, "%%%02X", *p);
	}
	*o = '\0';
	return u;
}

/* A location: `path` relative to `root` (the folder the audit was
   given) under the base id TRANSCRIPTS when it is under it, so no home
   folder is written; else the path as a URI reference. */
static cJSON *location_in(const char *path, const char *root, long line)
{
	cJSON *loc = cJSON_CreateObject();
	cJSON *pl = cJSON_AddObjectToObject(loc, "physicalLocation");
	cJSON *al = cJSON_AddObjectToObject(pl, "artifactLocation");
	size_t rl = root ? strlen(root) : 0;
	bool under =
	    path[0] == '/' && rl && !strncmp(path, root, rl) && path[rl] == '/';
	char *u = path_uri(under ? path + rl + 1 : path);
	cJSON_AddStringToObject(al, "uri", u ? u : "");
	if (under)
		cJSON_AddStringToObject(al, "uriBaseId", "TRANSCRIPTS");
	free(u);
	if (line > 0) {
		cJSON *rg = cJSON_AddObjectToObject(pl, "region");
		cJSON_AddNumberToObject(rg, "startLine", (double)line);
	}
	return loc;
}

static cJSON *location(const char *uri, long line)
{
	return location_in(uri, NULL, line);
}

/* The rule's index, the rule added on first use; -1 when out of memory. */
static int rule_index(sarif_doc *d, const char *rule_id)
{
	int index = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, d->rules)
	{
		if (!strcmp(tr_str(r, "id"), rule_id))
			return index;
		index++;
	}
	cJSON *nr = make_rule(rule_id);
	if (!nr)
		return -1;
	cJSON_AddItemToArray(d->rules, nr);
	return index;
}

int sarif_add(sarif_doc *d, const char *rule_id, const char *level,
              const char *message, const char *uri, long line, cJSON *props)
{
	int index = rule_index(d, rule_id);
	cJSON *res = index < 0 ? NULL : cJSON_CreateObject();
	if (!res) {
		cJSON_Delete(props);
		return -1;
	}
	cJSON_AddStringToObject(res, "ruleId", rule_id);
	cJSON_AddNumberToObject(res, "ruleIndex", index);
	cJSON_AddStringToObject(res, "level", level);
	cJSON *m = cJSON_AddObjectToObject(res, "message");
	cJSON_AddStringToObject(m, "text", message);
	if (uri) {
		cJSON *locs = cJSON_AddArrayToObject(res, "locations");
		cJSON_AddItemToArray(locs, location(uri, line));
	}
	if (props)
		cJSON_AddItemToObject(res, "properties", props);
	cJSON_AddItemToArray(d->results, res);
	return 0;
}

int sarif_note(sarif_doc *d, const char *level, const char *message,
               const char *uri, long line)
{
	cJSON *n = cJSON_CreateObject();
	if (!n)
		return -1;
	cJSON_AddStringToObject(n, "level", level);
	cJSON *m = cJSON_AddObjectToObject(n, "message");
	cJSON_AddStringToObject(m, "text", message);
	cJSON *locs = cJSON_AddArrayToObject(n, "locations");
	cJSON_AddItemToArray(locs, location(uri, line));
	cJSON_AddItemToArray(d->notes, n);
	return 0;
}

int sarif_write(sarif_doc *d, FILE *out)
{
	cJSON *root = d->root;
	d->root = NULL;
	sarif_free(d);
	return lu_json_write(out, root, true);
}

void sarif_free(sarif_doc *d)
{
	if (!d)
		return;
	cJSON_Delete(d->root);
	free(d);
}

/* ---- the transcript audit as SARIF, written as the rows come ---- */

/* The result of one row (held, denied or allowed-dangerous), or NULL. */
static cJSON *row_result(sarif_doc *d, const au_row *r)
{
	char id[160];
	snprintf(id, sizeof id, "%s/%s", locus_outcome_name(r->j.outcome),
	         r->j.family);
	int index = rule_index(d, id);
	if (index < 0)
		return NULL;
	const char *t = r->call->text;
	size_t tl = strlen(t) > 1000 ? 1000 : strlen(t);
	while (tl && tl < strlen(t) && ((unsigned char)t[tl] & 0xc0) == 0x80)
		tl--;
	size_t ml = tl + strlen(r->j.reason) + strlen(r->call->tool) + 96;
	char *msg = malloc(ml);
	cJSON *res = msg ? cJSON_CreateObject() : NULL;
	if (!res) {
		free(msg);
		return NULL;
	}
	snprintf(msg, ml, "%s %s (%s): %.*s%s (%s).",
	         locus_outcome_name(r->j.outcome), r->call->tool,
	         au_status_name(r->call->status), (int)tl, t,
	         tl < strlen(t) ? "..." : "", r->j.reason);
	cJSON_AddStringToObject(res, "ruleId", id);
	cJSON_AddNumberToObject(res, "ruleIndex", index);
	cJSON_AddStringToObject(res, "level", sarif_level(r->j.outcome));
	cJSON *m = cJSON_AddObjectToObject(res, "message");
	cJSON_AddStringToObject(m, "text", msg);
	free(msg);
	cJSON *locs = cJSON_AddArrayToObject(res, "locations");
	cJSON_AddItemToArray(locs,
	                     location_in(r->file, r->root, r->call->line));
	/* the same call in a later run (another folder, more calls before
	   it) is the same alert: agent, session, call id (else line), tool
	   and text, hashed */
	char key[64], hash[65];
	snprintf(key, sizeof key, "%ld", r->call->line);
	const char *parts[] = {tr_agent_name(r->call->agent),
	                       r->call->session ? r->call->session : "",
	                       r->call->call_id ? r->call->call_id : key,
	                       r->call->tool, t};
	size_t n = 0;
	for (size_t i = 0; i < 5; i++)
		n += strlen(parts[i]) + 1;
	char *buf = malloc(n);
	if (buf) {
		size_t o = 0;
		for (size_t i = 0; i < 5; i++) {
			size_t k = strlen(parts[i]);
			memcpy(buf + o, parts[i], k);
			o += k;
			buf[o++] = '\0';
		}
		lu_sha256_hex(buf, n, hash);
		free(buf);
		cJSON *fp = cJSON_AddObjectToObject(res, "partialFingerprints");
		cJSON_AddStringToObject(fp, "locusCall/v1", hash);
	}
	cJSON *p = cJSON_AddObjectToObject(res, "properties");
	cJSON_AddStringToObject(p, "agent", tr_agent_name(r->call->agent));
	if (r->call->session)
		cJSON_AddStringToObject(p, "session", r->call->session);
	if (r->call->time)
		cJSON_AddStringToObject(p, "time", r->call->time);
	cJSON_AddStringToObject(p, "result", au_status_name(r->call->status));
	if (r->j.rule)
		cJSON_AddStringToObject(p, "permissionRule", r->j.rule);
	return res;
}

typedef struct sarif_stream {
	sarif_doc *d;
	long results;
	bool any_under_root;
} sarif_stream;

static int stream_row(au_writer *w, const au_row *r)
{
	sarif_stream *st = w->state;
	if (r->j.outcome == LOCUS_OUTCOME_ALLOW && !r->j.dangerous)
		return 0;
	cJSON *res = row_result(st->d, r);
	char *txt = res ? cJSON_PrintUnformatted(res) : NULL;
	cJSON_Delete(res);
	if (!txt)
		return -1;
	if (r->root && r->file[0] == '/')
		st->any_under_root = true;
	int rc = fprintf(w->out, "%s\n%s", st->results++ ? "," : "", txt) < 0
	             ? -1
	             : 0;
	cJSON_free(txt);
	return rc;
}

/* A file with unreadable lines, or not read: a notification. */
static int stream_file(au_writer *w, const tr_file *f)
{
	sarif_stream *st = w->state;
	if (!f->unreadable && !f->problem_line)
		return 0;
	char msg[400];
	if (f->unreadable)
		snprintf(msg, sizeof msg, "not read: %s.", f->problem);
	else
		snprintf(msg, sizeof msg,
		         "%ld unknown and %ld malformed lines; the first: %s.",
		         f->unknown, f->malformed, f->problem);
	cJSON *n = cJSON_CreateObject();
	if (!n)
		return -1;
	cJSON_AddStringToObject(n, "level",
	                        f->unreadable ? "error" : "warning");
	cJSON *m = cJSON_AddObjectToObject(n, "message");
	cJSON_AddStringToObject(m, "text", msg);
	cJSON *locs = cJSON_AddArrayToObject(n, "locations");
	cJSON_AddItemToArray(
	    locs,
	    location_in(f->path, f->root, f->unreadable ? 0 : f->problem_line));
	cJSON_AddItemToArray(st->d->notes, n);
	if (f->root && f->path[0] == '/')
		st->any_under_root = true;
	return 0;
}

static int stream_end(au_writer *w, const au_totals *t)
{
	sarif_stream *st = w->state;
	(void)t;
	/* the run's other members after the streamed results */
	cJSON *run = cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(st->d->root, "runs"), 0);
	cJSON_DeleteItemFromObjectCaseSensitive(run, "results");
	if (st->any_under_root) {
		cJSON *ob = cJSON_AddObjectToObject(run, "originalUriBaseIds");
		cJSON *b = cJSON_AddObjectToObject(ob, "TRANSCRIPTS");
		cJSON *desc = cJSON_AddObjectToObject(b, "description");
		cJSON_AddStringToObject(
		    desc, "text",
		    "The folder given to locus audit transcripts (not "
		    "recorded: it would name a home folder).");
	}
	char *txt = cJSON_PrintUnformatted(run);
	if (!txt)
		return -1;
	/* "{...}" without its opening brace continues the run object */
	int rc = fprintf(w->out, "\n],%s]}\n", txt + 1) < 0 ? -1 : 0;
	cJSON_free(txt);
	return rc;
}

static void stream_release(au_writer *w)
{
	sarif_stream *st = w->state;
	if (st)
		sarif_free(st->d);
	free(st);
	w->state = NULL;
}

int au_sarif_begin(au_writer *w)
{
	sarif_stream *st = calloc(1, sizeof *st);
	if (!st || !(st->d = sarif_new())) {
		free(st);
		return -1;
	}
	w->state = st;
	w->row = stream_row;
	w->end = stream_end;
	w->file = stream_file;
	w->release = stream_release;
	/* the log's head; the run object stays open for its results */
	return fprintf(w->out, "{\"$schema\":\"https://json.schemastore.org/"
	                       "sarif-2.1.0.json\",\"version\":\"2.1.0\","
	                       "\"runs\":[{\"results\":[") < 0
	           ? -1
	           : 0;
}
