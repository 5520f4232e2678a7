/* What the paths that compute exactly on the host FPU share (op_lanes.c,
 * tc_fused_lanes.c): their lane loops' clones, and a double moved to its
 * odd neighbour toward the exact value it rounds (that value rounded to
 * odd at 53 bits).  Internal to emu/. */
#ifndef FPREF_EMU_HOST_FPU_H
#define FPREF_EMU_HOST_FPU_H

#include <fenv.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/* The lane loops once per instruction set, vectorised (x86-64-v3 and v4
 * have fma as an instruction; sqrt without errno: a negative operand's
 * element goes to the core); fp-contract off: an addition whose error
 * TwoSum recovers must not be fused with the product before it. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define HOST_FPU_CLONES                                                                                       \
	__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"),                          \
		       optimize("tree-vectorize", "vect-cost-model=dynamic", "no-math-errno", "fp-contract=off")))
#else
#define HOST_FPU_CLONES
#endif

/* Whether this thread's FPU rounds to nearest, keeps subnormals (x86:
 * MXCSR's FTZ and DAZ clear; AArch64: FPCR's FZ clear) and traps no
 * exception (an inexact or overflowing step of a host path must not stop
 * the program where the core would have gone on). */
static inline bool host_fpu_plain(void)
{
	if (fegetround() != FE_TONEAREST)
		return false;
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
	unsigned csr = _mm_getcsr();
	if ((csr & 0x8040u) || (csr & 0x1F80u) != 0x1F80u) /* FTZ (bit 15), DAZ (bit 6); the masks, bits 7-12 */
		return false;
#elif defined(__aarch64__) && defined(__GNUC__)
	uint64_t fpcr;
	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	if (fpcr & ((UINT64_C(1) << 24) | (UINT64_C(0x9F) << 8))) /* FZ; the trap enables IDE, IXE ... IOE */
		return false;
#endif
	return true;
}

/* d moved to its neighbour toward the exact value (above d where up) where
 * d's last bit is even and the exact value is not d: the exact value
 * rounded to odd.  No branch, so that the loops vectorise; d = 0 comes
 * with inexact false (an exact zero sum, quotient or root). */
static inline __attribute__((always_inline)) double to_odd(double d, bool inexact, bool up)
{
	uint64_t b;
	memcpy(&b, &d, sizeof b);
	uint64_t step = (uint64_t)inexact & ~b & 1, down = 0 - (uint64_t)(up == (b >> 63)); /* toward zero */
	b += (step ^ down) - down;
	memcpy(&d, &b, sizeof d);
	return d;
}

#endif
