/*
 * net/http.c - the HTTP client over libcurl (see net/http.h).
 *
 * One curl easy handle per client, reset before every attempt so options
 * never leak from one request into the next while the connection cache
 * survives.  The header callback splits the final response's headers from
 * its trailers (lines after the header block's blank line); the write
 * callback streams 2xx bodies to the caller and buffers everything else.
 */
#include "net/http.h"
#include "util/clock.h"
#include "util/error.h"
#include "../util/array.h"

#include <curl/curl.h>
#include <openssl/rand.h>

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct lhttp_client {
	lhttp_options opt;
	char *base_url, *ca_file, *client_cert, *client_key, *rid_header;
	char *user_agent;
	CURL *curl;
};

/* State of one attempt, shared by the curl callbacks. */
typedef struct attempt {
	lhttp_client *c;
	const lhttp_request *req;
	lhttp_response *resp;
	bool headers_done; /* the final response's header block ended */
	int abort_code;    /* why a callback stopped the transfer */
	char abort_msg[160];
	double last_activity;
	curl_off_t last_ul;
	double deadline; /* monotonic seconds; 0: none */
	long idle_ms;
	size_t max_body;
	size_t body_cap;
} attempt;

/*
 * libcurl is loaded with dlopen on the first client, not linked: it drags
 * in some thirty shared libraries whose relocations would cost every
 * `locus classify` (the hook path) more than the whole classification.
 * The table is written once under pthread_once and only read after.
 */
typedef struct curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_reset)(CURL *);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
} curl_api;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static curl_api api;
static char curl_load_error[200];

static void curl_init_once(void)
{
	void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(curl_load_error, sizeof curl_load_error,
		         "cannot load libcurl.so.4: %s", dlerror());
		return;
	}
	curl_api t;
	struct {
		const char *name;
		void **slot;
	} syms[] = {
	    {"curl_global_init", (void **)&t.global_init},
	    {"curl_easy_init", (void **)&t.easy_init},
	    {"curl_easy_setopt", (void **)&t.easy_setopt},
	    {"curl_easy_perform", (void **)&t.easy_perform},
	    {"curl_easy_getinfo", (void **)&t.easy_getinfo},
	    {"curl_easy_reset", (void **)&t.easy_reset},
	    {"curl_easy_cleanup", (void **)&t.easy_cleanup},
	    {"curl_easy_strerror", (void **)&t.easy_strerror},
	    {"curl_slist_append", (void **)&t.slist_append},
	    {"curl_slist_free_all", (void **)&t.slist_free_all},
	};
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			snprintf(curl_load_error, sizeof curl_load_error,
			         "libcurl.so.4 lacks %s", syms[i].name);
			return;
		}
	}
	CURLcode rc = t.global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK) {
		snprintf(curl_load_error, sizeof curl_load_error,
		         "curl_global_init: %s", t.easy_strerror(rc));
		return;
	}
	api = t; /* the handle stays open for the life of the process */
}

/* ---------------------------------------------------------------- */
/* Header lists                                                       */
/* ---------------------------------------------------------------- */

int lhttp_headers_add(lhttp_headers *h, const char *name, const char *value)
{
	if (!lu_reserve(&h->v, &h->cap, h->n + 1))
		return LOCUS_ENOMEM;
	char *n = strdup(name), *val = strdup(value ? value : "");
	if (!n || !val) {
		free(n);
		free(val);
		return LOCUS_ENOMEM;
	}
	h->v[h->n].name = n;
	h->v[h->n].value = val;
	h->n++;
	return 0;
}

int lhttp_headers_set(lhttp_headers *h, const char *name, const char *value)
{
	size_t j = 0;
	for (size_t i = 0; i < h->n; i++) {
		if (strcasecmp(h->v[i].name, name) == 0) {
			free(h->v[i].name);
			free(h->v[i].value);
			continue;
		}
		h->v[j++] = h->v[i];
	}
	h->n = j;
	return lhttp_headers_add(h, name, value);
}

const char *lhttp_headers_get(const lhttp_headers *h, const char *name)
{
	for (size_t i = 0; h && i < h->n; i++)
		if (strcasecmp(h->v[i].name, name) == 0)
			return h->v[i].value;
	return NULL;
}

void lhttp_headers_clear(lhttp_headers *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].name);
		free(h->v[i].value);
	}
	free(h->v);
	memset(h, 0, sizeof *h);
}

static int headers_copy(lhttp_headers *dst, const lhttp_headers *src)
{
	for (size_t i = 0; src && i < src->n; i++)
		if (lhttp_headers_add(dst, src->v[i].name, src->v[i].value))
			return LOCUS_ENOMEM;
	return 0;
}

void lhttp_response_clear(lhttp_response *r)
{
	if (!r)
		return;
	lhttp_headers_clear(&r->headers);
	lhttp_headers_clear(&r->trailers);
	free(r->body);
	memset(r, 0, sizeof *r);
}

/* Between attempts: forget the previous response but keep the count. */
static void response_reset(lhttp_response *r)
{
	int attempts = r->attempts;
	lhttp_response_clear(r);
	r->attempts = attempts;
}

/* ---------------------------------------------------------------- */
/* Small helpers (public)                                             */
/* ---------------------------------------------------------------- */

int lhttp_url_authority(const char *url, char *out, size_t cap,
                        locus_error *err)
{
	const char *p = strstr(url, "://");
	if (!p || p == url)
		return lu_err(err, LOCUS_EINVALID, "URL without scheme: %.80s",
		              url);
	p += 3;
	size_t n = strcspn(p, "/?#");
	const char *at = memchr(p, '@', n);
	if (at) {
		n -= (size_t)(at + 1 - p);
		p = at + 1;
	}
	if (n == 0 || n >= cap)
		return lu_err(err, LOCUS_EINVALID,
		              "URL host empty or too long");
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

const char *lhttp_url_target(const char *url)
{
	const char *p = strstr(url, "://");
	if (!p)
		return url;
	p += 3;
	p += strcspn(p, "/?#");
	return *p == '/' || *p == '?' ? p : "/";
}

int lhttp_random_token(char out[33])
{
	unsigned char b[16];
	if (RAND_bytes(b, sizeof b) != 1) {
		out[0] = '\0';
		return LOCUS_EIO;
	}
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

static const char *const wdays[] = {"Sun", "Mon", "Tue", "Wed",
                                    "Thu", "Fri", "Sat"};
static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

void lhttp_format_date(int64_t t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	/* Names from our tables: strftime's %a/%b follow the locale. */
	snprintf(out, 32, "%s, %02d %s %04d %02d:%02d:%02d GMT",
	         wdays[tm.tm_wday % 7], tm.tm_mday, months[tm.tm_mon % 12],
	         tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* "Thu, 05 Jan 2014 21:31:40 GMT" -> Unix seconds, -1 if malformed. */
static int64_t parse_http_date(const char *s)
{
	char wd[4], mon[4];
	int d, y, hh, mm, ss;
	if (sscanf(s, "%3s, %d %3s %d %d:%d:%d GMT", wd, &d, mon, &y, &hh, &mm,
	           &ss) != 7)
		return -1;
	int m = -1;
	for (int i = 0; i < 12; i++)
		if (strcmp(mon, months[i]) == 0)
			m = i;
	if (m < 0 || d < 1 || d > 31 || y < 1970 || hh > 23 || mm > 59 ||
	    ss > 60)
		return -1;
	struct tm tm = {0};
	tm.tm_year = y - 1900;
	tm.tm_mon = m;
	tm.tm_mday = d;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	return (int64_t)timegm(&tm);
}

long lhttp_parse_retry_after(const char *value, int64_t now)
{
	if (!value)
		return -1;
	while (*value == ' ' || *value == '\t')
		value++;
	if (isdigit((unsigned char)*value)) {
		long secs = 0;
		for (; isdigit((unsigned char)*value); value++) {
			if (secs > 86400L * 365)
				return -1;
			secs = secs * 10 + (*value - '0');
		}
		while (*value == ' ' || *value == '\t')
			value++;
		return *value ? -1 : secs * 1000;
	}
	int64_t t = parse_http_date(value);
	if (t < 0)
		return -1;
	return t <= now ? 0 : (long)((t - now) * 1000);
}

/* ---------------------------------------------------------------- */
/* Client                                                             */
/* ---------------------------------------------------------------- */

static int dup_opt(char **dst, const char *src)
{
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : LOCUS_ENOMEM;
}

void lhttp_client_free(lhttp_client *c)
{
	if (!c)
		return;
	if (c->curl)
		api.easy_cleanup(c->curl);
	free(c->base_url);
	free(c->ca_file);
	free(c->client_cert);
	free(c->client_key);
	free(c->rid_header);
	free(c->user_agent);
	free(c);
}

int lhttp_client_new(lhttp_client **out, const lhttp_options *opt,
                     locus_error *err)
{
	*out = NULL;
	if (!opt || opt->version != LHTTP_OPTIONS_VERSION)
		return lu_err(err, LOCUS_EUSAGE,
		              "lhttp_options version mismatch");
	if ((opt->client_cert == NULL) != (opt->client_key == NULL))
		return lu_err(err, LOCUS_EINVALID,
		              "a client certificate needs its key and back");
	pthread_once(&curl_once, curl_init_once);
	if (!api.easy_init)
		return lu_err(err, LOCUS_EIO, "%s", curl_load_error);
	lhttp_client *c = calloc(1, sizeof *c);
	if (!c)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	c->opt = *opt;
	char ua[64];
	snprintf(ua, sizeof ua, "locus/%s", LOCUS_VERSION);
	if (dup_opt(&c->base_url, opt->base_url) ||
	    dup_opt(&c->ca_file, opt->ca_file) ||
	    dup_opt(&c->client_cert, opt->client_cert) ||
	    dup_opt(&c->client_key, opt->client_key) ||
	    dup_opt(&c->rid_header, opt->request_id_header) ||
	    dup_opt(&c->user_agent, opt->user_agent ? opt->user_agent : ua)) {
		lhttp_client_free(c);
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	}
	if (!c->opt.connect_timeout_ms)
		c->opt.connect_timeout_ms = 10000;
	if (c->opt.max_attempts <= 0)
		c->opt.max_attempts = 5;
	if (!c->opt.backoff_initial_ms)
		c->opt.backoff_initial_ms = 250;
	if (!c->opt.backoff_max_ms)
		c->opt.backoff_max_ms = 8000;
	if (!c->opt.retry_after_max_ms)
		c->opt.retry_after_max_ms = 60000;
	if (!c->opt.max_body)
		c->opt.max_body = (size_t)64 << 20;
	c->curl = api.easy_init();
	if (!c->curl) {
		lhttp_client_free(c);
		return lu_err(err, LOCUS_ENOMEM, "curl_easy_init failed");
	}
	*out = c;
	return 0;
}

/* ---------------------------------------------------------------- */
/* curl callbacks                                                     */
/* ---------------------------------------------------------------- */

static void stop_with(attempt *a, int code, const char *msg)
{
	if (!a->abort_code) {
		a->abort_code = code;
		snprintf(a->abort_msg, sizeof a->abort_msg, "%s", msg);
	}
}

/* "HTTP/1.1 200 OK" / "HTTP/2 200" -> status, version. */
static bool parse_status_line(const char *s, size_t n, long *status, int *major)
{
	if (n < 10 || memcmp(s, "HTTP/", 5) != 0)
		return false;
	*major = s[5] - '0';
	const char *sp = memchr(s, ' ', n);
	if (!sp || (size_t)(sp - s) + 4 > n)
		return false;
	long v = 0;
	for (int i = 1; i <= 3; i++) {
		if (!isdigit((unsigned char)sp[i]))
			return false;
		v = v * 10 + (sp[i] - '0');
	}
	*status = v;
	return true;
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *ud)
{
	attempt *a = ud;
	size_t n = size * nitems, len = n;
	a->last_activity = lu_now();
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	long status;
	int major;
	if (parse_status_line(buf, len, &status, &major)) {
		/* A new response (after a 1xx): forget the earlier one. */
		lhttp_headers_clear(&a->resp->headers);
		lhttp_headers_clear(&a->resp->trailers);
		a->resp->status = status;
		a->resp->http_major = major;
		a->headers_done = false;
		return n;
	}
	if (len == 0) {
		if (a->resp->status >= 200)
			a->headers_done = true;
		return n;
	}
	const char *colon = memchr(buf, ':', len);
	if (!colon)
		return n; /* obsolete line folding or junk: ignored */
	char name[128];
	size_t nl = (size_t)(colon - buf);
	if (nl == 0 || nl >= sizeof name)
		return n;
	memcpy(name, buf, nl);
	name[nl] = '\0';
	const char *v = colon + 1, *end = buf + len;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	char *value = strndup(v, (size_t)(end - v));
	lhttp_headers *dst =
	    a->headers_done ? &a->resp->trailers : &a->resp->headers;
	if (!value || lhttp_headers_add(dst, name, value)) {
		free(value);
		stop_with(a, LOCUS_ENOMEM, "out of memory");
		return 0;
	}
	free(value);
	if (!a->headers_done && a->c->rid_header &&
	    strcasecmp(name, a->c->rid_header) == 0)
		snprintf(a->resp->request_id, sizeof a->resp->request_id, "%s",
		         lhttp_headers_get(dst, name));
	return n;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud)
{
	attempt *a = ud;
	size_t n = size * nmemb;
	a->last_activity = lu_now();
	lhttp_response *r = a->resp;
	if (a->req->on_body && r->status >= 200 && r->status < 300) {
		if (n == 0)
			return 0;
		r->body_streamed = true;
		int rc = a->req->on_body(a->req->ctx, r, data, n);
		if (rc) {
			stop_with(a, rc,
			          "the body callback stopped the transfer");
			return 0;
		}
		return n;
	}
	if (r->body_len + n > a->max_body) {
		stop_with(a, LOCUS_ETOOBIG, "response body over the limit");
		return 0;
	}
	if (r->body_len + n + 1 > a->body_cap) {
		size_t cap = a->body_cap ? a->body_cap : 4096;
		while (cap < r->body_len + n + 1)
			cap *= 2;
		char *b = realloc(r->body, cap);
		if (!b) {
			stop_with(a, LOCUS_ENOMEM, "out of memory");
			return 0;
		}
		r->body = b;
		a->body_cap = cap;
	}
	memcpy(r->body + r->body_len, data, n);
	r->body_len += n;
	r->body[r->body_len] = '\0';
	return n;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
	(void)dltotal;
	(void)ultotal;
	(void)dlnow; /* downloads refresh last_activity in the callbacks */
	attempt *a = ud;
	double now = lu_now();
	if (ulnow != a->last_ul) { /* a slow reader of a big body is busy */
		a->last_ul = ulnow;
		a->last_activity = now;
	}
	if (a->req->cancel && a->req->cancel(a->req->ctx)) {
		stop_with(a, LOCUS_EDENIED, "cancelled");
		return 1;
	}
	if (a->idle_ms > 0 && (now - a->last_activity) * 1000 > a->idle_ms) {
		stop_with(a, LOCUS_ETIMEOUT, "idle timeout");
		return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* One attempt                                                        */
/* ---------------------------------------------------------------- */

static bool is_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

static char *full_url(const lhttp_client *c, const char *url)
{
	if (is_url(url) || !c->base_url)
		return strdup(url);
	size_t bl = strlen(c->base_url);
	if (bl && c->base_url[bl - 1] == '/' && url[0] == '/')
		bl--;
	size_t ul = strlen(url);
	char *s = malloc(bl + ul + 1);
	if (!s)
		return NULL;
	memcpy(s, c->base_url, bl);
	memcpy(s + bl, url, ul + 1);
	return s;
}

/* The curl header list: "Name: value", plus "Expect:" (no 100-continue
   round trip) and an empty Content-Type when a body has none (curl would
   claim a form). */
static struct curl_slist *curl_headers(const lhttp_headers *h, bool body,
                                       bool *oom)
{
	struct curl_slist *l = NULL, *t;
	*oom = false;
	for (size_t i = 0; i < h->n; i++) {
		size_t len = strlen(h->v[i].name) + strlen(h->v[i].value) + 3;
		char *line = malloc(len);
		if (!line)
			goto oom;
		if (h->v[i].value[0])
			snprintf(line, len, "%s: %s", h->v[i].name,
			         h->v[i].value);
		else /* "Name;" is curl's way to send an empty header */
			snprintf(line, len, "%s;", h->v[i].name);
		t = api.slist_append(l, line);
		free(line);
		if (!t)
			goto oom;
		l = t;
	}
	if (!lhttp_headers_get(h, "Expect")) {
		if (!(t = api.slist_append(l, "Expect:")))
			goto oom;
		l = t;
	}
	if (body && !lhttp_headers_get(h, "Content-Type")) {
		if (!(t = api.slist_append(l, "Content-Type:")))
			goto oom;
		l = t;
	}
	return l;
oom:
	api.slist_free_all(l);
	*oom = true;
	return NULL;
}

static void set_method(CURL *cu, const lhttp_request *req)
{
	const char *m = req->method ? req->method : "GET";
	if (req->has_body) {
		api.easy_setopt(cu, CURLOPT_POST, 1L);
		api.easy_setopt(cu, CURLOPT_POSTFIELDS,
		                req->body ? (const char *)req->body : "");
		api.easy_setopt(cu, CURLOPT_POSTFIELDSIZE_LARGE,
		                (curl_off_t)req->body_len);
		if (strcmp(m, "POST") != 0)
			api.easy_setopt(cu, CURLOPT_CUSTOMREQUEST, m);
	} else if (strcmp(m, "HEAD") == 0) {
		api.easy_setopt(cu, CURLOPT_NOBODY, 1L);
	} else {
		api.easy_setopt(cu, CURLOPT_HTTPGET, 1L);
		if (strcmp(m, "GET") != 0)
			api.easy_setopt(cu, CURLOPT_CUSTOMREQUEST, m);
	}
}

static void set_transport(lhttp_client *c, const char *url)
{
	CURL *cu = c->curl;
	api.easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	api.easy_setopt(cu, CURLOPT_PROTOCOLS_STR, "http,https");
	api.easy_setopt(cu, CURLOPT_FOLLOWLOCATION, 0L);
	api.easy_setopt(cu, CURLOPT_PATH_AS_IS, 1L);
	api.easy_setopt(cu, CURLOPT_SSL_VERIFYPEER, 1L);
	api.easy_setopt(cu, CURLOPT_SSL_VERIFYHOST, 2L);
	api.easy_setopt(cu, CURLOPT_TCP_KEEPALIVE, 1L);
	api.easy_setopt(cu, CURLOPT_USERAGENT, c->user_agent);
	api.easy_setopt(cu, CURLOPT_CONNECTTIMEOUT_MS,
	                c->opt.connect_timeout_ms);
	if (c->ca_file)
		api.easy_setopt(cu, CURLOPT_CAINFO, c->ca_file);
	if (c->client_cert) {
		api.easy_setopt(cu, CURLOPT_SSLCERT, c->client_cert);
		api.easy_setopt(cu, CURLOPT_SSLKEY, c->client_key);
	}
	long v = CURL_HTTP_VERSION_1_1;
	if (c->opt.http_version == LHTTP_H2_TLS)
		v = CURL_HTTP_VERSION_2TLS;
	else if (c->opt.http_version == LHTTP_H2_PRIOR)
		v = strncmp(url, "https://", 8) == 0
		        ? CURL_HTTP_VERSION_2TLS
		        : CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
	api.easy_setopt(cu, CURLOPT_HTTP_VERSION, v);
	/* libcurl before 8.0 breaks a reused h2c prior-knowledge connection
	   ("Error in the HTTP2 framing layer" on the second request, curl
	   #10634, fixed by #10643): one connection per request there. */
	if (v == CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) {
		api.easy_setopt(cu, CURLOPT_FRESH_CONNECT, 1L);
		api.easy_setopt(cu, CURLOPT_FORBID_REUSE, 1L);
	}
}

static long attempt_timeout_ms(const attempt *a, long per_attempt)
{
	if (a->deadline <= 0)
		return per_attempt;
	long left = (long)((a->deadline - lu_now()) * 1000);
	if (left < 1)
		left = 1;
	return per_attempt > 0 && per_attempt < left ? per_attempt : left;
}

/* Run one attempt.  *crc gets curl's result; the return is 0 or a code
   for what must not be retried (prepare failed, out of memory). */
static int run_attempt(attempt *a, const char *url, CURLcode *crc, char *cerr,
                       locus_error *err)
{
	lhttp_client *c = a->c;
	const lhttp_request *req = a->req;
	lhttp_headers h = {0};
	int rc = headers_copy(&h, req->headers);
	if (rc)
		return lu_err(err, rc, "out of memory");
	if (req->prepare && (rc = req->prepare(req->ctx, req, url, &h, err))) {
		lhttp_headers_clear(&h);
		return rc;
	}
	bool oom;
	struct curl_slist *sl = curl_headers(&h, req->has_body, &oom);
	lhttp_headers_clear(&h);
	if (oom)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");

	CURL *cu = c->curl;
	api.easy_reset(cu);
	set_transport(c, url);
	api.easy_setopt(cu, CURLOPT_URL, url);
	set_method(cu, req);
	api.easy_setopt(cu, CURLOPT_HTTPHEADER, sl);
	api.easy_setopt(cu, CURLOPT_ERRORBUFFER, cerr);
	api.easy_setopt(cu, CURLOPT_HEADERFUNCTION, on_header);
	api.easy_setopt(cu, CURLOPT_HEADERDATA, a);
	api.easy_setopt(cu, CURLOPT_WRITEFUNCTION, on_write);
	api.easy_setopt(cu, CURLOPT_WRITEDATA, a);
	api.easy_setopt(cu, CURLOPT_NOPROGRESS, 0L);
	api.easy_setopt(cu, CURLOPT_XFERINFOFUNCTION, on_progress);
	api.easy_setopt(cu, CURLOPT_XFERINFODATA, a);
	long t = attempt_timeout_ms(a, req->timeout_ms ? req->timeout_ms
	                                               : c->opt.timeout_ms);
	if (t > 0)
		api.easy_setopt(cu, CURLOPT_TIMEOUT_MS, t);
	a->last_activity = lu_now();
	cerr[0] = '\0';
	*crc = api.easy_perform(cu);
	long hv = 0;
	api.easy_getinfo(cu, CURLINFO_HTTP_VERSION, &hv);
	if (*crc == CURLE_OK && hv == CURL_HTTP_VERSION_2_0)
		a->resp->http_major = 2;
	api.easy_setopt(cu, CURLOPT_HTTPHEADER, NULL);
	api.easy_setopt(cu, CURLOPT_ERRORBUFFER, NULL);
	api.slist_free_all(sl);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Retries                                                            */
/* ---------------------------------------------------------------- */

/* Failures where the request surely never reached the server. */
static bool unsent(CURLcode rc)
{
	return rc == CURLE_COULDNT_CONNECT ||
	       rc == CURLE_COULDNT_RESOLVE_HOST ||
	       rc == CURLE_COULDNT_RESOLVE_PROXY;
}

/* Failures no retry can mend: a certificate or key, a malformed URL. */
static bool permanent(CURLcode rc)
{
	return rc == CURLE_PEER_FAILED_VERIFICATION ||
	       rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_SSL_CERTPROBLEM ||
	       rc == CURLE_SSL_CIPHER || rc == CURLE_URL_MALFORMAT ||
	       rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_SSL_ISSUER_ERROR;
}

static bool transient_status(long s)
{
	return s == 500 || s == 502 || s == 503 || s == 504;
}

static long backoff_ms(const lhttp_client *c, int attempt_no)
{
	long base = c->opt.backoff_initial_ms;
	for (int i = 1; i < attempt_no && base < c->opt.backoff_max_ms; i++)
		base *= 2;
	if (base > c->opt.backoff_max_ms)
		base = c->opt.backoff_max_ms;
	/* Equal jitter: half fixed, half random, so clients spread out. */
	unsigned r = 0;
	if (RAND_bytes((unsigned char *)&r, sizeof r) != 1)
		r = 0;
	long half = base / 2;
	return half + (half > 0 ? (long)(r % (unsigned long)(half + 1)) : 0);
}

/* Sleep ms in slices, polling cancel.  false when cancelled. */
static bool pause_ms(const lhttp_client *c, const lhttp_request *req, long ms)
{
	if (c->opt.sleep_ms) {
		c->opt.sleep_ms(ms, c->opt.sleep_payload);
		return !(req->cancel && req->cancel(req->ctx));
	}
	while (ms > 0) {
		if (req->cancel && req->cancel(req->ctx))
			return false;
		long step = ms > 100 ? 100 : ms;
		struct timespec ts = {step / 1000, (step % 1000) * 1000000L};
		while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
			;
		ms -= step;
	}
	return !(req->cancel && req->cancel(req->ctx));
}

/* How long to wait before the next attempt, or -1: do not retry. */
static long retry_delay(const lhttp_client *c, const lhttp_request *req,
                        const lhttp_response *resp, CURLcode crc,
                        int attempt_no)
{
	if (req->retry == LHTTP_RETRY_NONE || resp->body_streamed)
		return -1;
	bool again;
	if (crc != CURLE_OK)
		again = !permanent(crc) &&
		        (req->retry == LHTTP_RETRY_IDEMPOTENT || unsent(crc));
	else if (resp->status == 429)
		again = true;
	else
		again = req->retry == LHTTP_RETRY_IDEMPOTENT &&
		        transient_status(resp->status);
	if (!again)
		return -1;
	long d = backoff_ms(c, attempt_no);
	if (crc == CURLE_OK) {
		long ra = lhttp_parse_retry_after(
		    lhttp_headers_get(&resp->headers, "Retry-After"),
		    (int64_t)time(NULL));
		if (ra > c->opt.retry_after_max_ms)
			ra = c->opt.retry_after_max_ms;
		if (ra > d)
			d = ra;
	}
	return d;
}

static int transport_error(const attempt *a, const char *url, CURLcode crc,
                           const char *cerr, locus_error *err)
{
	const lhttp_request *req = a->req;
	const char *m = req->method ? req->method : "GET";
	const char *rid = a->resp->request_id;
	int code = crc == CURLE_OPERATION_TIMEDOUT ? LOCUS_ETIMEOUT : LOCUS_EIO;
	return lu_err(err, code, "%s %.80s: %s (attempt %d%s%s)", m,
	              lhttp_url_target(url),
	              cerr[0] ? cerr : api.easy_strerror(crc),
	              a->resp->attempts, rid[0] ? ", request id " : "", rid);
}

int lhttp_perform(lhttp_client *c, const lhttp_request *req,
                  lhttp_response *resp, locus_error *err)
{
	memset(resp, 0, sizeof *resp);
	if (!req || !req->url)
		return lu_err(err, LOCUS_EUSAGE, "lhttp_perform: no URL");
	char *url = full_url(c, req->url);
	if (!url)
		return lu_err(err, LOCUS_ENOMEM, "out of memory");
	if (!is_url(url)) {
		lu_err(err, LOCUS_EINVALID, "not an http(s) URL: %.80s", url);
		free(url);
		return LOCUS_EINVALID;
	}
	attempt a = {.c = c, .req = req, .resp = resp};
	a.max_body = c->opt.max_body;
	a.idle_ms = req->idle_timeout_ms ? req->idle_timeout_ms
	                                 : c->opt.idle_timeout_ms;
	if (c->opt.deadline_ms > 0)
		a.deadline = lu_now() + (double)c->opt.deadline_ms / 1000;
	char cerr[CURL_ERROR_SIZE];
	int rc = 0;
	for (;;) {
		response_reset(resp);
		a.headers_done = false;
		a.abort_code = 0;
		a.body_cap = 0;
		a.last_ul = 0;
		resp->attempts++;
		CURLcode crc = CURLE_OK;
		if ((rc = run_attempt(&a, url, &crc, cerr, err)))
			break;
		if (a.abort_code) {
			rc = lu_err(err, a.abort_code, "%s %.80s: %s",
			            req->method ? req->method : "GET",
			            lhttp_url_target(url), a.abort_msg);
			break;
		}
		if (crc == CURLE_OK && c->opt.require_http2 &&
		    resp->http_major != 2) {
			rc = lu_err(err, LOCUS_EIO,
			            "%.80s: the server did not speak HTTP/2",
			            lhttp_url_target(url));
			break;
		}
		long d = resp->attempts < c->opt.max_attempts
		             ? retry_delay(c, req, resp, crc, resp->attempts)
		             : -1;
		if (d >= 0 && a.deadline > 0 &&
		    lu_now() + (double)d / 1000 >= a.deadline)
			d = -1; /* the next attempt could not finish in time */
		if (d < 0) {
			if (crc != CURLE_OK)
				rc = transport_error(&a, url, crc, cerr, err);
			break;
		}
		if (!pause_ms(c, req, d)) {
			rc = lu_err(err, LOCUS_EDENIED, "%.80s: cancelled",
			            lhttp_url_target(url));
			break;
		}
	}
	free(url);
	return rc;
}
