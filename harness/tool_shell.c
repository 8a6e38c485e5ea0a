/*
 * harness/tool_shell.c - the shell tools: bash, bash_output, write_stdin,
 * kill_shell, their output window and their evidence records.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"
#include "locus/labels.h"
#include "../util/regex.h"
#include "../util/tools.h"
#include "../util/array.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- shell tools ---------------- */

static size_t utf8_back(const char *s, size_t i)
{
	/* move i back to the start of a UTF-8 sequence */
	while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
		i--;
	return i;
}

/* Cap output: head + "... N characters truncated from the middle ..." +
 * tail.  Returns true when it cut. */
static bool cap_window(locus_harness *h, const char *s, size_t n, lu_buf *out);

/* The output window, with NUL bytes shown (never cut there: `printf
 * 'ok\0'; echo FAILED` shows both words) and counted in a note. */
static bool cap_output(locus_harness *h, const char *s, size_t n, lu_buf *out)
{
	if (!memchr(s, '\0', n))
		return cap_window(h, s, n, out);
	lu_buf shown = {0};
	size_t nuls = lh_buf_add_shown(&shown, s, n);
	bool cut = cap_window(h, shown.d ? shown.d : "", shown.len, out);
	if (shown.oom)
		out->oom = true;
	lu_buf_free(&shown);
	lu_buf_printf(
	    out,
	    "\n[the output holds %zu NUL byte%s, each shown as " LH_NUL_SHOWN
	    "]\n",
	    nuls, nuls == 1 ? "" : "s");
	return cut;
}

static bool cap_window(locus_harness *h, const char *s, size_t n, lu_buf *out)
{
	size_t max = h->cfg.output_chars, head = h->cfg.output_head_chars;
	if (head > max)
		head = max;
	if (n <= max) {
		lu_buf_add(out, s, n);
		return false;
	}
	size_t hb = utf8_back(s, head);
	size_t tail = max - head;
	size_t tb = utf8_back(s, n - tail);
	if (tb < hb)
		tb = hb;
	lu_buf_add(out, s, hb);
	lu_buf_printf(out,
	              "\n... %zu characters truncated from the middle "
	              "...\n",
	              lh_utf8_chars(s + hb, tb - hb));
	lu_buf_add(out, s + tb, n - tb);
	if (h->cfg.result_store) {
		char *id = h->cfg.result_store(s, n, h->cfg.payload);
		if (id)
			lu_buf_printf(out, "\n[full output stored as %s]", id);
		free(id);
	}
	return true;
}

static void emit_exec(locus_harness *h, const char *command, bool has_exit,
                      int exit_code, double dur, bool timed_out,
                      const char *kept, size_t kept_len, bool truncated,
                      bool background)
{
	if (!h->cfg.on_exec)
		return;
	locus_exec_record r;
	memset(&r, 0, sizeof r);
	lu_sha256_hex(command, strlen(command), r.command_sha256);
	r.has_exit_code = has_exit;
	r.exit_code = has_exit ? exit_code : 0;
	r.duration_s = (double)(long long)(dur * 1000.0 + 0.5) / 1000.0;
	r.timed_out = timed_out;
	lu_sha256_hex(kept, kept_len, r.output_sha256);
	r.output_bytes = kept_len;
	r.truncated = truncated;
	r.backend_label = h->b->label;
	r.background = background;
	h->cfg.on_exec(&r, h->cfg.payload);
}

static bg_ent *bg_find(locus_harness *h, const char *handle)
{
	for (size_t i = 0; i < h->nbgs; i++)
		if (!strcmp(h->bgs[i].handle, handle))
			return &h->bgs[i];
	return NULL;
}

static void bg_note(locus_harness *h, const char *handle, size_t since)
{
	bg_ent *e = bg_find(h, handle);
	if (!e) {
		if (!lu_reserve(&h->bgs, &h->capbgs, h->nbgs + 1))
			return;
		e = &h->bgs[h->nbgs++];
		memset(e, 0, sizeof *e);
		snprintf(e->handle, sizeof e->handle, "%s", handle);
	}
	e->since = since;
}

/*
 * A command still running at its timeout becomes a background job only when
 * the gate allows this very call with background=true (exec:background):
 * the same gate, re-asked, audited like any decision.  Otherwise it is
 * killed.  True: keep it; else *why is the refusal text (malloc'd, or NULL
 * when it could not be made).  Without a wrap (an ungated harness) there
 * is nobody to ask and it is kept, as before.
 */
static bool keep_allowed(locus_harness *h, const cJSON *a, char **why)
{
	*why = NULL;
	if (!h->wrap)
		return true;
	cJSON *bg = cJSON_Duplicate(a, true);
	char *args = NULL;
	if (bg) {
		cJSON_DeleteItemFromObjectCaseSensitive(bg, "background");
		if (cJSON_AddTrueToObject(bg, "background"))
			args = cJSON_PrintUnformatted(bg);
	}
	cJSON_Delete(bg);
	/* cannot ask: fail closed */
	bool keep = args && lh_wrap_allows(h->wrap, h->wrap_payload, "bash",
	                                   args, strlen(args), why);
	cJSON_free(args);
	return keep;
}

bool lh_t_bash(locus_harness *h, const cJSON *a, lu_buf *out)
{
	const char *cmd;
	long timeout;
	bool bg;
	if (!lh_arg_str(a, "command", NULL, &cmd, out) ||
	    !lh_arg_int(a, "timeout", h->cfg.bash_timeout, 1,
	                h->cfg.bash_max_timeout, &timeout, out) ||
	    !lh_arg_bool(a, "background", false, &bg, out))
		return false;
	const char *ot = NULL;
	if (!lh_arg_str(a, "on_timeout",
	                h->cfg.on_timeout_kill ? "kill" : "background", &ot,
	                out))
		return false;
	bool kill_on = !strcmp(ot, "kill");
	if (!kill_on && strcmp(ot, "background")) {
		lu_buf_puts(out, "on_timeout must be background or kill");
		return false;
	}
	locus_exec_result r;
	locus_error err = {0};
	locus_exec_flags flags = bg        ? LOCUS_EXEC_BACKGROUND
	                         : kill_on ? LOCUS_EXEC_DEFAULT
	                                   : LOCUS_EXEC_KEEP;
	int erc = h->ctl && LH_V2(h->b, exec_ctl)
	              ? h->b->exec_ctl(h->b, cmd, (double)timeout, flags,
	                               h->ctl, &r, &err)
	              : h->b->exec(h->b, cmd, (double)timeout, flags, &r, &err);
	if (erc) {
		lh_err_text(out, &err, NULL);
		return false;
	}
	if (r.cancelled) {
		lu_buf_puts(out, "cancelled: the command's process group was "
		                 "killed\n");
		emit_exec(h, cmd, false, 0, r.duration_s, false, "", 0, false,
		          false);
		locus_exec_result_clear(&r);
		return false;
	}
	if (bg) {
		bg_note(h, r.handle, 0);
		lu_buf_printf(out,
		              "started in the background as %s; read it with "
		              "bash_output(handle=\"%s\"), stop it with "
		              "kill_shell(handle=\"%s\")",
		              r.handle, r.handle, r.handle);
		emit_exec(h, cmd, false, 0, r.duration_s, false, "", 0, false,
		          true);
		locus_exec_result_clear(&r);
		return true;
	}
	char *refused = NULL;
	if (r.timed_out && r.handle[0] && !keep_allowed(h, a, &refused)) {
		locus_bg_status st;
		locus_error kerr = {0};
		h->b->bg_kill(h->b, r.handle, &st, &kerr);
		r.handle[0] = '\0';
		lu_buf_printf(out,
		              "timed out after %lds; the command was killed: "
		              "the policy does not let it go on in the "
		              "background (exec:background): %s\n",
		              timeout, refused ? refused : "out of memory");
		free(refused);
	} else if (r.timed_out && r.handle[0]) {
		bg_note(h, r.handle, r.output_len);
		lu_buf_printf(out,
		              "timed out after %lds; still running as %s: read "
		              "more with bash_output(handle=\"%s\"), stop it "
		              "with kill_shell(handle=\"%s\")\n",
		              timeout, r.handle, r.handle, r.handle);
	} else if (r.timed_out) {
		lu_buf_printf(out,
		              "timed out after %lds; the command was "
		              "killed\n",
		              timeout);
	} else {
		lu_buf_printf(out, "exit %d\n", r.exit_code);
	}
	size_t at = out->len;
	bool cut = cap_output(h, r.output ? r.output : "", r.output_len, out);
	emit_exec(h, cmd, r.finished, r.exit_code, r.duration_s, r.timed_out,
	          out->d + at, out->len - at, cut, r.handle[0] != '\0');
	locus_exec_result_clear(&r);
	return !r.timed_out || r.handle[0];
}

bool lh_t_bash_output(locus_harness *h, const cJSON *a, lu_buf *out)
{
	const char *handle;
	if (!lh_arg_str(a, "handle", NULL, &handle, out))
		return false;
	bg_ent *e = bg_find(h, handle);
	long since;
	if (!lh_arg_int(a, "since", e ? (long)e->since : 0, 0, 1L << 50, &since,
	                out))
		return false;
	char *data;
	size_t len;
	locus_bg_status st;
	locus_error err = {0};
	if (h->b->bg_output(h->b, handle, (size_t)since, &data, &len, &st,
	                    &err)) {
		lh_err_text(out, &err, NULL);
		return false;
	}
	if (st.running)
		lu_buf_printf(out, "%s: running\n", handle);
	else
		lu_buf_printf(out, "%s: exited %d\n", handle, st.exit_code);
	cap_output(h, data ? data : "", len, out);
	if (len && data[len - 1] != '\n')
		lu_buf_add(out, "\n", 1);
	lu_buf_printf(out, "[next since=%zu]", st.next);
	bg_note(h, handle, st.next);
	free(data);
	return true;
}

bool lh_t_write_stdin(locus_harness *h, const cJSON *a, lu_buf *out)
{
	const char *handle, *text;
	bool cl;
	if (!lh_arg_str(a, "handle", NULL, &handle, out) ||
	    !lh_arg_str(a, "text", "", &text, out) ||
	    !lh_arg_bool(a, "close", false, &cl, out))
		return false;
	locus_error err = {0};
	if (h->b->bg_write(h->b, handle, text, strlen(text), cl, &err)) {
		lh_err_text(out, &err, NULL);
		return false;
	}
	lu_buf_printf(out, "wrote %zu bytes to %s%s", strlen(text), handle,
	              cl ? "; stdin closed" : "");
	return true;
}

bool lh_t_kill_shell(locus_harness *h, const cJSON *a, lu_buf *out)
{
	const char *handle;
	if (!lh_arg_str(a, "handle", NULL, &handle, out))
		return false;
	locus_bg_status st;
	locus_error err = {0};
	if (h->b->bg_kill(h->b, handle, &st, &err)) {
		lh_err_text(out, &err, NULL);
		return false;
	}
	lu_buf_printf(out, "%s killed (exit %d)", handle, st.exit_code);
	return true;
}
