/*
 * parser/walk.c - from a tree to raw commands, in source order.
 *
 * The walk is a loop over an explicit stack of frames (never recursion on
 * the input: 100 000 nested subshells are 100 000 heap frames, not C
 * frames).  Sequences (program, lists, bodies, pipelines) are iterated
 * lazily, one child per step, so a command and everything found inside it
 * are finished before its next sibling starts: commands come out in source
 * order, each parent before the commands nested in it.
 *
 * Frame kinds:
 *   F_STMT   one statement node: a simple command is built and emitted,
 *            anything else is opened as a sequence;
 *   F_SEQ    the children of a container, with the connector (; && || &)
 *            that joins each statement to the previous one;
 *   F_PIPE   the stages of a pipeline: each stage after the first is fed
 *            by the last command of the previous stage;
 *   F_SUBST  a subtree searched for command and process substitutions,
 *            which are walked with the command they were found in as their
 *            parent, at depth + 1.
 *
 * Redirects on compound statements (`{ a; b; } > f`, and a|b > f, which
 * tree-sitter attaches to the whole list/pipeline, upstream #345) are
 * attached to every command inside.  That over-reports writes for the
 * pipeline/list case (`a | b > f` marks a too), which is the safe side;
 * for stdin only the innermost redirect wins, as in bash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"

#define NONE LOCUS_SHELL_NO_PARENT
#define MAX_FUNCS 256

struct lp_func {
	const char *name;
	bool self_spawn; /* calls itself in a pipeline or in the background */
	bool called;     /* called from outside its own body */
	bool uses_args;  /* its body reads $@ $* $1..: the caller's words */
	bool called_with_args;
};

/* `$@`, `$*`, `$1`, `${1}`, `${@:2}`... in text as written: the command
   gets words from the function's caller, which the walk does not carry
   into the body (bash would run `rm -rf /` for `f(){ rm "$@"; }; f -rf
   /`). */
static bool reads_positional(const char *s)
{
	for (; s && (s = strchr(s, '$')); s++) {
		const char *p = s + 1;
		if (*p == '{')
			p++;
		if (*p == '@' || *p == '*' || (*p >= '1' && *p <= '9'))
			return true;
	}
	return false;
}

typedef struct redir_chain {
	TSNode node; /* redirected_statement or function_definition */
	const struct redir_chain *next;
} redir_chain;

/* What a statement inherits from where it sits. */
typedef struct sctx {
	const char *origin;
	size_t parent;
	unsigned depth;
	const char *function_name;
	const char *connector; /* for the first command emitted */
	size_t producer;       /* idem, when piped */
	bool piped;
	bool background;
	bool in_pipeline;
	size_t pipeline; /* SIZE_MAX: a new number per command */
	uint32_t scope;  /* substitution scope (for pipe producers) */
	const redir_chain *redirs;
} sctx;

enum ftype { F_STMT, F_SEQ, F_PIPE, F_SUBST };

typedef struct frame {
	enum ftype type;
	bool has_node;
	bool first;
	bool pending_pipe;
	bool has_cur;
	TSNode node;
	TSTreeCursor cur; /* F_SEQ/F_PIPE: at `node`; owned by the frame */
	const char *pending;
	size_t mark;
	sctx c;
} frame;

typedef struct emit_rec {
	size_t idx;
	uint32_t scope;
} emit_rec;

/* A heap array of nodes a walker reuses for every command. */
typedef struct node_scratch {
	TSNode *v;
	size_t cap;
	bool lent;
} node_scratch;

/* A growable list of nodes: the walker's scratch when `from` is set, else
   arena memory. */
typedef struct node_list {
	TSNode *v;
	size_t n, cap;
	node_scratch *from;
} node_list;

/* Fixed caps of emit_command; reaching one makes the line unparsed (never
   a silent drop: the nodes past it would not be walked). */
#define LP_MAX_ARTEFACTS 8
#define LP_MAX_HEREDOC_CONTS 8
#define LP_MAX_DASHES 8 /* lone `-` words tree-sitter dropped, per command */

typedef struct walker {
	lp_tree *t;
	lp_ctx *ctx;
	const lp_syms *sy;
	frame *st;
	size_t n, cap;
	emit_rec *log;
	size_t nlog, caplog;
	uint32_t next_scope;
	/* The per-command scratch arrays (cmd_build.wnodes and .subst):
	   heap memory reused by every command of the walk, lent to one
	   cmd_build at a time (a command built while it is lent gets arena
	   memory).  They, the stack and the log are the parser's, kept
	   across lines (spare.c). */
	node_scratch subst_scratch, words_scratch;
} walker;

static const char CONN_SEMI[] = ";", CONN_AND[] = "&&", CONN_OR[] = "||",
                  CONN_PIPE[] = "|", CONN_PIPE_ERR[] = "|&", CONN_BG[] = "&";

/* ---- small helpers ------------------------------------------------------ */

static bool push(walker *w, frame f)
{
	if (!lu_reserve(&w->st, &w->cap, w->n + 1)) {
		lp_unparsed(w->ctx, "out of memory");
		w->ctx->timed_out = true;
		return false;
	}
	w->st[w->n++] = f;
	return true;
}

/* A frame for node n (nothing when n is null). */
static void push_frame(walker *w, enum ftype type, TSNode n, const sctx *c,
                       bool first)
{
	frame f;
	memset(&f, 0, sizeof f);
	f.type = type;
	f.node = n;
	f.has_node = !ts_node_is_null(n);
	f.first = first;
	f.c = *c;
	if (f.has_node)
		push(w, f);
}

static void push_node(walker *w, enum ftype type, TSNode n, const sctx *c)
{
	push_frame(w, type, n, c, true);
}

/* A sequence frame over the children of n.  It iterates with a cursor:
   ts_node_next_sibling is linear in the number of siblings, which made
   long pipelines quadratic. */
static void push_seq(walker *w, enum ftype type, TSNode n, const sctx *c,
                     bool first, size_t mark)
{
	frame f;
	memset(&f, 0, sizeof f);
	f.type = type;
	f.first = first;
	f.mark = mark;
	f.c = *c;
	f.cur = ts_tree_cursor_new(n);
	f.has_cur = true;
	if (!ts_tree_cursor_goto_first_child(&f.cur)) {
		ts_tree_cursor_delete(&f.cur);
		return;
	}
	f.node = ts_tree_cursor_current_node(&f.cur);
	f.has_node = true;
	if (!push(w, f))
		ts_tree_cursor_delete(&f.cur);
}

static void push_children(walker *w, enum ftype type, TSNode n, const sctx *c)
{
	push_seq(w, type, n, c, true, w->nlog);
}

static void push_subst(walker *w, TSNode n, const sctx *c)
{
	push_frame(w, F_SUBST, n, c, false);
}

static void log_emit(walker *w, size_t idx, uint32_t scope)
{
	if (idx == NONE)
		return;
	if (!lu_reserve(&w->log, &w->caplog, w->nlog + 1))
		return;
	w->log[w->nlog++] = (emit_rec){idx, scope};
}

/* The command emitted in `scope` since `mark` when it is the only one:
   the previous stage's command whose stdout feeds the next stage.  A
   stage of several commands (`{ echo a; echo b; } | sh`, an `if`) is a
   compound command whose output is not one command's: NONE. */
static size_t producer_since(walker *w, size_t mark, uint32_t scope)
{
	size_t found = NONE;
	for (size_t i = w->nlog; i > mark; i--) {
		if (w->log[i - 1].scope != scope)
			continue;
		if (found != NONE)
			return NONE;
		found = w->log[i - 1].idx;
	}
	return found;
}

static bool text_is(walker *w, TSNode n, const char *s)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	size_t len = strlen(s);
	return b - a == len && b <= w->t->len && !memcmp(w->t->src + a, s, len);
}

static const char *connector_of(walker *w, TSNode tok)
{
	static const char *const conns[] = {";", "&&", "||", "|",   "|&",
	                                    "&", ";;", ";&", ";;&", NULL};
	static const char *const vals[] = {CONN_SEMI, CONN_AND,      CONN_OR,
	                                   CONN_PIPE, CONN_PIPE_ERR, CONN_BG,
	                                   CONN_SEMI, CONN_SEMI,     CONN_SEMI};
	for (size_t i = 0; conns[i]; i++)
		if (text_is(w, tok, conns[i]))
			return vals[i];
	return NULL;
}

static bool is_statement(const lp_syms *sy, TSSymbol k)
{
	return lp_kind_is(sy, k, LP_KIND_STATEMENT);
}

/* Context for the commands found inside a substitution of a command. */
static sctx nested_ctx(walker *w, const sctx *c, const char *origin)
{
	sctx n;
	memset(&n, 0, sizeof n);
	n.origin = origin;
	n.parent = c->parent;
	n.depth = c->depth + 1;
	n.function_name = c->function_name;
	n.connector = "";
	n.producer = NONE;
	n.pipeline = SIZE_MAX;
	n.scope = ++w->next_scope;
	return n;
}

/* Context handed to F_SUBST for the words of a command: parent is the
   command. */
static sctx subst_ctx(const sctx *c, size_t idx)
{
	sctx s = *c;
	if (idx != NONE)
		s.parent = idx;
	return s;
}

static lp_func *func_find(lp_tree *t, const char *name)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (!strcmp(t->funcs[i].name, name))
			return &t->funcs[i];
	return NULL;
}

static lp_func *func_add(lp_tree *t, const char *name)
{
	lp_func *f = func_find(t, name);
	if (f)
		return f;
	if (t->nfuncs >= MAX_FUNCS)
		return NULL;
	if (!lu_reserve(&t->funcs, &t->capfuncs, t->nfuncs + 1))
		return NULL;
	f = &t->funcs[t->nfuncs++];
	memset(f, 0, sizeof *f);
	f->name = name;
	return f;
}

/* ---- redirects ------------------------------------------------------------ */

typedef struct cmd_build {
	lp_wordvec words;
	node_list wn; /* word nodes, sorted by start byte */
	lp_wordvec assigns;
	locus_shell_redirect *redirs;
	size_t nredirs, capredirs;
	uint32_t flags;
	lp_stdin_kind stdin_kind;
	const char *stdin_text;
	uint32_t stdin_flags;
	node_list subst; /* subtrees to search for substitutions */
	uint32_t dashes[LP_MAX_DASHES]; /* start bytes of dropped `-` words */
	size_t ndashes, dash_next;
} cmd_build;

static void list_borrow(node_list *l, node_scratch *from)
{
	if (from->lent)
		return;
	from->lent = true;
	l->from = from;
	l->v = from->v;
	l->cap = from->cap;
}

static void list_return(node_list *l)
{
	if (l->from)
		l->from->lent = false;
	l->from = NULL;
}

/* A new command: empty, with the walker's scratch when it is free. */
static void cmd_begin(walker *w, cmd_build *b)
{
	memset(b, 0, sizeof *b);
	list_borrow(&b->wn, &w->words_scratch);
	list_borrow(&b->subst, &w->subst_scratch);
}

static void add_node(walker *w, node_list *l, TSNode x)
{
	if (l->n == l->cap) {
		size_t nc = lu_grow_capacity(l->cap, l->n + 1, 16, sizeof x);
		TSNode *a = NULL;
		if (!nc) {
			/* past SIZE_MAX: as out of memory */
		} else if (l->from) {
			a = realloc(l->v, nc * sizeof x);
			if (a) { /* the walker owns it, wherever it moved */
				l->from->v = a;
				l->from->cap = nc;
			}
		} else {
			a = lp_arena_grow(w->ctx->arena, l->v, l->n * sizeof x,
			                  nc * sizeof x);
		}
		if (!a) {
			lp_unparsed(w->ctx, "out of memory");
			return;
		}
		l->v = a;
		l->cap = nc;
	}
	l->v[l->n++] = x;
}

static void add_redir(walker *w, cmd_build *b, locus_shell_redirect r)
{
	if (b->nredirs == b->capredirs) {
		size_t nc =
		    lu_grow_capacity(b->capredirs, b->nredirs + 1, 4, sizeof r);
		locus_shell_redirect *a =
		    nc ? lp_arena_grow(w->ctx->arena, b->redirs,
		                       b->nredirs * sizeof r, nc * sizeof r)
		       : NULL;
		if (!a)
			return;
		b->redirs = a;
		b->capredirs = nc;
	}
	b->redirs[b->nredirs++] = r;
}

static bool is_fd_word(const char *s)
{
	if (!strcmp(s, "-"))
		return true;
	size_t i = 0;
	while (s[i] >= '0' && s[i] <= '9')
		i++;
	return i > 0 && (s[i] == '\0' || (s[i] == '-' && s[i + 1] == '\0'));
}

static int fd_of(walker *w, TSNode r)
{
	TSNode d = ts_node_child_by_field_id(r, w->sy->f_descriptor);
	if (ts_node_is_null(d))
		return -1;
	long v = 0;
	for (uint32_t i = ts_node_start_byte(d); i < ts_node_end_byte(d); i++) {
		char c = w->t->src[i];
		if (c < '0' || c > '9' || v > 1000000)
			return -1;
		v = v * 10 + (c - '0');
	}
	return (int)v;
}

static const char *op_of(walker *w, TSNode r)
{
	uint32_t cc = ts_node_child_count(r);
	for (uint32_t i = 0; i < cc; i++) {
		TSNode c = ts_node_child(r, i);
		if (!ts_node_is_named(c)) {
			const char *op = lp_node_text(w->t, c);
			/* `-<<EOF` is one token: the `-` is a word (restored
			   by dropped_dashes) */
			return op[0] == '-' && op[1] == '<' ? op + 1 : op;
		}
	}
	return "";
}

enum { RD_OWN = 0, RD_FROM_STATEMENT = 1 };

static void build_redirect(walker *w, cmd_build *b, TSNode r, bool words,
                           lp_stdin_kind *sk, const char **stext,
                           uint32_t *sflags);

/* A redirect's target is brace-expanded and split as an argument is, and
   must give one word (bash: "ambiguous redirect" otherwise): `> {,/tmp/x}`
   writes /tmp/x (the empty word goes).  More words or none: the target
   is not known (a run-time value, judged as one). */
static lp_word redirect_fields(walker *w, TSNode dest, lp_word v)
{
	lp_wordvec f = {0};
	lp_word_fields(w->t, dest, &f);
	if (f.n == 1)
		return f.v[0];
	v.flags |= LOCUS_WORD_DYNAMIC;
	return v;
}

/* build_redirect of `>`, `<`, `>&`...: the target, whether the command
   writes or reads a file, stdin. */
static void file_redirect(walker *w, cmd_build *b, TSNode r, bool words,
                          locus_shell_redirect *rdp, bool is_stdin,
                          lp_stdin_kind *sk, const char **stext,
                          uint32_t *sflags)
{
	const lp_syms *sy = w->sy;
	TSNode dest = {0};
	bool have = false, proc = false;
	uint32_t cc = ts_node_child_count(r);
	TSTreeCursor cur = ts_tree_cursor_new(r);
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			if (ts_tree_cursor_current_field_id(&cur) !=
			    sy->f_destination)
				continue;
			TSNode d = ts_tree_cursor_current_node(&cur);
			if (!have) {
				dest = d;
				have = true;
			} else if (words) {
				/* misparse S9: `git >/dev/null push`
				   -- bash passes push as argv */
				add_node(w, &b->wn, d);
			}
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
	(void)cc;
	if (have) {
		lp_word v = lp_word_value(w->t, dest, true);
		if (v.flags & LOCUS_WORD_BRACE)
			v = redirect_fields(w, dest, v);
		rdp->target = v.value ? v.value : "";
		rdp->target_flags = v.flags;
		proc = ts_node_symbol(dest) == sy->process_substitution;
		if (words)
			add_node(w, &b->subst, dest);
	}
	const char *op = rdp->op;
	bool out = !strcmp(op, ">") || !strcmp(op, ">>") || !strcmp(op, ">|") ||
	           !strcmp(op, "&>") || !strcmp(op, "&>>");
	bool dyn = rdp->target_flags & LOCUS_WORD_DYNAMIC;
	if (!strcmp(op, ">&") && have && (dyn || !is_fd_word(rdp->target)))
		out = true; /* >&file is &>file */
	if (out && have && !proc &&
	    (dyn || strcmp(rdp->target, "/dev/null") != 0))
		b->flags |= LOCUS_CMD_WRITES_FILES;
	bool in = !strcmp(op, "<") || (!strcmp(op, "<&") && have &&
	                               (dyn || !is_fd_word(rdp->target)));
	if (in && have && !proc) {
		b->flags |= LOCUS_CMD_READS_FILE;
		if (is_stdin) {
			*sk = LP_STDIN_FILE;
			*stext = rdp->target;
			*sflags = rdp->target_flags;
		}
	}
}

/* build_redirect of `<<<`. */
static void herestring_redirect(walker *w, cmd_build *b, TSNode r, bool words,
                                locus_shell_redirect *rdp, bool is_stdin,
                                lp_stdin_kind *sk, const char **stext,
                                uint32_t *sflags)
{
	const lp_syms *sy = w->sy;
	TSNode v = ts_node_named_child(r, 0);
	if (!ts_node_is_null(v) && ts_node_symbol(v) == sy->file_descriptor)
		v = ts_node_named_child(r, 1);
	if (!ts_node_is_null(v)) {
		lp_word wv = lp_word_value(w->t, v, true);
		rdp->target = wv.value ? wv.value : "";
		rdp->target_flags = wv.flags;
		if (words)
			add_node(w, &b->subst, v);
	}
	if (is_stdin) {
		*sk = LP_STDIN_HERESTRING;
		*stext = rdp->target;
		*sflags = rdp->target_flags;
	}
}

/* build_redirect of `<<` and `<<-`: the body (its value, and its
   substitutions when unquoted), the arguments and redirects that follow
   the delimiter. */
static void heredoc_redirect(walker *w, cmd_build *b, TSNode r, bool words,
                             locus_shell_redirect *rdp, bool is_stdin,
                             lp_stdin_kind *sk, const char **stext,
                             uint32_t *sflags)
{
	const lp_syms *sy = w->sy;
	bool quoted = false;
	TSNode body = {0};
	bool have_body = false;
	TSTreeCursor cur = ts_tree_cursor_new(r);
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			TSNode c = ts_tree_cursor_current_node(&cur);
			TSSymbol ck = ts_node_symbol(c);
			TSFieldId fid = ts_tree_cursor_current_field_id(&cur);
			if (ck == sy->heredoc_start) {
				for (uint32_t i = ts_node_start_byte(c);
				     i < ts_node_end_byte(c); i++)
					if (strchr("'\"\\", w->t->src[i]))
						quoted = true;
			} else if (ck == sy->heredoc_body) {
				body = c;
				have_body = true;
			} else if (fid == sy->f_argument && words) {
				add_node(w, &b->wn, c);
			} else if (fid == sy->f_redirect) {
				lp_stdin_kind k2 = LP_STDIN_NONE;
				const char *t2 = NULL;
				uint32_t f2 = 0;
				build_redirect(w, b, c, words, &k2, &t2, &f2);
			}
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
	lp_word v = {"", "", quoted ? LOCUS_WORD_QUOTED : 0};
	if (have_body) {
		v = lp_heredoc_value(w->t, body, quoted,
		                     !strcmp(rdp->op, "<<-"));
		if (words && !quoted)
			add_node(w, &b->subst, body);
	}
	rdp->target = v.value ? v.value : "";
	rdp->target_flags = v.flags;
	if (is_stdin) {
		*sk = LP_STDIN_HEREDOC;
		*stext = rdp->target;
		*sflags = rdp->target_flags;
	}
}

/* One redirect.  `words`: collect extra destinations / heredoc arguments
   as argv words (only for redirects that belong to this command). */
static void build_redirect(walker *w, cmd_build *b, TSNode r, bool words,
                           lp_stdin_kind *sk, const char **stext,
                           uint32_t *sflags)
{
	const lp_syms *sy = w->sy;
	TSSymbol k = ts_node_symbol(r);
	locus_shell_redirect rd;
	memset(&rd, 0, sizeof rd);
	rd.fd = fd_of(w, r);
	rd.op = op_of(w, r);
	rd.target = "";
	bool is_stdin = rd.fd == -1 || rd.fd == 0;
	if (k == sy->file_redirect)
		file_redirect(w, b, r, words, &rd, is_stdin, sk, stext, sflags);
	else if (k == sy->herestring_redirect)
		herestring_redirect(w, b, r, words, &rd, is_stdin, sk, stext,
		                    sflags);
	else if (k == sy->heredoc_redirect)
		heredoc_redirect(w, b, r, words, &rd, is_stdin, sk, stext,
		                 sflags);
	else
		return;
	add_redir(w, b, rd);
}

/* The redirect children of a redirected_statement / function_definition
   (field `redirect`). */
static void build_statement_redirects(walker *w, cmd_build *b, TSNode rs,
                                      bool words, lp_stdin_kind *sk,
                                      const char **st, uint32_t *sf)
{
	TSTreeCursor cur = ts_tree_cursor_new(rs);
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			if (ts_tree_cursor_current_field_id(&cur) !=
			    w->sy->f_redirect)
				continue;
			build_redirect(w, b, ts_tree_cursor_current_node(&cur),
			               words, sk, st, sf);
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
}

/* ---- emitting commands ---------------------------------------------------- */

/* A `number` argument glued to redirect `r` (`sh 0<<<x`) is really its
   descriptor.  Returns the descriptor, -1 when there is none, -2 when the
   glued text is not a plain descriptor (`0x1<<<x`: fail closed). */
static int glued_fd(walker *w, const cmd_build *b, TSNode r)
{
	if (b->wn.n == 0)
		return -1;
	TSNode n = b->wn.v[b->wn.n - 1];
	if (ts_node_symbol(n) != w->sy->number ||
	    ts_node_end_byte(n) != ts_node_start_byte(r))
		return -1;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > w->t->len || e <= s || e - s > 6)
		return -2;
	int v = 0;
	for (uint32_t i = s; i < e; i++) {
		char c = w->t->src[i];
		if (c < '0' || c > '9')
			return -2;
		v = v * 10 + (c - '0');
	}
	return v;
}

/* The bytes between two words are only line continuations, or there are
   none: bash splits words on blanks and operators only, so two nodes that
   touch are one word (the grammar splits `'r'\m` into `r` and `m`; found
   by fuzz_bypass). */
static bool continuation_gap(walker *w, uint32_t s, uint32_t e)
{
	if (e < s || (e - s) % 2 || e > w->t->len)
		return false;
	for (uint32_t i = s; i < e; i += 2)
		if (w->t->src[i] != '\\' || w->t->src[i + 1] != '\n')
			return false;
	return true;
}

static void sort_nodes(TSNode *v, size_t n)
{
	/* insertion sort: the arrays are nearly sorted */
	for (size_t i = 1; i < n; i++) {
		TSNode x = v[i];
		size_t j = i;
		while (j > 0 &&
		       ts_node_start_byte(v[j - 1]) > ts_node_start_byte(x)) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

static size_t finish(walker *w, cmd_build *b, TSNode span_node, const sctx *c)
{
	lp_tree *t = w->t;
	lp_ctx *ctx = w->ctx;
	lp_raw_command raw;
	memset(&raw, 0, sizeof raw);
	raw.nwords = b->words.n;
	raw.words = b->words.v;
	raw.nassigns = b->assigns.n;
	raw.assigns = b->assigns.v;
	raw.nredirects = b->nredirs;
	raw.redirects = b->redirs;
	raw.connector = c->connector ? c->connector : "";
	raw.pipeline =
	    c->pipeline == SIZE_MAX ? ctx->next_pipeline++ : c->pipeline;
	raw.origin = c->origin;
	raw.parent = c->parent;
	raw.depth = c->depth;
	raw.function_name = c->function_name;
	raw.flags = b->flags;
	if (c->background)
		raw.flags |= LOCUS_CMD_BACKGROUND;
	if (c->function_name)
		raw.flags |= LOCUS_CMD_FUNCTION_DEF;
	if (t->top) {
		raw.start = ts_node_start_byte(span_node);
		raw.end = ts_node_end_byte(span_node);
	} else {
		raw.start = t->range_start;
		raw.end = t->range_end;
	}
	raw.stdin_kind = b->stdin_kind;
	raw.stdin_text = b->stdin_text;
	raw.stdin_flags = b->stdin_flags;
	raw.stdin_producer = NONE;
	if (c->piped) {
		raw.flags |= LOCUS_CMD_PIPED_IN;
		if (raw.stdin_kind == LP_STDIN_NONE) {
			raw.stdin_kind = LP_STDIN_PIPE;
			raw.stdin_producer = c->producer;
		}
	}
	lp_checks_command(t, &raw);

	/* fork bomb bookkeeping */
	if (raw.nwords && !(raw.words[0].flags & LOCUS_WORD_DYNAMIC) &&
	    raw.words[0].value) {
		const char *name = raw.words[0].value;
		if (c->function_name && !strcmp(name, c->function_name)) {
			if (c->in_pipeline || c->background) {
				lp_func *f = func_find(t, name);
				if (f)
					f->self_spawn = true;
			}
		} else if (t->nfuncs) {
			lp_func *f = func_find(t, name);
			if (f) {
				f->called = true;
				if (raw.nwords > 1)
					f->called_with_args = true;
			}
		}
	}
	if (c->function_name && t->nfuncs) {
		bool reads = false;
		for (size_t i = 0; i < raw.nwords && !reads; i++)
			reads = reads_positional(raw.words[i].text);
		for (size_t i = 0; i < raw.nassigns && !reads; i++)
			reads = reads_positional(raw.assigns[i].text);
		for (size_t i = 0; i < raw.nredirects && !reads; i++)
			reads = raw.redirects[i].target_flags &
			            LOCUS_WORD_DYNAMIC &&
			        reads_positional(raw.redirects[i].target);
		lp_func *f = reads ? func_find(t, c->function_name) : NULL;
		if (f)
			f->uses_args = true;
	}
	size_t idx = lp_emit(ctx, &raw);
	log_emit(w, idx, c->scope);
	return idx;
}

/* The command's substitutions onto the stack; the command is done with
   its scratch. */
static void push_substs(walker *w, cmd_build *b, const sctx *c, size_t idx)
{
	sort_nodes(b->subst.v, b->subst.n);
	sctx s = subst_ctx(c, idx);
	for (size_t i = b->subst.n; i > 0; i--)
		push_subst(w, b->subst.v[i - 1], &s);
	list_return(&b->wn);
	list_return(&b->subst);
}

/* Resolve stdin: own redirects beat the enclosing statement's, which beat
   outer compound statements' (bash applies the innermost last). */
static void chain_redirects(walker *w, cmd_build *b, const redir_chain *ch)
{
	for (; ch; ch = ch->next) {
		lp_stdin_kind sk = LP_STDIN_NONE;
		const char *st = NULL;
		uint32_t sf = 0;
		build_statement_redirects(w, b, ch->node, false, &sk, &st, &sf);
		if (b->stdin_kind == LP_STDIN_NONE && sk != LP_STDIN_NONE) {
			b->stdin_kind = sk;
			b->stdin_text = st;
			b->stdin_flags = sf;
		}
	}
}

/* What feeds a command's stdin as its redirects are read. */
typedef struct cmd_stdin {
	lp_stdin_kind kind;
	const char *text;
	uint32_t flags;
} cmd_stdin;

/* A redirect among a command's children (emit_command): `sh 0<<<'rm -rf
   /'`, where the grammar reads the descriptor of a here-string as an
   argument (found by the oracle).  Digits glued to the operator are the
   descriptor: taken back from argv so that fd 0 feeds stdin as `<<<`. */
static void command_redirect(walker *w, cmd_build *b, TSNode ch, cmd_stdin *in)
{
	int gfd = glued_fd(w, b, ch);
	if (gfd == -2)
		lp_unparsed(w->ctx,
		            "a descriptor before a redirect read as an "
		            "argument at byte %u (misparse)",
		            ts_node_start_byte(ch));
	if (gfd >= 0)
		b->wn.n--;
	cmd_stdin in0 = *in;
	size_t nr0 = b->nredirs;
	build_redirect(w, b, ch, true, &in->kind, &in->text, &in->flags);
	if (gfd >= 0 && b->nredirs > nr0)
		b->redirs[b->nredirs - 1].fd = gfd;
	if (gfd > 0)
		*in = in0; /* 3<<<x is not stdin */
}

/* A leading NAME=value of a command (emit_command). */
static void command_assignment(walker *w, cmd_build *b, TSNode ch)
{
	const lp_syms *sy = w->sy;
	lp_arena *a = w->ctx->arena;
	lp_word v = {lp_node_text(w->t, ch), lp_node_text(w->t, ch), 0};
	TSNode val = ts_node_child_by_field_id(ch, sy->f_value);
	if (!ts_node_is_null(val)) {
		lp_word vv = lp_word_value(w->t, val, true);
		TSNode nm = ts_node_child_by_field_id(ch, sy->f_name);
		v.value = lp_arena_printf(
		    a, "%s=%s",
		    ts_node_is_null(nm) ? "" : lp_node_text(w->t, nm),
		    vv.value ? vv.value : "");
		v.flags = vv.flags;
		add_node(w, &b->subst, val);
	}
	lp_wordvec_push(a, &b->assigns, v);
}

/* The children of a `command` node: name and arguments (b->wn),
   redirects, assignments, and other named nodes (artefacts). */
static void command_children(walker *w, cmd_build *b, TSNode cmd, cmd_stdin *in,
                             TSNode *artefacts, size_t *nart)
{
	const lp_syms *sy = w->sy;
	TSTreeCursor cur = ts_tree_cursor_new(cmd);
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			TSNode ch = ts_tree_cursor_current_node(&cur);
			TSFieldId fid = ts_tree_cursor_current_field_id(&cur);
			TSSymbol k = ts_node_symbol(ch);
			if (fid == sy->f_name) {
				TSNode inner = ts_node_named_child(ch, 0);
				add_node(w, &b->wn,
				         ts_node_is_null(inner) ? ch : inner);
			} else if (fid == sy->f_argument) {
				add_node(w, &b->wn, ch);
			} else if (fid == sy->f_redirect) {
				command_redirect(w, b, ch, in);
			} else if (k == sy->variable_assignment &&
			           ts_node_is_named(ch)) {
				command_assignment(w, b, ch);
			} else if (ts_node_is_named(ch) && k != sy->comment) {
				/* `echo (x)` puts a subshell here */
				if (*nart < LP_MAX_ARTEFACTS)
					artefacts[(*nart)++] = ch;
				else
					lp_unparsed(
					    w->ctx,
					    "more than %d other nodes in "
					    "one command",
					    LP_MAX_ARTEFACTS);
			}
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
}

/* The redirects of the redirected_statement `rs` around a command. */
static void statement_redirects(walker *w, cmd_build *b, TSNode rs,
                                cmd_stdin *in)
{
	const lp_syms *sy = w->sy;
	if (b->wn.n > 0 && ts_node_symbol(b->wn.v[b->wn.n - 1]) == sy->number) {
		/* `cat 0<x`: the descriptor is read as an argument of the
		   body and the redirect hangs on the statement */
		uint32_t end = ts_node_end_byte(b->wn.v[b->wn.n - 1]);
		uint32_t rc = ts_node_child_count(rs);
		for (uint32_t i = 0; i < rc; i++) {
			TSNode r = ts_node_child(rs, i);
			if (ts_node_start_byte(r) == end &&
			    ts_node_symbol(r) != sy->command) {
				lp_unparsed(w->ctx,
				            "a descriptor before a "
				            "redirect read as an argument "
				            "at byte %u (misparse)",
				            end);
				break;
			}
		}
	}
	cmd_stdin st = {LP_STDIN_NONE, NULL, 0};
	build_statement_redirects(w, b, rs, true, &st.kind, &st.text,
	                          &st.flags);
	if (in->kind == LP_STDIN_NONE && st.kind != LP_STDIN_NONE)
		*in = st;
}

/* The dropped `-` words before byte `limit` into argv, in source order. */
static void push_dashes(walker *w, cmd_build *b, uint32_t limit)
{
	for (; b->dash_next < b->ndashes && b->dashes[b->dash_next] < limit;
	     b->dash_next++) {
		lp_word d = {"-", "-", 0};
		lp_wordvec_push(w->ctx->arena, &b->words, d);
	}
}

static void note_dash(walker *w, cmd_build *b, uint32_t at)
{
	if (b->ndashes == LP_MAX_DASHES) {
		lp_unparsed(w->ctx,
		            "more than %d words the parse tree dropped in one "
		            "command",
		            LP_MAX_DASHES);
		return;
	}
	b->dashes[b->ndashes++] = at;
}

/*
 * tree-sitter-bash drops a lone `-` word before a descriptor redirect or
 * `<<` (`cat a - 2>/dev/null` and `tar xf - <<EOF` have no `-` in the
 * tree; `-<<EOF` is one operator token): bash passes it in argv, so the
 * walk puts it back from the bytes between the children of the
 * redirected_statement `rs` around the command (lp_gap_dashes; the tree
 * pass's checks made any other text there unparsed).
 */
static void dropped_dashes(walker *w, cmd_build *b, TSNode rs)
{
	uint32_t cc = ts_node_child_count(rs);
	uint32_t prev = 0;
	for (uint32_t i = 0; i < cc; i++) {
		TSNode ch = ts_node_child(rs, i);
		uint32_t s = ts_node_start_byte(ch);
		if (i > 0 && s > prev) {
			uint32_t pos[LP_MAX_DASHES];
			size_t n = 0;
			if (lp_gap_dashes(w->t->src, prev, s, pos,
			                  LP_MAX_DASHES, &n))
				for (size_t k = 0; k < n && k < LP_MAX_DASHES;
				     k++)
					note_dash(w, b, pos[k]);
			if (n > LP_MAX_DASHES)
				note_dash(w, b, s); /* fails closed */
		}
		prev = ts_node_end_byte(ch);
		if (ts_node_symbol(ch) != w->sy->heredoc_redirect)
			continue;
		TSNode op = ts_node_child(ch, 0);
		if (!ts_node_is_null(op) && !ts_node_is_named(op) &&
		    s < w->t->len && w->t->src[s] == '-')
			note_dash(w, b, s);
	}
}

/* argv: name, arguments, extra redirect destinations and heredoc
   arguments, in source order, as bash collects them (b->wn to
   b->words). */
static void command_argv(walker *w, cmd_build *b)
{
	const lp_syms *sy = w->sy;
	lp_arena *a = w->ctx->arena;
	sort_nodes(b->wn.v, b->wn.n);
	uint32_t prev_end = 0, word_start = 0, dollar = UINT32_MAX;
	for (size_t i = 0; i < b->wn.n; i++) {
		TSNode wn = b->wn.v[i];
		push_dashes(w, b, ts_node_start_byte(wn));
		if (!ts_node_is_named(wn) && text_is(w, wn, "$") &&
		    i + 1 < b->wn.n &&
		    ts_node_start_byte(b->wn.v[i + 1]) ==
		        ts_node_end_byte(wn)) {
			/* $"..." : translated string; the word starts at $ */
			dollar = ts_node_start_byte(wn);
			continue;
		}
		/* The grammar also glues what precedes $"..." into one
		   anonymous `$` token (`-r$"f"` is `-r$` and "f"; found by
		   fuzz_bypass): the word is the text before the $, and the
		   string joins it.  Only plain characters are taken as they
		   are; anything else fails closed. */
		if (!ts_node_is_named(wn) && i + 1 < b->wn.n &&
		    ts_node_start_byte(b->wn.v[i + 1]) ==
		        ts_node_end_byte(wn) &&
		    ts_node_end_byte(wn) - ts_node_start_byte(wn) > 1 &&
		    w->t->src[ts_node_end_byte(wn) - 1] == '$' &&
		    (ts_node_symbol(b->wn.v[i + 1]) == sy->string ||
		     (ts_node_symbol(b->wn.v[i + 1]) == sy->concatenation &&
		      ts_node_symbol(ts_node_child(b->wn.v[i + 1], 0)) ==
		          sy->string))) {
			uint32_t st0 = ts_node_start_byte(wn);
			size_t plen = ts_node_end_byte(wn) - 1 - st0;
			const char *pre = w->t->src + st0;
			if (strspn(pre,
			           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
			           "OPQRSTUVWXYZ0123456789_.,:@%+=/-") < plen) {
				lp_unparsed(w->ctx,
				            "unusual text before $\"...\" "
				            "at byte %u (misparse)",
				            st0);
				continue;
			}
			bool glue = i > 0 && continuation_gap(w, prev_end, st0);
			lp_word pw = {lp_arena_strndup(a, pre, plen),
			              lp_arena_strndup(a, pre, plen + 1), 0};
			if (glue && b->words.n > 0) {
				lp_word *prev = &b->words.v[b->words.n - 1];
				prev->value = lp_arena_printf(
				    a, "%s%s", prev->value, pw.value);
			} else {
				lp_wordvec_push(a, &b->words, pw);
				word_start = st0;
			}
			dollar = UINT32_MAX;
			/* the string right after is glued by the gap rule */
			prev_end = ts_node_end_byte(wn);
			continue;
		}
		uint32_t wstart =
		    dollar != UINT32_MAX ? dollar : ts_node_start_byte(wn);
		dollar = UINT32_MAX;
		size_t before = b->words.n;
		lp_word_fields(w->t, wn, &b->words);
		add_node(w, &b->subst, wn);
		/* misparse S1: `r\<newline>m` is one word to bash; tree-sitter
		   splits it.  Join the first field onto the previous word. */
		bool join = i > 0 && before > 0 && b->words.n > before &&
		            continuation_gap(w, prev_end, wstart);
		prev_end = ts_node_end_byte(wn);
		if (!join)
			word_start = wstart;
		if (join) {
			lp_word *prev = &b->words.v[before - 1];
			lp_word *cur = &b->words.v[before];
			uint32_t st = word_start;
			uint32_t en = ts_node_end_byte(wn);
			prev->value =
			    lp_arena_printf(a, "%s%s", prev->value, cur->value);
			prev->text =
			    lp_arena_strndup(a, w->t->src + st, en - st);
			prev->flags |= cur->flags;
			memmove(cur, cur + 1,
			        (b->words.n - before - 1) * sizeof *cur);
			b->words.n--;
		}
	}
	push_dashes(w, b, UINT32_MAX);
}

/* Heredoc continuations: `cat <<EOF | sh`, `cat <<EOF && x` (the
   grammar puts what follows the delimiter's line inside the heredoc
   redirect of `rs`); mark0 is the log mark of the command. */
static void heredoc_continuations(walker *w, TSNode rs, const sctx *c,
                                  size_t mark0)
{
	const lp_syms *sy = w->sy;
	TSTreeCursor cur = ts_tree_cursor_new(rs);
	TSNode conts[LP_MAX_HEREDOC_CONTS];
	const char *cconn[LP_MAX_HEREDOC_CONTS];
	size_t nc = 0;
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			TSNode r = ts_tree_cursor_current_node(&cur);
			if (ts_node_symbol(r) != sy->heredoc_redirect)
				continue;
			const char *op = NULL;
			TSTreeCursor rc = ts_tree_cursor_new(r);
			if (ts_tree_cursor_goto_first_child(&rc)) {
				do {
					TSNode x =
					    ts_tree_cursor_current_node(&rc);
					TSFieldId fid =
					    ts_tree_cursor_current_field_id(
					        &rc);
					if (nc >= LP_MAX_HEREDOC_CONTS) {
						/* what follows would not
						   be walked: fail closed */
						lp_unparsed(
						    w->ctx,
						    "more than %d "
						    "commands after "
						    "a heredoc",
						    LP_MAX_HEREDOC_CONTS);
						break;
					}
					if (fid == sy->f_operator) {
						op = connector_of(w, x);
					} else if (fid == sy->f_right) {
						conts[nc] = x;
						cconn[nc++] =
						    op ? op : CONN_SEMI;
					} else if (ts_node_is_named(x) &&
					           ts_node_symbol(x) ==
					               sy->pipeline) {
						conts[nc] = x;
						cconn[nc++] = NULL;
					}
				} while (ts_tree_cursor_goto_next_sibling(&rc));
			}
			ts_tree_cursor_delete(&rc);
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
	for (size_t i = nc; i > 0; i--) {
		TSNode x = conts[i - 1];
		sctx cc = *c;
		cc.piped = false;
		cc.producer = NONE;
		cc.redirs = c->redirs;
		if (cconn[i - 1]) {
			cc.connector = cconn[i - 1];
			cc.pipeline = SIZE_MAX;
			cc.in_pipeline = false;
			push_node(w, F_STMT, x, &cc);
		} else {
			/* the pipeline's first token is `|`: F_PIPE
			   feeds the next stage from cat */
			cc.in_pipeline = true;
			push_seq(w, F_PIPE, x, &cc, false, mark0);
		}
	}
}

/* A simple command; `rs` is the redirected_statement whose body it is (or
   null). */
static void emit_command(walker *w, TSNode cmd, TSNode rs, const sctx *c)
{
	cmd_build b;
	cmd_begin(w, &b);
	bool have_cmd = !ts_node_is_null(cmd);
	bool have_rs = !ts_node_is_null(rs);
	cmd_stdin in = {LP_STDIN_NONE, NULL, 0};
	/* other named children (`echo (x)` puts a subshell here): their
	   substitutions are walked; past the cap the line fails closed */
	TSNode artefacts[LP_MAX_ARTEFACTS];
	size_t nart = 0;
	if (have_cmd)
		command_children(w, &b, cmd, &in, artefacts, &nart);
	if (have_rs)
		statement_redirects(w, &b, rs, &in);
	if (have_rs && have_cmd)
		dropped_dashes(w, &b, rs);
	b.stdin_kind = in.kind;
	b.stdin_text = in.text;
	b.stdin_flags = in.flags;
	chain_redirects(w, &b, c->redirs);
	command_argv(w, &b);
	for (size_t i = 0; i < nart; i++)
		add_node(w, &b.subst, artefacts[i]);

	size_t mark0 = w->nlog;
	size_t idx = finish(w, &b, have_rs ? rs : cmd, c);
	if (have_rs)
		heredoc_continuations(w, rs, c, mark0);
	push_substs(w, &b, c, idx);
}

static void emit_assignments(walker *w, TSNode n, const sctx *c)
{
	const lp_syms *sy = w->sy;
	lp_arena *a = w->ctx->arena;
	cmd_build b;
	cmd_begin(w, &b);
	TSNode one[1] = {n};
	size_t cnt = 1;
	TSNode *list = one;
	TSNode *many = NULL;
	if (ts_node_symbol(n) == sy->variable_assignments) {
		cnt = ts_node_named_child_count(n);
		many = lp_arena_alloc_raw(a, (cnt + 1) * sizeof *many);
		if (!many)
			return;
		for (uint32_t i = 0; i < cnt; i++)
			many[i] = ts_node_named_child(n, i);
		list = many;
	}
	for (size_t i = 0; i < cnt; i++) {
		TSNode as = list[i];
		if (ts_node_symbol(as) != sy->variable_assignment)
			continue;
		TSNode nm = ts_node_child_by_field_id(as, sy->f_name);
		TSNode val = ts_node_child_by_field_id(as, sy->f_value);
		lp_word v;
		v.text = lp_node_text(w->t, as);
		v.flags = 0;
		const char *value = "";
		if (!ts_node_is_null(val)) {
			lp_word vv = lp_word_value(w->t, val, true);
			value = vv.value ? vv.value : "";
			v.flags = vv.flags;
			add_node(w, &b.subst, val);
		}
		if (!ts_node_is_null(nm) && ts_node_symbol(nm) == sy->subscript)
			add_node(w, &b.subst, nm);
		v.value = lp_arena_printf(
		    a, "%s=%s",
		    ts_node_is_null(nm) ? "" : lp_node_text(w->t, nm), value);
		lp_wordvec_push(a, &b.assigns, v);
	}
	b.flags |= LOCUS_CMD_ASSIGN_ONLY;
	size_t idx = finish(w, &b, n, c);
	push_substs(w, &b, c, idx);
}

/* export/declare/local/readonly/typeset/unset: bash runs them as builtins
   with these words. */
static void emit_declaration(walker *w, TSNode n, const sctx *c)
{
	const lp_syms *sy = w->sy;
	lp_arena *a = w->ctx->arena;
	cmd_build b;
	cmd_begin(w, &b);
	uint32_t cc = ts_node_child_count(n);
	bool have_kw = false;
	for (uint32_t i = 0; i < cc; i++) {
		TSNode ch = ts_node_child(n, i);
		if (!ts_node_is_named(ch)) {
			if (!have_kw) {
				const char *kw = lp_node_text(w->t, ch);
				lp_word k = {kw, kw, 0};
				lp_wordvec_push(a, &b.words, k);
				have_kw = true;
			}
			continue;
		}
		TSSymbol k = ts_node_symbol(ch);
		if (k == sy->comment)
			continue;
		if (k == sy->variable_assignment) {
			TSNode nm = ts_node_child_by_field_id(ch, sy->f_name);
			TSNode val = ts_node_child_by_field_id(ch, sy->f_value);
			lp_word v = {NULL, lp_node_text(w->t, ch), 0};
			const char *value = "";
			if (!ts_node_is_null(val)) {
				lp_word vv = lp_word_value(w->t, val, true);
				value = vv.value ? vv.value : "";
				v.flags = vv.flags;
			}
			v.value = lp_arena_printf(
			    a, "%s=%s",
			    ts_node_is_null(nm) ? "" : lp_node_text(w->t, nm),
			    value);
			lp_wordvec_push(a, &b.words, v);
		} else if (k == sy->variable_name) {
			const char *s = lp_node_text(w->t, ch);
			lp_word v = {s, s, 0};
			lp_wordvec_push(a, &b.words, v);
		} else {
			lp_word_fields(w->t, ch, &b.words);
		}
		add_node(w, &b.subst, ch);
	}
	size_t idx = finish(w, &b, n, c);
	push_substs(w, &b, c, idx);
}

/* `[ ... ]` and `[[ ... ]]`: listed as a command named `[` / `[[` whose
   argv are the test's words in source order, so that the labeller and the
   permission rules see it like `test`.  Word-like nodes are taken whole
   (their substitutions are walked after the command); operators and the
   brackets are anonymous tokens taken as written. */
static bool test_word_kind(const lp_syms *sy, TSSymbol k)
{
	return lp_kind_is(sy, k, LP_KIND_TEST_WORD);
}

static void emit_test(walker *w, TSNode n, const sctx *c)
{
	const lp_syms *sy = w->sy;
	lp_arena *a = w->ctx->arena;
	cmd_build b;
	cmd_begin(w, &b);
	lp_cursor cur;
	lp_cursor_init(&cur, n);
	bool more = lp_cursor_next(&cur, true);
	while (more) {
		TSNode x = lp_cursor_node(&cur);
		TSSymbol k = ts_node_symbol(x);
		bool descend = false;
		if (!ts_node_is_named(x)) {
			const char *s = lp_node_text(w->t, x);
			lp_word v = {s, s, 0};
			if (s && *s)
				lp_wordvec_push(a, &b.words, v);
		} else if (test_word_kind(sy, k)) {
			lp_word_fields(w->t, x, &b.words);
			add_node(w, &b.subst, x);
		} else if (k != sy->comment) {
			/* binary/unary/parenthesized expressions: their
			   operands and operators, in order */
			descend = true;
		}
		more = lp_cursor_next(&cur, descend);
	}
	lp_cursor_free(&cur);
	if (b.words.n == 0)
		return;
	chain_redirects(w, &b, c->redirs);
	w->t->test_keyword = true;
	size_t idx = finish(w, &b, n, c);
	w->t->test_keyword = false;
	push_substs(w, &b, c, idx);
}

/* The S7 misparse puts a command or redirected_statement directly under
   test_command (checks.c makes that line unparsed). */
static bool test_is_misparse(const lp_syms *sy, TSNode n)
{
	uint32_t cc = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < cc; i++) {
		TSSymbol k = ts_node_symbol(ts_node_named_child(n, i));
		if (k == sy->command || k == sy->redirected_statement)
			return true;
	}
	return false;
}

static void handle_redirected(walker *w, TSNode rs, const sctx *c)
{
	const lp_syms *sy = w->sy;
	TSNode body = ts_node_child_by_field_id(rs, sy->f_body);
	sctx bc = *c;
	/* A heredoc with `| cmd` after its delimiter continues the pipeline
	   of the body: share the number. */
	uint32_t cc = ts_node_child_count(rs);
	for (uint32_t i = 0; i < cc; i++) {
		TSNode r = ts_node_child(rs, i);
		if (ts_node_symbol(r) != sy->heredoc_redirect)
			continue;
		uint32_t rc = ts_node_named_child_count(r);
		for (uint32_t j = 0; j < rc; j++) {
			TSNode x = ts_node_named_child(r, j);
			if (ts_node_symbol(x) == sy->pipeline) {
				if (bc.pipeline == SIZE_MAX)
					bc.pipeline = w->ctx->next_pipeline++;
				bc.in_pipeline = true;
			}
		}
	}
	if (ts_node_is_null(body) || ts_node_symbol(body) == sy->command) {
		emit_command(w, body, rs, &bc);
		return;
	}
	/* Compound body: the redirects apply to every command inside. */
	redir_chain *ch = lp_arena_alloc_raw(w->ctx->arena, sizeof *ch);
	if (!ch)
		return;
	ch->node = rs;
	ch->next = c->redirs;
	bc.redirs = ch;
	/* Words after a redirect's target belong to the last simple
	   command of a list or pipeline (`a && git >/dev/null reset
	   --hard`), and are a syntax error after a compound command; the
	   grammar hangs them on the redirect of the whole body (found by
	   fuzz_bypass).  Fail closed. */
	for (uint32_t i = 0; i < cc; i++) {
		TSNode r = ts_node_child(rs, i);
		if (ts_node_symbol(r) != sy->file_redirect)
			continue;
		unsigned ndest = 0;
		uint32_t rn = ts_node_child_count(r);
		for (uint32_t j = 0; j < rn; j++)
			if (ts_node_field_name_for_child(r, j) &&
			    !strcmp(ts_node_field_name_for_child(r, j),
			            "destination"))
				ndest++;
		if (ndest > 1) {
			lp_unparsed(w->ctx, "words after a redirect of a list, "
			                    "pipeline or compound command "
			                    "(misparse)");
			break;
		}
	}
	/* Heredoc arguments after a compound command cannot be argv. */
	for (uint32_t i = 0; i < cc; i++) {
		TSNode r = ts_node_child(rs, i);
		if (ts_node_symbol(r) != sy->heredoc_redirect)
			continue;
		if (!ts_node_is_null(
		        ts_node_child_by_field_id(r, sy->f_argument)) ||
		    !ts_node_is_null(
		        ts_node_child_by_field_id(r, sy->f_right)) ||
		    bc.in_pipeline)
			lp_unparsed(w->ctx,
			            "heredoc continuation after a compound "
			            "command (unsupported)");
	}
	/* Substitutions in the redirect targets, after the body. */
	cmd_build b;
	cmd_begin(w, &b);
	lp_stdin_kind sk = LP_STDIN_NONE;
	const char *st = NULL;
	uint32_t sf = 0;
	build_statement_redirects(w, &b, rs, true, &sk, &st, &sf);
	push_substs(w, &b, c, NONE);
	push_node(w, F_STMT, body, &bc);
}

static void handle_function(walker *w, TSNode n, const sctx *c)
{
	const lp_syms *sy = w->sy;
	TSNode nm = ts_node_child_by_field_id(n, sy->f_name);
	TSNode body = ts_node_child_by_field_id(n, sy->f_body);
	const char *name = "";
	if (!ts_node_is_null(nm)) {
		lp_word v = lp_word_value(w->t, nm, false);
		name = v.value ? v.value : "";
	}
	func_add(w->t, name);
	sctx fc;
	memset(&fc, 0, sizeof fc);
	fc.origin = LOCUS_ORIGIN_FUNCTION;
	fc.parent = c->parent;
	fc.depth = c->depth;
	fc.function_name = name;
	fc.connector = c->connector;
	fc.producer = NONE;
	fc.pipeline = SIZE_MAX;
	fc.scope = ++w->next_scope;
	fc.redirs = c->redirs;
	if (!ts_node_is_null(ts_node_child_by_field_id(n, sy->f_redirect))) {
		redir_chain *ch = lp_arena_alloc_raw(w->ctx->arena, sizeof *ch);
		if (ch) {
			ch->node = n;
			ch->next = c->redirs;
			fc.redirs = ch;
		}
	}
	push_node(w, F_STMT, body, &fc);
}

/* ---- frames --------------------------------------------------------------- */

static void do_stmt(walker *w, frame *f)
{
	const lp_syms *sy = w->sy;
	TSNode n = f->node;
	TSSymbol k = ts_node_symbol(n);
	if (!ts_node_is_named(n))
		return;
	if (k == sy->command) {
		TSNode null = {0};
		emit_command(w, n, null, &f->c);
	} else if (k == sy->redirected_statement) {
		handle_redirected(w, n, &f->c);
	} else if (k == sy->pipeline) {
		sctx pc = f->c;
		if (pc.pipeline == SIZE_MAX)
			pc.pipeline = w->ctx->next_pipeline++;
		pc.in_pipeline = true;
		push_seq(w, F_PIPE, n, &pc, true, w->nlog);
	} else if (k == sy->function_definition) {
		handle_function(w, n, &f->c);
	} else if (k == sy->variable_assignment ||
	           k == sy->variable_assignments) {
		emit_assignments(w, n, &f->c);
	} else if (k == sy->declaration_command || k == sy->unset_command) {
		emit_declaration(w, n, &f->c);
	} else if (k == sy->test_command && !test_is_misparse(sy, n)) {
		/* (a command under the test is the S7 misparse: checks.c
		   makes the line unparsed and the generic walk lists it) */
		emit_test(w, n, &f->c);
	} else if (k == sy->comment) {
		return;
	} else if (ts_node_child_count(n) > 0) {
		/* every other container, ERROR included: its statements are
		   walked, the rest searched for substitutions */
		push_children(w, F_SEQ, n, &f->c);
	} else {
		push_subst(w, n, &f->c);
	}
}

static void do_seq(walker *w, frame *f)
{
	const lp_syms *sy = w->sy;
	TSNode ch = f->node;
	frame g = *f; /* takes over the cursor */
	TSNode next = {0};
	if (ts_tree_cursor_goto_next_sibling(&g.cur)) {
		next = ts_tree_cursor_current_node(&g.cur);
		g.node = next;
		g.has_node = true;
	} else {
		ts_tree_cursor_delete(&g.cur);
		g.has_cur = false;
		g.has_node = false;
	}
	if (!ts_node_is_named(ch)) {
		const char *conn = connector_of(w, ch);
		if (conn) {
			g.pending = conn;
			if (f->type == F_PIPE &&
			    (conn == CONN_PIPE || conn == CONN_PIPE_ERR))
				g.pending_pipe = true;
		}
		if (g.has_node && !push(w, g))
			ts_tree_cursor_delete(&g.cur);
		return;
	}
	TSSymbol k = ts_node_symbol(ch);
	if (k == sy->comment) {
		if (g.has_node && !push(w, g))
			ts_tree_cursor_delete(&g.cur);
		return;
	}
	if (!is_statement(sy, k) && !ts_node_is_error(ch)) {
		if (g.has_node && !push(w, g))
			ts_tree_cursor_delete(&g.cur);
		push_subst(w, ch, &f->c);
		return;
	}
	sctx cc = f->c;
	if (f->type == F_PIPE && g.pending_pipe) {
		cc.connector = g.pending;
		cc.piped = true;
		cc.producer = producer_since(w, f->mark, f->c.scope);
	} else if (!f->first) {
		cc.connector = g.pending ? g.pending : CONN_SEMI;
		cc.piped = false;
		cc.producer = NONE;
	}
	/* `stmt &`: the whole statement runs in the background */
	if (!ts_node_is_null(next) && !ts_node_is_named(next) &&
	    text_is(w, next, "&"))
		cc.background = true;
	g.first = false;
	g.pending = NULL;
	g.pending_pipe = false;
	g.mark = w->nlog;
	if (g.has_node && !push(w, g))
		ts_tree_cursor_delete(&g.cur);
	push_node(w, F_STMT, ch, &cc);
}

static void scan_heredoc_backticks(walker *w, TSNode body, const sctx *c)
{
	lp_tree *t = w->t;
	lp_arena *a = w->ctx->arena;
	/* the literal parts of the body, other parts blanked */
	lp_buf lit = {0};
	uint32_t pos = ts_node_start_byte(body);
	uint32_t end = ts_node_end_byte(body);
	uint32_t cc = ts_node_child_count(body);
	for (uint32_t i = 0; i <= cc; i++) {
		uint32_t cs =
		    i < cc ? ts_node_start_byte(ts_node_child(body, i)) : end;
		if (cs > pos)
			lp_buf_append(a, &lit, t->src + pos, cs - pos);
		if (i == cc)
			break;
		TSNode ch = ts_node_child(body, i);
		uint32_t ce = ts_node_end_byte(ch);
		if (ts_node_symbol(ch) == t->sy->heredoc_content)
			lp_buf_append(a, &lit, t->src + cs, ce - cs);
		else
			lp_buf_putc(a, &lit, ' ');
		pos = ce;
	}
	if (!lit.data || !memchr(lit.data, '`', lit.len))
		return;
	size_t i = 0;
	while (i < lit.len) {
		if (lit.data[i] == '\\') {
			i += 2;
			continue;
		}
		if (lit.data[i] != '`') {
			i++;
			continue;
		}
		size_t j = i + 1;
		bool nested = false;
		while (j < lit.len && lit.data[j] != '`') {
			if (lit.data[j] == '\\') {
				/* misparse S8: `\`` inside backticks opens a
				   nested substitution once the outer text is
				   re-read; the nested parse below sees it as
				   a plain word */
				if (j + 1 < lit.len && lit.data[j + 1] == '`')
					nested = true;
				j++;
			}
			j++;
		}
		if (nested)
			lp_unparsed(w->ctx, "escaped backticks inside a "
			                    "backtick substitution in a "
			                    "heredoc");
		if (j >= lit.len) {
			lp_unparsed(w->ctx,
			            "unterminated backtick in a heredoc");
			return;
		}
		lp_parse_nested(w->ctx, lit.data + i + 1, j - i - 1,
		                LOCUS_ORIGIN_SUBSTITUTION, c->parent,
		                c->depth + 1);
		i = j + 1;
	}
}

/* A leaf the grammar left as text that may hold a substitution
   (plaintext.c): an expansion's operand, a [[ ]] pattern or regex. */
static bool plain_leaf(walker *w, TSNode x)
{
	TSSymbol k = ts_node_symbol(x);
	/* a raw_string counts too: inside double quotes ("${x:-'`cmd`'}")
	   its quotes are literal characters and bash runs the
	   substitution; lp_leaf_substs() skips it elsewhere */
	if (k != w->sy->word && k != w->sy->regex &&
	    k != w->sy->extglob_pattern && k != w->sy->raw_string)
		return false;
	uint32_t s = ts_node_start_byte(x), e = ts_node_end_byte(x);
	if (e > w->t->len || s >= e)
		return false;
	return memchr(w->t->src + s, '`', e - s) ||
	       memchr(w->t->src + s, '(', e - s);
}

/* The frames pushed since `base`, reversed: pushed in source order, they
   then pop in source order. */
static void reverse_frames(walker *w, size_t base)
{
	for (size_t i = base, j = w->n; i + 1 < j; i++, j--) {
		frame tmp = w->st[i];
		w->st[i] = w->st[j - 1];
		w->st[j - 1] = tmp;
	}
}

/* upstream #325: $((..)) in a heredoc parsed as $( (..) ).  Only the real
   substitutions inside it are walked. */
static void fake_arith_substs(walker *w, const frame *f)
{
	const lp_syms *sy = w->sy;
	size_t base = w->n;
	lp_cursor cur;
	lp_cursor_init(&cur, f->node);
	bool more = lp_cursor_next(&cur, true);
	while (more) {
		TSNode x = lp_cursor_node(&cur);
		TSSymbol xk = ts_node_symbol(x);
		bool subst = xk == sy->command_substitution ||
		             xk == sy->process_substitution;
		if (subst)
			push_subst(w, x, &f->c);
		more = lp_cursor_next(&cur, !subst);
	}
	lp_cursor_free(&cur);
	reverse_frames(w, base);
}

static void do_subst(walker *w, frame *f)
{
	const lp_syms *sy = w->sy;
	TSNode n = f->node;
	TSSymbol k = ts_node_symbol(n);
	if (k == sy->heredoc_body)
		scan_heredoc_backticks(w, n, &f->c);
	if (ts_node_child_count(n) == 0) {
		/* ${x:-`cmd`}, [[ a =~ x$(cmd) ]]: text the grammar left
		   plain (plaintext.c) */
		if (plain_leaf(w, n) &&
		    lp_leaf_substs(w->t, n, f->c.parent, f->c.depth + 1) &&
		    f->c.parent < w->ctx->result->ncommands)
			w->ctx->result->commands[f->c.parent].flags |=
			    LOCUS_CMD_SUBST;
		return;
	}
	bool cs = k == sy->command_substitution,
	     ps = k == sy->process_substitution;
	if (cs && lp_is_fake_arith(w->t, n)) {
		fake_arith_substs(w, f);
		return;
	}
	if (cs || ps ||
	    (is_statement(sy, k) && k != sy->variable_assignment &&
	     k != sy->variable_assignments)) {
		if (!lp_depth_ok(w->ctx, f->c.depth + 1))
			return;
		sctx nc = nested_ctx(w, &f->c,
		                     ps ? LOCUS_ORIGIN_PROCESS_SUBSTITUTION
		                        : LOCUS_ORIGIN_SUBSTITUTION);
		/* `$(<FILE)` reads FILE, `$(>FILE)` truncates it: the
		   grammar hangs the redirect on the substitution (field
		   redirect), a command of no words with that redirect */
		TSNode lone = cs ? ts_node_child_by_field_id(n, sy->f_redirect)
		                 : (TSNode){0};
		if (!ts_node_is_null(lone)) {
			TSNode null = {0};
			emit_command(w, null, n, &nc);
		} else if (cs || ps)
			push_children(w, F_SEQ, n, &nc);
		else
			push_node(w, F_STMT, n, &nc);
		return;
	}
	if (k == sy->heredoc_redirect) {
		/* only the body and nested redirects; `| cmd` and `&& cmd`
		   are statements handled by the walk */
		uint32_t rc = ts_node_named_child_count(n);
		for (uint32_t i = rc; i > 0; i--) {
			TSNode x = ts_node_named_child(n, i - 1);
			TSSymbol xk = ts_node_symbol(x);
			if (xk == sy->heredoc_body || xk == sy->file_redirect)
				push_subst(w, x, &f->c);
		}
		return;
	}
	/* all named children, pushed in reverse so they pop in order */
	size_t base = w->n;
	TSTreeCursor cur = ts_tree_cursor_new(n);
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			TSNode x = ts_tree_cursor_current_node(&cur);
			if (ts_node_is_named(x) &&
			    (ts_node_child_count(x) > 0 || plain_leaf(w, x)))
				push_subst(w, x, &f->c);
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
	reverse_frames(w, base);
}

void lp_walk_tree(lp_tree *t, TSNode root, const char *origin, size_t parent,
                  unsigned depth)
{
	walker w;
	memset(&w, 0, sizeof w);
	w.t = t;
	w.ctx = t->ctx;
	w.sy = t->sy;
	locus_shell_parser *p = w.ctx->parser;
	w.st = lp_spare_take(p, LP_SPARE_FRAMES, &w.cap);
	w.log = lp_spare_take(p, LP_SPARE_LOG, &w.caplog);
	w.words_scratch.v =
	    lp_spare_take(p, LP_SPARE_WORDS, &w.words_scratch.cap);
	w.subst_scratch.v =
	    lp_spare_take(p, LP_SPARE_SUBST, &w.subst_scratch.cap);
	sctx base;
	memset(&base, 0, sizeof base);
	base.origin = origin;
	base.parent = parent;
	base.depth = depth;
	base.connector = "";
	base.producer = NONE;
	base.pipeline = SIZE_MAX;
	push_node(&w, F_STMT, root, &base);
	while (w.n > 0) {
		if (lp_out_of_time(w.ctx))
			break;
		frame f = w.st[--w.n];
		switch (f.type) {
		case F_STMT: do_stmt(&w, &f); break;
		case F_SEQ:
		case F_PIPE: do_seq(&w, &f); break;
		case F_SUBST: do_subst(&w, &f); break;
		}
	}
	/* frames left by a timeout own cursors */
	for (size_t i = 0; i < w.n; i++)
		if (w.st[i].has_cur)
			ts_tree_cursor_delete(&w.st[i].cur);
	for (size_t i = 0; i < t->nfuncs; i++) {
		if (t->funcs[i].self_spawn && t->funcs[i].called)
			w.ctx->result->has_fork_bomb = true;
		if (t->funcs[i].uses_args && t->funcs[i].called_with_args)
			lp_unparsed(w.ctx,
			            "function %s passes its caller's "
			            "arguments to commands in its body",
			            t->funcs[i].name);
	}
	lp_spare_give(p, LP_SPARE_FRAMES, w.st, w.cap, sizeof *w.st);
	lp_spare_give(p, LP_SPARE_LOG, w.log, w.caplog, sizeof *w.log);
	lp_spare_give(p, LP_SPARE_WORDS, w.words_scratch.v, w.words_scratch.cap,
	              sizeof(TSNode));
	lp_spare_give(p, LP_SPARE_SUBST, w.subst_scratch.v, w.subst_scratch.cap,
	              sizeof(TSNode));
}
