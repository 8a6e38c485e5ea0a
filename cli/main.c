/* cli/main.c - placeholder until the CLI lands. */
#include <stdio.h>

#include "locus/common.h"

int main(void)
{
	printf("locus %s\n", locus_version());
	return 0;
}
