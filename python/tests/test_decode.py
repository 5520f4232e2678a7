import numpy as np
import pytest

import fpref


def test_decode_e4m3_every_code(cli):
    codes = np.arange(256, dtype=np.uint8)
    values = fpref.decode(codes, "e4m3")
    rows = cli(["convert", "--from", "e4m3", "--to", "f64"], [f"{c:02X}" for c in range(256)])
    assert values.view(np.uint64).tolist() == [int(r[1], 16) for r in rows]
    assert values[0x7E] == 448.0 and np.isnan(values[0x7F]) and values[1] == 2.0 ** -9


def test_decode_signs_and_specials():
    v = fpref.decode([0x8000, 0x7C00, 0xFC00, 0x7E00, 0x0001], "f16")
    assert np.signbit(v[0]) and v[0] == 0
    assert v[1] == np.inf and v[2] == -np.inf and np.isnan(v[3]) and v[4] == 2.0 ** -24


def test_decode_wider_than_float64():
    top = (1 << 61) | 1  # e2m61: 1 + 2^-61 is not a float64
    with pytest.raises(ValueError, match="exactly"):
        fpref.decode([top], "custom:e2m61")
    assert fpref.decode([top], "custom:e2m61", exact=False).tolist() == [1.0]


def test_decode_rejects_invalid_patterns():
    with pytest.raises(ValueError, match="invalid"):
        fpref.decode([0x7FC00001], "tf32")


def test_decode_needs_a_format_for_integers():
    with pytest.raises(TypeError, match="format=FMT"):
        fpref.decode([1, 2])
    with pytest.raises(ValueError, match=r"is not a float16 value: give values format='f16' holds exactly"):
        fpref.decode(np.float32([0.1]), "f16")
    # a float array of the format's values is read as those values (issue 34)
    assert fpref.decode(np.float32([1.5, -0.0]), "f16").tolist() == [1.5, -0.0]
