/*
 * parser/wrappers.c - option grammars of wrappers and see-through programs.
 *
 * A wrapper runs another command given after its own options (sudo,
 * timeout, env...).  To find that command we must know which options take
 * a value: skipping `-u root` as one word would make `root` the command.
 * The grammars come from the programs' manuals and live in the program
 * table (knowledge/programs.c).  An option that is not listed is never
 * skipped silently: the scan reports it and the line is unparsed, because
 * we cannot tell where the command starts.
 */
#include <ctype.h>
#include <string.h>

#include "seethrough.h"

const char *lp_base_name(const char *s)
{
	const char *slash = strrchr(s, '/');
	return slash ? slash + 1 : s;
}

bool lp_is_assignment(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	return *s == '=';
}

static bool has_letter(const char *set, unsigned char c)
{
	return set && c && strchr(set, c) != NULL;
}

/* Find --name in a "name:LA|..." list. */
static bool find_long(const char *list, const char *name, size_t n,
                      char *letter, char *arity)
{
	const char *p = list;
	while (p && *p) {
		const char *colon = strchr(p, ':');
		if (!colon)
			return false;
		if ((size_t)(colon - p) == n && !strncmp(p, name, n)) {
			*letter = colon[1];
			*arity = colon[2];
			return true;
		}
		const char *bar = strchr(colon, '|');
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

/* A unit property (systemd-run -p NAME=VALUE; systemd.exec(5),
   systemd.service(5)): Environment=NAME=VALUE sets a variable of the
   command, as -E does; a value of several assignments or with quotes,
   EnvironmentFile=, a run-time word, and the Exec...= command lines the
   unit runs beside the command are not read (unknown: fails closed). */
static void property(lp_optscan *o, const char *value, const lp_word *word)
{
	static const char env_key[] = "Environment=";
	const char *why = word && word->text ? word->text : value;
	if (word && (word->flags & LOCUS_WORD_DYNAMIC))
		o->unknown = why;
	else if (!strncmp(value, "Exec", 4) ||
	         !strncmp(value, "EnvironmentFile", 15))
		o->unknown = why;
	else if (!strncmp(value, env_key, sizeof env_key - 1)) {
		const char *a = value + sizeof env_key - 1;
		if (strpbrk(a, " \t\n\"'\\") || o->nenv == LP_MAX_ENV)
			o->unknown = why;
		else {
			o->env_word[o->nenv] = word;
			o->env[o->nenv++] = a;
		}
	}
}

static void apply(const lk_optspec *s, lp_optscan *o, unsigned char c,
                  const char *value, const lp_word *word)
{
	if (c == '-' || c >= 128)
		return;
	o->seen[c] = true;
	if (has_letter(s->query, c))
		o->query = true;
	if (has_letter(s->nocmd, c))
		o->nocmd = true;
	if (has_letter(s->script, c)) {
		o->script = word;
		o->script_value = value;
	}
	/* a value known only at run time may start with | too */
	if (has_letter(s->pipe, c) && word &&
	    ((word->flags & LOCUS_WORD_DYNAMIC) ||
	     (value && (*value == '|' || *value == '!')))) {
		o->pipe = word;
		o->pipe_value = value && *value ? value + 1 : "";
	}
	if (has_letter(s->background, c))
		o->seen_bg = true;
	if (has_letter(s->env, c) && value) {
		if (o->nenv == LP_MAX_ENV)
			o->unknown = word && word->text ? word->text : value;
		else {
			o->env_word[o->nenv] = word;
			o->env[o->nenv++] = value;
		}
	}
	if (has_letter(s->property, c) && value)
		property(o, value, word);
	if ((c == 'I' || c == 'i') && (s->flags & LK_OPT_REPLACE)) {
		o->replace = value ? value : "{}";
		o->replace_dynamic =
		    value && word && (word->flags & LOCUS_WORD_DYNAMIC);
	}
	if (has_letter(s->split, c)) {
		o->split_word = word;
		o->split_value = value;
	}
}

enum scan_state { SCAN_MORE, SCAN_STOP, SCAN_END_OPTS };

/* One long option at words[*pi] (--name, --name=value, --name value). */
static enum scan_state scan_long(const lk_optspec *s, const lp_word *words,
                                 size_t n, size_t *pi, lp_optscan *o)
{
	size_t i = *pi;
	const lp_word *w = &words[i];
	const char *v = w->value; /* the caller saw it start with "--" */
	const char *name = v + 2;
	const char *eq = strchr(name, '=');
	size_t nl = eq ? (size_t)(eq - name) : strlen(name);
	char letter, arity;
	if (!find_long(s->longs, name, nl, &letter, &arity)) {
		if ((nl == 4 && !strncmp(name, "help", 4)) ||
		    (nl == 7 && !strncmp(name, "version", 7))) {
			o->query = true;
			*pi = i + 1;
			return SCAN_MORE;
		}
		if (s->flags & LK_OPT_LONG_EQ) {
			*pi = i + 1;
			return SCAN_MORE;
		}
		o->unknown = w->text ? w->text : v;
		*pi = i;
		return SCAN_STOP;
	}
	const char *val = NULL;
	const lp_word *valw = NULL;
	if (arity == '0') {
		if (eq) {
			o->unknown = w->text ? w->text : v;
			*pi = i;
			return SCAN_STOP;
		}
	} else if (arity == '?') {
		if (eq) {
			val = eq + 1;
			valw = w;
		}
	} else {
		size_t nv = (size_t)(arity - '0');
		if (eq) {
			val = eq + 1;
			valw = w;
			nv--;
		} else if (i + 1 < n) {
			valw = &words[i + 1];
			val = valw->value;
		}
		if (i + nv >= n) {
			/* missing value: the program fails */
			o->nocmd = true;
			*pi = n;
			return SCAN_STOP;
		}
		i += nv;
	}
	size_t nenv = o->nenv;
	apply(s, o, (unsigned char)letter, val, valw);
	/* bwrap --setenv NAME VALUE: the word after NAME is its value */
	if (arity == '2' && o->nenv > nenv) {
		o->env_value[nenv] = words[i].value ? words[i].value : "";
		o->env_vword[nenv] = &words[i];
	}
	*pi = i + 1;
	return SCAN_MORE;
}

/* A cluster of short options at words[*pi] (-abc, -ovalue, -o value). */
static enum scan_state scan_short(const lk_optspec *s, const lp_word *words,
                                  size_t n, size_t *pi, lp_optscan *o)
{
	size_t i = *pi;
	const lp_word *w = &words[i];
	const char *v = w->value; /* the caller saw `-` and a letter */
	for (size_t j = 1; v[j]; j++) {
		unsigned char c = (unsigned char)v[j];
		if ((s->flags & LK_OPT_NUMERIC) && isdigit(c))
			break;
		if (has_letter(s->short_val, c)) {
			if (v[j + 1]) {
				apply(s, o, c, v + j + 1, w);
			} else if (i + 1 < n) {
				i++;
				apply(s, o, c, words[i].value, &words[i]);
			} else {
				o->nocmd = true;
				*pi = n;
				return SCAN_STOP;
			}
			break;
		}
		if (has_letter(s->short_opt, c)) {
			apply(s, o, c, v[j + 1] ? v + j + 1 : NULL, w);
			break;
		}
		if ((s->flags & LK_OPT_H_HOST) && c == 'h') {
			/* sudo: -hHOST, -h HOST, or -h alone = help */
			if (v[j + 1])
				break;
			if (i + 1 < n &&
			    !(words[i + 1].flags & LOCUS_WORD_DYNAMIC) &&
			    words[i + 1].value && words[i + 1].value[0] != '-')
				i++;
			else
				o->query = true;
			break;
		}
		if (has_letter(s->short_flag, c)) {
			apply(s, o, c, NULL, NULL);
			continue;
		}
		o->unknown = w->text ? w->text : v;
		*pi = i;
		return SCAN_STOP;
	}
	*pi = i + 1;
	return SCAN_MORE;
}

/* Scan options from words[*i]; stops at the first operand. */
static enum scan_state scan_options(const lk_optspec *s, const lp_word *words,
                                    size_t n, size_t *pi, lp_optscan *o)
{
	size_t i = *pi;
	enum scan_state st = SCAN_MORE;
	while (i < n) {
		const lp_word *w = &words[i];
		const char *v = w->value ? w->value : "";
		/* A dynamic word may be an option or the command: stop, and
		   let the caller see a dynamic command name. */
		if (w->flags & LOCUS_WORD_DYNAMIC)
			break;
		if (!strcmp(v, "--")) {
			i++;
			st = SCAN_END_OPTS;
			break;
		}
		if (v[0] != '-' || v[1] == '\0') {
			if (v[0] == '-' && (s->flags & LK_OPT_DASH)) {
				o->seen['-'] = true;
				i++;
				continue;
			}
			break;
		}
		st = v[1] == '-' ? scan_long(s, words, n, &i, o)
		                 : scan_short(s, words, n, &i, o);
		if (st == SCAN_STOP) {
			*pi = i;
			return SCAN_STOP;
		}
	}
	*pi = i;
	return st;
}

void lp_optscan_run(const lk_optspec *s, const lp_word *words, size_t n,
                    size_t at, lp_optscan *o)
{
	memset(o, 0, sizeof *o);
	o->cmd = n;
	o->pos_first = n;
	size_t i = at + 1;
	enum scan_state st = scan_options(s, words, n, &i, o);
	if (st == SCAN_STOP || o->query || o->nocmd || o->unknown)
		return;
	o->assign_first = o->assign_end = i;
	if (s->flags & LK_OPT_ASSIGNS) {
		while (i < n) {
			const lp_word *w = &words[i];
			const char *t = (w->flags & LOCUS_WORD_DYNAMIC)
			                    ? w->text
			                    : w->value;
			/* env and sudo take any NAME=VALUE word here, not
			   only shell identifiers: `env 'A%=1' rm` runs rm, and
			   `env 'BASH_FUNC_ls%%=() {..}' bash` imports a function
			   (found by the oracle). */
			if (!t || t[0] == '=' || !strchr(t, '='))
				break;
			i++;
		}
		o->assign_end = i;
	}
	o->pos_first = i;
	/* Options stopped at a dynamic word: it may be an option taking
	   the next words, so which word is the operand (timeout's DURATION)
	   and which the command is unknown (`timeout "$(echo -)s" KILL 5
	   gh`): fail closed, as for a dynamic command name. */
	/* su/runuser: the dynamic word may be `-` or an option, so which
	   word is the user and which the shell's -c is unknown too (`su
	   $(printf %s -) root -c reboot`, found by fuzz_bypass) */
	if ((s->npos || (s->flags & LK_OPT_SU)) && i < n &&
	    (words[i].flags & LOCUS_WORD_DYNAMIC)) {
		o->unknown = words[i].text ? words[i].text : "";
		return;
	}
	for (unsigned k = 0; k < s->npos; k++) {
		if (i >= n)
			return;
		i++;
	}
	if ((s->flags & LK_OPT_PERMUTE) && st != SCAN_END_OPTS && s->npos) {
		st = scan_options(s, words, n, &i, o);
		if (st == SCAN_STOP || o->query || o->nocmd || o->unknown)
			return;
	}
	if ((s->flags & LK_OPT_POS_SCRIPT) && i < n && words[i].value &&
	    !(words[i].flags & LOCUS_WORD_DYNAMIC) &&
	    (!strcmp(words[i].value, "-c") ||
	     !strcmp(words[i].value, "--command"))) {
		if (i + 1 < n) {
			o->script = &words[i + 1];
			o->script_value = words[i + 1].value;
		}
		return;
	}
	/* sg GROUP CMD: the operand is a command string */
	if ((s->flags & LK_OPT_CMD_OPERAND) && i < n) {
		o->script = &words[i];
		o->script_value = words[i].value;
		return;
	}
	/* capsh: only the words after `--` run (as bash's arguments);
	   another operand (`==`, a typo) is not analysed */
	if ((s->flags & LK_OPT_SHELL_ARGS) && st != SCAN_END_OPTS) {
		if (i < n)
			o->unknown = words[i].text ? words[i].text : "";
		return;
	}
	/* script(1): operands are a file name, never a command */
	if (s->nocmd && !*s->nocmd)
		return;
	o->cmd = i;
}

const lk_program *lp_wrapper_match(const lp_word *words, size_t n, size_t pos,
                                   size_t *at)
{
	*at = pos;
	const lk_program *p = lp_program(words[pos].value);
	if (!p || !(p->cls & LK_WRAPPER) || !p->opts)
		return NULL;
	if (!p->opts->sub)
		return p;
	/* a subcommand runner: npm exec, docker run */
	if (pos + 1 < n && !(words[pos + 1].flags & LOCUS_WORD_DYNAMIC) &&
	    words[pos + 1].value && *words[pos + 1].value) {
		const char *sub = words[pos + 1].value;
		if (lk_bar_has(p->opts->sub, sub, strlen(sub))) {
			*at = pos + 1;
			return p;
		}
	}
	return NULL;
}

const lk_optspec *lp_program_spec(const char *name)
{
	const lk_program *p = lk_program_find(name);
	return p && (p->cls & LK_SEES) ? p->opts : NULL;
}
