/* fpref quantize: reading the input tensor and writing the outputs. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "quantize.h"

/* The source format of an .npy item type, or NULL. */
static const char *source_format(const struct fpref_npy *a)
{
	if (a->kind == 'f' && a->item_bytes == 4)
		return "float32";
	if (a->kind == 'f' && a->item_bytes == 2)
		return "float16";
	if (a->kind == 'f' && a->item_bytes == 8)
		return "float64";
	if (a->kind == 'V' && a->item_bytes == 2)
		return "bfloat16";
	return NULL;
}

static int widen(const char *path, const struct fpref_npy *a, const char *from_name, uint32_t *x)
{
	struct fpref_format from, f32;
	struct fpref_env env;
	fpref_env_default(&env);
	cli_parse_format(cli_cmd_quantize.name, from_name, &from);
	cli_parse_format(cli_cmd_quantize.name, "float32", &f32);
	for (size_t i = 0; i < a->count; i++) {
		uint64_t item = 0, out = 0;
		unsigned flags = 0;
		memcpy(&item, (const unsigned char *)a->data + i * a->item_bytes, a->item_bytes); /* little-endian host */
		fpref_emu_convert(&from, item, &f32, &env, 0, &out, &flags);
		if (flags & (FPREF_FLAG_INEXACT | FPREF_FLAG_OVERFLOW)) {
			cli_fail(cli_cmd_quantize.name, "%s: element %zu (float64 0x%016llX) is not exactly a float32; the recipes quantise "
				  "float32, and rounding it here first would round twice: convert the tensor to float32 "
				  "yourself", path, i, (unsigned long long)item);
			return CLI_EXIT_USAGE;
		}
		x[i] = (uint32_t)out;
	}
	return 0;
}

int quantize_load(const char *path, struct quantize_request *q, uint32_t **x)
{
	struct fpref_npy a;
	char err[512];
	*x = NULL;
	if (fpref_npy_read(path, &a, err, sizeof err) != 0) {
		cli_fail(cli_cmd_quantize.name, "%s", err);
		return CLI_EXIT_USAGE;
	}
	int status = 0;
	const char *from = source_format(&a);
	if (!from) {
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
