"""fpref.gen and fpref.verify against `fpref gen` and `fpref verify`: the
same golden files byte for byte, and the same verdicts and counts (their
JSON) on the same results."""
import filecmp
import os
import subprocess

import numpy as np
import pytest

import fpref

SUITE = """suite tiny
seed 3
convert float4_e2m1fn,float6_e2m3fn float8_e4m3fn rne exhaustive
op add,mul float8_e4m3fn rne edge+random:50
dot h100 float8_e4m3fn float32 edge+random:5:4
"""
VERIFY_KEYS = ("cases", "exact", "within", "outside", "mismatches", "max_ulps_golden", "max_rel_golden",
               "max_ulps_exact", "max_rel_exact", "mean_ulps_exact", "measured_exact", "saturated", "zero_golden",
               "with_bound", "above_bound")


@pytest.fixture(scope="module")
def golden(tmp_path_factory, cli):
    """The tiny suite made by the package (py) and by the command (cli)."""
    d = tmp_path_factory.mktemp("golden")
    (d / "t.suite").write_text(SUITE)
    r = fpref.gen(d / "py", d / "t.suite", npy=True)
    cli(["gen", "--suite", str(d / "t.suite"), "--out", str(d / "cli"), "--npy"])
    return d, r


def _same_tree(a, b):
    c = filecmp.dircmp(a, b)
    assert not c.left_only and not c.right_only and not c.diff_files, (c.left_only, c.right_only, c.diff_files)
    assert not filecmp.cmpfiles(a, b, c.common_files, shallow=False)[1]
    for sub in c.common_dirs:
        _same_tree(os.path.join(a, sub), os.path.join(b, sub))


def test_gen_matches_cli(golden):
    d, r = golden
    assert (r.suite, r.files, r.skipped, r.vectors) == ("tiny", 5, 0, 3537)
    assert os.path.isfile(r.manifest)
    _same_tree(d / "py", d / "cli")
    again = fpref.gen(d / "py", d / "t.suite", npy=True)  # resumed: every file already complete
    assert (again.files, again.skipped) == (5, 5)
    threads = fpref.gen(d / "py2", d / "t.suite", npy=True, jobs=2)
    assert threads.vectors == r.vectors
    _same_tree(d / "py2", d / "cli")


def test_gen_shard_matches_cli(golden, cli):
    d, _ = golden
    r = fpref.gen(d / "shard-py", d / "t.suite", shard=(1, 2))
    cli(["gen", "--suite", str(d / "t.suite"), "--out", str(d / "shard-cli"), "--shard", "1/2"])
    assert r.manifest.endswith("MANIFEST.shard-1-of-2") and r.files == 2
    _same_tree(d / "shard-py", d / "shard-cli")


def test_suite_files_match_cli_list(cli):
    assert fpref.suite_files("committed") == [t[0] for t in cli(["gen", "--suite", "committed", "--list"])]


def test_verify_folder_matches_cli(golden, cli_json):
    d, _ = golden
    v = fpref.verify(d / "cli")
    r = cli_json(["verify", str(d / "cli")])
    assert v.passed and r["pass"]
    assert (len(v.files), v.vectors, v.outside, v.failed_files, len(v.unreadable), v.manifest) == \
        (r["files"], r["vectors"], r["outside"], r["failed_files"], r["unreadable_files"], r["manifest"])
    w = fpref.verify(d / "cli", d / "py")  # a results folder of the same layout
    assert w.passed and w.vectors == v.vectors


def _changed_results(d, name):
    """The golden results of one file as an array, two of them changed."""
    res = np.load(d / "cli" / f"{name}.results.npy")
    res = res.copy()
    res[3] ^= 1          # the other neighbour
    res[10] = 0x7F       # NaN
    return res


@pytest.mark.parametrize("name", ["add/float8_e4m3fn.rne", "dot/h100.float8_e4m3fn-float32"])
def test_verify_array_matches_cli(golden, cli_json, tmp_path, name):
    d, _ = golden
    res = _changed_results(d, name)
    np.save(tmp_path / "r.npy", res)
    g = str(d / "cli" / f"{name}.txt")
    v = fpref.verify(g, res, show=5)
    r = cli_json(["verify", g, str(tmp_path / "r.npy"), "--show", "5"], check=False)
    assert not v.passed and r["pass"] is False
    rep = v.files[0]
    for key in VERIFY_KEYS:
        if r[key] is None:  # the JSON's null: a figure that is not finite
            assert not np.isfinite(getattr(rep, key)), key
        else:
            assert getattr(rep, key) == r[key], key
    assert [m.line for m in rep.shown] == [4, 11]
    via_file = fpref.verify(g, tmp_path / "r.npy", show=5).files[0]
    assert via_file.mismatches == rep.mismatches and repr(via_file.shown) == repr(rep.shown)


def test_verify_tolerance_matches_cli(golden, cli_json, tmp_path):
    d, _ = golden
    name = "add/float8_e4m3fn.rne"
    res = np.load(d / "cli" / f"{name}.results.npy").copy()
    finite = np.flatnonzero((res & 0x7F) < 0x70)[:3]
    res[finite] += 1
    np.save(tmp_path / "r.npy", res)
    g = str(d / "cli" / f"{name}.txt")
    for tol in ("1ulp", "1e-9rel"):
        v = fpref.verify(g, res, tolerance=tol).files[0]
        r = cli_json(["verify", g, str(tmp_path / "r.npy"), "--tolerance", tol], check=False)
        assert (v.within, v.outside, v.passed) == (r["within"], r["outside"], r["pass"]), tol


def test_verify_flags(golden):
    d, _ = golden
    name = "add/float8_e4m3fn.rne"
    g = d / "cli" / f"{name}.txt"
    res = np.load(d / "cli" / f"{name}.results.npy")
    flags = np.load(d / "cli" / f"{name}.flags.npy").astype(np.int32)
    assert fpref.verify(g, res, flags=flags).passed
    flags[0] ^= 1
    v = fpref.verify(g, res, flags=flags).files[0]
    assert v.mismatches == {"flags only": 1} and v.shown[0].line == 1


def test_verify_damaged_folder(golden, tmp_path):
    import shutil

    from conftest import CLI
    d, _ = golden
    shutil.copytree(d / "cli", tmp_path / "g")
    (tmp_path / "g" / "extra.txt").write_text("not golden\n")
    with pytest.raises(ValueError, match="extra.txt"):
        fpref.verify(tmp_path / "g")
    assert subprocess.run([CLI, "verify", str(tmp_path / "g")], capture_output=True).returncode == 2


@pytest.mark.parametrize("call,err,match", [
    (lambda d: fpref.verify(d / "nothing"), ValueError, "no such file or folder"),
    (lambda d: fpref.verify(d / "cli", tolerance="2 bits"), ValueError, "bad tolerance"),
    (lambda d: fpref.verify(d / "cli", np.zeros(3)), TypeError, "a folder's results"),
    (lambda d: fpref.verify(d / "cli" / "add" / "float8_e4m3fn.rne.txt", np.zeros(3, np.uint8)), ValueError,
     "one each"),
    (lambda d: fpref.verify(d / "t.suite"), ValueError, "verify:"),
    (lambda d: fpref.gen(d / "x", "nosuch"), ValueError, "no suite 'nosuch'"),
    (lambda d: fpref.gen(d / "x", d / "t.suite", shard=(2, 2)), ValueError, "shard"),
    (lambda d: fpref.gen(d / "x", d / "t.suite", jobs=0), ValueError, "jobs"),
])
def test_golden_bad_arguments(golden, call, err, match):
    with pytest.raises(err, match=match):
        call(golden[0])


def test_verify_diagnose_matches_cli(golden, cli, cli_json, tmp_path):
    """diagnose=True: a kernel that breaks ties away (the command's own add
    under rna, not the mutant catalogue) is named ties-away, as `fpref
    verify --diagnose` names it; a correct kernel gets an empty diagnosis."""
    d, _ = golden
    g = str(d / "cli" / "add" / "float8_e4m3fn.rne.txt")
    inputs = [" ".join(line.split()[:2]) for line in open(g) if not line.startswith("#")]
    out = cli(["op", "add", "--fmt", "e4m3", "--round", "rna"], inputs)
    (tmp_path / "rna.txt").write_text("".join(" ".join(t[:3]) + "\n" for t in out))
    v = fpref.verify(g, tmp_path / "rna.txt", diagnose=True).files[0]
    r = cli_json(["verify", g, str(tmp_path / "rna.txt"), "--diagnose"], check=False)
    assert v.diagnosis == r["diagnosis"] and v.diagnosis_cover == r["diagnosis_cover"]
    top = v.diagnosis[0]
    assert top["mutant"] == "ties-away" and top["exact"] and top["explains"] == v.outside > 0
    assert v.mismatches == {"tie broken the wrong way": v.outside}
    right = fpref.verify(g, d / "cli" / "add" / "float8_e4m3fn.rne.results.npy", diagnose=True).files[0]
    assert right.passed and right.diagnosis == [] and right.diagnosis_cover == []
    assert fpref.verify(g, tmp_path / "rna.txt").files[0].diagnosis is None
    with pytest.raises(ValueError, match="diagnose explains results"):
        fpref.verify(g, diagnose=True)
