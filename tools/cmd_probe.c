/* fpref probe gen: a golden dot file of probe inputs (d by a reference
 * model, both engines agreeing).  fpref probe infer: measured results for
 * dot inputs (a probe file's, or any dot lines) handed to the model search,
 * and the models that reproduce them printed as fpref dot options and as a
 * preset row. */
#include <libgen.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "order_io.h"
#include "probe_io.h"

enum { PROBE_GEN = 1, PROBE_INFER = 2, PROBE_ORDER = 4 };

struct probe_args {
	const char *k, *out_file, *seed, *results, *golden, *in, *out, *in_a, *in_b;
	struct probe_order_text order;
};

#define P(f) offsetof(struct probe_args, f)

static const struct cli_opt probe_opts[] = {
	{ "--in-format", CLI_VALUE, "FMT", NULL, "gen, infer: the format of a and b; order: of the box's values", P(in),
	  PROBE_GEN | PROBE_INFER | PROBE_ORDER },
	{ "--out-format", CLI_VALUE, "FMT", NULL, "gen, infer: the format of c and d; order: of the box's result", P(out),
	  PROBE_GEN | PROBE_INFER | PROBE_ORDER },
	{ "--k", CLI_VALUE, "K", NULL, "gen: products per dot, 1..512 (the instruction's k)", P(k), PROBE_GEN },
	{ "--seed", CLI_VALUE, "N", "20261130", "gen: the seed of the random cases; order: of the pivots and the random lines",
	  P(seed), PROBE_GEN | PROBE_ORDER },
	{ "--out-file", CLI_VALUE, "FILE", NULL, "gen: the probe file (default: stdout)", P(out_file), PROBE_GEN },
	{ "--results", CLI_VALUE, "R", NULL, "infer: the measured results (dot lines, or d alone with --golden)",
	  P(results), PROBE_INFER },
	{ "--golden", CLI_VALUE, "G", NULL, "infer: the probe file the results answer", P(golden), PROBE_INFER },
	{ "--cmd", CLI_VALUE, "'PROGRAM ARGS'", NULL,
	  "order: the black box, run by sh once per batch: lines of N hex values of --in-format in, one hex result of --out-format "
	  "per line out",
	  P(order.cmd), PROBE_ORDER },
	{ "--n", CLI_VALUE, "N", NULL, "order: values per line, 2..65536", P(order.n), PROBE_ORDER },
	{ "--tc", CLI_VALUE, "MODEL,...", NULL,
	  "order: block models to try on nodes of more than two terms (default: every preset for --in-format, --out-format; "
	  "generic:N:F:FLOOR|none:rtz|rne for a custom one)",
	  P(order.tc), PROBE_ORDER },
	{ "--verify", CLI_VALUE, "V", "1000", "order: random lines the revealed tree must reproduce bit for bit", P(order.verify),
	  PROBE_ORDER },
	{ "--batch", CLI_VALUE, "L", "4096", "order: the most lines per start of the box", P(order.batch), PROBE_ORDER },
	{ "--a-format", CLI_VALUE, "FMT", NULL, "gen, infer: the format of a, with --b-format (instead of --in-format)",
	  P(in_a), PROBE_GEN | PROBE_INFER },
	{ "--b-format", CLI_VALUE, "FMT", NULL, "gen, infer: the format of b, with --a-format", P(in_b), PROBE_GEN | PROBE_INFER },
};

const struct cli_command cli_cmd_probe = {
	.name = "probe",
	.synopsis = "gen (--in-format FMT | --a-format FMT --b-format FMT) --out-format FMT --k K [--out-file FILE] [--seed N]\n"
		    "       [--model MODEL [MODEL OPTIONS]]\n"
		    "       | infer --results R [--golden G] [(--in-format FMT | --a-format FMT --b-format FMT) --out-format FMT]\n"
		    "       [--block N] [--frac F] [--json]\n"
		    "       | order --cmd 'PROGRAM ARGS' --n N --in-format FMT [--out-format FMT] [--tc MODEL,...] [--verify V]\n"
		    "       [--seed N] [--batch L] [--json]",
	.summary = "gen: a golden dot file of inputs that reveal a tensor core's numerics (d by --model, default the\n"
		   "newest preset).  infer: the block models that reproduce measured results (exit 0: exactly one\n"
		   "class).  order: the summation tree of a black box that sums N values, as fpref dot --model tree\n"
		   "takes it back (exit 1: no fixed tree, and what was seen).",
	.groups = CLI_MODEL | CLI_JSON,
	.opts = probe_opts,
	.nopts = CLI_NOPTS(probe_opts),
	.max_positional = 1,
	.examples = { "fpref probe gen --in-format f16 --out-format f32 --k 16 --out-file probe.txt",
		      "fpref probe infer --results measured.txt --golden probe.txt" },
	.run = cmd_probe,
};

/* The reference model of a probe file: --model, or the newest preset with
 * an instruction for these formats, the measured sm_90 and earlier rows
 * before the instruction presets of 2025-26 (none of them run on a GPU
 * here), so that FP6, FP4 and FNUZ inputs have one too. */
static int reference_model(const struct cli_model_text *t, const struct fpref_format *in,
			   const struct fpref_format *in_b, const struct fpref_format *out, struct fpref_tc_model *m)
{
	if (t->model) {
		struct fpref_accum_model cm;
		if (cli_model_resolve(cli_cmd_probe.name, t, in, in_b, out, &cm) != 0)
			return CLI_EXIT_USAGE;
		if (cm.kind != FPREF_ACCUM_TC || cm.promote) {
			cli_fail("probe gen", "--model must be a tensor-core model (a GPU or generic), without --promote");
			return CLI_EXIT_USAGE;
		}
		*m = cm.tc;
		return 0;
	}
	static const char *const newest_first[] = { "h100", "ada", "a100", "v100", "tcgen05", "mfma-cdna4", "mfma-cdna3" };
	for (size_t i = 0; i < sizeof newest_first / sizeof newest_first[0]; i++) {
		const struct fpref_tc_model *row = fpref_tc_model_find_pair(newest_first[i], in, in_b);
		if (row && fpref_tc_output_ok(row, in, out) && fpref_tc_output_ok(row, in_b, out)) {
			*m = *row;
			return 0;
		}
	}
	char inputs[128];
	cli_fail("probe gen", "no preset has %s inputs with %s output; name one with --model generic --block N --frac F",
		  fpref_golden_probe_inputs_name(in, in_b, inputs, sizeof inputs), out->name);
	return CLI_EXIT_USAGE;
}

/* The formats of a (f) and b (fb) from FMT (--in-format, both) or
 * --a-format/--b-format.  0, or an exit status after a message; *given false when
 * none was given. */
static int probe_inputs(const char *what, const char *one, const char *one_name, const char *in_a, const char *in_b,
			struct fpref_format *f, struct fpref_format *fb, bool *given)
{
	*given = one || in_a || in_b;
	if (!*given)
		return 0;
	if (one && (in_a || in_b)) {
		cli_fail(what, "%s names the format of both a and b: give %s FMT, or --a-format FMT --b-format FMT, not both", one_name,
			 one_name);
		return CLI_EXIT_USAGE;
	}
	if (one) {
		if (cli_parse_format(what, one, f) != 0)
			return CLI_EXIT_USAGE;
		*fb = *f;
		return 0;
	}
	if (!in_a || !in_b) {
		cli_fail(what, "%s needs %s too (or %s FMT for both)", in_a ? "--a-format" : "--b-format", in_a ? "--b-format" : "--a-format",
			 one_name);
		return CLI_EXIT_USAGE;
	}
	if (cli_parse_format(what, in_a, f) != 0 || cli_parse_format(what, in_b, fb) != 0)
		return CLI_EXIT_USAGE;
	return 0;
}

static int probe_gen(const struct probe_args *a, const struct cli_options *o)
{
	const char *inputs = a->in, *output = a->out, *k_text = a->k, *file = a->out_file, *seed_text = a->seed;
	struct cli_model_text t = o->model;
	int r;
	if (o->json) {
		cli_fail(cli_cmd_probe.name, "--json does not apply to probe gen (it writes a golden file)");
		return CLI_EXIT_USAGE;
	}
	struct fpref_golden_job j = { .kind = FPREF_GOLDEN_DOT, .probe = true };
	bool have_in;
	if ((r = probe_inputs("probe gen", inputs, "--in-format", a->in_a, a->in_b, &j.in, &j.in_b, &have_in)) != 0)
		return r;
	if (!have_in || !output || !k_text) {
		cli_fail("probe gen", "needs --in-format FMT (or --a-format FMT --b-format FMT), --out-format FMT and --k K (see fpref probe "
			 "--help)");
		return CLI_EXIT_USAGE;
	}
	char *end;
	long K = strtol(k_text, &end, 10);
	if (!*k_text || *end || K < 1 || K > 512) {
		cli_fail("probe gen", "bad --k '%s' (1..512, the instruction's k)", k_text);
		return CLI_EXIT_USAGE;
	}
	unsigned long long seed = seed_text ? strtoull(seed_text, &end, 10) : 20261130;
	if (seed_text && (!*seed_text || *end || *seed_text == '-')) {
		cli_fail("probe gen", "bad --seed '%s' (an unsigned integer)", seed_text);
		return CLI_EXIT_USAGE;
	}
	j.K = (unsigned)K;
	j.seed = seed;
	if (cli_parse_format(cli_cmd_probe.name, output, &j.out) != 0)
		return CLI_EXIT_USAGE;
	for (int i = 0; i < 2; i++)
		if (!fpref_tc_input_ok(i ? &j.in_b : &j.in)) {
			cli_fail("probe gen", "tensor-core models take signed inputs of at most 10 fraction bits, not %s",
				 i ? j.in_b.name : j.in.name);
			return CLI_EXIT_USAGE;
		}
	if ((r = reference_model(&t, &j.in, &j.in_b, &j.out, &j.model)) != 0)
		return r;
	if (file && (r = cli_check_writable(cli_cmd_probe.name, file)) != 0)
		return r;
	char err[512], *body;
	size_t len;
	unsigned long vectors;
	if (fpref_golden_compute(&j, &body, &len, &vectors, err, sizeof err) != 0) {
		cli_fail("probe gen", "%s", err);
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
		cli_fail("probe gen", "%s", err);
		return CLI_EXIT_FAIL;
	}
	char names[128];
	fprintf(stderr, "%s: %lu probe cases of %ld products, %s -> %s, d by the %s model\n", file, vectors, K,
		fpref_golden_probe_inputs_name(&j.in, &j.in_b, names, sizeof names), j.out.name, j.model.gpu);
	return CLI_EXIT_OK;
}

static void class_json(const struct fpref_probe_class *c, const struct probe_cases *d)
{
	if (c->preset) {
		char text[512];
		fpref_tc_model_describe(c->preset, d->out.name, text, sizeof text);
		printf("{\"preset\": \"%s\", \"description\": ", c->preset->gpu);
		cli_json_string(text);
		printf("}");
		return;
	}
	printf("{\"block_lo\": %d, \"block_hi\": %d, \"block_open\": %s, \"frac\": %d, \"rounding\": \"%s\", ",
	       c->block_lo, c->block_hi, c->block_open ? "true" : "false", c->frac, fpref_rounding_name(c->rounding));
	if (c->floor_none)
		printf("\"floor\": null, \"floor_none_up_to\": %d}", c->has_floor_range ? c->floor_hi : c->none_up_to);
	else
		printf("\"floor_lo\": %d, \"floor_hi\": %d}", c->floor_lo, c->floor_hi);
}

static void classes_json(const char *key, const struct fpref_probe_class *c, size_t n, const struct probe_cases *d)
{
	printf(", \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		printf(i ? ", " : "");
		class_json(&c[i], d);
	}
	printf("]");
}

static void report_json(const struct fpref_probe_report *r, const struct probe_cases *d, const char *path)
{
	printf("{\"results\": ");
	cli_json_string(path);
	char inputs[128];
	printf(", \"cases\": %zu, \"K\": %zu, \"in\": \"%s\", \"in_a\": \"%s\", \"in_b\": \"%s\", \"out\": \"%s\", "
	       "\"models_run\": %zu", d->count, d->K, fpref_golden_probe_inputs_name(&d->in, &d->in_b, inputs, sizeof inputs), d->in.name,
	       d->in_b.name, d->out.name, r->tried);
	classes_json("classes", r->classes, r->nclasses, d);
	printf(", \"nearest\": [");
	for (size_t i = 0; i < r->nnear; i++) {
		char text[512];
		fpref_tc_model_describe(&r->near[i].model, d->out.name, text, sizeof text);
		printf("%s{\"misses\": %zu, \"model\": ", i ? ", " : "", r->near[i].misses);
		cli_json_string(text);
		printf("}");
	}
	printf("], \"c_zero_cases\": %zu", r->c_zero_cases);
	classes_json("c_zero_classes", r->c_zero_classes, r->c_zero_nclasses, d);
	printf(", \"presets\": [");
	for (size_t i = 0; i < r->npresets; i++)
		printf("%s\"%s\"", i ? ", " : "", r->presets[i]->gpu);
	printf("], \"found\": %s}\n", r->nclasses == 1 ? "true" : "false");
}

static int parse_known(const char *text, const char *option, int hi, int *v)
{
	char *end;
	long x = text ? strtol(text, &end, 10) : 0;
	if (text && (*end || x < 1 || x > hi)) {
		cli_fail("probe infer", "bad %s '%s' (1..%d)", option, text, hi);
		return CLI_EXIT_USAGE;
	}
	*v = (int)x;
	return 0;
}

static int probe_infer(const struct probe_args *a, const struct cli_options *o)
{
	const char *results = a->results, *golden = a->golden, *in = a->in, *out = a->out;
	const char *block = o->model.block, *frac = o->model.frac;
	int r;
	const char *model_only = o->model.model ? "--model" : o->model.floor ? "--floor" : o->model.final ? "--final"
				 : o->model.promote ? "--promote" : NULL;
	if (model_only) {
		cli_fail(cli_cmd_probe.name, "%s does not apply to probe infer (it describes probe gen's model)", model_only);
		return CLI_EXIT_USAGE;
	}
	struct fpref_probe_data data = { 0 };
	struct probe_cases c = { 0 };
	bool have_in;
	if ((r = probe_inputs("probe infer", in, "--in-format", a->in_a, a->in_b, &c.in, &c.in_b, &have_in)) != 0)
		return r;
	if (!results || (!have_in != !out) || parse_known(block, "--block", 1 << 20, &data.block) ||
	    parse_known(frac, "--frac", FPREF_TC_MAX_FRAC, &data.frac)) {
		cli_fail("probe infer", "needs --results R (and --in-format FMT or --a-format FMT --b-format FMT with --out-format, or neither) "
			 "(see fpref probe --help)");
		return CLI_EXIT_USAGE;
	}
	if (out && cli_parse_format(cli_cmd_probe.name, out, &c.out) != 0)
		return CLI_EXIT_USAGE;
	c.have_formats = have_in;
	r = golden ? probe_cases_from_golden(golden, results, &c) : probe_cases_from_lines(results, &c);
	struct fpref_probe_report rep;
	char err[512];
	if (r == 0) {
		data.in = c.in;
		data.in_b = c.in_b;
		data.out = c.out;
		data.K = c.K;
		data.count = c.count;
		data.rows = c.rows;
		data.d = c.d;
		struct cli_progress pr = { "probe infer: search step", true, false };
		data.progress = cli_progress;
		data.progress_ctx = &pr;
		int failed = fpref_golden_probe_infer(&data, &rep, err, sizeof err);
		cli_progress_done(&pr);
		if (failed) {
			cli_fail("probe infer", "%s", err);
			r = CLI_EXIT_USAGE;
		}
	}
	if (r == 0) {
		if (o->json) {
			report_json(&rep, &c, results);
		} else {
			char *text = fpref_golden_probe_report_text(&rep, &data, results);
			if (!text) {
				cli_fail("probe infer", "out of memory");
				r = CLI_EXIT_FAIL;
			} else {
				fputs(text, stdout);
				free(text);
			}
		}
		r = r ? r : rep.nclasses == 1 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
		fpref_golden_probe_report_free(&rep);
	}
	probe_cases_free(&c);
	return r;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_args a = { 0 };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_probe, argc, argv, &o, &a);
	if (r)
		return r;
	const char *action = o.npositional ? o.positional[0] : "";
	unsigned tag = strcmp(action, "gen") == 0     ? PROBE_GEN
		       : strcmp(action, "infer") == 0 ? PROBE_INFER
		       : strcmp(action, "order") == 0 ? PROBE_ORDER
						      : 0;
	if (!tag) {
		cli_fail(cli_cmd_probe.name, "needs gen, infer or order, not '%s' (see fpref probe --help)", action);
		return CLI_EXIT_USAGE;
	}
	if (cli_check_tags(&cli_cmd_probe, &a, tag, tag == PROBE_GEN ? "probe gen" : tag == PROBE_INFER ? "probe infer" : "probe order"))
		return CLI_EXIT_USAGE;
	if (tag == PROBE_ORDER) {
		if (o.model.model) {
			cli_fail(cli_cmd_probe.name, "--model does not apply to probe order (--tc names the block models to try)");
			return CLI_EXIT_USAGE;
		}
		a.order.in = a.in;
		a.order.out = a.out;
		a.order.seed = a.seed;
		return probe_order(&a.order, &o);
	}
	return tag == PROBE_GEN ? probe_gen(&a, &o) : probe_infer(&a, &o);
}
