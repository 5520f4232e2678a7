/* The kernels of fpref-cuda: what each runs on, which golden file it
 * answers, and how it is run. Host-side C++ (nvcc). */
#ifndef FPREF_KERNELS_KERNELS_H
#define FPREF_KERNELS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "io.h"

enum fk_status { FK_OK = 0, FK_UNSUPPORTED = 1, FK_ERROR = -1 };

/* fk_run_hopper's selector: which external function runs the kernel. */
enum fk_hopper { FK_HOPPER_WGMMA };

struct fk_job {
	const struct fk_golden *golden;
	uint64_t *out;    /* one result pattern per golden line */
	char path[160];   /* which code path the device took, for the header */
};

struct fk_kernel {
	const char *name;    /* --kernel NAME */
	const char *golden;  /* its golden file, relative to the golden folder */
	const char *formats; /* the golden's '# formats' must end with this */
	int min_cc;          /* least compute capability (major * 10 + minor) */
	int (*run)(const struct fk_kernel *k, struct fk_job *job, char *err, size_t errlen);
	int arg;             /* the run function's selector (conversion or MMA id) */
	const char *what;    /* the instruction or intrinsic, for people */
};

/* The table, in kernels.cu. */
extern const struct fk_kernel fk_kernels[];
extern const size_t fk_kernel_count;

int fk_run_convert(const struct fk_kernel *k, struct fk_job *job, char *err, size_t errlen);
int fk_run_mma(const struct fk_kernel *k, struct fk_job *job, char *err, size_t errlen);
int fk_run_hopper(const struct fk_kernel *k, struct fk_job *job, char *err, size_t errlen);
int fk_run_tcgen05(const struct fk_kernel *k, struct fk_job *job, char *err, size_t errlen);

/* Checked CUDA call: on failure, a message with the call and the error,
 * and FK_ERROR from the enclosing function. */
#define FK_CUDA(call)                                                                                  \
	do {                                                                                           \
		cudaError_t fk_e_ = (call);                                                            \
		if (fk_e_ != cudaSuccess) {                                                            \
			snprintf(err, errlen, "%s failed: %s (%s)", #call, cudaGetErrorString(fk_e_),  \
				 cudaGetErrorName(fk_e_));                                             \
			return FK_ERROR;                                                               \
		}                                                                                      \
	} while (0)

#endif
