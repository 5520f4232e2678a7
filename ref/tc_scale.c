/* The oracle's block scales of the tensor-core models: a scale's value
 * and place, the scales applied to a block's products (per group or per
 * product), each product's weight for the bounds, and the exact value of
 * a scaled dot product.  Their own file: the model paths (ref/tc_dot.c)
 * and the bounds (ref/tc_bound.c) read scales the same way. */
#include <stdlib.h>

#include "tc_oracle.h"

/* A scale's value (UE4M3: its sign ignored) and its alignment place. */
int fpref_ref_tc_read_scale(const struct fpref_format *f, uint64_t bits, struct fpref_ref_value *v, long *lead)
{
	if (f->is_signed)
		bits &= ~(1ull << (f->man_bits + f->exp_bits + f->pad_bits));
	if (fpref_ref_from_bits(f, bits, false, v) != 0)
		return -1;
	*lead = mpfr_number_p(v->x) && !mpfr_zero_p(v->x) ? lead_exponent(v->x, least_normal_exponent(f)) : 0;
	return 0;
}

/* The scales of the products [k, k + len) applied to the terms: the group
 * path replaces them by one term per group (the exact sum times both
 * scales, at the scales' places); otherwise E8M0 scales multiply each
 * product and move its place.  Returns the number of terms, with *nan set
 * when a scale is NaN, or -1 on a bad pattern. */
long fpref_ref_tc_apply_scales(const struct fpref_tc_model *m, const struct fpref_tc_scales *sc, size_t k, size_t len,
			       mpfr_t *terms, long *lead, bool *counts, bool *nan)
{
	struct fpref_ref_value sa, sb;
	fpref_ref_value_init(&sa);
	fpref_ref_value_init(&sb);
	size_t unit = m->group > 0 ? (size_t)m->group : len, count = 0;
	long status = 0;
	mpfr_t group_sum;
	mpfr_init2(group_sum, 128);
	for (size_t g = 0; g < len && status == 0; g += unit, count++) {
		long la = 0, lb = 0;
		if (sc && (fpref_ref_tc_read_scale(sc->format, sc->a[(k + g) / sc->every], &sa, &la) != 0 ||
			   fpref_ref_tc_read_scale(sc->format, sc->b[(k + g) / sc->every], &sb, &lb) != 0)) {
			status = -1;
			break;
		}
		if (!sc) {
			mpfr_set_ui(sa.x, 1, MPFR_RNDN);
			mpfr_set_ui(sb.x, 1, MPFR_RNDN);
		}
		if (mpfr_nan_p(sa.x) || mpfr_nan_p(sb.x))
			*nan = true;
		if (m->group == 0) { /* E8M0: a power of two, exact */
			for (size_t i = 0; i < len && sc; i++) {
				mpfr_mul(terms[i], terms[i], sa.x, MPFR_RNDN);
				mpfr_mul(terms[i], terms[i], sb.x, MPFR_RNDN);
				lead[i] += la + lb;
			}
			count = len;
			break;
		}
		mpfr_set_zero(group_sum, 1);
		for (size_t i = g; i < len && i < g + unit; i++)
			mpfr_add(group_sum, group_sum, terms[i], MPFR_RNDN); /* exact at 128 bits */
		mpfr_mul(group_sum, group_sum, sa.x, MPFR_RNDN);
		mpfr_mul(group_sum, group_sum, sb.x, MPFR_RNDN);
		mpfr_set_prec(terms[count], 128);
		mpfr_set(terms[count], group_sum, MPFR_RNDN);
		lead[count] = la + lb;
		counts[count] = !(sc && (mpfr_zero_p(sa.x) || mpfr_zero_p(sb.x)));
	}
	mpfr_clear(group_sum);
	fpref_ref_value_clear(&sa);
	fpref_ref_value_clear(&sb);
	return status ? -1 : (long)count;
}

/* Each product's scale factor (its chunk's sa * sb, exact), or NULL
 * without scales; *status 1 when a scale is NaN (no bound), -1 for a bad
 * pattern or no memory. */
mpfr_t *fpref_ref_tc_scale_weights(const struct fpref_tc_scales *sc, size_t K, int *status)
{
	if (!sc)
		return NULL;
	mpfr_t *w = new_values(K);
	struct fpref_ref_value x, y;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	long lead;
	for (size_t k = 0; w && k < K && *status == 0; k++) {
		if (fpref_ref_tc_read_scale(sc->format, sc->a[k / sc->every], &x, &lead) != 0 ||
		    fpref_ref_tc_read_scale(sc->format, sc->b[k / sc->every], &y, &lead) != 0)
			*status = -1;
		else if (mpfr_nan_p(x.x) || mpfr_nan_p(y.x))
			*status = 1;
		else
			mpfr_mul(w[k], x.x, y.x, MPFR_RNDN); /* exact: 8 significant bits at most */
	}
	if (!w)
		*status = -1;
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	return w;
}

int fpref_ref_dot_value_scaled(const struct fpref_format *in_a, const struct fpref_format *in_b,
			       const uint64_t *a, const uint64_t *b, size_t K, const struct fpref_tc_scales *scales,
			       uint64_t c, const struct fpref_format *acc, mpfr_ptr exact)
{
	if (!scales)
		return fpref_ref_dot_value(in_a, in_b, a, b, K, c, acc, exact);
	int scale_status = 0, status = 0;
	mpfr_t *w = fpref_ref_tc_scale_weights(scales, K, &scale_status);
	mpfr_t *terms = malloc((K + 1) * sizeof *terms);
	mpfr_ptr *refs = malloc((K + 1) * sizeof *refs);
	struct fpref_ref_value x, y;
	fpref_ref_value_init(&x);
	fpref_ref_value_init(&y);
	size_t n = 0;
	mpfr_exp_t top = MPFR_EMIN_MIN, bottom = MPFR_EMAX_MAX;
	if (scale_status < 0 || !terms || !refs)
		status = -1;
	/* each term exact: two significands of at most 64 bits and a weight of at most 8 */
	const mpfr_prec_t prec = 3 * 64;
	for (size_t k = 0; k <= K && status == 0; k++, n++) {
		bool is_c = k == K;
		mpfr_init2(terms[k], prec);
		refs[k] = terms[k];
		if (fpref_ref_from_bits(is_c ? acc : in_a, is_c ? c : a[k], false, &x) != 0 ||
		    (!is_c && fpref_ref_from_bits(in_b, b[k], false, &y) != 0)) {
			status = -1;
			n++;
			break;
		}
		if (is_c)
			mpfr_set(terms[k], x.x, MPFR_RNDN);
		else {
			mpfr_mul(terms[k], x.x, y.x, MPFR_RNDN);
			if (scale_status == 0)
				mpfr_mul(terms[k], terms[k], w[k], MPFR_RNDN);
		}
		if (mpfr_regular_p(terms[k])) {
			mpfr_exp_t e = mpfr_get_exp(terms[k]);
			top = e > top ? e : top;
			bottom = e - prec < bottom ? e - prec : bottom;
		}
	}
	if (status == 0 && scale_status == 1)
		mpfr_set_nan(exact); /* a NaN scale: the products it scales are NaN */
	else if (status == 0) {
		mpfr_set_prec(exact, top > bottom ? (mpfr_prec_t)(top - bottom) + 72 : 64);
		mpfr_sum(exact, refs, (unsigned long)n, MPFR_RNDN);
	}
	for (size_t k = 0; k < n; k++)
		mpfr_clear(terms[k]);
	free(terms);
	free(refs);
	if (w)
		free_values(w, K);
	fpref_ref_value_clear(&x);
	fpref_ref_value_clear(&y);
	return status;
}
