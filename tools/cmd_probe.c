/* fpref probe gen: a golden dot file of probe inputs (d by a reference
 * model, both engines agreeing).  fpref probe infer: measured results for
 * dot inputs (a probe file's, or any dot lines) handed to the model search,
 * and the models that reproduce them printed as fpref dot options and as a
 * preset row. */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "probe_io.h"

static const char probe_usage[] =
	"usage: fpref probe gen --inputs FMT --output FMT --k K [--out FILE] [--seed N] [--model MODEL [MODEL OPTIONS]]\n"
	"       fpref probe infer --results R [--golden G] [--in FMT --out FMT] [--block N] [--frac F]\n";

/* The reference model of a probe file: --model, or the newest preset with
 * an instruction for these formats. */
static int reference_model(const struct cli_model_text *t, const struct fpref_format *in,
			   const struct fpref_format *out, struct fpref_tc_model *m)
{
	if (t->model) {
		struct cli_model cm;
		if (cli_model_resolve(t, in, out, &cm) != 0)
			return CLI_EXIT_USAGE;
		if (cm.kind != CLI_MODEL_TC || cm.promote) {
			cli_error("probe gen: --model must be a tensor-core model (a GPU or generic), without --promote");
			return CLI_EXIT_USAGE;
		}
		*m = cm.tc;
		return 0;
	}
	static const char *const newest_first[] = { "h100", "ada", "a100", "v100" };
	for (size_t i = 0; i < sizeof newest_first / sizeof newest_first[0]; i++) {
		const struct fpref_tc_model *row = fpref_tc_model_find(newest_first[i], in);
		if (row && fpref_tc_output_ok(row, in, out)) {
			*m = *row;
			return 0;
		}
	}
	cli_error("probe gen: no preset has %s inputs with %s output; name one with --model generic --block N --frac F",
		  in->name, out->name);
	return CLI_EXIT_USAGE;
}

static int probe_gen(int argc, char **argv)
{
	const char *inputs = NULL, *output = NULL, *k_text = NULL, *file = NULL, *seed_text = NULL;
	struct cli_model_text t = { 0 };
	char **rest = malloc((size_t)(argc + 1) * sizeof *rest), **rest2 = malloc((size_t)(argc + 1) * sizeof *rest2);
	int nrest = 0, nrest2 = 0;
	static const char *const names[] = { "--inputs", "--output", "--k", "--out", "--seed" };
	const char **slots[] = { &inputs, &output, &k_text, &file, &seed_text };
	int r = !rest || !rest2 ? CLI_EXIT_FAIL : cli_model_options(argc, argv, &t, rest, &nrest);
	if (!r)
		r = cli_take_options(nrest, rest, names, slots, 5, rest2, &nrest2);
	if (!r && nrest2 > 0) {
		cli_error("probe gen: unexpected '%s'\n%s", rest2[0], probe_usage);
		r = CLI_EXIT_USAGE;
	}
	free(rest);
	free(rest2);
	if (r)
		return r;
	if (!inputs || !output || !k_text) {
		cli_error("probe gen needs --inputs FMT, --output FMT and --k K\n%s", probe_usage);
		return CLI_EXIT_USAGE;
	}
	char *end;
	long K = strtol(k_text, &end, 10);
	unsigned long long seed = seed_text ? strtoull(seed_text, &end, 10) : 20261130;
	if (K < 1 || K > 512 || (seed_text && *end)) {
		cli_error("probe gen: --k must be 1..512 (the instruction's k) and --seed an integer");
		return CLI_EXIT_USAGE;
	}
	struct fpref_golden_job j = { .kind = FPREF_GOLDEN_DOT, .K = (unsigned)K, .probe = true, .seed = seed };
	if (cli_parse_format(inputs, &j.in) != 0 || cli_parse_format(output, &j.out) != 0)
		return CLI_EXIT_USAGE;
	if (!fpref_tc_input_ok(&j.in)) {
		cli_error("probe gen: tensor-core models take signed inputs of at most 10 fraction bits, not %s", j.in.name);
		return CLI_EXIT_USAGE;
	}
	if ((r = reference_model(&t, &j.in, &j.out, &j.model)) != 0)
		return r;
	char err[512], *body;
	size_t len;
	unsigned long vectors;
	if (fpref_golden_compute(&j, &body, &len, &vectors, err, sizeof err) != 0) {
		cli_error("probe gen: %s", err);
		return CLI_EXIT_FAIL;
	}
	if (!file) { /* the file on stdout, checksum and all */
		int put = fpref_golden_put(stdout, &j, "probe", body, len, vectors);
		free(body);
		return put == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	}
	char dir_copy[1024], base_copy[1024];
	snprintf(dir_copy, sizeof dir_copy, "%s", file);
	snprintf(base_copy, sizeof base_copy, "%s", file);
	snprintf(j.path, sizeof j.path, "%s", basename(base_copy));
	r = fpref_golden_write(dirname(dir_copy), &j, "probe", body, len, vectors, err, sizeof err);
	free(body);
	if (r != 0) {
		cli_error("probe gen: %s", err);
		return CLI_EXIT_FAIL;
	}
	fprintf(stderr, "%s: %lu probe cases of %ld products, %s -> %s, d by the %s model\n", file, vectors, K, j.in.name,
		j.out.name, j.model.gpu);
	return CLI_EXIT_OK;
}

/* ---- infer: printing ---- */
static void print_floor(int floor)
{
	if (floor == FPREF_TC_NO_FLOOR)
		printf("FPREF_TC_NO_FLOOR");
	else
		printf("%d", floor);
}

static void print_class(const struct fpref_probe_class *c, const struct probe_cases *d, size_t index)
{
	bool fp16 = strcmp(d->out.name, "float16") == 0;
	if (c->preset) {
		char text[512];
		fpref_tc_model_describe(c->preset, d->out.name, text, sizeof text);
		printf("model %zu: the %s preset (outside the generic space): %s\n  fpref dot --model %s --in %s --out %s\n",
		       index, c->preset->gpu, text, c->preset->gpu, d->in.name, d->out.name);
		return;
	}
	int floor = c->floor_none ? FPREF_TC_NO_FLOOR : c->floor_lo;
	const char *round = fpref_rounding_name(c->rounding);
	printf("model %zu: fpref dot --model generic --block %d --frac %d --floor ", index, c->block_lo, c->frac);
	if (floor == FPREF_TC_NO_FLOOR)
		printf("none");
	else
		printf("%d", floor);
	printf(" --final %s --in %s --out %s\n", round, d->in.name, d->out.name);
	printf("  block: %d", c->block_lo);
	if (c->block_hi > c->block_lo)
		printf("..%d", c->block_hi);
	if (c->block_open)
		printf(" or more (cases of K = %zu products cannot tell larger blocks apart)", d->K);
	printf("; fraction bits: %d; block rounding: %s; floor: ", c->frac, round);
	if (c->floor_none)
		printf("none (or any floor up to %d", c->has_floor_range ? c->floor_hi : c->none_up_to);
	else if (c->floor_lo == c->floor_hi)
		printf("%d", c->floor_lo);
	else
		printf("any of %d..%d", c->floor_lo, c->floor_hi);
	printf("%s\n", c->floor_none ? ")" : "");
	/* a row of formats/tc_model.c; the other output's fields are not probed */
	const char *probed = c->rounding == FPREF_RNE ? "FPREF_RNE" : "FPREF_RTZ";
	printf("  row: { \"probed\", \"%s\", %d, %d, ", d->in.name, c->block_lo, c->frac);
	print_floor(fp16 ? FPREF_TC_NO_FLOOR : floor);
	printf(", ");
	print_floor(fp16 ? floor : FPREF_TC_NO_FLOOR);
	printf(", %s, %s, \"%s\", 0, 0, 0, 0, 0, \"fpref probe\" },\n", fp16 ? "FPREF_RTZ" : probed,
	       fp16 ? probed : "FPREF_RNE", fp16 ? d->in.name : "");
	printf("  (the %s output was probed; the other output's floor and rounding are placeholders)\n", d->out.name);
}

static void print_report(const struct fpref_probe_report *r, const struct probe_cases *d, const char *path)
{
	printf("%s: %zu cases of %zu products, %s -> %s; %zu models run\n", path, d->count, d->K, d->in.name, d->out.name,
	       r->tried);
	if (r->nclasses == 1)
		printf("one model class reproduces every case:\n");
	else if (r->nclasses > 1)
		printf("%zu model classes reproduce every case (ambiguous: the cases cannot tell them apart):\n", r->nclasses);
	for (size_t i = 0; i < r->nclasses && i < 10; i++)
		print_class(&r->classes[i], d, i + 1);
	if (r->nclasses > 10)
		printf("... and %zu more: more cases are needed (fpref probe gen makes them)\n", r->nclasses - 10);
	if (r->nclasses == 0) {
		printf("no model reproduces every case; the nearest:\n");
		for (size_t i = 0; i < r->nnear; i++) {
			char text[512];
			fpref_tc_model_describe(&r->near[i].model, d->out.name, text, sizeof text);
			printf("  %zu of %zu cases missed: %s\n", r->near[i].misses, d->count, text);
		}
		if (r->c_zero_nclasses)
			printf("but %zu class%s fit%s the %zu cases with c = 0, so C enters otherwise than aligned with the "
			       "first block's products:\n", r->c_zero_nclasses, r->c_zero_nclasses == 1 ? "" : "es",
			       r->c_zero_nclasses == 1 ? "s" : "", r->c_zero_cases);
		for (size_t i = 0; i < r->c_zero_nclasses && i < 10; i++)
			print_class(&r->c_zero_classes[i], d, i + 1);
	}
	printf("presets that reproduce every case:");
	for (size_t i = 0; i < r->npresets; i++)
		printf(" %s", r->presets[i]->gpu);
	printf("%s\n", r->npresets ? "" : " none");
}

static int parse_known(const char *text, const char *option, int hi, int *v)
{
	char *end;
	long x = text ? strtol(text, &end, 10) : 0;
	if (text && (*end || x < 1 || x > hi)) {
		cli_error("probe infer: bad %s '%s' (1..%d)", option, text, hi);
		return CLI_EXIT_USAGE;
	}
	*v = (int)x;
	return 0;
}

static int probe_infer(int argc, char **argv)
{
	const char *results = NULL, *golden = NULL, *in = NULL, *out = NULL, *block = NULL, *frac = NULL;
	char **rest = malloc((size_t)(argc + 1) * sizeof *rest);
	int nrest = 0;
	static const char *const names[] = { "--results", "--golden", "--in", "--out", "--block", "--frac" };
	const char **slots[] = { &results, &golden, &in, &out, &block, &frac };
	int r = rest ? cli_take_options(argc, argv, names, slots, 6, rest, &nrest) : CLI_EXIT_FAIL;
	if (!r && nrest > 0) {
		cli_error("probe infer: unexpected '%s'\n%s", rest[0], probe_usage);
		r = CLI_EXIT_USAGE;
	}
	free(rest);
	if (r)
		return r;
	struct fpref_probe_data data = { 0 };
	if (!results || (!in != !out) || parse_known(block, "--block", 1 << 20, &data.block) ||
	    parse_known(frac, "--frac", FPREF_TC_MAX_FRAC, &data.frac)) {
		cli_error("probe infer needs --results R (and --in with --out, or neither)\n%s", probe_usage);
		return CLI_EXIT_USAGE;
	}
	struct probe_cases c = { 0 };
	if (in && (cli_parse_format(in, &c.in) != 0 || cli_parse_format(out, &c.out) != 0))
		return CLI_EXIT_USAGE;
	c.have_formats = in != NULL;
	r = golden ? probe_cases_from_golden(golden, results, &c) : probe_cases_from_lines(results, &c);
	struct fpref_probe_report rep;
	char err[512];
	if (r == 0) {
		data.in = c.in;
		data.out = c.out;
		data.K = c.K;
		data.count = c.count;
		data.rows = c.rows;
		data.d = c.d;
		if (fpref_golden_probe_infer(&data, &rep, err, sizeof err) != 0) {
			cli_error("probe infer: %s", err);
			r = CLI_EXIT_USAGE;
		}
	}
	if (r == 0) {
		print_report(&rep, &c, results);
		r = rep.nclasses == 1 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
		fpref_golden_probe_report_free(&rep);
	}
	probe_cases_free(&c);
	return r;
}

int cmd_probe(int argc, char **argv)
{
	if (argc >= 1 && strcmp(argv[0], "gen") == 0)
		return probe_gen(argc - 1, argv + 1);
	if (argc >= 1 && strcmp(argv[0], "infer") == 0)
		return probe_infer(argc - 1, argv + 1);
	cli_error("probe needs gen or infer\n%s", probe_usage);
	return CLI_EXIT_USAGE;
}
