/* The accumulation models the emulator runs, behind one call. */
#include "fpref_emu_tc.h"

int fpref_emu_model_dot(const struct fpref_accum_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			const uint64_t *a, const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *out,
			const struct fpref_env *env, uint64_t *d)
{
	unsigned flags = 0;
	switch (m->kind) {
	case FPREF_ACCUM_TC:
		if (m->splitk)
			return fpref_emu_tc_dot_splitk(&m->tc, in_a, in_b, a, b, K, m->splitk, c, d);
		return m->promote ? fpref_emu_tc_dot_promoted(&m->tc, in_a, in_b, a, b, K, m->promote, NULL, NULL, c, d)
				  : fpref_emu_tc_dot(&m->tc, in_a, in_b, a, b, K, c, out, d);
	case FPREF_ACCUM_PLAIN:
		return fpref_emu_dot(m->order, m->block, in_a, in_b, a, b, K, c, out, env, d, &flags);
	case FPREF_ACCUM_EXACT:
		break;
	}
	return -1;
}
