/* The published mixed-precision op lists (fpref_formats_policy.h): data,
 * each list with the document it is taken from.  The op names are the
 * frameworks' own spellings; the order is the document's. */
#include <string.h>

#include "fpref_formats_policy.h"

#define N(a) (sizeof(a) / sizeof(a)[0])
#define TORCH_AMP "PyTorch documentation, Automatic Mixed Precision package (docs/source/amp.md), Autocast Op Reference"
#define TF_AMP                                                                                                        \
	"TensorFlow grappler auto_mixed_precision_lists.h (the TF-AMP graph rewrite NVIDIA's containers enable with "  \
	"TF_ENABLE_AUTO_MIXED_PRECISION=1; this version names the lists White/Gray/Black, later Allow/Infer/Deny)"

static const char *const cuda_fp16[] = {
	"__matmul__", "addbmm", "addmm", "addmv", "addr", "baddbmm", "bmm", "multi_dot", "conv1d", "conv2d", "conv3d",
	"conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "GRUCell", "linear", "LSTMCell", "matmul", "mm", "mv",
	"prelu", "RNNCell",
};
/* 51 entries in the document, as issue 21 says. */
static const char *const cuda_fp32[] = {
	"__pow__", "__rdiv__", "__rpow__", "__rtruediv__", "acos", "asin", "binary_cross_entropy_with_logits", "cosh",
	"cosine_embedding_loss", "cdist", "cosine_similarity", "cross_entropy", "cumprod", "cumsum", "dist", "erfinv",
	"exp", "expm1", "group_norm", "hinge_embedding_loss", "kl_div", "l1_loss", "layer_norm", "log", "log_softmax",
	"log10", "log1p", "log2", "margin_ranking_loss", "mse_loss", "multilabel_margin_loss", "multi_margin_loss",
	"nll_loss", "norm", "normalize", "pdist", "poisson_nll_loss", "pow", "prod", "reciprocal", "rsqrt", "sinh",
	"smooth_l1_loss", "soft_margin_loss", "softmax", "softmin", "softplus", "sum", "renorm", "tan",
	"triplet_margin_loss",
};
static const char *const cuda_promote[] = {
	"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "grid_sample", "index_put", "scatter_add", "tensordot",
};
static const struct fpref_policy_list pytorch_cuda[] = {
	{ "float16", FPREF_POLICY_LOWER, "float16 (autocast's lower precision; CUDA ops)", cuda_fp16, N(cuda_fp16),
	  TORCH_AMP ", CUDA Ops that can autocast to float16" },
	{ "float32", FPREF_POLICY_FP32, "float32", cuda_fp32, N(cuda_fp32), TORCH_AMP ", CUDA Ops that can autocast to float32" },
	{ "promote", FPREF_POLICY_WIDEST, "the widest input type (float16 only when every input is float16)", cuda_promote,
	  N(cuda_promote), TORCH_AMP ", CUDA Ops that promote to the widest input type" },
};

static const char *const cpu_bf16[] = {
	"conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm", "addbmm", "linear", "matmul",
	"_convolution", "conv_tbc", "mkldnn_rnn_layer", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
	"prelu", "scaled_dot_product_attention", "_native_multi_head_attention",
};
/* The document lists "inverse" twice (after orgqr and after
 * cholesky_inverse): 90 lines, 89 ops.  Kept once here. */
static const char *const cpu_fp32[] = {
	"avg_pool3d", "binary_cross_entropy", "grid_sampler", "grid_sampler_2d", "_grid_sampler_2d_cpu_fallback",
	"grid_sampler_3d", "polar", "prod", "quantile", "nanquantile", "stft", "cdist", "trace", "view_as_complex",
	"cholesky_inverse", "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d",
	"max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d", "reflection_pad1d", "reflection_pad2d",
	"replication_pad1d", "replication_pad2d", "replication_pad3d", "mse_loss", "cosine_embedding_loss", "nll_loss",
	"nll_loss2d", "hinge_embedding_loss", "poisson_nll_loss", "cross_entropy_loss", "l1_loss", "huber_loss",
	"margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div",
	"multilabel_margin_loss", "binary_cross_entropy_with_logits", "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2",
	"fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2", "fft_irfft2", "fft_rfftn", "fft_irfftn",
	"fft_hfft", "fft_ihfft", "linalg_cond", "linalg_matrix_rank", "linalg_solve", "linalg_cholesky",
	"linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh", "linalg_inv", "linalg_householder_product",
	"linalg_tensorinv", "linalg_tensorsolve", "fake_quantize_per_tensor_affine", "geqrf", "_lu_with_info", "qr",
	"svd", "triangular_solve", "fractional_max_pool2d", "fractional_max_pool3d", "adaptive_max_pool3d",
	"multilabel_margin_loss_forward", "linalg_qr", "linalg_cholesky_ex", "linalg_svd", "linalg_eig", "linalg_eigh",
	"linalg_lstsq", "linalg_inv_ex",
};
static const char *const cpu_promote[] = { "cat", "stack", "index_copy" };
static const struct fpref_policy_list pytorch_cpu[] = {
	{ "bfloat16", FPREF_POLICY_LOWER, "bfloat16 (float16 shares the CPU lists)", cpu_bf16, N(cpu_bf16),
	  TORCH_AMP ", CPU Ops that can autocast to bfloat16" },
	{ "float32", FPREF_POLICY_FP32, "float32", cpu_fp32, N(cpu_fp32), TORCH_AMP ", CPU Ops that can autocast to float32" },
	{ "promote", FPREF_POLICY_WIDEST, "the widest input type", cpu_promote, N(cpu_promote),
	  TORCH_AMP ", CPU Ops that promote to the widest input type" },
};

/* The CUDA- and cuDNN-version conditional entries (BatchMatMul, Conv3D)
 * are in the allow list here: the header adds them from CUDA 9.1 and
 * cuDNN 7.6.2. */
static const char *const amp_allow[] = {
	"BlockLSTM", "BlockLSTMV2", "BlockLSTMGrad", "BlockLSTMGradV2", "Conv2D", "Conv2DBackpropFilter",
	"Conv2DBackpropInput", "CudnnRNN", "CudnnRNNBackprop", "CudnnRNNBackpropV2", "CudnnRNNBackpropV3", "CudnnRNNV2",
	"CudnnRNNV3", "Einsum", "GRUBlockCell", "GRUBlockCellGrad", "LSTMBlockCell", "LSTMBlockCellGrad", "MatMul",
	"BatchMatMul", "BatchMatMulV2", "Conv3D", "Conv3DBackpropFilter", "Conv3DBackpropFilterV2",
	"Conv3DBackpropInput", "Conv3DBackpropInputV2",
};
static const char *const amp_infer[] = {
	"Add", "AddN", "AddV2", "AvgPool", "AvgPool3D", "AvgPool3DGrad", "AvgPoolGrad", "BiasAdd", "BiasAddGrad",
	"BiasAddV1", "Elu", "EluGrad", "Erf", "Erfc", "FloorDiv", "FusedBatchNormV2", "FusedBatchNormGradV2",
	"FusedBatchNormV3", "FusedBatchNormGradV3", "_FusedBatchNormEx", "Inv", "LeakyRelu", "LeakyReluGrad", "Log",
	"Log1p", "LogSoftmax", "Mul", "Prod", "RealDiv", "Reciprocal", "Selu", "SeluGrad", "Sigmoid", "SigmoidGrad",
	"Softmax", "Softplus", "SoftplusGrad", "Softsign", "SoftsignGrad", "Sqrt", "Sub", "Tanh", "TanhGrad",
};
static const char *const amp_deny[] = {
	"Exp", "Expm1", "L2Loss", "Mean", "Pow", "SaveV2", "SoftmaxCrossEntropyWithLogits",
	"SparseSoftmaxCrossEntropyWithLogits", "Sum",
};
static const char *const amp_clear[] = {
	"Abs", "ArgMax", "ArgMin", "BatchToSpace", "BatchToSpaceND", "BroadcastTo", "Ceil", "CheckNumerics",
	"ClipByValue", "Concat", "ConcatV2", "DepthToSpace", "DynamicPartition", "DynamicStitch", "Enter", "EnsureShape",
	"Equal", "Exit", "ExpandDims", "Fill", "Floor", "Gather", "GatherNd", "GatherV2", "Greater", "GreaterEqual",
	"Identity", "IdentityN", "IsFinite", "IsInf", "IsNan", "Less", "LessEqual", "Max", "MaxPool", "MaxPool3D",
	"MaxPool3DGrad", "MaxPool3DGradGrad", "MaxPoolGrad", "MaxPoolGradGrad", "MaxPoolGradGradV2", "MaxPoolGradV2",
	"MaxPoolV2", "Maximum", "Merge", "Min", "Minimum", "MirrorPad", "MirrorPadGrad", "Neg", "NextIteration",
	"NotEqual", "OneHot", "OnesLike", "Pack", "Pad", "PadV2", "PreventGradient", "Rank", "Relu", "Relu6",
	"Relu6Grad", "ReluGrad", "Reshape", "ResizeNearestNeighbor", "ResizeNearestNeighborGrad", "Reverse",
	"ReverseSequence", "ReverseV2", "Round", "Select", "SelectV2", "Shape", "ShapeN", "Sign", "Size", "Slice",
	"Snapshot", "SpaceToBatch", "SpaceToBatchND", "SpaceToDepth", "Split", "SplitV", "Squeeze", "StopGradient",
	"StridedSlice", "StridedSliceGrad", "Switch", "TensorListConcat", "TensorListConcatV2", "TensorListGather",
	"TensorListGetItem", "TensorListPopBack", "TensorListPushBack", "TensorListFromTensor", "TensorListScatter",
	"TensorListScatterV2", "TensorListScatterIntoExistingList", "TensorListSetItem", "TensorListSplit",
	"TensorListStack", "Tile", "TopK", "TopKV2", "Transpose", "Where", "ZerosLike",
};
static const struct fpref_policy_list nvidia_amp[] = {
	{ "allow", FPREF_POLICY_LOWER, "float16 always (AllowList, formerly WhiteList)", amp_allow, N(amp_allow), TF_AMP ", WhiteList" },
	{ "infer", FPREF_POLICY_INFER, "float16 when its inputs are float16, else float32 (InferList, formerly GrayList)", amp_infer,
	  N(amp_infer), TF_AMP ", GrayList" },
	{ "deny", FPREF_POLICY_FP32, "float32, and so are the infer ops downstream of it (DenyList, formerly BlackList)", amp_deny,
	  N(amp_deny), TF_AMP ", BlackList" },
	{ "clear", FPREF_POLICY_CLEAR, "its input's type, float16 or float32 (ClearList)", amp_clear, N(amp_clear), TF_AMP ", ClearList" },
};

#define TPU_BLOG                                                                                                      \
	"Google Cloud blog, BFloat16: the secret to high performance on Cloud TPUs (each multiply-accumulate of a "   \
	"matrix multiplication multiplies in bfloat16 and accumulates in IEEE float32); Cloud TPU documentation "     \
	"(bfloat16 numerics): bfloat16 on Cloud TPU flushes subnormals to zero during the conversion, rne"
static const char *const tpu_mxu[] = { "matmul", "dot", "dot_general", "einsum", "conv_general_dilated", "conv2d",
				       "linear" };
static const struct fpref_policy_list tpu_bf16[] = {
	{ "mxu", FPREF_POLICY_LOWER, "bfloat16 x bfloat16 products (exact in float32), float32 accumulation (fpref dot --model tpu-bf16)",
	  tpu_mxu, N(tpu_mxu), TPU_BLOG },
};

#define INTEL_SDM                                                                                                     \
	"Intel SDM, TDPBF16PS and VDPBF16PS (each accumulation an FP32 FMA rounded to nearest even, input denormals "  \
	"treated as zero, output denormals flushed, MXCSR not consulted)"
static const char *const intel_amx[] = { "TDPBF16PS", "VDPBF16PS", "matmul", "mm", "bmm", "addmm", "linear",
					 "conv2d" };
static const struct fpref_policy_list intel_bf16[] = {
	{ "amx", FPREF_POLICY_LOWER, "bfloat16 x bfloat16 products, float32 accumulation, DAZ and FTZ, rne (fpref dot --model intel-bf16)",
	  intel_amx, N(intel_amx), INTEL_SDM "; the framework ops are PyTorch's CPU bfloat16 list, which oneDNN runs "
	  "on these instructions" },
};

static const struct fpref_policy policies[] = {
	{ "pytorch-cuda", "torch.autocast(device_type=\"cuda\", dtype=torch.float16)", pytorch_cuda, N(pytorch_cuda),
	  "not autocast: runs in the type of its inputs (" TORCH_AMP ")" },
	{ "pytorch-cpu", "torch.autocast(device_type=\"cpu\", dtype=torch.bfloat16)", pytorch_cpu, N(pytorch_cpu),
	  "not autocast: runs in the type of its inputs (" TORCH_AMP ")" },
	{ "nvidia-amp", "TensorFlow automatic mixed precision graph rewrite (TF-AMP), float16", nvidia_amp,
	  N(nvidia_amp), "on no list: kept in float32 (" TF_AMP ")" },
	{ "tpu-bf16", "Cloud TPU: bfloat16 matrix units, float32 accumulation and elsewhere", tpu_bf16, N(tpu_bf16),
	  "not on the matrix units: float32 (variables and other ops; " TPU_BLOG ")" },
	{ "intel-bf16", "Intel AMX-BF16 / AVX512-BF16 (oneDNN)", intel_bf16, N(intel_bf16),
	  "float32 (only the dot-product instructions take bfloat16)" },
};

size_t fpref_policy_count(void)
{
	return N(policies);
}

const struct fpref_policy *fpref_policy_at(size_t i)
{
	return i < N(policies) ? &policies[i] : NULL;
}

const struct fpref_policy *fpref_policy_find(const char *framework)
{
	for (size_t i = 0; i < N(policies); i++)
		if (strcmp(policies[i].framework, framework) == 0)
			return &policies[i];
	return NULL;
}

const struct fpref_policy_list *fpref_policy_lookup(const struct fpref_policy *p, const char *op)
{
	for (size_t l = 0; l < p->nlists; l++)
		for (size_t i = 0; i < p->lists[l].count; i++)
			if (strcmp(p->lists[l].ops[i], op) == 0)
				return &p->lists[l];
	return NULL;
}
