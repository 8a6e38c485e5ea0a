/*
 * tests/openshell_fx.h - the OpenShell backend for the shared harness
 * fixtures (harness_fx.h): the strict fake gateway (fake_openshell.py)
 * over h2c, or over mTLS with a bearer token, with a preset READY sandbox
 * whose /sandbox is the test's workspace folder.  Reported as skipped
 * (never passed) when the fake cannot run here.
 */
#ifndef LOCUS_TEST_OPENSHELL_FX_H
#define LOCUS_TEST_OPENSHELL_FX_H

#include "fake_proc.h"
#include "locus/harness.h"

#include <stdio.h>
#include <stdlib.h>

static int os_fx_state = -1; /* -1 unknown, 0 cannot, 1 can */

static inline bool os_fx_works(void)
{
	if (os_fx_state < 0)
		os_fx_state =
		    system("/usr/bin/python3 -c 'import grpc, google.protobuf' "
		           ">/dev/null 2>&1") == 0 &&
		    system("bwrap --unshare-user --unshare-net --ro-bind / / "
		           "true >/dev/null 2>&1") == 0;
	return os_fx_state == 1;
}

/* Start a fake over `root` (certificates in `tmp`) and attach to it. */
static inline int os_fx_open(fake_proc *p, bool mtls, const char *root,
                             const char *tmp, locus_backend **out,
                             locus_error *err)
{
	const char *src = getenv("LOCUS_SOURCE_ROOT");
	char proto[4096], pre[1024];
	snprintf(proto, sizeof proto, "%s/net/openshell.proto",
	         src ? src : ".");
	snprintf(pre, sizeof pre, "ws:sb-ws:%s", root);
	const char *args[] = {"--proto",
	                      proto,
	                      "--sandbox",
	                      pre,
	                      "--lifetime",
	                      "300",
	                      mtls ? "--tls" : NULL,
	                      tmp,
	                      "--require-client-cert",
	                      "--token",
	                      "fx-token",
	                      NULL};
	if (fake_start(p, "fake_openshell.py", args))
		return LOCUS_EIO;
	char ep[64], ca[1024], cert[1024], key[1024];
	snprintf(ep, sizeof ep, "127.0.0.1:%d", p->port);
	snprintf(ca, sizeof ca, "%s/ca.crt", tmp);
	snprintf(cert, sizeof cert, "%s/client.crt", tmp);
	snprintf(key, sizeof key, "%s/client.key", tmp);
	locus_openshell_options o = LOCUS_OPENSHELL_OPTIONS_INIT;
	o.endpoint = ep;
	o.sandbox_id = "sb-ws";
	if (mtls) {
		o.ca_file = ca;
		o.cert_file = cert;
		o.key_file = key;
		o.bearer_token = "fx-token";
	}
	return locus_backend_openshell_new(out, &o, err);
}

#endif
