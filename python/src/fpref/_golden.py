"""fpref.gen and fpref.verify: golden files (golden/) from Python, as the
`fpref gen` and `fpref verify` commands make and judge them."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from . import _fpref, format_info

PathLike = Union[str, "os.PathLike[str]"]

_SUITES = Path(__file__).resolve().parent / "suites"


def _suite_path(suite: PathLike) -> str:
    """A suite by path, or by name: $FPREF_SUITES/NAME.suite, then the
    suites this package carries (golden/suites: default, committed, full)."""
    text = os.fspath(suite)
    if "/" in text or text.endswith(".suite"):
        if not os.access(text, os.R_OK):
            raise ValueError(f"gen: no suite file {text!r}")
        return text
    for d in (os.environ.get("FPREF_SUITES"), str(_SUITES)):
        if d:
            p = os.path.join(d, text + ".suite")
            if os.access(p, os.R_OK):
                return p
    names = sorted(p.stem for p in _SUITES.glob("*.suite"))
    raise ValueError(f"gen: no suite {text!r} (a path, or a name: {', '.join(names)})")


@dataclass(frozen=True)
class GenResult:
    """What one `fpref gen` run did: the suite's name, the files made (and
    those already complete, skipped), complete files that got their .npy
    arrays, the vectors written, the folder and its MANIFEST."""
    suite: str
    out: str
    files: int
    skipped: int
    arrays_added: int
    vectors: int
    manifest: str


def gen(out: PathLike, suite: PathLike = "default", *, shard: Tuple[int, int] = (0, 1), jobs: int = 1,
        npy: bool = False) -> GenResult:
    """Make the golden files of a suite in folder `out`, both engines
    agreeing on every vector (fpref_golden_generate), then its MANIFEST
    (MANIFEST.shard-I-of-N for a shard): `fpref gen --suite SUITE --out
    OUT`.  Files already complete are skipped, so a stopped run resumes.
    suite: a path, or a name (default, committed, full; $FPREF_SUITES
    first).  shard=(i, n): the files k with k % n == i.  jobs: threads.
    npy: .npy arrays beside every file.  The GIL is released while it runs;
    SIGINT or SIGTERM reaching the calling thread stops it as it stops the
    command (the files being written are finished, KeyboardInterrupt is
    raised, a second run resumes).  RuntimeError when the engines disagree
    or a file cannot be written."""
    path = _suite_path(suite)
    if (not isinstance(shard, tuple) or len(shard) != 2 or not all(isinstance(v, int) for v in shard)
            or shard[1] < 1 or not 0 <= shard[0] < shard[1]):
        raise ValueError(f"gen: shard is (i, n) with 0 <= i < n, not {shard!r}")
    if not isinstance(jobs, int) or isinstance(jobs, bool) or not 1 <= jobs <= 256:
        raise ValueError(f"gen: jobs is a thread count 1..256, not {jobs!r}")
    folder = os.fspath(out)
    os.makedirs(folder, exist_ok=True)
    if not os.access(folder, os.W_OK):
        raise ValueError(f"gen: cannot write to {folder!r}")
    d = _fpref.gen(path, folder, shard[0], shard[1], jobs, bool(npy))
    manifest = "MANIFEST" if shard[1] == 1 else f"MANIFEST.shard-{shard[0]}-of-{shard[1]}"
    return GenResult(suite=d["suite"], out=folder, files=d["files"], skipped=d["skipped"],
                     arrays_added=d["arrays_added"], vectors=d["vectors"], manifest=os.path.join(folder, manifest))


def suite_files(suite: PathLike = "default") -> List[str]:
    """The golden files a suite makes, relative to the output folder
    (`fpref gen --list`).

    >>> suite_files("committed")[0]
    'convert/float8_e5m2-float64.rne.txt'
    """
    return _fpref.suite_jobs(_suite_path(suite))


@dataclass(frozen=True)
class Mismatch:
    """One result that differs from the golden one: its 1-based body line,
    the inputs (as the file writes them), both patterns and flags (-1: none
    given), the class (fpref_golden_classify) and the error in ulps."""
    line: int
    inputs: str
    golden: int
    got: int
    golden_flags: int
    got_flags: int
    kind: str
    ulps: float


@dataclass(frozen=True)
class VerifyReport:
    """One golden file judged (the fields of `fpref verify --json` for a
    file): cases, exact, within (tolerance), outside; mismatches by class;
    the errors in ulps and relative against the golden values and against
    the exact ones; the a priori bound's counts (dot files); and the first
    `show` mismatches."""
    golden: str
    results: str
    op: str
    formats: str
    output: str
    cases: int
    exact: int
    within: int
    outside: int
    mismatches: Dict[str, int]
    max_ulps_golden: float
    max_rel_golden: float
    max_ulps_exact: float
    max_rel_exact: float
    mean_ulps_exact: float
    measured_exact: int
    saturated: int
    zero_golden: int
    nonfinite: int
    with_flags: int
    with_bound: int
    above_bound: int
    shown: List[Mismatch]
    # verify(..., diagnose=True): the mutants that explain the mismatches,
    # best first ({mutant, explains, mismatches, contradicts, exact}), and
    # the greedy cover of the mismatches by bugs ({mutant, adds,
    # contradicts}), as `fpref verify --diagnose --json`; None otherwise
    diagnosis: Optional[List[Dict[str, Any]]] = None
    diagnosis_cover: Optional[List[Dict[str, Any]]] = None
    # text, and str(): the report `fpref verify GOLDEN RESULTS` prints for
    # this file; headline: the diagnosis in one line (a folder's), or ""
    text: str = field(default="", repr=False, compare=False)
    headline: str = field(default="", repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.outside == 0

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class VerifyResult:
    """A verification: of one file (files holds its report) or of a folder
    (every golden file below it, against the same path below `results`).
    vectors, outside: summed; failed_files: files with results outside the
    tolerance; unreadable: {file: why} for files that could not be judged;
    manifest: "ok" (the folder matches its MANIFEST), "none" (it has none),
    or "file"."""
    golden: str
    files: List[VerifyReport]
    vectors: int
    outside: int
    failed_files: int
    unreadable: Dict[str, str] = field(default_factory=dict)
    manifest: str = "file"

    @property
    def passed(self) -> bool:
        return self.outside == 0 and not self.unreadable

    def __str__(self) -> str:
        """What `fpref verify` prints for the same golden file (its report)
        or folder (the files outside the tolerance and the summary)."""
        if self.manifest == "file":
            return str(self.files[0])
        problems = [(r.golden, r.cases, r.outside, r.headline) for r in self.files if r.outside]
        return _fpref.verify_folder_text(self.golden, self.manifest == "ok", problems,
                                         len(self.files) + len(self.unreadable), self.vectors, self.outside,
                                         self.failed_files, len(self.unreadable), self.passed)

    @property
    def mismatches(self) -> Dict[str, int]:
        total: Dict[str, int] = {}
        for r in self.files:
            for k, v in r.mismatches.items():
                total[k] = total.get(k, 0) + v
        return total

    def __bool__(self) -> bool:
        return self.passed


def _tolerance(tolerance: Optional[str]) -> Tuple[float, float]:
    if tolerance is None:
        return -1.0, -1.0
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(ulps?|rel)\s*", tolerance) if isinstance(tolerance, str) else None
    try:
        v = float(m.group(1)) if m else -1.0
    except ValueError:
        v = -1.0
    if not m or not v >= 0:
        raise ValueError(f"verify: bad tolerance {tolerance!r} (N ulp, or X rel: '2ulp', '1e-3rel')")
    return (v, -1.0) if m.group(2).startswith("ulp") else (-1.0, v)


def _report(golden: str, results: str, d: Dict[str, Any]) -> VerifyReport:
    shown = [Mismatch(line=c["line"], inputs=c["inputs"], golden=c["golden"], got=c["got"],
                      golden_flags=c["golden_flags"], got_flags=c["got_flags"], kind=c["kind"], ulps=c["ulps"])
             for c in d.pop("shown")]
    return VerifyReport(golden=golden, results=results, shown=shown, **d)


def _one(golden: str, results: Any, flags: Any, tol: Tuple[float, float], show: int, threads: int = 0) -> VerifyReport:
    if results is None or isinstance(results, (str, os.PathLike)):
        path = None if results is None else os.fspath(results)
        d = _fpref.verify(golden, path, None, None, tol[0], tol[1], show, threads)
        return _report(golden, path or "oracle", d)
    # an array of results, one per golden line: patterns of the output format (or its float type)
    from . import _codes_in  # noqa: PLC0415  (the package's own reader of codes)
    _, out, _ = _fpref.golden_info(golden)
    codes, _ = _codes_in(results, format_info(out)["name"])
    bits = np.ascontiguousarray(codes.reshape(-1), dtype=np.uint64)
    fl = None
    if flags is not None:
        fl = np.ascontiguousarray(np.asarray(flags).reshape(-1), dtype=np.intc)
        if fl.shape != bits.shape:
            raise ValueError(f"verify: {fl.size} flags for {bits.size} results")
    d = _fpref.verify(golden, None, bits, fl, tol[0], tol[1], show, threads)
    return _report(golden, "array", d)


def verify(golden: PathLike, results: Any = None, *, flags: Any = None, tolerance: Optional[str] = None,
           show: int = 10, diagnose: bool = False) -> VerifyResult:
    """Judge results against golden files, as `fpref verify GOLDEN
    [RESULTS]` does (fpref_golden_verify): one file, or a folder (every
    golden file below it, the folder checked against its MANIFEST first;
    a damaged folder is a ValueError).

    results: None (the oracle's results, computed afresh: a recheck of the
    golden files); a path (a results file in the golden file's line format,
    or a .npy of one result per line; for a folder, a folder with the same
    layout); or, for one file, an array of one result per golden line
    (codes of the output format, or an array of its float type), with
    optional flags (one per line, -1 where none).  tolerance: "2ulp" or
    "1e-3rel" (default: bit-exact).  show: how many mismatches to keep per
    file.  diagnose: run the mutant catalogue on the golden inputs and
    rank the mutants by the mismatches they reproduce (each report's
    diagnosis and diagnosis_cover, as `fpref verify --diagnose`; needs
    results).  The result is truthy when everything passed.
    """
    g = os.fspath(golden)
    if not isinstance(show, int) or isinstance(show, bool) or not 0 <= show <= 100000:
        raise ValueError(f"verify: show is a count of mismatches 0..100000, not {show!r}")
    tol = _tolerance(tolerance)
    if not isinstance(diagnose, bool):
        raise TypeError(f"verify: diagnose is True or False, not {diagnose!r}")
    if diagnose and results is None:
        raise ValueError("verify: diagnose explains results: give them (without, the oracle is judged)")
    threads = (os.cpu_count() or 1) if diagnose else 0
    if not os.path.exists(g):
        raise ValueError(f"verify: {g}: no such file or folder")
    if not os.path.isdir(g):
        r = _one(g, results, flags, tol, show, threads)
        return VerifyResult(golden=g, files=[r], vectors=r.cases, outside=r.outside,
                            failed_files=int(r.outside > 0))
    if results is not None and not isinstance(results, (str, os.PathLike)):
        raise TypeError("verify: a folder's results are a folder of the same layout (a path), not an array")
    if flags is not None:
        raise TypeError("verify: flags go with an array of results for one file")
    manifest, _, paths = _fpref.golden_folder(g)
    if not paths:
        raise ValueError(f"verify: {g}: no golden files found (*.txt below it)")
    reports: List[VerifyReport] = []
    unreadable: Dict[str, str] = {}
    for rel in paths:
        path = os.path.join(g, rel)
        other = None if results is None else os.path.join(os.fspath(results), rel)
        try:
            reports.append(_one(path, other, None, tol, show, threads))
        except ValueError as e:
            unreadable[path] = str(e)
    return VerifyResult(golden=g, files=reports, vectors=sum(r.cases for r in reports),
                        outside=sum(r.outside for r in reports),
                        failed_files=sum(1 for r in reports if r.outside), unreadable=unreadable,
                        manifest=manifest)
