/*
 * labels/label.c - a line's verdict (spec shell.md section 2) and the
 * raw-text floor patterns for lines that do not parse.
 */
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "internal.h"
#include "../parser/internal.h"
#include "../parser/linefacts.h"
#include "../util/invariant.h"
#include "../knowledge/programs.h"
#include "pack.h"
#include "../util/array.h"

/* ---- the floor -------------------------------------------------------- */

/* Each floor reason with its reasons-line text and the tag it implies. */
typedef struct floor_row {
	const char *never;
	const char *text; /* "<never> is on the never-allow floor" */
	uint32_t tag;
} floor_row;

#define FLOOR(n, t)                                                            \
	{                                                                      \
		n, n " is on the never-allow floor", t                         \
	}

/* clang-format off */
static const floor_row floor_rows[] = {
	FLOOR(LL_NEVER_RM, LOCUS_TAG_DESTRUCTIVE),
	FLOOR(LL_NEVER_FS, LOCUS_TAG_DESTRUCTIVE),
	FLOOR(LL_NEVER_FORCE_PUSH, LOCUS_TAG_FORCE_PUSH | LOCUS_TAG_VCS_PUSH),
	FLOOR(LL_NEVER_RESET, LOCUS_TAG_DESTRUCTIVE),
	FLOOR(LL_NEVER_FORK_BOMB, LOCUS_TAG_DESTRUCTIVE),
	FLOOR(LL_NEVER_REMOTE_CODE, LOCUS_TAG_REMOTE_CODE),
	FLOOR(LL_NEVER_STOP, LOCUS_TAG_SHUTDOWN),
};
/* clang-format on */

static const floor_row *floor_row_of(const char *never)
{
	for (size_t i = 0; i < sizeof floor_rows / sizeof *floor_rows; i++)
		if (strcmp(floor_rows[i].never, never) == 0)
			return &floor_rows[i];
	return NULL;
}

/* ---- the verdict ------------------------------------------------------ */

/* The opaque verdict (labels.h): reasons grow as needed (it was a
   caller-allocated struct with a silent cap of 32 reasons). */
struct locus_shell_verdict {
	locus_kind kind;
	uint32_t tags;
	const char *never;
	size_t nreasons, cap;
	const char **reasons; /* static strings or the result's */
	bool oom;             /* a reason could not be kept */
};

static void add_reason(locus_shell_verdict *v, const char *r)
{
	for (size_t i = 0; i < v->nreasons; i++)
		if (v->reasons[i] == r || strcmp(v->reasons[i], r) == 0)
			return;
	if (!lu_reserve(&v->reasons, &v->cap, v->nreasons + 1)) {
		v->oom = true;
		return;
	}
	v->reasons[v->nreasons++] = r;
}

#define NFLOOR_ROWS (sizeof floor_rows / sizeof *floor_rows)

/* Floor reasons in the order found; the first becomes `never`.  Every
   reason is one of floor_rows (deduplicated), so the set cannot fill. */
typedef struct floor_set {
	const char *items[NFLOOR_ROWS];
	size_t n;
} floor_set;

static void floor_add(floor_set *f, const char *never)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->items[i] == never || strcmp(f->items[i], never) == 0)
			return;
	/* a reason outside floor_rows would be dropped below: in release
	   it is kept as destroying (fail closed), in debug it traps */
	if (NEVER(!floor_row_of(never)))
		never = LL_NEVER_RM;
	assert(f->n < NFLOOR_ROWS);
	f->items[f->n++] = never;
}

static bool is_substitution_origin(const char *origin)
{
	return origin &&
	       (strcmp(origin, LOCUS_ORIGIN_SUBSTITUTION) == 0 ||
	        strcmp(origin, LOCUS_ORIGIN_PROCESS_SUBSTITUTION) == 0);
}

/*
 * Remote code: what a downloader fetched reaches an interpreter.
 *  - pipeline: a downloader upstream of an interpreter in one pipeline;
 *  - substitution: a downloader inside $(..)/<(..) on a line that runs an
 *    interpreter (sh <(curl), bash -c "$(curl)", eval "$(curl)");
 *  - file: a downloader saves a file that a later command runs.
 */
/* An input redirect (`<`, `<>`, `<&`, on any descriptor: a script can
   read fd 3 too): not an output or a heredoc. */
static bool input_op(const locus_shell_redirect *rd)
{
	const char *op = rd->op ? rd->op : "";
	while (*op >= '0' && *op <= '9')
		op++; /* `3<>` written with its descriptor */
	return op[0] == '<' && op[1] != '<';
}

static bool dup_op(const char *op)
{
	while (op && *op >= '0' && *op <= '9')
		op++;
	return op && strncmp(op, "<&", 2) == 0;
}

/* Rows: `p` beside a command is the program-table row of its name, as the
   parser found it (lp_command_program). */

/* An interpreter reading its program from a socket: `sh </dev/tcp/h/p`,
   or from a descriptor (`sh <&3`) on a line that opened one. */
static bool interp_reads_socket(const locus_shell_command *c,
                                const lk_program *p, bool line_net)
{
	if (c->argc == 0 || !ll_is_interpreter(p))
		return false;
	for (size_t i = 0; i < c->nredirects; i++) {
		const locus_shell_redirect *rd = &c->redirects[i];
		if (!input_op(rd))
			continue;
		const char *t = rd->target ? rd->target : "";
		if (strncmp(t, "/dev/tcp/", 9) == 0 ||
		    strncmp(t, "/dev/udp/", 9) == 0)
			return true;
		if (line_net && dup_op(rd->op))
			return true;
	}
	return false;
}

/* What reaches the network and yields data: a downloader, or any command
   redirected to or from /dev/tcp|udp (`cat </dev/tcp/h/80`). */
static bool net_source(const locus_shell_command *d, const lk_program *p)
{
	return (d->argc && ll_is_downloader(p)) || ll_net_redirect(d);
}

/* A file the line downloaded (or read from a socket) is run by command
   k, under any name it got (parser/linefacts.c follows cp, mv, ln,
   tee, archives).  `wr` is computed on first use. */
static bool runs_download(const locus_shell_result *r, size_t k, lk_writers *wr,
                          bool *have_wr)
{
	const locus_shell_command *c = locus_shell_result_command(r, k);
	lk_run runs[LK_MAX_RUNS + 1];
	size_t nr = lk_command_runs(c, runs, LK_MAX_RUNS);
	/* `xargs sh`: the script operand comes from input: any file */
	if ((c->flags & LOCUS_CMD_DYNAMIC_ARGS) &&
	    ll_is_interpreter(lp_command_program(r, k)))
		runs[nr++] = (lk_run){"", LOCUS_WORD_DYNAMIC, LK_MATCH_BASE,
		                      LK_RUN_SHELL};
	if (nr == 0)
		return false;
	if (!*have_wr) {
		lk_line_writers(r, wr);
		*have_wr = true;
	}
	if (lk_writers_failed(wr))
		return true; /* too many files written to tell: fail closed */
	for (size_t i = 0; i < nr; i++) {
		lk_write w[LK_MAX_WRITES];
		size_t nw =
		    lk_line_writes(r, wr, k, &runs[i], w, LK_MAX_WRITES);
		for (size_t m = 0; m < nw; m++)
			if (w[m].content == LK_CONTENT_DOWNLOAD)
				return true;
	}
	return lk_writers_failed(wr) != NULL; /* a search cut short */
}

/*
 * Per-line facts computed once, so that no rule scans the line once per
 * command (every line-level rule is linear, or n log n, in
 * commands).  Commands are sorted by (pipeline, depth, parent, index):
 * the stages of one pipeline, seen at one depth under one parent, are
 * then adjacent and in source order.
 */
typedef struct stage_key {
	size_t pipeline, parent, idx;
	unsigned depth;
} stage_key;

static int stage_cmp(const void *a, const void *b)
{
	const stage_key *x = a, *y = b;
	if (x->pipeline != y->pipeline)
		return x->pipeline < y->pipeline ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Commands of a line whose facts fit in line_facts itself (most lines:
   two mallocs and frees per line were a measurable part of labelling). */
#define LINE_FACTS_SMALL 16

typedef struct line_facts {
	stage_key *order;   /* every command, sorted (NULL: out of memory) */
	size_t *prev_stage; /* per command: the command before it in its
	                       pipeline at its depth and parent, or
	                       LOCUS_SHELL_NO_PARENT */
	stage_key order_small[LINE_FACTS_SMALL];
	size_t prev_small[LINE_FACTS_SMALL];
} line_facts;

static bool line_facts_init(line_facts *lf, const locus_shell_result *r)
{
	size_t n = locus_shell_result_count(r);
	if (n <= LINE_FACTS_SMALL) {
		lf->order = lf->order_small;
		lf->prev_stage = lf->prev_small;
	} else {
		lf->order = malloc(n * sizeof *lf->order);
		lf->prev_stage = malloc(n * sizeof *lf->prev_stage);
	}
	if (!lf->order || !lf->prev_stage) {
		free(lf->order);
		free(lf->prev_stage);
		lf->order = NULL;
		lf->prev_stage = NULL;
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		lf->order[i] = (stage_key){c->pipeline, c->parent, i, c->depth};
	}
	if (n > 1)
		qsort(lf->order, n, sizeof *lf->order, stage_cmp);
	for (size_t i = 0; i < n; i++) {
		const stage_key *k = &lf->order[i];
		const stage_key *p = i ? &lf->order[i - 1] : NULL;
		lf->prev_stage[k->idx] = p && p->pipeline == k->pipeline &&
		                                 p->depth == k->depth &&
		                                 p->parent == k->parent
		                             ? p->idx
		                             : LOCUS_SHELL_NO_PARENT;
	}
	return true;
}

static void line_facts_free(line_facts *lf)
{
	if (lf->order != lf->order_small)
		free(lf->order);
	if (lf->prev_stage != lf->prev_small)
		free(lf->prev_stage);
}

/* c runs what it reads on stdin: an interpreter, awk calling system or
   a pipe, sed with `e` (parser/sed.c). */
static bool runs_input(const locus_shell_command *c, const lk_program *p)
{
	if (c->argc == 0)
		return false;
	if (ll_data_module(c, p))
		return false;
	if (ll_is_interpreter(p) || ll_awk_runs_input(c, p))
		return true;
	return p && !strcmp(p->name, "sed") &&
	       (c->flags & LOCUS_CMD_INLINE_CODE);
}

/* A network source with a command of the same pipeline after it that runs
   its input: one pass over each pipeline's group of the sorted order. */
static bool piped_to_runner(const locus_shell_result *r, const line_facts *lf)
{
	size_t n = locus_shell_result_count(r);
	for (size_t g = 0; g < n;) {
		size_t e = g, last_runner = 0;
		bool runner = false;
		while (e < n &&
		       lf->order[e].pipeline == lf->order[g].pipeline) {
			size_t i = lf->order[e].idx;
			if (runs_input(locus_shell_result_command(r, i),
			               lp_command_program(r, i)) &&
			    (!runner || i > last_runner)) {
				runner = true;
				last_runner = i;
			}
			e++;
		}
		for (size_t x = g; runner && x < e; x++) {
			size_t i = lf->order[x].idx;
			if (i < last_runner &&
			    net_source(locus_shell_result_command(r, i),
			               lp_command_program(r, i)))
				return true;
		}
		g = e;
	}
	return false;
}

/* *expired is set when the budget ran out first (the caller fails the
   line closed as unparsed). */
static bool remote_code(const locus_shell_result *r, const line_facts *lf,
                        bool *expired)
{
	size_t n = locus_shell_result_count(r);
	bool any_interp = false, line_net = false, any_dl = false;
	for (size_t k = 0; k < n; k++) {
		const locus_shell_command *c = locus_shell_result_command(r, k);
		const lk_program *p = lp_command_program(r, k);
		if (c->argc && ll_is_interpreter(p))
			any_interp = true;
		if (ll_net_redirect(c))
			line_net = true;
		if (net_source(c, p))
			any_dl = true;
	}
	if (!any_dl && !line_net)
		return false;
	for (size_t k = 0; line_net && k < n; k++)
		if (interp_reads_socket(locus_shell_result_command(r, k),
		                        lp_command_program(r, k), line_net))
			return true;
	for (size_t i = 0; any_interp && i < n; i++) {
		const locus_shell_command *d = locus_shell_result_command(r, i);
		if (net_source(d, lp_command_program(r, i)) &&
		    is_substitution_origin(d->origin))
			return true;
	}
	if (!lf->order)
		return true; /* out of memory: fail closed */
	if (piped_to_runner(r, lf))
		return true;
	/* a downloaded file that runs, by any name */
	lk_writers wr = LK_WRITERS_INIT;
	bool have_wr = false, found = false;
	for (size_t k = 0; any_dl && k < n && !found; k++) {
		if ((k & 255u) == 255u && locus_shell_result_expired(r)) {
			*expired = true;
			break;
		}
		found = runs_download(r, k, &wr, &have_wr);
	}
	lk_writers_free(&wr);
	return found;
}

/* The previous stage of command i's pipeline (same pipeline, depth and
   parent), when i reads it. */
static const locus_shell_command *piped_producer(const locus_shell_result *r,
                                                 const line_facts *lf, size_t i)
{
	const locus_shell_command *c = locus_shell_result_command(r, i);
	if (!(c->flags & LOCUS_CMD_PIPED_IN) || !lf->prev_stage ||
	    lf->prev_stage[i] == LOCUS_SHELL_NO_PARENT)
		return NULL;
	return locus_shell_result_command(r, lf->prev_stage[i]);
}

/* The line creates a file whose name starts with '-' (touch -- -rf,
   > ./-rf, mkdir ./-f): a later glob can hand it to a program as an
   option. */
static bool dash_base(const char *p)
{
	const char *s = strrchr(p, '/');
	return (s ? s[1] : p[0]) == '-';
}

static bool creates_dash_file(const locus_shell_result *r)
{
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		for (size_t k = 0; k < c->nredirects; k++)
			if (c->redirects[k].op &&
			    strchr(c->redirects[k].op, '>') &&
			    c->redirects[k].target &&
			    dash_base(c->redirects[k].target))
				return true;
		static const char *const creators[] = {
		    "touch", "mkdir", "cp", "mv", "ln", "install", NULL};
		if (!lp_in_list(creators, c->name))
			continue;
		bool dd = false;
		for (size_t k = 1; k < c->argc; k++) {
			const char *a = c->argv[k];
			if (!dd && !strcmp(a, "--")) {
				dd = true;
				continue;
			}
			if ((dd || a[0] != '-') && dash_base(a))
				return true;
		}
	}
	return false;
}

/* A command of an `sh -c` script with dynamic arguments ("$@", $1): the
   floor patterns over its name and the arguments given to the script. */
/* The last answer: the commands of one script come together, and each
   would otherwise join all of the script's arguments again (quadratic). */
typedef struct positional_memo {
	size_t parent;
	const char *name;
	const char *hit;
} positional_memo;

static const char *positional_floor(const locus_shell_result *r,
                                    const locus_shell_command *c,
                                    positional_memo *memo, ll_floor *floor)
{
	if (!(c->flags & LOCUS_CMD_DYNAMIC_ARGS) || !c->argc || !c->origin ||
	    strcmp(c->origin, LOCUS_ORIGIN_SHELL_C) ||
	    c->parent >= locus_shell_result_count(r))
		return NULL;
	if (memo->name && memo->parent == c->parent &&
	    !strcmp(memo->name, c->name))
		return memo->hit;
	memo->parent = c->parent;
	memo->name = c->name;
	memo->hit = NULL;
	const locus_shell_command *p = locus_shell_result_command(r, c->parent);
	size_t len = strlen(c->name) + 1;
	for (size_t i = 1; i < p->argc; i++)
		len += strlen(p->argv[i]) + 1;
	char *text = malloc(len + 1);
	if (!text)
		return LL_NEVER_RM; /* fail closed */
	size_t k = 0;
	memcpy(text, c->name, strlen(c->name));
	k += strlen(c->name);
	for (size_t i = 1; i < p->argc; i++) {
		text[k++] = ' ';
		memcpy(text + k, p->argv[i], strlen(p->argv[i]));
		k += strlen(p->argv[i]);
	}
	text[k] = '\0';
	const char *hit = NULL;
	ll_floor_match(floor, text, k, &hit, 1);
	free(text);
	memo->hit = hit;
	return hit;
}

static void label_line(const locus_shell_result *r, locus_shell_verdict *out,
                       ll_floor *floor);

int locus_shell_label(locus_shell_verdict **vout, const locus_shell_result *r)
{
	return ll_label(vout, r, NULL);
}

int ll_label(locus_shell_verdict **vout, const locus_shell_result *r,
             ll_floor *floor)
{
	if (!vout)
		return LOCUS_EUSAGE;
	*vout = NULL;
	locus_shell_verdict *v = calloc(1, sizeof *v);
	if (!v)
		return LOCUS_ENOMEM;
	/* without a parser's cache, one for the line: each pattern is
	   compiled at most once per line */
	ll_floor *own = floor ? NULL : ll_floor_new();
	if (!floor && !own) {
		locus_shell_verdict_free(v);
		return LOCUS_ENOMEM;
	}
	label_line(r, v, floor ? floor : own);
	ll_floor_free(own);
	if (v->oom) {
		locus_shell_verdict_free(v);
		return LOCUS_ENOMEM;
	}
	*vout = v;
	return 0;
}

void locus_shell_verdict_free(locus_shell_verdict *v)
{
	if (!v)
		return;
	free(v->reasons);
	free(v);
}

locus_kind locus_shell_verdict_kind(const locus_shell_verdict *v)
{
	return v ? v->kind : LOCUS_KIND_EXEC;
}

uint32_t locus_shell_verdict_tags(const locus_shell_verdict *v)
{
	return v ? v->tags : LOCUS_TAG_UNPARSED;
}

const char *locus_shell_verdict_never(const locus_shell_verdict *v)
{
	return v ? v->never : NULL;
}

size_t locus_shell_verdict_reason_count(const locus_shell_verdict *v)
{
	return v ? v->nreasons : 0;
}

const char *locus_shell_verdict_reason(const locus_shell_verdict *v, size_t i)
{
	return v && i < v->nreasons ? v->reasons[i] : NULL;
}

/* What the per-command pass carries from one command to the next. */
/* Directories a line may be in that the persistence paths are judged
   against (line_pass.dirs); past them the line is unparsed. */
#define LL_MAX_DIRS 32

enum { LL_MAX_COPIES = 16 };

typedef struct line_pass {
	const locus_shell_result *r;
	ll_floor *floor;
	line_facts lf;
	positional_memo memo;
	uint32_t gitcfg;
	bool dash_file;
	bool allexport; /* set -a: bare assignments are exported */
	bool background;
	char *cwd; /* the last static `cd DIR` seen, normalised (heap) */
	/* every directory the line may be in after a cd or pushd (popd,
	   pushd +N, a failed cd and `cd -` go back to one of them), each
	   joined to every one before it, normalised (heap); lost when there
	   are more than LL_MAX_DIRS */
	char *dirs[LL_MAX_DIRS];
	size_t ndirs;
	bool dirs_lost, dirs_lost_said;
	bool cwd_inside; /* every cd/pushd/popd of the line stays inside the
	                    workspace (a static relative path) */
	bool moves;      /* the line holds a cd, pushd or popd */
	ll_functions functions; /* the names the line defines */
	/* variables the line assigns a secret variable's value to
	   (pk_copies_secret); past LL_MAX_COPIES every print counts */
	const char *copies[LL_MAX_COPIES];
	size_t copy_len[LL_MAX_COPIES], ncopies;
	bool copies_lost;
	size_t xtrace_from; /* the first command turning xtrace on, or
	                       SIZE_MAX */
	bool reuses_secret; /* pk_line_reuses_secret */
} line_pass;

/* The assignment-only statement c copies a copy found before it (`y=$x`
   after `x=$GITHUB_TOKEN`). */
static bool copies_copy(const line_pass *lp, const locus_shell_command *c)
{
	if (c->argc || !c->nassignments)
		return false;
	for (size_t k = 0; k < lp->ncopies; k++)
		if (pk_expands_name(c, lp->copies[k], lp->copy_len[k]))
			return true;
	return false;
}

/* The variables of r's assignment-only statements that copy a secret
   variable (`x=$GITHUB_TOKEN`), or a copy of one (`y=$x`). */
static void secret_copies(line_pass *lp)
{
	size_t n = locus_shell_result_count(lp->r);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c =
		    locus_shell_result_command(lp->r, i);
		bool copies = pk_copies_secret(c) || copies_copy(lp, c);
		size_t na = copies ? c->nassignments : c->argc;
		for (size_t k = copies ? 0 : 1; k < na; k++) {
			const char *a = copies ? c->assignments[k] : c->argv[k];
			if (!copies && !pk_declares_secret(c, k))
				continue;
			if (lp->ncopies == LL_MAX_COPIES) {
				lp->copies_lost = true;
				return;
			}
			lp->copies[lp->ncopies] = a;
			lp->copy_len[lp->ncopies++] = strcspn(a, "+=[");
		}
	}
}

/* The first command of r that turns xtrace on (SIZE_MAX: none). */
static size_t xtrace_start(const locus_shell_result *r)
{
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++)
		if (pk_turns_on_xtrace(locus_shell_result_command(r, i)))
			return i;
	return SIZE_MAX;
}

/* The shell itself prints a secret (or a copy) for command i: an
   expansion error's word, or xtrace turned on by an earlier command. */
static bool shell_prints(const line_pass *lp, size_t i,
                         const locus_shell_command *c)
{
	bool xtrace = lp->xtrace_from != SIZE_MAX && i > lp->xtrace_from;
	if (lp->reuses_secret || pk_shell_prints_secret(c, xtrace))
		return true;
	if (!xtrace || !(lp->ncopies || lp->copies_lost))
		return false;
	if (lp->copies_lost)
		return pk_expands_name(c, "", 0);
	for (size_t k = 0; k < lp->ncopies; k++)
		if (pk_expands_name(c, lp->copies[k], lp->copy_len[k]))
			return true;
	return false;
}

/* Command c prints a copy secret_copies found. */
static bool prints_copy(const line_pass *lp, const locus_shell_command *c)
{
	if (lp->copies_lost)
		return pk_prints_name(c, "", 0) || pk_git_takes_name(c, "", 0);
	for (size_t k = 0; k < lp->ncopies; k++)
		if (pk_prints_name(c, lp->copies[k], lp->copy_len[k]) ||
		    pk_git_takes_name(c, lp->copies[k], lp->copy_len[k]))
			return true;
	return false;
}

/* Every cd, pushd and popd of the line goes to a static relative path
   that does not climb out: relative paths stay in the workspace. */
static bool cds_inside(const locus_shell_result *r)
{
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		bool cd = lu_streq(c->name, "cd") || lu_streq(c->name, "pushd");
		if (lu_streq(c->name, "popd"))
			return false;
		if (!cd)
			continue;
		if (c->argc != 2 || (c->flags & LOCUS_CMD_DYNAMIC_ARGS))
			return false;
		const char *d = c->argv[1];
		char buf[1024];
		const char *nd = ll_normal_path(d, buf, sizeof buf);
		if (d[0] == '/' || d[0] == '~' || d[0] == '-' || !nd ||
		    !strncmp(nd, "..", 2))
			return false;
	}
	return true;
}

/* `from`/d (d alone when from is NULL), normalised (ll_normal_path):
   malloc'd, or NULL when it does not normalise or (then *oom) out of
   memory. */
static char *normal_join(const char *from, const char *d, bool *oom)
{
	size_t need = strlen(d) + (from ? strlen(from) + 1 : 0) + 3;
	char *join = malloc(need), *norm = malloc(need);
	if (!join || !norm) {
		free(join);
		free(norm);
		*oom = true;
		return NULL;
	}
	snprintf(join, need, "%s%s%s", from ? from : "", from ? "/" : "", d);
	if (!ll_normal_path(join, norm, need)) {
		free(norm);
		norm = NULL;
	}
	free(join);
	return norm;
}

/* cd DIR / pushd DIR: the directory later relative paths are read from.
   Built on the heap at its full length: a cut path (a fixed buffer) let
   `cd /tmp/<600 bytes>/../../dev; dd of=sda` past the device floor. */
static void track_cd(line_pass *lp, const locus_shell_command *c,
                     locus_shell_verdict *out)
{
	if (c->argc < 2 ||
	    (!lu_streq(c->name, "cd") && !lu_streq(c->name, "pushd")))
		return;
	const char *d = c->argv[c->argc - 1];
	bool oom = false;
	char *norm = normal_join(d[0] != '/' ? lp->cwd : NULL, d, &oom);
	if (oom) {
		out->oom = true;
		return;
	}
	free(lp->cwd);
	lp->cwd = norm;
}


/* dir (a static cd/pushd operand) joined to the workspace root and to
   every directory the line may already be in, added to lp->dirs. */
static void track_dirs(line_pass *lp, const char *d, locus_shell_verdict *out)
{
	size_t base = lp->ndirs;
	for (size_t k = 0; k <= base && !lp->dirs_lost; k++) {
		if (d[0] == '/' && k > 0)
			break; /* absolute: one directory */
		const char *from =
		    k == 0 || d[0] == '/' ? NULL : lp->dirs[k - 1];
		bool oom = false;
		char *norm = normal_join(from, d, &oom);
		if (oom) {
			out->oom = true;
			return;
		}
		bool keep = norm != NULL;
		for (size_t m = 0; keep && m < lp->ndirs; m++)
			keep = strcmp(lp->dirs[m], norm) != 0;
		if (!keep) {
			free(norm);
			continue;
		}
		if (lp->ndirs == LL_MAX_DIRS) {
			free(norm);
			lp->dirs_lost = true;
			return;
		}
		lp->dirs[lp->ndirs++] = norm;
	}
}

/* The raw-text floor reads an unknown program's arguments for a command
   it may run (gdb --args rm -rf /); a command substitution there hides
   the words it reads (`gdb --args $(printf %s r)$(printf %s m) -rf /`,
   found by fuzz_bypass), so the command is not fully analysed.  A plain
   `$VAR` is not counted: `aws s3 cp f "s3://$BUCKET/f"` is everyday work
   (with v set in a subshell, the fuzzer's `gdb --args ${v} -rf /` is
   resolved by the constants pass: docs/design.md, "Subshell scopes"). */
/* The word is `$NAME` or `${NAME}` for a NAME the line assigns itself
   (an assignment the constants pass left unresolved: inside a loop body,
   `for i do v=rm; gdb --args $v -rf /; done`, found by fuzz_bypass). */
static bool line_assigned_var(const locus_shell_result *r, const char *w)
{
	if (w[0] != '$')
		return false;
	const char *n = w + 1 + (w[1] == '{');
	size_t l =
	    strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	              "0123456789_");
	if (!l || (w[1] == '{' ? strcmp(n + l, "}") : n[l] != '\0'))
		return false;
	size_t nc = locus_shell_result_count(r);
	for (size_t i = 0; i < nc; i++) {
		const locus_shell_command *a = locus_shell_result_command(r, i);
		for (size_t k = 0; k < a->nassignments; k++)
			if (!strncmp(a->assignments[k], n, l) &&
			    (a->assignments[k][l] == '=' ||
			     a->assignments[k][l] == '+'))
				return true;
	}
	return false;
}

static bool args_hidden(const locus_shell_result *r,
                        const locus_shell_command *c, const lk_program *p)
{
	if ((c->flags & LOCUS_CMD_INLINE_CODE) || !c->argv_flags)
		return false;
	/* the program tables last: most commands hold no substitution */
	for (size_t i = 1; i < c->argc; i++)
		if ((c->argv_flags[i] & LOCUS_WORD_SUBST) ||
		    ((c->argv_flags[i] & LOCUS_WORD_DYNAMIC) &&
		     line_assigned_var(r, c->argv[i])))
			return ll_unknown_program(c, p);
	return false;
}

/* After `cd DIR`/`pushd DIR`: a relative path a command writes
   is DIR/PATH (`cd .git && echo x > hooks/pre-commit`): the path rules of
   the persistence and agent-config tags judge the joined path. */
static uint32_t cwd_path_tags(const locus_shell_command *c,
                              const lk_program *row, const char *cwd)
{
	uint32_t tags = 0;
	char buf[1024];
	for (size_t i = 0; i < c->nredirects + c->argc; i++) {
		const char *w;
		if (i < c->nredirects) {
			if (!lk_redirect_writes(&c->redirects[i]))
				continue;
			w = c->redirects[i].target;
		} else {
			if (i == c->nredirects)
				continue; /* argv[0] */
			w = c->argv[i - c->nredirects];
		}
		if (!w || !*w || w[0] == '/' || w[0] == '-' || w[0] == '~')
			continue;
		int n = snprintf(buf, sizeof buf, "%s/%s", cwd, w);
		if (n < 0 || (size_t)n >= sizeof buf)
			continue;
		uint32_t t =
		    (pk_persistence_path(buf) ? LOCUS_TAG_PERSISTENCE : 0) |
		    (pk_agent_config_path(buf) ? LOCUS_TAG_AGENT_CONFIG : 0);
		/* a pure reader's read (asked only of a match: the program
		   lookup is skipped for most words) */
		if (t &&
		    (i < c->nredirects || pk_arg_written(c, i - c->nredirects)))
			tags |= t;
	}
	/* cd .git && tar xf ../x.tar, cd .git && cp -r ../hooks . */
	if (pk_fills_folders(row) && pk_fills_persistence_folder(c, row, cwd))
		tags |= LOCUS_TAG_PERSISTENCE;
	return tags;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the functions the line defines, sorted (one pass, so that
   a line of many unknown commands is not scanned once per command). Out
   of memory: none (their calls are then unknown: held, fail closed). */
void ll_functions_init(ll_functions *f, const locus_shell_result *r)
{
	f->names = NULL;
	f->n = 0;
	size_t n = locus_shell_result_count(r), k = 0;
	for (size_t i = 0; i < n; i++)
		k += locus_shell_result_command(r, i)->function_name != NULL;
	if (!k || !(f->names = malloc(k * sizeof *f->names)))
		return;
	for (size_t i = 0; i < n; i++) {
		const char *fn =
		    locus_shell_result_command(r, i)->function_name;
		if (fn)
			f->names[f->n++] = fn;
	}
	qsort(f->names, f->n, sizeof *f->names, name_cmp);
}

void ll_functions_free(ll_functions *f)
{
	free(f->names);
	f->names = NULL;
	f->n = 0;
}

/* exec:unknown: a program in no row of the program table, not
   a function the line defines (calling one runs its body, whose commands
   are judged on their own). */
bool ll_command_unknown(const locus_shell_result *r, size_t i,
                        const ll_functions *f)
{
	const locus_shell_command *c = locus_shell_result_command(r, i);
	if (!ll_program_unknown(c, lp_command_program(r, i)))
		return false;
	return !(f->n &&
	         bsearch(&c->name, f->names, f->n, sizeof *f->names, name_cmp));
}

#define LL_REASON_SECRET_COPY                                                  \
	"secrets: a copy of a token or password variable is printed"

#define LL_REASON_SECRET_SHELL                                                 \
	"secrets: the shell prints a token or password variable itself "       \
	"(xtrace, a ${X?WORD} error) or hands it on by $_, BASH_REMATCH, a "   \
	"loop variable or read"

#define LL_REASON_WRITE_MOVED                                                  \
	"git restore/checkout discards working changes (a cd on the line)"

/* The tags of a line nested in a command's argument, labelled as a line
   of its own (ll_context.line_tags). */
static int nested_line_tags(const locus_shell_result *r, uint32_t *tags)
{
	locus_shell_verdict *v;
	int rc = locus_shell_label(&v, r);
	*tags = rc ? 0 : locus_shell_verdict_tags(v);
	locus_shell_verdict_free(v);
	return rc;
}

/* What the judgements below get from the top of the labeller. */
static const ll_context context = {.line_tags = nested_line_tags};

/* The judgement of command i, folded into `out` and the floor set. */
static void judge_one(line_pass *lp, size_t i, locus_shell_verdict *out,
                      floor_set *fl)
{
	const locus_shell_command *c = locus_shell_result_command(lp->r, i);
	const lk_program *p = lp_command_program(lp->r, i);
	ll_judgement j;
	ll_judge_command(c, p, &context, &j);
	ll_judge_git_config(c, lp->gitcfg, &j);
	if ((lp->ncopies || lp->copies_lost) && prints_copy(lp, c)) {
		j.tags |= LOCUS_TAG_SECRETS;
		ll_judgement_reason(&j, LL_REASON_SECRET_COPY);
	}
	if (shell_prints(lp, i, c)) {
		j.tags |= LOCUS_TAG_SECRETS;
		ll_judgement_reason(&j, LL_REASON_SECRET_SHELL);
	}
	/* rm -rf build: paths inside the workspace are held, not floored
	  ; outside, unknown or the root stay on the floor */
	if (j.never && !strcmp(j.never, LL_NEVER_RM) && lp->cwd_inside &&
	    (ll_rm_inside(c) || ll_rm_found_inside(lp->r, i))) {
		j.never = NULL;
		ll_judgement_reason(&j, LL_REASON_RM_INSIDE);
	}
	/* rm FILE: a workspace write only where the line stays in one
	   directory (a cd in a loop may run before it) */
	for (size_t k = 0; lp->moves && k < j.nreasons; k++) {
		bool rm = !strcmp(j.reasons[k], LL_REASON_RM_WRITE);
		if (rm || !strcmp(j.reasons[k], LL_REASON_RESTORE_WRITE)) {
			j.tags |= LOCUS_TAG_DESTRUCTIVE;
			ll_judgement_reason(&j, rm && p && p->destroys
			                            ? p->destroys
			                            : LL_REASON_WRITE_MOVED);
			break;
		}
	}
	/* sh -c 'rm "$@"' _ -rf /: the options reach the command as the
	   script's positional parameters */
	const char *pf = positional_floor(lp->r, c, &lp->memo, lp->floor);
	if (pf && !j.never)
		j.never = pf;
	/* touch ./-rf; rm *: the glob hands rm the option */
	if (lp->dash_file && lu_streq(c->name, "rm") &&
	    (c->flags & LOCUS_CMD_GLOB_ARGS) && !j.never)
		j.never = LL_NEVER_RM;
	/* relative paths after cd: cd .git; echo > hooks/x; after
	   `pushd .git && pushd ../src && popd` the line is in .git again:
	   every directory the line may be in is tried */
	uint32_t pt = 0;
	for (size_t k = 0; k < lp->ndirs; k++)
		pt |= cwd_path_tags(c, p, lp->dirs[k]);
	if (pt) {
		if (pt & LOCUS_TAG_PERSISTENCE) {
			j.tags |= LOCUS_TAG_PERSISTENCE;
			ll_judgement_reason(&j, "persistence: a path written "
			                        "after cd is a hook, startup "
			                        "file or other persistence "
			                        "file");
		}
		if (pt & LOCUS_TAG_AGENT_CONFIG) {
			j.tags |= LOCUS_TAG_AGENT_CONFIG;
			ll_judgement_reason(&j, "agent-config: a path written "
			                        "after cd is a coding agent's "
			                        "or locus's configuration");
		}
	}
	/* relative paths after cd: cd /dev; dd of=sda */
	if (lp->cwd && ll_device_after_cd(c, lp->cwd)) {
		j.tags |= LOCUS_TAG_DESTRUCTIVE;
		if (!j.never)
			j.never = LL_NEVER_FS;
	}
	track_cd(lp, c, out);
	if ((lu_streq(c->name, "cd") || lu_streq(c->name, "pushd")) &&
	    c->argc >= 2 && c->argv[c->argc - 1][0] != '-' &&
	    c->argv[c->argc - 1][0] != '+')
		track_dirs(lp, c->argv[c->argc - 1], out);
	if (lp->dirs_lost && !lp->dirs_lost_said) {
		lp->dirs_lost_said = true;
		out->tags |= LOCUS_TAG_UNPARSED;
		add_reason(out, "the line changes directory in more ways than "
		                "locus follows");
	}
	const locus_shell_command *prod = piped_producer(lp->r, &lp->lf, i);
	if (prod)
		pk_db_piped(c, prod, &j);
	out->tags |= j.tags;
	for (size_t k = 0; k < j.nreasons; k++)
		add_reason(out, j.reasons[k]);
	if (j.dropped)
		add_reason(out, LL_REASON_DROPPED);
	if (j.never)
		floor_add(fl, j.never);
	if (c->flags & LOCUS_CMD_BACKGROUND)
		lp->background = true;
	if (ll_command_unknown(lp->r, i, &lp->functions)) {
		out->tags |= LOCUS_TAG_UNKNOWN;
		add_reason(out, LL_REASON_UNKNOWN);
	}
	/* a print of literals (perl -e 'print "x"') is read-only already */
	if ((c->flags & LOCUS_CMD_INLINE_UNPROVEN) &&
	    !ll_command_read_only(c, p)) {
		out->tags |= LOCUS_TAG_UNKNOWN;
		add_reason(out, LL_REASON_INLINE_UNPROVEN);
	}
	size_t envlen;
	if (ll_env_not_inert(lp->r, i, lp->allexport, &envlen)) {
		out->tags |= LOCUS_TAG_UNKNOWN;
		add_reason(out, LL_REASON_ENV);
	}
	/* G2 on a parsed line: text that may be data is held with
	   the tag of what it names, never floored; the arguments of a
	   read-only command (print-only awk or inline code) are data */
	const char *af =
	    ll_command_read_only(c, p) ? NULL : ll_args_floor(c, p, lp->floor);
	if (af) {
		const floor_row *row = floor_row_of(af);
		out->tags |= row ? row->tag : LOCUS_TAG_DESTRUCTIVE;
		add_reason(out, LL_REASON_ARGS_HELD);
	} else if (args_hidden(lp->r, c, p)) {
		out->tags |= LOCUS_TAG_UNPARSED;
		add_reason(out, LL_REASON_ARGS_HIDDEN);
	}
}

/* The per-command pass and the line-level rules; false when the line's
   time budget ran out. */
static bool judge_commands(const locus_shell_result *r, ll_floor *floor,
                           locus_shell_verdict *out, floor_set *fl)
{
	line_pass lp = {.r = r, .floor = floor};
	lp.cwd_inside = cds_inside(r);
	lp.moves = ll_line_changes_dir(r);
	ll_functions_init(&lp.functions, r);
	lp.memo = (positional_memo){0, NULL, NULL};
	lp.background = locus_shell_result_has_background(r);
	lp.gitcfg = ll_git_line_config(r);
	lp.dash_file = creates_dash_file(r);
	lp.allexport = ll_line_allexport(r);
	secret_copies(&lp);
	lp.xtrace_from = xtrace_start(r);
	lp.reuses_secret = pk_line_reuses_secret(r);
	/* out of memory: the verdict is an error, never an answer (a rule
	   without its facts could be more permissive) */
	if (!line_facts_init(&lp.lf, r))
		out->oom = true;
	bool expired = false;
	size_t n = locus_shell_result_count(r);
	for (size_t i = 0; i < n; i++) {
		/* every stage after the parse stays inside the line's budget */
		if ((i & 255u) == 255u && locus_shell_result_expired(r)) {
			expired = true;
			break;
		}
		judge_one(&lp, i, out, fl);
	}
	free(lp.cwd);
	for (size_t k = 0; k < lp.ndirs; k++)
		free(lp.dirs[k]);
	ll_functions_free(&lp.functions);
	if (lp.background) {
		out->tags |= LOCUS_TAG_BACKGROUND;
		add_reason(out, LL_REASON_BACKGROUND);
	}
	if (locus_shell_result_has_fork_bomb(r)) {
		out->tags |= LOCUS_TAG_DESTRUCTIVE;
		add_reason(out, "a fork bomb exhausts the machine");
		floor_add(fl, LL_NEVER_FORK_BOMB);
	}
	if (!expired && remote_code(r, &lp.lf, &expired)) {
		out->tags |= LOCUS_TAG_REMOTE_CODE;
		add_reason(out, LL_REASON_REMOTE_CODE);
		floor_add(fl, LL_NEVER_REMOTE_CODE);
	}
	line_facts_free(&lp.lf);
	return !expired && !locus_shell_result_expired(r);
}

/* The verdict of one line into a zeroed `out`. */
static void label_line(const locus_shell_result *r, locus_shell_verdict *out,
                       ll_floor *floor)
{
	out->kind = LOCUS_KIND_EXEC;
	bool parsed = locus_shell_result_parsed(r);
	size_t n = locus_shell_result_count(r);
	floor_set fl = {{NULL}, 0};

	if (!parsed) {
		out->tags |= LOCUS_TAG_UNPARSED;
		add_reason(out, LL_REASON_UNPARSED);
	}
	if (!judge_commands(r, floor, out, &fl)) {
		/* out of time: fail closed, as for a line that does not parse
		   (the raw-text floor below) */
		/* said even after another unparsed reason: the commands
		   after the cut were not judged */
		out->tags |= LOCUS_TAG_UNPARSED;
		add_reason(out, LL_REASON_UNPARSED_BUDGET);
		parsed = false;
	}
	if (!parsed) {
		size_t len = 0;
		const char *src = locus_shell_result_source(r, &len);
		const char *hits[LL_FLOOR_PATTERNS_MAX];
		size_t nh = ll_floor_match(floor, src ? src : "", src ? len : 0,
		                           hits, LL_FLOOR_PATTERNS_MAX);
		for (size_t i = 0; i < nh; i++)
			floor_add(&fl, hits[i]);
	}

	for (size_t i = 0; i < fl.n; i++) {
		const floor_row *row = floor_row_of(fl.items[i]);
		if (!row)
			continue;
		out->tags |= row->tag | LOCUS_TAG_NEVER;
		add_reason(out, row->text);
	}
	if (fl.n)
		out->never =
		    floor_row_of(fl.items[0])->never; /* a row: above */

	/* exec:check: checks and read-only commands only, no other tag. */
	bool all_ok = parsed && n > 0 && out->tags == 0 &&
	              !locus_shell_result_has_substitution(r);
	bool any_check = false, all_read = all_ok;
	for (size_t i = 0; all_ok && i < n; i++) {
		const locus_shell_command *c = locus_shell_result_command(r, i);
		const lk_program *p = lp_command_program(r, i);
		bool ro = ll_command_read_only(c, p);
		bool ck = !ro && ll_command_check(c, p);
		any_check |= ck;
		all_read &= ro;
		all_ok &= ro || ck;
	}
	if (all_ok && any_check) {
		out->tags |= LOCUS_TAG_CHECK;
		add_reason(out, LL_REASON_CHECK);
	} else if (all_ok && all_read) {
		out->kind = LOCUS_KIND_READ;
	}
}
