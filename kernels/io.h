/* The harness's golden-file reader and results writer: standalone C11 (no
 * libfpref, no MPFR), so the GPU machine needs nothing but the binary. */
#ifndef FPREF_KERNELS_IO_H
#define FPREF_KERNELS_IO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FK_MAX_TOKENS 1024 /* 2 K + 2 tokens for dot products, K at most 512 */

/* A '# formats' value taken apart: "float32 -> float16" (a conversion),
 * "h100 float16 -> float32" (a dot of one format: b = a) or
 * "h100 float8_e5m2*float8_e4m3fn -> float32" (A and B of two formats). */
struct fk_formats {
	char preset[64]; /* dot files only; "" for a conversion */
	char a[64], b[64], out[64];
};

/* Parse text into f; with_preset: the text opens with a preset's name (a
 * dot file's header; a kernel table's formats have none).  Without '*',
 * b = a.  0, or -1. */
int fk_formats_parse(const char *text, int with_preset, struct fk_formats *f);

struct fk_golden {
	char op[64], formats[128], env[256]; /* the header's values, as written */
	struct fk_formats fmt;               /* formats taken apart (a dot: A's and B's) */
	int desc_bits[3];                    /* bits of each '# descriptor' line in order
					      * (a dot: A, B, out; one format: in, out);
					      * 0 where the file has none (format 1) */
	int descriptors;                     /* how many '# descriptor' lines */
	size_t lines;                        /* body lines */
	int nin;                             /* input columns */
	int K;                               /* products per dot product; 0 for other ops */
	int has_flags;                       /* whether the body ends with a flags column */
	int width[FK_MAX_TOKENS];            /* hex digits of each input column (from line 1) */
	int result_width;
	uint64_t *in;                        /* lines x nin input patterns */
	uint64_t *result;                    /* the golden result of each line */
};

/* Read a golden file made by `fpref gen`. 0, or -1 with a message naming
 * the file and line. */
int fk_golden_read(const char *path, struct fk_golden *g, char *err, size_t errlen);
void fk_golden_free(struct fk_golden *g);

/* Extra header lines of a results file (NULL or "" to leave one out). */
struct fk_results_header {
	const char *kernel, *path, *gpu, *driver, *toolkit;
};

/* Write a results file that `fpref verify` reads: the golden's op, formats
 * and env lines, the extra lines, then per vector its inputs and `result`'s
 * pattern. Written to a temporary name then renamed: never half-written. */
int fk_results_write(const char *path, const struct fk_golden *g, const struct fk_results_header *h,
		     const uint64_t *result, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
