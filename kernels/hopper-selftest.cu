// Self-test of kernels/wgmma.cu and kernels/cublaslt.cu.
//
//   hopper-selftest --cpu        host-side checks only (layout model, argument checks)
//   hopper-selftest [--dump DIR] host checks, then the GPU runs; DIR receives the
//                                result files for `fpref dot` and `fpref gemm`
//
// Exit status: 0 all checks passed, 1 a check failed, 77 GPU part skipped
// (no suitable device; the host checks passed).  kernels/HOPPER.md explains
// how to read the output.
#include "hopper.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_failures = 0;  // the test driver's own tally (single-threaded main)

void check(bool ok, const char *what)
{
    if (!ok) {
        std::printf("FAIL: %s\n", what);
        ++g_failures;
    }
}

// ---- host-side checks ------------------------------------------------------

// The packing code against the PTX ISA's canonical layout evaluated from the
// descriptor: element (row, col) must be read where it was packed.
void check_layout(int elem_bytes)
{
    const uint32_t base = 0x1230u;
    const uint64_t desc = fpref_wgmma_tile_desc(base, 0);
    const unsigned tile = FPREF_WGMMA_TILE_ROWS * 32u;
    std::vector<int> label(tile, -1);
    int clashes = 0;
    for (unsigned row = 0; row < FPREF_WGMMA_TILE_ROWS; ++row)
        for (unsigned kb = 0; kb < 32u; ++kb) {
            unsigned off = fpref_wgmma_pack_offset_host(row, kb);
            if (off >= tile || label[off] >= 0)
                ++clashes;
            else
                label[off] = static_cast<int>(row * 32u + kb);
        }
    check(clashes == 0, "packing: offsets distinct and inside the tile");
    int bad = 0;
    for (int row = 0; row < 64; ++row)
        for (int col = 0; col < 32 / elem_bytes; ++col) {
            long off = fpref_wgmma_model_offset(desc, elem_bytes, row, col);
            for (int j = 0; j < elem_bytes; ++j) {
                long at = off + j;
                int want = row * 32 + col * elem_bytes + j;
                if (at < 0 || at >= static_cast<long>(tile) || label[static_cast<size_t>(at)] != want)
                    ++bad;
            }
        }
    char what[96];
    std::snprintf(what, sizeof what, "layout: packing = descriptor model, %d-byte elements (%d bad)",
                  elem_bytes, bad);
    check(bad == 0, what);
}

void check_descriptor_bits()
{
    uint64_t d = fpref_wgmma_tile_desc(0x1230u, 0);
    check((d & 0x3FFF) == 0x123, "descriptor: start address >> 4 in bits 13-0");
    check(((d >> 16) & 0x3FFF) == 128 / 16, "descriptor: LBO 128 bytes in bits 29-16");
    check(((d >> 32) & 0x3FFF) == 256 / 16, "descriptor: SBO 256 bytes in bits 45-32");
    check((d >> 62) == 0 && ((d >> 49) & 7) == 0, "descriptor: no swizzle, base offset 0");
    uint64_t s = fpref_wgmma_tile_desc(0x1230u, 1);
    check(((s >> 16) & 0x3FFF) == 16 && ((s >> 32) & 0x3FFF) == 8, "descriptor: swapped LBO/SBO");
}

// The model against the PTX ISA's worked example (K-major, no swizzle, tf32):
// LBO = 64*4 bytes, SBO = 32*4 bytes, exact layout ((8,2),(4,4)):((4,32),(1,64)).
void check_model_against_ptx_example()
{
    uint64_t desc = (uint64_t{256 / 16} << 16) | (uint64_t{128 / 16} << 32);
    int bad = 0;
    for (int row = 0; row < 16; ++row)
        for (int col = 0; col < 16; ++col) {
            long want = ((row % 8) * 4 + (row / 8) * 32 + (col % 4) + (col / 4) * 64) * 4;
            if (fpref_wgmma_model_offset(desc, 4, row, col) != want)
                ++bad;
        }
    check(bad == 0, "layout model = PTX ISA example (K-major no-swizzle tf32)");
    check(fpref_wgmma_model_offset(desc | (uint64_t{1} << 62), 1, 0, 0) == -1,
          "layout model rejects swizzled descriptors");
}

void check_accumulator_map()
{
    std::vector<int> seen(64 * 64, 0);
    int diagonal = 0;
    for (unsigned t = 0; t < 128; ++t)
        for (unsigned v = 0; v < 32; ++v) {
            unsigned r, c;
            fpref_wgmma_acc_coord_host(t, v, &r, &c);
            if (r < 64 && c < 64)
                ++seen[r * 64 + c];
            diagonal += r == c;
        }
    int once = 0;
    for (int x : seen)
        once += x == 1;
    check(once == 64 * 64, "accumulator map: every D element held exactly once");
    check(diagonal == 64, "accumulator map: 64 diagonal values");
    // From the PTX ISA's D fragment figure: T0 d0..d3 at (0,0) (0,1) (8,0)
    // (8,1), d4 at (0,8); T1 d0 at (0,2); T4 d0 at (1,0); warp 1 starts at row 16.
    const unsigned expect[][4] = {{0, 0, 0, 0}, {0, 1, 0, 1}, {0, 2, 8, 0}, {0, 3, 8, 1},
                                  {0, 4, 0, 8}, {1, 0, 0, 2}, {4, 0, 1, 0}, {32, 0, 16, 0},
                                  {127, 31, 63, 63}};
    for (const auto &e : expect) {
        unsigned r, c;
        fpref_wgmma_acc_coord_host(e[0], e[1], &r, &c);
        char what[80];
        std::snprintf(what, sizeof what, "accumulator map: thread %u value %u at (%u,%u)", e[0],
                      e[1], e[2], e[3]);
        check(r == e[2] && c == e[3], what);
    }
}

void check_arguments(bool have_gpu)
{
    char err[256];
    uint8_t a[64] = {0}, b[64] = {0};
    float d[2];
    check(fpref_cuda_wgmma_dot("e4m3x", "f32", 32, a, b, nullptr, d, 1, err, sizeof err) == -1,
          "wgmma: unknown format is an error");
    check(fpref_cuda_wgmma_dot("e4m3", "f32", 48, a, b, nullptr, d, 1, err, sizeof err) == -1,
          "wgmma: K not a multiple of 32 is an error");
    check(fpref_cuda_wgmma_dot("bf16", "f16", 16, a, b, nullptr, d, 1, err, sizeof err) == 1,
          "wgmma: bf16 -> f16 has no instruction (unsupported)");
    check(fpref_cuda_wgmma_dot("e4m3", "f32", 32, nullptr, b, nullptr, d, 1, err, sizeof err) == -1,
          "wgmma: NULL a is an error");
    check(fpref_cuda_wgmma_dot("e4m3", "f32", 32, a, b, nullptr, d, 0, err, sizeof err) == 0,
          "wgmma: zero lines is nothing to do");
    char desc[256];
    check(fpref_cuda_cublaslt_gemm("e4m3", "e4m3", "f32", 0, 17, 16, 16, a, b, d, desc,
                                   sizeof desc, err, sizeof err) == -1,
          "cublaslt: M not a multiple of 16 is an error");
    check(fpref_cuda_cublaslt_gemm("e5m2", "e5m2", "f32", 0, 16, 16, 16, a, b, d, desc,
                                   sizeof desc, err, sizeof err) == 1,
          "cublaslt: E5M2 x E5M2 is unsupported");
    check(fpref_cuda_cublaslt_gemm("f16", "e4m3", "f32", 0, 16, 16, 16, a, b, d, desc,
                                   sizeof desc, err, sizeof err) == -1,
          "cublaslt: non-FP8 input is an error");
    check(fpref_cuda_cublaslt_gemm("e4m3", "e4m3", "e4m3", 0, 16, 16, 16, a, b, d, desc,
                                   sizeof desc, err, sizeof err) == -1,
          "cublaslt: FP8 output is an error");
    if (!have_gpu) {
        int rc = fpref_cuda_wgmma_dot("e4m3", "f32", 32, a, b, nullptr, d, 1, err, sizeof err);
        check(rc == 1 && std::strstr(err, "no CUDA device") != nullptr,
              "wgmma without a device: unsupported, says so");
        std::vector<uint8_t> big(256, 0);
        std::vector<float> dd(256);
        rc = fpref_cuda_cublaslt_gemm("e4m3", "e4m3", "f32", 0, 16, 16, 16, big.data(), big.data(),
                                      dd.data(), desc, sizeof desc, err, sizeof err);
        check(rc == 1 && std::strstr(err, "no CUDA device") != nullptr,
              "cublaslt without a device: unsupported, says so");
    }
}

// ---- value helpers (decoding only; exact) ------------------------------------

double decode_minifloat(uint32_t bits, int ebits, int mbits, int bias)
{
    int sign = (bits >> (ebits + mbits)) & 1;
    int e = static_cast<int>((bits >> mbits) & ((1u << ebits) - 1));
    double m = bits & ((1u << mbits) - 1);
    double v = e == 0 ? std::ldexp(m, 1 - bias - mbits)
                      : std::ldexp(m + std::ldexp(1.0, mbits), e - bias - mbits);
    return sign ? -v : v;
}

struct Fmt {
    const char *name;
    int bytes, ebits, mbits, bias;
};
const Fmt kE4m3 = {"float8_e4m3fn", 1, 4, 3, 7}, kE5m2 = {"float8_e5m2", 1, 5, 2, 15},
          kF16 = {"float16", 2, 5, 10, 15}, kBf16 = {"bfloat16", 2, 8, 7, 127},
          kF32 = {"float32", 4, 8, 23, 127};

double decode(const Fmt &f, uint32_t bits) { return decode_minifloat(bits, f.ebits, f.mbits, f.bias); }

// Bits of +-2^e * (1 + frac / 2^mbits) in f (normal range; the caller keeps it there).
uint32_t encode_normal(const Fmt &f, int sign, int e, uint32_t frac)
{
    return (static_cast<uint32_t>(sign) << (f.ebits + f.mbits)) |
           (static_cast<uint32_t>(e + f.bias) << f.mbits) | (frac & ((1u << f.mbits) - 1));
}

uint32_t get(const Fmt &f, const uint8_t *p, size_t i)
{
    if (f.bytes == 1)
        return p[i];
    if (f.bytes == 2)
        return static_cast<uint32_t>(p[2 * i]) | static_cast<uint32_t>(p[2 * i + 1]) << 8;
    uint32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
}

void put(const Fmt &f, std::vector<uint8_t> &p, size_t i, uint32_t bits)
{
    for (int j = 0; j < f.bytes; ++j)
        p[static_cast<size_t>(f.bytes) * i + static_cast<size_t>(j)] = static_cast<uint8_t>(bits >> (8 * j));
}

// SplitMix64: the seeded stream of the test inputs.
struct Rng {
    uint64_t s;
    uint64_t next()
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

// A finite FP8 encoding, uniformly; a 16-bit value with exponent in [-8, 8].
uint32_t random_input(const Fmt &f, Rng &r)
{
    if (f.bytes == 1)
        for (;;) {
            uint32_t v = static_cast<uint32_t>(r.below(256));
            bool nan_or_inf = f.ebits == 4 ? (v & 0x7F) == 0x7F : (v & 0x7C) == 0x7C;
            if (!nan_or_inf)
                return v;
        }
    return encode_normal(f, r.below(2), r.below(17) - 8, static_cast<uint32_t>(r.next()));
}

// ---- GPU: WGMMA ----------------------------------------------------------------

struct DotCase {
    const Fmt *in, *out;
    int K;
};

struct DotData {
    std::vector<uint8_t> a, b, c, d;
    bool with_c;
};

int run_dot(const DotCase &dc, DotData &x, size_t lines, char *err, size_t errlen)
{
    x.d.assign(lines * static_cast<size_t>(dc.out->bytes), 0);
    return fpref_cuda_wgmma_dot(dc.in->name, dc.out->name, dc.K, x.a.data(), x.b.data(),
                                x.with_c ? x.c.data() : nullptr, x.d.data(), lines, err, errlen);
}

// pick 0: zero; 1..6: +0.5, -0.5, +1, -1, +2, -2.
uint32_t small_value(const Fmt &f, int pick)
{
    return pick == 0 ? 0 : encode_normal(f, (pick - 1) % 2, (pick - 1) / 2 - 1, 0);
}

// v in [-3, 3].
uint32_t small_integer(const Fmt &f, int v)
{
    int m = v < 0 ? -v : v;
    if (m == 0)
        return 0;
    return encode_normal(f, v < 0, m == 1 ? 0 : 1, m == 3 ? 1u << (f.mbits - 1) : 0);
}

// Small multiples of 1/2 in every slot: every accumulation order gives the exact
// sum, so a wrong layout, fragment map or chaining shows as a wrong value.
DotData exact_inputs(const DotCase &dc, size_t lines, bool with_c, Rng &r)
{
    DotData x;
    x.with_c = with_c;
    const size_t n = lines * static_cast<size_t>(dc.K);
    x.a.assign(n * static_cast<size_t>(dc.in->bytes), 0);
    x.b = x.a;
    x.c.assign(lines * static_cast<size_t>(dc.out->bytes), 0);
    for (size_t i = 0; i < n; ++i) {
        put(*dc.in, x.a, i, small_value(*dc.in, r.below(7)));
        put(*dc.in, x.b, i, small_value(*dc.in, r.below(7)));
    }
    if (with_c)
        for (size_t i = 0; i < lines; ++i) {
            put(*dc.out, x.c, i, small_integer(*dc.out, r.below(7) - 3));
        }
    return x;
}

int compare_exact(const DotCase &dc, const DotData &x, size_t lines)
{
    int bad = 0;
    for (size_t i = 0; i < lines; ++i) {
        double want = x.with_c ? decode(*dc.out, get(*dc.out, x.c.data(), i)) : 0.0;
        for (int k = 0; k < dc.K; ++k) {
            size_t j = i * static_cast<size_t>(dc.K) + static_cast<size_t>(k);
            want += decode(*dc.in, get(*dc.in, x.a.data(), j)) * decode(*dc.in, get(*dc.in, x.b.data(), j));
        }
        double got = decode(*dc.out, get(*dc.out, x.d.data(), i));
        if (got != want && bad++ < 4)
            std::printf("    line %zu: want %g, got %g\n", i, want, got);
    }
    return bad;
}

// The layout check on the hardware: 130 lines (three tiles, the last partial),
// two chained instructions, with and without C.
bool wgmma_exact_check(const DotCase &dc, Rng &r)
{
    const size_t lines = 130;
    char err[256];
    bool all_ok = true;
    for (int with_c = 0; with_c < 2; ++with_c) {
        DotData x = exact_inputs(dc, lines, with_c != 0, r);
        int rc = run_dot(dc, x, lines, err, sizeof err);
        if (rc != 0) {
            std::printf("  wgmma %s -> %s K=%d: rc %d: %s\n", dc.in->name, dc.out->name, dc.K, rc, err);
            check(false, "wgmma ran");
            return false;
        }
        int bad = compare_exact(dc, x, lines);
        std::printf("  wgmma %-13s -> %-7s K=%-3d C %-6s exact check: %s (%d of %zu wrong)\n",
                    dc.in->name, dc.out->name, dc.K, with_c ? "loaded" : "= 0", bad ? "FAIL" : "ok",
                    bad, lines);
        if (bad && !with_c) {
            // Diagnose: the same inputs with LBO and SBO exchanged in the descriptors.
            setenv("FPREF_WGMMA_SWAP_LBO_SBO", "1", 1);
            int rc2 = run_dot(dc, x, lines, err, sizeof err);
            unsetenv("FPREF_WGMMA_SWAP_LBO_SBO");
            int bad2 = rc2 == 0 ? compare_exact(dc, x, lines) : -1;
            std::printf("    with FPREF_WGMMA_SWAP_LBO_SBO=1: %s\n",
                        bad2 == 0 ? "ALL RIGHT -> the descriptor fields are swapped in wgmma.cu"
                                  : "still wrong");
        }
        check(bad == 0, "wgmma exact check");
        all_ok = all_ok && bad == 0;
    }
    return all_ok;
}

void hex(FILE *f, const Fmt &fmt, uint32_t bits) { std::fprintf(f, "%0*X", 2 * fmt.bytes, bits); }

// Lines `a_1..a_K b_1..b_K c d` for `fpref dot` (c is 0 bits where C = 0 ran
// as scale-d = 0).
void write_dot_file(const std::string &path, const DotCase &dc, const DotData &x, size_t lines)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        std::printf("  cannot write %s\n", path.c_str());
        check(false, "dump file written");
        return;
    }
    for (size_t i = 0; i < lines; ++i) {
        for (int k = 0; k < dc.K; ++k) {
            hex(f, *dc.in, get(*dc.in, x.a.data(), i * static_cast<size_t>(dc.K) + static_cast<size_t>(k)));
            std::fputc(' ', f);
        }
        for (int k = 0; k < dc.K; ++k) {
            hex(f, *dc.in, get(*dc.in, x.b.data(), i * static_cast<size_t>(dc.K) + static_cast<size_t>(k)));
            std::fputc(' ', f);
        }
        hex(f, *dc.out, x.with_c ? get(*dc.out, x.c.data(), i) : 0);
        std::fputc(' ', f);
        hex(f, *dc.out, get(*dc.out, x.d.data(), i));
        std::fputc('\n', f);
    }
    if (std::fclose(f) != 0)
        check(false, "dump file closed");
}

DotData random_inputs(const DotCase &dc, size_t lines, bool with_c, Rng &r)
{
    DotData x;
    x.with_c = with_c;
    const size_t n = lines * static_cast<size_t>(dc.K);
    x.a.assign(n * static_cast<size_t>(dc.in->bytes), 0);
    x.b = x.a;
    x.c.assign(lines * static_cast<size_t>(dc.out->bytes), 0);
    for (size_t i = 0; i < n; ++i) {
        put(*dc.in, x.a, i, random_input(*dc.in, r));
        put(*dc.in, x.b, i, random_input(*dc.in, r));
    }
    if (with_c)
        for (size_t i = 0; i < lines; ++i)
            put(*dc.out, x.c, i, encode_normal(*dc.out, r.below(2), r.below(13) - 4, static_cast<uint32_t>(r.next())));
    return x;
}

// Probes for C != 0 on the FP8 unit (K = 32, E4M3, FP32 out), printed with
// what each outcome means.  Products 2^-9 * 2^-9 = 2^-18, 32 of them = 2^-13.
void wgmma_c_probes(const std::string &dump)
{
    const DotCase dc = {&kE4m3, &kF32, 32};
    struct Probe {
        const char *what;
        uint8_t a_first, a_rest;
        float c;
        bool with_c;
        const char *meaning;
    } probes[] = {
        {"C=1, 32 x 2^-18", 0x01, 0x01, 1.0f, true,
         "d = 1 (3F800000): C is aligned with the products (13 fraction bits); "
         "d = 1+2^-13 (3F800400): C added after the products' sum"},
        {"C=0 (scale-d 0), 1 + 31 x 2^-18", 0x38, 0x01, 0.0f, false,
         "d = 1: products truncated to 13 fraction bits (published H100 behaviour)"},
        {"C=+0 loaded, 1 + 31 x 2^-18", 0x38, 0x01, 0.0f, true, "same as above unless C changes the path"},
        {"C=2^-13, 32 x 2^-18", 0x01, 0x01, 0.0001220703125f, true,
         "d = 2^-12 (39800000) exact"},
        {"C=-0 loaded, products -0", 0x80, 0x80, -0.0f, true, "sign of zero: -0 (80000000) under IEEE"},
        {"C=0 (scale-d 0), products -0", 0x80, 0x80, 0.0f, false, "sign of zero with scale-d = 0"},
    };
    const size_t n = sizeof probes / sizeof probes[0];
    FILE *f = dump.empty() ? nullptr : std::fopen((dump + "/wgmma-c-probes.txt").c_str(), "w");
    for (size_t p = 0; p < n; ++p) {
        DotData x;
        x.with_c = probes[p].with_c;
        x.a.assign(32, probes[p].a_rest);
        x.a[0] = probes[p].a_first;
        x.b.assign(32, probes[p].a_first == 0x80 ? 0x00 : 0x01);
        x.b[0] = probes[p].a_first == 0x38 ? 0x38 : x.b[0];
        x.c.assign(4, 0);
        std::memcpy(x.c.data(), &probes[p].c, 4);
        char err[256];
        int rc = run_dot(dc, x, 1, err, sizeof err);
        uint32_t d = get(kF32, x.d.data(), 0);
        if (rc != 0) {
            std::printf("  probe %s: rc %d %s\n", probes[p].what, rc, err);
            check(false, "wgmma probe ran");
            continue;
        }
        std::printf("  probe %-34s d = %08X (%.10g)   [%s]\n", probes[p].what, d,
                    decode(kF32, d), probes[p].meaning);
        if (f) {
            for (int k = 0; k < 32; ++k)
                std::fprintf(f, "%02X ", x.a[static_cast<size_t>(k)]);
            for (int k = 0; k < 32; ++k)
                std::fprintf(f, "%02X ", x.b[static_cast<size_t>(k)]);
            std::fprintf(f, "%08X %08X\n", x.with_c ? get(kF32, x.c.data(), 0) : 0u, d);
        }
    }
    if (f)
        std::fclose(f);
}

void wgmma_gpu(const std::string &dump, Rng &r)
{
    std::printf("WGMMA (sm_90a)\n");
    const DotCase cases[] = {{&kE4m3, &kF32, 64}, {&kE5m2, &kF32, 64}, {&kE4m3, &kF16, 64},
                             {&kE5m2, &kF16, 64}, {&kF16, &kF32, 32},  {&kBf16, &kF32, 32},
                             {&kF16, &kF16, 32}};
    char err[256];
    {
        DotCase dc = cases[0];
        DotData x = exact_inputs(dc, 1, false, r);
        if (run_dot(dc, x, 1, err, sizeof err) == 1) {
            std::printf("  skipped: %s\n", err);
            return;
        }
    }
    bool layout_ok = true;
    for (const DotCase &dc : cases)
        layout_ok = wgmma_exact_check(dc, r) && layout_ok;
    if (!layout_ok) {
        std::printf("  layout check failed: the random runs below are not meaningful\n");
        return;
    }
    wgmma_c_probes(dump);
    const int ks[] = {1, 4};  // instructions chained: K = 32 / 128 (FP8), 16 / 64 (16-bit)
    const size_t lines = 1000;
    for (const DotCase &base : cases)
        for (int steps : ks)
            for (int with_c = 0; with_c < 2; ++with_c) {
                DotCase dc = base;
                dc.K = steps * (base.in->bytes == 1 ? 32 : 16);
                DotData x = random_inputs(dc, lines, with_c != 0, r);
                int rc = run_dot(dc, x, lines, err, sizeof err);
                if (rc != 0) {
                    std::printf("  %s: rc %d %s\n", dc.in->name, rc, err);
                    check(false, "wgmma random run");
                    continue;
                }
                std::printf("  %s x %s -> %s K=%d C %s: d[0..2] = ", dc.in->name, dc.in->name,
                            dc.out->name, dc.K, with_c ? "random" : "0");
                for (size_t i = 0; i < 3; ++i)
                    std::printf("%0*X ", 2 * dc.out->bytes, get(*dc.out, x.d.data(), i));
                std::printf("\n");
                if (!dump.empty()) {
                    char name[160];
                    std::snprintf(name, sizeof name, "/wgmma-%s-%s-K%d-%s.txt", dc.in->name,
                                  dc.out->name, dc.K, with_c ? "c" : "c0");
                    write_dot_file(dump + name, dc, x, lines);
                }
            }
}

// ---- GPU: cuBLASLt ---------------------------------------------------------------

bool write_npy(const std::string &path, const char *descr, size_t rows, size_t cols,
               const void *data, size_t item)
{
    char header[128];
    int n = std::snprintf(header, sizeof header,
                          "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }", descr,
                          rows, cols);
    size_t len = static_cast<size_t>(n), total = 10 + len + 1;
    size_t pad = (64 - total % 64) % 64;
    FILE *f = std::fopen(path.c_str(), "wb");
    if (f == nullptr)
        return false;
    const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    uint16_t hlen = static_cast<uint16_t>(len + pad + 1);
    unsigned char hl[2] = {static_cast<unsigned char>(hlen & 0xFF), static_cast<unsigned char>(hlen >> 8)};
    std::fwrite(magic, 1, 8, f);
    std::fwrite(hl, 1, 2, f);
    std::fwrite(header, 1, len, f);
    for (size_t i = 0; i < pad; ++i)
        std::fputc(' ', f);
    std::fputc('\n', f);
    std::fwrite(data, item, rows * cols, f);
    return std::fclose(f) == 0;
}

// Inputs with exponents in [-3, 3]: the exact dot products of K = 4096 fit a
// double, so the error of the library is measured exactly.
void narrow_inputs(std::vector<uint8_t> &v, const Fmt &f, Rng &r)
{
    for (auto &x : v)
        x = static_cast<uint8_t>(encode_normal(f, r.below(2), r.below(7) - 3, static_cast<uint32_t>(r.next())));
}

void cublaslt_random(const Fmt &fa, const Fmt &fb, const std::string &dump, Rng &r)
{
    const int M = 128, N = 128, K = 4096;
    std::vector<uint8_t> a(static_cast<size_t>(M) * K), b(static_cast<size_t>(K) * N);
    narrow_inputs(a, fa, r);
    narrow_inputs(b, fb, r);
    std::vector<double> exact(static_cast<size_t>(M) * N, 0.0), bv(b.size());
    for (size_t i = 0; i < b.size(); ++i)
        bv[i] = decode(fb, b[i]);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) {
            double av = decode(fa, a[static_cast<size_t>(i) * K + static_cast<size_t>(k)]);
            for (int j = 0; j < N; ++j)
                exact[static_cast<size_t>(i) * N + static_cast<size_t>(j)] +=
                    av * bv[static_cast<size_t>(k) * N + static_cast<size_t>(j)];
        }
    std::string tag = std::string(fa.name) + "-" + fb.name;
    if (!dump.empty()) {
        check(write_npy(dump + "/cublaslt-" + tag + "-A.npy", "|u1", M, K, a.data(), 1), "A.npy");
        check(write_npy(dump + "/cublaslt-" + tag + "-B.npy", "|u1", K, N, b.data(), 1), "B.npy");
    }
    const Fmt *outs[] = {&kF32, &kBf16};
    for (const Fmt *out : outs)
        for (int fast = 0; fast < 2; ++fast) {
            std::vector<uint8_t> d(static_cast<size_t>(M) * N * static_cast<size_t>(out->bytes));
            char desc[512], err[256];
            int rc = fpref_cuda_cublaslt_gemm(fa.name, fb.name, out->name, fast, M, N, K, a.data(),
                                              b.data(), d.data(), desc, sizeof desc, err, sizeof err);
            if (rc != 0) {
                std::printf("  %s -> %s fast %d: rc %d: %s\n", tag.c_str(), out->name, fast, rc, err);
                check(rc == 1, "cublaslt ran or is unsupported");
                continue;
            }
            double max_rel = 0, sum_rel = 0;
            size_t exact_count = 0;
            for (size_t i = 0; i < exact.size(); ++i) {
                double got = decode(*out, get(*out, d.data(), i));
                double rel = exact[i] != 0 ? std::fabs(got - exact[i]) / std::fabs(exact[i]) : std::fabs(got);
                max_rel = rel > max_rel ? rel : max_rel;
                sum_rel += rel;
                exact_count += got == exact[i];
            }
            std::printf("  %s %dx%dx%d -> %s fast_accum %d: rel. error max %.3e mean %.3e, "
                        "%zu of %zu exact\n    %s\n",
                        tag.c_str(), M, N, K, out->name, fast, max_rel, sum_rel / static_cast<double>(exact.size()),
                        exact_count, exact.size(), desc);
            if (!dump.empty()) {
                char name[200];
                std::snprintf(name, sizeof name, "/cublaslt-%s-D-%s-fast%d.npy", tag.c_str(),
                              out->name, fast);
                check(write_npy(dump + name, out->bytes == 4 ? "<f4" : "<u2", M, N, d.data(),
                                static_cast<size_t>(out->bytes)),
                      "D.npy");
            }
        }
}

// Promotion probe: row i has one product 256 * 2^-9 = 2^-1 at k = p_i and
// K - 1 products 2^-9 * 2^-9 = 2^-18.  A 13-fraction-bit block anchored at
// 2^-1 drops the 2^-18 terms; an FP32 accumulator keeps them.  lost = products
// not in d; chunk_end = where the dropping stops = the next promotion to FP32.
void cublaslt_promotion_probe()
{
    const int M = 128, N = 128, K = 4096;
    std::vector<uint8_t> a(static_cast<size_t>(M) * K, 0x01), b(static_cast<size_t>(K) * N, 0x01);
    std::vector<int> pos(M);
    for (int i = 0; i < M; ++i) {
        pos[static_cast<size_t>(i)] = i == 0 ? 0 : i == 1 ? K - 1 : (i * 997 + 13) % K;
        a[static_cast<size_t>(i) * K + static_cast<size_t>(pos[static_cast<size_t>(i)])] = 0x78;  // 256
    }
    for (int fast = 0; fast < 2; ++fast) {
        std::vector<float> d(static_cast<size_t>(M) * N);
        char desc[512], err[256];
        int rc = fpref_cuda_cublaslt_gemm("float8_e4m3fn", "float8_e4m3fn", "float32", fast, M, N,
                                          K, a.data(), b.data(), d.data(), desc, sizeof desc, err,
                                          sizeof err);
        if (rc != 0) {
            std::printf("  promotion probe fast %d: rc %d: %s\n", fast, rc, err);
            check(rc == 1, "cublaslt probe ran or is unsupported");
            continue;
        }
        std::printf("  promotion probe (E4M3, K=%d, FP32 out) fast_accum %d\n    %s\n", K, fast, desc);
        int same_columns = 1;
        for (int i = 0; i < M; ++i) {
            double got = d[static_cast<size_t>(i) * N];
            for (int j = 1; j < N; ++j)
                same_columns &= d[static_cast<size_t>(i) * N + static_cast<size_t>(j)] == d[static_cast<size_t>(i) * N];
            double kept = (got - 0.5) * 262144.0;  // in units of 2^-18
            double lost = (K - 1) - kept;
            int p = pos[static_cast<size_t>(i)];
            double chunk_end = (p / 32 + 1) * 32 + (lost - 31);
            if (i < 12 || i % 16 == 0)
                std::printf("    big product at k=%4d: d = %.9g, lost %6.0f small products, "
                            "dropping ends at k=%.0f\n",
                            p, got, lost, chunk_end);
        }
        check(same_columns != 0, "promotion probe: all columns equal");
    }
}

void cublaslt_gpu(const std::string &dump, Rng &r)
{
    std::printf("cuBLASLt FP8 GEMM\n");
    cublaslt_promotion_probe();
    cublaslt_random(kE4m3, kE4m3, dump, r);
    cublaslt_random(kE5m2, kE4m3, dump, r);
}

bool device_present()
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace

int main(int argc, char **argv)
{
    bool cpu_only = false;
    std::string dump;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--cpu"))
            cpu_only = true;
        else if (!std::strcmp(argv[i], "--dump") && i + 1 < argc)
            dump = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--cpu] [--dump DIR]\n", argv[0]);
            return 2;
        }
    }
    const bool have_gpu = device_present();
    std::printf("host checks\n");
    check_descriptor_bits();
    check_layout(1);
    check_layout(2);
    check_model_against_ptx_example();
    check_accumulator_map();
    check_arguments(have_gpu);
    std::printf("  %s\n", g_failures ? "FAILED" : "all passed");
    if (cpu_only || g_failures)
        return g_failures ? 1 : 0;
    if (!have_gpu) {
        std::printf("no CUDA device: GPU part skipped\n");
        return 77;
    }
    cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        std::printf("device: %s, sm_%d%d, driver API %d, runtime %d\n", prop.name, prop.major,
                    prop.minor, driver, runtime);
    }
    Rng r{20261130};
    wgmma_gpu(dump, r);
    cublaslt_gpu(dump, r);
    std::printf("%s (%d failures)\n", g_failures ? "FAILED" : "PASSED", g_failures);
    return g_failures ? 1 : 0;
}
