/* Black boxes for tests/order.sh: each sums the N values of every input
 * line (hex, one line each) in plain float arithmetic in a stated order,
 * independent of fpref's emulator, and writes the float32 result in hex.
 * With --tree N a box writes instead the tree its order makes, in the
 * canonical text fpref probe order prints (a child holding a smaller
 * value first; in a block node the accumulator first, then the values in
 * order).
 *
 *   seq            s = x0; s += x1; ... (float32 values)
 *   reverse        s = x(N-1); s += x(N-2); ...
 *   pairwise       halves, the first half floor(N/2), recursively
 *   blocked A      A accumulators, acc[k] = x[k] + x[k+A] + ... over the
 *                  first N - N mod A values, then the accumulators summed
 *                  as a balanced tree (pairwise), then the rest in order
 *   splitk S       float16 values; slices of S values, each a chain of
 *                  blocks of 4 through a block-FMA unit (the sum of c and
 *                  the block's values, each truncated toward zero to a
 *                  multiple of 2^(E-24), E the largest exponent, a
 *                  float16 subnormal counted at 2^-14; one rounding toward
 *                  zero to float32), slices added in order in float32
 *   tail A         blocked A over the first N - N mod A values, then that
 *                  float sum and the other values added in order in
 *                  double, rounded once to float32 (OpenBLAS's sdot does
 *                  this with its tail)
 *   random         a new random order for every line, summed in order
 *   shuffled       one random order per start of the box
 *   kahan          Kahan's compensated sum in float32
 *   double         summed in double, rounded once to float32 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXN 65536

static float from_hex32(const char *t)
{
	uint32_t u = (uint32_t)strtoul(t, NULL, 16);
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static float from_hex16(const char *t)
{
	unsigned h = (unsigned)strtoul(t, NULL, 16), e = (h >> 10) & 31, m = h & 1023;
	float v = e ? ldexpf((float)(m | 1024), (int)e - 25) : ldexpf((float)m, -24);
	return h & 0x8000 ? -v : v; /* no inf or NaN in the tests' inputs */
}

static void put32(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	printf("%08X\n", u);
}

static float pairwise(const float *x, size_t n)
{
	if (n == 1)
		return x[0];
	size_t h = n / 2;
	return pairwise(x, h) + pairwise(x + h, n - h);
}

/* The block-FMA unit of splitk: c plus up to four values. */
static float block4(float c, const float *x, size_t k)
{
	int E = INT32_MIN;
	double t[5];
	size_t nt = 0;
	if (c != 0) {
		int e = ilogbf(c) < -126 ? -126 : ilogbf(c);
		E = e;
		t[nt++] = c;
	}
	for (size_t i = 0; i < k; i++)
		if (x[i] != 0) {
			int e = ilogbf(x[i]) < -14 ? -14 : ilogbf(x[i]);
			E = e > E ? e : E;
			t[nt++] = x[i];
		}
	if (nt == 0)
		return c; /* zeros: unused by the tests */
	double sum = 0, q = ldexp(1, E - 24);
	for (size_t i = 0; i < nt; i++)
		sum += trunc(t[i] / q) * q; /* exact: multiples of q below 2^(E+2) */
	float f = (float)sum;
	if (fabs((double)f) > fabs(sum))
		f = nextafterf(f, 0);
	return f;
}

static float blocked(const float *x, size_t n, size_t A);

static float tail(const float *x, size_t n, size_t A)
{
	size_t body = n - n % A;
	double d = blocked(x, body, A);
	for (size_t i = body; i < n; i++)
		d += x[i];
	return (float)d;
}

static float splitk(const float *x, size_t n, size_t S)
{
	float total = 0;
	for (size_t s = 0; s < n; s += S) {
		float c = 0;
		for (size_t b = s; b < n && b < s + S; b += 4)
			c = block4(c, x + b, (b + 4 <= n && b + 4 <= s + S ? b + 4 : (n < s + S ? n : s + S)) - b);
		total = s == 0 ? c : total + c;
	}
	return total;
}

static float blocked(const float *x, size_t n, size_t A)
{
	float acc[256];
	size_t body = n - n % A;
	for (size_t k = 0; k < A; k++) {
		acc[k] = x[k];
		for (size_t i = k + A; i < body; i += A)
			acc[k] += x[i];
	}
	float s = pairwise(acc, A);
	for (size_t i = body; i < n; i++)
		s += x[i];
	return s;
}

/* ---- the trees, in fpref probe order's canonical text ---- */

static void tree_pairwise_of(const size_t *leaf, size_t n)
{
	if (n == 1) {
		printf("%zu", leaf[0]);
		return;
	}
	size_t h = n / 2;
	printf("(");
	tree_pairwise_of(leaf, h);
	printf(",");
	tree_pairwise_of(leaf + h, n - h);
	printf(")");
}

/* ((0,1),2)... for seq; (0,(1,(2,...))) for reverse, whose first
 * addition is x(N-2) + x(N-1) */
static void tree_chain(size_t n, bool reverse)
{
	for (size_t i = 1; i < n; i++)
		printf(reverse ? "(%zu," : "(", i - 1);
	printf("%zu", reverse ? n - 1 : 0);
	for (size_t i = 1; i < n; i++)
		reverse ? printf(")") : printf(",%zu)", i);
}

/* a blocked accumulator's chain, for the pairwise tree over them */
static void tree_acc(size_t k, size_t A, size_t body)
{
	size_t m = (body - k + A - 1) / A;
	for (size_t i = 1; i < m; i++)
		printf("(");
	printf("%zu", k);
	for (size_t i = 1; i < m; i++)
		printf(",%zu)", k + i * A);
}
static void tree_accs(size_t lo, size_t n, size_t A, size_t body)
{
	if (n == 1) {
		tree_acc(lo, A, body);
		return;
	}
	size_t h = n / 2;
	printf("(");
	tree_accs(lo, h, A, body);
	printf(",");
	tree_accs(lo + h, n - h, A, body);
	printf(")");
}

static void tree_splitk(size_t n, size_t S)
{
	size_t slices = (n + S - 1) / S;
	for (size_t s = 1; s < slices; s++)
		printf("(");
	for (size_t s = 0; s < n; s += S) {
		size_t end = n < s + S ? n : s + S, blocks = (end - s + 3) / 4;
		if (s)
			printf(",");
		for (size_t b = 1; b < blocks; b++)
			printf("generic:4:24:none:rtz[");
		for (size_t b = s; b < end; b += 4) {
			printf(b == s ? "generic:4:24:none:rtz[" : ",");
			for (size_t i = b; i < end && i < b + 4; i++)
				printf(i == b ? "%zu" : ",%zu", i);
			printf("]");
		}
		if (s)
			printf(")");
	}
	printf("\n");
}

static int usage(void)
{
	fprintf(stderr, "usage: order_box seq|reverse|pairwise|blocked A|tail A|splitk S|random|shuffled|kahan|double [--tree N]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *mode = argv[1];
	size_t param = 0;
	int at = 2;
	if (strcmp(mode, "blocked") == 0 || strcmp(mode, "splitk") == 0 || strcmp(mode, "tail") == 0) {
		if (argc < 3 || (param = strtoul(argv[2], NULL, 10)) < 1 || param > 256)
			return usage();
		at = 3;
	}
	if (argc == at + 2 && strcmp(argv[at], "--tree") == 0) {
		size_t n = strtoul(argv[at + 1], NULL, 10);
		if (n < 2 || n > MAXN)
			return usage();
		if (strcmp(mode, "seq") == 0)
			tree_chain(n, false);
		else if (strcmp(mode, "reverse") == 0)
			tree_chain(n, true);
		else if (strcmp(mode, "pairwise") == 0 || (strcmp(mode, "blocked") == 0 && n < param)) {
			size_t *leaf = malloc(n * sizeof *leaf);
			for (size_t i = 0; i < n; i++)
				leaf[i] = i;
			tree_pairwise_of(leaf, n);
			free(leaf);
		} else if (strcmp(mode, "blocked") == 0) {
			size_t body = n - n % param;
			for (size_t i = body; i < n; i++)
				printf("(");
			tree_accs(0, param, param, body);
			for (size_t i = body; i < n; i++)
				printf(",%zu)", i);
		} else if (strcmp(mode, "splitk") == 0) {
			tree_splitk(n, param);
			return 0;
		} else if (strcmp(mode, "tail") == 0 && n >= param) {
			size_t body = n - n % param;
			printf(n - body > 1 ? "seq:float64[" : n > body ? "(" : "");
			tree_accs(0, param, param, body);
			for (size_t i = body; i < n; i++)
				printf(",%zu", i);
			printf(n - body > 1 ? "]" : n > body ? ")" : "");
		} else
			return usage();
		printf("\n");
		return 0;
	}
	if (argc != at)
		return usage();
	bool half = strcmp(mode, "splitk") == 0;
	static char line[MAXN * 10];
	static float x[MAXN], y[MAXN];
	static size_t perm[MAXN];
	unsigned long seed = (unsigned long)getpid(), lineno = 0;
	srand((unsigned)seed);
	size_t fixed_n = 0;
	while (fgets(line, sizeof line, stdin)) {
		size_t n = 0;
		for (char *t = strtok(line, " \t\r\n"); t && n < MAXN; t = strtok(NULL, " \t\r\n"))
			x[n++] = half ? from_hex16(t) : from_hex32(t);
		if (n == 0)
			continue;
		lineno++;
		float s;
		if (strcmp(mode, "seq") == 0) {
			s = x[0];
			for (size_t i = 1; i < n; i++)
				s += x[i];
		} else if (strcmp(mode, "reverse") == 0) {
			s = x[n - 1];
			for (size_t i = n - 1; i-- > 0;)
				s += x[i];
		} else if (strcmp(mode, "pairwise") == 0)
			s = pairwise(x, n);
		else if (strcmp(mode, "blocked") == 0)
			s = n >= param ? blocked(x, n, param) : pairwise(x, n);
		else if (strcmp(mode, "splitk") == 0)
			s = splitk(x, n, param);
		else if (strcmp(mode, "tail") == 0)
			s = tail(x, n, param);
		else if (strcmp(mode, "random") == 0 || strcmp(mode, "shuffled") == 0) {
			if (strcmp(mode, "random") == 0 || fixed_n != n) {
				for (size_t i = 0; i < n; i++)
					perm[i] = i;
				for (size_t i = n - 1; i > 0; i--) {
					size_t j = (size_t)rand() % (i + 1), t = perm[i];
					perm[i] = perm[j];
					perm[j] = t;
				}
				fixed_n = n;
			}
			for (size_t i = 0; i < n; i++)
				y[i] = x[perm[i]];
			s = y[0];
			for (size_t i = 1; i < n; i++)
				s += y[i];
		} else if (strcmp(mode, "kahan") == 0) {
			float c = 0;
			s = 0;
			for (size_t i = 0; i < n; i++) {
				volatile float yk = x[i] - c, t = s + yk;
				c = (t - s) - yk;
				s = t;
			}
		} else if (strcmp(mode, "double") == 0) {
			double d = 0;
			for (size_t i = 0; i < n; i++)
				d += x[i];
			s = (float)d;
		} else
			return usage();
		put32(s);
	}
	return 0;
}
