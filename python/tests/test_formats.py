import json
import subprocess

import pytest

import fpref
from conftest import CLI


def test_formats_match_cli(cli):
    rows = json.loads(subprocess.run([CLI, "formats", "--json"], capture_output=True, text=True, check=True).stdout)
    rows = [r for r in rows if "name" in r]  # the rows; the P3109 family entry has "family" instead
    mine = fpref.formats()
    assert [r["name"] for r in rows] == [f["name"] for f in mine]
    for r, f in zip(rows, mine):
        assert (r["exponent_bits"], r["mantissa_bits"], r["bias"], r["specials"], r["subnormals"]) == \
            (f["exp_bits"], f["man_bits"], f["bias"], f["specials"], f["subnormals"])
        for k in ("max_finite", "min_normal", "min_positive", "epsilon"):
            assert r[k] == f[k], (f["name"], k)


def test_format_info_and_aliases():
    assert fpref.format_info("e4m3")["name"] == "float8_e4m3fn"
    assert fpref.format_info("e3m2,bias=4")["bias"] == 4
    assert fpref.format_info("e2m1")["element_bytes"] == 1
    assert fpref.format_info("e4m3")["max_finite"] == "448"
    with pytest.raises(ValueError, match="fpref.formats"):
        fpref.format_info("float7")
    with pytest.raises(TypeError):
        fpref.format_info(8)


def test_helpers():
    assert fpref.flags_describe(5) == "inexact overflow"
    assert fpref.hex_codes([0x7F, 1], "e4m3") == ["7F", "01"]
    assert fpref.__version__
    assert {m["gpu"] for m in fpref.models()} >= {"v100", "a100", "h100", "ada"}


def test_time_convert_for_the_benchmark():
    import numpy as np
    from fpref import _fpref
    x = np.arange(64, dtype=np.float32)
    out = np.empty(64, np.uint8)
    times = _fpref.time_convert("float32", "float8_e4m3fn", x.view(np.uint32), out, 3)
    assert len(times) == 3 and all(t >= 0 for t in times)
    assert out.tolist() == fpref.convert(x, "e4m3").tolist()


def test_threads_share_nothing():
    """The GIL is released around the library calls; results stay the same."""
    from concurrent.futures import ThreadPoolExecutor
    import numpy as np
    x = np.random.default_rng(0).standard_normal(1 << 16).astype(np.float32)
    want = fpref.convert(x, "e5m2").tolist()
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: fpref.convert(x, "e5m2").tolist(), range(8)))
    assert all(g == want for g in got)
    with ThreadPoolExecutor(4) as pool:
        ref = list(pool.map(lambda i: fpref.convert(x[i::4][:500], "e5m2", engine="ref").tolist(), range(4)))
    assert all(r == fpref.convert(x[i::4][:500], "e5m2").tolist() for i, r in enumerate(ref))


def test_cli_formats_json_has_the_p3109_family(cli_json):
    rows = cli_json(["formats"])
    family = rows[-1]
    assert "name" not in family and family["family"] == "binaryKpP{s,u}{e,f}"
    assert [r for r in rows if "family" in r] == [family]
    assert family["k_min"] == 3 and family["k_max"] == 16
    assert fpref.format_info(family["example"])["name"] == "binary8p4se"
    assert family["rule"].startswith("binaryKpP{s,u}{e,f}: IEEE P3109")
