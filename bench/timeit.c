/*
 * bench/timeit.c - run a command N times and report wall-time figures.
 *
 *   timeit [-n RUNS] [-i STDIN_FILE] -- COMMAND ARGS...
 *
 * Prints one line: "median_ms=.. min_ms=.. max_ms=.. cpu_ms=.. maxrss_kb=.."
 * where cpu_ms is the median user+system CPU time of a run and maxrss the
 * largest peak RSS of any run (both from wait4).  stdout of the
 * command goes to /dev/null.  Medians, not means: this machine is shared
 * and noisy, and one slow run says little.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int runs = 5;
	const char *in = NULL;
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-i") && i + 1 < argc)
			in = argv[++i];
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else
			break;
	}
	if (i >= argc || runs < 1) {
		fprintf(stderr,
		        "usage: timeit [-n RUNS] [-i FILE] -- CMD...\n");
		return 2;
	}
	double *ms = calloc((size_t)runs, sizeof *ms);
	double *cpu = calloc((size_t)runs, sizeof *cpu);
	if (!ms || !cpu)
		return 2;
	long maxrss = 0;
	int failures = 0;
	for (int r = 0; r < runs; r++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid_t pid = fork();
		if (pid == 0) {
			int fd = in ? open(in, O_RDONLY)
			            : open("/dev/null", O_RDONLY);
			int out = open("/dev/null", O_WRONLY);
			if (fd < 0 || out < 0)
				_exit(127);
			dup2(fd, 0);
			dup2(out, 1);
			execvp(argv[i], argv + i);
			_exit(127);
		}
		int status;
		struct rusage ru;
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
			perror("timeit");
			return 2;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms[r] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		        (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		cpu[r] =
		    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
		if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
			failures++;
	}
	qsort(ms, (size_t)runs, sizeof *ms, cmp_double);
	qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
	double med =
	    runs % 2 ? ms[runs / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2;
	double cmed =
	    runs % 2 ? cpu[runs / 2] : (cpu[runs / 2 - 1] + cpu[runs / 2]) / 2;
	printf("median_ms=%.3f min_ms=%.3f max_ms=%.3f cpu_ms=%.3f "
	       "maxrss_kb=%ld failed_runs=%d\n",
	       med, ms[0], ms[runs - 1], cmed, maxrss, failures);
	free(ms);
	free(cpu);
	return failures ? 1 : 0;
}
