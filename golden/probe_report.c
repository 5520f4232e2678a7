/* The text of fpref probe infer's report (fpref_golden_probe_report_text):
 * the classes of models that reproduce the cases, each as fpref dot's
 * options and as a preset row, the nearest models when none does, and
 * the presets.  The command prints it and fpref.probe's str() is it. */
#include <stdio.h>
#include <stdlib.h>

#include "fpref_golden_probe.h"

const char *fpref_golden_probe_inputs_name(const struct fpref_format *a, const struct fpref_format *b, char *buf,
					   size_t len)
{
	if (fpref_format_same(a, b))
		snprintf(buf, len, "%s", a->name);
	else
		snprintf(buf, len, "%s*%s", a->name, b->name);
	return buf;
}

/* What fpref dot takes for these inputs: "--in-format A", or "--a-format A --b-format B". */
static void put_in_options(FILE *out, const struct fpref_format *a, const struct fpref_format *b)
{
	if (fpref_format_same(a, b))
		fprintf(out, "--in-format %s", a->name);
	else
		fprintf(out, "--a-format %s --b-format %s", a->name, b->name);
}

static void print_floor(FILE *out, int floor)
{
	if (floor == FPREF_TC_NO_FLOOR)
		fprintf(out, "FPREF_TC_NO_FLOOR");
	else
		fprintf(out, "%d", floor);
}

static void print_class(FILE *out, const struct fpref_probe_class *c, const struct fpref_probe_data *d, size_t index)
{
	bool fp16 = fpref_format_is(&d->out, FPREF_FORMAT_FLOAT16);
	if (c->preset) {
		char text[512];
		fpref_tc_model_describe(c->preset, d->out.name, text, sizeof text);
		fprintf(out, "model %zu: the %s preset (outside the generic space): %s\n  fpref dot --model %s ", index,
		       c->preset->gpu, text, c->preset->gpu);
		put_in_options(out, &d->in, &d->in_b);
		fprintf(out, " --out-format %s\n", d->out.name);
		return;
	}
	int floor = c->floor_none ? FPREF_TC_NO_FLOOR : c->floor_lo;
	const char *round = fpref_rounding_name(c->rounding);
	fprintf(out, "model %zu: fpref dot --model generic --block %d --frac %d --floor ", index, c->block_lo, c->frac);
	if (floor == FPREF_TC_NO_FLOOR)
		fprintf(out, "none");
	else
		fprintf(out, "%d", floor);
	fprintf(out, " --final %s ", round);
	put_in_options(out, &d->in, &d->in_b);
	fprintf(out, " --out-format %s\n", d->out.name);
	fprintf(out, "  block: %d", c->block_lo);
	if (c->block_hi > c->block_lo)
		fprintf(out, "..%d", c->block_hi);
	if (c->block_open)
		fprintf(out, " or more (cases of K = %zu products cannot tell larger blocks apart)", d->K);
	fprintf(out, "; fraction bits: %d; block rounding: %s; floor: ", c->frac, round);
	if (c->floor_none)
		fprintf(out, "none (or any floor up to %d", c->has_floor_range ? c->floor_hi : c->none_up_to);
	else if (c->floor_lo == c->floor_hi)
		fprintf(out, "%d", c->floor_lo);
	else
		fprintf(out, "any of %d..%d", c->floor_lo, c->floor_hi);
	fprintf(out, "%s\n", c->floor_none ? ")" : "");
	/* a row of formats/tc_model.c; the other output's fields are not probed */
	const char *probed = c->rounding == FPREF_RNE ? "FPREF_RNE" : "FPREF_RTZ";
	char inputs[128];
	if (fpref_format_same(&d->in, &d->in_b))
		snprintf(inputs, sizeof inputs, "%s", d->in.name);
	else /* a mixed row lists both */
		snprintf(inputs, sizeof inputs, "%s,%s", d->in.name, d->in_b.name);
	fprintf(out, "  row: { \"probed\", \"%s\", %d, %d, ", inputs, c->block_lo, c->frac);
	print_floor(out, fp16 ? FPREF_TC_NO_FLOOR : floor);
	fprintf(out, ", ");
	print_floor(out, fp16 ? floor : FPREF_TC_NO_FLOOR);
	fprintf(out, ", %s, %s, \"%s\", 0, 0, 0, 0, 0, \"fpref probe\" },\n", fp16 ? "FPREF_RTZ" : probed,
	       fp16 ? probed : "FPREF_RNE", fp16 ? d->in.name : "");
	fprintf(out, "  (the %s output was probed; the other output's floor and rounding are placeholders%s)\n", d->out.name,
	       fpref_format_same(&d->in, &d->in_b) ? "" : "; a row of two inputs sets mixed");
}

char *fpref_golden_probe_report_text(const struct fpref_probe_report *r, const struct fpref_probe_data *d, const char *path)
{
	char *report = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&report, &size);
	if (!out)
		return NULL;
	char inputs[128];
	fprintf(out, "%s: %zu cases of %zu products, %s -> %s; %zu models run\n", path, d->count, d->K,
	       fpref_golden_probe_inputs_name(&d->in, &d->in_b, inputs, sizeof inputs), d->out.name, r->tried);
	if (r->nclasses == 1)
		fprintf(out, "one model class reproduces every case:\n");
	else if (r->nclasses > 1)
		fprintf(out, "%zu model classes reproduce every case (ambiguous: the cases cannot tell them apart):\n", r->nclasses);
	for (size_t i = 0; i < r->nclasses && i < 10; i++)
		print_class(out, &r->classes[i], d, i + 1);
	if (r->nclasses > 10)
		fprintf(out, "... and %zu more: more cases are needed (fpref probe gen makes them)\n", r->nclasses - 10);
	if (r->nclasses == 0) {
		fprintf(out, "no model reproduces every case; the nearest:\n");
		for (size_t i = 0; i < r->nnear; i++) {
			char text[512];
			fpref_tc_model_describe(&r->near[i].model, d->out.name, text, sizeof text);
			fprintf(out, "  %zu of %zu cases missed: %s\n", r->near[i].misses, d->count, text);
		}
		if (r->c_zero_nclasses)
			fprintf(out, "but %zu class%s fit%s the %zu cases with c = 0, so C enters otherwise than aligned with the "
			       "first block's products:\n", r->c_zero_nclasses, r->c_zero_nclasses == 1 ? "" : "es",
			       r->c_zero_nclasses == 1 ? "s" : "", r->c_zero_cases);
		for (size_t i = 0; i < r->c_zero_nclasses && i < 10; i++)
			print_class(out, &r->c_zero_classes[i], d, i + 1);
	}
	fprintf(out, "presets that reproduce every case:");
	for (size_t i = 0; i < r->npresets; i++)
		fprintf(out, " %s", r->presets[i]->gpu);
	fprintf(out, "%s\n", r->npresets ? "" : " none");
	if (fclose(out) != 0) {
		free(report);
		return NULL;
	}
	return report;
}
