/* Arithmetic on arrays through binary64 and the conversion lanes
 * (emu/op_lanes.c says why the results are correctly rounded).  Internal
 * to emu/: an op context (op_array.c) holds a plan. */
#ifndef FPREF_EMU_OP_LANES_H
#define FPREF_EMU_OP_LANES_H

#include "convert_lanes.h"

struct op_lanes_plan {
	enum fpref_op op;
	struct fpref_format f;
	struct fpref_env env;
	size_t bytes;
	bool ieee16;              /* decoded from the bits; else from the tables */
	bool binary16_f16c;       /* FP16 itself on a CPU with F16C: by its conversion instructions */
	bool bfloat16;            /* BF16: its bits are FP32's upper half */
	double sub_scale;         /* ieee16: the least subnormal */
	double value[256];        /* formats of 8 bits or fewer: each pattern's value */
	uint8_t special[256];     /* ... and whether it is NaN, inf or no pattern of the format */
	struct lanes_plan conv;   /* FP64 to f */
	/* the FP32 route (op_lanes32.c), where the format fits it */
	bool via32;
	bool byte_fields;         /* a byte decoded by its fields (dec32), else through value32 */
	bool byte_halves;         /* ... by FP16's fields and F16C (op_lanes32.c's as_halves) */
	float value32[256];       /* value[] as floats, NaN where special[] is set */
	struct dec {              /* decoding by fields (op_lanes32.c's by_fields) */
		uint32_t m, top, rebias, sign_shift, mag_mask, special_from, odd_special, beyond;
		float sub_scale, half_scale;
	} dec32;
	struct lanes_plan conv32; /* FP32 to f */
	/* BF16 on AVX-512 (op_lanes32.c): FP32's own range, rounded to odd by
	 * the instructions (struct wide_out) */
	bool wide32;
	/* the core's, for 2^200, -2^200, 2^-149 and -2^-149 (struct wide_out's
	 * over_pos, over_neg, tiny_pos, tiny_neg) */
	uint64_t class_code[4];
	uint8_t class_flags[4];
	bool codes_in_y; /* ... which, without flags, y's values give (struct wide_out) */
	/* BF16 mul and div on AVX-512 (op_lanes32.c): a chunk whose products
	 * are all FP32 normals or exact zeros (so exact), or its quotients
	 * rounded to odd at 24 bits, converted from FP32 by conv32 */
	bool exact32;
};

/* Whether add, sub, mul, div, sqrt or fma in f under env takes this path. */
bool fpref_emu_op_lanes_plan(enum fpref_op op, const struct fpref_format *f, const struct fpref_env *env,
			 struct op_lanes_plan *p);

/* the elements a chunk holds: its arrays on the stack, in cache */
enum { OP_LANES_CHUNK = 512 };

/* The FP32 route's part of p, its other fields set: whether f under env
 * takes it (op_lanes32.c says where and why). */
bool fpref_emu_op_lanes32_plan(struct op_lanes_plan *p);

/* What the BF16 route (wide32) leaves beside its FP32 results, a chunk's
 * worth: the elements whose exact value is beyond FLT_MAX (bit t % 16 of
 * word t / 16, by sign), and those whose value rounded to odd is FP32's
 * least subnormal (every exact value below it, one class as the ones
 * beyond are); y holds FLT_MAX and 2^-149 there, of their signs.  The
 * subnormals above it stay in y, rounded to odd on FP32's subnormal
 * grid. */
struct wide_out {
	uint16_t over_pos[OP_LANES_CHUNK / 16], over_neg[OP_LANES_CHUNK / 16];
	uint16_t tiny_pos[OP_LANES_CHUNK / 16], tiny_neg[OP_LANES_CHUNK / 16];
};

/* Whether the FP32 route runs on isa. */
bool fpref_emu_op_lanes_fp32(const struct op_lanes_plan *p, enum lanes_isa isa);

/* The operands of elements [i, i + n) decoded and op applied, rounded to
 * odd at 24 bits, as FP32 bits in y[0..n), n <= OP_LANES_CHUNK; whether
 * the core must decide any element (a NaN or inf operand, a division by
 * zero ...), and where it is true, rare[j] set for those; w (wide32;
 * NULL where the classes' codes are y's values, codes_in_y, and no flags
 * are asked) what y cannot hold; isa's steps (the FP32 values are the
 * same on each). */
bool fpref_emu_op_lanes32_compute(const struct op_lanes_plan *p, enum lanes_isa isa, const void *const *operands,
				  size_t i, size_t n, uint32_t *y, uint8_t *rare, struct wide_out *w);

/* wide32, after the FP32 lanes have converted y: the elements w holds, by
 * the plan's codes for +-2^200 and +-2^-149, into out[0..n) and flags
 * (may be NULL). */
void fpref_emu_op_lanes32_finish(const struct op_lanes_plan *p, enum lanes_isa isa, const struct wide_out *w,
				 void *out, uint8_t *flags, size_t n);

/* out[i] = op(a[i], b[i], c[i]) for n elements, flags where asked; the
 * elements it cannot decide go to by_core(ctx, i) (which writes out[i] and
 * flags[i] and returns 1 for an invalid pattern).  The invalid count. */
size_t fpref_emu_op_lanes(const struct op_lanes_plan *p, enum lanes_isa isa, const void *a, const void *b,
		      const void *c, void *out, size_t n, uint8_t *flags, uint64_t first_index,
		      size_t (*by_core)(const void *ctx, size_t i), const void *ctx);

#endif
