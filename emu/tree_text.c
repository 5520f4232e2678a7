/* Summation trees as text (emu/fpref_emu_tree.h): "(x,y)" one addition,
 * "MODEL[c,k,...]" one block-model call, K a product.  Both directions
 * work with explicit stacks, since a sequential sum nests K deep. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_emu_tree.h"
#include "tree_internal.h"

struct open_node {
	size_t kids_at;     /* where its children start on the child stack */
	char model[TREE_MODEL_NAME]; /* "" for an addition */
	size_t at;          /* its place in the text, for messages */
};

struct stacks {
	long *kids;
	size_t nkids, cap_kids;
	struct open_node *open;
	size_t nopen, cap_open;
};

static bool push(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? 2 * *cap : 64;
	void *q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

static bool is_sep(char c)
{
	return c == ',' || isspace((unsigned char)c);
}

struct fpref_tree *fpref_emu_tree_parse(const char *text, const struct fpref_format *in_a, const struct fpref_format *in_b,
				    const struct fpref_format *out, char *err, size_t errlen)
{
	struct fpref_tree *t = fpref_emu_tree_new(in_a, in_b, out);
	struct stacks s = { 0 };
	const char *p = text;
	bool ok = t != NULL, done = false;
	char why[200] = "out of memory";
	size_t at = 0;
	while (ok && !done) {
		while (is_sep(*p))
			p++;
		at = (size_t)(p - text);
		if (!*p) {
			snprintf(why, sizeof why, "the text ends inside a node");
			ok = false;
		} else if (isdigit((unsigned char)*p)) {
			char *end;
			unsigned long long k = strtoull(p, &end, 10);
			long id = k > 1u << 30 ? -1 : fpref_emu_tree_add_leaf(t, (size_t)k, why, sizeof why);
			if (k > 1u << 30)
				snprintf(why, sizeof why, "product %llu is too large", k);
			ok = id >= 0 && push((void **)&s.kids, &s.cap_kids, s.nkids, sizeof *s.kids);
			if (ok)
				s.kids[s.nkids++] = id;
			p = end;
		} else if (*p == '(' || isalpha((unsigned char)*p)) {
			struct open_node o = { s.nkids, "", at };
			if (*p != '(') {
				size_t n = strcspn(p, "[(),] \t\n");
				if (p[n] != '[' || n >= sizeof o.model) {
					snprintf(why, sizeof why, "expected MODEL[ (a block model's name, then '[')");
					ok = false;
					break;
				}
				memcpy(o.model, p, n);
				o.model[n] = '\0';
				p += n;
			}
			p++;
			ok = push((void **)&s.open, &s.cap_open, s.nopen, sizeof *s.open);
			if (ok)
				s.open[s.nopen++] = o;
		} else if ((*p == ')' || *p == ']') && s.nopen) {
			struct open_node *o = &s.open[--s.nopen];
			if ((*p == ']') != (o->model[0] != '\0')) {
				snprintf(why, sizeof why, "'%c' closes the node opened at %zu", *p, o->at);
				ok = false;
				break;
			}
			long id = fpref_emu_tree_add_node(t, s.kids + o->kids_at, s.nkids - o->kids_at,
						      o->model[0] ? o->model : NULL, why, sizeof why);
			ok = id >= 0;
			s.nkids = o->kids_at;
			s.kids[s.nkids++] = id;
			p++;
		} else {
			snprintf(why, sizeof why, "unexpected '%c'", *p);
			ok = false;
		}
		if (ok && s.nopen == 0) {
			while (is_sep(*p))
				p++;
			if (*p) {
				at = (size_t)(p - text);
				snprintf(why, sizeof why, "text after the root");
				ok = false;
			}
			done = true;
		}
	}
	if (!ok)
		snprintf(err, errlen, "at character %zu: %s", at + 1, why);
	if (ok && fpref_emu_tree_finish(t, err, errlen) != 0)
		ok = false;
	free(s.kids);
	free(s.open);
	if (!ok) {
		if (!t)
			snprintf(err, errlen, "out of memory");
		fpref_emu_tree_free(t);
		return NULL;
	}
	return t;
}

struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void put(struct text *x, const char *s)
{
	size_t n = strlen(s);
	if (x->failed)
		return;
	if (x->len + n + 1 > x->cap) {
		size_t c = x->cap ? x->cap : 256;
		while (c < x->len + n + 1)
			c *= 2;
		char *q = realloc(x->buf, c);
		if (!q) {
			x->failed = true;
			return;
		}
		x->buf = q;
		x->cap = c;
	}
	memcpy(x->buf + x->len, s, n + 1);
	x->len += n;
}

char *fpref_emu_tree_text(const struct fpref_tree *t)
{
	struct frame {
		long node;
		size_t next;
	} *st = malloc((t->nnodes + 1) * sizeof *st);
	struct text x = { NULL, 0, 0, st == NULL };
	size_t depth = 0;
	if (st && t->nnodes)
		st[depth++] = (struct frame){ (long)t->nnodes - 1, 0 };
	while (depth && !x.failed) {
		struct frame *f = &st[depth - 1];
		const struct tree_node *n = &t->nodes[f->node];
		char num[32];
		if (n->leaf >= 0) {
			snprintf(num, sizeof num, "%ld", n->leaf);
			put(&x, num);
			depth--;
			continue;
		}
		if (f->next == 0) {
			if (n->model >= 0)
				put(&x, t->names[n->model]);
			put(&x, n->model >= 0 ? "[" : "(");
		} else if (f->next < n->count)
			put(&x, ",");
		if (f->next == n->count) {
			put(&x, n->model >= 0 ? "]" : ")");
			depth--;
			continue;
		}
		st[depth++] = (struct frame){ t->kids[n->first + f->next++], 0 };
	}
	free(st);
	if (x.failed) {
		free(x.buf);
		return NULL;
	}
	return x.buf ? x.buf : calloc(1, 1);
}
