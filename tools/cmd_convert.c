/* fpref convert: round values to a format, for people or as a
 * TestFloat-style batch filter.  Bit patterns go through the emulator by
 * default (--engine ref: the oracle); decimal numbers through the oracle. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct convert_args {
	const char *in, *out;
	const char *scale_rule, *element, *threads;
};

/* --scale-rule: a row of the E8M0 rule matrix (formats/fpref_formats_e8m0.h) instead of --to's rounding. */
struct scale_rule {
	bool on;
	struct fpref_e8m0_rule rule;
	struct fpref_format element;
};

static const struct cli_opt convert_opts[] = {
	{ "--in-file", CLI_VALUE, "X.npy", NULL,
	  "convert a whole array: float16/32/64 values (or bfloat16 as V2), or bit patterns of --from in unsigned "
	  "items of its width", offsetof(struct convert_args, in), 0 },
	{ "--out-file", CLI_VALUE, "Y.npy", NULL,
	  "where --in-file's array goes: float16/32/64 as NumPy floats, other formats as unsigned codes "
	  "(np.load(Y).view(ml_dtypes.TYPE))", offsetof(struct convert_args, out), 0 },
	{ "--scale-rule", CLI_VALUE, "NAME", NULL,
	  "an E8M0 rule instead of --to e8m0's rounding (floor, ceil, rceil, even, cvt-rp, cvt-rz, onnx-up, "
	  "onnx-up-nosat, onnx-down, onnx-down-nosat, onnx-nearest, onnx-nearest-nosat, pytorch, ml_dtypes; "
	  "NAME/bf16: the input rounded to bfloat16 first); inputs are float32 or bfloat16, flags are not computed",
	  offsetof(struct convert_args, scale_rule), 0 },
	{ "--element-format", CLI_VALUE, "FMT", NULL,
	  "the MX element of an amax rule (floor, ceil, rceil, even): e4m3, e5m2, e2m3, e3m2, e2m1 or mxint8_sym",
	  offsetof(struct convert_args, element), 0 },
	{ "--threads", CLI_VALUE, "N", "all cores",
	  "threads converting --in-file's array through the emulator (the same bits and flags on any number)",
	  offsetof(struct convert_args, threads), 0 },
};

/* Read one operand: bits of --from, or a number. */
static int read_operand(const struct cli_options *o, const char *text, struct fpref_ref_value *v, uint64_t *raw,
			char *err, size_t errlen)
{
	if (!o->have_from)
		return fpref_ref_parse(text, v, err, errlen);
	if (cli_parse_bits(&o->from, text, raw, err, errlen) != 0)
		return -1;
	fpref_ref_from_bits(&o->from, *raw, o->env.daz, v);
	return 0;
}

/* The emulator takes bit patterns; numbers written in decimal are the
 * oracle's to round (the emulator has no decimal reader). */
static void convert_one(const struct cli_options *o, const struct scale_rule *sr, const struct fpref_ref_value *v,
			uint64_t raw, uint64_t index, uint64_t *bits, unsigned *flags)
{
	*flags = 0;
	if (sr->on) {
		/* the rule reads an FP32 pattern: a decimal rounded to FP32, a BF16 pattern widened */
		struct fpref_env env;
		fpref_env_default(&env);
		uint64_t x = raw;
		unsigned ignored = 0;
		if (!o->have_from)
			fpref_ref_round(v, fpref_format_get(FPREF_FORMAT_FLOAT32), &env, 0, &x, &ignored, NULL);
		else if (fpref_format_is(&o->from, FPREF_FORMAT_BFLOAT16))
			x = raw << 16;
		uint8_t code = 0;
		char err[256];
		const struct fpref_format *el = fpref_e8m0_rule_needs_element(&sr->rule) ? &sr->element : NULL;
		if (o->engine == CLI_ENGINE_REF)
			fpref_ref_e8m0(&sr->rule, el, (uint32_t)x, &code, err, sizeof err);
		else
			fpref_emu_e8m0(&sr->rule, el, (uint32_t)x, &code, err, sizeof err);
		*bits = code;
		return;
	}
	uint64_t R = fpref_env_sr_random(&o->env, index);
	if (o->have_from && o->engine == CLI_ENGINE_EMU)
		fpref_emu_convert(&o->from, raw, &o->to, &o->env, R, bits, flags);
	else
		fpref_ref_convert_value(v, &o->to, &o->env, R, bits, flags, NULL);
}

static int convert_values(const struct cli_options *o, const struct scale_rule *sr)
{
	struct fpref_ref_value v, result;
	fpref_ref_value_init(&v);
	fpref_ref_value_init(&result);
	int status = CLI_EXIT_OK;
	for (int i = 0; i < o->npositional; i++) {
		char err[512];
		uint64_t raw = 0;
		if (read_operand(o, o->positional[i], &v, &raw, err, sizeof err) != 0) {
			cli_fail(cli_cmd_convert.name, "%s", err);
			status = CLI_EXIT_USAGE;
			break;
		}
		uint64_t bits;
		unsigned flags;
		convert_one(o, sr, &v, raw, (uint64_t)i, &bits, &flags);
		char hex[32], words[96];
		cli_hex(&o->to, bits, hex, sizeof hex);
		fpref_flags_describe(flags, words, sizeof words);
		fpref_ref_from_bits(&o->to, bits, false, &result);
		char *dec = fpref_ref_decimal(result.x);
		if (o->json) {
			printf("%s{\"value\": ", i ? ",\n  " : "[\n  ");
			cli_json_string(o->positional[i]);
			printf(", \"to\": \"%s\", \"bits\": \"%s\", \"decimal\": ", o->to.name, hex);
			cli_json_string(dec ? dec : "");
			printf(", \"flags\": %u, \"flag_words\": \"%s\"}", flags, words);
		} else {
			printf("%s -> %s %s = %s  flags %02X (%s)\n", o->positional[i], o->to.name, hex, dec ? dec : "", flags,
			       words);
		}
		free(dec);
	}
	if (o->json && status == CLI_EXIT_OK)
		printf("\n]\n");
	fpref_ref_value_clear(&v);
	fpref_ref_value_clear(&result);
	return status;
}

static int convert_stream(const struct cli_options *o, const struct scale_rule *sr, FILE *in)
{
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	struct cli_lines lines = { .in = in, .cmd = cli_cmd_convert.name, .keep_going = true };
	uint64_t index = 0;
	int status = CLI_EXIT_OK;
	char *token;
	if (o->json)
		printf("{\"to\": \"%s\", \"results\": [\n", o->to.name);
	while (cli_next_tokens(&lines, &token, 1, &status) > 0) {
		char err[512];
		uint64_t raw = 0;
		if (read_operand(o, token, &v, &raw, err, sizeof err) != 0) {
			cli_line_reject(&lines, "%s", err);
			continue;
		}
		uint64_t bits;
		unsigned flags;
		convert_one(o, sr, &v, raw, index++, &bits, &flags);
		char hex[32];
		cli_hex(&o->to, bits, hex, sizeof hex);
		if (o->json) {
			printf("%s{\"operand\": ", index > 1 ? ",\n  " : "  ");
			cli_json_string(token);
			printf(", \"bits\": \"%s\", \"flags\": %u}", hex, flags);
		} else
			printf("%s %s %02X\n", token, hex, flags);
	}
	if (o->json)
		printf("%s], \"lines\": %lu, \"rejected\": %lu}\n", index ? "\n" : "", lines.lines, lines.rejected);
	cli_lines_free(&lines);
	fpref_ref_value_clear(&v);
	return cli_lines_finish(&lines, status);
}

/* Patterns packed in items of a width (little-endian bytes), as the
 * emulator's bulk converter takes them. */
static void pack_items(const uint64_t *bits, size_t n, size_t width, unsigned char *items)
{
	for (size_t i = 0; i < n; i++)
		for (size_t b = 0; b < width; b++)
			items[i * width + b] = (unsigned char)(bits[i] >> (8 * b));
}

static void unpack_items(const unsigned char *items, size_t n, size_t width, uint64_t *bits)
{
	for (size_t i = 0; i < n; i++) {
		bits[i] = 0;
		for (size_t b = 0; b < width; b++)
			bits[i] |= (uint64_t)items[i * width + b] << (8 * b);
	}
}

/* bits[i], patterns of --from, converted in place by the emulator's bulk
 * converter on `threads` threads: element i as convert_one gives it
 * (fpref_emu_convert_array computes each element through the same core;
 * the patterns are checked valid before). */
static int convert_bulk(const struct cli_options *o, uint64_t *bits, size_t n, unsigned threads, size_t *inexact,
			unsigned *all)
{
	struct fpref_emu_converter *c = fpref_emu_converter_new(&o->from, &o->to, &o->env);
	size_t in_bytes = fpref_emu_element_bytes(&o->from), out_bytes = fpref_emu_element_bytes(&o->to);
	unsigned char *in = malloc(n * in_bytes + 1), *out = malloc(n * out_bytes + 1);
	uint8_t *flags = malloc(n + 1);
	int status = c && in && out && flags ? 0 : CLI_EXIT_FAIL;
	if (status)
		cli_fail(cli_cmd_convert.name, "out of memory");
	if (!status) {
		pack_items(bits, n, in_bytes, in);
		fpref_emu_convert_array_threads(c, in, out, n, flags, 0, threads);
		unpack_items(out, n, out_bytes, bits);
		for (size_t i = 0; i < n; i++) {
			*inexact += (flags[i] & FPREF_FLAG_INEXACT) != 0;
			*all |= flags[i];
		}
	}
	fpref_emu_converter_free(c);
	free(in);
	free(out);
	free(flags);
	return status;
}

/* A whole .npy array: its items read as --from patterns or as values of
 * their own float type, each converted as a batch line would be (the SR
 * stream indexed by the element), written as --out-file. */
static int convert_array(struct cli_options *o, const struct scale_rule *sr, const struct convert_args *a)
{
	const char *cmd = cli_cmd_convert.name;
	int status = cli_check_writable(cmd, a->out);
	if (status)
		return status;
	struct fpref_npy x;
	char err[512];
	if (fpref_npy_read(a->in, &x, err, sizeof err) != 0) {
		cli_fail(cmd, "%s", err);
		return CLI_EXIT_USAGE;
	}
	const struct fpref_format *values = NULL;
	enum fpref_npy_items items = fpref_npy_item_format(&x, o->have_from ? &o->from : NULL, &values);
	uint64_t *bits = malloc((x.count + 1) * sizeof *bits);
	if (!bits) {
		cli_fail(cmd, "out of memory");
		status = CLI_EXIT_FAIL;
	} else if (items == FPREF_NPY_UNUSABLE) {
		cli_fail(cmd, "%s: items of kind '%c' and %zu bytes: expected float16/32/64 values%s", a->in, x.kind,
			 x.item_bytes, o->have_from ? ", or unsigned items of --from's width" : " (or bit patterns with --from FMT)");
		status = CLI_EXIT_USAGE;
	} else if (items == FPREF_NPY_VALUES && o->have_from && !fpref_format_same(values, &o->from)) {
		cli_fail(cmd, "%s holds %s values, not %s patterns: drop --from, or give %zu-byte unsigned items", a->in,
			 values->name, o->from.name, fpref_emu_element_bytes(&o->from));
		status = CLI_EXIT_USAGE;
	}
	if (!status && items == FPREF_NPY_VALUES) {
		o->from = *values;
		o->have_from = true;
	}
	if (!status) {
		for (size_t i = 0; i < x.count; i++)
			bits[i] = fpref_npy_item(&x, i);
		status = cli_check_patterns(cmd, a->in, &o->from, bits, x.count) ? CLI_EXIT_USAGE : 0;
	}
	size_t inexact = 0;
	unsigned all = 0;
	unsigned threads = 1;
	if (!status && cli_parse_threads(cmd, a->threads, &threads) != 0)
		status = CLI_EXIT_USAGE;
	bool bulk = !status && o->engine == CLI_ENGINE_EMU && !sr->on; /* patterns of --from: the emulator's converter */
	if (bulk)
		status = convert_bulk(o, bits, x.count, threads, &inexact, &all);
	struct fpref_ref_value v;
	fpref_ref_value_init(&v);
	for (size_t i = 0; !status && !bulk && i < x.count; i++) {
		unsigned flags;
		if (o->engine == CLI_ENGINE_REF)
			fpref_ref_from_bits(&o->from, bits[i], o->env.daz, &v);
		convert_one(o, sr, &v, bits[i], i, &bits[i], &flags);
		inexact += (flags & FPREF_FLAG_INEXACT) != 0;
		all |= flags;
	}
	fpref_ref_value_clear(&v);
	if (!status)
		status = cli_save_patterns(cmd, a->out, &o->to, bits, x.shape, x.ndim);
	if (!status) {
		char words[96];
		fpref_flags_describe(all, words, sizeof words);
		if (o->json) {
			printf("{\"in\": ");
			cli_json_string(a->in);
			printf(", \"out\": ");
			cli_json_string(a->out);
			printf(", \"from\": \"%s\", \"to\": \"%s\", \"descr\": \"%s\", \"elements\": %zu, \"inexact\": %zu, "
			       "\"flags\": %u, \"flag_words\": \"%s\"}\n",
			       o->from.name, o->to.name, fpref_npy_descr_of(&o->to), x.count, inexact, all, words);
		} else
			printf("%s (%zu %s) -> %s (%s, %s): %zu inexact; flags raised %02X (%s)\n", a->in, x.count, o->from.name,
			       a->out, o->to.name, fpref_npy_descr_of(&o->to), inexact, all, words);
	}
	free(bits);
	fpref_npy_free(&x);
	return status;
}

const struct cli_command cli_cmd_convert = {
	.name = "convert",
	.synopsis = "--to FMT [--from FMT] [ENV] [--engine emu|ref] [--json]\n"
		    "       [VALUE... | --in-file X.npy --out-file Y.npy [--threads N]]",
	.summary = "Round values to FMT.  With no VALUE, read TestFloat lines (the operand first) from stdin and\n"
		   "write 'operand result flags'.",
	.details = "VALUEs are decimals or hex floats, rounded by the MPFR oracle; with --from FMT they are hex bit\n"
		   "patterns of FMT, converted by the emulator unless --engine ref.  --in-file/--out-file convert a\n"
		   "whole .npy array, element i as batch line i would be.  --json: one JSON document (an array of results for\n"
		   "VALUEs, {\"results\": [...]} for lines, a summary for arrays).\n",
	.groups = CLI_TO | CLI_FROM | CLI_ENV | CLI_SCALE | CLI_ENGINE | CLI_JSON,
	.opts = convert_opts,
	.nopts = CLI_NOPTS(convert_opts),
	.max_positional = -1,
	.examples = { "fpref convert --to e4m3 464 465", "printf '3C00\\n7BFF\\n' | fpref convert --from f16 --to e5m2" },
	.run = cmd_convert,
};

/* --scale-rule and --element-format: 0, or a message naming the bad token and CLI_EXIT_USAGE. */
static int parse_scale_rule(const struct cli_options *o, const struct convert_args *a, struct scale_rule *sr)
{
	const char *cmd = cli_cmd_convert.name;
	char err[512];
	memset(sr, 0, sizeof *sr);
	if (!a->scale_rule) {
		if (a->element) {
			cli_fail(cmd, "--element-format %s needs --scale-rule", a->element);
			return CLI_EXIT_USAGE;
		}
		return 0;
	}
	if (fpref_e8m0_rule_parse(a->scale_rule, &sr->rule, err, sizeof err) != 0) {
		cli_fail(cmd, "--scale-rule: %s", err);
		return CLI_EXIT_USAGE;
	}
	if (!fpref_format_is(&o->to, FPREF_FORMAT_FLOAT8_E8M0FNU)) {
		cli_fail(cmd, "--scale-rule %s makes E8M0 codes: --to e8m0, not %s", a->scale_rule, o->to.name);
		return CLI_EXIT_USAGE;
	}
	if (o->have_from && !fpref_format_is(&o->from, FPREF_FORMAT_FLOAT32) &&
	    !fpref_format_is(&o->from, FPREF_FORMAT_BFLOAT16)) {
		cli_fail(cmd, "--scale-rule reads float32 or bfloat16 patterns, not --from %s", o->from.name);
		return CLI_EXIT_USAGE;
	}
	if (o->text.round || o->text.overflow || o->text.sat || o->text.profile || o->text.sr_bits || o->text.ftz ||
	    o->text.daz || o->text.pre_scale) {
		cli_fail(cmd, "--scale-rule %s fixes the rounding and the special cases: no ENV options", a->scale_rule);
		return CLI_EXIT_USAGE;
	}
	if (a->in) {
		cli_fail(cmd, "--scale-rule converts VALUEs or batch lines, not --in-file arrays");
		return CLI_EXIT_USAGE;
	}
	if (fpref_e8m0_rule_needs_element(&sr->rule)) {
		if (!a->element) {
			cli_fail(cmd, "--scale-rule %s turns an amax into a scale: it needs --element-format FMT", a->scale_rule);
			return CLI_EXIT_USAGE;
		}
		if (fpref_format_parse(a->element, &sr->element, err, sizeof err) != 0 ||
		    fpref_e8m0_element_check(&sr->element, err, sizeof err) != 0) {
			cli_fail(cmd, "--element-format %s: %s", a->element, err);
			return CLI_EXIT_USAGE;
		}
	} else if (a->element) {
		cli_fail(cmd, "--element-format %s: --scale-rule %s converts a value and takes no element", a->element,
			 a->scale_rule);
		return CLI_EXIT_USAGE;
	}
	sr->on = true;
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	struct cli_options o;
	struct convert_args a = { NULL, NULL, NULL, NULL, NULL };
	int r = cli_parse_command(&cli_cmd_convert, argc, argv, &o, &a);
	if (r)
		return r;
	if (!o.have_to) {
		cli_fail(cli_cmd_convert.name, "needs --to FMT (see fpref formats)");
		return CLI_EXIT_USAGE;
	}
	if (!a.in != !a.out || (a.in && o.npositional)) {
		cli_fail(cli_cmd_convert.name, "--in-file X.npy and --out-file Y.npy go together, and without VALUEs");
		return CLI_EXIT_USAGE;
	}
	if (o.text.engine && !o.have_from && !a.in) {
		/* decimals have no bit pattern for the emulator: the oracle rounds them either way */
		cli_fail(cli_cmd_convert.name, "--engine %s needs --from FMT (decimal values are always rounded by the oracle)",
			 o.text.engine);
		return CLI_EXIT_USAGE;
	}
	struct scale_rule sr;
	r = parse_scale_rule(&o, &a, &sr);
	if (r)
		return r;
	o.env = cli_target_env(&o, &o.to);
	if (a.in)
		return convert_array(&o, &sr, &a);
	return o.npositional > 0 ? convert_values(&o, &sr) : convert_stream(&o, &sr, stdin);
}
