"""Against ml_dtypes where it is installed.  Documented differences only:
with profile="ml_dtypes", casts agree bit for bit except NaN patterns
(ml_dtypes keeps an FP32 NaN's payload bits where fpref gives the canonical
NaN; tools/crosscheck-ml-dtypes counts them the same way)."""
import numpy as np
import pytest

import fpref
from conftest import f32_edge_and_random

ml_dtypes = pytest.importorskip("ml_dtypes")

NAMES = ["bfloat16", "float8_e5m2", "float8_e4m3fn", "float8_e4m3", "float8_e4m3fnuz", "float8_e5m2fnuz",
         "float8_e4m3b11fnuz", "float8_e3m4", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]
NAMES = [n for n in NAMES if hasattr(ml_dtypes, n)]


def _isnan(codes, t):
    return np.isnan(codes.view(t).astype(np.float32))


@pytest.mark.parametrize("name", NAMES)
def test_casts_match_ml_dtypes(name):
    t = getattr(ml_dtypes, name)
    x = f32_edge_and_random(20000, seed=5).view(np.float32)
    with np.errstate(all="ignore"):
        want = x.astype(t)
    got = fpref.convert(x, name, profile="ml_dtypes", as_ml_dtypes=True)
    assert got.dtype == want.dtype
    u = np.uint8 if got.itemsize == 1 else np.uint16
    g, w = got.view(u), want.view(u)
    differ = g != w
    both_nan = _isnan(g, t) & _isnan(w, t)
    assert not np.any(differ & ~both_nan), [hex(int(v)) for v in x.view(np.uint32)[differ & ~both_nan][:5]]


@pytest.mark.parametrize("name", NAMES)
def test_ml_dtypes_arrays_are_read_as_their_format(name):
    t = getattr(ml_dtypes, name)
    bits = 8 * np.dtype(t).itemsize
    width = fpref.format_info(name)["container_bits"]
    codes = np.arange(1 << min(width, 16), dtype=np.uint8 if bits == 8 else np.uint16)
    arr = codes.view(t)
    got = fpref.decode(arr)
    with np.errstate(all="ignore"):
        want = arr.astype(np.float64)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    assert np.all(same)
    assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))
    assert fpref.convert(arr, "f32").tolist() == fpref.convert(codes, "f32", from_=name).tolist()


@pytest.mark.parametrize("name", ["int2", "uint2", "int4", "uint4"])
def test_ml_dtypes_integers_decode_as_ml_dtypes_does(name):
    # fpref's integer rows (formats/int.c) against ml_dtypes' own cast.
    dt = getattr(ml_dtypes, name)
    info = ml_dtypes.iinfo(dt)
    values = np.arange(int(info.min), int(info.max) + 1).astype(dt)
    got = fpref.convert(values, "f32").view(np.float32)
    assert list(got) == list(values.astype(np.float32))


def test_unknown_dtype_refused():
    with pytest.raises((ValueError, TypeError), match="dtype"):
        fpref.convert(np.zeros(3, dtype=np.complex64), "e4m3")


def test_as_ml_dtypes_for_numpy_types():
    assert fpref.convert([1.5], "f16", as_ml_dtypes=True).dtype == np.float16
    with pytest.raises(ValueError, match="no type"):
        fpref.convert([1.5], "tf32", as_ml_dtypes=True)
