/*
 * knowledge/sed.h - the grammar of GNU sed scripts: addresses, read by the
 * parser (parser/sed.c: does a script run a program?) and the labeller
 * (labels/tables.c: does it only print?), and the commands that run,
 * read or write (lk_sed_walk: the parser's programs, the labeller's
 * files).
 *
 * One reader for both, so that the two can never disagree about where an
 * address ends and a command starts.  It is the stricter of the two copies
 * it replaces: a backslash followed by the end, a newline or another
 * backslash as a regex delimiter (`\\x\\p`, `\<newline>x<newline>p`) is
 * not an address (GNU sed refuses both: checked in a sandbox), and the
 * callers fail closed on it.
 */
#ifndef LOCUS_KNOWLEDGE_SED_H
#define LOCUS_KNOWLEDGE_SED_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The end of the delimited part that starts at p (a regex, a replacement)
 * and ends at the first `d` not escaped by a backslash: the byte after
 * that `d`, or NULL when there is none.
 */
const char *lk_sed_delimited(const char *p, char d);

/*
 * The end of the addresses at the start of the sed command at p: none,
 * one, or two joined by `,`; each a line number (`first~step` too), `$`,
 * `/REGEX/` or `\cREGEXc` with its I and M flags, and the second one also
 * `+N` or `~N`.  Returns p itself when there is no address, or NULL when
 * an address cannot be followed (an unterminated regex, a refused
 * delimiter).  What follows (blanks, `!`, the command letter) is the
 * caller's.
 */
const char *lk_sed_address(const char *p);

/*
 * What a script does beyond editing its stream, as a GNU sed reads its
 * commands: `e COMMAND` runs COMMAND with a shell (`e` alone runs the
 * pattern space), the `e` flag of `s///e` runs the pattern space, `r` and
 * `R` read the file named to the end of the line, `w`, `W` and the `w`
 * flag of `s///w` write it.  Each callback may be NULL.
 */
typedef struct lk_sed_visitor {
	void (*exec)(void *arg, const char *cmd, size_t n); /* n 0: `e` */
	void (*run_space)(void *arg);                       /* s///e */
	void (*file)(void *arg, char cmd, const char *name, size_t n);
} lk_sed_visitor;

/* Walks script, calling v's callbacks in order; false when the script
   cannot be followed (an unknown command, an unterminated regex). */
bool lk_sed_walk(const char *script, const lk_sed_visitor *v, void *arg);

/*
 * The scripts of a sed command's words from..n (word(words, i) is the
 * text of word i, or NULL), read as GNU sed's getopt_long reads them
 * (abbreviations, clusters, -i's attached suffix, options after the
 * operands, `--`): each -e VALUE, -eVALUE, --expression[=]VALUE (kind
 * 'e', the script's text), each -f FILE, --file[=]FILE (kind 'f', the
 * file's name: its script is read from it), and, when no -e or -f gave
 * one, the first operand (kind 'e').  cb gets the index of the word
 * holding each (the value may start inside it: -eVALUE).  The same
 * reading for the parser (what runs) and the labeller (what is read and
 * written).
 */
typedef struct lk_sed_args {
	const char *(*word)(const void *words, size_t i);
	const void *words;
	size_t from, n;
	void (*cb)(void *arg, size_t i, char kind, const char *text);
	void *arg;
} lk_sed_args;

void lk_sed_scripts(const lk_sed_args *a);

#endif
