/* The scaling recipes: the emulator (emu/scale.c) against the oracle
 * (ref/scale.c) bit for bit on seeded and structured tensors, worked
 * examples whose expected values come from the recipes' documents, and the
 * quantisation report on hand-worked figures. */
#include <string.h>

#include "testutil.h"
#include "fpref_emu_quant_report.h"
#include "fpref_emu_scale.h"
#include "fpref_ref_scale.h"

#define F32_NAN 0x7FC00000u
#define F32_INF 0x7F800000u
#define F32_MIN_SUB 0x00000001u

static const char *const targets[] = { "float8_e4m3fn", "float8_e5m2" };

/* FP32 bits of a value the C compiler writes exactly (powers of two and
 * short binary fractions only). */
static uint32_t bits_of(float v)
{
	uint32_t b;
	memcpy(&b, &v, sizeof b);
	return b;
}

/* A seeded tensor of n normal values times 2^scale_log2, with structured
 * elements written over it: kind selects which. */
enum shape_kind { PLAIN, WITH_NAN, WITH_INF, ALL_ZERO, ALL_TINY, WITH_SUBNORMALS, WITH_TIES, KINDS };

static void make_tensor(enum shape_kind kind, int scale_log2, uint64_t seed, uint32_t *x, size_t n)
{
	struct fpref_format f32 = test_format("float32");
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t *tmp = malloc(n * sizeof *tmp);
	ck_assert_ptr_nonnull(tmp);
	fpref_emu_random(&f32, &env, FPREF_DIST_NORMAL, scale_log2, seed, 0, n, tmp);
	for (size_t i = 0; i < n; i++)
		x[i] = (uint32_t)tmp[i];
	free(tmp);
	for (size_t i = 0; i < n; i++) {
		if (kind == ALL_ZERO)
			x[i] = i % 2 ? 0x80000000u : 0;
		else if (kind == ALL_TINY)
			x[i] = (i % 3 ? 0 : F32_MIN_SUB) | (i % 2 ? 0x80000000u : 0);
		else if (kind == WITH_NAN && i % 37 == 5)
			x[i] = F32_NAN;
		else if (kind == WITH_INF && i % 41 == 7)
			x[i] = F32_INF | (i % 2 ? 0x80000000u : 0);
		else if (kind == WITH_SUBNORMALS && i % 3 == 0)
			x[i] = (uint32_t)(i * 2654435761u) & 0x807FFFFFu;
		else if (kind == WITH_TIES && i % 5 == 0)
			x[i] = bits_of(i % 2 ? 464.0f : -13.0f); /* 464: the E4M3 tie between 448 and 480 */
	}
}

/* One assertion for the array (Check records every passing assertion):
 * the first element that differs. */
static void assert_same_bytes(const uint8_t *a, const uint8_t *b, size_t n, const char *what)
{
	size_t i = 0;
	while (i < n && a[i] == b[i])
		i++;
	ck_assert_msg(i == n, "%s: element %zu: emu 0x%02X, ref 0x%02X", what, i, i < n ? a[i] : 0, i < n ? b[i] : 0);
}

static void assert_same_words(const uint32_t *a, const uint32_t *b, size_t n, const char *what)
{
	size_t i = 0;
	while (i < n && a[i] == b[i])
		i++;
	ck_assert_msg(i == n, "%s: element %zu: emu 0x%08X, ref 0x%08X", what, i, i < n ? a[i] : 0, i < n ? b[i] : 0);
}

/* ---- current scaling ---- */

static const int magnitudes[] = { -140, -20, 0, 7, 60, 126 };
#define NMAG (sizeof magnitudes / sizeof magnitudes[0])

START_TEST(current_emu_against_ref)
{
	/* _i: amax NaN policy x target x pow2 x eps x kind x magnitude */
	int i = _i;
	enum fpref_amax_nan policy = (enum fpref_amax_nan)(i / (8 * KINDS * (int)NMAG));
	int mag = magnitudes[i % (int)NMAG];
	i /= (int)NMAG;
	enum shape_kind kind = (enum shape_kind)(i % KINDS);
	i /= KINDS;
	bool eps = i % 2;
	bool pow2 = (i / 2) % 2;
	struct fpref_format element = test_format(targets[(i / 4) % 2]);
	struct fpref_current_params p = { &element, pow2, eps ? bits_of(0x1p-100f) : 0, policy };
	enum { N = 257 };
	uint32_t x[N], ea, es, esi, ra, rs, rsi, edq[N], rdq[N];
	uint8_t ec[N], rc[N];
	char err[256];
	make_tensor(kind, mag, (uint64_t)_i, x, N);
	ck_assert_int_eq(fpref_emu_current_quantize(&p, x, N, ec, &ea, &es, &esi, err, sizeof err), 0);
	ck_assert_int_eq(fpref_ref_current_quantize(&p, x, N, rc, &ra, &rs, &rsi, err, sizeof err), 0);
	ck_assert_uint_eq(ea, ra);
	ck_assert_msg(es == rs, "scale: emu 0x%08X ref 0x%08X (amax 0x%08X)", es, rs, ea);
	ck_assert_uint_eq(esi, rsi);
	assert_same_bytes(ec, rc, N, "codes");
	ck_assert_int_eq(fpref_emu_dequantize_scaled(&element, ec, N, esi, edq, err, sizeof err), 0);
	ck_assert_int_eq(fpref_ref_dequantize_scaled(&element, rc, N, rsi, rdq, err, sizeof err), 0);
	assert_same_words(edq, rdq, N, "dequant");
}
END_TEST

/* compute_scale_from_amax on patterns from every class: random words,
 * neighbours of the overflow threshold of fp8_max / amax, and specials. */
START_TEST(te_scale_emu_against_ref)
{
	struct fpref_format element = test_format(targets[_i % 2]);
	static const uint32_t eps_cases[] = { 0, 0x00000001u, 0x3A800000u, 0x7F7FFFFFu };
	for (uint32_t k = 0; k < 20000; k++) {
		uint32_t amax = (k * 2654435761u) ^ (k << 7);
		if (k < 64)
			amax = (uint32_t[]){ 0, 0x80000000u, F32_INF, F32_NAN, 0x7F7FFFFFu, 1, 0x00800000u,
					     0x007FFFFFu }[k % 8];
		else if (k < 2000) /* around fp8_max / FLT_MAX and the scale's overflow edge */
			amax = (k % 2 ? 0x01000000u : 0x00200000u) + (k - 64) * 977u;
		uint32_t eps = eps_cases[(k / 8) % 4];
		for (int pow2 = 0; pow2 < 2; pow2++) {
			uint32_t e = 0, r = 0;
			ck_assert_int_eq(fpref_emu_te_scale(&element, amax, eps, pow2, &e), 0);
			ck_assert_int_eq(fpref_ref_te_scale(&element, amax, eps, pow2, &r), 0);
			ck_assert_msg(e == r, "amax 0x%08X eps 0x%08X pow2 %d: emu 0x%08X ref 0x%08X", amax, eps, pow2, e,
				      r);
		}
	}
}
END_TEST

/* ---- delayed scaling ---- */

/* A sequence of steps: magnitudes that rise, fall, vanish and blow up. */
static void delayed_step_tensor(size_t t, uint64_t seed, uint32_t *x, size_t n)
{
	static const int mag[] = { 0, 3, -2, 9, 0, -30, 12, -126, 100, 5, 0, -8 };
	enum shape_kind kind = t % 11 == 4 ? ALL_ZERO : t % 13 == 6 ? WITH_NAN : t % 17 == 8 ? WITH_INF
			     : t % 7 == 3 ? ALL_TINY : t % 5 == 2 ? WITH_SUBNORMALS : PLAIN;
	make_tensor(kind, mag[t % (sizeof mag / sizeof mag[0])], seed + t, x, n);
}

START_TEST(delayed_emu_against_ref)
{
	static const size_t lengths[] = { 1, 2, 5, 1024 };
	int i = _i;
	size_t L = lengths[i % 4];
	enum fpref_amax_algo algo = (i / 4) % 2 ? FPREF_AMAX_MOST_RECENT : FPREF_AMAX_MAX;
	int margin = (i / 8) % 2 ? 3 : 0;
	struct fpref_format element = test_format(targets[(i / 16) % 2]);
	struct fpref_delayed_params p = { &element, L, algo, margin, (enum fpref_amax_nan)(i / 32) };
	struct fpref_delayed_state se, sr;
	char err[256];
	ck_assert_int_eq(fpref_delayed_init(&se, &p, err, sizeof err), 0);
	ck_assert_int_eq(fpref_delayed_init(&sr, &p, err, sizeof err), 0);
	enum { N = 64, T = 60 };
	for (size_t t = 0; t < T; t++) {
		uint32_t x[N], eu, ru, ea, ra;
		uint8_t ec[N], rc[N];
		delayed_step_tensor(t, (uint64_t)_i * 1000u, x, N);
		ck_assert_int_eq(fpref_emu_delayed_step(&se, x, N, ec, &eu, &ea, err, sizeof err), 0);
		ck_assert_int_eq(fpref_ref_delayed_step(&sr, x, N, rc, &ru, &ra, err, sizeof err), 0);
		ck_assert_msg(eu == ru && ea == ra, "step %zu: scale_inv used 0x%08X/0x%08X amax 0x%08X/0x%08X", t, eu,
			      ru, ea, ra);
		assert_same_bytes(ec, rc, N, "codes");
		ck_assert_msg(se.scale == sr.scale, "step %zu: next scale emu 0x%08X ref 0x%08X", t, se.scale, sr.scale);
		ck_assert_uint_eq(se.scale_inv, sr.scale_inv);
		assert_same_words(se.history, sr.history, L, "history");
	}
	fpref_delayed_free(&se);
	fpref_delayed_free(&sr);
}
END_TEST

/* ---- tile and block scaling ---- */

START_TEST(blocks_emu_against_ref)
{
	/* _i: recipe/pow2 (3) x tile or block (2) x target (2; DeepSeek only E4M3) */
	int variant = _i % 3;
	bool tile = (_i / 3) % 2;
	struct fpref_format element = test_format(targets[(_i / 6) % 2]);
	if (variant == 0 && (_i / 6) % 2)
		return; /* DeepSeek-V3 is E4M3 only: the parameter check, tested below */
	struct fpref_block_params p = { &element, variant == 0 ? FPREF_BLOCK_DEEPSEEK : FPREF_BLOCK_TE,
					tile ? 1 : 128, 128, variant == 2, variant == 0 ? FPREF_F32_DEEPSEEK_EPS : 0,
					(enum fpref_amax_nan)(_i / 12) };
	/* partial blocks on both edges: 130 rows, 300 columns */
	size_t rows = tile ? 7 : 130, cols = 300, n = rows * cols;
	size_t nf = fpref_scale_blocks(rows, p.block_rows) * fpref_scale_blocks(cols, 128);
	uint32_t *x = malloc(n * 4), *ef = malloc(nf * 4), *rf = malloc(nf * 4), *edq = malloc(n * 4),
		 *rdq = malloc(n * 4);
	uint8_t *ec = malloc(n), *rc = malloc(n);
	ck_assert(x && ef && rf && edq && rdq && ec && rc);
	make_tensor(PLAIN, 0, (uint64_t)_i, x, n);
	/* one structure per block column band: NaN, inf, all zero, tiny, huge, ties, subnormal */
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++) {
			uint32_t *v = &x[r * cols + c];
			size_t band = (r / p.block_rows + c / 128) % 7;
			if (band == 1 && c % 50 == 3 && r % 3 == 0)
				*v = F32_NAN;
			else if (band == 2 && c % 60 == 1 && r % 2 == 0)
				*v = F32_INF | (c % 4 ? 0x80000000u : 0);
			else if (band == 3)
				*v = r % 5 == 0 && c % 7 == 0 ? F32_MIN_SUB : 0;
			else if (band == 4)
				*v = (*v & 0x807FFFFFu) | 0x7E000000u; /* near FLT_MAX: x / s and x * scale overflow edges */
			else if (band == 5 && c % 3 == 0)
				*v = bits_of(c % 2 ? 464.0f : 448.0f);
			else if (band == 6)
				*v = *v & 0x807FFFFFu; /* subnormals */
		}
	char err[256];
	ck_assert_int_eq(fpref_emu_block_quantize(&p, x, rows, cols, ec, ef, err, sizeof err), 0);
	ck_assert_int_eq(fpref_ref_block_quantize(&p, x, rows, cols, rc, rf, err, sizeof err), 0);
	assert_same_words(ef, rf, nf, "factors");
	assert_same_bytes(ec, rc, n, "codes");
	ck_assert_int_eq(fpref_emu_block_dequantize(&p, ec, ef, rows, cols, edq, err, sizeof err), 0);
	ck_assert_int_eq(fpref_ref_block_dequantize(&p, rc, rf, rows, cols, rdq, err, sizeof err), 0);
	assert_same_words(edq, rdq, n, "dequant");
	free(x);
	free(ef);
	free(rf);
	free(edq);
	free(rdq);
	free(ec);
	free(rc);
}
END_TEST

/* ---- worked examples: expected values from the documents ---- */

/* SEMANTICS.md / TE compute_scale_from_amax: amax 0, inf or NaN give scale
 * 1; an amax whose fp8_max / amax overflows gives FLT_MAX; TE's comment:
 * "448.0 / float_max == 1.31655e-36, which is the smallest possible scale". */
START_TEST(te_scale_documented_cases)
{
	struct fpref_format e4m3 = test_format("e4m3"), e5m2 = test_format("e5m2");
	uint32_t s;
	const uint32_t one = 0x3F800000u;
	for (int k = 0; k < 3; k++) {
		ck_assert_int_eq(fpref_emu_te_scale(&e4m3, (uint32_t[]){ 0, F32_INF, F32_NAN }[k], 0, false, &s), 0);
		ck_assert_uint_eq(s, one);
	}
	ck_assert_int_eq(fpref_emu_te_scale(&e4m3, F32_MIN_SUB, 0, false, &s), 0);
	ck_assert_uint_eq(s, 0x7F7FFFFFu);
	ck_assert_int_eq(fpref_emu_te_scale(&e4m3, 0x7F7FFFFFu, 0, false, &s), 0);
	float v;
	memcpy(&v, &s, sizeof v);
	ck_assert_msg(v > 1.316545e-36f && v < 1.316555e-36f, "448 / FLT_MAX = %g", (double)v);
	/* amax = fp8_max gives scale 1 for both targets */
	ck_assert_int_eq(fpref_emu_te_scale(&e4m3, bits_of(448.0f), 0, false, &s), 0);
	ck_assert_uint_eq(s, one);
	ck_assert_int_eq(fpref_emu_te_scale(&e5m2, bits_of(57344.0f), 0, false, &s), 0);
	ck_assert_uint_eq(s, one);
	/* amax below eps takes eps: amax 0 with eps 2^-10 gives 448 * 2^10 */
	ck_assert_int_eq(fpref_emu_te_scale(&e4m3, 0, bits_of(0x1p-10f), false, &s), 0);
	ck_assert_uint_eq(s, bits_of(458752.0f));
}
END_TEST

/* seed 003: "If your tensor's largest absolute value is 800 and E4M3's
 * ceiling is 448, every value above 448 saturates": per-tensor scaling maps
 * 800 onto 448 instead.  scale = 448 / 800 = 0.56, the float32 nearest
 * 0.56 being 0x3F0F5C29 (9395241 * 2^-24); with --pow2 it is 0.5. */
START_TEST(current_seed_example)
{
	struct fpref_format e4m3 = test_format("e4m3");
	uint32_t x[3] = { bits_of(800.0f), bits_of(-400.0f), bits_of(1.0f) };
	uint8_t c[3];
	uint32_t amax, scale, scale_inv;
	char err[256];
	struct fpref_current_params p = { &e4m3, false, 0, FPREF_AMAX_NAN_DEFAULT };
	ck_assert_int_eq(fpref_emu_current_quantize(&p, x, 3, c, &amax, &scale, &scale_inv, err, sizeof err), 0);
	ck_assert_uint_eq(amax, bits_of(800.0f));
	ck_assert_uint_eq(scale, 0x3F0F5C29u);
	/* 800 * 0.56000000238 = 448.0000019 -> 448 = 0x7E; -400 * s = -224.000001 -> -224 = 0xF6;
	 * 1 * s = 0.56 -> 0.5625 (0x31: 2^-1 * 1.125) */
	ck_assert_uint_eq(c[0], 0x7E);
	ck_assert_uint_eq(c[1], 0xF6);
	ck_assert_uint_eq(c[2], 0x31);
	p.pow2 = true;
	ck_assert_int_eq(fpref_emu_current_quantize(&p, x, 3, c, &amax, &scale, &scale_inv, err, sizeof err), 0);
	ck_assert_uint_eq(scale, bits_of(0.5f));
	ck_assert_uint_eq(scale_inv, bits_of(2.0f));
	ck_assert_uint_eq(c[0], 0x7C); /* 400 is the midpoint of 384 (0x7C) and 416 (0x7D): to even, 384 */
}
END_TEST

/* A NaN element: TE's amax kernels reduce with fmaxf, which passes over it,
 * so the scale comes from the other elements and the NaN quantises to
 * CUDA's 0x7F; torch.amax (DeepSeek's reference) gives NaN, so TE's rule
 * "amax NaN -> scale 1" applies. */
START_TEST(current_nan_element)
{
	struct fpref_format e4m3 = test_format("e4m3");
	uint32_t x[3] = { bits_of(2.0f), 0xFFC00000u, bits_of(-1.0f) }, amax, scale, scale_inv;
	uint8_t c[3];
	char err[256];
	struct fpref_current_params p = { &e4m3, false, 0, FPREF_AMAX_NAN_DEFAULT };
	ck_assert_int_eq(fpref_emu_current_quantize(&p, x, 3, c, &amax, &scale, &scale_inv, err, sizeof err), 0);
	ck_assert_uint_eq(amax, bits_of(2.0f));
	ck_assert_uint_eq(scale, bits_of(224.0f));
	ck_assert_uint_eq(c[0], 0x7E);
	ck_assert_uint_eq(c[1], 0x7F);
	ck_assert_uint_eq(c[2], 0xF6); /* -224 */
	p.amax_nan = FPREF_AMAX_NAN_PROPAGATE;
	ck_assert_int_eq(fpref_emu_current_quantize(&p, x, 3, c, &amax, &scale, &scale_inv, err, sizeof err), 0);
	ck_assert_uint_eq(amax, F32_NAN);
	ck_assert_uint_eq(scale, bits_of(1.0f));
	ck_assert_uint_eq(c[0], 0x40); /* 2 */
}
END_TEST

/* Delayed scaling by TE's formula: scale = (fp8_max * 2^-margin) / amax
 * over the history; amax 0 keeps the old scale; the first step uses 1. */
START_TEST(delayed_documented_sequence)
{
	struct fpref_format e4m3 = test_format("e4m3");
	const float amaxes[] = { 2.0f, 4.0f, 1.0f, 0.0f };
	const float want_max[] = { 224.0f, 112.0f, 112.0f, 112.0f };       /* history max: 2, 4, 4, 4 */
	const float want_recent[] = { 224.0f, 112.0f, 448.0f, 448.0f };    /* newest: 2, 4, 1, 0 (kept) */
	const float want_margin[] = { 56.0f, 28.0f, 28.0f, 28.0f };        /* 448 / 4 = 112 over the max */
	const float want_len1[] = { 224.0f, 112.0f, 448.0f, 448.0f };      /* L = 1 sees only the newest */
	struct {
		size_t L;
		enum fpref_amax_algo algo;
		int margin;
		const float *want;
	} cases[] = { { 1024, FPREF_AMAX_MAX, 0, want_max },
		      { 1024, FPREF_AMAX_MOST_RECENT, 0, want_recent },
		      { 1024, FPREF_AMAX_MAX, 2, want_margin },
		      { 1, FPREF_AMAX_MAX, 0, want_len1 } };
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct fpref_delayed_params p = { &e4m3, cases[k].L, cases[k].algo, cases[k].margin, FPREF_AMAX_NAN_DEFAULT };
		struct fpref_delayed_state s;
		char err[256];
		ck_assert_int_eq(fpref_delayed_init(&s, &p, err, sizeof err), 0);
		uint32_t used_prev = 0x3F800000u;
		for (int t = 0; t < 4; t++) {
			uint32_t x[2] = { bits_of(-amaxes[t]), bits_of(amaxes[t] / 2) }, used, amax;
			uint8_t c[2];
			ck_assert_int_eq(fpref_emu_delayed_step(&s, x, 2, c, &used, &amax, err, sizeof err), 0);
			ck_assert_uint_eq(amax, bits_of(amaxes[t]));
			ck_assert_uint_eq(used, used_prev);
			ck_assert_msg(s.scale == bits_of(cases[k].want[t]), "case %zu step %d: scale 0x%08X", k, t, s.scale);
			used_prev = s.scale_inv;
		}
		fpref_delayed_free(&s);
	}
}
END_TEST

/* TE's roll: [h0 h1 h2] with h0 the newest amax becomes [0 h2 h0]. */
START_TEST(delayed_history_roll)
{
	struct fpref_format e4m3 = test_format("e4m3");
	struct fpref_delayed_params p = { &e4m3, 3, FPREF_AMAX_MAX, 0, FPREF_AMAX_NAN_DEFAULT };
	struct fpref_delayed_state s;
	char err[256];
	ck_assert_int_eq(fpref_delayed_init(&s, &p, err, sizeof err), 0);
	s.history[1] = bits_of(8.0f);
	s.history[2] = bits_of(16.0f);
	uint32_t x[1] = { bits_of(4.0f) }, used;
	uint8_t c[1];
	ck_assert_int_eq(fpref_emu_delayed_step(&s, x, 1, c, &used, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.history[0], 0);
	ck_assert_uint_eq(s.history[1], bits_of(16.0f));
	ck_assert_uint_eq(s.history[2], bits_of(4.0f));
	ck_assert_uint_eq(s.scale, bits_of(28.0f)); /* 448 / max(8, 16, 4) */
	/* an inf amax with most_recent keeps the old scale */
	s.params.algo = FPREF_AMAX_MOST_RECENT;
	x[0] = F32_INF;
	ck_assert_int_eq(fpref_emu_delayed_step(&s, x, 1, c, &used, NULL, err, sizeof err), 0);
	ck_assert_uint_eq(s.scale, bits_of(28.0f));
	fpref_delayed_free(&s);
}
END_TEST

/* DeepSeek-V3: s = amax / 448 per 1x128 tile; a tile whose amax is 448 has
 * s = 1 and its codes are the plain E4M3 casts; amax 896 gives s = 2. */
START_TEST(deepseek_tiles_example)
{
	struct fpref_format e4m3 = test_format("e4m3");
	struct fpref_block_params p = { &e4m3, FPREF_BLOCK_DEEPSEEK, 1, 128, false, FPREF_F32_DEEPSEEK_EPS,
					FPREF_AMAX_NAN_DEFAULT };
	enum { COLS = 130 }; /* a full tile and a partial one of 2 */
	uint32_t x[2 * COLS], f[4];
	uint8_t c[2 * COLS];
	char err[256];
	for (size_t i = 0; i < 2 * COLS; i++)
		x[i] = 0;
	x[0] = bits_of(448.0f);
	x[1] = bits_of(-1.0f);
	x[128] = bits_of(896.0f); /* partial tile of row 0 */
	x[129] = bits_of(3.0f);
	/* row 1: all zero but one tiny value: amax clamps to 1e-4 */
	x[COLS + 5] = bits_of(0x1p-20f);
	ck_assert_int_eq(fpref_emu_block_quantize(&p, x, 2, COLS, c, f, err, sizeof err), 0);
	ck_assert_uint_eq(f[0], bits_of(1.0f));
	ck_assert_uint_eq(f[1], bits_of(2.0f));
	ck_assert_uint_eq(c[0], 0x7E);
	ck_assert_uint_eq(c[1], 0xB8); /* -1 */
	ck_assert_uint_eq(c[128], 0x7E);
	ck_assert_uint_eq(c[129], 0x3C); /* 3 / 2 = 1.5 */
	/* s = 1e-4f / 448 rounded to FP32; 2^-20 / s = 4.272..., past the midpoint 4.25 of 4 and 4.5: 4.5 (0x49) */
	ck_assert_uint_eq(c[COLS + 5], 0x49);
	/* DeepSeek is E4M3 only */
	struct fpref_format e5m2 = test_format("e5m2");
	p.element = &e5m2;
	ck_assert_int_eq(fpref_emu_block_quantize(&p, x, 2, COLS, c, f, err, sizeof err), -1);
}
END_TEST

/* ---- against hardware ----
 * tests/data/scale-h200.bin was written by an NVIDIA H200 (sm_90) running
 * the recipes with the GPU's own arithmetic: amax by fmaxf, __fdiv_rn,
 * __fmul_rn, and __nv_cvt_float_to_fp8(..., __NV_SATFINITE, ...).  T = 256
 * tensors of N = 128 FP32 patterns from the hash below, exponents spread
 * over every binade (subnormals, inf and NaN included).  Tensor t: TE
 * current scaling to E5M2 when t & 2 else E4M3, power-of-two scale when
 * t & 1; and a DeepSeek 1x128 tile, s = max(amax, 1e-4f) / 448, E4M3.
 * Layout: TE codes (T*N), TE scales (T words), DeepSeek codes (T*N),
 * DeepSeek s (T words), little-endian.  tests/data/scale-h200.cu wrote it. */
enum { HW_T = 256, HW_N = 128 };

static uint32_t hw_hash(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static void hw_tensor(uint32_t t, uint32_t *x)
{
	uint32_t e = hw_hash(t) % 256;
	for (uint32_t i = 0; i < HW_N; i++) {
		uint32_t b = hw_hash(t * HW_N + i + 777);
		x[i] = (b & 0x807FFFFFu) | (((e + (b >> 23 & 15)) & 255) << 23);
	}
}

static uint32_t load_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

START_TEST(recipes_against_h200)
{
	const char *dir = getenv("srcdir") ? getenv("srcdir") : ".";
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/data/scale-h200.bin", dir);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	static unsigned char data[2 * HW_T * HW_N + 8 * HW_T];
	ck_assert_uint_eq(fread(data, 1, sizeof data, f), sizeof data);
	fclose(f);
	const unsigned char *te_codes = data, *te_scales = data + HW_T * HW_N;
	const unsigned char *ds_codes = te_scales + 4 * HW_T, *ds_scales = ds_codes + HW_T * HW_N;
	struct fpref_format e4m3 = test_format("e4m3"), e5m2 = test_format("e5m2");
	char err[256];
	for (uint32_t t = 0; t < HW_T; t++) {
		uint32_t x[HW_N], scale, factor;
		uint8_t c[HW_N];
		hw_tensor(t, x);
		struct fpref_current_params cp = { t & 2 ? &e5m2 : &e4m3, t & 1, 0, FPREF_AMAX_NAN_IGNORE };
		ck_assert_int_eq(fpref_emu_current_quantize(&cp, x, HW_N, c, NULL, &scale, NULL, err, sizeof err), 0);
		ck_assert_msg(scale == load_le32(te_scales + 4 * t), "tensor %u: scale emu 0x%08X, H200 0x%08X", t, scale,
			      load_le32(te_scales + 4 * t));
		assert_same_bytes(c, te_codes + t * HW_N, HW_N, "TE codes against the H200");
		struct fpref_block_params bp = { &e4m3, FPREF_BLOCK_DEEPSEEK, 1, HW_N, false, FPREF_F32_DEEPSEEK_EPS,
						 FPREF_AMAX_NAN_IGNORE };
		ck_assert_int_eq(fpref_emu_block_quantize(&bp, x, 1, HW_N, c, &factor, err, sizeof err), 0);
		ck_assert_msg(factor == load_le32(ds_scales + 4 * t), "tensor %u: s emu 0x%08X, H200 0x%08X", t, factor,
			      load_le32(ds_scales + 4 * t));
		assert_same_bytes(c, ds_codes + t * HW_N, HW_N, "DeepSeek codes against the H200");
	}
}
END_TEST

/* ---- the report ---- */

START_TEST(report_hand_worked)
{
	struct fpref_format e4m3 = test_format("e4m3");
	const uint32_t x[6] = { bits_of(1.0f), bits_of(2.0f), 0, bits_of(4.0f), F32_NAN, bits_of(-8.0f) };
	const uint32_t dq[6] = { bits_of(1.0f), bits_of(2.5f), 0, 0, F32_NAN, F32_NAN };
	const uint8_t codes[6] = { 0x38, 0x7E, 0, 0, 0x7F, 0xFE };
	struct fpref_quant_report r;
	ck_assert_int_eq(fpref_emu_quant_report_compute(x, dq, 6, &e4m3, codes, &r), 0);
	ck_assert_uint_eq(r.count, 6);
	ck_assert_uint_eq(r.nonfinite_inputs, 1);
	ck_assert_uint_eq(r.nonfinite_outputs, 1);
	ck_assert_uint_eq(r.compared, 4);         /* errors 0, 0.5, 0, 4 */
	ck_assert_uint_eq(r.compared_nonzero, 3); /* relative 0, 0.25, 1 */
	ck_assert(r.max_abs == 4.0 && r.mean_abs == 1.125);
	ck_assert(r.max_rel == 1.0 && r.mean_rel == 1.25 / 3);
	ck_assert_uint_eq(r.nonzero_inputs, 4);
	ck_assert_uint_eq(r.flushed, 1);
	ck_assert(r.flushed_fraction == 0.25);
	ck_assert_uint_eq(r.saturated, 2); /* 0x7E and 0xFE: E4M3's +-448 */
	ck_assert(r.saturated_fraction == 2.0 / 6);
}
END_TEST

START_TEST(report_errors_exact)
{
	/* |dq - x| for far-apart values is rounded once: 2^100 - 2^-100 in
	 * binary64 is 2^100; a tie-free small difference is exact */
	const uint32_t x[2] = { bits_of(0x1p-100f), bits_of(1.0f) };
	const uint32_t dq[2] = { bits_of(0x1p100f), bits_of(1.0f + 0x1p-23f) };
	struct fpref_quant_report r;
	ck_assert_int_eq(fpref_emu_quant_report_compute(x, dq, 2, NULL, NULL, &r), 0);
	ck_assert(r.max_abs == 0x1p100);
	ck_assert(r.max_rel == 0x1p200);
	ck_assert(r.mean_abs == 0x1p99);
	ck_assert_uint_eq(r.saturated, 0);
}
END_TEST

static Suite *scale_suite(void)
{
	Suite *s = suite_create("scale");
	TCase *cross = tcase_create("emu against ref");
	tcase_set_timeout(cross, 600);
	tcase_add_loop_test(cross, current_emu_against_ref, 0, 3 * 2 * 2 * 2 * KINDS * (int)NMAG);
	tcase_add_loop_test(cross, te_scale_emu_against_ref, 0, 2);
	tcase_add_loop_test(cross, delayed_emu_against_ref, 0, 3 * 32);
	tcase_add_loop_test(cross, blocks_emu_against_ref, 0, 3 * 12);
	suite_add_tcase(s, cross);
	TCase *docs = tcase_create("worked examples");
	tcase_add_test(docs, te_scale_documented_cases);
	tcase_add_test(docs, current_seed_example);
	tcase_add_test(docs, current_nan_element);
	tcase_add_test(docs, delayed_documented_sequence);
	tcase_add_test(docs, delayed_history_roll);
	tcase_add_test(docs, deepseek_tiles_example);
	tcase_add_test(docs, report_hand_worked);
	tcase_add_test(docs, recipes_against_h200);
	tcase_add_test(docs, report_errors_exact);
	suite_add_tcase(s, docs);
	return s;
}

int main(void)
{
	return test_run(scale_suite());
}
