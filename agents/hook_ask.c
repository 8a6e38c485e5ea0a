/*
 * agents/hook_ask.c - can the agent that runs this hook ask a person?
 *
 * Gemini CLI turns a hook's {"decision":"ask"} into its confirmation
 * prompt; run headless (`gemini -p ...`, or with stdin not a terminal)
 * there is nobody to answer it and the run waits forever (Gemini CLI
 * 0.61).  Its hook payload does not say which mode it runs in, so the
 * hook looks at the Gemini process itself: the nearest ancestor whose
 * arguments name gemini (`gemini`, `gemini.js`, a relaunched
 * `gemini-*.js` bundle).  It can ask only when that process has no
 * -p/--prompt argument (or has -i/--prompt-interactive) and its stdin is
 * a terminal.  Any other agent, or no Gemini ancestor found: it can ask
 * (`locus hook --no-ask` says otherwise).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "hook.h"
#include "../util/read.h"

/* The parent of `pid` (from /proc/PID/stat), or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[64], *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (lu_read_path(path, 4096, &text, &len))
		return -1;
	/* pid (comm) state ppid ...: comm may hold spaces and ')' */
	char *rp = strrchr(text, ')');
	int ppid = -1;
	if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
		ppid = -1;
	free(text);
	return (pid_t)ppid;
}

static bool names_gemini(const char *arg)
{
	const char *b = strrchr(arg, '/');
	b = b ? b + 1 : arg;
	return strncmp(b, "gemini", 6) == 0 &&
	       (b[6] == '\0' || b[6] == '.' || b[6] == '-');
}

typedef enum gemini_mode { G_NONE, G_ASKS, G_HEADLESS } gemini_mode;

/* What the arguments of process `pid` say. */
static gemini_mode mode_of(pid_t pid)
{
	char path[64], *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	if (lu_read_path(path, (size_t)1 << 20, &text, &len))
		return G_NONE;
	bool gemini = false, prompt = false, interactive = false;
	/* the script is one of the first words (node [flags] script) */
	for (size_t off = 0, i = 0; off < len; i++) {
		const char *a = text + off;
		if (i < 4 && names_gemini(a))
			gemini = true;
		if (!strcmp(a, "-p") || !strcmp(a, "--prompt") ||
		    !strncmp(a, "--prompt=", 9))
			prompt = true;
		if (!strcmp(a, "-i") || !strcmp(a, "--prompt-interactive") ||
		    !strncmp(a, "--prompt-interactive=", 21))
			interactive = true;
		off += strlen(a) + 1;
	}
	free(text);
	if (!gemini)
		return G_NONE;
	if (prompt && !interactive)
		return G_HEADLESS;
	char fd0[64], target[PATH_MAX];
	snprintf(fd0, sizeof fd0, "/proc/%d/fd/0", (int)pid);
	ssize_t n = readlink(fd0, target, sizeof target - 1);
	if (n <= 0)
		return G_HEADLESS; /* cannot tell: nobody is known to answer */
	target[n] = '\0';
	bool tty =
	    !strncmp(target, "/dev/pts/", 9) || !strncmp(target, "/dev/tty", 8);
	return tty ? G_ASKS : G_HEADLESS;
}

bool hook_agent_can_ask(const char *agent)
{
	if (strcmp(agent, "gemini") != 0)
		return true;
	pid_t p = getppid();
	for (int depth = 0; depth < 12 && p > 1; depth++) {
		gemini_mode m = mode_of(p);
		if (m != G_NONE)
			return m == G_ASKS;
		p = parent_of(p);
	}
	return true;
}
