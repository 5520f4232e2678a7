"""PyTorch tensors through fpref: read through __array__ and __dlpack__
(bfloat16 and the float8 types as their bit patterns), and the kernel
check of docs/python.md (a torch._scaled_mm-style FP8 GEMM against the
h100 model with promotion).  Torch is optional: python/check installs it
only with FPREF_TORCH=1 (the PyPI wheel brings its CUDA libraries, some
5 GB); without it these tests are skipped, and python/check reports them
as skipped, not passed."""
import re
from pathlib import Path

import numpy as np
import pytest

import fpref
from fpref.testing import assert_matches_model

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python/check installs it with FPREF_TORCH=1)")

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"


class DLPackOnly:
    """An object that offers nothing but the DLPack protocol."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, **kw):
        return self.t.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_tensors_through_array_and_dlpack():
    x = torch.randn(1000, generator=torch.Generator().manual_seed(1)) * 300
    want = fpref.convert(x.numpy(), "e4m3")
    assert np.array_equal(fpref.convert(x, "e4m3"), want)
    assert np.array_equal(fpref.convert(DLPackOnly(x), "e4m3"), want)
    for dt in (torch.float16, torch.float64):
        y = x.to(dt)
        assert np.array_equal(fpref.convert(DLPackOnly(y), "bf16"), fpref.convert(y.numpy(), "bf16"))


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"])
def test_torch_narrow_types_read_as_bits(name):
    """torch's own rounding to the narrow type, checked against fpref's (both
    round to nearest even; torch saturates nothing here: |x| < 240)."""
    dt = getattr(torch, name)
    x = torch.randn(4096, generator=torch.Generator().manual_seed(2)) * 30
    t = x.to(dt)
    bits = t.view(torch.uint8 if t.element_size() == 1 else torch.int16).numpy().view(
        np.uint8 if t.element_size() == 1 else np.uint16)
    assert np.array_equal(fpref.convert(x, name), bits)  # torch's cast and fpref's agree bit for bit
    assert np.array_equal(fpref.decode(t), fpref.decode(bits, name))
    assert np.array_equal(fpref.convert(t, "f32"), x.to(dt).to(torch.float32).numpy().view(np.uint32))


def test_unknown_torch_dtype():
    if not hasattr(torch, "float8_e8m0fnu"):
        pytest.skip("this torch has no float8_e8m0fnu")
    t = torch.ones(4).to(torch.float8_e8m0fnu)
    assert fpref.decode(t).tolist() == [1.0] * 4


def _doc_block():
    text = DOC.read_text()
    blocks = re.findall(r"```python\n(# test: torch\n.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/python.md has one torch example"
    return blocks[0]


def test_docs_torch_example():
    """The torch example of docs/python.md, run as written."""
    if not DOC.is_file():
        pytest.skip("docs/python.md is not beside this checkout")
    exec(compile(_doc_block(), str(DOC), "exec"), {})


def _fp8_operands(M, N, K, seed, integers):
    g = torch.Generator().manual_seed(seed)
    if integers:  # small integers: every product and partial sum exact, in any order
        a = torch.randint(-8, 9, (M, K), generator=g).float()
        b = torch.randint(-8, 9, (N, K), generator=g).float()
    else:
        a, b = torch.randn(M, K, generator=g) * 4, torch.randn(N, K, generator=g) * 4
    return a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn).t()


def test_cpu_scaled_mm_on_exact_inputs():
    """torch._scaled_mm on the CPU, where the sums are exact, must match the
    h100 model with promotion; a changed element must be caught."""
    if not hasattr(torch, "_scaled_mm"):
        pytest.skip("this torch has no _scaled_mm")
    A, B = _fp8_operands(16, 16, 64, 3, integers=True)
    one = torch.tensor(1.0)
    D = torch._scaled_mm(A, B, scale_a=one, scale_b=one, out_dtype=torch.float32)
    assert_matches_model(D, A, B, model="h100", in_format="e4m3", out_format="f32", promote=32)
    D[2, 5] = torch.nextafter(D[2, 5], torch.tensor(float("inf")))
    with pytest.raises(AssertionError, match=r"at \(2, 5\).*rounding direction"):
        assert_matches_model(D, A, B, model="h100", in_format="e4m3", out_format="f32", promote=32)


def test_scaled_mm_on_an_h100():
    """The real check: torch._scaled_mm on an H100 (sm_90) against the h100
    model, on inputs whose sums are not exact."""
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs an H100 (CUDA sm_90) for torch._scaled_mm")
    A, B = _fp8_operands(64, 64, 256, 4, integers=False)
    one = torch.tensor(1.0, device="cuda")
    D = torch._scaled_mm(A.cuda(), B.cuda(), scale_a=one, scale_b=one, out_dtype=torch.float32).cpu()
    assert_matches_model(D, A, B, model="h100", in_format="e4m3", out_format="f32")


def test_quantize_and_lossscale_take_tensors():
    x = torch.randn(4, 64, generator=torch.Generator().manual_seed(5))
    q = fpref.quantize(x, "mxfp8")
    assert np.array_equal(q.codes, fpref.quantize(x.numpy(), "mxfp8").codes)
    assert np.array_equal(fpref.quantize(x.to(torch.bfloat16), "mxfp8").codes,
                          fpref.quantize(x.to(torch.bfloat16).float().numpy(), "mxfp8").codes)
    run = fpref.lossscale("pytorch", grads=x * 2.0 ** -20)
    assert run.grads["values"].tolist() == [64] * 4
