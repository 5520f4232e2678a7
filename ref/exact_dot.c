/* The exact engine (fpref_ref_exact.h): a . b + c summed exactly in
 * integers.  Why it is exact: a finite value of a format of at most 24
 * significand bits is sig * 2^e with e >= q, the format's least place, so
 * a product is sa * sb * 2^(ea + eb), an integer of at most 48 bits at a
 * place no lower than qa + qb.  Narrow formats (FP16 and below) hold every
 * value as one integer of at most 40 bits over 2^q, so their products are
 * summed in one 64- or 128-bit integer that cannot overflow; wide ones
 * (BF16, TF32, FP32) add each product into a 64-bit bucket per place,
 * emptied before it could overflow.  Buckets, block-scaled chunks and C go
 * into a long accumulator: 32-bit digits in 64-bit limbs, carried once at
 * the end.  No step rounds; the integer is handed to MPFR once. */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_ref_exact.h"

typedef __int128 i128;

/* ---- formats and operands ---- */

static long binade_of(const struct fpref_unpacked *u)
{
	long e = u->exponent;
	for (uint64_t s = u->significand; s > 1; s >>= 1)
		e++;
	return e;
}

int fpref_ref_exact_format(const struct fpref_format *f, struct fpref_exact_format *x)
{
	if (f->man_bits + 1 > 24)
		return -1;
	struct fpref_unpacked lo, hi;
	fpref_format_min_normal(f, &lo);
	fpref_format_max_finite(f, &hi);
	x->f = f;
	x->q = (int)(binade_of(&lo) - f->man_bits);
	x->width = (int)(binade_of(&hi) + 1 - x->q);
	x->sig_bits = f->man_bits + 1;
	x->fixed = x->width <= 40;
	return x->width > 0 && x->width < 400 ? 0 : -1;
}

/* sig * 2^e as the engine holds it; false when e is below q and the
 * significand has not the zeros to move there (not a value of the format). */
static bool place(const struct fpref_exact_format *x, uint64_t sig, long e, struct fpref_exact_operand *o)
{
	long s = e - x->q;
	for (; s < 0; s++) {
		if (sig & 1)
			return false;
		sig >>= 1;
	}
	if (x->fixed) {
		if (s + 64 - __builtin_clzll(sig | 1) > 40)
			return false;
		sig <<= s;
		s = 0;
	}
	o->sig = o->neg ? -(int64_t)sig : (int64_t)sig;
	o->shift = (int32_t)s;
	return true;
}

int fpref_ref_exact_decode(const struct fpref_exact_format *x, const uint64_t *bits, size_t n, size_t stride,
			   struct fpref_exact_operand *out, size_t *bad)
{
	for (size_t i = 0; i < n; i++) {
		struct fpref_unpacked u;
		struct fpref_exact_operand *o = &out[i];
		if (fpref_decode(x->f, bits[i * stride], &u) == FPREF_DECODE_INVALID) {
			if (bad)
				*bad = i;
			return -1;
		}
		*o = (struct fpref_exact_operand){ 0, 0, FPREF_EXACT_FINITE, u.negative };
		if (u.cls == FPREF_CLASS_NAN)
			o->cls = FPREF_EXACT_NAN;
		else if (u.cls == FPREF_CLASS_INF)
			o->cls = FPREF_EXACT_INF;
		else if (u.cls != FPREF_CLASS_ZERO && u.significand && !place(x, u.significand, u.exponent, o)) {
			if (bad)
				*bad = i;
			return -1;
		}
	}
	return 0;
}

bool fpref_ref_exact_any_special(const struct fpref_exact_operand *a, const struct fpref_exact_operand *b, size_t K)
{
	/* four independent ORs: the loop runs at the loads' pace, not an OR chain's */
	unsigned s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t k = 0;
	for (; k + 2 <= K; k += 2) {
		s0 |= a[k].cls;
		s1 |= b[k].cls;
		s2 |= a[k + 1].cls;
		s3 |= b[k + 1].cls;
	}
	for (; k < K; k++)
		s0 |= (unsigned)a[k].cls | b[k].cls;
	return (s0 | s1 | s2 | s3) != FPREF_EXACT_FINITE;
}

/* ---- the long accumulator ---- */

#define ACC_LIMBS 112 /* 3584 bits: FP32 products (554 places), two E8M0 scales each way (508), C and carries */
#define MAX_PLACE ((ACC_LIMBS - 4) * 32)

struct acc {
	int64_t limb[ACC_LIMBS]; /* each a 32-bit digit plus carries: 2^31 additions of a digit cannot overflow */
	int lo, hi;              /* the limbs touched */
};

/* t (|t| < 2^95) at limb idx, in three digits */
static void acc_put(struct acc *s, i128 t, int idx)
{
	s->limb[idx] += (int64_t)(uint32_t)t;
	t >>= 32;
	s->limb[idx + 1] += (int64_t)(uint32_t)t;
	t >>= 32;
	s->limb[idx + 2] += (int64_t)t;
	if (idx < s->lo)
		s->lo = idx;
	if (idx + 2 > s->hi)
		s->hi = idx + 2;
}

static void acc_add_i64(struct acc *s, int64_t v, int pos)
{
	if (v)
		acc_put(s, (i128)v * ((i128)1 << (pos & 31)), pos >> 5);
}

static void acc_add_i128(struct acc *s, i128 v, int pos)
{
	if (!v)
		return;
	uint64_t low = (uint64_t)v;
	int64_t high = (int64_t)(v >> 64);
	if (low)
		acc_put(s, (i128)((unsigned __int128)low << (pos & 31)), pos >> 5);
	acc_add_i64(s, high, pos + 64);
}

/* The accumulated integer times 2^base into exact (nonzero: true). */
static bool acc_get(struct acc *s, long base, mpfr_ptr exact)
{
	if (s->lo > s->hi)
		return false;
	int top = s->hi + 1;
	for (int i = s->lo; i < top; i++) { /* carry: digits in [0, 2^32), the top limb signed */
		int64_t c = s->limb[i] >> 32;
		s->limb[i] -= c * ((int64_t)1 << 32);
		s->limb[i + 1] += c;
	}
	bool neg = s->limb[top] < 0;
	if (neg) {
		for (int i = s->lo; i <= top; i++)
			s->limb[i] = -s->limb[i];
		for (int i = s->lo; i < top; i++) {
			int64_t c = s->limb[i] >> 32;
			s->limb[i] -= c * ((int64_t)1 << 32);
			s->limb[i + 1] += c;
		}
	}
	uint32_t digits[ACC_LIMBS];
	size_t n = 0;
	for (int i = s->lo; i <= top; i++)
		digits[n++] = (uint32_t)s->limb[i];
	mpz_t z;
	mpz_init(z);
	mpz_import(z, n, -1, sizeof digits[0], 0, 0, digits);
	if (mpz_sgn(z) == 0) {
		mpz_clear(z);
		return false;
	}
	size_t bits = mpz_sizeinbase(z, 2);
	mpfr_set_prec(exact, (mpfr_prec_t)(bits > 64 ? bits : 64));
	mpfr_set_z_2exp(exact, z, base + 32L * s->lo, MPFR_RNDN); /* exact: the precision holds every bit */
	if (neg)
		mpfr_neg(exact, exact, MPFR_RNDN);
	mpz_clear(z);
	return true;
}

/* ---- specials ---- */

struct specials {
	bool nan, pos_inf, neg_inf;
};

/* A product's NaN or infinity as mpfr_mul gives it (inf * 0 is NaN), times
 * a weight that may be zero (UE4M3). */
static void special_product(const struct fpref_exact_operand *x, const struct fpref_exact_operand *y, bool zero_weight,
			    struct specials *s)
{
	bool x_zero = x->cls == FPREF_EXACT_FINITE && x->sig == 0, y_zero = y->cls == FPREF_EXACT_FINITE && y->sig == 0;
	if (x->cls == FPREF_EXACT_NAN || y->cls == FPREF_EXACT_NAN)
		s->nan = true;
	else if (x->cls == FPREF_EXACT_INF || y->cls == FPREF_EXACT_INF) {
		if (x_zero || y_zero || zero_weight)
			s->nan = true;
		else
			*(x->neg != y->neg ? &s->neg_inf : &s->pos_inf) = true;
	}
}

/* ---- scales ---- */

struct scale {
	int64_t sig; /* the two scale values' product: sig * 2^e */
	long e;
	bool nan, inf;
};

/* One scale as fpref_ref_tc_read_scale reads it (a signed format's sign
 * ignored): -1 for an invalid pattern. */
static int read_scale(const struct fpref_format *f, uint64_t bits, struct scale *s)
{
	if (f->is_signed)
		bits &= ~(1ull << (f->man_bits + f->exp_bits + f->pad_bits));
	struct fpref_unpacked u;
	if (fpref_decode(f, bits, &u) == FPREF_DECODE_INVALID)
		return -1;
	s->nan = u.cls == FPREF_CLASS_NAN;
	s->inf = u.cls == FPREF_CLASS_INF;
	bool zero = u.cls == FPREF_CLASS_ZERO || u.significand == 0;
	s->sig = s->nan || s->inf || zero ? 0 : (int64_t)u.significand;
	s->e = zero ? 0 : u.exponent;
	return 0;
}

/* ---- the sum ---- */

#define MAX_BUCKETS 1024

struct chunk_sums {
	const struct fpref_exact_format *fa, *fb;
	int64_t bucket[MAX_BUCKETS];
	int lo, hi;
};

/* Products [k0, k1) of two narrow formats: one integer over 2^(qa + qb);
 * *zero set when one of them may be 0. */
static i128 fixed_sum(const struct fpref_exact_operand *a, const struct fpref_exact_operand *b, size_t k0, size_t k1,
		      bool narrow, bool *zero)
{
	if (narrow) { /* the products and their sum fit 63 bits; a test per
		       * product costs this loop more than the scan does */
		int64_t s = 0;
		for (size_t k = k0; k < k1; k++)
			s += a[k].sig * b[k].sig;
		*zero = true;
		return s;
	}
	bool z = false;
	i128 s = 0;
	for (size_t k = k0; k < k1; k++) {
		i128 p = (i128)a[k].sig * b[k].sig;
		z |= !p;
		s += p;
	}
	*zero = *zero || z;
	return s;
}

/* The buckets (place qa + qb + index) times w = wsig * 2^we into the
 * accumulator, emptied. */
static void flush_buckets(struct chunk_sums *c, struct acc *s, int64_t wsig, long we, long base)
{
	for (int i = c->lo; i <= c->hi; i++) {
		if (c->bucket[i])
			acc_add_i128(s, (i128)c->bucket[i] * wsig, (int)(c->fa->q + c->fb->q + i + we - base));
		c->bucket[i] = 0;
	}
	c->lo = MAX_BUCKETS;
	c->hi = -1;
}

/* The sum's specials, as mpfr_sum of the exact terms gives them: any NaN,
 * or both infinities, is NaN; else an infinity.  Whether there was one
 * (exact set). */
static bool special_sum(const struct fpref_exact_operand *a, const struct fpref_exact_operand *b, size_t K,
			const struct fpref_tc_scales *scales, const struct fpref_unpacked *cu, mpfr_ptr exact)
{
	struct specials sp = { false, false, false };
	bool any = fpref_ref_exact_any_special(a, b, K);
	for (size_t k = 0; any && k < K; k++)
		if (a[k].cls | b[k].cls) {
			bool zw = false;
			if (scales) {
				struct scale sa, sb;
				read_scale(scales->format, scales->a[k / scales->every], &sa);
				read_scale(scales->format, scales->b[k / scales->every], &sb);
				zw = sa.sig == 0 || sb.sig == 0;
			}
			special_product(&a[k], &b[k], zw, &sp);
		}
	if (cu->cls == FPREF_CLASS_NAN)
		sp.nan = true;
	else if (cu->cls == FPREF_CLASS_INF)
		*(cu->negative ? &sp.neg_inf : &sp.pos_inf) = true;
	if (!sp.nan && !sp.pos_inf && !sp.neg_inf)
		return false;
	mpfr_set_prec(exact, 64);
	if (sp.nan || (sp.pos_inf && sp.neg_inf))
		mpfr_set_nan(exact);
	else
		mpfr_set_inf(exact, sp.neg_inf ? -1 : 1);
	return true;
}

int fpref_ref_exact_dot(const struct fpref_exact_format *fa, const struct fpref_exact_operand *a,
			const struct fpref_exact_format *fb, const struct fpref_exact_operand *b, size_t K,
			const struct fpref_tc_scales *scales, const struct fpref_format *acc, uint64_t c,
			mpfr_ptr exact)
{
	struct fpref_unpacked cu;
	if (fpref_decode(acc, c, &cu) == FPREF_DECODE_INVALID)
		return -1;
	size_t every = scales ? scales->every : (K ? K : 1), chunks = scales ? (K + every - 1) / every : 1;
	/* the scales, read in K order up to the first NaN, as fpref_ref_tc_scale_weights reads them */
	struct scale one = { 1, 0, false, false }, sa, sb;
	long we_min = 0, we_max = 0;
	bool zero_weight = false;
	for (size_t q = 0; scales && q < chunks; q++) {
		if (read_scale(scales->format, scales->a[q], &sa) || read_scale(scales->format, scales->b[q], &sb))
			return -1;
		if (sa.nan || sb.nan) {
			mpfr_set_prec(exact, 64);
			mpfr_set_nan(exact);
			return 0;
		}
		if (sa.inf || sb.inf)
			return 1;
		long e = sa.e + sb.e;
		we_min = q == 0 || e < we_min ? e : we_min;
		we_max = q == 0 || e > we_max ? e : we_max;
		zero_weight = zero_weight || sa.sig == 0 || sb.sig == 0;
	}
	/* a NaN or inf C: the specials now (a NaN or inf operand has sig 0, so
	 * that their scan waits for a zero product, or for another answer) */
	if ((cu.cls == FPREF_CLASS_NAN || cu.cls == FPREF_CLASS_INF) && special_sum(a, b, K, scales, &cu, exact))
		return 0;
	/* where the sum lives: the least place of the products (and their
	 * scales) and of C, and the most, with room for K carries */
	bool c_nonzero = cu.cls != FPREF_CLASS_ZERO && cu.significand != 0;
	long base = (long)fa->q + fb->q + we_min;
	if (c_nonzero && cu.exponent < base)
		base = cu.exponent;
	/* the bits of a product: narrow ones as one integer (a bit over the
	 * width: a two's complement integer format's least value), in the
	 * buckets each operand's significand */
	bool both_fixed = fa->fixed && fb->fixed;
	int pa = both_fixed ? fa->width + 1 : fa->sig_bits, pb = both_fixed ? fb->width + 1 : fb->sig_bits;
	long top = (long)fa->q + fb->q + fa->width + fb->width + we_max + 8 + 64;
	if (c_nonzero && cu.exponent + 64 > top)
		top = cu.exponent + 64;
	if (top - base + 72 > MAX_PLACE || (!both_fixed && pa + pb > 50))
		return special_sum(a, b, K, scales, &cu, exact) ? 0 : 1;
	struct acc *s = malloc(sizeof *s);
	struct chunk_sums *cs = !both_fixed ? malloc(sizeof *cs) : NULL;
	if (!s || (!both_fixed && !cs)) {
		free(s);
		free(cs);
		return special_sum(a, b, K, scales, &cu, exact) ? 0 : 1;
	}
	memset(s->limb, 0, sizeof s->limb);
	s->lo = ACC_LIMBS;
	s->hi = -1;
	int bits_k = 64 - __builtin_clzll((unsigned long long)every | 1);
	bool narrow = both_fixed && pa + pb + bits_k + 1 <= 63;
	if (cs) {
		memset(cs->bucket, 0, sizeof cs->bucket);
		cs->fa = fa;
		cs->fb = fb;
		cs->lo = MAX_BUCKETS;
		cs->hi = -1;
	}
	/* a bucket takes 2^(62 - pa - pb) products before it is emptied */
	size_t room = cs ? (size_t)1 << (62 - pa - pb > 40 ? 40 : 62 - pa - pb) : 0;
	bool zero = false; /* a zero product: an operand zero, or a NaN or inf */
	for (size_t q = 0; q < chunks; q++) {
		struct scale w = one;
		if (scales) {
			read_scale(scales->format, scales->a[q], &sa);
			read_scale(scales->format, scales->b[q], &sb);
			w.sig = sa.sig * sb.sig;
			w.e = sa.e + sb.e;
		}
		size_t k0 = q * every, k1 = k0 + every < K ? k0 + every : K;
		if (!cs) {
			acc_add_i128(s, fixed_sum(a, b, k0, k1, narrow, &zero) * w.sig, (int)(fa->q + fb->q + w.e - base));
			continue;
		}
		size_t used = 0;
		for (size_t k = k0; k < k1; k++) {
			int64_t x = a[k].sig, y = b[k].sig;
			int i = a[k].shift + b[k].shift;
			if (fa->fixed && x) { /* a narrow operand beside a wide one: its significand and shift */
				int z = __builtin_ctzll((uint64_t)x);
				x /= (int64_t)1 << z;
				i += z;
			}
			if (fb->fixed && y) {
				int z = __builtin_ctzll((uint64_t)y);
				y /= (int64_t)1 << z;
				i += z;
			}
			zero |= !x || !y;
			cs->bucket[i] += x * y;
			cs->lo = i < cs->lo ? i : cs->lo;
			cs->hi = i > cs->hi ? i : cs->hi;
			if (++used == room) {
				flush_buckets(cs, s, w.sig, w.e, base);
				used = 0;
			}
		}
		flush_buckets(cs, s, w.sig, w.e, base);
	}
	if (zero && special_sum(a, b, K, scales, &cu, exact)) {
		free(s);
		free(cs);
		return 0;
	}
	if (c_nonzero)
		acc_add_i64(s, cu.negative ? -(int64_t)cu.significand : (int64_t)cu.significand, (int)(cu.exponent - base));
	bool nonzero = acc_get(s, base, exact);
	free(s);
	free(cs);
	if (!nonzero) { /* as mpfr_sum: -0 only when every term is -0 */
		bool all_neg = cu.negative && !c_nonzero;
		for (size_t k = 0; all_neg && k < K; k++) { /* a term is zero when a product or its weight is */
			bool zw = false;
			if (scales && zero_weight) {
				read_scale(scales->format, scales->a[k / every], &sa);
				read_scale(scales->format, scales->b[k / every], &sb);
				zw = sa.sig == 0 || sb.sig == 0;
			}
			all_neg = (a[k].sig == 0 || b[k].sig == 0 || zw) && a[k].neg != b[k].neg;
		}
		mpfr_set_prec(exact, 64);
		mpfr_set_zero(exact, all_neg ? -1 : 1);
	}
	return 0;
}
