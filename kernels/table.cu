// The kernel table: each kernel of fpref-cuda, the golden file it answers
// (relative to the folder gpu-check generates: hw/ from kernels/hw.suite,
// chain/ from kernels/hw-chain.suite), and its least compute capability.
// Each conversion's environment is the one the golden file was made in:
// the `cuda` profile with the instruction's rounding and saturation.
#include "convert.h"
#include "kernels.h"
#include "mma.h"
#include "tcgen05_layout.h"

#define CV(name, file, formats, cc, op, what) { name, "hw/convert/" file, formats, cc, fk_run_convert, op, what }
// The dot files name the sm_90 presets: h100-mma for mma.sync, h100-wgmma for
// WGMMA (they differ for FP8); gpu-check puts another GPU's preset in their place.
#define MMA(name, dir, file, formats, cc, op, what) { name, dir "/dot/h100-mma." file, formats, cc, fk_run_mma, op, what }
// tcgen05.mma (kernels/tcgen05.cu, sm_100a): the golden files of
// kernels/hw-tcgen05.suite, generated into tcgen05/ only for a compute
// capability 10.x GPU (gpu-check skips these rows elsewhere).
#define TC5(name, file, formats, id, what) { name, "tcgen05/dot/" file, formats, 100, fk_run_tcgen05, id, what }
#define HOP(name, dir, file, formats, op, what) { name, dir "/dot/h100-wgmma." file, formats, 90, fk_run_hopper, op, what }

const struct fk_kernel fk_kernels[] = {
	CV("float2half_rn", "float32-float16.cuda.txt", "float32 -> float16", 53, FK_F32_F16_RN, "__float2half_rn"),
	CV("float2half_rz", "float32-float16.cuda+rtz.txt", "float32 -> float16", 53, FK_F32_F16_RZ, "__float2half_rz"),
	CV("float2half_rd", "float32-float16.cuda+rdn.txt", "float32 -> float16", 53, FK_F32_F16_RD, "__float2half_rd"),
	CV("float2half_ru", "float32-float16.cuda+rup.txt", "float32 -> float16", 53, FK_F32_F16_RU, "__float2half_ru"),
	CV("float2bfloat16_rn", "float32-bfloat16.cuda.txt", "float32 -> bfloat16", 53, FK_F32_BF16_RN, "__float2bfloat16_rn"),
	CV("float2bfloat16_rz", "float32-bfloat16.cuda+rtz.txt", "float32 -> bfloat16", 53, FK_F32_BF16_RZ, "__float2bfloat16_rz"),
	CV("float2bfloat16_rd", "float32-bfloat16.cuda+rdn.txt", "float32 -> bfloat16", 53, FK_F32_BF16_RD, "__float2bfloat16_rd"),
	CV("float2bfloat16_ru", "float32-bfloat16.cuda+rup.txt", "float32 -> bfloat16", 53, FK_F32_BF16_RU, "__float2bfloat16_ru"),
	CV("fp8_e4m3_sat", "float32-float8_e4m3fn.cuda+sat.txt", "float32 -> float8_e4m3fn", 53, FK_F32_E4M3_SAT,
	   "__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)"),
	CV("fp8_e4m3_nosat", "float32-float8_e4m3fn.cuda.txt", "float32 -> float8_e4m3fn", 53, FK_F32_E4M3,
	   "__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3)"),
	CV("fp8_e5m2_sat", "float32-float8_e5m2.cuda+sat.txt", "float32 -> float8_e5m2", 53, FK_F32_E5M2_SAT,
	   "__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2)"),
	CV("fp8_e5m2_nosat", "float32-float8_e5m2.cuda.txt", "float32 -> float8_e5m2", 53, FK_F32_E5M2,
	   "__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2)"),
	CV("fp6_e2m3", "float32-float6_e2m3fn.cuda+sat.txt", "float32 -> float6_e2m3fn", 53, FK_F32_E2M3,
	   "__nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest)"),
	CV("fp6_e3m2", "float32-float6_e3m2fn.cuda+sat.txt", "float32 -> float6_e3m2fn", 53, FK_F32_E3M2,
	   "__nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest)"),
	CV("fp4_e2m1", "float32-float4_e2m1fn.cuda+sat.txt", "float32 -> float4_e2m1fn", 53, FK_F32_E2M1,
	   "__nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest)"),
	CV("e8m0_rz", "float32-float8_e8m0fnu.cuda+rtz.txt", "float32 -> float8_e8m0fnu", 53, FK_F32_E8M0_RZ,
	   "__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero)"),
	CV("e8m0_rz_sat", "float32-float8_e8m0fnu.cuda+rtz+sat.txt", "float32 -> float8_e8m0fnu", 53, FK_F32_E8M0_RZ_SAT,
	   "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero)"),
	CV("e8m0_rp", "float32-float8_e8m0fnu.cuda+rup.txt", "float32 -> float8_e8m0fnu", 53, FK_F32_E8M0_RP,
	   "__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf)"),
	CV("e8m0_rp_sat", "float32-float8_e8m0fnu.cuda+rup+sat.txt", "float32 -> float8_e8m0fnu", 53, FK_F32_E8M0_RP_SAT,
	   "__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf)"),
	CV("cvt.rn.f16.f32", "float32-float16.cuda.txt", "float32 -> float16", 53, FK_PTX_F32_F16_RN, "PTX cvt.rn.f16.f32"),
	CV("cvt.rz.f16.f32", "float32-float16.cuda+rtz.txt", "float32 -> float16", 53, FK_PTX_F32_F16_RZ, "PTX cvt.rz.f16.f32"),
	CV("cvt.rn.bf16.f32", "float32-bfloat16.cuda.txt", "float32 -> bfloat16", 80, FK_PTX_F32_BF16_RN, "PTX cvt.rn.bf16.f32"),
	CV("cvt.rz.bf16.f32", "float32-bfloat16.cuda+rtz.txt", "float32 -> bfloat16", 80, FK_PTX_F32_BF16_RZ, "PTX cvt.rz.bf16.f32"),
	CV("cvt.rm.bf16.f32", "float32-bfloat16.cuda+rdn.txt", "float32 -> bfloat16", 90, FK_PTX_F32_BF16_RM, "PTX cvt.rm.bf16.f32"),
	CV("cvt.rp.bf16.f32", "float32-bfloat16.cuda+rup.txt", "float32 -> bfloat16", 90, FK_PTX_F32_BF16_RP, "PTX cvt.rp.bf16.f32"),
	CV("cvt.rn.satfinite.e4m3x2.f32", "float32-float8_e4m3fn.cuda+sat.txt", "float32 -> float8_e4m3fn", 89, FK_PTX_F32_E4M3_SAT,
	   "PTX cvt.rn.satfinite.e4m3x2.f32"),
	CV("cvt.rn.satfinite.e5m2x2.f32", "float32-float8_e5m2.cuda+sat.txt", "float32 -> float8_e5m2", 89, FK_PTX_F32_E5M2_SAT,
	   "PTX cvt.rn.satfinite.e5m2x2.f32"),
	CV("half2float", "float16-float32.cuda.txt", "float16 -> float32", 53, FK_F16_F32, "__half2float"),
	CV("bfloat162float", "bfloat16-float32.cuda.txt", "bfloat16 -> float32", 53, FK_BF16_F32, "__bfloat162float"),
	CV("fp8_e4m3_to_half", "float8_e4m3fn-float16.cuda.txt", "float8_e4m3fn -> float16", 53, FK_E4M3_F16,
	   "__nv_cvt_fp8_to_halfraw(x, __NV_E4M3)"),
	CV("fp8_e5m2_to_half", "float8_e5m2-float16.cuda.txt", "float8_e5m2 -> float16", 53, FK_E5M2_F16,
	   "__nv_cvt_fp8_to_halfraw(x, __NV_E5M2)"),
	CV("fp8_e4m3_to_float", "float8_e4m3fn-float32.cuda.txt", "float8_e4m3fn -> float32", 53, FK_E4M3_F32,
	   "__half2float(__nv_cvt_fp8_to_halfraw(x, __NV_E4M3))"),
	CV("fp8_e5m2_to_float", "float8_e5m2-float32.cuda.txt", "float8_e5m2 -> float32", 53, FK_E5M2_F32,
	   "__half2float(__nv_cvt_fp8_to_halfraw(x, __NV_E5M2))"),
	CV("fp6_e2m3_to_half", "float6_e2m3fn-float16.cuda.txt", "float6_e2m3fn -> float16", 53, FK_E2M3_F16,
	   "__nv_cvt_fp6_to_halfraw(x, __NV_E2M3)"),
	CV("fp6_e3m2_to_half", "float6_e3m2fn-float16.cuda.txt", "float6_e3m2fn -> float16", 53, FK_E3M2_F16,
	   "__nv_cvt_fp6_to_halfraw(x, __NV_E3M2)"),
	CV("fp4_e2m1_to_half", "float4_e2m1fn-float16.cuda.txt", "float4_e2m1fn -> float16", 53, FK_E2M1_F16,
	   "__nv_cvt_fp4_to_halfraw(x, __NV_E2M1)"),
	CV("e8m0_to_bfloat16", "float8_e8m0fnu-bfloat16.cuda.txt", "float8_e8m0fnu -> bfloat16", 53, FK_E8M0_BF16,
	   "__nv_cvt_e8m0_to_bf16raw"),
	CV("cvt.rn.f16x2.e4m3x2", "float8_e4m3fn-float16.cuda.txt", "float8_e4m3fn -> float16", 89, FK_PTX_E4M3_F16,
	   "PTX cvt.rn.f16x2.e4m3x2"),
	CV("cvt.rn.f16x2.e5m2x2", "float8_e5m2-float16.cuda.txt", "float8_e5m2 -> float16", 89, FK_PTX_E5M2_F16,
	   "PTX cvt.rn.f16x2.e5m2x2"),

	MMA("mma.f16.f32", "hw", "float16-float32.txt", "float16 -> float32", 80, FK_MMA_F16_F32, "mma.sync m16n8k16 f32.f16.f16.f32"),
	MMA("mma.f16.f16", "hw", "float16-float16.txt", "float16 -> float16", 80, FK_MMA_F16_F16, "mma.sync m16n8k16 f16.f16.f16.f16"),
	MMA("mma.bf16.f32", "hw", "bfloat16-float32.txt", "bfloat16 -> float32", 80, FK_MMA_BF16_F32, "mma.sync m16n8k16 f32.bf16.bf16.f32"),
	MMA("mma.tf32.f32", "hw", "tf32-float32.txt", "tf32 -> float32", 80, FK_MMA_TF32_F32, "mma.sync m16n8k8 f32.tf32.tf32.f32"),
	MMA("mma.e4m3.f32", "hw", "float8_e4m3fn-float32.txt", "float8_e4m3fn -> float32", 89, FK_MMA_E4M3_F32, "mma.sync m16n8k32 f32.e4m3.e4m3.f32"),
	MMA("mma.e4m3.f16", "hw", "float8_e4m3fn-float16.txt", "float8_e4m3fn -> float16", 89, FK_MMA_E4M3_F16, "mma.sync m16n8k32 f16.e4m3.e4m3.f16"),
	MMA("mma.e5m2.f32", "hw", "float8_e5m2-float32.txt", "float8_e5m2 -> float32", 89, FK_MMA_E5M2_F32, "mma.sync m16n8k32 f32.e5m2.e5m2.f32"),
	MMA("mma.e5m2.f16", "hw", "float8_e5m2-float16.txt", "float8_e5m2 -> float16", 89, FK_MMA_E5M2_F16, "mma.sync m16n8k32 f16.e5m2.e5m2.f16"),
	// A and B of two FP8 formats (the hybrid backward GEMM, issue 36): the
	// golden files of the pair A*B, A's patterns in the a columns.
	MMA("mma.e5m2xe4m3.f32", "hw", "float8_e5m2-x-float8_e4m3fn-float32.txt", "float8_e5m2*float8_e4m3fn -> float32", 89, FK_MMA_E5M2_E4M3_F32, "mma.sync m16n8k32 f32.e5m2.e4m3.f32"),
	MMA("mma.e5m2xe4m3.f16", "hw", "float8_e5m2-x-float8_e4m3fn-float16.txt", "float8_e5m2*float8_e4m3fn -> float16", 89, FK_MMA_E5M2_E4M3_F16, "mma.sync m16n8k32 f16.e5m2.e4m3.f16"),
	MMA("mma.e4m3xe5m2.f32", "hw", "float8_e4m3fn-x-float8_e5m2-float32.txt", "float8_e4m3fn*float8_e5m2 -> float32", 89, FK_MMA_E4M3_E5M2_F32, "mma.sync m16n8k32 f32.e4m3.e5m2.f32"),
	MMA("mma.e4m3xe5m2.f16", "hw", "float8_e4m3fn-x-float8_e5m2-float16.txt", "float8_e4m3fn*float8_e5m2 -> float16", 89, FK_MMA_E4M3_E5M2_F16, "mma.sync m16n8k32 f16.e4m3.e5m2.f16"),
	MMA("mma4.f16.f32", "chain", "float16-float32.txt", "float16 -> float32", 80, FK_MMA_F16_F32, "4 chained mma.sync m16n8k16 f32.f16.f16.f32"),
	MMA("mma4.f16.f16", "chain", "float16-float16.txt", "float16 -> float16", 80, FK_MMA_F16_F16, "4 chained mma.sync m16n8k16 f16.f16.f16.f16"),
	MMA("mma4.bf16.f32", "chain", "bfloat16-float32.txt", "bfloat16 -> float32", 80, FK_MMA_BF16_F32, "4 chained mma.sync m16n8k16 f32.bf16.bf16.f32"),
	MMA("mma4.tf32.f32", "chain", "tf32-float32.txt", "tf32 -> float32", 80, FK_MMA_TF32_F32, "4 chained mma.sync m16n8k8 f32.tf32.tf32.f32"),
	MMA("mma4.e4m3.f32", "chain", "float8_e4m3fn-float32.txt", "float8_e4m3fn -> float32", 89, FK_MMA_E4M3_F32, "4 chained mma.sync m16n8k32 f32.e4m3.e4m3.f32"),
	MMA("mma4.e4m3.f16", "chain", "float8_e4m3fn-float16.txt", "float8_e4m3fn -> float16", 89, FK_MMA_E4M3_F16, "4 chained mma.sync m16n8k32 f16.e4m3.e4m3.f16"),
	MMA("mma4.e5m2.f32", "chain", "float8_e5m2-float32.txt", "float8_e5m2 -> float32", 89, FK_MMA_E5M2_F32, "4 chained mma.sync m16n8k32 f32.e5m2.e5m2.f32"),
	MMA("mma4.e5m2.f16", "chain", "float8_e5m2-float16.txt", "float8_e5m2 -> float16", 89, FK_MMA_E5M2_F16, "4 chained mma.sync m16n8k32 f16.e5m2.e5m2.f16"),
	MMA("mma4.e5m2xe4m3.f32", "chain", "float8_e5m2-x-float8_e4m3fn-float32.txt", "float8_e5m2*float8_e4m3fn -> float32", 89, FK_MMA_E5M2_E4M3_F32, "4 chained mma.sync m16n8k32 f32.e5m2.e4m3.f32"),
	MMA("mma4.e5m2xe4m3.f16", "chain", "float8_e5m2-x-float8_e4m3fn-float16.txt", "float8_e5m2*float8_e4m3fn -> float16", 89, FK_MMA_E5M2_E4M3_F16, "4 chained mma.sync m16n8k32 f16.e5m2.e4m3.f16"),
	MMA("mma4.e4m3xe5m2.f32", "chain", "float8_e4m3fn-x-float8_e5m2-float32.txt", "float8_e4m3fn*float8_e5m2 -> float32", 89, FK_MMA_E4M3_E5M2_F32, "4 chained mma.sync m16n8k32 f32.e4m3.e5m2.f32"),
	MMA("mma4.e4m3xe5m2.f16", "chain", "float8_e4m3fn-x-float8_e5m2-float16.txt", "float8_e4m3fn*float8_e5m2 -> float16", 89, FK_MMA_E4M3_E5M2_F16, "4 chained mma.sync m16n8k32 f16.e4m3.e5m2.f16"),

	// WGMMA (kernels/wgmma.cu, sm_90a): one warpgroup per 64 lines, C loaded
	// into the accumulator (scale-d = 1), so the unit itself adds C.  cuBLASLt
	// has no per-line C: it runs in kernels/hopper-selftest (gpu-check runs it).
	HOP("wgmma.e4m3.f32", "hw", "float8_e4m3fn-float32.txt", "float8_e4m3fn -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k32 f32.e4m3.e4m3"),
	HOP("wgmma.e4m3.f16", "hw", "float8_e4m3fn-float16.txt", "float8_e4m3fn -> float16", FK_HOPPER_WGMMA, "wgmma m64n64k32 f16.e4m3.e4m3"),
	HOP("wgmma.e5m2.f32", "hw", "float8_e5m2-float32.txt", "float8_e5m2 -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k32 f32.e5m2.e5m2"),
	HOP("wgmma.e5m2.f16", "hw", "float8_e5m2-float16.txt", "float8_e5m2 -> float16", FK_HOPPER_WGMMA, "wgmma m64n64k32 f16.e5m2.e5m2"),
	HOP("wgmma.f16.f32", "hw", "float16-float32.txt", "float16 -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k16 f32.f16.f16"),
	HOP("wgmma.f16.f16", "hw", "float16-float16.txt", "float16 -> float16", FK_HOPPER_WGMMA, "wgmma m64n64k16 f16.f16.f16"),
	HOP("wgmma.bf16.f32", "hw", "bfloat16-float32.txt", "bfloat16 -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k16 f32.bf16.bf16"),
	HOP("wgmma.e5m2xe4m3.f32", "hw", "float8_e5m2-x-float8_e4m3fn-float32.txt", "float8_e5m2*float8_e4m3fn -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k32 f32.e5m2.e4m3"),
	HOP("wgmma.e5m2xe4m3.f16", "hw", "float8_e5m2-x-float8_e4m3fn-float16.txt", "float8_e5m2*float8_e4m3fn -> float16", FK_HOPPER_WGMMA, "wgmma m64n64k32 f16.e5m2.e4m3"),
	HOP("wgmma.e4m3xe5m2.f32", "hw", "float8_e4m3fn-x-float8_e5m2-float32.txt", "float8_e4m3fn*float8_e5m2 -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k32 f32.e4m3.e5m2"),
	HOP("wgmma.e4m3xe5m2.f16", "hw", "float8_e4m3fn-x-float8_e5m2-float16.txt", "float8_e4m3fn*float8_e5m2 -> float16", FK_HOPPER_WGMMA, "wgmma m64n64k32 f16.e4m3.e5m2"),
	HOP("wgmma4.e4m3.f32", "chain", "float8_e4m3fn-float32.txt", "float8_e4m3fn -> float32", FK_HOPPER_WGMMA, "4 chained wgmma k32 f32.e4m3.e4m3"),
	HOP("wgmma4.e4m3.f16", "chain", "float8_e4m3fn-float16.txt", "float8_e4m3fn -> float16", FK_HOPPER_WGMMA, "4 chained wgmma k32 f16.e4m3.e4m3"),
	HOP("wgmma4.e5m2.f32", "chain", "float8_e5m2-float32.txt", "float8_e5m2 -> float32", FK_HOPPER_WGMMA, "4 chained wgmma k32 f32.e5m2.e5m2"),
	HOP("wgmma4.f16.f32", "chain", "float16-float32.txt", "float16 -> float32", FK_HOPPER_WGMMA, "4 chained wgmma k16 f32.f16.f16"),
	HOP("wgmma4.e5m2xe4m3.f32", "chain", "float8_e5m2-x-float8_e4m3fn-float32.txt", "float8_e5m2*float8_e4m3fn -> float32", FK_HOPPER_WGMMA, "4 chained wgmma k32 f32.e5m2.e4m3"),
	HOP("wgmma4.e5m2xe4m3.f16", "chain", "float8_e5m2-x-float8_e4m3fn-float16.txt", "float8_e5m2*float8_e4m3fn -> float16", FK_HOPPER_WGMMA, "4 chained wgmma k32 f16.e5m2.e4m3"),
	HOP("wgmma4.e4m3xe5m2.f32", "chain", "float8_e4m3fn-x-float8_e5m2-float32.txt", "float8_e4m3fn*float8_e5m2 -> float32", FK_HOPPER_WGMMA, "4 chained wgmma k32 f32.e4m3.e5m2"),
	HOP("wgmma4.e4m3xe5m2.f16", "chain", "float8_e4m3fn-x-float8_e5m2-float16.txt", "float8_e4m3fn*float8_e5m2 -> float16", FK_HOPPER_WGMMA, "4 chained wgmma k32 f16.e4m3.e5m2"),

	// The probe inputs (kernels/hw-probe.suite): `fpref probe infer` on these
	// results names the model each instruction fits.
	MMA("probe.mma.f16.f32", "probe", "float16-float32.txt", "float16 -> float32", 80, FK_MMA_F16_F32, "mma.sync m16n8k16 f32.f16.f16.f32 on probe inputs"),
	MMA("probe.mma.f16.f16", "probe", "float16-float16.txt", "float16 -> float16", 80, FK_MMA_F16_F16, "mma.sync m16n8k16 f16.f16.f16.f16 on probe inputs"),
	MMA("probe.mma.bf16.f32", "probe", "bfloat16-float32.txt", "bfloat16 -> float32", 80, FK_MMA_BF16_F32, "mma.sync m16n8k16 f32.bf16.bf16.f32 on probe inputs"),
	MMA("probe.mma.tf32.f32", "probe", "tf32-float32.txt", "tf32 -> float32", 80, FK_MMA_TF32_F32, "mma.sync m16n8k8 f32.tf32.tf32.f32 on probe inputs"),
	MMA("probe.mma.e4m3.f32", "probe", "float8_e4m3fn-float32.txt", "float8_e4m3fn -> float32", 89, FK_MMA_E4M3_F32, "mma.sync m16n8k32 f32.e4m3.e4m3.f32 on probe inputs"),
	MMA("probe.mma.e4m3.f16", "probe", "float8_e4m3fn-float16.txt", "float8_e4m3fn -> float16", 89, FK_MMA_E4M3_F16, "mma.sync m16n8k32 f16.e4m3.e4m3.f16 on probe inputs"),
	MMA("probe.mma.e5m2.f32", "probe", "float8_e5m2-float32.txt", "float8_e5m2 -> float32", 89, FK_MMA_E5M2_F32, "mma.sync m16n8k32 f32.e5m2.e5m2.f32 on probe inputs"),
	MMA("probe.mma.e5m2.f16", "probe", "float8_e5m2-float16.txt", "float8_e5m2 -> float16", 89, FK_MMA_E5M2_F16, "mma.sync m16n8k32 f16.e5m2.e5m2.f16 on probe inputs"),
	HOP("probe.wgmma.e4m3.f32", "probe", "float8_e4m3fn-float32.txt", "float8_e4m3fn -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k32 f32.e4m3.e4m3 on probe inputs"),
	HOP("probe.wgmma.e4m3.f16", "probe", "float8_e4m3fn-float16.txt", "float8_e4m3fn -> float16", FK_HOPPER_WGMMA, "wgmma m64n64k32 f16.e4m3.e4m3 on probe inputs"),
	HOP("probe.wgmma.e5m2.f32", "probe", "float8_e5m2-float32.txt", "float8_e5m2 -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k32 f32.e5m2.e5m2 on probe inputs"),
	HOP("probe.wgmma.e5m2.f16", "probe", "float8_e5m2-float16.txt", "float8_e5m2 -> float16", FK_HOPPER_WGMMA, "wgmma m64n64k32 f16.e5m2.e5m2 on probe inputs"),
	HOP("probe.wgmma.f16.f32", "probe", "float16-float32.txt", "float16 -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k16 f32.f16.f16 on probe inputs"),
	HOP("probe.wgmma.f16.f16", "probe", "float16-float16.txt", "float16 -> float16", FK_HOPPER_WGMMA, "wgmma m64n64k16 f16.f16.f16 on probe inputs"),
	HOP("probe.wgmma.bf16.f32", "probe", "bfloat16-float32.txt", "bfloat16 -> float32", FK_HOPPER_WGMMA, "wgmma m64n64k16 f32.bf16.bf16 on probe inputs"),

	// tcgen05.mma (sm_100a): one 128 x 128 tile per launch, one instruction
	// per dot product, C in tensor memory; the block-scaled kinds with unit
	// scales (the dot files carry none).  Compiled, never run here.
	TC5("tcgen05.f16.f32", "tcgen05.float16-float32.txt", "float16 -> float32", FK_TC5_F16_F32, "tcgen05.mma kind::f16 M128 N128 K16, f32 D"),
	TC5("tcgen05.f16.f16", "tcgen05.float16-float16.txt", "float16 -> float16", FK_TC5_F16_F16, "tcgen05.mma kind::f16 M128 N128 K16, f16 D"),
	TC5("tcgen05.bf16.f32", "tcgen05.bfloat16-float32.txt", "bfloat16 -> float32", FK_TC5_BF16_F32, "tcgen05.mma kind::f16 bf16 M128 N128 K16, f32 D"),
	TC5("tcgen05.tf32.f32", "tcgen05.tf32-float32.txt", "tf32 -> float32", FK_TC5_TF32_F32, "tcgen05.mma kind::tf32 M128 N128 K8"),
	TC5("tcgen05.e4m3.f32", "tcgen05.float8_e4m3fn-float32.txt", "float8_e4m3fn -> float32", FK_TC5_E4M3_F32, "tcgen05.mma kind::f8f6f4 e4m3 M128 N128 K32, f32 D"),
	TC5("tcgen05.e5m2.f32", "tcgen05.float8_e5m2-float32.txt", "float8_e5m2 -> float32", FK_TC5_E5M2_F32, "tcgen05.mma kind::f8f6f4 e5m2 M128 N128 K32, f32 D"),
	TC5("tcgen05.e4m3.f16", "tcgen05.float8_e4m3fn-float16.txt", "float8_e4m3fn -> float16", FK_TC5_E4M3_F16, "tcgen05.mma kind::f8f6f4 e4m3 M128 N128 K32, f16 D"),
	TC5("tcgen05.e5m2.f16", "tcgen05.float8_e5m2-float16.txt", "float8_e5m2 -> float16", FK_TC5_E5M2_F16, "tcgen05.mma kind::f8f6f4 e5m2 M128 N128 K32, f16 D"),
	TC5("tcgen05.e3m2.f32", "tcgen05.float6_e3m2fn-float32.txt", "float6_e3m2fn -> float32", FK_TC5_E3M2_F32, "tcgen05.mma kind::f8f6f4 e3m2 M128 N128 K32, f32 D"),
	TC5("tcgen05.e2m3.f32", "tcgen05.float6_e2m3fn-float32.txt", "float6_e2m3fn -> float32", FK_TC5_E2M3_F32, "tcgen05.mma kind::f8f6f4 e2m3 M128 N128 K32, f32 D"),
	TC5("tcgen05.e2m1.f32", "tcgen05.float4_e2m1fn-float32.txt", "float4_e2m1fn -> float32", FK_TC5_E2M1_F32, "tcgen05.mma kind::f8f6f4 e2m1 M128 N128 K32, f32 D"),
	TC5("tcgen05.mxf8f6f4.e4m3", "tcgen05-mxf8f6f4.float8_e4m3fn-float32.txt", "float8_e4m3fn -> float32", FK_TC5_MX_E4M3, "tcgen05.mma kind::mxf8f6f4.block_scale.scale_vec::1X e4m3, unit UE8M0 scales"),
	TC5("tcgen05.mxf8f6f4.e5m2", "tcgen05-mxf8f6f4.float8_e5m2-float32.txt", "float8_e5m2 -> float32", FK_TC5_MX_E5M2, "tcgen05.mma kind::mxf8f6f4.block_scale.scale_vec::1X e5m2, unit UE8M0 scales"),
	TC5("tcgen05.mxf8f6f4.e3m2", "tcgen05-mxf8f6f4.float6_e3m2fn-float32.txt", "float6_e3m2fn -> float32", FK_TC5_MX_E3M2, "tcgen05.mma kind::mxf8f6f4.block_scale.scale_vec::1X e3m2, unit UE8M0 scales"),
	TC5("tcgen05.mxf8f6f4.e2m3", "tcgen05-mxf8f6f4.float6_e2m3fn-float32.txt", "float6_e2m3fn -> float32", FK_TC5_MX_E2M3, "tcgen05.mma kind::mxf8f6f4.block_scale.scale_vec::1X e2m3, unit UE8M0 scales"),
	TC5("tcgen05.mxf8f6f4.e2m1", "tcgen05-mxf8f6f4.float4_e2m1fn-float32.txt", "float4_e2m1fn -> float32", FK_TC5_MX_E2M1, "tcgen05.mma kind::mxf8f6f4.block_scale.scale_vec::1X e2m1, unit UE8M0 scales"),
	TC5("tcgen05.mxf4nvf4.4x", "tcgen05-mxf4nvf4.float4_e2m1fn-float32.txt", "float4_e2m1fn -> float32", FK_TC5_NVF4_4X_UE4M3, "tcgen05.mma kind::mxf4nvf4.block_scale.scale_vec::4X K64, unit UE4M3 scales per 16 (NVFP4)"),
	TC5("tcgen05.mxf4nvf4.2x", "tcgen05-mxf4nvf4.float4_e2m1fn-float32.txt", "float4_e2m1fn -> float32", FK_TC5_MXF4NVF4_2X_UE8M0, "tcgen05.mma kind::mxf4nvf4.block_scale.scale_vec::2X K64, unit UE8M0 scales per 32"),
	TC5("tcgen05.mxf4.2x", "tcgen05-mxf4nvf4.float4_e2m1fn-float32.txt", "float4_e2m1fn -> float32", FK_TC5_MXF4_2X_UE8M0, "tcgen05.mma kind::mxf4.block_scale.scale_vec::2X K64, unit UE8M0 scales per 32 (MXFP4)"),
};

const size_t fk_kernel_count = sizeof fk_kernels / sizeof fk_kernels[0];
