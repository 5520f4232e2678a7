/* The tensor-core GEMM: which tile kernel runs a plan (gemm_tiles,
 * fpref_emu_tc_gemm_path), the operands decoded and copied for the tiles,
 * each tile's block scales, the column loop that runs the kernels (or the
 * chain element by element), its threads, the lowered and block-scaled
 * GEMMs, and the GEMM's public entry points.  The kernels are tc_tile.c's
 * and tc_tile_tree.c's. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "tc_tile.h"

/* The group path's significands are the products' exact group sums'
 * units already (group_terms): an operand's significand shifted to its
 * place above its format's least exponent (least), so that a product is
 * one multiplication and a group sum a plain integer dot product; zeros and
 * specials 0 (a block with a special goes through block()).  f: the
 * operand's format (A's or B's). */
static void tile_operand_set(const struct tile_operands *t, size_t i, const struct operands *o, size_t at,
			     const struct plan *p, const struct fpref_format *f, int32_t least, bool grouped)
{
	int32_t sig = (int32_t)o->sig[at];
	int32_t exp = o->exp[at];
	if (p->flush && sig < (int32_t)1 << f->man_bits) { /* CDNA2 reads a subnormal input as +0 */
		sig = 0;
		exp = ZERO_EXPONENT; /* as a zero's: its products' places below every nonzero one's (tree_lanes) */
	}
	if (grouped)
		sig = o->kind[at] == FINITE ? sig * ((int32_t)1 << (o->exp[at] - least)) : 0;
	t->sig[i] = (int16_t)(o->negative[at] ? -sig : sig);
	t->exp[i] = (int16_t)exp;
}

/* Whether tile_sums' 32-bit lanes hold every block of the plan (tc_tile.c). */
static bool tile_fits(const struct plan *p)
{
	return p->lift <= 6 && p->frac + 2 <= 32 && (uint64_t)p->block << (p->frac + 2) <= (1ull << 32);
}

/* Whether tile_sums64's lanes do: a product below 2^(25 + lift) <= 2^62,
 * the n truncated ones, each below 2^(F + 2), below 2^62 together, and C
 * (below 2^24, tile_c_terms) shifted up by lift below 2^61. */
static bool tile_fits_wide(const struct plan *p)
{
	return p->lift <= 37 && p->frac + 2 <= 62 && (uint64_t)p->block << (p->frac + 2) <= (1ull << 62);
}

/* Whether the group path's shifted significands fit tile_operands' 16 bits
 * and a group's exact sum 32-bit lanes. */
static bool tile_groups_fit(const struct plan *p)
{
	int bits_a = p->in_a->man_bits + 1 + p->span_a, bits_b = p->in_b->man_bits + 1 + p->span_b;
	return bits_a <= 15 && bits_b <= 15 && (uint64_t)p->group << (bits_a + bits_b) < (1ull << 31);
}

/* Whether the FP32 path's products are exact in FP32 significand-wise
 * (both inputs' significands, times each other, in 24 bits: FP16's 22,
 * BF16's 16) and its groups fit the kernel: then a product in FP32's
 * normal range needs no rounding, nor CDNA2's flush, and only an add can
 * round or overflow. */
static bool tile_tree_fits(const struct plan *p)
{
	int32_t bits = p->in_a->man_bits + 1 + p->in_b->man_bits + 1;
	return fpref_format_is(p->output, FPREF_FORMAT_FLOAT32) && p->target_shift == 0 && bits <= 24 &&
	       p->block <= TREE_MAX_BLOCK;
}

/* Whether some product of the input can leave FP32's normal range (BF16,
 * whose exponents are FP32's: below 2^-126 it would round or flush, from
 * 2^128 on overflow; FP16's are 2^-48 to below 2^32): then the tile kernel
 * looks at every product's leading bit (tree_range). */
static bool tree_range_needed(const struct plan *p)
{
	int32_t least = (p->least_a - p->in_a->man_bits) + (p->least_b - p->in_b->man_bits);
	int32_t lead_hi = (p->least_a + p->span_a + 1) + (p->least_b + p->span_b + 1);
	return least < -126 || lead_hi > 127;
}

static enum tile_kind tile_kind_of(const struct plan *p)
{
	if (p->zero_operand) /* the tiles keep no zero product's place: the block routine does */
		return TILE_NONE;
	if (p->tree > 0) /* the tree tile has no fused groups: those go column by column */
		return !p->fused && tile_tree_fits(p) ? TILE_TREE : TILE_NONE;
	if (p->group > 0)
		return tile_groups_fit(p) ? TILE_GROUPS : TILE_NONE;
	if (!tile_fits(p))
		return p->sum_frac == 0 && tile_fits_wide(p) ? TILE_BLOCK_WIDE : TILE_NONE;
	if (p->sum_frac == 0)
		return TILE_BLOCK;
	return p->parts <= TILE_PARTS ? TILE_TWO_STAGE : TILE_NONE;
}

static int scaled_columns(const struct gemm_job *g, size_t j0, size_t j1);
static int lowered_gemm(const struct gemm_job *g, unsigned threads);
static int gemm_decoded(const struct gemm_job *g, unsigned threads);

/* Unit scales for every lane (the unscaled GEMM's tile path). */
static void tile_scales_unit(const struct plan *p, struct tile_scales *ts)
{
	for (size_t q = 0; q < TILE_SCALE_GROUPS; q++)
		for (size_t j = 0; j < TILE; j++) {
			ts->exp[q][j] = unit_scales.exp;
			ts->sig[q][j] = (uint32_t)unit_scales.sig;
		}
	for (size_t j = 0; j < TILE; j++) {
		ts->lead[j] = p->floor > unit_scales.exp ? p->floor : unit_scales.exp;
		ts->slow[j] = 0;
	}
	ts->man = unit_scales.man;
	ts->row = ts->col = NULL;
	ts->chunks = ts->every = ts->unit = 1;
	ts->k = 0;
	ts->width = TILE;
}

/* The scale chunk of group q of the block from product k. */
static size_t tile_chunk(const struct gemm_job *g, size_t k, size_t q)
{
	return (k + q * (size_t)(g->p->group > 0 ? g->p->group : g->p->block)) / g->every;
}

/* The scales of B's columns t .. t + width - 1 for the block of len
 * products from k, as the lanes of cols (padding lanes: unit scales); ts's
 * fields that say where the slow lanes' pairs come from. */
static void tile_scales_columns(const struct gemm_job *g, size_t t, size_t width, size_t k, size_t len,
				struct tile_scales *cols, struct tile_scales *ts)
{
	size_t unit = (size_t)(g->p->group > 0 ? g->p->group : g->p->block), groups = (len + unit - 1) / unit;
	tile_scales_unit(g->p, cols);
	for (size_t q = 0; q < groups; q++) {
		size_t chunk = tile_chunk(g, k, q);
		for (size_t j = 0; j < width; j++) {
			const struct scale_pair *s = &g->sb[(t + j) * g->chunks + chunk];
			cols->exp[q][j] = s->exp;
			cols->sig[q][j] = (uint32_t)s->sig;
			cols->slow[j] |= s->kind != FINITE;
		}
	}
	ts->col = g->sb + t * g->chunks;
	ts->chunks = g->chunks;
	ts->every = g->every;
	ts->unit = unit;
	ts->k = k;
	ts->width = width;
}

/* Row i's scales for the block from k times the columns' (cols), as
 * scale_product multiplies them, into ts (the significands and lead only
 * on the group path: E8M0 scales elsewhere, whose kernels take the
 * exponents alone). */
static void tile_scales_row(const struct gemm_job *g, size_t i, size_t len, const struct tile_scales *cols,
			    struct tile_scales *ts)
{
	size_t groups = (len + ts->unit - 1) / ts->unit;
	bool grouped = g->p->group > 0;
	uint64_t row_slow = 0;
	ts->row = g->sa + i * g->chunks;
	for (size_t q = 0; q < groups; q++) {
		const struct scale_pair *r = &ts->row[tile_chunk(g, ts->k, q)];
		row_slow |= r->kind != FINITE;
		ts->man = 2 * r->man; /* both scales of one format */
		for (size_t j = 0; j < TILE; j++)
			ts->exp[q][j] = r->exp + cols->exp[q][j];
		for (size_t j = 0; grouped && j < TILE; j++)
			ts->sig[q][j] = (uint32_t)r->sig * cols->sig[q][j];
	}
	for (size_t j = 0; j < TILE; j++) {
		ts->lead[j] = g->p->floor;
		ts->slow[j] = row_slow | cols->slow[j];
	}
	for (size_t q = 0; grouped && q < groups; q++)
		for (size_t j = 0; j < TILE; j++)
			ts->lead[j] = ts->exp[q][j] > ts->lead[j] ? ts->exp[q][j] : ts->lead[j];
}

/* Columns j0 .. j1 - 1 of D (j0 a multiple of TILE). */
static int gemm_columns(const struct gemm_job *g, size_t j0, size_t j1)
{
	size_t M = g->M, N = g->N, K = g->K, n = (size_t)g->p->block;
	if (g->sa && !g->tiles)
		return scaled_columns(g, j0, j1);
	if (g->element_wise) {
		uint64_t *col = malloc((K + 1) * sizeof *col);
		int r = col ? 0 : -1;
		for (size_t j = j0; j < j1 && r == 0; j++) {
			for (size_t k = 0; k < K; k++)
				col[k] = g->B[k * N + j];
			for (size_t i = 0; i < M && r == 0; i++)
				r = fpref_emu_tc_dot(g->m, g->in_a, g->in_b, g->A + i * K, col, K, g->C ? g->C[i * N + j] : 0,
						     g->output, &g->D[i * N + j]);
		}
		free(col);
		return r;
	}
	int fast = !g->tiles && g->p->fused ? fpref_emu_tc_fused_columns(g, j0, j1) : 1;
	if (fast <= 0)
		return fast;
	if (!g->tiles) {
		struct fpref_env env;
		fpref_env_default(&env);
		for (size_t j = j0; j < j1; j++)
			for (size_t i = 0; i < M; i++) {
				struct operands x = operands_at(&g->a, i * K), y = operands_at(&g->b, j * K);
				uint64_t c = g->C ? g->C[i * N + j] : 0;
				g->D[i * N + j] =
					g->p->fused ? fpref_emu_tc_fused_chain(g->p, &x, &y, K, c)
					: g->nc	    ? fpref_emu_tc_chain_promoted(g->p, &env, &x, &y, K, g->nc, NULL, NULL, c)
						    : fpref_emu_tc_chain(g->p, &x, &y, K, c, NULL);
			}
		return 0;
	}
	/* Block by block over every row, so that one block of B's tile is read
	 * from the first-level cache M times; c holds each row's accumulators. */
	uint64_t *c = malloc((M ? M : 1) * TILE * sizeof *c);
	struct tile_scales *ts = malloc(2 * sizeof *ts); /* and the columns' scales, ts + 1 */
	if (!c || !ts) {
		free(c);
		free(ts);
		return -1;
	}
	struct tile_scales *cols = ts + 1;
	tile_scales_unit(g->p, ts);
	for (size_t t = j0; t < j1; t += TILE) {
		size_t width = j1 - t < TILE ? j1 - t : TILE;
		for (size_t i = 0; i < M; i++)
			for (size_t j = 0; j < TILE; j++) {
				c[i * TILE + j] = g->C && j < width ? g->C[i * N + t + j] : 0;
				if (g->tiles == TILE_TREE)
					c[i * TILE + j] = tree_start(g->m, c[i * TILE + j]);
			}
		for (size_t k = 0; g->tiles == TILE_LOWERED && k < K; k += (size_t)g->m->lowered_k)
			for (size_t i = 0; i < M; i += TREE_ROWS)
				fpref_emu_tc_tile_lowered_step(g, i, M - i < TREE_ROWS ? M - i : TREE_ROWS, t, k, ts,
							       c + i * TILE);
		for (size_t k = 0, step; g->tiles != TILE_LOWERED && k < K; k += step) {
			struct operands y = operands_at(&g->b, k * g->stride + t);
			struct tile_operands ty = tile_operands_at(&g->tb, t * K + k * TILE);
			size_t len = K - k < n ? K - k : n;
			/* the FP32 path's full groups of 2 or 4, up to TREE_GROUPS at once */
			size_t groups = g->tiles == TILE_TREE && len == n && (n == 2 || n == 4) ? (K - k) / n : 1;
			groups = groups < TREE_GROUPS ? groups : TREE_GROUPS;
			step = groups * len;
			/* the group and FP32 paths': column j's block q holds an inf or NaN */
			uint8_t bspecial[TREE_GROUPS][TILE] = { { 0 } };
			for (size_t q = 0; (g->tiles == TILE_GROUPS || g->tiles == TILE_TREE) && q < step; q++)
				for (size_t j = 0; j < TILE; j++)
					bspecial[q / len][j] |= y.kind[q * g->stride + j] & (INF | NOT_A_NUMBER);
			if (g->sa)
				tile_scales_columns(g, t, width, k, len, cols, ts);
			for (size_t i = 0; g->tiles == TILE_TREE && i < M; i += TREE_ROWS) {
				struct tile_operands tx = tile_operands_at(&g->ta, k * M + i * n);
				size_t rows = M - i < TREE_ROWS ? M - i : TREE_ROWS;
				if (fpref_emu_tc_tile_block_tree(g, i, rows, t, k, &tx, &ty, len, groups, bspecial,
								 c + i * TILE) != 0) {
					free(c);
					free(ts);
					return -1;
				}
			}
			for (size_t i = 0; g->tiles != TILE_TREE && i < M; i++) {
				struct operands x = operands_at(&g->a, i * K + k);
				struct tile_operands tx = tile_operands_at(&g->ta, k * M + i * n);
				if (g->sa)
					tile_scales_row(g, i, len, cols, ts);
				if (g->tiles == TILE_GROUPS && g->sa)
					fpref_emu_tc_tile_block_groups_scaled(g->p, &x, &y, &tx, &ty, g->stride, len,
									      bspecial[0], ts, c + i * TILE);
				else if (g->tiles == TILE_GROUPS)
					fpref_emu_tc_tile_block_groups(g->p, &x, &y, &tx, &ty, g->stride, len,
								       bspecial[0], ts, c + i * TILE);
				else if (g->tiles == TILE_TWO_STAGE)
					fpref_emu_tc_tile_block_two_stage(g->p, &x, &y, &tx, &ty, g->stride, len, ts,
									  c + i * TILE);
				else if (g->tiles == TILE_BLOCK_WIDE)
					fpref_emu_tc_tile_block_wide(g->p, &x, &y, &tx, &ty, g->stride, len, ts,
								     c + i * TILE);
				else
					fpref_emu_tc_tile_block(g->p, &x, &y, &tx, &ty, g->stride, len, ts,
								c + i * TILE);
			}
		}
		for (size_t i = 0; i < M; i++)
			for (size_t j = 0; j < width; j++)
				g->D[i * N + t + j] = c[i * TILE + j];
	}
	free(c);
	free(ts);
	return 0;
}

struct gemm_part {
	const struct gemm_job *g;
	size_t j0, j1;
	int status;
};

static void *gemm_part_run(void *arg)
{
	struct gemm_part *part = arg;
	part->status = gemm_columns(part->g, part->j0, part->j1);
	return NULL;
}

/* The columns split over the threads in whole tiles; each thread writes its
 * own columns of D from read-only operands, so the bits cannot depend on
 * the number of threads. */
static int gemm_threaded(const struct gemm_job *g, unsigned threads)
{
	size_t tiles = (g->N + TILE - 1) / TILE;
	if (threads > tiles)
		threads = (unsigned)tiles;
	if (threads <= 1)
		return gemm_columns(g, 0, g->N);
	struct gemm_part *parts = calloc(threads, sizeof *parts);
	pthread_t *ids = calloc(threads, sizeof *ids);
	bool *started = calloc(threads, sizeof *started);
	int status = parts && ids && started ? 0 : -1;
	for (unsigned t = 0; t < threads && status == 0; t++) {
		size_t first = tiles * t / threads * TILE, last = tiles * (t + 1) / threads * TILE;
		parts[t] = (struct gemm_part){ g, first, last < g->N ? last : g->N, 0 };
	}
	for (unsigned t = 1; t < threads && status == 0; t++)
		started[t] = pthread_create(&ids[t], NULL, gemm_part_run, &parts[t]) == 0;
	if (status == 0)
		gemm_part_run(&parts[0]);
	for (unsigned t = 1; t < threads && status == 0; t++) {
		if (started[t])
			pthread_join(ids[t], NULL);
		else /* no thread to be had: this one does the part */
			gemm_part_run(&parts[t]);
		status |= parts[t].status;
	}
	status |= status == 0 ? parts[0].status : 0;
	free(parts);
	free(ids);
	free(started);
	return status ? -1 : 0;
}

/* Whether a lowered path runs on the tile kernel (TILE_LOWERED): FP32 or
 * FP16 output, which tree_add adds in, the FP16 unit's plan a block
 * tile's whose target is the output itself (not narrowed), and every lane
 * group of an instruction a whole block (lowered_k a multiple of
 * interleave times the groups), so that permuting each instruction's K
 * makes each group one block. */
static bool lowered_tiles_fit(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	const struct fpref_tc_model *inner = fpref_tc_model_lowered_blocks(m);
	struct plan q;
	if (!inner || !(fpref_format_is(output, FPREF_FORMAT_FLOAT32) || fpref_format_is(output, FPREF_FORMAT_FLOAT16)) ||
	    fpref_emu_tc_plan_init(&q, inner, fpref_format_get(FPREF_FORMAT_FLOAT16), fpref_format_get(FPREF_FORMAT_FLOAT16),
				   output) != 0 ||
	    tile_kind_of(&q) != TILE_BLOCK ||
	    q.target_shift != 0)
		return false;
	size_t L = (size_t)m->lowered_k, n = (size_t)inner->block, lanes = (size_t)m->interleave;
	return m->interleave > 0 && L % n == 0 && L / n > 0 && L % (lanes * (L / n)) == 0;
}

/* The tile kernel of a GEMM without scales (TILE_NONE: none), and whether
 * it runs element by element instead of column by column: the lowered
 * paths that TILE_LOWERED does not take (FP16 output), and the FP32 path
 * where its tile does not hold the inputs. */
static enum tile_kind gemm_tiles(const struct fpref_tc_model *m, const struct plan *p, size_t nc, bool *element_wise)
{
	bool lowered = fpref_tc_lowered(m, p->output);
	enum tile_kind tiles = nc || lowered ? TILE_NONE : tile_kind_of(p);
	if (lowered && nc == 0 && lowered_tiles_fit(m, p->output))
		tiles = TILE_LOWERED;
	/* the fused groups run on the decoded columns (fpref_emu_tc_fused_chain) */
	*element_wise = (lowered && tiles == TILE_NONE) || (m->tree > 0 && !m->fused && tiles == TILE_NONE);
	return tiles;
}

const char *fpref_emu_tc_gemm_path(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
				   const struct fpref_format *output)
{
	static const char *const names[] = { [TILE_NONE] = "per column", [TILE_BLOCK] = "block tile",
					      [TILE_TWO_STAGE] = "two-stage tile", [TILE_GROUPS] = "group tile",
					      [TILE_TREE] = "fp32-tree tile",
					      [TILE_LOWERED] = "lowered block tile",
					      [TILE_BLOCK_WIDE] = "wide block tile" };
	struct plan p;
	bool element_wise;
	if (fpref_emu_tc_plan_init(&p, m, in_a, in_b, output) != 0)
		return NULL;
	enum tile_kind tiles = gemm_tiles(m, &p, 0, &element_wise);
	return element_wise ? "per element" : names[tiles];
}

/* fpref_emu_tc_gemm_threads, with the job's decoded scales (sa NULL: none;
 * the caller has checked that they suit the model's path). */
static int gemm_run(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		    const struct fpref_format *output, size_t M, size_t N, size_t K, const uint64_t *A, const uint64_t *B, const uint64_t *C, size_t nc,
		    uint64_t *D, unsigned threads, const struct gemm_job *scales)
{
	struct plan p;
	if (fpref_emu_tc_plan_init(&p, m, in_a, in_b, output) != 0 ||
			 (nc && (!fpref_format_is(output, FPREF_FORMAT_FLOAT32) || fpref_tc_lowered(m, output) || m->tree > 0)))
		return -1;
	for (size_t i = 0; C && i < M * N; i++) {
		struct fpref_unpacked z;
		if (fpref_decode(output, C[i], &z) == FPREF_DECODE_INVALID)
			return -1;
	}
	struct gemm_job g = { m, &p, in_a, in_b, output, M, N, K, nc, 0, A, B, C, { 0 }, { 0 }, { 0 }, { 0 }, TILE_NONE, false, false, D, NULL, NULL, 0, 0 };
	bool element_wise;
	g.tiles = gemm_tiles(m, &p, nc, &element_wise);
	g.tree_range = g.tiles == TILE_TREE && tree_range_needed(&p);
	if (scales) { /* the tile kernels take each lane's scales (tile_scales), for as many groups as they hold */
		if (m->group > 0 && (size_t)(m->block + m->group - 1) / (size_t)m->group > TILE_SCALE_GROUPS)
			g.tiles = TILE_NONE; /* the scaled chain: B transposed, as the other non-tile paths */
		g.sa = scales->sa;
		g.sb = scales->sb;
		g.every = scales->every;
		g.chunks = scales->chunks;
	}
	int r;
	if (element_wise) {
		g.element_wise = true;
		r = gemm_threaded(&g, threads);
	} else {
		r = g.tiles == TILE_LOWERED ? lowered_gemm(&g, threads) : gemm_decoded(&g, threads);
	}
	for (size_t i = 0; r == 0 && m->nan_ones && i < M * N; i++) /* the kernels' NaNs, the row's pattern */
		D[i] = fpref_tc_model_nan(m, output, D[i]);
	return r;
}

/* A lowered GEMM on the tile kernel (TILE_LOWERED): A and B converted to
 * FP16 (exactly, as lowered_dot converts them), each instruction's K
 * permuted so that lane group h (the k with (k / interleave) mod groups =
 * h) is block h of the instruction, a short last instruction's groups
 * padded with zero products (a short block is the same as one padded with
 * them: chain), then the job run with the FP16 unit's plan over the
 * padded K. */
static int lowered_gemm(const struct gemm_job *g, unsigned threads)
{
	const struct fpref_tc_model *inner = fpref_tc_model_lowered_blocks(g->m);
	const struct fpref_format *f16 = fpref_format_get(FPREF_FORMAT_FLOAT16);
	struct plan q;
	if (fpref_emu_tc_plan_init(&q, inner, f16, f16, g->output) != 0)
		return -1;
	size_t M = g->M, N = g->N, K = g->K, L = (size_t)g->m->lowered_k, n = (size_t)inner->block;
	size_t groups = L / n, lanes = (size_t)g->m->interleave, Kp = (K + L - 1) / L * L;
	uint64_t *A = calloc(M * Kp + 1, sizeof *A), *B = calloc(Kp * N + 1, sizeof *B); /* 0: FP16's +0 */
	struct fpref_env env;
	fpref_env_default(&env);
	int r = A && B ? 0 : -1;
	for (size_t k = 0; k < K && r == 0; k++) {
		size_t k0 = k / L * L, u = (k - k0) / lanes;
		size_t at = k0 + u % groups * n + u / groups * lanes + (k - k0) % lanes;
		unsigned flags = 0;
		for (size_t i = 0; i < M && r == 0; i++)
			r = fpref_emu_convert(g->in_a, g->A[i * K + k], f16, &env, 0, &A[i * Kp + at], &flags);
		for (size_t j = 0; j < N && r == 0; j++)
			r = fpref_emu_convert(g->in_b, g->B[k * N + j], f16, &env, 0, &B[at * N + j], &flags);
	}
	if (r == 0) {
		struct gemm_job h = *g;
		h.p = &q;
		h.in_a = h.in_b = f16;
		h.K = Kp;
		h.A = A;
		h.B = B;
		r = gemm_decoded(&h, threads);
	}
	free(A);
	free(B);
	return r ? -1 : 0;
}

/* The job's operands decoded (and the tile path's copies made), then its
 * columns run. */
static int gemm_decoded(const struct gemm_job *g0, unsigned threads)
{
	struct gemm_job g = *g0;
	const struct plan *pp = g.p;
	size_t M = g.M, N = g.N, K = g.K;
	const uint64_t *A = g.A, *B = g.B;
	g.stride = g.tiles ? (N + TILE - 1) / TILE * TILE : K;
	struct operands all;
	size_t bn = g.tiles ? K * g.stride : K * N;
	if (operands_new(&all, M * K + bn) != 0)
		return -1;
	g.a = all;
	g.b = operands_at(&all, M * K);
	int r = decode_all(g.in_a, A, M * K, &g.a);
	size_t columns = g.tiles ? g.stride : N;
	for (size_t k = 0; k < K && r == 0; k++)
		for (size_t j = 0; j < columns && r == 0; j++) {
			size_t at = g.tiles ? k * g.stride + j : j * K + k; /* tile path: row-major; else each column contiguous */
			if (j < N) {
				r = decode_one(g.in_b, B[k * N + j], &g.b, at);
			} else { /* a padding column: zero products */
				g.b.sig[at] = 0;
				g.b.exp[at] = ZERO_EXPONENT;
				g.b.negative[at] = 0;
				g.b.kind[at] = ZERO;
			}
		}
	size_t nb = (size_t)pp->block, Kp = (K + nb - 1) / nb * nb; /* A's last block padded */
	int16_t *compact = r == 0 && g.tiles ? calloc((M * Kp + bn) * 2, sizeof *compact) : NULL;
	if (compact) {
		g.ta = (struct tile_operands){ compact, compact + M * Kp + bn };
		g.tb = tile_operands_at(&g.ta, M * Kp);
		for (size_t i = 0; i < M; i++)
			for (size_t k = 0; k < K; k++)
				tile_operand_set(&g.ta, (k / nb * M + i) * nb + k % nb, &all, i * K + k, pp, g.in_a,
						 pp->least_a, g.tiles == TILE_GROUPS);
		for (size_t k = 0; k < K; k++)
			for (size_t j = 0; j < g.stride; j++)
				tile_operand_set(&g.tb, j / TILE * K * TILE + k * TILE + j % TILE, &g.b, k * g.stride + j, pp,
						 g.in_b, pp->least_b, g.tiles == TILE_GROUPS);
	} else if (g.tiles) {
		r = -1;
	}
	if (r == 0)
		r = gemm_threaded(&g, threads);
	free(compact);
	operands_free(&all);
	return r ? -1 : 0;
}

int fpref_emu_tc_gemm_threads(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
			      const struct fpref_format *output, size_t M, size_t N, size_t K, const uint64_t *A,
			      const uint64_t *B, const uint64_t *C, size_t nc, uint64_t *D, unsigned threads)
{
	return gemm_run(m, in_a, in_b, output, M, N, K, A, B, C, nc, D, threads, NULL);
}

/* Columns j0 .. j1 - 1 of a scaled GEMM without a tile kernel (a model
 * whose block holds more than TILE_SCALE_GROUPS groups, or none fits):
 * each element the chain of fpref_emu_tc_dot_scaled over the decoded
 * operands, its chunks' scale pairs made from row i of sa and column j of
 * sb as scale_pairs makes them. */
static int scaled_columns(const struct gemm_job *g, size_t j0, size_t j1)
{
	size_t M = g->M, N = g->N, K = g->K;
	size_t unit = (size_t)(g->p->group > 0 ? g->p->group : g->p->block), chunks = (K + unit - 1) / unit;
	struct scale_pair *pairs = malloc((chunks ? chunks : 1) * sizeof *pairs);
	if (!pairs)
		return -1;
	for (size_t j = j0; j < j1; j++)
		for (size_t i = 0; i < M; i++) {
			const struct scale_pair *ra = g->sa + i * g->chunks, *cb = g->sb + j * g->chunks;
			for (size_t q = 0; q < chunks; q++)
				pairs[q] = scale_product(&ra[q * unit / g->every], &cb[q * unit / g->every]);
			struct operands x = operands_at(&g->a, i * K), y = operands_at(&g->b, j * K);
			g->D[i * N + j] = fpref_emu_tc_chain(g->p, &x, &y, K, g->C ? g->C[i * N + j] : 0, pairs);
		}
	free(pairs);
	return 0;
}

int fpref_emu_tc_gemm_scaled_threads(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
				     const struct fpref_format *output, size_t M, size_t N, size_t K, const uint64_t *A,
				     const uint64_t *B, const struct fpref_tc_gemm_scales *scales, const uint64_t *C,
				     uint64_t *D, unsigned threads)
{
	if (!scales)
		return gemm_run(m, in_a, in_b, output, M, N, K, A, B, C, 0, D, threads, NULL);
	struct fpref_tc_scales probe = { scales->format, scales->a, scales->b, scales->every };
	if (!fpref_tc_scales_ok(m, &probe) || fpref_tc_lowered(m, output))
		return -1;
	size_t chunks = (K + scales->every - 1) / scales->every;
	struct gemm_job job = { .every = scales->every, .chunks = chunks };
	struct scale_pair *sa = malloc((M * chunks + 1) * sizeof *sa), *sb = malloc((N * chunks + 1) * sizeof *sb);
	int r = sa && sb ? 0 : -1;
	for (size_t i = 0; i < M && r == 0; i++)
		for (size_t q = 0; q < chunks && r == 0; q++)
			r = fpref_emu_tc_decode_scale(scales->format, scales->a[i * chunks + q], &sa[i * chunks + q]);
	for (size_t q = 0; q < chunks && r == 0; q++) /* sb transposed: column j's chunks contiguous */
		for (size_t j = 0; j < N && r == 0; j++)
			r = fpref_emu_tc_decode_scale(scales->format, scales->b[q * N + j], &sb[j * chunks + q]);
	job.sa = sa;
	job.sb = sb;
	if (r == 0)
		r = gemm_run(m, in_a, in_b, output, M, N, K, A, B, C, 0, D, threads, &job);
	free(sa);
	free(sb);
	return r ? -1 : 0;
}

int fpref_emu_tc_gemm(const struct fpref_tc_model *m, const struct fpref_format *in_a, const struct fpref_format *in_b,
		      const struct fpref_format *output, size_t M, size_t N, size_t K, const uint64_t *A,
		      const uint64_t *B, const uint64_t *C, size_t nc, uint64_t *D)
{
	return fpref_emu_tc_gemm_threads(m, in_a, in_b, output, M, N, K, A, B, C, nc, D, 1);
}
