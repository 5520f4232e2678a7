/* The a priori bounds of the block model, AMD's two-stage dot-add and the
 * group path from operands the exact engine decoded
 * (fpref_ref_exact_tc_bound): the same recurrence and the same values as
 * ref/tc_bound.c's, with each block's per-product work in integers, and
 * the block model's per-block steps too (ref/up64.h). */
#include <limits.h>
#include <stdlib.h>

#include "fpref_ref_exact.h"
#include "tc_bound_steps.h"
#include "up64.h"

/* ---- the block model's bound from decoded operands ----
 * The same recurrence as tc_chain_bound, block by block, in integers:
 * over 2^base (the block's least product place) each product and place
 * bound is an integer, below 2^120 (else the block runs
 * fpref_ref_bound_tc_block in MPFR: a wide format's block spread over too
 * many binades), and every number of the recurrence (the running error
 * and magnitude, the block's place X, its unit, the sums S and tau) is an
 * up64 (ref/up64.h): each of MPFR's steps there is an addition rounded
 * upward to BOUND_PREC bits, a max, a min or a power-of-two scaling of
 * nonnegative numbers, which up64 takes the same way, in the same order,
 * so that every number is MPFR's bit for bit.  A sum whose exact value
 * (and so each partial sum, all multiples of its least term's place)
 * fits in 64 bits is the exact integer sum, as MPFR's additions, none
 * rounding, give it; tests/check_exact.c holds up64_add against mpfr_add
 * and this bound against fpref_ref_tc_bound_scaled. */
struct decoded_chain {
	const struct fpref_tc_model *m;
	const struct fpref_format *output;
	const struct fpref_exact_format *xa, *xb;
	const struct fpref_exact_operand *a, *b;
	const long *we; /* each scale chunk's weight, 2^we (NULL: none) */
	size_t every;
	struct block_rounding br;
	long least_a, least_b;
	struct up64 floor_place; /* 2^floor, 0 without a floor (fpref_ref_bound_floor_place) */
	bool zero_product;       /* a product of a zero or special operand, or a block not seen whole */
	mpfr_t tmp[7];
	mpfr_t *va, *vb, *vw; /* a block's values for fpref_ref_bound_tc_block, made on first need */
	mpfr_t *wv;           /* the group path: each scale chunk's weight sa sb (NULL: none) */
};

/* struct running in integers */
struct up_running {
	struct up64 err, mag;
};

/* max(|x|, 2^least) of one operand as sig 2^sh over 2^q, least = q + m */
static void place_factor(const struct fpref_exact_operand *x, int m, uint64_t *sig, int *sh)
{
	uint64_t s = (uint64_t)(x->sig < 0 ? -x->sig : x->sig);
	bool above = 64 - __builtin_clzll(s | 1) - 1 + x->shift >= m; /* floor(log2 |x|) >= m */
	*sig = above ? s : 1;
	*sh = above ? x->shift : m;
}

/* One block's products and places: the least product place (low: a wide
 * format's operands carry shifts), 2^base that place with the block's
 * scales, each |a_i b_i| over 2^base in P[i - k] (0 for a zero), their
 * exact sum and the OR of them, and the largest place bound max(|a|,
 * 2^least_a) max(|b|, 2^least_b) over 2^base: false when a place bound
 * needs more than 120 bits (the block runs in MPFR). */
struct block_products {
	int low;
	long base;
	u128 Qmax, sum, any;
	bool zero; /* some product is 0 (an operand zero, or a NaN or inf: sig 0) */
	u128 P[FPREF_TC_MAX_BLOCK];
};

/* A wide format's block in one pass, on a place chosen before it from
 * the first product's (any place at or below every product's serves: each
 * use of base is by value): true when every nonzero product lies within
 * the room that 64 bits leave above that place and its operands are at or
 * above 2^least (each product its own place bound); else nothing is
 * kept. */
static inline __attribute__((always_inline)) bool wide_window(const struct decoded_chain *d, const struct fpref_exact_operand *a,
			const struct fpref_exact_operand *b, size_t len, int ma, int mb, struct block_products *bp)
{
	int room = 64 - d->xa->sig_bits - d->xb->sig_bits;
	if (!a[0].sig || !b[0].sig || room < 0)
		return false;
	int low = a[0].shift + b[0].shift - room / 2;
	uint64_t Qmax = 0, any = 0;
	u128 sum = 0;
	bool out = false, zero = false;
	for (size_t i = 0; i < len; i++) {
		uint64_t fa = (uint64_t)(a[i].sig < 0 ? -a[i].sig : a[i].sig),
			 fb = (uint64_t)(b[i].sig < 0 ? -b[i].sig : b[i].sig);
		int rel = a[i].shift + b[i].shift - low;
		out |= fa && fb && ((unsigned)rel > (unsigned)room || a[i].shift < ma || b[i].shift < mb);
		uint64_t P = (fa * fb) << (rel & 63); /* a zero's shift may be anything */
		bp->P[i] = P;
		Qmax = P > Qmax ? P : Qmax;
		zero |= !P;
		sum += P;
		any |= P;
	}
	bp->zero = zero;
	bp->low = low;
	bp->Qmax = Qmax;
	bp->sum = sum;
	bp->any = any;
	return !out;
}

/* inlined: its results then stay in registers (read back from memory,
 * a 128-bit field written in two halves stalls the load) */
static inline __attribute__((always_inline)) bool block_places(const struct decoded_chain *d, size_t k, size_t len, struct block_products *bp)
{
	int ma = (int)(d->least_a - d->xa->q), mb = (int)(d->least_b - d->xb->q);
	const struct fpref_exact_operand *a = d->a + k, *b = d->b + k;
	long we = d->we ? d->we[k / d->every] : 0;
	u128 Qmax = 0, sum = 0, any = 0;
	bool zero = false;
	bp->low = 0;
	if (d->xa->fixed && d->xb->fixed && d->xa->width + d->xb->width <= 64) { /* FP8: all in 64 bits */
		uint64_t la = (uint64_t)1 << ma, lb = (uint64_t)1 << mb, Qmax64 = 0, any64 = 0;
		for (size_t i = 0; i < len; i++) {
			uint64_t fa = (uint64_t)(a[i].sig < 0 ? -a[i].sig : a[i].sig),
				 fb = (uint64_t)(b[i].sig < 0 ? -b[i].sig : b[i].sig);
			uint64_t P = fa * fb, Q = (fa > la ? fa : la) * (fb > lb ? fb : lb);
			bp->P[i] = P;
			Qmax64 = P && Q > Qmax64 ? Q : Qmax64;
			zero |= !P;
			sum += P;
			any64 |= P;
		}
		Qmax = Qmax64;
		any = any64;
	} else if (d->xa->fixed && d->xb->fixed) { /* no shifts: every bound below 2^84 */
		uint64_t la = (uint64_t)1 << ma, lb = (uint64_t)1 << mb;
		for (size_t i = 0; i < len; i++) {
			uint64_t fa = (uint64_t)(a[i].sig < 0 ? -a[i].sig : a[i].sig),
				 fb = (uint64_t)(b[i].sig < 0 ? -b[i].sig : b[i].sig);
			u128 P = (u128)fa * fb, Q = (u128)(fa > la ? fa : la) * (fb > lb ? fb : lb);
			bp->P[i] = P;
			Q = P ? Q : 0;
			Qmax = Q > Qmax ? Q : Qmax;
			zero |= !P;
			sum += P;
			any |= P;
		}
	} else if (wide_window(d, a, b, len, ma, mb, bp)) {
		Qmax = bp->Qmax;
		sum = bp->sum;
		any = bp->any;
		zero = bp->zero;
	} else {
		/* the least and largest shift of a nonzero product, and its
		 * operands' least shifts: an operand whose shift is at least m is
		 * at or above 2^least (its significand is at least 1), so that
		 * its place factor is itself */
		int low = INT_MAX, high = INT_MIN, least_sa = INT_MAX, least_sb = INT_MAX;
		for (size_t i = 0; i < len; i++) {
			bool nonzero = a[i].sig && b[i].sig;
			int s = a[i].shift + b[i].shift;
			low = nonzero && s < low ? s : low;
			high = nonzero && s > high ? s : high;
			least_sa = nonzero && a[i].shift < least_sa ? a[i].shift : least_sa;
			least_sb = nonzero && b[i].shift < least_sb ? b[i].shift : least_sb;
		}
		bp->low = low = low == INT_MAX ? 0 : low;
		int bits = d->xa->sig_bits + d->xb->sig_bits;
		if (least_sa >= ma && least_sb >= mb && high - low + bits <= 64) {
			/* no operand below 2^least (each bound its product), all in 64 bits */
			uint64_t Qmax64 = 0, any64 = 0;
			for (size_t i = 0; i < len; i++) {
				uint64_t fa = (uint64_t)(a[i].sig < 0 ? -a[i].sig : a[i].sig),
					 fb = (uint64_t)(b[i].sig < 0 ? -b[i].sig : b[i].sig);
				int s = a[i].shift + b[i].shift - low;
				uint64_t P = (fa * fb) << (s & 63); /* a zero's shift may be anything */
				bp->P[i] = P;
				Qmax64 = P > Qmax64 ? P : Qmax64;
				zero |= !P;
				sum += P;
				any64 |= P;
			}
			Qmax = Qmax64;
			any = any64;
		} else
			for (size_t i = 0; i < len; i++) {
				bp->P[i] = 0;
				if (!a[i].sig || !b[i].sig) {
					zero = true;
					continue;
				}
				uint64_t sa, sb;
				int ha, hb;
				place_factor(&a[i], ma, &sa, &ha);
				place_factor(&b[i], mb, &sb, &hb);
				u128 Q = (u128)sa * sb;
				int sh = ha + hb - low;
				if (up64_bitlen128(Q) + sh > 120)
					return false;
				Q <<= sh;
				Qmax = Q > Qmax ? Q : Qmax;
				uint64_t fa = (uint64_t)(a[i].sig < 0 ? -a[i].sig : a[i].sig),
					 fb = (uint64_t)(b[i].sig < 0 ? -b[i].sig : b[i].sig);
				u128 P = ((u128)fa * fb) << (a[i].shift + b[i].shift - low); /* at most Q */
				bp->P[i] = P;
				sum += P;
				any |= P;
			}
	}
	bp->base = (long)d->xa->q + d->xb->q + we + bp->low;
	bp->zero = zero;
	bp->Qmax = Qmax;
	bp->sum = sum; /* below 2^126: 64 products below 2^120 */
	bp->any = any;
	return true;
}

/* How many of `parts` interleaved parts (k mod parts) hold a nonzero
 * product. */
static size_t nonempty_parts(const struct block_products *bp, size_t len, size_t parts)
{
	uint64_t used = 0; /* parts <= FPREF_TC_MAX_BLOCK */
	for (size_t i = 0; i < len; i++)
		used |= (uint64_t)(bp->P[i] != 0) << (i % parts);
	return (size_t)__builtin_popcountll(used);
}

/* The block's S: MPFR's upward sum of its products in order, which is
 * their exact sum when that fits in 64 bits on their least place. */
static struct up64 products_sum(const struct block_products *bp, size_t len)
{
	if (!bp->any)
		return (struct up64){ 0, 0 };
	int z = up64_ctz128(bp->any);
	if (!(bp->sum >> z >> 64))
		return (struct up64){ (uint64_t)(bp->sum >> z), bp->base + z };
	struct up64_place S = { 0, 0 }; /* below 2^126 */
	for (size_t i = 0; i < len; i++)
		up64_place_add(&S, bp->P[i]);
	return (struct up64){ S.m, bp->base + S.g };
}

/* The end of a block from its unit and sums, as
 * fpref_ref_bound_tc_block_end and fpref_ref_bound_rounding take it. */
static void block_end(struct block_rounding br, struct up64 unit, struct up64 S, struct up64 tau, struct up_running *r)
{
	if (r->mag.m) {
		struct up64 t = up64_min(r->mag, unit);
		up64_add(&tau, t.m, t.e);
	}
	struct up64 t = r->mag; /* the truncated sum is at most |acc| + S */
	up64_add(&t, S.m, S.e);
	up64_add(&r->err, tau.m, tau.e);
	/* one rounding of a value at most t: err += u t + eta, mag = t (1 + u) + eta */
	struct up64 ut = { t.m, t.e + br.log2_u };
	up64_add(&r->err, ut.m, ut.e);
	r->mag = t;
	up64_add(&r->mag, ut.m, ut.e);
	up64_add(&r->err, 1, br.log2_eta);
	up64_add(&r->mag, 1, br.log2_eta);
}

/* floor(v / 2^base) of an up64, saturated at 2^124 and more */
static u128 up64_floor_at(struct up64 v, long base)
{
	if (!v.m)
		return 0;
	long rel = v.e - base;
	if (rel >= 0)
		return rel + 64 - __builtin_clzll(v.m) > 124 ? ~(u128)0 : (u128)v.m << rel;
	return rel > -64 ? v.m >> -rel : 0;
}

/* The block's tau (called when some P > U): each nonzero product's loss
 * min(P, unit) (P itself when P <= U), summed upward in order on one
 * place L, the lower of unit's and the products'.  Every term fits 120
 * bits there: with L = base, some P > U = floor(unit / 2^base) and P <
 * 2^120 put unit below 2^120 2^base; with L below base, X >= Qmax 2^base
 * and unit = X 2^-F put Qmax below 2^(64 + F) on L (F is at most 36 in
 * every preset, which tests/check_exact.c runs, and in a custom model).  In 64-bit
 * words when unit lies on L and the products in 64 bits (then each loss
 * is at most unit, below 2^64 on L, and the sum below 2^70). */
_Static_assert(FPREF_TC_MAX_FRAC <= 56, "a block's losses fit 120 bits on one place");

static struct up64 losses_sum(const struct block_products *bp, size_t len, u128 U, struct up64 unit)
{
	long L = unit.e < bp->base ? unit.e : bp->base;
	int sp = (int)(bp->base - L), su = (int)(unit.e - L);
	if (su == 0 && !(bp->Qmax >> 64)) {
		/* a P <= U is P 2^sp <= unit.m here (U = 0 when sp >= 64: no such P but 0) */
		uint64_t U64 = (uint64_t)U, m = 0;
		int g = 0, s = sp & 63;
		for (size_t i = 0; i < len; i++) {
			uint64_t P = (uint64_t)bp->P[i], t = P <= U64 ? P << s : unit.m;
			uint64_t c = (t >> g) + ((t & (((uint64_t)1 << g) - 1)) != 0), sum; /* ceil(t / 2^g) */
			if (!__builtin_add_overflow(m, c, &sum)) {
				m = sum;
				continue;
			}
			m = up64_carry(sum);
			g++;
		}
		return (struct up64){ m, L + g };
	}
	u128 unit_at = (u128)unit.m << su;
	struct up64_place sum = { 0, 0 };
	for (size_t i = 0; i < len; i++)
		up64_place_add(&sum, bp->P[i] <= U ? bp->P[i] << sp : unit_at);
	return (struct up64){ sum.m, L + sum.g };
}

/* The block [k, k + len), as fpref_ref_bound_tc_block computes it: false (nothing
 * changed) when block_places says it is too wide. */
static bool integer_block(struct decoded_chain *d, size_t k, size_t len, struct up_running *r)
{
	struct block_products bp;
	if (!block_places(d, k, len, &bp))
		return false;
	d->zero_product |= bp.zero;
	/* X bounds 2^E: the floor, each product's place, the accumulator's (max(|c|, 2^-126)) */
	struct up64 X = d->floor_place;
	if (bp.Qmax)
		X = up64_max(X, up64_of_u128(bp.Qmax, bp.base));
	if (r->mag.m)
		X = up64_max(X, up64_max((struct up64){ 1, -126 }, r->mag));
	struct up64 unit = { X.m, X.e - d->m->frac };
	/* a product P <= U loses P, one above it unit */
	u128 U = up64_floor_at(unit, bp.base);
	struct up64 S = products_sum(&bp, len);
	/* with no product above U, tau takes S's terms */
	struct up64 tau = bp.Qmax > U ? losses_sum(&bp, len, U, unit) : S;
	block_end(d->br, unit, S, tau, r);
	return true;
}

/* The block [k, k + len), as fpref_ref_bound_two_stage_block computes it
 * (the losses of stage 1 added to r->err and the products to T, each
 * upward, in order). */
static bool integer_two_stage_block(struct decoded_chain *d, size_t k, size_t len, struct running *r)
{
	mpfr_ptr Q = d->tmp[0], X2 = d->tmp[1], unit = d->tmp[4], t = d->tmp[5], T = d->tmp[6];
	size_t parts = d->m->halves > 1 ? (size_t)d->m->halves : 1;
	struct block_products bp;
	if (!block_places(d, k, len, &bp))
		return false;
	d->zero_product |= bp.zero;
	fpref_ref_up64_get(Q, up64_of_u128(bp.Qmax, bp.base));
	mpfr_set(X2, Q, MPFR_RNDU);
	bool acc_nonzero = fpref_ref_bound_acc_place(X2, r);
	mpfr_mul_2si(unit, Q, -d->m->frac, MPFR_RNDU);
	/* a product P loses min(P, unit): P itself when P 2^F <= Qmax */
	u128 U = d->m->frac < 120 ? bp.Qmax >> d->m->frac : 0;
	struct up64 Tsum = fpref_ref_up64_of(r->mag), Esum = fpref_ref_up64_of(r->err);
	for (size_t i = 0; i < len; i++) {
		u128 P = bp.P[i];
		if (!P)
			continue;
		up64_add(&Tsum, P, bp.base);
		if (P <= U)
			up64_add(&Esum, P, bp.base);
		else
			up64_add(&Esum, bp.Qmax, bp.base - d->m->frac);
	}
	fpref_ref_up64_get(T, Tsum);
	fpref_ref_up64_get(r->err, Esum);
	fpref_ref_bound_two_stage_block_end(d->m, d->br, X2, unit, T, t, nonempty_parts(&bp, len, parts), acc_nonzero, r);
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
 * in integers (the block model's running bound held as up64s from one
 * block to the next), or, spread too wide, in MPFR (fpref_ref_bound_tc_block) from the
 * operands' values.  0, or -1 for no memory. */
static int decoded_chain_run(struct decoded_chain *d, size_t k0, size_t K, struct running *r)
{
	size_t n = (size_t)d->m->block;
	bool held = false; /* r's numbers in ur, not yet written back */
	struct up_running ur;
	for (size_t k = k0; k < k0 + K; k += n) {
		size_t len = k0 + K - k < n ? k0 + K - k : n;
		if (d->m->group > 0) {
			d->zero_product = true; /* its products unseen: the specials' scan runs */
			integer_group_block(d, k, len, r);
			continue;
		}
		if (d->m->sum_frac > 0) {
			if (integer_two_stage_block(d, k, len, r))
				continue;
		} else {
			if (!held)
				ur = (struct up_running){ fpref_ref_up64_of(r->err), fpref_ref_up64_of(r->mag) };
			held = true;
			if (integer_block(d, k, len, &ur))
				continue;
			fpref_ref_up64_get(r->err, ur.err);
			fpref_ref_up64_get(r->mag, ur.mag);
			held = false;
		}
		d->zero_product = true;
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
	if (held) {
		fpref_ref_up64_get(r->err, ur.err);
		fpref_ref_up64_get(r->mag, ur.mag);
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
	/* as bound_inputs_read and fpref_ref_tc_scale_weights: a NaN or inf
	 * input, then C, then the scales.  A NaN or inf operand has sig 0, so
	 * that the scan for them runs only where a product was 0 (or a block
	 * went unseen) or before another answer. */
	struct fpref_ref_value cv;
	fpref_ref_value_init(&cv);
	if (fpref_ref_from_bits(output, c, false, &cv) != 0) {
		fpref_ref_value_clear(&cv);
		if (fpref_ref_exact_any_special(a, b, K)) {
			mpfr_set_nan(bound);
			return 0;
		}
		return -1;
	}
	size_t chunks = scales ? (K + scales->every - 1) / scales->every : 0;
	long *we = scales ? malloc((chunks + 1) * sizeof *we) : NULL;
	mpfr_t *wv = scales && m->group > 0 ? new_values(chunks) : NULL;
	int status = !mpfr_number_p(cv.x) ? 1 : scales && (!we || (m->group > 0 && !wv)) ? -1 : 0;
	for (size_t q = 0; q < chunks && status == 0; q++)
		status = wv ? group_weight(scales, q, wv[q]) : scale_weight(scales, q, &we[q]);
	if (status != 0 && fpref_ref_exact_any_special(a, b, K))
		status = 1; /* NaN */
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
		int floor = fpref_tc_model_floor(m, output);
		if (floor != FPREF_TC_NO_FLOOR)
			d.floor_place = (struct up64){ 1, floor };
		/* on the stack: no allocation per call (the integer blocks never use them) */
		MPFR_DECL_INIT(t0, BOUND_PREC);
		MPFR_DECL_INIT(t1, BOUND_PREC);
		MPFR_DECL_INIT(t2, BOUND_PREC);
		MPFR_DECL_INIT(t3, BOUND_PREC);
		MPFR_DECL_INIT(t4, BOUND_PREC);
		MPFR_DECL_INIT(t5, BOUND_PREC);
		MPFR_DECL_INIT(t6, BOUND_PREC);
		mpfr_ptr t[7] = { t0, t1, t2, t3, t4, t5, t6 };
		for (int i = 0; i < 7; i++)
			d.tmp[i][0] = t[i][0];
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
		if ((d.zero_product || status != 0) && fpref_ref_exact_any_special(a, b, K)) {
			mpfr_set_nan(bound);
			status = 0;
		} else
			fpref_ref_bound_finish(output, &acc, bound);
		fpref_ref_bound_running_clear(&acc);
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
