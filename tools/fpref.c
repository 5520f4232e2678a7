/* fpref: the command.  One subcommand per file; this one only dispatches. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli.h"

/* "or a chip: h200, h800 (h100); ...": the chip aliases grouped by the
 * preset they stand for, from the library's table, wrapped as the help is. */
static void put_chips(FILE *out)
{
	static const char lead[] = "       or a chip (any case):";
	fputs(lead, out);
	size_t col = sizeof lead - 1;
	const char *target, *next;
	for (size_t i = 0; fpref_tc_model_alias_at(i, &target); i++) {
		const char *chip = fpref_tc_model_alias_at(i, &target);
		char word[96];
		if (fpref_tc_model_alias_at(i + 1, &next) && strcmp(next, target) == 0)
			snprintf(word, sizeof word, "%s,", chip);
		else
			snprintf(word, sizeof word, "%s (%s);", chip, target);
		if (col + 1 + strlen(word) > 100) {
			fputs("\n      ", out);
			col = 6;
		}
		fprintf(out, " %s", word);
		col += 1 + strlen(word);
	}
	fputc('\n', out);
}

/* The notation every subcommand's help refers to; ENV's rows are the
 * parser's own (cli_print_group). */
static void notation(FILE *out)
{
	fputs("VALUE: a decimal (-1.5e-3), a hex float (0x1.8p3), inf, nan, snan; with --from FMT,\n"
	      "       a hex bit pattern of FMT (3c00 or 0x3c00).\n"
	      "FMT:   a name from 'fpref formats' (float8_e4m3fn, e4m3, bf16, ...) or a custom\n"
	      "       eXmY[,bias=N][,specials=ieee|fn|fnuz|none][,subnormals=on|off][,unsigned][,zero=off],\n"
	      "       or IEEE P3109 binaryKpP{s,u}{e,f} (binary8p4se, binary8p3sf, ...)\n",
	      out);
	cli_print_group(out, CLI_ENV, "ENV:");
	fputs("MODEL: v100, turing, a100, h100, h100-mma, h100-wgmma, ada (tensor cores; --out-format float32\n"
	      "       or float16), tpu-bf16, intel-bf16 (BF16 units: bfloat16 in, float32 out),\n"
	      "       tcgen05, tcgen05-mxf8f6f4, tcgen05-mxf4nvf4, mma-sm100, mma-sm120, mfma-cdna1, mfma-cdna2,\n"
	      "       mfma-cdna2-legacy, mfma-cdna3, mfma-cdna4, mfma-cdna4-scale (Blackwell and CDNA\n"
	      "       instructions; CDNA4 inferred), dmma (float64), mfma-cdna1..3 with float32, mfma-cdna2..3\n"
	      "       with float64 (FMA chains: --out-format the input format),\n",
	      out);
	put_chips(out);
	fputs("       generic (--block N --frac F [--floor E|none] [--final rtz|rne]); recursive, pairwise,\n"
	      "       blocked [--block N], fma-chain, kahan (rounded in --out-format under ENV); exact (the oracle).\n",
	      out);
	cli_print_group(out, CLI_MODEL, "MODEL OPTIONS:");
	fputs("Flags (two hex digits): inexact 01, underflow 02, overflow 04, infinite 08, invalid 10.\n"
	      "Exit status: 0 done, 1 failure, 2 bad input.\n",
	      out);
}

static const struct cli_command *const commands[] = {
	&cli_cmd_formats, &cli_cmd_convert, &cli_cmd_explain, &cli_cmd_table,   &cli_cmd_op,
	&cli_cmd_bench,   &cli_cmd_dot,     &cli_cmd_gemm,    &cli_cmd_gen,     &cli_cmd_mutants,
	&cli_cmd_verify,  &cli_cmd_verify_gemm, &cli_cmd_lossscale, &cli_cmd_probe, &cli_cmd_quantize,
	&cli_cmd_policy,  &cli_cmd_lab,
	&cli_cmd_draw,
	&cli_cmd_sweep,
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(name, commands[i]->name) == 0)
			return commands[i];
	return NULL;
}

static void put_indented(FILE *out, const char *text, const char *indent)
{
	fputs(indent, out);
	for (const char *p = text; *p; p++) {
		fputc(*p, out);
		if (*p == '\n' && p[1])
			fputs(indent, out);
	}
	fputc('\n', out);
}

/* fpref --help: every subcommand with its synopsis and all its options. */
static void usage(FILE *out)
{
	fputs("usage: fpref COMMAND [OPTIONS]\n"
	      "       fpref help COMMAND | fpref COMMAND --help | fpref --version\n\ncommands:\n", out);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct cli_command *c = commands[i];
		fprintf(out, "  %s %s\n", c->name, c->synopsis);
		put_indented(out, c->summary, "      ");
		cli_print_option_names(out, c);
	}
	fputc('\n', out);
	notation(out);
}

/* fpref --help-man: the man page fpref.1, made from the same tables. */
static void man_page(FILE *out)
{
	fprintf(out, ".\\\" Made by fpref --help-man; do not edit (tests/help.sh compares them).\n"
		     ".TH FPREF 1 \"\" \"fpref %s\" \"User Commands\"\n"
		     ".SH NAME\nfpref \\- a bit\\-exact reference for machine\\-learning number formats\n"
		     ".SH SYNOPSIS\n\\fBfpref\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n.br\n"
		     "\\fBfpref help\\fR \\fICOMMAND\\fR | \\fBfpref\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR | "
		     "\\fBfpref \\-\\-version\\fR\n"
		     ".SH DESCRIPTION\nRounds, converts and computes in the number formats of machine learning, "
		     "bit for bit, through an integer emulator checked against an MPFR oracle.\n"
		     ".SH COMMANDS\n",
		PACKAGE_VERSION);
	for (size_t i = 0; i < NCOMMANDS; i++)
		cli_print_man(out, commands[i]);
	fputs(".SH NOTATION\n.nf\n", out);
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (mem) {
		notation(mem);
		fclose(mem);
		cli_man_text(out, text);
	}
	free(text);
	fputs(".fi\n.SH SEE ALSO\nREADME.md and docs/ in the source tree.\n", out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || (strcmp(cmd, "help") == 0 && argc == 2)) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		/* CPFloat named where built in: the tests of bench --peers read it here */
		printf("fpref %s (MPFR %s, GMP %s%s)\n", PACKAGE_VERSION, mpfr_get_version(), gmp_version,
#ifdef HAVE_CPFLOAT
		       ", CPFloat for bench --peers"
#else
		       ""
#endif
		);
		return CLI_EXIT_OK;
	}
	/* hidden: what the man page, the completion and the tests are made from */
	if (strcmp(cmd, "--help-man") == 0) {
		man_page(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "--list-commands") == 0) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			printf("%s\n", commands[i]->name);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "--list-formats") == 0) {
		for (size_t i = 0; i < fpref_format_count(); i++) {
			const struct fpref_format *f = fpref_format_at(i);
			printf("%s\n", f->name);
			if (f->alias[0])
				printf("%s\n", f->alias);
		}
		return CLI_EXIT_OK;
	}
	bool help = strcmp(cmd, "help") == 0, list = strcmp(cmd, "--list-options") == 0;
	if (help || list) {
		const struct cli_command *c = argc == 3 ? find_command(argv[2]) : NULL;
		if (!c) {
			cli_error("%s needs one command name (see fpref --help), not '%s'", cmd, argc > 2 ? argv[2] : "");
			return CLI_EXIT_USAGE;
		}
		if (help)
			cli_print_help(stdout, c);
		else
			cli_print_options(stdout, c);
		return CLI_EXIT_OK;
	}
	const struct cli_command *c = find_command(cmd);
	if (!c) {
		char names[256];
		size_t n = 0;
		for (size_t i = 0; i < NCOMMANDS && n < sizeof names; i++)
			n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", commands[i]->name);
		cli_error("unknown command '%s' (choices: %s; see fpref --help)", cmd, names);
		return CLI_EXIT_USAGE;
	}
	if (cli_help_wanted(c, argc - 2, argv + 2)) {
		cli_print_help(stdout, c);
		return CLI_EXIT_OK;
	}
	int status = c->run(argc - 2, argv + 2);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_fail(c->name, "cannot write the output");
		return CLI_EXIT_FAIL;
	}
	return status;
}
