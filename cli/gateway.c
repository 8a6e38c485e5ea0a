/*
 * cli/gateway.c - `locus gateway`: the gateway (gateway/gw.h,
 * docs/gateway.md) and a client of its operator API.
 *
 *   locus gateway serve [--db URL] [--listen ADDR] [--approval-ttl S]
 *                       [--openshell-endpoint HOST:PORT --openshell-* ...]
 *   locus gateway run create --definition FILE [--box local|openshell|none]
 *   locus gateway runs | approvals | show RUN | stop RUN | verify
 *   locus gateway answer RUN TEXT
 *   locus gateway decide ID approve|deny --by WHO --why TEXT
 *   locus gateway token create --tenant T | token list | token revoke ID
 *                                                        [--db URL]
 *
 * The client commands take --url/--token or LOCUS_GATEWAY_URL and
 * LOCUS_GATEWAY_TOKEN.  Exit status: 0 done, 1 the gateway refused or
 * could not be reached (its answer on stderr), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gateway/gw.h"
#include "net/http.h"
#include "runner/json.h"
#include "util/read.h"

static const char usage[] =
    "usage: locus gateway serve [--db URL] [--listen HOST:PORT|fd:N] "
    "[--approval-ttl SECONDS]\n"
    "         [--openshell-endpoint HOST:PORT [--openshell-workspace WS]\n"
    "          [--openshell-image IMAGE] [--openshell-token-env VAR]\n"
    "          [--openshell-ca FILE --openshell-cert FILE "
    "--openshell-key FILE]\n"
    "          [--openshell-providers A,B] [--openshell-runner PATH]\n"
    "          [--openshell-admit-url URL] [--openshell-poll SECONDS]]\n"
    "         [--web-search-url URL]\n"
    "       locus gateway run create --definition FILE "
    "[--box local|openshell|none]\n"
    "       locus gateway runs | approvals | verify\n"
    "       locus gateway show RUN | stop RUN | answer RUN TEXT\n"
    "       locus gateway decide ID approve|deny --by WHO --why TEXT\n"
    "       locus gateway token create --tenant T | token list | "
    "token revoke ID  [--db URL]\n"
    "client commands: --url URL --token TOKEN (or LOCUS_GATEWAY_URL, "
    "LOCUS_GATEWAY_TOKEN)\n";

typedef struct gw_args {
	const char *db, *listen, *url, *token, *definition, *box, *by, *why,
	    *tenant, *ttl;
	const char *os_endpoint, *os_workspace, *os_image, *os_token_env,
	    *os_ca, *os_cert, *os_key, *os_providers, *os_runner, *os_admit_url,
	    *os_poll, *search_url;
	const char *pos[4];
	int npos;
} gw_args;

static int parse(int argc, char **argv, gw_args *a)
{
	memset(a, 0, sizeof *a);
	/* clang-format off */
	static const char *const names[] = {
	    "--db",  "--listen", "--url", "--token", "--definition",
	    "--box", "--by",     "--why", "--tenant", "--approval-ttl",
	    "--openshell-endpoint", "--openshell-workspace", "--openshell-image",
	    "--openshell-token-env", "--openshell-ca", "--openshell-cert",
	    "--openshell-key", "--openshell-providers", "--openshell-runner",
	    "--openshell-admit-url", "--openshell-poll", "--web-search-url"};
	const char **slots[] = {&a->db,         &a->listen, &a->url, &a->token,
	                        &a->definition, &a->box,    &a->by,  &a->why,
	                        &a->tenant,     &a->ttl,
	                        &a->os_endpoint, &a->os_workspace, &a->os_image,
	                        &a->os_token_env, &a->os_ca, &a->os_cert,
	                        &a->os_key, &a->os_providers, &a->os_runner,
	                        &a->os_admit_url, &a->os_poll, &a->search_url};
	/* clang-format on */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 1;
		}
		bool opt = false;
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
			size_t n = strlen(names[k]);
			if (strncmp(argv[i], names[k], n))
				continue;
			if (argv[i][n] == '=')
				*slots[k] = argv[i] + n + 1;
			else if (!argv[i][n] && i + 1 < argc)
				*slots[k] = argv[++i];
			else
				continue;
			opt = true;
			break;
		}
		if (opt)
			continue;
		if (argv[i][0] == '-' || a->npos == 4) {
			fprintf(stderr, "locus gateway: unknown option %s\n%s",
			        argv[i], usage);
			return 2;
		}
		a->pos[a->npos++] = argv[i];
	}
	return 0;
}

/* ---- serve ---- */

/* The --openshell-* options into cfg->os: 0, or 2 (usage, said). */
static int openshell_opts(const gw_args *a, gw_config *cfg)
{
	gw_openshell *o = &cfg->os;
	bool any = a->os_workspace || a->os_image || a->os_token_env ||
	           a->os_ca || a->os_cert || a->os_key || a->os_providers ||
	           a->os_runner || a->os_admit_url || a->os_poll;
	const char *bad = NULL;
	if (any && !a->os_endpoint)
		bad = "the --openshell-* options need --openshell-endpoint";
	else if (!a->os_cert != !a->os_key)
		bad = "--openshell-cert and --openshell-key go together";
	o->endpoint = a->os_endpoint;
	o->workspace = a->os_workspace;
	o->image = a->os_image;
	o->ca_file = a->os_ca;
	o->cert_file = a->os_cert;
	o->key_file = a->os_key;
	o->providers = a->os_providers;
	o->runner = a->os_runner;
	o->admit_url = a->os_admit_url;
	if (!bad && a->os_runner && a->os_runner[0] != '/')
		bad = "--openshell-runner: an absolute path in the image";
	if (!bad && a->os_admit_url && strncmp(a->os_admit_url, "http://", 7) &&
	    strncmp(a->os_admit_url, "https://", 8))
		bad = "--openshell-admit-url: an http:// or https:// URL";
	if (!bad && a->os_token_env) {
		o->token = getenv(a->os_token_env);
		if (!o->token || !*o->token)
			bad = "--openshell-token-env: the variable is not set";
	}
	if (!bad && a->os_poll) {
		char *end = NULL;
		errno = 0;
		o->poll_s = strtod(a->os_poll, &end);
		if (!*a->os_poll || *end || errno || !(o->poll_s >= 0.05) ||
		    o->poll_s > 60)
			bad = "--openshell-poll: seconds in [0.05, 60]";
	}
	if (bad) {
		fprintf(stderr, "locus gateway: %s\n", bad);
		return 2;
	}
	return 0;
}

static int serve(gw_args *a)
{
	gw_config cfg = {.db_url = a->db ? a->db : "locus-gateway.db",
	                 .listen = a->listen ? a->listen : "127.0.0.1:7480",
	                 .approval_ttl_s = 86400};
	if (a->ttl) {
		char *end = NULL;
		errno = 0;
		long long t = strtoll(a->ttl, &end, 10);
		if (!*a->ttl || *end || errno || t < 0 || t > 1000000000LL) {
			fprintf(stderr, "locus gateway: --approval-ttl: whole "
			                "seconds in [0, 1e9] (0: never)\n");
			return 2;
		}
		cfg.approval_ttl_s = t;
	}
	if (openshell_opts(a, &cfg))
		return 2;
	if (a->search_url && strncmp(a->search_url, "http://", 7) &&
	    strncmp(a->search_url, "https://", 8)) {
		fprintf(stderr, "locus gateway: --web-search-url: an http:// "
		                "or https:// URL\n");
		return 2;
	}
	cfg.web_search_url = a->search_url;
	/* the local box runs `locus runner`: the locus beside this
	   executable (locus-gateway, docs/gateway.md) */
	char exe[PATH_MAX];
	if (!cli_sibling_exe("locus", exe, sizeof exe))
		exe[0] = '\0';
	cfg.locus_bin = exe;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* blocked before the server's threads start: they inherit the mask
	   and only sigwait below takes them */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	gw_server *s = NULL;
	locus_error err;
	if (gw_server_start(&s, &cfg, &err)) {
		fprintf(stderr, "locus gateway: %s\n", err.message);
		return 1;
	}
	char minted[48];
	bool did_mint = false;
	if (gw_bootstrap_operator(&s->db, getenv("LOCUS_GATEWAY_TOKEN"), minted,
	                          &did_mint, &err)) {
		fprintf(stderr, "locus gateway: %s\n", err.message);
		gw_server_stop(s);
		return 1;
	}
	if (did_mint) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s.token", s->db.path);
		int fd =
		    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		bool ok = fd >= 0 && dprintf(fd, "%s\n", minted) > 0;
		if (fd >= 0)
			ok = close(fd) == 0 && ok;
		explicit_bzero(minted, sizeof minted);
		if (!ok) {
			fprintf(stderr,
			        "locus gateway: the operator token could not "
			        "be written to %s: %s\n",
			        path, strerror(errno));
			gw_server_stop(s);
			return 1;
		}
		fprintf(stderr,
		        "locus gateway: minted the first operator token; it is "
		        "in %s (mode 0600), kept hashed in the database\n",
		        path);
	}
	printf("locus gateway: listening on %s (database %s, schema %d)\n",
	       s->url, s->db.path, gw_db_version(&s->db));
	fflush(stdout);
	int sig = 0;
	sigwait(&set, &sig);
	fprintf(stderr, "locus gateway: stopping (signal %d)\n", sig);
	gw_server_stop(s);
	return 0;
}

/* ---- operator tokens, on the database itself ---- */

static void print_json(const cJSON *v);

/* Minting a token is not an operator API call: whoever can open the
   database (the one who runs `serve`) makes and revokes them, so no
   tenant's operator can make one for another tenant. */
static int token_cmd(gw_args *a)
{
	const char *verb = a->npos > 1 ? a->pos[1] : "";
	bool create = !strcmp(verb, "create") && a->npos == 2 && a->tenant;
	bool list = !strcmp(verb, "list") && a->npos == 2 && !a->tenant;
	bool revoke = !strcmp(verb, "revoke") && a->npos == 3 && !a->tenant;
	if (!create && !list && !revoke) {
		fprintf(stderr, "%s", usage);
		return 2;
	}
	gw_db db;
	locus_error err;
	if (gw_db_open(&db, a->db ? a->db : "locus-gateway.db", &err)) {
		fprintf(stderr, "locus gateway: %s\n", err.message);
		return 1;
	}
	int rc = 0;
	cJSON *out = NULL;
	if (create) {
		char token[48], id[24];
		rc = gw_token_create(&db, a->tenant, token, id, &err);
		if (!rc) {
			out = cJSON_CreateObject();
			cJSON_AddStringToObject(out, "tenant", a->tenant);
			cJSON_AddStringToObject(out, "token", token);
			cJSON_AddStringToObject(out, "token_id", id);
		}
		explicit_bzero(token, sizeof token);
	} else if (revoke) {
		rc = gw_token_revoke(&db, a->pos[2], &err);
		if (!rc) {
			out = cJSON_CreateObject();
			cJSON_AddStringToObject(out, "token_id", a->pos[2]);
			cJSON_AddBoolToObject(out, "revoked", true);
		}
	} else {
		cJSON *l = gw_token_list(&db, &err);
		for (const cJSON *e = l ? l->child : NULL; e; e = e->next)
			print_json(e);
		rc = l ? 0 : LOCUS_EIO;
		cJSON_Delete(l);
	}
	gw_db_close(&db);
	if (rc) {
		fprintf(stderr, "locus gateway: %s\n", err.message);
		return rc == LOCUS_EINVALID ? 2 : 1;
	}
	if (out) {
		char *t = lr_json_canonical(out);
		if (t) {
			printf("%s\n", t);
			explicit_bzero(t, strlen(t));
		}
		free(t);
		cJSON_Delete(out);
	}
	return 0;
}

/* ---- the client ---- */

static int call(gw_args *a, const char *method, const char *path,
                const cJSON *body, cJSON **out)
{
	*out = NULL;
	const char *url = a->url ? a->url : getenv("LOCUS_GATEWAY_URL");
	const char *tok = a->token ? a->token : getenv("LOCUS_GATEWAY_TOKEN");
	if (!url || !*url || !tok || !*tok) {
		fprintf(stderr, "locus gateway: no gateway: give --url and "
		                "--token (or LOCUS_GATEWAY_URL and "
		                "LOCUS_GATEWAY_TOKEN)\n");
		return 2;
	}
	lhttp_options o = LHTTP_OPTIONS_INIT;
	o.base_url = url;
	o.timeout_ms = 30000;
	o.max_attempts = 3;
	o.max_body = 64u << 20;
	lhttp_client *c = NULL;
	locus_error err;
	if (lhttp_client_new(&c, &o, &err)) {
		fprintf(stderr, "locus gateway: %s\n", err.message);
		return 1;
	}
	char *text = body ? lr_json_canonical(body) : NULL;
	char auth[256];
	snprintf(auth, sizeof auth, "Bearer %s", tok);
	lhttp_headers h = {0};
	lhttp_headers_add(&h, "Authorization", auth);
	if (text)
		lhttp_headers_add(&h, "Content-Type", "application/json");
	lhttp_request req = {.method = method,
	                     .url = path,
	                     .headers = &h,
	                     .body = text,
	                     .body_len = text ? strlen(text) : 0,
	                     .has_body = text != NULL,
	                     .retry = strcmp(method, "GET")
	                                  ? LHTTP_RETRY_UNSENT
	                                  : LHTTP_RETRY_IDEMPOTENT};
	lhttp_response resp = {0};
	int rc = lhttp_perform(c, &req, &resp, &err);
	explicit_bzero(auth, sizeof auth);
	lhttp_headers_clear(&h);
	free(text);
	if (rc)
		fprintf(stderr, "locus gateway: %s\n", err.message);
	else if (resp.status < 200 || resp.status >= 300) {
		fprintf(stderr, "locus gateway: %s %s: %ld %s\n", method, path,
		        resp.status, resp.body ? resp.body : "");
		rc = 1;
	} else if (resp.body &&
	           lr_json_parse(resp.body, resp.body_len, out, &err)) {
		fprintf(stderr, "locus gateway: a malformed answer: %s\n",
		        err.message);
		rc = 1;
	}
	lhttp_response_clear(&resp);
	lhttp_client_free(c);
	return rc ? (rc == 2 ? 2 : 1) : 0;
}

static void print_json(const cJSON *v)
{
	char *t = lr_json_canonical(v);
	if (t)
		printf("%s\n", t);
	free(t);
}

static int print_lines(gw_args *a, const char *path, const char *key,
                       const char *const *fields)
{
	cJSON *out = NULL;
	int rc = call(a, "GET", path, NULL, &out);
	const cJSON *list = rc ? NULL : cJSON_GetObjectItem(out, key);
	for (const cJSON *e = cJSON_IsArray(list) ? list->child : NULL; e;
	     e = e->next) {
		if (!fields) {
			print_json(e);
			continue;
		}
		cJSON *o = cJSON_CreateObject();
		for (size_t i = 0; fields[i]; i++) {
			const cJSON *v = cJSON_GetObjectItem(e, fields[i]);
			if (v)
				cJSON_AddItemToObject(o, fields[i],
				                      cJSON_Duplicate(v, true));
		}
		print_json(o);
		cJSON_Delete(o);
	}
	cJSON_Delete(out);
	return rc;
}

static int run_create(gw_args *a)
{
	if (!a->definition) {
		fprintf(stderr, "locus gateway: run create needs "
		                "--definition FILE\n");
		return 2;
	}
	char *buf;
	size_t n;
	int rc = lu_read_path(a->definition, GW_MAX_OPERATOR_BODY, &buf, &n);
	if (rc < 0) {
		fprintf(stderr, "locus gateway: %s: %s\n", a->definition,
		        strerror(errno));
		return 2;
	}
	cJSON *def = NULL;
	locus_error err;
	if (rc > 0) {
		fprintf(stderr, "locus gateway: %s: over 1 MiB\n",
		        a->definition);
		rc = 2;
	} else if (lr_json_parse(buf, n, &def, &err) || !cJSON_IsObject(def)) {
		fprintf(stderr, "locus gateway: %s: not a JSON object: %s\n",
		        a->definition, def ? "" : err.message);
		rc = 2;
	}
	free(buf);
	if (rc) {
		cJSON_Delete(def);
		return rc;
	}
	cJSON *body = cJSON_CreateObject();
	cJSON_AddItemToObject(body, "definition", def);
	cJSON_AddStringToObject(body, "box", a->box ? a->box : "none");
	cJSON *out = NULL;
	rc = call(a, "POST", "/v1/runs", body, &out);
	cJSON_Delete(body);
	if (!rc)
		print_json(out);
	cJSON_Delete(out);
	return rc;
}

static int decide(gw_args *a)
{
	const char *id = a->pos[1], *d = a->pos[2];
	if (a->npos != 3 || (strcmp(d, "approve") && strcmp(d, "deny")) ||
	    !a->by || !a->why) {
		fprintf(stderr, "%s", usage);
		return 2;
	}
	char path[300];
	snprintf(path, sizeof path, "/v1/approvals/%s", id);
	cJSON *body = cJSON_CreateObject();
	cJSON_AddStringToObject(body, "decision", d);
	cJSON_AddStringToObject(body, "by", a->by);
	cJSON_AddStringToObject(body, "why", a->why);
	cJSON *out = NULL;
	int rc = call(a, "POST", path, body, &out);
	cJSON_Delete(body);
	if (!rc)
		print_json(out);
	cJSON_Delete(out);
	return rc;
}

static bool id_ok(const char *s)
{
	return s && *s && strlen(s) < 200 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_.") ==
	           strlen(s);
}

static int run_verb(gw_args *a, const char *verb)
{
	const char *id = a->pos[1];
	if (!id_ok(id) || (a->npos != (strcmp(verb, "answer") ? 2 : 3))) {
		fprintf(stderr, "%s", usage);
		return 2;
	}
	char path[300];
	cJSON *body = NULL, *out = NULL;
	if (!strcmp(verb, "show"))
		snprintf(path, sizeof path, "/v1/runs/%s", id);
	else {
		snprintf(path, sizeof path, "/v1/runs/%s/%s", id, verb);
		body = cJSON_CreateObject();
		if (!strcmp(verb, "answer"))
			cJSON_AddStringToObject(body, "answer", a->pos[2]);
	}
	int rc = call(a, body ? "POST" : "GET", path, body, &out);
	cJSON_Delete(body);
	if (!rc)
		print_json(out);
	cJSON_Delete(out);
	return rc;
}

int cli_gateway(int argc, char **argv)
{
	gw_args a;
	int rc = parse(argc, argv, &a);
	if (rc)
		return rc == 1 ? 0 : rc;
	const char *cmd = a.npos ? a.pos[0] : "";
	static const char *const run_fields[] = {
	    "run_id", "agent", "state", "box", "parent_id", "created_at", NULL};
	static const char *const ap_fields[] = {
	    "approval_id", "run_id", "call_id",   "tool",
	    "reason",      "labels", "arguments", "policy_fingerprint",
	    NULL};
	if (!strcmp(cmd, "serve") && a.npos == 1)
		return serve(&a);
	if (!strcmp(cmd, "run") && a.npos == 2 && !strcmp(a.pos[1], "create"))
		return run_create(&a);
	if (!strcmp(cmd, "runs") && a.npos == 1)
		return print_lines(&a, "/v1/runs", "runs", run_fields);
	if (!strcmp(cmd, "approvals") && a.npos == 1)
		return print_lines(&a, "/v1/approvals", "approvals", ap_fields);
	if (!strcmp(cmd, "decide"))
		return decide(&a);
	if (!strcmp(cmd, "token"))
		return token_cmd(&a);
	if (!strcmp(cmd, "show") || !strcmp(cmd, "stop") ||
	    !strcmp(cmd, "answer"))
		return run_verb(&a, cmd);
	if (!strcmp(cmd, "verify") && a.npos == 1) {
		cJSON *out = NULL;
		rc = call(&a, "GET", "/v1/audit/verify", NULL, &out);
		if (!rc)
			print_json(out);
		if (!rc && !cJSON_IsTrue(cJSON_GetObjectItem(out, "intact")))
			rc = 1;
		cJSON_Delete(out);
		return rc;
	}
	fprintf(stderr, "%s", usage);
	return 2;
}
