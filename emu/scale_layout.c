/* The blocked 128 x 4 scale layout of cuBLAS's 1-D block scaling, as
 * torchao's to_blocked and ModelOpt's swizzle_nvfp4_scales write it: each
 * 128 x 4 tile of scales is 512 contiguous bytes, tiles in row-major order,
 * and inside a tile row r sits at 16 (r % 32) + 4 (r / 32). */
#include <string.h>

#include "fpref_emu_scale_layout.h"

int fpref_emu_scale_swizzled_shape(size_t rows, size_t cols, size_t *out_rows, size_t *out_cols)
{
	if (rows > SIZE_MAX - 127 || cols > SIZE_MAX - 3)
		return -1;
	size_t r = (rows + 127) / 128 * 128, c = (cols + 3) / 4 * 4;
	if (c != 0 && r > SIZE_MAX / c)
		return -1;
	*out_rows = r;
	*out_cols = c;
	return 0;
}

void fpref_emu_scale_swizzle(const uint8_t *scales, size_t rows, size_t cols, uint8_t *out)
{
	size_t pr, pc;
	if (fpref_emu_scale_swizzled_shape(rows, cols, &pr, &pc) != 0)
		return;
	memset(out, 0, pr * pc);
	size_t tiles_per_row = pc / 4;
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++) {
			size_t tile = r / 128 * tiles_per_row + c / 4, i = r % 128;
			out[512 * tile + 16 * (i % 32) + 4 * (i / 32) + c % 4] = scales[r * cols + c];
		}
}
