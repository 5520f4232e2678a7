/* _fpref_draw.c: the pictures of fpref.draw, the library's own
 * (fpref_golden_draw.h), so that the SVG text is the command's byte for
 * byte.  The options arrive as the command's texts; fpref.draw
 * (_draw.py) turns the keywords into them. */
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

PyObject *py_draw_promotion(PyObject *self, PyObject *args)
{
	(void)self;
	const char *model, *promote_text, *final, *in_name, *ks, *size, *dist, *seed;
	Py_ssize_t promote, block, frac;
	PyObject *floor_obj;
	struct env_args ea;
	if (!PyArg_ParseTuple(args, "ssnnnOsszzzz" ENV_FORMAT, &model, &promote_text, &promote, &block, &frac, &floor_obj,
			      &final, &in_name, &ks, &size, &dist, &seed, ENV_REFS(ea)))
		return NULL;
	struct fpref_format in;
	const struct fpref_format *out = fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_accum_model alone, promoted;
	struct fpref_env env;
	if (fpref_py_get_format(in_name, &in) != 0 ||
	    fpref_py_resolve_model(model, &in, &in, out, promote, block, frac, floor_obj, final, NULL, NULL, &promoted) !=
		    0 ||
	    fpref_py_resolve_model(model, &in, &in, out, 0, block, frac, floor_obj, final, NULL, NULL, &alone) != 0 ||
	    fpref_py_make_env(&ea, NULL, out, &env) != 0)
		return NULL;
	struct fpref_draw_promotion p = { .alone = &alone, .promoted = &promoted, .model = model, .promote = promote_text,
					  .in = &in, .env = &env, .ks = ks, .size = size, .dist = dist, .seed = seed };
	char *svg = NULL, err[640] = "";
	int r;
	Py_BEGIN_ALLOW_THREADS
	r = fpref_golden_draw_promotion(&p, &svg, err, sizeof err);
	Py_END_ALLOW_THREADS
	return picture(r, svg, err);
}

PyObject *py_draw_pytorch_tf32(PyObject *self, PyObject *args)
{
	(void)self;
	const char *ks, *dist, *seed;
	if (!PyArg_ParseTuple(args, "zzz", &ks, &dist, &seed))
		return NULL;
	/* the protocol's two units, as fpref draw pytorch-tf32 names them */
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32), *tf32 = fpref_format_get(FPREF_FORMAT_TF32);
	struct fpref_accum_model ma, mb;
	if (fpref_py_resolve_model("a100", tf32, tf32, f32, 0, 0, 0, Py_None, "rtz", NULL, NULL, &ma) != 0 ||
	    fpref_py_resolve_model("fma-chain", f32, f32, f32, 0, 0, 0, Py_None, "rtz", NULL, NULL, &mb) != 0)
		return NULL;
	char *svg = NULL, err[640] = "";
	int r;
	Py_BEGIN_ALLOW_THREADS
	r = fpref_golden_draw_pytorch_tf32(&ma, &mb, ks, dist, seed, &svg, err, sizeof err);
	Py_END_ALLOW_THREADS
	return picture(r, svg, err);
}
