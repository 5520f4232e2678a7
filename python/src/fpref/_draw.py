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

# kind -> {keyword: the command's option}; rounding also takes the
# environment's keywords (_ENV_KEYWORDS), as fpref.explain does
_KEYWORDS: Dict[str, Dict[str, str]] = {
    "numberline": {"range": "--range", "at": "--at", "window": "--window"},
    "rounding": {"to": "--to"},
    "formats": {},
}
_ENV_KEYWORDS = ("round", "sat", "ftz", "daz", "profile", "tininess", "sr_seed", "sr_width", "sr_bits", "overflow")
# what the command draws that this binding does not yet
_COMMAND_ONLY = ("promotion", "pytorch-tf32", "gemm", "verify", "lossscale", "quantize", "lab")


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


def _check_keywords(kind: str, given: Dict[str, Any]) -> None:
    allowed = set(_KEYWORDS[kind]) | (set(_ENV_KEYWORDS) if kind == "rounding" else set())
    for k in given:
        if k not in allowed:
            owner = [name for name, kw in _KEYWORDS.items() if k in kw] or (["rounding"] if k in _ENV_KEYWORDS else [])
            said = f"{owner[0]}'s keyword" if owner else "no keyword of draw"
            raise TypeError(f"draw('{kind}'): {k}= is {said}, not {kind}'s")


def _write(out: str, text: str) -> None:
    """The picture to out, whole: written beside it, then renamed over it."""
    tmp = f"{out}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def draw(kind: str, what: Any = None, *, out: Optional[str] = None, to: Optional[str] = None, range: Any = None,
         at: Any = None, window: Any = None, round: Optional[str] = None, sat: Optional[bool] = None,
         ftz: Optional[bool] = None, daz: Optional[bool] = None, profile: Optional[str] = None,
         tininess: Optional[str] = None, sr_seed: Optional[int] = None, sr_width: Optional[int] = None,
         sr_bits: Optional[str] = None, overflow: Optional[str] = None) -> str:
    """The SVG text of `fpref draw KIND ...`, byte for byte; out (a path)
    also writes it there.

    numberline: draw("numberline", "e4m3"), every value of a format of at
    most 8 bits (range=(lo, hi) or "LO:HI": only those in [lo, hi]); of a
    wider one, window= codes each side of at= (defaults 16 and 1).
    rounding: draw("rounding", "465", to="e4m3", round=..., sat=..., ...):
    how one value rounds (a decimal string as typed; an int or a float is
    its exact value), with the environment's keywords of fpref.explain
    (round="sr" needs sr_bits or sr_seed).  formats: draw("formats"), the
    catalogue's range and precision.  Bad arguments raise ValueError with
    the command's message; a keyword of another kind, TypeError.

    >>> svg = draw("numberline", "e2m1")
    >>> svg.startswith('<?xml') and 'Every value of float4_e2m1fn' in svg
    True
    """
    if not isinstance(kind, str):
        raise TypeError(f"kind is a name such as 'numberline', not {type(kind).__name__}")
    if kind in _COMMAND_ONLY:
        raise ValueError(f"draw('{kind}') is drawn by the command only: fpref draw {kind} --out FILE.svg ...")
    if kind not in _KEYWORDS:
        raise ValueError(f"unknown kind '{kind}' (numberline, rounding, formats; the command also draws "
                         f"{', '.join(_COMMAND_ONLY)})")
    given = {k: v for k, v in (("to", to), ("range", range), ("at", at), ("window", window), ("round", round),
                               ("sat", sat), ("ftz", ftz), ("daz", daz), ("profile", profile),
                               ("tininess", tininess), ("sr_seed", sr_seed), ("sr_width", sr_width),
                               ("sr_bits", sr_bits), ("overflow", overflow)) if v is not None}
    _check_keywords(kind, given)
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out is a path, not {type(out).__name__}")
    if kind == "numberline":
        if what is None:
            raise TypeError("draw('numberline') needs a format, e.g. draw('numberline', 'e4m3')")
        svg = _fpref.draw_numberline(str(what), None if range is None else _range_text(range),
                                     None if at is None else _number_text(at, "at"),
                                     None if window is None else _window_text(window))
    elif kind == "rounding":
        if what is None or to is None:
            raise TypeError("draw('rounding') needs a value and to=, e.g. draw('rounding', '465', to='e4m3')")
        from . import _env, format_info
        env = _env(round, sat, bool(ftz), bool(daz), profile, tininess, sr_seed, 32 if sr_width is None else sr_width,
                   sr_bits, None, overflow)
        svg = _fpref.draw_rounding(_number_text(what, "the value"), format_info(to)["name"], *env)
    else:
        if what is not None:
            raise TypeError("draw('formats') takes no format: it draws the whole catalogue")
        svg = _fpref.draw_formats()
    if out is not None:
        _write(os.fspath(out), svg)
    return svg
