"""Assertions for tests of ML kernels, usable from pytest: each raises
AssertionError listing the first mismatches, one short line each: where,
both codes with their values, the mismatch class of golden/fpref_golden.h's
fpref_golden_classify, and for a GEMM the exact result, both errors against
it and the model's a priori bound, with the largest product of the dot
(never whole rows: at K = 4096 ten mismatches stay under 2 KB).  pytest
shows the caller's line, not these helpers' source (__tracebackhide__)."""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, List, Optional, Tuple, Union

import numpy as np

from ._vocabulary import renamed
from . import _codes_in, _fpref, _gemm_scales, _inp_pair, bound, decode, format_info, gemm

__all__ = ["assert_bitexact", "assert_matches_model"]


_SHORT = {"float32": np.float32, "float16": np.float16}


def _value(fmt: str, code: int) -> str:
    """A code's value as a short text: the shortest that reads back for
    FP32 and FP16 (NumPy's), 8 digits otherwise."""
    v = decode(np.array([code], dtype=np.uint64), fmt, exact=False)[0]
    return str(_SHORT[fmt](v)) if fmt in _SHORT else f"{v:.8g}"


def _report(title: str, name: str, fmt: str, got: np.ndarray, want: np.ndarray,
            describe: Callable[[int], Tuple[Optional[str], str]], show: int) -> None:
    """describe(i): the class where the caller knows better than the bits
    (None: fpref_golden_classify's), and the text after the codes."""
    __tracebackhide__ = True
    bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1))
    if bad.size == 0:
        return
    lines = [f"{title}: {bad.size} of {got.size} codes of {fmt} differ; the first {min(show, bad.size)}:"]
    g, w = got.reshape(-1), want.reshape(-1)
    for i in bad[:show]:
        i = int(i)
        known, text = describe(i)
        kind = known or _fpref.classify(fmt, int(w[i]), 0, int(g[i]), -1)
        where = np.unravel_index(i, got.shape) if got.ndim else ()
        gi, wi = int(g[i]), int(w[i])
        at = ",".join(str(int(k)) for k in where)
        lines.append(f"  {name}[{at}]: got {_fpref.hex(fmt, gi)} ({_value(fmt, gi)}), "
                     f"expected {_fpref.hex(fmt, wi)} ({_value(fmt, wi)}) [{kind}]{text}")
    raise AssertionError("\n".join(lines))


@renamed(fmt="format")
def assert_bitexact(actual: Any, expected_codes: Any, format: Optional[str] = None, *, inputs: Any = None,
                    show: int = 10) -> None:
    """Assert that actual holds exactly the codes expected_codes.

    actual: codes, a NumPy float array holding values of format exactly, or an
    array of an ml_dtypes type (its bit patterns); format: the format (needed
    for integer codes unless actual's dtype names it).  inputs: optional
    array of the same shape shown beside each mismatch.

    >>> import fpref
    >>> assert_bitexact(fpref.convert([1.0], "bf16"), [0x3F80], "bf16")
    """
    __tracebackhide__ = True
    if format is None:
        for v in (actual, expected_codes):
            try:  # a float, ml_dtypes or torch array names its format; integer codes do not
                format = _codes_in(v, None)[1]
                break
            except TypeError:
                continue
    if format is None:
        raise TypeError("assert_bitexact needs format= when both arrays hold integer codes")
    name = format_info(format)["name"]
    got, _ = _codes_in(actual, name, "format", "actual")
    want, _ = _codes_in(expected_codes, name, "format", "expected_codes")
    if got.shape != want.shape:
        raise AssertionError(f"shapes differ: actual {got.shape}, expected {want.shape}")
    shown = None if inputs is None else np.asarray(inputs).reshape(-1)

    def describe(i: int) -> Tuple[Optional[str], str]:
        return None, "" if shown is None else f"; input {shown[i]}"

    _report("not bit-exact", "actual", name, got, want, describe, show)


def _exact_dot(a: np.ndarray, b: np.ndarray, scale: Optional[np.ndarray], c: Optional[float]) -> Optional[Fraction]:
    """sum a[k] b[k] scale[k] + c exactly (float64 inputs, each exact;
    Fractions, since float64 products of wide formats are not), None when
    a term is not finite."""
    terms = [a, b] + ([scale] if scale is not None else [])
    if not all(np.all(np.isfinite(t)) for t in terms) or (c is not None and not np.isfinite(c)):
        return None
    s = Fraction(0) if c is None else Fraction(float(c))
    for k in range(a.size):
        p = Fraction(float(a[k])) * Fraction(float(b[k]))
        s += p if scale is None else p * Fraction(float(scale[k]))
    return s


def _err(x: Optional[Fraction], exact: Optional[Fraction]) -> str:
    return "-" if x is None or exact is None else f"{float(x - exact):+.3g}"


@renamed(inp="in_format", out="out_format")
def assert_matches_model(D: Any, A: Any, B: Any, C: Any = None, *, model: str = "h100",
                         in_format: Union[str, Tuple[str, str]] = "e4m3", out_format: str = "f32", promote: Optional[int] = None,
                         block: Optional[int] = None, frac: Optional[int] = None, floor: Optional[int] = None,
                         final: str = "rtz", round: Optional[str] = None, scale_a: Any = None, scale_b: Any = None,
                         scale_every: Optional[int] = None, scale_format: str = "e8m0", shape: Optional[str] = None,
                         traits: Optional[List[str]] = None, show: int = 10) -> None:
    """Assert that D (M x N, codes or a float array of out_format's values) is what
    the tensor-core model computes for A B + C: fpref.gemm with the same
    arguments, block scales (scale_a, scale_b, scale_every, scale_format)
    and the instruction shape included.  A, B: codes, ml_dtypes arrays, or float arrays holding
    values of in_format exactly; in_format: one format, or a pair (A's, B's) such as
    ("e5m2", "e4m3").  Each mismatch line gives the element, got and
    expected (hex and value), the exact A B + C there, both errors against
    it, the model's bound (fpref.bound) and the dot's largest product.

    >>> import fpref
    >>> A = fpref.convert([[1.0, 2.0]], "e4m3"); B = fpref.convert([[3.0], [4.0]], "e4m3")
    >>> assert_matches_model(np.array([[11.0]], np.float32), A, B)
    """
    __tracebackhide__ = True
    out_name = format_info(out_format)["name"]
    in_a, in_b, said_a, said_b = _inp_pair(in_format)
    args = dict(model=model, in_format=in_format, out_format=out_name, promote=promote, block=block, frac=frac, floor=floor, final=final,
                round=round, shape=shape, traits=traits)
    scales = dict(scale_a=scale_a, scale_b=scale_b, scale_every=scale_every, scale_format=scale_format)
    want = gemm(A, B, C, **args, **scales)
    got, _ = _codes_in(D, out_name, "out_format", "D", f"out_format={out_format!r}")
    if got.shape != want.shape:
        raise AssertionError(f"D has shape {got.shape}, A B has {want.shape}")
    a, _ = _codes_in(A, in_a, "in_format", "A", said_a)
    b, _ = _codes_in(B, in_b, "in_format", "B", said_b)
    c = None if C is None else _codes_in(C, out_name, "out_format", "C", f"out_format={out_format!r}")[0]
    M, K = a.shape
    N = want.shape[1]
    av, bv = decode(a, in_a), decode(b, in_b)
    cv = None if c is None else decode(c, out_name)
    sav = sbv = None
    every = 1
    if scale_a is not None or scale_b is not None:
        sa, sb, every, sf = _gemm_scales(scale_a, scale_b, scale_every, scale_format, M, N, K, promote, block, frac,
                                         floor, round)
        chunks = -(-K // every)
        sav, sbv = decode(sa, sf).reshape(M, chunks), decode(sb, sf).reshape(chunks, N)

    def describe(i: int) -> Tuple[Optional[str], str]:
        r, k = divmod(i, N)
        scale = None if sav is None else np.repeat(sav[r] * sbv[:, k], every)[:K]
        exact = _exact_dot(av[r], bv[:, k], scale, None if cv is None else cv[r, k])
        g, w = (Fraction(float(x)) if np.isfinite(x) else None
                for x in decode(np.array([got[r, k], want[r, k]], np.uint64), out_name, exact=False))
        one = {} if sav is None else dict(scale_a=sa.reshape(M, -1)[r:r + 1], scale_b=sb.reshape(-1, N)[:, k:k + 1],
                                          scale_every=every, scale_format=scale_format)
        bnd = bound(a[r:r + 1], b[:, k:k + 1], None if c is None else c[r:r + 1, k:k + 1], **args, **one)[0, 0]
        prods = np.abs(av[r] * bv[:, k])
        big = int(np.argmax(np.nan_to_num(prods, nan=np.inf))) if K else 0
        exact_text = "not finite" if exact is None else f"{float(exact):.9g}"
        # the model's answer is not the correct rounding: a kernel may be nearer the exact value (the
        # CLI's "nearer/farther from the exact value than the golden"; here the expected is the model)
        kind = None
        if exact is not None and g is not None and w is not None and abs(g - exact) != abs(w - exact):
            kind = "nearer the exact value" if abs(g - exact) < abs(w - exact) else "farther from the exact value"
        return kind, (f"\n    exact {exact_text}, errors {_err(g, exact)} / {_err(w, exact)}, bound {bnd:.3g}, largest "
                f"A[{r},{big}]={_fpref.hex(in_a, int(a[r, big]))} * B[{big},{k}]={_fpref.hex(in_b, int(b[big, k]))}")

    _report(f"does not match the {model} model (K={K}; errors: got's / expected's against the exact A B + C)",
            "D", out_name, got, want, describe, show)
