/* The layout of a summation tree, shared by emu/tree.c (building,
 * evaluating) and emu/tree_text.c (reading, writing); not installed. */
#ifndef FPREF_TREE_INTERNAL_H
#define FPREF_TREE_INTERNAL_H

#include "fpref_emu_tree.h"

#define TREE_MAX_MODELS 8
#define TREE_MODEL_NAME 64

struct tree_node {
	long leaf;           /* the product's index, or -1 for an inner node */
	size_t first, count; /* its children: kids[first .. first + count) */
	int model;           /* -1: one addition in out; else models[model] */
};

struct fpref_tree {
	struct fpref_format in_a, in_b, out;
	struct tree_node *nodes; /* children before parents; the last is the root */
	size_t nnodes, cap_nodes;
	long *kids;
	size_t nkids, cap_kids;
	struct fpref_tc_model models[TREE_MAX_MODELS];
	/* a "seq:FMT" adder: the children added in order in seq[m] (a model
	 * slot with is_seq[m]), the sum rounded once to out */
	bool is_seq[TREE_MAX_MODELS];
	struct fpref_format seq[TREE_MAX_MODELS];
	char names[TREE_MAX_MODELS][TREE_MODEL_NAME];
	int nmodels;
	size_t products; /* K, once finished */
	bool finished;
};

#endif
