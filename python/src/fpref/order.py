"""Revealing a library's summation order (fpref.reveal_order) and running
a revealed tree (fpref.tree_dot): the probes, the tree, the block models
and the check on random inputs are libfpref's (golden/order.c,
emu/tree.c); this module only calls the black box, a Python callable, one
batch of lines at a time, and moves patterns in and out."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from . import _fpref
from ._vocabulary import renamed

_NATIVE = {"float16": np.float16, "float32": np.float32, "float64": np.float64}


class NoFixedTree(RuntimeError):
    """The black box is no fixed summation tree of known adders (a different
    order from call to call, compensated or exact summation, an adder no
    model reproduces); the message says what the probes saw."""


@dataclass
class RevealedOrder:
    """A revealed tree, in the text fpref dot --model tree --tree takes, and
    what revealing it cost: lines (calls of the black box, one line each),
    starts (batches), probe_lines and verify_lines (random lines the tree
    reproduced bit for bit).  str(): the text of fpref probe order."""
    tree: str
    block_model: Optional[str]
    n: int
    inp: str
    out: str
    lines: int
    starts: int
    probe_lines: int
    verify_lines: int
    inner_nodes: int
    block_nodes: int
    depth: int
    text: str = field(default="", repr=False, compare=False)

    def __str__(self) -> str:
        """The text `fpref probe order` prints for the same tree."""
        return self.text

    def dot_args(self) -> List[str]:
        """The fpref dot arguments that run the tree (lines 'a.. b.. +0')."""
        return ["--model", "tree", "--tree", self.tree, "--in-format", self.inp, "--out-format", self.out]


def _name(fmt: str) -> str:
    return _fpref.format_info(fmt)["name"]


@renamed(fmt="in_format", out="out_format")
def reveal_order(fn: Callable[[np.ndarray], Any], n: int, in_format: str = "float32", *,
                 out_format: Optional[str] = None,
                 models: Optional[Sequence[str]] = None, verify: int = 1000, seed: int = 20261130,
                 batch: int = 4096) -> RevealedOrder:
    """The summation tree of fn, a black box that sums the n values of a 1-D
    array of format in_format (np.float16 / np.float32 / np.float64 arrays for
    those formats, float64 values otherwise) and returns one number that
    format out_format (default in_format) holds exactly.  A dot product is revealed as
    the sum of its products: call it with b = ones.  models: block models
    to try on nodes of more than two terms (default: every preset for in_format,
    out_format).  Raises NoFixedTree, saying what was seen, when fn is no fixed
    tree.

    >>> import numpy as np
    >>> r = reveal_order(lambda x: np.float32(((x[0] + x[1]) + x[2]) + x[3]), 4)
    >>> r.tree
    '(((0,1),2),3)'
    """
    from . import convert, decode
    inp, outp = _name(in_format), _name(out_format or in_format)
    native_in, native_out = _NATIVE.get(inp), _NATIVE.get(outp)
    width = _fpref.format_info(inp)["element_bytes"]
    udt = {1: "<u1", 2: "<u2", 4: "<u4", 8: "<u8"}[width]

    def run(lines: bytes, nlines: int) -> bytes:
        codes = np.frombuffer(lines, dtype="<u8").reshape(nlines, n)
        if native_in is not None:
            x = codes.astype(udt).view(native_in)
        else:
            x = decode(codes.astype(udt).reshape(-1), inp).reshape(nlines, n)
        res = np.empty(nlines, dtype="<u8")
        for i in range(nlines):
            y = np.asarray(fn(x[i])).reshape(())
            if native_out is not None and y.dtype == native_out:
                res[i] = int(y.reshape(1).view({2: "<u2", 4: "<u4", 8: "<u8"}[y.dtype.itemsize])[0])
            else:
                res[i] = int(convert(np.asarray([float(y)], dtype=np.float64), outp)[0])
        return res.tobytes()

    r = _fpref.reveal_order(run, int(n), inp, outp, None if models is None else list(models), int(verify),
                            int(seed), int(batch))
    if r["status"] != "tree":
        raise NoFixedTree(f"{r['message']} (after {r['lines']} calls in {r['starts']} batches)")
    return RevealedOrder(r["tree"], r["block_model"], int(n), inp, outp, r["lines"], r["starts"], r["probe_lines"],
                         r["verify_lines"], r["inner_nodes"], r["block_nodes"], r["depth"], r["text"])


@renamed(inp="in_format", out="out_format")
def tree_dot(tree: str, a: Any, b: Any = None, *, in_format: str = "float32",
             out_format: Optional[str] = None) -> np.ndarray:
    """Each row of a (lines x K, or one line of K) dotted with the same row
    of b (default ones, a sum) through the tree (its text, or a
    RevealedOrder), c = +0: the result codes of out_format (default in_format), as
    fpref dot --model tree gives them."""
    from . import convert
    if isinstance(tree, RevealedOrder):
        in_format, out_format, tree = tree.inp, tree.out, tree.tree
    inp, outp = _name(in_format), _name(out_format or in_format)
    a2 = np.atleast_2d(np.asarray(a))
    ca = convert(a2.astype(np.float64) if a2.dtype.kind != "u" else a2, inp).astype("<u8") \
        if a2.dtype.kind != "u" else a2.astype("<u8")
    if b is None:
        cb = np.broadcast_to(convert(np.ones(1), inp).astype("<u8"), ca.shape).copy()
    else:
        b2 = np.broadcast_to(np.atleast_2d(np.asarray(b)), a2.shape)
        cb = convert(b2.astype(np.float64), inp).astype("<u8") if b2.dtype.kind != "u" else b2.astype("<u8")
    lines, K = ca.shape
    d = _fpref.tree_dot(tree, inp, inp, outp, np.ascontiguousarray(ca).tobytes(), np.ascontiguousarray(cb).tobytes(),
                        lines, K)
    width = _fpref.format_info(outp)["element_bytes"]
    return np.frombuffer(d, dtype="<u8").astype({1: "<u1", 2: "<u2", 4: "<u4", 8: "<u8"}[width])
