/* The accumulation model of fpref dot, gemm and verify-gemm: --model and
 * its parameters parsed once into the library's struct fpref_accum_model. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

static const char model_choices[] =
	"tensor cores: v100 (float16), a100, h100, h100-mma, h100-wgmma, ada (float16, bfloat16, tf32; h100* and ada also float8_e4m3fn, "
	"float8_e5m2); tcgen05, mma-sm100, mma-sm120 (also FP6/FP4 but on mma-sm100), tcgen05-mxf8f6f4, tcgen05-mxf4nvf4 "
	"(--scale-a/--scale-b, or unit scales), mfma-cdna3 (float16, bfloat16, tf32, FNUZ FP8), mfma-cdna1, mfma-cdna2 (float16, "
	"bfloat16), mfma-cdna2-legacy (bfloat16), mfma-cdna4 (float16, bfloat16, OCP FP8, FP6, FP4; inferred), mfma-cdna4-scale (OCP "
	"FP8, FP6, FP4); turing (float16); FMA chains, --out the input: dmma (float64), mfma-cdna1..3 (float32), mfma-cdna2, "
	"mfma-cdna3 (float64); a chip's name, in "
	"any case (h200, l40s, b200, mi300x ...; fpref --help lists them); BF16 units: tpu-bf16, "
	"intel-bf16 (bfloat16); "
	"generic (--block N --frac F [--floor E|none] [--final rtz|rne]); plain orders rounded in "
	"--out-format: recursive, pairwise, blocked [--block N], fma-chain, kahan; exact; tree (fpref dot only: --tree SPEC, "
	"a summation tree as fpref probe order prints it). A and B of two formats (--a-format, --b-format): "
	"the pairs a preset's instruction takes (its FP8, FP6 and FP4 rows; a refusal lists them), generic, the plain orders and "
	"exact";

static int parse_count(const char *cmd, const char *option, const char *text, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(text, &end, 10);
	if (!*text || *end || v < lo || v > hi) {
		cli_fail(cmd, "bad %s '%s' (an integer %ld..%ld)", option, text, lo, hi);
		return CLI_EXIT_USAGE;
	}
	*out = v;
	return 0;
}

/* Every (A, B) pair the preset's rows take, joined, in buf; false when no
 * row has that name. */
static bool preset_pairs(const char *name, char *buf, size_t len)
{
	const char *preset = fpref_tc_model_alias(name);
	size_t used = 0;
	*buf = '\0';
	for (size_t i = 0; i < fpref_tc_model_count() && used + 1 < len; i++) {
		const struct fpref_tc_model *row = fpref_tc_model_at(i);
		if (strcasecmp(row->gpu, preset) != 0)
			continue;
		if (used)
			used += (size_t)snprintf(buf + used, len - used, "; ");
		if (used + 1 < len)
			fpref_tc_model_pairs(row, buf + used, len - used);
		used = strlen(buf);
	}
	for (size_t i = 0; fpref_tc_fma_at(i) && used + 1 < len; i++) { /* its FMA-chain instructions */
		const struct fpref_tc_fma_row *row = fpref_tc_fma_at(i);
		if (strcasecmp(row->gpu, preset) == 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%s x %s", used ? "; " : "", row->input, row->input);
	}
	return used > 0;
}

int cli_model_resolve(const char *cmd, const struct cli_model_text *t, const struct fpref_format *in_a,
		      const struct fpref_format *in_b, const struct fpref_format *out, struct fpref_accum_model *m)
{
	bool mixed = !fpref_format_same(in_a, in_b);
	char pair[160];
	if (mixed)
		snprintf(pair, sizeof pair, "A %s, B %s", in_a->name, in_b->name);
	else
		snprintf(pair, sizeof pair, "%s", in_a->name);

	memset(m, 0, sizeof *m);
	if (!t->model) {
		cli_fail(cmd, "--model is needed (%s)", model_choices);
		return CLI_EXIT_USAGE;
	}
	long block = 32, frac = 0, floor = FPREF_TC_NO_FLOOR, promote = 0;
	if (t->block && parse_count(cmd, "--block", t->block, 1, 1 << 20, &block))
		return CLI_EXIT_USAGE;
	if (t->promote && parse_count(cmd, "--promote", t->promote, 1, 1 << 20, &promote))
		return CLI_EXIT_USAGE;
	m->block = (size_t)block;
	m->promote = (size_t)promote;
	bool generic = strcasecmp(t->model, "generic") == 0;
	if ((t->frac || t->floor || t->final || t->traits) && !generic) {
		cli_fail(cmd, "--frac, --floor, --final and --traits describe --model generic, not '%s'", t->model);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(t->model, "tree") == 0) {
		cli_fail(cmd, "--model tree is fpref dot's (with --tree SPEC), not fpref %s's", cmd);
		return CLI_EXIT_USAGE;
	}
	if (fpref_sum_order_parse(t->model, &m->order) == 0)
		m->kind = FPREF_ACCUM_PLAIN;
	else if (strcasecmp(t->model, "exact") == 0)
		m->kind = FPREF_ACCUM_EXACT;
	else if (generic) {
		m->kind = FPREF_ACCUM_TC;
		if (!t->block || !t->frac) {
			cli_fail(cmd, "--model generic needs --block N (products per block) and --frac F (fraction bits kept)");
			return CLI_EXIT_USAGE;
		}
		if (parse_count(cmd, "--frac", t->frac, 1, FPREF_TC_MAX_FRAC, &frac) ||
		    (t->floor && strcmp(t->floor, "none") != 0 && parse_count(cmd, "--floor", t->floor, -400, 400, &floor)))
			return CLI_EXIT_USAGE;
		enum fpref_rounding r = FPREF_RTZ;
		if (t->final && fpref_rounding_parse(t->final, &r) != 0) {
			cli_fail(cmd, "bad --final '%s' (rtz or rne)", t->final);
			return CLI_EXIT_USAGE;
		}
		char err[256];
		if (fpref_tc_model_custom((int)block, (int)frac, (int)floor, r, &m->tc, err, sizeof err) != 0 ||
		    (t->traits && fpref_tc_model_traits(&m->tc, t->traits, err, sizeof err) != 0)) {
			cli_fail(cmd, "--model generic: %s", err);
			return CLI_EXIT_USAGE;
		}
	} else if (fpref_tc_fma_find(t->model, in_a)) {
		char err[256];
		if (t->block) {
			cli_fail(cmd, "--block: the %s model's %s instructions are FMA chains, one product at a time", t->model,
				 in_a->name);
			return CLI_EXIT_USAGE;
		}
		if (fpref_tc_fma_model(fpref_tc_fma_find(t->model, in_a), in_a, in_b, out, t->shape, m, err, sizeof err) != 0) {
			cli_fail(cmd, "%s", err);
			return CLI_EXIT_USAGE;
		}
		if (promote || t->order) {
			cli_fail(cmd, "--promote and --order take a block model, not the FMA chain of %s", t->model);
			return CLI_EXIT_USAGE;
		}
		return 0;
	} else {
		const struct fpref_tc_model *row = fpref_tc_model_find_pair(t->model, in_a, in_b);
		char pairs[2048];
		if (!row && preset_pairs(t->model, pairs, sizeof pairs)) {
			cli_fail(cmd, "the %s model takes no %s x %s pair (A x B); it takes %s", t->model, in_a->name,
				 in_b->name, pairs);
			return CLI_EXIT_USAGE;
		}
		if (!row) {
			cli_fail(cmd, "no model '%s' (%s)", t->model, model_choices);
			return CLI_EXIT_USAGE;
		}
		if (t->block) {
			cli_fail(cmd, "--block is part of the %s model (%d); use --model generic to change it", t->model,
				  row->block);
			return CLI_EXIT_USAGE;
		}
		m->kind = FPREF_ACCUM_TC;
		m->tc = *row;
	}
	if (t->shape) {
		char err[512];
		if (m->kind != FPREF_ACCUM_TC || generic) {
			cli_fail(cmd, "--shape chains a preset's instruction; --model %s has none (--block says its blocks)",
				 t->model);
			return CLI_EXIT_USAGE;
		}
		if (fpref_tc_model_shape(&m->tc, out, t->shape, err, sizeof err) != 0) {
			cli_fail(cmd, "--shape: %s", err);
			return CLI_EXIT_USAGE;
		}
	}
	if (m->kind == FPREF_ACCUM_TC) {
		for (int k = 0; k < 2; k++) {
			const struct fpref_format *f = k ? in_b : in_a;
			if (!fpref_tc_input_ok(f)) {
				cli_fail(cmd, "tensor-core models take signed inputs of at most 10 fraction bits, not %s", f->name);
				return CLI_EXIT_USAGE;
			}
			if (!fpref_tc_output_ok(&m->tc, f, out)) {
				cli_fail(cmd, "the %s tensor core has no %s output for %s inputs (float32 always; float16 for %s)",
					 m->tc.gpu, out->name, pair, m->tc.fp16_inputs && *m->tc.fp16_inputs ? m->tc.fp16_inputs : "none");
				return CLI_EXIT_USAGE;
			}
		}
	} else if (out->man_bits > FPREF_OP_MAX_MAN_BITS) {
		cli_fail(cmd, "%s has %d fraction bits; accumulators of up to %d compute", out->name, out->man_bits,
			  FPREF_OP_MAX_MAN_BITS);
		return CLI_EXIT_USAGE;
	}
	if (promote && (m->kind != FPREF_ACCUM_TC || !fpref_format_is(out, FPREF_FORMAT_FLOAT32))) {
		cli_fail(cmd, "--promote needs a tensor-core model and --out-format float32");
		return CLI_EXIT_USAGE;
	}
	if (t->order) {
		static const char prefix[] = "cublaslt-splitk=";
		long slices = 0;
		if (strncmp(t->order, prefix, sizeof prefix - 1) != 0) {
			cli_fail(cmd, "bad --order '%s' (cublaslt-splitk=S)", t->order);
			return CLI_EXIT_USAGE;
		}
		if (parse_count(cmd, "--order cublaslt-splitk", t->order + sizeof prefix - 1, 1, 1 << 20, &slices))
			return CLI_EXIT_USAGE;
		if (m->kind != FPREF_ACCUM_TC || !fpref_format_is(out, FPREF_FORMAT_FLOAT32) || promote ||
		    fpref_tc_lowered(&m->tc, out)) {
			cli_fail(cmd, "--order %s needs a tensor-core model that is not lowered, --out-format float32 and no --promote",
				  t->order);
			return CLI_EXIT_USAGE;
		}
		m->splitk = (size_t)slices;
	}
	char why[256];
	if (promote && !fpref_tc_promote_ok(&m->tc, pair, why, sizeof why)) {
		cli_fail(cmd, "--promote: %s", why);
		return CLI_EXIT_USAGE;
	}
	if (promote && fpref_tc_lowered(&m->tc, out)) {
		cli_fail(cmd, "--promote: the %s model lowers %s inputs to FP16 instructions; promotion is modelled only for "
			  "the native unit (try h100-wgmma)", m->tc.gpu, pair);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

