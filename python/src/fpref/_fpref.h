/* _fpref.h: what the pieces of fpref._fpref share, internal to the
 * extension (no public API: Python sees only the module's table).  The
 * argument helpers every topic parses with (formats, the environment's
 * trailing arguments), the buffer helpers, and each topic file's methods
 * for the table in _fpref.c.  Every piece includes it first, so that
 * Python.h comes before the system headers, as Python asks. */
#ifndef FPREF_PY_INTERNAL_H
#define FPREF_PY_INTERNAL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "fpref.h"

/* ---- formats and environments (_fpref.c) ---- */

int fpref_py_get_format(const char *spelling, struct fpref_format *f);

/* The environment of a conversion from `from` (NULL: an operation in one
 * format) to `to`, as the command line builds it: the defaults, the
 * profile's rows, then what the caller gave explicitly on top.  round and
 * profile may be NULL; sat is -1 when not given. */
struct env_args {
	const char *round;
	int sat, ftz, daz;
	const char *profile;
	const char *tininess;
	PyObject *sr_seed;
	unsigned sr_width;
	const char *sr_bits; /* --sr-bits' text, or NULL */
	int pre_scale;       /* --pre-scale's E8M0 code, or -1 */
	const char *overflow; /* --overflow's word, or NULL */
};

int fpref_py_make_env(const struct env_args *a, const struct fpref_format *from, const struct fpref_format *to,
		      struct fpref_env *env);

/* The environment's arguments, at the end of each call's tuple:
 * round, sat, ftz, daz, profile, tininess, sr_seed, sr_width, sr_bits, pre_scale
 * (conversions read it; -1: none), overflow (NULL: none). */
#define ENV_FORMAT "zippzzOIziz"
#define ENV_REFS(a)                                                                                                   \
	&(a).round, &(a).sat, &(a).ftz, &(a).daz, &(a).profile, &(a).tininess, &(a).sr_seed, &(a).sr_width,             \
		&(a).sr_bits, &(a).pre_scale, &(a).overflow

/* ---- buffers ---- */

static inline int check_elements(const Py_buffer *b, size_t size, size_t n, const char *what)
{
	if ((size_t)b->len != size * n) {
		PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zu elements of %zu bytes", what, b->len, n,
			     size);
		return -1;
	}
	return 0;
}

static inline uint64_t load(const void *base, size_t size, size_t i)
{
	const unsigned char *p = (const unsigned char *)base + i * size;
	uint64_t v = 0;
	for (size_t k = 0; k < size; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

static inline void store(void *base, size_t size, size_t i, uint64_t v)
{
	unsigned char *p = (unsigned char *)base + i * size;
	for (size_t k = 0; k < size; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

/* The optional flags array (None: no flags): one byte per element. */
static inline int get_flags(PyObject *obj, Py_ssize_t n, Py_buffer *b, bool *have)
{
	if (obj == Py_None)
		return 0;
	if (PyObject_GetBuffer(obj, b, PyBUF_WRITABLE) != 0)
		return -1;
	*have = true;
	return check_elements(b, 1, (size_t)n, "flags");
}

/* ---- conversions, arithmetic, explain, patterns (_fpref_convert.c) ---- */

PyObject *py_convert(PyObject *self, PyObject *args);
PyObject *py_convert_decimal(PyObject *self, PyObject *args);
PyObject *py_op(PyObject *self, PyObject *args);
PyObject *py_explain(PyObject *self, PyObject *args);
PyObject *py_classify(PyObject *self, PyObject *args);
PyObject *py_table(PyObject *self, PyObject *args);
PyObject *py_verify_gemm(PyObject *self, PyObject *args);
PyObject *py_flags_describe(PyObject *self, PyObject *args);
PyObject *py_hex(PyObject *self, PyObject *args);
PyObject *py_time_convert(PyObject *self, PyObject *args);

/* ---- dot products and gemm (_fpref_gemm.c) ---- */

/* The accumulation model of gemm, dot and verify_gemm's arguments (and
 * draw's promotion), checked as the command checks them; floor_obj None:
 * no floor; shape, traits NULL: none.  0, or -1 with a ValueError. */
int fpref_py_resolve_model(const char *model_name, const struct fpref_format *in_a, const struct fpref_format *in_b,
			   const struct fpref_format *outp, Py_ssize_t promote, Py_ssize_t block, Py_ssize_t frac,
			   PyObject *floor_obj, const char *final, const char *shape, const char *traits,
			   struct fpref_accum_model *am);

PyObject *py_gemm(PyObject *self, PyObject *args);
PyObject *py_dot_scaled(PyObject *self, PyObject *args);
PyObject *py_gemm_scaled(PyObject *self, PyObject *args);
PyObject *py_models(PyObject *self, PyObject *noargs);

/* ---- quantize and loss scaling (_fpref_quantize.c) ---- */

PyObject *py_quantize(PyObject *self, PyObject *args);
PyObject *py_lossscale(PyObject *self, PyObject *args);

/* ---- golden files (_fpref_golden.c) ---- */

PyObject *py_gen(PyObject *self, PyObject *args);
PyObject *py_suite_jobs(PyObject *self, PyObject *args);
PyObject *py_golden_folder(PyObject *self, PyObject *args);
PyObject *py_verify(PyObject *self, PyObject *args);
PyObject *py_verify_folder_text(PyObject *self, PyObject *args);
PyObject *py_golden_info(PyObject *self, PyObject *args);

/* ---- summation orders (_fpref_order.c) ---- */
PyObject *py_reveal_order(PyObject *self, PyObject *args);
PyObject *py_tree_dot(PyObject *self, PyObject *args);

/* ---- pictures (_fpref_draw.c) ---- */
PyObject *py_draw_numberline(PyObject *self, PyObject *args);
PyObject *py_draw_rounding(PyObject *self, PyObject *args);
PyObject *py_draw_formats(PyObject *self, PyObject *noargs);
PyObject *py_draw_promotion(PyObject *self, PyObject *args);
PyObject *py_draw_pytorch_tf32(PyObject *self, PyObject *args);

/* ---- probing a tensor core (_fpref_probe.c) ---- */
PyObject *py_probe_infer(PyObject *self, PyObject *args);
PyObject *py_probe_infer_golden(PyObject *self, PyObject *args);

#endif
