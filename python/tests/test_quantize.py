"""fpref.quantize against `fpref quantize`: the codes, scales, dequantised
values (the .npy files the command writes, byte for byte), the facts and
the report (its JSON) on the same inputs, for every scheme and its
options."""
import numpy as np
import pytest

import fpref


def _inputs():
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((3, 160)) * np.exp2(rng.integers(-12, 6, (3, 160)))).astype(np.float32)
    x[0, :5] = [0.0, -0.0, 1e-30, 448.0, -3e4]
    return x


X = _inputs()

CASES = [
    ("tensor", {}), ("tensor", {"pow2": True}), ("tensor", {"eps": "1e-3", "format": "e5m2"}),
    ("tensor", {"amax_nan": "propagate"}),
    ("delayed", {}), ("delayed", {"history": 2, "amax_algo": "most_recent", "margin": 1}),
    ("tile128", {}), ("tile128", {"recipe": "te"}), ("block128", {}), ("block128", {"recipe": "te", "pow2": False}),
    ("mxfp8", {}), ("mxfp8", {"format": "e5m2", "rule": "nv-ceil"}), ("mxfp6", {"format": "e3m2"}),
    ("mxfp6", {"element_rounding": "rna"}), ("mxfp4", {"rule": "rne"}), ("mxint8", {}),
    ("nvfp4", {}), ("nvfp4", {"two_d": True}), ("nvfp4", {"sr": True, "seed": 5}),
    ("nvfp4", {"recipe": "torchao"}), ("nvfp4", {"recipe": "modelopt"}),
    ("nvfp4", {"four_over_six": "mse"}), ("nvfp4", {"four_over_six": "abs_max", "scale_bound": 448}),
    ("nvfp4", {"four_over_six": "mae", "two_d": True}), ("nvfp4", {"rht": "te"}),
    ("nvfp4", {"rht": 0x1234, "rht_fp32": True}), ("nvfp4", {"rht": "te", "two_d": True}),
    ("nvfp4", {"four_over_six": "mse", "rht": "te"}), ("nvfp4", {"sr": True, "sr_bits": "philox=1234:5:3"}),
    ("nvfp4", {"sr": True, "sr_bits": "philox=7:0x100000000:2:3", "two_d": True, "rht": "te"}),
]


def _cli_options(kw):
    args = []
    for k, v in kw.items():
        if k == "pow2":
            args.append("--pow2" if v else "--no-pow2")
        elif k == "two_d":
            args.append("--2d")
        elif k in ("sr", "rht_fp32"):
            args.append("--" + k.replace("_", "-"))
        else:
            args += ["--" + k.replace("_", "-"), str(v)]
    return args


@pytest.mark.parametrize("scheme,kw", CASES, ids=[s + "".join(f"-{k}={v}" for k, v in kw.items()) for s, kw in CASES])
def test_quantize_matches_cli(cli_json, tmp_path, scheme, kw):
    np.save(tmp_path / "x.npy", X)
    out = {n: str(tmp_path / f"{n}.npy") for n in ("codes", "scales", "dequant", "tensor")}
    args = ["quantize", "--scheme", scheme, "--in", str(tmp_path / "x.npy"), "--codes", out["codes"], "--scales",
            out["scales"], "--dequant", out["dequant"]] + _cli_options(kw)
    if scheme == "nvfp4":
        args += ["--tensor-scale", out["tensor"]]
    r = cli_json(args)
    q = fpref.quantize(X, scheme, **kw)
    assert q.format == r["format"] and list(q.shape) == r["shape"]
    codes, scales, dequant = (np.load(out[n]) for n in ("codes", "scales", "dequant"))
    assert q.codes.dtype == codes.dtype and q.codes.shape == codes.shape and np.array_equal(q.codes, codes)
    assert q.scales.dtype == scales.dtype and q.scales.shape == scales.shape
    assert q.scales.tobytes() == scales.tobytes()
    assert q.dequant.shape == dequant.shape and q.dequant.tobytes() == dequant.tobytes()
    for name, value in q.facts.items():
        assert f"0x{int(value.view(np.uint32)):08X}" == r[name]["bits"], name
    if scheme == "nvfp4":
        assert np.load(out["tensor"]).tobytes() == np.float32(q.tensor_scale).tobytes()
    for name, value in q.settings.items():
        assert r[name] == value, name
    if scheme == "delayed":
        assert [f"0x{int(v):08X}" for v in q.step_amax.view(np.uint32)] == [s["amax"]["bits"] for s in r["steps"]]
        assert [f"0x{int(v):08X}" for v in q.step_scale_inv.view(np.uint32)] == \
            [s["scale_inv"]["bits"] for s in r["steps"]]
    assert q.report == r["report"]
    assert q.codes.flags.writeable and q.scales.flags.writeable and q.dequant.flags.writeable


@pytest.mark.parametrize("scheme,kw", CASES, ids=[s + "".join(f"-{k}={v}" for k, v in kw.items()) for s, kw in CASES])
def test_quantize_codes_only_is_no_report(cli_json, tmp_path, scheme, kw):
    """codes_only=True: the codes, scales, facts and settings of the whole
    call and of `fpref quantize --no-report`; no dequantised values, no
    report."""
    np.save(tmp_path / "x.npy", X)
    out = {n: str(tmp_path / f"{n}.npy") for n in ("codes", "scales", "tensor")}
    args = ["quantize", "--scheme", scheme, "--in", str(tmp_path / "x.npy"), "--codes", out["codes"], "--scales",
            out["scales"], "--no-report"] + _cli_options(kw)
    if scheme == "nvfp4":
        args += ["--tensor-scale", out["tensor"]]
    r = cli_json(args)
    assert r["report"] is None
    q = fpref.quantize(X, scheme, codes_only=True, **kw)
    whole = fpref.quantize(X, scheme, **kw)
    assert q.dequant is None and q.report is None
    assert q.codes.tobytes() == whole.codes.tobytes() == np.load(out["codes"]).tobytes()
    assert q.scales.tobytes() == whole.scales.tobytes() == np.load(out["scales"]).tobytes()
    assert q.facts.keys() == whole.facts.keys()
    assert all(q.facts[k].tobytes() == whole.facts[k].tobytes() for k in q.facts)
    assert q.settings == whole.settings
    if scheme == "nvfp4":
        assert np.load(out["tensor"]).tobytes() == np.float32(q.tensor_scale).tobytes()


@pytest.mark.parametrize("stream", ["philox=1234:0:0", "philox=1234:5:3", "philox=99:0:7:7"])
def test_nvfp4_philox_is_convert_te_nvfp4(cli, stream):
    """sr_bits='philox=...': element i of the tensor rounds as value i of
    convert(..., round='te-nvfp4', sr_bits=...), and of the command's
    convert --round te-nvfp4 --sr-bits.  Block 0 holds 2688 (S = 1), the
    others have amax 6 and scale fl(6 * fl(1/6)) = 1: their elements reach
    E2M1 unchanged."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-6, 6, (2, 64)).astype(np.float32)
    x[:, 15::16] = 6.0
    x[0, 0] = 2688.0
    x[1, :8] = 0.3
    q = fpref.quantize(x, "nvfp4", sr=True, sr_bits=stream)
    assert q.tensor_scale == 1.0 and (q.scales.reshape(-1)[1:] == 0x38).all()
    flat = x.reshape(-1)
    want = fpref.convert(flat, "e2m1", round="te-nvfp4", sr_bits=stream)
    assert q.codes.reshape(-1)[16:].tolist() == want[16:].tolist()
    rows = cli(["convert", "--from", "f32", "--to", "e2m1", "--round", "te-nvfp4", "--sr-bits", stream],
               [f"{v:08X}" for v in flat.view(np.uint32).tolist()])
    assert [int(r[1], 16) for r in rows][16:] == want[16:].tolist()
    assert set(q.codes[1, :8].tolist()) == {0, 1}  # 0.3, 0.6 of E2M1's subnormal place: both ways
    assert q.settings["seed"] == int(stream.split("=")[1].split(":")[0], 0)
    # fpref's own stream (32 bits of its counter generator) is another
    assert fpref.quantize(x, "nvfp4", sr=True, seed=1234).codes.tolist() != q.codes.tolist()


@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_quantize_reads_other_floats_as_the_cli(cli_json, tmp_path, dtype):
    x = X.astype(dtype)
    np.save(tmp_path / "x.npy", x)
    c, s = str(tmp_path / "c.npy"), str(tmp_path / "s.npy")
    r = cli_json(["quantize", "--scheme", "tensor", "--in", str(tmp_path / "x.npy"), "--codes", c, "--scales", s])
    q = fpref.quantize(x, "tensor")
    assert np.array_equal(q.codes, np.load(c)) and q.report == r["report"]


def test_quantize_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = X.astype(ml_dtypes.bfloat16)
    assert np.array_equal(fpref.quantize(x, "mxfp8").codes, fpref.quantize(x.astype(np.float32), "mxfp8").codes)


def test_quantize_nan_reject():
    x = X.copy()
    x[1, 3] = np.nan
    assert fpref.quantize(x, "tensor").report["nonfinite_inputs"] == 1
    with pytest.raises(ValueError, match="element 163 is NaN"):
        fpref.quantize(x, "tensor", nan="reject")


@pytest.mark.parametrize("scheme,kw,match", [
    ("tensor3", {}, "unknown scheme 'tensor3'"),
    ("mxfp8", {"pow2": True}, "pow2, eps and amax_nan belong to the FP8 schemes"),
    ("tensor", {"rule": "rne"}, "rule and element_rounding belong to the MX schemes"),
    ("mxfp8", {"two_d": True}, "two_d, sr and seed belong to scheme nvfp4"),
    ("nvfp4", {"seed": 3}, "seed seeds stochastic rounding"),
    ("tensor", {"margin": 1}, "margin, history and amax_algo belong to scheme delayed"),
    ("tensor", {"recipe": "te"}, "recipe belongs to schemes tile128, block128 and nvfp4"),
    ("nvfp4", {"recipe": "deepseek"}, "recipe must be .te., .torchao. or .modelopt. for nvfp4"),
    ("nvfp4", {"recipe": "torchao", "two_d": True}, "nvfp4 recipe torchao has no two_d or sr"),
    ("mxfp4", {"rht": "te"}, "belong to scheme nvfp4"),
    ("nvfp4", {"four_over_six": "l2"}, "four_over_six must be"),
    ("nvfp4", {"four_over_six": "mse", "recipe": "te"}, "its own recipe"),
    ("nvfp4", {"scale_bound": 448}, "scale_bound belongs to four_over_six"),
    ("nvfp4", {"four_over_six": "mse", "scale_bound": 300}, "256 or 448"),
    ("nvfp4", {"rht_fp32": True}, "rht_fp32 belongs to rht"),
    ("nvfp4", {"rht": 0x10000}, "sign mask"),
    ("nvfp4", {"rht": "x"}, "sign mask"),
    ("nvfp4", {"recipe": "modelopt", "rht": "te"}, "Hadamard"),
    ("nvfp4", {"four_over_six": "mse", "sr": True}, "stochastic"),
    ("nvfp4", {"sr_bits": "philox=1"}, "needs sr=True"),
    ("nvfp4", {"sr": True, "seed": 1, "sr_bits": "philox=1"}, "two random streams"),
    ("nvfp4", {"sr": True, "sr_bits": "seed=1"}, "philox="),
    ("nvfp4", {"sr": True, "sr_bits": "philox=1:2:3:65"}, "ROUNDS"),
    ("tile128", {"recipe": "nv"}, "recipe must be 'deepseek' or 'te'"),
    ("delayed", {"eps": 1e-4}, "no power-of-two or epsilon"),
    ("tensor", {"pow2": False}, "pow2=False is the default"),
    ("delayed", {"margin": 127}, "margin must be an integer 0 to 126"),
    ("mxfp6", {"format": "e4m3"}, "takes format float6_e2m3fn or float6_e3m2fn"),
    ("mxint8", {"format": "e4m3"}, "INT8: format does not apply"),
    ("tensor", {"format": "e9m9"}, "e9m9"),
    ("mxfp8", {"rule": "floor"}, "rule must be one of"),
    ("mxfp8", {"element_rounding": "rtz"}, "element_rounding must be 'rne' or 'rna'"),
    ("tensor", {"eps": "-1"}, "eps must be a nonnegative finite number"),
    ("tensor", {"nan": "drop"}, "nan must be 'keep' or 'reject'"),
    ("tile128", {"pow2": True}, "pow2 belongs to recipe='te'"),
])
def test_quantize_bad_options(scheme, kw, match):
    with pytest.raises(ValueError, match=match):
        fpref.quantize(X, scheme, **kw)


def test_quantize_bad_inputs():
    with pytest.raises(TypeError, match="float values"):
        fpref.quantize(np.arange(4, dtype=np.uint8), "tensor")
    with pytest.raises(ValueError, match="not a float32 exactly"):
        fpref.quantize(np.float64([0.1]), "tensor")
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        fpref.quantize(np.float32([1.0, 2.0]), "delayed")
    with pytest.raises(TypeError):
        fpref.quantize(X, "tensor", bogus=1)
