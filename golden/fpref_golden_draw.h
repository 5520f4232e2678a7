/* fpref — the pictures fpref draw composes from the library's figures,
 * as SVG text: every value of a format on a line, how one value rounds,
 * the catalogue's range and precision, and the error sweeps of promotion
 * and PyTorch's TF32 protocol.  The
 * command (fpref draw) and the Python package (fpref.draw) call these, so
 * that both give the same bytes; the values, errors and spacings come
 * from the oracle and the emulator, and the pictures only place them
 * (fpref_golden_svg.h writes them). */
#ifndef FPREF_GOLDEN_DRAW_H
#define FPREF_GOLDEN_DRAW_H

#include <stddef.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_tc_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What each returns: 0 and *svg (malloc'ed text the caller frees);
 * FPREF_DRAW_BAD_ARGS with a message in err (the caller's arguments: a
 * usage error); FPREF_DRAW_NO_MEMORY. */
#define FPREF_DRAW_BAD_ARGS (-1)
#define FPREF_DRAW_NO_MEMORY (-2)

/* The options' texts as fpref draw takes them, NULL where not given: range
 * "LO:HI" (formats of at most 8 bits: only the values in [LO, HI]); at, a
 * decimal read by the oracle, and window, values each side of it, 1..200
 * (wider formats: a window of codes about at; defaults 1 and 16). */
int fpref_golden_draw_numberline(const struct fpref_format *f, const char *range, const char *at, const char *window,
				 char **svg, char *err, size_t errlen);
/* How value (a decimal read exactly by the oracle; titles show it as
 * typed) rounds to `to` in env: its neighbours, the midpoint, where each
 * rounding mode sends it, stochastic rounding's probability, the error.
 * env's stochastic bits, where it rounds so, are the ones used. */
int fpref_golden_draw_rounding(const char *value, const struct fpref_format *to, const struct fpref_env *env,
			       char **svg, char *err, size_t errlen);
/* The whole catalogue's range against its precision. */
int fpref_golden_draw_formats(char **svg, char *err, size_t errlen);

/* The error of generated GEMMs (normwise, against the exact product) over
 * the depths K of ks ("K,K,...", 2 to 12 of them, 1..65536; default
 * 128,256,512,1024), for a tensor-core model alone and promoted to FP32
 * every `promote` products (DeepSeek-V3's experiment): M x N outputs
 * (size "MxN", default 8x8), FP32 D, A and B of `in` drawn from dist
 * (normal, uniform, positive: the default) with seed (default 1).  The
 * texts are the command's, NULL where not given; model and promote name
 * the two models in the title and legend. */
struct fpref_draw_promotion {
	const struct fpref_accum_model *alone, *promoted;
	const char *model, *promote;
	const struct fpref_format *in;
	const struct fpref_env *env;
	const char *ks, *size, *dist, *seed;
};
int fpref_golden_draw_promotion(const struct fpref_draw_promotion *p, char **svg, char *err, size_t errlen);
/* PyTorch's TF32 protocol (max |error| / mean |exact|) over N x N x N for
 * the sizes N of ks (default 16,32,64, each at most 512): tf32_model (the
 * a100 tensor core, FP32 inputs rounded to TF32) against f32_model (an
 * FP32 fma chain); dist (default normal) and seed as for promotion. */
int fpref_golden_draw_pytorch_tf32(const struct fpref_accum_model *tf32_model, const struct fpref_accum_model *f32_model,
				   const char *ks, const char *dist, const char *seed, char **svg, char *err,
				   size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
