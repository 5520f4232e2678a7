/* fpref lossscale: replay a loss scaler over a run of iterations (overflow
 * flags, FP32 gradients from .npy, or seeded synthetic gradients) and print
 * each iteration's scale, verdict and counters. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw.h"

/* ---- options ---- */

enum { FOR_PYTORCH = 1, FOR_DEEPSPEED = 2, FOR_APEX = 4, FOR_STATIC = 8, FOR_ALL = 15 };

struct ls_args {
	enum fpref_scaler_kind kind;
	struct fpref_scaler_config cfg;
	const char *overflow_at, *steps_file, *grads[16], *new_scale, *svg;
	int ngrads;
	long long steps; /* -1: not given */
	bool simulate, json, summary_only;
	const char *dist, *seed, *scale_log2, *scale_log2_end, *values;
};

struct ls_text {
	const char *scaler;
	const char *init_scale;
	const char *growth_factor;
	const char *backoff_factor;
	const char *growth_interval;
	const char *new_scale;
	const char *initial_scale_power;
	const char *loss_scale_window;
	const char *hysteresis;
	bool consecutive_hysteresis;
	bool no_raise_at_min;
	const char *min_loss_scale;
	const char *scale_window;
	const char *max_loss_scale;
	bool no_skip;
	const char *overflow_at;
	const char *steps;
	const char *steps_file;
	struct cli_multi grads;
	bool simulate;
	const char *dist;
	const char *seed;
	const char *scale_log2;
	const char *scale_log2_end;
	const char *values;
	const char *profile;
	bool summary;
	bool json;
	const char *svg;
};

static const struct cli_opt ls_opts[] = {
	{ "--scaler", CLI_VALUE, "pytorch|deepspeed|apex|static", NULL, "the loss scaler to replay (needed)", offsetof(struct ls_text, scaler), FOR_ALL },
	{ "--init-scale", CLI_VALUE, "S", "65536 (static: 1)", "the first scale", offsetof(struct ls_text, init_scale), FOR_PYTORCH | FOR_APEX | FOR_STATIC | FOR_DEEPSPEED },
	{ "--growth-factor", CLI_VALUE, "F", "2.0", "pytorch: the scale's factor after growth-interval clean steps", offsetof(struct ls_text, growth_factor), FOR_PYTORCH },
	{ "--backoff-factor", CLI_VALUE, "F", "0.5", "pytorch: the scale's factor after an overflow", offsetof(struct ls_text, backoff_factor), FOR_PYTORCH },
	{ "--growth-interval", CLI_VALUE, "N", "2000", "pytorch: clean steps before growth", offsetof(struct ls_text, growth_interval), FOR_PYTORCH },
	{ "--new-scale", CLI_VALUE, "STEP=VALUE,...", NULL, "pytorch: scaler.update(new_scale) at those iterations", offsetof(struct ls_text, new_scale), FOR_PYTORCH },
	{ "--initial-scale-power", CLI_VALUE, "P", "16", "deepspeed: the first scale is 2^P", offsetof(struct ls_text, initial_scale_power), FOR_DEEPSPEED },
	{ "--loss-scale-window", CLI_VALUE, "N", "1000", "deepspeed: clean steps before growth", offsetof(struct ls_text, loss_scale_window), FOR_DEEPSPEED },
	{ "--hysteresis", CLI_VALUE, "N", "2", "deepspeed: overflows tolerated before backoff", offsetof(struct ls_text, hysteresis), FOR_DEEPSPEED },
	{ "--consecutive-hysteresis", CLI_FLAG, NULL, NULL, "deepspeed: a clean step restores the hysteresis", offsetof(struct ls_text, consecutive_hysteresis), FOR_DEEPSPEED },
	{ "--no-raise-at-min", CLI_FLAG, NULL, NULL, "deepspeed: overflow at the least scale does not raise", offsetof(struct ls_text, no_raise_at_min), FOR_DEEPSPEED },
	{ "--min-loss-scale", CLI_VALUE, "S", "deepspeed 1, apex none", "deepspeed, apex: the least scale", offsetof(struct ls_text, min_loss_scale), FOR_DEEPSPEED | FOR_APEX },
	{ "--scale-window", CLI_VALUE, "N", "2000", "apex: clean steps before growth", offsetof(struct ls_text, scale_window), FOR_APEX },
	{ "--max-loss-scale", CLI_VALUE, "S", "2^24", "apex: the greatest scale", offsetof(struct ls_text, max_loss_scale), FOR_APEX },
	{ "--no-skip", CLI_FLAG, NULL, NULL, "static: apply steps that overflowed", offsetof(struct ls_text, no_skip), FOR_STATIC },
	{ "--overflow-at", CLI_VALUE, "4,17,..", NULL, "the iterations whose gradients overflow (with --steps)", offsetof(struct ls_text, overflow_at), FOR_ALL },
	{ "--steps", CLI_VALUE, "N", NULL, "the number of iterations (with --overflow-at or --simulate)", offsetof(struct ls_text, steps), FOR_ALL },
	{ "--steps-file", CLI_VALUE, "F", NULL, "one verdict per iteration a line: 0/finite or 1/inf/nan; - is stdin", offsetof(struct ls_text, steps_file), FOR_ALL },
	{ "--grads", CLI_MULTI, "G.npy", NULL, "FP32 gradients, one row per iteration (repeatable, at most 16 files)", offsetof(struct ls_text, grads), FOR_ALL },
	{ "--simulate", CLI_FLAG, NULL, NULL, "seeded synthetic gradients (with --steps)", offsetof(struct ls_text, simulate), FOR_ALL },
	{ "--dist", CLI_VALUE, "normal|uniform|positive", "normal", "--simulate: the distribution of the gradients", offsetof(struct ls_text, dist), FOR_ALL },
	{ "--seed", CLI_VALUE, "S", "1", "--simulate: the seed", offsetof(struct ls_text, seed), FOR_ALL },
	{ "--scale-log2", CLI_VALUE, "A", "-20", "--simulate: the gradients' scale at the first iteration, 2^A", offsetof(struct ls_text, scale_log2), FOR_ALL },
	{ "--scale-log2-end", CLI_VALUE, "B", "A", "--simulate: the scale at the last iteration, 2^B", offsetof(struct ls_text, scale_log2_end), FOR_ALL },
	{ "--values", CLI_VALUE, "N", "1024", "--simulate: gradients per iteration", offsetof(struct ls_text, values), FOR_ALL },
	{ "--profile", CLI_VALUE, "cuda", NULL, "the nonfinite check as CUDA's kernels do it", offsetof(struct ls_text, profile), FOR_ALL },
	{ "--summary", CLI_FLAG, NULL, NULL, "only the summary, not every iteration", offsetof(struct ls_text, summary), FOR_ALL },
	{ "--json", CLI_FLAG, NULL, NULL, "one JSON document on stdout", offsetof(struct ls_text, json), FOR_ALL },
	{ "--svg", CLI_VALUE, "FILE.svg", NULL, "draw the scale over the iterations, and the gradients' binades (as fpref draw lossscale)", offsetof(struct ls_text, svg), FOR_ALL },
};

const struct cli_command cli_cmd_lossscale = {
	.name = "lossscale",
	.synopsis = "--scaler pytorch|deepspeed|apex|static [SCALER OPTIONS] [--profile cuda] [--json] [--summary] [--svg FILE.svg]\n"
		    "       (--overflow-at 4,17,.. --steps N | --steps-file F | --grads G.npy [--grads H.npy ..] |\n"
		    "       --simulate --steps N [--dist D] [--scale-log2 A] [--scale-log2-end B] [--values N] [--seed S])",
	.summary = "Replay a loss scaler: each iteration's scale, applied or skipped, and its counters; with gradients,\n"
		   "the FP16 underflow with and without the scale (docs/loss-scaling.md).",
	.details = "A scaler's options for another scaler are errors; the defaults are each scaler's own.\n",
	.opts = ls_opts,
	.nopts = CLI_NOPTS(ls_opts),
	.max_positional = 0,
	.examples = { "fpref lossscale --scaler pytorch --overflow-at 3,4 --steps 10",
		      "fpref lossscale --scaler deepspeed --simulate --steps 100 --scale-log2 -20 --summary" },
	.run = cmd_lossscale,
};

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cli_fail(cli_cmd_lossscale.name, "%s", msg);
	return CLI_EXIT_USAGE;
}

static int out_of_memory(void)
{
	cli_fail(cli_cmd_lossscale.name, "out of memory");
	return CLI_EXIT_FAIL;
}

/* A number as a Python float: the decimal rounded once to FP64 (rne). */
static int parse_float64(const char *opt, const char *text, uint64_t *bits)
{
	struct fpref_ref_value v;
	char err[256];
	fpref_ref_value_init(&v);
	int r = fpref_ref_parse(text, &v, err, sizeof err);
	if (r == 0) {
		struct fpref_format f64;
		struct fpref_env env;
		unsigned flags = 0;
		cli_parse_format(cli_cmd_lossscale.name, "float64", &f64);
		fpref_env_default(&env);
		fpref_ref_round(&v, &f64, &env, 0, bits, &flags, NULL);
	}
	fpref_ref_value_clear(&v);
	return r == 0 ? 0 : usage_error("bad %s '%s' (a number)", opt, text);
}

static int parse_integer(const char *opt, const char *text, long long lo, long long hi, long long *out)
{
	char *end = NULL;
	errno = 0;
	long long x = strtoll(text, &end, 10);
	if (!*text || *end || errno || x < lo || x > hi) {
		cli_fail(cli_cmd_lossscale.name, "bad %s '%s' (an integer from %lld to %lld)", opt, text, lo, hi);
		return CLI_EXIT_USAGE;
	}
	*out = x;
	return 0;
}

/* Apply one scaler option to the configuration. */
static int apply_scaler_option(struct ls_args *a, const char *name, const char *value)
{
	struct fpref_scaler_config *c = &a->cfg;
	long long n;
	if (strcmp(name, "--init-scale") == 0)
		return parse_float64(name, value, &c->init_scale);
	if (strcmp(name, "--growth-factor") == 0)
		return parse_float64(name, value, &c->growth_factor);
	if (strcmp(name, "--backoff-factor") == 0)
		return parse_float64(name, value, &c->backoff_factor);
	if (strcmp(name, "--min-loss-scale") == 0)
		return parse_float64(name, value, &c->min_scale);
	if (strcmp(name, "--max-loss-scale") == 0)
		return parse_float64(name, value, &c->max_scale);
	if (strcmp(name, "--initial-scale-power") == 0) {
		if (parse_integer(name, value, -1000, 1000, &n))
			return CLI_EXIT_USAGE;
		c->init_scale = (uint64_t)(1023 + n) << 52; /* 2**power */
		return 0;
	}
	if (strcmp(name, "--hysteresis") == 0) {
		if (parse_integer(name, value, 1, INT32_MAX, &n))
			return CLI_EXIT_USAGE;
		c->hysteresis = n;
		return 0;
	}
	if (strcmp(name, "--growth-interval") == 0 || strcmp(name, "--loss-scale-window") == 0 ||
	    strcmp(name, "--scale-window") == 0) {
		if (parse_integer(name, value, 1, INT32_MAX, &n))
			return CLI_EXIT_USAGE;
		c->interval = n;
		return 0;
	}
	if (strcmp(name, "--consecutive-hysteresis") == 0)
		c->consecutive_hysteresis = true;
	else if (strcmp(name, "--no-raise-at-min") == 0)
		c->raise_at_min = false;
	else if (strcmp(name, "--no-skip") == 0)
		c->static_skips = false;
	return 0;
}

static int apply_run_option(struct ls_args *a, const char *name, const char *value)
{
	if (strcmp(name, "--overflow-at") == 0)
		a->overflow_at = value;
	else if (strcmp(name, "--steps") == 0)
		return parse_integer(name, value, 0, 100000000, &a->steps);
	else if (strcmp(name, "--steps-file") == 0)
		a->steps_file = value;
	else if (strcmp(name, "--grads") == 0) {
		if (a->ngrads == (int)(sizeof a->grads / sizeof a->grads[0]))
			return usage_error("at most 16 --grads files");
		a->grads[a->ngrads++] = value;
	} else if (strcmp(name, "--new-scale") == 0)
		a->new_scale = value;
	else if (strcmp(name, "--simulate") == 0)
		a->simulate = true;
	else if (strcmp(name, "--json") == 0)
		a->json = true;
	else if (strcmp(name, "--summary") == 0)
		a->summary_only = true;
	else if (strcmp(name, "--svg") == 0)
		a->svg = value;
	else if (strcmp(name, "--profile") == 0)
		a->cfg.profile = value;
	else if (strcmp(name, "--dist") == 0)
		a->dist = value;
	else if (strcmp(name, "--seed") == 0)
		a->seed = value;
	else if (strcmp(name, "--scale-log2") == 0)
		a->scale_log2 = value;
	else if (strcmp(name, "--scale-log2-end") == 0)
		a->scale_log2_end = value;
	else if (strcmp(name, "--values") == 0)
		a->values = value;
	else
		return apply_scaler_option(a, name, value);
	return 0;
}

static int parse_args(int argc, char **argv, struct ls_args *a)
{
	memset(a, 0, sizeof *a);
	a->steps = -1;
	struct ls_text t;
	memset(&t, 0, sizeof t);
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_lossscale, argc, argv, &o, &t);
	if (r)
		return r;
	if (!t.scaler)
		return usage_error("needs --scaler pytorch|deepspeed|apex|static (see fpref lossscale --help)");
	if (fpref_emu_scaler_parse(t.scaler, &a->kind) != 0)
		return usage_error("unknown --scaler '%s' (pytorch, deepspeed, apex or static)", t.scaler);
	fpref_emu_scaler_config_default(a->kind, &a->cfg);
	char what[64];
	snprintf(what, sizeof what, "--scaler %s", t.scaler);
	if (cli_check_tags(&cli_cmd_lossscale, &t, 1u << a->kind, what))
		return CLI_EXIT_USAGE;
	/* each option given, applied in the table's order (each sets its own field) */
	for (size_t i = 1; i < CLI_NOPTS(ls_opts); i++) {
		const struct cli_opt *row = &ls_opts[i];
		const char *p = (const char *)&t + row->offset;
		if (row->kind == CLI_MULTI) {
			const struct cli_multi *m = (const struct cli_multi *)(const void *)p;
			for (int k = 0; k < m->n; k++)
				if (apply_run_option(a, row->name, m->v[k]))
					return CLI_EXIT_USAGE;
		} else if (row->kind == CLI_FLAG ? *(const bool *)(const void *)p : *(const char *const *)(const void *)p != NULL) {
			const char *value = row->kind == CLI_FLAG ? NULL : *(const char *const *)(const void *)p;
			if (apply_run_option(a, row->name, value))
				return CLI_EXIT_USAGE;
		}
	}
	int sources = (a->overflow_at != NULL) + (a->steps_file != NULL) + (a->ngrads > 0) + a->simulate;
	if (sources != 1)
		return usage_error("give exactly one of --overflow-at (with --steps), --steps-file, --grads, --simulate");
	if ((a->overflow_at || a->simulate) && a->steps < 0)
		return usage_error("%s needs --steps N", a->simulate ? "--simulate" : "--overflow-at");
	if (a->steps >= 0 && !a->overflow_at && !a->simulate)
		return usage_error("--steps goes with --overflow-at or --simulate (a steps file or .npy sets the count)");
	if ((a->dist || a->seed || a->scale_log2 || a->scale_log2_end || a->values) && !a->simulate)
		return usage_error("--dist, --seed, --scale-log2, --scale-log2-end and --values belong to --simulate");
	return 0;
}

/* ---- the iterations: where the overflow verdicts come from ---- */

struct ls_source {
	unsigned char *flags; /* --overflow-at, --steps-file: one verdict per iteration */
	struct fpref_npy tensors[16];
	uint64_t *row;        /* one iteration's gradients (FP32 patterns) */
	size_t row_cap;
	int ntensors;
	size_t steps;
	/* --simulate */
	enum fpref_dist dist;
	unsigned long long seed;
	long log2_start, log2_end;
	size_t values;
};

static int parse_overflow_at(const struct ls_args *a, struct ls_source *src)
{
	src->steps = (size_t)a->steps;
	src->flags = calloc(src->steps ? src->steps : 1, 1);
	if (!src->flags)
		return out_of_memory();
	const char *p = a->overflow_at;
	while (*p) {
		char *end = NULL;
		errno = 0;
		unsigned long long k = strtoull(p, &end, 10);
		if (end == p || errno || k < 1 || k > src->steps || (*end && *end != ','))
			return usage_error("bad --overflow-at '%s' (step numbers from 1 to --steps, separated by commas)",
					   a->overflow_at);
		src->flags[k - 1] = 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int parse_step_word(const char *w, unsigned char *flag)
{
	if (strcmp(w, "1") == 0 || strcmp(w, "inf") == 0 || strcmp(w, "nan") == 0 || strcmp(w, "overflow") == 0)
		*flag = 1;
	else if (strcmp(w, "0") == 0 || strcmp(w, "finite") == 0)
		*flag = 0;
	else
		return -1;
	return 0;
}

static int read_steps_file(const char *path, struct ls_source *src)
{
	int n, status = 0;
	FILE *in = strcmp(path, "-") == 0 ? stdin : cli_open_input(cli_cmd_lossscale.name, path, &status);
	if (!in)
		return status;
	struct cli_lines r = { .in = in, .name = in == stdin ? NULL : path, .cmd = cli_cmd_lossscale.name };
	char *tok[2];
	size_t cap = 0;
	while ((n = cli_next_tokens(&r, tok, 2, &status)) > 0) {
		if (tok[0][0] == '#')
			continue;
		if (src->steps == cap) {
			cap = cap ? 2 * cap : 1024;
			unsigned char *grown = realloc(src->flags, cap);
			if (!grown) {
				status = out_of_memory();
				break;
			}
			src->flags = grown;
		}
		if (n != 1 || parse_step_word(tok[0], &src->flags[src->steps]) != 0) {
			cli_fail(cli_cmd_lossscale.name, "%s:%lu: expected one of 0, 1, finite, inf, nan", path, r.lineno);
			status = CLI_EXIT_USAGE;
			break;
		}
		src->steps++;
	}
	if (n < 0 && !status)
		status = CLI_EXIT_USAGE;
	cli_lines_free(&r);
	if (in != stdin)
		fclose(in);
	return status;
}

static int load_grads(const struct ls_args *a, struct ls_source *src)
{
	char err[512];
	for (int t = 0; t < a->ngrads; t++) {
		struct fpref_npy *x = &src->tensors[t];
		if (fpref_npy_read(a->grads[t], x, err, sizeof err) != 0) {
			src->ntensors = t;
			return usage_error("%s", err);
		}
		src->ntensors = t + 1;
		const struct fpref_format *from;
		if (fpref_npy_item_format(x, NULL, &from) != FPREF_NPY_VALUES || x->ndim < 1)
			return usage_error("%s: expected a float16/32/64 or bfloat16 array with the iterations along its first axis",
					   a->grads[t]);
		if (x->count == 0) /* (N, 0) would replay N iterations of nothing */
			return usage_error("%s: the array is empty; --grads needs at least one gradient", a->grads[t]);
		if (t > 0 && x->shape[0] != src->steps)
			return usage_error("%s: its first axis (iterations) differs from %s's", a->grads[t], a->grads[0]);
		src->steps = x->shape[0];
		size_t per = x->shape[0] ? x->count / x->shape[0] : 0;
		src->row_cap = per > src->row_cap ? per : src->row_cap;
	}
	src->row = malloc((src->row_cap ? src->row_cap : 1) * sizeof *src->row);
	return src->row ? 0 : out_of_memory();
}

static int setup_simulation(const struct ls_args *a, struct ls_source *src)
{
	long long x;
	src->steps = (size_t)a->steps;
	src->dist = FPREF_DIST_NORMAL;
	src->seed = 1;
	src->log2_start = -20;
	src->values = 1024;
	if (a->dist && fpref_emu_dist_parse(a->dist, &src->dist) != 0)
		return usage_error("bad --dist '%s' (normal, uniform or positive)", a->dist);
	if (a->seed) {
		if (parse_integer("--seed", a->seed, 0, INT64_MAX, &x))
			return CLI_EXIT_USAGE;
		src->seed = (unsigned long long)x;
	}
	if (a->scale_log2) {
		if (parse_integer("--scale-log2", a->scale_log2, -200, 200, &x))
			return CLI_EXIT_USAGE;
		src->log2_start = (long)x;
	}
	src->log2_end = src->log2_start;
	if (a->scale_log2_end) {
		if (parse_integer("--scale-log2-end", a->scale_log2_end, -200, 200, &x))
			return CLI_EXIT_USAGE;
		src->log2_end = (long)x;
	}
	if (a->values) {
		if (parse_integer("--values", a->values, 1, 1 << 24, &x))
			return CLI_EXIT_USAGE;
		src->values = (size_t)x;
	}
	src->row_cap = src->values;
	src->row = malloc(src->row_cap * sizeof *src->row);
	return src->row ? 0 : out_of_memory();
}

static void source_free(struct ls_source *src)
{
	free(src->flags);
	free(src->row);
	for (int t = 0; t < src->ntensors; t++)
		fpref_npy_free(&src->tensors[t]);
}

/* One tensor's slice for iteration k, as FP32 patterns (other items are
 * rounded to FP32, nearest even, by the emulator). */
static size_t tensor_row(const struct fpref_npy *x, size_t k, uint64_t *out)
{
	struct fpref_format f32;
	const struct fpref_format *from;
	cli_parse_format(cli_cmd_lossscale.name, "float32", &f32);
	fpref_npy_item_format(x, NULL, &from);
	size_t per = x->count / x->shape[0];
	for (size_t i = 0; i < per; i++)
		out[i] = fpref_npy_item(x, k * per + i);
	cli_convert_values(from, out, per, &f32, NULL);
	return per;
}

/* The gradient exponent of iteration k of a simulation: linear from
 * --scale-log2 to --scale-log2-end, rounded toward -inf. */
static int simulation_log2(const struct ls_source *src, size_t k)
{
	if (src->steps < 2)
		return (int)src->log2_start;
	long long span = (long long)(src->log2_end - src->log2_start) * (long long)k;
	long long d = (long long)src->steps - 1, q = span / d;
	if (span % d != 0 && span < 0)
		q--;
	return (int)(src->log2_start + q);
}

/* Iteration k's verdict, and its gradient statistics when there are gradients. */
/* The gradients' binades for --svg: FP32's, from 2^-149 to 2^127. */
#define LS_BINADE_LO (-149)
#define LS_BINADES 277

struct ls_binades {
	size_t counts[LS_BINADES], below, above, counted;
};

static void count_binades(const uint64_t *row, size_t n, struct ls_binades *b)
{
	if (b)
		b->counted += fpref_emu_binade_counts(fpref_format_get(FPREF_FORMAT_FLOAT32), row, n, LS_BINADE_LO,
						      LS_BINADES, b->counts, &b->below, &b->above);
}

static int iteration(const struct fpref_scaler *s, const struct ls_source *src, size_t k, bool *overflow,
		     struct fpref_grad_stats *st, bool *have_grads, struct ls_binades *bins)
{
	memset(st, 0, sizeof *st);
	*have_grads = !src->flags;
	if (src->flags) {
		*overflow = src->flags[k] != 0;
		return 0;
	}
	if (src->ntensors == 0) {
		struct fpref_format f32;
		struct fpref_env env;
		fpref_env_default(&env);
		cli_parse_format(cli_cmd_lossscale.name, "float32", &f32);
		fpref_emu_random(&f32, &env, src->dist, simulation_log2(src, k), src->seed, (uint64_t)k * src->values,
				 src->values, src->row);
		if (fpref_emu_scaler_check_tensor(s, src->row, src->values, NULL, st) != 0)
			return -1;
		count_binades(src->row, src->values, bins);
	}
	for (int t = 0; t < src->ntensors; t++) {
		size_t n = tensor_row(&src->tensors[t], k, src->row);
		if (fpref_emu_scaler_check_tensor(s, src->row, n, NULL, st) != 0)
			return -1;
		count_binades(src->row, n, bins);
	}
	*overflow = st->overflow;
	return 0;
}

/* ---- --new-scale STEP=VALUE,... ---- */

static int new_scale_at(const char *list, size_t step, bool *found, uint64_t *bits)
{
	*found = false;
	if (!list)
		return 0;
	const char *p = list;
	while (*p) {
		char *end = NULL;
		errno = 0;
		unsigned long long k = strtoull(p, &end, 10);
		if (end == p || errno || k < 1 || *end != '=')
			return usage_error("bad --new-scale '%s' (STEP=VALUE, separated by commas)", list);
		const char *v = end + 1;
		size_t len = strcspn(v, ",");
		char text[128];
		if (len == 0 || len >= sizeof text)
			return usage_error("bad --new-scale '%s' (STEP=VALUE, separated by commas)", list);
		memcpy(text, v, len);
		text[len] = 0;
		if (k == step) {
			if (parse_float64("--new-scale", text, bits))
				return CLI_EXIT_USAGE;
			*found = true;
		}
		p = v[len] ? v + len + 1 : v + len;
	}
	return 0;
}

/* ---- printing ---- */

/* The shortest decimal that reads back as the scale (null in JSON for
 * inf or NaN), padded to width. */
static void put_scale_padded(const struct fpref_format *f, uint64_t bits, bool json, int width)
{
	struct fpref_unpacked u;
	fpref_decode(f, bits, &u);
	if (json && (u.cls == FPREF_CLASS_INF || u.cls == FPREF_CLASS_NAN)) {
		fputs("null", stdout);
		return;
	}
	char *text = fpref_ref_shortest(f, bits);
	printf("%-*s", width, text ? text : "?");
	free(text);
}

static void put_scale(const struct fpref_format *f, uint64_t bits, bool json)
{
	put_scale_padded(f, bits, json, 0);
}

static const char *result_word(const struct fpref_scaler_step *st)
{
	return st->raised ? "raised" : st->applied ? "applied" : "skipped";
}

static void events(const struct fpref_scaler_step *st, bool manual, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s%s%s", st->grew ? "grew " : "", st->backed_off ? "backoff " : "",
		 st->growth_refused ? "growth-refused " : "", st->hysteresis_spent ? "hysteresis " : "",
		 st->clamped ? "clamped " : "", st->raised ? "raised-at-min " : "",
		 st->overflow && st->applied ? "nonfinite-applied " : "", manual ? "new-scale " : "");
	size_t n = strlen(buf);
	if (n)
		buf[n - 1] = 0;
	else
		snprintf(buf, len, "-");
}

static void print_header(const struct fpref_scaler *s, bool grads)
{
	const struct fpref_scaler_config *c = &s->cfg;
	const struct fpref_format *f64 = &s->f64;
	printf("# scaler %s, scale kept in %s: init ", fpref_emu_scaler_name(c->kind), fpref_emu_scaler_scale_format(s)->name);
	put_scale(f64, c->init_scale, false);
	if (c->kind == FPREF_SCALER_PYTORCH) {
		printf(", growth_factor ");
		put_scale(f64, c->growth_factor, false);
		printf(", backoff_factor ");
		put_scale(f64, c->backoff_factor, false);
		printf(", growth_interval %lld", (long long)c->interval);
	} else if (c->kind == FPREF_SCALER_DEEPSPEED) {
		printf(", loss_scale_window %lld, hysteresis %lld, consecutive_hysteresis %s, min_loss_scale ",
		       (long long)c->interval, (long long)c->hysteresis, c->consecutive_hysteresis ? "on" : "off");
		put_scale(f64, c->min_scale, false);
		printf(", raise_error_at_min_scale %s", c->raise_at_min ? "on" : "off");
	} else if (c->kind == FPREF_SCALER_APEX) {
		printf(", scale_window %lld, min_loss_scale ", (long long)c->interval);
		if (c->min_scale)
			put_scale(f64, c->min_scale, false);
		else
			fputs("none", stdout);
		printf(", max_loss_scale ");
		put_scale(f64, c->max_scale, false);
	} else {
		printf(", %s non-finite steps", c->static_skips ? "skips" : "applies");
	}
	if (c->profile)
		printf(", gradient path as profile %s", c->profile);
	printf("\n");
	const char *counter = c->kind == FPREF_SCALER_PYTORCH ? " tracker"
			      : c->kind == FPREF_SCALER_APEX ? " unskipped"
			      : c->kind == FPREF_SCALER_DEEPSPEED ? " hysteresis cur_iter last_overflow" : "";
	printf("%8s %-14s %-8s %-14s%s %10s %8s%s events\n", "step", "scale", "result", "next_scale", counter, "opt_steps",
	       "skipped", grads ? " zero_fp16   zero_scaled subnormal_sc nonfinite" : "");
}

static double fraction(size_t part, size_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

static void print_counters(const struct fpref_scaler *s, bool json)
{
	if (s->cfg.kind == FPREF_SCALER_PYTORCH || s->cfg.kind == FPREF_SCALER_APEX) {
		bool torch = s->cfg.kind == FPREF_SCALER_PYTORCH;
		if (json)
			printf("\"%s\": %lld, ", torch ? "growth_tracker" : "unskipped", (long long)s->growth_tracker);
		else
			printf(" %*lld", torch ? 7 : 9, (long long)s->growth_tracker);
	} else if (s->cfg.kind == FPREF_SCALER_DEEPSPEED) {
		if (json)
			printf("\"cur_hysteresis\": %lld, \"cur_iter\": %lld, \"last_overflow_iter\": %lld, ",
			       (long long)s->cur_hysteresis, (long long)s->cur_iter, (long long)s->last_overflow_iter);
		else
			printf(" %10lld %8lld %13lld", (long long)s->cur_hysteresis, (long long)s->cur_iter,
			       (long long)s->last_overflow_iter);
	}
}

static void print_step(const struct fpref_scaler *s, size_t k, const struct fpref_scaler_step *st, bool manual,
		       const struct fpref_grad_stats *g, bool grads, bool json, bool first)
{
	const struct fpref_format *f = fpref_emu_scaler_scale_format(s);
	char ev[160];
	events(st, manual, ev, sizeof ev);
	if (json) {
		printf("%s\n    {\"step\": %zu, \"scale\": ", first ? "" : ",", k + 1);
		put_scale(f, st->scale_used, true);
		printf(", \"overflow\": %s, \"result\": \"%s\", \"next_scale\": ", st->overflow ? "true" : "false",
		       result_word(st));
		put_scale(f, st->scale_next, true);
		char hex[32];
		cli_hex(f, st->scale_next, hex, sizeof hex);
		printf(", \"next_scale_bits\": \"%s\", \"events\": \"%s\", ", hex, ev);
		print_counters(s, true);
		printf("\"optimizer_steps\": %llu, \"skipped_steps\": %llu", (unsigned long long)s->optimizer_steps,
		       (unsigned long long)s->skipped_steps);
		if (grads)
			printf(", \"values\": %zu, \"nonzero\": %zu, \"zero_fp16\": %zu, \"subnormal_fp16\": %zu, "
			       "\"zero_scaled\": %zu, \"subnormal_scaled\": %zu, \"nonfinite_scaled\": %zu",
			       g->values, g->nonzero, g->zero_unscaled, g->subnormal_unscaled, g->zero_scaled,
			       g->subnormal_scaled, g->nonfinite_scaled);
		printf("}");
		return;
	}
	printf("%8zu ", k + 1);
	put_scale_padded(f, st->scale_used, false, 14);
	printf(" %-8s ", result_word(st));
	put_scale_padded(f, st->scale_next, false, 14);
	print_counters(s, false);
	printf(" %10llu %8llu", (unsigned long long)s->optimizer_steps, (unsigned long long)s->skipped_steps);
	if (grads)
		printf(" %-11.6g %-11.6g %-12.6g %9zu", fraction(g->zero_unscaled, g->nonzero),
		       fraction(g->zero_scaled, g->nonzero), fraction(g->subnormal_scaled, g->nonzero), g->nonfinite_scaled);
	printf(" %s\n", ev);
}

struct totals {
	struct fpref_grad_stats g;
	size_t grown, backed_off;
};

static void add_totals(struct totals *t, const struct fpref_grad_stats *g, const struct fpref_scaler_step *st)
{
	t->g.values += g->values;
	t->g.nonzero += g->nonzero;
	t->g.zero_unscaled += g->zero_unscaled;
	t->g.subnormal_unscaled += g->subnormal_unscaled;
	t->g.zero_scaled += g->zero_scaled;
	t->g.subnormal_scaled += g->subnormal_scaled;
	t->g.nonfinite_scaled += g->nonfinite_scaled;
	t->g.zero_recovered += g->zero_recovered;
	t->grown += st->grew;
	t->backed_off += st->backed_off;
}

static void print_summary(const struct fpref_scaler *s, const struct totals *t, bool grads, bool stopped, bool json)
{
	const struct fpref_grad_stats *g = &t->g;
	double skip_rate = fraction((size_t)s->skipped_steps, (size_t)s->iterations);
	if (json) {
		printf("\"summary\": {\"iterations\": %llu, \"optimizer_steps\": %llu, \"skipped_steps\": %llu, "
		       "\"skip_rate\": %.17g, \"growths\": %zu, \"backoffs\": %zu, \"raised_at_min\": %s, \"final_scale\": ",
		       (unsigned long long)s->iterations, (unsigned long long)s->optimizer_steps,
		       (unsigned long long)s->skipped_steps, skip_rate, t->grown, t->backed_off, stopped ? "true" : "false");
		put_scale(fpref_emu_scaler_scale_format(s), s->scale, true);
		if (grads)
			printf(", \"values\": %zu, \"nonzero\": %zu, \"zero_fp16_fraction\": %.17g, "
			       "\"subnormal_fp16_fraction\": %.17g, \"zero_scaled_fraction\": %.17g, "
			       "\"subnormal_scaled_fraction\": %.17g, \"nonfinite_scaled\": %zu, \"zero_after_unscale\": %zu",
			       g->values, g->nonzero, fraction(g->zero_unscaled, g->nonzero),
			       fraction(g->subnormal_unscaled, g->nonzero), fraction(g->zero_scaled, g->nonzero),
			       fraction(g->subnormal_scaled, g->nonzero), g->nonfinite_scaled, g->zero_recovered);
		printf("}}\n");
		return;
	}
	printf("summary: %llu iterations, %llu optimizer steps, %llu skipped (skip rate %.6g), %zu growths, %zu backoffs, "
	       "final scale ",
	       (unsigned long long)s->iterations, (unsigned long long)s->optimizer_steps,
	       (unsigned long long)s->skipped_steps, skip_rate, t->grown, t->backed_off);
	put_scale(fpref_emu_scaler_scale_format(s), s->scale, false);
	printf("\n");
	if (stopped)
		printf("the run stopped: DeepSpeed raises \"Current loss scale already at minimum\"\n");
	if (grads) {
		printf("gradients: %zu values, %zu finite nonzero\n", g->values, g->nonzero);
		printf("  in FP16 without scaling: %.6g zero, %.6g subnormal\n", fraction(g->zero_unscaled, g->nonzero),
		       fraction(g->subnormal_unscaled, g->nonzero));
		printf("  in FP16 with the scale:  %.6g zero, %.6g subnormal, %zu inf/NaN\n",
		       fraction(g->zero_scaled, g->nonzero), fraction(g->subnormal_scaled, g->nonzero), g->nonfinite_scaled);
		printf("  zero after unscaling:    %.6g\n", fraction(g->zero_recovered, g->nonzero));
	}
}

/* --svg: the binades shown are those holding gradients, with FP16's least
 * subnormal and least normal in view. */
static int draw_run(const struct ls_args *a, const struct fpref_scaler *s, size_t steps, const uint64_t *scales,
		    const bool *skipped, const struct ls_binades *bins)
{
	char title[160];
	snprintf(title, sizeof title, "Loss scaling: %s, %zu iterations", fpref_emu_scaler_name(s->cfg.kind), steps);
	struct draw_lossscale d = { title, steps, fpref_emu_scaler_scale_format(s), scales, skipped, 0, 0, NULL, 0, 0, 0 };
	if (bins && bins->counted) {
		int first = LS_BINADES, last = -1;
		for (int i = 0; i < LS_BINADES; i++)
			if (bins->counts[i]) {
				first = i < first ? i : first;
				last = i;
			}
		const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
		int least = fpref_format_min_exponent(f16) - f16->man_bits - LS_BINADE_LO - 2;
		int normal = fpref_format_min_exponent(f16) - LS_BINADE_LO + 2;
		first = first < least ? first : least;
		last = last > normal ? last : normal;
		d.lo = LS_BINADE_LO + first;
		d.nbins = (size_t)(last - first + 1);
		d.counts = bins->counts + first;
		d.counted = bins->counted;
		for (int i = 0; i < first; i++)
			d.below += bins->counts[i];
		for (int i = last + 1; i < LS_BINADES; i++)
			d.above += bins->counts[i];
		d.below += bins->below;
		d.above += bins->above;
	}
	return draw_lossscale(cli_cmd_lossscale.name, a->svg, &d);
}

static int run(const struct ls_args *a, struct fpref_scaler *s, const struct ls_source *src)
{
	bool grads = !src->flags;
	struct totals t;
	memset(&t, 0, sizeof t);
	if (a->svg && src->steps > 100000) {
		cli_fail(cli_cmd_lossscale.name, "--svg draws each iteration: at most 100000, not %zu", src->steps);
		return CLI_EXIT_USAGE;
	}
	if (a->json)
		printf("{\"scaler\": \"%s\", \"scale_format\": \"%s\", \"steps\": [", fpref_emu_scaler_name(s->cfg.kind),
		       fpref_emu_scaler_scale_format(s)->name);
	else if (!a->summary_only)
		print_header(s, grads);
	bool stopped = false;
	uint64_t *scales = NULL;
	bool *skipped = NULL;
	struct ls_binades *bins = NULL;
	if (a->svg) {
		scales = calloc(src->steps + 1, sizeof *scales);
		skipped = calloc(src->steps + 1, sizeof *skipped);
		bins = grads ? calloc(1, sizeof *bins) : NULL;
		if (!scales || !skipped || (grads && !bins)) {
			free(scales);
			free(skipped);
			free(bins);
			return out_of_memory();
		}
	}
	size_t done = 0;
	for (size_t k = 0; k < src->steps && !stopped; k++) {
		bool overflow, have, manual;
		uint64_t manual_scale = 0;
		struct fpref_grad_stats g;
		struct fpref_scaler_step st;
		if (new_scale_at(a->new_scale, k + 1, &manual, &manual_scale))
			return CLI_EXIT_USAGE;
		if (iteration(s, src, k, &overflow, &g, &have, bins) != 0) {
			cli_fail(cli_cmd_lossscale.name, "invalid gradient pattern at step %zu", k + 1);
			free(scales);
			free(skipped);
			free(bins);
			return CLI_EXIT_FAIL;
		}
		if (manual)
			fpref_emu_scaler_update_to(s, overflow, manual_scale, &st);
		else
			fpref_emu_scaler_update(s, overflow, &st);
		stopped = st.raised;
		add_totals(&t, &g, &st);
		if (scales) {
			scales[done] = st.scale_used;
			skipped[done] = !st.applied;
		}
		done++;
		if (!a->summary_only)
			print_step(s, k, &st, manual, &g, grads, a->json, k == 0);
	}
	if (a->json)
		printf("%s],\n  ", src->steps && !a->summary_only ? "\n  " : "");
	print_summary(s, &t, grads, stopped, a->json);
	int status = CLI_EXIT_OK;
	if (a->svg)
		status = draw_run(a, s, done, scales, skipped, bins);
	free(scales);
	free(skipped);
	free(bins);
	return status;
}

int cmd_lossscale(int argc, char **argv)
{
	struct ls_args a;
	int status = parse_args(argc, argv, &a);
	if (status)
		return status;
	struct fpref_scaler s;
	char err[256];
	if (fpref_emu_scaler_init(&s, &a.cfg, err, sizeof err) != 0) {
		cli_fail(cli_cmd_lossscale.name, "%s", err);
		return CLI_EXIT_USAGE;
	}
	struct ls_source src;
	memset(&src, 0, sizeof src);
	if (a.overflow_at)
		status = parse_overflow_at(&a, &src);
	else if (a.steps_file)
		status = read_steps_file(a.steps_file, &src);
	else if (a.ngrads)
		status = load_grads(&a, &src);
	else
		status = setup_simulation(&a, &src);
	if (!status && a.new_scale) {
		bool found;
		uint64_t bits;
		status = new_scale_at(a.new_scale, 0, &found, &bits); /* syntax only */
	}
	if (!status)
		status = run(&a, &s, &src);
	source_free(&src);
	return status;
}
