/*
 * gateway/page.c - the web page (gateway/page.html, built in): one file,
 * no external assets, so it works offline.  It is served to anyone (it
 * holds nothing); everything it shows comes from the operator API with
 * the operator token the person types in, and it follows changes on
 * /v1/stream (server-sent events, read with fetch so the token goes in a
 * header, never in a URL).
 */
#include "gateway/gw.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

extern const char gw_page_html[];

bool gw_page_route(gw_req *q, gw_resp *r)
{
	if (strcmp(q->method, "GET") ||
	    (strcmp(q->path, "/") && strcmp(q->path, "/index.html")))
		return false;
	r->status = 200;
	r->body = strdup(gw_page_html);
	r->content_type = "text/html; charset=utf-8";
	if (!r->body)
		r->status = 500;
	return true;
}
