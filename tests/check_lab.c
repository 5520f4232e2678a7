/* The training lab and the policy tables: the published lists' sizes and
 * sources, every op the seeds name answered under every policy, and the
 * seeds' failure signatures measured on short runs of fpref_golden_lab_run. */
#include <string.h>

#include "testutil.h"
#include "fpref_formats_policy.h"
#include "fpref_golden_lab.h"

/* Counted in the documents themselves (formats/policy.c names them), not
 * in the table: PyTorch's amp.md and TensorFlow's
 * auto_mixed_precision_lists.h. */
static const struct {
	const char *framework, *list;
	size_t count;
} published[] = {
	{ "pytorch-cuda", "float16", 22 }, { "pytorch-cuda", "float32", 51 }, { "pytorch-cuda", "promote", 10 },
	{ "pytorch-cpu", "bfloat16", 20 }, { "pytorch-cpu", "float32", 89 }, /* 90 lines, "inverse" twice */
	{ "pytorch-cpu", "promote", 3 },   { "nvidia-amp", "allow", 26 },   { "nvidia-amp", "infer", 43 },
	{ "nvidia-amp", "deny", 9 },       { "nvidia-amp", "clear", 107 },
};

START_TEST(policy_counts_and_sources)
{
	for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
		const struct fpref_policy *p = fpref_policy_find(published[i].framework);
		ck_assert_ptr_nonnull(p);
		const struct fpref_policy_list *l = NULL;
		for (size_t k = 0; k < p->nlists; k++)
			if (strcmp(p->lists[k].name, published[i].list) == 0)
				l = &p->lists[k];
		ck_assert_ptr_nonnull(l);
		ck_assert_msg(l->count == published[i].count, "%s %s: %zu ops, the document has %zu", p->framework,
			      l->name, l->count, published[i].count);
	}
	for (size_t i = 0; i < fpref_policy_count(); i++) {
		const struct fpref_policy *p = fpref_policy_at(i);
		ck_assert(p->unlisted && *p->unlisted);
		for (size_t k = 0; k < p->nlists; k++) {
			const struct fpref_policy_list *l = &p->lists[k];
			ck_assert_msg(l->source && strlen(l->source) > 20, "%s %s: no source", p->framework, l->name);
			for (size_t j = 0; j < l->count; j++) /* each op on one list of its policy only */
				ck_assert_ptr_eq(fpref_policy_lookup(p, l->ops[j]), l);
		}
	}
}
END_TEST

/* The ops the seeds name: float32 under PyTorch's CUDA autocast. */
START_TEST(seed_ops)
{
	static const char *const ops[] = { "softmax", "log_softmax", "layer_norm", "group_norm", "sum", "prod",
					   "cumsum", "cumprod", "norm", "exp", "log", "cross_entropy", "mse_loss" };
	const struct fpref_policy *cuda = fpref_policy_find("pytorch-cuda");
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		const struct fpref_policy_list *l = fpref_policy_lookup(cuda, ops[i]);
		ck_assert_msg(l && strcmp(l->name, "float32") == 0, "%s", ops[i]);
	}
	ck_assert_str_eq(fpref_policy_lookup(cuda, "linear")->name, "float16");
	ck_assert_str_eq(fpref_policy_lookup(cuda, "addcmul")->name, "promote");
	ck_assert_ptr_null(fpref_policy_lookup(cuda, "relu"));
	const struct fpref_policy *amp = fpref_policy_find("nvidia-amp");
	ck_assert_str_eq(fpref_policy_lookup(amp, "Softmax")->name, "infer");
	ck_assert_str_eq(fpref_policy_lookup(amp, "Exp")->name, "deny");
	ck_assert_str_eq(fpref_policy_lookup(amp, "MatMul")->name, "allow");
	ck_assert_str_eq(fpref_policy_lookup(fpref_policy_find("pytorch-cpu"), "mse_loss")->name, "float32");
	ck_assert_ptr_null(fpref_policy_find("pytorch-xla"));
}
END_TEST

/* Long enough that the GradScaler's eight backoffs from 2^16 are behind. */
#define STEPS 16

/* The trace against the report: each total the sum of the steps' shares,
 * the first and last loss, the skipped steps, the scale log's changes at
 * the steps where the trace's scale changes, the weights not yet moved
 * after the last step; a skipped step moves no weight. */
static void check_trace(const struct fpref_lab_result *r, const struct fpref_lab_step *t, size_t steps)
{
	size_t nonfinite = 0, nonzero = 0, flushed = 0, updates = 0, lost = 0, saturated = 0, skipped = 0, changes = 0;
	for (size_t k = 0; k < steps; k++) {
		nonfinite += t[k].nonfinite;
		nonzero += t[k].grads_nonzero;
		flushed += t[k].grads_flushed;
		updates += t[k].updates_nonzero;
		lost += t[k].updates_lost;
		saturated += t[k].fp8_saturated;
		skipped += t[k].skipped;
		ck_assert_uint_le(t[k].weights_unchanged, r->weights);
		if (t[k].skipped) { /* no update: the same weights as the step before */
			ck_assert_uint_eq(t[k].updates_nonzero, 0);
			ck_assert_uint_eq(t[k].weights_unchanged, k ? t[k - 1].weights_unchanged : r->weights);
		}
		if (!r->scaled)
			ck_assert_uint_eq(t[k].scale, 0x3F800000u);
		else if (k > 0 && t[k].scale != t[k - 1].scale) {
			changes++;
			if (changes < FPREF_LAB_SCALE_LOG) {
				ck_assert_uint_eq(r->scale_log[changes].step, k);
				ck_assert_uint_eq(r->scale_log[changes].scale, t[k].scale);
			}
		}
	}
	ck_assert_uint_eq(nonfinite, r->nonfinite);
	ck_assert_uint_eq(nonzero, r->grads_nonzero);
	ck_assert_uint_eq(flushed, r->grads_flushed);
	ck_assert_uint_eq(updates, r->updates_nonzero);
	ck_assert_uint_eq(lost, r->updates_lost);
	ck_assert_uint_eq(saturated, r->fp8_saturated);
	ck_assert_uint_eq(skipped, r->skipped_steps);
	ck_assert_uint_eq(t[0].loss, r->first_loss);
	ck_assert_uint_eq(t[steps - 1].loss, r->final_loss);
	ck_assert_uint_eq(t[steps - 1].weights_unchanged, r->weights_unchanged);
	if (r->scaled) {
		ck_assert_uint_eq(t[0].scale, r->scale_log[0].scale);
		/* the log also holds a change after the last step, which no step used */
		ck_assert(changes == r->scale_changes || changes + 1 == r->scale_changes);
	}
}

/* Each run with its trace, checked against its report. */
static struct fpref_lab_result run_traced(enum fpref_lab_recipe recipe, struct fpref_lab_step *trace)
{
	struct fpref_lab_config c = { .recipe = recipe, .steps = STEPS, .seed = 1, .trace = trace };
	struct fpref_lab_result r;
	char err[256];
	ck_assert_msg(fpref_golden_lab_run(&c, &r, err, sizeof err) == 0, "%s: %s", fpref_golden_lab_recipe_name(recipe), err);
	ck_assert_uint_eq(r.steps, STEPS);
	check_trace(&r, trace, STEPS);
	return r;
}

static struct fpref_lab_result run(enum fpref_lab_recipe recipe)
{
	struct fpref_lab_step trace[STEPS];
	return run_traced(recipe, trace);
}

START_TEST(fp16_underflow_is_silent)
{
	struct fpref_lab_step tn[STEPS], ts[STEPS];
	struct fpref_lab_result fp32 = run(FPREF_LAB_FP32), noscale = run_traced(FPREF_LAB_FP16_NOSCALE, tn),
				scaled = run_traced(FPREF_LAB_FP16_GRADSCALER, ts);
	/* step by step: the tiny feature's weights never move, and the flushes go on every step, without a sign */
	for (size_t k = 0; k < STEPS; k++) {
		ck_assert_uint_gt(tn[k].weights_unchanged, 0);
		ck_assert_uint_gt(tn[k].grads_flushed, 0);
		ck_assert_uint_eq(tn[k].nonfinite, 0);
	}
	/* the scaler's first steps overflow and are skipped, each at half the scale of the one before */
	ck_assert(ts[0].skipped && ts[0].nonfinite > 0 && ts[0].weights_unchanged == scaled.weights);
	for (size_t k = 1; k < scaled.skipped_steps; k++)
		ck_assert(ts[k].skipped && ts[k].scale == ts[k - 1].scale - 0x00800000u);
	ck_assert(!ts[scaled.skipped_steps].skipped);
	ck_assert_uint_eq(fp32.weights_unchanged, 0);
	ck_assert_uint_eq(scaled.weights_unchanged, 0);
	ck_assert_uint_gt(noscale.weights_unchanged, 0);
	ck_assert_uint_gt(noscale.grads_flushed, 0);
	ck_assert_uint_eq(noscale.nonfinite, 0);       /* nothing announces it */
	ck_assert_uint_eq(noscale.skipped_steps, 0);
	ck_assert_uint_gt(scaled.skipped_steps, 0);    /* the scaler backs off from 2^16 */
	ck_assert_uint_lt(scaled.final_scale, 0x47800000u);
	ck_assert(scaled.scaled && !noscale.scaled);
}
END_TEST

START_TEST(fp16_no_master_stalls)
{
	struct fpref_lab_result master = run(FPREF_LAB_FP16_GRADSCALER), none = run(FPREF_LAB_FP16_NO_MASTER);
	/* the same nonzero updates, but a tenth and more of them lost in the FP16 weights */
	ck_assert_uint_gt(none.updates_nonzero, 0);
	ck_assert_uint_gt(none.updates_lost * 10, none.updates_nonzero);
	ck_assert_uint_lt(master.updates_lost * 100, master.updates_nonzero);
	ck_assert_uint_gt(none.weights_unchanged, master.weights_unchanged);
}
END_TEST

START_TEST(fp8_uncalibrated_is_loud)
{
	struct fpref_lab_step tu[STEPS];
	struct fpref_lab_result cur = run(FPREF_LAB_FP8_TENSOR_CURRENT), unc = run_traced(FPREF_LAB_FP8_UNCALIBRATED, tu);
	for (size_t k = 0; k < STEPS; k++) /* from the first step on */
		ck_assert_uint_eq(tu[k].loss & 0x7F800000u, 0x7F800000u);
	ck_assert_uint_eq(cur.nonfinite, 0);
	ck_assert_uint_gt(unc.nonfinite, 0);
	ck_assert_uint_eq(unc.final_loss & 0x7F800000u, 0x7F800000u);
	ck_assert_uint_ne(cur.final_loss & 0x7F800000u, 0x7F800000u);
}
END_TEST

/* Delayed scaling quantises with the scale of the steps before: its first
 * step (scale 1) clips the outlier channel where current scaling does not. */
START_TEST(fp8_delayed_is_late)
{
	struct fpref_lab_result cur = run(FPREF_LAB_FP8_TENSOR_CURRENT), del = run(FPREF_LAB_FP8_TENSOR_DELAYED);
	ck_assert_uint_eq(cur.fp8_saturated, 0);
	ck_assert_uint_gt(del.fp8_saturated, 0);
	ck_assert_uint_eq(del.nonfinite, 0); /* silently: satfinite */
}
END_TEST

/* Transformer Engine's HYBRID: X and W in E4M3, the gradient in E5M2, so
 * that the wgrad GEMM multiplies E5M2 by E4M3 (A dY^T, B X) through the
 * row's two-format dot.  Delayed scaling's first step quantises with
 * scale 1: E5M2 (least subnormal 2^-16) holds the gradients of 2^-8 times
 * the residual that E4M3 (2^-9) would flush by the tens. */
START_TEST(fp8_hybrid_backward)
{
	struct fpref_lab_step td[STEPS];
	struct fpref_lab_result del = run_traced(FPREF_LAB_FP8_TENSOR_DELAYED, td), cur = run(FPREF_LAB_FP8_TENSOR_CURRENT),
				ds = run(FPREF_LAB_FP8_DEEPSEEK), fp32 = run(FPREF_LAB_FP32);
	const struct fpref_lab_result *hybrid[2] = { &del, &cur };
	for (int i = 0; i < 2; i++) {
		const struct fpref_lab_gemm *f = &hybrid[i]->gemms[0], *w = &hybrid[i]->gemms[1];
		ck_assert_str_eq(f->name, "forward");
		ck_assert(fpref_format_is(f->in_a, FPREF_FORMAT_FLOAT8_E4M3FN) && fpref_format_is(f->in_b, FPREF_FORMAT_FLOAT8_E4M3FN));
		ck_assert_str_eq(w->name, "wgrad");
		ck_assert_str_eq(w->a, "dY^T");
		ck_assert_str_eq(w->b, "X");
		ck_assert(fpref_format_is(w->in_a, FPREF_FORMAT_FLOAT8_E5M2) && fpref_format_is(w->in_b, FPREF_FORMAT_FLOAT8_E4M3FN));
		ck_assert_str_eq(w->model, "h100-wgmma");
	}
	/* DeepSeek-V3 keeps E4M3 for the gradients; fp32 runs FMA chains */
	ck_assert(fpref_format_is(ds.gemms[1].in_a, FPREF_FORMAT_FLOAT8_E4M3FN) &&
		  fpref_format_is(ds.gemms[1].in_b, FPREF_FORMAT_FLOAT8_E4M3FN));
	ck_assert(fpref_format_is(fp32.gemms[1].in_a, FPREF_FORMAT_FLOAT32) && fp32.gemms[1].model == NULL);
	ck_assert_uint_gt(td[0].grads_nonzero, 0);
	ck_assert_uint_lt(td[0].grads_flushed * 100, td[0].grads_nonzero);
	ck_assert_uint_eq(del.nonfinite + cur.nonfinite, 0);
}
END_TEST

START_TEST(bf16_needs_no_scale)
{
	struct fpref_lab_result r = run(FPREF_LAB_BF16);
	ck_assert(!r.scaled);
	ck_assert_uint_eq(r.weights_unchanged, 0);
	ck_assert_uint_eq(r.grads_flushed, 0);
	ck_assert_uint_gt(r.grads_nonzero, 0);
	ck_assert_uint_eq(r.nonfinite, 0);
}
END_TEST

START_TEST(deterministic)
{
	struct fpref_lab_config c = { .recipe = FPREF_LAB_FP8_DEEPSEEK, .steps = 3, .seed = 7, .compare = true };
	struct fpref_lab_result a, b, base, own;
	struct fpref_lab_step ta[3], tb[3], tf[3], tf_own[3];
	char err[256];
	memset(&a, 0, sizeof a);
	memset(&b, 0xA5, sizeof b);
	ck_assert_int_eq(fpref_golden_lab_run(&c, &a, err, sizeof err), 0);
	struct fpref_lab_result copy = a;
	c.trace = tb; /* a trace changes nothing of the report */
	c.fp32_trace = tf;
	c.fp32_result = &base;
	ck_assert_int_eq(fpref_golden_lab_run(&c, &b, err, sizeof err), 0);
	check_trace(&b, tb, 3);
	/* the baseline's report and trace are those of fp32 run on its own */
	struct fpref_lab_config f = { .recipe = FPREF_LAB_FP32, .steps = 3, .seed = 7, .trace = tf_own };
	ck_assert_int_eq(fpref_golden_lab_run(&f, &own, err, sizeof err), 0);
	ck_assert_uint_eq(base.final_loss, b.fp32_loss);
	ck_assert_uint_eq(base.final_loss, own.final_loss);
	ck_assert_uint_eq(base.nonfinite, own.nonfinite);
	ck_assert_uint_eq(base.weights_unchanged, own.weights_unchanged);
	check_trace(&base, tf, 3);
	for (size_t k = 0; k < 3; k++) {
		ck_assert_uint_eq(tf[k].loss, tf_own[k].loss);
		ck_assert_uint_eq(tf[k].weights_unchanged, tf_own[k].weights_unchanged);
		ck_assert_uint_eq(tf[k].updates_nonzero, tf_own[k].updates_nonzero);
	}
	/* fp32 against itself: its trace is the baseline's, without a second run */
	f.compare = true;
	f.trace = ta;
	f.fp32_trace = tf;
	f.fp32_result = &base;
	ck_assert_int_eq(fpref_golden_lab_run(&f, &own, err, sizeof err), 0);
	for (size_t k = 0; k < 3; k++)
		ck_assert_uint_eq(tf[k].loss, ta[k].loss);
	ck_assert_uint_eq(base.final_loss, own.final_loss);
	c.trace = c.fp32_trace = NULL;
	c.fp32_result = NULL;
	ck_assert_uint_eq(a.final_loss, b.final_loss);
	ck_assert_uint_eq(a.relative_difference, b.relative_difference);
	ck_assert_uint_eq(a.nonfinite, b.nonfinite);
	ck_assert_uint_eq(copy.weights_unchanged, b.weights_unchanged);
	c.seed = 8; /* and the seed matters */
	ck_assert_int_eq(fpref_golden_lab_run(&c, &b, err, sizeof err), 0);
	ck_assert_uint_ne(a.final_loss, b.final_loss);
	c.steps = 0;
	ck_assert_int_eq(fpref_golden_lab_run(&c, &b, err, sizeof err), -1);
}
END_TEST

START_TEST(recipe_names)
{
	for (int i = 0; i < FPREF_LAB_RECIPE_COUNT; i++) {
		enum fpref_lab_recipe r;
		ck_assert_int_eq(fpref_golden_lab_recipe_parse(fpref_golden_lab_recipe_name((enum fpref_lab_recipe)i), &r), 0);
		ck_assert_int_eq((int)r, i);
		ck_assert_ptr_nonnull(fpref_golden_lab_recipe_summary(r));
	}
	enum fpref_lab_recipe r;
	ck_assert_int_eq(fpref_golden_lab_recipe_parse("fp4", &r), -1);
}
END_TEST

static Suite *lab_suite(void)
{
	Suite *s = suite_create("lab");
	TCase *p = tcase_create("policy");
	tcase_add_test(p, policy_counts_and_sources);
	tcase_add_test(p, seed_ops);
	suite_add_tcase(s, p);
	TCase *t = tcase_create("lab");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, recipe_names);
	tcase_add_test(t, fp16_underflow_is_silent);
	tcase_add_test(t, fp16_no_master_stalls);
	tcase_add_test(t, fp8_uncalibrated_is_loud);
	tcase_add_test(t, fp8_delayed_is_late);
	tcase_add_test(t, fp8_hybrid_backward);
	tcase_add_test(t, bf16_needs_no_scale);
	tcase_add_test(t, deterministic);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return test_run(lab_suite());
}
