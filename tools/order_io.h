/* fpref probe order and fpref dot --model tree (tools/order_io.c): the
 * black box as a command, the tree as text and as a dot model. */
#ifndef FPREF_ORDER_IO_H
#define FPREF_ORDER_IO_H

#include "cli.h"

/* --model tree --tree SPEC: the tree read for these formats (no scales,
 * no other model options).  0, or CLI_EXIT_USAGE after a message. */
int dot_tree_open(const char *spec, bool scaled, const struct cli_model_text *t, const struct fpref_format *in_a,
		  const struct fpref_format *in_b, const struct fpref_format *out, struct fpref_tree **tree);
/* One line of fpref dot through the tree: values holds a, b, then c
 * (which must be +0: the tree says where no c enters).  0, or -1 with a
 * message. */
int dot_tree_line(const struct fpref_tree *tree, const struct fpref_format *out, const uint64_t *values, size_t K,
		  const struct fpref_env *env, uint64_t *d, char *err, size_t errlen);

/* fpref probe order: the text of the options (NULL: not given). */
struct probe_order_text {
	const char *cmd, *n, *in, *out, *tc, *verify, *seed, *batch;
};
int probe_order(const struct probe_order_text *t, const struct cli_options *o);

#endif
