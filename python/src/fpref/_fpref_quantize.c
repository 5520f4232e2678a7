/* fpref._fpref, scaling: quantize (every scaling scheme through
 * fpref_emu_quantize, with its report) and lossscale (a loss scaler
 * replayed over iterations).  The two calls that hand back bytearrays and
 * dicts built from library structs, with the helpers only they use. */
#include "_fpref.h"

#include "fpref_emu_quant_report.h"
#include "fpref_emu_scale.h"
#include "fpref_emu_scale_layout.h"

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
 * two_d, sr, seed, nvfp4_recipe, four_over_six, scale_bound, rht, rht_fp32, sr_bits,
 * mx_recipe, torch_bf16, swizzled, codes_only) -> dict: the scheme's codes, dequantised
 * FP32, scales (bytearrays; swizzled: in cuBLAS's blocked layout,
 * fpref_emu_scale_swizzle, with their 2-D "swizzled_shape"), its facts, the step records (delayed) and the report
 * (fpref_emu_quant_report_compute; codes_only: no dequantised values and no
 * report, both None, as fpref quantize --no-report), all from one call of the library,
 * fpref_emu_quantize.  x: FP32 patterns; rows x cols the tensor as the
 * block schemes see it, steps its first axis (delayed); nscales and
 * scale_bytes the caller's count of the scales, checked against the
 * library's.  The option checks are the caller's (fpref.quantize mirrors
 * fpref quantize), but for the names the library parses (rule, the MX and
 * NVFP4 recipes: "" for the default), refused here with their choices. */
PyObject *py_quantize(PyObject *self, PyObject *args)
{
	(void)self;
	const char *scheme_name, *element_name, *algo_name, *amax_nan_name, *rule_name, *er_name, *nv_recipe_name;
	const char *four_over_six, *sr_bits, *mx_recipe_name;
	Py_buffer x;
	Py_ssize_t steps, rows, cols, nscales, scale_bytes, history, margin, scale_bound, rht;
	int pow2, te, two_d, sr, rht_fp32, torch_bf16, swizzled, codes_only;
	PyObject *eps_obj;
	unsigned long long seed;
	if (!PyArg_ParseTuple(args, "ssy*nnnnnipOnsnsssppKssnnpzsppp", &scheme_name, &element_name, &x, &steps, &rows,
			      &cols, &nscales, &scale_bytes, &pow2, &te, &eps_obj, &history, &algo_name, &margin,
			      &amax_nan_name, &rule_name, &er_name, &two_d, &sr, &seed, &nv_recipe_name, &four_over_six,
			      &scale_bound, &rht, &rht_fp32, &sr_bits, &mx_recipe_name, &torch_bf16, &swizzled, &codes_only))
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
	if (!int8 && fpref_py_get_format(element_name, &q.element) != 0)
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
	if (*mx_recipe_name && fpref_emu_mx_recipe_parse(mx_recipe_name, &q.mx_recipe) != 0) {
		PyErr_Format(PyExc_ValueError, "quantize: recipe must be 'ocp', 'torchao' or 'modelopt' for the MX schemes, "
			     "not '%s'", mx_recipe_name);
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
	q.nvfp4.torch_bf16 = torch_bf16 != 0;
	q.codes_only = codes_only != 0;
	if (*nv_recipe_name && (fpref_emu_nvfp4_recipe_parse(nv_recipe_name, &q.nvfp4.recipe) != 0 ||
				q.nvfp4.recipe == FPREF_NVFP4_FOUR_OVER_SIX)) {
		PyErr_Format(PyExc_ValueError,
			     "quantize: recipe must be 'te', 'torchao' or 'modelopt' for nvfp4 (or 'torchao-1level', "
			     "'torchao-02a1bc44', 'modelopt-0ad6e5f0'), not '%s'", nv_recipe_name);
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
	if (rc == 0 && !codes_only &&
	    fpref_emu_quant_report_compute(q.x, r.dequant, count, r.element, r.codes, &rep) != 0) {
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
	size_t swz_rows = 0, swz_cols = 0;
	if (swizzled) { /* the scales as a rows x cols matrix, cols the last axis, as the command writes them */
		size_t c = r.scales_shape[r.scales_ndim - 1], rws = c ? r.scales_count / c : 0;
		void *to;
		if (fpref_emu_scale_swizzled_shape(rws, c, &swz_rows, &swz_cols) != 0 ||
		    !(scales = new_bytes(swz_rows * swz_cols, &to))) {
			if (!PyErr_Occurred())
				PyErr_NoMemory();
			goto done;
		}
		fpref_emu_scale_swizzle(r.scales, rws, c, to);
	}
	if (codes_only) {
		dequant = Py_None;
		Py_INCREF(dequant);
	}
	if (!(codes = bytes_of(r.codes, count)) || (!dequant && !(dequant = bytes_of(r.dequant, count * 4))) ||
	    (!scales && !(scales = bytes_of(r.scales, r.scales_count * r.scales_item_bytes))))
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
	PyObject *report = !amaxes || !scale_invs || !labels ? NULL
			   : codes_only				? (Py_INCREF(Py_None), Py_None)
								: report_dict(&rep, !int8);
	if (report)
		result = Py_BuildValue("{s:O,s:O,s:O,s:N,s:O,s:O,s:N,s:k,s:N,s:(nn)}", "codes", codes, "dequant", dequant,
				       "scales", scales, "facts", facts, "step_amax", amaxes, "step_scale_inv", scale_invs,
				       "report", report, "tensor_scale", (unsigned long)r.tensor_scale, "settings", labels,
				       "swizzled_shape", (Py_ssize_t)swz_rows, (Py_ssize_t)swz_cols);
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
PyObject *py_lossscale(PyObject *self, PyObject *args)
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
