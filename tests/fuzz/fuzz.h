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

/* The input as a file, for readers that take a path. */
static inline void fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	snprintf(path, len, "/tmp/fpref-fuzz-%ld.bin", (long)getpid());
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
}
#endif
