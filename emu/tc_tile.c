/* The GEMM's tile kernels for the block models: the block kernel (products
 * summed in 32- or 64-bit lanes), AMD's two-stage one and the group path's
 * (block-scaled FP4), each over TILE columns of B for one row of A.  Each
 * kernel is in this one file with the lane loops it inlines, cloned per
 * instruction set (BLOCK_CLONES) so that every lane loop vectorises; only a
 * slow lane (an inf or NaN, a NaN or zero scale) leaves it, for tc_dot.c's
 * block(). */
#include <stdint.h>
#include <stdlib.h>

#include "tc_tile.h"

/* The lanes' largest product exponent over k = 0, step, 2 step ... below n. */
static inline void tile_exponents(const int16_t *restrict ea, const int16_t *restrict eb, size_t stride,
				  size_t n, size_t step, int32_t *restrict E)
{
	for (size_t k = 0; k < n; k += step) {
		const int16_t *restrict row = eb + k * stride;
		for (size_t j = 0; j < TILE; j++) {
			int32_t e = ea[k] + row[j];
			E[j] = e > E[j] ? e : E[j];
		}
	}
}

/* The block's products for TILE lanes (k = 0, step, 2 step ... below n),
 * each truncated as aligned_sum truncates it, summed exactly, in 32-bit
 * lanes (twice as many per instruction as 64-bit ones).  They cannot leave
 * them (tile_fits): a product of two signed significands shifted to 23 +
 * lift fraction bits is below 2^(25 + lift) <= 2^31 in magnitude; aligned
 * at E it is shifted right by at least 23 + lift - F, so below 2^(F + 2);
 * and n of them, the positive and the negative ones summed apart, stay
 * below 2^32.  tile_sums64 is the same loop in 64-bit lanes, for the
 * plans whose F or lift 32 bits do not hold (tile_fits_wide: every F the
 * models take, at most FPREF_TC_MAX_FRAC = 36, the tpu-bf16 and
 * intel-bf16 rows' among them; the lanes themselves would hold 60). */
#define TILE_SUMS(NAME, UWORD, SWORD, BITS)                                                                       \
	static inline void NAME(const int16_t *restrict sa, const int16_t *restrict ea, const int16_t *restrict sb,     \
				const int16_t *restrict eb, size_t stride, size_t n, size_t step, int shift,            \
				const int32_t *restrict base, int64_t *restrict sum)                                    \
	{                                                                                                           \
		UWORD pos[TILE] = { 0 }, neg[TILE] = { 0 };                                                         \
		for (size_t k = 0; k < n; k += step) {                                                              \
			const int16_t *restrict s = sb + k * stride;                                                \
			const int16_t *restrict e = eb + k * stride;                                                \
			SWORD a = sa[k] * ((SWORD)1 << shift), x = ea[k];                                           \
			for (size_t j = 0; j < TILE; j++) {                                                         \
				SWORD product = a * s[j];                                                           \
				UWORD mag = product < 0 ? -(UWORD)product : (UWORD)product;                         \
				/* at least 0 (E is the block's largest exponent); BITS - 1 or more leaves 0 */     \
				UWORD right = (UWORD)(base[j] - (x + e[j]));                                        \
				UWORD v = mag >> (right < BITS - 1 ? right : BITS - 1), m = product < 0 ? ~(UWORD)0 : 0; \
				pos[j] += v & ~m;                                                                   \
				neg[j] += v & m;                                                                    \
			}                                                                                           \
		}                                                                                                   \
		for (size_t j = 0; j < TILE; j++)                                                                   \
			sum[j] += (int64_t)pos[j] - (int64_t)neg[j];                                                \
	}
TILE_SUMS(tile_sums, uint32_t, int32_t, 32)
TILE_SUMS(tile_sums64, uint64_t, int64_t, 64)
#undef TILE_SUMS

/* Lane j of a tile's block through block() itself (an inf or NaN among its
 * products or in c, or a NaN or zero scale).  A padding lane (an inf or
 * NaN in A makes it slow too) has no scales: its result is never stored. */
static uint64_t tile_slow_lane(const struct plan *p, const struct operands *a, const struct operands *b, size_t stride,
			       size_t n, size_t j, uint64_t c, const struct tile_scales *ts)
{
	struct scale_pair pairs[FPREF_TC_MAX_BLOCK];
	bool scaled = ts->row && j < ts->width;
	for (size_t q = 0; scaled && q * ts->unit < n; q++) {
		size_t chunk = (ts->k + q * ts->unit) / ts->every;
		pairs[q] = scale_product(&ts->row[chunk], &ts->col[j * ts->chunks + chunk]);
	}
	uint32_t sig[FPREF_TC_MAX_BLOCK];
	int32_t exp[FPREF_TC_MAX_BLOCK];
	uint64_t neg[FPREF_TC_MAX_BLOCK];
	uint8_t kind[FPREF_TC_MAX_BLOCK];
	struct operands col = { sig, exp, neg, kind };
	for (size_t k = 0; k < n; k++) {
		sig[k] = b->sig[k * stride + j];
		exp[k] = b->exp[k * stride + j];
		neg[k] = b->negative[k * stride + j];
		kind[k] = b->kind[k * stride + j];
	}
	return fpref_emu_tc_block(p, a, &col, n, c, scaled ? pairs : NULL);
}

/* c_term for TILE accumulators: cm 0 where c is zero (no term); slow[j] 1
 * where c is an inf or NaN.  A normal or zero c without a branch, a
 * subnormal one, rare, through c_term itself.  Returns whether any lane is
 * slow. */
static inline uint64_t tile_c_terms(const struct plan *p, const uint64_t *c, uint64_t *restrict cm,
				    int32_t *restrict ce, uint64_t *restrict cn, uint64_t *restrict slow)
{
	const struct fpref_format *o = p->output;
	const uint64_t special_field = (1u << o->exp_bits) - 1, man_mask = (1ull << o->man_bits) - 1;
	const unsigned man = (unsigned)o->man_bits, sign_at = man + (unsigned)o->exp_bits, up = 23 - man;
	const int32_t bias = o->bias;
	uint64_t subnormal_c = 0, any_slow = 0; /* 0 or 1, as wide as c: the loop vectorises */
	for (size_t j = 0; j < TILE; j++) {
		uint64_t field = (c[j] >> man) & special_field, m = c[j] & man_mask;
		uint64_t normal = field - 1 < special_field - 1; /* field 1 .. special_field - 1 */
		uint64_t s = field == special_field;
		slow[j] = s;
		any_slow |= s;
		subnormal_c |= (uint64_t)(field == 0) & (m != 0);
		ce[j] = (int32_t)field - bias;
		cm[j] = normal ? (m | (man_mask + 1)) << up : 0;
		cn[j] = 0 - ((c[j] >> sign_at) & 1);
	}
	for (size_t j = 0; subnormal_c && j < TILE; j++)
		if (!slow[j])
			c_term(p, c[j], &cm[j], &ce[j], &cn[j]); /* a zero's cm stays 0 */
	return any_slow;
}

/* The tile's results: every lane rounded in one call, then a slow lane's
 * replaced by block()'s. */
static inline void tile_finish(const struct plan *p, const struct operands *a, const struct operands *b,
			       size_t stride, size_t n, const int64_t *sum, const int32_t *place,
			       const uint64_t *slow, uint64_t any_slow, const struct tile_scales *ts, uint64_t *c)
{
	uint64_t r[TILE];
	unsigned flags = 0;
	fpref_emu_round_pack_sums(&p->round, &p->env, TILE, sum, place, r, &flags);
	for (size_t j = 0; j < TILE; j++)
		r[j] <<= p->target_shift;
	for (size_t j = 0; any_slow && j < TILE; j++)
		if (slow[j])
			r[j] = tile_slow_lane(p, a, b, stride, n, j, c[j], ts);
	for (size_t j = 0; j < TILE; j++)
		c[j] = r[j];
}

/* One block of n products for TILE columns: c[j] in, the block's result out;
 * a and ta point at row i's operands from the block's first k, b and tb at
 * B's operand (k, first column of the tile), b's rows stride apart and
 * tb's TILE apart; ts the block's scales, E8M0: each lane's exponent
 * offset (block()'s shift) moves its products' exponents, so the lane's
 * alignment is its largest product exponent (from floor - offset, as
 * block() starts it) plus the offset, and its products are truncated
 * against that less the offset.  wide: the products summed in 64-bit
 * lanes (tile_sums64, TILE_BLOCK_WIDE).  Cloned whole, with its loops
 * (tile_exponents and tile_sums inlined), so that each clone vectorises
 * every lane loop. */
static CORE_INLINE void tile_block_lanes(const struct plan *p, const struct operands *a, const struct operands *b,
					 const struct tile_operands *ta, const struct tile_operands *tb, size_t stride,
					 size_t n, const struct tile_scales *ts, uint64_t *c, bool wide)
{
	int32_t E[TILE], base[TILE], unscaled_base[TILE], ce[TILE], place[TILE];
	int64_t sum[TILE];
	uint64_t cm[TILE], cn[TILE], slow[TILE];
	const int32_t *restrict off = ts->exp[0];
	for (size_t j = 0; j < TILE; j++)
		E[j] = p->floor - off[j];
	tile_exponents(ta->exp, tb->exp, TILE, n, 1, E);
	uint64_t any_slow = tile_c_terms(p, c, cm, ce, cn, slow);
	for (size_t j = 0; j < TILE; j++) {
		uint64_t s = (uint64_t)(E[j] > p->slow_above) | ts->slow[j];
		slow[j] |= s;
		any_slow |= s;
		E[j] += off[j];
		E[j] = cm[j] && ce[j] > E[j] ? ce[j] : E[j];
	}
	for (size_t j = 0; j < TILE; j++) {
		base[j] = E[j] + 23 + p->lift - p->frac;
		unscaled_base[j] = base[j] - off[j];
		uint32_t right = (uint32_t)(base[j] - ce[j]); /* at least 0 where there is a term (cm not 0) */
		uint64_t v = slow[j] ? 0 : (cm[j] << p->lift) >> (right < 63 ? right : 63);
		sum[j] = (int64_t)((v ^ cn[j]) - cn[j]);
	}
	if (wide)
		tile_sums64(ta->sig, ta->exp, tb->sig, tb->exp, TILE, n, 1, p->shift_in, unscaled_base, sum);
	else
		tile_sums(ta->sig, ta->exp, tb->sig, tb->exp, TILE, n, 1, p->shift_in, unscaled_base, sum);
	for (size_t j = 0; j < TILE; j++)
		place[j] = E[j] - p->frac;
	tile_finish(p, a, b, stride, n, sum, place, slow, any_slow, ts, c);
}

BLOCK_CLONES void fpref_emu_tc_tile_block(const struct plan *p, const struct operands *a, const struct operands *b,
					  const struct tile_operands *ta, const struct tile_operands *tb,
					  size_t stride, size_t n, const struct tile_scales *ts, uint64_t *c)
{
	tile_block_lanes(p, a, b, ta, tb, stride, n, ts, c, false);
}

BLOCK_CLONES void fpref_emu_tc_tile_block_wide(const struct plan *p, const struct operands *a,
					       const struct operands *b, const struct tile_operands *ta,
					       const struct tile_operands *tb, size_t stride, size_t n,
					       const struct tile_scales *ts, uint64_t *c)
{
	tile_block_lanes(p, a, b, ta, tb, stride, n, ts, c, true);
}

/* two_stage_block for TILE lanes: each part's largest product exponent and
 * truncated sum as tile_block's (a part of zero products only has an
 * exponent below ZERO_EXPONENT / 2: no product of finite operands is that
 * small), then the parts, the sum and C combined lane by lane as
 * two_stage_block combines them.  A lane's E8M0 scales move its parts'
 * exponents by the lane's offset once they are summed: a part is
 * truncated against its own largest exponent, which the offset does not
 * change. */
static inline __attribute__((always_inline)) void two_stage_lanes(const struct plan *p, const struct operands *a,
								 const struct operands *b,
								 const struct tile_operands *ta,
								 const struct tile_operands *tb, size_t stride,
								 size_t n, const struct tile_scales *ts, uint64_t *c,
								 size_t parts)
{
	int32_t E[TILE_PARTS][TILE], base[TILE], ce[TILE], place[TILE];
	int64_t part[TILE_PARTS][TILE], sum[TILE];
	uint64_t cm[TILE], cn[TILE], slow[TILE];
	uint64_t any_slow = tile_c_terms(p, c, cm, ce, cn, slow);
	for (size_t h = 0; h < parts; h++) {
		for (size_t j = 0; j < TILE; j++) {
			E[h][j] = INT32_MIN / 2;
			part[h][j] = 0;
		}
		if (h >= n)
			continue;
		tile_exponents(ta->exp + h, tb->exp + h * TILE, TILE, n - h, parts, E[h]);
		for (size_t j = 0; j < TILE; j++) {
			uint64_t s = (uint64_t)(E[h][j] > p->slow_above) | ts->slow[j];
			slow[j] |= s;
			any_slow |= s;
			base[j] = E[h][j] + 23 + p->lift - p->frac;
		}
		tile_sums(ta->sig + h, ta->exp + h, tb->sig + h * TILE, tb->exp + h * TILE, TILE, n - h, parts,
			  p->shift_in, base, part[h]);
		for (size_t j = 0; j < TILE; j++)
			E[h][j] += ts->exp[0][j];
	}
	/* selections, not branches, where the data decide (a part's sign and
	 * which part leads are anybody's guess), lanes innermost so that the
	 * loops vectorise */
	int32_t E1[TILE];
	int64_t s[TILE];
	for (size_t j = 0; j < TILE; j++) {
		E1[j] = INT32_MIN / 2; /* below every part's: the largest of the parts with products */
		s[j] = 0;
	}
	for (size_t h = 0; h < parts; h++)
		for (size_t j = 0; j < TILE; j++)
			E1[j] = E[h][j] > E1[j] ? E[h][j] : E1[j];
	/* one part: E1 is its exponent (never below INT32_MIN / 2) and s its
	 * sum (0 for zero products) unshifted, as the loop below gives them */
	for (size_t j = 0; parts == 1 && j < TILE; j++)
		s[j] = part[0][j];
	for (size_t h = 0; parts > 1 && h < parts; h++)
		for (size_t j = 0; j < TILE; j++) {
			int32_t d = E[h][j] - E1[j];
			int64_t v = shift_floor(part[h][j], d < -63 ? -63 : d);
			s[j] += E[h][j] > ZERO_EXPONENT / 2 ? v : 0;
		}
	/* the plan's fields read before the loop, and & for && where both
	 * sides are plain values: no load under a condition, which the
	 * vectoriser does not take */
	const int32_t frac = p->frac, sum_frac = p->sum_frac, c_frac = p->c_frac, c_drop = p->c_drop;
	const bool drops = c_drop > 0;
	for (size_t j = 0; j < TILE; j++) {
		bool products = E1[j] > ZERO_EXPONENT / 2, have_c = cm[j] != 0;
		int32_t E2 = !products ? ce[j] : !have_c || E1[j] > ce[j] ? E1[j] : ce[j];
		int32_t k = (E1[j] - frac) - (E2 - sum_frac);
		int64_t total = products ? shift_floor(s[j], k < -63 ? -63 : k) : 0;
		bool keep_c = have_c & !(drops & (ce[j] < E2 - c_drop));
		int64_t cv = (int64_t)((cm[j] ^ cn[j]) - cn[j]);
		int64_t c_part = (int64_t)((uint64_t)shift_floor(cv, keep_c ? (ce[j] - 23) - (E2 - c_frac) : 0)
					   << (sum_frac - c_frac));
		total += keep_c ? c_part : 0;
		bool none = (slow[j] != 0) | (!products & !have_c);
		sum[j] = none ? 0 : total;
		place[j] = none ? 0 : E2 - sum_frac;
	}
	tile_finish(p, a, b, stride, n, sum, place, slow, any_slow, ts, c);
}

/* two_stage_lanes, the one-part rows (f16, bf16, xf32) with parts a
 * constant: no loop over parts, no shift of the one. */
BLOCK_CLONES void fpref_emu_tc_tile_block_two_stage(const struct plan *p, const struct operands *a,
						    const struct operands *b, const struct tile_operands *ta,
						    const struct tile_operands *tb, size_t stride, size_t n,
						    const struct tile_scales *ts, uint64_t *c)
{
	if (p->parts == 1)
		two_stage_lanes(p, a, b, ta, tb, stride, n, ts, c, 1);
	else
		two_stage_lanes(p, a, b, ta, tb, stride, n, ts, c, (size_t)p->parts);
}

/* block() on the group path for TILE lanes: each group's exact sum an
 * integer dot product of the shifted significands (tile_operand_set),
 * times the lane's scale significands for the group and aligned at their
 * exponent (group_terms), then the groups and C truncated and summed as
 * finish_block sums them.  bspecial[j]: column j's block holds an inf or
 * NaN (the products' exponents are not looked at here).  scaled false:
 * unit scales, as constants (tile_block_groups), so that the unscaled
 * GEMM's loops do not load and multiply them. */
static inline __attribute__((always_inline)) void groups_block(const struct plan *p, const struct operands *a,
							       const struct operands *b, const struct tile_operands *ta,
							       const struct tile_operands *tb, size_t stride, size_t n,
							       const uint8_t *bspecial, const struct tile_scales *ts,
							       bool scaled, uint64_t *c)
{
	int32_t E[TILE], base[TILE], ce[TILE], place[TILE];
	int64_t sum[TILE];
	uint64_t cm[TILE], cn[TILE], slow[TILE];
	uint64_t any_slow = tile_c_terms(p, c, cm, ce, cn, slow);
	uint8_t aspecial = 0;
	for (size_t k = 0; k < n; k++)
		aspecial |= a->kind[k] & (INF | NOT_A_NUMBER);
	/* every group counts for the alignment at its scales' exponent (a
	 * zero scale's lane is slow) */
	size_t g = (size_t)p->group;
	const int up = p->group_shift - (scaled ? ts->man : unit_scales.man);
	const int32_t unit_lead = p->floor > unit_scales.exp ? p->floor : unit_scales.exp;
	for (size_t j = 0; j < TILE; j++) {
		uint64_t s = (uint64_t)((aspecial | bspecial[j]) != 0) | (scaled ? ts->slow[j] : 0);
		int32_t lead = scaled ? ts->lead[j] : unit_lead;
		slow[j] |= s;
		any_slow |= s;
		E[j] = cm[j] && ce[j] > lead ? ce[j] : lead;
		base[j] = E[j] + 23 + p->lift - p->frac;
		uint32_t right = (uint32_t)(base[j] - ce[j]);
		uint64_t v = slow[j] ? 0 : (cm[j] << p->lift) >> (right < 63 ? right : 63);
		sum[j] = (int64_t)((v ^ cn[j]) - cn[j]);
		place[j] = E[j] - p->frac;
	}
	for (size_t k0 = 0, q = 0; k0 < n; k0 += g, q++) {
		int32_t gs[TILE] = { 0 };
		const int32_t *restrict group_exp = ts->exp[q];
		const uint32_t *restrict group_sig = ts->sig[q];
		for (size_t k = k0; k < n && k < k0 + g; k++) {
			const int16_t *restrict s = tb->sig + k * TILE;
			int32_t x = ta->sig[k];
			for (size_t j = 0; j < TILE; j++)
				gs[j] += x * s[j];
		}
		for (size_t j = 0; j < TILE; j++) {
			uint64_t m = gs[j] < 0 ? ~(uint64_t)0 : 0;
			uint64_t u = ((uint64_t)(int64_t)gs[j] ^ m) - m;
			uint32_t right = (uint32_t)(base[j] - (scaled ? group_exp[j] : unit_scales.exp));
			/* u below 2^31 (tile_groups_fit): a 32 x 32 -> 64-bit product */
			uint64_t v = (((u & 0xFFFFFFFF) * (scaled ? group_sig[j] : unit_scales.sig)) << up) >>
				     (right < 63 ? right : 63);
			sum[j] += (int64_t)((v ^ m) - m);
		}
	}
	tile_finish(p, a, b, stride, n, sum, place, slow, any_slow, ts, c);
}

BLOCK_CLONES void fpref_emu_tc_tile_block_groups(const struct plan *p, const struct operands *a,
						 const struct operands *b, const struct tile_operands *ta,
						 const struct tile_operands *tb, size_t stride, size_t n,
						 const uint8_t *bspecial, const struct tile_scales *ts, uint64_t *c)
{
	groups_block(p, a, b, ta, tb, stride, n, bspecial, ts, false, c);
}

BLOCK_CLONES void fpref_emu_tc_tile_block_groups_scaled(const struct plan *p, const struct operands *a,
							const struct operands *b, const struct tile_operands *ta,
							const struct tile_operands *tb, size_t stride, size_t n,
							const uint8_t *bspecial, const struct tile_scales *ts, uint64_t *c)
{
	groups_block(p, a, b, ta, tb, stride, n, bspecial, ts, true, c);
}
