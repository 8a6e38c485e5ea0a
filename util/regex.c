/*
 * util/regex.c - PCRE2 compile and limited match.
 */
#include "regex.h"

#include <stdio.h>
#include <string.h>

pcre2_code *lu_re_compile(const char *pattern, uint32_t options, bool jit,
                          lu_re_error *err)
{
	int code = 0;
	PCRE2_SIZE off = 0;
	pcre2_code *re =
	    pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, options,
	                  &code, &off, NULL);
	if (!re) {
		if (err) {
			memset(err, 0, sizeof *err);
			err->code = code;
			err->offset = (size_t)off;
			PCRE2_UCHAR msg[sizeof err->message];
			if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
				snprintf((char *)msg, sizeof msg,
				         "PCRE2 error %d", code);
			snprintf(err->message, sizeof err->message, "%s",
			         (const char *)msg);
		}
		return NULL;
	}
	if (jit)
		(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	return re;
}

pcre2_match_context *lu_re_context(const lu_re_limits *lim)
{
	static const lu_re_limits def = LU_RE_LIMITS_INIT;
	if (!lim)
		lim = &def;
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	if (!mc)
		return NULL;
	pcre2_set_match_limit(mc, lim->match);
	pcre2_set_depth_limit(mc, lim->depth);
	pcre2_set_heap_limit(mc, lim->heap_kib);
	return mc;
}

lu_re_result lu_re_match(const pcre2_code *re, const char *s, size_t n,
                         size_t off, pcre2_match_data *md,
                         pcre2_match_context *mc, int *pcre_rc)
{
	int rc = PCRE2_ERROR_NOMEMORY;
	pcre2_match_data *own = NULL;
	if (re && mc && !md)
		md = own = pcre2_match_data_create_from_pattern(re, NULL);
	if (re && mc && md)
		rc = pcre2_match(re, (PCRE2_SPTR)s, n, off, 0, md, mc);
	pcre2_match_data_free(own);
	if (pcre_rc)
		*pcre_rc = rc;
	if (rc == PCRE2_ERROR_NOMATCH)
		return LU_RE_NOMATCH;
	/* 0: the ovector was too small, but the pattern matched */
	return rc >= 0 ? LU_RE_MATCH : LU_RE_ERROR;
}

lu_re_result lu_re_match_once(const pcre2_code *re, const char *s, size_t n,
                              const lu_re_limits *lim)
{
	pcre2_match_context *mc = lu_re_context(lim);
	lu_re_result r = lu_re_match(re, s, n, 0, NULL, mc, NULL);
	pcre2_match_context_free(mc);
	return r;
}

int lu_re_is_limit(int pcre_rc)
{
	return pcre_rc == PCRE2_ERROR_MATCHLIMIT ||
	       pcre_rc == PCRE2_ERROR_DEPTHLIMIT ||
	       pcre_rc == PCRE2_ERROR_HEAPLIMIT;
}
