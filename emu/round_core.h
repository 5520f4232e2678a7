/* The emulator's one rounding core, for the library's own sources
 * (emu/, and golden/ above it): not installed, so that the public headers
 * hold no 128-bit type (unsigned __int128 is a GCC/Clang extension). */
#ifndef FPREF_ROUND_CORE_H
#define FPREF_ROUND_CORE_H

#include "fpref_emu.h"

/* An unrounded significand: 128 bits, so that an operation can hand the
 * core the target's precision plus every stochastic-rounding bit and more. */
typedef unsigned __int128 fpref_u128;

/* The one rounding core.  Rounds (-1)^negative * (sig + sticky) * 2^exp to
 * format f under env, where sticky means "and something nonzero below bit
 * 0" (callers keep at least sr_width + 2 exact bits below the target's last
 * place whenever sticky is set).  sig == 0 with sticky clear is an exact
 * zero.  ORs the raised flags into *flags and returns the bits. */
uint64_t fpref_emu_round_pack(const struct fpref_format *f, const struct fpref_env *env, uint64_t sr_random,
			      bool negative, int32_t exp, fpref_u128 sig, bool sticky, unsigned *flags);

#endif
