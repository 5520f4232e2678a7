/* fpref._fpref: the C side of the Python package.  A thin binding: it
 * parses arguments, finds the formats and the environment, and calls
 * libfpref on the caller's buffers (the buffer protocol, so NumPy arrays
 * pass without copies), with the GIL released for the bulk work.  No
 * numerics of its own. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpref.h"
#include "fpref_emu_quant_report.h"
#include "fpref_emu_scale.h"

/* ---- formats and environments ---- */

static int get_format(const char *spelling, struct fpref_format *f)
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
	if (!PyArg_ParseTuple(args, "s", &name) || get_format(name, &f) != 0)
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
};

static int make_env(const struct env_args *a, const struct fpref_format *from, const struct fpref_format *to,
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

/* The environment's arguments, at the end of each call's tuple:
 * round, sat, ftz, daz, profile, tininess, sr_seed, sr_width, sr_bits, pre_scale
 * (conversions read it; -1: none). */
#define ENV_FORMAT "zippzzOIzi"
#define ENV_REFS(a)                                                                                                   \
	&(a).round, &(a).sat, &(a).ftz, &(a).daz, &(a).profile, &(a).tininess, &(a).sr_seed, &(a).sr_width,             \
		&(a).sr_bits, &(a).pre_scale

static PyObject *py_env_describe(PyObject *self, PyObject *args)
{
	(void)self;
	const char *from_name, *to_name;
	struct env_args ea;
	struct fpref_format from, to;
	struct fpref_env env;
	if (!PyArg_ParseTuple(args, "zs" ENV_FORMAT, &from_name, &to_name, ENV_REFS(ea)))
		return NULL;
	if ((from_name && get_format(from_name, &from) != 0) || get_format(to_name, &to) != 0 ||
	    make_env(&ea, from_name ? &from : NULL, &to, &env) != 0)
		return NULL;
	char buf[256];
	fpref_env_describe(&env, buf, sizeof buf);
	return PyUnicode_FromString(buf);
}

/* ---- buffers ---- */

static int check_elements(const Py_buffer *b, size_t size, size_t n, const char *what)
{
	if ((size_t)b->len != size * n) {
		PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zu elements of %zu bytes", what, b->len, n,
			     size);
		return -1;
	}
	return 0;
}

static uint64_t load(const void *base, size_t size, size_t i)
{
	const unsigned char *p = (const unsigned char *)base + i * size;
	uint64_t v = 0;
	for (size_t k = 0; k < size; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

static void store(void *base, size_t size, size_t i, uint64_t v)
{
	unsigned char *p = (unsigned char *)base + i * size;
	for (size_t k = 0; k < size; k++)
		p[k] = (unsigned char)(v >> (8 * k));
}

/* The optional flags array (None: no flags): one byte per element. */
static int get_flags(PyObject *obj, Py_ssize_t n, Py_buffer *b, bool *have)
{
	if (obj == Py_None)
		return 0;
	if (PyObject_GetBuffer(obj, b, PyBUF_WRITABLE) != 0)
		return -1;
	*have = true;
	return check_elements(b, 1, (size_t)n, "flags");
}

/* ---- convert ---- */

/* convert(from, to, engine, in, out, flags|None, n, first_index, env...)
 * -> (number of invalid source patterns, index of the first or -1). */
static PyObject *py_convert(PyObject *self, PyObject *args)
{
	(void)self;
	const char *from_name, *to_name, *engine;
	Py_buffer in, out, flags = { 0 };
	PyObject *flags_obj;
	Py_ssize_t n;
	unsigned long long first_index;
	struct env_args ea;
	if (!PyArg_ParseTuple(args, "sssy*w*OnK" ENV_FORMAT, &from_name, &to_name, &engine, &in, &out, &flags_obj, &n,
			      &first_index, ENV_REFS(ea)))
		return NULL;
	PyObject *result = NULL;
	bool have_flags = false;
	struct fpref_format from, to;
	struct fpref_env env;
	if (get_format(from_name, &from) != 0 || get_format(to_name, &to) != 0 || make_env(&ea, &from, &to, &env) != 0)
		goto done;
	bool ref = strcmp(engine, "ref") == 0;
	if (!ref && strcmp(engine, "emu") != 0) {
		PyErr_Format(PyExc_ValueError, "unknown engine '%s' (choices: emu, the integer emulator; ref, the MPFR oracle)",
			     engine);
		goto done;
	}
	if (get_flags(flags_obj, n, &flags, &have_flags) != 0)
		goto done;
	size_t isz = fpref_emu_element_bytes(&from), osz = fpref_emu_element_bytes(&to);
	if (check_elements(&in, isz, (size_t)n, "input") != 0 || check_elements(&out, osz, (size_t)n, "output") != 0)
		goto done;
	size_t invalid = 0;
	Py_ssize_t first_invalid = -1;
	if (!ref) {
		struct fpref_emu_converter *c = fpref_emu_converter_new(&from, &to, &env);
		if (!c) {
			PyErr_NoMemory();
			goto done;
		}
		Py_BEGIN_ALLOW_THREADS
		invalid = fpref_emu_convert_array(c, in.buf, out.buf, (size_t)n, have_flags ? flags.buf : NULL,
						 first_index);
		Py_END_ALLOW_THREADS
		fpref_emu_converter_free(c);
		if (invalid) {
			for (Py_ssize_t i = 0; i < n && first_invalid < 0; i++) {
				struct fpref_unpacked u;
				if (fpref_decode(&from, load(in.buf, isz, (size_t)i), &u) == FPREF_DECODE_INVALID)
					first_invalid = i;
			}
		}
	} else {
		Py_BEGIN_ALLOW_THREADS
		for (Py_ssize_t i = 0; i < n; i++) {
			uint64_t bits = 0;
			unsigned fl = 0;
			uint64_t R = fpref_env_sr_random(&env, first_index + (uint64_t)i);
			if (fpref_ref_convert(&from, load(in.buf, isz, (size_t)i), &to, &env, R, &bits, &fl) != 0) {
				if (first_invalid < 0)
					first_invalid = i;
				invalid++;
			}
			store(out.buf, osz, (size_t)i, bits);
			if (have_flags)
				((uint8_t *)flags.buf)[i] = (uint8_t)fl;
		}
		Py_END_ALLOW_THREADS
	}
	result = Py_BuildValue("nn", (Py_ssize_t)invalid, first_invalid);
done:
	PyBuffer_Release(&in);
	PyBuffer_Release(&out);
	if (have_flags)
		PyBuffer_Release(&flags);
	return result;
}

/* convert_decimal(texts, to, out, flags|None, env...): each text read
 * exactly by the oracle (fpref_ref_parse: decimals of any length, hex
 * floats, inf, nan, snan) and rounded to `to`, as `fpref convert VALUE`
 * does; stochastic bits of element i from index i. */
static PyObject *py_convert_decimal(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *texts, *flags_obj;
	const char *to_name;
	Py_buffer out, flags;
	bool have_flags = false;
	struct env_args ea;
	if (!PyArg_ParseTuple(args, "O!sw*O" ENV_FORMAT, &PyList_Type, &texts, &to_name, &out, &flags_obj, ENV_REFS(ea)))
		return NULL;
	PyObject *result = NULL;
	struct fpref_format to;
	struct fpref_env env;
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	Py_ssize_t n = PyList_GET_SIZE(texts);
	size_t osz = 0;
	if (get_format(to_name, &to) != 0 || make_env(&ea, NULL, &to, &env) != 0)
		goto done;
	osz = fpref_emu_element_bytes(&to);
	if (check_elements(&out, osz, (size_t)n, "output") != 0)
		goto done;
	if (get_flags(flags_obj, n, &flags, &have_flags) != 0)
		goto done;
	for (Py_ssize_t i = 0; i < n; i++) {
		const char *text = PyUnicode_AsUTF8(PyList_GET_ITEM(texts, i));
		char err[512];
		if (!text)
			goto done;
		if (fpref_ref_parse(text, &v, err, sizeof err) != 0) {
			PyErr_Format(PyExc_ValueError, "element %zd: %s", i, err);
			goto done;
		}
		uint64_t bits = 0;
		unsigned fl = 0;
		fpref_ref_convert_value(&v, &to, &env, fpref_env_sr_random(&env, (uint64_t)i), &bits, &fl, NULL);
		store(out.buf, osz, (size_t)i, bits);
		if (have_flags)
			((uint8_t *)flags.buf)[i] = (uint8_t)fl;
	}
	Py_INCREF(Py_None);
	result = Py_None;
done:
	fpref_ref_value_clear(&v);
	PyBuffer_Release(&out);
	if (have_flags)
		PyBuffer_Release(&flags);
	return result;
}

/* ---- op ---- */

/* op(name, fmt, engine, a, b|None, c|None, out, flags|None, n, env...)
 * -> (invalid count, first invalid index or -1). */
static PyObject *py_op(PyObject *self, PyObject *args)
{
	(void)self;
	const char *op_name, *fmt_name, *engine;
	PyObject *objs[4];
	Py_buffer bufs[4];
	bool held[4] = { false, false, false, false };
	PyObject *flags_obj;
	Py_buffer flags;
	bool have_flags = false;
	Py_ssize_t n;
	struct env_args ea;
	if (!PyArg_ParseTuple(args, "sssOOOOOn" ENV_FORMAT, &op_name, &fmt_name, &engine, &objs[0], &objs[1],
			      &objs[2], &objs[3], &flags_obj, &n, ENV_REFS(ea)))
		return NULL;
	PyObject *result = NULL;
	enum fpref_op op;
	struct fpref_format f;
	struct fpref_env env;
	if (fpref_op_parse(op_name, &op) != 0) {
		PyErr_Format(PyExc_ValueError, "unknown operation '%s' (choices: %s)", op_name, fpref_op_choices());
		return NULL;
	}
	if (get_format(fmt_name, &f) != 0 || make_env(&ea, NULL, &f, &env) != 0)
		return NULL;
	if (f.man_bits > FPREF_OP_MAX_MAN_BITS) {
		PyErr_Format(PyExc_ValueError, "%s has %d fraction bits; arithmetic takes formats of up to %d", f.name,
			     f.man_bits, FPREF_OP_MAX_MAN_BITS);
		return NULL;
	}
	bool ref = strcmp(engine, "ref") == 0;
	if (!ref && strcmp(engine, "emu") != 0) {
		PyErr_Format(PyExc_ValueError, "unknown engine '%s' (choices: emu, ref)", engine);
		return NULL;
	}
	int arity = fpref_op_arity(op);
	size_t sz = fpref_emu_element_bytes(&f);
	for (int k = 0; k < 4; k++) {
		if (k > 0 && k < 3 && k >= arity)
			continue;
		if (objs[k] == Py_None) {
			PyErr_Format(PyExc_TypeError, "%s takes %d operand%s", fpref_op_name(op), arity, arity > 1 ? "s" : "");
			goto done;
		}
		if (PyObject_GetBuffer(objs[k], &bufs[k], k == 3 ? PyBUF_WRITABLE : PyBUF_SIMPLE) != 0)
			goto done;
		held[k] = true;
		if (check_elements(&bufs[k], sz, (size_t)n, k == 3 ? "output" : "operand") != 0)
			goto done;
	}
	if (get_flags(flags_obj, n, &flags, &have_flags) != 0)
		goto done;
	const void *a = bufs[0].buf, *b = held[1] ? bufs[1].buf : NULL, *c = held[2] ? bufs[2].buf : NULL;
	void *out = bufs[3].buf;
	size_t invalid = 0;
	Py_ssize_t first_invalid = -1;
	if (!ref) {
		struct fpref_emu_op_context *ctx = fpref_emu_op_context_new(op, &f, &env);
		if (!ctx) {
			PyErr_Format(PyExc_MemoryError, "no memory for %s in %s", fpref_op_name(op), f.name);
			goto done;
		}
		Py_BEGIN_ALLOW_THREADS
		invalid = fpref_emu_op_array(ctx, a, b, c, out, (size_t)n, have_flags ? flags.buf : NULL, 0);
		Py_END_ALLOW_THREADS
		fpref_emu_op_context_free(ctx);
		for (Py_ssize_t i = 0; invalid && i < n && first_invalid < 0; i++)
			for (int k = 0; k < arity; k++) {
				struct fpref_unpacked u;
				const void *src = k == 0 ? a : k == 1 ? b : c;
				if (fpref_decode(&f, load(src, sz, (size_t)i), &u) == FPREF_DECODE_INVALID)
					first_invalid = i;
			}
	} else {
		Py_BEGIN_ALLOW_THREADS
		for (Py_ssize_t i = 0; i < n; i++) {
			uint64_t in[3] = { 0, 0, 0 }, r = 0;
			unsigned fl = 0;
			for (int k = 0; k < arity; k++)
				in[k] = load(k == 0 ? a : k == 1 ? b : c, sz, (size_t)i);
			if (fpref_ref_op(op, &f, in, &env, fpref_env_sr_random(&env, (uint64_t)i), &r, &fl) != 0) {
				if (first_invalid < 0)
					first_invalid = i;
				invalid++;
			}
			store(out, sz, (size_t)i, r);
			if (have_flags)
				((uint8_t *)flags.buf)[i] = (uint8_t)fl;
		}
		Py_END_ALLOW_THREADS
	}
	result = Py_BuildValue("nn", (Py_ssize_t)invalid, first_invalid);
done:
	for (int k = 0; k < 4; k++)
		if (held[k])
			PyBuffer_Release(&bufs[k]);
	if (have_flags)
		PyBuffer_Release(&flags);
	return result;
}

/* ---- explain ---- */

static const char *rule_name(enum fpref_ref_rule r)
{
	static const char *const names[] = { "exact", "nearest", "tie_even", "tie_away", "toward_zero",
					     "toward_pos", "toward_neg", "odd", "stochastic", "special" };
	return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

static const char *outcome_name(enum fpref_ref_outcome o)
{
	static const char *const names[] = {
		"plain", "overflow_inf", "overflow_max", "overflow_nan", "saturated", "overflow_no_specials", "flushed",
		"zero_unsigned", "no_zero_nan", "no_zero_min", "negative_unsigned", "negative_clamped", "nan",
		"nan_no_nan", "inf", "inf_nan", "inf_max", "inf_saturated", "zero"
	};
	return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "?";
}

/* A library string as a Python str (None for NULL), freed. */
static PyObject *take_string(char *s)
{
	if (!s)
		Py_RETURN_NONE;
	PyObject *o = PyUnicode_FromString(s);
	free(s);
	return o;
}

static PyObject *mpfr_float(mpfr_srcptr x)
{
	return PyFloat_FromDouble(mpfr_get_d(x, MPFR_RNDN));
}

/* explain(text|None, from|None, bits, to, env...) -> dict: the oracle's
 * trace of one rounding.  text is a decimal for fpref_ref_parse; otherwise
 * bits is a pattern of from. */
static PyObject *py_explain(PyObject *self, PyObject *args)
{
	(void)self;
	const char *text, *from_name, *to_name;
	unsigned long long in_bits;
	struct env_args ea;
	if (!PyArg_ParseTuple(args, "zzKs" ENV_FORMAT, &text, &from_name, &in_bits, &to_name, ENV_REFS(ea)))
		return NULL;
	struct fpref_format from, to;
	struct fpref_env env;
	if ((from_name && get_format(from_name, &from) != 0) || get_format(to_name, &to) != 0 ||
	    make_env(&ea, from_name ? &from : NULL, &to, &env) != 0)
		return NULL;
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	char err[512];
	if (text) {
		if (fpref_ref_parse(text, &v, err, sizeof err) != 0) {
			fpref_ref_value_clear(&v);
			PyErr_SetString(PyExc_ValueError, err);
			return NULL;
		}
	} else if (!from_name || fpref_ref_from_bits(&from, in_bits, env.daz, &v) != 0) {
		fpref_ref_value_clear(&v);
		PyErr_Format(PyExc_ValueError, "0x%llx is not a valid pattern of %s", in_bits, from_name ? from.name : "?");
		return NULL;
	}
	struct fpref_ref_trace t;
	fpref_ref_trace_init(&t);
	uint64_t bits = 0;
	unsigned flags = 0;
	fpref_ref_convert_value(&v, &to, &env, fpref_env_sr_random(&env, 0), &bits, &flags, &t);
	char hex[32], lo_hex[32], hi_hex[32], words[96], envtext[256];
	fpref_format_hex(&to, bits, hex, sizeof hex);
	fpref_format_hex(&to, t.lo_bits, lo_hex, sizeof lo_hex);
	fpref_format_hex(&to, t.hi_bits, hi_hex, sizeof hi_hex);
	fpref_flags_describe(flags, words, sizeof words);
	fpref_env_describe(&env, envtext, sizeof envtext);
	unsigned sign;
	uint64_t e, m;
	fpref_fields(&to, bits, &sign, &e, &m);
	PyObject *none = Py_None;
	PyObject *exact = v.inexact ? (Py_INCREF(none), none) : take_string(fpref_ref_decimal(v.x));
	PyObject *result_dec = take_string(fpref_ref_decimal(t.result));
	PyObject *shortest = mpfr_regular_p(t.result) ? take_string(fpref_ref_shortest(&to, bits))
						      : (Py_INCREF(none), none);
	PyObject *lo = t.bracketed ? take_string(fpref_ref_decimal(t.lo)) : (Py_INCREF(none), none);
	PyObject *hi = t.bracketed ? take_string(fpref_ref_decimal(t.hi)) : (Py_INCREF(none), none);
	PyObject *d = NULL;
	if (exact && result_dec && shortest && lo && hi)
		d = Py_BuildValue(
			"{s:O,s:O,s:s,s:s,s:K,s:s,s:(IKK),s:O,s:O,s:O,s:O,s:O,s:O,s:K,s:K,s:s,s:s,s:s,s:s,s:O,s:I,s:s,"
			"s:N,s:N,s:N}",
			"exact", exact, "inexact_input", v.inexact ? Py_True : Py_False, "format", to.name, "environment",
			envtext, "bits", (unsigned long long)bits, "hex", hex, "fields", sign, (unsigned long long)e,
			(unsigned long long)m, "value", result_dec, "shortest", shortest, "lo", lo, "hi", hi, "lo_held",
			t.bracketed && t.lo_held ? Py_True : Py_False, "hi_held",
			t.bracketed && t.hi_held ? Py_True : Py_False, "lo_bits", (unsigned long long)t.lo_bits, "hi_bits",
			(unsigned long long)t.hi_bits, "lo_hex", lo_hex, "hi_hex", hi_hex, "rule", rule_name(t.rule),
			"outcome", outcome_name(t.outcome), "tiny", t.tiny ? Py_True : Py_False, "flags", flags,
			"flag_names", words, "err_abs", mpfr_float(t.err_abs), "err_rel", mpfr_float(t.err_rel), "err_ulp",
			mpfr_float(t.err_ulp));
	Py_XDECREF(exact);
	Py_XDECREF(result_dec);
	Py_XDECREF(shortest);
	Py_XDECREF(lo);
	Py_XDECREF(hi);
	fpref_ref_trace_clear(&t);
	fpref_ref_value_clear(&v);
	return d;
}

/* ---- dot products and gemm ---- */

/* A plain accumulation order (emu/accumulate.c) or the exact dot product,
 * rounded in `out` under env, for every element of D: the dispatch of
 * fpref_golden_model_dot (golden/gemm.c) for these models. */
static int plain_gemm(bool exact, enum fpref_sum_order order, size_t block, const struct fpref_format *in,
		      const struct fpref_format *out, const struct fpref_env *env, size_t M, size_t N, size_t K,
		      const uint64_t *A, const uint64_t *B, const uint64_t *C, uint64_t *D)
{
	uint64_t *col = malloc((K ? K : 1) * sizeof *col);
	if (!col)
		return -2;
	int rc = 0;
	uint64_t zero = fpref_format_zero_bits(out, false);
	for (size_t j = 0; j < N && rc == 0; j++) {
		for (size_t k = 0; k < K; k++)
			col[k] = B[k * N + j];
		for (size_t i = 0; i < M && rc == 0; i++) {
			unsigned flags = 0;
			uint64_t c = C ? C[i * N + j] : zero;
			rc = exact ? fpref_ref_dot_exact(in, A + i * K, col, K, c, out, env, &D[i * N + j], &flags)
				   : fpref_emu_dot(order, block, in, A + i * K, col, K, c, out, env, &D[i * N + j], &flags);
		}
	}
	free(col);
	return rc;
}

/* d_r = a_r . b_r + c_r for the R rows of A and B (R x K each), by the
 * same model: the elements fpref_emu_tc_gemm and plain_gemm compute. */
static int dot_rows(const struct fpref_tc_model *m, bool plain, bool exact, enum fpref_sum_order order, size_t block,
		    size_t promote, const struct fpref_format *in, const struct fpref_format *out,
		    const struct fpref_env *env, size_t R, size_t K, const uint64_t *A, const uint64_t *B,
		    const uint64_t *C, uint64_t *D)
{
	uint64_t zero = fpref_format_zero_bits(out, false);
	for (size_t r = 0; r < R; r++) {
		const uint64_t *a = A + r * K, *b = B + r * K;
		uint64_t c = C ? C[r] : zero;
		unsigned flags = 0;
		int rc = exact	 ? fpref_ref_dot_exact(in, a, b, K, c, out, env, &D[r], &flags)
			 : plain ? fpref_emu_dot(order, block, in, a, b, K, c, out, env, &D[r], &flags)
			 : promote ? fpref_emu_tc_dot_promoted(m, in, a, b, K, promote, NULL, NULL, c, &D[r])
				   : fpref_emu_tc_dot(m, in, a, b, K, c, out, &D[r]);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The a priori bound of every element of D = A B + C (rows: of the M dot
 * products of the rows of A and B) under the model, as tools/model.c's
 * cli_model_bound dispatches it: fpref_ref_tc_bound for a tensor core,
 * fpref_ref_sum_bound for a plain order, NaN for exact (one rounding).
 * Each bound (64 bits, as fpref gemm keeps it) rounded up to a double. */
static int bound_elements(const struct fpref_tc_model *m, bool plain, bool exact, enum fpref_sum_order order,
			  size_t block, size_t promote, const struct fpref_format *in, const struct fpref_format *out,
			  const struct fpref_env *env, bool rows, size_t M, size_t N, size_t K, const uint64_t *A,
			  const uint64_t *B, const uint64_t *C, double *D)
{
	uint64_t *col = malloc((K ? K : 1) * sizeof *col);
	if (!col)
		return -2;
	mpfr_t bound;
	mpfr_init2(bound, 64);
	uint64_t zero = fpref_format_zero_bits(out, false);
	size_t ncols = rows ? 1 : N;
	int rc = 0;
	for (size_t i = 0; i < M && rc == 0; i++)
		for (size_t j = 0; j < ncols && rc == 0; j++) {
			const uint64_t *a = A + i * K, *b = col;
			if (rows)
				b = B + i * K;
			else
				for (size_t k = 0; k < K; k++)
					col[k] = B[k * N + j];
			uint64_t c = C ? C[i * ncols + j] : zero;
			if (exact)
				mpfr_set_nan(bound);
			else if (plain)
				rc = fpref_ref_sum_bound(order, block, in, a, b, K, c, out, env, bound);
			else
				rc = fpref_ref_tc_bound(m, in, a, b, K, c, out, promote, bound);
			D[i * ncols + j] = mpfr_get_d(bound, MPFR_RNDU);
		}
	mpfr_clear(bound);
	free(col);
	return rc;
}

/* gemm(model, inp, out, M, N, K, A, B, C|None, D, promote, block, frac,
 * floor|None, final, rows, bounds, env...), A, B, C as uint64 patterns;
 * rows: D holds M dot products of the rows of A and B (both M x K), C and
 * D M long (N unused); bounds: D is float64, each element's a priori
 * bound instead of its value.  model is a GPU preset, "generic" (block,
 * frac, floor, final), a plain order (recursive, pairwise, blocked,
 * fma-chain, kahan: rounded in out under env) or "exact". */
static PyObject *py_gemm(PyObject *self, PyObject *args)
{
	(void)self;
	const char *model_name, *in_name, *out_name, *final;
	Py_ssize_t M, N, K, promote, block, frac;
	PyObject *c_obj, *floor_obj;
	Py_buffer A, B, C, D;
	bool have_c = false;
	struct env_args ea;
	int rows, bounds;
	if (!PyArg_ParseTuple(args, "sssnnny*y*Ow*nnnOspp" ENV_FORMAT, &model_name, &in_name, &out_name, &M, &N, &K, &A,
			      &B, &c_obj, &D, &promote, &block, &frac, &floor_obj, &final, &rows, &bounds, ENV_REFS(ea)))
		return NULL;
	enum fpref_sum_order order = FPREF_SUM_RECURSIVE;
	bool plain = fpref_sum_order_parse(model_name, &order) == 0, exact = strcmp(model_name, "exact") == 0;
	struct fpref_env env;
	PyObject *result = NULL;
	struct fpref_format in, out;
	struct fpref_tc_model model;
	memset(&model, 0, sizeof model);
	char err[256];
	if (get_format(in_name, &in) != 0 || get_format(out_name, &out) != 0 || make_env(&ea, NULL, &out, &env) != 0)
		goto done;
	if (plain || exact) {
		if (promote > 0) {
			PyErr_SetString(PyExc_ValueError, "promote needs a tensor-core model");
			goto done;
		}
		if (out.man_bits > FPREF_OP_MAX_MAN_BITS) {
			PyErr_Format(PyExc_ValueError, "%s has %d fraction bits; accumulators of up to %d compute",
				     out.name, out.man_bits, FPREF_OP_MAX_MAN_BITS);
			goto done;
		}
	} else if (strcmp(model_name, "generic") == 0) {
		long floor = FPREF_TC_NO_FLOOR;
		if (floor_obj != Py_None) {
			floor = PyLong_AsLong(floor_obj);
			if (PyErr_Occurred())
				goto done;
		}
		enum fpref_rounding r;
		if (fpref_rounding_parse(final, &r) != 0) {
			PyErr_Format(PyExc_ValueError, "bad final rounding '%s' (rtz or rne)", final);
			goto done;
		}
		if (block < 1 || frac < 1) {
			PyErr_SetString(PyExc_ValueError, "model='generic' needs block=N (products per block) and frac=F "
							  "(fraction bits kept)");
			goto done;
		}
		if (fpref_tc_model_custom((int)block, (int)frac, (int)floor, r, &model, err, sizeof err) != 0) {
			PyErr_Format(PyExc_ValueError, "model='generic': %s", err);
			goto done;
		}
	} else {
		const struct fpref_tc_model *row = fpref_tc_model_find(model_name, &in);
		if (!row) {
			PyErr_Format(PyExc_ValueError, "no tensor-core model '%s' for %s inputs (fpref.models() lists them)",
				     model_name, in.name);
			goto done;
		}
		if (block > 0) {
			PyErr_Format(PyExc_ValueError, "block is part of the %s model (%d); use model='generic' to change it",
				     model_name, row->block);
			goto done;
		}
		model = *row;
	}
	if (!plain && !exact && !fpref_tc_input_ok(&in)) {
		PyErr_Format(PyExc_ValueError, "tensor-core models take signed inputs of at most 10 fraction bits, not %s",
			     in.name);
		goto done;
	}
	if (!plain && !exact && !fpref_tc_output_ok(&model, &in, &out)) {
		PyErr_Format(PyExc_ValueError, "the %s tensor core has no %s output for %s inputs", model.gpu, out.name,
			     in.name);
		goto done;
	}
	if (promote > 0 && !fpref_format_is(&out, FPREF_FORMAT_FLOAT32)) {
		PyErr_SetString(PyExc_ValueError, "promote needs out='float32'");
		goto done;
	}
	if (promote > 0 && !plain && !exact && fpref_tc_lowered(&model, &out)) {
		PyErr_Format(PyExc_ValueError, "promote: the %s model lowers %s inputs to FP16 instructions; promotion is "
					       "modelled only for the native unit (try h100-wgmma)", model.gpu, in.name);
		goto done;
	}
	if (c_obj != Py_None) {
		if (PyObject_GetBuffer(c_obj, &C, PyBUF_SIMPLE) != 0)
			goto done;
		have_c = true;
		if (check_elements(&C, 8, (size_t)(rows ? M : M * N), "C") != 0)
			goto done;
	}
	if (check_elements(&A, 8, (size_t)(M * K), "A") != 0 ||
	    check_elements(&B, 8, (size_t)(rows ? M * K : K * N), "B") != 0 ||
	    check_elements(&D, 8, (size_t)(rows ? M : M * N), "D") != 0)
		goto done;
	int rc;
	size_t plain_block = block > 0 ? (size_t)block : 32;
	Py_BEGIN_ALLOW_THREADS
	if (bounds)
		rc = bound_elements(&model, plain, exact, order, plain_block, (size_t)(promote > 0 ? promote : 0), &in, &out,
				    &env, rows, (size_t)M, (size_t)N, (size_t)K, A.buf, B.buf, have_c ? C.buf : NULL,
				    D.buf);
	else if (rows)
		rc = dot_rows(&model, plain, exact, order, plain_block, (size_t)(promote > 0 ? promote : 0), &in, &out,
			      &env, (size_t)M, (size_t)K, A.buf, B.buf, have_c ? C.buf : NULL, D.buf);
	else if (plain || exact)
		rc = plain_gemm(exact, order, plain_block, &in, &out, &env, (size_t)M, (size_t)N, (size_t)K, A.buf,
				B.buf, have_c ? C.buf : NULL, D.buf);
	else
		rc = fpref_emu_tc_gemm(&model, &in, &out, (size_t)M, (size_t)N, (size_t)K, A.buf, B.buf,
				   have_c ? C.buf : NULL, (size_t)(promote > 0 ? promote : 0), D.buf);
	Py_END_ALLOW_THREADS
	if (rc == -2) {
		PyErr_NoMemory();
		goto done;
	}
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "%s failed: an invalid pattern of %s in A or B, or of %s in C%s",
			     bounds ? "the bound" : "fpref_emu_tc_gemm", in.name, out.name,
			     bounds ? " (or formats the bound does not cover)" : "");
		goto done;
	}
	char desc[512];
	if (exact)
		snprintf(desc, sizeof desc, "exact (MPFR, one rounding)");
	else if (plain)
		snprintf(desc, sizeof desc, "%s", fpref_sum_order_name(order));
	else
		fpref_tc_model_describe(&model, out.name, desc, sizeof desc);
	result = PyUnicode_FromString(desc);
done:
	PyBuffer_Release(&A);
	PyBuffer_Release(&B);
	PyBuffer_Release(&D);
	if (have_c)
		PyBuffer_Release(&C);
	return result;
}

/* dot_scaled(model, inp, out, R, K, A, B, C|None, D, SA, SB, every,
 * scale_format) -> description: the R dot products of the rows of A and
 * B (R x K uint64 patterns) with block scales, SA and SB R x
 * ceil(K / every) patterns of scale_format, by a tensor-core preset
 * (fpref_golden_model_dot_scaled, as fpref dot --scale-a runs it). */
static PyObject *py_dot_scaled(PyObject *self, PyObject *args)
{
	(void)self;
	const char *model_name, *in_name, *out_name, *scale_name;
	Py_ssize_t R, K, every;
	PyObject *c_obj;
	Py_buffer A, B, C, D, SA, SB;
	bool have_c = false;
	if (!PyArg_ParseTuple(args, "sssnny*y*Ow*y*y*ns", &model_name, &in_name, &out_name, &R, &K, &A, &B, &c_obj, &D,
			      &SA, &SB, &every, &scale_name))
		return NULL;
	PyObject *result = NULL;
	struct fpref_format in, out, sf;
	struct fpref_accum_model m;
	memset(&m, 0, sizeof m);
	char err[256];
	if (get_format(in_name, &in) != 0 || get_format(out_name, &out) != 0 || get_format(scale_name, &sf) != 0)
		goto done;
	const struct fpref_tc_model *row = fpref_tc_model_find(model_name, &in);
	if (!row) {
		PyErr_Format(PyExc_ValueError, "no tensor-core model '%s' for %s inputs (fpref.models() lists them)",
			     model_name, in.name);
		goto done;
	}
	m.kind = FPREF_ACCUM_TC;
	m.tc = *row;
	if (!fpref_tc_output_ok(row, &in, &out)) {
		PyErr_Format(PyExc_ValueError, "the %s tensor core has no %s output for %s inputs", row->gpu, out.name,
			     in.name);
		goto done;
	}
	if (every < 1) {
		PyErr_SetString(PyExc_ValueError, "scale_every must be positive");
		goto done;
	}
	size_t chunks = ((size_t)K + (size_t)every - 1) / (size_t)every;
	uint64_t none = 0;
	struct fpref_tc_scales probe = { &sf, &none, &none, (size_t)every };
	if (!fpref_golden_model_scales_ok(&m, &in, &out, &probe, err, sizeof err)) {
		PyErr_Format(PyExc_ValueError, "scales: %s", err);
		goto done;
	}
	if (c_obj != Py_None) {
		if (PyObject_GetBuffer(c_obj, &C, PyBUF_SIMPLE) != 0)
			goto done;
		have_c = true;
		if (check_elements(&C, 8, (size_t)R, "C") != 0)
			goto done;
	}
	if (check_elements(&A, 8, (size_t)(R * K), "A") != 0 || check_elements(&B, 8, (size_t)(R * K), "B") != 0 ||
	    check_elements(&D, 8, (size_t)R, "D") != 0 || check_elements(&SA, 8, (size_t)R * chunks, "scale_a") != 0 ||
	    check_elements(&SB, 8, (size_t)R * chunks, "scale_b") != 0)
		goto done;
	int rc = 0;
	uint64_t zero = fpref_format_zero_bits(&out, false);
	const uint64_t *a = A.buf, *b = B.buf, *sa = SA.buf, *sb = SB.buf, *c = have_c ? C.buf : NULL;
	uint64_t *d = D.buf;
	struct fpref_env env;
	fpref_env_default(&env);
	Py_BEGIN_ALLOW_THREADS
	for (size_t r = 0; r < (size_t)R && rc == 0; r++) {
		struct fpref_tc_scales s = { &sf, sa + r * chunks, sb + r * chunks, (size_t)every };
		rc = fpref_golden_model_dot_scaled(&m, &in, a + r * (size_t)K, b + r * (size_t)K, (size_t)K, &s,
						   c ? c[r] : zero, &out, &env, &d[r]);
	}
	Py_END_ALLOW_THREADS
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "an invalid pattern of %s in a or b, of %s in c, or of %s in the scales",
			     in.name, out.name, sf.name);
		goto done;
	}
	char desc[512];
	fpref_tc_model_describe(row, out.name, desc, sizeof desc);
	result = PyUnicode_FromString(desc);
done:
	PyBuffer_Release(&A);
	PyBuffer_Release(&B);
	PyBuffer_Release(&D);
	PyBuffer_Release(&SA);
	PyBuffer_Release(&SB);
	if (have_c)
		PyBuffer_Release(&C);
	return result;
}

/* gemm_scaled(model, inp, out, M, N, K, A, B, C|None, D, SA, SB, every,
 * scale_format) -> description: D = A B + C (uint64 patterns, row-major)
 * with block scales, SA M x ceil(K / every) and SB ceil(K / every) x N
 * patterns of scale_format, by a tensor-core preset
 * (fpref_emu_tc_gemm_scaled_threads, as fpref gemm --scale-a runs it). */
static PyObject *py_gemm_scaled(PyObject *self, PyObject *args)
{
	(void)self;
	const char *model_name, *in_name, *out_name, *scale_name;
	Py_ssize_t M, N, K, every;
	PyObject *c_obj;
	Py_buffer A, B, C, D, SA, SB;
	bool have_c = false;
	if (!PyArg_ParseTuple(args, "sssnnny*y*Ow*y*y*ns", &model_name, &in_name, &out_name, &M, &N, &K, &A, &B, &c_obj,
			      &D, &SA, &SB, &every, &scale_name))
		return NULL;
	PyObject *result = NULL;
	struct fpref_format in, out, sf;
	struct fpref_accum_model m;
	memset(&m, 0, sizeof m);
	char err[256];
	if (get_format(in_name, &in) != 0 || get_format(out_name, &out) != 0 || get_format(scale_name, &sf) != 0)
		goto done;
	const struct fpref_tc_model *row = fpref_tc_model_find(model_name, &in);
	if (!row) {
		PyErr_Format(PyExc_ValueError, "no tensor-core model '%s' for %s inputs (fpref.models() lists them)",
			     model_name, in.name);
		goto done;
	}
	m.kind = FPREF_ACCUM_TC;
	m.tc = *row;
	if (!fpref_tc_output_ok(row, &in, &out)) {
		PyErr_Format(PyExc_ValueError, "the %s tensor core has no %s output for %s inputs", row->gpu, out.name,
			     in.name);
		goto done;
	}
	if (every < 1) {
		PyErr_SetString(PyExc_ValueError, "scale_every must be positive");
		goto done;
	}
	size_t chunks = ((size_t)K + (size_t)every - 1) / (size_t)every;
	uint64_t none = 0;
	struct fpref_tc_scales probe = { &sf, &none, &none, (size_t)every };
	if (!fpref_golden_model_scales_ok(&m, &in, &out, &probe, err, sizeof err)) {
		PyErr_Format(PyExc_ValueError, "scales: %s", err);
		goto done;
	}
	if (c_obj != Py_None) {
		if (PyObject_GetBuffer(c_obj, &C, PyBUF_SIMPLE) != 0)
			goto done;
		have_c = true;
		if (check_elements(&C, 8, (size_t)(M * N), "C") != 0)
			goto done;
	}
	if (check_elements(&A, 8, (size_t)(M * K), "A") != 0 || check_elements(&B, 8, (size_t)(K * N), "B") != 0 ||
	    check_elements(&D, 8, (size_t)(M * N), "D") != 0 ||
	    check_elements(&SA, 8, (size_t)M * chunks, "scale_a") != 0 ||
	    check_elements(&SB, 8, chunks * (size_t)N, "scale_b") != 0)
		goto done;
	struct fpref_tc_gemm_scales s = { &sf, SA.buf, SB.buf, (size_t)every };
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = fpref_emu_tc_gemm_scaled_threads(row, &in, &out, (size_t)M, (size_t)N, (size_t)K, A.buf, B.buf, &s,
					      have_c ? C.buf : NULL, D.buf, 1);
	Py_END_ALLOW_THREADS
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "an invalid pattern of %s in A or B, of %s in C, or of %s in the scales",
			     in.name, out.name, sf.name);
		goto done;
	}
	char desc[512];
	fpref_tc_model_describe(row, out.name, desc, sizeof desc);
	result = PyUnicode_FromString(desc);
done:
	PyBuffer_Release(&A);
	PyBuffer_Release(&B);
	PyBuffer_Release(&D);
	PyBuffer_Release(&SA);
	PyBuffer_Release(&SB);
	if (have_c)
		PyBuffer_Release(&C);
	return result;
}

static PyObject *py_models(PyObject *self, PyObject *noargs)
{
	(void)self;
	(void)noargs;
	size_t n = fpref_tc_model_count();
	PyObject *list = PyList_New(0);
	if (!list)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(i);
		PyObject *row = Py_BuildValue("{s:s,s:s,s:i,s:i,s:s}", "gpu", m->gpu, "inputs", m->inputs ? m->inputs : "",
					      "block", m->block, "frac", m->frac, "fp16_inputs",
					      m->fp16_inputs ? m->fp16_inputs : "");
		if (!row || PyList_Append(list, row) != 0) {
			Py_XDECREF(row);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(row);
	}
	return list;
}

/* ---- mismatch classes ---- */

static PyObject *py_classify(PyObject *self, PyObject *args)
{
	(void)self;
	const char *fmt_name;
	unsigned long long g, r;
	unsigned gf;
	int rf;
	struct fpref_format f;
	if (!PyArg_ParseTuple(args, "sKIKi", &fmt_name, &g, &gf, &r, &rf) || get_format(fmt_name, &f) != 0)
		return NULL;
	return PyUnicode_FromString(fpref_golden_mismatch_name(fpref_golden_classify(&f, g, gf, r, rf)));
}

static PyObject *py_flags_describe(PyObject *self, PyObject *args)
{
	(void)self;
	unsigned flags;
	if (!PyArg_ParseTuple(args, "I", &flags))
		return NULL;
	char buf[96];
	fpref_flags_describe(flags, buf, sizeof buf);
	return PyUnicode_FromString(buf);
}

static PyObject *py_hex(PyObject *self, PyObject *args)
{
	(void)self;
	const char *fmt_name;
	unsigned long long bits;
	struct fpref_format f;
	if (!PyArg_ParseTuple(args, "sK", &fmt_name, &bits) || get_format(fmt_name, &f) != 0)
		return NULL;
	char buf[32];
	fpref_format_hex(&f, bits, buf, sizeof buf);
	return PyUnicode_FromString(buf);
}

/* time_convert(from, to, in, out, repeats) -> [seconds]: the bulk
 * converter's own time on a whole buffer, without Python around it (for
 * python/bench.py; the converter is built once, outside the timings). */
static PyObject *py_time_convert(PyObject *self, PyObject *args)
{
	(void)self;
	const char *from_name, *to_name;
	Py_buffer in, out;
	int repeats;
	if (!PyArg_ParseTuple(args, "ssy*w*i", &from_name, &to_name, &in, &out, &repeats))
		return NULL;
	PyObject *list = NULL;
	struct fpref_format from, to;
	struct fpref_env env;
	fpref_env_default(&env);
	struct fpref_emu_converter *c = NULL;
	if (get_format(from_name, &from) != 0 || get_format(to_name, &to) != 0)
		goto done;
	size_t n = (size_t)in.len / fpref_emu_element_bytes(&from);
	if (check_elements(&in, fpref_emu_element_bytes(&from), n, "input") != 0 ||
	    check_elements(&out, fpref_emu_element_bytes(&to), n, "output") != 0)
		goto done;
	if (!(c = fpref_emu_converter_new(&from, &to, &env))) {
		PyErr_NoMemory();
		goto done;
	}
	if (!(list = PyList_New(0)))
		goto done;
	for (int k = 0; k < repeats; k++) {
		struct timespec t0, t1;
		Py_BEGIN_ALLOW_THREADS
		clock_gettime(CLOCK_MONOTONIC, &t0);
		fpref_emu_convert_array(c, in.buf, out.buf, n, NULL, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		Py_END_ALLOW_THREADS
		PyObject *t = PyFloat_FromDouble((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
		if (!t || PyList_Append(list, t) != 0) {
			Py_XDECREF(t);
			Py_CLEAR(list);
			goto done;
		}
		Py_DECREF(t);
	}
done:
	fpref_emu_converter_free(c);
	PyBuffer_Release(&in);
	PyBuffer_Release(&out);
	return list;
}

/* ---- quantize ---- */

/* A bytearray of n bytes to be written in place (n may be 0): NumPy views
 * of it (np.frombuffer) are writable, as arrays handed back should be. */
static PyObject *new_bytes(size_t n, void **data)
{
	PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n);
	if (b)
		*data = PyByteArray_AS_STRING(b);
	return b;
}

static PyObject *report_dict(const struct fpref_quant_report *r, bool saturation)
{
	PyObject *d = Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:d,s:d,s:d,s:d,s:n,s:n,s:d}", "count", (Py_ssize_t)r->count,
				    "compared", (Py_ssize_t)r->compared, "compared_nonzero", (Py_ssize_t)r->compared_nonzero,
				    "nonfinite_inputs", (Py_ssize_t)r->nonfinite_inputs, "nonfinite_outputs",
				    (Py_ssize_t)r->nonfinite_outputs, "max_abs", r->max_abs, "mean_abs", r->mean_abs,
				    "max_rel", r->max_rel, "mean_rel", r->mean_rel, "nonzero_inputs",
				    (Py_ssize_t)r->nonzero_inputs, "flushed", (Py_ssize_t)r->flushed, "flushed_fraction",
				    r->flushed_fraction);
	PyObject *sat = saturation ? PyLong_FromSize_t(r->saturated) : (Py_INCREF(Py_None), Py_None);
	PyObject *frac = saturation ? PyFloat_FromDouble(r->saturated_fraction) : (Py_INCREF(Py_None), Py_None);
	if (!d || !sat || !frac || PyDict_SetItemString(d, "saturated", sat) != 0 ||
	    PyDict_SetItemString(d, "saturated_fraction", frac) != 0)
		Py_CLEAR(d);
	Py_XDECREF(sat);
	Py_XDECREF(frac);
	return d;
}

/* A bytearray holding a copy of n bytes of data. */
static PyObject *bytes_of(const void *data, size_t n)
{
	void *to;
	PyObject *b = new_bytes(n, &to);
	if (b && n)
		memcpy(to, data, n);
	return b;
}

/* quantize(scheme, element, x, steps, rows, cols, nscales, scale_bytes,
 * pow2, te, eps|None, history, algo, margin, amax_nan, rule, element_rounding,
 * two_d, sr, seed, nvfp4_recipe, four_over_six, scale_bound, rht, rht_fp32, sr_bits) -> dict: the scheme's codes, dequantised FP32, scales
 * (bytearrays), its facts, the step records (delayed) and the report
 * (fpref_emu_quant_report_compute), all from one call of the library,
 * fpref_emu_quantize.  x: FP32 patterns; rows x cols the tensor as the
 * block schemes see it, steps its first axis (delayed); nscales and
 * scale_bytes the caller's count of the scales, checked against the
 * library's.  The option checks are the caller's (fpref.quantize mirrors
 * fpref quantize). */
static PyObject *py_quantize(PyObject *self, PyObject *args)
{
	(void)self;
	const char *scheme_name, *element_name, *algo_name, *amax_nan_name, *rule_name, *er_name, *nv_recipe_name;
	const char *four_over_six, *sr_bits;
	Py_buffer x;
	Py_ssize_t steps, rows, cols, nscales, scale_bytes, history, margin, scale_bound, rht;
	int pow2, te, two_d, sr, rht_fp32;
	PyObject *eps_obj;
	unsigned long long seed;
	if (!PyArg_ParseTuple(args, "ssy*nnnnnipOnsnsssppKssnnpz", &scheme_name, &element_name, &x, &steps, &rows, &cols,
			      &nscales, &scale_bytes, &pow2, &te, &eps_obj, &history, &algo_name, &margin, &amax_nan_name,
			      &rule_name, &er_name, &two_d, &sr, &seed, &nv_recipe_name, &four_over_six, &scale_bound, &rht,
			      &rht_fp32, &sr_bits))
		return NULL;
	PyObject *result = NULL, *codes = NULL, *dequant = NULL, *scales = NULL, *amaxes = NULL, *scale_invs = NULL;
	struct fpref_emu_quantize_request q;
	struct fpref_emu_quantize_result r;
	memset(&q, 0, sizeof q);
	memset(&r, 0, sizeof r);
	bool int8 = strcmp(element_name, "int8") == 0;
	size_t count = (size_t)rows * (size_t)cols;
	const struct fpref_emu_quantize_scheme *scheme = fpref_emu_quantize_scheme_find(scheme_name);
	if (!scheme) {
		PyErr_Format(PyExc_ValueError, "quantize: unknown scheme '%s' (choices: %s)", scheme_name,
			     fpref_emu_quantize_scheme_choices());
		goto done;
	}
	q.amax_nan = FPREF_AMAX_NAN_DEFAULT;
	q.mx_rule = FPREF_MX_SCALE_OCP_FLOOR;
	q.element_rounding = FPREF_RNE;
	if (!int8 && get_format(element_name, &q.element) != 0)
		goto done;
	if (check_elements(&x, 4, count, "x") != 0)
		goto done;
	if (*algo_name && fpref_amax_algo_parse(algo_name, &q.algo) != 0) {
		PyErr_Format(PyExc_ValueError, "quantize: amax_algo must be max or most_recent, not '%s'", algo_name);
		goto done;
	}
	if (*amax_nan_name && fpref_amax_nan_parse(amax_nan_name, &q.amax_nan) != 0) {
		PyErr_Format(PyExc_ValueError, "quantize: amax_nan must be ignore or propagate, not '%s'", amax_nan_name);
		goto done;
	}
	if (*rule_name && fpref_emu_mx_scale_rule_parse(rule_name, &q.mx_rule) != 0) {
		PyErr_Format(PyExc_ValueError, "quantize: rule must be one of %s, not '%s'", fpref_emu_mx_scale_rule_choices(),
			     rule_name);
		goto done;
	}
	if (*er_name && (fpref_rounding_parse(er_name, &q.element_rounding) != 0 ||
			 (q.element_rounding != FPREF_RNE && q.element_rounding != FPREF_RNA))) {
		PyErr_Format(PyExc_ValueError, "quantize: element_rounding must be rne or rna, not '%s'", er_name);
		goto done;
	}
	if (eps_obj != Py_None) {
		q.eps = (uint32_t)PyLong_AsUnsignedLong(eps_obj);
		if (PyErr_Occurred())
			goto done;
		q.have_eps = true;
	}
	bool delayed = strcmp(scheme_name, "delayed") == 0;
	if (delayed && (steps <= 0 || count % (size_t)steps != 0)) {
		PyErr_Format(PyExc_ValueError, "quantize: %zd steps do not divide %zu elements", steps, count);
		goto done;
	}
	/* the tensor as the scheme sees it: (steps, rest) for delayed, rows x cols for the others */
	q.x = x.buf;
	q.count = count;
	q.ndim = 2;
	q.shape[0] = delayed ? (size_t)steps : (size_t)rows;
	q.shape[1] = delayed ? count / (size_t)steps : (size_t)cols;
	q.pow2 = pow2;
	q.te_recipe = te != 0;
	q.history = (size_t)history;
	q.margin = (int)margin;
	q.mx_element = element_name;
	q.nvfp4.two_d = two_d != 0;
	q.nvfp4.stochastic = sr != 0;
	q.nvfp4.seed = seed;
	if (*nv_recipe_name && (fpref_emu_nvfp4_recipe_parse(nv_recipe_name, &q.nvfp4.recipe) != 0 ||
				q.nvfp4.recipe == FPREF_NVFP4_FOUR_OVER_SIX)) {
		PyErr_Format(PyExc_ValueError, "quantize: nvfp4 recipe must be te, torchao or modelopt, not '%s'",
			     nv_recipe_name);
		goto done;
	}
	char err[512];
	/* Four Over Six, its scale bound; the Hadamard transform (rht: its sign mask, -1 none) */
	if (*four_over_six) {
		if (fpref_emu_nvfp4_choice_parse(four_over_six, &q.nvfp4.choice) != 0) {
			PyErr_Format(PyExc_ValueError, "quantize: four_over_six must be abs_max, mae or mse, not '%s'",
				     four_over_six);
			goto done;
		}
		q.nvfp4.recipe = FPREF_NVFP4_FOUR_OVER_SIX;
	}
	q.nvfp4.scale_bound = (unsigned)scale_bound;
	if (rht >= 0) {
		q.nvfp4.rht = true;
		q.nvfp4.rht_signs = (uint16_t)rht;
		q.nvfp4.rht_bf16 = !rht_fp32;
	}
	if (sr_bits && fpref_emu_nvfp4_parse_philox(sr_bits, &q.nvfp4, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "quantize: sr_bits: %s", err);
		goto done;
	}
	struct fpref_quant_report rep;
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = fpref_emu_quantize(scheme, &q, &r, err, sizeof err);
	if (rc == 0 && fpref_emu_quant_report_compute(q.x, r.dequant, count, r.element, r.codes, &rep) != 0) {
		snprintf(err, sizeof err, "cannot report on codes of %s", r.element_name);
		rc = FPREF_EMU_QUANTIZE_BAD;
	}
	Py_END_ALLOW_THREADS
	if (rc == FPREF_EMU_QUANTIZE_NO_MEMORY) {
		PyErr_NoMemory();
		goto done;
	}
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "quantize --scheme %s: %s", scheme_name, err);
		goto done;
	}
	if (r.scales_count != (size_t)nscales || r.scales_item_bytes != (size_t)scale_bytes) {
		PyErr_Format(PyExc_SystemError, "quantize --scheme %s: %zu scales of %zu bytes, not the %zd of %zd expected",
			     scheme_name, r.scales_count, r.scales_item_bytes, nscales, scale_bytes);
		goto done;
	}
	if (!(codes = bytes_of(r.codes, count)) || !(dequant = bytes_of(r.dequant, count * 4)) ||
	    !(scales = bytes_of(r.scales, r.scales_count * r.scales_item_bytes)))
		goto done;
	PyObject *facts = PyDict_New();
	for (int i = 0; facts && i < r.nfacts; i++) {
		PyObject *v = PyLong_FromUnsignedLong(r.facts[i].bits);
		if (!v || PyDict_SetItemString(facts, r.facts[i].name, v) != 0)
			Py_CLEAR(facts);
		Py_XDECREF(v);
	}
	if (!facts)
		goto done;
	amaxes = PyList_New(0);
	scale_invs = PyList_New(0);
	for (size_t t = 0; amaxes && scale_invs && t < r.steps; t++) {
		PyObject *a = PyLong_FromUnsignedLong(r.step_amax[t]), *s = PyLong_FromUnsignedLong(r.step_scale_inv[t]);
		if (!a || !s || PyList_Append(amaxes, a) != 0 || PyList_Append(scale_invs, s) != 0)
			Py_CLEAR(amaxes);
		Py_XDECREF(a);
		Py_XDECREF(s);
	}
	/* the scheme's settings as the command prints them: numbers as ints */
	PyObject *labels = PyDict_New();
	for (int i = 0; labels && i < r.nlabels; i++) {
		PyObject *v = r.labels[i].number ? PyLong_FromString(r.labels[i].value, NULL, 10)
						 : PyUnicode_FromString(r.labels[i].value);
		if (!v || PyDict_SetItemString(labels, r.labels[i].name, v) != 0)
			Py_CLEAR(labels);
		Py_XDECREF(v);
	}
	PyObject *report = amaxes && scale_invs && labels ? report_dict(&rep, !int8) : NULL;
	if (report)
		result = Py_BuildValue("{s:O,s:O,s:O,s:N,s:O,s:O,s:N,s:k,s:N}", "codes", codes, "dequant", dequant, "scales",
				       scales, "facts", facts, "step_amax", amaxes, "step_scale_inv", scale_invs, "report",
				       report, "tensor_scale", (unsigned long)r.tensor_scale, "settings", labels);
	else {
		Py_DECREF(facts);
		Py_XDECREF(labels);
	}
done:
	fpref_emu_quantize_result_free(&r);
	Py_XDECREF(codes);
	Py_XDECREF(dequant);
	Py_XDECREF(scales);
	Py_XDECREF(amaxes);
	Py_XDECREF(scale_invs);
	PyBuffer_Release(&x);
	return result;
}

/* ---- loss scaling ---- */

static int config_bits(PyObject *d, const char *key, uint64_t *bits)
{
	PyObject *v = PyDict_GetItemString(d, key);
	if (!v)
		return 0;
	double x = PyFloat_AsDouble(v);
	if (x == -1.0 && PyErr_Occurred())
		return -1;
	memcpy(bits, &x, sizeof x); /* the Python float's own FP64 pattern */
	return 0;
}

static int config_int(PyObject *d, const char *key, int64_t *out)
{
	PyObject *v = PyDict_GetItemString(d, key);
	if (!v)
		return 0;
	long long x = PyLong_AsLongLong(v);
	if (x == -1 && PyErr_Occurred())
		return -1;
	*out = x;
	return 0;
}

static int config_bool(PyObject *d, const char *key, bool *out)
{
	PyObject *v = PyDict_GetItemString(d, key);
	if (!v)
		return 0;
	int t = PyObject_IsTrue(v);
	if (t < 0)
		return -1;
	*out = t != 0;
	return 0;
}

/* lossscale(scaler, config, overflow|None, grads, steps, new_scale) ->
 * (records, summary): the scaler (fpref_emu_scaler_init, the framework's
 * defaults under what config gives) replayed over steps iterations whose
 * verdicts are overflow (one byte each) or come from fpref_emu_scaler_check_tensor
 * on each iteration's slice of every gradient tensor (grads: a list of
 * (FP32 patterns as uint64, values per iteration)); new_scale: {step:
 * float}, PyTorch's update(new_scale).  A record per iteration:
 * (scale_used, scale_next, overflow, applied, grew, backed_off,
 * growth_refused, hysteresis_spent, clamped, raised, manual, counter,
 * cur_iter, last_overflow_iter, optimizer_steps, skipped_steps, values,
 * nonzero, zero_unscaled, subnormal_unscaled, zero_scaled,
 * subnormal_scaled, nonfinite_scaled, zero_recovered); scales as the bits of
 * the scale's format. */
static PyObject *py_lossscale(PyObject *self, PyObject *args)
{
	(void)self;
	const char *kind_name;
	PyObject *cfg_obj, *flags_obj, *grads, *new_scale;
	Py_ssize_t steps;
	if (!PyArg_ParseTuple(args, "sO!OO!nO!", &kind_name, &PyDict_Type, &cfg_obj, &flags_obj, &PyList_Type, &grads,
			      &steps, &PyDict_Type, &new_scale))
		return NULL;
	enum fpref_scaler_kind kind;
	if (fpref_emu_scaler_parse(kind_name, &kind) != 0) {
		PyErr_Format(PyExc_ValueError, "lossscale: unknown scaler '%s' (pytorch, deepspeed, apex or static)",
			     kind_name);
		return NULL;
	}
	struct fpref_scaler_config cfg;
	fpref_emu_scaler_config_default(kind, &cfg);
	PyObject *profile = PyDict_GetItemString(cfg_obj, "profile");
	if (config_bits(cfg_obj, "init_scale", &cfg.init_scale) || config_bits(cfg_obj, "growth_factor", &cfg.growth_factor) ||
	    config_bits(cfg_obj, "backoff_factor", &cfg.backoff_factor) ||
	    config_bits(cfg_obj, "min_scale", &cfg.min_scale) || config_bits(cfg_obj, "max_scale", &cfg.max_scale) ||
	    config_int(cfg_obj, "interval", &cfg.interval) || config_int(cfg_obj, "hysteresis", &cfg.hysteresis) ||
	    config_bool(cfg_obj, "consecutive_hysteresis", &cfg.consecutive_hysteresis) ||
	    config_bool(cfg_obj, "raise_at_min", &cfg.raise_at_min) ||
	    config_bool(cfg_obj, "static_skips", &cfg.static_skips))
		return NULL;
	if (profile && !(cfg.profile = PyUnicode_AsUTF8(profile)))
		return NULL;
	struct fpref_scaler s;
	char err[256];
	if (fpref_emu_scaler_init(&s, &cfg, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "lossscale: %s", err);
		return NULL;
	}
	Py_ssize_t ntensors = PyList_GET_SIZE(grads);
	Py_buffer flags = { 0 }, *tensors = calloc((size_t)(ntensors ? ntensors : 1), sizeof *tensors);
	Py_ssize_t *per = calloc((size_t)(ntensors ? ntensors : 1), sizeof *per);
	bool have_flags = false;
	Py_ssize_t held = 0;
	PyObject *records = NULL, *result = NULL;
	if (!tensors || !per) {
		PyErr_NoMemory();
		goto done;
	}
	if (flags_obj != Py_None) {
		if (PyObject_GetBuffer(flags_obj, &flags, PyBUF_SIMPLE) != 0)
			goto done;
		have_flags = true;
		if (check_elements(&flags, 1, (size_t)steps, "overflow") != 0)
			goto done;
	}
	for (; held < ntensors; held++) {
		PyObject *item = PyList_GET_ITEM(grads, held);
		if (!PyArg_ParseTuple(item, "y*n", &tensors[held], &per[held]))
			goto done;
		if (check_elements(&tensors[held], 8, (size_t)(steps * per[held]), "gradients") != 0) {
			held++;
			goto done;
		}
	}
	if (!(records = PyList_New(0)))
		goto done;
	size_t grown = 0, backed = 0;
	struct fpref_grad_stats total;
	memset(&total, 0, sizeof total);
	bool stopped = false;
	for (Py_ssize_t k = 0; k < steps && !stopped; k++) {
		struct fpref_grad_stats g;
		memset(&g, 0, sizeof g);
		bool overflow = have_flags && ((const unsigned char *)flags.buf)[k] != 0;
		int bad = 0;
		Py_BEGIN_ALLOW_THREADS
		for (Py_ssize_t t = 0; t < ntensors && !bad; t++)
			bad = fpref_emu_scaler_check_tensor(&s, (const uint64_t *)tensors[t].buf + k * per[t], (size_t)per[t],
							NULL, &g);
		Py_END_ALLOW_THREADS
		if (bad) {
			PyErr_Format(PyExc_ValueError, "lossscale: invalid gradient pattern at step %zd", k + 1);
			Py_CLEAR(records);
			goto done;
		}
		if (!have_flags)
			overflow = g.overflow;
		PyObject *key = PyLong_FromSsize_t(k + 1), *manual = key ? PyDict_GetItemWithError(new_scale, key) : NULL;
		Py_XDECREF(key);
		if (!manual && PyErr_Occurred()) {
			Py_CLEAR(records);
			goto done;
		}
		struct fpref_scaler_step st;
		if (manual) {
			uint64_t bits = 0;
			double v = PyFloat_AsDouble(manual);
			if (v == -1.0 && PyErr_Occurred()) {
				Py_CLEAR(records);
				goto done;
			}
			memcpy(&bits, &v, sizeof v);
			fpref_emu_scaler_update_to(&s, overflow, bits, &st);
		} else
			fpref_emu_scaler_update(&s, overflow, &st);
		stopped = st.raised;
		grown += st.grew;
		backed += st.backed_off;
		total.values += g.values;
		total.nonzero += g.nonzero;
		total.zero_unscaled += g.zero_unscaled;
		total.subnormal_unscaled += g.subnormal_unscaled;
		total.zero_scaled += g.zero_scaled;
		total.subnormal_scaled += g.subnormal_scaled;
		total.nonfinite_scaled += g.nonfinite_scaled;
		total.zero_recovered += g.zero_recovered;
		PyObject *rec = Py_BuildValue(
			"(KKOOOOOOOOOLLLKKnnnnnnnn)", (unsigned long long)st.scale_used, (unsigned long long)st.scale_next,
			st.overflow ? Py_True : Py_False, st.applied ? Py_True : Py_False, st.grew ? Py_True : Py_False,
			st.backed_off ? Py_True : Py_False, st.growth_refused ? Py_True : Py_False,
			st.hysteresis_spent ? Py_True : Py_False, st.clamped ? Py_True : Py_False,
			st.raised ? Py_True : Py_False, manual ? Py_True : Py_False,
			(long long)(kind == FPREF_SCALER_DEEPSPEED ? s.cur_hysteresis : s.growth_tracker), (long long)s.cur_iter,
			(long long)s.last_overflow_iter, (unsigned long long)s.optimizer_steps,
			(unsigned long long)s.skipped_steps, (Py_ssize_t)g.values, (Py_ssize_t)g.nonzero,
			(Py_ssize_t)g.zero_unscaled, (Py_ssize_t)g.subnormal_unscaled, (Py_ssize_t)g.zero_scaled,
			(Py_ssize_t)g.subnormal_scaled, (Py_ssize_t)g.nonfinite_scaled, (Py_ssize_t)g.zero_recovered);
		if (!rec || PyList_Append(records, rec) != 0) {
			Py_XDECREF(rec);
			Py_CLEAR(records);
			goto done;
		}
		Py_DECREF(rec);
	}
	result = Py_BuildValue("(O{s:s,s:s,s:K,s:K,s:K,s:n,s:n,s:O,s:K,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n})", records, "scaler",
			       fpref_emu_scaler_name(kind), "scale_format", fpref_emu_scaler_scale_format(&s)->name, "iterations",
			       (unsigned long long)s.iterations, "optimizer_steps", (unsigned long long)s.optimizer_steps,
			       "skipped_steps", (unsigned long long)s.skipped_steps, "growths", (Py_ssize_t)grown,
			       "backoffs", (Py_ssize_t)backed, "raised_at_min", stopped ? Py_True : Py_False,
			       "final_scale", (unsigned long long)s.scale, "values", (Py_ssize_t)total.values, "nonzero",
			       (Py_ssize_t)total.nonzero, "zero_unscaled", (Py_ssize_t)total.zero_unscaled,
			       "subnormal_unscaled", (Py_ssize_t)total.subnormal_unscaled, "zero_scaled",
			       (Py_ssize_t)total.zero_scaled, "subnormal_scaled", (Py_ssize_t)total.subnormal_scaled,
			       "nonfinite_scaled", (Py_ssize_t)total.nonfinite_scaled, "zero_recovered",
			       (Py_ssize_t)total.zero_recovered);
done:
	Py_XDECREF(records);
	if (have_flags)
		PyBuffer_Release(&flags);
	for (Py_ssize_t t = 0; tensors && t < held; t++)
		PyBuffer_Release(&tensors[t]);
	free(tensors);
	free(per);
	return result;
}

/* ---- golden files ---- */

/* gen(suite_path, out_dir, index, count, threads, npy) -> dict of the
 * run (fpref_golden_generate, then fpref_golden_write_manifest), GIL
 * released. */
static PyObject *py_gen(PyObject *self, PyObject *args)
{
	(void)self;
	const char *suite_path, *dir;
	unsigned index, count, threads;
	int npy;
	if (!PyArg_ParseTuple(args, "ssIIIp", &suite_path, &dir, &index, &count, &threads, &npy))
		return NULL;
	struct fpref_golden_suite s;
	char err[2048];
	if (fpref_golden_suite_read(suite_path, &s, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "gen: %s", err);
		return NULL;
	}
	s.npy = s.npy || npy;
	struct fpref_golden_progress done;
	memset(&done, 0, sizeof done);
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = fpref_golden_generate(&s, dir, index, count, threads, NULL, NULL, &done, err, sizeof err);
	if (rc == 0 && fpref_golden_write_manifest(&s, dir, index, count, err, sizeof err) != 0)
		rc = -1;
	Py_END_ALLOW_THREADS
	PyObject *result = NULL;
	if (rc == -2)
		PyErr_SetString(PyExc_KeyboardInterrupt, "gen: stopped by a signal (finished files stay)");
	else if (rc != 0)
		PyErr_Format(PyExc_RuntimeError, "gen: %s", err);
	else
		result = Py_BuildValue("{s:s,s:n,s:n,s:n,s:K}", "suite", s.name, "files", (Py_ssize_t)done.files,
				       "skipped", (Py_ssize_t)done.skipped, "arrays_added", (Py_ssize_t)done.arrays_added,
				       "vectors", (unsigned long long)done.vectors);
	fpref_golden_suite_free(&s);
	return result;
}

static int append_string(PyObject *list, const char *text)
{
	PyObject *p = PyUnicode_FromString(text);
	int r = p ? PyList_Append(list, p) : -1;
	Py_XDECREF(p);
	return r;
}

/* suite_jobs(suite_path) -> [path of every job's file]. */
static PyObject *py_suite_jobs(PyObject *self, PyObject *args)
{
	(void)self;
	const char *suite_path;
	if (!PyArg_ParseTuple(args, "s", &suite_path))
		return NULL;
	struct fpref_golden_suite s;
	char err[2048];
	if (fpref_golden_suite_read(suite_path, &s, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "gen: %s", err);
		return NULL;
	}
	PyObject *list = PyList_New(0);
	for (size_t k = 0; list && k < s.njobs; k++)
		if (append_string(list, s.jobs[k].path) != 0)
			Py_CLEAR(list);
	fpref_golden_suite_free(&s);
	return list;
}

/* golden_folder(dir) -> (manifest: "ok"|"none", listed, [relative paths]);
 * ValueError naming the first missing, changed or extra file. */
static PyObject *py_golden_folder(PyObject *self, PyObject *args)
{
	(void)self;
	const char *dir;
	if (!PyArg_ParseTuple(args, "s", &dir))
		return NULL;
	char err[2048] = "";
	size_t listed = 0;
	int m = fpref_golden_manifest_check(dir, &listed, err, sizeof err);
	if (m < 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		return NULL;
	}
	struct fpref_golden_list l;
	memset(&l, 0, sizeof l);
	if (fpref_golden_list_files(dir, &l) != 0) {
		fpref_golden_list_free(&l);
		PyErr_Format(PyExc_ValueError, "verify: %s: unreadable", dir);
		return NULL;
	}
	PyObject *paths = PyList_New(0);
	for (size_t i = 0; paths && i < l.n; i++)
		if (append_string(paths, l.paths[i]) != 0)
			Py_CLEAR(paths);
	fpref_golden_list_free(&l);
	return paths ? Py_BuildValue("(snN)", m == 1 ? "none" : "ok", (Py_ssize_t)listed, paths) : NULL;
}

/* verify(golden, results_path|None, results_bits|None, results_flags|None,
 * tolerance_ulps, tolerance_rel, show) -> dict of fpref_golden_verify's
 * report.  Results: a file (fpref_golden_results_read), an array of one
 * pattern per golden line (uint64; flags int32, -1 where none), or None
 * (the oracle afresh). */
static PyObject *py_verify(PyObject *self, PyObject *args)
{
	(void)self;
	const char *golden, *results_path;
	PyObject *bits_obj, *flags_obj;
	double tol_ulps, tol_rel;
	Py_ssize_t show;
	if (!PyArg_ParseTuple(args, "szOOddn", &golden, &results_path, &bits_obj, &flags_obj, &tol_ulps, &tol_rel, &show))
		return NULL;
	char err[2048];
	struct fpref_golden_file g;
	struct fpref_golden_job j;
	struct fpref_golden_results res;
	struct fpref_verify_report rep;
	memset(&res, 0, sizeof res);
	memset(&rep, 0, sizeof rep);
	Py_buffer bits = { 0 }, flags = { 0 };
	bool have_bits = false, have_flags = false, have_res = false, have_rep = false;
	PyObject *result = NULL;
	if (fpref_golden_read(golden, &g, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		return NULL;
	}
	if (fpref_golden_job_of(&g, &j, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s: %s", golden, err);
		goto done;
	}
	int rc;
	if (bits_obj != Py_None) {
		if (PyObject_GetBuffer(bits_obj, &bits, PyBUF_SIMPLE) != 0)
			goto done;
		have_bits = true;
		if (flags_obj != Py_None) {
			if (PyObject_GetBuffer(flags_obj, &flags, PyBUF_SIMPLE) != 0)
				goto done;
			have_flags = true;
		}
		if ((size_t)bits.len != g.nlines * 8 || (have_flags && (size_t)flags.len != g.nlines * sizeof(int))) {
			PyErr_Format(PyExc_ValueError, "verify: %s has %zu vectors; the results must have one each", golden,
				     g.nlines);
			goto done;
		}
		res.n = g.nlines;
		res.bits = malloc((g.nlines ? g.nlines : 1) * sizeof *res.bits);
		res.flags = malloc((g.nlines ? g.nlines : 1) * sizeof *res.flags);
		have_res = true;
		if (!res.bits || !res.flags) {
			PyErr_NoMemory();
			goto done;
		}
		memcpy(res.bits, bits.buf, g.nlines * 8);
		for (size_t i = 0; i < g.nlines; i++)
			res.flags[i] = have_flags ? ((const int *)flags.buf)[i] : -1;
		rc = 0;
	} else {
		Py_BEGIN_ALLOW_THREADS
		rc = results_path ? fpref_golden_results_read(results_path, &g, &j, &res, err, sizeof err)
				  : fpref_golden_results_oracle(&g, &j, &res, err, sizeof err);
		Py_END_ALLOW_THREADS
		have_res = rc == 0;
	}
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		goto done;
	}
	struct fpref_verify_options o = { tol_ulps, tol_rel, (size_t)show };
	Py_BEGIN_ALLOW_THREADS
	rc = fpref_golden_verify(&g, &j, &res, &o, &rep, err, sizeof err);
	Py_END_ALLOW_THREADS
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		goto done;
	}
	have_rep = true;
	PyObject *kinds = PyDict_New(), *shown = PyList_New(0);
	for (int k = 0; kinds && k < FPREF_MISMATCH_COUNT; k++) {
		if (!rep.by_kind[k])
			continue;
		PyObject *v = PyLong_FromSize_t(rep.by_kind[k]);
		if (!v || PyDict_SetItemString(kinds, fpref_golden_mismatch_name((enum fpref_mismatch)k), v) != 0)
			Py_CLEAR(kinds);
		Py_XDECREF(v);
	}
	for (size_t i = 0; shown && i < rep.nshown; i++) {
		const struct fpref_verify_case *c = &rep.shown[i];
		PyObject *t = Py_BuildValue("{s:n,s:s,s:K,s:K,s:i,s:i,s:d,s:s}", "line", (Py_ssize_t)c->line, "kind",
					    fpref_golden_mismatch_name(c->kind), "golden", (unsigned long long)c->golden, "got",
					    (unsigned long long)c->got, "golden_flags", c->golden_flags, "got_flags",
					    c->got_flags, "ulps", c->ulps, "inputs", c->inputs);
		if (!t || PyList_Append(shown, t) != 0)
			Py_CLEAR(shown);
		Py_XDECREF(t);
	}
	if (kinds && shown)
		result = Py_BuildValue(
			"{s:s,s:s,s:s,s:n,s:n,s:n,s:n,s:O,s:n,s:n,s:n,s:n,s:d,s:d,s:d,s:d,s:d,s:n,s:n,s:n,s:O}", "op", g.op,
			"formats", g.formats, "output", j.out.name, "cases", (Py_ssize_t)rep.cases, "exact",
			(Py_ssize_t)rep.exact, "within", (Py_ssize_t)rep.within, "outside", (Py_ssize_t)rep.outside,
			"mismatches", kinds, "measured_exact", (Py_ssize_t)rep.measured_exact, "saturated",
			(Py_ssize_t)rep.saturated, "zero_golden", (Py_ssize_t)rep.zero_golden, "nonfinite",
			(Py_ssize_t)rep.nonfinite, "max_ulps_golden", rep.max_ulps_golden, "max_rel_golden",
			rep.max_rel_golden, "max_ulps_exact", rep.max_ulps_exact, "max_rel_exact", rep.max_rel_exact,
			"mean_ulps_exact", rep.measured_exact ? rep.sum_ulps_exact / (double)rep.measured_exact : 0.0,
			"with_flags", (Py_ssize_t)rep.with_flags, "with_bound", (Py_ssize_t)rep.with_bound, "above_bound",
			(Py_ssize_t)rep.above_bound, "shown", shown);
	Py_XDECREF(kinds);
	Py_XDECREF(shown);
done:
	if (have_rep)
		fpref_golden_verify_report_free(&rep);
	if (have_res)
		fpref_golden_results_free(&res);
	if (have_bits)
		PyBuffer_Release(&bits);
	if (have_flags)
		PyBuffer_Release(&flags);
	fpref_golden_file_free(&g);
	return result;
}

/* golden_info(path) -> (op, output format, vectors) of a golden file. */
static PyObject *py_golden_info(PyObject *self, PyObject *args)
{
	(void)self;
	const char *path;
	if (!PyArg_ParseTuple(args, "s", &path))
		return NULL;
	char err[2048];
	struct fpref_golden_file g;
	struct fpref_golden_job j;
	if (fpref_golden_read(path, &g, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		return NULL;
	}
	PyObject *r = NULL;
	if (fpref_golden_job_of(&g, &j, err, sizeof err) != 0)
		PyErr_Format(PyExc_ValueError, "verify: %s: %s", path, err);
	else
		r = Py_BuildValue("(ssn)", g.op, j.out.name, (Py_ssize_t)g.nlines);
	fpref_golden_file_free(&g);
	return r;
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
	{ "flags_describe", py_flags_describe, METH_VARARGS, "flags as words" },
	{ "hex", py_hex, METH_VARARGS, "a pattern in the container's hex digits" },
	{ "quantize", py_quantize, METH_VARARGS, "a scaling scheme's codes, scales and report" },
	{ "lossscale", py_lossscale, METH_VARARGS, "a loss scaler replayed over iterations" },
	{ "gen", py_gen, METH_VARARGS, "a suite's golden files (fpref_golden_generate)" },
	{ "suite_jobs", py_suite_jobs, METH_VARARGS, "the files of a suite" },
	{ "golden_folder", py_golden_folder, METH_VARARGS, "a golden folder's MANIFEST state and files" },
	{ "golden_info", py_golden_info, METH_VARARGS, "a golden file's op, output format and vector count" },
	{ "verify", py_verify, METH_VARARGS, "results judged against a golden file (fpref_golden_verify)" },
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
