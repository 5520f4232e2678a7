"""str() of a verification is the command's text, byte for byte: a
VerifyResult (one file, a folder) is what `fpref verify` prints, a
GemmVerdict what `fpref verify-gemm` prints; both come from the library's
words (golden/verify_text.c, golden/gemm_text.c), as str(explain(...))
does from ref/explain_text.c."""
import subprocess

import numpy as np
import pytest

import fpref
from conftest import CLI

SUITE = """suite words
seed 5
op add float8_e4m3fn rne edge+random:40
dot h100 float8_e4m3fn float32 edge+random:5:4
"""


def _cli(args):
    """The command's stdout, whatever its exit status (1 is a FAIL verdict)."""
    if CLI is None:
        pytest.skip("no fpref command built (set FPREF_CLI)")
    r = subprocess.run([CLI] + args, capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("words")
    (d / "w.suite").write_text(SUITE)
    fpref.gen(d / "g", d / "w.suite")
    return d


def _rna_results(folder, tmp):
    """Results of the add file rounded with ties away: some differ (a kernel's bug)."""
    g = str(folder / "g" / "add" / "float8_e4m3fn.rne.txt")
    lines = [line.split() for line in open(g) if not line.startswith("#")]
    a = np.array([int(t[0], 16) for t in lines], np.uint8)
    b = np.array([int(t[1], 16) for t in lines], np.uint8)
    d, fl = fpref.op("add", a, b, format="e4m3", round="rna", return_flags=True)
    path = tmp / "rna.txt"
    path.write_text("".join(f"{t[0]} {t[1]} {int(x):02X} {int(f):02X}\n" for t, x, f in zip(lines, d, fl)))
    return g, path


def test_verify_one_file_against_the_oracle(folder):
    g = str(folder / "g" / "dot" / "h100.float8_e4m3fn-float32.txt")
    assert str(fpref.verify(g)) == _cli(["verify", g])


@pytest.mark.parametrize("extra", [[], ["--tolerance", "1ulp"], ["--show", "2"]])
def test_verify_results_with_mismatches(folder, tmp_path, extra):
    g, results = _rna_results(folder, tmp_path)
    kw = {}
    if "--tolerance" in extra:
        kw["tolerance"] = "1ulp"
    if "--show" in extra:
        kw["show"] = 2
    v = fpref.verify(g, results, **kw)
    assert not v.passed
    text = str(v)
    assert text == _cli(["verify", g, str(results)] + extra)
    assert "tie broken the wrong way" in text and text.endswith("verdict   FAIL\n")


def test_verify_diagnose(folder, tmp_path):
    g, results = _rna_results(folder, tmp_path)
    assert str(fpref.verify(g, results, diagnose=True)) == _cli(["verify", g, str(results), "--diagnose"])


def test_verify_folder(folder):
    g = str(folder / "g")
    v = fpref.verify(g)
    assert v.passed and str(v) == _cli(["verify", g])


def _gemm_files(tmp, model, kernel, in_format="e4m3"):
    rng = np.random.default_rng(7)
    A = fpref.convert(rng.standard_normal((6, 64)), in_format)
    B = fpref.convert(rng.standard_normal((64, 5)), in_format)
    D = fpref.gemm(A, B, model=kernel, in_format=in_format)
    for name, x in (("A", A), ("B", B), ("D", D)):
        np.save(tmp / f"{name}.npy", x)
    return A, B, D


@pytest.mark.parametrize("model,kernel,tolerance,cli_tol", [
    ("h100", "exact", None, []),
    ("h100", "exact", "2ulp", ["--tolerance", "2ulp"]),
    ("h100", "h100", None, []),
    ("recursive", "pairwise", "1e-6rel", ["--tolerance", "1e-6rel"]),
])
def test_verify_gemm(tmp_path, model, kernel, tolerance, cli_tol):
    A, B, D = _gemm_files(tmp_path, model, kernel)
    v = fpref.verify_gemm(D, A, B, model=model, in_format="e4m3", out_format="f32", tolerance=tolerance, show=4)
    want = _cli(["verify-gemm", "--a", str(tmp_path / "A.npy"), "--b", str(tmp_path / "B.npy"), "--d",
                 str(tmp_path / "D.npy"), "--model", model, "--in-format", "e4m3", "--out-format", "f32",
                 "--show", "4", "--threads", "1"] + cli_tol)
    assert str(v) == want
    assert want.endswith("PASS\n" if v.passed else "FAIL\n")
    assert "GemmVerdict(" in repr(v) and "text=" not in repr(v)
