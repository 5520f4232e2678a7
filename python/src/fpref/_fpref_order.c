/* _fpref_order.c: fpref_golden_reveal_order with a Python callable as the
 * black box (fpref.reveal_order, python/src/fpref/order.py), and a
 * revealed tree run over lines of products (fpref_emu_tree_dot). */
#include "_fpref.h"

struct py_box {
	PyObject *batch; /* batch(lines: bytes of uint64, nlines) -> bytes of uint64 */
	bool raised;     /* the callable raised: its exception stays set */
};

static int py_box_run(void *ctx, const uint64_t *lines, size_t nlines, size_t n, uint64_t *results, char *err,
		      size_t errlen)
{
	struct py_box *b = ctx;
	PyObject *in = PyBytes_FromStringAndSize((const char *)lines, (Py_ssize_t)(nlines * n * sizeof *lines));
	PyObject *out = in ? PyObject_CallFunction(b->batch, "On", in, (Py_ssize_t)nlines) : NULL;
	Py_XDECREF(in);
	if (!out || !PyBytes_Check(out) || (size_t)PyBytes_GET_SIZE(out) != nlines * sizeof *results) {
		if (out && !PyErr_Occurred())
			PyErr_SetString(PyExc_RuntimeError, "the batch function must return nlines 8-byte patterns");
		Py_XDECREF(out);
		b->raised = true;
		snprintf(err, errlen, "the callable raised");
		return -1;
	}
	memcpy(results, PyBytes_AS_STRING(out), nlines * sizeof *results);
	Py_DECREF(out);
	return 0;
}

PyObject *py_reveal_order(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *batch, *models_obj;
	Py_ssize_t n, verify, batch_lines;
	unsigned long long seed;
	const char *in_name, *out_name;
	if (!PyArg_ParseTuple(args, "OnssOnKn", &batch, &n, &in_name, &out_name, &models_obj, &verify, &seed,
			      &batch_lines))
		return NULL;
	struct fpref_order_options o = { .n = (size_t)n, .verify = (size_t)verify, .seed = seed,
					 .max_batch = (size_t)batch_lines };
	if (n < 2 || verify < 0 || batch_lines < 1) {
		PyErr_SetString(PyExc_ValueError, "n >= 2, verify >= 0 and batch >= 1");
		return NULL;
	}
	if (fpref_py_get_format(in_name, &o.in) != 0 || fpref_py_get_format(out_name, &o.out) != 0)
		return NULL;
	fpref_env_default(&o.env);
	const char *names[64];
	PyObject *seq = NULL;
	if (models_obj != Py_None) {
		seq = PySequence_Fast(models_obj, "models must be a list of names");
		if (!seq)
			return NULL;
		Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
		if (k > 64) {
			Py_DECREF(seq);
			PyErr_SetString(PyExc_ValueError, "at most 64 models");
			return NULL;
		}
		for (Py_ssize_t i = 0; i < k; i++)
			if (!(names[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i)))) {
				Py_DECREF(seq);
				return NULL;
			}
		o.models = names;
		o.nmodels = (size_t)k;
	}
	struct py_box box = { batch, false };
	struct fpref_order_report r;
	enum fpref_order_status st = fpref_golden_reveal_order(&o, py_box_run, &box, &r);
	Py_XDECREF(seq);
	if (box.raised) {
		fpref_golden_order_report_free(&r);
		return NULL;
	}
	const char *status = st == FPREF_ORDER_TREE       ? "tree"
			     : st == FPREF_ORDER_NOT_TREE ? "not a tree"
			     : st == FPREF_ORDER_BOX_FAILED ? "box failed"
							    : "error";
	char *text = fpref_golden_order_report_text(&r, &o);
	if (!text) {
		fpref_golden_order_report_free(&r);
		return PyErr_NoMemory();
	}
	PyObject *d = Py_BuildValue("{s:s,s:z,s:z,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:d,s:d,s:s,s:s}", "status", status, "tree",
				    r.text, "block_model", r.model[0] ? r.model : NULL, "lines", (Py_ssize_t)r.lines,
				    "starts", (Py_ssize_t)r.batches, "probe_lines", (Py_ssize_t)r.probe_lines,
				    "verify_lines", (Py_ssize_t)r.verify_lines, "inner_nodes", (Py_ssize_t)r.inner,
				    "block_nodes", (Py_ssize_t)r.blocks, "depth", (Py_ssize_t)r.depth, "probe_small",
				    r.small, "probe_large", r.large, "message", r.message, "text", text);
	free(text);
	fpref_golden_order_report_free(&r);
	return d;
}

/* tree_dot(spec, in_a, in_b, out, a, b, nlines, K) -> bytes of nlines
 * uint64 patterns: line i's a and b are a[i*K..], b[i*K..] (uint64). */
PyObject *py_tree_dot(PyObject *self, PyObject *args)
{
	(void)self;
	const char *spec, *na, *nb, *no;
	Py_buffer a, b;
	Py_ssize_t nlines, K;
	if (!PyArg_ParseTuple(args, "ssssy*y*nn", &spec, &na, &nb, &no, &a, &b, &nlines, &K))
		return NULL;
	struct fpref_format fa, fb, fo;
	PyObject *res = NULL;
	struct fpref_tree *t = NULL;
	char err[512];
	if (fpref_py_get_format(na, &fa) != 0 || fpref_py_get_format(nb, &fb) != 0 || fpref_py_get_format(no, &fo) != 0)
		goto out;
	if (nlines < 0 || K < 1 || (size_t)a.len != (size_t)(nlines * K) * 8 || (size_t)b.len != (size_t)(nlines * K) * 8) {
		PyErr_SetString(PyExc_ValueError, "a and b: nlines x K uint64 patterns each");
		goto out;
	}
	if (!(t = fpref_emu_tree_parse(spec, &fa, &fb, &fo, err, sizeof err))) {
		PyErr_Format(PyExc_ValueError, "bad tree: %s", err);
		goto out;
	}
	if (fpref_emu_tree_products(t) != (size_t)K) {
		PyErr_Format(PyExc_ValueError, "the tree sums %zu products, not %zd", fpref_emu_tree_products(t), K);
		goto out;
	}
	res = PyBytes_FromStringAndSize(NULL, nlines * 8);
	if (!res)
		goto out;
	uint64_t *d = (uint64_t *)PyBytes_AS_STRING(res);
	struct fpref_env env;
	fpref_env_default(&env);
	for (Py_ssize_t i = 0; i < nlines; i++) {
		unsigned flags = 0;
		if (fpref_emu_tree_dot(t, (const uint64_t *)a.buf + i * K, (const uint64_t *)b.buf + i * K, (size_t)K, &env,
				       &d[i], &flags) != 0) {
			PyErr_Format(PyExc_ValueError, "line %zd: an invalid pattern", i);
			Py_CLEAR(res);
			break;
		}
	}
out:
	fpref_emu_tree_free(t);
	PyBuffer_Release(&a);
	PyBuffer_Release(&b);
	return res;
}
