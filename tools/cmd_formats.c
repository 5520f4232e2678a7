/* fpref formats: the catalogue with its exact constants. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void put_value(const struct fpref_unpacked *u, bool json)
{
	char *s = fpref_ref_unpacked_decimal(u);
	if (json) {
		printf("\"%s\"", s ? s : "");
	} else if (s && strlen(s) <= 24) {
		fputs(s, stdout);
	} else {
		/* Long exact decimals hide the table: the power of two is as exact. */
		if (u->significand == 1)
			printf("2^%d", (int)u->exponent);
		else
			printf("%llux2^%d", (unsigned long long)u->significand, (int)u->exponent);
	}
	free(s);
}

static void put_bits(const struct fpref_format *f, bool have, uint64_t bits, bool json)
{
	char hex[32];
	cli_hex(f, bits, hex, sizeof hex);
	if (json)
		printf(have ? "\"%s\"" : "null", hex);
	else
		printf("%s", have ? hex : "-");
}

static void put_format(const struct fpref_format *f, bool json)
{
	struct fpref_unpacked maxv, minn, minp, eps;
	fpref_format_max_finite(f, &maxv);
	fpref_format_min_normal(f, &minn);
	fpref_format_min_positive(f, &minp);
	fpref_format_epsilon(f, &eps);
	uint64_t nan = 0, inf = 0;
	bool has_nan = fpref_format_nan_bits(f, false, &nan);
	bool has_inf = fpref_format_inf_bits(f, false, &inf);
	if (json) {
		printf("{\"name\":\"%s\",\"alias\":\"%s\",\"bits\":%d,\"container_bits\":%d,\"exponent_bits\":%d,"
		       "\"mantissa_bits\":%d,\"bias\":%d,\"signed\":%s,\"zero\":%s,\"subnormals\":%s,\"specials\":\"%s\","
		       "\"max_finite\":",
		       f->name, f->alias, fpref_format_width(f), fpref_format_container_bits(f), f->exp_bits,
		       f->man_bits, f->bias, f->is_signed ? "true" : "false", f->has_zero ? "true" : "false",
		       f->subnormals ? "true" : "false", fpref_specials_name(f->specials));
		put_value(&maxv, true);
		fputs(",\"min_normal\":", stdout);
		put_value(&minn, true);
		fputs(",\"min_positive\":", stdout);
		put_value(&minp, true);
		fputs(",\"epsilon\":", stdout);
		put_value(&eps, true);
		printf(",\"min_normal_exponent\":%d,\"max_exponent\":%d,\"max_bits\":", fpref_format_min_exponent(f),
		       fpref_format_max_exponent(f));
		put_bits(f, true, fpref_format_max_bits(f, false), true);
		fputs(",\"inf_bits\":", stdout);
		put_bits(f, has_inf, inf, true);
		fputs(",\"nan_bits\":", stdout);
		put_bits(f, has_nan, nan, true);
		printf(",\"note\":\"%s\"}", f->note ? f->note : "");
		return;
	}
	printf("%-20s %-12s %3d  e%-2d m%-2d %6d  %-4s %-3s ", f->name, f->alias[0] ? f->alias : "-",
	       fpref_format_width(f), f->exp_bits, f->man_bits, f->bias, fpref_specials_name(f->specials),
	       f->subnormals ? "yes" : "no");
	put_value(&maxv, false);
	fputs("  ", stdout);
	put_value(&minn, false);
	fputs("  ", stdout);
	put_value(&minp, false);
	fputs("  ", stdout);
	put_value(&eps, false);
	fputs("  inf=", stdout);
	put_bits(f, has_inf, inf, false);
	fputs(" nan=", stdout);
	put_bits(f, has_nan, nan, false);
	putchar('\n');
}

const struct cli_command cli_cmd_formats = {
	.name = "formats",
	.synopsis = "[--json]",
	.summary = "The format catalogue: each format's layout and exact constants (max finite, least normal, least\n"
		   "positive, epsilon) and its inf and NaN patterns.",
	.groups = CLI_JSON,
	.max_positional = -1,
	.examples = { "fpref formats", "fpref formats --json" },
	.run = cmd_formats,
};

int cmd_formats(int argc, char **argv)
{
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_formats, argc, argv, &o, NULL);
	if (r)
		return r;
	if (o.npositional > 0) {
		cli_fail(cli_cmd_formats.name, "takes no values ('%s'); try fpref formats --json", o.positional[0]);
		return CLI_EXIT_USAGE;
	}
	if (o.json)
		fputs("[\n", stdout);
	else
		printf("%-20s %-12s %3s  %-7s %6s  %-4s %-3s max_finite  min_normal  min_positive  epsilon  encodings\n",
		       "name", "alias", "bits", "layout", "bias", "spec", "sub");
	for (size_t i = 0; i < fpref_format_count(); i++) {
		if (o.json)
			fputs("  ", stdout);
		put_format(fpref_format_at(i), o.json);
		if (o.json)
			fputs(i + 1 < fpref_format_count() ? ",\n" : "\n", stdout);
	}
	if (o.json)
		fputs("]\n", stdout);
	return CLI_EXIT_OK;
}
