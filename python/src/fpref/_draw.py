"""fpref.draw: the pictures of `fpref draw` as SVG text, from the same
library calls (golden/draw_*.c), so that the bytes are the command's.
This module only turns keywords into the command's option texts: the
table _KEYWORDS below is the one place that says which keyword a kind
takes and which option it stands for."""
from __future__ import annotations

import os
from decimal import Decimal
from typing import Any, Dict, Optional

import numpy as np

from . import _fpref

# kind -> {keyword: the command's option}; rounding and promotion also take the
# environment's keywords (_ENV_KEYWORDS), as fpref.explain does
_KEYWORDS: Dict[str, Dict[str, str]] = {
    "numberline": {"range": "--range", "at": "--at", "window": "--window"},
    "rounding": {"to": "--to"},
    "formats": {},
    "promotion": {"model": "--model", "promote": "--promote", "in_format": "--in-format", "block": "--block", "frac": "--frac",
                  "floor": "--floor", "final": "--final", "ks": "--ks", "size": "--size", "dist": "--dist",
                  "seed": "--seed"},
    "pytorch-tf32": {"ks": "--ks", "dist": "--dist", "seed": "--seed"},
}
_ENV_KEYWORDS = ("round", "sat", "ftz", "daz", "profile", "tininess", "sr_seed", "sr_width", "sr_bits", "overflow")
_WITH_ENV = ("rounding", "promotion")
# what the command draws from another command's report (fpref draw gemm ... is fpref gemm ... --svg)
_COMMAND_ONLY = ("gemm", "verify", "lossscale", "quantize", "lab")


def _number_text(x: Any, what: str) -> str:
    """A value as the oracle reads it: a string as written; an int exactly;
    a float (or a NumPy float scalar) as its exact binary value, the short
    repr where that is the same number."""
    if isinstance(x, str):
        return x
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{what} is a number or a decimal string, not {x!r}")
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        f = float(x)
        if f != f or f in (float("inf"), float("-inf")):
            return repr(f)
        short = repr(f)
        return short if Decimal(short) == Decimal(f) else str(Decimal(f))
    raise TypeError(f"{what} is a number or a decimal string, not {type(x).__name__}")


def _range_text(r: Any) -> str:
    if isinstance(r, str):
        return r
    if isinstance(r, (tuple, list)) and len(r) == 2:
        return f"{_number_text(r[0], 'range[0]')}:{_number_text(r[1], 'range[1]')}"
    raise TypeError(f"range is (lo, hi) or the text 'LO:HI', not {r!r}")


def _window_text(w: Any) -> str:
    if isinstance(w, str):
        return w
    if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, np.integer)):
        raise TypeError(f"window is an integer 1..200, not {w!r}")
    return str(int(w))


def _list_text(v: Any, name: str) -> str:
    """--ks: "K,K,..." or a sequence of integers."""
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)) and all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in v):
        return ",".join(str(int(k)) for k in v)
    raise TypeError(f"{name} is a list of integers or the text 'K,K,...', not {v!r}")


def _size_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(k, (int, np.integer)) for k in v):
        return f"{int(v[0])}x{int(v[1])}"
    raise TypeError(f"size is (M, N) or the text 'MxN', not {v!r}")


def _count(v: Any, name: str) -> int:
    if v is None:
        return 0
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or int(v) < 1:
        raise ValueError(f"{name} is a count >= 1, not {v!r}")
    return int(v)


def _check_keywords(kind: str, given: Dict[str, Any]) -> None:
    allowed = set(_KEYWORDS[kind]) | (set(_ENV_KEYWORDS) if kind in _WITH_ENV else set())
    for k in given:
        if k not in allowed:
            owner = [name for name, kw in _KEYWORDS.items() if k in kw] or (["rounding"] if k in _ENV_KEYWORDS else [])
            said = f"{owner[0]}'s keyword" if owner else "no keyword of draw"
            raise TypeError(f"draw('{kind}'): {k}= is {said}, not {kind}'s")


def _write(path: str, text: str) -> None:
    """The picture to path, whole: written beside it, then renamed over it."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def draw(kind: str, what: Any = None, *, out_file: Optional[str] = None, to: Optional[str] = None, range: Any = None,
         at: Any = None, window: Any = None, model: Optional[str] = None, promote: Optional[int] = None,
         in_format: Optional[str] = None, block: Optional[int] = None, frac: Optional[int] = None,
         floor: Optional[int] = None, final: Optional[str] = None, ks: Any = None, size: Any = None,
         dist: Optional[str] = None, seed: Optional[int] = None, round: Optional[str] = None, sat: Optional[bool] = None,
         ftz: Optional[bool] = None, daz: Optional[bool] = None, profile: Optional[str] = None,
         tininess: Optional[str] = None, sr_seed: Optional[int] = None, sr_width: Optional[int] = None,
         sr_bits: Optional[str] = None, overflow: Optional[str] = None) -> str:
    """The SVG text of `fpref draw KIND ...`, byte for byte; out_file (a
    path, --out-file) also writes it there.

    numberline: draw("numberline", "e4m3"), every value of a format of at
    most 8 bits (range=(lo, hi) or "LO:HI": only those in [lo, hi]); of a
    wider one, window= codes each side of at= (defaults 16 and 1).
    rounding: draw("rounding", "465", to="e4m3", round=..., sat=..., ...):
    how one value rounds (a decimal string as typed; an int or a float is
    its exact value), with the environment's keywords of fpref.explain
    (round="sr" needs sr_bits or sr_seed).  formats: draw("formats"), the
    catalogue's range and precision.  promotion: draw("promotion",
    model="h100", promote=128, in_format="e4m3", ks=[128, 256], size=(8, 8),
    dist="positive", seed=1), the error over K of a tensor-core model alone
    and promoted to FP32 (block, frac, floor, final for model="generic";
    the environment's keywords).  pytorch-tf32: draw("pytorch-tf32",
    ks=[16, 32, 64], dist="normal", seed=1).  Bad arguments raise
    ValueError with the command's message; a keyword of another kind,
    TypeError.

    >>> svg = draw("numberline", "e2m1")
    >>> svg.startswith('<?xml') and 'Every value of float4_e2m1fn' in svg
    True
    """
    if not isinstance(kind, str):
        raise TypeError(f"kind is a name such as 'numberline', not {type(kind).__name__}")
    if kind in _COMMAND_ONLY:
        raise ValueError(f"draw('{kind}') is drawn by the command only: fpref draw {kind} --out-file FILE.svg ...")
    if kind not in _KEYWORDS:
        raise ValueError(f"unknown kind '{kind}' ({', '.join(_KEYWORDS)}; the command also draws "
                         f"{', '.join(_COMMAND_ONLY)})")
    given = {k: v for k, v in (("to", to), ("range", range), ("at", at), ("window", window), ("model", model),
                               ("promote", promote), ("in_format", in_format), ("block", block), ("frac", frac),
                               ("floor", floor), ("final", final), ("ks", ks), ("size", size), ("dist", dist),
                               ("seed", seed), ("round", round),
                               ("sat", sat), ("ftz", ftz), ("daz", daz), ("profile", profile),
                               ("tininess", tininess), ("sr_seed", sr_seed), ("sr_width", sr_width),
                               ("sr_bits", sr_bits), ("overflow", overflow)) if v is not None}
    _check_keywords(kind, given)
    if out_file is not None and not isinstance(out_file, (str, os.PathLike)):
        raise TypeError(f"out_file is a path, not {type(out_file).__name__}")
    env = None
    if kind in _WITH_ENV:
        from . import _env
        env = _env(round, sat, bool(ftz), bool(daz), profile, tininess, sr_seed, 32 if sr_width is None else sr_width,
                   sr_bits, None, overflow)
    ks_text = None if ks is None else _list_text(ks, "ks")
    dist_text = None if dist is None else str(dist)
    seed_text = None if seed is None else _number_text(seed, "seed")
    if kind == "promotion":
        if what is not None:
            raise TypeError("draw('promotion') takes no positional argument: model=, promote=, in_format=")
        if model is None or promote is None or in_format is None:
            raise TypeError("draw('promotion') needs model=, promote= and in_format=, e.g. model='h100', promote=128, "
                            "in_format='e4m3'")
        if not isinstance(model, str) or not isinstance(in_format, str):
            raise TypeError("model and in_format are names such as 'h100' and 'e4m3'")
        n = _count(promote, "promote")
        from . import format_info
        svg = _fpref.draw_promotion(model, str(n), n, _count(block, "block"), _count(frac, "frac"), floor,
                                    "rtz" if final is None else final, format_info(in_format)["name"], ks_text,
                                    None if size is None else _size_text(size), dist_text, seed_text, *env)
    elif kind == "pytorch-tf32":
        if what is not None:
            raise TypeError("draw('pytorch-tf32') takes no positional argument (sizes by ks=)")
        svg = _fpref.draw_pytorch_tf32(ks_text, dist_text, seed_text)
    elif kind == "numberline":
        if what is None:
            raise TypeError("draw('numberline') needs a format, e.g. draw('numberline', 'e4m3')")
        svg = _fpref.draw_numberline(str(what), None if range is None else _range_text(range),
                                     None if at is None else _number_text(at, "at"),
                                     None if window is None else _window_text(window))
    elif kind == "rounding":
        if what is None or to is None:
            raise TypeError("draw('rounding') needs a value and to=, e.g. draw('rounding', '465', to='e4m3')")
        from . import format_info
        svg = _fpref.draw_rounding(_number_text(what, "the value"), format_info(to)["name"], *env)
    else:
        if what is not None:
            raise TypeError("draw('formats') takes no format: it draws the whole catalogue")
        svg = _fpref.draw_formats()
    if out_file is not None:
        _write(os.fspath(out_file), svg)
    return svg
