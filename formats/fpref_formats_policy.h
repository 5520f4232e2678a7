/* fpref — mixed-precision policies as data: the op lists that PyTorch's
 * autocast, TensorFlow's auto mixed precision (NVIDIA's TF-AMP) and the
 * BF16 arrangements of TPUs and Intel CPUs publish, each entry with the
 * document it comes from.  No arithmetic: what precision an op runs in is a
 * lookup (formats/policy.c has the lists and their sources). */
#ifndef FPREF_FORMATS_POLICY_H
#define FPREF_FORMATS_POLICY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a list does to its ops. */
enum fpref_policy_kind {
	FPREF_POLICY_LOWER,   /* run in the policy's lower precision (float16, bfloat16, the BF16 units) */
	FPREF_POLICY_FP32,    /* run in float32 */
	FPREF_POLICY_WIDEST,  /* promote to the widest input type */
	FPREF_POLICY_INFER,   /* TF-AMP infer: lower when the inputs are lower */
	FPREF_POLICY_CLEAR    /* TF-AMP clear: the input's type */
};

/* One list of a framework: its ops and what they run in. */
struct fpref_policy_list {
	const char *name;      /* "float16", "float32", "promote", "allow", ... */
	enum fpref_policy_kind kind;
	const char *precision; /* what a listed op runs in, in words */
	const char *const *ops;
	size_t count;
	const char *source;    /* the document (and its section) that publishes the list */
};

struct fpref_policy {
	const char *framework; /* pytorch-cuda, pytorch-cpu, nvidia-amp, tpu-bf16, intel-bf16 */
	const char *summary;
	const struct fpref_policy_list *lists;
	size_t nlists;
	const char *unlisted; /* what an op on no list does */
};

size_t fpref_policy_count(void);
const struct fpref_policy *fpref_policy_at(size_t i);
/* The framework by name, or NULL. */
const struct fpref_policy *fpref_policy_find(const char *framework);
/* The list of p that names op (exact, case-sensitive: the frameworks'
 * own spellings), or NULL when p lists it nowhere. */
const struct fpref_policy_list *fpref_policy_lookup(const struct fpref_policy *p, const char *op);

#ifdef __cplusplus
}
#endif
#endif
