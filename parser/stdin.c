/*
 * parser/stdin.c - line facts of the see-through side: the text that
 * feeds a command's stdin (a heredoc, a herestring, an echo/printf/cat
 * upstream), what a command prints (lp_command_output), and the paths that
 * name stdin itself.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "seethrough.h"

/* ---- what feeds stdin ------------------------------------------------ */

/* echo's output when it is literal, else NULL (sets *decoded when -e
   would interpret escapes). */
static const char *echo_text(lp_ctx *ctx, const locus_shell_command *c,
                             bool *decoded)
{
	size_t i = 1;
	bool e = false, nl = true;
	for (; i < c->argc; i++) {
		const char *v = c->argv[i];
		if (v[0] != '-' || !v[1] ||
		    strspn(v + 1, "neE") != strlen(v + 1))
			break;
		for (const char *p = v + 1; *p; p++) {
			if (*p == 'n')
				nl = false;
			else if (*p == 'e')
				e = true;
			else
				e = false;
		}
	}
	lp_buf b = {0};
	for (size_t k = i; k < c->argc; k++) {
		const char *v = c->argv[k];
		if (e && strchr(v, '\\')) {
			*decoded = true;
			return NULL;
		}
		if (k > i && !lp_buf_putc(ctx->arena, &b, ' '))
			return NULL;
		if (!lp_buf_append(ctx->arena, &b, v, strlen(v)))
			return NULL;
	}
	if (nl && !lp_buf_putc(ctx->arena, &b, '\n'))
		return NULL;
	return lp_buf_cstr(ctx->arena, &b);
}

/* printf's output when its format has no escape and uses only %s and
   %%; anything else decodes (NULL, *decoded set). */
static const char *printf_text(lp_ctx *ctx, const locus_shell_command *c,
                               bool *decoded)
{
	size_t i = 1;
	if (i < c->argc && lu_streq(c->argv[i], "--"))
		i++;
	if (i >= c->argc || c->argv[i][0] == '-') {
		*decoded = true; /* printf -v VAR prints nothing we can see */
		return NULL;
	}
	const char *fmt = c->argv[i++];
	lp_buf b = {0};
	do {
		bool used = false;
		for (const char *p = fmt; *p; p++) {
			char ch = *p;
			if (ch == '\\') {
				/* an escape is decoding (spec: printf with
				   escapes is a decoder) */
				*decoded = true;
				return NULL;
			} else if (ch == '%') {
				p++;
				if (*p == '%') {
					ch = '%';
				} else if (*p == 's') {
					used = true;
					const char *arg =
					    i < c->argc ? c->argv[i++] : "";
					if (!lp_buf_append(ctx->arena, &b, arg,
					                   strlen(arg)))
						return NULL;
					continue;
				} else {
					*decoded = true;
					return NULL;
				}
			}
			if (!lp_buf_putc(ctx->arena, &b, ch))
				return NULL;
			if (b.len > ((size_t)1 << 20)) {
				*decoded = true;
				return NULL;
			}
		}
		if (!used)
			break;
	} while (i < c->argc);
	return lp_buf_cstr(ctx->arena, &b);
}

/* The heredoc or herestring on stdin of a command, or NULL. */
static const char *stdin_doc(const locus_shell_command *c, bool *dynamic)
{
	const char *text = NULL;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *r = &c->redirects[i];
		if (r->fd > 0 || !r->op || strncmp(r->op, "<<", 2))
			continue;
		text = r->target ? r->target : "";
		*dynamic = (r->target_flags & LOCUS_WORD_DYNAMIC) != 0;
	}
	return text;
}

/* cat's output when it only copies a heredoc or herestring. */
static const char *cat_text(const locus_shell_command *c, bool *dynamic)
{
	for (size_t i = 1; i < c->argc; i++)
		if (strcmp(c->argv[i], "-"))
			return NULL;
	return stdin_doc(c, dynamic);
}

static bool any_dynamic_arg(const locus_shell_command *c)
{
	for (size_t i = 1; i < c->argc; i++)
		if (c->argv_flags[i] & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_GLOB))
			return true;
	return false;
}

const char *lp_stdin_text(lp_ctx *ctx, const lp_raw_command *raw,
                          const char *what)
{
	switch (raw->stdin_kind) {
	case LP_STDIN_HEREDOC:
	case LP_STDIN_HERESTRING:
		if (raw->stdin_flags & LOCUS_WORD_DYNAMIC)
			lp_unparsed(ctx,
			            "%s runs a %s whose text is only known "
			            "at run time",
			            what,
			            raw->stdin_kind == LP_STDIN_HEREDOC
			                ? "heredoc"
			                : "herestring");
		return raw->stdin_text ? raw->stdin_text : "";
	case LP_STDIN_PIPE: break;
	default: return NULL;
	}
	size_t p = raw->stdin_producer;
	if (p == LOCUS_SHELL_NO_PARENT || p >= ctx->result->ncommands) {
		lp_unparsed(ctx, "%s runs the output of a compound command",
		            what);
		return NULL;
	}
	return lp_output_or_unparsed(ctx, p, what);
}

const char *lp_output_or_unparsed(lp_ctx *ctx, size_t p, const char *what)
{
	const locus_shell_command *c = &ctx->result->commands[p];
	const char *name = c->name ? c->name : "";
	bool dyn = false;
	lp_output out;
	const char *text = lp_command_output(ctx, p, &out, &dyn);
	if (out == LP_OUT_DOWNLOAD)
		return NULL; /* remote code: the labels tag it */
	if (out == LP_OUT_DECODED) {
		lp_unparsed(ctx, "%s runs decoded input (%s)", what, name);
		return NULL;
	}
	if (!text) {
		lp_unparsed(ctx, "%s runs the output of %s", what,
		            *name ? name : "a command");
		return NULL;
	}
	if (dyn)
		lp_unparsed(ctx,
		            "%s runs a heredoc whose text is only known "
		            "at run time",
		            what);
	return text;
}


#define OUTPUT_DEPTH 8

static const char *output_depth(lp_ctx *ctx, size_t idx, lp_output *out,
                                bool *dyn, unsigned depth)
{
	*out = LP_OUT_UNKNOWN;
	if (idx >= ctx->result->ncommands || depth > OUTPUT_DEPTH)
		return NULL;
	const locus_shell_command *c = &ctx->result->commands[idx];
	const char *name = c->name ? c->name : "";
	uint32_t cls = lk_classes(name);
	/* a socket read by cat is left unknown: the line is unparsed (and
	   the labeller still sees the network and the floor) */
	if (cls & LK_DOWNLOADER) {
		*out = LP_OUT_DOWNLOAD;
		return NULL;
	}
	bool decoded = false;
	const char *text = NULL;
	if (lu_streq(name, "echo") && !any_dynamic_arg(c))
		text = echo_text(ctx, c, &decoded);
	else if (lu_streq(name, "printf") && !any_dynamic_arg(c))
		text = printf_text(ctx, c, &decoded);
	else if (lu_streq(name, "cat"))
		text = cat_text(c, dyn);
	else if (cls & LK_WRITES_ARGS) {
		/* tee copies its input */
		text = stdin_doc(c, dyn);
		if (!text && (c->flags & LOCUS_CMD_PIPED_IN))
			return output_depth(ctx, lp_producer(ctx, idx), out,
			                    dyn, depth + 1);
	} else if (cls & LK_DECODER)
		decoded = true;
	if (decoded) {
		*out = LP_OUT_DECODED;
		return NULL;
	}
	if (text)
		*out = LP_OUT_TEXT;
	return text;
}

const char *lp_command_output(lp_ctx *ctx, size_t idx, lp_output *out,
                              bool *dyn)
{
	*dyn = false;
	return output_depth(ctx, idx, out, dyn, 0);
}

/* Paths that name the process's own stdin: a script operand that is one
   of them makes a shell or interpreter read its program from stdin. */
/* clang-format off */
const char *const lp_stdin_paths[] = {
	"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/dev/fd/00",
	NULL,
};
/* clang-format on */

bool lp_is_stdin_word(const lp_word *w)
{
	return w && !wdyn(w) && lp_in_list(lp_stdin_paths, wval(w));
}

const char *lp_program_file_unseen(const lp_word *w)
{
	if (!w)
		return NULL;
	const char *v = wval(w), *t = w->text ? w->text : v;
	if (!strncmp(t, "<(", 2) || !strncmp(t, ">(", 2))
		return "a process substitution (another command's output)";
	if (wdyn(w) || (w->flags & LOCUS_WORD_SUBST))
		return "a path only known at run time";
	if (!strncmp(v, "/dev/fd/", 8) || !strncmp(v, "/proc/", 6))
		return "a descriptor the line feeds";
	return NULL;
}

/* A `< <(...)` redirect of stdin: the script is another command's
   output. */
bool lp_stdin_procsub(const lp_raw_command *raw)
{
	for (size_t i = 0; i < raw->nredirects; i++) {
		const locus_shell_redirect *r = &raw->redirects[i];
		if (!r->op || strcmp(r->op, "<") || r->fd > 0)
			continue;
		const char *t = r->target ? r->target : "";
		if ((r->target_flags & LOCUS_WORD_SUBST) ||
		    !strncmp(t, "<(", 2) || !strncmp(t, ">(", 2))
			return true;
	}
	return false;
}

/* c reads a stdin of its own: a pipe, a heredoc or herestring, a `<`
   redirect (not `<&`, a duplicate of another descriptor). */
static bool own_stdin(const locus_shell_command *c)
{
	if (c->flags & (LOCUS_CMD_PIPED_IN | LOCUS_CMD_STDIN_SCRIPT))
		return true;
	for (size_t k = 0; k < c->nredirects; k++) {
		const locus_shell_redirect *r = &c->redirects[k];
		if (r->op && r->op[0] == '<' && strcmp(r->op, "<&") != 0 &&
		    strcmp(r->op, "<>") != 0 && (r->fd == -1 || r->fd == 0))
			return true;
	}
	return false;
}

bool lp_stdin_from_program(const locus_shell_result *r, size_t i)
{
	/* the chain is at most the see-through depth long */
	for (unsigned hops = 0; hops < 64; hops++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		if (!c || own_stdin(c))
			return false;
		const char *o = c->origin ? c->origin : "";
		if (!strcmp(o, LOCUS_ORIGIN_OPTION) ||
		    !strcmp(o, LOCUS_ORIGIN_ENVIRONMENT))
			return true;
		if ((strcmp(o, LOCUS_ORIGIN_SHELL_C) &&
		     strcmp(o, LOCUS_ORIGIN_WRAPPER_SCRIPT) &&
		     strcmp(o, LOCUS_ORIGIN_EVAL)) ||
		    c->parent == LOCUS_SHELL_NO_PARENT)
			return false;
		i = c->parent;
	}
	return true; /* deeper than any parse: fail closed */
}
