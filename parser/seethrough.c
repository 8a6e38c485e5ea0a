/* parser/seethrough.c - placeholder: emits commands as written. */
#include "internal.h"

size_t lp_emit(lp_ctx *ctx, lp_raw_command *raw)
{
	return lp_push_raw(ctx, raw, 0, 0, NULL);
}

void lp_parse_nested(lp_ctx *ctx, const char *text, size_t len,
                     const char *origin, size_t parent, unsigned depth);
