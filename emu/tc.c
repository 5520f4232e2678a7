/* Tensor-core block-FMA models: the parameters as data, one block routine,
 * and the emulator's rounding core for the single rounding of each block. */
#include <string.h>

#include "fpref_emu.h"
#include "fpref_tc.h"

static const struct fpref_tc_model models[] = {
	{ "v100", "float16", 4, 0, FPREF_TC_NO_FLOOR, -19, "Khattak & Mikaitis 2025, Table (V100)" },
	{ "a100", "float16,bfloat16", 8, 1, -132, -20, "Khattak & Mikaitis 2025 (A100)" },
	{ "a100", "tf32", 4, 1, -132, -20, "Khattak & Mikaitis 2025 (A100)" },
	{ "h100", "float16,bfloat16", 16, 2, -133, -21, "Khattak & Mikaitis 2025 (H100)" },
	{ "h100", "tf32", 8, 2, -133, -21, "Khattak & Mikaitis 2025 (H100)" },
	{ "h100", "float8_e4m3fn,float8_e5m2", 32, -10, -133, -133, "Khattak & Mikaitis 2025 (H100 FP8, the 14-bit accumulator)" },
	{ "ada", "float16,bfloat16", 8, 1, -132, -132, "Khattak & Mikaitis 2025 (Ada)" },
	{ "ada", "tf32", 4, 1, -132, -132, "Khattak & Mikaitis 2025 (Ada)" },
	{ "ada", "float8_e4m3fn,float8_e5m2", 16, -10, -132, -132, "Khattak & Mikaitis 2025 (Ada FP8)" },
};

size_t fpref_tc_model_count(void)
{
	return sizeof models / sizeof models[0];
}

const struct fpref_tc_model *fpref_tc_model_at(size_t i)
{
	return i < fpref_tc_model_count() ? &models[i] : NULL;
}

static bool lists(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

const struct fpref_tc_model *fpref_tc_model_find(const char *gpu, const struct fpref_format *input)
{
	for (size_t i = 0; i < fpref_tc_model_count(); i++)
		if (strcmp(models[i].gpu, gpu) == 0 && lists(models[i].inputs, input->name))
			return &models[i];
	return NULL;
}

/* A term: (-1)^negative * sig * 2^(exp - 23), sig an integer. */
struct term {
	bool negative;
	int exp;
	int64_t sig;
};

enum special { FINITE, POS_INF, NEG_INF, NOT_A_NUMBER };

static enum special merge(enum special s, enum special t)
{
	if (s == NOT_A_NUMBER || t == NOT_A_NUMBER || (s == POS_INF && t == NEG_INF) || (s == NEG_INF && t == POS_INF))
		return NOT_A_NUMBER;
	return s != FINITE ? s : t;
}

static uint64_t pack_special(const struct fpref_format *out, enum special s)
{
	uint64_t bits = 0;
	if (s == NOT_A_NUMBER)
		fpref_format_nan_bits(out, false, &bits);
	else
		fpref_format_inf_bits(out, s == NEG_INF, &bits);
	return bits;
}

/* One block: n products and c, rounded once to `output`. */
static int block(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		 const uint64_t *b, size_t n, uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	struct term terms[65];
	size_t count = 0;
	enum special special = FINITE;
	int shift_in = 23 - 2 * input->man_bits;
	for (size_t i = 0; i < n; i++) {
		struct fpref_unpacked x, y;
		if (fpref_decode(input, a[i], &x) == FPREF_DECODE_INVALID ||
		    fpref_decode(input, b[i], &y) == FPREF_DECODE_INVALID)
			return -1;
		bool nx = x.cls == FPREF_CLASS_NAN, ny = y.cls == FPREF_CLASS_NAN;
		bool ix = x.cls == FPREF_CLASS_INF, iy = y.cls == FPREF_CLASS_INF;
		bool zx = x.cls == FPREF_CLASS_ZERO, zy = y.cls == FPREF_CLASS_ZERO;
		bool negative = x.negative != y.negative;
		if (nx || ny || (ix && zy) || (iy && zx)) {
			special = merge(special, NOT_A_NUMBER);
			continue;
		}
		if (ix || iy) {
			special = merge(special, negative ? NEG_INF : POS_INF);
			continue;
		}
		if (zx || zy)
			continue; /* zero products are dropped */
		/* unnormalised: the exponent of the leading place, the input's least for subnormals */
		terms[count++] = (struct term){ negative, x.exponent + y.exponent + 2 * input->man_bits,
						(int64_t)(x.significand * y.significand) << shift_in };
	}
	/* c as an FP32-style 24-bit significand and exponent (-126 when subnormal) */
	struct fpref_format f32;
	fpref_format_parse("float32", &f32, NULL, 0);
	struct fpref_env exact;
	fpref_env_default(&exact);
	uint64_t c32;
	unsigned flags = 0;
	if (fpref_emu_convert(output, c, &f32, &exact, 0, &c32, &flags) != 0)
		return -1;
	struct fpref_unpacked z;
	fpref_decode(&f32, c32, &z);
	if (z.cls == FPREF_CLASS_NAN)
		special = merge(special, NOT_A_NUMBER);
	else if (z.cls == FPREF_CLASS_INF)
		special = merge(special, z.negative ? NEG_INF : POS_INF);
	else if (z.cls != FPREF_CLASS_ZERO)
		terms[count++] = (struct term){ z.negative, z.exponent + 23, (int64_t)z.significand };
	if (special != FINITE) {
		*d = pack_special(output, special);
		return 0;
	}
	bool fp16_out = output->man_bits == 10;
	int floor = fp16_out ? m->floor_fp16 : m->floor_fp32;
	int E = floor;
	for (size_t i = 0; i < count; i++)
		if (terms[i].exp > E)
			E = terms[i].exp;
	/* each term to F = 23 + neab fraction bits below E, magnitude truncated */
	int64_t sum = 0;
	for (size_t i = 0; i < count; i++) {
		int right = E - terms[i].exp - m->neab; /* sig * 2^(exp-23) in units of 2^(E-F) */
		int64_t t = right >= 63 ? 0 : right >= 0 ? terms[i].sig >> right : terms[i].sig << -right;
		sum += terms[i].negative ? -t : t;
	}
	struct fpref_env env;
	fpref_env_default(&env);
	env.rounding = fp16_out ? FPREF_RNE : FPREF_RTZ;
	const struct fpref_format *target = output;
	struct fpref_format narrow;
	if (!fp16_out && m->neab < 0) {
		/* FP8 inputs: truncated to 23 + neab fraction bits, in FP32's range */
		narrow = f32;
		narrow.man_bits = 23 + m->neab;
		target = &narrow;
	}
	flags = 0;
	uint64_t r = fpref_emu_round_pack(target, &env, 0, sum < 0, E - (23 + m->neab),
					  (fpref_u128)(sum < 0 ? -sum : sum), false, &flags);
	if (flags & FPREF_FLAG_OVERFLOW)
		r = pack_special(target, sum < 0 ? NEG_INF : POS_INF);
	*d = target == &narrow ? r << -m->neab : r;
	return 0;
}

int fpref_tc_dot(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
		 const uint64_t *b, size_t K, uint64_t c, const struct fpref_format *output, uint64_t *d)
{
	if (strcmp(output->name, "float32") != 0 && strcmp(output->name, "float16") != 0)
		return -1;
	uint64_t acc = c, zeros_a[64] = { 0 }, zeros_b[64] = { 0 };
	for (size_t k = 0; k < K; k += (size_t)m->block) {
		size_t n = K - k < (size_t)m->block ? K - k : (size_t)m->block;
		uint64_t pa[64], pb[64];
		/* pad the last block with zero products */
		memcpy(pa, zeros_a, sizeof pa);
		memcpy(pb, zeros_b, sizeof pb);
		memcpy(pa, a + k, n * sizeof *a);
		memcpy(pb, b + k, n * sizeof *b);
		if (block(m, input, pa, pb, (size_t)m->block, acc, output, &acc) != 0)
			return -1;
	}
	*d = acc;
	return 0;
}

int fpref_tc_dot_promoted(const struct fpref_tc_model *m, const struct fpref_format *input, const uint64_t *a,
			  const uint64_t *b, size_t K, size_t nc, const uint64_t *scale_a, const uint64_t *scale_b,
			  uint64_t c, uint64_t *d)
{
	if (nc == 0)
		return -1;
	struct fpref_format f32;
	fpref_format_parse("float32", &f32, NULL, 0);
	struct fpref_env env; /* FP32 arithmetic on ordinary cores: rne */
	fpref_env_default(&env);
	const uint64_t one = 0x3F800000;
	uint64_t acc = c;
	for (size_t k = 0, j = 0; k < K; k += nc, j++) {
		size_t len = K - k < nc ? K - k : nc;
		uint64_t p, s;
		unsigned flags = 0;
		if (fpref_tc_dot(m, input, a + k, b + k, len, 0, &f32, &p) != 0)
			return -1;
		uint64_t scales[3] = { scale_a ? scale_a[j] : one, scale_b ? scale_b[j] : one, 0 };
		fpref_emu_op(FPREF_OP_MUL, &f32, scales, &env, 0, &s, &flags);
		uint64_t args[3] = { s, p, acc };
		fpref_emu_op(FPREF_OP_FMA, &f32, args, &env, 0, &acc, &flags);
	}
	*d = acc;
	return 0;
}
