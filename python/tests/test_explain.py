import dataclasses

import numpy as np
import pytest

import fpref


def _cli_lines(cli, args):
    return {r[0]: r[1:] for r in cli(["explain"] + args) if r}


@pytest.mark.parametrize("value, to, env, cli_env", [
    ("465", "e4m3", {}, []),
    ("464", "e4m3", {}, []),
    ("0.1", "bf16", {}, []),
    ("1e-10", "f16", dict(ftz=True), ["--ftz"]),
    ("300", "e4m3", dict(sat=True), ["--sat"]),
    ("-0", "e4m3fnuz", {}, []),
    ("nan", "e2m1", {}, []),
    ("1.0625", "e4m3", dict(round="rup"), ["--round", "rup"]),
])
def test_explain_matches_cli(cli, value, to, env, cli_env):
    e = fpref.explain(value, to, **env)
    lines = _cli_lines(cli, [value, "--to", to] + cli_env)
    assert lines["result"][0] == e.hex
    assert int(lines["flags"][0], 16) == e.flags
    assert e.value == lines["result"][-1]
    if e.lo is not None:
        assert lines["neighbours"][0] == e.lo


def test_explain_fields():
    e = fpref.explain("465", "e4m3")
    assert isinstance(e, fpref.Explanation) and dataclasses.is_dataclass(e)
    assert (e.bits, e.rule, e.outcome, e.lo, e.hi, e.lo_held, e.hi_held) == \
        (0x7F, "nearest", "overflow_nan", "448", "480", True, False)
    assert e.flags == fpref.FLAG_INEXACT | fpref.FLAG_OVERFLOW and e.flag_names == "inexact overflow"
    t = fpref.explain("0.1", "bf16")
    assert t.inexact_input and t.exact is None and t.rule == "nearest" and 0 < t.err_ulp <= 0.5
    assert fpref.explain("1.5", "e2m1").rule == "exact"
    assert fpref.explain("1.25", "e2m1").rule == "tie_even"
    assert fpref.explain("1.25", "e2m1", round="rna").rule == "tie_away"


def test_explain_value_kinds():
    a = fpref.explain(0.1, "bf16")
    assert a.exact == "0.1000000000000000055511151231257827021181583404541015625"
    assert fpref.explain(np.float32(0.1), "bf16").exact != a.exact
    assert fpref.explain("3c00", "e4m3", from_="f16").hex == "38"
    assert fpref.explain(0x3C00, "e4m3", from_="f16").hex == "38"
    assert fpref.explain(465, "e4m3").hex == "7F"


def test_explain_bad_arguments():
    with pytest.raises(ValueError):
        fpref.explain("twelve", "e4m3")
    with pytest.raises(TypeError):
        fpref.explain([1.0, 2.0], "e4m3")
    with pytest.raises(ValueError, match="e4m9z"):
        fpref.explain("1", "e4m9z")


def test_explain_ml_dtypes_scalar():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    e = fpref.explain(ml_dtypes.bfloat16(0.1), "e4m3")
    assert e.exact == "0.10009765625" and e.hex == "1D"
