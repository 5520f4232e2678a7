"""The vocabulary's keywords (docs/vocabulary.md): format= for one format,
from_=/to for a conversion, in_format=/out_format= for a GEMM's; the old
keywords (fmt=, frm=, inp=, out=) give the same result with a
DeprecationWarning naming the new one."""
import inspect
import warnings

import numpy as np
import pytest

import fpref
from fpref import order, testing

A = fpref.convert([[1.0, 2.0], [0.5, -3.0]], "e4m3")
B = fpref.convert([[3.0, 0.25], [4.0, 1.5]], "e4m3")

CASES = [
    (fpref.format_info, (), {}, "fmt", "format", "e4m3"),
    (fpref.table, (), {}, "fmt", "format", "e2m1"),
    (fpref.hex_codes, ([0x7E, 0x01],), {}, "fmt", "format", "e4m3"),
    (fpref.decode, ([0x7E, 0x01],), {}, "fmt", "format", "e4m3"),
    (fpref.op, ("add", [0x3C00], [0x3C01]), {}, "fmt", "format", "f16"),
    (fpref.convert, ([0x3C00, 0xBC00], "e4m3"), {}, "frm", "from_", "f16"),
    (fpref.gemm, (A, B), dict(model="h100"), "inp", "in_format", ("e4m3", "e4m3")),
    (fpref.gemm, (A, B), dict(model="h100"), "out", "out_format", "f16"),
    (fpref.bound, (A, B), dict(model="h100"), "inp", "in_format", "e4m3"),
    (fpref.dot, (A[0], B[:, 0]), dict(model="h100"), "out", "out_format", "f16"),
    (order.tree_dot, ("((0,1),2)", [[1.0, 2.0, 3.0]]), {}, "inp", "in_format", "f16"),
]


def _same(x, y):
    if isinstance(x, np.ndarray):
        return np.array_equal(x, y, equal_nan=True)
    return x == y


@pytest.mark.parametrize("fn,args,kw,old,new,value", CASES, ids=[f"{c[3]}->{c[4]}-{i}" for i, c in enumerate(CASES)])
def test_old_keyword_same_result_with_a_warning(fn, args, kw, old, new, value):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new keyword warns of nothing
        want = fn(*args, **kw, **{new: value})
    with pytest.warns(DeprecationWarning, match=rf"{old}= is now {new}= \(the old keyword still works"):
        got = fn(*args, **kw, **{old: value})
    assert _same(got, want)


def test_explain_and_verify_gemm_old_keywords():
    with pytest.warns(DeprecationWarning, match="frm= is now from_="):
        assert fpref.explain("3c00", "e4m3", frm="f16").hex == fpref.explain("3c00", "e4m3", from_="f16").hex
    D = fpref.gemm(A, B, model="h100", in_format="e4m3", out_format="f32")
    with pytest.warns(DeprecationWarning) as seen:
        v = fpref.verify_gemm(D, A, B, model="h100", inp="e4m3", out="f32")
    assert v.passed and sorted(str(w.message).split(":")[1].split(" is now")[0].strip() for w in seen) == ["inp=", "out="]
    with pytest.warns(DeprecationWarning, match="inp= is now in_format="):
        testing.assert_matches_model(D, A, B, model="h100", inp="e4m3")
    with pytest.warns(DeprecationWarning, match="fmt= is now format="):
        testing.assert_bitexact([0x7E], [0x7E], fmt="e4m3")


def test_the_warning_points_at_the_caller():
    with pytest.warns(DeprecationWarning) as seen:
        fpref.decode([0x38], fmt="e4m3")
    assert seen[0].filename == __file__


def test_old_and_new_together_is_an_error():
    with pytest.raises(TypeError, match="the old and the new spelling of one keyword: give format="):
        fpref.op("add", [1], [1], fmt="f16", format="f16")
    with pytest.raises(TypeError, match="give in_format="):
        fpref.gemm(A, B, inp="e4m3", in_format="e4m3")


@pytest.mark.parametrize("fn,params", [
    (fpref.convert, ["from_"]), (fpref.explain, ["from_"]), (fpref.op, ["format"]), (fpref.decode, ["format"]),
    (fpref.gemm, ["in_format", "out_format"]), (fpref.dot, ["in_format", "out_format"]),
    (fpref.bound, ["in_format", "out_format"]), (fpref.verify_gemm, ["in_format", "out_format"]),
    (fpref.quantize, ["format"]), (order.reveal_order, ["in_format", "out_format"]),
    (order.tree_dot, ["in_format", "out_format"]), (testing.assert_matches_model, ["in_format", "out_format"]),
    (testing.assert_bitexact, ["format"])])
def test_signatures_name_the_new_keywords(fn, params):
    names = inspect.signature(fn).parameters
    assert all(p in names for p in params)
    assert not {"fmt", "frm", "inp", "out"} & set(names)
