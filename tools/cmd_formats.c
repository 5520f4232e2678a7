/* fpref formats: the catalogue with its exact constants. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void put_value(const struct fpref_unpacked *u, bool json)
{
	(void)json; /* JSON only: exact decimals as strings */
	char *s = fpref_ref_unpacked_decimal(u);
	printf("\"%s\"", s ? s : "");
	free(s);
}

/* A constant for the text table, at most 10 characters: its exact decimal
 * when that is short, a power of two as 2^e, else four digits (~3.403e+38;
 * --json and fpref explain give every constant exactly). */
static void value_text(const struct fpref_unpacked *u, char *buf, size_t len)
{
	char *s = fpref_ref_unpacked_decimal(u);
	if (s && strlen(s) <= 8) {
		snprintf(buf, len, "%s", s);
	} else if (u->significand == 1) {
		snprintf(buf, len, "2^%d", (int)u->exponent);
	} else {
		char *approx = fpref_ref_unpacked_approx(u, 4);
		snprintf(buf, len, "%s", approx ? approx : "");
		free(approx);
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

/* The published constants of a format, for both listings. */
struct constants {
	struct fpref_unpacked maxv, minn, minp, eps;
	uint64_t nan, inf;
	bool has_nan, has_inf;
};

static void constants_of(const struct fpref_format *f, struct constants *k)
{
	fpref_format_max_finite(f, &k->maxv);
	fpref_format_min_normal(f, &k->minn);
	fpref_format_min_positive(f, &k->minp);
	fpref_format_epsilon(f, &k->eps);
	k->nan = k->inf = 0;
	k->has_nan = fpref_format_nan_bits(f, false, &k->nan);
	k->has_inf = fpref_format_inf_bits(f, false, &k->inf);
}

static void put_format(const struct fpref_format *f, bool json)
{
	struct constants k;
	constants_of(f, &k);
	if (json) {
		printf("{\"name\":\"%s\",\"alias\":\"%s\",\"bits\":%d,\"container_bits\":%d,\"exponent_bits\":%d,"
		       "\"mantissa_bits\":%d,\"bias\":%d,\"signed\":%s,\"zero\":%s,\"subnormals\":%s,\"specials\":\"%s\","
		       "\"max_finite\":",
		       f->name, f->alias, fpref_format_width(f), fpref_format_container_bits(f), f->exp_bits,
		       f->man_bits, f->bias, f->is_signed ? "true" : "false", f->has_zero ? "true" : "false",
		       f->subnormals ? "true" : "false", fpref_specials_name(f->specials));
		put_value(&k.maxv, true);
		fputs(",\"min_normal\":", stdout);
		put_value(&k.minn, true);
		fputs(",\"min_positive\":", stdout);
		put_value(&k.minp, true);
		fputs(",\"epsilon\":", stdout);
		put_value(&k.eps, true);
		printf(",\"min_normal_exponent\":%d,\"max_exponent\":%d,\"max_bits\":", fpref_format_min_exponent(f),
		       fpref_format_max_exponent(f));
		put_bits(f, true, fpref_format_max_bits(f, false), true);
		fputs(",\"inf_bits\":", stdout);
		put_bits(f, k.has_inf, k.inf, true);
		fputs(",\"nan_bits\":", stdout);
		put_bits(f, k.has_nan, k.nan, true);
		printf(",\"note\":\"%s\",\"spellings\":[", f->note ? f->note : "");
		const char *spelling;
		for (size_t k = 0; (spelling = fpref_format_spelling(f, k)); k++)
			printf(k == 0 ? "\"%s\"" : ",\"%s\"", spelling);
		printf("]}");
		return;
	}
}

#define NCOLS 11
#define CELL 80
static const char *const headings[NCOLS] = { "name", "alias", "bits", "layout", "bias", "specials", "subnormals",
					      "max finite", "min normal", "min positive", "epsilon" };

static void row_cells(const struct fpref_format *f, char cells[NCOLS][CELL])
{
	struct constants k;
	constants_of(f, &k);
	snprintf(cells[0], CELL, "%s", f->name);
	snprintf(cells[1], CELL, "%s", f->alias[0] ? f->alias : "-");
	snprintf(cells[2], CELL, "%d", fpref_format_width(f));
	snprintf(cells[3], CELL, "e%dm%d", f->exp_bits, f->man_bits);
	snprintf(cells[4], CELL, "%d", f->bias);
	snprintf(cells[5], CELL, "%s", fpref_specials_name(f->specials));
	snprintf(cells[6], CELL, "%s", f->subnormals ? "yes" : "no");
	value_text(&k.maxv, cells[7], CELL);
	value_text(&k.minn, cells[8], CELL);
	value_text(&k.minp, cells[9], CELL);
	value_text(&k.eps, cells[10], CELL);
}

/* lead then text, folded at spaces before column 100, the rest indented. */
static void put_wrapped(const char *lead, const char *text)
{
	size_t col = strlen(lead);
	fputs(lead, stdout);
	while (*text) {
		size_t word = strcspn(text, " ");
		if (col > 2 && col + word > 100) {
			fputs("\n  ", stdout);
			col = 2;
		}
		fwrite(text, 1, word, stdout);
		col += word;
		text += word;
		if (*text == ' ') {
			text++;
			if (*text && col + 1 + strcspn(text, " ") <= 100) {
				putchar(' ');
				col++;
			}
		}
	}
	putchar('\n');
}

/* The table with every column as wide as its widest cell; numbers right-aligned. */
static void put_table(void)
{
	size_t n = fpref_format_count();
	char(*cells)[NCOLS][CELL] = malloc((n + 1) * sizeof *cells);
	if (!cells)
		return;
	int width[NCOLS];
	for (int c = 0; c < NCOLS; c++) {
		snprintf(cells[0][c], CELL, "%s", headings[c]);
		width[c] = (int)strlen(headings[c]);
	}
	for (size_t i = 0; i < n; i++) {
		row_cells(fpref_format_at(i), cells[i + 1]);
		for (int c = 0; c < NCOLS; c++)
			width[c] = (int)strlen(cells[i + 1][c]) > width[c] ? (int)strlen(cells[i + 1][c]) : width[c];
	}
	for (size_t i = 0; i <= n; i++) {
		for (int c = 0; c < NCOLS; c++) {
			bool number = c == 2 || c == 4;
			printf(number ? "%*s" : "%-*s", c + 1 < NCOLS ? width[c] : 0, cells[i][c]);
			fputs(c + 1 < NCOLS ? "  " : "\n", stdout);
		}
	}
	free(cells);
	/* the patterns have their own lines: FP64's 16 hex digits in two more
	 * columns made every row of the table 40 characters wider */
	printf("\n%-22s %-16s  %s\n", "patterns", "+inf", "the NaN fpref writes (-: none)");
	for (size_t i = 0; i < n; i++) {
		const struct fpref_format *f = fpref_format_at(i);
		struct constants k;
		constants_of(f, &k);
		char inf[32] = "-", nan[32] = "-";
		if (k.has_inf)
			cli_hex(f, k.inf, inf, sizeof inf);
		if (k.has_nan)
			cli_hex(f, k.nan, nan, sizeof nan);
		printf("  %-20s %-16s  %s\n", f->name, inf, nan);
	}
	printf("\nother spellings (any case; torch., np., jnp., ml_dtypes. or TensorProto. in front also read):\n");
	for (size_t i = 0; i < n; i++) {
		const struct fpref_format *f = fpref_format_at(i);
		const char *spelling;
		for (size_t k = 0; (spelling = fpref_format_spelling(f, k)); k++)
			if (k == 0)
				printf("  %-20s %s", f->name, spelling);
			else
				printf(", %s", spelling);
		if (fpref_format_spelling(f, 0))
			putchar('\n');
	}
	printf("custom formats: custom:eXmY, or eXmY,OPTION[,OPTION...] with bias=N, specials=ieee|fn|fnuz|none,\n"
	       "subnormals=on|off, zero=on|off, unsigned (docs/formats.md)\n");
	put_wrapped("family ", fpref_format_p3109_rule());
	printf("integers (two's complement codes, saturating; no NaN: NaN gives the largest):\n");
	for (size_t i = 0; fpref_format_int_at(i); i++)
		printf("  %-20s %s\n", fpref_format_int_at(i)->name, fpref_format_int_at(i)->note);
}

/* The P3109 family as the array's last entry: a rule, not a row, so it
 * has "family" where the rows have "name" (a reader of rows skips it by
 * that key), the rule's text as the table prints it, its bounds and an
 * example spelling. */
static void put_p3109_family(void)
{
	fputs("  {\"family\":\"binaryKpP{s,u}{e,f}\",\"standard\":\"IEEE P3109 interim report\",\"rule\":", stdout);
	cli_json_string(fpref_format_p3109_rule());
	fputs(",\"k_min\":3,\"k_max\":16,\"p_min\":1,\"p_max_signed\":\"K-1\",\"p_max_unsigned\":\"K\","
	      "\"signedness\":{\"s\":\"signed\",\"u\":\"unsigned\"},\"domain\":{\"e\":\"extended\",\"f\":\"finite\"},"
	      "\"example\":\"binary8p4se\"}\n",
	      stdout);
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
	if (!o.json) {
		put_table();
		return CLI_EXIT_OK;
	}
	fputs("[\n", stdout);
	for (size_t i = 0; i < fpref_format_count(); i++) {
		fputs("  ", stdout);
		put_format(fpref_format_at(i), o.json);
		fputs(",\n", stdout);
	}
	put_p3109_family();
	fputs("]\n", stdout);
	return CLI_EXIT_OK;
}
