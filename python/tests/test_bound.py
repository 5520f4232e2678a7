"""fpref.bound against `fpref gemm`: the a priori bound of each element.

fpref gemm prints, per run, the largest bound/|exact| (bound_max_rel).
With one element per run (1 x 1 x K) whose exact value is a power of two,
that ratio is the bound scaled exactly, so the package's float64 bound,
divided by the same power of two, must equal the command's figure bit for
bit.  Beside that, every bound must hold: |D - exact| <= bound, with the
exact value from the oracle (model="exact" into float64, exact here)."""
import numpy as np
import pytest

import fpref

# dot products whose exact sum is a power of two, with cancellation and
# small terms that the tensor cores' alignment drops (e4m3 values)
CASES = [
    ([1.0, 2.0 ** -7, -2.0 ** -7, 0.5], [1.0, 1.0, 1.0, 2.0], 2.0),
    ([448.0, -448.0, 1.0, 2.0 ** -9], [1.0, 1.0, 0.5, 0.0], 0.5),
    ([3.0, -1.0, 0.125, -0.125] * 8, [1.0, 2.0, 1.0, 1.0] * 8, 8.0),
    ([1.5, 2.0 ** -6, -2.0 ** -6, 0.5, 0.25, -0.25], [1.0] * 6, 2.0),
]
MODELS = [("h100", {}), ("a100", {"in_format": "bf16"}), ("v100", {"in_format": "f16"}), ("h100-wgmma", {}), ("ada", {}),
          ("h100", {"promote": 2}), ("generic", {"block": 4, "frac": 10}), ("recursive", {}), ("pairwise", {}),
          ("blocked", {"block": 2}), ("fma-chain", {})]


def _cli_args(model, kw):
    args = ["--model", model, "--in", kw.get("in_format", "e4m3")]
    for k, v in kw.items():
        if k == "in_format":
            continue
        args += [f"--{k}", str(v)]
    return args


@pytest.mark.parametrize("model,kw", MODELS, ids=[m + "".join(f"-{k}{v}" for k, v in kw.items()) for m, kw in MODELS])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_bound_matches_cli(cli_json, tmp_path, model, kw, case):
    a, b, exact = CASES[case]
    inp = kw.get("in_format", "e4m3")
    A = fpref.convert([a], inp)
    B = fpref.convert(np.array([b]).T, inp)
    assert fpref.decode(fpref.gemm(A, B, model="exact", in_format=inp, out_format="f64"), "f64")[0, 0] == exact
    np.save(tmp_path / "a.npy", A)
    np.save(tmp_path / "b.npy", B)
    got = fpref.bound(A, B, model=model, **kw)
    assert got.shape == (1, 1) and got.dtype == np.float64
    r = cli_json(["gemm", "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy")]
                 + _cli_args(model, kw))
    assert r["without_bound"] == 0 and r["above_bound"] == 0
    assert got[0, 0] / exact == r["bound_max_rel"]


def test_bound_holds_on_random_matrices():
    rng = np.random.default_rng(3)
    for model, kw in MODELS:
        inp = kw.get("in_format", "e4m3")
        A = fpref.convert(rng.standard_normal((6, 40)), inp)
        B = fpref.convert(rng.standard_normal((40, 5)), inp)
        exact = fpref.decode(fpref.gemm(A, B, model="exact", in_format=inp, out_format="f64"), "f64")
        D = fpref.decode(fpref.gemm(A, B, model=model, **kw), "f32")
        bnd = fpref.bound(A, B, model=model, **kw)
        assert np.all(np.isfinite(bnd)) and np.all(bnd > 0), model
        assert np.all(np.abs(D - exact) <= bnd), model


def test_bound_none_applies():
    A = fpref.convert([[1.0, 2.0]], "e4m3")
    B = fpref.convert([[1.0], [3.0]], "e4m3")
    assert np.isnan(fpref.bound(A, B, model="exact")).all()
    assert np.isnan(fpref.bound(A, B, model="kahan")).all()
    nan = fpref.convert([[float("nan"), 1.0]], "e4m3")
    assert np.isnan(fpref.bound(nan, B, model="h100")).all()


def test_bound_with_c_matches_gemm_shape():
    A = fpref.convert(np.ones((3, 4)), "bf16")
    B = fpref.convert(np.ones((4, 2)), "bf16")
    C = fpref.convert(np.full((3, 2), 0.5), "f32")
    assert fpref.bound(A, B, C, model="a100", in_format="bf16").shape == (3, 2)


def test_bound_bad_arguments():
    A = fpref.convert([[1.0, 2.0]], "e4m3")
    B = fpref.convert([[1.0], [3.0]], "e4m3")
    with pytest.raises(ValueError, match="no tensor-core model 'h999'"):  # h200 is a chip of the h100 preset
        fpref.bound(A, B, model="h999")
    with pytest.raises(ValueError, match="do not multiply"):
        fpref.bound(A, A)
    with pytest.raises(ValueError, match="promote"):
        fpref.bound(A, B, model="h100", promote=0)
    with pytest.raises(ValueError, match="unknown|float9"):
        fpref.bound(A, B, in_format="float9")


def test_bound_block_scaled_matches_cli(cli_json, tmp_path):
    """fpref.bound with block scales against `fpref gemm --scale-a
    --scale-b`: one element whose scaled exact value is a power of two."""
    a = [1.0, 2.0 ** -7, -2.0 ** -7, 0.5] * 8 + [3.0, -1.0, 0.125, -0.125] * 8
    b = [1.0, 1.0, 1.0, 2.0] * 8 + [1.0, 2.0, 1.0, 1.0] * 8
    A = fpref.convert([a], "e4m3")
    B = fpref.convert(np.array([b]).T, "e4m3")
    sa, sb = np.array([[0.5, 2.0]]), np.array([[2.0], [1.0]])
    kw = dict(model="tcgen05-mxf8f6f4", scale_a=sa, scale_b=sb)
    exact = 16.0 * 0.5 * 2.0 + 8.0 * 2.0 * 1.0
    assert exact == 32.0 and fpref.decode(fpref.gemm(A, B, **kw), "f32")[0, 0] == 32.0
    for name, x in (("a", A), ("b", B), ("sa", fpref.convert(sa, "e8m0")), ("sb", fpref.convert(sb, "e8m0"))):
        np.save(tmp_path / f"{name}.npy", x)
    got = fpref.bound(A, B, **kw)
    r = cli_json(["gemm", "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"), "--model",
                  "tcgen05-mxf8f6f4", "--in", "e4m3", "--scale-a", str(tmp_path / "sa.npy"), "--scale-b",
                  str(tmp_path / "sb.npy")])
    assert r["without_bound"] == 0 and r["above_bound"] == 0
    assert got[0, 0] / exact == r["bound_max_rel"]
