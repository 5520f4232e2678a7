/* fpref lab: one recipe of the training lab (golden/lab.c) and what it
 * measured. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct lab_text {
	const char *steps, *seed;
	bool json;
};

static const struct cli_opt lab_opts[] = {
	{ "--steps", CLI_VALUE, "N", "60", "training steps", offsetof(struct lab_text, steps), 0 },
	{ "--seed", CLI_VALUE, "S", "1", "the data and the starting weights", offsetof(struct lab_text, seed), 0 },
	{ "--json", CLI_FLAG, NULL, NULL, "one JSON document on stdout", offsetof(struct lab_text, json), 0 },
};

static int cmd_lab(int argc, char **argv);

const struct cli_command cli_cmd_lab = {
	.name = "lab",
	.synopsis = "RECIPE [--steps N] [--seed S] [--json]",
	.summary = "Train a small model (linear regression, Adam, heavy-tailed data) under a mixed-precision recipe,\n"
		   "every operation through the emulator; report loss, dead weights, skips, scales, Inf/NaN, flushes.",
	.details = "RECIPE: fp32, bf16, fp16-noscale, fp16-gradscaler, fp16-no-master, fp16-wrong-cast-order,\n"
		   "fp8-tensor-delayed, fp8-tensor-current, fp8-deepseek, fp8-uncalibrated (docs/lab.md).\n"
		   "Every figure is exact and the same on every machine; each run also trains fp32 for the\n"
		   "relative difference of the final loss.\n",
	.opts = lab_opts,
	.nopts = CLI_NOPTS(lab_opts),
	.max_positional = 1,
	.examples = { "fpref lab fp16-noscale --steps 50", "fpref lab fp8-uncalibrated --json" },
	.run = cmd_lab,
};

static int parse_number(const char *option, const char *text, unsigned long long hi, unsigned long long *out)
{
	char *end;
	unsigned long long v = strtoull(text, &end, 10);
	if (!*text || *end || text[0] == '-' || v > hi) {
		cli_fail(cli_cmd_lab.name, "bad %s '%s' (an integer 0..%llu)", option, text, hi);
		return CLI_EXIT_USAGE;
	}
	*out = v;
	return 0;
}

/* An FP32 pattern as decimal (exact, shortest that reads back: the oracle's printer). */
static void put_f32(uint32_t bits)
{
	const struct fpref_format *f = fpref_format_get(FPREF_FORMAT_FLOAT32);
	char hex[16];
	cli_hex(f, bits, hex, sizeof hex);
	char *s = fpref_ref_shortest(f, bits);
	printf("%s (%s)", s ? s : "?", hex);
	free(s);
}

static void put_f32_json(const char *key, uint32_t bits)
{
	const struct fpref_format *f = fpref_format_get(FPREF_FORMAT_FLOAT32);
	char hex[16];
	cli_hex(f, bits, hex, sizeof hex);
	char *s = fpref_ref_shortest(f, bits);
	printf("\"%s\": \"%s\", \"%s_bits\": \"%s\"", key, s ? s : "?", key, hex);
	free(s);
}

static void put_text(const char *name, const struct fpref_lab_result *r)
{
	printf("recipe: %s\n", name);
	printf("steps: %zu\n", r->steps);
	printf("first loss: ");
	put_f32(r->first_loss);
	printf("\nfinal loss: ");
	put_f32(r->final_loss);
	printf("\nfp32 final loss: ");
	put_f32(r->fp32_loss);
	printf("\nrelative difference from fp32: ");
	put_f32(r->relative_difference);
	printf("\nweights never changed: %zu of %zu\n", r->weights_unchanged, r->weights);
	printf("nonzero updates that left the weight unchanged: %zu of %zu\n", r->updates_lost, r->updates_nonzero);
	printf("skipped steps: %zu\n", r->skipped_steps);
	printf("loss scale: ");
	if (!r->scaled)
		printf("none\n");
	else {
		size_t shown = r->scale_changes + 1 < FPREF_LAB_SCALE_LOG ? r->scale_changes + 1 : FPREF_LAB_SCALE_LOG;
		for (size_t i = 0; i < shown; i++) {
			printf(i ? ", " : "");
			printf("step %zu: ", r->scale_log[i].step);
			char *s = fpref_ref_shortest(fpref_format_get(FPREF_FORMAT_FLOAT32), r->scale_log[i].scale);
			printf("%s", s ? s : "?");
			free(s);
		}
		printf(shown < r->scale_changes + 1 ? ", ... (%zu changes)\n" : " (%zu changes)\n", r->scale_changes);
	}
	printf("Inf/NaN values produced: %zu\n", r->nonfinite);
	printf("gradients flushed to zero: %zu of %zu nonzero\n", r->grads_flushed, r->grads_nonzero);
	printf("FP8 values clipped at 448: %zu\n", r->fp8_saturated);
}

static void put_json(const char *name, const struct fpref_lab_result *r)
{
	printf("{\"recipe\": \"%s\", \"steps\": %zu, ", name, r->steps);
	put_f32_json("first_loss", r->first_loss);
	printf(", ");
	put_f32_json("final_loss", r->final_loss);
	printf(", ");
	put_f32_json("fp32_final_loss", r->fp32_loss);
	printf(", ");
	put_f32_json("relative_difference", r->relative_difference);
	printf(", \"weights\": %zu, \"weights_unchanged\": %zu, \"updates_nonzero\": %zu, \"updates_lost\": %zu, "
	       "\"skipped_steps\": %zu, \"loss_scale\": [",
	       r->weights, r->weights_unchanged, r->updates_nonzero, r->updates_lost, r->skipped_steps);
	size_t shown = r->scaled ? (r->scale_changes + 1 < FPREF_LAB_SCALE_LOG ? r->scale_changes + 1 : FPREF_LAB_SCALE_LOG) : 0;
	for (size_t i = 0; i < shown; i++) {
		char *s = fpref_ref_shortest(fpref_format_get(FPREF_FORMAT_FLOAT32), r->scale_log[i].scale);
		printf("%s{\"step\": %zu, \"scale\": \"%s\"}", i ? ", " : "", r->scale_log[i].step, s ? s : "?");
		free(s);
	}
	printf("], \"scale_changes\": %zu, \"nonfinite\": %zu, \"grads_nonzero\": %zu, \"grads_flushed\": %zu, "
	       "\"fp8_saturated\": %zu}\n",
	       r->scale_changes, r->nonfinite, r->grads_nonzero, r->grads_flushed, r->fp8_saturated);
}

static int cmd_lab(int argc, char **argv)
{
	struct lab_text a;
	memset(&a, 0, sizeof a);
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_lab, argc, argv, &o, &a);
	if (r)
		return r;
	if (o.npositional != 1) {
		cli_fail(cli_cmd_lab.name, "a RECIPE is needed (see fpref lab --help)");
		return CLI_EXIT_USAGE;
	}
	struct fpref_lab_config c = { FPREF_LAB_FP32, FPREF_LAB_DEFAULT_STEPS, 1, true };
	if (fpref_golden_lab_recipe_parse(o.positional[0], &c.recipe) != 0) {
		cli_fail(cli_cmd_lab.name, "unknown recipe '%s' (see fpref lab --help)", o.positional[0]);
		return CLI_EXIT_USAGE;
	}
	unsigned long long v;
	if (a.steps) {
		if (parse_number("--steps", a.steps, FPREF_LAB_MAX_STEPS, &v) || v == 0) {
			if (v == 0)
				cli_fail(cli_cmd_lab.name, "bad --steps '%s' (at least 1)", a.steps);
			return CLI_EXIT_USAGE;
		}
		c.steps = (size_t)v;
	}
	if (a.seed) {
		if (parse_number("--seed", a.seed, ~0ull, &v))
			return CLI_EXIT_USAGE;
		c.seed = v;
	}
	struct fpref_lab_result res;
	char err[256];
	if (fpref_golden_lab_run(&c, &res, err, sizeof err) != 0) {
		cli_fail(cli_cmd_lab.name, "%s", err);
		return CLI_EXIT_FAIL;
	}
	if (a.json)
		put_json(o.positional[0], &res);
	else
		put_text(o.positional[0], &res);
	return CLI_EXIT_OK;
}
