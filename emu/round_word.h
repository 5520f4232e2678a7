/* The rounding core's common case in words of one width, without a
 * branch, so that a loop over many values vectorises: round.c includes
 * this once per width, WORD (the unsigned word), SWORD (the signed one),
 * WINT (the exponents' type), WORD_BITS, WORD_CLZ (its leading-zero
 * count) and W(name) the
 * name at this width.  64 bits serve the scalar core and the batch
 * rounding; 32 bits the batch rounding of narrow sums to narrow formats,
 * twice as many lanes per instruction, from the same lines; tc_tile_tree.c takes
 * the 32-bit rounding alone (ROUND_WORD_ROUNDING_ONLY) for its FP32 and
 * FP16 additions lane by lane (tree_add), which keep the rounded
 * significand unpacked.  Values 0 or
 * 1 in words where the scalar core has bools: bools do not vectorise.
 * Included without WORD (as the layering test includes every header) it
 * is empty. */
#ifdef WORD

/* Whether a rounding other than sr takes the upper neighbour: guard the
 * first bit discarded, rest whether anything below it was, inexact either,
 * odd whether the lower neighbour's code is odd (odd_point). */
static CORE_INLINE WORD W(rounds_up)(enum fpref_rounding rounding, WORD negative, WORD guard, WORD rest, WORD inexact,
				     WORD odd)
{
	switch (rounding) {
	case FPREF_RNE:
		return guard & (rest | odd);
	case FPREF_RNA:
		return guard;
	case FPREF_RUP:
		return inexact & (negative ^ 1);
	case FPREF_RDN:
		return inexact & negative;
	case FPREF_ROD:
		return inexact & (odd ^ 1);
	default: /* rtz */
		return 0;
	}
}

/* pack for a floating-point format (not an integer one): no call. */
static CORE_INLINE WORD W(pack_float)(const struct fpref_format *f, WORD negative, WORD field, WORD mantissa)
{
	WORD sign = (WORD)(negative & f->is_signed) << (f->exp_bits + f->man_bits);
	return (WORD)((sign | (WORD)(field << f->man_bits) | mantissa) << f->pad_bits);
}

/* round_to for the common case and a rounding other than sr: s to a
 * multiple of 2^q, s's leading bit at most M places above q and
 * shift = q - exp below WORD_BITS.  The same bits as round_to, both of
 * its cases (shift <= 0, where only a sticky remainder is dropped, and
 * shift > 0) in one sequence. */
static CORE_INLINE WORD W(round_to)(const struct fpref_format *f, enum fpref_rounding rounding, WORD s, WORD sticky,
				    WINT shift, WINT q, WORD negative, WORD *inexact)
{
	/* Clamped below WORD_BITS: tc_tile_tree.c's lane_add rounds every lane, also
	 * those whose result is 0 whatever the shift (two zeros, whose
	 * places lie near ZERO_EXPONENT, some 16,000 below the format's
	 * least) or is thrown away (a BF16 product outside FP32's range,
	 * whose slow lane tree_step redoes), and a shift by the word's width
	 * or more is undefined even there.  Where a result is kept and not 0
	 * its shift is below the width already: no kept bit changes. */
	WORD right = shift > 0 ? (WORD)shift : 0, left = shift < 0 ? (WORD)-shift : 0;
	right = right < WORD_BITS - 1 ? right : WORD_BITS - 1;
	left = left < WORD_BITS - 1 ? left : WORD_BITS - 1;
	WORD below = right > 0 ? right - 1 : 0; /* the guard bit's place; 0 with no bit dropped */
	WORD k = (WORD)((s >> right) << left);
	WORD guard = (WORD)(right > 0) & (s >> below);
	WORD rest = (WORD)((WORD)((s >> below) << below) != s) | sticky; /* a bit below the guard bit's */
	/* odd_point, in masks: k not 0 as the top bit of k | -k (k is small) */
	WORD by_code = (WORD)(0 - (WORD)(f->code_parity & (f->man_bits == 0)));
	WORD odd = (((WORD)(k | (WORD)(0 - k)) >> (WORD_BITS - 1)) & (WORD)(q + f->bias) & 1 & by_code) |
		   (k & 1 & (WORD)~by_code);
	*inexact = guard | rest;
	return (WORD)(k + W(rounds_up)(rounding, negative, guard, rest, *inexact, odd));
}

/* The common case rounded (round_to) and packed: inexact 1 where it was,
 * else 0.  The format's M below WORD_BITS - 2. */
static CORE_INLINE WORD W(round_common)(const struct fpref_format *f, enum fpref_rounding rounding, WORD negative,
					WINT exp, WORD s, WORD sticky, WINT lead, WORD *inexact)
{
	const int M = f->man_bits;
	/* at most 2^(M + 1): a word holds it */
	WORD k = W(round_to)(f, rounding, s, sticky, lead - M - exp, lead - M, negative, inexact);
	WORD carry = k >> (M + 1);
	return W(pack_float)(f, negative, (WORD)(lead + f->bias) + carry, (k >> carry) & (WORD)(((WORD)1 << M) - 1));
}

#ifndef ROUND_WORD_ROUNDING_ONLY /* tc_tile_tree.c's lanes take the rounding alone */
/* The batch rounding's loop over n exact values sum[i] * 2^exp[i] to lt's
 * format: the common case's result in out[i] where it applies (0
 * elsewhere), without a branch; *inexact 1 where a common one was
 * inexact, *rare 1 where one was not common (common_case, its tests of
 * the format taken out of the loop). */
static CORE_INLINE void W(round_lanes)(const struct fpref_emu_round_target *lt, enum fpref_rounding rounding, size_t n,
				       const SWORD *sum, const int32_t *exp, WORD *restrict out, WORD *inexact,
				       WORD *rare, bool search)
{
	/* the format read through the pointer, not a copy, whose bool fields
	 * the vectoriser does not take */
	const struct fpref_format *g = lt->format;
	const WORD any_sign = g->is_signed;
	const WINT emin = least_normal_exp(g), emax = lt->emax;
	WORD ix = 0, odd_one = 0;
	for (size_t i = 0; i < n; i++) {
		WORD sign = (WORD)sum[i] >> (WORD_BITS - 1), m = (WORD)(0 - sign); /* the magnitude without a branch */
		WORD mag = (WORD)(((WORD)sum[i] ^ m) - m);
		WINT lead = exp[i] + (search ? (WINT)W(fpref_emu_lead_bit)(mag | 1) : (WINT)(WORD_BITS - 1 - WORD_CLZ(mag | 1)));
		WORD common = (WORD)(mag != 0) & (any_sign | (sign ^ 1)) & (WORD)(lead >= emin) & (WORD)(lead < emax), x;
		WORD bits = W(round_common)(g, rounding, sign, exp[i], mag, 0, lead, &x);
		out[i] = common ? bits : 0;
		ix |= common & x;
		odd_one |= common ^ 1;
	}
	*inexact = ix;
	*rare = odd_one;
}
#endif
#endif
