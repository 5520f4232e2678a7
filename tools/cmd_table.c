/* fpref table: every encoding of a small format with its exact value. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const struct cli_command cli_cmd_table = {
	.name = "table",
	.synopsis = "FMT",
	.summary = "Every encoding of a format of 8 bits or fewer: its fields, class and exact value.",
	.max_positional = -1,
	.examples = { "fpref table e4m3", "fpref table e2m1" },
	.run = cmd_table,
};

/* The last column of both tables: a code the format never produces has no value of its own. */
static void put_exact_value(enum fpref_decode_status st, const struct fpref_unpacked *u)
{
	if (st == FPREF_DECODE_NONCANONICAL)
		fputs("(never produced; reads as zero)", stdout);
	else
		cli_put(stdout, fpref_ref_unpacked_decimal(u));
	putchar('\n');
}

/* An integer format's codes as integers: the code's bits, its k and value;
 * a float grid's exponent and mantissa fields would say nothing here. */
static int put_integer_table(const struct fpref_format *f, int bits)
{
	printf("# ");
	cli_put_int_range(stdout, f);
	printf("\n%-4s  %-*s  %-5s %-9s %s\n", "code", bits, "bits", "k", "class", "exact value");
	for (uint64_t code = 0; code < ((uint64_t)1 << bits); code++) {
		struct fpref_unpacked u;
		enum fpref_decode_status st = fpref_decode(f, code, &u);
		char hex[8], pattern[16];
		cli_hex(f, code, hex, sizeof hex);
		for (int i = 0; i < bits; i++)
			pattern[i] = (char)('0' + ((code >> (bits - 1 - i)) & 1));
		pattern[bits] = '\0';
		int64_t k = fpref_format_int_k(f, code);
		const char *cls = st == FPREF_DECODE_NONCANONICAL ? "unused" : k == 0 ? "zero" : k < 0 ? "negative" : "positive";
		printf("%-4s  %-*s  %-5lld %-9s ", hex, bits > 4 ? bits : 4, pattern, (long long)k, cls);
		put_exact_value(st, &u);
	}
	return CLI_EXIT_OK;
}

int cmd_table(int argc, char **argv)
{
	struct cli_options o;
	int r = cli_parse_command(&cli_cmd_table, argc, argv, &o, NULL);
	if (r)
		return r;
	if (o.npositional != 1) {
		cli_fail(cli_cmd_table.name, "needs exactly one format, e.g. fpref table e4m3");
		return CLI_EXIT_USAGE;
	}
	struct fpref_format f;
	if (cli_parse_format(cli_cmd_table.name, o.positional[0], &f) != 0)
		return CLI_EXIT_USAGE;
	int bits = fpref_format_container_bits(&f);
	if (bits > 8) {
		cli_fail(cli_cmd_table.name, "lists formats of 8 bits or fewer; %s has %d (use fpref explain for single values)",
			  f.name, bits);
		return CLI_EXIT_USAGE;
	}
	char desc[128];
	fpref_format_descriptor(&f, desc, sizeof desc);
	if (f.integer) /* its descriptor is the float grid the rounding core sees, not the format's terms */
		printf("# %s: %d bits, %s\n", f.name, bits, f.note ? f.note : "an integer format");
	else if (f.note)
		printf("# %s (%s): %d bits, %s\n", f.name, desc, bits, f.note);
	else
		printf("# %s: a custom format of %d bits\n", desc, bits);
	if (f.integer)
		return put_integer_table(&f, bits);
	const char *label = f.is_signed ? "s exp man" : "exp man";
	int width = (f.is_signed ? 2 : 0) + f.exp_bits + 1 + f.man_bits;
	width = width > (int)strlen(label) ? width : (int)strlen(label);
	printf("%-4s  %-*s  %-11s %s\n", "code", width, label, "class", "exact value");
	for (uint64_t code = 0; code < ((uint64_t)1 << bits); code++) {
		struct fpref_unpacked u;
		enum fpref_decode_status st = fpref_decode(&f, code, &u);
		unsigned sign;
		uint64_t e, m;
		fpref_fields(&f, code, &sign, &e, &m);
		char hex[8], fields[48];
		cli_hex(&f, code, hex, sizeof hex);
		int n = 0;
		if (f.is_signed)
			n += snprintf(fields + n, sizeof fields - (size_t)n, "%u ", sign);
		for (int i = f.exp_bits - 1; i >= 0; i--)
			fields[n++] = (char)('0' + ((e >> i) & 1));
		fields[n++] = ' ';
		for (int i = f.man_bits - 1; i >= 0; i--)
			fields[n++] = (char)('0' + ((m >> i) & 1));
		fields[n] = '\0';
		printf("%-4s  %-*s  %-11s ", hex, width, fields,
		       st == FPREF_DECODE_NONCANONICAL ? "unused" : fpref_class_name(u.cls));
		put_exact_value(st, &u);
	}
	return CLI_EXIT_OK;
}
