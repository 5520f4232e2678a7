/* fpref._fpref, conversions and arithmetic: convert, convert_decimal, op
 * and explain (the oracle's trace of one rounding), then the one-pattern
 * helpers (classify, flags_describe, hex) and time_convert for bench.py.
 * The element-wise calls on the caller's buffers, apart from the
 * dot-product, scaling and golden-file topics that have files of their own. */
#include "_fpref.h"

#include <time.h>

/* ---- convert ---- */

/* convert(from, to, engine, in, out, flags|None, n, first_index, env...)
 * -> (number of invalid source patterns, index of the first or -1). */
PyObject *py_convert(PyObject *self, PyObject *args)
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
	if (fpref_py_get_format(from_name, &from) != 0 || fpref_py_get_format(to_name, &to) != 0 ||
	    fpref_py_make_env(&ea, &from, &to, &env) != 0)
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
PyObject *py_convert_decimal(PyObject *self, PyObject *args)
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
	if (fpref_py_get_format(to_name, &to) != 0 || fpref_py_make_env(&ea, NULL, &to, &env) != 0)
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
PyObject *py_op(PyObject *self, PyObject *args)
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
	if (fpref_py_get_format(fmt_name, &f) != 0 || fpref_py_make_env(&ea, NULL, &f, &env) != 0)
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
PyObject *py_explain(PyObject *self, PyObject *args)
{
	(void)self;
	const char *text, *from_name, *to_name;
	unsigned long long in_bits;
	struct env_args ea;
	if (!PyArg_ParseTuple(args, "zzKs" ENV_FORMAT, &text, &from_name, &in_bits, &to_name, ENV_REFS(ea)))
		return NULL;
	struct fpref_format from, to;
	struct fpref_env env;
	if ((from_name && fpref_py_get_format(from_name, &from) != 0) || fpref_py_get_format(to_name, &to) != 0 ||
	    fpref_py_make_env(&ea, from_name ? &from : NULL, &to, &env) != 0)
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
	/* the command's text, for str(): the input as the command would be given it */
	char input[64], *text_buf = NULL;
	size_t text_len = 0;
	if (!text)
		fpref_format_hex(&from, in_bits, input, sizeof input);
	FILE *mem = open_memstream(&text_buf, &text_len);
	if (mem) {
		fpref_ref_explain_print(mem, text ? text : input, text ? NULL : &from, &v, &to, &env, &t, bits, flags);
		fclose(mem);
	}
	PyObject *text_obj = text_buf ? PyUnicode_FromStringAndSize(text_buf, (Py_ssize_t)text_len) : PyErr_NoMemory();
	free(text_buf);
	PyObject *d = NULL;
	if (exact && result_dec && shortest && lo && hi && text_obj)
		d = Py_BuildValue(
			"{s:O,s:O,s:s,s:s,s:K,s:s,s:(IKK),s:O,s:O,s:O,s:O,s:O,s:O,s:K,s:K,s:s,s:s,s:s,s:s,s:O,s:I,s:s,"
			"s:N,s:N,s:N,s:O}",
			"exact", exact, "inexact_input", v.inexact ? Py_True : Py_False, "format", to.name, "environment",
			envtext, "bits", (unsigned long long)bits, "hex", hex, "fields", sign, (unsigned long long)e,
			(unsigned long long)m, "value", result_dec, "shortest", shortest, "lo", lo, "hi", hi, "lo_held",
			t.bracketed && t.lo_held ? Py_True : Py_False, "hi_held",
			t.bracketed && t.hi_held ? Py_True : Py_False, "lo_bits", (unsigned long long)t.lo_bits, "hi_bits",
			(unsigned long long)t.hi_bits, "lo_hex", lo_hex, "hi_hex", hi_hex, "rule", rule_name(t.rule),
			"outcome", outcome_name(t.outcome), "tiny", t.tiny ? Py_True : Py_False, "flags", flags,
			"flag_names", words, "err_abs", mpfr_float(t.err_abs), "err_rel", mpfr_float(t.err_rel), "err_ulp",
			mpfr_float(t.err_ulp), "text", text_obj);
	Py_XDECREF(text_obj);
	Py_XDECREF(exact);
	Py_XDECREF(result_dec);
	Py_XDECREF(shortest);
	Py_XDECREF(lo);
	Py_XDECREF(hi);
	fpref_ref_trace_clear(&t);
	fpref_ref_value_clear(&v);
	return d;
}

/* ---- table ---- */

/* table(fmt) -> [dict]: every code of a format of 8 bits or fewer, as
 * fpref table lists it: code, hex, its fields (sign, exponent, mantissa)
 * or, for an integer format, k; class ("unused" for a code never
 * produced) and the exact value (None for an unused code). */
PyObject *py_table(PyObject *self, PyObject *args)
{
	(void)self;
	const char *name;
	struct fpref_format f;
	if (!PyArg_ParseTuple(args, "s", &name) || fpref_py_get_format(name, &f) != 0)
		return NULL;
	int bits = fpref_format_container_bits(&f);
	if (bits > 8) {
		PyErr_Format(PyExc_ValueError, "table lists formats of 8 bits or fewer; %s has %d (explain takes single "
			     "values)", f.name, bits);
		return NULL;
	}
	PyObject *list = PyList_New(0);
	for (uint64_t code = 0; list && code < ((uint64_t)1 << bits); code++) {
		struct fpref_unpacked u;
		enum fpref_decode_status st = fpref_decode(&f, code, &u);
		bool unused = st == FPREF_DECODE_NONCANONICAL;
		char hex[8];
		fpref_format_hex(&f, code, hex, sizeof hex);
		unsigned sign;
		uint64_t e, m;
		fpref_fields(&f, code, &sign, &e, &m);
		int64_t k = fpref_format_int_k(&f, code);
		const char *cls = unused ? "unused"
			: f.integer ? (k == 0 ? "zero" : k < 0 ? "negative" : "positive") : fpref_class_name(u.cls);
		PyObject *value = unused ? (Py_INCREF(Py_None), Py_None) : take_string(fpref_ref_unpacked_decimal(&u));
		PyObject *row = !value ? NULL
			: f.integer ? Py_BuildValue("{s:K,s:s,s:L,s:s,s:N}", "code", (unsigned long long)code, "hex", hex,
						     "k", (long long)k, "class", cls, "value", value)
				    : Py_BuildValue("{s:K,s:s,s:I,s:K,s:K,s:s,s:N}", "code", (unsigned long long)code, "hex",
						     hex, "sign", sign, "exponent", (unsigned long long)e, "mantissa",
						     (unsigned long long)m, "class", cls, "value", value);
		if (!row || PyList_Append(list, row) != 0) {
			Py_XDECREF(row);
			Py_CLEAR(list);
		}
		Py_XDECREF(row);
	}
	return list;
}

/* ---- mismatch classes ---- */

PyObject *py_classify(PyObject *self, PyObject *args)
{
	(void)self;
	const char *fmt_name;
	unsigned long long g, r;
	unsigned gf;
	int rf;
	struct fpref_format f;
	if (!PyArg_ParseTuple(args, "sKIKi", &fmt_name, &g, &gf, &r, &rf) || fpref_py_get_format(fmt_name, &f) != 0)
		return NULL;
	return PyUnicode_FromString(fpref_golden_mismatch_name(fpref_golden_classify(&f, g, gf, r, rf)));
}

PyObject *py_flags_describe(PyObject *self, PyObject *args)
{
	(void)self;
	unsigned flags;
	if (!PyArg_ParseTuple(args, "I", &flags))
		return NULL;
	char buf[96];
	fpref_flags_describe(flags, buf, sizeof buf);
	return PyUnicode_FromString(buf);
}

PyObject *py_hex(PyObject *self, PyObject *args)
{
	(void)self;
	const char *fmt_name;
	unsigned long long bits;
	struct fpref_format f;
	if (!PyArg_ParseTuple(args, "sK", &fmt_name, &bits) || fpref_py_get_format(fmt_name, &f) != 0)
		return NULL;
	char buf[32];
	fpref_format_hex(&f, bits, buf, sizeof buf);
	return PyUnicode_FromString(buf);
}

/* time_convert(from, to, in, out, repeats) -> [seconds]: the bulk
 * converter's own time on a whole buffer, without Python around it (for
 * python/bench.py; the converter is built once, outside the timings). */
PyObject *py_time_convert(PyObject *self, PyObject *args)
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
	if (fpref_py_get_format(from_name, &from) != 0 || fpref_py_get_format(to_name, &to) != 0)
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
