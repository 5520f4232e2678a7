/* fpref — summation trees: a dot product's accumulation order as a tree
 * whose leaves are the products a_k * b_k and whose inner nodes are each
 * one adder, built node by node or read from text, and evaluated by the
 * emulator.  An inner node is either one addition of two children in the
 * output format under the environment ("(x,y)"), one call of a
 * tensor-core block model ("h100[c,k,k,...]") whose children are products
 * (leaves) and at most one inner node, its accumulator c (+0 without one),
 * or additions in a wider format ("seq:float64[x,y,...]": the children
 * added in order in float64, the sum rounded once to the output format:
 * a library that accumulates part of a sum in double).
 * golden/order.c reveals such a tree from a black box; fpref dot --model
 * tree runs one. */
#ifndef FPREF_EMU_TREE_H
#define FPREF_EMU_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"
#include "fpref_formats_env.h"
#include "fpref_formats_tc_model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fpref_tree;

/* An empty tree for products of A of format in_a and B of in_b, results in
 * out; NULL on allocation failure. */
struct fpref_tree *fpref_emu_tree_new(const struct fpref_format *in_a, const struct fpref_format *in_b,
				  const struct fpref_format *out);
void fpref_emu_tree_free(struct fpref_tree *t);

/* Nodes are added children first, so that the last one added is the root
 * and evaluation is one pass in the order of addition.  Each returns the
 * node's id (>= 0), or -1 with a message in err. */
long fpref_emu_tree_add_leaf(struct fpref_tree *t, size_t k, char *err, size_t errlen);
/* model NULL: one addition of the two children in out.  Otherwise the
 * model by name (a preset or chip, or "generic:N:F:FLOOR|none:rtz|rne"),
 * resolved for the tree's formats, over the children (products and at
 * most one inner node); or "seq:FMT", two or more children of any kind
 * added in order in FMT (at most 52 fraction bits), then rounded to out. */
long fpref_emu_tree_add_node(struct fpref_tree *t, const long *kids, size_t n, const char *model, char *err,
			 size_t errlen);
/* Checks that the tree is whole: every node but the last one is the child
 * of exactly one node, and the leaves are the products 0..K-1, each once.
 * 0, or -1 with a message. */
int fpref_emu_tree_finish(struct fpref_tree *t, char *err, size_t errlen);

/* The number of products K of a finished tree. */
size_t fpref_emu_tree_products(const struct fpref_tree *t);
/* Inner nodes, those of a block model among them, and the depth (edges
 * from the root to the deepest leaf) of a finished tree. */
void fpref_emu_tree_stats(const struct fpref_tree *t, size_t *inner, size_t *blocks, size_t *depth);

/* A finished tree read from text (emu/tree_text.c):
 *   node := K | "(" node SEP node ")" | MODEL "[" node (SEP node)* "]"
 * SEP is a comma or white space, K a product's index from 0.  NULL with a
 * message in err. */
struct fpref_tree *fpref_emu_tree_parse(const char *text, const struct fpref_format *in_a, const struct fpref_format *in_b,
				    const struct fpref_format *out, char *err, size_t errlen);
/* The text of a finished tree (commas, no spaces), malloc'd; NULL on
 * allocation failure. */
char *fpref_emu_tree_text(const struct fpref_tree *t);

/* d = the tree over a_k * b_k, k < K (K must be the tree's): a product
 * enters an addition rounded to out (a and b converted to out first, as
 * fpref_emu_dot does), and a block model as the model takes it.  0, or -1
 * for an invalid pattern or a K that is not the tree's. */
int fpref_emu_tree_dot(const struct fpref_tree *t, const uint64_t *a, const uint64_t *b, size_t K,
		       const struct fpref_env *env, uint64_t *d, unsigned *flags);

#ifdef __cplusplus
}
#endif
#endif
