"""fpref: bit-exact reference for the number formats of machine learning.

A thin binding of libfpref (the C library beside this package): every
result is computed by the library, the integer emulator (engine="emu") or
the GNU MPFR oracle (engine="ref").  Python only moves arrays: values in,
bit patterns ("codes") out, as unsigned integer arrays of the format's
container width (uint8 for FP8, FP6 and FP4; uint16 for FP16 and BF16 ...).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from . import _fpref
from ._vocabulary import renamed

__version__: str = _fpref.__version__

__all__ = ["convert", "decode", "formats", "format_info", "table", "op", "explain", "Explanation", "dot", "gemm", "bound", "verify_gemm", "GemmVerdict", "models",
           "quantize", "Quantized", "lossscale", "LossScaleRun", "gen", "GenResult", "verify", "VerifyResult",
           "VerifyReport", "Mismatch", "suite_files",
           "flags_describe", "hex_codes", "FLAG_INEXACT", "FLAG_UNDERFLOW", "FLAG_OVERFLOW", "FLAG_INFINITE",
           "FLAG_INVALID", "testing", "reveal_order", "tree_dot", "RevealedOrder", "NoFixedTree", "draw", "probe",
           "ProbeReport"]

FLAG_INEXACT = 1
FLAG_UNDERFLOW = 2
FLAG_OVERFLOW = 4
FLAG_INFINITE = 8
FLAG_INVALID = 16

_UINT = {1: np.dtype("<u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8")}
_NATIVE_FLOAT = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
_ENGINES = ("emu", "ref")


@renamed(fmt="format")
def format_info(format: str) -> Dict[str, Any]:
    """The row of a format (a name, an alias or a custom spelling such as
    "e3m2" or "e5m2,bias=16"): exp_bits, man_bits, bias, specials, width,
    element_bytes ... as the library holds it.  ValueError if unknown."""
    if not isinstance(format, str):
        raise TypeError(f"a format is a name such as 'e4m3', not {type(format).__name__}")
    return _fpref.format_info(format)


def formats() -> List[Dict[str, Any]]:
    """The catalogue: one dict per format (fpref formats prints the same rows)."""
    return [_fpref.format_info(n) for n in _fpref.format_names()]


@renamed(fmt="format")
def table(format: str) -> List[Dict[str, Any]]:
    """Every code of a format of 8 bits or fewer, as `fpref table` lists
    it: one dict per code with code, hex, the fields sign, exponent and
    mantissa (k for an integer format such as int8), class (zero,
    subnormal, normal, inf, nan; "unused" for a code the format never
    produces) and value, the exact decimal (None for an unused code).

    >>> [r["value"] for r in table("e2m1")][:8]
    ['0', '0.5', '1', '1.5', '2', '3', '4', '6']
    """
    return _fpref.table(format_info(format)["name"])


def models() -> List[Dict[str, Any]]:
    """The tensor-core model rows (gpu, inputs, block, frac, fp16_inputs,
    fma_chain, fused): the block rows (fma_chain False), then the FMA-chain
    presets (dmma, CDNA's f32 and f64 instructions: fma_chain True, block and
    frac None, out the one input).  fused: each group of block products and
    C summed exactly and rounded once (CDNA1's f16 and bf16; frac unused)."""
    return _fpref.models()


def flags_describe(flags: int) -> str:
    """Flags as words: 5 -> "inexact overflow"."""
    return _fpref.flags_describe(int(flags))


@renamed(fmt="format")
def hex_codes(codes: Any, format: str) -> List[str]:
    """Codes as hex strings in the container's width, as the CLI prints them."""
    name = format_info(format)["name"]
    return [_fpref.hex(name, int(c)) for c in np.asarray(codes).ravel()]


def _ml_dtypes():
    try:
        import ml_dtypes
        return ml_dtypes
    except ImportError:
        return None


def _dtype_format(dt: np.dtype) -> Optional[str]:
    """The fpref format of a float dtype: NumPy's three, or an ml_dtypes type
    (read by its name, which fpref's catalogue shares); None for integers."""
    if dt.kind in "ui":
        return None
    if dt.kind == "f" and dt.name in _NATIVE_FLOAT:
        return dt.name
    if dt.kind == "V" or (dt.kind == "f" and dt.type.__module__.startswith("ml_dtypes")):
        try:
            return format_info(dt.name)["name"]
        except ValueError:
            raise ValueError(f"the dtype {dt.name} is not a format fpref knows (fpref.formats() lists them)") from None
    raise TypeError(f"cannot take an array of dtype {dt} (floats, ml_dtypes types or integer bit patterns)")


_TORCH_BITS = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}


def _torch_codes(x: Any) -> Optional[Tuple[np.ndarray, str]]:
    """A PyTorch tensor of a type NumPy has not (bfloat16, the float8
    types): its bit patterns (a view through an integer type of the same
    width, then NumPy) and the format its dtype names; None otherwise."""
    mod = type(x).__module__
    if not mod.startswith("torch") or not hasattr(x, "dtype") or not hasattr(x, "view"):
        return None
    name = str(x.dtype).replace("torch.", "")
    if name in ("float16", "float32", "float64") or not name.startswith(("bfloat", "float")):
        return None
    try:
        fmt = format_info(name)["name"]
    except ValueError:
        raise ValueError(f"the dtype torch.{name} is not a format fpref knows (fpref.formats() lists them)") from None
    import sys
    torch = sys.modules["torch"]
    bits = x.detach().view(getattr(torch, _TORCH_BITS[x.element_size()])).cpu().numpy()
    return bits.view(_UINT[x.element_size()]), fmt


def _as_array(x: Any) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    tc = _torch_codes(x)
    if tc is not None:
        codes, fmt = tc
        ml = _ml_dtypes()
        if ml is not None and hasattr(ml, fmt):
            return codes.view(getattr(ml, fmt))
        raise TypeError(f"a torch.{fmt} tensor: pass its bit patterns, t.view(torch.{_TORCH_BITS[codes.itemsize]}), "
                        f"with from_='{fmt}' (or install ml_dtypes)")
    if hasattr(x, "__array__") or isinstance(x, (list, tuple, int, float)):
        return np.asarray(x)
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    return np.asarray(x)


def _contiguous(a: np.ndarray) -> np.ndarray:
    # np.ascontiguousarray makes a 0-d array 1-d; keep the shape
    return a if a.flags.c_contiguous else np.ascontiguousarray(a).reshape(a.shape)


def _decimal_texts(x: Any) -> Optional[np.ndarray]:
    """Strings (a str, a list of them, a NumPy array of str): numbers that
    the oracle reads exactly; None for anything else."""
    if isinstance(x, str):
        return np.array(x)
    if isinstance(x, (list, tuple)) and x and all(isinstance(v, str) for v in np.asarray(x, dtype=object).ravel()):
        return np.asarray(x, dtype=object)
    if isinstance(x, np.ndarray) and x.dtype.kind in "US":
        return x.astype(str).astype(object)
    return None


def _codes_in(x: Any, frm: Optional[str], param: str = "from_", what: str = "the array",
              said: Optional[str] = None) -> Tuple[np.ndarray, str]:
    """The input as contiguous little-endian codes of its format, without a
    copy when it is already so.  Messages name the caller's argument: param
    (or said, the caller's own words such as "inp[1]='e4m3'") and what the
    array is to the caller ("B")."""
    tc = _torch_codes(x)
    if tc is not None:  # bit patterns and their format, whether or not ml_dtypes is there
        a, own = tc
    else:
        a = _as_array(x)
        own = _dtype_format(a.dtype)
    if frm is None:
        if own is None:
            raise TypeError(f"{what} is an integer array, which holds bit patterns: say whose with {param}=FMT "
                            "(or pass floats, or an ml_dtypes array)")
        frm = own
    info = format_info(frm)
    if own in _NATIVE_FLOAT and own != info["name"]:
        return _exact_values(a, info["name"], what, said or f"{param}={frm!r}"), info["name"]
    if own is not None and own != info["name"]:
        raise ValueError(f"{what} is {own}, but {said or f'{param}={frm!r}'} ({info['name']})")
    code_dtype = _UINT[info["element_bytes"]]
    if own is None:
        if a.size and (a.min() < 0 or int(a.max()) >= (1 << (8 * info["element_bytes"]))):
            raise ValueError(f"bit patterns of {info['name']} fit in {info['element_bytes']} byte(s); "
                             "these do not")
        a = a.astype(code_dtype, copy=False)
    else:
        if a.dtype.itemsize != info["element_bytes"]:
            raise ValueError(f"{a.dtype} items are {a.dtype.itemsize} bytes, {info['name']} takes "
                             f"{info['element_bytes']}")
        a = _contiguous(a)
        if a.dtype.byteorder == ">":
            a = a.byteswap().view(a.dtype.newbyteorder("<"))
        a = a.view(code_dtype)
    return _contiguous(a), info["name"]


def _exact_values(a: np.ndarray, fmt: str, what: str, said: str) -> np.ndarray:
    """NumPy floats that are values of fmt, as fmt's codes, the way the
    command reads a float .npy of an FP8 operand: each must be a value fmt
    holds exactly (NaN stays NaN), or ValueError naming the first that is
    not."""
    codes, flags = convert(a, fmt, return_flags=True)
    bad = np.flatnonzero(flags.reshape(-1) & FLAG_INEXACT)
    if bad.size:
        first = int(bad[0])
        where = np.unravel_index(first, a.shape) if a.ndim else ()
        more = f" (nor are {bad.size - 1} more)" if bad.size > 1 else ""
        raise ValueError(f"{what}{list(int(k) for k in where)} = {a.reshape(-1)[first]!r} is not a {fmt} value{more}: "
                         f"give values {said} holds exactly, or its bit patterns as integers")
    return codes


def _env(round: Optional[str], sat: Optional[bool], ftz: bool, daz: bool, profile: Optional[str],
         tininess: Optional[str], sr_seed: Optional[int], sr_width: int, sr_bits: Optional[str] = None,
         pre_scale: Optional[int] = None, overflow: Optional[str] = None) -> tuple:
    for name, v in (("sat", sat), ("ftz", ftz), ("daz", daz)):
        if v is not None and not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name} is True or False, not {v!r}")
    if overflow is not None and not isinstance(overflow, str):
        raise TypeError(f"overflow is a policy name such as 'sat' or 'satpropagate', not {type(overflow).__name__}")
    if round is not None and not isinstance(round, str):
        raise TypeError(f"round is a mode name such as 'rne', not {type(round).__name__}")
    if profile is not None and not isinstance(profile, str):
        raise TypeError(f"profile is a name such as 'cuda', not {type(profile).__name__}")
    if sr_bits is not None and not isinstance(sr_bits, str):
        raise TypeError(f"sr_bits is the text of --sr-bits (such as '0x3a', '12:seed=7', 'philox=1234:0:0'), "
                        f"not {type(sr_bits).__name__}")
    if pre_scale is not None and (isinstance(pre_scale, bool) or not isinstance(pre_scale, (int, np.integer))):
        raise TypeError(f"pre_scale is an E8M0 code, an integer 0..255, not {type(pre_scale).__name__}")
    if pre_scale is not None and not 0 <= int(pre_scale) <= 255:
        raise ValueError(f"pre_scale is an E8M0 code 0..255 (127 divides by 1, 255 is NaN), not {pre_scale}")
    return (round, -1 if sat is None else int(bool(sat)), int(bool(ftz)), int(bool(daz)), profile, tininess,
            sr_seed, int(sr_width), sr_bits, -1 if pre_scale is None else int(pre_scale), overflow)


def _check_engine(engine: str) -> None:
    if engine not in _ENGINES:
        raise ValueError(f"unknown engine {engine!r} (choices: emu, the integer emulator; ref, the MPFR oracle)")


def _raise_invalid(invalid: int, first: int, fmt: str, src: np.ndarray) -> None:
    if invalid:
        flat = src.reshape(-1)
        raise ValueError(f"{invalid} invalid pattern(s) of {fmt} (bits outside the container or nonzero pad "
                         f"bits), the first at flat index {first}: 0x{int(flat[first]):X}")


def _ml_view(codes: np.ndarray, fmt: str) -> np.ndarray:
    if fmt in _NATIVE_FLOAT:
        return codes.view(_NATIVE_FLOAT[fmt])
    ml = _ml_dtypes()
    if ml is None:
        raise ValueError("as_ml_dtypes=True needs the ml_dtypes package (pip install ml_dtypes)")
    t = getattr(ml, fmt, None)
    if t is None or np.dtype(t).itemsize != codes.dtype.itemsize:
        raise ValueError(f"ml_dtypes {ml.__version__} has no type for {fmt}")
    return codes.view(t)


@renamed(frm="from_")
def convert(x: Any, to: str, *, from_: Optional[str] = None, round: Optional[str] = None, sat: Optional[bool] = None,
            ftz: bool = False, daz: bool = False, profile: Optional[str] = None, tininess: Optional[str] = None,
            sr_seed: Optional[int] = None, sr_width: int = 32, sr_bits: Optional[str] = None, engine: str = "emu",
            return_flags: bool = False, as_ml_dtypes: bool = False,
            pre_scale: Optional[int] = None, overflow: Optional[str] = None) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
    """Round x to format `to`; the codes (bit patterns) as an unsigned array
    of x's shape.

    x: a NumPy array of float16/32/64, an ml_dtypes array (read as its bit
    patterns, the format from the dtype), a list, or anything with
    __array__ or __dlpack__.  With from_ given, an integer array holds bit
    patterns of from_.  Strings ("0.1", "1e-50", "0x1.8p3", "nan") are
    numbers read exactly and rounded once by the oracle, as `fpref convert
    VALUE` does.  round: rne (default), rna, rtz, rup, rdn, rod, sr
    (needs sr_seed: element i takes the counter-based stream's bits
    (sr_seed, i), sr_width of them), or an instruction's stochastic
    rounding, ptx-rs, te-nvfp4, avx10-bias, avx10-bias-s, amd-sr (needs
    sr_seed: its random words from the stream, or for te-nvfp4 from
    Philox4x32-10 with seed sr_seed, offset 0, thread 0; sr_width is the
    instruction's; docs/stochastic-rounding.md).  sr_bits instead of
    sr_seed: the text of the command's --sr-bits, the same random bits:
    "0x3a5" or "12:3a5" (fixed bits; under an instruction its random
    word), "seed=N" or "W:seed=N", or for an instruction
    "philox=SEED[:OFFSET[:THREAD[:ROUNDS]]]" (Transformer Engine's
    stream; element i is value i of the batch).  sat: clamp to max finite (default:
    IEEE overflow, or the profile's).  overflow: the command's --overflow,
    ieee, sat, satfinite (= sat), or P3109's satpropagate and satnone
    (give sat or overflow, not both).  profile: cuda, onnx-cast-19,
    onnx-cast-24, ml_dtypes, ocp; round and sat given explicitly override
    it.  engine: "emu" (the bulk converter, GIL released) or "ref" (the MPFR
    oracle, element by element).  return_flags: also the IEEE flags of each
    element (uint8: inexact 1, underflow 2, overflow 4, infinite 8,
    invalid 16).  as_ml_dtypes: the codes viewed as the ml_dtypes (or NumPy)
    type of `to`.  pre_scale: an E8M0 code; each value is divided by
    2^(pre_scale - 127) before rounding, 255 giving NaN (the command's
    --pre-scale, the scale step of AMD's v_cvt_scalef32_*).

    >>> convert([464.0, 465.0], "e4m3")
    array([126, 127], dtype=uint8)
    >>> convert(["0.1", "465"], "e4m3")
    array([ 29, 127], dtype=uint8)
    >>> convert(np.float32(1.0), "bf16", return_flags=True)
    (array(16256, dtype=uint16), array(0, dtype=uint8))
    """
    _check_engine(engine)
    to_name = format_info(to)["name"]
    texts = _decimal_texts(x)
    if texts is not None:
        if from_ is not None:
            raise ValueError("strings are numbers, read exactly; from_= is for integer bit patterns")
        out = np.empty(texts.shape, dtype=_UINT[format_info(to_name)["element_bytes"]])
        flags = np.empty(texts.shape, dtype=np.uint8) if return_flags else None
        _fpref.convert_decimal([str(t) for t in texts.reshape(-1)], to_name, out, flags,
                               *_env(round, sat, ftz, daz, profile, tininess, sr_seed, sr_width, sr_bits,
                                     pre_scale, overflow))
        if as_ml_dtypes:
            out = _ml_view(out, to_name)
        return (out, flags) if return_flags else out
    src, frm_name = _codes_in(x, from_)
    out = np.empty(src.shape, dtype=_UINT[format_info(to_name)["element_bytes"]])
    flags = np.empty(src.shape, dtype=np.uint8) if return_flags else None
    invalid, first = _fpref.convert(frm_name, to_name, engine, src, out, flags, src.size, 0,
                                    *_env(round, sat, ftz, daz, profile, tininess, sr_seed, sr_width, sr_bits,
                                          pre_scale, overflow))
    _raise_invalid(invalid, first, frm_name, src)
    if as_ml_dtypes:
        out = _ml_view(out, to_name)
    return (out, flags) if return_flags else out


@renamed(fmt="format")
def decode(codes: Any, format: Optional[str] = None, *, exact: bool = True) -> np.ndarray:
    """The values of codes of format as float64 (format may be left out for an
    ml_dtypes array).  The library converts them (fpref_emu_convert_array
    to float64, no rounding mode involved for the formats float64 holds:
    every format of the catalogue but the custom ones wider than float64).
    NaNs decode to float64's quiet NaN of the same sign, infinities to inf.
    Where float64 does not hold a value exactly (a custom format with more
    than 52 fraction bits or a wider exponent range), decode raises
    ValueError, or with exact=False rounds to nearest even (overflowing to
    inf).

    >>> decode([0x7E, 0x7F, 0x01], "e4m3").tolist()
    [448.0, nan, 0.001953125]
    """
    src, name = _codes_in(codes, format, "format")
    out = np.empty(src.shape, dtype="<u8")
    flags = np.empty(src.shape, dtype=np.uint8)
    invalid, first = _fpref.convert(name, "float64", "emu", src, out, flags, src.size, 0,
                                    *_env(None, None, False, False, None, None, None, 32))
    _raise_invalid(invalid, first, name, src)
    if exact and src.size and np.any(flags & (FLAG_INEXACT | FLAG_OVERFLOW | FLAG_UNDERFLOW)):
        i = int(np.flatnonzero(flags & (FLAG_INEXACT | FLAG_OVERFLOW | FLAG_UNDERFLOW))[0])
        raise ValueError(f"float64 does not hold the value of {name} pattern 0x{int(src.reshape(-1)[i]):X} "
                         "exactly (decode(..., exact=False) rounds to nearest even)")
    return out.view(np.float64)


_ARITY = {"add": 2, "sub": 2, "mul": 2, "div": 2, "sqrt": 1, "fma": 3, "min": 2, "max": 2, "eq": 2, "lt": 2,
          "le": 2}


@renamed(fmt="format")
def op(name: str, a: Any, b: Any = None, c: Any = None, *, format: str, round: Optional[str] = None,
       sat: Optional[bool] = None, ftz: bool = False, daz: bool = False, tininess: Optional[str] = None,
       sr_seed: Optional[int] = None, sr_width: int = 32, sr_bits: Optional[str] = None, engine: str = "emu",
       return_flags: bool = False, overflow: Optional[str] = None) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
    """One operation of `add sub mul div sqrt fma min max eq lt le` on codes of
    format (or float/ml_dtypes arrays of format), element by element, rounded once
    to format; comparisons give 1 or 0.  Operands broadcast against each other.
    The environment's keywords are convert's.

    >>> op("add", [0x3C00], [0x3C00], format="f16")   # 1 + 1 in float16
    array([16384], dtype=uint16)
    """
    if not isinstance(name, str) or name not in _ARITY:
        raise ValueError(f"unknown operation {name!r} (choices: {' '.join(_ARITY)})")
    _check_engine(engine)
    info = format_info(format)
    arity = _ARITY[name]
    given = [a, b, c][:arity]
    if any(v is None for v in given):
        raise TypeError(f"{name} takes {arity} operand(s)")
    if any(v is not None for v in [a, b, c][arity:]):
        raise TypeError(f"{name} takes {arity} operand(s), more were given")
    arrays = [_codes_in(v, info["name"], "format")[0] for v in given]
    try:
        arrays = [_contiguous(v) for v in np.broadcast_arrays(*arrays)]
    except ValueError:
        raise ValueError(f"operand shapes {[v.shape for v in arrays]} do not broadcast") from None
    shape = arrays[0].shape
    out = np.empty(shape, dtype=_UINT[info["element_bytes"]])
    flags = np.empty(shape, dtype=np.uint8) if return_flags else None
    operands = arrays + [None] * (3 - arity)
    invalid, first = _fpref.op(name, info["name"], engine, operands[0], operands[1], operands[2], out, flags,
                               out.size, *_env(round, sat, ftz, daz, None, tininess, sr_seed, sr_width, sr_bits,
                                                         None, overflow))
    if invalid:
        raise ValueError(f"{invalid} invalid pattern(s) of {info['name']}, the first at flat index {first}")
    return (out, flags) if return_flags else out


@dataclass(frozen=True)
class Explanation:
    """What `fpref explain` shows for one rounding, from the oracle's trace.

    exact: the input's exact decimal (None when the decimal written has no
    finite binary form, inexact_input then True); bits/hex/fields: the
    result and its (sign, exponent field, mantissa field); value: its exact
    decimal; shortest: the shortest decimal reading back as it; lo, hi: the
    neighbours bracketing the input (None for special inputs), *_held
    whether the format holds them, *_bits their patterns; rule: exact,
    nearest, tie_even, tie_away, toward_zero, toward_pos, toward_neg, odd,
    stochastic or special; outcome: what the format's overflow and special
    rules did (plain, overflow_nan, saturated, flushed, ...); tiny; flags
    and flag_names; err_abs, err_rel, err_ulp (NaN where none applies);
    text, and str(): the text `fpref explain` prints for it."""
    exact: Optional[str]
    inexact_input: bool
    format: str
    environment: str
    bits: int
    hex: str
    fields: Tuple[int, int, int]
    value: str
    shortest: Optional[str]
    lo: Optional[str]
    hi: Optional[str]
    lo_held: bool
    hi_held: bool
    lo_bits: int
    hi_bits: int
    lo_hex: str
    hi_hex: str
    rule: str
    outcome: str
    tiny: bool
    flags: int
    flag_names: str
    err_abs: float
    err_rel: float
    err_ulp: float
    text: str = field(default="", repr=False, compare=False)

    def __str__(self) -> str:
        """The text `fpref explain` prints for the same rounding."""
        return self.text


@renamed(frm="from_")
def explain(value: Union[str, float, int, np.generic], to: str, *, from_: Optional[str] = None,
            round: Optional[str] = None, sat: Optional[bool] = None, ftz: bool = False, daz: bool = False,
            profile: Optional[str] = None, tininess: Optional[str] = None, sr_seed: Optional[int] = None,
            sr_width: int = 32, sr_bits: Optional[str] = None, pre_scale: Optional[int] = None,
            overflow: Optional[str] = None) -> Explanation:
    """The teaching view of one rounding to `to`, by the oracle.

    value: a decimal string of any length ("0.1", "0x1.8p3", "nan"), a
    Python float (its float64 value), a NumPy or ml_dtypes scalar (its own
    format), or with from_ an integer bit pattern of from_.

    >>> e = explain("465", "e4m3")
    >>> e.hex, e.rule, e.outcome, e.flag_names
    ('7F', 'nearest', 'overflow_nan', 'inexact overflow')
    >>> print(explain("1e-9", "bf16"))  # doctest: +ELLIPSIS
    input        1e-9
    ...
    flags        01 (inexact)
    ...
    """
    env = _env(round, sat, ftz, daz, profile, tininess, sr_seed, sr_width, sr_bits, pre_scale, overflow)
    to_name = format_info(to)["name"]
    if isinstance(value, int) and not isinstance(value, bool) and from_ is None:
        value = str(value)  # a Python int is a number, read exactly by the oracle
    if isinstance(value, str):
        if from_ is not None:
            d = _fpref.explain(None, format_info(from_)["name"], int(value, 16), to_name, *env)
        else:
            d = _fpref.explain(value, None, 0, to_name, *env)
    elif isinstance(value, (bool,)) or not isinstance(value, (int, float, np.generic)):
        raise TypeError(f"explain takes one value (a decimal string, a float, a scalar), not {type(value).__name__}")
    else:
        codes, frm_name = _codes_in(value, from_)
        d = _fpref.explain(None, frm_name, int(codes), to_name, *env)
    d["fields"] = tuple(d["fields"])
    return Explanation(**d)


def _gemm_codes(x: Any, fmt: str, ndim: int, what: str, param: str, said: str) -> np.ndarray:
    codes, _ = _codes_in(x, fmt, param, what, said)
    if codes.ndim != ndim:
        raise ValueError(f"{what} must have {ndim} dimension(s), not shape {codes.shape}")
    return np.ascontiguousarray(codes, dtype=np.uint64)


_TC_MODELS = ("v100", "a100", "h100", "h100-mma", "h100-wgmma", "ada", "generic")


def _check_gemm_args(model, promote, frac, floor, final, round) -> None:
    if not isinstance(model, str):
        raise TypeError(f"model is a name such as 'h100', not {type(model).__name__}")
    if model != "generic" and (frac is not None or floor is not None or final != "rtz"):
        raise ValueError(f"frac, floor and final describe model='generic', not {model!r}")
    if promote is not None and (not isinstance(promote, int) or promote < 1):
        raise ValueError(f"promote is a count of products >= 1, not {promote!r}")
    if model in _TC_MODELS and round is not None:
        raise ValueError(f"round is for the plain orders; the {model} model rounds as the hardware does")


def _inp_pair(inp: Any) -> Tuple[str, str, str, str]:
    """inp: one format for A and B ("e4m3"), or a pair (A's, B's), such as
    ("e5m2", "e4m3") for FP8 training's backward GEMMs.  The two formats'
    names, and how the caller wrote each (for messages)."""
    if isinstance(inp, str):
        name = format_info(inp)["name"]
        return name, name, f"in_format={inp!r}", f"in_format={inp!r}"
    if isinstance(inp, (tuple, list)) and len(inp) == 2 and all(isinstance(f, str) for f in inp):
        return (format_info(inp[0])["name"], format_info(inp[1])["name"], f"in_format[0]={inp[0]!r}",
                f"in_format[1]={inp[1]!r}")
    raise TypeError(f"in_format is a format name such as 'e4m3', or a pair (A's, B's) such as ('e5m2', 'e4m3'), "
                    f"not {inp!r}")


def _gemm_inputs(A: Any, B: Any, C: Any, inp: Any, out: str):
    """A, B, C as uint64 patterns (M x K, K x N, M x N or None), checked."""
    in_a, in_b, said_a, said_b = _inp_pair(inp)
    out_name = format_info(out)["name"]
    a = _gemm_codes(A, in_a, 2, "A", "in_format", said_a)
    b = _gemm_codes(B, in_b, 2, "B", "in_format", said_b)
    M, K = a.shape
    if b.shape[0] != K:
        raise ValueError(f"shapes {a.shape} and {b.shape} do not multiply (A's columns must be B's rows)")
    N = b.shape[1]
    c = None
    if C is not None:
        c = _gemm_codes(C, out_name, 2, "C", "out_format", f"out_format={out!r}")
        if c.shape != (M, N):
            raise ValueError(f"C has shape {c.shape}, A B has ({M}, {N})")
    return (in_a, in_b), out_name, a, b, c, M, N, K


def _gemm_call(model, inp_names, out_name, M, N, K, a, b, c, d, promote, block, frac, floor, final, round, rows,
               bounds, shape=None, traits=None) -> None:
    _check_gemm_args(model, promote, frac, floor, final, round)
    _check_shape(shape)
    if traits is not None and (isinstance(traits, str) or not all(isinstance(t, str) for t in traits)):
        raise TypeError(f"traits is a list of names such as ['zero-positive', 'nan-ones'], not {traits!r}")
    _fpref.gemm(model, *inp_names, out_name, M, N, K, a, b, c, d, promote or 0, block or 0, frac or 0, floor, final,
                rows, bounds, *_env(round, None, False, False, None, None, None, 32), shape,
                None if traits is None else ",".join(traits))


def _check_shape(shape: Optional[str]) -> None:
    if shape is not None and not isinstance(shape, str):
        raise TypeError(f"shape is an instruction shape such as 'm16n8k8' or '32x32x4', not {type(shape).__name__}")


@renamed(inp="in_format", out="out_format")
def gemm(A: Any, B: Any, C: Any = None, *, model: str = "h100", in_format: Union[str, Tuple[str, str]] = "e4m3",
         out_format: str = "f32",
         promote: Optional[int] = None, block: Optional[int] = None, frac: Optional[int] = None,
         floor: Optional[int] = None, final: str = "rtz", round: Optional[str] = None,
         as_ml_dtypes: bool = False, scale_a: Any = None, scale_b: Any = None, scale_every: Optional[int] = None,
         scale_format: str = "e8m0", shape: Optional[str] = None,
         traits: Optional[List[str]] = None) -> np.ndarray:
    """D = A B + C as a tensor core computes it (fpref_emu_tc_gemm): A (M x K) and B
    (K x N) are codes (or float/ml_dtypes arrays) of in_format, C (M x N, None:
    zeros) codes of out_format; D comes back as codes of out_format.  in_format is one format
    for both, or a pair (A's, B's): in_format=("e5m2", "e4m3") multiplies E5M2 A
    by E4M3 B, as FP8 training's backward GEMMs do, on the presets whose
    instruction takes the pair (a pair it does not take is a ValueError
    listing those it does), generic, the plain orders and exact.  An
    ml_dtypes array must be of its operand's format.

    model: a GPU preset (v100, a100, h100, h100-mma, h100-wgmma, ada; see
    models()) or "generic" with block=N products per block, frac=F fraction
    bits kept, floor=E (None: no floor) and final="rtz" or "rne"; or, for
    comparison, a plain order whose every step rounds in out_format under `round`:
    recursive, pairwise, blocked (block=N, default 32), fma-chain, kahan;
    or "exact" (the oracle: the exact sum, rounded once).  promote=nc:
    DeepSeek-V3's promotion to an FP32 accumulator every nc products
    (out_format="f32" only).

    scale_a, scale_b: block scales (a tensor-core preset only, as fpref gemm
    --scale-a/--scale-b; tcgen05-mxf8f6f4, tcgen05-mxf4nvf4 and
    mfma-cdna4-scale are the block-scaled kinds), one per scale_every
    products along K: scale_a of shape (M, ceil(K / scale_every)), scale_b
    (ceil(K / scale_every), N), or broadcast to it; codes of scale_format
    (e8m0, or e4m3 read as UE4M3) as integers, or values as floats; None
    for ones.  scale_every None: 16 for e4m3 scales (NVFP4), else 32.
    Element (i, j) is dot(A[i], B[:, j]) with scale_a[i] and scale_b[:, j].

    shape: the instruction a kernel chains, of the preset's ISA ("m16n8k8",
    "m64n128k16", "32x32x4"; the command's --shape): the preset's block
    becomes the shape's K where K is the smaller (ValueError for a shape
    the ISA lacks, a lowered output, or a model that is not a preset).
    traits: model="generic"'s conventions, of "zero-positive",
    "nan-ones", "c-least-normal", "product-inf", "zero-c-aligns",
    "zero-operand-aligns" (the command's --traits).

    >>> A = convert([[1.0, 2.0]], "e4m3"); B = convert([[3.0], [4.0]], "e4m3")
    >>> decode(gemm(A, B, model="h100"), "f32")
    array([[11.]])
    >>> decode(gemm(A, B, model="tcgen05-mxf8f6f4", scale_a=[[0.25]], scale_b=[[2.0]]), "f32")
    array([[5.5]])
    >>> dY, W = convert([[1.0]], "e5m2"), convert([[3.0]], "e4m3")
    >>> decode(gemm(dY, W, model="h100-wgmma", in_format=("e5m2", "e4m3")), "f32")
    array([[3.]])
    """
    inp_names, out_name, a, b, c, M, N, K = _gemm_inputs(A, B, C, in_format, out_format)
    d = np.empty((M, N), dtype=np.uint64)
    if scale_a is not None or scale_b is not None:
        scales = _gemm_scales(scale_a, scale_b, scale_every, scale_format, M, N, K, promote, block, frac, floor,
                              round)
        _check_shape(shape)
        _fpref.gemm_scaled(model, *inp_names, out_name, M, N, K, a, b, c, d, *scales, False, shape)
    else:
        _gemm_call(model, inp_names, out_name, M, N, K, a, b, c, d, promote, block, frac, floor, final, round, False,
                   False, shape, traits)
    codes = d.astype(_UINT[format_info(out_name)["element_bytes"]])
    return _ml_view(codes, out_name) if as_ml_dtypes else codes


def _gemm_scales(scale_a, scale_b, scale_every, scale_format, M, N, K, promote, block, frac, floor, round) -> tuple:
    """gemm_scaled's trailing arguments: the scales as codes, every, the
    scale format's name."""
    if promote or block or frac or floor is not None or round is not None:
        raise ValueError("scale_a/scale_b take a tensor-core preset alone (no promote, block, frac, floor, round)")
    sf = format_info(scale_format)["name"]
    every = scale_every if scale_every is not None else (16 if sf == "float8_e4m3fn" else 32)
    if every < 1:
        raise ValueError("scale_every must be positive")
    chunks = -(-K // every)
    sa = _scale_codes(1.0 if scale_a is None else scale_a, sf, (M, chunks))
    sb = _scale_codes(1.0 if scale_b is None else scale_b, sf, (chunks, N))
    return sa, sb, every, sf


@renamed(inp="in_format", out="out_format")
def bound(A: Any, B: Any, C: Any = None, *, model: str = "h100", in_format: Union[str, Tuple[str, str]] = "e4m3",
          out_format: str = "f32",
          promote: Optional[int] = None, block: Optional[int] = None, frac: Optional[int] = None,
          floor: Optional[int] = None, final: str = "rtz", round: Optional[str] = None, scale_a: Any = None,
          scale_b: Any = None, scale_every: Optional[int] = None, scale_format: str = "e8m0",
          shape: Optional[str] = None, traits: Optional[List[str]] = None) -> np.ndarray:
    """The a priori error bound of each element of gemm(A, B, C, ...) with the
    same arguments: a float64 array (M x N) of bounds on |D - exact|, as
    `fpref gemm` checks every element against (docs/accumulation.md derives
    them).  The library evaluates each (fpref_ref_tc_bound for a tensor-core
    model, promoted every `promote` products when given; fpref_ref_sum_bound
    for a plain order) rounding upward, and it comes back rounded up to
    float64: +inf where the sum may overflow, NaN where no bound applies
    (model="exact", kahan, an input NaN or inf, inputs a plain order's
    accumulator does not hold).  scale_a, scale_b, scale_every,
    scale_format: block scales as gemm takes them (fpref_ref_tc_bound_scaled;
    NaN for a NaN scale).

    >>> A = convert([[1.0, 2.0**-7]], "e4m3"); B = convert([[1.0], [2.0**-7]], "e4m3")
    >>> bound(A, B, model="h100").tolist()
    [[0.000305183231830597]]
    """
    inp_names, out_name, a, b, c, M, N, K = _gemm_inputs(A, B, C, in_format, out_format)
    d = np.empty((M, N), dtype=np.float64)
    if scale_a is not None or scale_b is not None:
        scales = _gemm_scales(scale_a, scale_b, scale_every, scale_format, M, N, K, promote, block, frac, floor,
                              round)
        _check_shape(shape)
        _fpref.gemm_scaled(model, *inp_names, out_name, M, N, K, a, b, c, d, *scales, True, shape)
        return d
    _gemm_call(model, inp_names, out_name, M, N, K, a, b, c, d, promote, block, frac, floor, final, round, False,
               True, shape, traits)
    return d


@dataclass(frozen=True)
class GemmVerdict:
    """A kernel's D judged against a model's, as `fpref verify-gemm --json`
    gives it: elements, matches (bit for bit), within (the tolerance),
    outside; mismatches by class; kernel_above_bound (kernel elements
    farther from the exact product than the model's bound); model_error and
    kernel_error (each D against the exact product: max_abs, normwise_rel,
    max_rel, max_ulps, mean_ulps, error_over_bound_max, above_bound,
    with_bound, nonfinite); worst (the largest differences first: row, col,
    both codes, kind, ulps, both errors, bound); model (its description);
    text, and str(): the report `fpref verify-gemm` prints for it."""
    model: str
    elements: int
    matches: int
    within: int
    outside: int
    mismatches: Dict[str, int]
    kernel_above_bound: int
    model_error: Dict[str, Any]
    kernel_error: Dict[str, Any]
    worst: List[Dict[str, Any]]
    text: str = field(default="", repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.outside == 0

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        """The report `fpref verify-gemm` prints for the same arrays (block
        scales named scale_a and scale_b)."""
        return self.text


@renamed(inp="in_format", out="out_format")
def verify_gemm(D: Any, A: Any, B: Any, C: Any = None, *, model: str = "h100",
                in_format: Union[str, Tuple[str, str]] = "e4m3", out_format: str = "f32", promote: Optional[int] = None,
                block: Optional[int] = None, frac: Optional[int] = None, floor: Optional[int] = None,
                final: str = "rtz", round: Optional[str] = None, shape: Optional[str] = None,
                traits: Optional[List[str]] = None, tolerance: Optional[str] = None, show: int = 10, threads: int = 1,
                scale_a: Any = None, scale_b: Any = None, scale_every: Optional[int] = None,
                scale_format: str = "e8m0") -> GemmVerdict:
    """`fpref verify-gemm` on arrays: a kernel's D (M x N, codes or float
    values of out_format) judged element by element against the model's D for A B
    + C (the arguments of gemm), with both D's errors against the exact
    product and the model's bound (fpref_golden_gemm_verify, the same call).
    tolerance: None (bit for bit), "Nulp" or "Xrel"; show: how many of the
    largest differences to keep; threads: for the model's D and the exact
    values (the same verdict on any number).

    >>> A = convert([[1.0, 2.0]], "e4m3"); B = convert([[3.0], [4.0]], "e4m3")
    >>> verify_gemm(np.array([[11.0]], np.float32), A, B).passed
    True
    """
    from ._golden import _tolerance
    tol_ulps, tol_rel = _tolerance(tolerance)
    inp_names, out_name, a, b, c, M, N, K = _gemm_inputs(A, B, C, in_format, out_format)
    d = _gemm_codes(D, out_name, 2, "D", "out_format", f"out_format={out_format!r}")
    if d.shape != (M, N):
        raise ValueError(f"D has shape {d.shape}, A B has ({M}, {N})")
    _check_gemm_args(model, promote, frac, floor, final, round)
    _check_shape(shape)
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads is a count >= 1, not {threads!r}")
    sa = sb = None
    every, sf = 0, format_info(scale_format)["name"]
    if scale_a is not None or scale_b is not None:
        sa, sb, every, sf = _gemm_scales(scale_a, scale_b, scale_every, scale_format, M, N, K, promote, block, frac,
                                         floor, round)
    r = _fpref.verify_gemm(model, *inp_names, out_name, M, N, K, a, b, c, d, promote or 0, block or 0, frac or 0, floor,
                           final, *_env(round, None, False, False, None, None, None, 32), shape,
                           None if traits is None else ",".join(traits), tol_ulps, tol_rel, int(show), int(threads), sa,
                           sb, every, sf)
    return GemmVerdict(**r)


def _scale_codes(s: Any, fmt: str, shape: Tuple[int, ...]) -> np.ndarray:
    """Block scales as uint64 codes of fmt with the given shape: integer
    arrays are codes; float values must be values fmt holds exactly."""
    arr = np.asarray(s)
    if arr.dtype.kind == "f":
        codes = convert(arr, fmt).astype(np.uint64)
        back = decode(codes, fmt)
        if not np.array_equal(back, arr.astype(np.float64)) or np.any(arr <= 0):
            raise ValueError(f"scales must be positive values of {fmt} exactly (or its codes as integers)")
        arr = codes
    elif arr.dtype.kind not in "ui":
        raise ValueError(f"scales must be codes (integers) or values (floats) of {fmt}, not {arr.dtype}")
    arr = np.broadcast_to(arr, shape) if arr.ndim <= len(shape) else arr
    if arr.shape != shape:
        raise ValueError(f"scales of shape {arr.shape}; these products take {shape} (one per scale_every)")
    return np.ascontiguousarray(arr, dtype=np.uint64).reshape(-1)


@renamed(inp="in_format", out="out_format")
def dot(a: Any, b: Any, c: Any = None, *, model: str = "h100", in_format: Union[str, Tuple[str, str]] = "e4m3",
        out_format: str = "f32",
        promote: Optional[int] = None, block: Optional[int] = None, frac: Optional[int] = None,
        floor: Optional[int] = None, final: str = "rtz", round: Optional[str] = None, scale_a: Any = None,
        scale_b: Any = None, scale_every: int = 32, scale_format: str = "e8m0",
        shape: Optional[str] = None, traits: Optional[List[str]] = None) -> np.ndarray:
    """d = a . b + c over the last axis, as gemm computes each element: a and b
    of shape (..., K) (codes or arrays of in_format), c (...) codes of out_format (None:
    +0); the codes of out_format with shape (...).  in_format: one format, or a pair
    (a's, b's) as gemm takes it.

    scale_a, scale_b: block scales (a tensor-core preset only, as fpref dot
    --scale-a/--scale-b), one per scale_every products, of shape
    (..., ceil(K / scale_every)) or broadcast to it: codes of scale_format
    (e8m0, or e4m3 read as UE4M3) as integers, or values as floats; None
    for ones.

    >>> dot(convert([1.0, 2.0], "e4m3"), convert([3.0, 4.0], "e4m3"))
    array(1093664768, dtype=uint32)
    >>> decode(dot(convert([1.0], "e4m3"), convert([1.0], "e4m3"), model="mfma-cdna4-scale", scale_a=32.0), "f32")
    array(32.)
    """
    in_a, in_b, said_a, said_b = _inp_pair(in_format)
    out_name = format_info(out_format)["name"]
    av, _ = _codes_in(a, in_a, "in_format", "a", said_a)
    bv, _ = _codes_in(b, in_b, "in_format", "b", said_b)
    if av.shape != bv.shape or av.ndim < 1:
        raise ValueError(f"a and b must have one shape (..., K), not {av.shape} and {bv.shape}")
    lead, K = av.shape[:-1], av.shape[-1]
    R = int(np.prod(lead, dtype=np.int64))
    rows_a = np.ascontiguousarray(av.reshape(R, K), dtype=np.uint64)
    rows_b = np.ascontiguousarray(bv.reshape(R, K), dtype=np.uint64)
    cv = None
    if c is not None:
        cv, _ = _codes_in(c, out_name, "out_format", "c", f"out_format={out_format!r}")
        if cv.shape != lead:
            raise ValueError(f"c has shape {cv.shape}, the dot products {lead}")
        cv = np.ascontiguousarray(cv.reshape(-1), dtype=np.uint64)
    d = np.empty(rows_a.shape[0], dtype=np.uint64)
    if scale_a is not None or scale_b is not None:
        if promote or block or frac or floor is not None or round is not None:
            raise ValueError("scale_a/scale_b take a tensor-core preset alone (no promote, block, frac, floor, round)")
        if scale_every < 1:
            raise ValueError("scale_every must be positive")
        sf = format_info(scale_format)["name"]
        per_row = tuple(lead) + (-(-K // scale_every),)
        one = 1.0
        sa = _scale_codes(one if scale_a is None else scale_a, sf, per_row)
        sb = _scale_codes(one if scale_b is None else scale_b, sf, per_row)
        _check_shape(shape)
        _fpref.dot_scaled(model, in_a, in_b, out_name, rows_a.shape[0], K, rows_a, rows_b, cv, d, sa, sb, scale_every,
                          sf, shape)
    else:
        _gemm_call(model, (in_a, in_b), out_name, rows_a.shape[0], 1, K, rows_a, rows_b, cv, d, promote, block, frac,
                   floor, final, round, True, False, shape, traits)
    res = d.astype(_UINT[format_info(out_name)["element_bytes"]])
    return res.reshape(lead)


from ._scaling import LossScaleRun, Quantized, lossscale, quantize  # noqa: E402
from ._golden import GenResult, Mismatch, VerifyReport, VerifyResult, gen, suite_files, verify  # noqa: E402
from . import testing  # noqa: E402  (testing uses the functions above)
from .order import NoFixedTree, RevealedOrder, reveal_order, tree_dot  # noqa: E402
from ._draw import draw  # noqa: E402
from ._probe import ProbeReport, probe  # noqa: E402


def __dir__() -> List[str]:
    """The public names (dir(fpref), tab completion): not the modules and
    typing helpers this file imports."""
    return sorted(__all__)
