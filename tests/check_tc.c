/* The tensor-core models against outputs measured on V100, A100, H100 and
 * Ada GPUs (../shared/tc-hw, or the folder named by FPREF_TC_HW): every
 * case must match bit for bit.  Without the data the program exits 77, which
 * the test harness reports as skipped, not passed. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "tc_hw.h"
#include "fpref_emu_tc.h"

/* Every case of one GPU and input format, with FP32 output and, where the
 * data has it, FP16 output (C rounded to FP16 first). */
START_TEST(silicon)
{
	const struct dataset *s = &sets[_i];
	struct fpref_format in = test_format(s->input), f32 = test_format("float32"), f16 = test_format("float16");
	const struct fpref_tc_model *m = fpref_tc_model_find(s->gpu, &in);
	ck_assert_ptr_nonnull(m);
	for (int out16 = 0; out16 < 2; out16++) {
		FILE *fa = open_data(s, "a", s->file_tag), *fb = open_data(s, "b", s->file_tag);
		FILE *fc = open_data(s, "c", "fp32"), *fd = open_data(s, "d", out16 ? "fp16" : "fp32");
		if (!fd && out16) {
			if (fa) fclose(fa);
			if (fb) fclose(fb);
			if (fc) fclose(fc);
			continue;
		}
		ck_assert_msg(fa && fb && fc && fd, "%s: data files missing", s->folder);
		const struct fpref_format *out = out16 ? &f16 : &f32;
		unsigned long cases = 0, mismatches = 0;
		uint64_t a32[64], b32[64];
		int K;
		struct fpref_env exact;
		fpref_env_default(&exact);
		while ((K = read_hex_row(fa, a32, 64)) > 0) {
			uint64_t c32, d32, a[64], b[64], c, want, got;
			ck_assert_int_eq(read_hex_row(fb, b32, 64), K);
			ck_assert_int_eq(read_binary(fc, &c32), 0);
			ck_assert_int_eq(read_binary(fd, &d32), 0);
			unsigned flags = 0;
			for (int k = 0; k < K; k++) { /* exactly representable: no flags */
				fpref_emu_convert(&f32, a32[k], &in, &exact, 0, &a[k], &flags);
				fpref_emu_convert(&f32, b32[k], &in, &exact, 0, &b[k], &flags);
			}
			if (strcmp(s->gpu, "h100") == 0 && in.man_bits < 7 && !out16)
				c32 = 0; /* WGMMA ran with C = 0; the FP16-output runs (mma.sync) used C */
			fpref_emu_convert(&f32, c32, out, &exact, 0, &c, &flags); /* FP16: C rounded first */
			fpref_emu_convert(&f32, d32, out, &exact, 0, &want, &flags);
			ck_assert_msg((flags & ~(unsigned)(FPREF_FLAG_INEXACT | FPREF_FLAG_UNDERFLOW)) == 0 || out16,
				      "%s: inputs not exact", s->folder);
			ck_assert_int_eq(fpref_emu_tc_dot(m, &in, &in, a, b, (size_t)K, c, out, &got), 0);
			cases++;
			if (got != want && mismatches++ < 5)
				fprintf(stderr, "%s %s out, case %lu: model %llx, GPU %llx\n", s->folder, out->name, cases,
					(unsigned long long)got, (unsigned long long)want);
		}
		fclose(fa);
		fclose(fb);
		fclose(fc);
		fclose(fd);
		printf("%-10s %-7s out: %lu cases, %lu mismatches\n", s->folder, out->name, cases, mismatches);
		fflush(stdout);
		ck_assert_uint_gt(cases, 0);
		ck_assert_msg(mismatches == 0, "%s with %s output: %lu of %lu cases differ from the GPU", s->folder,
			      out->name, mismatches, cases);
	}
}
END_TEST

int main(void)
{
	char probe[1024];
	snprintf(probe, sizeof probe, "%s/README.md", data_folder());
	FILE *f = fopen(probe, "r");
	if (!f) {
		printf("SKIP: no tensor-core data at %s (set FPREF_TC_HW)\n", data_folder());
		return 77;
	}
	fclose(f);
	Suite *s = suite_create("tensor cores");
	TCase *tc = tcase_create("silicon");
	tcase_add_loop_test(tc, silicon, 0, (int)(sizeof sets / sizeof sets[0]));
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return test_run(s);
}
