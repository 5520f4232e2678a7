/* The bounds' upward sum beyond its fast cases (ref/up64.h): the exact
 * sum in 128 bits or in a 256-bit window, rounded upward to 64 bits; and
 * the conversions from and to MPFR. */
#include "fpref_ref_exact.h"
#include "up64.h"

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

/* 64 bits of the exact sum v 2^e (v > 0, at most 128 bits), rounded
 * upward, normalised (up64_add's sticky case takes the next sums) */
static void round_up64(struct up64 *x, u128 sum, long e)
{
	int over = up64_bitlen128(sum) - 64;
	if (over > 0) {
		bool dropped = (sum & (((u128)1 << over) - 1)) != 0;
		sum >>= over;
		e += over;
		if (dropped && ++sum >> 64) {
			sum >>= 1;
			e++;
		}
	}
	int s = __builtin_clzll((uint64_t)sum);
	x->m = (uint64_t)sum << s;
	x->e = e - s;
}

/* up64_add beyond its first cases: x normalised to 64 bits, then v wholly
 * below its last place (x and one more unit there), or the exact sum in
 * 128 bits, or in a 256-bit window. */
void fpref_ref_up64_add_wide(struct up64 *x, u128 v, long ev)
{
	int bits = up64_bitlen128(v);
	if (!x->m) {
		round_up64(x, v, ev);
		return;
	}
	int s = __builtin_clzll(x->m);
	uint64_t M = x->m << s;
	long E = x->e - s;
	if (ev + bits <= E) { /* 0 < v 2^ev < 2^E, x's last place */
		x->m = M + 1;
		x->e = E;
		if (!x->m) { /* 2^64 2^E */
			x->m = (uint64_t)1 << 63;
			x->e = E + 1;
		}
		return;
	}
	long least = ev < E ? ev : E, top = ev + bits > E + 64 ? ev + bits : E + 64;
	if (top - least <= 127) {
		round_up64(x, ((u128)M << (E - least)) + (v << (ev - least)), least);
		return;
	}
	long w0 = top - 250; /* the larger operand lies whole in [w0, top) */
	uint64_t w[5] = { 0, 0, 0, 0, 0 };
	bool sticky = false;
	put_bits(w, M, E - w0, &sticky);
	put_bits(w, v, ev - w0, &sticky);
	int limbs = 4;
	while (!w[limbs])
		limbs--;
	int t = limbs * 64 + 63 - __builtin_clzll(w[limbs]); /* the leading bit */
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

void fpref_ref_exact_add_up(uint64_t *m, long *e, uint64_t hi, uint64_t lo, long ev)
{
	struct up64 x = { *m, *e };
	up64_add(&x, (u128)hi << 64 | lo, ev);
	*m = x.m;
	*e = x.e;
}

struct up64 fpref_ref_up64_of(mpfr_srcptr x)
{
	struct up64 u = { 0, 0 };
	if (!mpfr_zero_p(x)) {
		MPFR_DECL_INIT(t, 64);
		u.e = (long)mpfr_get_exp(x) - 64;
		mpfr_mul_2si(t, x, -u.e, MPFR_RNDN);
		u.m = (uint64_t)mpfr_get_uj(t, MPFR_RNDN); /* exact: 64 bits */
	}
	return u;
}

void fpref_ref_up64_get(mpfr_ptr x, struct up64 u)
{
	mpfr_set_uj_2exp(x, (uintmax_t)u.m, u.e, MPFR_RNDN);
}
