/* fpref — the operations that both engines (ref/ and emu/) compute. */
#ifndef FPREF_OP_H
#define FPREF_OP_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum fpref_op {
	FPREF_OP_ADD,
	FPREF_OP_SUB,
	FPREF_OP_MUL,
	FPREF_OP_DIV,
	FPREF_OP_SQRT,
	FPREF_OP_FMA, /* a * b + c, one rounding */
	FPREF_OP_MIN, /* IEEE 754-2019 minimum: NaN if either is NaN, -0 < +0 */
	FPREF_OP_MAX, /* IEEE 754-2019 maximum */
	FPREF_OP_EQ,  /* quiet: invalid only for signaling NaNs; result 1 or 0 */
	FPREF_OP_LT,  /* signaling: invalid for any NaN */
	FPREF_OP_LE   /* signaling */
};
#define FPREF_OP_COUNT 11

/* Widest significand the arithmetic handles (float64's); wider custom
 * formats convert but do not compute. */
#define FPREF_OP_MAX_MAN_BITS 52

const char *fpref_op_name(enum fpref_op op);
int fpref_op_parse(const char *name, enum fpref_op *op);
int fpref_op_arity(enum fpref_op op);
bool fpref_op_is_compare(enum fpref_op op); /* result is 1 or 0, not a pattern */
const char *fpref_op_choices(void);

#ifdef __cplusplus
}
#endif
#endif
