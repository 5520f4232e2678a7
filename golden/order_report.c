/* The text of fpref probe order's answer (fpref_golden_order_report_text):
 * the revealed tree, how to run it, what revealing it cost.  The command
 * prints it and fpref.reveal_order's str() is it. */
#include <stdio.h>
#include <stdlib.h>

#include "fpref_golden_order.h"

char *fpref_golden_order_report_text(const struct fpref_order_report *r, const struct fpref_order_options *o)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (!out)
		return NULL;
	if (r->status == FPREF_ORDER_TREE) {
		fprintf(out, "tree: %s\n", r->text);
		if (r->model[0])
			fprintf(out, "block model: %s\n", r->model);
		fprintf(out,
			"run it: fpref dot --model tree --tree '%s' --in-format %s --out-format %s   (lines 'a_1..a_%zu b_1..b_%zu +0'; a "
			"sum has every b = 1)\n",
			r->text, o->in.name, o->out.name, o->n, o->n);
		fprintf(out,
			"black box: %zu lines in %zu starts: %zu probes (M = %g, u = %g), %zu random lines reproduced bit "
			"for bit\n",
			r->lines, r->batches, r->probe_lines, r->large, r->small, r->verify_lines);
		fprintf(out, "nodes: %zu inner (%zu block-model calls), depth %zu\n", r->inner, r->blocks, r->depth);
	}
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
