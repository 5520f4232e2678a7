/* Measured cases of probe infer read back from a golden dot file (a
 * probe file of fpref probe gen, or any dot file) and the results judged
 * against it (fpref_golden_probe_read_golden): the command's --golden and
 * fpref.probe's golden=. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_golden_probe.h"

void fpref_golden_probe_cases_free(struct fpref_probe_cases *c)
{
	free(c->rows);
	free(c->d);
	c->rows = c->d = NULL;
	c->count = 0;
}

/* The formats of the file against those the caller was given. */
static int same_formats(const char *path, const struct fpref_golden_job *j, const struct fpref_format *given,
			char *err, size_t errlen)
{
	if (fpref_format_same(&given[0], &j->in) && fpref_format_same(&given[1], &j->in_b) &&
	    fpref_format_same(&given[2], &j->out))
		return 0;
	char file[128], said[128];
	snprintf(err, errlen, "%s: its cases are %s -> %s, not %s -> %s as the options say", path,
		 fpref_golden_probe_inputs_name(&j->in, &j->in_b, file, sizeof file), j->out.name,
		 fpref_golden_probe_inputs_name(&given[0], &given[1], said, sizeof said), given[2].name);
	return -1;
}

int fpref_golden_probe_read_golden(const char *golden, const char *results, const struct fpref_format *given,
				   struct fpref_probe_cases *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	struct fpref_golden_file g;
	struct fpref_golden_job j;
	struct fpref_golden_results res;
	if (fpref_golden_read(golden, &g, err, errlen) != 0)
		return -1;
	int status = 0;
	if (fpref_golden_job_of(&g, &j, err, errlen) != 0) {
		status = -1;
	} else if (j.kind != FPREF_GOLDEN_DOT) {
		snprintf(err, errlen, "%s: a %s file, not a dot file", golden, g.op);
		status = -1;
	} else if (given) {
		status = same_formats(golden, &j, given, err, errlen);
	}
	if (status == 0 && fpref_golden_results_read(results, &g, &j, &res, err, errlen) != 0)
		status = -1;
	bool have_results = status == 0;
	struct fpref_golden_line *l = malloc(sizeof *l);
	if (status == 0) {
		c->in = j.in;
		c->in_b = j.in_b;
		c->out = j.out;
		c->K = j.K;
		c->rows = malloc((g.nlines ? g.nlines : 1) * (2 * c->K + 1) * sizeof *c->rows);
		c->d = malloc((g.nlines ? g.nlines : 1) * sizeof *c->d);
		if (!l || !c->rows || !c->d) {
			snprintf(err, errlen, "out of memory");
			status = -2;
		}
	}
	char why[512];
	for (size_t i = 0; status == 0 && i < g.nlines; i++) {
		if (fpref_golden_parse_line(&j, g.lines[i], l, why, sizeof why) != 0) {
			snprintf(err, errlen, "%s, line %zu: %s", golden, i + 1, why);
			status = -1;
			break;
		}
		memcpy(c->rows + c->count * (2 * c->K + 1), l->in, (2 * c->K + 1) * sizeof *l->in);
		c->d[c->count++] = res.bits[i];
	}
	if (have_results)
		fpref_golden_results_free(&res);
	free(l);
	fpref_golden_file_free(&g);
	if (status != 0)
		fpref_golden_probe_cases_free(c);
	return status;
}
