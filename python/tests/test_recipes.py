"""fpref.quantize's MX recipes (recipe="ocp"|"torchao"|"modelopt"), the
rules ceil and rceil-log2, and the versioned NVFP4 recipes of issue 39:
each taken exactly as `fpref quantize` takes it (the same bytes, settings
and report, the same names refused), and the library classes M1, M2, M3,
CEIL, N1 and ModelOpt's scale floor worked by hand (the working is in
tests/quantize.sh, which asserts the same bytes of the command)."""
import subprocess

import numpy as np
import pytest

import fpref
from conftest import CLI


def _bits(words, n=32):
    """A 1 x n FP32 tensor of these patterns, the rest zeros."""
    a = np.zeros((1, n), dtype=np.uint32)
    a[0, :len(words)] = words
    return a.view(np.float32)


def _inputs():
    rng = np.random.default_rng(39)
    x = (rng.standard_normal((4, 96)) * np.exp2(rng.integers(-20, 20, (4, 96)))).astype(np.float32)
    x[0, :3] = np.uint32([0x6A600001, 0x00080000, 0x00004000]).view(np.float32)  # M3's amax; M1's subnormals
    x[1, 32] = np.inf  # M2: an inf block
    x[2, 64] = 448.0
    x[3, :32] = _bits([0x00080000, 0x00004000])[0]  # a whole M1 block
    return x


X = _inputs()
RULES = ["ocp-floor", "nv-ceil", "rne", "ceil", "rceil-log2"]

CASES = [(s, {"recipe": r, "rule": rule}) for s in ("mxfp8", "mxfp6", "mxfp4") for r in ("ocp", "torchao")
         for rule in RULES]
CASES += [("mxfp8", {"recipe": "torchao", "format": "e5m2", "rule": "ceil"}),
          ("mxfp6", {"recipe": "ocp", "format": "e3m2", "element_rounding": "rna"}),
          ("mxint8", {"rule": "rceil-log2"}), ("mxint8", {"rule": "ceil"}),
          ("mxfp8", {"recipe": "modelopt", "rule": "rceil-log2"}), ("mxfp4", {"recipe": "modelopt", "rule": "rceil-log2"}),
          ("mxfp8", {"rule": "ceil"}), ("mxfp8", {"rule": "rceil-log2"})]
CASES += [("nvfp4", {"recipe": r}) for r in ("te", "torchao", "torchao-1level", "modelopt", "torchao-02a1bc44",
                                              "modelopt-0ad6e5f0")]
# scale_layout (--scale-layout) and torch_dtype (--torch-dtype)
CASES += [("mxfp8", {"recipe": "torchao", "scale_layout": "swizzled"}), ("mxfp4", {"scale_layout": "swizzled"}),
          ("mxint8", {"scale_layout": "linear"}), ("nvfp4", {"recipe": "modelopt", "scale_layout": "swizzled"}),
          ("nvfp4", {"scale_layout": "swizzled"}), ("nvfp4", {"recipe": "torchao", "torch_dtype": "bf16"}),
          ("nvfp4", {"recipe": "modelopt", "torch_dtype": "fp32", "scale_layout": "linear"})]


def _npy_outputs(tmp_path, scheme, kw, x=None):
    np.save(tmp_path / "x.npy", X if x is None else x)
    out = {n: str(tmp_path / f"{n}.npy") for n in ("codes", "scales", "dequant", "tensor")}
    args = ["quantize", "--scheme", scheme, "--in-file", str(tmp_path / "x.npy"), "--codes", out["codes"], "--scales",
            out["scales"], "--dequant", out["dequant"]]
    for k, v in kw.items():
        if v is True:  # two_d, sr: flags
            args.append("--2d" if k == "two_d" else "--" + k.replace("_", "-"))
        else:
            args += ["--" + k.replace("_", "-"), str(v)]
    if scheme == "nvfp4":
        args += ["--tensor-scale", out["tensor"]]
    return args, out


@pytest.mark.parametrize("scheme,kw", CASES, ids=[s + "".join(f"-{v}" for v in kw.values()) for s, kw in CASES])
def test_recipe_matches_cli(cli_json, tmp_path, scheme, kw):
    args, out = _npy_outputs(tmp_path, scheme, kw)
    r = cli_json(args)
    q = fpref.quantize(X, scheme, **kw)
    assert q.codes.tobytes() == np.load(out["codes"]).tobytes()
    assert q.scales.tobytes() == np.load(out["scales"]).tobytes() and q.scales.shape == np.load(out["scales"]).shape
    assert q.dequant.tobytes() == np.load(out["dequant"]).tobytes()
    if scheme == "nvfp4":
        assert np.load(out["tensor"]).tobytes() == np.float32(q.tensor_scale).tobytes()
    assert q.settings == {k: r[k] for k in q.settings} and q.report == r["report"]
    recipe = kw.get("recipe")
    if recipe in (None, "ocp", "te"):  # the default recipe is not printed, as before the recipes
        assert "recipe" not in q.settings and "recipe" not in r
    else:
        assert q.settings["recipe"] == r["recipe"] == recipe
    if "rule" in kw:
        assert q.settings["rule"] == kw["rule"]


# (scheme, keywords, block: the x words, want: (scale byte, the first codes))
HAND = [
    # M1 {2^-130, 2^-135, 0...}: scale 00; OCP divides by 2^-127, torchao's floor rules by 2^-126
    ("mxfp8", {}, [0x00080000, 0x00004000], (0x00, [0x20, 0x02])),
    ("mxfp8", {"recipe": "torchao"}, [0x00080000, 0x00004000], (0x00, [0x18, 0x01])),
    ("mxfp8", {"recipe": "torchao", "rule": "rne"}, [0x00080000, 0x00004000], (0x00, [0x18, 0x01])),
    ("mxfp8", {"recipe": "torchao", "rule": "ceil"}, [0x00080000, 0x00004000], (0x00, [0x18, 0x01])),
    ("mxfp8", {"recipe": "torchao", "rule": "rceil-log2"}, [0x00080000, 0x00004000], (0x00, [0x00, 0x00])),
    ("mxfp8", {"recipe": "modelopt", "rule": "rceil-log2"}, [0x00080000, 0x00004000], (0x00, [0x20, 0x02])),
    # M2 {inf, 1, 0...}
    ("mxfp8", {}, [0x7F800000, 0x3F800000], (0xFF, [0x00, 0x00])),
    ("mxfp8", {"recipe": "torchao"}, [0x7F800000, 0x3F800000], (0xF7, [0x7E, 0x00])),
    ("mxfp8", {"recipe": "torchao", "rule": "rceil-log2"}, [0x7F800000, 0x3F800000], (0xFE, [0x7E, 0x00])),
    ("mxfp8", {"recipe": "torchao", "format": "e5m2"}, [0x7F800000, 0x3F800000], (0xF0, [0x7B, 0x00])),
    ("mxfp4", {"recipe": "torchao"}, [0x7F800000, 0x3F800000], (0xFD, [0x07, 0x00])),
    ("mxfp8", {"recipe": "modelopt", "rule": "rceil-log2"}, [0x7F800000, 0x3F800000], (0xFE, [0x7E, 0x00])),
    # M3 {0x6A600001, 0...}: one ulp above 448 * 2^77
    ("mxfp8", {"rule": "rceil-log2"}, [0x6A600001], (0xCC, [0x7E])),
    ("mxfp8", {"rule": "nv-ceil"}, [0x6A600001], (0xCD, [0x76])),
    ("mxfp8", {"recipe": "torchao", "rule": "rceil-log2"}, [0x6A600001], (0xCC, [0x7E])),
    ("mxfp8", {"recipe": "modelopt", "rule": "rceil-log2"}, [0x6A600001], (0xCC, [0x7E])),
    # ModelOpt's MXFP4: d = fl(6 / 6), scale 7F; the midpoints 0.75, 1.75 go toward zero, a zero is 8;
    # {inf, 1}: scale 00, codes 8
    ("mxfp4", {"recipe": "modelopt", "rule": "rceil-log2"}, [0x40C00000, 0x3F400000, 0x3FE00000, 0, 0xC0600000],
     (0x7F, [0x07, 0x01, 0x03, 0x08, 0x0D])),
    ("mxfp4", {"recipe": "modelopt", "rule": "rceil-log2"}, [0x7F800000, 0x3F800000], (0x00, [0x08, 0x08])),
    # CEIL {448, 3, -0}: ceil(log2 448) - 8 = 1; the floor gives 0
    ("mxfp8", {"rule": "ceil"}, [0x43E00000, 0x40400000, 0x80000000], (0x80, [0x76, 0x3C, 0x80])),
    ("mxfp8", {"rule": "ocp-floor"}, [0x43E00000, 0x40400000, 0x80000000], (0x7F, [0x7E, 0x44, 0x80])),
]


@pytest.mark.parametrize("scheme,kw,words,want", HAND)
def test_mx_recipes_by_hand(scheme, kw, words, want):
    q = fpref.quantize(_bits(words), scheme, **kw)
    assert (int(q.scales[0, 0]), q.codes[0, :len(want[1])].tolist()) == want


N1 = _bits([0x45698D22] + [0] * 15 + [0x42B7812D, 0x4298EBA6])
FLOOR = _bits([0x45280000] + [0] * 15 + [0x35800000, 0xB5800000])


@pytest.mark.parametrize("x,recipe,scales,codes,tensor_scale", [
    # N1: D = 0x3FB1F1A0, block 1 scale 11 (53); x17 * fl(fl(1/D) / 11) = 5.0, a tie to 4 (6);
    # 02a1bc44's x17 / fl(D * 11) = 5.0000005 -> 6 (7); 1level: fl(m / 6) -> 15 (57), T = 1
    (N1, "torchao", [0x7E, 0x53], [0x07, 0x06], 0x3FB1F1A0),
    (N1, "torchao-02a1bc44", [0x7E, 0x53], [0x07, 0x07], 0x3FB1F1A0),
    (N1, "torchao-1level", [0x7E, 0x57], [0x07, 0x07], 0x3F800000),
    # ModelOpt's floor: fl(2^-20 / 6) clamped to 2^-9 (01) by 0.47; cast to 00 by 0ad6e5f0, x / 0 saturating
    (FLOOR, "modelopt", [0x7E, 0x01], [0x00, 0x08], 0x3F800000),
    (FLOOR, "modelopt-0ad6e5f0", [0x7E, 0x00], [0x07, 0x0F], 0x3F800000),
])
def test_nvfp4_recipes_by_hand(x, recipe, scales, codes, tensor_scale):
    q = fpref.quantize(x, "nvfp4", recipe=recipe)
    assert q.scales[0].tolist() == scales and q.codes[0, 16:18].tolist() == codes
    assert int(np.float32(q.tensor_scale).view(np.uint32)) == tensor_scale
    assert q.settings["recipe"] == recipe


@pytest.mark.parametrize("scheme,kw,match", [
    ("mxfp8", {"recipe": "te"}, "'ocp', 'torchao' or 'modelopt' for the MX schemes"),
    ("mxfp4", {"recipe": "torchao-0.18"}, "'ocp', 'torchao' or 'modelopt' for the MX schemes"),
    ("mxfp8", {"rule": "rceil"}, "ocp-floor, nv-ceil, rne, ceil, rceil-log2"),
    ("nvfp4", {"recipe": "torchao-0.18"}, "'torchao-1level', 'torchao-02a1bc44', 'modelopt-0ad6e5f0'"),
    ("nvfp4", {"recipe": "ocp"}, "for nvfp4"),
    ("nvfp4", {"recipe": "fouroversix"}, "for nvfp4"),
    ("mxfp8", {"recipe": "modelopt", "format": "e5m2", "rule": "rceil-log2"}, "elements e4m3, e2m1; rules rceil-log2"),
    ("mxfp6", {"recipe": "modelopt", "rule": "rceil-log2"}, "elements e4m3, e2m1; rules rceil-log2"),
    ("mxint8", {"recipe": "modelopt"}, "elements e4m3, e2m1; rules rceil-log2"),
    ("mxfp8", {"recipe": "modelopt"}, "elements e4m3, e2m1; rules rceil-log2"),
    ("mxint8", {"recipe": "torchao"}, "elements e4m3, e5m2, e2m3, e3m2, e2m1; rules"),
    ("mxfp8", {"recipe": "torchao", "element_rounding": "rna"}, "element rounding rne"),
    ("nvfp4", {"recipe": "torchao-1level", "two_d": True}, "no two_d or sr"),
    ("nvfp4", {"recipe": "modelopt-0ad6e5f0", "sr": True}, "no two_d or sr"),
    ("nvfp4", {"recipe": "torchao-02a1bc44", "rht": "te"}, "Hadamard"),
    ("tensor", {"recipe": "torchao"}, "recipe belongs to"),
    ("tile128", {"recipe": "ocp"}, "'deepseek' or 'te'"),
    ("tile128", {"recipe": "torchao-1level"}, "'deepseek' or 'te'"),
    ("mxfp8", {"scale_layout": "blocked"}, "scale_layout must be"),
    ("tensor", {"scale_layout": "swizzled"}, "scale_layout belongs"),
    ("nvfp4", {"scale_layout": "swizzled", "two_d": True}, "not with two_d"),
    ("mxfp8", {"torch_dtype": "bf16"}, "torch_dtype belongs to scheme nvfp4"),
    ("nvfp4", {"torch_dtype": "bf16"}, "torch_dtype belongs to recipe"),
    ("nvfp4", {"recipe": "torchao", "torch_dtype": "fp16"}, "torch_dtype must be"),
    ("nvfp4", {"recipe": "te", "torch_dtype": "bf16"}, "torch's NaN"),
])
def test_recipe_refusals_as_the_cli(cli, tmp_path, scheme, kw, match):
    """What the command refuses (exit 2), the binding refuses too."""
    with pytest.raises(ValueError, match=match):
        fpref.quantize(X, scheme, **kw)
    args, _ = _npy_outputs(tmp_path, scheme, kw)
    r = subprocess.run([CLI] + args, capture_output=True, text=True)
    assert r.returncode == 2, r.stderr


def test_recipe_names_read_as_the_cli_reads_them(cli, cli_json, tmp_path):
    """The library reads the names for both: MX recipes without regard to
    case, NVFP4's exactly."""
    args, _ = _npy_outputs(tmp_path, "mxfp8", {"recipe": "TorchAO"})
    assert fpref.quantize(X, "mxfp8", recipe="TorchAO").settings["recipe"] == cli_json(args)["recipe"] == "torchao"
    with pytest.raises(ValueError, match="for nvfp4"):
        fpref.quantize(X, "nvfp4", recipe="TorchAO")
    args, _ = _npy_outputs(tmp_path, "nvfp4", {"recipe": "TorchAO"})
    assert subprocess.run([CLI] + args, capture_output=True, text=True).returncode == 2
    with pytest.raises(ValueError, match="recipe is a name"):
        fpref.quantize(X, "mxfp8", recipe=3)


def test_torch_dtype_as_the_cli(cli, tmp_path):
    """torch_dtype reaches the library as --torch-dtype does: on 4 x 96 with a
    NaN in block 0, ModelOpt's FP32 block amax there is AVX-512's all-ones NaN
    (scale FF), its BF16 one 0x7FC0 (7F); docs/scaling-mx.md, "NaN patterns"."""
    x = X.copy()
    x[0, 3] = np.nan
    for dtype, want in (("fp32", 0xFF), ("bf16", 0x7F)):
        args, out = _npy_outputs(tmp_path, "nvfp4", {"recipe": "modelopt", "torch_dtype": dtype}, x)
        assert subprocess.run([CLI] + args, capture_output=True, text=True).returncode == 0
        q = fpref.quantize(x, "nvfp4", recipe="modelopt", torch_dtype=dtype)
        assert q.scales[0, 0] == want
        for got, name in ((q.codes, "codes"), (q.scales, "scales"), (q.dequant, "dequant")):
            assert got.tobytes() == np.load(out[name]).tobytes(), (dtype, name)


def test_scale_layout_by_hand():
    """Worked as tests/quantize.sh works it: 34 rows of 32, row r = {2^r, 0...}:
    E4M3 ocp-floor scales 0x77 + r, padded to 128 x 4; row r at byte 16 (r mod
    32) + 4 (r div 32), the rest zero."""
    x = np.zeros((34, 32), np.float32)
    x[:, 0] = np.exp2(np.arange(34, dtype=np.float32))
    q = fpref.quantize(x, "mxfp8", scale_layout="swizzled")
    assert q.scales.shape == (128, 4)
    flat = q.scales.reshape(-1)
    want = np.zeros(512, np.uint8)
    for r in range(34):
        want[16 * (r % 32) + 4 * (r // 32)] = 0x77 + r
    assert flat.tobytes() == want.tobytes()
    linear = fpref.quantize(x, "mxfp8")
    assert linear.codes.tobytes() == q.codes.tobytes() and linear.report == q.report


def test_half_nan_payload_as_the_cli(cli, tmp_path):
    """A float16 NaN widens with its bits, as torch's .float() and the command
    widen it: 0xFF01 is 0xFFE02000, whose bits torchao's FP4 cast rounds to
    (130 << 1) = 0x104, kept 4, with the sign 0C (the canonical 0xFFC00000
    would give 0B); 1.0 and -1.0 under the scale FF give 00 and 08."""
    x = np.zeros((1, 32), np.uint16)
    x[0, :3] = [0xFF01, 0x3C00, 0xBC00]
    x = x.view(np.float16)
    q = fpref.quantize(x, "mxfp4", recipe="torchao")
    assert q.scales[0, 0] == 0xFF and q.codes[0, :3].tolist() == [0x0C, 0x00, 0x08]
    args, out = _npy_outputs(tmp_path, "mxfp4", {"recipe": "torchao"}, x)
    assert subprocess.run([CLI] + args, capture_output=True, text=True).returncode == 0
    assert np.load(out["codes"]).tobytes() == q.codes.tobytes()
