// WGMMA dot products on Hopper (sm_90a): one line of the fpref dot format per
// row of a 64-row tile, A and B from shared memory through no-swizzle
// K-major matrix descriptors, D's diagonal holds the 64 dot products.
// kernels/HOPPER.md explains the layout; hopper.h the contract.
#include "hopper.h"

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// The instruction variants: input formats, accumulator and K per instruction.
enum Variant {
    kE4m3F32,
    kE5m2F32,
    kE4m3F16,
    kE5m2F16,
    kF16F32,
    kBf16F32,
    kF16F16,
    // A and B of two FP8 formats (atype != btype): the hybrid backward GEMM
    kE5m2E4m3F32,
    kE4m3E5m2F32,
    kE5m2E4m3F16,
    kE4m3E5m2F16,
    kVariantCount
};

struct VariantInfo {
    const char *in;    // canonical fpref name of A
    const char *in_b;  // canonical fpref name of B
    const char *out;   // canonical fpref name of C and D
    int elem_bytes;
    int k_per_instruction;
};

const VariantInfo kVariants[kVariantCount] = {
    {"float8_e4m3fn", "float8_e4m3fn", "float32", 1, 32},
    {"float8_e5m2", "float8_e5m2", "float32", 1, 32},
    {"float8_e4m3fn", "float8_e4m3fn", "float16", 1, 32},
    {"float8_e5m2", "float8_e5m2", "float16", 1, 32},
    {"float16", "float16", "float32", 2, 16},
    {"bfloat16", "bfloat16", "float32", 2, 16},
    {"float16", "float16", "float16", 2, 16},
    {"float8_e5m2", "float8_e4m3fn", "float32", 1, 32},
    {"float8_e4m3fn", "float8_e5m2", "float32", 1, 32},
    {"float8_e5m2", "float8_e4m3fn", "float16", 1, 32},
    {"float8_e4m3fn", "float8_e5m2", "float16", 1, 32},
};

const char *canonical_name(const char *name)
{
    static const char *const aliases[][2] = {
        {"e4m3", "float8_e4m3fn"}, {"float8_e4m3fn", "float8_e4m3fn"},
        {"e5m2", "float8_e5m2"},   {"float8_e5m2", "float8_e5m2"},
        {"f16", "float16"},        {"float16", "float16"},
        {"bf16", "bfloat16"},      {"bfloat16", "bfloat16"},
        {"f32", "float32"},        {"float32", "float32"},
    };
    for (const auto &alias : aliases)
        if (std::strcmp(name, alias[0]) == 0)
            return alias[1];
    return nullptr;
}

void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == nullptr || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

__host__ __device__ constexpr bool out_is_f16(int variant)
{
    return variant == kE4m3F16 || variant == kE5m2F16 || variant == kF16F16 ||
           variant == kE5m2E4m3F16 || variant == kE4m3E5m2F16;
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define FPREF_HAVE_WGMMA 1
#endif

#ifdef FPREF_HAVE_WGMMA
#define FPREF_F32_REGS                                                                            \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define FPREF_F16_REGS "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define FPREF_F32_OPERANDS(d)                                                                     \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),           \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),   \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),             \
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),             \
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define FPREF_F16_OPERANDS(d)                                                                     \
    "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),           \
        "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]),   \
        "+r"(d[14]), "+r"(d[15])

// scale-d is a predicate operand: D = A*B + (scale_d ? D : 0).
#define FPREF_WGMMA_F32(instr, tail)                                                              \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" instr " " FPREF_F32_REGS            \
                 ", %32, %33, p, 1, 1" tail ";\n}\n"                                              \
                 : FPREF_F32_OPERANDS(d)                                                          \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d))
#define FPREF_WGMMA_F16(instr, tail)                                                              \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n" instr " " FPREF_F16_REGS            \
                 ", %16, %17, p, 1, 1" tail ";\n}\n"                                              \
                 : FPREF_F16_OPERANDS(d)                                                          \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d))

// One instruction per kernel instantiation, so that no register moves land
// between wgmma.fence and the MMA.
template <int V>
__device__ void wgmma_f32(float (&d)[32], uint64_t desc_a, uint64_t desc_b, int scale_d)
{
    if constexpr (V == kE4m3F32)
        FPREF_WGMMA_F32("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", "");
    else if constexpr (V == kE5m2F32)
        FPREF_WGMMA_F32("wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2", "");
    else if constexpr (V == kE5m2E4m3F32)  // atype, then btype
        FPREF_WGMMA_F32("wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e4m3", "");
    else if constexpr (V == kE4m3E5m2F32)
        FPREF_WGMMA_F32("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2", "");
    else if constexpr (V == kF16F32)  // the trailing 0, 0: imm-trans-a, imm-trans-b (K-major)
        FPREF_WGMMA_F32("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", ", 0, 0");
    else
        FPREF_WGMMA_F32("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", ", 0, 0");
}

template <int V>
__device__ void wgmma_f16(uint32_t (&d)[16], uint64_t desc_a, uint64_t desc_b, int scale_d)
{
    if constexpr (V == kE4m3F16)
        FPREF_WGMMA_F16("wgmma.mma_async.sync.aligned.m64n64k32.f16.e4m3.e4m3", "");
    else if constexpr (V == kE5m2F16)
        FPREF_WGMMA_F16("wgmma.mma_async.sync.aligned.m64n64k32.f16.e5m2.e5m2", "");
    else if constexpr (V == kE5m2E4m3F16)
        FPREF_WGMMA_F16("wgmma.mma_async.sync.aligned.m64n64k32.f16.e5m2.e4m3", "");
    else if constexpr (V == kE4m3E5m2F16)
        FPREF_WGMMA_F16("wgmma.mma_async.sync.aligned.m64n64k32.f16.e4m3.e5m2", "");
    else
        FPREF_WGMMA_F16("wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16", ", 0, 0");
}

// Keeps the compiler from moving accumulator reads or writes across the
// asynchronous MMA (the registers are only defined after wait_group).
__device__ void fence_f32(float (&d)[32])
{
#pragma unroll
    for (int i = 0; i < 32; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

__device__ void fence_f16(uint32_t (&d)[16])
{
#pragma unroll
    for (int i = 0; i < 16; ++i)
        asm volatile("" : "+r"(d[i])::"memory");
}
#endif

struct KernelArgs {
    const uint8_t *a;
    const uint8_t *b;
    const void *c;  // nullptr: C = 0 through scale-d = 0
    void *d;
    size_t lines;
    unsigned row_bytes;  // K * element size, a multiple of 32
    int swap_lbo_sbo;
    int *unsupported;  // set when this binary has no sm_90a code path
};

#ifdef FPREF_HAVE_WGMMA
// Thread t copies 16-byte chunk t % 2 of tile row t / 2 (zeros past the last line).
__device__ void pack_step(uint8_t *tile, const uint8_t *src, const KernelArgs &p, size_t line0,
                          unsigned step)
{
    unsigned row = threadIdx.x / 2u, chunk = threadIdx.x % 2u;
    size_t line = line0 + row;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (line < p.lines)
        v = *reinterpret_cast<const uint4 *>(src + line * p.row_bytes +
                                             step * FPREF_WGMMA_TILE_KBYTES + chunk * 16u);
    *reinterpret_cast<uint4 *>(tile + fpref_wgmma_pack_offset(row, chunk * 16u)) = v;
}

// Makes the generic-proxy stores visible to wgmma (async proxy) and waits for all.
__device__ void publish_tiles()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
}

__device__ uint32_t smem_addr(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
#endif

#ifdef FPREF_HAVE_WGMMA
// Accumulator registers of one thread: 32 FP32 values, or 32 FP16 values in 16 pairs.
template <bool F16Out> struct Accumulator;

template <> struct Accumulator<false> {
    float r[32];
    __device__ void put(unsigned v, float c32, uint16_t) { r[v] = c32; }
    template <int V> __device__ void mma(uint64_t da, uint64_t db, int scale_d)
    {
        wgmma_f32<V>(r, da, db, scale_d);
    }
    __device__ void fence() { fence_f32(r); }
    __device__ void store(void *d, size_t i, unsigned v) const
    {
        static_cast<float *>(d)[i] = r[v];
    }
};

template <> struct Accumulator<true> {
    uint32_t r[16];
    __device__ void put(unsigned v, float, uint16_t c16)
    {
        uint32_t bits = static_cast<uint32_t>(c16) << (16 * (v % 2));
        r[v / 2] = v % 2 == 0 ? bits : r[v / 2] | bits;
    }
    template <int V> __device__ void mma(uint64_t da, uint64_t db, int scale_d)
    {
        wgmma_f16<V>(r, da, db, scale_d);
    }
    __device__ void fence() { fence_f16(r); }
    __device__ void store(void *d, size_t i, unsigned v) const
    {
        static_cast<uint16_t *>(d)[i] = static_cast<uint16_t>(r[v / 2] >> (16 * (v % 2)));
    }
};
#endif

template <int V> __global__ void __launch_bounds__(128) wgmma_dot_kernel(KernelArgs p)
{
#ifdef FPREF_HAVE_WGMMA
    constexpr bool F16Out = out_is_f16(V);
    __shared__ __align__(128) uint8_t tile_a[FPREF_WGMMA_TILE_ROWS * FPREF_WGMMA_TILE_KBYTES];
    __shared__ __align__(128) uint8_t tile_b[FPREF_WGMMA_TILE_ROWS * FPREF_WGMMA_TILE_KBYTES];
    const size_t line0 = static_cast<size_t>(blockIdx.x) * FPREF_WGMMA_TILE_ROWS;
    const unsigned t = threadIdx.x, steps = p.row_bytes / FPREF_WGMMA_TILE_KBYTES;
    const uint64_t desc_a = fpref_wgmma_make_desc(smem_addr(tile_a), p.swap_lbo_sbo);
    const uint64_t desc_b = fpref_wgmma_make_desc(smem_addr(tile_b), p.swap_lbo_sbo);
    Accumulator<F16Out> acc;
    // Preload: c on the diagonal (the line's own dot product), zero elsewhere.
#pragma unroll
    for (unsigned v = 0; v < 32; ++v) {
        unsigned row, col;
        fpref_wgmma_acc_coord(t, v, &row, &col);
        bool mine = row == col && p.c != nullptr && line0 + row < p.lines;
        float c32 = mine && !F16Out ? static_cast<const float *>(p.c)[line0 + row] : 0.0f;
        uint16_t c16 = mine && F16Out ? static_cast<const uint16_t *>(p.c)[line0 + row] : 0;
        acc.put(v, c32, c16);
    }
    for (unsigned step = 0; step < steps; ++step) {
        pack_step(tile_a, p.a, p, line0, step);
        pack_step(tile_b, p.b, p, line0, step);
        publish_tiles();
        int scale_d = step > 0 || p.c != nullptr;
        acc.fence();
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        acc.template mma<V>(desc_a, desc_b, scale_d);
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        acc.fence();
        __syncthreads();  // nobody overwrites a tile the unit may still read
    }
#pragma unroll
    for (unsigned v = 0; v < 32; ++v) {
        unsigned row, col;
        fpref_wgmma_acc_coord(t, v, &row, &col);
        if (row == col && line0 + row < p.lines)
            acc.store(p.d, line0 + row, v);
    }
#else
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *p.unsupported = 1;
#endif
}

void launch(int variant, unsigned tiles, const KernelArgs &p)
{
    switch (variant) {
    case kE4m3F32: wgmma_dot_kernel<kE4m3F32><<<tiles, 128>>>(p); break;
    case kE5m2F32: wgmma_dot_kernel<kE5m2F32><<<tiles, 128>>>(p); break;
    case kE4m3F16: wgmma_dot_kernel<kE4m3F16><<<tiles, 128>>>(p); break;
    case kE5m2F16: wgmma_dot_kernel<kE5m2F16><<<tiles, 128>>>(p); break;
    case kF16F32: wgmma_dot_kernel<kF16F32><<<tiles, 128>>>(p); break;
    case kBf16F32: wgmma_dot_kernel<kBf16F32><<<tiles, 128>>>(p); break;
    case kE5m2E4m3F32: wgmma_dot_kernel<kE5m2E4m3F32><<<tiles, 128>>>(p); break;
    case kE4m3E5m2F32: wgmma_dot_kernel<kE4m3E5m2F32><<<tiles, 128>>>(p); break;
    case kE5m2E4m3F16: wgmma_dot_kernel<kE5m2E4m3F16><<<tiles, 128>>>(p); break;
    case kE4m3E5m2F16: wgmma_dot_kernel<kE4m3E5m2F16><<<tiles, 128>>>(p); break;
    default: wgmma_dot_kernel<kF16F16><<<tiles, 128>>>(p); break;
    }
}

int find_variant(const char *in, const char *in_b, const char *out)
{
    for (int v = 0; v < kVariantCount; ++v)
        if (std::strcmp(kVariants[v].in, in) == 0 && std::strcmp(kVariants[v].in_b, in_b) == 0 &&
            std::strcmp(kVariants[v].out, out) == 0)
            return v;
    return -1;
}

// Device buffers released on every path.
struct DeviceBuffers {
    void *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr, *flag = nullptr;
    ~DeviceBuffers()
    {
        cudaFree(a);
        cudaFree(b);
        cudaFree(c);
        cudaFree(d);
        cudaFree(flag);
    }
};

// 1 when no device able to run sm_90a code is present, 0 when one is.
int check_device(char *err, size_t errlen)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        set_err(err, errlen, "wgmma: no CUDA device (%s)",
                e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 1;
    }
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        set_err(err, errlen, "wgmma: cannot query the device's compute capability");
        return -1;
    }
    if (major != 9 || minor != 0) {
        set_err(err, errlen, "wgmma: needs sm_90a (compute capability 9.0); this device is %d.%d",
                major, minor);
        return 1;
    }
    return 0;
}

int cuda_failed(cudaError_t e, const char *what, char *err, size_t errlen)
{
    if (e == cudaSuccess)
        return 0;
    set_err(err, errlen, "wgmma: %s: %s", what, cudaGetErrorString(e));
    return e == cudaErrorNoKernelImageForDevice ? 1 : -1;
}

int validate(const char *a_format, const char *b_format, const char *out_format, int K,
             const uint8_t *a, const uint8_t *b, void *d, size_t lines, int *variant, char *err,
             size_t errlen)
{
    const char *in = a_format ? canonical_name(a_format) : nullptr;
    const char *in_b = b_format ? canonical_name(b_format) : nullptr;
    const char *out = out_format ? canonical_name(out_format) : nullptr;
    if (in == nullptr || in_b == nullptr || out == nullptr) {
        set_err(err, errlen, "wgmma: unknown format '%s', '%s' or '%s'",
                a_format ? a_format : "(null)", b_format ? b_format : "(null)",
                out_format ? out_format : "(null)");
        return -1;
    }
    *variant = find_variant(in, in_b, out);
    if (*variant < 0) {
        set_err(err, errlen, "wgmma: no %s x %s -> %s instruction", in, in_b, out);
        return 1;
    }
    int kstep = kVariants[*variant].k_per_instruction;
    if (K <= 0 || K % kstep != 0 || K > (1 << 20)) {
        set_err(err, errlen, "wgmma: K = %d must be a positive multiple of %d (at most 2^20)", K,
                kstep);
        return -1;
    }
    if (lines > 0 && (a == nullptr || b == nullptr || d == nullptr)) {
        set_err(err, errlen, "wgmma: a, b and d must not be NULL");
        return -1;
    }
    if (lines > static_cast<size_t>(FPREF_WGMMA_TILE_ROWS) * 0x7FFFFFFFu) {
        set_err(err, errlen, "wgmma: too many lines (%zu)", lines);
        return -1;
    }
    return 0;
}

int run_wgmma(int variant, int K, const uint8_t *a, const uint8_t *b, const void *c, void *d,
              size_t lines, int swap, char *err, size_t errlen)
{
    const size_t row_bytes = static_cast<size_t>(K) * kVariants[variant].elem_bytes;
    const size_t out_bytes = out_is_f16(variant) ? 2 : 4;
    DeviceBuffers buf;
    int rc;
    if ((rc = cuda_failed(cudaMalloc(&buf.a, lines * row_bytes), "cudaMalloc(a)", err, errlen)) ||
        (rc = cuda_failed(cudaMalloc(&buf.b, lines * row_bytes), "cudaMalloc(b)", err, errlen)) ||
        (rc = cuda_failed(cudaMalloc(&buf.d, lines * out_bytes), "cudaMalloc(d)", err, errlen)) ||
        (rc = cuda_failed(cudaMalloc(&buf.flag, sizeof(int)), "cudaMalloc(flag)", err, errlen)))
        return rc;
    if (c != nullptr &&
        (rc = cuda_failed(cudaMalloc(&buf.c, lines * out_bytes), "cudaMalloc(c)", err, errlen)))
        return rc;
    const cudaMemcpyKind h2d = cudaMemcpyHostToDevice;
    if ((rc = cuda_failed(cudaMemcpy(buf.a, a, lines * row_bytes, h2d), "copy a", err, errlen)) ||
        (rc = cuda_failed(cudaMemcpy(buf.b, b, lines * row_bytes, h2d), "copy b", err, errlen)) ||
        (rc = cuda_failed(cudaMemset(buf.flag, 0, sizeof(int)), "clear flag", err, errlen)) ||
        (c != nullptr &&
         (rc = cuda_failed(cudaMemcpy(buf.c, c, lines * out_bytes, h2d), "copy c", err, errlen))))
        return rc;
    KernelArgs p{static_cast<const uint8_t *>(buf.a), static_cast<const uint8_t *>(buf.b), buf.c,
                 buf.d, lines, static_cast<unsigned>(row_bytes), swap,
                 static_cast<int *>(buf.flag)};
    const size_t tiles = (lines + FPREF_WGMMA_TILE_ROWS - 1) / FPREF_WGMMA_TILE_ROWS;
    launch(variant, static_cast<unsigned>(tiles), p);
    if ((rc = cuda_failed(cudaGetLastError(), "kernel launch", err, errlen)) ||
        (rc = cuda_failed(cudaDeviceSynchronize(), "kernel", err, errlen)))
        return rc;
    int unsupported = 0;
    if ((rc = cuda_failed(cudaMemcpy(&unsupported, buf.flag, sizeof(int), cudaMemcpyDeviceToHost),
                          "copy flag", err, errlen)))
        return rc;
    if (unsupported) {
        set_err(err, errlen, "wgmma: this build has no sm_90a code (compile with "
                             "-gencode arch=compute_90a,code=sm_90a)");
        return 1;
    }
    return cuda_failed(cudaMemcpy(d, buf.d, lines * out_bytes, cudaMemcpyDeviceToHost), "copy d",
                       err, errlen);
}

}  // namespace

extern "C" int fpref_cuda_wgmma_dot(const char *in_format, const char *out_format, int K,
                                    const uint8_t *a, const uint8_t *b, const void *c, void *d,
                                    size_t lines, char *err, size_t errlen)
{
    return fpref_cuda_wgmma_dot_ab(in_format, in_format, out_format, K, a, b, c, d, lines, err,
                                   errlen);
}

extern "C" int fpref_cuda_wgmma_dot_ab(const char *a_format, const char *b_format,
                                       const char *out_format, int K, const uint8_t *a,
                                       const uint8_t *b, const void *c, void *d, size_t lines,
                                       char *err, size_t errlen)
{
    int variant = 0;
    int rc = validate(a_format, b_format, out_format, K, a, b, d, lines, &variant, err, errlen);
    if (rc != 0)
        return rc;
    if (lines == 0)
        return 0;
    if ((rc = check_device(err, errlen)) != 0)
        return rc;
    // Diagnostic knob: reads the operands with LBO and SBO exchanged (HOPPER.md).
    const char *swap_env = std::getenv("FPREF_WGMMA_SWAP_LBO_SBO");
    int swap = swap_env != nullptr && std::strcmp(swap_env, "1") == 0;
    return run_wgmma(variant, K, a, b, c, d, lines, swap, err, errlen);
}

extern "C" long fpref_wgmma_model_offset(uint64_t desc, int elem_bytes, int row, int col)
{
    if ((desc >> 62) != 0 || (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4))
        return -1;
    const long T = 16 / elem_bytes;  // elements per 16-byte core-matrix row
    const long lbo = static_cast<long>((desc >> 16) & 0x3FFF) * 16 / elem_bytes;
    const long sbo = static_cast<long>((desc >> 32) & 0x3FFF) * 16 / elem_bytes;
    // ((8,m),(T,2k)):((1T,SBO),(1,LBO)), all in elements.
    long elems = (row % 8) * T + (row / 8) * sbo + (col % T) + (col / T) * lbo;
    return elems * elem_bytes;
}

extern "C" uint64_t fpref_wgmma_tile_desc(uint32_t smem_addr, int swap_lbo_sbo)
{
    return fpref_wgmma_make_desc(smem_addr, swap_lbo_sbo);
}

extern "C" unsigned fpref_wgmma_pack_offset_host(unsigned row, unsigned kbyte)
{
    return fpref_wgmma_pack_offset(row, kbyte);
}

extern "C" void fpref_wgmma_acc_coord_host(unsigned t, unsigned v, unsigned *row, unsigned *col)
{
    fpref_wgmma_acc_coord(t, v, row, col);
}
