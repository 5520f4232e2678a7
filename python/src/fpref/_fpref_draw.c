/* _fpref_draw.c: the pictures of fpref.draw, the library's own
 * (fpref_golden_draw.h), so that the SVG text is the command's byte for
 * byte.  The options arrive as the command's texts; fpref.draw in
 * __init__.py turns the keywords into them. */
#include "_fpref.h"

/* The library's answer as a str, or the exception it calls for. */
static PyObject *picture(int r, char *svg, const char *err)
{
	if (r == FPREF_DRAW_BAD_ARGS) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	if (r != 0)
		return PyErr_NoMemory();
	PyObject *text = PyUnicode_FromString(svg);
	free(svg);
	return text;
}

PyObject *py_draw_numberline(PyObject *self, PyObject *args)
{
	(void)self;
	const char *fmt, *range, *at, *window;
	if (!PyArg_ParseTuple(args, "szzz", &fmt, &range, &at, &window))
		return NULL;
	struct fpref_format f;
	if (fpref_py_get_format(fmt, &f) != 0)
		return NULL;
	char *svg = NULL, err[640] = "";
	int r;
	Py_BEGIN_ALLOW_THREADS
	r = fpref_golden_draw_numberline(&f, range, at, window, &svg, err, sizeof err);
	Py_END_ALLOW_THREADS
	return picture(r, svg, err);
}

PyObject *py_draw_rounding(PyObject *self, PyObject *args)
{
	(void)self;
	const char *value, *to_name;
	struct env_args ea;
	if (!PyArg_ParseTuple(args, "ss" ENV_FORMAT, &value, &to_name, ENV_REFS(ea)))
		return NULL;
	struct fpref_format to;
	struct fpref_env env;
	if (fpref_py_get_format(to_name, &to) != 0 || fpref_py_make_env(&ea, NULL, &to, &env) != 0)
		return NULL;
	if (env.rounding == FPREF_SR && !ea.sr_bits && ea.sr_seed == Py_None) {
		PyErr_SetString(PyExc_ValueError, "round='sr' needs sr_bits (HEX, W:HEX or seed=N) or sr_seed: the random "
						  "bits decide the rounding");
		return NULL;
	}
	char *svg = NULL, err[640] = "";
	int r;
	Py_BEGIN_ALLOW_THREADS
	r = fpref_golden_draw_rounding(value, &to, &env, &svg, err, sizeof err);
	Py_END_ALLOW_THREADS
	return picture(r, svg, err);
}

PyObject *py_draw_formats(PyObject *self, PyObject *noargs)
{
	(void)self;
	(void)noargs;
	char *svg = NULL, err[640] = "";
	int r = fpref_golden_draw_formats(&svg, err, sizeof err);
	return picture(r, svg, err);
}
