/* fpref — the emulator: integer-only rounding, conversions and bulk arrays.
 *
 * The fast, independent second implementation.  It depends on formats/
 * only, never on MPFR, so that every comparison with the oracle (ref/)
 * means something.  Every path ends in one rounding core (emu/round_core.h,
 * internal: it takes a 128-bit significand, which public headers do not
 * expose). */
#ifndef FPREF_EMU_H
#define FPREF_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What format f makes of a special result: a NaN (signaling inputs raise
 * invalid), an infinity, or an exact zero. */
uint64_t fpref_emu_pack_nan(const struct fpref_format *f, const struct fpref_env *env, bool negative, bool signaling,
			    unsigned *flags);
/* A NaN converted from another format, with its payload (struct
 * fpref_unpacked's nan_payload) for the NaN styles that keep it. */
uint64_t fpref_emu_pack_nan_converted(const struct fpref_format *f, const struct fpref_env *env, bool negative,
				      bool signaling, uint64_t payload, unsigned *flags);
uint64_t fpref_emu_pack_inf(const struct fpref_format *f, const struct fpref_env *env, bool negative,
			    unsigned *flags);
uint64_t fpref_emu_pack_zero(const struct fpref_format *f, const struct fpref_env *env, bool negative,
			     unsigned *flags);

/* Convert one bit pattern.  Returns 0, or -1 for an invalid source pattern. */
int fpref_emu_convert(const struct fpref_format *from, uint64_t bits, const struct fpref_format *to,
		      const struct fpref_env *env, uint64_t sr_random, uint64_t *out, unsigned *flags);

/* Compute op on bit patterns in[0..arity) of format f, rounded once to f.
 * Comparisons write 1 or 0.  0, or -1 for an invalid pattern or a format
 * wider than FPREF_OP_MAX_MAN_BITS. */
int fpref_emu_op(enum fpref_op op, const struct fpref_format *f, const uint64_t *in, const struct fpref_env *env,
		 uint64_t sr_random, uint64_t *out, unsigned *flags);

/* ---- arrays ----
 * Elements sit in little-endian containers of 1, 2, 4 or 8 bytes (the
 * smallest that holds the format's container bits: FP4 and FP6 take a byte
 * each).  A converter holds what the fast paths precompute, so that no
 * global state is needed; build one per (from, to, env) and reuse it. */
struct fpref_emu_converter;

/* NULL on allocation failure or an invalid format. */
struct fpref_emu_converter *fpref_emu_converter_new(const struct fpref_format *from, const struct fpref_format *to,
						    const struct fpref_env *env);
void fpref_emu_converter_free(struct fpref_emu_converter *c);
/* Which path the converter takes: "table", "generic", or a vector path
 * named by its source ("fp32-vector", "fp64-vector", "fp16-vector",
 * "bf16-vector", "16-bit-vector"); "fp64-host-vector": FP64 to FP32 under
 * rne with overflow to inf, the host's conversion where no flags are asked
 * and the FPU rounds to nearest, keeps subnormals and traps nothing, else
 * the fp64-vector lanes. */
const char *fpref_emu_converter_path(const struct fpref_emu_converter *c);
/* The instruction set the fp32-vector path runs on: "avx512" (F, BW and
 * VL), "avx2" or "base" (x86-64's, or the machine's own elsewhere); the
 * widest this CPU has unless fpref_emu_converter_use_isa chose another.
 * The same bits on every one (tests/check_emu.c). */
const char *fpref_emu_converter_isa(const struct fpref_emu_converter *c);
/* Run the fp32-vector path on `isa` (a name above): 0, or -1 when this
 * build or CPU lacks it (the converter unchanged). */
int fpref_emu_converter_use_isa(struct fpref_emu_converter *c, const char *isa);

/* Convert n elements.  flags may be NULL; otherwise flags[i] receives the
 * flags of element i.  Stochastic rounding takes the random bits of element
 * i from env (fixed bits, or the seeded stream at index first_index + i).
 * Returns the number of invalid source patterns met (their outputs are the
 * target's NaN, or 0 where it has none, with the invalid flag). */
size_t fpref_emu_convert_array(const struct fpref_emu_converter *c, const void *in, void *out, size_t n,
			       uint8_t *flags, uint64_t first_index);

/* fpref_emu_convert_array on up to `threads` threads (0 or 1: this one),
 * each converting one contiguous slice (its stochastic bits indexed as in
 * one call): the same outputs and flags for every thread count. */
size_t fpref_emu_convert_array_threads(const struct fpref_emu_converter *c, const void *in, void *out, size_t n,
				       uint8_t *flags, uint64_t first_index, unsigned threads);

/* Arithmetic on arrays: a context per (op, format, environment); formats
 * of 8 bits or fewer answer unary and binary operations from a table of
 * every result.  NULL on allocation failure or an unsupported format. */
struct fpref_emu_op_context;
struct fpref_emu_op_context *fpref_emu_op_context_new(enum fpref_op op, const struct fpref_format *f,
						      const struct fpref_env *env);
void fpref_emu_op_context_free(struct fpref_emu_op_context *c);
/* Which path the context takes: "table", "fp32-lanes", "fp64-lanes", "fixed-point" (bits only) or "generic". */
const char *fpref_emu_op_context_path(const struct fpref_emu_op_context *c);
/* The instruction set its vector code runs on (the lanes, the tables'
 * gathers), as fpref_emu_converter_isa; fpref_emu_op_context_use_isa picks
 * another: 0, or -1 when this build or CPU lacks it. */
const char *fpref_emu_op_context_isa(const struct fpref_emu_op_context *c);
int fpref_emu_op_context_use_isa(struct fpref_emu_op_context *c, const char *isa);
/* out[i] = op(a[i], b[i], c[i]) for n elements (b and c unused below the
 * operation's arity), comparisons as 1 or 0; flags and stochastic bits as
 * in fpref_emu_convert_array.  Returns the number of invalid patterns met. */
size_t fpref_emu_op_array(const struct fpref_emu_op_context *c, const void *a, const void *b, const void *cc,
			  void *out, size_t n, uint8_t *flags, uint64_t first_index);

/* Seeded test data.  normal: the Irwin-Hall sum of twelve uniforms minus
 * 6 (mean 0, variance 1, within +-6); uniform: [-1, 1); positive: [0, 1).  Element i is
 * made from the counter-based stream (seed, first + i), times
 * 2^scale_log2, rounded once to f under env: the same bits on every
 * machine and for any split into calls.  Returns how many were inexact. */
enum fpref_dist { FPREF_DIST_NORMAL, FPREF_DIST_UNIFORM, FPREF_DIST_POSITIVE };
const char *fpref_emu_dist_name(enum fpref_dist d);
int fpref_emu_dist_parse(const char *s, enum fpref_dist *d);
size_t fpref_emu_random(const struct fpref_format *f, const struct fpref_env *env, enum fpref_dist d, int scale_log2,
			uint64_t seed, uint64_t first, size_t n, uint64_t *out);

/* Bytes per element of format f in arrays. */
size_t fpref_emu_element_bytes(const struct fpref_format *f);

/* ---- what pictures need (emu/picture.c, fpref draw) ----
 * The value of a pattern as a binary64 (rne): 0 exact, 1 rounded, -1 invalid. */
int fpref_emu_value_f64(const struct fpref_format *f, uint64_t bits, double *out);
/* A log2 axis's place of a finite nonzero value: its binade b (2^b <= |x| <
 * 2^(b+1)) plus (|x| / 2^b - 1), exact log2 at powers of two and linear
 * inside a binade, as the format's own grid is.  0, or -1 for zero, inf,
 * NaN or an invalid pattern. */
int fpref_emu_binade_position(const struct fpref_format *f, uint64_t bits, double *pos);
/* The spacing of the format's grid at a finite value, as a power of two:
 * 2^*e is its ulp (zero and subnormals: the least subnormal).  0 or -1. */
int fpref_emu_spacing_log2(const struct fpref_format *f, uint64_t bits, int *e);
/* Count the finite nonzero patterns of bits[0..n) by binade: counts[b - lo]
 * for lo <= b < lo + nbins, the others added to *below and *above.  Returns
 * how many were counted in all (zeros, inf and NaN are not). */
size_t fpref_emu_binade_counts(const struct fpref_format *f, const uint64_t *bits, size_t n, int lo, size_t nbins,
			       size_t *counts, size_t *below, size_t *above);

#ifdef __cplusplus
}
#endif
#endif
