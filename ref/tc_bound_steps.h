/* The steps of the a priori bounds that ref/tc_bound.c (every path, in
 * MPFR) and ref/tc_bound_exact.c (the block model, the two-stage and the
 * group paths from decoded operands) share: the running bound, a block's
 * rounding, its places, and the MPFR form of one block of each path, so
 * that the two files take the same steps.  Each operation rounds upward
 * at BOUND_PREC bits.  Internal: not installed. */
#ifndef FPREF_REF_TC_BOUND_STEPS_H
#define FPREF_REF_TC_BOUND_STEPS_H

#include "tc_oracle.h"

#define BOUND_PREC 64

struct running {
	mpfr_t err; /* bound on |computed - exact| so far */
	mpfr_t mag; /* bound on |computed| so far */
};

/* The unit roundoff and underflow step of a block's one rounding (the
 * row's rounding to the output, narrowed to F bits when F is fewer). */
struct block_rounding {
	long log2_u, log2_eta;
};

void fpref_ref_bound_running_init(struct running *r, mpfr_srcptr start);
void fpref_ref_bound_running_clear(struct running *r);
/* One rounding of a value whose magnitude is at most t: err += u t + eta,
 * mag = t (1 + u) + eta. */
void fpref_ref_bound_rounding(mpfr_ptr err, mpfr_ptr mag, mpfr_srcptr t, long log2_u, long log2_eta);
struct block_rounding fpref_ref_bound_block_rounding(const struct fpref_tc_model *m, const struct fpref_format *output);
/* X = 2^floor (0 without a floor); X = max(X, max(|c|, 2^-126)) when the
 * accumulator may be nonzero (returned). */
void fpref_ref_bound_floor_place(mpfr_ptr X, const struct fpref_tc_model *m, const struct fpref_format *output);
bool fpref_ref_bound_acc_place(mpfr_ptr X, const struct running *r);
/* One block of the block model and of the two-stage dot-add in MPFR
 * (abs_a, abs_b, w from the block's first product; tmp seven BOUND_PREC
 * temporaries), and their ends from the block's sums. */
void fpref_ref_bound_tc_block(const struct fpref_tc_model *m, struct block_rounding br, long least_a, long least_b,
			      const struct fpref_format *output, mpfr_t *abs_a, mpfr_t *abs_b, mpfr_t *w, size_t len,
			      struct running *r, mpfr_t *tmp);
void fpref_ref_bound_tc_block_end(struct block_rounding br, mpfr_srcptr unit, mpfr_ptr S, mpfr_ptr tau, mpfr_ptr t,
				  struct running *r);
void fpref_ref_bound_two_stage_block(const struct fpref_tc_model *m, struct block_rounding br, long least_a,
				     long least_b, mpfr_t *abs_a, mpfr_t *abs_b, mpfr_t *w, size_t len, struct running *r,
				     mpfr_t *tmp);
void fpref_ref_bound_two_stage_block_end(const struct fpref_tc_model *m, struct block_rounding br, mpfr_srcptr X2,
					 mpfr_srcptr unit, mpfr_ptr T, mpfr_ptr t, size_t nonempty, bool acc_nonzero,
					 struct running *r);
/* The group path: a group's weighted sum into T and tau; a block's end. */
void fpref_ref_bound_group_term(mpfr_ptr G, mpfr_srcptr w, mpfr_srcptr unit, mpfr_ptr T, mpfr_ptr tau, mpfr_ptr t);
void fpref_ref_bound_group_block_end(struct block_rounding br, mpfr_srcptr unit, mpfr_srcptr T, mpfr_ptr tau,
				     mpfr_ptr t, bool acc_nonzero, struct running *r);
/* acc = fl32(acc + part); the bound from the running one (+inf where the
 * result may overflow); whether fpref_ref_tc_bound_scaled takes these. */
void fpref_ref_bound_fp32_add(struct running *acc, const struct running *part);
void fpref_ref_bound_finish(const struct fpref_format *out, const struct running *r, mpfr_ptr bound);
bool fpref_ref_bound_args_ok(const struct fpref_tc_model *m, const struct fpref_format *in_a,
			     const struct fpref_format *in_b, const struct fpref_tc_scales *scales,
			     const struct fpref_format *output, size_t nc);

#endif
