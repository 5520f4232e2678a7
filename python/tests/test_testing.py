import numpy as np
import pytest

import fpref
from fpref.testing import assert_bitexact, assert_matches_model


def test_assert_bitexact_passes_and_fails():
    x = np.array([1.0, 2.0, 465.0, -0.0], np.float32)
    codes = fpref.convert(x, "e4m3")
    assert_bitexact(codes, codes.copy(), "e4m3")
    wrong = codes.copy()
    wrong[1] = 0x41
    wrong[2] = 0x7E
    wrong[3] = 0x00
    with pytest.raises(AssertionError) as info:
        assert_bitexact(wrong, codes, "e4m3", inputs=x)
    text = str(info.value)
    assert "3 of 4 codes" in text and "actual[1]: got 41 (2.25), expected 40 (2) [rounding direction]" in text
    assert "actual[2]: got 7E (448), expected 7F (nan) [max finite for NaN]" in text  # E4M3FN has no inf
    assert "[sign of zero]" in text and "465.0" in text


def test_assert_bitexact_reads_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.array([1.0, 3.0], ml_dtypes.float8_e4m3fn)
    assert_bitexact(a, [0x38, 0x44])
    with pytest.raises(AssertionError, match="rounding direction"):
        assert_bitexact(a, [0x38, 0x45])
    with pytest.raises(TypeError, match="format="):
        assert_bitexact([1], [1])
    with pytest.raises(AssertionError, match="shapes"):
        assert_bitexact([1, 2], [1], "e4m3")


def test_assert_matches_model():
    rng = np.random.default_rng(0)
    A = fpref.convert(rng.standard_normal((4, 64)), "e4m3")
    B = fpref.convert(rng.standard_normal((64, 3)), "e4m3")
    D = fpref.gemm(A, B, model="h100")
    assert_matches_model(D, A, B, model="h100")
    assert_matches_model(fpref.decode(D, "f32").astype(np.float32), A, B, model="h100")
    exact = fpref.convert(fpref.decode(A, "e4m3") @ fpref.decode(B, "e4m3"), "f32")
    bad = D.copy()
    bad[0, 0] ^= 1
    with pytest.raises(AssertionError) as info:
        assert_matches_model(bad, A, B, model="h100")
    text = str(info.value)
    assert "does not match the h100 model (K=64" in text and "D[0,0]: got " in text and "exact " in text
    assert exact.shape == D.shape


def _dot_exact(A, B, inp_a="e4m3", inp_b="e4m3"):
    """The exact A B as float64 (each element a sum NumPy does not round:
    FP8 products are short, so sums of 64 of them fit float64's 53 bits)."""
    return fpref.decode(A, inp_a) @ fpref.decode(B, inp_b)


def test_message_at_k4096_is_short():
    """Issue 34: ten mismatches of a K = 4096 GEMM in under 2 KB, each with
    the exact value, both errors and the bound, and no K-long dumps."""
    rng = np.random.default_rng(7)
    K = 4096
    A = fpref.convert(rng.standard_normal((64, K)), "e4m3")
    B = fpref.convert(rng.standard_normal((K, 64)), "e4m3")
    D = fpref.gemm(A, B, model="h100")
    wrong = D.copy()
    where = [(60, 63), (3, 50), (41, 7), (63, 62), (17, 33), (9, 9), (50, 1), (30, 44), (5, 60), (62, 0), (1, 2)]
    for i, j in where:
        wrong[i, j] ^= 0x10
    with pytest.raises(AssertionError) as info:
        assert_matches_model(wrong, A, B, model="h100")
    text = str(info.value)
    assert len(text.encode()) < 2048, len(text)
    assert "11 of 4096 codes of float32 differ; the first 10" in text
    assert text.count("\n  D[") == 10 and text.count("bound ") == 10 and text.count("\n    exact ") == 10
    # every line is short: no row of A or column of B
    assert max(len(line) for line in text.splitlines()[1:]) < 120


def test_message_values_are_the_oracles():
    """The exact value and the bound a mismatch line shows are fpref.gemm's
    exact model (rounded to FP32 here) and fpref.bound of that element."""
    rng = np.random.default_rng(8)
    A = fpref.convert(rng.standard_normal((3, 96)), "e5m2")
    B = fpref.convert(rng.standard_normal((96, 2)), "e4m3")
    D = fpref.gemm(A, B, model="h100-wgmma", in_format=("e5m2", "e4m3"))
    wrong = D.copy()
    wrong[2, 1] ^= 1
    with pytest.raises(AssertionError) as info:
        assert_matches_model(wrong, A, B, model="h100-wgmma", in_format=("e5m2", "e4m3"))
    text = str(info.value)
    exact = _dot_exact(A, B, "e5m2", "e4m3")[2, 1]
    bnd = fpref.bound(A, B, model="h100-wgmma", in_format=("e5m2", "e4m3"))[2, 1]
    assert f"exact {exact:.9g}," in text and f"bound {bnd:.3g}," in text
    got = fpref.decode(wrong, "f32")[2, 1]
    assert f"errors {got - exact:+.3g} / " in text


def test_gemm_classes_against_the_exact_value():
    """Issue 34: a GEMM mismatch is told against the exact A B + C, not by
    bits alone: a kernel that accumulated exactly (D = the exact product
    rounded once) is nearer the exact value than the h100 model wherever
    they differ in their errors; one off by a large step is farther."""
    rng = np.random.default_rng(11)
    A = fpref.convert(rng.standard_normal((8, 512)), "e4m3")
    B = fpref.convert(rng.standard_normal((512, 8)), "e4m3")
    exact = fpref.gemm(A, B, model="exact")
    with pytest.raises(AssertionError) as info:
        assert_matches_model(exact, A, B, model="h100", show=64)
    lines = [line for line in str(info.value).splitlines() if line.startswith("  D[")]
    assert lines and all("[nearer the exact value]" in line or "[rounding direction]" in line for line in lines)
    assert any("[nearer the exact value]" in line for line in lines)
    far = fpref.gemm(A, B, model="h100")
    far[3, 4] ^= 0x00400000
    with pytest.raises(AssertionError, match=r"D\[3,4\]: .*\[farther from the exact value\]"):
        assert_matches_model(far, A, B, model="h100")


def test_float_arrays_holding_exact_values():
    """Issue 34: float32 arrays that hold E4M3 values exactly are taken, as
    the command takes a float .npy; one that does not is refused, named."""
    rng = np.random.default_rng(9)
    A = fpref.convert(rng.standard_normal((4, 32)), "e4m3")
    B = fpref.convert(rng.standard_normal((32, 5)), "e4m3")
    Af = fpref.decode(A, "e4m3").astype(np.float32)
    Bf = fpref.decode(B, "e4m3").astype(np.float16)
    D = fpref.gemm(A, B, model="h100")
    assert np.array_equal(fpref.gemm(Af, Bf, model="h100"), D)
    assert_matches_model(fpref.decode(D, "f32").astype(np.float32), Af, Bf, model="h100")
    assert_bitexact(Af, A, "e4m3")
    Af[2, 3] = np.float32(0.3)
    with pytest.raises(ValueError, match=r"^A\[2, 3\] = .*0\.3.* is not a float8_e4m3fn value: give values in_format='e4m3'"):
        fpref.gemm(Af, B, model="h100")
    with pytest.raises(ValueError, match=r"^actual\[2, 3\] = .* is not a float8_e4m3fn value"):
        assert_bitexact(Af, A, "e4m3")
    # NaN is a value of E4M3FN (its NaN code); 1e6 is not (it overflows)
    assert fpref.gemm(np.array([[np.nan]], np.float32), np.array([[1.0]], np.float32))[0, 0] & 0x7F800000 == 0x7F800000
    with pytest.raises(ValueError, match="not a float8_e4m3fn value"):
        fpref.gemm(np.array([[1e6]], np.float32), B[:1])


def test_block_scales():
    """assert_matches_model takes fpref.gemm's block scales, and its line
    shows the scaled exact value and fpref.bound's scaled bound."""
    rng = np.random.default_rng(10)
    A = fpref.convert(rng.standard_normal((4, 64)), "e4m3")
    B = fpref.convert(rng.standard_normal((64, 3)), "e4m3")
    sa = np.array([[2.0, 0.25]] * 4)
    sb = np.array([[0.5, 1.0, 4.0], [8.0, 1.0, 0.125]])
    kw = dict(model="tcgen05-mxf8f6f4", scale_a=sa, scale_b=sb)
    D = fpref.gemm(A, B, **kw)
    assert_matches_model(D, A, B, **kw)
    wrong = D.copy()
    wrong[3, 2] ^= 2
    with pytest.raises(AssertionError) as info:
        assert_matches_model(wrong, A, B, **kw)
    av, bv = fpref.decode(A, "e4m3"), fpref.decode(B, "e4m3")
    exact = av[3, :32] @ bv[:32, 2] * 2.0 * 4.0 + av[3, 32:] @ bv[32:, 2] * 0.25 * 0.125
    text = str(info.value)
    assert f"exact {exact:.9g}," in text
    assert f"bound {fpref.bound(A, B, **kw)[3, 2]:.3g}," in text
    # without the scales the same D does not match
    with pytest.raises(AssertionError):
        assert_matches_model(D, A, B, model="tcgen05-mxf8f6f4")


def test_tracebacks_hide_the_helpers():
    """pytest hides frames whose locals hold __tracebackhide__: every frame
    of fpref.testing in a failure's traceback must."""
    bad = fpref.convert([1.0, 2.0], "e4m3")
    for call in (lambda: assert_bitexact(bad, bad ^ 1, "e4m3"),
                 lambda: assert_matches_model(np.array([[0.0]], np.float32), bad[None, :1], bad[:1, None])):
        with pytest.raises(AssertionError) as info:
            call()
        frames = [e.frame for e in info.traceback]
        mine = [f for f in frames if f.code.path.name == "testing.py" and "fpref" in str(f.code.path)]
        assert mine and all(f.f_locals.get("__tracebackhide__") is True for f in mine)
