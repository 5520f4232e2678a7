/* The commands that consume .npy arrays, on small arrays of fuzzer-chosen
 * item types, shapes and bytes: gemm (A and B), quantize (each scheme)
 * and lossscale --grads.  The files are written by fpref_npy_write, so
 * that what the input drives is the consumers, not the header parser. */
#include "../../tools/cli.h"
#include "fuzz.h"

struct dtype {
	const char *descr;
	size_t bytes;
};

static const struct dtype dtypes[] = { { "<f2", 2 }, { "<f4", 4 }, { "<f8", 8 }, { "|u1", 1 },
				       { "<u2", 2 }, { "<u4", 4 }, { "|V2", 2 }, { "<i4", 4 } };

/* Take n bytes of the input (zeros once it runs out). */
static void take(const uint8_t **p, size_t *left, uint8_t *out, size_t n)
{
	size_t k = n < *left ? n : *left;
	memcpy(out, *p, k);
	memset(out + k, 0, n - k);
	*p += k;
	*left -= k;
}

/* An array of shape rows x cols of the chosen type, its bytes from the input. */
static int write_array(const char *path, const struct dtype *t, size_t rows, size_t cols, const uint8_t **p,
		       size_t *left)
{
	size_t shape[2] = { rows, cols }, n = rows * cols * t->bytes;
	uint8_t *bytes = malloc(n ? n : 1);
	char err[512];
	if (!bytes)
		abort();
	take(p, left, bytes, n);
	int r = fpref_npy_write(path, t->descr, shape, 2, bytes, t->bytes, err, sizeof err);
	free(bytes);
	return r;
}

static void run_gemm(const uint8_t *sel, const char *a, const char *b)
{
	static const char *const formats[] = { "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float32" };
	static const char *const models[] = { "exact", "h100", "a100", "recursive", "pairwise", "kahan" };
	char *argv[] = { "--model", (char *)models[sel[0] % 6], "--in", (char *)formats[sel[1] % 5],
			 "--a", (char *)a, "--b", (char *)b, NULL, NULL };
	if (sel[2] & 1)
		argv[8] = "--json";
	fuzz_command(cmd_gemm, argv);
}

static void run_quantize(const uint8_t *sel, const char *in)
{
	static const char *const schemes[] = { "tensor", "delayed", "tile128", "block128", "mxfp8", "mxfp6", "mxfp4",
					       "mxint8", "nvfp4" };
	char codes[128], scales[128], dequant[128];
	fuzz_path("codes.npy", codes, sizeof codes);
	fuzz_path("scales.npy", scales, sizeof scales);
	fuzz_path("dequant.npy", dequant, sizeof dequant);
	const char *scheme = schemes[sel[0] % 9];
	char *argv[] = { "--scheme", (char *)scheme, "--in", (char *)in, "--codes", codes, "--scales", scales,
			 "--dequant", dequant, "--tensor-scale", (char *)in, NULL };
	if (strcmp(scheme, "nvfp4") != 0)
		argv[10] = NULL; /* the input itself as the FP32 tensor scale: mostly refused, which is a path too */
	fuzz_command(cmd_quantize, argv);
	remove(codes);
	remove(scales);
	remove(dequant);
}

static void run_lossscale(const uint8_t *sel, const char *grads)
{
	static const char *const scalers[] = { "pytorch", "deepspeed", "apex", "static" };
	char *argv[] = { "--scaler", (char *)scalers[sel[0] % 4], "--grads", (char *)grads, "--json", NULL };
	fuzz_command(cmd_lossscale, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t head[8];
	const uint8_t *p = data;
	size_t left = size;
	take(&p, &left, head, sizeof head);
	const struct dtype *t = &dtypes[head[0] % 8];
	size_t rows = head[1] % 5, inner = head[2] % 9, cols = head[3] % 5;
	char a[128], b[128];
	fuzz_path("a.npy", a, sizeof a);
	fuzz_path("b.npy", b, sizeof b);
	switch (head[4] % 3) {
	case 0: /* gemm: A rows x inner, B inner x cols */
		if (write_array(a, t, rows, inner, &p, &left) == 0 && write_array(b, t, inner, cols, &p, &left) == 0)
			run_gemm(head + 5, a, b);
		break;
	case 1: /* quantize: up to 4 x 160, enough for blocks of 32 and tiles of 128 */
		if (write_array(a, t, rows, (size_t)head[2] % 161, &p, &left) == 0)
			run_quantize(head + 5, a);
		break;
	default: /* lossscale: iterations x gradients */
		if (write_array(a, t, rows, (size_t)head[2] % 65, &p, &left) == 0)
			run_lossscale(head + 5, a);
		break;
	}
	remove(a);
	remove(b);
	return 0;
}
