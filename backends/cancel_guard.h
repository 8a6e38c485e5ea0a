/*
 * backends/cancel_guard.h - stopping a command in a remote sandbox from
 * another command (the OCI and OpenShell sessions' exec_ctl).
 *
 * Neither service can kill a command's whole tree: OpenShell has no
 * cancel RPC at all (a cancelled ExecSandbox stream only stops the
 * relaying; the command runs on), and OCI's cancel signals the command
 * the service started, while the wrapper's coreutils `timeout` runs the
 * real command in a process group of its own.  So every guarded command
 * starts through a guard that
 *   - writes its pid (which `exec`s into the command, so it is also the
 *     process group `timeout` makes) to DIR/.locus-c-TOK,
 *   - refuses to start when DIR/.locus-c-TOK.x exists (a cancel that
 *     came first), and
 *   - marks the command's environment LOCUS_CANCEL=TOK (inherited by
 *     everything it starts, also what leaves the group with setsid);
 * and the kill script, run as a separate command, makes the .x flag, kills
 * the pid and its group, kills every process whose environment carries
 * the mark, and waits (5 s at most) until none is left.  The pid file is
 * written before the flag is checked and the flag made before the pid is
 * read, so a guard racing a cancel either is killed or never starts.
 *
 * DIR is a shell word the sandbox expands ("${TMPDIR:-/tmp}", or
 * "/workspace/.locus-harness" where only the workspace is writable); TOK
 * is 32 hex characters (lhttp_random_token).
 */
#ifndef LOCUS_HARNESS_CANCEL_GUARD_H
#define LOCUS_HARNESS_CANCEL_GUARD_H

#include "internal.h"

/*
 * Append the guard prefix: the words to put right before a command's argv
 * in a script ("sh -c '...' DIR/.locus-c-TOK "), so that
 * `<prefix>timeout 5 sh -c ...` runs the timeout under the guard.  A
 * guard that finds the flag exits 137 without running anything.
 */
void lh_guard_prefix(lu_buf *sc, const char *dir, const char *tok);

/* Append the script that clears the guard's files after a normal end. */
void lh_guard_cleanup(lu_buf *sc, const char *dir, const char *tok);

/*
 * Append the kill script (a whole command of its own).  It exits 0 when
 * nothing marked TOK is left running, 1 when something still is after
 * 5 s.
 */
void lh_guard_kill_script(lu_buf *sc, const char *dir, const char *tok);

/*
 * The cancel check of a session's exec (the net/http cancel hook, polled
 * about once a second on the calling thread): true once ctl is cancelled
 * (then w->cancelled); else ctl->progress about once a second with the
 * seconds since w->start and bytes(bytes_arg) (NULL: 0).
 */
typedef struct lh_watch {
	const locus_call_ctl *ctl;
	double start, last;
	size_t (*bytes)(const void *arg);
	const void *bytes_arg;
	bool cancelled;
} lh_watch;

void lh_watch_init(lh_watch *w, const locus_call_ctl *ctl,
                   size_t (*bytes)(const void *arg), const void *bytes_arg);
bool lh_watch_poll(void *w);

#endif
