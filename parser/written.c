/*
 * parser/written.c - files the line writes, then runs.
 *
 * `echo 'rm -rf /' > x.sh; sh x.sh`, `cat > Makefile <<E ... E; make`,
 * `printf ... | tee run; chmod +x run; ./run`, `cp a.sh b; . b`: a later
 * command runs text the line itself wrote.  After the walk, every command
 * that runs a file (parser/linefacts.c: its argv[0], a shell's or
 * interpreter's script, source, make's makefile, git's config) is matched
 * against the files the line writes.  When the written text is static it
 * is parsed as that runner's input (origin written-script; every write of
 * the file on its own, as any of them may be what runs); when it is
 * not (an unknown program's output, sed -i, an archive) the line is
 * unparsed.  A downloaded file is left parsed: the labeller calls it
 * remote code.  Commands parsed here are checked in turn (a written
 * script may write and run another), within the depth limit.
 */
#include <string.h>

#include "seethrough.h"
#include "linefacts.h"

/* The text a write put in the file, or NULL (line marked unparsed). */
static const char *write_text(lp_ctx *ctx, const lk_write *w, const char *path)
{
	lp_output out;
	bool dyn = false;
	const char *text = NULL;
	if (w->content == LK_CONTENT_STDOUT)
		text = lp_command_output(ctx, w->by, &out, &dyn);
	if (!text) {
		lp_unparsed(ctx,
		            "%s is run after being written earlier on the "
		            "line with text not known statically",
		            path);
		return NULL;
	}
	if (dyn) {
		lp_unparsed(ctx,
		            "%s is run after being written with a heredoc "
		            "only known at run time",
		            path);
		return NULL;
	}
	return text;
}

/* The interpreter named by a #! line ("#!/usr/bin/env python3" ->
   python3), into buf; NULL when there is none. */
static const char *shebang(const char *text, char *buf, size_t cap)
{
	if (text[0] != '#' || text[1] != '!')
		return NULL;
	const char *p = text + 2;
	p += strspn(p, " \t");
	size_t n = strcspn(p, " \t\n");
	const char *slash = NULL;
	for (const char *q = p; q < p + n; q++)
		if (*q == '/')
			slash = q;
	const char *name = slash ? slash + 1 : p;
	size_t nl = (size_t)(p + n - name);
	if (nl == 3 && !strncmp(name, "env", 3)) {
		p += n;
		p += strspn(p, " \t");
		if (!strncmp(p, "-S", 2))
			p += 2 + strspn(p + 2, " \t");
		name = p;
		nl = strcspn(p, " \t\n");
	}
	if (nl == 0 || nl >= cap)
		return "";
	memcpy(buf, name, nl);
	buf[nl] = '\0';
	return buf;
}

/* Written scripts parsed on one line at most: LP_MAX_WRITTEN_RUNS more
   than the commands the line had before this pass (ctx->written_cap; a
   line of many writers and runners keeps one parse for each).  Each write
   of a file is parsed on its own, so a script that runs a file written
   twice runs two scripts that run it again, 2^depth in all (a 96-byte
   line made 100,000 commands); past the bound the line is unparsed. */
enum { LP_MAX_WRITTEN_RUNS = 64 };

static void run_text(lp_ctx *ctx, size_t idx, const lk_run *run,
                     const char *text)
{
	locus_shell_command *c = &ctx->result->commands[idx];
	unsigned depth = c->depth + 1;
	if (++ctx->written_runs > ctx->written_cap) {
		lp_unparsed(ctx,
		            "the line runs files it writes more than %zu times",
		            ctx->written_cap);
		return;
	}
	if (depth > lp_max_depth(ctx)) {
		lp_unparsed(ctx, "see-through deeper than %u levels",
		            lp_max_depth(ctx));
		return;
	}
	const lk_program *interp = NULL;
	switch (run->as) {
	case LK_RUN_EXEC: {
		char buf[64];
		const char *sb = shebang(text, buf, sizeof buf);
		if (!sb)
			break; /* no #!: bash runs it as a shell script */
		const lk_program *p = lk_program_find(sb);
		if (p && (p->cls & LK_SHELL))
			break;
		if (!p || !p->interp) {
			lp_unparsed(ctx,
			            "%s is run after being written on the "
			            "line, by #!%s",
			            run->path, sb);
			return;
		}
		interp = p;
		break;
	}
	case LK_RUN_SHELL: break;
	case LK_RUN_INTERP: interp = lk_program_find(c->name); break;
	case LK_RUN_MAKE:
		lp_unparsed(ctx,
		            "make reads a makefile written on the line: its "
		            "recipes are not fully analysed");
		lp_make_recipes(ctx, text, idx, depth);
		return;
	case LK_RUN_CONFIG:
		lp_unparsed(ctx, "%s reads %s, written on the line", c->name,
		            run->path);
		return;
	}
	if (interp && interp->interp) {
		c->flags |= LOCUS_CMD_INLINE_CODE;
		lp_inline_scan(ctx, text, interp->interp->lang, idx, depth);
		return;
	}
	if (interp) {
		lp_unparsed(ctx, "%s runs %s, written on the line", c->name,
		            run->path);
		return;
	}
	lp_parse_nested(ctx, text, strlen(text), LOCUS_ORIGIN_WRITTEN_SCRIPT,
	                idx, depth);
}

/* Command idx runs files: any written on the line is parsed or fails
   closed. */
static void check_runs(lp_ctx *ctx, lk_writers *wr, size_t idx)
{
	const locus_shell_result *r = ctx->result;
	lk_run runs[LK_MAX_RUNS];
	size_t nr = lk_command_runs(&r->commands[idx], runs, LK_MAX_RUNS);
	for (size_t k = 0; k < nr; k++) {
		lk_write w[LK_MAX_WRITES];
		size_t nw =
		    lk_line_writes(r, wr, idx, &runs[k], w, LK_MAX_WRITES);
		if (nw == 0)
			continue;
		bool download = false;
		for (size_t m = 0; m < nw; m++)
			download |= w[m].content == LK_CONTENT_DOWNLOAD;
		if (download)
			continue; /* remote code: the labeller tags it */
		if (nw == LK_MAX_WRITES) {
			lp_unparsed(ctx, "%s is written too often on the line",
			            runs[k].path);
			return;
		}
		/* Every write is a text the file may hold when it runs (run
		   order is not source order: loops, functions): each is parsed
		   on its own, appends too. */
		for (size_t m = 0; m < nw; m++) {
			const char *text = write_text(ctx, &w[m], runs[k].path);
			if (!text || ctx->written_runs > ctx->written_cap)
				return;
			run_text(ctx, idx, &runs[k], text);
		}
	}
}

void lp_checks_written(lp_ctx *ctx)
{
	lk_writers wr;
	lk_line_writers(ctx->result, &wr);
	size_t computed = ctx->result->ncommands; /* commands wr covers */
	ctx->written_runs = 0;
	ctx->written_cap = LP_MAX_WRITTEN_RUNS + ctx->result->ncommands;
	for (size_t i = 0; i < ctx->result->ncommands; i++) {
		if (lp_out_of_time(ctx) || ctx->written_runs > ctx->written_cap)
			break;
		if (computed != ctx->result->ncommands) {
			/* a parse below added commands: they may write too */
			lk_line_writers_from(ctx->result, &wr, computed);
			computed = ctx->result->ncommands;
		}
		const char *why = lk_writers_failed(&wr);
		if (why) {
			lp_unparsed(ctx, "%s", why);
			break;
		}
		if (wr.n == 0)
			break; /* nothing is written: nothing to run */
		check_runs(ctx, &wr, i);
	}
	const char *why = lk_writers_failed(&wr);
	if (why)
		lp_unparsed(ctx, "%s", why); /* the last search's */
	lk_writers_free(&wr);
}
