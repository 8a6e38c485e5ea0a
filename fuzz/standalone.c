/*
 * standalone.c - a plain main() for the libFuzzer targets (like libgit2's
 * standalone driver): feeds every file named on the command line (or every
 * regular file of a named directory) to LLVMFuzzerTestOneInput once, so the
 * committed seed corpora replay under gcc in the ordinary `meson test` run.
 * A target signals a broken invariant with abort(), so a failing seed makes
 * this program die and the test fail.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return 1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return 1;
	}
	size_t n;
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				fclose(f);
				return 1;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	/* An exact-size copy so ASan sees reads past the input. */
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy) {
		free(buf);
		return 1;
	}
	memcpy(copy, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	size_t files = 0;
	int bad = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "cannot stat %s\n", argv[i]);
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]);
			files++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d)
			return 2;
		char **names = NULL;
		size_t nn = 0;
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			char **nb = realloc(names, (nn + 1) * sizeof *names);
			if (!nb)
				return 2;
			names = nb;
			size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
			names[nn] = malloc(l);
			if (!names[nn])
				return 2;
			snprintf(names[nn++], l, "%s/%s", argv[i], e->d_name);
		}
		closedir(d);
		qsort(names, nn, sizeof *names, cmp_str);
		for (size_t k = 0; k < nn; k++) {
			if (stat(names[k], &st) == 0 && S_ISREG(st.st_mode)) {
				bad |= run_file(names[k]);
				files++;
			}
			free(names[k]);
		}
		free(names);
	}
	printf("%zu inputs replayed\n", files);
	/* An empty corpus is a mistake, not a pass. */
	return bad || files == 0 ? 1 : 0;
}
