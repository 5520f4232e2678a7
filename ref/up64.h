/* The bounds' upward arithmetic in integers: a nonnegative number
 * m 2^e (m < 2^64, not normalised) and the MPFR operations the block
 * model's bound takes on such numbers at BOUND_PREC = 64 bits, rounding
 * upward (mpfr_add, mpfr_max, mpfr_min, mpfr_mul_2si), so that
 * ref/tc_bound_exact.c runs that recurrence without MPFR and gets MPFR's
 * numbers bit for bit (tests/check_exact.c holds the sum against mpfr_add
 * and the bound against fpref_ref_tc_bound_scaled).  Internal: not
 * installed. */
#ifndef FPREF_REF_UP64_H
#define FPREF_REF_UP64_H

#include <stdbool.h>
#include <stdint.h>

#include <mpfr.h>

typedef unsigned __int128 u128;

/* A sum of integers on one place stays on it, in one 64-bit addition:
 * hence not normalised. */
struct up64 {
	uint64_t m;
	long e;
};

static inline int up64_bitlen128(u128 v)
{
	uint64_t hi = (uint64_t)(v >> 64);
	return hi ? 128 - __builtin_clzll(hi) : v ? 64 - __builtin_clzll((uint64_t)v) : 0;
}

static inline int up64_ctz128(u128 v)
{
	uint64_t lo = (uint64_t)v;
	return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(v >> 64));
}

/* up64_add beyond its first cases */
void fpref_ref_up64_add_wide(struct up64 *x, u128 v, long ev);

/* 2^64 + sum (a carry out of a 64-bit addition of at most 2^65 - 2, or of
 * a word, half a word and one) one place up, rounded upward: sum is at
 * most 2^64 - 2, so the result stays below 2^64. */
static inline uint64_t up64_carry(uint64_t sum)
{
	return (sum >> 1 | (uint64_t)1 << 63) + (sum & 1);
}

/* x += v 2^ev, rounded upward to 64 bits (mpfr_add, MPFR_RNDU).  Here
 * the cases a 64-bit addition on x's places takes: v on them (no bit
 * lost), or v below x's last place with x normalised (that place is then
 * x's 64-bit ulp: the bits of v below it count as one more there, the
 * least such number at or above the sum); a carry out moves the sum one
 * place up, rounded upward again, which is the same as rounding the exact
 * sum there since the places nest. */
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
	uint64_t h, below = 0;
	if (!x->m || v >> 64)
		goto wide;
	if (d >= 0) {
		if (d >= 64 || (uint64_t)v >> (63 - d) >> 1)
			goto wide;
		h = (uint64_t)v << d;
	} else {
		if (!(x->m >> 63))
			goto wide;
		h = d > -64 ? (uint64_t)v >> -d : 0;
		below = (d <= -64 || ((uint64_t)v & (((uint64_t)1 << -d) - 1)) != 0) ? 1u : 0u;
	}
	uint64_t sum;
	bool carry = __builtin_add_overflow(x->m, h, &sum);
	carry |= __builtin_add_overflow(sum, below, &sum);
	if (!carry) {
		x->m = sum;
		return;
	}
	x->m = up64_carry(sum);
	x->e++;
	return;
wide:
	fpref_ref_up64_add_wide(x, v, ev);
}

/* A sum of integers on one place (below 2^126 there), rounded upward to
 * 64 significant bits after each addition as up64_add rounds it: m 2^g
 * on that place, m >= 2^63 once g > 0.  A sum on the grid 2^g plus a term
 * is that sum plus the term rounded up to the grid (ceil(t / 2^g) more),
 * and a carry out moves it one place up, rounded up again (the places
 * nest): one 64-bit addition per term, the general case when the term is
 * too large for that. */
struct up64_place {
	uint64_t m;
	int g;
};

/* s = x rounded upward to 64 bits, x at least 2^64 (a term whose share
 * ceil(t / 2^g) is 2^64 or more) */
static inline void up64_place_exact(struct up64_place *s, u128 x)
{
	int g = up64_bitlen128(x) - 64;
	u128 m = (x + (((u128)1 << g) - 1)) >> g;
	s->m = m >> 64 ? (uint64_t)1 << 63 : (uint64_t)m;
	s->g = m >> 64 ? g + 1 : g;
}

static inline void up64_place_add(struct up64_place *s, u128 t)
{
	u128 c = (t + (((u128)1 << s->g) - 1)) >> s->g;
	if (c >> 64) {
		up64_place_exact(s, ((u128)s->m << s->g) + t);
		return;
	}
	uint64_t sum;
	if (!__builtin_add_overflow(s->m, (uint64_t)c, &sum)) {
		s->m = sum;
		return;
	}
	s->m = up64_carry(sum);
	s->g++;
}

/* v 2^e exactly, v with at most 64 significant bits */
static inline struct up64 up64_of_u128(u128 v, long e)
{
	if (!v)
		return (struct up64){ 0, 0 };
	int tz = up64_ctz128(v);
	return (struct up64){ (uint64_t)(v >> tz), e + tz };
}

/* -1, 0 or 1 as x <, = or > y */
static inline int up64_cmp(struct up64 x, struct up64 y)
{
	if (!x.m || !y.m)
		return (x.m != 0) - (y.m != 0);
	long tx = x.e + 64 - __builtin_clzll(x.m), ty = y.e + 64 - __builtin_clzll(y.m);
	if (tx != ty)
		return tx < ty ? -1 : 1;
	/* the same leading place: the one on the higher place moves down to
	 * the other's, within 64 bits */
	uint64_t a = x.e > y.e ? x.m << (x.e - y.e) : x.m, b = y.e > x.e ? y.m << (y.e - x.e) : y.m;
	return (a > b) - (a < b);
}

static inline struct up64 up64_max(struct up64 x, struct up64 y)
{
	return up64_cmp(x, y) >= 0 ? x : y;
}

static inline struct up64 up64_min(struct up64 x, struct up64 y)
{
	return up64_cmp(x, y) <= 0 ? x : y;
}

/* x (at most 64 bits, nonnegative) as an up64, and back */
struct up64 fpref_ref_up64_of(mpfr_srcptr x);
void fpref_ref_up64_get(mpfr_ptr x, struct up64 u);

#endif
