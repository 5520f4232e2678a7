"""fpref.probe against `fpref probe`: infer's report over the same cases
(a probe file answered by other units through `fpref dot`: a generic
model, a preset, a floor, too few cases, no block model at all, two input
formats) has the command's text byte for byte and its --json's fields;
order is reveal_order."""
import json
import subprocess
import sys

import numpy as np
import pytest

import fpref
from conftest import CLI, TOP


def run(args, stdin=None):
    r = subprocess.run([CLI] + list(args), input=stdin, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def cases(path, inp, out, K):
    """A results file's lines 'a_1..a_K b_1..b_K c d' as the arrays a, b, c, d."""
    rows = np.array([[int(t, 16) for t in line.split()] for line in open(path) if line.strip() and line[0] != "#"],
                    dtype=np.uint64)
    assert rows.shape[1] == 2 * K + 2
    return rows[:, :K], rows[:, K:2 * K], rows[:, 2 * K], rows[:, 2 * K + 1]


# (name, probe gen's inputs, output, K, fpref dot's model options, cases kept (None: all))
UNITS = [
    ("generic", ["--in-format", "f16"], "f32", 16, ["--model", "generic", "--block", "4", "--frac", "27", "--floor",
                                                  "none", "--final", "rne"], None),
    ("h100-fp8", ["--in-format", "e4m3"], "f32", 32, ["--model", "h100"], None),
    ("floor", ["--in-format", "bf16"], "f32", 16, ["--model", "generic", "--block", "2", "--frac", "20", "--floor",
                                                "-100"], None),
    ("few", ["--in-format", "f16"], "f32", 16, ["--model", "generic", "--block", "4", "--frac", "27", "--floor", "none",
                                             "--final", "rne"], 30),
    ("recursive", ["--in-format", "f16"], "f32", 4, ["--model", "recursive"], None),  # nearest and c = 0 classes
    ("pair", ["--a-format", "e5m2", "--b-format", "e4m3"], "f32", 32, ["--model", "h100-wgmma"], None),
    ("fp16-out", ["--in-format", "f16"], "f16", 8, ["--model", "v100"], None),
]


def formats_of(gen_inputs):
    return gen_inputs[1] if gen_inputs[0] == "--in-format" else (gen_inputs[1], gen_inputs[3])


@pytest.fixture(scope="module")
def answered(tmp_path_factory):
    """Each unit's results file, made by the command: probe gen, then fpref dot."""
    if CLI is None:
        pytest.skip("no fpref command")
    d = tmp_path_factory.mktemp("probe")
    files = {}
    for name, gen_inputs, out, K, model, keep in UNITS:
        probe_file = d / f"{name}.probe"
        rc, _, err = run(["probe", "gen"] + gen_inputs + ["--out-format", out, "--k", str(K), "--out-file", str(probe_file)])
        assert rc == 0, err
        lines = [line.rsplit(" ", 1)[0] for line in probe_file.read_text().splitlines() if not line.startswith("#")]
        dot_in = ["--in-format", gen_inputs[1]] if gen_inputs[0] == "--in-format" else ["--a-format", gen_inputs[1],
                                                                                      "--b-format", gen_inputs[3]]
        rc, body, err = run(["dot"] + model + dot_in + ["--out-format", out], "\n".join(lines) + "\n")
        assert rc == 0, err
        results = d / f"{name}.txt"
        results.write_text("".join(body.splitlines(keepends=True)[:keep]))
        files[name] = (results, dot_in, out, K)
        files[name + ".probe"] = probe_file
    return files


@pytest.mark.parametrize("name", [u[0] for u in UNITS])
def test_infer_text_and_json_as_the_command(cli, answered, name):
    results, dot_in, out, K = answered[name]
    rc, text, err = run(["probe", "infer", "--results", str(results)] + dot_in + ["--out-format", out])
    assert rc in (0, 1), err
    inp = dot_in[1] if dot_in[0] == "--in-format" else (dot_in[1], dot_in[3])
    rep = fpref.probe("infer", *cases(results, inp, out, K), in_format=inp, out_format=out, results=str(results))
    assert str(rep) == text
    assert rep.found == (rc == 0)
    if name == "generic":
        assert rep.found and "--block 4 --frac 27 --floor none --final rne" in text
    if name == "recursive":  # the paths of a unit no block model is
        assert not rep.classes and rep.nearest and rep.c_zero_classes
    rc_json, js, _ = run(["probe", "infer", "--results", str(results)] + dot_in + ["--out-format", out, "--json"])
    want = json.loads(js)
    assert rc_json == rc
    got = {"results": rep.results, "cases": rep.cases, "K": rep.K, "in": rep.in_format, "in_a": rep.in_a, "in_b": rep.in_b,
           "out": rep.out_format, "models_run": rep.models_run, "classes": list(rep.classes), "nearest": list(rep.nearest),
           "c_zero_cases": rep.c_zero_cases, "c_zero_classes": list(rep.c_zero_classes),
           "presets": list(rep.presets), "found": rep.found}
    assert got == want


@pytest.mark.parametrize("name, formats", [("generic", True), ("h100-fp8", False), ("pair", False), ("fp16-out", True)])
def test_infer_golden_as_the_command(cli, answered, name, formats):
    # the probe file and the results judged against it, as --golden G --results R
    results, dot_in, out, K = answered[name]
    golden = answered[name + ".probe"]
    given = dot_in + ["--out-format", out] if formats else []
    rc, text, err = run(["probe", "infer", "--results", str(results), "--golden", str(golden)] + given)
    assert rc in (0, 1), err
    inp = dot_in[1] if dot_in[0] == "--in-format" else (dot_in[1], dot_in[3])
    kw = {"in_format": inp, "out_format": out} if formats else {}
    rep = fpref.probe("infer", golden=golden, results=str(results), **kw)
    assert str(rep) == text and rep.found == (rc == 0) and rep.K == K


def test_infer_golden_refusals(answered):
    results, _, _, _ = answered["generic"]
    golden = answered["generic.probe"]
    cmd = ["probe", "infer", "--results", str(results), "--golden", str(golden), "--in-format", "e4m3", "--out-format", "f32"]
    rc, _, err = run(cmd)
    with pytest.raises(ValueError) as e:
        fpref.probe("infer", golden=str(golden), results=str(results), in_format="e4m3", out_format="f32")
    assert rc == 2 and err == f"fpref probe infer: {e.value}\n"
    rc, _, err = run(["probe", "infer", "--results", str(results), "--golden", str(results)])
    with pytest.raises(ValueError) as e:
        fpref.probe("infer", golden=str(results), results=str(results))
    assert rc == 2 and err == f"fpref probe infer: {e.value}\n"
    with pytest.raises(TypeError, match="go together"):
        fpref.probe("infer", golden=str(golden), results=str(results), in_format="f16")
    with pytest.raises(TypeError, match="no a, b, c, d"):
        fpref.probe("infer", 1, golden=str(golden), results=str(results))


def test_infer_known_parameters(cli, answered):
    results, dot_in, out, K = answered["generic"]
    rc, text, _ = run(["probe", "infer", "--results", str(results), "--block", "4", "--frac", "27"] + dot_in +
                      ["--out-format", out])
    rep = fpref.probe("infer", *cases(results, "f16", out, K), in_format="f16", out_format=out, block=4, frac=27,
                      results=str(results))
    assert rc == 0 and str(rep) == text and rep.found
    assert rep.classes[0]["block_lo"] == 4 and rep.classes[0]["frac"] == 27 and rep.classes[0]["floor"] is None


def test_infer_values_as_codes(answered):
    # values the formats hold exactly are taken as those formats' codes
    results, _, out, K = answered["generic"]
    a, b, c, d = cases(results, "f16", out, K)
    by_codes = fpref.probe("infer", a[:40], b[:40], c[:40], d[:40], in_format="f16", out_format="f32")
    as_values = fpref.probe("infer", fpref.decode(a[:40].astype(np.uint16), "f16"),
                            fpref.decode(b[:40].astype(np.uint16), "f16"), fpref.decode(c[:40].astype(np.uint32), "f32"),
                            fpref.decode(d[:40].astype(np.uint32), "f32"), in_format="f16", out_format="f32")
    assert str(by_codes) == str(as_values)
    assert str(by_codes).startswith("results: 40 cases of 16 products, float16 -> float32;")


def test_probe_refusals(answered):
    results, _, out, K = answered["generic"]
    a, b, c, d = cases(results, "f16", out, K)
    with pytest.raises(TypeError, match="in_format="):
        fpref.probe("infer", a, b, c, d, out_format="f32")
    with pytest.raises(TypeError, match="a, b, c, d"):
        fpref.probe("infer", a, b, c, in_format="f16", out_format="f32")
    with pytest.raises(ValueError, match="one shape"):
        fpref.probe("infer", a, b[:, :3], c, d, in_format="f16", out_format="f32")
    with pytest.raises(ValueError, match="one code per case"):
        fpref.probe("infer", a, b, c[:3], d, in_format="f16", out_format="f32")
    with pytest.raises(ValueError, match="frac"):
        fpref.probe("infer", a, b, c, d, in_format="f16", out_format="f32", frac=99)
    with pytest.raises(TypeError, match="takes no verify="):
        fpref.probe("infer", a, b, c, d, in_format="f16", out_format="f32", verify=3)
    with pytest.raises(ValueError, match="fpref probe gen"):
        fpref.probe("gen")
    with pytest.raises(ValueError, match="'infer' or 'order'"):
        fpref.probe("guess")


@pytest.mark.parametrize("n, what", [(16, "sum"), (7, "sum"), (33, "dot")])
def test_order_text_as_the_command(cli, n, what):
    # the same black box, NumPy's float32 reduction, run by the command
    # (tests/order_numpy_box.py on lines of hex) and called here
    box = TOP / "tests" / "order_numpy_box.py"
    rc, text, err = run(["probe", "order", "--cmd", f"{sys.executable} {box} {what}", "--n", str(n), "--in-format", "f32"])
    assert rc == 0, err
    ones = np.ones(n, dtype=np.float32)
    fn = np.sum if what == "sum" else (lambda x: np.dot(x, ones))
    r = fpref.probe("order", fn, n, "float32")
    assert str(r) == text and text.startswith(f"tree: {r.tree}\n")


def test_probe_order_is_reveal_order():
    r = fpref.probe("order", lambda x: np.float32(((x[0] + x[1]) + x[2]) + x[3]), 4, "float32")
    assert isinstance(r, fpref.RevealedOrder) and r.tree == "(((0,1),2),3)"
    assert r == fpref.reveal_order(lambda x: np.float32(((x[0] + x[1]) + x[2]) + x[3]), 4, "float32")


def test_probe_is_exported():
    assert "probe" in fpref.__all__ and "ProbeReport" in fpref.__all__ and "draw" in fpref.__all__
