/*
 * parser/input.c - the words a program fills in from its input at run
 * time: xargs appends its input to the command (or puts it where -I R
 * stands), GNU parallel puts it where a replacement string stands (else
 * appends it), fd -x/-X puts the file found where {} {/} {//} {.} {/.}
 * stands (else appends it).
 *
 * Those words are run-time words, like `"$X"`: each word holding a
 * replacement string is flagged LOCUS_WORD_DYNAMIC, and an appended input
 * is one more word, `{input}`, flagged DYNAMIC and MAY_BE_OPTION (the
 * input may be any words, options included).  Every rule that judges
 * `cmd "$X"` then judges `... | xargs cmd` the same way (docs/tags.md,
 * "Arguments computed at run time").
 */
#include <string.h>

#include "seethrough.h"

/* The appended input as written (words) and as its value (argv) when its
   source is not known: a value the labels read as computed, like `$X`
   (labels/words.c). */
static const char input_text[] = "{input}";
static const char input_value_text[] = "${input}";

/* fd's placeholders (fd --help, "--exec"). */
static const char *const fd_tokens[] = {
    "{}", "{/}", "{//}", "{.}", "{/.}", NULL,
};

/* The length of GNU parallel's replacement string at p ('{'), or 0:
   {} {.} {/} {//} {/.} {#} {%}, positional {N} {N.} {N/} {N//} {N/.},
   a perl expression {=...=} or {=N ...=}; with --plus (`plus`) any
   {...} without a blank ({+/} {..} {##} {:-x} ...). */
static size_t parallel_token(const char *p, bool plus)
{
	const char *q = p + 1;
	if (*q == '=') {
		const char *e = strstr(q + 1, "=}");
		return e ? (size_t)(e + 2 - p) : 0;
	}
	if (plus) {
		size_t k = strcspn(q, "{} \t\n");
		return q[k] == '}' ? k + 2 : 0;
	}
	bool digits = false;
	while (*q >= '0' && *q <= '9') {
		q++;
		digits = true;
	}
	static const char *const tails[] = {"}",   ".}",  "/}",
	                                    "//}", "/.}", NULL};
	for (const char *const *t = tails; *t; t++)
		if (!strncmp(q, *t, strlen(*t)))
			return (size_t)(q - p) + strlen(*t);
	if (!digits && (!strncmp(q, "#}", 2) || !strncmp(q, "%}", 2)))
		return 3;
	return 0;
}

/* The length of a replacement string of `in` at p, or 0. */
static size_t token_at(const lp_input *in, const char *p)
{
	if (in->replace && *in->replace &&
	    !strncmp(p, in->replace, strlen(in->replace)))
		return strlen(in->replace);
	if (*p != '{')
		return 0;
	if (in->kind == LP_INPUT_FD) {
		for (const char *const *t = fd_tokens; *t; t++)
			if (!strncmp(p, *t, strlen(*t)))
				return strlen(*t);
	} else if (in->kind == LP_INPUT_PARALLEL) {
		return parallel_token(p, in->plus);
	}
	return 0;
}

/* The offset of the first replacement string of `in` in v, or -1. */
static long first_token(const lp_input *in, const char *v)
{
	if (in->kind == LP_INPUT_APPEND)
		return -1;
	for (const char *p = v; *p; p++)
		if (token_at(in, p))
			return (long)(p - v);
	return -1;
}

uint32_t lp_input_flags(const lp_input *in, const char *v)
{
	v = v ? v : "";
	long at = first_token(in, v);
	if (at < 0)
		return 0;
	uint32_t f = LOCUS_WORD_DYNAMIC;
	/* the input may start with '-': at the start of the word, or after
	   a literal `-`/`+` that is not a long option's `--name=` */
	const char *eq = strchr(v, '=');
	if (at == 0 || ((v[0] == '-' || v[0] == '+') &&
	                !(v[0] == '-' && v[1] == '-' && eq && eq - v < at)))
		f |= LOCUS_WORD_MAY_BE_OPTION;
	return f;
}

/* v with each replacement string of `in` written as the run-time value
   (in->value, else ${input}: the forms the labels read as computed,
   labels/words.c), or NULL when out of memory. */
static const char *input_value(lp_ctx *ctx, const lp_input *in, const char *v)
{
	const char *iv = in->value ? in->value : input_value_text;
	lp_buf b = {0};
	for (const char *p = v; *p;) {
		size_t k = token_at(in, p);
		bool ok = k ? lp_buf_append(ctx->arena, &b, iv, strlen(iv))
		            : lp_buf_putc(ctx->arena, &b, *p);
		if (!ok)
			return NULL;
		p += k ? k : 1;
	}
	return lp_buf_cstr(ctx->arena, &b);
}

/* *w as the program runs it: flagged and its value rewritten when it
   holds a replacement string.  False when out of memory. */
static bool input_word(lp_ctx *ctx, const lp_input *in, lp_word *w)
{
	uint32_t f = lp_input_flags(in, wval(w));
	if (!f)
		return true;
	w->value = input_value(ctx, in, wval(w));
	w->flags |= f;
	return w->value != NULL;
}

/* A word of find -exec holding {} that stays a path under the start
   point: {} alone, or {} with a suffix that has no '/' ({}.bak names a
   sibling of the found file). */
static bool find_word_literal(const char *v)
{
	return !strncmp(v, "{}", 2) && !strchr(v + 2, '/') &&
	       !strstr(v + 2, "{}");
}

lp_word *lp_input_find_words(lp_ctx *ctx, const lp_word *w, size_t n)
{
	static const lp_input in = {LP_INPUT_REPLACE, "{}", false, NULL};
	lp_word *out = lp_arena_alloc(ctx->arena, (n ? n : 1) * sizeof *out);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		out[i] = w[i];
		if (!(w[i].flags & LOCUS_WORD_DYNAMIC) &&
		    !find_word_literal(wval(&w[i])) &&
		    !input_word(ctx, &in, &out[i]))
			return NULL;
	}
	return out;
}

bool lp_input_appends(const lp_input *in, const lp_word *w, size_t n)
{
	if (in->kind == LP_INPUT_APPEND)
		return true;
	if (in->kind == LP_INPUT_REPLACE)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lp_input_flags(in, wval(&w[i])))
			return false;
	return true;
}

lp_word *lp_input_words(lp_ctx *ctx, const lp_input *in, const lp_word *w,
                        size_t n, size_t *nout)
{
	bool append = lp_input_appends(in, w, n);
	size_t m = n + (append ? 1 : 0);
	lp_word *out = lp_arena_alloc(ctx->arena, (m ? m : 1) * sizeof *out);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		out[i] = w[i];
		if (!input_word(ctx, in, &out[i]))
			return NULL;
	}
	if (append) {
		out[n].value = in->value ? in->value : input_value_text;
		out[n].text = input_text;
		out[n].flags = LOCUS_WORD_DYNAMIC | LOCUS_WORD_MAY_BE_OPTION;
	}
	*nout = m;
	return out;
}

/* The words of r, a command parsed from text a program fills in
   (ctx->input), with those holding a replacement string flagged. */
static bool mark_words(lp_ctx *ctx, lp_word **words, size_t n)
{
	const lp_input *in = ctx->input;
	size_t i = 0;
	while (i < n && !lp_input_flags(in, wval(&(*words)[i])))
		i++;
	if (i == n)
		return true;
	lp_word *out = lp_arena_alloc(ctx->arena, n * sizeof *out);
	if (!out)
		return false;
	for (size_t k = 0; k < n; k++) {
		out[k] = (*words)[k];
		if (!input_word(ctx, in, &out[k]))
			return false;
	}
	*words = out;
	return true;
}

static bool mark_redirects(lp_ctx *ctx, lp_raw_command *r)
{
	const lp_input *in = ctx->input;
	size_t i = 0, n = r->nredirects;
	while (i < n && !lp_input_flags(in, r->redirects[i].target))
		i++;
	if (i == n)
		return true;
	locus_shell_redirect *out = lp_arena_alloc(ctx->arena, n * sizeof *out);
	if (!out)
		return false;
	for (size_t k = 0; k < n; k++) {
		out[k] = r->redirects[k];
		if (!out[k].target || !lp_input_flags(in, out[k].target))
			continue;
		out[k].target = input_value(ctx, in, out[k].target);
		out[k].target_flags |= LOCUS_WORD_DYNAMIC;
		if (!out[k].target)
			return false;
	}
	r->redirects = out;
	return true;
}

bool lp_input_mark(lp_ctx *ctx, lp_raw_command *r)
{
	if (!ctx->input)
		return true;
	if (r->stdin_text && lp_input_flags(ctx->input, r->stdin_text))
		r->stdin_flags |= LOCUS_WORD_DYNAMIC;
	return mark_words(ctx, &r->words, r->nwords) &&
	       mark_words(ctx, &r->assigns, r->nassigns) &&
	       mark_redirects(ctx, r);
}

const char *lp_input_subst(lp_ctx *ctx, const char *prefix, const lp_word *w,
                           size_t from, size_t to)
{
	lp_buf b = {0};
	if (!lp_buf_append(ctx->arena, &b, "$(", 2) ||
	    (prefix && !lp_buf_append(ctx->arena, &b, prefix, strlen(prefix))))
		return NULL;
	for (size_t i = from; i < to; i++) {
		const char *t = w[i].text ? w[i].text : wval(&w[i]);
		if ((i > from || prefix) && !lp_buf_putc(ctx->arena, &b, ' '))
			return NULL;
		if (!lp_buf_append(ctx->arena, &b, t, strlen(t)))
			return NULL;
	}
	if (!lp_buf_putc(ctx->arena, &b, ')'))
		return NULL;
	return lp_buf_cstr(ctx->arena, &b);
}

const char *lp_input_piped(lp_ctx *ctx, const lp_raw_command *raw)
{
	size_t p = raw->stdin_producer;
	if (raw->stdin_kind != LP_STDIN_PIPE || p >= ctx->result->ncommands)
		return NULL;
	const locus_shell_command *c = &ctx->result->commands[p];
	lp_buf b = {0};
	if (!lp_buf_append(ctx->arena, &b, "$(", 2))
		return NULL;
	for (size_t i = 0; i < c->nwords; i++) {
		const char *t = c->words[i] ? c->words[i] : "";
		if ((i && !lp_buf_putc(ctx->arena, &b, ' ')) ||
		    !lp_buf_append(ctx->arena, &b, t, strlen(t)))
			return NULL;
	}
	if (!lp_buf_putc(ctx->arena, &b, ')'))
		return NULL;
	return lp_buf_cstr(ctx->arena, &b);
}
