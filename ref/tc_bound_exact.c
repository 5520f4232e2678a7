/* The a priori bounds of the block model, AMD's two-stage dot-add and the
 * group path from operands the exact engine decoded
 * (fpref_ref_exact_tc_bound): the same recurrence and the same values as
 * ref/tc_bound.c's, with each block's per-product work in integers. */
#include <limits.h>
#include <stdlib.h>

#include "fpref_ref_exact.h"
#include "tc_bound_steps.h"

/* ---- the block model's bound from decoded operands ----
 * The same recurrence as tc_chain_bound, block by block, with each
 * block's per-product work in integers: over 2^base (the block's least
 * product place) each product and place bound is an integer, below 2^120
 * (else the block runs fpref_ref_bound_tc_block in MPFR: a wide format's block
 * spread over too many binades), and the largest place bound, each
 * min(p, unit) and the sums S and tau come out of integer compares and
 * additions.  The sums are MPFR's: each of fpref_ref_bound_tc_block's additions
 * rounds upward to BOUND_PREC bits, and up64_add below is that addition
 * (the least BOUND_PREC-bit number at or above the exact sum of two
 * nonnegative numbers), taken in the same order, so S and tau are the
 * same numbers bit for bit; tests/check_exact.c holds up64_add against
 * mpfr_add and this bound against fpref_ref_tc_bound_scaled.  The
 * per-block steps (the accumulator's place, the rounding step) stay
 * MPFR's, as in tc_chain_bound. */
typedef unsigned __int128 u128;

static int bitlen128(u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64);
	return hi ? 128 - __builtin_clzll(hi) : v ? 64 - __builtin_clzll((uint64_t)v) : 0;
}

static int ctz128(u128 v)
{
	uint64_t lo = (uint64_t)v;
	return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(v >> 64));
}

/* x = v 2^e, exactly: v has at most BOUND_PREC significant bits */
static void set_u128(mpfr_ptr x, u128 v, long e)
{
	if (!v) {
		mpfr_set_zero(x, 1);
		return;
	}
	int tz = ctz128(v);
	mpfr_set_uj_2exp(x, (uintmax_t)(v >> tz), e + tz, MPFR_RNDN);
}

/* A nonnegative BOUND_PREC-bit number m 2^e (m < 2^64, not normalised:
 * a sum of integers on one place stays on it, in one 64-bit addition). */
struct up64 {
	uint64_t m;
	long e;
};

/* 256 bits, least significant limb first */
static void put_bits(uint64_t w[5], u128 v, long at, bool *sticky)
{
	if (at < 0) { /* the bits below the window: only sticky */
		if (at <= -128) {
			*sticky = *sticky || v;
			return;
		}
		*sticky = *sticky || (v & (((u128)1 << -at) - 1));
		v >>= -at;
		at = 0;
	}
	for (int part = 0; part < 2; part++, at += 64) {
		uint64_t x = (uint64_t)(part ? v >> 64 : v);
		int limb = (int)(at / 64), off = (int)(at % 64);
		u128 add = (u128)x << off;
		for (int i = limb; add && i < 5; i++) {
			u128 sum = (u128)w[i] + (uint64_t)add;
			w[i] = (uint64_t)sum;
			add = (add >> 64) + (sum >> 64);
		}
	}
}

/* up64_add beyond its first cases: the 128-bit sum, or the wide window. */
static void up64_add_wide(struct up64 *x, u128 v, long ev)
{
	long d = ev - x->e;
	int bits = bitlen128(v);
	if (x->m && ((d >= 0 && d + bits <= 127) || (d < 0 && d >= -63 && bits <= 127))) {
		/* the exact sum in 128 bits at the lower of the two places, then
		 * its leading 64 bits, one more if any bit below them is set */
		u128 sum = d >= 0 ? (u128)x->m + (v << d) : ((u128)x->m << -d) + v;
		long e = d >= 0 ? x->e : ev;
		int over = bitlen128(sum) - 64;
		if (over > 0) {
			bool dropped = (sum & (((u128)1 << over) - 1)) != 0;
			sum >>= over;
			e += over;
			if (dropped && ++sum >> 64) {
				sum >>= 1;
				e++;
			}
		}
		x->m = (uint64_t)sum;
		x->e = e;
		return;
	}
	long top_v = ev + bits, top_x = x->m ? x->e + 64 - __builtin_clzll(x->m) : top_v;
	long T = top_v > top_x ? top_v : top_x, w0 = T - 250; /* the larger operand lies whole in [w0, T) */
	uint64_t w[5] = { 0, 0, 0, 0, 0 };
	bool sticky = false;
	if (x->m)
		put_bits(w, x->m, x->e - w0, &sticky);
	put_bits(w, v, ev - w0, &sticky);
	int top = 4;
	while (!w[top])
		top--;
	int t = top * 64 + 63 - __builtin_clzll(w[top]); /* the leading bit */
	int lo = t - 63;                                 /* the last kept bit */
	int limb = lo / 64, off = lo % 64;
	uint64_t m = w[limb] >> off | (off ? w[limb + 1] << (64 - off) : 0); /* bits lo .. t */
	for (int i = 0; i < lo / 64; i++)
		sticky = sticky || w[i];
	sticky = sticky || (lo % 64 && (w[lo / 64] & (((uint64_t)1 << (lo % 64)) - 1)));
	long e = w0 + lo;
	if (sticky && ++m == 0) {
		m = (uint64_t)1 << 63;
		e++;
	}
	x->m = m;
	x->e = e;
}

/* x += v 2^ev, rounded upward to BOUND_PREC bits (mpfr_add, MPFR_RNDU) */
static inline void up64_add(struct up64 *x, u128 v, long ev)
{
	if (!v)
		return;
	if (!x->m && !(v >> 64)) {
		x->m = (uint64_t)v;
		x->e = ev;
		return;
	}
	long d = ev - x->e;
	if (x->m && !(v >> 64) && d >= 0 && d < 64 && !((uint64_t)v >> (63 - d) >> 1)) {
		/* v on x's places within 64 bits: the sum, and on a carry out the
		 * one bit that falls off */
		uint64_t sum;
		if (!__builtin_add_overflow(x->m, (uint64_t)v << d, &sum)) {
			x->m = sum;
			return;
		}
		bool dropped = sum & 1;
		x->m = sum >> 1 | (uint64_t)1 << 63;
		x->e++;
		if (dropped && ++x->m == 0) {
			x->m = (uint64_t)1 << 63;
			x->e++;
		}
		return;
	}
	up64_add_wide(x, v, ev);
}

void fpref_ref_exact_add_up(uint64_t *m, long *e, uint64_t hi, uint64_t lo, long ev)
{
	struct up64 x = { *m, *e };
	up64_add(&x, (u128)hi << 64 | lo, ev);
	*m = x.m;
	*e = x.e;
}

struct decoded_chain {
	const struct fpref_tc_model *m;
	const struct fpref_format *output;
	const struct fpref_exact_format *xa, *xb;
	const struct fpref_exact_operand *a, *b;
	const long *we; /* each scale chunk's weight, 2^we (NULL: none) */
	size_t every;
	struct block_rounding br;
	long least_a, least_b;
	mpfr_t tmp[7];
	mpfr_t *va, *vb, *vw; /* a block's values for fpref_ref_bound_tc_block, made on first need */
	mpfr_t *wv;           /* the group path: each scale chunk's weight sa sb (NULL: none) */
};

/* The block [k, k + len), as fpref_ref_bound_tc_block computes it. */
/* max(|x|, 2^least) of one operand as sig 2^sh over 2^q, least = q + m */
static void place_factor(const struct fpref_exact_operand *x, int m, uint64_t *sig, int *sh)
{
	uint64_t s = (uint64_t)(x->sig < 0 ? -x->sig : x->sig);
	bool above = 64 - __builtin_clzll(s | 1) - 1 + x->shift >= m; /* floor(log2 |x|) >= m */
	*sig = above ? s : 1;
	*sh = above ? x->shift : m;
}

/* |a_i b_i| over 2^(qa + qb + low): below 2^120 once block_places has
 * passed the block. */
static u128 block_product(const struct decoded_chain *d, size_t i, int low)
{
	uint64_t fa = (uint64_t)(d->a[i].sig < 0 ? -d->a[i].sig : d->a[i].sig),
		 fb = (uint64_t)(d->b[i].sig < 0 ? -d->b[i].sig : d->b[i].sig);
	return fa && fb ? ((u128)fa * fb) << (d->a[i].shift + d->b[i].shift - low) : 0;
}

/* The block's least product place (low: a wide format's operands carry
 * shifts), 2^base that place with the block's scales, the largest place
 * bound max(|a|, 2^least_a) max(|b|, 2^least_b) over 2^base, and how many
 * of `parts` interleaved parts hold a nonzero product: false when a place
 * bound needs more than 120 bits (the block runs in MPFR). */
static bool block_places(const struct decoded_chain *d, size_t k, size_t len, size_t parts, int *low, long *base,
			 u128 *Qmax, size_t *nonempty)
{
	int ma = (int)(d->least_a - d->xa->q), mb = (int)(d->least_b - d->xb->q);
	bool used[FPREF_TC_MAX_BLOCK] = { false };
	if (d->xa->fixed && d->xb->fixed) { /* no shifts: every bound below 2^84 */
		uint64_t la = (uint64_t)1 << ma, lb = (uint64_t)1 << mb;
		*low = 0;
		*base = (long)d->xa->q + d->xb->q + (d->we ? d->we[k / d->every] : 0);
		*Qmax = 0;
		*nonempty = 0;
		for (size_t i = k; i < k + len; i++) {
			uint64_t fa = (uint64_t)(d->a[i].sig < 0 ? -d->a[i].sig : d->a[i].sig),
				 fb = (uint64_t)(d->b[i].sig < 0 ? -d->b[i].sig : d->b[i].sig);
			if (!fa || !fb)
				continue;
			u128 Q = (u128)(fa > la ? fa : la) * (fb > lb ? fb : lb);
			*Qmax = Q > *Qmax ? Q : *Qmax;
			*nonempty += !used[(i - k) % parts];
			used[(i - k) % parts] = true;
		}
		return true;
	}
	*low = INT_MAX;
	for (size_t i = k; i < k + len; i++)
		if (d->a[i].sig && d->b[i].sig && d->a[i].shift + d->b[i].shift < *low)
			*low = d->a[i].shift + d->b[i].shift;
	if (*low == INT_MAX)
		*low = 0;
	*base = (long)d->xa->q + d->xb->q + (d->we ? d->we[k / d->every] : 0) + *low;
	*Qmax = 0;
	*nonempty = 0;
	for (size_t i = k; i < k + len; i++) {
		if (!d->a[i].sig || !d->b[i].sig)
			continue;
		uint64_t sa, sb;
		int ha, hb;
		place_factor(&d->a[i], ma, &sa, &ha);
		place_factor(&d->b[i], mb, &sb, &hb);
		u128 Q = (u128)sa * sb;
		int sh = ha + hb - *low;
		if (bitlen128(Q) + sh > 120)
			return false;
		Q <<= sh;
		*Qmax = Q > *Qmax ? Q : *Qmax;
		*nonempty += !used[(i - k) % parts];
		used[(i - k) % parts] = true;
	}
	return true;
}

/* x (BOUND_PREC bits, nonnegative) as an up64 */
static struct up64 up64_of(mpfr_srcptr x, mpfr_ptr t)
{
	struct up64 u = { 0, 0 };
	if (!mpfr_zero_p(x)) {
		u.e = (long)mpfr_get_exp(x) - BOUND_PREC;
		mpfr_mul_2si(t, x, -u.e, MPFR_RNDN);
		u.m = (uint64_t)mpfr_get_uj(t, MPFR_RNDN); /* exact: BOUND_PREC bits */
	}
	return u;
}

/* The block [k, k + len), as fpref_ref_bound_tc_block computes it: false (nothing
 * changed) when block_places says it is too wide. */
static bool integer_block(struct decoded_chain *d, size_t k, size_t len, struct running *r)
{
	mpfr_ptr X = d->tmp[0], q = d->tmp[1], tau = d->tmp[3], unit = d->tmp[4], t = d->tmp[5], S = d->tmp[6];
	int low;
	long base;
	u128 Qmax;
	size_t nonempty;
	if (!block_places(d, k, len, 1, &low, &base, &Qmax, &nonempty))
		return false;
	fpref_ref_bound_floor_place(X, d->m, d->output);
	if (Qmax) {
		set_u128(q, Qmax, base);
		mpfr_max(X, X, q, MPFR_RNDU);
	}
	fpref_ref_bound_acc_place(X, r);
	mpfr_mul_2si(unit, X, -d->m->frac, MPFR_RNDU);
	/* U = floor(unit / 2^base): a product P <= U loses P, one above it unit */
	struct up64 u = up64_of(unit, t);
	u128 U = 0;
	if (u.m) {
		long rel = u.e - base;
		if (rel >= 0)
			U = rel + 64 - __builtin_clzll(u.m) > 124 ? ~(u128)0 : (u128)u.m << rel;
		else
			U = rel > -64 ? u.m >> -rel : 0;
	}
	struct up64 Ssum = { 0, 0 }, Tsum = { 0, 0 };
	for (size_t i = k; i < k + len; i++) {
		u128 P = block_product(d, i, low);
		if (!P)
			continue;
		up64_add(&Ssum, P, base);
		if (P <= U)
			up64_add(&Tsum, P, base);
		else
			up64_add(&Tsum, u.m, u.e);
	}
	mpfr_set_uj_2exp(S, Ssum.m, Ssum.e, MPFR_RNDN);
	mpfr_set_uj_2exp(tau, Tsum.m, Tsum.e, MPFR_RNDN);
	fpref_ref_bound_tc_block_end(d->br, unit, S, tau, t, r);
	return true;
}

/* The block [k, k + len), as fpref_ref_bound_two_stage_block computes it
 * (the losses of stage 1 added to r->err and the products to T, each
 * upward, in order). */
static bool integer_two_stage_block(struct decoded_chain *d, size_t k, size_t len, struct running *r)
{
	mpfr_ptr Q = d->tmp[0], X2 = d->tmp[1], unit = d->tmp[4], t = d->tmp[5], T = d->tmp[6];
	size_t parts = d->m->halves > 1 ? (size_t)d->m->halves : 1, nonempty;
	int low;
	long base;
	u128 Qmax;
	if (!block_places(d, k, len, parts, &low, &base, &Qmax, &nonempty))
		return false;
	set_u128(Q, Qmax, base);
	mpfr_set(X2, Q, MPFR_RNDU);
	bool acc_nonzero = fpref_ref_bound_acc_place(X2, r);
	mpfr_mul_2si(unit, Q, -d->m->frac, MPFR_RNDU);
	/* a product P loses min(P, unit): P itself when P 2^F <= Qmax */
	u128 U = d->m->frac < 120 ? Qmax >> d->m->frac : 0;
	struct up64 Tsum = up64_of(r->mag, t), Esum = up64_of(r->err, t);
	for (size_t i = k; i < k + len; i++) {
		u128 P = block_product(d, i, low);
		if (!P)
			continue;
		up64_add(&Tsum, P, base);
		if (P <= U)
			up64_add(&Esum, P, base);
		else
			up64_add(&Esum, Qmax, base - d->m->frac);
	}
	mpfr_set_uj_2exp(T, Tsum.m, Tsum.e, MPFR_RNDN);
	mpfr_set_uj_2exp(r->err, Esum.m, Esum.e, MPFR_RNDN);
	fpref_ref_bound_two_stage_block_end(d->m, d->br, X2, unit, T, t, nonempty, acc_nonzero, r);
	return true;
}

/* The block [k, k + len) as group_chain_bound computes it: each group's
 * sum G of its products (upward, in order) by up64_add, whatever their
 * places; the rest, per group and per block, in MPFR as there. */
static void integer_group_block(struct decoded_chain *d, size_t k, size_t len, struct running *r)
{
	mpfr_ptr X = d->tmp[0], G = d->tmp[1], unit = d->tmp[4], t = d->tmp[5], T = d->tmp[6], tau = d->tmp[3];
	size_t g = (size_t)d->m->group;
	fpref_ref_bound_floor_place(X, d->m, d->output);
	for (size_t k0 = k; k0 < k + len; k0 += g) {
		mpfr_srcptr w = d->wv ? d->wv[k0 / d->every] : NULL;
		if (w && mpfr_zero_p(w))
			continue;
		if (w)
			mpfr_set(t, w, MPFR_RNDU);
		else
			mpfr_set_ui(t, 1, MPFR_RNDU); /* unit scales: the place 0 */
		mpfr_max(X, X, t, MPFR_RNDU);
	}
	bool acc_nonzero = fpref_ref_bound_acc_place(X, r);
	mpfr_mul_2si(unit, X, -d->m->frac, MPFR_RNDU);
	mpfr_set(T, r->mag, MPFR_RNDU);
	mpfr_set_zero(tau, 1);
	long q = (long)d->xa->q + d->xb->q;
	for (size_t k0 = k; k0 < k + len; k0 += g) {
		struct up64 sum = { 0, 0 };
		for (size_t i = k0; i < k + len && i < k0 + g; i++) {
			uint64_t fa = (uint64_t)(d->a[i].sig < 0 ? -d->a[i].sig : d->a[i].sig),
				 fb = (uint64_t)(d->b[i].sig < 0 ? -d->b[i].sig : d->b[i].sig);
			up64_add(&sum, (u128)fa * fb, q + d->a[i].shift + d->b[i].shift);
		}
		mpfr_set_uj_2exp(G, sum.m, sum.e, MPFR_RNDN);
		fpref_ref_bound_group_term(G, d->wv ? d->wv[k0 / d->every] : NULL, unit, T, tau, t);
	}
	fpref_ref_bound_group_block_end(d->br, unit, T, tau, t, acc_nonzero, r);
}

/* The chain over products [k0, k0 + K) from the accumulator r: each block
 * in integers, or, spread too wide, in MPFR (fpref_ref_bound_tc_block) from the
 * operands' values.  0, or -1 for no memory. */
static int decoded_chain_run(struct decoded_chain *d, size_t k0, size_t K, struct running *r)
{
	size_t n = (size_t)d->m->block;
	for (size_t k = k0; k < k0 + K; k += n) {
		size_t len = k0 + K - k < n ? k0 + K - k : n;
		if (d->m->group > 0) {
			integer_group_block(d, k, len, r);
			continue;
		}
		if (d->m->sum_frac > 0 ? integer_two_stage_block(d, k, len, r) : integer_block(d, k, len, r))
			continue;
		if (!d->va) {
			d->va = new_values(n);
			d->vb = new_values(n);
			d->vw = new_values(n);
			if (!d->va || !d->vb || !d->vw)
				return -1;
		}
		for (size_t i = 0; i < len; i++) {
			const struct fpref_exact_operand *x = &d->a[k + i], *y = &d->b[k + i];
			mpfr_set_uj_2exp(d->va[i], (uintmax_t)(x->sig < 0 ? -x->sig : x->sig), d->xa->q + x->shift, MPFR_RNDN);
			mpfr_set_uj_2exp(d->vb[i], (uintmax_t)(y->sig < 0 ? -y->sig : y->sig), d->xb->q + y->shift, MPFR_RNDN);
			if (d->we)
				mpfr_set_ui_2exp(d->vw[i], 1, d->we[k / d->every], MPFR_RNDN);
		}
		mpfr_t *w = d->we ? d->vw : NULL;
		if (d->m->sum_frac > 0)
			fpref_ref_bound_two_stage_block(d->m, d->br, d->least_a, d->least_b, d->va, d->vb, w, len, r, d->tmp);
		else
			fpref_ref_bound_tc_block(d->m, d->br, d->least_a, d->least_b, d->output, d->va, d->vb, w, len, r, d->tmp);
	}
	return 0;
}

/* A scale chunk's weight exponent (E8M0: a power of two): 0, 1 for a
 * NaN scale (no bound), -1 for an invalid pattern, 2 for a weight that is
 * not a power of two. */
static int scale_weight(const struct fpref_tc_scales *sc, size_t q, long *we)
{
	struct fpref_unpacked u[2];
	for (int s = 0; s < 2; s++) {
		uint64_t bits = s ? sc->b[q] : sc->a[q];
		if (sc->format->is_signed)
			bits &= ~(1ull << (sc->format->man_bits + sc->format->exp_bits + sc->format->pad_bits));
		if (fpref_decode(sc->format, bits, &u[s]) == FPREF_DECODE_INVALID)
			return -1;
		if (u[s].cls == FPREF_CLASS_NAN)
			return 1;
		if (u[s].cls == FPREF_CLASS_INF || u[s].cls == FPREF_CLASS_ZERO || (u[s].significand & (u[s].significand - 1)))
			return 2;
	}
	*we = u[0].exponent + u[1].exponent + __builtin_ctzll(u[0].significand) + __builtin_ctzll(u[1].significand);
	return 0;
}

/* A scale chunk's weight sa sb as fpref_ref_tc_scale_weights makes it
 * (the group path's UE4M3 scales are no powers of two): 0, 1 for a NaN
 * scale (no bound), -1 for an invalid pattern. */
static int group_weight(const struct fpref_tc_scales *sc, size_t q, mpfr_ptr w)
{
	struct fpref_ref_value x, y;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	long lead;
	int status = 0;
	if (fpref_ref_tc_read_scale(sc->format, sc->a[q], &x, &lead) != 0 ||
	    fpref_ref_tc_read_scale(sc->format, sc->b[q], &y, &lead) != 0)
		status = -1;
	else if (mpfr_nan_p(x.x) || mpfr_nan_p(y.x))
		status = 1;
	else
		mpfr_mul(w, x.x, y.x, MPFR_RNDN); /* exact: 8 significant bits at most */
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	return status;
}

/* Split-K (fpref_ref_tc_bound_splitk's order): each slice of S from
 * zero, added to the running sum by an FP32 addition, then C (in *acc on
 * entry) by one more; *acc the result. */
static int splitk_run(struct decoded_chain *d, size_t K, size_t S, struct running *acc)
{
	mpfr_t zero;
	mpfr_init2(zero, 8);
	mpfr_set_zero(zero, 1);
	struct running sum, part;
	fpref_ref_bound_running_init(&sum, zero);
	int status = 0;
	for (size_t k = 0; k < K && status == 0; k += S) {
		fpref_ref_bound_running_init(&part, zero);
		status = decoded_chain_run(d, k, K - k < S ? K - k : S, &part);
		fpref_ref_bound_fp32_add(&sum, &part);
		fpref_ref_bound_running_clear(&part);
	}
	fpref_ref_bound_fp32_add(&sum, acc); /* C: exact, no error of its own */
	mpfr_set(acc->err, sum.err, MPFR_RNDN);
	mpfr_set(acc->mag, sum.mag, MPFR_RNDN);
	fpref_ref_bound_running_clear(&sum);
	mpfr_clear(zero);
	return status;
}

/* The bound of fpref_ref_tc_bound_scaled (S = 0) or of
 * fpref_ref_tc_bound_splitk (slices of S, output FP32, no scales or
 * promotion), the arguments checked, the paths from decoded operands taken
 * here. */
static int decoded_bound(const struct fpref_tc_model *m, const struct fpref_exact_format *xa,
			 const struct fpref_exact_operand *a, const uint64_t *a_bits, const struct fpref_exact_format *xb,
			 const struct fpref_exact_operand *b, const uint64_t *b_bits, size_t K,
			 const struct fpref_tc_scales *scales, uint64_t c, const struct fpref_format *output, size_t nc,
			 size_t S, mpfr_ptr bound)
{
	const struct fpref_format *in_a = xa->f, *in_b = xb->f;
	/* as bound_inputs_read and fpref_ref_tc_scale_weights: a NaN or inf input, then C, then the scales */
	for (size_t k = 0; k < K; k++)
		if (a[k].cls != FPREF_EXACT_FINITE || b[k].cls != FPREF_EXACT_FINITE) {
			mpfr_set_nan(bound);
			return 0;
		}
	struct fpref_ref_value cv;
	fpref_ref_value_init(&cv);
	if (fpref_ref_from_bits(output, c, false, &cv) != 0) {
		fpref_ref_value_clear(&cv);
		return -1;
	}
	size_t chunks = scales ? (K + scales->every - 1) / scales->every : 0;
	long *we = scales ? malloc((chunks + 1) * sizeof *we) : NULL;
	mpfr_t *wv = scales && m->group > 0 ? new_values(chunks) : NULL;
	int status = !mpfr_number_p(cv.x) ? 1 : scales && (!we || (m->group > 0 && !wv)) ? -1 : 0;
	for (size_t q = 0; q < chunks && status == 0; q++)
		status = wv ? group_weight(scales, q, wv[q]) : scale_weight(scales, q, &we[q]);
	if (status == 2) { /* not a power of two: MPFR's weights */
		free(we);
		free_values(wv, chunks);
		fpref_ref_value_clear(&cv);
		return fpref_ref_tc_bound_scaled(m, in_a, in_b, a_bits, b_bits, K, scales, c, output, nc, bound);
	}
	if (status == 1)
		mpfr_set_nan(bound);
	if (status == 0) {
		struct decoded_chain d = { .m = m, .output = output, .xa = xa, .xb = xb, .a = a, .b = b, .we = wv ? NULL : we, .wv = wv,
					   .every = scales ? scales->every : 1, .br = fpref_ref_bound_block_rounding(m, output),
					   .least_a = least_normal_exponent(in_a), .least_b = least_normal_exponent(in_b) };
		for (int i = 0; i < 7; i++)
			mpfr_init2(d.tmp[i], BOUND_PREC);
		struct running acc;
		fpref_ref_bound_running_init(&acc, cv.x);
		if (S > 0) /* split-K: the slices from zero, added in FP32, then C */
			status = splitk_run(&d, K, S, &acc);
		else if (nc == 0)
			status = decoded_chain_run(&d, 0, K, &acc);
		else
			/* each chunk from zero, then acc = fma(1, partial, acc) in FP32, rne */
			for (size_t k = 0; k < K && status == 0; k += nc) {
				struct running part;
				mpfr_t zero;
				mpfr_init2(zero, 8);
				mpfr_set_zero(zero, 1);
				fpref_ref_bound_running_init(&part, zero);
				status = decoded_chain_run(&d, k, K - k < nc ? K - k : nc, &part);
				fpref_ref_bound_fp32_add(&acc, &part);
				fpref_ref_bound_running_clear(&part);
				mpfr_clear(zero);
			}
		fpref_ref_bound_finish(output, &acc, bound);
		fpref_ref_bound_running_clear(&acc);
		for (int i = 0; i < 7; i++)
			mpfr_clear(d.tmp[i]);
		free_values(d.va, (size_t)m->block);
		free_values(d.vb, (size_t)m->block);
		free_values(d.vw, (size_t)m->block);
	}
	free(we);
	free_values(wv, chunks);
	fpref_ref_value_clear(&cv);
	return status < 0 ? -1 : 0;
}

int fpref_ref_exact_tc_bound(const struct fpref_tc_model *m, const struct fpref_exact_format *xa,
			     const struct fpref_exact_operand *a, const uint64_t *a_bits,
			     const struct fpref_exact_format *xb, const struct fpref_exact_operand *b,
			     const uint64_t *b_bits, size_t K, const struct fpref_tc_scales *scales, uint64_t c,
			     const struct fpref_format *output, size_t nc, mpfr_ptr bound)
{
	if (!fpref_ref_bound_args_ok(m, xa->f, xb->f, scales, output, nc))
		return -1;
	/* a zero factor's place (zero_operand_aligns): the MPFR bound's */
	if (fpref_tc_lowered(m, output) || m->tree > 0 || m->zero_operand_aligns)
		return fpref_ref_tc_bound_scaled(m, xa->f, xb->f, a_bits, b_bits, K, scales, c, output, nc, bound);
	return decoded_bound(m, xa, a, a_bits, xb, b, b_bits, K, scales, c, output, nc, 0, bound);
}

int fpref_ref_exact_tc_bound_splitk(const struct fpref_tc_model *m, const struct fpref_exact_format *xa,
				    const struct fpref_exact_operand *a, const uint64_t *a_bits,
				    const struct fpref_exact_format *xb, const struct fpref_exact_operand *b,
				    const uint64_t *b_bits, size_t K, size_t S, uint64_t c, mpfr_ptr bound)
{
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32);
	if (S == 0 || m->tree > 0 || m->zero_operand_aligns || fpref_tc_lowered(m, f32) ||
	    !fpref_ref_bound_args_ok(m, xa->f, xb->f, NULL, f32, 0))
		return fpref_ref_tc_bound_splitk(m, xa->f, xb->f, a_bits, b_bits, K, S, c, bound);
	return decoded_bound(m, xa, a, a_bits, xb, b, b_bits, K, NULL, c, f32, 0, S, bound);
}
