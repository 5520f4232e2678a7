/* kernels/tcgen05_layout.h without a GPU: the instruction descriptors the
 * tcgen05 kernels pass, against values worked out by hand from the PTX
 * ISA's descriptor tables; the shared memory descriptor's fields; the
 * tile packing against an independent model read from the descriptor's
 * bits; and the sub-byte packing against a bit-by-bit reader.  What this
 * cannot check is whether the hardware reads the layouts this way: only a
 * Blackwell run can (kernels/README.md, "tcgen05"). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "tcgen05_layout.h"
#include "testutil.h"

/* Hand-worked from the tables (bit positions in fk_tc5_idesc's comment),
 * M = N = 128: N >> 3 = 16 at bit 17 is 0x00200000; unscaled M >> 4 = 8 at
 * bit 24 is 0x08000000, dtype F32 0x10; scaled M >> 7 = 1 at bit 27 is
 * 0x08000000 too, UE8M0 at bit 23 0x00800000; atype t at 7 and btype t at
 * 10 add t * 0x480. */
START_TEST(instruction_descriptors)
{
	static const uint32_t want[FK_TC5_VARIANTS] = {
		[FK_TC5_F16_F32] = 0x08200010,  [FK_TC5_F16_F16] = 0x08200000,  [FK_TC5_BF16_F32] = 0x08200490,
		[FK_TC5_TF32_F32] = 0x08200910, [FK_TC5_E4M3_F32] = 0x08200010, [FK_TC5_E5M2_F32] = 0x08200490,
		[FK_TC5_E4M3_F16] = 0x08200000, [FK_TC5_E5M2_F16] = 0x08200480, [FK_TC5_E3M2_F32] = 0x08201210,
		[FK_TC5_E2M3_F32] = 0x08200D90, [FK_TC5_E2M1_F32] = 0x08201690, [FK_TC5_MX_E4M3] = 0x08A00000,
		[FK_TC5_MX_E5M2] = 0x08A00480,  [FK_TC5_MX_E3M2] = 0x08A01200,  [FK_TC5_MX_E2M3] = 0x08A00D80,
		[FK_TC5_MX_E2M1] = 0x08A01680,  [FK_TC5_NVF4_4X_UE4M3] = 0x08200480, [FK_TC5_MXF4NVF4_2X_UE8M0] = 0x08A00480,
		[FK_TC5_MXF4_2X_UE8M0] = 0x08A00480,
	};
	for (int i = 0; i < FK_TC5_VARIANTS; i++)
		ck_assert_msg(fk_tc5_idesc(&fk_tc5_variants[i], 128, 128) == want[i], "%s: idesc %08X, by hand %08X",
			      fk_tc5_variants[i].name, fk_tc5_idesc(&fk_tc5_variants[i], 128, 128), want[i]);
	/* Another shape moves only the shape fields: M = 64 (unscaled), N = 8. */
	ck_assert_uint_eq(fk_tc5_idesc(&fk_tc5_variants[FK_TC5_F16_F32], 64, 8), 0x04020010);
}
END_TEST

/* Start 0x400 -> 0x40, LBO 128 -> 8 << 16, SBO 256 -> 16 << 32, bit 46. */
START_TEST(smem_descriptor)
{
	ck_assert_uint_eq(fk_tc5_smem_desc(0x400, FK_TC5_LBO, FK_TC5_SBO), 0x0000401000080040ull);
	/* Only bits 4..17 of the address count. */
	ck_assert_uint_eq(fk_tc5_smem_desc(0x4040F, 0, 0) & 0x3FFF, 0x40);
	ck_assert_uint_eq(fk_tc5_smem_desc(0, 0, 0) >> 61, 0); /* no swizzle */
}
END_TEST

/* The canonical no-swizzle K-major layout read from a descriptor's fields
 * alone: element (row, 16-byte column) of the 8 x 2 core-matrix grid at
 * (row % 8) * 16 + (row / 8) * SBO + (column) * LBO. */
static unsigned model_offset(uint64_t desc, unsigned row, unsigned kbyte)
{
	unsigned lbo = (unsigned)((desc >> 16) & 0x3FFF) * 16, sbo = (unsigned)((desc >> 32) & 0x3FFF) * 16;
	return (row % 8) * 16 + (row / 8) * sbo + (kbyte / 16) * lbo + kbyte % 16;
}

START_TEST(tile_offsets)
{
	uint64_t desc = fk_tc5_smem_desc(0, FK_TC5_LBO, FK_TC5_SBO);
	unsigned char *seen = calloc(FK_TC5_TILE_BYTES, 1);
	ck_assert_ptr_nonnull(seen);
	for (unsigned r = 0; r < FK_TC5_ROWS; r++)
		for (unsigned kb = 0; kb < FK_TC5_KBYTES; kb++) {
			unsigned o = fk_tc5_offset(r, kb);
			ck_assert_uint_eq(o, model_offset(desc, r, kb));
			ck_assert_uint_lt(o, FK_TC5_TILE_BYTES);
			ck_assert_int_eq(seen[o], 0);
			seen[o] = 1;
		}
	free(seen);
}
END_TEST

/* Bit b of a byte array, little-endian. */
static unsigned bit_at(const uint8_t *p, unsigned b)
{
	return (unsigned)(p[b / 8] >> (b % 8)) & 1u;
}

/* Every variant: the K elements come back from where the packing notes
 * say, and every other bit (the padding) is zero. */
START_TEST(row_packing)
{
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	for (int v = 0; v < FK_TC5_VARIANTS; v++) {
		const struct fk_tc5_variant *var = &fk_tc5_variants[v];
		unsigned width = 0, stride = 0, chunk_pad = 0;
		switch (var->packing) {
		case FK_TC5_PACK_B32: width = stride = 32; break;
		case FK_TC5_PACK_B16: width = stride = 16; break;
		case FK_TC5_PACK_B8: width = stride = 8; break;
		case FK_TC5_PACK_B6X16_P32: width = stride = 6; chunk_pad = 32; break;
		case FK_TC5_PACK_B4X16_P64: width = stride = 4; chunk_pad = 64; break;
		case FK_TC5_PACK_B4: width = stride = 4; break;
		}
		ck_assert_uint_eq(var->k * stride + var->k / 16 * chunk_pad, FK_TC5_KBYTES * 8);
		for (int rep = 0; rep < 64; rep++) {
			uint64_t e[64];
			uint8_t out[FK_TC5_KBYTES], used[FK_TC5_KBYTES * 8] = { 0 };
			for (unsigned i = 0; i < var->k; i++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				e[i] = rep == 0 ? ~0ull : (seed >> 33) & ((width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1));
			}
			fk_tc5_pack_row(var, e, out);
			for (unsigned i = 0; i < var->k; i++) {
				unsigned start = chunk_pad ? i / 16 * 128 + i % 16 * width : i * stride;
				uint64_t got = 0;
				for (unsigned b = 0; b < width; b++) {
					got |= (uint64_t)bit_at(out, start + b) << b;
					used[start + b] = 1;
				}
				uint64_t mask = width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
				ck_assert_msg(got == (e[i] & mask), "%s: element %u", var->name, i);
			}
			for (unsigned b = 0; b < FK_TC5_KBYTES * 8; b++)
				ck_assert_msg(used[b] || !bit_at(out, b), "%s: padding bit %u set", var->name, b);
		}
	}
}
END_TEST

/* E8M0 0x7F = 2^(127 - 127); UE4M3 0x38 = exponent 7 - bias 7, fraction 0. */
START_TEST(unit_scales)
{
	ck_assert_uint_eq(fk_tc5_unit_scale_word(&fk_tc5_variants[FK_TC5_MX_E4M3]), 0x7F7F7F7Fu);
	ck_assert_uint_eq(fk_tc5_unit_scale_word(&fk_tc5_variants[FK_TC5_MXF4_2X_UE8M0]), 0x7F7F7F7Fu);
	ck_assert_uint_eq(fk_tc5_unit_scale_word(&fk_tc5_variants[FK_TC5_NVF4_4X_UE4M3]), 0x38383838u);
	/* The scale columns sit inside the allocation, clear of D's 128. */
	ck_assert_uint_ge(FK_TC5_SFA_COL, FK_TC5_ROWS);
	ck_assert_uint_ge(FK_TC5_SFB_COL, FK_TC5_SFA_COL + FK_TC5_SF_COLS);
	ck_assert_uint_le(FK_TC5_SFB_COL + FK_TC5_SF_COLS, FK_TC5_TMEM_COLS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tcgen05_layout");
	TCase *tc = tcase_create("layout");
	tcase_add_test(tc, instruction_descriptors);
	tcase_add_test(tc, smem_descriptor);
	tcase_add_test(tc, tile_offsets);
	tcase_add_test(tc, row_packing);
	tcase_add_test(tc, unit_scales);
	suite_add_tcase(s, tc);
	return test_run(s);
}
