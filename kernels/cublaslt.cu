// cuBLASLt FP8 GEMM, D = A·B, to learn the library's FP8 accumulation (which
// NVIDIA does not document) with and without CUBLASLT_MATMUL_DESC_FAST_ACCUM.
//
// cuBLASLt is column-major and its FP8 kernels accept only "TN": the first
// operand transposed, both operands K-contiguous.  Row-major D (MxN) is
// column-major D^T (NxM) = B^T·A^T, so the library's first operand is B^T
// (row-major NxK, built here from B), with op T, and its second is A as given
// (row-major MxK is column-major KxM), with op N.
#include "hopper.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

const size_t kWorkspaceBytes = 32u << 20;

void set_msg(char *buf, size_t len, const char *fmt, ...)
{
    if (buf == nullptr || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

bool fp8_type(const char *name, cudaDataType_t *type)
{
    if (name == nullptr)
        return false;
    if (!std::strcmp(name, "float8_e4m3fn") || !std::strcmp(name, "e4m3"))
        *type = CUDA_R_8F_E4M3;
    else if (!std::strcmp(name, "float8_e5m2") || !std::strcmp(name, "e5m2"))
        *type = CUDA_R_8F_E5M2;
    else
        return false;
    return true;
}

bool out_type(const char *name, cudaDataType_t *type, size_t *bytes)
{
    if (name == nullptr)
        return false;
    if (!std::strcmp(name, "float32") || !std::strcmp(name, "f32"))
        *type = CUDA_R_32F, *bytes = 4;
    else if (!std::strcmp(name, "bfloat16") || !std::strcmp(name, "bf16"))
        *type = CUDA_R_16BF, *bytes = 2;
    else if (!std::strcmp(name, "float16") || !std::strcmp(name, "f16"))
        *type = CUDA_R_16F, *bytes = 2;
    else
        return false;
    return true;
}

// Every handle and buffer, released on every path.
struct LtState {
    cublasLtHandle_t handle = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    void *a = nullptr, *b = nullptr, *d = nullptr, *scales = nullptr, *workspace = nullptr;
    ~LtState()
    {
        if (pref)
            cublasLtMatmulPreferenceDestroy(pref);
        if (la)
            cublasLtMatrixLayoutDestroy(la);
        if (lb)
            cublasLtMatrixLayoutDestroy(lb);
        if (ld)
            cublasLtMatrixLayoutDestroy(ld);
        if (op)
            cublasLtMatmulDescDestroy(op);
        if (handle)
            cublasLtDestroy(handle);
        cudaFree(a);
        cudaFree(b);
        cudaFree(d);
        cudaFree(scales);
        cudaFree(workspace);
    }
};

// Each check returns 0 on success; otherwise the error is in err.
int cuda_check(cudaError_t e, const char *what, char *err, size_t errlen)
{
    if (e == cudaSuccess)
        return 0;
    set_msg(err, errlen, "cublaslt: %s: %s", what, cudaGetErrorString(e));
    return -1;
}

int lt_check(cublasStatus_t s, const char *what, char *err, size_t errlen)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return 0;
    set_msg(err, errlen, "cublaslt: %s: %s (%d)", what, cublasLtGetStatusString(s),
            static_cast<int>(s));
    return s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_ARCH_MISMATCH ? 1 : -1;
}

// 0 with an sm_89+ device, 1 without one.
int check_device(char *err, size_t errlen)
{
    int count = 0, dev = 0, major = 0, minor = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        set_msg(err, errlen, "cublaslt: no CUDA device (%s)",
                e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 1;
    }
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        set_msg(err, errlen, "cublaslt: cannot query the device's compute capability");
        return -1;
    }
    if (major * 10 + minor < 89) {
        set_msg(err, errlen, "cublaslt: FP8 GEMM needs sm_89 or later; this device is %d.%d",
                major, minor);
        return 1;
    }
    return 0;
}

int set_attr(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t attr, const void *value,
             size_t size, const char *what, char *err, size_t errlen)
{
    return lt_check(cublasLtMatmulDescSetAttribute(op, attr, value, size), what, err, errlen);
}

// The operation: TN, FP32 compute and scale, unit scales, fast accumulation as asked.
int describe_op(LtState &s, int fast_accum, char *err, size_t errlen)
{
    int rc;
    if ((rc = lt_check(cublasLtMatmulDescCreate(&s.op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                       "cublasLtMatmulDescCreate", err, errlen)))
        return rc;
    const cublasOperation_t trans = CUBLAS_OP_T, no_trans = CUBLAS_OP_N;
    const int8_t fast = fast_accum ? 1 : 0;
    const float *scale_a = static_cast<const float *>(s.scales);
    const float *scale_b = scale_a + 1;
    if ((rc = set_attr(s.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof trans, "TRANSA", err,
                       errlen)) ||
        (rc = set_attr(s.op, CUBLASLT_MATMUL_DESC_TRANSB, &no_trans, sizeof no_trans, "TRANSB",
                       err, errlen)) ||
        (rc = set_attr(s.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast, "FAST_ACCUM",
                       err, errlen)) ||
        (rc = set_attr(s.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_a, sizeof scale_a,
                       "A_SCALE_POINTER", err, errlen)) ||
        (rc = set_attr(s.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_b, sizeof scale_b,
                       "B_SCALE_POINTER", err, errlen)))
        return rc;
    return 0;
}

template <typename T> T algo_attr(const cublasLtMatmulAlgo_t &algo, cublasLtMatmulAlgoConfigAttributes_t attr)
{
    T value{};
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written) !=
        CUBLAS_STATUS_SUCCESS)
        return T{};
    return value;
}

void describe_algo(const cublasLtMatmulHeuristicResult_t &h, int fast_accum, char *desc,
                   size_t desclen)
{
    const cublasLtMatmulAlgo_t &algo = h.algo;
    set_msg(desc, desclen,
            "cublasLt %zu; algo id %d, tile id %u, stages id %u, split-K %d, reduction scheme %u, "
            "CTA swizzling %u, custom option %u, inner shape id %u, cluster shape id %u; "
            "workspace %zu bytes, waves %.3f; fast accumulation %s; computed as D^T = B^T A^T",
            cublasLtGetVersion(), algo_attr<int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID),
            algo_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID),
            algo_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID),
            algo_attr<int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
            algo_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME),
            algo_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING),
            algo_attr<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION),
            static_cast<unsigned>(algo_attr<uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID)),
            static_cast<unsigned>(algo_attr<uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)),
            h.workspaceSize, static_cast<double>(h.wavesCount), fast_accum ? "on" : "off");
}

int validate(const char *a_format, const char *b_format, const char *out_format, int M, int N,
             int K, const uint8_t *a, const uint8_t *b, void *d, cudaDataType_t types[3],
             size_t *out_bytes, char *err, size_t errlen)
{
    if (!fp8_type(a_format, &types[0]) || !fp8_type(b_format, &types[1])) {
        set_msg(err, errlen, "cublaslt: inputs must be float8_e4m3fn or float8_e5m2, not '%s' x '%s'",
                a_format ? a_format : "(null)", b_format ? b_format : "(null)");
        return -1;
    }
    if (!out_type(out_format, &types[2], out_bytes)) {
        set_msg(err, errlen, "cublaslt: output must be float32, bfloat16 or float16, not '%s'",
                out_format ? out_format : "(null)");
        return -1;
    }
    if (M <= 0 || N <= 0 || K <= 0 || M % 16 || N % 16 || K % 16 || M > 65536 || N > 65536 ||
        K > 65536) {
        set_msg(err, errlen,
                "cublaslt: M, N, K = %d, %d, %d must be positive multiples of 16 (at most 65536)",
                M, N, K);
        return -1;
    }
    if (a == nullptr || b == nullptr || d == nullptr) {
        set_msg(err, errlen, "cublaslt: a, b and d must not be NULL");
        return -1;
    }
    if (types[0] == CUDA_R_8F_E5M2 && types[1] == CUDA_R_8F_E5M2) {
        set_msg(err, errlen, "cublaslt: cuBLASLt has no E5M2 x E5M2 FP8 GEMM");
        return 1;
    }
    return 0;
}

// The layouts, column-major: first operand B^T stored KxN (op T), second A
// stored KxM, D stored NxM; all leading dimensions as packed.
int describe_layouts(LtState &s, const cudaDataType_t types[3], int M, int N, int K, char *err,
                     size_t errlen)
{
    int rc;
    if ((rc = lt_check(cublasLtMatrixLayoutCreate(&s.la, types[1], static_cast<uint64_t>(K),
                                                  static_cast<uint64_t>(N), K),
                       "layout of B^T", err, errlen)) ||
        (rc = lt_check(cublasLtMatrixLayoutCreate(&s.lb, types[0], static_cast<uint64_t>(K),
                                                  static_cast<uint64_t>(M), K),
                       "layout of A", err, errlen)) ||
        (rc = lt_check(cublasLtMatrixLayoutCreate(&s.ld, types[2], static_cast<uint64_t>(N),
                                                  static_cast<uint64_t>(M), N),
                       "layout of D", err, errlen)))
        return rc;
    return 0;
}

int upload(LtState &s, int M, int N, int K, const uint8_t *a, const uint8_t *b,
           size_t out_bytes, char *err, size_t errlen)
{
    const size_t mk = static_cast<size_t>(M) * K, kn = static_cast<size_t>(K) * N;
    std::vector<uint8_t> bt(kn);  // B^T, row-major NxK
    for (size_t k = 0; k < static_cast<size_t>(K); ++k)
        for (size_t n = 0; n < static_cast<size_t>(N); ++n)
            bt[n * K + k] = b[k * N + n];
    const float ones[2] = {1.0f, 1.0f};
    int rc;
    if ((rc = cuda_check(cudaMalloc(&s.a, mk), "cudaMalloc(a)", err, errlen)) ||
        (rc = cuda_check(cudaMalloc(&s.b, kn), "cudaMalloc(b)", err, errlen)) ||
        (rc = cuda_check(cudaMalloc(&s.d, static_cast<size_t>(M) * N * out_bytes),
                         "cudaMalloc(d)", err, errlen)) ||
        (rc = cuda_check(cudaMalloc(&s.scales, sizeof ones), "cudaMalloc(scales)", err, errlen)) ||
        (rc = cuda_check(cudaMalloc(&s.workspace, kWorkspaceBytes), "cudaMalloc(workspace)", err,
                         errlen)) ||
        (rc = cuda_check(cudaMemcpy(s.a, a, mk, cudaMemcpyHostToDevice), "copy a", err, errlen)) ||
        (rc = cuda_check(cudaMemcpy(s.b, bt.data(), kn, cudaMemcpyHostToDevice), "copy b", err,
                         errlen)) ||
        (rc = cuda_check(cudaMemcpy(s.scales, ones, sizeof ones, cudaMemcpyHostToDevice),
                         "copy scales", err, errlen)))
        return rc;
    return 0;
}

int choose_algo(LtState &s, cublasLtMatmulHeuristicResult_t *h, char *err, size_t errlen)
{
    const size_t workspace = kWorkspaceBytes;
    int rc, found = 0;
    if ((rc = lt_check(cublasLtMatmulPreferenceCreate(&s.pref), "preference", err, errlen)) ||
        (rc = lt_check(cublasLtMatmulPreferenceSetAttribute(
                           s.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                           sizeof workspace),
                       "preference workspace", err, errlen)) ||
        (rc = lt_check(cublasLtMatmulAlgoGetHeuristic(s.handle, s.op, s.la, s.lb, s.ld, s.ld,
                                                      s.pref, 1, h, &found),
                       "cublasLtMatmulAlgoGetHeuristic", err, errlen)))
        return rc;
    if (found < 1 || h->state != CUBLAS_STATUS_SUCCESS) {
        set_msg(err, errlen, "cublaslt: the heuristic found no algorithm for this FP8 GEMM");
        return 1;
    }
    return 0;
}

}  // namespace

extern "C" int fpref_cuda_cublaslt_gemm(const char *a_format, const char *b_format,
                                        const char *out_format, int fast_accum, int M, int N,
                                        int K, const uint8_t *a, const uint8_t *b, void *d,
                                        char *desc, size_t desclen, char *err, size_t errlen)
{
    cudaDataType_t types[3];
    size_t out_bytes = 0;
    set_msg(desc, desclen, "%s", "");
    int rc = validate(a_format, b_format, out_format, M, N, K, a, b, d, types, &out_bytes, err,
                      errlen);
    if (rc != 0 || (rc = check_device(err, errlen)) != 0)
        return rc;
    LtState s;
    cublasLtMatmulHeuristicResult_t h;
    std::memset(&h, 0, sizeof h);
    if ((rc = lt_check(cublasLtCreate(&s.handle), "cublasLtCreate", err, errlen)) ||
        (rc = upload(s, M, N, K, a, b, out_bytes, err, errlen)) ||
        (rc = describe_op(s, fast_accum, err, errlen)) ||
        (rc = describe_layouts(s, types, M, N, K, err, errlen)) ||
        (rc = choose_algo(s, &h, err, errlen)))
        return rc;
    describe_algo(h, fast_accum, desc, desclen);
    const float alpha = 1.0f, beta = 0.0f;
    // C is D with beta = 0: same layout and type, as cuBLASLt requires for C = D.
    if ((rc = lt_check(cublasLtMatmul(s.handle, s.op, &alpha, s.b,
                                      s.la, s.a, s.lb, &beta, s.d, s.ld, s.d, s.ld, &h.algo,
                                      s.workspace, kWorkspaceBytes, 0),
                       "cublasLtMatmul", err, errlen)) ||
        (rc = cuda_check(cudaDeviceSynchronize(), "cublasLtMatmul (execution)", err, errlen)) ||
        (rc = cuda_check(cudaMemcpy(d, s.d, static_cast<size_t>(M) * N * out_bytes,
                                    cudaMemcpyDeviceToHost),
                         "copy d", err, errlen)))
        return rc;
    return 0;
}
