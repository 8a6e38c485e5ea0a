/*
 * backends/cancel_guard.c - the guard and the kill script of a remote
 * command (see cancel_guard.h).
 */
#include "cancel_guard.h"

/* "DIR/.locus-c-TOK", double-quoted so the sandbox expands DIR. */
static void pid_file(lu_buf *sc, const char *dir, const char *tok,
                     const char *suffix)
{
	lu_buf_printf(sc, "\"%s/.locus-c-%s%s\"", dir, tok, suffix);
}

void lh_guard_prefix(lu_buf *sc, const char *dir, const char *tok)
{
	/* $0 is the pid file; the pid is the command's after exec */
	lu_buf_printf(sc,
	              "sh -c '{ echo $$ >\"$0\"; } 2>/dev/null; "
	              "[ -e \"$0.x\" ] && exit 137; LOCUS_CANCEL=%s; "
	              "export LOCUS_CANCEL; exec \"$@\"' ",
	              tok);
	pid_file(sc, dir, tok, "");
	lu_buf_puts(sc, " ");
}

void lh_guard_cleanup(lu_buf *sc, const char *dir, const char *tok)
{
	lu_buf_puts(sc, "rm -f ");
	pid_file(sc, dir, tok, "");
	lu_buf_puts(sc, " ");
	pid_file(sc, dir, tok, ".x");
	lu_buf_puts(sc, "\n");
}

/* The tree under $p, stopped (SIGSTOP: nothing in it forks any more)
   until it stops growing, then killed with its group.  Children are
   found by the parent field of /proc/N/stat, readable for every process
   of the sandbox (environ is not always: across user namespaces). */
static const char KILL_TREE[] =
    "all=\" $p \"\n"
    "if [ -n \"$p\" ]; then\n"
    "  n=0\n"
    "  while :; do\n"
    "    kill -STOP $all 2>/dev/null\n"
    "    new=\n"
    "    for f in /proc/[0-9]*/stat; do\n"
    "      read -r l 2>/dev/null <\"$f\" || continue\n"
    "      q=${f#/proc/}; q=${q%/stat}\n"
    "      case $all in *\" $q \"*) continue ;; esac\n"
    "      r=${l##*) }; set -- $r\n"
    "      case $all in *\" $2 \"*) new=\"$new $q\" ;; esac\n"
    "    done\n"
    "    [ -z \"$new\" ] && break\n"
    "    all=\"$all$new \"\n"
    "    n=$((n+1)); [ $n -ge 100 ] && break\n"
    "  done\n"
    "  kill -9 $all 2>/dev/null; kill -9 -\"$p\" 2>/dev/null\n"
    "fi\n";

void lh_guard_kill_script(lu_buf *sc, const char *dir, const char *tok)
{
	lu_buf_puts(sc, "C=");
	pid_file(sc, dir, tok, "");
	/* The flag first: a guard not yet started never starts.  Then the
	   tree, then every process carrying the mark (what left the tree by
	   a double fork), again until nothing of either is left alive
	   (zombies do not count: their environ is empty, their state Z). */
	lu_buf_puts(sc, "\n: >\"$C.x\" 2>/dev/null\n"
	                "p=$(cat \"$C\" 2>/dev/null)\n"
	                "case $p in ''|*[!0-9]*) p= ;; esac\n");
	lu_buf_puts(sc, KILL_TREE);
	lu_buf_printf(
	    sc,
	    "i=0\n"
	    "while :; do\n"
	    "  left=\n"
	    "  for d in /proc/[0-9]*; do\n"
	    "    grep -qxz 'LOCUS_CANCEL=%s' \"$d/environ\" 2>/dev/null && "
	    "{ kill -9 \"${d#/proc/}\" 2>/dev/null; left=1; }\n"
	    "  done\n"
	    "  for q in $all; do\n"
	    "    read -r l 2>/dev/null </proc/$q/stat || continue\n"
	    "    r=${l##*) }; case $r in Z*) ;; *) kill -9 $q 2>/dev/null; "
	    "left=1 ;; esac\n"
	    "  done\n"
	    "  [ -z \"$left\" ] && break\n"
	    "  i=$((i+1)); [ $i -ge 50 ] && exit 1\n"
	    "  sleep 0.1\n"
	    "done\n"
	    "rm -f \"$C\"\n"
	    /* the guard was found and killed: its flag is not needed; else
	       it stays, for a guard that may still start */
	    "[ -n \"$p\" ] && rm -f \"$C.x\"\n"
	    "exit 0\n",
	    tok);
}

void lh_watch_init(lh_watch *w, const locus_call_ctl *ctl,
                   size_t (*bytes)(const void *arg), const void *bytes_arg)
{
	double now = lu_now();
	*w = (lh_watch){ctl, now, now, bytes, bytes_arg, false};
}

bool lh_watch_poll(void *p)
{
	lh_watch *w = p;
	if (locus_call_cancelled(w->ctl))
		return w->cancelled = true;
	double now = lu_now();
	if (w->ctl->progress && now - w->last >= 1.0) {
		w->last = now;
		w->ctl->progress(now - w->start,
		                 w->bytes ? w->bytes(w->bytes_arg) : 0,
		                 w->ctl->payload);
	}
	return false;
}
