/* _fpref_probe.c: fpref.probe("infer", ...): measured dot products handed
 * to the library's model search (fpref_golden_probe_infer), and its answer
 * as fpref probe infer gives it: the report's text
 * (fpref_golden_probe_report_text, the command's bytes) and its fields,
 * named as the command's --json names them. */
#include "_fpref.h"

static PyObject *class_dict(const struct fpref_probe_class *c, const char *out_name)
{
	if (c->preset) {
		char text[512];
		fpref_tc_model_describe(c->preset, out_name, text, sizeof text);
		return Py_BuildValue("{s:s,s:s}", "preset", c->preset->gpu, "description", text);
	}
	PyObject *open = c->block_open ? Py_True : Py_False;
	const char *round = fpref_rounding_name(c->rounding);
	if (c->floor_none)
		return Py_BuildValue("{s:i,s:i,s:O,s:i,s:s,s:O,s:i}", "block_lo", c->block_lo, "block_hi", c->block_hi,
				     "block_open", open, "frac", c->frac, "rounding", round, "floor", Py_None, "floor_none_up_to",
				     c->has_floor_range ? c->floor_hi : c->none_up_to);
	return Py_BuildValue("{s:i,s:i,s:O,s:i,s:s,s:i,s:i}", "block_lo", c->block_lo, "block_hi", c->block_hi, "block_open",
			     open, "frac", c->frac, "rounding", round, "floor_lo", c->floor_lo, "floor_hi", c->floor_hi);
}

static PyObject *class_list(const struct fpref_probe_class *c, size_t n, const char *out_name)
{
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		PyObject *d = class_dict(&c[i], out_name);
		if (!d) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, d);
	}
	return list;
}

static PyObject *report_dict(const struct fpref_probe_report *r, const struct fpref_probe_data *data, const char *text)
{
	PyObject *nearest = PyList_New((Py_ssize_t)r->nnear), *presets = PyList_New((Py_ssize_t)r->npresets);
	for (size_t i = 0; nearest && i < r->nnear; i++) {
		char model[512];
		fpref_tc_model_describe(&r->near[i].model, data->out.name, model, sizeof model);
		PyObject *one = Py_BuildValue("{s:n,s:s}", "misses", (Py_ssize_t)r->near[i].misses, "model", model);
		if (!one)
			Py_CLEAR(nearest);
		else
			PyList_SET_ITEM(nearest, (Py_ssize_t)i, one);
	}
	for (size_t i = 0; presets && i < r->npresets; i++) {
		PyObject *one = PyUnicode_FromString(r->presets[i]->gpu);
		if (!one)
			Py_CLEAR(presets);
		else
			PyList_SET_ITEM(presets, (Py_ssize_t)i, one);
	}
	PyObject *classes = class_list(r->classes, r->nclasses, data->out.name),
		 *c_zero = class_list(r->c_zero_classes, r->c_zero_nclasses, data->out.name);
	PyObject *d = NULL;
	if (nearest && presets && classes && c_zero)
		d = Py_BuildValue("{s:n,s:n,s:n,s:O,s:O,s:n,s:O,s:O,s:s}", "cases", (Py_ssize_t)data->count, "K",
				  (Py_ssize_t)data->K, "models_run", (Py_ssize_t)r->tried, "classes", classes, "nearest",
				  nearest, "c_zero_cases", (Py_ssize_t)r->c_zero_cases, "c_zero_classes", c_zero, "presets",
				  presets, "text", text);
	Py_XDECREF(nearest);
	Py_XDECREF(presets);
	Py_XDECREF(classes);
	Py_XDECREF(c_zero);
	return d;
}

/* The search over the cases, and its report as a dict; NULL with an
 * exception. */
static PyObject *infer(struct fpref_probe_data *data, const char *results)
{
	struct fpref_probe_report rep;
	char err[512] = "";
	int failed;
	Py_BEGIN_ALLOW_THREADS
	failed = fpref_golden_probe_infer(data, &rep, err, sizeof err);
	Py_END_ALLOW_THREADS
	if (failed) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	char *text = fpref_golden_probe_report_text(&rep, data, results);
	PyObject *ret = text ? report_dict(&rep, data, text) : PyErr_NoMemory();
	free(text);
	fpref_golden_probe_report_free(&rep);
	return ret;
}

PyObject *py_probe_infer(PyObject *self, PyObject *args)
{
	(void)self;
	const char *in_a_name, *in_b_name, *out_name, *results;
	Py_ssize_t K, count;
	int block, frac;
	Py_buffer rows, d;
	if (!PyArg_ParseTuple(args, "sssnny*y*iis", &in_a_name, &in_b_name, &out_name, &K, &count, &rows, &d, &block, &frac,
			      &results))
		return NULL;
	struct fpref_probe_data data = { .K = (size_t)K, .count = (size_t)count, .block = block, .frac = frac };
	PyObject *ret = NULL;
	if (fpref_py_get_format(in_a_name, &data.in) == 0 && fpref_py_get_format(in_b_name, &data.in_b) == 0 &&
	    fpref_py_get_format(out_name, &data.out) == 0 &&
	    check_elements(&rows, sizeof(uint64_t), (size_t)count * (2 * (size_t)K + 1), "rows") == 0 &&
	    check_elements(&d, sizeof(uint64_t), (size_t)count, "d") == 0) {
		data.rows = rows.buf;
		data.d = d.buf;
		ret = infer(&data, results);
	}
	PyBuffer_Release(&rows);
	PyBuffer_Release(&d);
	return ret;
}

/* probe_infer_golden(golden, results, in_a, in_b, out, block, frac): the
 * cases of a golden dot file and its results file (formats None: the
 * file's), as fpref probe infer --golden G --results R reads them; the
 * report's dict, with the file's formats (A's, B's, out's) as "formats". */
PyObject *py_probe_infer_golden(PyObject *self, PyObject *args)
{
	(void)self;
	const char *golden, *results, *in_a_name, *in_b_name, *out_name;
	int block, frac;
	if (!PyArg_ParseTuple(args, "sszzzii", &golden, &results, &in_a_name, &in_b_name, &out_name, &block, &frac))
		return NULL;
	struct fpref_format given[3];
	bool have = in_a_name && in_b_name && out_name;
	if (have && (fpref_py_get_format(in_a_name, &given[0]) != 0 || fpref_py_get_format(in_b_name, &given[1]) != 0 ||
		     fpref_py_get_format(out_name, &given[2]) != 0))
		return NULL;
	struct fpref_probe_cases c;
	char err[640] = "";
	int r;
	Py_BEGIN_ALLOW_THREADS
	r = fpref_golden_probe_read_golden(golden, results, have ? given : NULL, &c, err, sizeof err);
	Py_END_ALLOW_THREADS
	if (r == -2)
		return PyErr_NoMemory();
	if (r != 0) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	struct fpref_probe_data data = { .in = c.in, .in_b = c.in_b, .out = c.out, .K = c.K, .count = c.count,
					 .rows = c.rows, .d = c.d, .block = block, .frac = frac };
	PyObject *ret = infer(&data, results);
	PyObject *names = ret ? Py_BuildValue("(sss)", c.in.name, c.in_b.name, c.out.name) : NULL;
	if (ret && (!names || PyDict_SetItemString(ret, "formats", names) != 0))
		Py_CLEAR(ret);
	Py_XDECREF(names);
	fpref_golden_probe_cases_free(&c);
	return ret;
}
