/* fpref — loss scalers: the state machines of PyTorch's GradScaler,
 * DeepSpeed's DynamicLossScaler, Apex amp's dynamic LossScaler and a static
 * scale, and the FP16 gradient path they guard (scale, cast, detect,
 * unscale), all through the emulator so that every scale is bit-exact.
 *
 * Each scaler keeps its scale in the format its framework does: PyTorch in
 * an FP32 tensor, DeepSpeed and Apex in a Python float (FP64); static in
 * FP64.  docs/loss-scaling.md gives the rules and where they come from. */
#ifndef FPREF_LOSSSCALE_H
#define FPREF_LOSSSCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fpref_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

enum fpref_scaler_kind { FPREF_SCALER_PYTORCH, FPREF_SCALER_DEEPSPEED, FPREF_SCALER_APEX, FPREF_SCALER_STATIC };

const char *fpref_emu_scaler_name(enum fpref_scaler_kind k);
int fpref_emu_scaler_parse(const char *name, enum fpref_scaler_kind *k);

/* Every number is an FP64 bit pattern: the Python float the user writes. */
struct fpref_scaler_config {
	enum fpref_scaler_kind kind;
	uint64_t init_scale;     /* PyTorch rounds it to FP32 (torch.full) */
	uint64_t growth_factor;  /* PyTorch; DeepSpeed and Apex use 2.0 */
	uint64_t backoff_factor; /* PyTorch; DeepSpeed and Apex divide by 2.0 */
	int64_t interval;        /* growth_interval, loss_scale_window, scale_window: at least 1 */
	int64_t hysteresis;      /* DeepSpeed's delayed_shift: at least 1 */
	bool consecutive_hysteresis;
	bool raise_at_min;       /* DeepSpeed raise_error_at_min_scale */
	uint64_t min_scale;      /* DeepSpeed min_loss_scale; Apex min_loss_scale (0: none, as Python's falsy None) */
	uint64_t max_scale;      /* Apex max_loss_scale */
	bool static_skips;       /* static: skip non-finite steps (DeepSpeed's FP16 optimizer) or apply them (Apex) */
	const char *profile;     /* the gradient path's environment: NULL for IEEE defaults (rne, canonical quiet
				  * NaN, as on a CPU), or a profile of fpref_profile_apply ("cuda": NaN results
				  * 0x7FFF / 0x7FFFFFFF, as PyTorch's CUDA kernels give them) */
};

/* The framework's defaults: PyTorch 2^16, 2.0, 0.5, 2000; DeepSpeed's fp16
 * config block initial_scale_power 16, window 1000, hysteresis 2,
 * consecutive off, min 1, raise on; Apex 2^16, window 2000, no min, max
 * 2^24; static 1.0, skipping. */
void fpref_emu_scaler_config_default(enum fpref_scaler_kind kind, struct fpref_scaler_config *c);

struct fpref_scaler {
	struct fpref_scaler_config cfg;
	struct fpref_format f32, f64;
	uint64_t scale;             /* bits of fpref_emu_scaler_scale_format */
	int64_t growth_tracker;     /* PyTorch's growth tracker, Apex's _unskipped */
	int64_t cur_iter, last_overflow_iter, cur_hysteresis; /* DeepSpeed */
	bool stopped;               /* DeepSpeed raised "already at minimum": the run has ended */
	/* What a scheduler, an EMA and gradient accumulation must agree on. */
	uint64_t iterations, optimizer_steps, skipped_steps;
};

/* What one update did. */
struct fpref_scaler_step {
	uint64_t scale_used;   /* the scale this iteration's loss was multiplied by */
	uint64_t scale_next;   /* after the update */
	bool overflow;         /* the framework found inf or NaN */
	bool applied;          /* the optimizer stepped */
	bool grew, backed_off;
	bool growth_refused;   /* PyTorch: scale * growth was not finite in FP32, kept the old scale */
	bool hysteresis_spent; /* DeepSpeed: the overflow only lowered cur_hysteresis */
	bool clamped;          /* clamped to the min (DeepSpeed, Apex) or max (Apex) */
	bool raised;           /* DeepSpeed raised at the minimum scale: nothing changed, the run stops */
};

/* 0, or -1 with a message for a bad configuration. */
int fpref_emu_scaler_init(struct fpref_scaler *s, const struct fpref_scaler_config *c, char *err, size_t errlen);
/* Which format the scale is kept in. */
const struct fpref_format *fpref_emu_scaler_scale_format(const struct fpref_scaler *s);
/* One iteration that found inf/NaN (overflow) or not.  Does nothing after
 * a raise (out->raised stays set). */
void fpref_emu_scaler_update(struct fpref_scaler *s, bool overflow, struct fpref_scaler_step *out);
/* Set the scale: an FP64 value, rounded to FP32 for PyTorch (fill_). */
void fpref_emu_scaler_set_scale(struct fpref_scaler *s, uint64_t fp64_bits);
/* PyTorch's update(new_scale): the iteration's update rule is replaced by
 * setting the scale; the growth tracker is left as it was. */
void fpref_emu_scaler_update_to(struct fpref_scaler *s, bool overflow, uint64_t fp64_bits, struct fpref_scaler_step *out);
/* The scale as FP32 (the multiplier of an FP32 loss), and the inverse the
 * framework unscales with: float(1 / double(scale)), as FP32 bits. */
uint64_t fpref_emu_scaler_scale_fp32(const struct fpref_scaler *s);
uint64_t fpref_emu_scaler_inverse_fp32(const struct fpref_scaler *s);

/* ---- gradients ----
 * One iteration's FP32 gradients g (the unscaled, true values) in one or
 * more tensors: h = FP16(FP32(g * S)) under rne, the framework's overflow
 * test on h, and u = FP32(h) * inv (PyTorch keeps h when inv is 1).
 * The fractions count finite nonzero g only: a zero gradient cannot
 * underflow. */
struct fpref_grad_stats {
	size_t values;               /* all gradient values */
	size_t nonzero;              /* finite nonzero g */
	size_t zero_unscaled, subnormal_unscaled; /* FP16(g) without scaling */
	size_t zero_scaled, subnormal_scaled;     /* h */
	size_t nonfinite_scaled;     /* h inf or NaN */
	size_t zero_recovered;       /* u == 0 although g != 0 */
	bool overflow;               /* the framework's verdict for this iteration */
};

/* Add one tensor of n FP32 patterns to the iteration's statistics.  The
 * overflow test is the framework's: PyTorch and Apex (fused kernels) and
 * static: any element of h inf or NaN; DeepSpeed: the FP32 sum of the
 * tensor, added left to right (index 0 first, one FP32 rounding per add)
 * through the emulator, is inf or NaN.  unscaled (n FP32 patterns) may be
 * NULL.  0, or -1 on an invalid pattern. */
int fpref_emu_scaler_check_tensor(const struct fpref_scaler *s, const uint64_t *g, size_t n, uint64_t *unscaled,
			      struct fpref_grad_stats *st);

#ifdef __cplusplus
}
#endif
#endif
