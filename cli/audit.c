/*
 * cli/audit.c - `locus audit verify FILE...`: check audit trails' hash
 * chains (policy/audit.c).
 *
 * Prints `FILE: N records, chain intact, last hash H` (compare the count
 * and H with an anchor kept elsewhere) or `FILE: line L: WHY` (the first
 * broken link).  With `--key FILE`, every checkpoint's HMAC is checked too
 * and the trail must end with a closing checkpoint.  Exit status: 0 when every file is intact, 1 when one is
 * broken, 2 for a usage error or a file that cannot be read.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "locus/policy.h"

int cli_audit(int argc, char **argv)
{
	static const char usage[] =
	    "usage: locus audit verify [--key FILE] FILE...\n"
	    "       locus audit transcripts [OPTIONS] [PATH...]\n";
	if (argc >= 2 && !strcmp(argv[1], "transcripts"))
		return cli_audit_transcripts(argc, argv);
	if (argc >= 2 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("%s", usage);
		return 0;
	}
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("%s", usage);
			return 0;
		}
	int first = 2;
	const char *key = NULL;
	if (argc >= 4 && !strcmp(argv[2], "--key")) {
		key = argv[3];
		first = 4;
	}
	if (argc <= first || strcmp(argv[1], "verify") != 0) {
		fprintf(stderr, "%s", usage);
		return 2;
	}
	int status = 0;
	for (int i = first; i < argc; i++) {
		locus_audit_report r;
		locus_error err;
		memset(&err, 0, sizeof(err));
		int rc = locus_audit_verify_report(&r, argv[i], key, &err);
		if (rc == 0) {
			/* the count and last hash: compare with an anchor */
			printf("%s: %zu records, chain intact%s, last hash %s",
			       argv[i], r.records,
			       key ? " and every checkpoint authentic" : "",
			       r.last_hash);
			if (key)
				printf(" (%zu checkpoints, closed)",
				       r.checkpoints);
			printf("\n");
		} else if (rc == LOCUS_EINVALID) {
			printf("%s\n", err.message);
			if (status < 1)
				status = 1;
		} else {
			fprintf(stderr, "locus audit: %s\n", err.message);
			status = 2;
		}
	}
	return status;
}
