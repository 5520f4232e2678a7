/* Many dot products over one set of rows, their operands decoded once: a
 * caller that runs the same rows under thousands of models (probe
 * inference searches every generic block model) would otherwise decode
 * every operand again for each model, which was half its time.  Each row
 * gives the bits fpref_emu_tc_dot gives for it: the block path takes the
 * decoded columns, the lowered and FP32-tree paths the row's patterns. */
#include <stdint.h>
#include <stdlib.h>

#include "tc_internal.h"

struct fpref_emu_tc_rows {
	const struct fpref_format *in_a, *in_b;
	const uint64_t *rows;
	size_t count, K;
	struct operands all; /* row i's a at i * 2K, its b at i * 2K + K */
	uint8_t *valid;      /* whether row i's a and b decoded */
};

struct fpref_emu_tc_rows *fpref_emu_tc_rows_new(const struct fpref_format *in_a, const struct fpref_format *in_b,
						const uint64_t *rows, size_t count, size_t K)
{
	struct fpref_emu_tc_rows *r = malloc(sizeof *r);
	if (!r)
		return NULL;
	*r = (struct fpref_emu_tc_rows){ in_a, in_b, rows, count, K, { 0 }, malloc(count ? count : 1) };
	if (!r->valid || operands_new(&r->all, 2 * K * count) != 0) {
		free(r->valid);
		free(r);
		return NULL;
	}
	for (size_t i = 0; i < count; i++) {
		const uint64_t *row = rows + i * (2 * K + 1);
		struct operands x = operands_at(&r->all, 2 * K * i), y = operands_at(&r->all, 2 * K * i + K);
		r->valid[i] = decode_all(in_a, row, K, &x) == 0 && decode_all(in_b, row + K, K, &y) == 0;
	}
	return r;
}

int fpref_emu_tc_rows_dot(const struct fpref_tc_model *m, const struct fpref_emu_tc_rows *r, size_t i,
			  const struct fpref_format *output, uint64_t *d)
{
	const uint64_t *row = r->rows + i * (2 * r->K + 1);
	if (fpref_tc_lowered(m, output) || m->tree > 0)
		return fpref_emu_tc_dot(m, r->in_a, r->in_b, row, row + r->K, r->K, row[2 * r->K], output, d);
	struct plan p;
	struct fpref_unpacked z;
	if (!r->valid[i] || fpref_emu_tc_plan_init(&p, m, r->in_a, r->in_b, output) != 0 ||
	    fpref_decode(output, row[2 * r->K], &z) == FPREF_DECODE_INVALID)
		return -1;
	struct operands x = operands_at(&r->all, 2 * r->K * i), y = operands_at(&r->all, 2 * r->K * i + r->K);
	*d = fpref_tc_model_nan(m, output, fpref_emu_tc_chain(&p, &x, &y, r->K, row[2 * r->K], NULL));
	return 0;
}

void fpref_emu_tc_rows_free(struct fpref_emu_tc_rows *r)
{
	if (!r)
		return;
	operands_free(&r->all);
	free(r->valid);
	free(r);
}
