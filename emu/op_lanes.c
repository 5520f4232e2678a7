/* Arithmetic on arrays through binary64: decode each operand exactly into
 * a double (a table for formats of 8 bits or fewer, the bits of an
 * IEEE-style 16-bit format otherwise), compute the result rounded to odd
 * at 53 bits, and round that once more by the vector conversion lanes
 * (convert_lanes.c, FP64 to the format, with flags).  Why that is the
 * correctly rounded result:
 *  - every value of these formats, and every product of two, is a double
 *    far from double's subnormals (|x| >= 2^-300) and overflow; a product
 *    of two significands of at most 26 bits is exact (FP16: 22, BF16: 16);
 *  - a sum (add, sub, and fma's product plus c) is rounded to nearest by
 *    the FPU and its exact error recovered by TwoSum; the quotient's and
 *    the square root's errors by the exact remainders a - q b and a - s^2
 *    (one fma each: exact for a quotient or root rounded to nearest
 *    without underflow).  With an error the double is moved, where its
 *    last bit is even, to its neighbour toward the exact value: the
 *    exact value rounded to odd at 53 bits;
 *  - a value rounded to odd at 53 bits rounds to p bits, p + 2 <= 53, as
 *    the exact value does under every rounding (the odd bit stands for
 *    the discarded rest: ties and exactness survive, so do the directed
 *    modes' and round-to-odd's decisions and the tininess of the result),
 *    and stochastic rounding with r random bits where p + r + 2 <= 53.
 * The FPU must round to nearest without flushing subnormals: each call
 * checks MXCSR (x86) or the C rounding mode and otherwise leaves the
 * elements to the core.  Operands that are NaN or inf, a division by zero,
 * a root of a negative number and an exact zero sum under rdn (whose sign
 * is -0) go to the core, element by element, as do the elements the
 * conversion lanes send there. */
#include <math.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "element.h"
#include "host_fpu.h"
#include "op_lanes.h"
#include "op_lanes32_x86.h"
#include "quant_lanes.h"
#include "round_core.h"

enum { CHUNK = OP_LANES_CHUNK };

bool fpref_emu_op_lanes_plan(enum fpref_op op, const struct fpref_format *f, const struct fpref_env *env,
			 struct op_lanes_plan *p)
{
	memset(p, 0, sizeof *p);
	if (op != FPREF_OP_ADD && op != FPREF_OP_SUB && op != FPREF_OP_MUL && op != FPREF_OP_DIV && op != FPREF_OP_SQRT &&
	    op != FPREF_OP_FMA)
		return false;
	int bits = fpref_format_container_bits(f), p_bits = f->man_bits + 1;
	/* one byte through the 256-entry table, or IEEE's 16-bit layout; the
	 * widths between (custom e4m9, e5m8 ...) stay on the core's paths */
	if (f->integer || f->pad_bits || 2 * p_bits > 53 || (bits > 8 && bits != 16))
		return false;
	if (env->rounding == FPREF_SR && p_bits + (int)env->sr_width + 3 > 53)
		return false;
	p->op = op;
	p->f = *f;
	p->env = *env;
	p->bytes = fpref_emu_element_bytes(f);
	p->ieee16 = bits == 16;
	p->bfloat16 = p->ieee16 && f->exp_bits == 8 && f->man_bits == 7 && f->bias == 127;
#if defined(__GNUC__) && defined(__x86_64__)
	__builtin_cpu_init();
	/* F16C asked through AVX2, which every x86-64-v3 CPU has with it:
	 * clang's __builtin_cpu_supports knows no "f16c" */
	p->binary16_f16c = p->ieee16 && f->exp_bits == 5 && f->man_bits == 10 && f->bias == 15 &&
			   __builtin_cpu_supports("avx2");
#endif
	p->sub_scale = ldexp(1, 1 - f->bias - f->man_bits);
	if (p->ieee16) {
		if (f->specials != FPREF_SPECIALS_IEEE || !f->is_signed || !f->has_zero || !f->subnormals ||
		    f->exp_bits + f->man_bits + 1 != 16)
			return false;
	} else {
		for (uint64_t b = 0; b < 256; b++) {
			struct fpref_unpacked u;
			bool finite = fpref_decode(f, b, &u) == FPREF_DECODE_OK && u.cls != FPREF_CLASS_NAN &&
				      u.cls != FPREF_CLASS_INF;
			p->special[b] = !finite;
			double v = finite ? ldexp((double)u.significand, u.exponent) : 0;
			p->value[b] = u.negative ? -v : v;
			/* exact where the FP32 route takes f; NaN marks the patterns for the core */
			p->value32[b] = finite ? (float)p->value[b] : NAN;
		}
	}
	const struct fpref_format *f64 = fpref_format_get(FPREF_FORMAT_FLOAT64);
	p->via32 = fpref_emu_op_lanes32_plan(p);
	return fpref_emu_lanes_plan(f64, f, env, &p->conv) || p->via32;
}


#if defined(__GNUC__) && defined(__x86_64__)
/* FP16 to double by F16C, eight at a time: both conversions exact
 * (binary32 holds every FP16 value as a normal number; with FTZ/DAZ off,
 * which fpref_emu_quant_fpu_plain checks). */
__attribute__((target("avx,f16c"))) static void binary16_to_double(const uint16_t *a, size_t n, double *y)
{
	size_t j = 0;
	for (; j + 8 <= n; j += 8) {
		__m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + j)));
		_mm256_storeu_pd(y + j, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
		_mm256_storeu_pd(y + j + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
	}
	for (; j < n; j++)
		y[j] = (double)_cvtsh_ss(a[j]);
}
#endif

/* The operands of elements [i, i + n) decoded into x[k][0..n), special[]
 * set where one is NaN or inf. */
HOST_FPU_CLONES static void decode(const struct op_lanes_plan *p, const void *const *operands, int arity, size_t i,
				   size_t n, double x[3][CHUNK], uint8_t *special)
{
	memset(special, 0, n);
	const int m = p->f.man_bits, e = p->f.exp_bits;
	const uint64_t top = ((uint64_t)1 << e) - 1, rebias = (uint64_t)(1023 - p->f.bias);
	const double sub_scale = p->sub_scale;
	for (int k = 0; k < arity; k++) {
		double *y = x[k];
		if (!p->ieee16) {
			const uint8_t *a = (const uint8_t *)operands[k] + i;
			for (size_t j = 0; j < n; j++) {
				y[j] = p->value[a[j]];
				special[j] |= p->special[a[j]];
			}
			continue;
		}
		const uint16_t *a = (const uint16_t *)operands[k] + i;
		if (p->bfloat16 || p->binary16_f16c) { /* by the conversion instructions; NaN and inf marked */
#if defined(__GNUC__) && defined(__x86_64__)
			if (p->binary16_f16c)
				binary16_to_double(a, n, y);
#endif
			for (size_t j = 0; p->bfloat16 && j < n; j++) {
				uint32_t w = (uint32_t)a[j] << 16; /* exact: BF16 is FP32 with 16 bits fewer */
				float v;
				memcpy(&v, &w, sizeof v);
				y[j] = (double)v;
			}
			for (size_t j = 0; j < n; j++)
				special[j] |= (uint8_t)((a[j] >> m & top) == top);
			continue;
		}
		for (size_t j = 0; j < n; j++) {
			uint64_t v = a[j], field = (v >> m) & top, man = v & (((uint64_t)1 << m) - 1), sign = v >> (e + m) << 63;
			uint64_t normal = sign | (field + rebias) << 52 | man << (52 - m), sub;
			double sub_value = (double)(int64_t)man * sub_scale; /* exact: a power of two times an integer */
			memcpy(&sub, &sub_value, sizeof sub);
			uint64_t is_sub = 0 - (uint64_t)(field == 0), bits = (is_sub & (sub | sign)) | (~is_sub & normal);
			memcpy(&y[j], &bits, sizeof bits);
			special[j] |= (uint8_t)(field == top);
		}
	}
}

/* The results rounded to odd at 53 bits into d[0..n); rare[j] set where
 * the core must decide.  One loop per operation, without a branch. */
HOST_FPU_CLONES static void compute(const struct op_lanes_plan *p, double x[3][CHUNK], size_t n, double *d,
				    uint8_t *rare)
{
	const double *a = x[0], *b = x[1], *c = x[2];
	const uint8_t rdn = p->env.rounding == FPREF_RDN;
	const double negate = p->op == FPREF_OP_SUB ? -1 : 1;
	switch (p->op) {
	case FPREF_OP_MUL:
		for (size_t j = 0; j < n; j++)
			d[j] = a[j] * b[j]; /* exact */
		break;
	case FPREF_OP_ADD:
	case FPREF_OP_SUB:
		for (size_t j = 0; j < n; j++) {
			double u = a[j], v = b[j] * negate;
			double s = u + v, vv = s - u, err = (u - (s - vv)) + (v - vv); /* TwoSum */
			d[j] = to_odd(s, err != 0, err > 0);
			rare[j] |= (uint8_t)(rdn & (s == 0)); /* the sign of an exact zero sum */
		}
		break;
	case FPREF_OP_FMA:
		for (size_t j = 0; j < n; j++) {
			double u = a[j] * b[j], v = c[j]; /* the product exact */
			double s = u + v, vv = s - u, err = (u - (s - vv)) + (v - vv);
			d[j] = to_odd(s, err != 0, err > 0);
			rare[j] |= (uint8_t)(rdn & (s == 0));
		}
		break;
	case FPREF_OP_DIV:
		for (size_t j = 0; j < n; j++) {
			double q = a[j] / b[j], r = fma(-q, b[j], a[j]); /* a - q b, exact */
			/* the quotient is above q where r and b share a sign */
			d[j] = to_odd(q, r != 0, (r > 0) == (b[j] > 0));
			rare[j] |= (uint8_t)(b[j] == 0);
		}
		break;
	default: /* sqrt */
		for (size_t j = 0; j < n; j++) {
			/* a negative operand (NaN here) goes to the core */
			double s = sqrt(a[j]), r = fma(-s, s, a[j]); /* a - s^2, exact */
			d[j] = to_odd(s, r != 0, r > 0);
			rare[j] |= (uint8_t)(a[j] < 0);
		}
		break;
	}
}

bool fpref_emu_op_lanes_fp32(const struct op_lanes_plan *p, enum lanes_isa isa)
{
	return p->via32 || (p->wide32 && isa == LANES_ISA_AVX512);
}

size_t fpref_emu_op_lanes(const struct op_lanes_plan *p, enum lanes_isa isa, const void *a, const void *b,
		      const void *c, void *out, size_t n, uint8_t *flags, uint64_t first_index,
		      size_t (*by_core)(const void *ctx, size_t i), const void *ctx)
{
	const void *operands[3] = { a, b, c };
	int arity = fpref_op_arity(p->op);
	if (!fpref_emu_quant_fpu_plain()) {
		size_t invalid = 0;
		for (size_t i = 0; i < n; i++)
			invalid += by_core(ctx, i);
		return invalid;
	}
	(void)first_index; /* explicit stochastic bits: one R for every element */
	double x[3][CHUNK], d[CHUNK];
	uint32_t y[CHUNK];
	uint8_t rare[CHUNK];
	struct wide_out w;
	size_t invalid = 0;
	for (size_t i = 0; i < n; i += CHUNK) {
		size_t m = n - i < CHUNK ? n - i : CHUNK;
		unsigned char *o = (unsigned char *)out + i * p->bytes;
#if defined(__GNUC__) && defined(__x86_64__)
		if (p->exact32 && isa == LANES_ISA_AVX512 &&
		    (p->op == FPREF_OP_MUL ? fpref_emu_op32_bf16_products_avx512 : fpref_emu_op32_bf16_quotients_avx512)(
			    (const uint16_t *)a + i, (const uint16_t *)b + i, m, y)) {
			fpref_emu_lanes_convert(isa, &p->conv32, y, o, m, flags ? flags + i : NULL);
			continue;
		}
#endif
		if (fpref_emu_op_lanes_fp32(p, isa)) {
			/* no class left from the chunk before: a shorter last chunk, or a
			 * route that does not fill them, must not store past m */
			memset(w.over_pos, 0, sizeof w.over_pos);
			memset(w.over_neg, 0, sizeof w.over_neg);
			memset(w.tiny_pos, 0, sizeof w.tiny_pos);
			memset(w.tiny_neg, 0, sizeof w.tiny_neg);
			/* BF16's classes where their codes are not y's values' */
			bool classes = p->wide32 && (flags || !p->codes_in_y);
			bool any = fpref_emu_op_lanes32_compute(p, isa, operands, i, m, y, rare, classes ? &w : NULL);
			fpref_emu_lanes_convert(isa, &p->conv32, y, o, m, flags ? flags + i : NULL);
			if (classes)
				fpref_emu_op_lanes32_finish(p, isa, &w, o, flags ? flags + i : NULL, m);
			if (!any)
				continue;
		} else {
			decode(p, operands, arity, i, m, x, rare);
			compute(p, x, m, d, rare);
			fpref_emu_lanes_convert(isa, &p->conv, d, o, m, flags ? flags + i : NULL);
		}
		for (size_t j = 0; j < m; j += 8) { /* eight flags a word: most words are 0 */
			uint64_t w = 0;
			memcpy(&w, rare + j, m - j < 8 ? m - j : 8);
			for (size_t t = j; w && t < j + 8 && t < m; t++)
				if (rare[t])
					invalid += by_core(ctx, i + t);
		}
	}
	return invalid;
}
