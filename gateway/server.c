/*
 * gateway/server.c - the HTTP server (libmicrohttpd, docs/gateway.md says
 * why): one thread per connection, bodies gathered up to a cap (16 MiB on
 * the runner's routes, 1 MiB on the operator's), the bearer token looked
 * up by its hash, then the page, runner and operator routes in turn.
 * Every refusal is an HTTP error with {"detail"} and an audit record.
 */
#include "gateway/gw.h"

#include <stdio.h>

#include "harness/internal.h"
#include "runner/json.h"
#include "util/buf.h"
#include "util/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct conn_ctx {
	lu_buf body;
	size_t limit;
	bool too_big;
} conn_ctx;

static void authenticate(gw_req *q, const char *auth)
{
	q->who = GW_NOBODY;
	if (!auth || strncmp(auth, "Bearer ", 7) || !auth[7])
		return;
	char hash[65];
	gw_token_hash(auth + 7, hash);
	locus_error err;
	gw_db_lock(&q->srv->db);
	gw_stmt *st = gw_q(&q->srv->db, &err,
	                   "SELECT kind, run_id, tenant FROM tokens "
	                   "WHERE hash = ? AND revoked = 0",
	                   "s", hash);
	if (st && gw_row(st)) {
		const char *kind = gw_text(st, 0);
		const char *run = gw_text(st, 1);
		const char *tenant = gw_text(st, 2);
		if (kind && !strcmp(kind, "run") && run) {
			q->who = GW_RUN;
			snprintf(q->run_id, sizeof q->run_id, "%s", run);
		} else if (kind && !strcmp(kind, "operator"))
			q->who = GW_OPERATOR;
		snprintf(q->tenant, sizeof q->tenant, "%s",
		         tenant ? tenant : "");
	}
	gw_done(st);
	gw_db_unlock(&q->srv->db);
}

static void client_of(struct MHD_Connection *c, char *out, size_t cap)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	snprintf(out, cap, "?");
	if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET) {
		const struct sockaddr_in *in =
		    (const struct sockaddr_in *)ci->client_addr;
		inet_ntop(AF_INET, &in->sin_addr, out, (socklen_t)cap);
	}
}

static bool runner_path(const char *url)
{
	return !strncmp(url, "/internal/", 10) || !strncmp(url, "/v1/admit", 9);
}

static void dispatch(gw_req *q, gw_resp *r)
{
	if (gw_page_route(q, r))
		return;
	if (q->who == GW_NOBODY) {
		gw_refuse(q, r, 401, "no valid bearer token");
		return;
	}
	if (gw_runner_route(q, r) || gw_operator_route(q, r))
		return;
	gw_refuse(q, r, 404, "no route %s %s", q->method, q->path);
}

typedef struct sse_state {
	gw_server *srv;
	uint64_t seen;
	bool first;
} sse_state;

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	sse_state *s = cls;
	if (s->srv->stopping)
		return MHD_CONTENT_READER_END_OF_STREAM;
	pthread_mutex_lock(&s->srv->change_lock);
	/* over a shared database another replica may have changed
	   something: the page is told to re-read every 2 s as well */
	bool shared = gw_db_shared(&s->srv->db), timed_out = false;
	if (!s->first) {
		struct timespec ts;
		lu_cond_deadline_ms(&ts, shared ? 2000 : 15000);
		while (s->srv->changes == s->seen && !s->srv->stopping)
			if (pthread_cond_timedwait(&s->srv->change_cond,
			                           &s->srv->change_lock, &ts)) {
				timed_out = true;
				break;
			}
	}
	bool changed =
	    s->first || s->srv->changes != s->seen || (shared && timed_out);
	s->seen = s->srv->changes;
	s->first = false;
	pthread_mutex_unlock(&s->srv->change_lock);
	/* a change: the page fetches what it shows again; else a keep-alive
	   comment (a closed peer ends the stream at the write) */
	const char *msg = changed ? "event: change\ndata: {}\n\n" : ": ka\n\n";
	size_t n = strlen(msg);
	if (n > max)
		return 0;
	memcpy(buf, msg, n);
	return (ssize_t)n;
}

static enum MHD_Result send_resp(struct MHD_Connection *c, gw_server *srv,
                                 gw_resp *r)
{
	struct MHD_Response *resp;
	if (r->sse) {
		sse_state *s = calloc(1, sizeof *s);
		if (!s)
			return MHD_NO;
		s->srv = srv;
		s->first = true;
		resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 256,
		                                         sse_read, s, free);
		r->content_type = "text/event-stream";
		r->status = 200;
	} else {
		char *body = r->body ? r->body : strdup("");
		r->body = NULL;
		resp = MHD_create_response_from_buffer(
		    body ? strlen(body) : 0, body, MHD_RESPMEM_MUST_FREE);
	}
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type",
	                        r->content_type ? r->content_type
	                                        : "application/json");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	enum MHD_Result ret = MHD_queue_response(
	    c, (unsigned)(r->status ? r->status : 500), resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *upload_data,
                                  size_t *upload_size, void **con_cls)
{
	(void)version;
	gw_server *srv = cls;
	conn_ctx *ctx = *con_cls;
	if (!ctx) {
		if (!(ctx = calloc(1, sizeof *ctx)))
			return MHD_NO;
		ctx->limit = runner_path(url) ? GW_MAX_RUNNER_BODY
		                              : GW_MAX_OPERATOR_BODY;
		*con_cls = ctx;
		return MHD_YES;
	}
	if (*upload_size) {
		if (ctx->body.len + *upload_size > ctx->limit)
			ctx->too_big = true;
		else
			lu_buf_add(&ctx->body, upload_data, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	gw_req q = {.srv = srv, .method = method, .path = url};
	q.body = ctx->body.d;
	q.body_len = ctx->body.len;
	q.content_type =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	q.conn = c;
	client_of(c, q.client, sizeof q.client);
	authenticate(&q, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	                                             "Authorization"));
	gw_resp r = {0};
	if (ctx->too_big || ctx->body.oom)
		gw_refuse(&q, &r, 413, "the body is over %zu bytes",
		          ctx->limit);
	else
		dispatch(&q, &r);
	enum MHD_Result ret = send_resp(c, srv, &r);
	free(r.body);
	return ret;
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	conn_ctx *ctx = *con_cls;
	if (ctx) {
		lu_buf_free(&ctx->body);
		free(ctx);
	}
	*con_cls = NULL;
}

/* "HOST:PORT" (HOST an IPv4 address or localhost) into a bound, listening
   socket; out_url gets http://HOST:PORT with the port bound. */
/* "fd:N": a listening socket the gateway inherited (a supervisor or
   systemd's socket activation holds it across restarts, so connections
   made while the gateway is down wait in its backlog instead of being
   refused).  Its url is read back from the socket. */
static int inherited(const char *n, int *fd_out, char *url, size_t cap,
                     locus_error *err)
{
	char *end = NULL;
	long fd = strtol(n, &end, 10);
	int acc = 0;
	socklen_t alen = sizeof acc;
	struct sockaddr_in sa;
	socklen_t len = sizeof sa;
	if (!*n || *end || fd < 3 || fd > 65535 ||
	    getsockopt((int)fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &alen) ||
	    !acc || getsockname((int)fd, (struct sockaddr *)&sa, &len) ||
	    sa.sin_family != AF_INET)
		return lu_err(err, LOCUS_EINVALID,
		              "--listen fd:%s: not an inherited, listening "
		              "IPv4 socket",
		              n);
	char host[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &sa.sin_addr, host, sizeof host);
	snprintf(url, cap, "http://%s:%u", host, ntohs(sa.sin_port));
	*fd_out = (int)fd;
	return 0;
}

static int listen_on(const char *addr, int *fd_out, char *url, size_t cap,
                     locus_error *err)
{
	if (!strncmp(addr, "fd:", 3))
		return inherited(addr + 3, fd_out, url, cap, err);
	const char *colon = strrchr(addr, ':');
	char host[64];
	if (!colon || (size_t)(colon - addr) >= sizeof host)
		return lu_err(err, LOCUS_EINVALID, "--listen %s: not HOST:PORT",
		              addr);
	snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
	if (!strcmp(host, "localhost") || !host[0])
		snprintf(host, sizeof host, "127.0.0.1");
	char *end = NULL;
	long port = strtol(colon + 1, &end, 10);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	if (!colon[1] || *end || port < 0 || port > 65535 ||
	    inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return lu_err(err, LOCUS_EINVALID,
		              "--listen %s: not an IPv4 HOST:PORT", addr);
	sa.sin_port = htons((uint16_t)port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 128)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return lu_err(err, LOCUS_EIO, "--listen %s: %s", addr,
		              strerror(e));
	}
	socklen_t len = sizeof sa;
	getsockname(fd, (struct sockaddr *)&sa, &len);
	snprintf(url, cap, "http://%s:%u", host, ntohs(sa.sin_port));
	*fd_out = fd;
	return 0;
}

int gw_server_start(gw_server **out, const gw_config *cfg, locus_error *err)
{
	*out = NULL;
	gw_server *s = calloc(1, sizeof *s);
	if (!s)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	s->cfg = *cfg;
	s->listen_fd = -1;
	pthread_mutex_init(&s->change_lock, NULL);
	pthread_cond_init(&s->change_cond, NULL);
	pthread_cond_init(&s->stop_cond, NULL);
	int rc = gw_db_open(&s->db, cfg->db_url, err);
	if (!rc)
		rc = listen_on(cfg->listen ? cfg->listen : "127.0.0.1:7480",
		               &s->listen_fd, s->url, sizeof s->url, err);
	if (!rc) {
		s->mhd = MHD_start_daemon(
		    MHD_USE_INTERNAL_POLLING_THREAD |
		        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG,
		    0, NULL, NULL, on_request, s, MHD_OPTION_LISTEN_SOCKET,
		    s->listen_fd, MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
		    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
		    MHD_OPTION_END);
		if (!s->mhd)
			rc = lu_err(err, LOCUS_EIO,
			            "the HTTP server could not start");
	}
	if (!rc)
		rc = gw_expiry_start(s, err);
	if (!rc)
		rc = gw_os_monitor_start(s, err);
	if (rc) {
		gw_server_stop(s);
		return rc;
	}
	*out = s;
	return 0;
}

void gw_server_stop(gw_server *s)
{
	if (!s)
		return;
	gw_os_monitor_stop(s);
	gw_expiry_stop(s);
	s->stopping = 1;
	gw_notify(s);
	if (s->mhd)
		MHD_stop_daemon(s->mhd);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	gw_db_close(&s->db);
	pthread_mutex_destroy(&s->change_lock);
	pthread_cond_destroy(&s->change_cond);
	pthread_cond_destroy(&s->stop_cond);
	free(s);
}
