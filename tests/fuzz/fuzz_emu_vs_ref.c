/* The emulator against the oracle on fuzzer-chosen formats, environments,
 * operations and operands: any difference in bits or flags aborts. */
#include "fuzz.h"

static uint64_t take(const uint8_t **p, size_t *n, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++) {
		v = v << 8 | (*n ? **p : 0);
		if (*n) {
			(*p)++;
			(*n)--;
		}
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	size_t n = size;
	const struct fpref_format *f = fpref_format_at(take(&p, &n, 1) % fpref_format_count());
	const struct fpref_format *g = fpref_format_at(take(&p, &n, 1) % fpref_format_count());
	struct fpref_env env;
	fpref_env_default(&env);
	uint64_t e = take(&p, &n, 2);
	env.rounding = (enum fpref_rounding)(e % 7);
	env.overflow = (e >> 3) & 1 ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
	env.ftz = (e >> 4) & 1;
	env.daz = (e >> 5) & 1;
	env.tininess = (e >> 6) & 1 ? FPREF_TININESS_BEFORE : FPREF_TININESS_AFTER;
	env.sr_width = 1 + (unsigned)((e >> 7) % 16);
	uint64_t sr = take(&p, &n, 2) & ((1ull << env.sr_width) - 1);
	enum fpref_op op = (enum fpref_op)(take(&p, &n, 1) % FPREF_OP_COUNT);
	uint64_t in[3];
	for (int i = 0; i < 3; i++) {
		int width = fpref_format_width(f);
		in[i] = take(&p, &n, 8) & (width >= 64 ? ~0ull : (1ull << width) - 1);
		in[i] <<= f->pad_bits;
	}
	uint64_t r1 = 0, r2 = 0;
	unsigned f1 = 0, f2 = 0;
	struct fpref_unpacked u;
	if (fpref_decode(f, in[0], &u) != FPREF_DECODE_INVALID) {
		int a = fpref_emu_convert(f, in[0], g, &env, sr, &r1, &f1);
		int b = fpref_ref_convert(f, in[0], g, &env, sr, &r2, &f2);
		if (a != b || (a == 0 && (r1 != r2 || f1 != f2))) {
			fprintf(stderr, "convert %s %llx -> %s: emulator %llx %02x, oracle %llx %02x\n", f->name,
				(unsigned long long)in[0], g->name, (unsigned long long)r1, f1, (unsigned long long)r2, f2);
			abort();
		}
	}
	bool valid = true;
	for (int i = 0; i < fpref_op_arity(op); i++)
		valid = valid && fpref_decode(f, in[i], &u) != FPREF_DECODE_INVALID;
	if (valid && f->man_bits <= FPREF_OP_MAX_MAN_BITS) {
		r1 = r2 = 0;
		f1 = f2 = 0;
		int a = fpref_emu_op(op, f, in, &env, sr, &r1, &f1);
		int b = fpref_ref_op(op, f, in, &env, sr, &r2, &f2);
		if (a != b || (a == 0 && (r1 != r2 || f1 != f2))) {
			fprintf(stderr, "%s %s %llx %llx %llx: emulator %llx %02x, oracle %llx %02x\n", fpref_op_name(op), f->name,
				(unsigned long long)in[0], (unsigned long long)in[1], (unsigned long long)in[2],
				(unsigned long long)r1, f1, (unsigned long long)r2, f2);
			abort();
		}
	}
	return 0;
}
