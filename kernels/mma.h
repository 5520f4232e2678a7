/* The mma.sync shapes of fpref-cuda's MMA kernels. */
#ifndef FPREF_KERNELS_MMA_H
#define FPREF_KERNELS_MMA_H

enum fk_mma {
	FK_MMA_F16_F32, FK_MMA_F16_F16, FK_MMA_BF16_F32, FK_MMA_TF32_F32,
	FK_MMA_E4M3_F32, FK_MMA_E4M3_F16, FK_MMA_E5M2_F32, FK_MMA_E5M2_F16,
	/* A and B of two FP8 formats (E5M2 gradients x E4M3 weights, and the
	 * reverse): the A-then-B order of the instruction's type suffixes */
	FK_MMA_E5M2_E4M3_F32, FK_MMA_E5M2_E4M3_F16, FK_MMA_E4M3_E5M2_F32, FK_MMA_E4M3_E5M2_F16
};

#endif
