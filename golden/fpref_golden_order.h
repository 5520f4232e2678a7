/* fpref — revealing the accumulation order of a black box that sums N
 * values (or dots N products with every b = 1): probes where one large
 * value M and -M cancel show, by how many small values are lost with
 * them, which terms are added before which; the answers make a summation
 * tree (emu/fpref_emu_tree.h), whose multi-operand nodes are given a
 * block model that reproduces the box, and which is then checked on
 * random inputs.  A box that is no fixed tree (a different order from
 * call to call, compensated or exact summation) is reported as such,
 * never fitted. */
#ifndef FPREF_GOLDEN_ORDER_H
#define FPREF_GOLDEN_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "fpref_emu_tree.h"
#include "fpref_formats.h"
#include "fpref_formats_env.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The black box: nlines lines of n patterns of the input format each
 * (lines[i * n + k]) answered by one pattern of the output format each, in
 * results[i]; one call is one start of the box.  0, or -1 with a message
 * in err. */
typedef int (*fpref_order_box_fn)(void *ctx, const uint64_t *lines, size_t nlines, size_t n, uint64_t *results,
				  char *err, size_t errlen);

struct fpref_order_options {
	struct fpref_format in, out;
	size_t n;                  /* values per line, 2..65536 */
	struct fpref_env env;      /* the environment of the additions (rne) */
	const char *const *models; /* block models to try on multi-operand nodes; NULL: every preset for in, out */
	size_t nmodels;
	size_t verify;             /* random lines the fitted tree must reproduce */
	uint64_t seed;             /* of the pivots and the random lines */
	size_t max_batch;          /* lines per start of the box (0: 4096) */
};

enum fpref_order_status {
	FPREF_ORDER_TREE = 0,     /* a tree, reproducing every line checked */
	FPREF_ORDER_NOT_TREE = 1, /* no fixed tree of known adders: message says what was seen */
	FPREF_ORDER_ERROR = 2,    /* bad options: message */
	FPREF_ORDER_BOX_FAILED = 3 /* the box did not answer: message */
};

struct fpref_order_report {
	enum fpref_order_status status;
	struct fpref_tree *tree; /* FPREF_ORDER_TREE: the tree (fpref_golden_order_report_free frees it) */
	char *text;              /* ... and its text */
	char model[64];          /* the block model of its multi-operand nodes, "" for none */
	size_t lines, batches;   /* the box's lines and starts in all */
	size_t probe_lines, verify_lines;
	size_t inner, blocks, depth; /* fpref_emu_tree_stats */
	double small, large;     /* the probes' values u and M */
	char message[1024];
};

enum fpref_order_status fpref_golden_reveal_order(const struct fpref_order_options *o, fpref_order_box_fn box,
						  void *ctx, struct fpref_order_report *r);
void fpref_golden_order_report_free(struct fpref_order_report *r);
/* The answer as fpref probe order prints it (the tree, how to run it,
 * what revealing it cost; "" unless r found a tree): malloc'ed text, or
 * NULL (no memory). */
char *fpref_golden_order_report_text(const struct fpref_order_report *r, const struct fpref_order_options *o);

#ifdef __cplusplus
}
#endif
#endif
