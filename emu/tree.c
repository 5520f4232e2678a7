/* Summation trees (emu/fpref_emu_tree.h): building one node by node,
 * checking it is whole, and evaluating it in one pass, each inner node by
 * the emulator's addition in the output format or by a tensor-core block
 * model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_emu_tc.h"
#include "fpref_emu_tree.h"
#include "tree_internal.h"

struct fpref_tree *fpref_emu_tree_new(const struct fpref_format *in_a, const struct fpref_format *in_b,
				  const struct fpref_format *out)
{
	struct fpref_tree *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->in_a = *in_a;
	t->in_b = *in_b;
	t->out = *out;
	return t;
}

void fpref_emu_tree_free(struct fpref_tree *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->kids);
	free(t);
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

static long push_node(struct fpref_tree *t, struct tree_node n, char *err, size_t errlen)
{
	if (t->finished) {
		snprintf(err, errlen, "the tree is finished");
		return -1;
	}
	if (!grow((void **)&t->nodes, &t->cap_nodes, t->nnodes + 1, sizeof *t->nodes)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->nodes[t->nnodes] = n;
	return (long)t->nnodes++;
}

long fpref_emu_tree_add_leaf(struct fpref_tree *t, size_t k, char *err, size_t errlen)
{
	return push_node(t, (struct tree_node){ (long)k, 0, 0, -1 }, err, errlen);
}

/* The index of a model by name among the tree's, resolving it for the
 * tree's formats the first time; -1 with a message. */
static int find_model(struct fpref_tree *t, const char *name, char *err, size_t errlen)
{
	for (int i = 0; i < t->nmodels; i++)
		if (strcmp(t->names[i], name) == 0)
			return i;
	if (t->nmodels == TREE_MAX_MODELS || strlen(name) >= TREE_MODEL_NAME) {
		snprintf(err, errlen, "at most %d block models of names under %d characters in a tree", TREE_MAX_MODELS,
			 TREE_MODEL_NAME);
		return -1;
	}
	struct fpref_tc_model m;
	if (strncmp(name, "seq:", 4) == 0) {
		struct fpref_format f;
		if (fpref_format_parse(name + 4, &f, err, errlen) != 0)
			return -1;
		if (f.man_bits > FPREF_OP_MAX_MAN_BITS) {
			snprintf(err, errlen, "seq:%s: additions of up to %d fraction bits compute", f.name,
				 FPREF_OP_MAX_MAN_BITS);
			return -1;
		}
		t->is_seq[t->nmodels] = true;
		t->seq[t->nmodels] = f;
		strcpy(t->names[t->nmodels], name);
		return t->nmodels++;
	}
	if (strncmp(name, "generic:", 8) == 0) {
		int block, frac, floor = FPREF_TC_NO_FLOOR, used = 0;
		char fl[16], fin[8];
		enum fpref_rounding r;
		if (sscanf(name + 8, "%d:%d:%15[^:]:%7s%n", &block, &frac, fl, fin, &used) != 4 || name[8 + used] ||
		    (strcmp(fl, "none") != 0 && sscanf(fl, "%d", &floor) != 1) || fpref_rounding_parse(fin, &r) != 0) {
			snprintf(err, errlen, "bad block model '%s' (generic:N:F:FLOOR|none:rtz|rne)", name);
			return -1;
		}
		if (fpref_tc_model_custom(block, frac, floor, r, &m, err, errlen) != 0)
			return -1;
	} else {
		const struct fpref_tc_model *row = fpref_tc_model_find_pair(name, &t->in_a, &t->in_b);
		if (!row) {
			snprintf(err, errlen, "no block model '%s' for %s x %s", name, t->in_a.name, t->in_b.name);
			return -1;
		}
		m = *row;
	}
	const struct fpref_format *ins[2] = { &t->in_a, &t->in_b };
	for (int k = 0; k < 2; k++)
		if (!fpref_tc_input_ok(ins[k]) || !fpref_tc_output_ok(&m, ins[k], &t->out)) {
			snprintf(err, errlen, "block model '%s' takes no %s input with %s output", name, ins[k]->name,
				 t->out.name);
			return -1;
		}
	t->models[t->nmodels] = m;
	strcpy(t->names[t->nmodels], name);
	return t->nmodels++;
}

long fpref_emu_tree_add_node(struct fpref_tree *t, const long *kids, size_t n, const char *model, char *err,
			 size_t errlen)
{
	int mi = -1;
	if (!model && n != 2) {
		snprintf(err, errlen, "an addition takes two children, not %zu", n);
		return -1;
	}
	if (model && n < 1) {
		snprintf(err, errlen, "a block node takes at least one child");
		return -1;
	}
	if (model && (mi = find_model(t, model, err, errlen)) < 0)
		return -1;
	size_t inner = 0;
	for (size_t i = 0; i < n; i++) {
		if (kids[i] < 0 || (size_t)kids[i] >= t->nnodes) {
			snprintf(err, errlen, "child %ld is no node", kids[i]);
			return -1;
		}
		inner += t->nodes[kids[i]].leaf < 0;
	}
	if (mi >= 0 && t->is_seq[mi] && n < 2) {
		snprintf(err, errlen, "a seq node adds at least two children");
		return -1;
	}
	if (mi >= 0 && !t->is_seq[mi] && inner > 1) {
		snprintf(err, errlen, "a block node takes products and at most one accumulator, not %zu inner nodes", inner);
		return -1;
	}
	if (!grow((void **)&t->kids, &t->cap_kids, t->nkids + n, sizeof *t->kids)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(t->kids + t->nkids, kids, n * sizeof *kids);
	long id = push_node(t, (struct tree_node){ -1, t->nkids, n, mi }, err, errlen);
	if (id >= 0)
		t->nkids += n;
	return id;
}

int fpref_emu_tree_finish(struct fpref_tree *t, char *err, size_t errlen)
{
	if (t->nnodes == 0) {
		snprintf(err, errlen, "an empty tree");
		return -1;
	}
	size_t leaves = 0;
	for (size_t i = 0; i < t->nnodes; i++)
		leaves += t->nodes[i].leaf >= 0;
	unsigned char *seen = calloc(t->nnodes + leaves, 1);
	if (!seen) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	unsigned char *used = seen + t->nnodes;
	int r = 0;
	for (size_t i = 0; i < t->nnodes && !r; i++) {
		const struct tree_node *n = &t->nodes[i];
		if (n->leaf >= 0) {
			if ((size_t)n->leaf >= leaves || used[n->leaf]++) {
				snprintf(err, errlen, "product %ld is not one of 0..%zu once each", n->leaf, leaves - 1);
				r = -1;
			}
			continue;
		}
		for (size_t c = 0; c < n->count && !r; c++) {
			long k = t->kids[n->first + c];
			if ((size_t)k >= i || seen[k]++) {
				snprintf(err, errlen, "node %ld is a child twice or after its parent", k);
				r = -1;
			}
		}
	}
	for (size_t i = 0; i + 1 < t->nnodes && !r; i++)
		if (!seen[i]) {
			snprintf(err, errlen, "the nodes make more than one tree");
			r = -1;
		}
	free(seen);
	if (r == 0) {
		t->products = leaves;
		t->finished = true;
	}
	return r;
}

size_t fpref_emu_tree_products(const struct fpref_tree *t)
{
	return t->products;
}

void fpref_emu_tree_stats(const struct fpref_tree *t, size_t *inner, size_t *blocks, size_t *depth)
{
	*inner = *blocks = *depth = 0;
	size_t *below = calloc(t->nnodes ? t->nnodes : 1, sizeof *below);
	for (size_t i = 0; i < t->nnodes; i++) {
		const struct tree_node *n = &t->nodes[i];
		if (n->leaf >= 0)
			continue;
		(*inner)++;
		*blocks += n->model >= 0;
		for (size_t c = 0; below && c < n->count; c++) {
			size_t d = below[t->kids[n->first + c]] + 1;
			if (d > below[i])
				below[i] = d;
		}
	}
	if (below && t->nnodes)
		*depth = below[t->nnodes - 1];
	free(below);
}

/* A product as an addition takes it: a and b converted to out, then
 * multiplied there under env (fpref_emu_dot's leaves). */
static int leaf_value(const struct fpref_tree *t, uint64_t a, uint64_t b, const struct fpref_env *env, uint64_t *v,
		      unsigned *flags)
{
	uint64_t in[3] = { 0, 0, 0 };
	if (fpref_emu_convert(&t->in_a, a, &t->out, env, 0, &in[0], flags) != 0 ||
	    fpref_emu_convert(&t->in_b, b, &t->out, env, 0, &in[1], flags) != 0)
		return -1;
	return fpref_emu_op(FPREF_OP_MUL, &t->out, in, env, env->sr_random, v, flags);
}

/* A seq node: its children in order, each in the node's format (an inner
 * node's value converted, a product formed there), added there under
 * env, the sum rounded once to out. */
static int seq_node(const struct fpref_tree *t, const struct tree_node *n, const uint64_t *val, const uint64_t *a,
		    const uint64_t *b, const struct fpref_env *env, uint64_t *d, unsigned *flags)
{
	const struct fpref_format *w = &t->seq[n->model];
	uint64_t acc = 0;
	for (size_t j = 0; j < n->count; j++) {
		long kid = t->kids[n->first + j];
		const struct tree_node *kn = &t->nodes[kid];
		uint64_t x, in[3] = { 0, 0, 0 };
		if (kn->leaf < 0) {
			if (fpref_emu_convert(&t->out, val[kid], w, env, 0, &x, flags) != 0)
				return -1;
		} else if (fpref_emu_convert(&t->in_a, a[kn->leaf], w, env, 0, &in[0], flags) != 0 ||
			   fpref_emu_convert(&t->in_b, b[kn->leaf], w, env, 0, &in[1], flags) != 0 ||
			   fpref_emu_op(FPREF_OP_MUL, w, in, env, env->sr_random, &x, flags) != 0)
			return -1;
		in[0] = acc;
		in[1] = x;
		if (j == 0)
			acc = x;
		else if (fpref_emu_op(FPREF_OP_ADD, w, in, env, env->sr_random, &acc, flags) != 0)
			return -1;
	}
	return fpref_emu_convert(w, acc, &t->out, env, 0, d, flags);
}

int fpref_emu_tree_dot(const struct fpref_tree *t, const uint64_t *a, const uint64_t *b, size_t K,
		       const struct fpref_env *env, uint64_t *d, unsigned *flags)
{
	if (!t->finished || K != t->products)
		return -1;
	size_t widest = 2;
	for (size_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].count > widest)
			widest = t->nodes[i].count;
	uint64_t *val = malloc((t->nnodes + 2 * widest) * sizeof *val);
	if (!val)
		return -1;
	uint64_t *pa = val + t->nnodes, *pb = pa + widest;
	int r = 0;
	for (size_t i = 0; i < t->nnodes && !r; i++) {
		const struct tree_node *n = &t->nodes[i];
		const long *kid = t->kids + n->first;
		if (n->leaf >= 0) {
			/* a block model reads its products itself; the rounded
			 * product serves additions */
			r = leaf_value(t, a[n->leaf], b[n->leaf], env, &val[i], flags);
			continue;
		}
		if (n->model < 0) {
			uint64_t in[3] = { val[kid[0]], val[kid[1]], 0 };
			r = fpref_emu_op(FPREF_OP_ADD, &t->out, in, env, env->sr_random, &val[i], flags);
			continue;
		}
		if (t->is_seq[n->model]) {
			r = seq_node(t, n, val, a, b, env, &val[i], flags);
			continue;
		}
		uint64_t c = fpref_format_zero_bits(&t->out, false);
		size_t k = 0;
		for (size_t j = 0; j < n->count; j++) {
			const struct tree_node *kn = &t->nodes[kid[j]];
			if (kn->leaf < 0) {
				c = val[kid[j]];
				continue;
			}
			pa[k] = a[kn->leaf];
			pb[k++] = b[kn->leaf];
		}
		r = fpref_emu_tc_dot(&t->models[n->model], &t->in_a, &t->in_b, pa, pb, k, c, &t->out, &val[i]);
	}
	if (!r)
		*d = val[t->nnodes - 1];
	free(val);
	return r;
}
