/* fpref_golden_reveal_order (golden/fpref_golden_order.h).
 *
 * A probe puts M at value i, -M at value j and a small u everywhere else,
 * with M so large that every partial sum holding it absorbs the small
 * values (M plus any count of u rounds back to M, and a block model
 * truncates them away).  The pair cancels at the node where i's and j's
 * partial sums meet, and every small value that had reached a partial
 * sum holding M by then is lost: the result is u times the count of the
 * values outside that node, so n - result/u is the node's size.  Sizes
 * along one value's path to the root partition the others into the
 * subtrees that join the path, largest last, and each part is revealed the
 * same way with a pivot of its own, all parts of one depth in one start of
 * the box.  A value that joins the path at the same node as another part
 * but in a subtree of its own (a node of more than two children: a block
 * model) is told apart by its size: its node is the one above. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu.h"
#include "fpref_golden_order.h"

struct pnode {
	long leaf;    /* a value's index, or -1 */
	size_t *kids; /* other pnodes */
	size_t nk, cap, size;
	bool exact;   /* its children added exactly, one rounding (seq:float64) */
};

/* A set of values: the leaves of one or more children of parent, which
 * the pivot's row tells apart.  Values in different children lose
 * `other`: parent's size (ceil) where the parent loses everything below
 * the cancelling pair; where it adds exactly, twice the size (ceil) of its
 * children in this set, which are all that size. */
struct task {
	size_t *set;
	size_t nset, ceil, other;
	size_t parent, pivot, first;
};

struct reveal {
	const struct fpref_order_options *o;
	fpref_order_box_fn box;
	void *ctx;
	struct fpref_order_report *r;
	uint64_t big, nbig, small, one; /* patterns of in: M, -M, u, 1 */
	uint64_t rng;
	struct pnode *nodes;
	size_t nnodes, cap_nodes;
	struct task *tasks;
	size_t ntasks, cap_tasks;
	bool have_sentinel;
	size_t s_i, s_j;
	uint64_t s_answer;
};

static enum fpref_order_status say(struct fpref_order_report *r, enum fpref_order_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum fpref_order_status say(struct fpref_order_report *r, enum fpref_order_status s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof r->message, fmt, ap);
	va_end(ap);
	r->status = s;
	return s;
}

static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15u);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
	return z ^ (z >> 31);
}

/* 2^e as a pattern of f, exactly; false where f does not hold it. */
static bool pow2(const struct fpref_format *f, int e, uint64_t *bits)
{
	if (e < -1022 || e > 1023)
		return false;
	struct fpref_env env;
	fpref_env_default(&env);
	unsigned flags = 0;
	double back;
	if (fpref_emu_convert(fpref_format_get(FPREF_FORMAT_FLOAT64), (uint64_t)(e + 1023) << 52, f, &env, 0, bits,
			      &flags) != 0 || flags)
		return false;
	return fpref_emu_value_f64(f, *bits, &back) == 0 && back == ldexp(1, e);
}

/* M = 2^eM and u = 2^eu, eM - eu = R bits apart: M's ulp in out lies above
 * n u (so M absorbs any count of u) and a block model's fraction bits
 * (at most 25 below the alignment in the presets taking 16-bit inputs)
 * lie above u; u = 1 where the formats allow. */
static bool magnitudes(struct reveal *v, double *u)
{
	const struct fpref_order_options *o = v->o;
	int lg = 0;
	while (((size_t)1 << lg) < o->n)
		lg++;
	int R = (o->out.man_bits > 25 ? o->out.man_bits : 25) + 3 + lg;
	uint64_t s, b, t;
	int eu = 0;
	if (!(pow2(&o->in, R, &b) && pow2(&o->out, R, &t) && pow2(&o->in, 0, &s))) {
		int top = 1023;
		while (top > -1022 && !(pow2(&o->in, top, &b) && pow2(&o->out, top, &t)))
			top--;
		eu = top - R;
	}
	/* every count of u up to n is exact in out */
	if (!pow2(&o->in, eu, &v->small) || !pow2(&o->in, eu + R, &v->big) || !pow2(&o->out, eu, &t) ||
	    !pow2(&o->out, eu + lg, &t) || (size_t)1 << lg > (size_t)1 << (o->out.man_bits + 1) ||
	    !pow2(&o->in, 0, &v->one))
		return false;
	v->nbig = v->big | (uint64_t)1 << (o->in.exp_bits + o->in.man_bits + o->in.pad_bits);
	*u = ldexp(1, eu);
	v->r->small = *u;
	v->r->large = ldexp(1, eu + R);
	return o->in.is_signed;
}

/* One or more starts of the box over nlines lines, max_batch at a time. */
static int run_box(struct reveal *v, const uint64_t *lines, size_t nlines, uint64_t *results)
{
	size_t n = v->o->n, step = v->o->max_batch ? v->o->max_batch : 4096;
	for (size_t at = 0; at < nlines; at += step) {
		size_t k = nlines - at < step ? nlines - at : step;
		char err[512] = "";
		if (v->box(v->ctx, lines + at * n, k, n, results + at, err, sizeof err) != 0) {
			say(v->r, FPREF_ORDER_BOX_FAILED, "the black box failed: %s", err);
			return -1;
		}
		v->r->lines += k;
		v->r->batches++;
	}
	return 0;
}

static void fill_probe(const struct reveal *v, uint64_t *line, size_t i, size_t j)
{
	for (size_t k = 0; k < v->o->n; k++)
		line[k] = v->small;
	line[i] = v->big;
	line[j] = v->nbig;
}

static long new_pnode(struct reveal *v, long leaf, size_t size)
{
	if (v->nnodes == v->cap_nodes) {
		size_t c = v->cap_nodes ? 2 * v->cap_nodes : 256;
		struct pnode *q = realloc(v->nodes, c * sizeof *q);
		if (!q)
			return -1;
		v->nodes = q;
		v->cap_nodes = c;
	}
	v->nodes[v->nnodes] = (struct pnode){ leaf, NULL, 0, 0, size, false };
	return (long)v->nnodes++;
}

static bool add_kid(struct reveal *v, size_t parent, size_t kid)
{
	struct pnode *p = &v->nodes[parent];
	if (p->nk == p->cap) {
		size_t c = p->cap ? 2 * p->cap : 2;
		size_t *q = realloc(p->kids, c * sizeof *q);
		if (!q)
			return false;
		p->kids = q;
		p->cap = c;
	}
	p->kids[p->nk++] = kid;
	return true;
}

static bool push_task(struct reveal *v, const size_t *set, size_t nset, size_t ceil, size_t other, size_t parent)
{
	if (v->ntasks == v->cap_tasks) {
		size_t c = v->cap_tasks ? 2 * v->cap_tasks : 64;
		struct task *q = realloc(v->tasks, c * sizeof *q);
		if (!q)
			return false;
		v->tasks = q;
		v->cap_tasks = c;
	}
	size_t *s = malloc(nset * sizeof *s);
	if (!s)
		return false;
	memcpy(s, set, nset * sizeof *s);
	struct task *t = &v->tasks[v->ntasks++];
	memset(t, 0, sizeof *t);
	t->set = s;
	t->nset = nset;
	t->ceil = ceil;
	t->other = other;
	t->parent = parent;
	return true;
}

struct lost_of {
	size_t lost, j;
};

static int by_lost(const void *x, const void *y)
{
	const struct lost_of *a = x, *b = y;
	return a->lost != b->lost ? (a->lost < b->lost ? -1 : 1) : (a->j > b->j) - (a->j < b->j);
}

/* How many values a probe's result says were lost: n - result / u. */
static bool lost_count(const struct reveal *v, uint64_t result, double u, size_t *lost)
{
	double x;
	if (fpref_emu_value_f64(&v->o->out, result, &x) != 0 || x != floor(x / u) * u || x < 0 ||
	    x > (double)(v->o->n - 2) * u)
		return false;
	*lost = v->o->n - (size_t)(x / u);
	return true;
}

static const char oom[] = "out of memory";

/* The answers of one task's pivot: its path's nodes, the parts that join
 * it as new tasks, and the values in other children of the parent as one
 * more. */
static enum fpref_order_status settle(struct reveal *v, struct task *t, const uint64_t *res, double u, bool top)
{
	struct fpref_order_report *r = v->r;
	size_t m = t->nset - 1, q = 0;
	struct lost_of *row = malloc(m * sizeof *row);
	size_t *group = malloc(m * sizeof *group);
	enum fpref_order_status st = FPREF_ORDER_TREE;
	if (!row || !group) {
		st = say(r, FPREF_ORDER_ERROR, oom);
		goto out;
	}
	for (size_t i = 0; i < t->nset; i++) {
		size_t j = t->set[i];
		if (j == t->pivot)
			continue;
		char hex[24];
		snprintf(hex, sizeof hex, "%llx", (unsigned long long)res[q]);
		if (!lost_count(v, res[q], u, &row[q].lost)) {
			st = say(r, FPREF_ORDER_NOT_TREE,
				 "M at value %zu and -M at value %zu (the rest %g) gave %s, not %g times a whole count: the "
				 "small values are not lost whole as in a tree of roundings in %s (a wider, compensated or "
				 "exact accumulator?)",
				 t->pivot, j, u, hex, u, v->o->out.name);
			goto out;
		}
		if (row[q].lost > t->ceil && row[q].lost != t->other) {
			st = say(r, FPREF_ORDER_NOT_TREE,
				 "inconsistent answers: M at value %zu and -M at value %zu lose %zu values, but earlier probes put "
				 "both in a node of %zu (does the order change from call to call?)",
				 t->pivot, j, row[q].lost, t->ceil);
			goto out;
		}
		row[q++].j = j;
	}
	if (top && v->o->n >= 3 && row[0].lost == 2 && row[m - 1].lost == 2) {
		bool flat = true;
		for (size_t i = 0; i < m; i++)
			flat = flat && row[i].lost == 2;
		if (flat) {
			st = say(r, FPREF_ORDER_NOT_TREE,
				 "M and -M cancel without losing any other value wherever they are placed (value %zu with each "
				 "of the others): the box sums exactly or compensates (Kahan, a wider accumulator), it is no "
				 "tree of roundings in %s",
				 t->pivot, v->o->out.name);
			goto out;
		}
	}
	qsort(row, m, sizeof *row, by_lost);
	long node = new_pnode(v, (long)t->pivot, 1), exact = -1;
	size_t cur = 1, rest = 0, base = 0;
	for (size_t i = 0; i < m && node >= 0;) {
		size_t s = row[i].lost, g = 0;
		while (i < m && row[i].lost == s)
			group[g++] = row[i++].j;
		if (s == t->other) {
			rest = g;
			break;
		}
		if (cur + g == s) {
			/* a node losing everything below: the group joins the path there */
			long up = new_pnode(v, -1, s);
			if (up < 0 || !add_kid(v, (size_t)up, (size_t)node) || !push_task(v, group, g, s, s, (size_t)up)) {
				node = -1;
				break;
			}
			node = up;
			cur = s;
			exact = -1;
			continue;
		}
		/* an exact node: each value of the group in a child of s - base
		 * values, base the size of the path's child */
		size_t b = exact >= 0 ? base : cur;
		if (s <= b || g % (s - b) != 0) {
			st = say(r, FPREF_ORDER_NOT_TREE,
				 "inconsistent answers: with M at value %zu, %zu value(s) (value %zu first) lose %zu, but the "
				 "node below holds %zu: no tree of roundings and exact sums gives this (an order that changes "
				 "from call to call?)",
				 t->pivot, g, group[0], s, cur);
			goto out;
		}
		if (exact < 0) {
			if ((exact = new_pnode(v, -1, cur)) < 0 || !add_kid(v, (size_t)exact, (size_t)node)) {
				node = -1;
				break;
			}
			v->nodes[exact].exact = true;
			base = cur;
			node = exact;
		}
		if (!push_task(v, group, g, s - b, 2 * (s - b), (size_t)exact)) {
			node = -1;
			break;
		}
		cur = v->nodes[exact].size += g;
	}
	if (node >= 0 && t->other != t->ceil && cur != t->ceil) {
		st = say(r, FPREF_ORDER_NOT_TREE,
			 "inconsistent answers: value %zu lies in a child of %zu values of an exact sum, but its probes "
			 "make it %zu",
			 t->pivot, t->ceil, cur);
		goto out;
	}
	if (node < 0 || !add_kid(v, t->parent, (size_t)node) ||
	    (rest && !push_task(v, group, rest, t->ceil, t->other, t->parent)))
		st = say(r, FPREF_ORDER_ERROR, oom);
out:
	free(row);
	free(group);
	return st;
}

/* One round: every open task's pivot row in one batch (and the first
 * probe once more, to see that the box answers it the same way). */
static enum fpref_order_status round_of(struct reveal *v, double u, bool top)
{
	size_t n = v->o->n, ntask = v->ntasks, q = 0;
	struct task *tasks = v->tasks;
	v->tasks = NULL;
	v->ntasks = v->cap_tasks = 0;
	for (size_t i = 0; i < ntask; i++)
		q += tasks[i].nset - 1;
	uint64_t *lines = malloc((q + 1) * n * sizeof *lines), *res = malloc((q + 1) * sizeof *res);
	enum fpref_order_status st = FPREF_ORDER_TREE;
	if (!lines || !res) {
		st = say(v->r, FPREF_ORDER_ERROR, oom);
		goto out;
	}
	q = 0;
	for (size_t i = 0; i < ntask; i++) {
		struct task *t = &tasks[i];
		if (t->nset == 1) {
			long leaf = new_pnode(v, (long)t->set[0], 1);
			if (leaf < 0 || !add_kid(v, t->parent, (size_t)leaf)) {
				st = say(v->r, FPREF_ORDER_ERROR, oom);
				goto out;
			}
			continue;
		}
		t->pivot = t->set[next_random(&v->rng) % t->nset];
		t->first = q;
		for (size_t k = 0; k < t->nset; k++)
			if (t->set[k] != t->pivot)
				fill_probe(v, lines + n * q++, t->pivot, t->set[k]);
	}
	size_t probes = q;
	if (v->have_sentinel)
		fill_probe(v, lines + n * q++, v->s_i, v->s_j);
	if (q && run_box(v, lines, q, res) != 0) {
		st = v->r->status;
		goto out;
	}
	v->r->probe_lines += q;
	if (v->have_sentinel && res[probes] != v->s_answer) {
		st = say(v->r, FPREF_ORDER_NOT_TREE,
			 "the same probe (M at value %zu, -M at value %zu) gave %llx, then %llx: the order changes from call "
			 "to call",
			 v->s_i, v->s_j, (unsigned long long)v->s_answer, (unsigned long long)res[probes]);
		goto out;
	}
	for (size_t i = 0; i < ntask && st == FPREF_ORDER_TREE; i++) {
		struct task *t = &tasks[i];
		if (t->nset == 1)
			continue;
		if (!v->have_sentinel) {
			v->have_sentinel = true;
			v->s_i = t->pivot;
			v->s_j = t->set[t->set[0] == t->pivot];
			v->s_answer = res[t->first];
		}
		st = settle(v, t, res + t->first, u, top);
	}
out:
	for (size_t i = 0; i < ntask; i++)
		free(tasks[i].set);
	free(tasks);
	free(lines);
	free(res);
	return st;
}

/* The root: pnode 0, or the node it stands for where the top row's path
 * ended in an exact node of all N values (pnode 0 then has it alone). */
static size_t root_of(const struct reveal *v)
{
	size_t x = 0;
	while (v->nodes[x].leaf < 0 && v->nodes[x].nk == 1 && v->nodes[v->nodes[x].kids[0]].size == v->nodes[x].size)
		x = v->nodes[x].kids[0];
	return x;
}

/* The tree of the pnodes, multi-operand nodes given `model`; with lone,
 * also the two-child nodes that hold a product and a product or a block
 * node (a block of one product and c, or of two products, has two
 * children: the probes cannot tell it from an addition).  NULL with a
 * message in err. */
static struct fpref_tree *emit(const struct reveal *v, const char *model, bool lone, char *err, size_t errlen)
{
	const struct fpref_format *in = &v->o->in, *out = &v->o->out;
	struct fpref_tree *t = fpref_emu_tree_new(in, in, out);
	long *id = malloc(v->nnodes * sizeof *id), *kids = malloc((v->o->n + 1) * sizeof *kids);
	size_t *minleaf = malloc(v->nnodes * sizeof *minleaf), *stack = malloc(2 * v->nnodes * sizeof *stack);
	bool *block = malloc(v->nnodes * sizeof *block);
	bool ok = t && id && kids && minleaf && stack && block;
	size_t depth = 0;
	if (!ok)
		snprintf(err, errlen, oom);
	if (ok)
		stack[depth++] = root_of(v); /* entering; a node leaves as index + nnodes */
	while (ok && depth) {
		size_t x = stack[--depth];
		if (x < v->nnodes) {
			stack[depth++] = x + v->nnodes;
			for (size_t k = 0; k < v->nodes[x].nk; k++)
				stack[depth++] = v->nodes[x].kids[k];
			continue;
		}
		x -= v->nnodes;
		const struct pnode *p = &v->nodes[x];
		if (p->leaf >= 0) {
			minleaf[x] = (size_t)p->leaf;
			block[x] = false;
			ok = (id[x] = fpref_emu_tree_add_leaf(t, (size_t)p->leaf, err, errlen)) >= 0;
			continue;
		}
		size_t *k = p->kids;
		bool leaf0 = v->nodes[k[0]].leaf >= 0, leaf1 = p->nk > 1 && v->nodes[k[1]].leaf >= 0;
		block[x] = !p->exact && (p->nk > 2 || (lone && model && p->nk == 2 && (leaf0 || leaf1) &&
							   (leaf0 ? leaf1 || block[k[1]] : block[k[0]])));
		bool grouped = block[x] || p->exact;
		/* an accumulator before the products; otherwise by the first value */
		for (size_t a = 1; a < p->nk; a++)
			for (size_t b = a; b > 0; b--) {
				size_t l = k[b - 1], h = k[b];
				bool li = v->nodes[l].leaf < 0, hi = v->nodes[h].leaf < 0;
				if (grouped ? (hi && !li) || (hi == li && minleaf[h] < minleaf[l]) : minleaf[h] < minleaf[l]) {
					k[b - 1] = h;
					k[b] = l;
				} else
					break;
			}
		minleaf[x] = minleaf[k[0]];
		for (size_t a = 0; a < p->nk; a++) {
			kids[a] = id[k[a]];
			if (minleaf[k[a]] < minleaf[x])
				minleaf[x] = minleaf[k[a]];
		}
		if (p->nk > 2 && !p->exact && !model) {
			snprintf(err, errlen, "a node adds %zu terms at once, and no block model is given for it", p->nk);
			ok = false;
			break;
		}
		ok = (id[x] = fpref_emu_tree_add_node(t, kids, p->nk, p->exact ? "seq:float64" : block[x] ? model : NULL, err,
						       errlen)) >= 0;
	}
	if (ok)
		ok = fpref_emu_tree_finish(t, err, errlen) == 0;
	free(id);
	free(kids);
	free(minleaf);
	free(stack);
	free(block);
	if (!ok) {
		fpref_emu_tree_free(t);
		return NULL;
	}
	return t;
}

static bool has_multi(const struct reveal *v)
{
	for (size_t i = 0; i < v->nnodes; i++)
		if (v->nodes[i].nk > 2 && !v->nodes[i].exact)
			return true;
	return false;
}

/* The trees to try: plain additions only, or one per block model. */
static size_t candidates(const struct reveal *v, const char **names, size_t cap)
{
	const struct fpref_order_options *o = v->o;
	if (!has_multi(v)) {
		names[0] = NULL;
		return 1;
	}
	size_t k = 0;
	if (o->models) {
		for (size_t i = 0; i < o->nmodels && k < cap; i++)
			names[k++] = o->models[i];
		return k;
	}
	for (size_t i = 0; i < fpref_tc_model_count() && k < cap; i++) {
		const char *g = fpref_tc_model_at(i)->gpu;
		bool dup = false;
		for (size_t j = 0; j < k; j++)
			dup = dup || strcmp(names[j], g) == 0;
		const struct fpref_tc_model *m = fpref_tc_model_find_pair(g, &o->in, &o->in);
		if (!dup && m && fpref_tc_input_ok(&o->in) && fpref_tc_output_ok(m, &o->in, &o->out))
			names[k++] = g;
	}
	return k;
}

#define MAX_CANDIDATES 64

/* The structure's trees on random lines: the first that reproduces them
 * all is the report's. */
static enum fpref_order_status fit(struct reveal *v)
{
	const struct fpref_order_options *o = v->o;
	struct fpref_order_report *r = v->r;
	const char *names[MAX_CANDIDATES], *found[MAX_CANDIDATES];
	struct fpref_tree *trees[MAX_CANDIDATES] = { NULL };
	char why[MAX_CANDIDATES][300];
	size_t nf = candidates(v, found, MAX_CANDIDATES / 2), alive = 0, nc = 0;
	/* each model on the multi-operand nodes alone, then with the lone blocks */
	for (size_t c = 0; c < nf; c++)
		for (int lone = 0; lone < 2 && (lone == 0 || found[c]); lone++) {
			names[nc] = found[c];
			trees[nc] = emit(v, found[c], lone, why[nc], sizeof why[nc]);
			alive += trees[nc++] != NULL;
		}
	size_t n = o->n, step = o->max_batch ? o->max_batch : 4096;
	uint64_t *lines = malloc(step * n * sizeof *lines), *res = malloc(step * sizeof *res),
		 *ones = malloc(n * sizeof *ones);
	struct fpref_env rne;
	fpref_env_default(&rne);
	enum fpref_order_status st = FPREF_ORDER_TREE;
	if (!lines || !res || !ones) {
		st = say(r, FPREF_ORDER_ERROR, oom);
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		ones[k] = v->one;
	for (size_t at = 0; at < o->verify && alive; at += step) {
		size_t m = o->verify - at < step ? o->verify - at : step;
		fpref_emu_random(&o->in, &rne, FPREF_DIST_NORMAL, 0, o->seed, at * n, m * n, lines);
		if (run_box(v, lines, m, res) != 0) {
			st = r->status;
			goto out;
		}
		r->verify_lines += m;
		for (size_t c = 0; c < nc; c++)
			for (size_t i = 0; i < m && trees[c]; i++) {
				uint64_t d = 0;
				unsigned flags = 0;
				if (fpref_emu_tree_dot(trees[c], lines + i * n, ones, n, &o->env, &d, &flags) != 0 ||
				    d != res[i]) {
					snprintf(why[c], sizeof why[c], "random line %zu: the tree gives %llx, the box %llx", at + i,
						 (unsigned long long)d, (unsigned long long)res[i]);
					fpref_emu_tree_free(trees[c]);
					trees[c] = NULL;
					alive--;
				}
			}
	}
	for (size_t c = 0; c < nc; c++)
		if (trees[c]) {
			r->tree = trees[c];
			trees[c] = NULL;
			snprintf(r->model, sizeof r->model, "%s", names[c] ? names[c] : "");
			goto out;
		}
	int used = snprintf(r->message, sizeof r->message,
			    "the probes reveal a tree, but it reproduces no random line with %s: ",
			    names[0] ? "any block model tried" : "additions in the output format");
	for (size_t c = 0; c < nc && used < (int)sizeof r->message; c++)
		used += snprintf(r->message + used, sizeof r->message - (size_t)used, "%s%s%s%s", c ? "; " : "",
				 names[c] ? names[c] : "", names[c] ? ": " : "", why[c]);
	if (nc == 0)
		snprintf(r->message + used, sizeof r->message - (size_t)used, "no block model takes %s to %s",
			 o->in.name, o->out.name);
	r->status = st = FPREF_ORDER_NOT_TREE;
out:
	for (size_t c = 0; c < nc; c++)
		fpref_emu_tree_free(trees[c]);
	free(lines);
	free(res);
	free(ones);
	return st;
}

enum fpref_order_status fpref_golden_reveal_order(const struct fpref_order_options *o, fpref_order_box_fn box,
						  void *ctx, struct fpref_order_report *r)
{
	memset(r, 0, sizeof *r);
	struct reveal v = { .o = o, .box = box, .ctx = ctx, .r = r, .rng = o->seed };
	double u;
	if (o->n < 2 || o->n > 65536)
		return say(r, FPREF_ORDER_ERROR, "N = %zu: 2..65536 values", o->n);
	if (o->out.man_bits > FPREF_OP_MAX_MAN_BITS)
		return say(r, FPREF_ORDER_ERROR, "%s is too wide for the emulator's additions", o->out.name);
	if (!magnitudes(&v, &u))
		return say(r, FPREF_ORDER_ERROR,
			   "%s and %s leave no room for probes of %zu values (a signed M and a u with every count of u up "
			   "to N exact, and M's ulp above N u)",
			   o->in.name, o->out.name, o->n);
	size_t *all = malloc(o->n * sizeof *all);
	enum fpref_order_status st = FPREF_ORDER_TREE;
	if (!all || new_pnode(&v, -1, o->n) != 0) {
		st = say(r, FPREF_ORDER_ERROR, oom);
		goto out;
	}
	for (size_t k = 0; k < o->n; k++)
		all[k] = k;
	if (!push_task(&v, all, o->n, o->n, o->n, 0)) {
		st = say(r, FPREF_ORDER_ERROR, oom);
		goto out;
	}
	for (bool top = true; v.ntasks && st == FPREF_ORDER_TREE; top = false)
		st = round_of(&v, u, top);
	for (size_t i = 0; i < v.nnodes && st == FPREF_ORDER_TREE; i++) {
		const struct pnode *p = &v.nodes[i];
		if (i == 0 && v.nnodes && root_of(&v) != 0)
			continue;
		size_t sum = 0;
		for (size_t k = 0; k < p->nk; k++)
			sum += v.nodes[p->kids[k]].size;
		if (p->leaf < 0 && (p->nk < 2 || sum != p->size))
			st = say(r, FPREF_ORDER_NOT_TREE, "inconsistent answers: a node of %zu values has %zu children of %zu",
				 p->size, p->nk, sum);
	}
	if (st == FPREF_ORDER_TREE)
		st = fit(&v);
	if (st == FPREF_ORDER_TREE) {
		r->text = fpref_emu_tree_text(r->tree);
		if (!r->text)
			st = say(r, FPREF_ORDER_ERROR, oom);
		fpref_emu_tree_stats(r->tree, &r->inner, &r->blocks, &r->depth);
	}
out:
	for (size_t i = 0; i < v.ntasks; i++)
		free(v.tasks[i].set);
	free(v.tasks);
	for (size_t i = 0; i < v.nnodes; i++)
		free(v.nodes[i].kids);
	free(v.nodes);
	free(all);
	r->status = st;
	if (st != FPREF_ORDER_TREE) {
		fpref_emu_tree_free(r->tree);
		r->tree = NULL;
		free(r->text);
		r->text = NULL;
	}
	return st;
}

void fpref_golden_order_report_free(struct fpref_order_report *r)
{
	fpref_emu_tree_free(r->tree);
	free(r->text);
	r->tree = NULL;
	r->text = NULL;
}
