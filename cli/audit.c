/*
 * cli/audit.c - `locus audit verify FILE...`: check audit trails' hash
 * chains (policy/audit.c).
 *
 * Prints `FILE: N records, chain intact` or `FILE: line L: WHY` (the first
 * broken link).  Exit status: 0 when every file is intact, 1 when one is
 * broken, 2 for a usage error or a file that cannot be read.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "locus/policy.h"

int cli_audit(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "transcripts"))
		return cli_audit_transcripts(argc, argv);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: locus audit verify FILE...\n"
		       "       locus audit transcripts [OPTIONS] [PATH...]\n");
		return 0;
	}
	if (argc < 3 || strcmp(argv[1], "verify") != 0) {
		fprintf(stderr, "usage: locus audit verify FILE...\n"
		                "       locus audit transcripts [OPTIONS] "
		                "[PATH...]\n");
		return 2;
	}
	int status = 0;
	for (int i = 2; i < argc; i++) {
		size_t records = 0, bad = 0;
		locus_error err;
		memset(&err, 0, sizeof(err));
		int rc = locus_audit_verify(argv[i], &records, &bad, &err);
		if (rc == 0) {
			printf("%s: %zu records, chain intact\n", argv[i], records);
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
