/* The test harness's LOG_COMPILER: runs one suite and appends its wall and
 * CPU seconds to the suite's .log, in a line tools/check-budget reads and
 * compares with tests/budget.txt.  It times from outside so that no test
 * holds a timing assertion of its own, and it counts the CPU time of every
 * process the suite waited for (the shell suites run fpref many times).
 * The suite's exit status passes through unchanged (77 skip, 99 error). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: timed PROGRAM [ARG...]\n");
		return 99;
	}
	struct timespec start, end;
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid_t pid = fork();
	if (pid < 0) {
		perror("timed: fork");
		return 99;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "timed: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("timed: waitpid");
			return 99;
		}
	clock_gettime(CLOCK_MONOTONIC, &end);
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	double wall = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
	double user = seconds(ru.ru_utime), sys = seconds(ru.ru_stime);
	fflush(stdout);
	/* stdout is the .log: the line goes after everything the suite wrote */
	printf("fpref-time: wall %.2f s, cpu %.2f s (user %.2f, sys %.2f)\n", wall, user + sys, user, sys);
	fflush(stdout);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 99;
}
