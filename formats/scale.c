/* Scaling recipes as data: parameter checks and the delayed quantiser's
 * storage.  The arithmetic lives in emu/scale.c and ref/scale.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpref_formats_scale.h"

int fpref_scale_element_check(const struct fpref_format *element, char *err, size_t errlen)
{
	if (element && (strcmp(element->name, "float8_e4m3fn") == 0 || strcmp(element->name, "float8_e5m2") == 0))
		return 0;
	snprintf(err, errlen, "the scaling recipes quantise to float8_e4m3fn or float8_e5m2, not %s",
		 element ? element->name : "(none)");
	return -1;
}

/* eps must be a nonnegative finite FP32 pattern: a floor of an amax. */
static int eps_check(uint32_t eps, char *err, size_t errlen)
{
	if (eps < 0x7F800000u)
		return 0;
	snprintf(err, errlen, "amax epsilon 0x%08X is not a nonnegative finite float32", (unsigned)eps);
	return -1;
}

int fpref_current_params_check(const struct fpref_current_params *p, char *err, size_t errlen)
{
	if (fpref_scale_element_check(p->element, err, errlen) != 0)
		return -1;
	return eps_check(p->eps, err, errlen);
}

int fpref_block_params_check(const struct fpref_block_params *p, char *err, size_t errlen)
{
	if (fpref_scale_element_check(p->element, err, errlen) != 0)
		return -1;
	if (p->block_rows == 0 || p->block_cols == 0) {
		snprintf(err, errlen, "block dimensions must be positive");
		return -1;
	}
	if (p->recipe == FPREF_BLOCK_DEEPSEEK && strcmp(p->element->name, "float8_e4m3fn") != 0) {
		snprintf(err, errlen, "DeepSeek-V3 scaling is E4M3 everywhere (s = amax / 448), not %s", p->element->name);
		return -1;
	}
	if (p->recipe == FPREF_BLOCK_DEEPSEEK && p->pow2) {
		snprintf(err, errlen, "DeepSeek-V3 scales (amax / fp8_max) have no power-of-two option");
		return -1;
	}
	return eps_check(p->eps, err, errlen);
}

int fpref_delayed_init(struct fpref_delayed_state *s, const struct fpref_delayed_params *p, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	if (fpref_scale_element_check(p->element, err, errlen) != 0)
		return -1;
	if (p->history_len == 0 || p->history_len > ((size_t)1 << 24)) {
		snprintf(err, errlen, "amax history length must be 1 to 16777216, not %zu", p->history_len);
		return -1;
	}
	/* TE computes 2^-margin in float: integer margins up to 126 keep it a normal power of two. */
	if (p->margin < 0 || p->margin > 126) {
		snprintf(err, errlen, "margin must be an integer 0 to 126, not %d", p->margin);
		return -1;
	}
	s->history = calloc(p->history_len, sizeof *s->history);
	if (!s->history) {
		snprintf(err, errlen, "out of memory for an amax history of %zu", p->history_len);
		return -1;
	}
	s->params = *p;
	s->scale = FPREF_F32_ONE;
	s->scale_inv = FPREF_F32_ONE;
	return 0;
}

void fpref_delayed_free(struct fpref_delayed_state *s)
{
	free(s->history);
	s->history = NULL;
}

size_t fpref_scale_blocks(size_t n, size_t block)
{
	return n / block + (n % block != 0);
}

const char *fpref_amax_algo_name(enum fpref_amax_algo a)
{
	return a == FPREF_AMAX_MAX ? "max" : "most_recent";
}

int fpref_amax_algo_parse(const char *s, enum fpref_amax_algo *out)
{
	if (strcmp(s, "max") == 0)
		*out = FPREF_AMAX_MAX;
	else if (strcmp(s, "most_recent") == 0)
		*out = FPREF_AMAX_MOST_RECENT;
	else
		return -1;
	return 0;
}

bool fpref_amax_nan_ignored(enum fpref_amax_nan p, bool te)
{
	return p == FPREF_AMAX_NAN_IGNORE || (p == FPREF_AMAX_NAN_DEFAULT && te);
}

int fpref_amax_nan_parse(const char *s, enum fpref_amax_nan *out)
{
	if (strcmp(s, "ignore") == 0)
		*out = FPREF_AMAX_NAN_IGNORE;
	else if (strcmp(s, "propagate") == 0)
		*out = FPREF_AMAX_NAN_PROPAGATE;
	else
		return -1;
	return 0;
}
