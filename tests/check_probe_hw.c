/* fpref probe on silicon: the outputs measured on V100, A100, H100 and Ada
 * (../shared/tc-hw, or FPREF_TC_HW) handed to the search as they are (their
 * own random inputs, not probe inputs).  The search must find exactly one
 * class, and it must hold the preset that check_tc shows to reproduce the
 * same data.  Without the data the program exits 77 (skipped). */
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "tc_hw.h"

/* The cases of one set as probe data: FP32 patterns narrowed (exactly) to
 * the input format, C as the data's README says. */
static size_t load(const struct dataset *s, bool out16, const struct fpref_format *in, const struct fpref_format *out,
		   uint64_t **rows, uint64_t **d, size_t *K)
{
	FILE *fa = open_data(s, "a", s->file_tag), *fb = open_data(s, "b", s->file_tag), *fc = open_data(s, "c", "fp32"),
	     *fd = open_data(s, "d", out16 ? "fp16" : "fp32");
	size_t n = 0, cap = 0;
	*rows = *d = NULL;
	struct fpref_format f32 = test_format("float32");
	struct fpref_env exact;
	fpref_env_default(&exact);
	uint64_t a32[64], b32[64];
	int k;
	while (fa && fb && fc && fd && (k = read_hex_row(fa, a32, 64)) > 0) {
		*K = (size_t)k;
		if (n == cap) {
			cap = cap ? 2 * cap : 8192;
			*rows = realloc(*rows, cap * (2 * *K + 1) * sizeof **rows);
			*d = realloc(*d, cap * sizeof **d);
			ck_assert(*rows && *d);
		}
		uint64_t *row = *rows + n * (2 * *K + 1), c32, d32;
		ck_assert_int_eq(read_hex_row(fb, b32, 64), k);
		ck_assert_int_eq(read_binary(fc, &c32), 0);
		ck_assert_int_eq(read_binary(fd, &d32), 0);
		unsigned flags = 0;
		for (int i = 0; i < k; i++) {
			fpref_emu_convert(&f32, a32[i], in, &exact, 0, &row[i], &flags);
			fpref_emu_convert(&f32, b32[i], in, &exact, 0, &row[*K + (size_t)i], &flags);
		}
		if (strcmp(s->gpu, "h100") == 0 && in->man_bits < 7 && !out16)
			c32 = 0; /* WGMMA ran with C = 0 */
		fpref_emu_convert(&f32, c32, out, &exact, 0, &row[2 * *K], &flags);
		fpref_emu_convert(&f32, d32, out, &exact, 0, &(*d)[n], &flags);
		n++;
	}
	if (fa) fclose(fa);
	if (fb) fclose(fb);
	if (fc) fclose(fc);
	if (fd) fclose(fd);
	return n;
}

START_TEST(silicon)
{
	const struct dataset *s = &sets[_i];
	struct fpref_format in = test_format(s->input), f32 = test_format("float32"), f16 = test_format("float16");
	const struct fpref_tc_model *preset = fpref_tc_model_find(s->gpu, &in);
	ck_assert_ptr_nonnull(preset);
	int block = 0, frac = 0;
	for (int out16 = 0; out16 < 2; out16++) {
		const struct fpref_format *out = out16 ? &f16 : &f32;
		uint64_t *rows, *d;
		size_t K = 0, count = load(s, out16, &in, out, &rows, &d, &K);
		if (count == 0 && out16)
			continue; /* this set has no FP16 output */
		ck_assert_msg(count > 0, "%s: data files missing", s->folder);
		/* FP16 output: the block and fraction count found with FP32 output */
		struct fpref_probe_data data = { .in = in, .in_b = in, .out = *out, .K = K, .count = count, .rows = rows,
						 .d = d, .block = block, .frac = frac };
		struct fpref_probe_report r;
		char err[256];
		ck_assert_int_eq(fpref_golden_probe_infer(&data, &r, err, sizeof err), 0);
		printf("%-10s %-7s out: %zu cases, %zu models run, %zu classes\n", s->folder, out->name, count, r.tried,
		       r.nclasses);
		fflush(stdout);
		ck_assert_msg(r.nclasses == 1, "%s with %s output: %zu classes fit", s->folder, out->name, r.nclasses);
		ck_assert_msg(fpref_golden_probe_class_holds(&r.classes[0], preset, out, K), "%s with %s output: the class found "
			      "does not hold the %s preset", s->folder, out->name, s->gpu);
		bool listed = false;
		for (size_t i = 0; i < r.npresets; i++)
			listed = listed || r.presets[i] == preset;
		ck_assert(listed);
		block = r.classes[0].block_lo;
		frac = r.classes[0].frac;
		fpref_golden_probe_report_free(&r);
		free(rows);
		free(d);
	}
}
END_TEST

int main(void)
{
	char readme[1024];
	snprintf(readme, sizeof readme, "%s/README.md", data_folder());
	FILE *f = fopen(readme, "r");
	if (!f) {
		printf("SKIP: no tensor-core data at %s (set FPREF_TC_HW)\n", data_folder());
		return 77;
	}
	fclose(f);
	Suite *s = suite_create("probe on silicon");
	TCase *tc = tcase_create("silicon");
	tcase_add_loop_test(tc, silicon, 0, (int)(sizeof sets / sizeof sets[0]));
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
