// The table's Hopper rows: golden dot files through fpref_cuda_wgmma_dot
// (kernels/wgmma.cu, declared in kernels/hopper.h).  a and b are lines x K
// patterns (one byte for FP8, two for FP16/BF16), a in A's format and b in
// B's (two formats where the row names a pair); c and d are lines of float
// (float32 output) or of FP16 patterns as uint16_t (float16 output).
// The function returns 0, 1 = unsupported on this device, -1 = error.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hopper.h"
#include "kernels.h"

typedef int (*hopper_fn)(const char *, const char *, const char *, int, const uint8_t *, const uint8_t *, const void *,
			 void *, size_t, char *, size_t);

static size_t element_bytes(const char *format)
{
	return strncmp(format, "float8", 6) == 0 ? 1 : 2;
}

static int call(hopper_fn fn, const struct fk_golden *g, const struct fk_formats *f, uint64_t *result, char *err,
		size_t errlen)
{
	const char *in = f->a, *out = f->out;
	size_t n = g->lines, K = (size_t)g->K;
	int f32 = strcmp(out, "float32") == 0;
	// FP8 patterns take one byte; FP16 and BF16 two, little-endian (as the GPU stores them).
	size_t eb = element_bytes(in);
	if (element_bytes(f->b) != eb) {
		snprintf(err, errlen, "%s x %s: A and B of different widths", f->a, f->b);
		return FK_ERROR;
	}
	uint8_t *ab = (uint8_t *)malloc(2 * n * K * eb);
	uint32_t *c = (uint32_t *)calloc(n, sizeof *c), *d = (uint32_t *)calloc(n, sizeof *d);
	uint16_t *c16 = (uint16_t *)calloc(n, sizeof *c16), *d16 = (uint16_t *)calloc(n, sizeof *d16);
	int status = FK_ERROR;
	if (!ab || !c || !d || !c16 || !d16) {
		snprintf(err, errlen, "out of memory");
	} else {
		for (size_t i = 0; i < n; i++) {
			const uint64_t *row = g->in + i * (size_t)g->nin;
			for (size_t j = 0; j < K; j++)
				for (size_t byte = 0; byte < eb; byte++) {
					ab[(i * K + j) * eb + byte] = (uint8_t)(row[j] >> (8 * byte));
					ab[(n * K + i * K + j) * eb + byte] = (uint8_t)(row[K + j] >> (8 * byte));
				}
			c[i] = (uint32_t)row[2 * K];
			c16[i] = (uint16_t)row[2 * K];
		}
		status = fn(in, f->b, out, g->K, ab, ab + n * K * eb, f32 ? (const void *)c : (const void *)c16,
			    f32 ? (void *)d : (void *)d16, n, err, errlen);
		for (size_t i = 0; status == 0 && i < n; i++)
			result[i] = f32 ? d[i] : d16[i];
	}
	free(ab);
	free(c);
	free(d);
	free(c16);
	free(d16);
	return status == 0 ? FK_OK : status == 1 ? FK_UNSUPPORTED : FK_ERROR;
}

int fk_run_hopper(const struct fk_kernel *k, struct fk_job *job, char *err, size_t errlen)
{
	hopper_fn fn = fpref_cuda_wgmma_dot_ab;
	const char *file = "kernels/wgmma.cu";
	struct fk_formats f;
	if (fk_formats_parse(k->formats, 0, &f) != 0) {
		snprintf(err, errlen, "bad formats '%s' in the kernel table", k->formats);
		return FK_ERROR;
	}
	snprintf(job->path, sizeof job->path, "%s", file);
	return call(fn, job->golden, &f, job->out, err, errlen);
}
