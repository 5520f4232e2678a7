/* The CUDA headers' host conversion functions (cuda_fp16.hpp, cuda_bf16.hpp,
 * cuda_fp8.hpp, cuda_fp6.hpp, cuda_fp4.hpp) against the emulator under the
 * `cuda` profile.  NVIDIA's host code is an oracle nobody here wrote, so any
 * difference in the bits is a finding (docs/profiles.md, "CUDA host functions").
 * CUDA has no flags, so only bits are compared.
 *
 * Every 16-, 8-, 6- and 4-bit source pattern is swept; FP32 and FP64
 * sources get structured patterns (every exponent and sign, with the bits
 * just below each possible rounding position set to a tie, a tie plus or
 * minus one, zero or all ones, under kept bits through every value of the
 * leading mantissa bits and at the binade's edges: structured()) plus a
 * seeded random sample, and the specials.  FPREF_EXHAUSTIVE=1 (make
 * check-exhaustive) sweeps all 2^32 FP32 patterns instead, in shards
 * (FPREF_SHARD=i/N over blocks of 2^16 patterns).
 *
 * C++ only because the headers are C++; the library stays C. */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fpref.h"

namespace {

const unsigned long PRINT_LIMIT = 8;
const size_t RANDOM_F32 = 1u << 20;
const size_t RANDOM_F64 = 1u << 18;
const size_t CHUNK = 1u << 16;

/* ---- the CUDA side: every function as bits in, bits out ---- */

template <typename T> T from_bits(uint64_t b)
{
	T v;
	std::memcpy(&v, &b, sizeof v); /* little-endian: the low bytes */
	return v;
}

float f32_of(uint64_t b)
{
	return from_bits<float>((uint32_t)b);
}

double f64_of(uint64_t b)
{
	return from_bits<double>(b);
}

uint64_t f32_bits(float f)
{
	uint32_t u;
	std::memcpy(&u, &f, sizeof u);
	return u;
}

uint64_t half_bits(__half h)
{
	return static_cast<__half_raw>(h).x;
}

uint64_t bf16_bits(__nv_bfloat16 h)
{
	return static_cast<__nv_bfloat16_raw>(h).x;
}

__half_raw half_raw_of(uint64_t b)
{
	__half_raw r;
	r.x = (unsigned short)b;
	return r;
}

__nv_bfloat16_raw bf16_raw_of(uint64_t b)
{
	__nv_bfloat16_raw r;
	r.x = (unsigned short)b;
	return r;
}

uint64_t f2h_rn(uint64_t b) { return half_bits(__float2half_rn(f32_of(b))); }
uint64_t f2h_rz(uint64_t b) { return half_bits(__float2half_rz(f32_of(b))); }
uint64_t f2h_rd(uint64_t b) { return half_bits(__float2half_rd(f32_of(b))); }
uint64_t f2h_ru(uint64_t b) { return half_bits(__float2half_ru(f32_of(b))); }
uint64_t d2h(uint64_t b) { return half_bits(__double2half(f64_of(b))); }
uint64_t h2f(uint64_t b) { return f32_bits(__half2float(__half(half_raw_of(b)))); }
uint64_t f2bf_rn(uint64_t b) { return bf16_bits(__float2bfloat16_rn(f32_of(b))); }
uint64_t f2bf_rz(uint64_t b) { return bf16_bits(__float2bfloat16_rz(f32_of(b))); }
uint64_t f2bf_rd(uint64_t b) { return bf16_bits(__float2bfloat16_rd(f32_of(b))); }
uint64_t f2bf_ru(uint64_t b) { return bf16_bits(__float2bfloat16_ru(f32_of(b))); }
uint64_t d2bf(uint64_t b) { return bf16_bits(__double2bfloat16(f64_of(b))); }
uint64_t bf2f(uint64_t b) { return f32_bits(__bfloat162float(__nv_bfloat16(bf16_raw_of(b)))); }

template <__nv_saturation_t S, __nv_fp8_interpretation_t K> uint64_t f2fp8(uint64_t b)
{
	return __nv_cvt_float_to_fp8(f32_of(b), S, K);
}
template <__nv_saturation_t S, __nv_fp8_interpretation_t K> uint64_t d2fp8(uint64_t b)
{
	return __nv_cvt_double_to_fp8(f64_of(b), S, K);
}
template <__nv_saturation_t S, __nv_fp8_interpretation_t K> uint64_t h2fp8(uint64_t b)
{
	return __nv_cvt_halfraw_to_fp8(half_raw_of(b), S, K);
}
template <__nv_saturation_t S, __nv_fp8_interpretation_t K> uint64_t bf2fp8(uint64_t b)
{
	return __nv_cvt_bfloat16raw_to_fp8(bf16_raw_of(b), S, K);
}
template <__nv_fp8_interpretation_t K> uint64_t fp8_2h(uint64_t b)
{
	return __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)b, K).x;
}

template <__nv_fp6_interpretation_t K, cudaRoundMode R> uint64_t f2fp6(uint64_t b)
{
	return __nv_cvt_float_to_fp6(f32_of(b), K, R);
}
template <__nv_fp6_interpretation_t K, cudaRoundMode R> uint64_t d2fp6(uint64_t b)
{
	return __nv_cvt_double_to_fp6(f64_of(b), K, R);
}
template <__nv_fp6_interpretation_t K, cudaRoundMode R> uint64_t h2fp6(uint64_t b)
{
	return __nv_cvt_halfraw_to_fp6(half_raw_of(b), K, R);
}
template <__nv_fp6_interpretation_t K, cudaRoundMode R> uint64_t bf2fp6(uint64_t b)
{
	return __nv_cvt_bfloat16raw_to_fp6(bf16_raw_of(b), K, R);
}
template <__nv_fp6_interpretation_t K> uint64_t fp6_2h(uint64_t b)
{
	return __nv_cvt_fp6_to_halfraw((__nv_fp6_storage_t)b, K).x;
}

template <cudaRoundMode R> uint64_t f2fp4(uint64_t b)
{
	return __nv_cvt_float_to_fp4(f32_of(b), __NV_E2M1, R);
}
template <cudaRoundMode R> uint64_t d2fp4(uint64_t b)
{
	return __nv_cvt_double_to_fp4(f64_of(b), __NV_E2M1, R);
}
template <cudaRoundMode R> uint64_t h2fp4(uint64_t b)
{
	return __nv_cvt_halfraw_to_fp4(half_raw_of(b), __NV_E2M1, R);
}
template <cudaRoundMode R> uint64_t bf2fp4(uint64_t b)
{
	return __nv_cvt_bfloat16raw_to_fp4(bf16_raw_of(b), __NV_E2M1, R);
}
uint64_t fp4_2h(uint64_t b)
{
	return __nv_cvt_fp4_to_halfraw((__nv_fp4_storage_t)b, __NV_E2M1).x;
}

template <__nv_saturation_t S, cudaRoundMode R> uint64_t f2e8m0(uint64_t b)
{
	return __nv_cvt_float_to_e8m0(f32_of(b), S, R);
}
template <__nv_saturation_t S, cudaRoundMode R> uint64_t d2e8m0(uint64_t b)
{
	return __nv_cvt_double_to_e8m0(f64_of(b), S, R);
}
template <__nv_saturation_t S, cudaRoundMode R> uint64_t bf2e8m0(uint64_t b)
{
	return __nv_cvt_bfloat16raw_to_e8m0(bf16_raw_of(b), S, R);
}
uint64_t e8m0_2bf(uint64_t b)
{
	return __nv_cvt_e8m0_to_bf16raw((__nv_fp8_storage_t)b).x;
}

/* ---- the table: each function with fpref's formats and environment ---- */

enum sweep { EVERY_PATTERN, F32_SAMPLE, F64_SAMPLE };

struct cuda_function {
	const char *name;
	const char *from, *to;
	enum fpref_rounding rounding;
	bool sat; /* __NV_SATFINITE, or a function documented to saturate (FP6, FP4) */
	uint64_t (*cuda)(uint64_t);
	enum sweep sweep;
};

#define RNE FPREF_RNE
#define RTZ FPREF_RTZ
#define RUP FPREF_RUP
#define RDN FPREF_RDN
#define SAT __NV_SATFINITE
#define NOSAT __NV_NOSAT
#define NEAR cudaRoundNearest
#define ZERO cudaRoundZero
#define POS cudaRoundPosInf

const cuda_function functions[] = {
	{ "__float2half_rn", "f32", "f16", RNE, false, f2h_rn, F32_SAMPLE },
	{ "__float2half_rz", "f32", "f16", RTZ, false, f2h_rz, F32_SAMPLE },
	{ "__float2half_rd", "f32", "f16", RDN, false, f2h_rd, F32_SAMPLE },
	{ "__float2half_ru", "f32", "f16", RUP, false, f2h_ru, F32_SAMPLE },
	{ "__double2half", "f64", "f16", RNE, false, d2h, F64_SAMPLE },
	{ "__half2float", "f16", "f32", RNE, false, h2f, EVERY_PATTERN },
	{ "__float2bfloat16_rn", "f32", "bf16", RNE, false, f2bf_rn, F32_SAMPLE },
	{ "__float2bfloat16_rz", "f32", "bf16", RTZ, false, f2bf_rz, F32_SAMPLE },
	{ "__float2bfloat16_rd", "f32", "bf16", RDN, false, f2bf_rd, F32_SAMPLE },
	{ "__float2bfloat16_ru", "f32", "bf16", RUP, false, f2bf_ru, F32_SAMPLE },
	{ "__double2bfloat16", "f64", "bf16", RNE, false, d2bf, F64_SAMPLE },
	{ "__bfloat162float", "bf16", "f32", RNE, false, bf2f, EVERY_PATTERN },

	{ "__nv_cvt_float_to_fp8 E4M3 SATFINITE", "f32", "e4m3", RNE, true, f2fp8<SAT, __NV_E4M3>, F32_SAMPLE },
	{ "__nv_cvt_float_to_fp8 E4M3 NOSAT", "f32", "e4m3", RNE, false, f2fp8<NOSAT, __NV_E4M3>, F32_SAMPLE },
	{ "__nv_cvt_float_to_fp8 E5M2 SATFINITE", "f32", "e5m2", RNE, true, f2fp8<SAT, __NV_E5M2>, F32_SAMPLE },
	{ "__nv_cvt_float_to_fp8 E5M2 NOSAT", "f32", "e5m2", RNE, false, f2fp8<NOSAT, __NV_E5M2>, F32_SAMPLE },
	{ "__nv_cvt_double_to_fp8 E4M3 SATFINITE", "f64", "e4m3", RNE, true, d2fp8<SAT, __NV_E4M3>, F64_SAMPLE },
	{ "__nv_cvt_double_to_fp8 E4M3 NOSAT", "f64", "e4m3", RNE, false, d2fp8<NOSAT, __NV_E4M3>, F64_SAMPLE },
	{ "__nv_cvt_double_to_fp8 E5M2 SATFINITE", "f64", "e5m2", RNE, true, d2fp8<SAT, __NV_E5M2>, F64_SAMPLE },
	{ "__nv_cvt_double_to_fp8 E5M2 NOSAT", "f64", "e5m2", RNE, false, d2fp8<NOSAT, __NV_E5M2>, F64_SAMPLE },
	{ "__nv_cvt_halfraw_to_fp8 E4M3 SATFINITE", "f16", "e4m3", RNE, true, h2fp8<SAT, __NV_E4M3>, EVERY_PATTERN },
	{ "__nv_cvt_halfraw_to_fp8 E4M3 NOSAT", "f16", "e4m3", RNE, false, h2fp8<NOSAT, __NV_E4M3>, EVERY_PATTERN },
	{ "__nv_cvt_halfraw_to_fp8 E5M2 SATFINITE", "f16", "e5m2", RNE, true, h2fp8<SAT, __NV_E5M2>, EVERY_PATTERN },
	{ "__nv_cvt_halfraw_to_fp8 E5M2 NOSAT", "f16", "e5m2", RNE, false, h2fp8<NOSAT, __NV_E5M2>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp8 E4M3 SATFINITE", "bf16", "e4m3", RNE, true, bf2fp8<SAT, __NV_E4M3>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp8 E4M3 NOSAT", "bf16", "e4m3", RNE, false, bf2fp8<NOSAT, __NV_E4M3>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp8 E5M2 SATFINITE", "bf16", "e5m2", RNE, true, bf2fp8<SAT, __NV_E5M2>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp8 E5M2 NOSAT", "bf16", "e5m2", RNE, false, bf2fp8<NOSAT, __NV_E5M2>, EVERY_PATTERN },
	{ "__nv_cvt_fp8_to_halfraw E4M3", "e4m3", "f16", RNE, false, fp8_2h<__NV_E4M3>, EVERY_PATTERN },
	{ "__nv_cvt_fp8_to_halfraw E5M2", "e5m2", "f16", RNE, false, fp8_2h<__NV_E5M2>, EVERY_PATTERN },

	{ "__nv_cvt_float_to_fp6 E2M3 rn", "f32", "e2m3", RNE, true, f2fp6<__NV_E2M3, NEAR>, F32_SAMPLE },
	{ "__nv_cvt_float_to_fp6 E2M3 rz", "f32", "e2m3", RTZ, true, f2fp6<__NV_E2M3, ZERO>, F32_SAMPLE },
	{ "__nv_cvt_float_to_fp6 E3M2 rn", "f32", "e3m2", RNE, true, f2fp6<__NV_E3M2, NEAR>, F32_SAMPLE },
	{ "__nv_cvt_float_to_fp6 E3M2 rz", "f32", "e3m2", RTZ, true, f2fp6<__NV_E3M2, ZERO>, F32_SAMPLE },
	{ "__nv_cvt_double_to_fp6 E2M3 rn", "f64", "e2m3", RNE, true, d2fp6<__NV_E2M3, NEAR>, F64_SAMPLE },
	{ "__nv_cvt_double_to_fp6 E2M3 rz", "f64", "e2m3", RTZ, true, d2fp6<__NV_E2M3, ZERO>, F64_SAMPLE },
	{ "__nv_cvt_double_to_fp6 E3M2 rn", "f64", "e3m2", RNE, true, d2fp6<__NV_E3M2, NEAR>, F64_SAMPLE },
	{ "__nv_cvt_double_to_fp6 E3M2 rz", "f64", "e3m2", RTZ, true, d2fp6<__NV_E3M2, ZERO>, F64_SAMPLE },
	{ "__nv_cvt_halfraw_to_fp6 E2M3 rn", "f16", "e2m3", RNE, true, h2fp6<__NV_E2M3, NEAR>, EVERY_PATTERN },
	{ "__nv_cvt_halfraw_to_fp6 E2M3 rz", "f16", "e2m3", RTZ, true, h2fp6<__NV_E2M3, ZERO>, EVERY_PATTERN },
	{ "__nv_cvt_halfraw_to_fp6 E3M2 rn", "f16", "e3m2", RNE, true, h2fp6<__NV_E3M2, NEAR>, EVERY_PATTERN },
	{ "__nv_cvt_halfraw_to_fp6 E3M2 rz", "f16", "e3m2", RTZ, true, h2fp6<__NV_E3M2, ZERO>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp6 E2M3 rn", "bf16", "e2m3", RNE, true, bf2fp6<__NV_E2M3, NEAR>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp6 E2M3 rz", "bf16", "e2m3", RTZ, true, bf2fp6<__NV_E2M3, ZERO>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp6 E3M2 rn", "bf16", "e3m2", RNE, true, bf2fp6<__NV_E3M2, NEAR>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp6 E3M2 rz", "bf16", "e3m2", RTZ, true, bf2fp6<__NV_E3M2, ZERO>, EVERY_PATTERN },
	{ "__nv_cvt_fp6_to_halfraw E2M3", "e2m3", "f16", RNE, false, fp6_2h<__NV_E2M3>, EVERY_PATTERN },
	{ "__nv_cvt_fp6_to_halfraw E3M2", "e3m2", "f16", RNE, false, fp6_2h<__NV_E3M2>, EVERY_PATTERN },

	{ "__nv_cvt_float_to_fp4 E2M1 rn", "f32", "e2m1", RNE, true, f2fp4<NEAR>, F32_SAMPLE },
	{ "__nv_cvt_float_to_fp4 E2M1 rz", "f32", "e2m1", RTZ, true, f2fp4<ZERO>, F32_SAMPLE },
	{ "__nv_cvt_double_to_fp4 E2M1 rn", "f64", "e2m1", RNE, true, d2fp4<NEAR>, F64_SAMPLE },
	{ "__nv_cvt_double_to_fp4 E2M1 rz", "f64", "e2m1", RTZ, true, d2fp4<ZERO>, F64_SAMPLE },
	{ "__nv_cvt_halfraw_to_fp4 E2M1 rn", "f16", "e2m1", RNE, true, h2fp4<NEAR>, EVERY_PATTERN },
	{ "__nv_cvt_halfraw_to_fp4 E2M1 rz", "f16", "e2m1", RTZ, true, h2fp4<ZERO>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp4 E2M1 rn", "bf16", "e2m1", RNE, true, bf2fp4<NEAR>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_fp4 E2M1 rz", "bf16", "e2m1", RTZ, true, bf2fp4<ZERO>, EVERY_PATTERN },
	{ "__nv_cvt_fp4_to_halfraw E2M1", "e2m1", "f16", RNE, false, fp4_2h, EVERY_PATTERN },

	{ "__nv_cvt_float_to_e8m0 SATFINITE rz", "f32", "e8m0", RTZ, true, f2e8m0<SAT, ZERO>, F32_SAMPLE },
	{ "__nv_cvt_float_to_e8m0 NOSAT rz", "f32", "e8m0", RTZ, false, f2e8m0<NOSAT, ZERO>, F32_SAMPLE },
	{ "__nv_cvt_float_to_e8m0 SATFINITE rp", "f32", "e8m0", RUP, true, f2e8m0<SAT, POS>, F32_SAMPLE },
	{ "__nv_cvt_float_to_e8m0 NOSAT rp", "f32", "e8m0", RUP, false, f2e8m0<NOSAT, POS>, F32_SAMPLE },
	{ "__nv_cvt_double_to_e8m0 SATFINITE rz", "f64", "e8m0", RTZ, true, d2e8m0<SAT, ZERO>, F64_SAMPLE },
	{ "__nv_cvt_double_to_e8m0 NOSAT rz", "f64", "e8m0", RTZ, false, d2e8m0<NOSAT, ZERO>, F64_SAMPLE },
	{ "__nv_cvt_double_to_e8m0 SATFINITE rp", "f64", "e8m0", RUP, true, d2e8m0<SAT, POS>, F64_SAMPLE },
	{ "__nv_cvt_double_to_e8m0 NOSAT rp", "f64", "e8m0", RUP, false, d2e8m0<NOSAT, POS>, F64_SAMPLE },
	{ "__nv_cvt_bfloat16raw_to_e8m0 SATFINITE rz", "bf16", "e8m0", RTZ, true, bf2e8m0<SAT, ZERO>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_e8m0 NOSAT rz", "bf16", "e8m0", RTZ, false, bf2e8m0<NOSAT, ZERO>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_e8m0 SATFINITE rp", "bf16", "e8m0", RUP, true, bf2e8m0<SAT, POS>, EVERY_PATTERN },
	{ "__nv_cvt_bfloat16raw_to_e8m0 NOSAT rp", "bf16", "e8m0", RUP, false, bf2e8m0<NOSAT, POS>, EVERY_PATTERN },
	{ "__nv_cvt_e8m0_to_bf16raw", "e8m0", "bf16", RNE, false, e8m0_2bf, EVERY_PATTERN },
};

/* ---- the fpref side ---- */

struct fpref_side {
	struct fpref_format from, to;
	struct fpref_env env;
	struct fpref_emu_converter *conv;
};

bool fpref_side_init(const cuda_function &fn, fpref_side *s)
{
	char err[256];
	if (fpref_format_parse(fn.from, &s->from, err, sizeof err) != 0 ||
	    fpref_format_parse(fn.to, &s->to, err, sizeof err) != 0) {
		std::fprintf(stderr, "%s: %s\n", fn.name, err);
		return false;
	}
	fpref_env_default(&s->env);
	if (fpref_profile_apply_conversion("cuda", &s->from, &s->to, &s->env) != 0) {
		std::fprintf(stderr, "no cuda profile\n");
		return false;
	}
	s->env.rounding = fn.rounding;
	s->env.overflow = fn.sat ? FPREF_OVERFLOW_SAT : FPREF_OVERFLOW_IEEE;
	s->conv = fpref_emu_converter_new(&s->from, &s->to, &s->env);
	return s->conv != nullptr;
}

/* Element i of an array of format f (little-endian containers). */
uint64_t element(const std::vector<uint8_t> &buf, size_t bytes, size_t i)
{
	uint64_t v = 0;
	std::memcpy(&v, buf.data() + i * bytes, bytes);
	return v;
}

struct tally {
	unsigned long long compared = 0, differ = 0;
};

/* Compare the function on n source patterns; count and print differences. */
void compare(const cuda_function &fn, const fpref_side &s, const std::vector<uint64_t> &in, tally *t)
{
	size_t in_bytes = fpref_emu_element_bytes(&s.from), out_bytes = fpref_emu_element_bytes(&s.to);
	std::vector<uint8_t> src(in.size() * in_bytes), dst(in.size() * out_bytes);
	for (size_t i = 0; i < in.size(); i++)
		std::memcpy(src.data() + i * in_bytes, &in[i], in_bytes);
	fpref_emu_convert_array(s.conv, src.data(), dst.data(), in.size(), nullptr, 0);
	for (size_t i = 0; i < in.size(); i++) {
		uint64_t want = fn.cuda(in[i]), got = element(dst, out_bytes, i);
		t->compared++;
		if (want == got)
			continue;
		if (t->differ++ < PRINT_LIMIT) {
			char a[40], b[40], c[40];
			fpref_format_hex(&s.from, in[i], a, sizeof a);
			fpref_format_hex(&s.to, want, b, sizeof b);
			fpref_format_hex(&s.to, got, c, sizeof c);
			std::printf("  %s(%s): cuda %s, fpref %s\n", fn.name, a, b, c);
		}
	}
}

/* ---- inputs ---- */

uint64_t rng_next(uint64_t *state)
{
	return fpref_sr_stream(0x63756461u, (*state)++);
}

/* Patterns of an IEEE format with e exponent and m mantissa bits: every
 * sign and exponent field in [lo, hi], and for every cut position p (the
 * number of mantissa bits a rounding drops) the dropped bits set to 0, 1, a
 * tie, a tie +- 1, all ones or all ones - 1, under kept bits that run
 * through every value of the top k mantissa bits (random below them),
 * ending in 0 and in 1, and kept bits 0, 1, all ones and all ones - 1 (the
 * edges of a binade: overflow and the least normal). */
void structured(int e, int m, int k, unsigned lo, unsigned hi, std::vector<uint64_t> *out)
{
	uint64_t state = (uint64_t)m * 1000 + (uint64_t)e;
	uint64_t man_mask = (1ull << m) - 1;
	std::vector<uint64_t> kept;
	for (unsigned sign = 0; sign < 2; sign++)
		for (unsigned ex = lo; ex <= hi; ex++)
			for (int p = 1; p <= m; p++) {
				uint64_t half = 1ull << (p - 1), full = (1ull << p) - 1;
				const uint64_t low[] = { 0, 1, half - 1, half, half + 1, full, full - 1 };
				kept.assign({ 0, 1ull << p, man_mask, man_mask - (1ull << p) });
				for (uint64_t prefix = 0; prefix < (1ull << k); prefix++)
					for (uint64_t lsb = 0; lsb < 2; lsb++) {
						uint64_t middle = (rng_next(&state) << 1 | lsb) << p;
						kept.push_back((prefix << (m - k) | (middle & ((1ull << (m - k)) - 1))) & man_mask);
					}
				for (uint64_t kb : kept)
					for (uint64_t l : low) {
						uint64_t man = ((kb & ~full) | l) & man_mask;
						out->push_back((uint64_t)sign << (e + m) | (uint64_t)ex << m | man);
					}
			}
}

void random_patterns(int bits, size_t n, uint64_t seed, std::vector<uint64_t> *out)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = fpref_sr_stream(seed, i);
		out->push_back(bits >= 64 ? r : r & ((1ull << bits) - 1));
	}
}

void f32_sample(std::vector<uint64_t> *out)
{
	structured(8, 23, 4, 0, 255, out);
	random_patterns(32, RANDOM_F32, 32, out);
	/* random significands over the exponents where narrow targets round */
	for (size_t i = 0; i < RANDOM_F32; i++) {
		uint64_t r = fpref_sr_stream(33, i);
		uint64_t ex = 127 - 40 + (r >> 40) % 60;
		out->push_back((r >> 63) << 31 | ex << 23 | (r & 0x7FFFFF));
	}
	const uint64_t special[] = { 0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
				     0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FA00000,
				     0x7F7FFFFF, 0xFF7FFFFF, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000 };
	out->insert(out->end(), std::begin(special), std::end(special));
}

void f64_sample(std::vector<uint64_t> *out)
{
	/* the exponents that reach any target's range (FP32's, and 40 binades
	 * beyond), and the extremes */
	structured(11, 52, 3, 1023 - 190, 1023 + 170, out);
	structured(11, 52, 3, 0, 2, out);
	structured(11, 52, 3, 2045, 2047, out);
	random_patterns(64, RANDOM_F64, 64, out);
	for (size_t i = 0; i < RANDOM_F64; i++) {
		uint64_t r = fpref_sr_stream(65, i);
		uint64_t ex = 1023 - 40 + (r >> 40) % 60;
		out->push_back((r >> 63) << 63 | ex << 52 | (r & 0xFFFFFFFFFFFFFull));
	}
	const uint64_t special[] = { 0, 1ull << 63, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
				     0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull,
				     0xFFF0000000000001ull, 0x7FF4000000000000ull, 0xFFF4000000000000ull,
				     0x7FFC000000000000ull, 0xFFFC000000000000ull, 0x7FFFFFFFFFFFFFFFull,
				     0xFFFFFFFFFFFFFFFFull, 0x7FEFFFFFFFFFFFFFull, 1, 0x000FFFFFFFFFFFFFull };
	out->insert(out->end(), std::begin(special), std::end(special));
}

/* Feed `in` in chunks to compare(). */
void compare_all(const cuda_function &fn, const fpref_side &s, const std::vector<uint64_t> &in, tally *t)
{
	for (size_t start = 0; start < in.size(); start += CHUNK) {
		size_t n = std::min(CHUNK, in.size() - start);
		std::vector<uint64_t> part(in.begin() + (long)start, in.begin() + (long)(start + n));
		compare(fn, s, part, t);
	}
}

struct shard {
	unsigned long index = 0, count = 1;
};

bool shard_from_env(shard *s)
{
	const char *v = std::getenv("FPREF_SHARD");
	if (v && (std::sscanf(v, "%lu/%lu", &s->index, &s->count) != 2 || s->count == 0 || s->index >= s->count)) {
		std::fprintf(stderr, "FPREF_SHARD must be i/N with 0 <= i < N, not '%s'\n", v);
		return false;
	}
	return true;
}

/* make check-exhaustive: every FP32 pattern, in blocks of 2^16 taken by
 * this shard. */
void f32_every_pattern(const cuda_function &fn, const fpref_side &s, const shard &sh, tally *t)
{
	std::vector<uint64_t> block(65536);
	for (uint64_t hi = 0; hi < 65536; hi++) {
		if (hi % sh.count != sh.index)
			continue;
		for (uint64_t lo = 0; lo < 65536; lo++)
			block[lo] = hi << 16 | lo;
		compare(fn, s, block, t);
	}
}

} // namespace

int main()
{
	const char *e = std::getenv("FPREF_EXHAUSTIVE");
	bool exhaustive = e && std::strcmp(e, "1") == 0;
	shard sh;
	if (!shard_from_env(&sh))
		return 2;
	std::vector<uint64_t> f32_in, f64_in;
	if (!exhaustive)
		f32_sample(&f32_in);
	f64_sample(&f64_in);
	for (std::vector<uint64_t> *v : { &f32_in, &f64_in }) { /* distinct inputs only */
		std::sort(v->begin(), v->end());
		v->erase(std::unique(v->begin(), v->end()), v->end());
	}
	unsigned long long compared = 0, differ = 0;
	size_t failed = 0;
	for (const cuda_function &fn : functions) {
		fpref_side s;
		if (!fpref_side_init(fn, &s))
			return 1;
		tally t;
		if (fn.sweep == EVERY_PATTERN) {
			if (sh.index == 0) {
				std::vector<uint64_t> all;
				for (uint64_t b = 0; b >> fpref_format_container_bits(&s.from) == 0; b++)
					all.push_back(b);
				compare_all(fn, s, all, &t);
			}
		} else if (fn.sweep == F32_SAMPLE) {
			if (exhaustive)
				f32_every_pattern(fn, s, sh, &t);
			else
				compare_all(fn, s, f32_in, &t);
		} else if (sh.index == 0) {
			compare_all(fn, s, f64_in, &t);
		}
		fpref_emu_converter_free(s.conv);
		std::printf("%s %-45s %s -> %s: %llu compared, %llu differ\n", t.differ ? "FAIL" : "ok  ", fn.name,
			    fn.from, fn.to, t.compared, t.differ);
		compared += t.compared;
		differ += t.differ;
		failed += t.differ != 0;
	}
	// The last line in the form tools/check's summary reads.
	std::printf("%zu passed, %zu failed (functions); %llu conversions compared, %llu differ\n",
		    sizeof functions / sizeof functions[0] - failed, failed, compared, differ);
	return differ == 0 ? 0 : 1;
}
