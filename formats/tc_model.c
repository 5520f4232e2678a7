/* The tensor-core model rows (parameters and their sources) and the names
 * of the plain accumulation orders: data, nothing else. */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "fpref_formats_tc_model.h"

#define KM "Khattak & Mikaitis, arXiv:2512.07004"
#define FP8 "float8_e4m3fn,float8_e5m2"
#define XIE "Xie et al., arXiv:2511.10909 (MMA-Sim)"
#define CDNA4 "AMD CDNA4 ISA guide and ROCm blog (matrix-cores-cdna)"
#define NONE FPREF_TC_NO_FLOOR
#define F8F6F4 FP8 ",float6_e3m2fn,float6_e2m3fn,float4_e2m1fn"
#define H200 "; measured on an H200 (docs/accumulation.md, tests/data/h200-*.txt)"
/* Volta, Ampere and Ada give +0 for zero results as Hopper does: the
 * independent model validated on those GPUs (issue 37, class Z1); the
 * tc-hw data pass either way. */
#define ZERO_XIE "; +0 for zero results: " XIE
/* h100 is the preset golden/vectors pins: FP8 with FP32 output from the
 * WGMMA unit, FP8 with FP16 output as mma.sync lowers it.  h100-mma and
 * h100-wgmma are what each instruction gives on sm_90 for every output. */
static const struct fpref_tc_model models[] = {
	{ "v100", "float16", 4, 23, FPREF_TC_NO_FLOOR, -19, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0, KM " (V100)" ZERO_XIE, true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "a100", "float16,bfloat16", 8, 24, -132, -20, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0, KM " (A100)" ZERO_XIE, true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "a100", "tf32", 4, 24, -132, -20, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (A100)" ZERO_XIE, true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "h100", "float16,bfloat16", 16, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0, KM " (H100)", true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "h100", "tf32", 8, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (H100)", true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "h100", FP8, 32, 13, -133, -133, FPREF_RTZ, FPREF_RNE, FP8, 32, "float16", 2,
	  KM " (H100 FP8: the 14-bit accumulator); FP16 output: mma.sync as the compiler lowers it for sm_90, "
	     "found by matching the published H100 measurements (" KM ", model_validation) and the SASS of that instruction", true, 0, 0, 0, 0, 0, 0, false, true, true, false, false, false, false, false },
	{ "h100-mma", "float16,bfloat16", 16, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0,
	  KM " (H100)" H200, true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "h100-mma", "tf32", 8, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (H100)" H200, true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "h100-mma", FP8, 32, 13, -133, -133, FPREF_RTZ, FPREF_RNE, FP8, 32, "float16,float32", 2,
	  "mma.sync FP8 as the compiler lowers it for sm_90, both outputs: FP16 HMMA blocks, then C added" H200, true, 0, 0, 0, 0, 0, 0, false, true, true, false, false, false, false, false },
	{ "h100-wgmma", "float16,bfloat16", 16, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0,
	  KM " (H100)" H200, true, 0, 0, 0, 0, 0, 0, false, false, true, true, false, false, false, false },
	{ "h100-wgmma", "tf32", 8, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (H100; not measured here)", true, 0, 0, 0, 0, 0, 0, false, false, true, true, false, false, false, false },
	{ "h100-wgmma", FP8, 32, 13, -133, -133, FPREF_RTZ, FPREF_RNE, FP8, 0, NULL, 0,
	  KM " (H100 FP8: the 14-bit accumulator); FP16 output: the same block rounded to nearest even, C in the "
	     "block" H200, true, 0, 0, 0, 0, 0, 0, false, true, true, true, false, false, false, false },
	/* Turing (sm_75): mma.sync m16n8k8 f16 as one block of 8 with 24
	 * fraction bits, the published model's (validated on a Turing GPU);
	 * m8n8k4 (--shape) chains blocks of 4 of the same unit, as that model
	 * takes it, not measured on its own.  No floor (the model's: the
	 * targeted vectors that found V100's and A100's FP16-output floors did
	 * not cover Turing); +0 and all-ones NaN as on the other NVIDIA rows. */
	{ .gpu = "turing", .inputs = "float16", .block = 8, .frac = 24, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RTZ, .round_fp16 = FPREF_RNE, .fp16_inputs = "float16",
	  .source = XIE " (Turing mma.sync m16n8k8 f16: one block of 8, 24 fraction bits); no FP16-output floor measured",
	  .zero_positive = true, .nan_ones = true },
	{ "ada", "float16,bfloat16", 8, 24, -132, -132, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0, KM " (Ada)" ZERO_XIE, true, 0, 0, 0, 0, 0, 0, false, false, true, true, false, false, false, false },
	{ "ada", "tf32", 4, 24, -132, -132, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0, KM " (Ada)" ZERO_XIE, true, 0, 0, 0, 0, 0, 0, false, false, true, true, false, false, false, false },
	{ "ada", FP8, 16, 13, -132, -132, FPREF_RTZ, FPREF_RNE, FP8, 0, NULL, 0, KM " (Ada FP8)" ZERO_XIE, true, 0, 0, 0, 0, 0, 0, false, true, true, true, false, false, false, false },
	/* ---- Blackwell and AMD CDNA: instruction-level presets (docs/accumulation.md,
	 * "Blackwell" and "AMD Instinct").  Parameters from Xie et al.'s published
	 * models (MMA-Sim); floors none there (their alignment has none);
	 * zero_positive on the NVIDIA rows: their arithmetic gives +0 for every
	 * zero result, as the H200 does (not measured on these chips here); the
	 * CDNA rows take IEEE's sign, as the model validated on CDNA3 gives it
	 * (issue 37, Z2; CDNA4's inferred from CDNA3's).  FP6/FP4 inputs of the
	 * unscaled and mxf8f6f4 kinds: the FP8 row's parameters, inferred (the
	 * published model was validated on FP8 only). ---- */
	{ "tcgen05", "float16,bfloat16", 16, 25, NONE, NONE, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0,
	  XIE " (tcgen05.mma kind::f16, K = 16 in one block)", true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "tcgen05", "tf32", 8, 25, NONE, NONE, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0,
	  XIE " (tcgen05.mma kind::tf32, K = 8 in one block)", true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	/* FP16 output for every f8f6f4 pair, FP6 and FP4 too: the PTX ISA names
	 * .dtype apart from the operand types (mma.sync: ".e4m3 or .e5m2 or
	 * .e3m2 or .e2m3 or .e2m1" with accumulators ".f16, .f32"; tcgen05:
	 * the instruction descriptor's dtype and atype/btype fields); the
	 * FP8 pairs' FP16 floor and rounding, as MMA-Sim runs them */
	{ "tcgen05", F8F6F4, 32, 25, NONE, NONE, FPREF_RTZ, FPREF_RNE, F8F6F4, 0, NULL, 0,
	  XIE " (tcgen05.mma kind::f8f6f4, K = 32 in one block, 25 bits where Hopper's FP8 unit keeps 13)", true, 0, 0, 0, 0, 0, 0, false, true, true, false, false, false, false, false },
	{ .gpu = "tcgen05-mxf8f6f4", .inputs = F8F6F4, .block = 32, .frac = 25, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RTZ, .round_fp16 = FPREF_RTZ, .fp16_inputs = "",
	  .source = XIE " (tcgen05.mma kind::mxf8f6f4.block_scale, E8M0 per 32: the scales move each product's exponent)",
	  .zero_positive = true, .mixed = true, .nan_ones = true },
	{ .gpu = "tcgen05-mxf4nvf4", .inputs = "float4_e2m1fn", .block = 64, .frac = 35, .floor_fp32 = NONE,
	  .floor_fp16 = NONE, .round_fp32 = FPREF_RTZ, .round_fp16 = FPREF_RTZ, .fp16_inputs = "",
	  .source = XIE " (tcgen05.mma kind::mxf4nvf4 and kind::mxf4, K = 64: four exact groups of 16, each times its "
			"scales, 35 fraction bits)",
	  .zero_positive = true, .group = 16, .nan_ones = true },
	/* mma.sync on sm_100: the sm_90 lowering of FP8 (SASS) over an FP16 unit of
	 * the published Blackwell parameters (n = K, F = 25); its floors are the
	 * H100's (Khattak & Mikaitis), not published for Blackwell: inferred */
	{ "mma-sm100", "float16,bfloat16", 16, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0,
	  XIE " (Blackwell mma.sync m16n8k16); floors of " KM " (H100), inferred", true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "mma-sm100", "tf32", 8, 25, -133, -21, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0,
	  XIE " (Blackwell mma.sync m16n8k8); floors of " KM " (H100), inferred", true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "mma-sm100", FP8, 32, 13, -133, -133, FPREF_RTZ, FPREF_RNE, FP8, 32, "float16,float32", 2,
	  "mma.sync FP8 as CUDA 13.0 lowers it for sm_100a: the sm_90 lowering (F2FP, two HMMA.16816, HADD2 / FADD; "
	  "SASS read here, docs/accumulation.md), over this row's FP16 unit; not run on a GPU",
	  true, 0, 0, 0, 0, 0, 0, false, true, true, false, false, false, false, false },
	{ "mma-sm120", "float16,bfloat16", 16, 25, NONE, NONE, FPREF_RTZ, FPREF_RNE, "float16", 0, NULL, 0,
	  XIE " (RTX Blackwell mma.sync m16n8k16)", true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "mma-sm120", "tf32", 8, 25, NONE, NONE, FPREF_RTZ, FPREF_RNE, "", 0, NULL, 0,
	  XIE " (RTX Blackwell mma.sync m16n8k8)", true, 0, 0, 0, 0, 0, 0, false, false, true, false, false, false, false, false },
	{ "mma-sm120", F8F6F4, 32, 25, NONE, NONE, FPREF_RTZ, FPREF_RNE, F8F6F4, 0, NULL, 0,
	  XIE " (RTX Blackwell mma.sync m16n8k32 kind::f8f6f4: native, one block; CUDA 13.0 emits QMMA.16832 for sm_120a)",
	  true, 0, 0, 0, 0, 0, 0, false, true, true, false, false, false, false, false },
	{ .gpu = "mfma-cdna3", .inputs = "float16,bfloat16", .block = 8, .frac = 24, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = XIE " (CDNA3 v_mfma_f32_*_f16 / _bf16, K >= 8: groups of 8, two-stage dot-add rounded down)",
	  .halves = 1, .sum_frac = 31, .c_frac = 24, .product_inf = true },
	{ .gpu = "mfma-cdna3", .inputs = "tf32", .block = 4, .frac = 24, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = XIE " (CDNA3 v_mfma_f32_*_xf32: FP32 inputs truncated to TF32 (give them as tf32), groups of 4)",
	  .halves = 1, .sum_frac = 31, .c_frac = 24, .product_inf = true },
	{ .gpu = "mfma-cdna3", .inputs = "float8_e4m3fnuz,float8_e5m2fnuz", .block = 16, .frac = 24, .floor_fp32 = NONE,
	  .floor_fp16 = NONE, .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = XIE " (CDNA3 v_mfma_f32_*_fp8 / _bf8, FNUZ encodings: groups of 16 in two interleaved halves)",
	  .halves = 2, .sum_frac = 31, .c_frac = 24, .c_drop = 25, .mixed = true },
	/* CDNA4 (MI355X, MI350X): no bit-level model is published.  What AMD says
	 * (ROCm blog "Matrix Core Programming on AMD CDNA3 and CDNA4
	 * architecture", 2025, and the CDNA4 ISA guide it cites): OCP E4M3 /
	 * E5M2 (not CDNA3's FNUZ), FP6 and FP4 inputs, independently for A and
	 * B, FP32 output; v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4 take one
	 * E8M0 scale per 32 elements of a row of A and of a column of B, and
	 * "the scales are applied after the normal dot product and prior to
	 * output/accumulation".  Everything else (groups of 16 in two halves,
	 * F = 24, the sum floored to 31 bits and C to 24, a small C dropped,
	 * rne) is CDNA3's FP8 row, inferred; so are the f16 / bf16 rows (CDNA3's,
	 * for the CDNA4 f16 / bf16 instructions).  docs/accumulation.md,
	 * "CDNA4". */
	{ .gpu = "mfma-cdna4", .inputs = "float16,bfloat16", .block = 8, .frac = 24, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = CDNA4 " (v_mfma_f32_*_f16 / _bf16); CDNA3's row of " XIE ", inferred",
	  .halves = 1, .sum_frac = 31, .c_frac = 24, .product_inf = true },
	{ .gpu = "mfma-cdna4", .inputs = F8F6F4, .block = 16, .frac = 24, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = CDNA4 " (v_mfma_f32_*_f8f6f4 and _fp8/_bf8, OCP encodings); CDNA3's FP8 row of " XIE ", inferred",
	  .halves = 2, .sum_frac = 31, .c_frac = 24, .c_drop = 25, .mixed = true },
	{ .gpu = "mfma-cdna4-scale", .inputs = F8F6F4, .block = 16, .frac = 24, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = CDNA4 " (v_mfma_scale_f32_*_f8f6f4, E8M0 per 32, applied to each dot product before the "
			  "accumulation); CDNA3's FP8 row of " XIE ", inferred",
	  .halves = 2, .sum_frac = 31, .c_frac = 24, .c_drop = 25, .mixed = true },
	{ .gpu = "mfma-cdna1", .inputs = "float16", .block = 4, .frac = 23, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = XIE " (CDNA1 v_mfma_f32_*f16: each group of 4 products and C summed exactly, rounded once to "
			"FP32: the model's MMA_E_FDPA, mmasim 2.0.0 to 2.1.1)",
	  .tree = 1, .fused = true },
	{ .gpu = "mfma-cdna1", .inputs = "bfloat16", .block = 2, .frac = 23, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = XIE " (CDNA1 v_mfma_f32_*bf16: each group of 2 products and C summed exactly, rounded once to "
			"FP32: the model's MMA_E_FDPA, mmasim 2.0.0 to 2.1.1)",
	  .tree = 1, .fused = true },
	{ .gpu = "mfma-cdna2", .inputs = "float16", .block = 4, .frac = 23, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = XIE " (CDNA2 v_mfma_f32_*f16: FP32 pairwise sums of groups of 4, subnormals flushed)", .tree = 1,
	  .flush = true },
	{ .gpu = "mfma-cdna2-legacy", .inputs = "bfloat16", .block = 2, .frac = 23, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = XIE " (CDNA2 v_mfma_f32_*bf16 without _1k, CDNA1's encodings: FP32 pairwise sums of groups of 2, "
			"subnormals flushed as CDNA2's _1k)",
	  .tree = 1, .flush = true },
	{ .gpu = "mfma-cdna2", .inputs = "bfloat16", .block = 4, .frac = 23, .floor_fp32 = NONE, .floor_fp16 = NONE,
	  .round_fp32 = FPREF_RNE, .round_fp16 = FPREF_RNE, .fp16_inputs = "",
	  .source = XIE " (CDNA2 v_mfma_f32_*bf16_1k: groups of 4, subnormals flushed)", .tree = 1, .flush = true },
	/* BF16 units outside NVIDIA (issue 21): one exact product per rounding
	 * into the FP32 accumulator, rne.  With blocks of 1 and 36 fraction
	 * bits the one rounding sees the product truncated 36 bits below the
	 * larger exponent, where an FMA keeps a sticky bit: it differs from an
	 * FP32 FMA chain only when a product lies more than 12 bits below the
	 * accumulator's last place and tips a tie.  Not modelled: the DAZ and
	 * FTZ of Intel's instructions, the order of TDPBF16PS's pairs. */
	{ "tpu-bf16", "bfloat16", 1, 36, FPREF_TC_NO_FLOOR, FPREF_TC_NO_FLOOR, FPREF_RNE, FPREF_RNE, "", 0, NULL, 0,
	  "Google Cloud blog, BFloat16: the secret to high performance on Cloud TPUs (bfloat16 multiplies, IEEE "
	  "float32 accumulation)", false, 0, 0, 0, 0, 0, 0, false, false, false, false, false, false, false, false },
	{ "intel-bf16", "bfloat16", 1, 36, FPREF_TC_NO_FLOOR, FPREF_TC_NO_FLOOR, FPREF_RNE, FPREF_RNE, "", 0, NULL, 0,
	  "Intel SDM, TDPBF16PS / VDPBF16PS (FP32 FMA per product, rne)", false, 0, 0, 0, 0, 0, 0, false, false, false, false, false, false, false, false },
};

/* Chips by the instruction presets their GEMMs run (docs/tensor-cores.md's chip table); the
 * published models name the architecture, so a chip maps only where its
 * architecture is the one measured or modelled: every sm_90 part runs
 * Hopper's tensor cores (the project's own measurements were taken on an
 * H200), every sm_89 part Ada's, GA100 parts the A100's, GV100 the V100's,
 * TU10x (sm_75) Turing's.  GA10x (sm_86) parts have no preset, so no
 * alias. */
static const struct {
	const char *chip, *preset;
} chips[] = {
	{ "v100s", "v100" },            { "titan-v", "v100" },
	{ "t4", "turing" },             { "titan-rtx", "turing" },      { "rtx-2080-ti", "turing" },
	{ "quadro-rtx-8000", "turing" },
	{ "a800", "a100" },             { "a30", "a100" },
	{ "h200", "h100" },             { "h800", "h100" },             { "h20", "h100" },
	{ "gh200", "h100" },            { "h100-sxm", "h100" },         { "h100-pcie", "h100" },
	{ "l40s", "ada" },              { "l40", "ada" },               { "l4", "ada" },
	{ "rtx-6000-ada", "ada" },      { "rtx-4090", "ada" },          { "rtx-4080", "ada" },
	{ "b200", "tcgen05" },          { "gb200", "tcgen05" },
	{ "rtx-pro-6000", "mma-sm120" }, { "rtx-5090", "mma-sm120" },
	{ "mi100", "mfma-cdna1" },      { "mi210", "mfma-cdna2" },      { "mi250", "mfma-cdna2" },
	{ "mi250x", "mfma-cdna2" },     { "mi300x", "mfma-cdna3" },     { "mi300a", "mfma-cdna3" },     { "mi325x", "mfma-cdna3" },
	{ "mi355x", "mfma-cdna4" },     { "mi350x", "mfma-cdna4" },
};

/* Other spellings of an instruction preset (not chips). */
static const struct {
	const char *name, *preset;
} spellings[] = {
	{ "mma-sm120-mxf8f6f4", "tcgen05-mxf8f6f4" }, { "mma-sm120-mxf4nvf4", "tcgen05-mxf4nvf4" },
	{ "tcgen05-mxf4", "tcgen05-mxf4nvf4" },
};

/* Model names in any case (--model H100, B200): ASCII only, as every
 * name in these tables is. */
static bool same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
		if (x != y)
			return false;
	}
	return *a == *b;
}

size_t fpref_tc_model_count(void)
{
	return sizeof models / sizeof models[0];
}

const struct fpref_tc_model *fpref_tc_model_at(size_t i)
{
	return i < fpref_tc_model_count() ? &models[i] : NULL;
}

static bool lists(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

const char *fpref_tc_model_alias_at(size_t i, const char **target)
{
	if (i >= sizeof chips / sizeof chips[0])
		return NULL;
	*target = chips[i].preset;
	return chips[i].chip;
}

const char *fpref_tc_model_alias(const char *name)
{
	for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++)
		if (same_name(chips[i].chip, name))
			return chips[i].preset;
	for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
		if (same_name(spellings[i].name, name))
			return spellings[i].preset;
	return name;
}

bool fpref_tc_scales_ok(const struct fpref_tc_model *m, const struct fpref_tc_scales *s)
{
	if (!s)
		return true;
	size_t unit = (size_t)(m->group > 0 ? m->group : m->block);
	bool e8m0 = fpref_format_is(s->format, FPREF_FORMAT_FLOAT8_E8M0FNU);
	bool e4m3 = fpref_format_is(s->format, FPREF_FORMAT_FLOAT8_E4M3FN);
	/* the two-stage path (CDNA4's v_mfma_scale_*) takes E8M0 scales on the
	 * products' sum before C is added: a power of two times a sum that is
	 * truncated relative to its own largest exponent, which is the same as
	 * moving each product's exponent by the scales' */
	return s->a && s->b && s->every > 0 && s->every % unit == 0 && (e8m0 || (e4m3 && m->group > 0)) &&
	       m->tree == 0;
}

static const struct fpref_tc_model *find_by_name(const char *gpu, const char *input)
{
	gpu = fpref_tc_model_alias(gpu);
	for (size_t i = 0; i < fpref_tc_model_count(); i++)
		if (same_name(models[i].gpu, gpu) && lists(models[i].inputs, input))
			return &models[i];
	return NULL;
}

const struct fpref_tc_model *fpref_tc_model_find(const char *gpu, const struct fpref_format *input)
{
	return find_by_name(gpu, input->name);
}

bool fpref_tc_pair_ok(const struct fpref_tc_model *m, const struct fpref_format *a, const struct fpref_format *b)
{
	if (fpref_format_same(a, b))
		return !*m->inputs || lists(m->inputs, a->name);
	return m->mixed && (!*m->inputs || (lists(m->inputs, a->name) && lists(m->inputs, b->name)));
}

const struct fpref_tc_model *fpref_tc_model_find_pair(const char *gpu, const struct fpref_format *a,
						      const struct fpref_format *b)
{
	const struct fpref_tc_model *m = find_by_name(gpu, a->name);
	return m && fpref_tc_pair_ok(m, a, b) ? m : NULL;
}

void fpref_tc_model_pairs(const struct fpref_tc_model *m, char *buf, size_t len)
{
	if (!*m->inputs) {
		snprintf(buf, len, "any pair");
		return;
	}
	size_t used = 0;
	*buf = '\0';
	/* the names of m->inputs, each against each (mixed) or itself */
	for (const char *p = m->inputs; *p && used < len; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		int na = (int)strcspn(p, ",");
		for (const char *q = m->mixed ? m->inputs : p; *q && used < len;
		     q += strcspn(q, ",") + (q[strcspn(q, ",")] == ',')) {
			int nb = (int)strcspn(q, ",");
			used += (size_t)snprintf(buf + used, len - used, "%s%.*s x %.*s", used ? ", " : "", na, p, nb, q);
			if (!m->mixed)
				break;
		}
	}
}

bool fpref_tc_output_ok(const struct fpref_tc_model *m, const struct fpref_format *input,
			const struct fpref_format *output)
{
	if (strcmp(output->name, "float32") == 0)
		return true;
	/* a custom model (no list) may take FP16 output for any input */
	return strcmp(output->name, "float16") == 0 && (!m->fp16_inputs || lists(m->fp16_inputs, input->name));
}

bool fpref_tc_input_ok(const struct fpref_format *input)
{
	return input->man_bits <= 10 && input->exp_bits <= 8 && input->is_signed && input->has_zero;
}

bool fpref_tc_lowered(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	return m->lowered_k > 0 && m->lowered_outputs && lists(m->lowered_outputs, output->name);
}

uint64_t fpref_tc_model_nan(const struct fpref_tc_model *m, const struct fpref_format *output, uint64_t d)
{
	struct fpref_unpacked u;
	if (!m->nan_ones || fpref_decode(output, d, &u) != FPREF_DECODE_OK || u.cls != FPREF_CLASS_NAN)
		return d;
	return ((1ull << (output->exp_bits + output->man_bits)) - 1) << output->pad_bits;
}

int fpref_tc_model_c_least(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	return m->c_least_normal ? 1 - output->bias : -126;
}

int fpref_tc_model_floor(const struct fpref_tc_model *m, const struct fpref_format *output)
{
	int floor = fpref_format_is(output, FPREF_FORMAT_FLOAT16) ? m->floor_fp16 : m->floor_fp32;
	int c_least = fpref_tc_model_c_least(m, output);
	return m->zero_c_aligns && c_least > floor ? c_least : floor;
}

bool fpref_tc_model_conventions_ok(const struct fpref_tc_model *m)
{
	bool other_path = m->sum_frac > 0 || m->tree > 0;
	return !(m->zero_c_aligns && other_path) && !(m->zero_operand_aligns && (other_path || m->group > 0)) &&
	       !(m->fused && (m->tree <= 0 || m->flush));
}

void fpref_tc_model_env(const struct fpref_tc_model *m, const struct fpref_format *output, struct fpref_env *env)
{
	fpref_env_default(env);
	env->rounding = fpref_format_is(output, FPREF_FORMAT_FLOAT16) ? m->round_fp16 : m->round_fp32;
	env->overflow = FPREF_OVERFLOW_INF;
	env->zero_positive = m->zero_positive;
}

const struct fpref_tc_model *fpref_tc_model_lowered_blocks(const struct fpref_tc_model *m)
{
	return find_by_name(m->gpu, "float16");
}

/* The conventions a custom model can take (--traits): each a bool field
 * of the row, false in a custom model (IEEE's sign of zero, the output's
 * default NaN, C at FP32's least normal, exact products, zeros outside the
 * alignment). */
static const struct {
	const char *name;
	size_t offset;
} traits[] = {
	{ "zero-positive", offsetof(struct fpref_tc_model, zero_positive) },
	{ "nan-ones", offsetof(struct fpref_tc_model, nan_ones) },
	{ "c-least-normal", offsetof(struct fpref_tc_model, c_least_normal) },
	{ "product-inf", offsetof(struct fpref_tc_model, product_inf) },
	{ "zero-c-aligns", offsetof(struct fpref_tc_model, zero_c_aligns) },
	{ "zero-operand-aligns", offsetof(struct fpref_tc_model, zero_operand_aligns) },
};

const char *fpref_tc_model_trait_choices(void)
{
	return "zero-positive, nan-ones, c-least-normal, product-inf, zero-c-aligns, zero-operand-aligns";
}

int fpref_tc_model_traits(struct fpref_tc_model *m, const char *list, char *err, size_t errlen)
{
	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t n = strcspn(p, ","), i = 0;
		while (i < sizeof traits / sizeof traits[0] && !(strlen(traits[i].name) == n && strncmp(traits[i].name, p, n) == 0))
			i++;
		if (i == sizeof traits / sizeof traits[0]) {
			snprintf(err, errlen, "unknown trait '%.*s' (choices: %s)", (int)n, p, fpref_tc_model_trait_choices());
			return -1;
		}
		*(bool *)((char *)m + traits[i].offset) = true;
	}
	return 0;
}

static void describe_native(const struct fpref_tc_model *m, bool fp16, char *buf, size_t len)
{
	if (m->tree > 0 && m->fused) { /* no block: F and the floor do not apply */
		snprintf(buf, len, "%s tensor core: groups of %d, each group and C summed exactly, rounded once to FP32, %s",
			 m->gpu, m->block, fpref_rounding_name(fp16 ? m->round_fp16 : m->round_fp32));
		return;
	}
	int floor = fp16 ? m->floor_fp16 : m->floor_fp32;
	char floor_text[16];
	if (floor == FPREF_TC_NO_FLOOR)
		snprintf(floor_text, sizeof floor_text, "none");
	else
		snprintf(floor_text, sizeof floor_text, "%d", floor);
	int n = snprintf(buf, len, "%s tensor core: blocks of %d, %d fraction bits, floor %s, %s", m->gpu, m->block,
			 m->frac, floor_text, fpref_rounding_name(fp16 ? m->round_fp16 : m->round_fp32));
	size_t used = n < 0 ? len : (size_t)n;
	if (m->tree > 0 && used < len)
		snprintf(buf + used, len - used, "; FP32 pairwise sums of each group, added to C%s",
			 m->flush ? ", subnormals flushed" : "");
	else if (m->group > 0 && used < len)
		snprintf(buf + used, len - used, "; exact groups of %d products, each times its scales", m->group);
	else if (m->sum_frac > 0 && used < len)
		snprintf(buf + used, len - used,
			 "; two-stage: products in %d part(s), then the sum floored to %d and C to %d fraction bits%s",
			 m->halves > 1 ? m->halves : 1, m->sum_frac, m->c_frac, m->c_drop ? " (small C dropped)" : "");
	/* a custom model's conventions (a preset's are its row's, named by its gpu) */
	if (strcmp(m->gpu, "generic") == 0) {
		used = strlen(buf);
		for (size_t i = 0, k = 0; i < sizeof traits / sizeof traits[0] && used < len; i++)
			if (*(const bool *)((const char *)m + traits[i].offset)) {
				int w = snprintf(buf + used, len - used, "%s%s", k++ ? "," : "; traits ", traits[i].name);
				used += w < 0 ? len : (size_t)w;
			}
	}
}

void fpref_tc_model_describe(const struct fpref_tc_model *m, const char *output, char *buf, size_t len)
{
	bool fp16 = strcmp(output, "float16") == 0;
	const struct fpref_tc_model *inner = m->lowered_k ? fpref_tc_model_lowered_blocks(m) : NULL;
	if (inner && m->lowered_outputs && lists(m->lowered_outputs, output)) {
		snprintf(buf, len,
			 "%s tensor core, %s output as the compiler lowers mma.sync: per %d products, inputs to FP16, groups "
			 "of %d (k / %d mod %d) in blocks of %d fraction bits, floor %d, %s, from zero; C added in %s",
			 m->gpu, fp16 ? "FP16" : "FP32", m->lowered_k, inner->block, m->interleave, m->lowered_k / inner->block,
			 inner->frac, fp16 ? inner->floor_fp16 : inner->floor_fp32,
			 fpref_rounding_name(fp16 ? inner->round_fp16 : inner->round_fp32), fp16 ? "FP16" : "FP32");
		return;
	}
	describe_native(m, fp16, buf, len);
}

/* The instruction shapes of each preset's ISA, for --shape: PTX mma.sync,
 * wgmma and tcgen05.mma (the PTX ISA's shape tables), AMD's v_mfma_*
 * (the CDNA1 to CDNA4 ISA guides; CDNA1 and CDNA2 as Xie et al.'s model
 * lists them).  '*' stands for any digits (wgmma's
 * N).  A kernel built from an instruction whose K is below the preset's
 * block chains blocks of that K: the block model's n becomes K, the rest
 * of the row stays. */
static const struct {
	const char *gpu, *inputs, *shapes;
	const char *elsewhere; /* "SHAPE ROW": an instruction of the ISA that runs another row's arithmetic */
} instruction_shapes[] = {
	{ "v100", "float16", "m8n8k4", NULL },
	/* m8n8k4 on sm_75 is Volta's instruction run with Volta's arithmetic
	 * (23 fraction bits): MMA-Sim 2.1.1 falls back to its Volta settings,
	 * and 3,000 random cases agree with the v100 row bit for bit, 761
	 * differ from Turing's (docs/accumulation.md) */
	{ "turing", "float16", "m16n8k8", "m8n8k4 v100" },
	{ "a100", "float16,bfloat16", "m16n8k8,m16n8k16", NULL },
	{ "a100", "tf32", "m16n8k4,m16n8k8", NULL },
	{ "ada", "float16,bfloat16", "m16n8k8,m16n8k16", NULL },
	{ "ada", "tf32", "m16n8k4,m16n8k8", NULL },
	{ "ada", FP8, "m16n8k16,m16n8k32", NULL },
	{ "h100-mma", "float16,bfloat16", "m16n8k8,m16n8k16", NULL },
	{ "h100-mma", "tf32", "m16n8k4,m16n8k8", NULL },
	{ "h100-mma", FP8, "m16n8k16,m16n8k32", NULL },
	{ "mma-sm100", "float16,bfloat16", "m16n8k8,m16n8k16", NULL },
	{ "mma-sm100", "tf32", "m16n8k4,m16n8k8", NULL },
	{ "mma-sm100", FP8, "m16n8k16,m16n8k32", NULL },
	{ "mma-sm120", "float16,bfloat16", "m16n8k8,m16n8k16", NULL },
	{ "mma-sm120", "tf32", "m16n8k4,m16n8k8", NULL },
	{ "mma-sm120", F8F6F4, "m16n8k16,m16n8k32", NULL },
	{ "h100-wgmma", "float16,bfloat16", "m64n*k16", NULL },
	{ "h100-wgmma", "tf32", "m64n*k8", NULL },
	{ "h100-wgmma", FP8, "m64n*k32", NULL },
	{ "tcgen05", "float16,bfloat16", "k16", NULL },
	{ "tcgen05", "tf32", "k8", NULL },
	{ "tcgen05", F8F6F4, "k32", NULL },
	{ "tcgen05-mxf8f6f4", F8F6F4, "k32", NULL },
	{ "tcgen05-mxf4nvf4", "float4_e2m1fn", "k64", NULL },
	{ "mfma-cdna3", "float16,bfloat16", "32x32x8,16x16x16,32x32x4,16x16x4,4x4x4", NULL },
	{ "mfma-cdna3", "tf32", "32x32x4,16x16x8", NULL },
	{ "mfma-cdna3", "float8_e4m3fnuz,float8_e5m2fnuz", "32x32x16,16x16x32", NULL },
	{ "mfma-cdna4", "float16,bfloat16", "32x32x8,16x16x16,32x32x16,16x16x32", NULL },
	{ "mfma-cdna4", F8F6F4, "32x32x16,16x16x32,32x32x64,16x16x128", NULL },
	{ "mfma-cdna4-scale", F8F6F4, "32x32x64,16x16x128", NULL },
	{ "mfma-cdna1", "float16", "32x32x4,16x16x4,4x4x4,32x32x8,16x16x16", NULL },
	{ "mfma-cdna1", "bfloat16", "32x32x2,16x16x2,4x4x2,32x32x4,16x16x8", NULL },
	{ "mfma-cdna2", "float16", "32x32x4,16x16x4,4x4x4,32x32x8,16x16x16", NULL },
	{ "mfma-cdna2", "bfloat16", "32x32x4,16x16x4,4x4x4,32x32x8,16x16x16", NULL },
	{ "mfma-cdna2-legacy", "bfloat16", "32x32x2,16x16x2,4x4x2,32x32x4,16x16x8", NULL },
};

/* Whether text (lower case) is the shape pattern pat ('*': one or more
 * digits). */
static bool shape_matches(const char *pat, size_t n, const char *text)
{
	size_t i = 0;
	for (; i < n && *text; i++) {
		if (pat[i] == '*') {
			if (!isdigit((unsigned char)*text))
				return false;
			while (isdigit((unsigned char)*text))
				text++;
		} else if (pat[i] == *text) {
			text++;
		} else {
			return false;
		}
	}
	return i == n && !*text;
}

/* The K of a shape: the digits after the last 'k' or 'x'. */
static long shape_k(const char *shape)
{
	const char *k = strrchr(shape, 'k'), *x = strrchr(shape, 'x');
	const char *p = k > x ? k : x;
	return p ? strtol(p + 1, NULL, 10) : 0;
}

int fpref_tc_model_shape(struct fpref_tc_model *m, const struct fpref_format *output, const char *shape, char *err,
			 size_t errlen)
{
	char lower[32];
	size_t n = strlen(shape);
	if (n == 0 || n >= sizeof lower) {
		snprintf(err, errlen, "bad instruction shape '%s'", shape);
		return -1;
	}
	for (size_t i = 0; i <= n; i++)
		lower[i] = (char)tolower((unsigned char)shape[i]);
	const char *inputs = m->inputs ? m->inputs : "";
	const char *list = NULL;
	for (size_t i = 0; i < sizeof instruction_shapes / sizeof instruction_shapes[0] && !list; i++)
		if (strcmp(instruction_shapes[i].gpu, m->gpu) == 0 && strcmp(instruction_shapes[i].inputs, inputs) == 0)
			list = instruction_shapes[i].shapes;
	if (!list) {
		snprintf(err, errlen, "the %s model's instructions have no shape to choose: its block of %d products is the "
			 "instruction's", m->gpu, m->block);
		return -1;
	}
	if (fpref_tc_lowered(m, output)) {
		snprintf(err, errlen, "the %s model lowers %s output to FP16 instructions: the compiler's shape, not a choice",
			 m->gpu, output->name);
		return -1;
	}
	bool known = false;
	for (const char *p = list; *p && !known; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		known = shape_matches(p, strcspn(p, ","), lower);
	long k = shape_k(lower);
	const char *elsewhere = NULL;
	for (size_t i = 0; i < sizeof instruction_shapes / sizeof instruction_shapes[0]; i++)
		if (strcmp(instruction_shapes[i].gpu, m->gpu) == 0 && instruction_shapes[i].elsewhere)
			elsewhere = instruction_shapes[i].elsewhere;
	size_t el = elsewhere ? strcspn(elsewhere, " ") : 0;
	if (!known && elsewhere && shape_matches(elsewhere, el, lower)) {
		snprintf(err, errlen, "shape %s on the %s model's GPU runs another unit's arithmetic: --model %s", shape,
			 m->gpu, elsewhere + el + 1);
		return -1;
	}
	if (!known || k < 1) {
		snprintf(err, errlen, "the %s model's instructions for %s have the shapes %s, not '%s'", m->gpu, inputs,
			 list, shape);
		return -1;
	}
	/* an instruction of K products at least the block chains the row's own
	 * blocks: nothing changes */
	if (k < m->block) {
		if (m->block % k != 0 || (m->group > 0 && k % m->group != 0) || (m->halves > 1 && k < m->halves)) {
			snprintf(err, errlen, "shape %s: K = %ld does not split the %s model's block of %d", shape, k, m->gpu,
				 m->block);
			return -1;
		}
		m->block = (int)k;
	}
	return 0;
}

int fpref_tc_model_custom(int block, int frac, int floor, enum fpref_rounding rounding, struct fpref_tc_model *m,
			  char *err, size_t errlen)
{
	if (block < 1 || block > FPREF_TC_MAX_BLOCK) {
		snprintf(err, errlen, "block %d out of range (1..%d products)", block, FPREF_TC_MAX_BLOCK);
		return -1;
	}
	if (frac < 1 || frac > FPREF_TC_MAX_FRAC) {
		snprintf(err, errlen, "fraction bits %d out of range (1..%d)", frac, FPREF_TC_MAX_FRAC);
		return -1;
	}
	if (floor != FPREF_TC_NO_FLOOR && (floor < -400 || floor > 400)) {
		snprintf(err, errlen, "alignment floor %d out of range (-400..400, or none)", floor);
		return -1;
	}
	if (rounding != FPREF_RTZ && rounding != FPREF_RNE) {
		snprintf(err, errlen, "the block's rounding must be rtz or rne, not %s", fpref_rounding_name(rounding));
		return -1;
	}
	*m = (struct fpref_tc_model){ "generic", "", block, frac, floor, floor, rounding, rounding, NULL, 0, NULL, 0,
				      "custom parameters", false, 0, 0, 0, 0, 0, 0, false, true, false, false, false, false, false, false };
	return 0;
}

int fpref_tc_model_from_description(const char *text, struct fpref_tc_model *m)
{
	int block, frac, used = 0;
	char floor_text[16], round_text[8], err[128];
	if (sscanf(text, "generic tensor core: blocks of %d, %d fraction bits, floor %15[^,], %7[a-z]%n", &block, &frac,
		   floor_text, round_text, &used) != 4)
		return -1;
	static const char traits_head[] = "; traits ";
	const char *rest = text + used;
	bool with_traits = strncmp(rest, traits_head, sizeof traits_head - 1) == 0;
	if (*rest != '\0' && !with_traits)
		return -1;
	int floor = FPREF_TC_NO_FLOOR;
	char *end = NULL;
	if (strcmp(floor_text, "none") != 0) {
		long v = strtol(floor_text, &end, 10);
		if (*end)
			return -1;
		floor = (int)v;
	}
	enum fpref_rounding r;
	if (fpref_rounding_parse(round_text, &r) != 0 || fpref_tc_model_custom(block, frac, floor, r, m, err, sizeof err) != 0)
		return -1;
	return with_traits ? fpref_tc_model_traits(m, rest + sizeof traits_head - 1, err, sizeof err) : 0;
}

/* The FMA-chain instructions (fpref_formats_tc_model.h): Xie et al.'s
 * model computes NVIDIA's mma .f64 (m8n8k4 on sm_80, m16n8k4/k8/k16 on
 * sm_90) and AMD's v_mfma_f32_*_f32 (CDNA1 to CDNA3) and v_mfma_f64_*
 * (CDNA2, CDNA3) as one FMA per product in K order, rounded to nearest
 * even (the PTX ISA's wording on .f64 mma's precision was not checked
 * here). */
#define FMA_XIE XIE ", fma chain (its MMA_FMA)"
static const struct fpref_tc_fma_row fma_rows[] = {
	{ "dmma", "float64", "m8n8k4,m16n8k4,m16n8k8,m16n8k16",
	  FMA_XIE " for mma .f64 (sm_80 m8n8k4, sm_90 m16n8k4/k8/k16)" },
	{ "mfma-cdna1", "float32", "32x32x1,16x16x1,4x4x1,32x32x2,16x16x4", FMA_XIE " for CDNA1 v_mfma_f32_*f32" },
	{ "mfma-cdna2", "float32", "32x32x1,16x16x1,4x4x1,32x32x2,16x16x4",
	  FMA_XIE " for CDNA2 v_mfma_f32_*f32 (no flush: CDNA2 flushes its f16 and bf16 instructions only)" },
	{ "mfma-cdna2", "float64", "16x16x4,4x4x4", FMA_XIE " for CDNA2 v_mfma_f64_16x16x4f64, 4x4x4f64" },
	{ "mfma-cdna3", "float32", "32x32x1,16x16x1,4x4x1,32x32x2,16x16x4", FMA_XIE " for CDNA3 v_mfma_f32_*_f32" },
	{ "mfma-cdna3", "float64", "16x16x4,4x4x4", FMA_XIE " for CDNA3 v_mfma_f64_16x16x4_f64, 4x4x4_4b_f64" },
};

const struct fpref_tc_fma_row *fpref_tc_fma_at(size_t i)
{
	return i < sizeof fma_rows / sizeof fma_rows[0] ? &fma_rows[i] : NULL;
}

bool fpref_tc_promote_ok(const struct fpref_tc_model *m, const char *pair, char *err, size_t errlen)
{
	if (m->tree <= 0)
		return true;
	snprintf(err, errlen, "the %s model computes %s inputs in FP32 arithmetic (%s); promotion to an FP32 "
		 "accumulator is not modelled on these rows", m->gpu, pair,
		 m->fused ? "each group and C summed exactly, rounded once to FP32"
			  : "each product rounded to FP32, its groups summed in FP32");
	return false;
}

const char *fpref_tc_fma_describe(const struct fpref_tc_fma_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s instructions: an FMA chain (fma-chain), each step rounded in %s", r->gpu, r->input,
		 r->input);
	return buf;
}

const struct fpref_tc_fma_row *fpref_tc_fma_find(const char *gpu, const struct fpref_format *input)
{
	gpu = fpref_tc_model_alias(gpu);
	for (size_t i = 0; i < sizeof fma_rows / sizeof fma_rows[0]; i++)
		if (same_name(fma_rows[i].gpu, gpu) && strcmp(fma_rows[i].input, input->name) == 0)
			return &fma_rows[i];
	return NULL;
}

int fpref_tc_fma_model(const struct fpref_tc_fma_row *r, const struct fpref_format *a, const struct fpref_format *b,
		       const struct fpref_format *output, const char *shape, struct fpref_accum_model *m, char *err,
		       size_t errlen)
{
	if (strcmp(a->name, r->input) != 0 || strcmp(b->name, r->input) != 0) {
		snprintf(err, errlen, "the %s model's %s instruction takes %s x %s", r->gpu, r->input, r->input, r->input);
		return -1;
	}
	if (strcmp(output->name, r->input) != 0) {
		snprintf(err, errlen, "the %s model's %s instruction accumulates in %s (C and D), not %s", r->gpu, r->input,
			 r->input, output->name);
		return -1;
	}
	bool known = !shape;
	char lower[32];
	size_t n = shape ? strlen(shape) : 0;
	for (size_t i = 0; shape && i <= n && n < sizeof lower; i++)
		lower[i] = (char)tolower((unsigned char)shape[i]);
	for (const char *p = r->shapes; shape && n < sizeof lower && *p && !known;
	     p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		known = shape_matches(p, strcspn(p, ","), lower);
	if (!known) {
		snprintf(err, errlen, "the %s model's instructions for %s have the shapes %s, not '%s'", r->gpu, r->input,
			 r->shapes, shape);
		return -1;
	}
	memset(m, 0, sizeof *m);
	m->kind = FPREF_ACCUM_PLAIN;
	m->order = FPREF_SUM_FMA_CHAIN;
	m->fma = r;
	return 0;
}

static const char *const order_names[] = { "recursive", "pairwise", "blocked", "fma-chain", "kahan" };

const char *fpref_sum_order_name(enum fpref_sum_order o)
{
	return order_names[o];
}

int fpref_sum_order_parse(const char *s, enum fpref_sum_order *o)
{
	for (int i = 0; i <= FPREF_SUM_KAHAN; i++)
		if (same_name(s, order_names[i])) {
			*o = (enum fpref_sum_order)i;
			return 0;
		}
	return -1;
}
