/* fpref — where a block-scaled tensor's scales sit in memory: row-major
 * (fpref's own), or the blocked 128 x 4 layout that cuBLAS reads for 1-D
 * block scaling (MX and NVFP4), which torchao (to_blocked) and NVIDIA
 * ModelOpt (swizzle_nvfp4_scales) write.  docs/scaling-mx.md, "Scale
 * layouts". */
#ifndef FPREF_EMU_SCALE_LAYOUT_H
#define FPREF_EMU_SCALE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The swizzled shape of a rows x cols scale matrix: rows padded to a
 * multiple of 128, cols to a multiple of 4.  0, or -1 if it overflows. */
int fpref_emu_scale_swizzled_shape(size_t rows, size_t cols, size_t *out_rows, size_t *out_cols);

/* out[out_rows * out_cols] = the row-major scales in cuBLAS's blocked
 * layout: the scale at (r, c) goes to 512 (r / 128 * out_cols / 4 + c / 4)
 * + 16 (r % 32) + 4 (r % 128 / 32) + c % 4; the padding is zero. */
void fpref_emu_scale_swizzle(const uint8_t *scales, size_t rows, size_t cols, uint8_t *out);

#ifdef __cplusplus
}
#endif
#endif
