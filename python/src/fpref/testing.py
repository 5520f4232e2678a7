"""Assertions for tests of ML kernels, usable from pytest: each raises
AssertionError listing the first mismatches, with the inputs, both codes
and the mismatch class of golden/fpref_golden.h's fpref_golden_classify
("rounding direction", "subnormal flushed (or kept)", "NaN encoding",
"saturation vs inf", "sign of zero", "flags only", "other")."""
from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import numpy as np

from . import _codes_in, _fpref, _inp_pair, format_info, gemm

__all__ = ["assert_bitexact", "assert_matches_model"]


def _report(title: str, fmt: str, got: np.ndarray, want: np.ndarray, describe, show: int) -> None:
    bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1))
    if bad.size == 0:
        return
    lines = [f"{title}: {bad.size} of {got.size} codes of {fmt} differ; the first {min(show, bad.size)}:"]
    g, w = got.reshape(-1), want.reshape(-1)
    for i in bad[:show]:
        i = int(i)
        kind = _fpref.classify(fmt, int(w[i]), 0, int(g[i]), -1)
        where = np.unravel_index(i, got.shape) if got.ndim else ()
        lines.append(f"  at {tuple(int(k) for k in where)}: {describe(i)}got {_fpref.hex(fmt, int(g[i]))}, "
                     f"expected {_fpref.hex(fmt, int(w[i]))} ({kind})")
    raise AssertionError("\n".join(lines))


def assert_bitexact(actual: Any, expected_codes: Any, fmt: Optional[str] = None, *, inputs: Any = None,
                    show: int = 10) -> None:
    """Assert that actual holds exactly the codes expected_codes.

    actual: codes, or an array of a float/ml_dtypes type (its bit patterns);
    fmt: the format (needed for integer codes unless actual's dtype names
    it).  inputs: optional array of the same shape shown beside each
    mismatch.

    >>> import fpref
    >>> assert_bitexact(fpref.convert([1.0], "bf16"), [0x3F80], "bf16")
    """
    if fmt is None:
        for v in (actual, expected_codes):
            try:  # a float, ml_dtypes or torch array names its format; integer codes do not
                fmt = _codes_in(v, None)[1]
                break
            except TypeError:
                continue
    if fmt is None:
        raise TypeError("assert_bitexact needs fmt= when both arrays hold integer codes")
    name = format_info(fmt)["name"]
    got, _ = _codes_in(actual, name)
    want, _ = _codes_in(expected_codes, name)
    if got.shape != want.shape:
        raise AssertionError(f"shapes differ: actual {got.shape}, expected {want.shape}")
    shown = None if inputs is None else np.asarray(inputs).reshape(-1)

    def describe(i: int) -> str:
        return "" if shown is None else f"input {shown[i]}, "

    _report("not bit-exact", name, got, want, describe, show)


def assert_matches_model(D: Any, A: Any, B: Any, C: Any = None, *, model: str = "h100",
                         inp: Union[str, Tuple[str, str]] = "e4m3", out: str = "f32", promote: Optional[int] = None, block: Optional[int] = None,
                         frac: Optional[int] = None, floor: Optional[int] = None, final: str = "rtz",
                         round: Optional[str] = None, show: int = 10) -> None:
    """Assert that D (M x N, codes or a float array of out) is what the
    tensor-core model computes for A B + C (fpref.gemm with the same
    arguments); each mismatch lists the row of A and column of B it came
    from (their codes, in hex) and C's code.  inp: one format, or a pair
    (A's, B's) such as ("e5m2", "e4m3"), as fpref.gemm takes it.

    >>> import fpref
    >>> A = fpref.convert([[1.0, 2.0]], "e4m3"); B = fpref.convert([[3.0], [4.0]], "e4m3")
    >>> assert_matches_model(np.array([[11.0]], np.float32), A, B)
    """
    out_name = format_info(out)["name"]
    in_a, in_b, said_a, said_b = _inp_pair(inp)
    want = gemm(A, B, C, model=model, inp=inp, out=out_name, promote=promote, block=block, frac=frac,
                floor=floor, final=final, round=round)
    got, _ = _codes_in(D, out_name, "out", "D", f"out={out!r}")
    if got.shape != want.shape:
        raise AssertionError(f"D has shape {got.shape}, A B has {want.shape}")
    a, _ = _codes_in(A, in_a, "inp", "A", said_a)
    b, _ = _codes_in(B, in_b, "inp", "B", said_b)
    c = None if C is None else _codes_in(C, out_name, "out", "C", f"out={out!r}")[0]
    N = want.shape[1]

    def describe(i: int) -> str:
        r, k = divmod(i, N)
        row = " ".join(_fpref.hex(in_a, int(v)) for v in a[r])
        col = " ".join(_fpref.hex(in_b, int(v)) for v in b[:, k])
        cc = "+0" if c is None else _fpref.hex(out_name, int(c[r, k]))
        return f"A row [{row}], B column [{col}], C {cc}: "

    _report(f"does not match the {model} model", out_name, got, want, describe, show)
