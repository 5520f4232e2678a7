/* fpref quantize: reading the input tensor and writing the outputs. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "quantize.h"

/* The tensor as float32 patterns: values of other formats only when they
 * are exactly float32 (the recipes quantise float32). */
static int widen(const char *path, const struct fpref_npy *a, const struct fpref_format *from, uint32_t *x)
{
	struct fpref_format f32;
	cli_parse_format(cli_cmd_quantize.name, "float32", &f32);
	bool same = fpref_format_is(from, FPREF_FORMAT_FLOAT32) && a->item_bytes == sizeof *x &&
		    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__; /* the items are little-endian */
	if (same) { /* float32 already: the items as they are, a NaN's payload too (torchao's codes depend on it) */
		memcpy(x, a->data, a->count * sizeof *x);
		return 0;
	}
	struct fpref_env widening; /* a NaN widens as torch's .float() widens it: its bits shifted, not made canonical */
	fpref_env_default(&widening);
	widening.nan_style = FPREF_NAN_KEEP_BITS;
	for (size_t i = 0; i < a->count; i++) {
		uint64_t item = fpref_npy_item(a, i), out = item;
		if (cli_convert_values(from, &out, 1, &f32, &widening) != 0) {
			cli_fail(cli_cmd_quantize.name, "%s: element %zu (%s 0x%016llX) is not exactly a float32; the recipes "
				 "quantise float32, and rounding it here first would round twice: convert the tensor to "
				 "float32 yourself", path, i, from->name, (unsigned long long)item);
			return CLI_EXIT_USAGE;
		}
		x[i] = (uint32_t)out;
	}
	return 0;
}

int quantize_load(const char *path, struct fpref_emu_quantize_request *q, uint32_t **x)
{
	struct fpref_npy a;
	char err[512];
	*x = NULL;
	if (fpref_npy_read(path, &a, err, sizeof err) != 0) {
		cli_fail(cli_cmd_quantize.name, "%s", err);
		return CLI_EXIT_USAGE;
	}
	int status = 0;
	const struct fpref_format *from = NULL;
	if (fpref_npy_item_format(&a, NULL, &from) != FPREF_NPY_VALUES) {
		cli_fail(cli_cmd_quantize.name, "%s: items of kind '%c' and %zu bytes: expected float32, float16, bfloat16 (V2) or float64",
			  path, a.kind, a.item_bytes);
		status = CLI_EXIT_USAGE;
	} else if (a.ndim == 0 || a.count == 0) {
		cli_fail(cli_cmd_quantize.name, "%s: the tensor is %s; quantize needs at least one element in one or more dimensions", path,
			  a.ndim == 0 ? "a scalar" : "empty");
		status = CLI_EXIT_USAGE;
	}
	if (!status) {
		*x = malloc(a.count * sizeof **x);
		if (!*x) {
			cli_fail(cli_cmd_quantize.name, "out of memory");
			status = CLI_EXIT_FAIL;
		}
	}
	if (!status)
		status = widen(path, &a, from, *x);
	if (!status) {
		q->count = a.count;
		q->ndim = a.ndim;
		memcpy(q->shape, a.shape, sizeof q->shape);
	} else {
		free(*x);
		*x = NULL;
	}
	fpref_npy_free(&a);
	return status;
}

int quantize_save(const char *path, const char *descr, const size_t *shape, int ndim, const void *data,
		  size_t item_bytes)
{
	char err[512];
	if (fpref_npy_write(path, descr, shape, ndim, data, item_bytes, err, sizeof err) != 0) {
		cli_fail(cli_cmd_quantize.name, "%s", err);
		return CLI_EXIT_FAIL;
	}
	return 0;
}
