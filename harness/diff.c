/*
 * harness/diff.c - a unified diff of two texts, for preview.
 *
 * Lines are compared after trimming the common head and tail; the middle
 * is aligned by an LCS table when it is small enough (at most 4M cells),
 * else shown as one replaced block.  Iterative throughout.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct line {
	const char *s;
	size_t n; /* without the newline */
	bool nl;  /* ends with a newline */
} line;

static line *split(const char *t, size_t len, size_t *count)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		if (t[i] == '\n')
			n++;
	line *v = malloc((n + 2) * sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0, start = 0;
	for (size_t i = 0; i < len; i++)
		if (t[i] == '\n') {
			v[k++] = (line){t + start, i - start, true};
			start = i + 1;
		}
	if (start < len)
		v[k++] = (line){t + start, len - start, false};
	*count = k;
	return v;
}

static bool eq(const line *a, const line *b)
{
	return a->n == b->n && a->nl == b->nl && !memcmp(a->s, b->s, a->n);
}

/* op per aligned step: ' ' keep, '-' old only, '+' new only */
typedef struct step {
	char op;
	size_t a, b; /* indexes into the old and new lines */
} step;

#define MAX_CELLS (4u << 20)

/* Align the middle A[pre..pre+ma) / B[pre..pre+mb) by an LCS table
 * (lengths from the end), appending steps; false when out of memory. */
static bool align_lcs(const line *A, const line *B, size_t pre, size_t ma,
                      size_t mb, step *steps, size_t *ns)
{
	unsigned *L = calloc((ma + 1) * (mb + 1), sizeof *L);
	if (!L)
		return false;
#define AT(i, j) L[(i) * (mb + 1) + (j)]
	for (size_t i = ma; i-- > 0;)
		for (size_t j = mb; j-- > 0;)
			AT(i, j) =
			    eq(&A[pre + i], &B[pre + j]) ? AT(i + 1, j + 1) + 1
			    : AT(i + 1, j) >= AT(i, j + 1) ? AT(i + 1, j)
			                                   : AT(i, j + 1);
	size_t i = 0, j = 0;
	while (i < ma || j < mb) {
		if (i < ma && j < mb && eq(&A[pre + i], &B[pre + j])) {
			steps[(*ns)++] = (step){' ', pre + i, pre + j};
			i++;
			j++;
		} else if (j == mb ||
		           (i < ma && AT(i + 1, j) >= AT(i, j + 1))) {
			steps[(*ns)++] = (step){'-', pre + i, pre + j};
			i++;
		} else {
			steps[(*ns)++] = (step){'+', pre + i, pre + j};
			j++;
		}
	}
#undef AT
	free(L);
	return true;
}

/* The steps from A to B: the common head and tail kept, the middle
 * aligned (or one replaced block when too large); false when out of
 * memory. */
static bool align(const line *A, size_t na, const line *B, size_t nb,
                  step *steps, size_t *ns)
{
	size_t pre = 0;
	while (pre < na && pre < nb && eq(&A[pre], &B[pre]))
		pre++;
	size_t suf = 0;
	while (suf < na - pre && suf < nb - pre &&
	       eq(&A[na - 1 - suf], &B[nb - 1 - suf]))
		suf++;
	*ns = 0;
	for (size_t i = 0; i < pre; i++)
		steps[(*ns)++] = (step){' ', i, i};
	size_t ma = na - pre - suf, mb = nb - pre - suf;
	if (ma && mb && (ma + 1) * (mb + 1) <= MAX_CELLS) {
		if (!align_lcs(A, B, pre, ma, mb, steps, ns))
			return false;
	} else {
		for (size_t i = 0; i < ma; i++)
			steps[(*ns)++] = (step){'-', pre + i, pre};
		for (size_t j = 0; j < mb; j++)
			steps[(*ns)++] = (step){'+', pre + ma, pre + j};
	}
	for (size_t i = 0; i < suf; i++)
		steps[(*ns)++] = (step){' ', na - suf + i, nb - suf + i};
	return true;
}

/* The end of the hunk that starts with the change at k: changes with 3
 * lines of context, runs of at most 6 unchanged lines merged in. */
static size_t hunk_end(const step *steps, size_t ns, size_t k)
{
	size_t he = k;
	for (;;) {
		while (he < ns && steps[he].op != ' ')
			he++;
		size_t run = he;
		while (run < ns && steps[run].op == ' ')
			run++;
		if (run < ns && run - he <= 6) {
			he = run;
			continue;
		}
		he = he + 3 < ns ? he + 3 : ns;
		return he > run ? run : he;
	}
}

/* One hunk, steps [hs, he). */
static void emit_hunk(lu_buf *out, const line *A, const line *B,
                      const step *steps, size_t hs, size_t he)
{
	size_t a0 = steps[hs].a, b0 = steps[hs].b, ac = 0, bc = 0;
	for (size_t t = hs; t < he; t++) {
		if (steps[t].op != '+')
			ac++;
		if (steps[t].op != '-')
			bc++;
	}
	lu_buf_printf(out, "@@ -%zu,%zu +%zu,%zu @@\n", ac ? a0 + 1 : a0, ac,
	              bc ? b0 + 1 : b0, bc);
	for (size_t t = hs; t < he; t++) {
		const line *l =
		    steps[t].op == '+' ? &B[steps[t].b] : &A[steps[t].a];
		lu_buf_add(out, &steps[t].op, 1);
		lu_buf_add(out, l->s, l->n);
		lu_buf_add(out, "\n", 1);
		if (!l->nl)
			lu_buf_puts(out, "\\ No newline at end of file\n");
	}
}

char *lh_unified_diff(const char *path, const char *old, size_t olen,
                      const char *new_, size_t nlen)
{
	size_t na = 0, nb = 0, ns = 0;
	line *A = split(old ? old : "", old ? olen : 0, &na);
	line *B = split(new_ ? new_ : "", new_ ? nlen : 0, &nb);
	step *steps = malloc((na + nb + 1) * sizeof *steps);
	lu_buf out = {0};
	if (!A || !B || !steps || !align(A, na, B, nb, steps, &ns)) {
		free(A);
		free(B);
		free(steps);
		return NULL;
	}
	if (!old)
		lu_buf_printf(&out, "--- /dev/null\n+++ b/%s\n", path);
	else if (!new_)
		lu_buf_printf(&out, "--- a/%s\n+++ /dev/null\n", path);
	else
		lu_buf_printf(&out, "--- a/%s\n+++ b/%s\n", path, path);
	/* hunks: changes with 3 lines of context, close ones merged */
	size_t k = 0;
	while (k < ns) {
		while (k < ns && steps[k].op == ' ')
			k++;
		if (k >= ns)
			break;
		size_t hs = k >= 3 ? k - 3 : 0, he = hunk_end(steps, ns, k);
		emit_hunk(&out, A, B, steps, hs, he);
		k = he;
	}
	free(A);
	free(B);
	free(steps);
	return lu_buf_take(&out);
}
