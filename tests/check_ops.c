/* Arithmetic on the narrow formats, emulator against oracle through the
 * test driver (driver.h): every operand pair (every operand for sqrt) of
 * every format of 8 bits or fewer on the driver's list, through every
 * operation, under every environment of its OPS set; fma on every triple of
 * the formats of 6 bits or fewer.  And the array API against fpref_emu_op.
 * The wide formats are check_ops_wide's. */
#include <stdio.h>
#include <string.h>

#include "driver.h"

static bool is_narrow(const struct fpref_format *f)
{
	return fpref_format_container_bits(f) <= 8;
}

/* Min, max and the comparisons never round: two environments (daz or not). */
static size_t selection_envs(const struct env_case *envs, size_t n, struct env_case *out)
{
	size_t k = 0;
	out[k++] = envs[0];
	for (size_t c = 0; c < n && k < 2; c++) {
		const struct fpref_env *e = &envs[c].env;
		if (e->daz && e->rounding == FPREF_RNE && !e->ftz && e->overflow == FPREF_OVERFLOW_IEEE &&
		    e->tininess == FPREF_TININESS_AFTER && envs[c].R == 0)
			out[k++] = envs[c];
	}
	return k;
}

START_TEST(narrow_every_tuple)
{
	struct fpref_format f = drv_format((size_t)_i);
	if (!is_narrow(&f))
		return;
	struct env_case envs[DRV_MAX_ENVS], selection[2], kept[DRV_MAX_ENVS];
	size_t nenv = drv_envs(DRV_ENVS_OPS, envs), nsel = selection_envs(envs, nenv, selection);
	struct drv_sweep sweep = drv_sweep_from_env();
	uint64_t codes = (uint64_t)1 << fpref_format_container_bits(&f);
	struct drv_stats st = { 0 };
	for (int op = 0; op < FPREF_OP_COUNT; op++) {
		int arity = fpref_op_arity((enum fpref_op)op);
		bool rounds = op < FPREF_OP_MIN;
		if (arity == 3 && codes > 64)
			continue;
		const struct env_case *use = rounds ? envs : selection;
		size_t nuse = rounds ? nenv : nsel;
		uint64_t total = arity == 1 ? codes : arity == 2 ? codes * codes : codes * codes * codes;
		for (uint64_t k = 0; k < total; k++) {
			if (!drv_owns_case(&sweep, (uint64_t)_i * FPREF_OP_COUNT + (uint64_t)op, k))
				continue;
			uint64_t in[3] = { k % codes, (k / codes) % codes, k / codes / codes };
			size_t n = 0;
			for (size_t c = 0; c < nuse; c++)
				if (drv_keep(&sweep, (((uint64_t)_i << 8 | (uint64_t)op) << 40 | k) * nuse + c, &use[c]))
					kept[n++] = use[c];
			drv_compare_op(&st, (enum fpref_op)op, &f, in, kept, n);
		}
	}
	drv_report(&st, "every operand tuple", f.name);
}
END_TEST

/* The array API (tables for narrow formats) against fpref_emu_op. */
START_TEST(op_array_matches_op)
{
	struct fpref_format f = drv_format((size_t)_i);
	if (!is_narrow(&f))
		return;
	struct env_case envs[DRV_MAX_ENVS];
	size_t nenv = drv_envs(DRV_ENVS_OPS, envs);
	unsigned codes = 1u << fpref_format_container_bits(&f);
	size_t n = (size_t)codes * codes;
	uint8_t *a = malloc(n), *b = malloc(n), *out = malloc(n), *flags = malloc(n);
	for (size_t k = 0; k < n; k++) {
		a[k] = (uint8_t)(k % codes);
		b[k] = (uint8_t)(k / codes);
	}
	unsigned long bad = 0;
	unsigned long long compared = 0;
	struct drv_sweep sweep = drv_sweep_from_env();
	for (int op = 0; op < FPREF_OP_COUNT; op++) {
		if (fpref_op_arity((enum fpref_op)op) == 3)
			continue;
		for (size_t c = 0; c < nenv; c += 5) {
			/* a shard takes whole arrays: (format, op, environment) */
			if (!drv_owns(&sweep, ((uint64_t)_i * FPREF_OP_COUNT + (uint64_t)op) * DRV_MAX_ENVS + c))
				continue;
			struct fpref_emu_op_context *ctx = fpref_emu_op_context_new((enum fpref_op)op, &f, &envs[c].env);
			ck_assert_ptr_nonnull(ctx);
			fpref_emu_op_array(ctx, a, b, NULL, out, n, flags, 0);
			fpref_emu_op_context_free(ctx);
			for (size_t k = 0; k < n; k++) {
				if (!drv_sampled(&sweep, ((uint64_t)op << 32 | c) * n + k))
					continue;
				uint64_t in[3] = { a[k], b[k], 0 }, want = 0;
				unsigned want_flags = 0;
				compared++;
				fpref_emu_op((enum fpref_op)op, &f, in, &envs[c].env,
					     fpref_env_sr_random(&envs[c].env, k), &want, &want_flags);
				if ((out[k] != want || flags[k] != want_flags) && bad++ < 10)
					fprintf(stderr, "%s %s(%x, %x): array %x/%02x, op %llx/%02x\n", f.name,
						fpref_op_name((enum fpref_op)op), a[k], b[k], out[k], flags[k],
						(unsigned long long)want, want_flags);
			}
		}
	}
	free(a);
	free(b);
	free(out);
	free(flags);
	printf("driver: array API against the core %s: %llu comparisons\n", f.name, compared);
	ck_assert_msg(bad == 0, "%s: %lu array elements differ", f.name, bad);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ops");
	TCase *narrow = tcase_create("narrow");
	tcase_add_loop_test(narrow, narrow_every_tuple, 0, (int)drv_format_count());
	TCase *array = tcase_create("array");
	tcase_add_loop_test(array, op_array_matches_op, 0, (int)drv_format_count());
	TCase *cases[] = { narrow, array };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tcase_set_timeout(cases[i], 1800);
		suite_add_tcase(s, cases[i]);
	}
	return test_run(s);
}
