/*
 * parser/result.c - the public accessors of locus_shell_result, and the
 * one place commands are appended to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../knowledge/programs.h"
#include "../util/array.h"
#include "../util/clock.h"

void lp_result_free_commands(locus_shell_result *r)
{
	if (r->commands_in_arena)
		return;
	free(r->commands);
	free(r->producers);
	free(r->programs);
}

void locus_shell_result_free(locus_shell_result *r)
{
	if (!r)
		return;
	/* past its first few, the command array is heap memory: it grows
	   without leaving abandoned copies in the arena */
	lp_result_free_commands(r);
	lp_arena arena = r->arena; /* the result itself lives in its arena */
	lp_arena_release(&arena);
}

bool locus_shell_result_parsed(const locus_shell_result *r)
{
	return r && r->parsed;
}

const char *locus_shell_result_reason(const locus_shell_result *r)
{
	return r && !r->parsed ? r->reason : NULL;
}

const char *locus_shell_result_source(const locus_shell_result *r, size_t *len)
{
	if (len)
		*len = r ? r->source_len : 0;
	return r ? r->source : NULL;
}

size_t locus_shell_result_count(const locus_shell_result *r)
{
	return r ? r->ncommands : 0;
}

const locus_shell_command *
locus_shell_result_command(const locus_shell_result *r, size_t i)
{
	if (!r || i >= r->ncommands)
		return NULL;
	return &r->commands[i];
}

bool locus_shell_result_has_substitution(const locus_shell_result *r)
{
	return r && r->has_substitution;
}

bool locus_shell_result_has_background(const locus_shell_result *r)
{
	return r && r->has_background;
}

bool locus_shell_result_has_fork_bomb(const locus_shell_result *r)
{
	return r && r->has_fork_bomb;
}

bool locus_shell_result_expired(const locus_shell_result *r)
{
	if (!r)
		return true;
	/* a result built by hand (tests) has no deadline */
	if (r->deadline.tv_sec == 0 && r->deadline.tv_nsec == 0)
		return false;
	return lu_deadline_passed(&r->deadline);
}

void lp_unparsed(lp_ctx *ctx, const char *fmt, ...)
{
	locus_shell_result *r = ctx->result;
	if (!r->parsed)
		return;
	r->parsed = false;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	r->reason = lp_arena_strdup(ctx->arena, buf);
	if (!r->reason)
		r->reason = "out of memory";
}

void lp_unparsed_budget(lp_ctx *ctx)
{
	locus_shell_result *r = ctx->result;
	if (r->parsed) {
		lp_unparsed(ctx, "parsing exceeded its time budget of %u ms",
		            ctx->opts.budget_ms);
		return;
	}
	/* an earlier reason is kept, and the budget said after it: what
	   follows the first reason was cut short (fewer commands), and
	   whoever reads the verdict must be able to tell */
	char buf[600];
	snprintf(buf, sizeof buf,
	         "%.400s; then parsing exceeded its time budget of %u ms",
	         r->reason ? r->reason : "", ctx->opts.budget_ms);
	const char *s = lp_arena_strdup(ctx->arena, buf);
	if (s)
		r->reason = s;
}

/* Room for one more command: the first LP_FIRST_COMMANDS in the arena
   (no malloc for most lines), then heap arrays that grow together
   (util/array.h's policy).  False when memory runs out (the result is
   then NULL). */
static bool grow_commands(lp_ctx *ctx, locus_shell_result *r)
{
	if (r->cap == 0) {
		/* written before read: not zeroed (arena.c) */
		r->commands = lp_arena_alloc_raw(
		    ctx->arena, LP_FIRST_COMMANDS * sizeof *r->commands);
		r->producers = lp_arena_alloc_raw(
		    ctx->arena, LP_FIRST_COMMANDS * sizeof *r->producers);
		r->programs = lp_arena_alloc_raw(
		    ctx->arena, LP_FIRST_COMMANDS * sizeof *r->programs);
		if (!r->commands || !r->producers || !r->programs) {
			r->commands = NULL;
			r->producers = NULL;
			r->programs = NULL;
			return false; /* ctx->arena->failed is set */
		}
		r->commands_in_arena = true;
		r->cap = LP_FIRST_COMMANDS;
		return true;
	}
	size_t cap =
	    lu_grow_capacity(r->cap, r->ncommands + 1, 16,
	                     sizeof(locus_shell_command) + sizeof(size_t) +
	                         sizeof(const lk_program *));
	if (!cap) {
		ctx->arena->failed = true;
		return false;
	}
	if (r->commands_in_arena) {
		locus_shell_command *c = malloc(cap * sizeof *c);
		size_t *pr = c ? malloc(cap * sizeof *pr) : NULL;
		const lk_program **pg = pr ? malloc(cap * sizeof *pg) : NULL;
		if (!pg) {
			free(c);
			free(pr);
			ctx->arena->failed = true;
			return false;
		}
		memcpy(c, r->commands, r->ncommands * sizeof *c);
		memcpy(pr, r->producers, r->ncommands * sizeof *pr);
		memcpy(pg, r->programs, r->ncommands * sizeof *pg);
		r->commands = c;
		r->producers = pr;
		r->programs = pg;
		r->commands_in_arena = false;
		r->cap = cap;
		return true;
	}
	locus_shell_command *c = realloc(r->commands, cap * sizeof *c);
	if (c)
		r->commands = c;
	size_t *pr = c ? realloc(r->producers, cap * sizeof *pr) : NULL;
	if (pr)
		r->producers = pr;
	const lk_program **pg =
	    pr ? realloc(r->programs, cap * sizeof *pg) : NULL;
	if (pg)
		r->programs = pg;
	if (!c || !pr || !pg) {
		ctx->arena->failed = true; /* the result is NULL */
		return false;
	}
	r->cap = cap;
	return true;
}

size_t lp_push_command(lp_ctx *ctx, const locus_shell_command *cmd)
{
	locus_shell_result *r = ctx->result;
	if (r->ncommands >= ctx->opts.max_commands) {
		lp_unparsed(ctx, "more than %zu commands",
		            ctx->opts.max_commands);
		return LOCUS_SHELL_NO_PARENT;
	}
	if (r->ncommands == r->cap && !grow_commands(ctx, r))
		return LOCUS_SHELL_NO_PARENT;
	r->commands[r->ncommands] = *cmd;
	r->producers[r->ncommands] = LOCUS_SHELL_NO_PARENT;
	r->programs[r->ncommands] = lk_program_find(cmd->name);
	return r->ncommands++;
}

const lk_program *lp_command_program(const locus_shell_result *r, size_t i)
{
	if (!r || i >= r->ncommands)
		return NULL;
	return r->programs ? r->programs[i]
	                   : lk_program_find(r->commands[i].name);
}

size_t lp_producer(const lp_ctx *ctx, size_t idx)
{
	const locus_shell_result *r = ctx->result;
	return idx < r->ncommands ? r->producers[idx] : LOCUS_SHELL_NO_PARENT;
}

/* Basename as the spec defines `name`: /usr/bin/rm -> rm. */
static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');
	return slash ? slash + 1 : s;
}

size_t lp_push_raw(lp_ctx *ctx, const lp_raw_command *raw, size_t first_argv,
                   size_t nwrappers, const char *const *wrappers)
{
	lp_arena *a = ctx->arena;
	locus_shell_command c;
	memset(&c, 0, sizeof c);

	size_t argc = first_argv <= raw->nwords ? raw->nwords - first_argv : 0;
	/* every element is written below, the terminators too (the zeroing
	   rule, arena.c) */
	const char **argv = lp_arena_alloc_raw(a, (argc + 1) * sizeof *argv);
	uint32_t *aflags = lp_arena_alloc_raw(a, (argc + 1) * sizeof *aflags);
	const char **words = lp_arena_alloc_raw(
	    a, (raw->nassigns + raw->nwords + 1) * sizeof *words);
	/* most commands have no assignments and no wrappers: one shared
	   empty list (the public arrays are const) */
	static const char *const none[1] = {NULL};
	const char **assigns =
	    raw->nassigns
	        ? lp_arena_alloc_raw(a, (raw->nassigns + 1) * sizeof *assigns)
	        : NULL;
	const char **wr =
	    nwrappers ? lp_arena_alloc_raw(a, (nwrappers + 1) * sizeof *wr)
	              : NULL;
	if (!argv || !aflags || !words || (raw->nassigns && !assigns) ||
	    (nwrappers && !wr))
		return LOCUS_SHELL_NO_PARENT;

	uint32_t flags = raw->flags;
	for (size_t i = 0; i < argc; i++) {
		const lp_word *w = &raw->words[first_argv + i];
		argv[i] = w->value ? w->value : "";
		aflags[i] = w->flags;
		if (i > 0 && lp_word_may_be_option(w))
			aflags[i] |= LOCUS_WORD_MAY_BE_OPTION;
		if (i > 0 && (w->flags & (LOCUS_WORD_GLOB | LOCUS_WORD_BRACE)))
			flags |= LOCUS_CMD_GLOB_ARGS;
		if (w->flags & LOCUS_WORD_DYNAMIC)
			flags |=
			    i == 0 ? LOCUS_CMD_DYNAMIC : LOCUS_CMD_DYNAMIC_ARGS;
		if (w->flags & LOCUS_WORD_SUBST)
			flags |= LOCUS_CMD_SUBST;
	}
	argv[argc] = NULL;
	aflags[argc] = 0;
	size_t nw = 0;
	for (size_t i = 0; i < raw->nassigns; i++) {
		words[nw++] = raw->assigns[i].text ? raw->assigns[i].text : "";
		assigns[i] = raw->assigns[i].value ? raw->assigns[i].value : "";
		if (raw->assigns[i].flags & LOCUS_WORD_DYNAMIC)
			flags |= LOCUS_CMD_DYNAMIC_ARGS;
		if (raw->assigns[i].flags & LOCUS_WORD_SUBST)
			flags |= LOCUS_CMD_SUBST;
	}
	if (assigns)
		assigns[raw->nassigns] = NULL;
	for (size_t i = 0; i < raw->nwords; i++)
		words[nw++] = raw->words[i].text ? raw->words[i].text : "";
	words[nw] = NULL;
	for (size_t i = 0; i < raw->nredirects; i++) {
		if (raw->redirects[i].target_flags & LOCUS_WORD_DYNAMIC)
			flags |= LOCUS_CMD_DYNAMIC_ARGS;
		if (raw->redirects[i].target_flags & LOCUS_WORD_SUBST)
			flags |= LOCUS_CMD_SUBST;
	}
	for (size_t i = 0; i < nwrappers; i++)
		wr[i] = wrappers[i];
	if (wr)
		wr[nwrappers] = NULL;

	c.argc = argc;
	c.argv = argv;
	c.argv_flags = aflags;
	c.name = argc ? base_name(argv[0]) : "";
	c.nwords = nw;
	c.words = words;
	c.nwrappers = nwrappers;
	c.wrappers = wr ? wr : none;
	c.nassignments = raw->nassigns;
	c.assignments = assigns ? assigns : none;
	c.nredirects = raw->nredirects;
	c.redirects = raw->redirects;
	c.connector = raw->connector ? raw->connector : "";
	c.pipeline = raw->pipeline;
	c.origin = raw->origin ? raw->origin : "";
	c.parent = raw->parent;
	c.depth = raw->depth;
	c.function_name = raw->function_name;
	c.flags = flags;
	c.start = raw->start;
	c.end = raw->end;
	if (flags & LOCUS_CMD_SUBST)
		ctx->result->has_substitution = true;
	if (flags & LOCUS_CMD_BACKGROUND)
		ctx->result->has_background = true;
	size_t idx = lp_push_command(ctx, &c);
	if (idx != LOCUS_SHELL_NO_PARENT && raw->stdin_kind == LP_STDIN_PIPE)
		ctx->result->producers[idx] = raw->stdin_producer;
	return idx;
}
