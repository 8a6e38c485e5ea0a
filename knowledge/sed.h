/*
 * knowledge/sed.h - the grammar of GNU sed script addresses, read by the
 * parser (parser/sed.c: does a script run a program?) and the labeller
 * (labels/tables.c: does it only print?).
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

#endif
