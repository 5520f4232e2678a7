/* fpref — a training lab: one small model trained the way each
 * mixed-precision recipe of the seeds trains it, every tensor operation
 * through the emulator, so that the failures (gradients that underflow,
 * updates swamped without a master copy, FP8 without calibration) show up
 * as measured numbers that are the same on every machine.  docs/lab.md
 * gives the model, the recipes and the measurements. */
#ifndef FPREF_GOLDEN_LAB_H
#define FPREF_GOLDEN_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

enum fpref_lab_recipe {
	FPREF_LAB_FP32,
	FPREF_LAB_BF16,
	FPREF_LAB_FP16_NOSCALE,
	FPREF_LAB_FP16_GRADSCALER,
	FPREF_LAB_FP16_NO_MASTER,
	FPREF_LAB_FP16_WRONG_CAST_ORDER,
	FPREF_LAB_FP8_TENSOR_DELAYED,
	FPREF_LAB_FP8_TENSOR_CURRENT,
	FPREF_LAB_FP8_DEEPSEEK,
	FPREF_LAB_FP8_UNCALIBRATED,
	FPREF_LAB_RECIPE_COUNT
};

const char *fpref_golden_lab_recipe_name(enum fpref_lab_recipe r);
/* What the recipe does, in one line. */
const char *fpref_golden_lab_recipe_summary(enum fpref_lab_recipe r);
int fpref_golden_lab_recipe_parse(const char *name, enum fpref_lab_recipe *r);

/* The model: linear regression Y = X W, X a fresh batch of
 * FPREF_LAB_BATCH x FPREF_LAB_IN each step, W FPREF_LAB_IN x FPREF_LAB_OUT,
 * MSE loss, Adam; the data and the starting weights come from the seed. */
#define FPREF_LAB_BATCH 64
#define FPREF_LAB_IN 256
#define FPREF_LAB_OUT 8
#define FPREF_LAB_DEFAULT_STEPS 60
#define FPREF_LAB_MAX_STEPS 100000
#define FPREF_LAB_SCALE_LOG 32

/* One step of a run, as a picture or a per-step report needs it: the
 * step's own share of the totals of struct fpref_lab_result (summed over
 * the steps, the shares are the totals), and the state after the step. */
struct fpref_lab_step {
	uint32_t loss;            /* FP32 bits: the loss of the step, before its update */
	uint32_t scale;           /* FP32 bits: the loss scale the step used (1 without a scaler) */
	bool skipped;             /* the scaler skipped the update (inf/NaN in the gradients) */
	size_t nonfinite;         /* Inf and NaN values produced in the step */
	size_t grads_nonzero, grads_flushed;
	size_t updates_nonzero, updates_lost;
	size_t fp8_saturated;
	size_t weights_unchanged; /* stored weights still equal to their start after the step */
};

struct fpref_lab_config {
	enum fpref_lab_recipe recipe;
	size_t steps;  /* 1..FPREF_LAB_MAX_STEPS */
	uint64_t seed;
	bool compare;  /* also run fp32 with the same seed and steps, for relative_difference */
	/* outputs, each optional (NULL): the caller's room, filled by the run */
	struct fpref_lab_step *trace;         /* steps entries: each step of the run */
	struct fpref_lab_step *fp32_trace;    /* with compare: steps entries, each step of fp32's run */
	struct fpref_lab_result *fp32_result; /* with compare: fp32's own report */
};

struct fpref_lab_scale_change {
	size_t step;
	uint32_t scale; /* FP32 bits: the scale from this step on */
};

/* A matrix product of the run and what it multiplied: A of in_a, B of
 * in_b, as the library's two-format dot took them.  The model's GEMMs are
 * the forward Y = X W and the weight gradient dW^T = dY^T X (PyTorch's
 * grad_weight = grad_output^T input); it has no dgrad, its input being
 * data whose gradient nothing needs. */
struct fpref_lab_gemm {
	const char *name;    /* "forward", "wgrad" */
	const char *product; /* "Y = X W", "dW^T = dY^T X" */
	const char *a;       /* A: "X", "dY^T" */
	const struct fpref_format *in_a;
	const char *b;       /* B: "W", "X" */
	const struct fpref_format *in_b;
	const char *model;   /* the tensor-core row, or NULL: FP32 FMA chains */
};

#define FPREF_LAB_GEMMS 2

/* Every float is an FP32 bit pattern. */
struct fpref_lab_result {
	size_t steps;
	uint32_t first_loss, final_loss; /* the loss of the first and of the last step, before its update */
	uint32_t fp32_loss;              /* with compare: fp32's final loss */
	uint32_t relative_difference;    /* with compare: |final - fp32| / |fp32|, in FP32 */
	size_t weights, weights_unchanged; /* stored weights (the master, or the FP16 weights) equal at the end to their start */
	size_t updates_nonzero;          /* (weight, step) pairs whose optimizer update was nonzero ... */
	size_t updates_lost;             /* ... and left the stored weight as it was */
	size_t skipped_steps;            /* steps the loss scaler skipped */
	bool scaled;                     /* a loss scaler ran */
	struct fpref_lab_scale_change scale_log[FPREF_LAB_SCALE_LOG]; /* step 0 and every change after, the first ones */
	size_t scale_changes;            /* all changes after step 0 (the log holds the first) */
	uint32_t final_scale;
	size_t nonfinite;                /* Inf and NaN values in the tensors the run produced */
	size_t grads_nonzero;            /* gradient values (of Y and of W) nonzero before their cast to the recipe's format */
	size_t grads_flushed;            /* ... and zero after it */
	size_t fp8_saturated;            /* values beyond the FP8 format's largest finite once scaled (E4M3 448, E5M2 57344), clipped by the cast (TE's recipes) */
	struct fpref_lab_gemm gemms[FPREF_LAB_GEMMS]; /* forward, wgrad */
};

/* Run one recipe.  0, or -1 with a message in err (bad configuration, no
 * memory). */
int fpref_golden_lab_run(const struct fpref_lab_config *c, struct fpref_lab_result *r, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
