/* fpref._fpref: the C side of the Python package.  A thin binding: it
 * parses arguments, finds the formats and the environment, and calls
 * libfpref on the caller's buffers (the buffer protocol, so NumPy arrays
 * pass without copies), with the GIL released for the bulk work.  No
 * numerics of its own.
 *
 * This file holds the module (its method table and init) and the format
 * and environment helpers every call parses with; each topic's calls are
 * in _fpref_convert.c, _fpref_gemm.c, _fpref_quantize.c and
 * _fpref_golden.c, and _fpref.h declares what they share. */
#include "_fpref.h"

#include "fpref_emu_scale.h"

/* ---- formats and environments ---- */

int fpref_py_get_format(const char *spelling, struct fpref_format *f)
{
	char err[512];
	if (fpref_format_parse(spelling, f, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "%s (fpref.formats() lists the known formats)", err);
		return -1;
	}
	return 0;
}

static PyObject *format_dict(const struct fpref_format *f)
{
	return Py_BuildValue(
		"{s:s,s:s,s:i,s:i,s:i,s:O,s:O,s:O,s:s,s:i,s:i,s:i,s:n,s:O,s:O,s:O,s:s}", "name", f->name, "alias",
		f->alias, "exp_bits", f->exp_bits, "man_bits", f->man_bits, "bias", f->bias, "is_signed",
		f->is_signed ? Py_True : Py_False, "has_zero", f->has_zero ? Py_True : Py_False, "subnormals",
		f->subnormals ? Py_True : Py_False, "specials", fpref_specials_name(f->specials), "pad_bits", f->pad_bits,
		"width", fpref_format_width(f), "container_bits", fpref_format_container_bits(f), "element_bytes",
		(Py_ssize_t)fpref_emu_element_bytes(f), "has_inf", fpref_format_has_inf(f) ? Py_True : Py_False,
		"has_nan", fpref_format_has_nan(f) ? Py_True : Py_False, "has_negative_zero",
		fpref_format_has_negative_zero(f) ? Py_True : Py_False, "note", f->note ? f->note : "");
}

/* The exact constants, as decimals (fpref formats --json prints the same). */
static int add_constants(PyObject *d, const struct fpref_format *f)
{
	static const char *const keys[] = { "max_finite", "min_normal", "min_positive", "epsilon" };
	void (*const get[])(const struct fpref_format *, struct fpref_unpacked *) = {
		fpref_format_max_finite, fpref_format_min_normal, fpref_format_min_positive, fpref_format_epsilon
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		struct fpref_unpacked u;
		get[i](f, &u);
		char *text = fpref_ref_unpacked_decimal(&u);
		if (!text) {
			PyErr_NoMemory();
			return -1;
		}
		PyObject *s = PyUnicode_FromString(text);
		free(text);
		if (!s || PyDict_SetItemString(d, keys[i], s) != 0) {
			Py_XDECREF(s);
			return -1;
		}
		Py_DECREF(s);
	}
	return 0;
}

static PyObject *py_format_info(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name;
	struct fpref_format f;
	if (!PyArg_ParseTuple(args, "s", &name) || fpref_py_get_format(name, &f) != 0)
		return NULL;
	PyObject *d = format_dict(&f);
	if (d && add_constants(d, &f) != 0)
		Py_CLEAR(d);
	return d;
}

static PyObject *py_format_names(PyObject *self, PyObject *noargs)
{
	(void)self;
	(void)noargs;
	size_t n = fpref_format_count();
	PyObject *list = PyList_New((Py_ssize_t)n);
	if (!list)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		PyObject *s = PyUnicode_FromString(fpref_format_at(i)->name);
		if (!s) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, s);
	}
	return list;
}

/* The environment an env_args builds (_fpref.h says how). */
int fpref_py_make_env(const struct env_args *a, const struct fpref_format *from, const struct fpref_format *to,
		      struct fpref_env *env)
{
	fpref_env_default(env);
	if (a->profile && fpref_profile_apply_conversion(a->profile, from, to, env) != 0) {
		PyErr_Format(PyExc_ValueError, "unknown profile '%s' (choices: %s)", a->profile, fpref_profile_choices());
		return -1;
	}
	if (a->round && fpref_env_parse_rounding(a->round, env) != 0) {
		/* a stochastic-rounding instruction (docs/stochastic-rounding.md) */
		char err[256];
		int k = fpref_env_sr_instruction(a->round, from, to, env, err, sizeof err);
		if (k == -2) {
			PyErr_Format(PyExc_ValueError, "unknown rounding mode '%s' (choices: %s; instructions: %s)",
				     a->round, fpref_env_rounding_choices(), fpref_env_sr_instruction_choices());
			return -1;
		}
		if (k != 0) {
			PyErr_Format(PyExc_ValueError, "round='%s': %s", a->round, err);
			return -1;
		}
	}
	if (a->sat >= 0)
		env->overflow = a->sat ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
	if (a->overflow && a->sat >= 0) {
		PyErr_SetString(PyExc_ValueError, "sat and overflow say the same thing: give one (sat=True is overflow='sat')");
		return -1;
	}
	if (a->overflow && fpref_env_parse_overflow(a->overflow, env) != 0) {
		PyErr_Format(PyExc_ValueError, "unknown overflow policy '%s' (choices: %s)", a->overflow,
			     fpref_env_overflow_choices());
		return -1;
	}
	env->ftz = a->ftz != 0;
	env->daz = a->daz != 0;
	if (a->tininess) {
		if (strcmp(a->tininess, "before") == 0)
			env->tininess = FPREF_TININESS_BEFORE;
		else if (strcmp(a->tininess, "after") == 0)
			env->tininess = FPREF_TININESS_AFTER;
		else {
			PyErr_Format(PyExc_ValueError, "unknown tininess '%s' (choices: before, after)", a->tininess);
			return -1;
		}
	}
	if (a->sr_width < 1 || a->sr_width > 64) {
		PyErr_Format(PyExc_ValueError, "sr_width must be 1..64, not %u", a->sr_width);
		return -1;
	}
	if (!env->sr_lanes) /* an instruction's width is its own */
		env->sr_width = a->sr_width;
	if (a->sr_bits) { /* the command's --sr-bits, by the command's parser */
		char err[256];
		if (env->rounding != FPREF_SR) {
			PyErr_Format(PyExc_ValueError, "sr_bits '%s' needs round='sr', 'sra', 'srb', 'src' or an "
				     "instruction (%s)", a->sr_bits, fpref_env_sr_instruction_choices());
			return -1;
		}
		if (a->sr_seed && a->sr_seed != Py_None) {
			PyErr_SetString(PyExc_ValueError, "give sr_seed or sr_bits, not both");
			return -1;
		}
		if (fpref_env_parse_sr(a->sr_bits, env, err, sizeof err) != 0) {
			PyErr_Format(PyExc_ValueError, "sr_bits: %s", err);
			return -1;
		}
	} else if (a->sr_seed && a->sr_seed != Py_None) {
		unsigned long long seed = PyLong_AsUnsignedLongLong(a->sr_seed);
		if (PyErr_Occurred()) {
			PyErr_Clear();
			PyErr_SetString(PyExc_ValueError, "sr_seed must be an integer 0..2^64-1");
			return -1;
		}
		env->sr_seeded = true;
		env->sr_seed = seed;
	} else if (env->rounding == FPREF_SR) {
		PyErr_SetString(PyExc_ValueError, "round='sr' needs sr_seed (the seed of the counter-based random stream) "
				"or sr_bits (as --sr-bits)");
		return -1;
	}
	if (a->pre_scale > 255) {
		PyErr_Format(PyExc_ValueError, "pre_scale is an E8M0 code 0..255, not %d", a->pre_scale);
		return -1;
	}
	env->pre_scale = a->pre_scale >= 0;
	env->pre_scale_code = (uint8_t)(a->pre_scale >= 0 ? a->pre_scale : 0);
	return 0;
}

static PyObject *py_env_describe(PyObject *self, PyObject *args)
{
	(void)self;
	const char *from_name, *to_name;
	struct env_args ea;
	struct fpref_format from, to;
	struct fpref_env env;
	if (!PyArg_ParseTuple(args, "zs" ENV_FORMAT, &from_name, &to_name, ENV_REFS(ea)))
		return NULL;
	if ((from_name && fpref_py_get_format(from_name, &from) != 0) || fpref_py_get_format(to_name, &to) != 0 ||
	    fpref_py_make_env(&ea, from_name ? &from : NULL, &to, &env) != 0)
		return NULL;
	char buf[256];
	fpref_env_describe(&env, buf, sizeof buf);
	return PyUnicode_FromString(buf);
}

static PyMethodDef methods[] = {
	{ "time_convert", py_time_convert, METH_VARARGS, "seconds of fpref_emu_convert_array per run, for bench.py" },
	{ "format_info", py_format_info, METH_VARARGS, "format_info(spelling) -> dict of the format's row" },
	{ "format_names", py_format_names, METH_NOARGS, "the catalogue's names" },
	{ "env_describe", py_env_describe, METH_VARARGS, "the environment as one line" },
	{ "convert", py_convert, METH_VARARGS, "bulk conversion of patterns (fpref_emu_convert_array or fpref_ref_convert)" },
	{ "convert_decimal", py_convert_decimal, METH_VARARGS, "decimal strings rounded by the oracle" },
	{ "op", py_op, METH_VARARGS, "arithmetic on arrays of patterns (fpref_emu_op_array or fpref_ref_op)" },
	{ "explain", py_explain, METH_VARARGS, "the oracle's trace of one rounding" },
	{ "gemm", py_gemm, METH_VARARGS, "D = A B + C through fpref_emu_tc_gemm" },
	{ "dot_scaled", py_dot_scaled, METH_VARARGS, "dot products with block scales (fpref_golden_model_dot_scaled)" },
	{ "gemm_scaled", py_gemm_scaled, METH_VARARGS, "D = A B + C with block scales (fpref_emu_tc_gemm_scaled_threads)" },
	{ "models", py_models, METH_NOARGS, "the tensor-core model rows" },
	{ "classify", py_classify, METH_VARARGS, "fpref_golden_classify's mismatch class" },
	{ "table", py_table, METH_VARARGS, "every code of a format of 8 bits or fewer (fpref table)" },
	{ "verify_gemm", py_verify_gemm, METH_VARARGS, "a kernel's D judged against a model's (fpref_golden_gemm_verify)" },
	{ "flags_describe", py_flags_describe, METH_VARARGS, "flags as words" },
	{ "hex", py_hex, METH_VARARGS, "a pattern in the container's hex digits" },
	{ "quantize", py_quantize, METH_VARARGS, "a scaling scheme's codes, scales and report" },
	{ "lossscale", py_lossscale, METH_VARARGS, "a loss scaler replayed over iterations" },
	{ "gen", py_gen, METH_VARARGS, "a suite's golden files (fpref_golden_generate)" },
	{ "suite_jobs", py_suite_jobs, METH_VARARGS, "the files of a suite" },
	{ "golden_folder", py_golden_folder, METH_VARARGS, "a golden folder's MANIFEST state and files" },
	{ "golden_info", py_golden_info, METH_VARARGS, "a golden file's op, output format and vector count" },
	{ "reveal_order", py_reveal_order, METH_VARARGS, "a black box's summation tree (fpref_golden_reveal_order)" },
	{ "tree_dot", py_tree_dot, METH_VARARGS, "lines of products through a summation tree (fpref_emu_tree_dot)" },
	{ "verify", py_verify, METH_VARARGS, "results judged against a golden file (fpref_golden_verify)" },
	{ "draw_numberline", py_draw_numberline, METH_VARARGS, "fpref draw numberline's SVG (fpref_golden_draw_numberline)" },
	{ "draw_rounding", py_draw_rounding, METH_VARARGS, "fpref draw rounding's SVG (fpref_golden_draw_rounding)" },
	{ "probe_infer_golden", py_probe_infer_golden, METH_VARARGS,
	  "probe_infer on a golden dot file and its results file (fpref_golden_probe_read_golden)" },
	{ "probe_infer", py_probe_infer, METH_VARARGS, "the block models that reproduce measured dots (fpref_golden_probe_infer)" },
	{ "draw_formats", py_draw_formats, METH_NOARGS, "fpref draw formats' SVG (fpref_golden_draw_formats)" },
	{ "draw_promotion", py_draw_promotion, METH_VARARGS, "fpref draw promotion's SVG (fpref_golden_draw_promotion)" },
	{ "draw_pytorch_tf32", py_draw_pytorch_tf32, METH_VARARGS,
	  "fpref draw pytorch-tf32's SVG (fpref_golden_draw_pytorch_tf32)" },
	{ "verify_folder_text", py_verify_folder_text, METH_VARARGS, "what fpref verify prints for a folder" },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef module = { PyModuleDef_HEAD_INIT, "fpref._fpref", "The C side of fpref: calls into libfpref.",
				     -1, methods, NULL, NULL, NULL, NULL };

PyMODINIT_FUNC PyInit__fpref(void)
{
	PyObject *m = PyModule_Create(&module);
	if (m && (PyModule_AddStringConstant(m, "__version__", PACKAGE_VERSION) != 0 ||
		  PyModule_AddIntConstant(m, "NVFP4_TE_RHT_SIGNS", FPREF_NVFP4_TE_RHT_SIGNS) != 0)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
