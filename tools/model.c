/* The accumulation model of fpref dot and fpref gemm: --model and its
 * parameters parsed once, then each dot product handed to the library. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char model_choices[] =
	"tensor cores: v100 (float16), a100, h100, h100-mma, h100-wgmma, ada (float16, bfloat16, tf32; h100* and ada also float8_e4m3fn, "
	"float8_e5m2), generic (--block N --frac F [--floor E|none] [--final rtz|rne]); plain orders rounded in "
	"--out: recursive, pairwise, blocked [--block N], fma-chain, kahan; exact";

static int parse_count(const char *option, const char *text, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(text, &end, 10);
	if (!*text || *end || v < lo || v > hi) {
		cli_error("bad %s '%s' (an integer %ld..%ld)", option, text, lo, hi);
		return CLI_EXIT_USAGE;
	}
	*out = v;
	return 0;
}

int cli_model_options(int argc, char **argv, struct cli_model_text *t, char **rest, int *nrest)
{
	static const char *const names[] = { "--model", "--block", "--frac", "--floor", "--final", "--promote" };
	const char **slots[] = { &t->model, &t->block, &t->frac, &t->floor, &t->final, &t->promote };
	return cli_take_options(argc, argv, names, slots, sizeof names / sizeof names[0], rest, nrest);
}

int cli_model_resolve(const struct cli_model_text *t, const struct fpref_format *in, const struct fpref_format *out,
		      struct cli_model *m)
{
	memset(m, 0, sizeof *m);
	if (!t->model) {
		cli_error("--model is needed (%s)", model_choices);
		return CLI_EXIT_USAGE;
	}
	long block = 32, frac = 0, floor = FPREF_TC_NO_FLOOR, promote = 0;
	if (t->block && parse_count("--block", t->block, 1, 1 << 20, &block))
		return CLI_EXIT_USAGE;
	if (t->promote && parse_count("--promote", t->promote, 1, 1 << 20, &promote))
		return CLI_EXIT_USAGE;
	m->block = (size_t)block;
	m->promote = (size_t)promote;
	bool generic = strcmp(t->model, "generic") == 0;
	if ((t->frac || t->floor || t->final) && !generic) {
		cli_error("--frac, --floor and --final describe --model generic, not '%s'", t->model);
		return CLI_EXIT_USAGE;
	}
	if (fpref_sum_order_parse(t->model, &m->order) == 0)
		m->kind = CLI_MODEL_PLAIN;
	else if (strcmp(t->model, "exact") == 0)
		m->kind = CLI_MODEL_EXACT;
	else if (generic) {
		m->kind = CLI_MODEL_TC;
		if (!t->block || !t->frac) {
			cli_error("--model generic needs --block N (products per block) and --frac F (fraction bits kept)");
			return CLI_EXIT_USAGE;
		}
		if (parse_count("--frac", t->frac, 1, FPREF_TC_MAX_FRAC, &frac) ||
		    (t->floor && strcmp(t->floor, "none") != 0 && parse_count("--floor", t->floor, -400, 400, &floor)))
			return CLI_EXIT_USAGE;
		enum fpref_rounding r = FPREF_RTZ;
		if (t->final && fpref_rounding_parse(t->final, &r) != 0) {
			cli_error("bad --final '%s' (rtz or rne)", t->final);
			return CLI_EXIT_USAGE;
		}
		char err[256];
		if (fpref_tc_model_custom((int)block, (int)frac, (int)floor, r, &m->tc, err, sizeof err) != 0) {
			cli_error("--model generic: %s", err);
			return CLI_EXIT_USAGE;
		}
	} else {
		const struct fpref_tc_model *row = fpref_tc_model_find(t->model, in);
		if (!row) {
			cli_error("no model '%s' for %s inputs (%s)", t->model, in->name, model_choices);
			return CLI_EXIT_USAGE;
		}
		if (t->block) {
			cli_error("--block is part of the %s model (%d); use --model generic to change it", t->model,
				  row->block);
			return CLI_EXIT_USAGE;
		}
		m->kind = CLI_MODEL_TC;
		m->tc = *row;
	}
	if (m->kind == CLI_MODEL_TC) {
		if (!fpref_tc_input_ok(in)) {
			cli_error("tensor-core models take signed inputs of at most 10 fraction bits, not %s", in->name);
			return CLI_EXIT_USAGE;
		}
		if (!fpref_tc_output_ok(&m->tc, in, out)) {
			cli_error("the %s tensor core has no %s output for %s inputs (float32 always; float16 for %s)",
				  m->tc.gpu, out->name, in->name, m->tc.fp16_inputs && *m->tc.fp16_inputs ? m->tc.fp16_inputs : "none");
			return CLI_EXIT_USAGE;
		}
	} else if (out->man_bits > FPREF_OP_MAX_MAN_BITS) {
		cli_error("%s has %d fraction bits; accumulators of up to %d compute", out->name, out->man_bits,
			  FPREF_OP_MAX_MAN_BITS);
		return CLI_EXIT_USAGE;
	}
	if (promote && (m->kind != CLI_MODEL_TC || strcmp(out->name, "float32") != 0)) {
		cli_error("--promote needs a tensor-core model and --out float32");
		return CLI_EXIT_USAGE;
	}
	if (promote && fpref_tc_lowered(&m->tc, out)) {
		cli_error("--promote: the %s model lowers %s inputs to FP16 instructions; promotion is modelled only for "
			  "the native unit (try h100-wgmma)", m->tc.gpu, in->name);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

const char *cli_model_describe(const struct cli_model *m, const char *out_name, char *buf, size_t len)
{
	if (m->kind == CLI_MODEL_EXACT)
		snprintf(buf, len, "exact (MPFR, one rounding)");
	else if (m->kind == CLI_MODEL_PLAIN && m->order == FPREF_SUM_BLOCKED)
		snprintf(buf, len, "blocked, blocks of %zu", m->block);
	else if (m->kind == CLI_MODEL_PLAIN)
		snprintf(buf, len, "%s", fpref_sum_order_name(m->order));
	else {
		fpref_tc_model_describe(&m->tc, out_name, buf, len);
		size_t n = strlen(buf);
		if (m->promote && n < len)
			snprintf(buf + n, len - n, ", promoted to FP32 every %zu", m->promote);
	}
	return buf;
}

int cli_model_dot(const struct cli_model *m, const struct fpref_format *in, const uint64_t *a, const uint64_t *b,
		  size_t K, uint64_t c, const struct fpref_format *out, const struct fpref_env *env, uint64_t *d)
{
	unsigned flags = 0;
	switch (m->kind) {
	case CLI_MODEL_TC:
		return m->promote ? fpref_emu_tc_dot_promoted(&m->tc, in, a, b, K, m->promote, NULL, NULL, c, d)
				  : fpref_emu_tc_dot(&m->tc, in, a, b, K, c, out, d);
	case CLI_MODEL_PLAIN:
		return fpref_emu_dot(m->order, m->block, in, a, b, K, c, out, env, d, &flags);
	case CLI_MODEL_EXACT:
		return fpref_ref_dot_exact(in, a, b, K, c, out, env, d, &flags);
	}
	return -1;
}

int cli_model_bound(const struct cli_model *m, const struct fpref_format *in, const uint64_t *a, const uint64_t *b,
		    size_t K, uint64_t c, const struct fpref_format *out, const struct fpref_env *env, mpfr_ptr bound)
{
	switch (m->kind) {
	case CLI_MODEL_TC:
		return fpref_ref_tc_bound(&m->tc, in, a, b, K, c, out, m->promote, bound);
	case CLI_MODEL_PLAIN:
		return fpref_ref_sum_bound(m->order, m->block, in, a, b, K, c, out, env, bound);
	case CLI_MODEL_EXACT: /* one correct rounding: the ulp error says it all */
		mpfr_set_nan(bound);
		return 0;
	}
	return -1;
}
