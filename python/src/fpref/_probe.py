"""fpref.probe: `fpref probe`'s inference and order reveal from Python.
infer hands measured dot products to libfpref's model search
(fpref_golden_probe_infer) and keeps its report, whose str() is the text
`fpref probe infer` prints (fpref_golden_probe_report_text); order is
fpref.reveal_order.  The keywords are the command's options
(--in-format: in_format, --out-format: out_format, --block, --frac);
_INFER_KEYWORDS is the one place that lists them."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import _fpref

# probe("infer", ...)'s keywords and the options of fpref probe infer they stand for
_INFER_KEYWORDS = {"in_format": "--in-format (or --a-format/--b-format)", "out_format": "--out-format", "block": "--block",
                   "frac": "--frac",
                   "results": "--results", "golden": "--golden"}
_TC_MAX_FRAC = 36  # FPREF_TC_MAX_FRAC: the largest fraction count the search takes


@dataclass(frozen=True)
class ProbeReport:
    """What `fpref probe infer` reports, field for field its --json:
    results (the name the text gives the cases), cases, K, in_format (golden
    headers' "A" or "A*B"), in_a, in_b, out_format, models_run; classes, the
    classes of generic models (block_lo..block_hi, block_open, frac,
    rounding, floor_lo..floor_hi, or floor None and floor_none_up_to) or
    presets ({preset, description}) that reproduce every case; found
    (exactly one class); nearest ({misses, model}) when none does, with
    c_zero_cases and c_zero_classes; presets, the preset rows that
    reproduce every case.  str(): the command's text."""
    results: str
    cases: int
    K: int
    in_format: str
    in_a: str
    in_b: str
    out_format: str
    models_run: int
    classes: Tuple[Dict[str, Any], ...]
    found: bool
    nearest: Tuple[Dict[str, Any], ...]
    c_zero_cases: int
    c_zero_classes: Tuple[Dict[str, Any], ...]
    presets: Tuple[str, ...]
    text: str = field(default="", repr=False, compare=False)

    def __str__(self) -> str:
        """The text `fpref probe infer` prints for the same cases."""
        return self.text


def _known(v: Any, name: str, hi: int) -> int:
    if v is None:
        return 0
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not 1 <= int(v) <= hi:
        raise ValueError(f"{name} is a known {name} count 1..{hi} (None: search it), not {v!r}")
    return int(v)


def _infer(a: Any, b: Any, c: Any, d: Any, in_format: Any, out_format: Optional[str], block: Any, frac: Any,
           results: str) -> ProbeReport:
    from . import _codes_in, _inp_pair, format_info
    if in_format is None or out_format is None:
        raise TypeError("probe('infer') needs in_format= (one format, or a pair (a's, b's)) and out_format= "
                        "(c's and d's)")
    if not isinstance(results, str):
        raise TypeError(f"results is the name the report gives the cases, not {type(results).__name__}")
    in_a, in_b, said_a, said_b = _inp_pair(in_format)
    out_name = format_info(out_format)["name"]
    av, _ = _codes_in(a, in_a, "in_format", "a", said_a)
    bv, _ = _codes_in(b, in_b, "in_format", "b", said_b)
    if av.ndim != 2 or av.shape != bv.shape:
        raise ValueError(f"a and b are cases x K, of one shape, not {av.shape} and {bv.shape}")
    count, K = av.shape
    cv, _ = _codes_in(c, out_name, "out_format", "c", f"out_format={out_format!r}")
    dv, _ = _codes_in(d, out_name, "out_format", "d", f"out_format={out_format!r}")
    if cv.shape != (count,) or dv.shape != (count,):
        raise ValueError(f"c and d hold one code per case ({count}), not shapes {cv.shape} and {dv.shape}")
    rows = np.concatenate([av.astype(np.uint64), bv.astype(np.uint64), cv.astype(np.uint64).reshape(count, 1)],
                          axis=1)
    r = _fpref.probe_infer(in_a, in_b, out_name, K, count, np.ascontiguousarray(rows).tobytes(),
                           np.ascontiguousarray(dv, dtype=np.uint64).tobytes(), _known(block, "block", 1 << 20),
                           _known(frac, "frac", _TC_MAX_FRAC), results)
    inputs = in_a if in_a == in_b else f"{in_a}*{in_b}"
    return ProbeReport(results, r["cases"], r["K"], inputs, in_a, in_b, out_name, r["models_run"],
                       tuple(r["classes"]), len(r["classes"]) == 1, tuple(r["nearest"]), r["c_zero_cases"],
                       tuple(r["c_zero_classes"]), tuple(r["presets"]), r["text"])


def _infer_golden(golden: Any, results: Any, in_format: Any, out_format: Optional[str], block: Any,
                  frac: Any) -> ProbeReport:
    from . import _inp_pair, format_info
    if not isinstance(golden, (str, os.PathLike)) or not isinstance(results, (str, os.PathLike)):
        raise TypeError("with golden=, results= is the results file judged against it (both paths)")
    if (in_format is None) != (out_format is None):
        raise TypeError("probe('infer'): in_format= and out_format= go together (or neither: the golden file's "
                        "formats)")
    in_a = in_b = out_name = None
    if in_format is not None:
        in_a, in_b, _, _ = _inp_pair(in_format)
        out_name = format_info(out_format)["name"]
    name = os.fspath(results)
    r = _fpref.probe_infer_golden(os.fspath(golden), name, in_a, in_b, out_name, _known(block, "block", 1 << 20),
                                  _known(frac, "frac", _TC_MAX_FRAC))
    a, b, o = r["formats"]
    return ProbeReport(name, r["cases"], r["K"], a if a == b else f"{a}*{b}", a, b, o, r["models_run"],
                       tuple(r["classes"]), len(r["classes"]) == 1, tuple(r["nearest"]), r["c_zero_cases"],
                       tuple(r["c_zero_classes"]), tuple(r["presets"]), r["text"])


def probe(action: str, *args: Any, in_format: Union[str, Tuple[str, str], None] = None,
          out_format: Optional[str] = None,
          block: Optional[int] = None, frac: Optional[int] = None, results: Any = "results", golden: Any = None,
          **order: Any) -> Any:
    """`fpref probe ACTION` from Python.

    probe("infer", a, b, c, d, in_format=..., out_format=...): the block models that
    reproduce measured dot products d = a . b + c, each case a row: a and
    b (cases x K) of in_format (one format, or a pair (a's, b's)), c and d (one
    per case) of out_format, as codes or as values those formats hold exactly.
    block, frac: parameters already known (None: searched).  A ProbeReport
    (found: exactly one class); str() is the text of `fpref probe infer
    --results R --in-format IN --out-format OUT` for the same cases, whose first line
    names them `results`.

    probe("infer", golden=G, results=R): the cases of a golden dot file
    (`fpref probe gen`'s probe file, run on the unit) and the results file
    judged against it, as `fpref probe infer --golden G --results R`; in_format=
    and out_format=, when given, must be the file's.

    probe("order", fn, n, fmt, out_format=..., models=..., verify=..., seed=...,
    batch=...): fpref.reveal_order (`fpref probe order`), the summation
    tree of a black box; a RevealedOrder.
    """
    if action == "infer":
        if order:
            raise TypeError(f"probe('infer') takes no {', '.join(k + '=' for k in order)} "
                            f"(its keywords: {', '.join(_INFER_KEYWORDS)})")
        if golden is not None:
            if args:
                raise TypeError("probe('infer', golden=...) reads its cases from the file: no a, b, c, d")
            return _infer_golden(golden, results, in_format, out_format, block, frac)
        if len(args) != 4:
            raise TypeError(f"probe('infer') takes the cases a, b, c, d (or golden= and results=), not {len(args)} "
                            "arguments")
        return _infer(*args, in_format, out_format, block, frac, results)
    if action == "order":
        if in_format is not None or block is not None or frac is not None or results != "results" or golden is not None:
            raise TypeError("probe('order') takes fn, n, fmt and reveal_order's keywords (out_format, models, verify, seed, "
                            "batch)")
        from .order import reveal_order
        return reveal_order(*args, out_format=out_format, **order)
    if action == "gen":
        raise ValueError("probe('gen') writes a golden file: fpref probe gen ... --out-file FILE (or fpref.gen with a "
                         "suite line 'dot MODEL IN OUT probe:K')")
    raise ValueError(f"probe needs 'infer' or 'order', not {action!r}")
