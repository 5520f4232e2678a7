/* fpref draw: pictures for teaching and for reports, as SVG.  This file
 * is the command: its options, the KIND's checks and dispatch.
 * numberline, rounding, formats, promotion and pytorch-tf32 are the
 * library's pictures (fpref_golden_draw.h, which fpref.draw in Python
 * calls too); gemm, verify, lossscale, quantize and lab run
 * their command with --svg (the same picture a report gives).
 * tools/draw_svg.c writes the SVG out. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

/* the options fpref draw parses for the kinds it draws itself */
struct draw_args {
	const char *out, *range, *at, *window, *png;
	const char *in, *ks, *size, *dist, *seed; /* promotion */
};

#define D(f) offsetof(struct draw_args, f)

static const struct cli_opt draw_opts[] = {
	{ "--out-file", CLI_VALUE, "FILE.svg", NULL, "where to write the picture (- for standard output)", D(out), 0 },
	{ "--png", CLI_VALUE, "FILE.png", NULL, "also a PNG, by rsvg-convert where it is installed", D(png), 0 },
	{ "--range", CLI_VALUE, "LO:HI", NULL, "numberline: only the values in [LO, HI]", D(range), 1 },
	{ "--at", CLI_VALUE, "VALUE", "1", "numberline, formats wider than 8 bits: the window's centre", D(at), 1 },
	{ "--window", CLI_VALUE, "N", "16", "numberline, formats wider than 8 bits: values each side of --at", D(window), 1 },
	{ "--in-format", CLI_VALUE, "FMT", NULL, "promotion: the format of A and B", D(in), 2 },
	{ "--ks", CLI_VALUE, "K,K,...", "128,256,512,1024", "promotion: the depths K (2 to 12); pytorch-tf32: the sizes N (16,32,64)",
	  D(ks), 2 },
	{ "--size", CLI_VALUE, "MxN", "8x8", "promotion: the output's shape", D(size), 2 },
	{ "--dist", CLI_VALUE, "normal|uniform|positive", "positive", "promotion, pytorch-tf32 (normal): the inputs' distribution",
	  D(dist), 2 },
	{ "--seed", CLI_VALUE, "N", "1", "promotion, pytorch-tf32: the inputs' seed", D(seed), 2 },
};

const struct cli_command cli_cmd_draw = {
	.name = "draw",
	.synopsis = "numberline FMT [--range LO:HI] [--at VALUE --window N] --out-file FILE.svg\n"
		    "       rounding VALUE --to FMT [ENV] --out-file FILE.svg | formats --out-file FILE.svg\n"
		    "       promotion --model MODEL --promote NC --in-format FMT [--ks K,K,..] [--size MxN] --out-file FILE.svg\n"
		    "       pytorch-tf32 [--ks N,N,..] --out-file FILE.svg\n"
		    "       gemm|verify|lossscale|quantize|lab --out-file FILE.svg [that command's options]",
	.summary = "Pictures as SVG (deterministic, text as text, a colour-blind-safe palette): every value of a\n"
		   "format on a line, how one value rounds, the catalogue's range and precision, and the reports of\n"
		   "gemm, verify, lossscale, quantize and lab.",
	.details = "numberline: linear and log2 views, subnormal and normal ranges, max finite, the NaN and inf\n"
		   "codes and the spacing (ulp) as a step plot; formats wider than 8 bits: --window values each side\n"
		   "of --at.  promotion: the error of D = A B against the exact product over K, the model alone and\n"
		   "promoted to FP32 every NC products (DeepSeek-V3's experiment; docs/experiments.md).\n"
		   "pytorch-tf32: PyTorch's TF32 protocol (max |error| / mean |exact|) over N x N x N, the A100's TF32\n"
		   "tensor core against an FP32 fma chain (docs/experiments.md, section 2).  gemm,\n"
		   "verify, lossscale, quantize and lab: the first --out-file names the picture, the rest is the command's\n"
		   "own (fpref draw gemm --out-file g.svg --model h100 ... is fpref gemm ... --svg g.svg; fpref draw lab\n"
		   "fp16-gradscaler --compare fp16-noscale --out-file l.svg is fpref lab ... --svg l.svg).\n"
		   "--png needs rsvg-convert; without it draw says so and exits 1 (the SVG is written).\n",
	.groups = CLI_TO | CLI_ENV | CLI_MODEL,
	.opts = draw_opts,
	.nopts = CLI_NOPTS(draw_opts),
	.max_positional = 2,
	.examples = { "fpref draw numberline e4m3 --out-file e4m3.svg", "fpref draw rounding 465 --to e4m3 --out-file r.svg" },
	.run = cmd_draw,
};

static const char *const cmd = "draw";

/* One of the library's pictures: its text written out, or its message
 * and an exit status. */
static int library_picture(int r, char *svg, const char *err, const char *path)
{
	if (r == FPREF_DRAW_BAD_ARGS)
		cli_fail(cmd, "%s", err);
	else if (r != 0)
		cli_fail(cmd, "out of memory");
	int status = r == FPREF_DRAW_BAD_ARGS ? CLI_EXIT_USAGE : r != 0 ? CLI_EXIT_FAIL : draw_save(cmd, path, svg);
	free(svg);
	return status;
}

static int draw_numberline(const struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 2) {
		cli_fail(cmd, "numberline needs one FMT, e.g. fpref draw numberline e4m3 --out-file e4m3.svg");
		return CLI_EXIT_USAGE;
	}
	struct fpref_format f;
	if (cli_parse_format(cmd, o->positional[1], &f) != 0)
		return CLI_EXIT_USAGE;
	char *svg, err[640] = "";
	int r = fpref_golden_draw_numberline(&f, a->range, a->at, a->window, &svg, err, sizeof err);
	return library_picture(r, svg, err, a->out);
}

static int draw_rounding(struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 2 || !o->have_to) {
		cli_fail(cmd, "rounding needs one VALUE and --to FMT, e.g. fpref draw rounding 465 --to e4m3 --out-file r.svg");
		return CLI_EXIT_USAGE;
	}
	o->env = cli_target_env(o, &o->to);
	if (o->env.rounding == FPREF_SR && !o->text.sr_bits) {
		cli_fail(cmd, "--round sr needs --sr-bits HEX, W:HEX or seed=N (the random bits decide the rounding)");
		return CLI_EXIT_USAGE;
	}
	char *svg, err[640] = "";
	int r = fpref_golden_draw_rounding(o->positional[1], &o->to, &o->env, &svg, err, sizeof err);
	return library_picture(r, svg, err, a->out);
}

static int draw_formats(const struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 1) {
		cli_fail(cmd, "formats takes no FMT: it draws the whole catalogue (fpref formats)");
		return CLI_EXIT_USAGE;
	}
	char *svg, err[640] = "";
	int r = fpref_golden_draw_formats(&svg, err, sizeof err);
	return library_picture(r, svg, err, a->out);
}

static int draw_promotion(struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 1 || !a->in || !o->model.model || !o->model.promote) {
		cli_fail(cmd, "promotion needs --model MODEL --promote NC --in-format FMT, e.g. fpref draw promotion --model h100 "
			 "--promote 128 --in-format e4m3 --out-file p.svg");
		return CLI_EXIT_USAGE;
	}
	struct fpref_format in, out = *fpref_format_get(FPREF_FORMAT_FLOAT32);
	struct fpref_accum_model promoted, alone;
	struct cli_model_text plain = o->model;
	plain.promote = NULL;
	if (cli_parse_format(cmd, a->in, &in) != 0 || cli_model_resolve(cmd, &o->model, &in, &in, &out, &promoted) != 0 ||
	    cli_model_resolve(cmd, &plain, &in, &in, &out, &alone) != 0)
		return CLI_EXIT_USAGE;
	o->env = cli_target_env(o, &out);
	struct fpref_draw_promotion p = { .alone = &alone, .promoted = &promoted, .model = o->model.model,
					  .promote = o->model.promote, .in = &in, .env = &o->env, .ks = a->ks,
					  .size = a->size, .dist = a->dist, .seed = a->seed };
	char *svg, err[640] = "";
	int r = fpref_golden_draw_promotion(&p, &svg, err, sizeof err);
	return library_picture(r, svg, err, a->out);
}

static int draw_tf32(const struct cli_options *o, const struct draw_args *a)
{
	if (o->npositional != 1) {
		cli_fail(cmd, "pytorch-tf32 takes no positional argument (sizes by --ks)");
		return CLI_EXIT_USAGE;
	}
	const struct fpref_format *f32 = fpref_format_get(FPREF_FORMAT_FLOAT32), *tf32 = fpref_format_get(FPREF_FORMAT_TF32);
	struct cli_model_text ta = { .model = "a100" }, tb = { .model = "fma-chain" };
	struct fpref_accum_model ma, mb;
	if (cli_model_resolve(cmd, &ta, tf32, tf32, f32, &ma) != 0 || cli_model_resolve(cmd, &tb, f32, f32, f32, &mb) != 0)
		return CLI_EXIT_FAIL;
	char *svg, err[640] = "";
	int r = fpref_golden_draw_pytorch_tf32(&ma, &mb, a->ks, a->dist, a->seed, &svg, err, sizeof err);
	return library_picture(r, svg, err, a->out);
}

/* ---- the reports of other commands: their --svg ---- */

static int delegate(const struct cli_command *c, int argc, char **argv)
{
	/* argv: the options after KIND; the first --out-file (or --out-file=FILE) names the picture */
	char **args = calloc((size_t)argc + 2, sizeof *args);
	if (!args) {
		cli_fail(cmd, "out of memory");
		return CLI_EXIT_FAIL;
	}
	const char *out = NULL;
	int n = 0;
	for (int i = 0; i < argc; i++) {
		const char *v = out ? NULL : cli_option_value(&cli_cmd_draw, c->name, "--out-file", argc, argv, &i);
		if (v)
			out = v;
		else
			args[n++] = argv[i];
	}
	if (!out) {
		free(args);
		cli_fail(cmd, "%s needs --out-file FILE.svg (the first --out-file names the picture)", c->name);
		return CLI_EXIT_USAGE;
	}
	args[n++] = "--svg";
	args[n++] = (char *)out;
	int status = c->run(n, args);
	free(args);
	return status;
}

static int write_png(const char *svg, const char *png)
{
	if (system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
		cli_fail(cmd, "--png needs rsvg-convert (librsvg), which is not installed; the SVG %s is written", svg);
		return CLI_EXIT_FAIL;
	}
	if (strchr(svg, '\'') || strchr(png, '\'')) {
		cli_fail(cmd, "--png: a file name with a quote is refused");
		return CLI_EXIT_USAGE;
	}
	char line[4200];
	snprintf(line, sizeof line, "rsvg-convert -f png -o '%s' '%s'", png, svg);
	if (system(line) != 0) {
		cli_fail(cmd, "rsvg-convert failed on %s", svg);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

int cmd_draw(int argc, char **argv)
{
	static const struct {
		const char *kind;
		const struct cli_command *c;
	} reports[] = {
		{ "gemm", &cli_cmd_gemm },
		{ "verify", &cli_cmd_verify },
		{ "lossscale", &cli_cmd_lossscale },
		{ "quantize", &cli_cmd_quantize },
		{ "lab", &cli_cmd_lab },
	};
	if (argc >= 1)
		for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++)
			if (strcmp(argv[0], reports[i].kind) == 0)
				return delegate(reports[i].c, argc - 1, argv + 1);
	struct draw_args a = { 0 };
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_draw, argc, argv, &o, &a);
	if (r)
		return r;
	if (o.npositional < 1) {
		cli_fail(cmd, "needs a KIND: numberline, rounding, formats, promotion, pytorch-tf32, gemm, verify, lossscale, "
			 "quantize or lab");
		return CLI_EXIT_USAGE;
	}
	const char *kind = o.positional[0];
	bool nl = strcmp(kind, "numberline") == 0, rd = strcmp(kind, "rounding") == 0, fm = strcmp(kind, "formats") == 0,
	     pr = strcmp(kind, "promotion") == 0, tf = strcmp(kind, "pytorch-tf32") == 0;
	if (!nl && !rd && !fm && !pr && !tf) {
		cli_fail(cmd, "unknown KIND '%s' (numberline, rounding, formats, promotion, pytorch-tf32, gemm, verify, lossscale, "
			 "quantize, lab)", kind);
		return CLI_EXIT_USAGE;
	}
	if (!a.out) {
		cli_fail(cmd, "%s needs --out-file FILE.svg", kind);
		return CLI_EXIT_USAGE;
	}
	if (!nl && (a.range || a.at || a.window)) {
		cli_fail(cmd, "--range, --at and --window are numberline's options, not %s's", kind);
		return CLI_EXIT_USAGE;
	}
	if (!rd && o.have_to) {
		cli_fail(cmd, "--to is rounding's option, not %s's", kind);
		return CLI_EXIT_USAGE;
	}
	if (!rd && !pr && (o.text.round || o.text.sat || o.text.overflow || o.text.ftz || o.text.daz ||
			   o.text.tininess || o.text.sr_bits || o.text.profile)) {
		cli_fail(cmd, "the environment is for rounding and promotion, not %s", kind);
		return CLI_EXIT_USAGE;
	}
	const struct cli_model_text *mt = &o.model;
	if (!pr && (mt->model || mt->block || mt->frac || mt->floor || mt->final || mt->promote || a.in || a.size)) {
		cli_fail(cmd, "the model, --in-format and --size are promotion's options, not %s's", kind);
		return CLI_EXIT_USAGE;
	}
	if (!pr && !tf && (a.ks || a.dist || a.seed)) {
		cli_fail(cmd, "--ks, --dist and --seed are promotion's and pytorch-tf32's options, not %s's", kind);
		return CLI_EXIT_USAGE;
	}
	if (a.png && strcmp(a.out, "-") == 0) {
		cli_fail(cmd, "--png needs --out-file FILE.svg (a file, not -)");
		return CLI_EXIT_USAGE;
	}
	int status = nl ? draw_numberline(&o, &a)
		     : rd ? draw_rounding(&o, &a)
		     : pr ? draw_promotion(&o, &a)
		     : tf ? draw_tf32(&o, &a)
			  : draw_formats(&o, &a);
	if (!status && a.png)
		status = write_png(a.out, a.png);
	return status;
}
