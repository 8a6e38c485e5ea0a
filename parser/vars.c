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
 */
#include <stdint.h>
#include <string.h>

#include "walk.h"

typedef struct var_entry {
	const char *name;
	size_t nlen;
	const char *value;
	size_t after; /* uses at or after this byte see the value */
	bool dynamic;
	bool nonnum; /* assigned something other than a number literal or an
	                 arithmetic result: as arithmetic its value may be an
	                 expression (a[$(cmd)]) */
	bool numset; /* assigned a number literal or by arithmetic */
} var_entry;

struct lp_vars {
	var_entry *tab;
	size_t cap, n;
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
	"PROMPT_COMMAND", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", NULL,
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

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static var_entry *find(lp_vars *v, lp_arena *a, const char *name, size_t nlen,
                       bool create)
{
	if (v->cap == 0 || (create && (v->n + 1) * 2 > v->cap)) {
		if (!create)
			return NULL;
		size_t cap = v->cap ? v->cap * 2 : 64;
		var_entry *t = lp_arena_alloc(a, cap * sizeof *t);
		if (!t)
			return NULL;
		for (size_t i = 0; i < v->cap; i++) {
			if (!v->tab[i].name)
				continue;
			size_t j =
			    hash(v->tab[i].name, v->tab[i].nlen) & (cap - 1);
			while (t[j].name)
				j = (j + 1) & (cap - 1);
			t[j] = v->tab[i];
		}
		v->tab = t;
		v->cap = cap;
	}
	size_t j = hash(name, nlen) & (v->cap - 1);
	while (v->tab[j].name) {
		if (v->tab[j].nlen == nlen &&
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

static void mark_dynamic(lp_vars *v, lp_arena *a, const char *name, size_t nlen)
{
	note_ifs(v, name, nlen);
	var_entry *e = find(v, a, name, nlen, true);
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
	note_ifs(v, name, nlen);
	var_entry *e = find(v, a, name, nlen, true);
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
	lp_word nw = lp_word_value(t, name, false);
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
	       k == sy->compound_statement;
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
	lp_vars *v = lp_arena_alloc(t->ctx->arena, sizeof *v);
	if (v)
		v->dyn_after = SIZE_MAX;
	return v;
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
	f->runs = ok;
	f->var_arith = arith_node(t, n) || lp_int_declaration(t, n) ||
	               (p && p->var_arith && k != sy->command_substitution);
	if (!p || !f->named)
		return;
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
	var_entry *e = find((lp_vars *)(uintptr_t)v, NULL, name, nlen, false);
	if (!e || e->dynamic || !e->value || at < e->after ||
	    at >= v->dyn_after)
		return NULL;
	return e->value;
}

bool lp_vars_numeric(const lp_vars *v, const char *name, size_t nlen)
{
	if (!v || v->all_dynamic || v->cap == 0 || v->dyn_after != SIZE_MAX)
		return false;
	var_entry *e = find((lp_vars *)(uintptr_t)v, NULL, name, nlen, false);
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
		if (v->tab[i].name && v->tab[i].nonnum)
			return true;
	return false;
}

bool lp_mentions_sensitive(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!strchr("BPES", s[i]) || s[i] == '\0')
			continue;
		for (size_t k = 0; sensitive_names[k]; k++) {
			size_t l = strlen(sensitive_names[k]);
			if (l <= n - i && !memcmp(s + i, sensitive_names[k], l))
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
