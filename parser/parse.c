/*
 * parser/parse.c - the parser object, the byte-level gates in front of
 * tree-sitter, and parsing one script (the line or a nested one).
 *
 * Order of the gates: size, NUL, UTF-8, complexity estimate.  Any of them
 * failing gives an unparsed result with zero commands: the labeller then
 * runs its PCRE2 floor on the raw text, which is all one can do with bytes
 * that bash and tree-sitter would read differently.
 */
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "fastpath.h"
#include "ts_patch.h"
#include "../util/clock.h"
#include "../util/utf8.h"

/*
 * Memory caps (docs/design.md, "Memory per input byte").  tree-sitter can
 * use ~3,400 bytes per pipeline stage (~580 bytes per input byte) on a
 * `cat | cat | ...` line; an ordinary script of agent lines about 60.
 * Two caps, both making the line unparsed with their reason:
 *  - LP_MAX_TOKENS, a cheap estimate from the bytes before anything is
 *    parsed: twice the density of real scripts at the size limit (the
 *    bench's 1 MiB of everyday lines has 203,926 tokens);
 *  - LP_MAX_MEMORY, the heap growth of the whole parse through the
 *    allocator hook, tree-sitter's included (util/alloc.h): checked by
 *    tree-sitter's progress callback and with the time budget, so the
 *    worst shapes stop there instead of growing with the input.
 */
#define LP_MAX_TOKENS 400000u
#define LP_MAX_MEMORY ((size_t)96 << 20)

/* The kinds of each class (LP_KIND_*, walk.h). */
static void syms_classes(lp_syms *s)
{
	static const struct {
		uint8_t cls;
		size_t off;
		/* clang-format off */
	} members[] = {
#define S(x) {LP_KIND_STATEMENT, offsetof(lp_syms, x)}
	    S(command), S(pipeline), S(list), S(redirected_statement),
	    S(subshell), S(compound_statement), S(negated_command),
	    S(if_statement), S(while_statement), S(for_statement),
	    S(c_style_for_statement), S(case_statement),
	    S(function_definition), S(declaration_command),
	    S(unset_command), S(test_command), S(variable_assignment),
	    S(variable_assignments), S(do_group), S(elif_clause),
	    S(else_clause), S(case_item), S(program),
#undef S
#define T(x) {LP_KIND_TEST_WORD, offsetof(lp_syms, x)}
	    T(word), T(string), T(raw_string), T(ansi_c_string),
	    T(translated_string), T(number), T(simple_expansion),
	    T(expansion), T(command_substitution), T(process_substitution),
	    T(arithmetic_expansion), T(concatenation), T(regex),
	    T(extglob_pattern), T(test_operator), T(brace_expression),
#undef T
#define Q(x) {LP_KIND_QUOTED, offsetof(lp_syms, x)}
	    Q(string), Q(raw_string), Q(ansi_c_string), Q(translated_string),
	    Q(heredoc_body), Q(heredoc_content), Q(comment),
	    Q(string_content),
#undef Q
	    /* clang-format on */
	};
	memset(s->classes, 0, sizeof s->classes);
	for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
		TSSymbol k =
		    *(const TSSymbol *)((const char *)s + members[i].off);
		s->classes[k] |= members[i].cls;
	}
}

bool lp_syms_init(lp_syms *s, const TSLanguage *lang)
{
	static const struct {
		const char *name;
		size_t off;
		/* clang-format off */
	} kinds[] = {
#define K(x) {#x, offsetof(lp_syms, x)}
	    /* clang-format on */
	    K(program),
	    K(command),
	    K(command_name),
	    K(word),
	    K(string),
	    K(string_content),
	    K(raw_string),
	    K(ansi_c_string),
	    K(translated_string),
	    K(number),
	    K(simple_expansion),
	    K(expansion),
	    K(command_substitution),
	    K(process_substitution),
	    K(arithmetic_expansion),
	    K(brace_expression),
	    K(concatenation),
	    K(variable_name),
	    K(special_variable_name),
	    K(variable_assignment),
	    K(variable_assignments),
	    K(pipeline),
	    K(list),
	    K(redirected_statement),
	    K(subshell),
	    K(compound_statement),
	    K(negated_command),
	    K(if_statement),
	    K(elif_clause),
	    K(else_clause),
	    K(while_statement),
	    K(for_statement),
	    K(c_style_for_statement),
	    K(do_group),
	    K(case_statement),
	    K(case_item),
	    K(function_definition),
	    K(declaration_command),
	    K(unset_command),
	    K(test_command),
	    K(file_redirect),
	    K(heredoc_redirect),
	    K(herestring_redirect),
	    K(heredoc_start),
	    K(heredoc_body),
	    K(heredoc_content),
	    K(heredoc_end),
	    K(file_descriptor),
	    K(comment),
	    K(extglob_pattern),
	    K(regex),
	    K(array),
	    K(subscript),
	    K(test_operator),
	    K(binary_expression),
	    K(postfix_expression),
	    K(unary_expression),
#undef K
	};
	static const struct {
		const char *name;
		size_t off;
		/* clang-format off */
	} fields[] = {
#define F(x) {#x, offsetof(lp_syms, f_##x)}
	    /* clang-format on */
	    F(name),        F(argument),   F(redirect), F(value), F(body),
	    F(destination), F(descriptor), F(operator), F(right), F(variable),
#undef F
	};
	if (ts_language_symbol_count(lang) > LP_SYMS_MAX)
		return false;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		TSSymbol sym = ts_language_symbol_for_name(
		    lang, kinds[i].name, (uint32_t)strlen(kinds[i].name), true);
		if (sym == 0)
			return false;
		*(TSSymbol *)((char *)s + kinds[i].off) = sym;
	}
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		TSFieldId f = ts_language_field_id_for_name(
		    lang, fields[i].name, (uint32_t)strlen(fields[i].name));
		if (f == 0)
			return false;
		*(TSFieldId *)((char *)s + fields[i].off) = f;
	}
	syms_classes(s);
	return true;
}

int locus_shell_parser_new(locus_shell_parser **out,
                           const locus_shell_options *opts)
{
	if (!out)
		return LOCUS_EUSAGE;
	*out = NULL;
	if (opts && opts->version != LOCUS_SHELL_OPTIONS_VERSION)
		return LOCUS_EINVALID;
	locus_shell_parser *p = calloc(1, sizeof *p);
	lp_syms *sy = calloc(1, sizeof *sy);
	locus__alloc_failed_reset(); /* util/alloc.h */
	TSParser *ts = ts_parser_new();
	if (!p || !sy || !ts) {
		free(p);
		free(sy);
		if (ts)
			ts_parser_delete(ts);
		return LOCUS_ENOMEM;
	}
	const TSLanguage *lang = tree_sitter_bash();
	if (!ts_parser_set_language(ts, lang) || locus__alloc_failed()) {
		free(p);
		free(sy);
		ts_parser_delete(ts);
		return locus__alloc_failed() ? LOCUS_ENOMEM : LOCUS_EINVALID;
	}
	p->ts = ts;
	p->syms = sy;
	if (opts)
		p->opts = *opts;
	if (!p->opts.max_bytes)
		p->opts.max_bytes = LOCUS_SHELL_DEFAULT_MAX_BYTES;
	if (!p->opts.max_depth)
		p->opts.max_depth = LOCUS_SHELL_DEFAULT_MAX_DEPTH;
	if (!p->opts.budget_ms)
		p->opts.budget_ms = LOCUS_SHELL_DEFAULT_BUDGET_MS;
	if (!p->opts.max_commands)
		p->opts.max_commands = LOCUS_SHELL_DEFAULT_MAX_COMMANDS;
	if (lp_fastpath_env_off())
		p->opts.flags |= LOCUS_SHELL_NO_FASTPATH;
	/* The see-through side's pattern table; it copes with NULL, but a
	   parser made under a failed allocation is not made (alloc.h). */
	p->inline_table = lp_inline_table_new();
	p->pool = lp_pool_new();
	if (!p->inline_table || !p->pool) {
		locus_shell_parser_free(p);
		return LOCUS_ENOMEM;
	}
	*out = p;
	return 0;
}

void locus_shell_parser_free(locus_shell_parser *p)
{
	if (!p)
		return;
	if (p->ts)
		ts_parser_delete(p->ts);
	free(p->syms);
	lp_inline_table_free(p->inline_table);
	lp_pool_close(p->pool); /* results still alive keep it (pool.c) */
	lp_spare_free(p);
	if (p->above && p->above_free)
		p->above_free(p->above);
	free(p);
}

/* ---- byte gates --------------------------------------------------------- */

/* An operator byte of the token estimate (NUL too, as the strchr over
   this set it replaces counted it: a call per byte cost more than the
   count). */
static bool operator_byte(unsigned char c)
{
	switch (c) {
	case ';':
	case '|':
	case '&':
	case '(':
	case ')':
	case '<':
	case '>':
	case '`':
	case '$':
	case '"':
	case '\'':
	case '{':
	case '}':
	case '[':
	case ']':
	case '=':
	case '\0': return true;
	default: return false;
	}
}

/* A cheap upper-bound-ish count of the tokens tree-sitter will make:
   every run of word bytes and every operator byte is one. */
static size_t estimate_tokens(const char *s, size_t len)
{
	size_t n = 0;
	bool in_word = false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == ' ' || c == '\t' || c == '\n') {
			in_word = false;
		} else if (operator_byte(c)) {
			in_word = false;
			n++;
		} else if (!in_word) {
			in_word = true;
			n++;
		}
	}
	return n;
}

/* ---- time and memory ---------------------------------------------------- */

static void over_memory(lp_ctx *ctx)
{
	lp_unparsed(ctx, "the analysis needs more than %zu MiB of memory",
	            LP_MAX_MEMORY >> 20);
}

bool lp_out_of_time(lp_ctx *ctx)
{
	if (ctx->timed_out)
		return true;
	if (ctx->arena->failed || locus__mem_over()) {
		over_memory(ctx);
		ctx->timed_out = true; /* stop every walk */
		return true;
	}
	/* the clock every 256 steps, the first time after 256 (the parse
	   read it when it began: a clock read per line cost 0.2% of CPU) */
	if ((++ctx->steps & 255u) != 0)
		return false;
	if (lu_deadline_passed(&ctx->deadline)) {
		ctx->timed_out = true;
		lp_unparsed_budget(ctx);
		return true;
	}
	return false;
}

static bool progress_cb(TSParseState *st)
{
	lp_ctx *ctx = st->payload;
	return locus__mem_over() || lu_deadline_passed(&ctx->deadline) ||
	       locus_ts_merge_overflowed(false);
}

typedef struct ts_text {
	const char *s;
	size_t n;
} ts_text;

static const char *ts_read(void *payload, uint32_t byte, TSPoint pt,
                           uint32_t *bytes_read)
{
	(void)pt;
	const ts_text *in = payload;
	if (byte >= in->n) {
		*bytes_read = 0;
		return "";
	}
	*bytes_read = (uint32_t)(in->n - byte);
	return in->s + byte;
}

/* ---- parse one script ---------------------------------------------------- */

/* tree-sitter over src, under the deadline; NULL (the line unparsed) when
   cancelled. */
static TSTree *ts_parse(lp_ctx *ctx, const char *src, size_t len)
{
	TSParser *ts = ctx->parser->ts;
	ts_text in = {src, len};
	TSInput input = {
	    .payload = &in, .read = ts_read, .encoding = TSInputEncodingUTF8};
	TSParseOptions po = {.payload = ctx, .progress_callback = progress_cb};
	(void)locus_ts_merge_overflowed(true);
	TSTree *tree = ts_parser_parse_with_options(ts, NULL, input, po);
	if (locus_ts_merge_overflowed(true)) {
		/* A stack merge stopped at its bound (parser/ts_patch.py):
		   the parse was cancelled at its next progress check, or
		   ended on a stack cut short; no tree of it is read. */
		if (tree)
			ts_tree_delete(tree);
		ts_parser_reset(ts);
		lp_unparsed(ctx, "the parser's stack merges exceeded their "
		                 "bound (an ambiguous syntax error)");
		return NULL;
	}
	if (!tree) {
		/* Cancelled by the deadline or the memory budget. */
		ts_parser_reset(ts);
		if (!lp_out_of_time(ctx)) {
			ctx->timed_out = true;
			lp_unparsed_budget(ctx);
		}
	}
	return tree;
}

/* A tree with an error may be POSIX `for NAME do` (posix_for.c): parse the
   rewritten copy, and keep it (and its text) when it checks out. */
enum { POSIX_FOR_MAX = 64 };
static void posix_for(lp_tree *t, TSTree **tree, TSNode *root)
{
	if (!strstr(t->src, "do"))
		return;
	char *copy = lp_arena_strndup(t->ctx->arena, t->src, t->len);
	uint32_t offs[POSIX_FOR_MAX];
	size_t n =
	    copy ? lp_posix_for_rewrite(copy, t->len, offs, POSIX_FOR_MAX) : 0;
	if (!n)
		return;
	TSTree *again = ts_parse(t->ctx, copy, t->len);
	if (!again)
		return;
	TSNode r = ts_tree_root_node(again);
	if (!lp_posix_for_verify(t->sy, r, offs, n)) {
		ts_tree_delete(again);
		return;
	}
	ts_tree_delete(*tree);
	*tree = again;
	*root = r;
	t->src = copy;
}

void lp_walk_text(lp_ctx *ctx, const char *text, size_t len, bool top,
                  const char *origin, size_t parent, unsigned depth)
{
	if (lp_out_of_time(ctx))
		return;
	if (len >= UINT32_MAX) {
		lp_unparsed(ctx, "script too large");
		return;
	}
	lp_tree t;
	memset(&t, 0, sizeof t);
	t.ctx = ctx;
	t.sy = ctx->parser->syms;
	t.top = top;
	if (top) {
		t.src = text;
		t.len = len;
	} else {
		t.src = lp_arena_strndup(ctx->arena, text, len);
		if (!t.src)
			return;
		t.len = len;
		if (parent != LOCUS_SHELL_NO_PARENT &&
		    parent < ctx->result->ncommands) {
			t.range_start = ctx->result->commands[parent].start;
			t.range_end = ctx->result->commands[parent].end;
		} else {
			t.range_start = 0;
			t.range_end = ctx->result->source_len;
		}
		/* Nested scripts go through the same byte gates. */
		if (memchr(text, '\0', len)) {
			lp_unparsed(ctx, "nested script holds a NUL byte");
			return;
		}
		if (lu_utf8_invalid_at(text, len) != len) {
			lp_unparsed(ctx, "nested script is not valid UTF-8");
			return;
		}
	}
	/* at most one token a byte: a shorter text cannot be over the cap
	   (the count is read only for long texts) */
	if (len > LP_MAX_TOKENS && estimate_tokens(text, len) > LP_MAX_TOKENS) {
		lp_unparsed(ctx,
		            "input too complex to analyze (more than %u "
		            "tokens)",
		            LP_MAX_TOKENS);
		return;
	}
	/* Plain words, | && || ; and simple quotes: no tree (fastpath.c). */
	if (lp_fastpath_walk(&t, origin, parent, depth))
		return;

	/* The node kinds are looked up on the first line tree-sitter parses,
	   not when the parser is made: their lookup (57 kinds, each a scan of
	   the grammar's 280 symbols) was 43 % of a one-line `locus classify`'s
	   instructions, and the fast path's lines never need it.  A grammar
	   without a kind locus needs makes every such line unparsed. */
	if (!ctx->parser->syms_ready) {
		if (!lp_syms_init(ctx->parser->syms, tree_sitter_bash())) {
			lp_unparsed(ctx, "the bash grammar lacks a node kind "
			                 "locus needs");
			return;
		}
		ctx->parser->syms_ready = true;
	}

	TSTree *tree = ts_parse(ctx, t.src, t.len);
	if (!tree)
		return;
	TSNode root = ts_tree_root_node(tree);
	if (ts_node_has_error(root))
		posix_for(&t, &tree, &root);
	lp_vars *saved_vars = ctx->vars;
	/* Constants only matter to expansions, and every expansion starts
	   with `$`: most lines have none and skip them, unless they may
	   assign a name that changes what runs (vars.c sensitive_names; the
	   constants visitor finds every way to assign it). */
	/* Arithmetic ((, [ subscripts and let read names too (arith.c). */
	bool arith = strstr(t.src, "((") || memchr(t.src, '[', t.len) ||
	             strstr(t.src, "let") || strstr(t.src, "-i");
	bool constants = memchr(t.src, '$', t.len) || arith ||
	                 lp_mentions_sensitive(t.src, t.len);
	/* checks, constants, arithmetic: one pass (treepass.c) */
	lp_tree_pass(&t, root, constants);
	ctx->vars = t.vars;
	lp_walk_tree(&t, root, origin, parent, depth);
	ctx->vars = saved_vars;
	free(t.funcs);
	ts_tree_delete(tree);
}

bool lp_depth_ok(lp_ctx *ctx, unsigned depth)
{
	if (depth <= ctx->opts.max_depth)
		return true;
	lp_unparsed(ctx, "nesting deeper than %u", ctx->opts.max_depth);
	return false;
}

void lp_parse_nested(lp_ctx *ctx, const char *text, size_t len,
                     const char *origin, size_t parent, unsigned depth)
{
	if (!lp_depth_ok(ctx, depth))
		return;
	if (!text)
		return;
	lp_walk_text(ctx, text, len, false, origin ? origin : "", parent,
	             depth);
}

static locus_shell_result *parse_line(locus_shell_parser *p, const char *line,
                                      size_t len);

locus_shell_result *locus_shell_parser_parse(locus_shell_parser *p,
                                             const char *line, size_t len)
{
	if (!p)
		return NULL;
	if (!line)
		len = 0;
	locus__alloc_failed_reset(); /* any failure below: NULL (util/alloc.h) */
	locus__mem_budget_start(LP_MAX_MEMORY);
	locus_shell_result *r = parse_line(p, line, len);
	locus__mem_budget_stop();
	return r;
}

/* locus_shell_parser_parse under its memory budget. */
static locus_shell_result *parse_line(locus_shell_parser *p, const char *line,
                                      size_t len)
{
	lp_arena arena;
	lp_arena_init_pooled(&arena, p->pool);
	locus_shell_result *r = lp_arena_alloc(&arena, sizeof *r);
	if (!r) {
		lp_arena_release(&arena);
		return NULL;
	}
	r->arena = arena;
	r->source = lp_arena_strndup(&r->arena, line ? line : "", len);
	if (!r->source) {
		lp_arena a = r->arena;
		lp_arena_release(&a);
		return NULL;
	}
	r->source_len = len;
	r->parsed = true;

	lp_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.parser = p;
	ctx.result = r;
	ctx.arena = &r->arena;
	ctx.opts = p->opts;
	lu_deadline_ms(&ctx.deadline, ctx.opts.budget_ms);
	r->deadline = ctx.deadline;

	size_t bad;
	if (len > ctx.opts.max_bytes)
		lp_unparsed(&ctx, "input is larger than %zu bytes",
		            ctx.opts.max_bytes);
	else if (memchr(r->source, '\0', len))
		lp_unparsed(&ctx, "input holds a NUL byte");
	else if ((bad = lu_utf8_invalid_at(r->source, len)) != len)
		lp_unparsed(&ctx, "input is not valid UTF-8 (byte %zu)", bad);
	else {
		lp_walk_text(&ctx, r->source, len, true, LOCUS_ORIGIN_TOP,
		             LOCUS_SHELL_NO_PARENT, 0);
		lp_checks_reeval(&ctx);
		lp_checks_source(&ctx);
		lp_checks_env(&ctx);
		lp_checks_written(&ctx);
		lp_checks_shell_input(&ctx);
	}
	if (locus__mem_over())
		over_memory(&ctx); /* past the last check */

	if (r->arena.failed || locus__alloc_failed()) {
		lp_result_free_commands(r);
		lp_arena a = r->arena;
		lp_arena_release(&a);
		return NULL;
	}
	return r;
}

locus_shell_result *locus_shell_parse(const char *line, size_t len,
                                      const locus_shell_options *opts)
{
	locus_shell_parser *p;
	if (locus_shell_parser_new(&p, opts))
		return NULL;
	locus_shell_result *r = locus_shell_parser_parse(p, line, len);
	locus_shell_parser_free(p);
	return r;
}
