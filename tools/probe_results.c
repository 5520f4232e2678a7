/* fpref probe infer: the measured cases, read from a golden dot file with
 * its results, or from dot lines "a_1..a_K b_1..b_K c d". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_io.h"

static int grow(struct probe_cases *c)
{
	if (c->count < c->cap)
		return 0;
	size_t cap = c->cap ? 2 * c->cap : 4096;
	uint64_t *rows = realloc(c->rows, cap * (2 * c->K + 1) * sizeof *rows);
	if (rows)
		c->rows = rows;
	uint64_t *d = rows ? realloc(c->d, cap * sizeof *d) : NULL;
	if (!rows || !d)
		return -1;
	c->d = d;
	c->cap = cap;
	return 0;
}

/* The formats a file names against those of --in-format (--a-format, --b-format) and --out-format. */
static int same_formats(const char *path, const struct probe_cases *c, const struct fpref_format *in,
			const struct fpref_format *in_b, const struct fpref_format *out)
{
	if (fpref_format_same(in, &c->in) && fpref_format_same(in_b, &c->in_b) && fpref_format_same(out, &c->out))
		return 0;
	char file[128], given[128];
	cli_fail("probe infer", "%s: its cases are %s -> %s, not %s -> %s as the options say", path,
		  fpref_golden_probe_inputs_name(in, in_b, file, sizeof file), out->name, fpref_golden_probe_inputs_name(&c->in, &c->in_b, given, sizeof given),
		  c->out.name);
	return CLI_EXIT_USAGE;
}

int probe_cases_from_golden(const char *golden, const char *results, struct probe_cases *c)
{
	const struct fpref_format given[3] = { c->in, c->in_b, c->out };
	struct fpref_probe_cases read;
	char err[640];
	int r = fpref_golden_probe_read_golden(golden, results, c->have_formats ? given : NULL, &read, err, sizeof err);
	if (r != 0) {
		cli_fail("probe infer", "%s", err);
		return r == -1 ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
	}
	c->in = read.in;
	c->in_b = read.in_b;
	c->out = read.out;
	c->K = read.K;
	c->count = c->cap = read.count;
	c->rows = read.rows;
	c->d = read.d;
	return 0;
}

/* "# formats MODEL IN -> OUT" names the file's formats (IN is A*B for
 * two, as golden headers write it): they are taken where none were given,
 * and must agree where --in-format and --out-format were.  Other comment lines are
 * skipped. */
static int formats_line(const struct cli_lines *lines, char **tok, int n, struct probe_cases *c)
{
	if (n < 6 || strcmp(tok[0], "#") != 0 || strcmp(tok[1], "formats") != 0 || strcmp(tok[4], "->") != 0)
		return 0;
	struct fpref_format in, in_b, out;
	char err[256], a[64], *star = strchr(tok[3], '*');
	snprintf(a, sizeof a, "%.*s", star ? (int)(star - tok[3]) : (int)strlen(tok[3]), tok[3]);
	const char *names[3] = { a, star ? star + 1 : a, tok[5] };
	struct fpref_format *fmts[3] = { &in, &in_b, &out };
	for (int i = 0; i < 3; i++)
		if (fpref_format_parse(names[i], fmts[i], err, sizeof err) != 0) {
			cli_fail("probe infer", "%s:%lu: unknown format '%s' in the '# formats' line", lines->name, lines->lineno,
				  names[i]);
			return CLI_EXIT_USAGE;
		}
	if (c->have_formats)
		return same_formats(lines->name, c, &in, &in_b, &out);
	c->in = in;
	c->in_b = in_b;
	c->out = out;
	c->have_formats = true;
	return 0;
}

/* One dot line into the next row. */
static int dot_line(const struct cli_lines *lines, char **tok, int n, struct probe_cases *c)
{
	if (!c->have_formats) {
		cli_fail("probe infer", "%s: no formats: give --in-format FMT --out-format FMT, or --golden G, or a '# formats' line", lines->name);
		return CLI_EXIT_USAGE;
	}
	if (n % 2 || n < 4 || (c->K && (size_t)n != 2 * c->K + 2)) {
		cli_fail("probe infer", "%s:%lu: expected a_1..a_K b_1..b_K c d (%s), found %d tokens", lines->name, lines->lineno,
			  c->K ? "the same K on every line" : "an even count, at least 4", n);
		return CLI_EXIT_USAGE;
	}
	c->K = (size_t)(n - 2) / 2;
	if (grow(c) != 0)
		return CLI_EXIT_FAIL;
	uint64_t *row = c->rows + c->count * (2 * c->K + 1);
	char err[256];
	for (int i = 0; i < n; i++) {
		const struct fpref_format *fmt = (size_t)i < c->K ? &c->in : i < n - 2 ? &c->in_b : &c->out;
		if (cli_parse_bits(fmt, tok[i], i < n - 1 ? &row[i] : &c->d[c->count], err, sizeof err) != 0) {
			cli_fail("probe infer", "%s:%lu: %s", lines->name, lines->lineno, err);
			return CLI_EXIT_USAGE;
		}
	}
	c->count++;
	return 0;
}

int probe_cases_from_lines(const char *path, struct probe_cases *c)
{
	int status = 0, n;
	FILE *f = cli_open_input("probe infer", path, &status);
	if (!f)
		return status;
	struct cli_lines lines = { .in = f, .name = path, .cmd = "probe infer" };
	enum { MAX = 2 * 512 + 2 };
	char **tok = malloc(MAX * sizeof *tok);
	status = tok ? 0 : CLI_EXIT_FAIL;
	while (status == 0 && (n = cli_next_tokens(&lines, tok, MAX, &status)) > 0)
		status = tok[0][0] == '#' ? formats_line(&lines, tok, n, c) : dot_line(&lines, tok, n, c);
	cli_lines_free(&lines);
	free(tok);
	fclose(f);
	if (status == 0 && c->count == 0) {
		cli_fail("probe infer", "%s: no result lines", path);
		status = CLI_EXIT_USAGE;
	}
	return status;
}

void probe_cases_free(struct probe_cases *c)
{
	free(c->rows);
	free(c->d);
	c->rows = c->d = NULL;
}
