/* fpref lab: one recipe of the training lab (golden/lab.c) and what it
 * measured; --svg draws it step by step against fp32 (tools/draw_reports.c,
 * the picture of fpref draw lab). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

struct lab_text {
	const char *steps, *seed, *svg, *compare;
	bool json;
};

static const struct cli_opt lab_opts[] = {
	{ "--steps", CLI_VALUE, "N", "60", "training steps", offsetof(struct lab_text, steps), 0 },
	{ "--seed", CLI_VALUE, "S", "1", "the data and the starting weights", offsetof(struct lab_text, seed), 0 },
	{ "--json", CLI_FLAG, NULL, NULL, "one JSON document on stdout", offsetof(struct lab_text, json), 0 },
	{ "--svg", CLI_VALUE, "FILE.svg", NULL,
	  "draw loss, loss scale, skips, weights not yet moved, flushes and Inf/NaN step by step (as fpref draw lab)",
	  offsetof(struct lab_text, svg), 0 },
	{ "--compare", CLI_VALUE, "RECIPE,...", NULL, "with --svg: more recipes in the same picture (at most 5)",
	  offsetof(struct lab_text, compare), 0 },
};

static int cmd_lab(int argc, char **argv);

const struct cli_command cli_cmd_lab = {
	.name = "lab",
	.synopsis = "RECIPE [--steps N] [--seed S] [--json] [--svg FILE.svg [--compare RECIPE,...]]",
	.summary = "Train a small model (linear regression, Adam, heavy-tailed data) under a mixed-precision recipe,\n"
		   "every operation through the emulator; report loss, dead weights, skips, scales, Inf/NaN, flushes.",
	.details = "RECIPE: fp32, bf16, fp16-noscale, fp16-gradscaler, fp16-no-master, fp16-wrong-cast-order,\n"
		   "fp8-tensor-delayed, fp8-tensor-current, fp8-deepseek, fp8-uncalibrated (docs/lab.md).\n"
		   "Every figure is exact and the same on every machine; each run also trains fp32 for the\n"
		   "relative difference of the final loss.  --svg draws the run step by step against fp32 (and the\n"
		   "--compare recipes, trained with the same seed); --svg - writes the picture, not the report, on\n"
		   "standard output.\n",
	.opts = lab_opts,
	.nopts = CLI_NOPTS(lab_opts),
	.max_positional = 1,
	.examples = { "fpref lab fp8-uncalibrated --json",
		      "fpref lab fp16-gradscaler --compare fp16-noscale --steps 16 --svg lab.svg" },
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
	printf("FP8 values clipped at the format's largest finite: %zu\n", r->fp8_saturated);
	for (size_t i = 0; i < FPREF_LAB_GEMMS; i++) {
		const struct fpref_lab_gemm *g = &r->gemms[i];
		printf("%s GEMM %s: A %s %s x B %s %s, %s\n", g->name, g->product, g->a, g->in_a->name, g->b, g->in_b->name,
		       g->model ? g->model : "FP32 FMA chains");
	}
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
	       "\"fp8_saturated\": %zu, \"gemms\": [",
	       r->scale_changes, r->nonfinite, r->grads_nonzero, r->grads_flushed, r->fp8_saturated);
	for (size_t i = 0; i < FPREF_LAB_GEMMS; i++) {
		const struct fpref_lab_gemm *g = &r->gemms[i];
		printf("%s{\"gemm\": \"%s\", \"product\": \"%s\", \"a\": \"%s\", \"in_a\": \"%s\", \"b\": \"%s\", "
		       "\"in_b\": \"%s\", \"model\": ", i ? ", " : "", g->name, g->product, g->a, g->in_a->name, g->b,
		       g->in_b->name);
		if (g->model)
			printf("\"%s\"}", g->model);
		else
			printf("null}");
	}
	printf("]}\n");
}

/* Every recipe's name, comma-separated: what an unknown name is told. */
static void recipe_names(char *out, size_t size)
{
	size_t used = 0;
	*out = '\0';
	for (int r = 0; r < FPREF_LAB_RECIPE_COUNT && used < size; r++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", r ? ", " : "",
					 fpref_golden_lab_recipe_name((enum fpref_lab_recipe)r));
}

/* --compare's list: each a recipe, none twice, not fp32 (always drawn) nor
 * RECIPE; 0, or CLI_EXIT_USAGE after a message. */
static int parse_compare(const char *text, enum fpref_lab_recipe main, enum fpref_lab_recipe *list, int *n)
{
	*n = 0;
	for (const char *p = text;;) {
		size_t len = strcspn(p, ",");
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
		enum fpref_lab_recipe r;
		if (fpref_golden_lab_recipe_parse(name, &r) != 0) {
			char names[512];
			recipe_names(names, sizeof names);
			cli_fail(cli_cmd_lab.name, "--compare: unknown recipe '%s' (recipes: %s)", name, names);
			return CLI_EXIT_USAGE;
		}
		bool twice = r == main || r == FPREF_LAB_FP32;
		for (int i = 0; i < *n; i++)
			twice |= list[i] == r;
		if (twice) {
			cli_fail(cli_cmd_lab.name, "--compare: %s is drawn already (fp32 and RECIPE always are; each once)", name);
			return CLI_EXIT_USAGE;
		}
		if (*n == DRAW_LAB_RUNS - 2) {
			cli_fail(cli_cmd_lab.name, "--compare: at most %d recipes", DRAW_LAB_RUNS - 2);
			return CLI_EXIT_USAGE;
		}
		list[(*n)++] = r;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* --svg: fp32 (the baseline), the run and the --compare recipes, each with
 * its report and its trace. */
static int draw_runs(const struct lab_text *a, const struct fpref_lab_config *c, const struct fpref_lab_result *main,
		     const struct fpref_lab_result *fp32, const enum fpref_lab_recipe *more, int nmore)
{
	struct fpref_lab_result res[DRAW_LAB_RUNS];
	struct draw_lab_run runs[DRAW_LAB_RUNS];
	struct fpref_lab_step *traces[DRAW_LAB_RUNS] = { 0 };
	int n = 0, status = CLI_EXIT_OK;
	char err[256];
	runs[n++] = (struct draw_lab_run){ "fp32", fp32, c->fp32_trace };
	if (c->recipe != FPREF_LAB_FP32)
		runs[n++] = (struct draw_lab_run){ fpref_golden_lab_recipe_name(c->recipe), main, c->trace };
	for (int i = 0; i < nmore && status == CLI_EXIT_OK; i++) {
		struct fpref_lab_config mc = *c;
		mc.recipe = more[i];
		mc.compare = false;
		mc.fp32_trace = NULL;
		mc.trace = traces[n] = calloc(c->steps, sizeof *mc.trace);
		if (!mc.trace) {
			cli_fail(cli_cmd_lab.name, "out of memory");
			status = CLI_EXIT_FAIL;
		} else if (fpref_golden_lab_run(&mc, &res[n], err, sizeof err) != 0) {
			cli_fail(cli_cmd_lab.name, "%s: %s", fpref_golden_lab_recipe_name(more[i]), err);
			status = CLI_EXIT_FAIL;
		} else {
			runs[n] = (struct draw_lab_run){ fpref_golden_lab_recipe_name(more[i]), &res[n], mc.trace };
			n++;
		}
	}
	if (status == CLI_EXIT_OK) {
		char title[200], sub[200];
		size_t used = (size_t)snprintf(title, sizeof title, "Training lab: %s", runs[n > 1 ? 1 : 0].recipe);
		for (int i = 2; i < n && used < sizeof title; i++)
			used += (size_t)snprintf(title + used, sizeof title - used, ", %s", runs[i].recipe);
		if (n > 1 && used < sizeof title)
			used += (size_t)snprintf(title + used, sizeof title - used, " against fp32");
		if (used > 80) /* wider than the picture: the legend names them */
			snprintf(title, sizeof title, "Training lab: %s and %d more recipes against fp32", runs[1].recipe, n - 2);
		snprintf(sub, sizeof sub,
			 "linear regression %dx%d -> %d, MSE, Adam; %zu steps, seed %llu; every operation through the "
			 "emulator (docs/lab.md)", FPREF_LAB_BATCH, FPREF_LAB_IN, FPREF_LAB_OUT, c->steps,
			 (unsigned long long)c->seed);
		struct draw_lab d = { title, sub, c->steps, runs, n };
		status = draw_lab(cli_cmd_lab.name, a->svg, &d);
	}
	for (int i = 0; i < DRAW_LAB_RUNS; i++)
		free(traces[i]);
	return status;
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
	struct fpref_lab_config c = { .recipe = FPREF_LAB_FP32, .steps = FPREF_LAB_DEFAULT_STEPS, .seed = 1, .compare = true };
	if (fpref_golden_lab_recipe_parse(o.positional[0], &c.recipe) != 0) {
		char names[512];
		recipe_names(names, sizeof names);
		cli_fail(cli_cmd_lab.name, "unknown recipe '%s' (recipes: %s)", o.positional[0], names);
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
	enum fpref_lab_recipe more[DRAW_LAB_RUNS];
	int nmore = 0;
	if (a.compare && !a.svg) {
		cli_fail(cli_cmd_lab.name, "--compare adds recipes to the picture: it needs --svg FILE.svg");
		return CLI_EXIT_USAGE;
	}
	if (a.compare && parse_compare(a.compare, c.recipe, more, &nmore) != 0)
		return CLI_EXIT_USAGE;
	struct fpref_lab_step *trace = NULL, *fp32_trace = NULL;
	struct fpref_lab_result res, fp32;
	if (a.svg) {
		trace = calloc(c.steps, sizeof *trace);
		fp32_trace = calloc(c.steps, sizeof *fp32_trace);
		if (!trace || !fp32_trace) {
			free(trace);
			free(fp32_trace);
			cli_fail(cli_cmd_lab.name, "out of memory");
			return CLI_EXIT_FAIL;
		}
		c.trace = trace;
		c.fp32_trace = fp32_trace;
		c.fp32_result = &fp32;
	}
	char err[256];
	int status = CLI_EXIT_OK;
	if (fpref_golden_lab_run(&c, &res, err, sizeof err) != 0) {
		cli_fail(cli_cmd_lab.name, "%s", err);
		status = CLI_EXIT_FAIL;
	} else if (a.svg && strcmp(a.svg, "-") == 0) {
		/* the picture alone on standard output */
	} else if (a.json)
		put_json(o.positional[0], &res);
	else
		put_text(o.positional[0], &res);
	if (status == CLI_EXIT_OK && a.svg)
		status = draw_runs(&a, &c, &res, &fp32, more, nmore);
	free(trace);
	free(fp32_trace);
	return status;
}
