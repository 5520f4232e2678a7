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
    assert "3 of 4 codes" in text and "got 41, expected 40 (rounding direction)" in text
    assert "got 7E, expected 7F (saturation vs inf)" in text and "(sign of zero)" in text and "465.0" in text


def test_assert_bitexact_reads_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.array([1.0, 3.0], ml_dtypes.float8_e4m3fn)
    assert_bitexact(a, [0x38, 0x44])
    with pytest.raises(AssertionError, match="rounding direction"):
        assert_bitexact(a, [0x38, 0x45])
    with pytest.raises(TypeError, match="fmt"):
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
    assert "A row [" in str(info.value) and "does not match the h100 model" in str(info.value)
    assert exact.shape == D.shape
