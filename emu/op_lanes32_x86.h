/* The FP32 route's x86 steps (emu/op_lanes32_x86.c), for op_lanes32.c:
 * each for the instruction set its name says, which the caller checks.
 * Internal to emu/. */
#ifndef FPREF_EMU_OP_LANES32_X86_H
#define FPREF_EMU_OP_LANES32_X86_H

#include "op_lanes.h"

/* q[j] = sqrt(u[j]), j < n (-0 for -0; NaN below, for the core) */
void fpref_emu_op32_roots_avx512(const float *u, float *q, size_t n);
void fpref_emu_op32_roots_avx(const float *u, float *q, size_t n);
/* FP16 to FP32 by F16C, exact */
void fpref_emu_op32_halves_avx512(const uint16_t *a, size_t n, float *y);
void fpref_emu_op32_halves_f16c(const uint16_t *a, size_t n, float *y);
/* ... with NaN and inf marked in special[] (AVX-512 BW) */
void fpref_emu_op32_binary16_avx512(const uint16_t *a, size_t n, float *y, uint8_t *special);
/* a byte format through FP16's fields and F16C (op_lanes32.c's
 * as_halves), its specials marked: 32 bytes a step */
void fpref_emu_op32_bytes_avx512(const struct dec *d, const uint8_t *a, size_t n, float *y, uint8_t *special);
/* fma rounded to odd at FP32's precision by the rounding in the
 * instruction, on FP16 (bytes false) or a byte format decoded by FP16's
 * fields (bytes: dec's constants) in the registers; whether any element
 * is rare, and if so rare[] (NaN or inf operands, an exact zero sum under
 * rdn) */
bool fpref_emu_op32_fma_avx512(const struct dec *d, bool bytes, bool rdn, const void *x0, const void *x1, const void *x2,
			       size_t n, uint32_t *y, uint8_t *rare);
/* BF16's op rounded to odd at FP32's precision (x1, x2 NULL where the op
 * has none), decoded in the registers, NaN and inf operands rare; rare[]
 * as fpref_emu_op32_fma_avx512's; w as fpref_emu_op_lanes32_compute's */
bool fpref_emu_op32_bf16_odd_avx512(enum fpref_op op, bool rdn, const uint16_t *x0, const uint16_t *x1,
				    const uint16_t *x2, size_t n, uint32_t *y, uint8_t *rare, struct wide_out *w);
/* y[j] = a[j] * b[j] in FP32 from BF16 operands, j < n; whether every
 * product is exact: an FP32 normal, or a zero of a zero operand */
bool fpref_emu_op32_bf16_products_avx512(const uint16_t *a, const uint16_t *b, size_t n, uint32_t *y);
/* y[j] = a[j] / b[j] rounded to odd at 24 bits from BF16 operands;
 * whether every one is (a normal b, |a| >= 2^-100 or 0, an FP32-normal q) */
bool fpref_emu_op32_bf16_quotients_avx512(const uint16_t *a, const uint16_t *b, size_t n, uint32_t *y);
/* w's classes' codes and flags (over_pos, over_neg, tiny_pos, tiny_neg)
 * where its masks say, over out[0..n) */
void fpref_emu_op32_classes_avx512(const struct wide_out *w, const uint64_t code[4], const uint8_t fl[4], uint16_t *o,
				   uint8_t *flags, size_t n);

#endif
