/*
 * parser/vars.c - same-line constants.
 *
 * `X=rm; $X -rf /` runs rm, so a name assigned once (or always to the same
 * value) with a static value, unconditionally, before its use, resolves to
 * that value.  Everything else stays dynamic, and dynamic is the safe
 * side: a dynamic command name makes the line unparsed.
 *
 * A visitor of the one tree pass (treepass.c: lp_vars_node() on every node,
 * with the frames of its ancestors) collects assignments and every way a
 * name can change at run time:
 * assignments that are conditional or inside a subshell / function / loop,
 * `+=`, prefix assignments (FOO=1 cmd sets it for cmd only), for/select
 * variables, read/mapfile/getopts/printf -v/let/declare/local/export with
 * a dynamic value, unset, (( x++ )), ${x:=..}.  `eval`, `source` and `.`
 * can assign anything: when they appear no name resolves.
 *
 * Subshells scope their assignments (bash forks for `( )`, `$( )`, `<( )`
 * and every stage of a pipeline): an assignment that runs unconditionally
 * inside one holds there, from its end to the end of the scope
 * (`(v=rm; gdb --args $v -rf /)` runs rm), and never after it.  Outside
 * the scope the name is dynamic, as any assignment the pass cannot follow
 * (bash would keep the outer value, or with `shopt -s lastpipe` the last
 * stage's: dynamic is right for both).  Each entry belongs to one scope;
 * a use is resolved by the innermost scope holding an entry for its name,
 * found from the use's own ancestors (recorded per expansion during the
 * pass, so heredoc text that lies inside a scope's bytes but belongs to a
 * command outside it is not mistaken for it).  A function body is not a
 * scope: it runs wherever it is called, so a name assigned in one never
 * resolves anywhere (`fdyn`).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "walk.h"

typedef struct var_entry {
	const char *name;
	size_t nlen;
	uint32_t scope; /* index in lp_vars.scopes; 0: the script itself */
	bool fdyn;      /* scope 0 only: assigned in a function body, so
	                   dynamic in every scope */
	const char *value;
	size_t after; /* uses at or after this byte see the value */
	bool dynamic;
	bool nonnum; /* assigned something other than a number literal or an
	                 arithmetic result: as arithmetic its value may be an
	                 expression (a[$(cmd)]) */
	bool numset; /* assigned a number literal or by arithmetic */
} var_entry;

/* A subshell scope: bytes [start, end) of the script, inside `parent`. */
typedef struct var_scope {
	uint32_t start, end, parent;
} var_scope;

/* An expansion at byte `pos`, inside scope `scope` (not 0). */
typedef struct var_use {
	uint32_t pos, scope;
} var_use;

struct lp_vars {
	var_entry *tab;
	size_t cap, n;
	var_scope *scopes; /* [0] is the whole script */
	size_t nscopes, capscopes;
	var_use *uses; /* expansions inside a scope, sorted by pos */
	size_t nuses, capuses;
	bool uses_unsorted;
	uint32_t cur_scope; /* of the node being visited */
	bool cur_func;      /* ... which is in a function body of that scope */
	bool ifs;
	bool all_dynamic;
	size_t dyn_after; /* eval/source seen: uses after here are dynamic */
	const char *sensitive; /* first name of sensitive_names assigned */
	bool unsetting;   /* marking `unset` operands (not an assignment) */
	bool arith;       /* marking a name assigned by arithmetic */
	bool arith_reads; /* ... that reads its old value first (x++, x += 1,
	                     a bare x): not an assignment of a number */
	bool int_decl;    /* declare -i seen: assignments are arithmetic */
};

/* Names bash sets itself, whatever the line assigned: `$_` is the last
   argument of the previous command, read/select set REPLY, mapfile
   MAPFILE, getopts OPTARG/OPTIND, [[ =~ ]] BASH_REMATCH, cd PWD/OLDPWD.
   They never resolve to a constant. */
/* clang-format off */
static const char *const bash_set_names[] = {
	"_", "REPLY", "MAPFILE", "OPTARG", "OPTIND", "BASH_REMATCH", "COPROC",
	"PWD", "OLDPWD", "RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID",
	"FUNCNAME", "BASH_COMMAND", "PIPESTATUS", "HISTCMD", "EPOCHREALTIME",
	"EPOCHSECONDS", "BASH_ARGV", "BASH_ARGC", "BASH_LINENO",
	"BASH_SOURCE", "BASH_SUBSHELL", NULL,
};
/* clang-format on */

/* Names whose value decides what later commands run: the command hash
   table and alias table (`BASH_CMDS[ls]=/bin/rm; ls` runs rm), prompts
   (PS4 is expanded, command substitution included, for every `set -x`
   trace line; PS0-PS2 and PROMPT_COMMAND in interactive shells), and
   startup files / options read by child shells.  Assigning one, in any
   way the pre-pass sees, makes the line unparsed. */
/* clang-format off */
static const char *const sensitive_names[] = {
	"BASH_CMDS", "BASH_ALIASES", "PS0", "PS1", "PS2", "PS3", "PS4",
	"PROMPT_COMMAND", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS",
	/* where a relative `cd DIR` goes; `cd -` goes to OLDPWD, `cd ..`
	   climbs from $PWD, popd and pushd +N to DIRSTACK's entries */
	"CDPATH", "OLDPWD", "PWD", "DIRSTACK", NULL,
};
/* clang-format on */

/* Commands that assign the names given as arguments. */
/* clang-format off */
static const char *const assigning_cmds[] = {
	"read", "mapfile", "readarray", "getopts", "printf", "let", "wait",
	"unset", "declare", "typeset", "local", "export", "readonly", "shift",
	NULL,
};
/* clang-format on */
/* Commands that can assign anything. */
/* clang-format off */
static const char *const any_assign_cmds[] = {
	"eval", "source", ".",
	NULL,
};
/* clang-format on */
/* Commands after which no constant can be trusted anywhere on the line:
   a DEBUG trap assigns before every later simple command, including the
   ones in functions defined earlier in the text. */
/* clang-format off */
static const char *const all_dynamic_cmds[] = {
	"trap",
	NULL,
};
/* clang-format on */
/* Declaration builtins: `-n` makes a nameref, and `y=rm` then assigns
   whatever y names (`declare -n y=x; y=rm; $x`). */
/* clang-format off */
static const char *const declaring[] = {
	"declare", "typeset", "local", NULL,
};
/* clang-format on */

static uint64_t hash(const char *s, size_t n, uint32_t scope)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return (h ^ scope) * 1099511628211ull;
}

static var_entry *find(lp_vars *v, lp_arena *a, const char *name, size_t nlen,
                       uint32_t scope, bool create)
{
	if (v->cap == 0 || (create && (v->n + 1) * 2 > v->cap)) {
		if (!create)
			return NULL;
		size_t cap = v->cap ? v->cap * 2 : 8;
		var_entry *t = lp_arena_alloc(a, cap * sizeof *t);
		if (!t)
			return NULL;
		for (size_t i = 0; i < v->cap; i++) {
			if (!v->tab[i].name)
				continue;
			size_t j = hash(v->tab[i].name, v->tab[i].nlen,
			                v->tab[i].scope) &
			           (cap - 1);
			while (t[j].name)
				j = (j + 1) & (cap - 1);
			t[j] = v->tab[i];
		}
		v->tab = t;
		v->cap = cap;
	}
	size_t j = hash(name, nlen, scope) & (v->cap - 1);
	while (v->tab[j].name) {
		if (v->tab[j].nlen == nlen && v->tab[j].scope == scope &&
		    !memcmp(v->tab[j].name, name, nlen))
			return &v->tab[j];
		j = (j + 1) & (v->cap - 1);
	}
	if (!create)
		return NULL;
	char *nm = lp_arena_strndup(a, name, nlen);
	if (!nm)
		return NULL;
	v->tab[j].name = nm;
	v->tab[j].nlen = nlen;
	v->tab[j].scope = scope;
	v->n++;
	return &v->tab[j];
}

static void note_ifs(lp_vars *v, const char *name, size_t nlen)
{
	if (nlen == 3 && !memcmp(name, "IFS", 3))
		v->ifs = true;
	if (v->sensitive || v->unsetting)
		return;
	for (size_t i = 0; sensitive_names[i]; i++)
		if (strlen(sensitive_names[i]) == nlen &&
		    !memcmp(sensitive_names[i], name, nlen)) {
			v->sensitive = sensitive_names[i];
			return;
		}
}

/* `-n`, `-gn`... among a declaration's options. */
static bool nameref_option(const char *s)
{
	return s[0] == '-' && s[1] != '-' && strchr(s + 1, 'n') != NULL;
}

/* Entry `name` of `scope` made dynamic, with what it says of numbers. */
static void mark_entry(lp_vars *v, lp_arena *a, const char *name, size_t nlen,
                       uint32_t scope)
{
	var_entry *e = find(v, a, name, nlen, scope, true);
	if (e) {
		e->dynamic = true;
		if (!v->arith)
			e->nonnum = true;
		else if (!v->unsetting && !v->arith_reads)
			e->numset = true;
	} else {
		v->all_dynamic = true; /* out of memory: resolve nothing */
	}
}

/* The scopes around `scope` (its parent up to the script): a name
   assigned inside it is dynamic there. */
static void mark_outer(lp_vars *v, lp_arena *a, const char *name, size_t nlen,
                       uint32_t scope)
{
	while (scope != 0) {
		scope = v->scopes[scope].parent;
		mark_entry(v, a, name, nlen, scope);
	}
}

static void mark_dynamic(lp_vars *v, lp_arena *a, const char *name, size_t nlen)
{
	note_ifs(v, name, nlen);
	mark_entry(v, a, name, nlen, v->cur_scope);
	mark_outer(v, a, name, nlen, v->cur_scope);
	if (v->cur_func) {
		var_entry *e = find(v, a, name, nlen, 0, true);
		if (e)
			e->fdyn = true;
		else
			v->all_dynamic = true;
	}
}

/* A number bash's arithmetic reads as itself: 12, -3, 0x1f, 2#101. */
static bool numeric_literal(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2])
		return strspn(s + 2, "0123456789abcdefABCDEF") == strlen(s + 2);
	size_t d = strspn(s, "0123456789");
	if (d && s[d] == '#' && s[d + 1])
		s += d + 1;
	else
		return d && !s[d];
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || *s == '@' || *s == '_'))
			return false;
	return true;
}

static void define(lp_vars *v, lp_arena *a, const char *name, size_t nlen,
                   const char *value, size_t after)
{
	if (v->cur_func) {
		mark_dynamic(v, a, name, nlen);
		return;
	}
	note_ifs(v, name, nlen);
	/* outside its scope the value does not hold: as an assignment not
	   followed, which it was before scopes were */
	mark_outer(v, a, name, nlen, v->cur_scope);
	var_entry *e = find(v, a, name, nlen, v->cur_scope, true);
	if (!e) {
		v->all_dynamic = true;
		return;
	}
	if (!numeric_literal(value))
		e->nonnum = true;
	else
		e->numset = true;
	if (e->dynamic)
		return;
	if (e->value) {
		if (strcmp(e->value, value) != 0)
			e->dynamic = true;
		return;
	}
	e->value = value;
	e->after = after;
}

/* Leading identifier of an argument word: NAME, NAME[..], NAME=.. */
static size_t ident_len(const char *s)
{
	size_t i = 0;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      s[0] == '_'))
		return 0;
	while ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
	       (s[i] >= '0' && s[i] <= '9') || s[i] == '_')
		i++;
	return i;
}

static void span(lp_tree *t, TSNode n, const char **s, size_t *len)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (b > t->len)
		b = (uint32_t)t->len;
	if (a > b)
		a = b;
	*s = t->src + a;
	*len = b - a;
}

static void on_assignment(lp_tree *t, lp_vars *v, TSNode n, bool ok)
{
	const lp_syms *sy = t->sy;
	lp_arena *a = t->ctx->arena;
	TSNode name = ts_node_child_by_field_id(n, sy->f_name);
	if (ts_node_is_null(name))
		return;
	const char *s;
	size_t len;
	if (ts_node_symbol(name) == sy->subscript) {
		TSNode base = ts_node_child_by_field_id(name, sy->f_name);
		if (!ts_node_is_null(base)) {
			span(t, base, &s, &len);
			mark_dynamic(v, a, s, len);
		}
		return;
	}
	span(t, name, &s, &len);
	bool append = false;
	uint32_t cc = ts_node_child_count(n);
	for (uint32_t i = 0; i < cc; i++) {
		TSNode c = ts_node_child(n, i);
		if (!ts_node_is_named(c) &&
		    ts_node_end_byte(c) - ts_node_start_byte(c) == 2)
			append = true; /* "+=" */
	}
	if (!ok || append) {
		mark_dynamic(v, a, s, len);
		return;
	}
	TSNode val = ts_node_child_by_field_id(n, sy->f_value);
	const char *value = "";
	if (!ts_node_is_null(val)) {
		if (ts_node_symbol(val) == sy->array) {
			mark_dynamic(v, a, s, len);
			return;
		}
		lp_word w = lp_word_value(t, val, false);
		if (w.flags & (LOCUS_WORD_DYNAMIC | LOCUS_WORD_SUBST) ||
		    !w.value) {
			mark_dynamic(v, a, s, len);
			return;
		}
		value = w.value;
	}
	define(v, a, s, len, value, ts_node_end_byte(n));
}

static void on_command(lp_tree *t, lp_vars *v, TSNode n)
{
	const lp_syms *sy = t->sy;
	lp_arena *a = t->ctx->arena;
	TSNode name = ts_node_child_by_field_id(n, sy->f_name);
	if (ts_node_is_null(name))
		return;
	/* the name's value, as the walk reads it: command_name holds the
	   word, so `\eval`, `"read"` and `'rea'd` are eval and read (the
	   command_name node itself evaluated as an opaque part left their
	   quotes and backslashes in, and missed them) */
	TSNode word = name;
	if (ts_node_symbol(name) == sy->command_name &&
	    ts_node_named_child_count(name) == 1)
		word = ts_node_named_child(name, 0);
	lp_word nw = lp_word_value(t, word, false);
	if (!nw.value)
		return;
	const char *cmd = nw.value;
	uint32_t cc = ts_node_child_count(n);
	uint32_t first_arg = 0;
	if (!strcmp(cmd, "command") || !strcmp(cmd, "builtin")) {
		/* command read X: the next word is the real name */
		for (uint32_t i = 0; i < cc; i++) {
			TSNode c = ts_node_child(n, i);
			if (ts_node_eq(c, name) || !ts_node_is_named(c) ||
			    ts_node_symbol(c) == sy->variable_assignment ||
			    ts_node_symbol(c) == sy->file_redirect)
				continue;
			lp_word w = lp_word_value(t, c, false);
			if (w.value && w.value[0] != '-') {
				cmd = w.value;
				first_arg = i + 1;
				break;
			}
		}
	}
	if (lp_in_list(all_dynamic_cmds, cmd)) {
		v->all_dynamic = true;
		return;
	}
	if (lp_in_list(any_assign_cmds, cmd)) {
		/* the eval's own words still see earlier constants */
		size_t end = ts_node_end_byte(n);
		if (end < v->dyn_after)
			v->dyn_after = end;
		return;
	}
	if (!lp_in_list(assigning_cmds, cmd))
		return;
	for (uint32_t i = first_arg; i < cc; i++) {
		TSNode c = ts_node_child(n, i);
		if (ts_node_eq(c, name) || !ts_node_is_named(c))
			continue;
		TSSymbol k = ts_node_symbol(c);
		if (k == sy->variable_assignment || k == sy->file_redirect ||
		    k == sy->herestring_redirect)
			continue;
		lp_word w = lp_word_value(t, c, false);
		if (!w.value)
			continue;
		if (w.flags & LOCUS_WORD_DYNAMIC) {
			/* read $NAME: could be any name */
			v->all_dynamic = true;
			return;
		}
		if (lp_in_list(declaring, cmd) && nameref_option(w.value)) {
			v->all_dynamic = true;
			return;
		}
		if (lp_in_list(declaring, cmd) && w.value[0] == '-' &&
		    strchr(w.value, 'i'))
			v->int_decl = true;
		/* -vNAME (printf), -aNAME (read), -pNAME (wait): the name is
		   attached to the option */
		if (w.value[0] == '-' && w.value[1] &&
		    strchr("vap", w.value[1]) && ident_len(w.value + 2)) {
			mark_dynamic(v, a, w.value + 2, ident_len(w.value + 2));
			continue;
		}
		v->arith = !strcmp(cmd, "let");
		size_t il = ident_len(w.value);
		if (il) {
			/* only NAME, NAME[..], NAME=.., NAME+=.. assign it
			   (not `printf 'PS1 is'`); unset assigns nothing */
			char nx = w.value[il];
			v->unsetting = !strcmp(cmd, "unset") ||
			               !(nx == '\0' || nx == '[' || nx == '=' ||
			                 (nx == '+' && w.value[il + 1] == '='));
			/* let: only NAME=... assigns a number without
			   reading NAME (`let x`, `let x+=1`, `let x==1`,
			   `let a[i]=1` read it) */
			v->arith_reads =
			    v->arith && !(nx == '=' && w.value[il + 1] != '=');
			mark_dynamic(v, a, w.value, il);
			v->unsetting = false;
			v->arith_reads = false;
		}
		v->arith = false;
	}
}

/* declare -i / local -i / typeset -i: the values are arithmetic. */
bool lp_int_declaration(const lp_tree *t, TSNode n)
{
	if (ts_node_symbol(n) != t->sy->declaration_command)
		return false;
	uint32_t cc = ts_node_child_count(n);
	for (uint32_t i = 1; i < cc; i++) {
		TSNode ch = ts_node_child(n, i);
		uint32_t s = ts_node_start_byte(ch), e = ts_node_end_byte(ch);
		if (ts_node_symbol(ch) == t->sy->word && e <= t->len && s < e &&
		    t->src[s] == '-' && memchr(t->src + s, 'i', e - s))
			return true;
	}
	return false;
}

static bool arith_node(const lp_tree *t, TSNode n)
{
	const lp_syms *sy = t->sy;
	TSSymbol k = ts_node_symbol(n);
	if (k == sy->arithmetic_expansion || k == sy->c_style_for_statement ||
	    k == sy->subscript)
		return true;
	uint32_t s = ts_node_start_byte(n);
	return k == sy->compound_statement && s + 1 < t->len &&
	       t->src[s] == '(' && t->src[s + 1] == '(';
}

static bool is_seq(const lp_syms *sy, TSSymbol k)
{
	return k == sy->program || k == sy->list ||
	       k == sy->variable_assignments || k == sy->declaration_command ||
	       k == sy->compound_statement || k == sy->subshell ||
	       k == sy->command_substitution || k == sy->process_substitution;
}

/* A declaration (export, declare, local...): *ok is cleared when its
   assignments are not constants (options, `local` outside a function);
   a nameref or an unreadable option makes every name dynamic. */
static void declaration_facts(lp_tree *t, lp_vars *v, TSNode n, bool *ok)
{
	const lp_syms *sy = t->sy;
	if (*ok) {
		/* declare -i X=1+1 stores 2, -n makes a reference,
		   -a an array...: options make values dynamic. */
		uint32_t cc = ts_node_child_count(n);
		/* `local` outside a function assigns nothing; inside
		   one the walk already sees a function ancestor */
		if (cc &&
		    t->src[ts_node_start_byte(ts_node_child(n, 0))] == 'l')
			*ok = false;
		for (uint32_t i = 0; i < cc; i++) {
			TSNode ch = ts_node_child(n, i);
			uint32_t cs = ts_node_start_byte(ch);
			if (ts_node_symbol(ch) == sy->word && cs < t->len &&
			    (t->src[cs] == '-' || t->src[cs] == '+'))
				*ok = false;
		}
	}
	/* `declare -n` (anywhere: in a function, after &&),
	   or an option we cannot read (`declare $o y=x`): a
	   nameref may redirect every later assignment */
	uint32_t cc = ts_node_child_count(n);
	for (uint32_t i = 1; i < cc; i++) {
		TSNode ch = ts_node_child(n, i);
		TSSymbol ck = ts_node_symbol(ch);
		if (!ts_node_is_named(ch) || ck == sy->variable_assignment ||
		    ck == sy->variable_name)
			continue;
		lp_word ow = lp_word_value(t, ch, false);
		if (!ow.value || (ow.flags & LOCUS_WORD_DYNAMIC) ||
		    nameref_option(ow.value))
			v->all_dynamic = true;
		else if (ow.value[0] == '-' && strchr(ow.value, 'i'))
			v->int_decl = true;
	}
}

/* ${x:=v} and ${x=v} assign x; ${!ref:=v} assigns the name ref holds. */
static void default_assignment(lp_tree *t, lp_vars *v, lp_arena *a, TSNode n)
{
	uint32_t cc = ts_node_child_count(n);
	uint32_t es = ts_node_start_byte(n);
	/* ${!ref:=v} assigns the name ref holds */
	if (es + 2 < t->len && t->src[es + 2] == '!') {
		const char *s;
		size_t len;
		span(t, n, &s, &len);
		if (memchr(s, '=', len))
			v->all_dynamic = true;
	}
	for (uint32_t i = 0; i < cc; i++) {
		TSNode ch = ts_node_child(n, i);
		const char *s;
		size_t len;
		span(t, ch, &s, &len);
		if (ts_node_is_named(ch) ||
		    !((len == 2 && !memcmp(s, ":=", 2)) ||
		      (len == 1 && s[0] == '=')))
			continue;
		TSNode vn = ts_node_named_child(n, 0);
		if (!ts_node_is_null(vn)) {
			span(t, vn, &s, &len);
			mark_dynamic(v, a, s, len);
		}
	}
}

lp_vars *lp_vars_new(lp_tree *t)
{
	lp_arena *a = t->ctx->arena;
	lp_vars *v = lp_arena_alloc(a, sizeof *v);
	if (!v)
		return NULL;
	v->dyn_after = SIZE_MAX;
	v->scopes = lp_arena_alloc_raw(a, 8 * sizeof *v->scopes);
	if (!v->scopes)
		return NULL;
	v->capscopes = 8;
	v->scopes[0] = (var_scope){0, UINT32_MAX, 0};
	v->nscopes = 1;
	return v;
}

/* Room for one more element in an arena array of `size`-byte elements
   (*arr of *cap, *n in use); false when out of memory. */
static bool grow(lp_arena *a, void **arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t nc = lu_grow_capacity(*cap, n + 1, 16, size);
	void *p = nc ? lp_arena_grow(a, *arr, n * size, nc * size) : NULL;
	if (!p)
		return false;
	*arr = p;
	*cap = nc;
	return true;
}

/* Node f opens a subshell scope: `( )`, `$( )`, `<( )`, or a stage of a
   pipeline (its parent p). */
static bool opens_scope(const lp_syms *sy, const lp_tnode *f, const lp_tnode *p)
{
	TSSymbol k = f->kind;
	return k == sy->subshell || k == sy->command_substitution ||
	       k == sy->process_substitution ||
	       (p && p->kind == sy->pipeline && f->named);
}

/* The scope fields of frame f: its parent's, or a new scope it opens. */
static void scope_node(lp_tree *t, lp_vars *v, lp_tnode *f, const lp_tnode *p)
{
	const lp_syms *sy = t->sy;
	f->scope = p ? p->scope : 0;
	f->in_func = (p && p->in_func) || f->kind == sy->function_definition;
	if (!p || !opens_scope(sy, f, p))
		return;
	if (!grow(t->ctx->arena, (void **)&v->scopes, &v->capscopes, v->nscopes,
	          sizeof *v->scopes)) {
		v->all_dynamic = true;
		return;
	}
	v->scopes[v->nscopes] = (var_scope){f->start, f->end, f->scope};
	f->scope = (uint32_t)v->nscopes++;
	f->in_func = false;
}

/* An expansion inside a scope: where a lookup at its byte starts. */
static void note_use(lp_tree *t, lp_vars *v, const lp_tnode *f)
{
	const lp_syms *sy = t->sy;
	if (f->scope == 0 ||
	    (f->kind != sy->simple_expansion && f->kind != sy->expansion))
		return;
	if (v->nuses && v->uses[v->nuses - 1].pos == f->start) {
		/* two expansions at one byte in different scopes: resolve
		   from the script, which is never wrong (see lookup) */
		if (v->uses[v->nuses - 1].scope != f->scope)
			v->uses[v->nuses - 1].scope = 0;
		return;
	}
	if (!grow(t->ctx->arena, (void **)&v->uses, &v->capuses, v->nuses,
	          sizeof *v->uses)) {
		v->all_dynamic = true;
		return;
	}
	if (v->nuses && v->uses[v->nuses - 1].pos > f->start)
		v->uses_unsorted = true;
	v->uses[v->nuses++] = (var_use){f->start, f->scope};
}

static int use_cmp(const void *x, const void *y)
{
	const var_use *a = x, *b = y;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

void lp_vars_finish(lp_vars *v)
{
	if (v && v->uses_unsorted)
		qsort(v->uses, v->nuses, sizeof *v->uses, use_cmp);
}

/* The scope a use at byte `at` is in (0 when it is in none). */
static uint32_t use_scope(const lp_vars *v, size_t at)
{
	size_t lo = 0, hi = v->nuses;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->uses[mid].pos < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->nuses && v->uses[lo].pos == at ? v->uses[lo].scope : 0;
}

void lp_vars_abandon(lp_vars *v)
{
	v->all_dynamic = true;
}

/* `NAME = value` in arithmetic: NAME is the left operand of a plain `=`,
   the one arithmetic form that assigns without reading the old value.
   `x++`, `x += 1` and a bare `x` evaluate it first, and a value from the
   environment such as 'a[$(cmd)]' runs cmd (checked in a sandbox). */
static bool plain_arith_assignment(lp_tree *t, const lp_tnode *f,
                                   const lp_tnode *p)
{
	if (p->kind != t->sy->binary_expression || f->start != p->start)
		return false;
	TSNode op = ts_node_child_by_field_id(p->node, t->sy->f_operator);
	if (ts_node_is_null(op))
		return false;
	uint32_t s = ts_node_start_byte(op), e = ts_node_end_byte(op);
	return e == s + 1 && e <= t->len && t->src[s] == '=';
}

/* A name as a node of its own (for NAME in, read NAME, unset NAME, a name
   in arithmetic...), not the name of an expansion or an assignment. */
static void on_variable_name(lp_vars *v, lp_arena *a, const lp_tnode *f,
                             const lp_tnode *p, lp_tree *t)
{
	const char *s;
	size_t len;
	span(t, f->node, &s, &len);
	/* `unset PS4` changes nothing that runs */
	v->unsetting = p->kind == t->sy->unset_command;
	v->arith = f->var_arith;
	v->arith_reads = f->var_arith && !plain_arith_assignment(t, f, p);
	mark_dynamic(v, a, s, len);
	v->unsetting = false;
	v->arith = false;
	v->arith_reads = false;
}

void lp_vars_node(lp_tree *t, lp_vars *v, lp_tnode *f, const lp_tnode *p)
{
	const lp_syms *sy = t->sy;
	lp_arena *a = t->ctx->arena;
	TSNode n = f->node;
	TSSymbol k = f->kind;
	bool ok = true;
	if (p) {
		/* Only the first element of a list runs unconditionally
		   (`a && X=1` may not assign). */
		ok = p->runs && is_seq(sy, p->kind) &&
		     (p->kind != sy->list || f->start == p->start);
	}
	if (k == sy->declaration_command)
		declaration_facts(t, v, n, &ok);
	scope_node(t, v, f, p);
	/* inside a new scope its first statements run unconditionally */
	if (f->scope != (p ? p->scope : 0))
		ok = true;
	f->runs = ok;
	f->var_arith = arith_node(t, n) || lp_int_declaration(t, n) ||
	               (p && p->var_arith && k != sy->command_substitution);
	if (!p || !f->named)
		return;
	v->cur_scope = f->scope;
	v->cur_func = f->in_func;
	note_use(t, v, f);
	if (k == sy->variable_assignment) {
		/* i=0 in for (( )): an arithmetic result */
		v->arith = f->var_arith;
		on_assignment(t, v, n, ok);
		v->arith = false;
	} else if (k == sy->variable_name && p->kind != sy->simple_expansion &&
	           p->kind != sy->expansion &&
	           p->kind != sy->variable_assignment) {
		on_variable_name(v, a, f, p, t);
	} else if (k == sy->command) {
		on_command(t, v, n);
	} else if (k == sy->expansion) {
		default_assignment(t, v, a, n);
	}
}

const char *lp_vars_lookup(const lp_vars *v, const char *name, size_t nlen,
                           size_t at)
{
	if (!v || v->all_dynamic || v->cap == 0)
		return NULL;
	for (size_t i = 0; bash_set_names[i]; i++)
		if (strlen(bash_set_names[i]) == nlen &&
		    !memcmp(bash_set_names[i], name, nlen))
			return NULL;
	if (at >= v->dyn_after)
		return NULL;
	lp_vars *m = (lp_vars *)(uintptr_t)v;
	var_entry *e = find(m, NULL, name, nlen, 0, false);
	if (e && e->fdyn)
		return NULL;
	/* the innermost scope with an entry for the name decides: a scope
	   without one sees its parent's value (bash copies it in) */
	for (uint32_t s = use_scope(v, at);; s = v->scopes[s].parent) {
		e = find(m, NULL, name, nlen, s, false);
		if (e || s == 0)
			break;
	}
	if (!e || e->dynamic || !e->value || at < e->after)
		return NULL;
	return e->value;
}

bool lp_vars_numeric(const lp_vars *v, const char *name, size_t nlen)
{
	if (!v || v->all_dynamic || v->cap == 0 || v->dyn_after != SIZE_MAX)
		return false;
	var_entry *e =
	    find((lp_vars *)(uintptr_t)v, NULL, name, nlen, 0, false);
	/* a static number assigned, nothing else (names only read by
	   arithmetic have no value: they come from the environment) */
	return e && !e->nonnum && e->numset;
}

bool lp_vars_int_decl(const lp_vars *v)
{
	if (!v || !v->int_decl)
		return false;
	if (v->all_dynamic)
		return true;
	for (size_t i = 0; i < v->cap; i++)
		if (v->tab[i].name && v->tab[i].scope == 0 && v->tab[i].nonnum)
			return true;
	return false;
}

bool lp_mentions_sensitive(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* every sensitive name starts with one of these (a strchr
		   call per byte was 1.5% of the batch's instructions) */
		char c = s[i];
		if (c != 'B' && c != 'P' && c != 'E' && c != 'S' && c != 'C' &&
		    c != 'O' && c != 'D')
			continue;
		/* every name is at least three bytes: the first two are
		   compared before the rest (script lines are full of
		   upper-case words) */
		if (n - i < 3)
			break;
		for (size_t k = 0; sensitive_names[k]; k++) {
			const char *name = sensitive_names[k];
			if (name[0] != c || name[1] != s[i + 1])
				continue;
			size_t l = strlen(name);
			if (l <= n - i && !memcmp(s + i, name, l))
				return true;
		}
	}
	return false;
}

const char *lp_vars_sensitive(const lp_vars *v)
{
	return v ? v->sensitive : NULL;
}

bool lp_vars_ifs_assigned(const lp_vars *v)
{
	return !v || v->ifs || v->all_dynamic;
}
