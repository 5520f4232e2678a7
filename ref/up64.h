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

/* x += v 2^ev, rounded upward to 64 bits (mpfr_add, MPFR_RNDU) */
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
	fpref_ref_up64_add_wide(x, v, ev);
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
