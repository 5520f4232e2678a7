#!/usr/bin/env python3
"""cuBLASLt's FP8 GEMM through PyTorch (torch._scaled_mm calls cublasLtMatmul),
on the A and B that kernels/hopper-selftest wrote with --dump DIR.

usage: kernels/cublaslt-torch.py DIR

Writes DIR/torch-TAG-OUT-fastF.npy (the output's bit patterns: uint32 for
float32, uint16 for bfloat16) for fast accumulation off and on, and prints
the versions.  The files are compared with `fpref gemm --save` models on a
machine with fpref (kernels/README.md).  Exit 0 when every GEMM ran, 1 when
some failed (each failure is printed), 77 without torch or a GPU."""
import sys

try:
    import numpy as np
    import torch
except ImportError as e:
    print(f"cublaslt-torch: {e}: skipped")
    sys.exit(77)
if len(sys.argv) != 2:
    print(__doc__)
    sys.exit(2)
if not torch.cuda.is_available():
    print("cublaslt-torch: no CUDA device: skipped")
    sys.exit(77)
folder = sys.argv[1]
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")
failures = 0
one = torch.tensor(1.0, device="cuda")
for a_name, b_name in (("float8_e4m3fn", "float8_e4m3fn"), ("float8_e5m2", "float8_e4m3fn")):
    tag = f"{a_name}-{b_name}"
    try:
        A = np.load(f"{folder}/cublaslt-{tag}-A.npy")
        B = np.load(f"{folder}/cublaslt-{tag}-B.npy")
    except OSError as e:
        print(f"{tag}: {e}")
        failures += 1
        continue
    a = torch.from_numpy(A).cuda().view(getattr(torch, a_name))
    # cuBLASLt's FP8 GEMM wants the second operand column-major.
    b = torch.from_numpy(B).cuda().view(getattr(torch, b_name)).t().contiguous().t()
    for out, bits in ((torch.float32, torch.int32), (torch.bfloat16, torch.int16)):
        for fast in (False, True):
            name = f"{folder}/torch-{tag}-{str(out).split('.')[1]}-fast{int(fast)}.npy"
            try:
                d = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=out, use_fast_accum=fast)
                np.save(name, d.contiguous().view(bits).cpu().numpy())
                print(f"{tag} -> {out} fast_accum={fast}: {tuple(d.shape)} written")
            except Exception as e:  # a refusal is a finding, not a crash
                print(f"{tag} -> {out} fast_accum={fast}: {type(e).__name__}: {e}")
                failures += 1
sys.exit(1 if failures else 0)
