/* The tensor-core model rows (parameters and their sources) and the names
 * of the plain accumulation orders: data, nothing else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_formats_tc_model.h"

#define KM "Khattak & Mikaitis, arXiv:2512.07004"
#define FP8 "float8_e4m3fn,float8_e5m2"
#define H200 "; measured on an H200 (docs/accumulation.md, tests/data/h200-*.txt)"
/* h100 is the preset golden/vectors pins: FP8 with FP32 output from the
 * WGMMA unit, FP8 with FP16 output as mma.sync lowers it.  h100-mma and
 * h100-wgmma are what each instruction gives on sm_90 for every output. */
static const struct fpref_tc_model models[] = {
	{ "v100", "float16", 4, 23, FPREF_TC_NO_FLOOR, -19, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0, KM " (V100)", false },
	{ "a100", "float16,bfloat16", 8, 24, -132, -20, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0, KM " (A100)", false },
	{ "a100", "tf32", 4, 24, -132, -20, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (A100)", false },
	{ "h100", "float16,bfloat16", 16, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0, KM " (H100)", true },
	{ "h100", "tf32", 8, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (H100)", true },
	{ "h100", FP8, 32, 13, -133, -133, FPREF_RTZ, FPREF_RNE, FP8, 32, "float16", 2,
	  KM " (H100 FP8: the 14-bit accumulator); FP16 output: mma.sync as the compiler lowers it for sm_90, "
	     "found by matching ../shared/tc-hw and the SASS of that instruction", true },
	{ "h100-mma", "float16,bfloat16", 16, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0,
	  KM " (H100)" H200, true },
	{ "h100-mma", "tf32", 8, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (H100)" H200, true },
	{ "h100-mma", FP8, 32, 13, -133, -133, FPREF_RTZ, FPREF_RNE, FP8, 32, "float16,float32", 2,
	  "mma.sync FP8 as the compiler lowers it for sm_90, both outputs: FP16 HMMA blocks, then C added" H200, true },
	{ "h100-wgmma", "float16,bfloat16", 16, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0,
	  KM " (H100)" H200, true },
	{ "h100-wgmma", "tf32", 8, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (H100; not measured here)", true },
	{ "h100-wgmma", FP8, 32, 13, -133, -133, FPREF_RTZ, FPREF_RNE, FP8, 0, NULL, 0,
	  KM " (H100 FP8: the 14-bit accumulator); FP16 output: the same block rounded to nearest even, C in the "
	     "block" H200, true },
	{ "ada", "float16,bfloat16", 8, 24, -132, -132, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0, KM " (Ada)", false },
	{ "ada", "tf32", 4, 24, -132, -132, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (Ada)", false },
	{ "ada", FP8, 16, 13, -132, -132, FPREF_RTZ, FPREF_RNE, FP8, 0, NULL, 0, KM " (Ada FP8)", false },
	/* BF16 units outside NVIDIA (issue 21): one exact product per rounding
	 * into the FP32 accumulator, rne.  With blocks of 1 and 36 fraction
	 * bits the one rounding sees the product truncated 36 bits below the
	 * larger exponent, where an FMA keeps a sticky bit: it differs from an
	 * FP32 FMA chain only when a product lies more than 12 bits below the
	 * accumulator's last place and tips a tie.  Not modelled: the DAZ and
	 * FTZ of Intel's instructions, the order of TDPBF16PS's pairs. */
	{ "tpu-bf16", "bfloat16", 1, 36, FPREF_TC_NO_FLOOR, FPREF_TC_NO_FLOOR, FPREF_RNE, FPREF_RNE, "", 0, NULL, 0,
	  "Google Cloud blog, BFloat16: the secret to high performance on Cloud TPUs (bfloat16 multiplies, IEEE "
	  "float32 accumulation)", false },
	{ "intel-bf16", "bfloat16", 1, 36, FPREF_TC_NO_FLOOR, FPREF_TC_NO_FLOOR, FPREF_RNE, FPREF_RNE, "", 0, NULL, 0,
	  "Intel SDM, TDPBF16PS / VDPBF16PS (FP32 FMA per product, rne)", false },
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

static const struct fpref_tc_model *find_by_name(const char *gpu, const char *input)
{
	for (size_t i = 0; i < fpref_tc_model_count(); i++)
		if (strcmp(models[i].gpu, gpu) == 0 && lists(models[i].inputs, input))
			return &models[i];
	return NULL;
}

const struct fpref_tc_model *fpref_tc_model_find(const char *gpu, const struct fpref_format *input)
{
	return find_by_name(gpu, input->name);
}

bool fpref_tc_output_ok(const struct fpref_tc_model *m, const struct fpref_format *input,
			const struct fpref_format *output)
{
	if (strcmp(output->name, "float32") == 0)
		return true;
	/* a custom model (no list) may take FP16 output for any input */
	return strcmp(output->name, "float16") == 0 && (!m->fp16_inputs || lists(m->fp16_inputs, input->name));
}

bool fpref_tc_input_ok(const struct fpref_format *input)
{
	return input->man_bits <= 10 && input->exp_bits <= 8 && input->is_signed && input->has_zero;
}

bool fpref_tc_lowered(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	return m->lowered_k > 0 && m->lowered_outputs && lists(m->lowered_outputs, output->name);
}

int fpref_tc_model_floor(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	return fpref_format_is(output, FPREF_FORMAT_FLOAT16) ? m->floor_fp16 : m->floor_fp32;
}

void fpref_tc_model_env(const struct fpref_tc_model *m, const struct fpref_format *output, struct fpref_env *env)
{
	fpref_env_default(env);
	env->rounding = fpref_format_is(output, FPREF_FORMAT_FLOAT16) ? m->round_fp16 : m->round_fp32;
	env->overflow = FPREF_OVERFLOW_INF;
	env->zero_positive = m->zero_positive;
}

const struct fpref_tc_model *fpref_tc_model_lowered_blocks(const struct fpref_tc_model *m)
{
	return find_by_name(m->gpu, "float16");
}

static void describe_native(const struct fpref_tc_model *m, bool fp16, char *buf, size_t len)
{
	int floor = fp16 ? m->floor_fp16 : m->floor_fp32;
	char floor_text[16];
	if (floor == FPREF_TC_NO_FLOOR)
		snprintf(floor_text, sizeof floor_text, "none");
	else
		snprintf(floor_text, sizeof floor_text, "%d", floor);
	snprintf(buf, len, "%s tensor core: blocks of %d, %d fraction bits, floor %s, %s", m->gpu, m->block, m->frac,
		 floor_text, fpref_rounding_name(fp16 ? m->round_fp16 : m->round_fp32));
}

void fpref_tc_model_describe(const struct fpref_tc_model *m, const char *output, char *buf, size_t len)
{
	bool fp16 = strcmp(output, "float16") == 0;
	const struct fpref_tc_model *inner = m->lowered_k ? fpref_tc_model_lowered_blocks(m) : NULL;
	if (inner && m->lowered_outputs && lists(m->lowered_outputs, output)) {
		snprintf(buf, len,
			 "%s tensor core, %s output as the compiler lowers mma.sync: per %d products, inputs to FP16, groups "
			 "of %d (k / %d mod %d) in blocks of %d fraction bits, floor %d, %s, from zero; C added in %s",
			 m->gpu, fp16 ? "FP16" : "FP32", m->lowered_k, inner->block, m->interleave, m->lowered_k / inner->block,
			 inner->frac, fp16 ? inner->floor_fp16 : inner->floor_fp32,
			 fpref_rounding_name(fp16 ? inner->round_fp16 : inner->round_fp32), fp16 ? "FP16" : "FP32");
		return;
	}
	describe_native(m, fp16, buf, len);
}

int fpref_tc_model_custom(int block, int frac, int floor, enum fpref_rounding rounding, struct fpref_tc_model *m,
			  char *err, size_t errlen)
{
	if (block < 1 || block > FPREF_TC_MAX_BLOCK) {
		snprintf(err, errlen, "block %d out of range (1..%d products)", block, FPREF_TC_MAX_BLOCK);
		return -1;
	}
	if (frac < 1 || frac > FPREF_TC_MAX_FRAC) {
		snprintf(err, errlen, "fraction bits %d out of range (1..%d)", frac, FPREF_TC_MAX_FRAC);
		return -1;
	}
	if (floor != FPREF_TC_NO_FLOOR && (floor < -400 || floor > 400)) {
		snprintf(err, errlen, "alignment floor %d out of range (-400..400, or none)", floor);
		return -1;
	}
	if (rounding != FPREF_RTZ && rounding != FPREF_RNE) {
		snprintf(err, errlen, "the block's rounding must be rtz or rne, not %s", fpref_rounding_name(rounding));
		return -1;
	}
	*m = (struct fpref_tc_model){ "generic", "", block, frac, floor, floor, rounding, rounding, NULL, 0, NULL, 0,
				      "custom parameters", false };
	return 0;
}

int fpref_tc_model_from_description(const char *text, struct fpref_tc_model *m)
{
	int block, frac, used = 0;
	char floor_text[16], round_text[8], err[128];
	if (sscanf(text, "generic tensor core: blocks of %d, %d fraction bits, floor %15[^,], %7s%n", &block, &frac,
		   floor_text, round_text, &used) != 4 || text[used] != '\0')
		return -1;
	int floor = FPREF_TC_NO_FLOOR;
	char *end = NULL;
	if (strcmp(floor_text, "none") != 0) {
		long v = strtol(floor_text, &end, 10);
		if (*end)
			return -1;
		floor = (int)v;
	}
	enum fpref_rounding r;
	if (fpref_rounding_parse(round_text, &r) != 0)
		return -1;
	return fpref_tc_model_custom(block, frac, floor, r, m, err, sizeof err);
}

static const char *const order_names[] = { "recursive", "pairwise", "blocked", "fma-chain", "kahan" };

const char *fpref_sum_order_name(enum fpref_sum_order o)
{
	return order_names[o];
}

int fpref_sum_order_parse(const char *s, enum fpref_sum_order *o)
{
	for (int i = 0; i <= FPREF_SUM_KAHAN; i++)
		if (strcmp(s, order_names[i]) == 0) {
			*o = (enum fpref_sum_order)i;
			return 0;
		}
	return -1;
}
