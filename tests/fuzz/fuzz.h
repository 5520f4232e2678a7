/* Shared by the fuzz targets: each defines LLVMFuzzerTestOneInput; built
 * with libFuzzer by `make fuzz`, and with replay.c into a plain program
 * that `make check` runs over the corpus in tests/fuzz/corpus/<target>. */
#ifndef FPREF_FUZZ_H
#define FPREF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "fpref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (NUL bytes inside stay: readers stop there). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Where scratch files go: a tmpfs where there is one, as the atomic
 * writers sync every file, which on a disk costs more than the run. */
static inline const char *fuzz_dir(void)
{
	return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

/* The input as a file, for readers that take a path. */
static inline void fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	snprintf(path, len, "%s/fpref-fuzz-%ld.bin", fuzz_dir(), (long)getpid());
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
}

/* The commands and readers report on stdout and stderr: while a target
 * runs them, both go to /dev/null (libFuzzer's own report comes after). */
struct fuzz_quiet {
	int saved_out, saved_err;
};

static inline struct fuzz_quiet fuzz_quiet_begin(void)
{
	struct fuzz_quiet q = { dup(1), dup(2) };
	int null = open("/dev/null", O_WRONLY);
	fflush(stdout);
	fflush(stderr);
	if (null >= 0) {
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	return q;
}

static inline void fuzz_quiet_end(struct fuzz_quiet q)
{
	fflush(stdout);
	fflush(stderr);
	dup2(q.saved_out, 1);
	dup2(q.saved_err, 2);
	close(q.saved_out);
	close(q.saved_err);
}

/* A scratch path beside the input's, for targets that write more files. */
static inline void fuzz_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/fpref-fuzz-%ld-%s", fuzz_dir(), (long)getpid(), name);
}

/* Run a subcommand on a NULL-terminated argument list, quietly. */
static inline int fuzz_command(int (*cmd)(int, char **), char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	struct fuzz_quiet q = fuzz_quiet_begin();
	int r = cmd(argc, argv);
	fuzz_quiet_end(q);
	return r;
}
#endif
