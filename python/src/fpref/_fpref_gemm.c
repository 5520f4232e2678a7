/* fpref._fpref, dot products and GEMMs: gemm (tensor-core presets, the
 * generic model, the plain accumulation orders, the exact dot and a priori
 * bounds), dot_scaled and gemm_scaled with block scales, and the models'
 * rows.  Its own file: the matrix calls share the dispatch helpers here
 * and nothing else does. */
#include <strings.h>

#include "_fpref.h"

/* "float8_e4m3fn", or "A float8_e5m2, B float8_e4m3fn" for a message. */
static void describe_pair(const struct fpref_format *a, const struct fpref_format *b, char *buf, size_t len)
{
	if (fpref_format_same(a, b))
		snprintf(buf, len, "%s", a->name);
	else
		snprintf(buf, len, "A %s, B %s", a->name, b->name);
}

/* The preset's row for A of a and B of b, or NULL with a ValueError that
 * names the pair and, for a preset that does not take it, the pairs its
 * rows take (as fpref dot --in-a/--in-b says). */
static const struct fpref_tc_model *find_pair(const char *name, const struct fpref_format *a,
					       const struct fpref_format *b)
{
	const struct fpref_tc_model *row = fpref_tc_model_find_pair(name, a, b);
	if (row)
		return row;
	const char *preset = fpref_tc_model_alias(name);
	char pairs[2048] = "";
	size_t used = 0;
	for (size_t i = 0; i < fpref_tc_model_count() && used + 1 < sizeof pairs; i++) {
		const struct fpref_tc_model *r = fpref_tc_model_at(i);
		if (strcasecmp(r->gpu, preset) != 0)
			continue;
		if (used)
			used += (size_t)snprintf(pairs + used, sizeof pairs - used, "; ");
		if (used + 1 < sizeof pairs)
			fpref_tc_model_pairs(r, pairs + used, sizeof pairs - used);
		used = strlen(pairs);
	}
	if (used)
		PyErr_Format(PyExc_ValueError, "the %s model takes no %s x %s pair (A x B); it takes %s", name, a->name,
			     b->name, pairs);
	else
		PyErr_Format(PyExc_ValueError, "no tensor-core model '%s' (fpref.models() lists them)", name);
	return NULL;
}

/* The row chained in blocks of an instruction shape's K (shape NULL: the
 * row as it is); 0, or -1 with a ValueError. */
static int apply_shape(struct fpref_tc_model *m, const struct fpref_format *out, const char *shape)
{
	char err[512];
	if (shape && fpref_tc_model_shape(m, out, shape, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "shape: %s", err);
		return -1;
	}
	return 0;
}

/* ---- dot products and gemm ---- */

/* A plain accumulation order (emu/accumulate.c) or the exact dot product,
 * rounded in `out` under env, for every element of D: the dispatch of
 * fpref_golden_model_dot (golden/gemm.c) for these models. */
static int plain_gemm(bool exact, enum fpref_sum_order order, size_t block, const struct fpref_format *in_a,
		      const struct fpref_format *in_b, const struct fpref_format *out, const struct fpref_env *env, size_t M, size_t N, size_t K,
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
			rc = exact ? fpref_ref_dot_exact(in_a, in_b, A + i * K, col, K, c, out, env, &D[i * N + j], &flags)
				   : fpref_emu_dot(order, block, in_a, in_b, A + i * K, col, K, c, out, env, &D[i * N + j],
						   &flags);
		}
	}
	free(col);
	return rc;
}

/* d_r = a_r . b_r + c_r for the R rows of A and B (R x K each), by the
 * same model: the elements fpref_emu_tc_gemm and plain_gemm compute. */
static int dot_rows(const struct fpref_tc_model *m, bool plain, bool exact, enum fpref_sum_order order, size_t block,
		    size_t promote, const struct fpref_format *in_a, const struct fpref_format *in_b,
		    const struct fpref_format *out, const struct fpref_env *env, size_t R, size_t K, const uint64_t *A, const uint64_t *B,
		    const uint64_t *C, uint64_t *D)
{
	uint64_t zero = fpref_format_zero_bits(out, false);
	for (size_t r = 0; r < R; r++) {
		const uint64_t *a = A + r * K, *b = B + r * K;
		uint64_t c = C ? C[r] : zero;
		unsigned flags = 0;
		int rc = exact	 ? fpref_ref_dot_exact(in_a, in_b, a, b, K, c, out, env, &D[r], &flags)
			 : plain ? fpref_emu_dot(order, block, in_a, in_b, a, b, K, c, out, env, &D[r], &flags)
			 : promote ? fpref_emu_tc_dot_promoted(m, in_a, in_b, a, b, K, promote, NULL, NULL, c, &D[r])
				   : fpref_emu_tc_dot(m, in_a, in_b, a, b, K, c, out, &D[r]);
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
			  size_t block, size_t promote, const struct fpref_format *in_a, const struct fpref_format *in_b,
			  const struct fpref_format *out, const struct fpref_env *env, bool rows, size_t M, size_t N, size_t K, const uint64_t *A,
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
				rc = fpref_ref_sum_bound(order, block, in_a, in_b, a, b, K, c, out, env, bound);
			else
				rc = fpref_ref_tc_bound(m, in_a, in_b, a, b, K, c, out, promote, bound);
			D[i * ncols + j] = mpfr_get_d(bound, MPFR_RNDU);
		}
	mpfr_clear(bound);
	free(col);
	return rc;
}

/* gemm(model, inp_a, inp_b, out, M, N, K, A, B, C|None, D, promote, block,
 * frac, floor|None, final, rows, bounds, env...), A (patterns of inp_a), B
 * (of inp_b), C as uint64 patterns;
 * rows: D holds M dot products of the rows of A and B (both M x K), C and
 * D M long (N unused); bounds: D is float64, each element's a priori
 * bound instead of its value.  model is a GPU preset, "generic" (block,
 * frac, floor, final), a plain order (recursive, pairwise, blocked,
 * fma-chain, kahan: rounded in out under env) or "exact". */
/* The accumulation model of gemm, dot and verify_gemm's arguments, checked
 * as the command checks them: a plain order, "exact", "generic" (block,
 * frac, floor, final, traits) or a preset (its row for the pair, in blocks
 * of the shape's K).  0, or -1 with a ValueError. */
int fpref_py_resolve_model(const char *model_name, const struct fpref_format *in_a, const struct fpref_format *in_b,
			 const struct fpref_format *outp, Py_ssize_t promote, Py_ssize_t block, Py_ssize_t frac,
			 PyObject *floor_obj, const char *final, const char *shape, const char *traits,
			 struct fpref_accum_model *am)
{
	memset(am, 0, sizeof *am);
	enum fpref_sum_order order = FPREF_SUM_RECURSIVE;
	bool plain = fpref_sum_order_parse(model_name, &order) == 0, exact = strcmp(model_name, "exact") == 0;
	struct fpref_format in_a_v = *in_a, in_b_v = *in_b, out = *outp;
	char err[256], pair[160];
	describe_pair(&in_a_v, &in_b_v, pair, sizeof pair);
	struct fpref_tc_model model;
	memset(&model, 0, sizeof model);
	if (plain || exact) {
		if (promote > 0) {
			PyErr_SetString(PyExc_ValueError, "promote needs a tensor-core model");
			return -1;
		}
		if (out.man_bits > FPREF_OP_MAX_MAN_BITS) {
			PyErr_Format(PyExc_ValueError, "%s has %d fraction bits; accumulators of up to %d compute",
				     out.name, out.man_bits, FPREF_OP_MAX_MAN_BITS);
			return -1;
		}
	} else if (strcmp(model_name, "generic") == 0) {
		long floor = FPREF_TC_NO_FLOOR;
		if (floor_obj != Py_None) {
			floor = PyLong_AsLong(floor_obj);
			if (PyErr_Occurred())
				return -1;
		}
		enum fpref_rounding r;
		if (fpref_rounding_parse(final, &r) != 0) {
			PyErr_Format(PyExc_ValueError, "bad final rounding '%s' (rtz or rne)", final);
			return -1;
		}
		if (block < 1 || frac < 1) {
			PyErr_SetString(PyExc_ValueError, "model='generic' needs block=N (products per block) and frac=F "
							  "(fraction bits kept)");
			return -1;
		}
		if (fpref_tc_model_custom((int)block, (int)frac, (int)floor, r, &model, err, sizeof err) != 0 ||
		    (traits && fpref_tc_model_traits(&model, traits, err, sizeof err) != 0)) {
			PyErr_Format(PyExc_ValueError, "model='generic': %s", err);
			return -1;
		}
	} else if (fpref_tc_fma_find(model_name, &in_a_v)) { /* an FMA-chain instruction: the plain FMA chain */
		if (block > 0 || promote > 0 || traits) {
			PyErr_Format(PyExc_ValueError, "the %s model's %s instructions are FMA chains: no block, promote or "
						       "traits", model_name, in_a_v.name);
			return -1;
		}
		if (fpref_tc_fma_model(fpref_tc_fma_find(model_name, &in_a_v), &in_a_v, &in_b_v, &out, shape, am, err,
				       sizeof err) != 0) {
			PyErr_SetString(PyExc_ValueError, err);
			return -1;
		}
		return 0;
	} else {
		const struct fpref_tc_model *row = find_pair(model_name, &in_a_v, &in_b_v);
		if (!row)
			return -1;
		if (block > 0) {
			PyErr_Format(PyExc_ValueError, "block is part of the %s model (%d); use model='generic' to change it",
				     model_name, row->block);
			return -1;
		}
		model = *row;
		if (apply_shape(&model, &out, shape) != 0)
			return -1;
	}
	if (traits && strcmp(model_name, "generic") != 0) {
		PyErr_Format(PyExc_ValueError, "traits describe model='generic'; the %s model's conventions are its own",
			     model_name);
		return -1;
	}
	if (shape && (plain || exact || strcmp(model_name, "generic") == 0)) {
		PyErr_Format(PyExc_ValueError, "shape chains a preset's instruction; model='%s' has none", model_name);
		return -1;
	}
	for (int k = 0; k < 2 && !plain && !exact; k++) {
		const struct fpref_format *f = k ? &in_b_v : &in_a_v;
		if (!fpref_tc_input_ok(f)) {
			PyErr_Format(PyExc_ValueError,
				     "tensor-core models take signed inputs of at most 10 fraction bits, not %s", f->name);
			return -1;
		}
		if (!fpref_tc_output_ok(&model, f, &out)) {
			PyErr_Format(PyExc_ValueError, "the %s tensor core has no %s output for %s inputs", model.gpu,
				     out.name, pair);
			return -1;
		}
	}
	if (promote > 0 && !fpref_format_is(&out, FPREF_FORMAT_FLOAT32)) {
		PyErr_SetString(PyExc_ValueError, "promote needs out='float32'");
		return -1;
	}
	char why[256];
	if (promote > 0 && !plain && !exact && !fpref_tc_promote_ok(&model, pair, why, sizeof why)) {
		PyErr_Format(PyExc_ValueError, "promote: %s", why);
		return -1;
	}
	if (promote > 0 && !plain && !exact && fpref_tc_lowered(&model, &out)) {
		PyErr_Format(PyExc_ValueError, "promote: the %s model lowers %s inputs to FP16 instructions; promotion is "
					       "modelled only for the native unit (try h100-wgmma)", model.gpu, pair);
		return -1;
	}
	am->kind = plain ? FPREF_ACCUM_PLAIN : exact ? FPREF_ACCUM_EXACT : FPREF_ACCUM_TC;
	am->tc = model;
	am->order = order;
	am->block = block > 0 ? (size_t)block : 32;
	am->promote = (size_t)(promote > 0 ? promote : 0);
	return 0;
}

PyObject *py_gemm(PyObject *self, PyObject *args)
{
	(void)self;
	const char *model_name, *in_a_name, *in_b_name, *out_name, *final;
	Py_ssize_t M, N, K, promote, block, frac;
	PyObject *c_obj, *floor_obj;
	Py_buffer A, B, C, D;
	bool have_c = false;
	struct env_args ea;
	int rows, bounds;
	const char *shape = NULL, *traits = NULL;
	if (!PyArg_ParseTuple(args, "ssssnnny*y*Ow*nnnOspp" ENV_FORMAT "|zz", &model_name, &in_a_name, &in_b_name, &out_name,
			      &M, &N, &K, &A, &B, &c_obj, &D, &promote, &block, &frac, &floor_obj, &final, &rows, &bounds,
			      ENV_REFS(ea), &shape, &traits))
		return NULL;
	struct fpref_env env;
	PyObject *result = NULL;
	struct fpref_format in_a, in_b, out;
	struct fpref_accum_model am;
	char pair[160];
	if (fpref_py_get_format(in_a_name, &in_a) != 0 || fpref_py_get_format(in_b_name, &in_b) != 0 ||
	    fpref_py_get_format(out_name, &out) != 0 || fpref_py_make_env(&ea, NULL, &out, &env) != 0 ||
	    fpref_py_resolve_model(model_name, &in_a, &in_b, &out, promote, block, frac, floor_obj, final, shape, traits, &am) != 0)
		goto done;
	describe_pair(&in_a, &in_b, pair, sizeof pair);
	bool plain = am.kind == FPREF_ACCUM_PLAIN, exact = am.kind == FPREF_ACCUM_EXACT;
	enum fpref_sum_order order = am.order;
	struct fpref_tc_model model = am.tc;
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
		rc = bound_elements(&model, plain, exact, order, plain_block, (size_t)(promote > 0 ? promote : 0), &in_a,
				    &in_b, &out, &env, rows, (size_t)M, (size_t)N, (size_t)K, A.buf, B.buf, have_c ? C.buf : NULL,
				    D.buf);
	else if (rows)
		rc = dot_rows(&model, plain, exact, order, plain_block, (size_t)(promote > 0 ? promote : 0), &in_a, &in_b,
			      &out, &env, (size_t)M, (size_t)K, A.buf, B.buf, have_c ? C.buf : NULL, D.buf);
	else if (plain || exact)
		rc = plain_gemm(exact, order, plain_block, &in_a, &in_b, &out, &env, (size_t)M, (size_t)N, (size_t)K, A.buf,
				B.buf, have_c ? C.buf : NULL, D.buf);
	else
		rc = fpref_emu_tc_gemm(&model, &in_a, &in_b, &out, (size_t)M, (size_t)N, (size_t)K, A.buf, B.buf,
				   have_c ? C.buf : NULL, (size_t)(promote > 0 ? promote : 0), D.buf);
	Py_END_ALLOW_THREADS
	if (rc == -2) {
		PyErr_NoMemory();
		goto done;
	}
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "%s failed: an invalid pattern of %s in A or B, or of %s in C%s",
			     bounds ? "the bound" : "fpref_emu_tc_gemm", pair, out.name,
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

/* dot_scaled(model, inp_a, inp_b, out, R, K, A, B, C|None, D, SA, SB, every,
 * scale_format) -> description: the R dot products of the rows of A and
 * B (R x K uint64 patterns) with block scales, SA and SB R x
 * ceil(K / every) patterns of scale_format, by a tensor-core preset
 * (fpref_golden_model_dot_scaled, as fpref dot --scale-a runs it). */
PyObject *py_dot_scaled(PyObject *self, PyObject *args)
{
	(void)self;
	const char *model_name, *in_a_name, *in_b_name, *out_name, *scale_name;
	Py_ssize_t R, K, every;
	PyObject *c_obj;
	Py_buffer A, B, C, D, SA, SB;
	bool have_c = false;
	const char *shape = NULL;
	if (!PyArg_ParseTuple(args, "ssssnny*y*Ow*y*y*ns|z", &model_name, &in_a_name, &in_b_name, &out_name, &R, &K, &A, &B,
			      &c_obj, &D, &SA, &SB, &every, &scale_name, &shape))
		return NULL;
	PyObject *result = NULL;
	struct fpref_format in_a, in_b, out, sf;
	struct fpref_accum_model m;
	memset(&m, 0, sizeof m);
	char err[256], pair[160];
	if (fpref_py_get_format(in_a_name, &in_a) != 0 || fpref_py_get_format(in_b_name, &in_b) != 0 ||
	    fpref_py_get_format(out_name, &out) != 0 || fpref_py_get_format(scale_name, &sf) != 0)
		goto done;
	describe_pair(&in_a, &in_b, pair, sizeof pair);
	const struct fpref_tc_model *row = find_pair(model_name, &in_a, &in_b);
	if (!row)
		goto done;
	m.kind = FPREF_ACCUM_TC;
	m.tc = *row;
	if (apply_shape(&m.tc, &out, shape) != 0)
		goto done;
	if (!fpref_tc_output_ok(row, &in_a, &out) || !fpref_tc_output_ok(row, &in_b, &out)) {
		PyErr_Format(PyExc_ValueError, "the %s tensor core has no %s output for %s inputs", row->gpu, out.name,
			     pair);
		goto done;
	}
	if (every < 1) {
		PyErr_SetString(PyExc_ValueError, "scale_every must be positive");
		goto done;
	}
	size_t chunks = ((size_t)K + (size_t)every - 1) / (size_t)every;
	uint64_t none = 0;
	struct fpref_tc_scales probe = { &sf, &none, &none, (size_t)every };
	if (!fpref_golden_model_scales_ok(&m, &in_a, &in_b, &out, &probe, err, sizeof err)) {
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
		rc = fpref_golden_model_dot_scaled(&m, &in_a, &in_b, a + r * (size_t)K, b + r * (size_t)K, (size_t)K, &s,
						   c ? c[r] : zero, &out, &env, &d[r]);
	}
	Py_END_ALLOW_THREADS
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "an invalid pattern of %s in a or b, of %s in c, or of %s in the scales",
			     pair, out.name, sf.name);
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

/* The a priori bound of every element of D = A B + C with block scales
 * (fpref_ref_tc_bound_scaled), each rounded up to a double; B's column
 * and its scales gathered, since the bound reads one dot's operands. */
static int bound_scaled_elements(const struct fpref_tc_model *m, const struct fpref_format *in_a,
				 const struct fpref_format *in_b, const struct fpref_format *out,
				 const struct fpref_format *sf, size_t every, size_t M, size_t N, size_t K,
				 const uint64_t *A, const uint64_t *B, const uint64_t *SA, const uint64_t *SB,
				 const uint64_t *C, double *D)
{
	size_t chunks = (K + every - 1) / every;
	uint64_t *col = malloc((K ? K : 1) * sizeof *col), *scol = malloc((chunks ? chunks : 1) * sizeof *scol);
	if (!col || !scol) {
		free(col);
		free(scol);
		return -2;
	}
	mpfr_t bound;
	mpfr_init2(bound, 64);
	uint64_t zero = fpref_format_zero_bits(out, false);
	int rc = 0;
	for (size_t j = 0; j < N && rc == 0; j++) {
		for (size_t k = 0; k < K; k++)
			col[k] = B[k * N + j];
		for (size_t t = 0; t < chunks; t++)
			scol[t] = SB[t * N + j];
		for (size_t i = 0; i < M && rc == 0; i++) {
			struct fpref_tc_scales s = { sf, SA + i * chunks, scol, every };
			rc = fpref_ref_tc_bound_scaled(m, in_a, in_b, A + i * K, col, K, &s, C ? C[i * N + j] : zero, out, 0,
						       bound);
			D[i * N + j] = mpfr_get_d(bound, MPFR_RNDU);
		}
	}
	mpfr_clear(bound);
	free(col);
	free(scol);
	return rc;
}

/* gemm_scaled(model, inp_a, inp_b, out, M, N, K, A, B, C|None, D, SA, SB, every,
 * scale_format[, bounds]) -> description: D = A B + C (uint64 patterns,
 * row-major) with block scales, SA M x ceil(K / every) and SB
 * ceil(K / every) x N patterns of scale_format, by a tensor-core preset
 * (fpref_emu_tc_gemm_scaled_threads, as fpref gemm --scale-a runs it);
 * bounds: D is float64, each element's a priori bound instead. */
PyObject *py_gemm_scaled(PyObject *self, PyObject *args)
{
	(void)self;
	const char *model_name, *in_a_name, *in_b_name, *out_name, *scale_name;
	Py_ssize_t M, N, K, every;
	PyObject *c_obj;
	Py_buffer A, B, C, D, SA, SB;
	bool have_c = false;
	int bounds = 0;
	const char *shape = NULL;
	if (!PyArg_ParseTuple(args, "ssssnnny*y*Ow*y*y*ns|pz", &model_name, &in_a_name, &in_b_name, &out_name, &M, &N, &K, &A,
			      &B, &c_obj, &D, &SA, &SB, &every, &scale_name, &bounds, &shape))
		return NULL;
	PyObject *result = NULL;
	struct fpref_format in_a, in_b, out, sf;
	struct fpref_accum_model m;
	memset(&m, 0, sizeof m);
	char err[256], pair[160];
	if (fpref_py_get_format(in_a_name, &in_a) != 0 || fpref_py_get_format(in_b_name, &in_b) != 0 ||
	    fpref_py_get_format(out_name, &out) != 0 || fpref_py_get_format(scale_name, &sf) != 0)
		goto done;
	describe_pair(&in_a, &in_b, pair, sizeof pair);
	const struct fpref_tc_model *row = find_pair(model_name, &in_a, &in_b);
	if (!row)
		goto done;
	m.kind = FPREF_ACCUM_TC;
	m.tc = *row;
	if (apply_shape(&m.tc, &out, shape) != 0)
		goto done;
	if (!fpref_tc_output_ok(row, &in_a, &out) || !fpref_tc_output_ok(row, &in_b, &out)) {
		PyErr_Format(PyExc_ValueError, "the %s tensor core has no %s output for %s inputs", row->gpu, out.name,
			     pair);
		goto done;
	}
	if (every < 1) {
		PyErr_SetString(PyExc_ValueError, "scale_every must be positive");
		goto done;
	}
	size_t chunks = ((size_t)K + (size_t)every - 1) / (size_t)every;
	uint64_t none = 0;
	struct fpref_tc_scales probe = { &sf, &none, &none, (size_t)every };
	if (!fpref_golden_model_scales_ok(&m, &in_a, &in_b, &out, &probe, err, sizeof err)) {
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
	if (bounds)
		rc = bound_scaled_elements(&m.tc, &in_a, &in_b, &out, &sf, (size_t)every, (size_t)M, (size_t)N, (size_t)K,
					   A.buf, B.buf, SA.buf, SB.buf, have_c ? C.buf : NULL, D.buf);
	else
		rc = fpref_emu_tc_gemm_scaled_threads(&m.tc, &in_a, &in_b, &out, (size_t)M, (size_t)N, (size_t)K, A.buf,
						      B.buf, &s, have_c ? C.buf : NULL, D.buf, 1);
	Py_END_ALLOW_THREADS
	if (rc == -2) {
		PyErr_NoMemory();
		goto done;
	}
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "an invalid pattern of %s in A or B, of %s in C, or of %s in the scales",
			     pair, out.name, sf.name);
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

PyObject *py_models(PyObject *self, PyObject *noargs)
{
	(void)self;
	(void)noargs;
	size_t n = fpref_tc_model_count();
	PyObject *list = PyList_New(0);
	if (!list)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct fpref_tc_model *m = fpref_tc_model_at(i);
		PyObject *row = Py_BuildValue("{s:s,s:s,s:i,s:i,s:s,s:O,s:O}", "gpu", m->gpu, "inputs", m->inputs ? m->inputs : "",
					      "block", m->block, "frac", m->frac, "fp16_inputs",
					      m->fp16_inputs ? m->fp16_inputs : "", "fma_chain", Py_False, "fused",
					      m->fused ? Py_True : Py_False);
		if (!row || PyList_Append(list, row) != 0) {
			Py_XDECREF(row);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(row);
	}
	/* The FMA-chain presets (dmma, CDNA's f32 and f64 instructions): no
	 * block and no fraction width (None), one input that is also the
	 * output. */
	for (size_t i = 0; fpref_tc_fma_at(i); i++) {
		const struct fpref_tc_fma_row *r = fpref_tc_fma_at(i);
		PyObject *row = Py_BuildValue("{s:s,s:s,s:O,s:O,s:s,s:O,s:O}", "gpu", r->gpu, "inputs", r->input, "block",
					      Py_None, "frac", Py_None, "fp16_inputs", "", "fma_chain", Py_True, "fused", Py_False);
		if (!row || PyList_Append(list, row) != 0) {
			Py_XDECREF(row);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(row);
	}
	return list;
}

/* A gemm summary (fpref_golden_gemm_summarize) as a dict, as verify-gemm's
 * JSON gives it. */
static PyObject *summary_dict(const struct fpref_gemm_stats *st)
{
	struct fpref_gemm_summary s;
	fpref_golden_gemm_summarize(st, &s);
	return Py_BuildValue("{s:d,s:d,s:d,s:d,s:d,s:d,s:n,s:n,s:n}", "max_abs", s.max_abs, "normwise_rel", s.normwise_rel,
			     "max_rel", s.max_rel, "max_ulps", s.max_ulps, "mean_ulps", s.mean_ulps,
			     "error_over_bound_max", s.error_over_bound_max, "above_bound", (Py_ssize_t)s.above_bound,
			     "with_bound", (Py_ssize_t)s.with_bound, "nonfinite", (Py_ssize_t)s.nonfinite);
}

static PyObject *verdict_dict(const struct fpref_gemm_verdict *v, const struct fpref_format *out, const char *desc,
			      PyObject *text)
{
	PyObject *kinds = PyDict_New(), *worst = PyList_New(0);
	for (int k = 0; kinds && k < FPREF_MISMATCH_COUNT; k++) {
		PyObject *n = v->by_kind[k] ? PyLong_FromSize_t(v->by_kind[k]) : NULL;
		if (n && PyDict_SetItemString(kinds, fpref_golden_mismatch_name((enum fpref_mismatch)k), n) != 0)
			Py_CLEAR(kinds);
		Py_XDECREF(n);
	}
	for (size_t i = 0; worst && i < v->nworst; i++) {
		const struct fpref_gemm_case *c = &v->worst[i];
		char m[32], k[32];
		fpref_format_hex(out, c->model, m, sizeof m);
		fpref_format_hex(out, c->kernel, k, sizeof k);
		PyObject *row = Py_BuildValue("{s:n,s:n,s:s,s:s,s:s,s:d,s:d,s:d,s:d}", "row", (Py_ssize_t)c->row, "col",
					      (Py_ssize_t)c->col, "model", m, "kernel", k, "kind",
					      fpref_golden_mismatch_name(c->kind), "ulps", c->ulps, "kernel_error", c->kernel_abs,
					      "model_error", c->model_abs, "bound", c->bound);
		if (!row || PyList_Append(worst, row) != 0)
			Py_CLEAR(worst);
		Py_XDECREF(row);
	}
	PyObject *model_error = summary_dict(&v->model_error), *kernel_error = summary_dict(&v->kernel_error);
	PyObject *d = NULL;
	if (kinds && worst && model_error && kernel_error)
		d = Py_BuildValue("{s:s,s:n,s:n,s:n,s:n,s:O,s:n,s:O,s:O,s:O,s:O}", "model", desc, "elements",
				  (Py_ssize_t)v->elements, "matches", (Py_ssize_t)v->matches, "within", (Py_ssize_t)v->within,
				  "outside", (Py_ssize_t)v->outside, "mismatches", kinds, "kernel_above_bound",
				  (Py_ssize_t)v->kernel_above_bound, "model_error", model_error, "kernel_error", kernel_error,
				  "worst", worst, "text", text);
	Py_XDECREF(kinds);
	Py_XDECREF(worst);
	Py_XDECREF(model_error);
	Py_XDECREF(kernel_error);
	return d;
}

/* verify_gemm(model, inp_a, inp_b, out, M, N, K, A, B, C|None, D, promote,
 * block, frac, floor|None, final, env..., shape|None, traits|None,
 * tol_ulps, tol_rel, show, threads, SA|None, SB|None, every, scale_format)
 * -> dict: a kernel's D judged against the model's D with both against the
 * exact product and the model's bound (fpref_golden_gemm_verify, as fpref
 * verify-gemm runs it); tolerances < 0: none. */
PyObject *py_verify_gemm(PyObject *self, PyObject *args)
{
	(void)self;
	const char *model_name, *in_a_name, *in_b_name, *out_name, *final, *shape, *traits, *scale_name;
	Py_ssize_t M, N, K, promote, block, frac, show, threads, every;
	double tol_ulps, tol_rel;
	PyObject *c_obj, *floor_obj, *sa_obj, *sb_obj;
	Py_buffer A, B, C, D, SA, SB;
	bool have_c = false, have_s = false;
	struct env_args ea;
	if (!PyArg_ParseTuple(args, "ssssnnny*y*Oy*nnnOs" ENV_FORMAT "zzddnnOOns", &model_name, &in_a_name, &in_b_name,
			      &out_name, &M, &N, &K, &A, &B, &c_obj, &D, &promote, &block, &frac, &floor_obj, &final,
			      ENV_REFS(ea), &shape, &traits, &tol_ulps, &tol_rel, &show, &threads, &sa_obj, &sb_obj, &every,
			      &scale_name))
		return NULL;
	PyObject *result = NULL;
	struct fpref_env env;
	struct fpref_format in_a, in_b, out, sf;
	struct fpref_accum_model am;
	if (fpref_py_get_format(in_a_name, &in_a) != 0 || fpref_py_get_format(in_b_name, &in_b) != 0 ||
	    fpref_py_get_format(out_name, &out) != 0 || fpref_py_get_format(scale_name, &sf) != 0 ||
	    fpref_py_make_env(&ea, NULL, &out, &env) != 0 ||
	    fpref_py_resolve_model(model_name, &in_a, &in_b, &out, promote, block, frac, floor_obj, final, shape, traits, &am) != 0)
		goto done;
	if (c_obj != Py_None) {
		if (PyObject_GetBuffer(c_obj, &C, PyBUF_SIMPLE) != 0)
			goto done;
		have_c = true;
		if (check_elements(&C, 8, (size_t)(M * N), "C") != 0)
			goto done;
	}
	size_t chunks = every > 0 ? ((size_t)K + (size_t)every - 1) / (size_t)every : 0;
	if (sa_obj != Py_None) {
		if (PyObject_GetBuffer(sa_obj, &SA, PyBUF_SIMPLE) != 0)
			goto done;
		if (PyObject_GetBuffer(sb_obj, &SB, PyBUF_SIMPLE) != 0) {
			PyBuffer_Release(&SA);
			goto done;
		}
		have_s = true;
		if (check_elements(&SA, 8, (size_t)M * chunks, "scale_a") != 0 ||
		    check_elements(&SB, 8, chunks * (size_t)N, "scale_b") != 0)
			goto done;
	}
	if (check_elements(&A, 8, (size_t)(M * K), "A") != 0 || check_elements(&B, 8, (size_t)(K * N), "B") != 0 ||
	    check_elements(&D, 8, (size_t)(M * N), "D") != 0)
		goto done;
	struct fpref_tc_gemm_scales scales = { &sf, have_s ? SA.buf : NULL, have_s ? SB.buf : NULL, (size_t)every };
	char err[512], desc[512];
	if (have_s) {
		uint64_t none = 0;
		struct fpref_tc_scales probe = { &sf, &none, &none, (size_t)every };
		if (!fpref_golden_model_scales_ok(&am, &in_a, &in_b, &out, &probe, err, sizeof err)) {
			PyErr_Format(PyExc_ValueError, "scales: %s", err);
			goto done;
		}
	}
	struct fpref_gemm_problem p = { .M = (size_t)M, .N = (size_t)N, .K = (size_t)K, .src = &in_a, .in_a = &in_a,
					.in_b = &in_b, .out = &out, .A = A.buf, .B = B.buf, .Aq = A.buf, .Bq = B.buf,
					.C = have_c ? C.buf : NULL, .model = &am, .env = &env,
					.threads = (unsigned)(threads > 0 ? threads : 1), .scales = have_s ? &scales : NULL };
	struct fpref_verify_options vo = { tol_ulps, tol_rel, (size_t)(show > 0 ? show : 0), NULL, NULL };
	struct fpref_gemm_verdict v;
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = fpref_golden_gemm_verify(&p, D.buf, &vo, &v, NULL, NULL, err, sizeof err);
	Py_END_ALLOW_THREADS
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "%s", err);
		goto done;
	}
	fpref_golden_model_describe(&am, out.name, desc, sizeof desc);
	/* fpref verify-gemm's words (golden/gemm_text.c), for str() */
	char *text_buf = NULL;
	size_t text_len = 0;
	FILE *mem = open_memstream(&text_buf, &text_len);
	if (mem) {
		fpref_golden_gemm_verdict_print(mem, &p, &v, desc, "scale_a", "scale_b", NULL);
		fclose(mem);
	}
	PyObject *text = text_buf ? PyUnicode_FromStringAndSize(text_buf, (Py_ssize_t)text_len) : PyErr_NoMemory();
	free(text_buf);
	if (text)
		result = verdict_dict(&v, &out, desc, text);
	Py_XDECREF(text);
	fpref_golden_gemm_verdict_free(&v);
done:
	PyBuffer_Release(&A);
	PyBuffer_Release(&B);
	PyBuffer_Release(&D);
	if (have_c)
		PyBuffer_Release(&C);
	if (have_s) {
		PyBuffer_Release(&SA);
		PyBuffer_Release(&SB);
	}
	return result;
}
