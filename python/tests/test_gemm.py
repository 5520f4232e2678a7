import numpy as np
import pytest

import fpref

PRESETS = sorted({(m["gpu"], name) for m in fpref.models() if m["gpu"] != "generic" and not m["fma_chain"]
                  for name in (m["inputs"].split(",") if m["inputs"] else ["float16"])})
FMA_PRESETS = [(m["gpu"], m["inputs"]) for m in fpref.models() if m["fma_chain"]]


def _random(fmt, shape, seed):
    rng = np.random.default_rng(seed)
    return fpref.convert(rng.standard_normal(shape) * 4, fmt, sat=True)


def _cli_dot(cli, model_args, inp, out, a_rows, b_cols, c):
    lines = []
    for i in range(a_rows.shape[0]):
        for j in range(b_cols.shape[1]):
            lines.append(" ".join(fpref.hex_codes(a_rows[i], inp) + fpref.hex_codes(b_cols[:, j], inp)
                                  + fpref.hex_codes([c[i, j]], out)))
    rows = cli(["dot", "--in", inp, "--out", out] + model_args, lines)
    return np.array([int(r[-1], 16) for r in rows]).reshape(a_rows.shape[0], b_cols.shape[1])


@pytest.mark.parametrize("gpu, inp", PRESETS)
@pytest.mark.parametrize("out", ["f32", "f16"])
def test_every_preset_matches_cli_dot(cli, gpu, inp, out):
    model = next(m for m in fpref.models() if m["gpu"] == gpu and inp in m["inputs"].split(","))
    if out == "f16" and inp not in model["fp16_inputs"].split(","):
        with pytest.raises(ValueError, match="output"):
            fpref.gemm(np.zeros((1, 1), np.uint64), np.zeros((1, 1), np.uint64), model=gpu, in_format=inp, out_format=out)
        return
    A, B = _random(inp, (3, 40), 1), _random(inp, (40, 2), 2)
    C = fpref.convert(np.random.default_rng(3).standard_normal((3, 2)), out)
    D = fpref.gemm(A, B, C, model=gpu, in_format=inp, out_format=out)
    assert D.dtype == (np.uint32 if out == "f32" else np.uint16)
    assert D.tolist() == _cli_dot(cli, ["--model", gpu], inp, out, A, B, C).tolist()
    fpref.testing.assert_matches_model(D, A, B, C, model=gpu, in_format=inp, out_format=out)


@pytest.mark.parametrize("block, frac, floor, final", [(4, 24, None, "rtz"), (16, 25, -130, "rne"), (1, 3, None, "rtz")])
def test_generic_model_matches_cli(cli, block, frac, floor, final):
    A, B = _random("bf16", (2, 33), 4), _random("bf16", (33, 3), 5)
    C = np.zeros((2, 3), np.uint32)
    D = fpref.gemm(A, B, model="generic", in_format="bf16", block=block, frac=frac, floor=floor, final=final)
    args = ["--model", "generic", "--block", str(block), "--frac", str(frac), "--final", final]
    if floor is not None:
        args += ["--floor", str(floor)]
    assert D.tolist() == _cli_dot(cli, args, "bfloat16", "float32", A, B, C).tolist()


def test_promote_matches_cli(cli):
    A, B = _random("e4m3", (2, 256), 6), _random("e4m3", (256, 2), 7)
    D = fpref.gemm(A, B, model="h100-wgmma", promote=128)
    C = np.zeros((2, 2), np.uint32)
    assert D.tolist() == _cli_dot(cli, ["--model", "h100-wgmma", "--promote", "128"], "e4m3", "f32", A, B, C).tolist()


@pytest.mark.parametrize("kw", [dict(model="h100"), dict(model="h100-wgmma", promote=32), dict(model="pairwise"),
                                dict(model="exact", out_format="bf16"), dict(model="generic", block=8, frac=20),
                                dict(model="h100", out_format="f16"), dict(model="blocked", block=4, round="rtz")])
def test_dot_rows_are_gemm_elements(kw):
    a, b = _random("e4m3", (5, 70), 13), _random("e4m3", (5, 70), 14)
    out = kw.get("out_format", "f32")
    c = fpref.convert(np.random.default_rng(15).standard_normal(5), out)
    d = fpref.dot(a, b, c, **kw)
    for i in range(5):
        assert d[i] == fpref.gemm(a[i][None, :], b[i][:, None], c[i:i + 1][:, None], **kw)[0, 0]
    assert fpref.dot(np.zeros((2, 0), np.uint8), np.zeros((2, 0), np.uint8), **kw).shape == (2,)


def test_dot_is_gemm_per_row():
    a, b = _random("e4m3", (4, 3, 20), 8), _random("e4m3", (4, 3, 20), 9)
    d = fpref.dot(a, b)
    assert d.shape == (4, 3) and d.dtype == np.uint32
    for i in range(4):
        for j in range(3):
            assert d[i, j] == fpref.gemm(a[i, j][None, :], b[i, j][:, None])[0, 0]
    c = fpref.convert(np.ones((4, 3)), "f32")
    assert fpref.dot(a, b, c).shape == (4, 3)


def test_gemm_takes_float_and_ml_dtypes_arrays():
    A = np.array([[1.0, 2.0]], np.float16)
    B = np.array([[3.0], [4.0]], np.float16)
    assert fpref.decode(fpref.gemm(A, B, model="v100", in_format="f16"), "f32").tolist() == [[11.0]]
    assert fpref.gemm(A, B, model="v100", in_format="f16", as_ml_dtypes=True).dtype == np.float32


@pytest.mark.parametrize("kw, words", [
    (dict(model="tpu"), "no tensor-core model"),
    (dict(model="a100"), "a100 model takes no float8_e4m3fn x float8_e4m3fn pair.*float16 x float16"),  # no FP8
    (dict(model="generic"), "block"),
    (dict(model="h100", frac=3), "generic"),
    (dict(model="h100", block=8), "part of"),
    (dict(model="h100", promote=4, out_format="f16"), "output|float32"),
    (dict(model="generic", block=4, frac=24, in_format="f32"), "10 fraction bits"),
    (dict(model="h100", promote=0), "promote"),
    (dict(model="pairwise", promote=4), "tensor-core"),
    (dict(model="h100", round="rtz"), "plain orders"),
    (dict(model="exact", out_format="custom:e11m60"), "fit|fraction bits"),
])
def test_gemm_bad_arguments(kw, words):
    A = np.zeros((2, 4), np.uint8)
    with pytest.raises(ValueError, match=words):
        fpref.gemm(A, np.zeros((4, 2), np.uint8), **kw)


def test_gemm_shape_errors():
    with pytest.raises(ValueError, match="multiply"):
        fpref.gemm(np.zeros((2, 4), np.uint8), np.zeros((3, 2), np.uint8))
    with pytest.raises(ValueError, match="C has shape"):
        fpref.gemm(np.zeros((2, 4), np.uint8), np.zeros((4, 2), np.uint8), np.zeros((2, 3), np.uint32))
    with pytest.raises(ValueError, match="dimension"):
        fpref.gemm(np.zeros(4, np.uint8), np.zeros((4, 2), np.uint8))
    with pytest.raises(ValueError, match="one shape"):
        fpref.dot(np.zeros(4, np.uint8), np.zeros(3, np.uint8))


@pytest.mark.parametrize("model, extra", [("recursive", {}), ("pairwise", {}), ("blocked", dict(block=8)),
                                          ("fma-chain", {}), ("kahan", {}), ("exact", {}),
                                          ("recursive", dict(round="rtz"))])
@pytest.mark.parametrize("out", ["f32", "bf16", "f16"])
def test_plain_orders_match_cli_dot(cli, model, extra, out):
    A, B = _random("e4m3", (3, 37), 10), _random("e4m3", (37, 2), 11)
    C = fpref.convert(np.random.default_rng(12).standard_normal((3, 2)), out)
    D = fpref.gemm(A, B, C, model=model, out_format=out, **extra)
    args = ["--model", model]
    if "block" in extra:
        args += ["--block", str(extra["block"])]
    if "round" in extra:
        args += ["--round", extra["round"]]
    assert D.tolist() == _cli_dot(cli, args, "e4m3", out, A, B, C).tolist()
    fpref.testing.assert_matches_model(D, A, B, C, model=model, out_format=out, **extra)


def test_dot_block_scales_by_hand():
    # mfma-cdna4-scale, e4m3 1 * 1 with scales 2^5 and 1, C = -2^-20: the
    # scaled sum 32 sets the alignment and C is floored to 24 bits below
    # 2^5: 32 - 2^-19 (41FFFFFF), where unit scales give 1 - 2^-20
    # (3F7FFFF0), as tests/cli.sh works it for fpref dot --scale-a
    one = fpref.convert([1.0], "e4m3")
    c = np.array(0xB5800000, np.uint32)
    kw = dict(model="mfma-cdna4-scale", in_format="e4m3")
    assert int(fpref.dot(one, one, c, scale_a=32.0, **kw)) == 0x41FFFFFF
    assert int(fpref.dot(one, one, c, scale_a=np.array([132], np.uint8), **kw)) == 0x41FFFFFF
    assert int(fpref.dot(one, one, c, **kw)) == 0x3F7FFFF0
    assert int(fpref.dot(one, one, c, scale_a=1.0, **kw)) == 0x3F7FFFF0
    # tcgen05-mxf4nvf4, e2m1 1 * 1 with UE4M3 scales 1.5 and 1.5: 2.25
    e = fpref.convert([1.0], "e2m1")
    assert int(fpref.dot(e, e, model="tcgen05-mxf4nvf4", in_format="e2m1", scale_a=1.5, scale_b=1.5, scale_every=16,
                         scale_format="e4m3")) == 0x40100000


def test_dot_block_scales_errors():
    one = fpref.convert([1.0], "e4m3")
    with pytest.raises(ValueError, match="exactly"):
        fpref.dot(one, one, model="mfma-cdna4-scale", scale_a=3.0)
    with pytest.raises(ValueError, match="tensor-core"):
        fpref.dot(one, one, model="recursive", scale_a=2.0)
    with pytest.raises(ValueError, match="multiple of 16"):
        fpref.dot(one, one, model="mfma-cdna4-scale", scale_a=2.0, scale_every=24)
    with pytest.raises(ValueError, match="shape"):
        fpref.dot(one, one, model="mfma-cdna4-scale", scale_a=np.array([127, 127], np.uint8))


@pytest.mark.parametrize("model, inp", [("mfma-cdna4-scale", "e4m3"), ("tcgen05-mxf8f6f4", "e5m2"),
                                        ("mfma-cdna4-scale", "e2m1")])
def test_dot_block_scales_match_cli(cli, model, inp):
    a, b = _random(inp, (4, 70), 21), _random(inp, (4, 70), 22)
    c = fpref.convert(np.random.default_rng(23).standard_normal(4), "f32")
    sa, sb = np.array([120, 131, 127], np.uint8), np.array([127, 0x7F - 9, 140], np.uint8)
    d = fpref.dot(a, b, c, model=model, in_format=inp, scale_a=sa, scale_b=sb)
    lines = [" ".join(fpref.hex_codes(a[i], inp) + fpref.hex_codes(b[i], inp) + fpref.hex_codes([c[i]], "f32"))
             for i in range(4)]
    rows = cli(["dot", "--model", model, "--in", inp, "--scale-a", ",".join(f"0x{x:02X}" for x in sa),
                "--scale-b", ",".join(f"0x{x:02X}" for x in sb)], lines)
    assert d.tolist() == [int(r[-1], 16) for r in rows]


def _random_scales(fmt, shape, seed):
    """Scale codes around 1: E8M0 2^-8..2^8, UE4M3 2^-3..2^3 with any mantissa."""
    rng = np.random.default_rng(seed)
    if fmt == "e8m0":
        return rng.integers(127 - 8, 127 + 9, shape).astype(np.uint8)
    return (rng.integers(7 - 3, 7 + 4, shape) << 3 | rng.integers(0, 8, shape)).astype(np.uint8)


BLOCK_SCALED = [("tcgen05-mxf8f6f4", "e4m3", "e8m0", 32), ("tcgen05-mxf8f6f4", "e2m1", "e8m0", 64),
                ("tcgen05-mxf4nvf4", "e2m1", "e4m3", 16), ("tcgen05-mxf4nvf4", "e2m1", "e8m0", 32),
                ("mfma-cdna4-scale", "e5m2", "e8m0", 32), ("mfma-cdna4-scale", "e3m2", "e8m0", 16)]


@pytest.mark.parametrize("model, inp, sf, every", BLOCK_SCALED)
def test_gemm_block_scales_match_dot(model, inp, sf, every):
    K = 3 * every
    A, B = _random(inp, (3, K), 31), _random(inp, (K, 4), 32)
    C = fpref.convert(np.random.default_rng(33).standard_normal((3, 4)), "f32")
    sa, sb = _random_scales(sf, (3, 3), 34), _random_scales(sf, (3, 4), 35)
    D = fpref.gemm(A, B, C, model=model, in_format=inp, scale_a=sa, scale_b=sb, scale_every=every, scale_format=sf)
    for i in range(3):
        for j in range(4):
            d = fpref.dot(A[i], B[:, j], C[i, j], model=model, in_format=inp, scale_a=sa[i], scale_b=sb[:, j],
                          scale_every=every, scale_format=sf)
            assert int(D[i, j]) == int(d), (i, j)
    # unit scales are the unscaled product; scales change it
    ones = fpref.gemm(A, B, C, model=model, in_format=inp, scale_a=1.0, scale_every=every, scale_format=sf)
    assert ones.tolist() == fpref.gemm(A, B, C, model=model, in_format=inp).tolist()
    assert D.tolist() != ones.tolist()


@pytest.mark.parametrize("model, inp, sf, every", BLOCK_SCALED[:3])
def test_gemm_block_scales_match_cli(cli, tmp_path, model, inp, sf, every):
    K = 2 * every
    A, B = _random(inp, (5, K), 41), _random(inp, (K, 18), 42)
    sa, sb = _random_scales(sf, (5, 2), 43), _random_scales(sf, (2, 18), 44)
    for name, x in (("A", A), ("B", B), ("SA", sa), ("SB", sb)):
        np.save(tmp_path / f"{name}.npy", x)
    cli(["gemm", "--model", model, "--in", inp, "--a", str(tmp_path / "A.npy"), "--b", str(tmp_path / "B.npy"),
         "--scale-a", str(tmp_path / "SA.npy"), "--scale-b", str(tmp_path / "SB.npy"), "--scale-every", str(every),
         "--scale-format", sf, "--threads", "3", "--save", str(tmp_path / "D.npy")])
    want = np.load(tmp_path / "D.npy").view(np.uint32)
    D = fpref.gemm(A, B, model=model, in_format=inp, scale_a=sa, scale_b=sb, scale_every=every, scale_format=sf)
    assert D.tolist() == want.tolist()


def test_gemm_block_scales_by_hand():
    # tcgen05-mxf8f6f4 (25 fraction bits, rtz): 1 * 1 and C = 2^-30; unit
    # scales: C is 30 places below the product's 1 and truncated away, D = 1;
    # scale_a 2^-10: C is 20 places below and kept, D = 2^-10 + 2^-30
    # (3A800008), as tests/cli.sh works it for fpref gemm --scale-a
    A = fpref.convert([[1.0] + [0.0] * 31], "e4m3")
    B = fpref.convert([[1.0]] + [[0.0]] * 31, "e4m3")
    C = np.array([[0x30800000]], np.uint32)
    kw = dict(model="tcgen05-mxf8f6f4", in_format="e4m3")
    assert fpref.gemm(A, B, C, **kw).tolist() == [[0x3F800000]]
    assert fpref.gemm(A, B, C, scale_a=[[2.0**-10]], **kw).tolist() == [[0x3A800008]]
    assert fpref.gemm(A, B, C, scale_b=np.array([[117]], np.uint8), **kw).tolist() == [[0x3A800008]]


def test_gemm_block_scales_errors():
    A, B = fpref.convert([[1.0] * 32], "e4m3"), fpref.convert([[1.0]] * 32, "e4m3")
    with pytest.raises(ValueError, match="shape"):
        fpref.gemm(A, B, model="tcgen05-mxf8f6f4", scale_b=np.full((1, 2), 127, np.uint8))
    with pytest.raises(ValueError, match="exactly"):
        fpref.gemm(A, B, model="tcgen05-mxf8f6f4", scale_a=3.0)
    with pytest.raises(ValueError, match="no tensor-core model"):
        fpref.gemm(A, B, model="recursive", scale_a=2.0)
    with pytest.raises(ValueError, match="multiple of 32"):
        fpref.gemm(A, B, model="tcgen05-mxf8f6f4", scale_a=2.0, scale_every=16)
    with pytest.raises(ValueError, match="promote"):
        fpref.gemm(A, B, model="tcgen05-mxf8f6f4", scale_a=2.0, promote=32)
    with pytest.raises(ValueError, match="pattern"):
        fpref.gemm(A, B, model="tcgen05-mxf8f6f4", scale_a=np.array([[0x100]], np.uint16))


# A and B of two formats (issue 36).  Hand-worked: 0x3C is 1.0 in E5M2 and
# 1.5 in E4M3; 0x44 is 3.0 in E4M3 and 4.0 in E5M2.  A E5M2 x B E4M3 is
# 3.0, where both in E4M3 give 4.5, both in E5M2 4.0, and E4M3 x E5M2 6.0.
@pytest.mark.parametrize("inp, want", [(("e5m2", "e4m3"), 3.0), ("e4m3", 4.5), ("e5m2", 4.0),
                                       (("e4m3", "e5m2"), 6.0), (["float8_e5m2", "float8_e4m3fn"], 3.0)])
def test_mixed_pair_by_hand(inp, want):
    A, B = np.array([[0x3C]], np.uint8), np.array([[0x44]], np.uint8)
    assert fpref.decode(fpref.gemm(A, B, model="h100-wgmma", in_format=inp), "f32").tolist() == [[want]]
    assert fpref.decode(fpref.dot(A[0], B[:, 0], model="h100-wgmma", in_format=inp), "f32").tolist() == want


@pytest.mark.parametrize("model", ["exact", "recursive", "h100", "tcgen05"])
def test_mixed_pair_matches_cli(cli, model):
    A, B = _random("e5m2", (3, 64), 1), _random("e4m3", (64, 2), 2)
    D = fpref.gemm(A, B, model=model, in_format=("e5m2", "e4m3"))
    lines = [" ".join(fpref.hex_codes(A[i], "e5m2") + fpref.hex_codes(B[:, j], "e4m3") + ["0"])
             for i in range(3) for j in range(2)]
    rows = cli(["dot", "--in-a", "e5m2", "--in-b", "e4m3", "--model", model], lines)
    assert D.reshape(-1).tolist() == [int(r[-1], 16) for r in rows]
    fpref.testing.assert_matches_model(D, A, B, model=model, in_format=("e5m2", "e4m3"))
    if model != "exact":
        assert np.all(np.isfinite(fpref.bound(A, B, model=model, in_format=("e5m2", "e4m3"))))


def test_mixed_pair_the_preset_does_not_take():
    A, B = np.zeros((1, 1), np.uint16), np.zeros((1, 1), np.uint8)
    with pytest.raises(ValueError, match=r"float16 x float8_e4m3fn.*float8_e5m2 x float8_e4m3fn"):
        fpref.gemm(A, B, model="h100-wgmma", in_format=("f16", "e4m3"))
    with pytest.raises(TypeError, match="pair"):
        fpref.gemm(A, B, model="h100", in_format=("e4m3",))


def test_ml_dtypes_of_two_formats():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    A = np.array([[1.0]], ml_dtypes.float8_e5m2)
    B = np.array([[3.0]], ml_dtypes.float8_e4m3fn)
    D = fpref.gemm(A, B, model="h100-wgmma", in_format=("e5m2", "e4m3"))
    assert fpref.decode(D, "f32").tolist() == [[3.0]]
    # an E5M2 B where in_format says E4M3: the error names in_format, the caller's argument, never from_
    Bwrong = np.array([[4.0]], ml_dtypes.float8_e5m2)
    for call in (lambda: fpref.gemm(A.astype(ml_dtypes.float8_e4m3fn), Bwrong, model="h100", in_format="e4m3"),
                 lambda: fpref.gemm(A, Bwrong, model="h100", in_format=("e5m2", "e4m3")),
                 lambda: fpref.dot(A[0], Bwrong[:, 0], model="h100", in_format=("e5m2", "e4m3")),
                 lambda: fpref.testing.assert_matches_model(D, A, Bwrong, model="h100", in_format=("e5m2", "e4m3"))):
        with pytest.raises(ValueError, match=r"^B is float8_e5m2, but in_format(\[1\])?='e4m3' \(float8_e4m3fn\)$|"
                                             r"^b is float8_e5m2, but in_format\[1\]='e4m3'") as e:
            call()
        assert "from_" not in str(e.value)


def test_shape_chains_the_instructions_k(cli):
    """shape= (issue 37, D2), worked by hand as check_tc_model does: products
    1, -1 and 2^-30 (at k = 8) in one block of 16 lose 2^-30 (d = +0); in
    two blocks of 8 (h100-mma m16n8k8) the second keeps it, 30800000; the
    command's --shape gives the same."""
    a = np.zeros((1, 16), np.uint16)
    b = np.zeros((16, 1), np.uint16)
    a[0, :2], b[:2, 0] = 0x3C00, [0x3C00, 0xBC00]
    a[0, 8] = b[8, 0] = 0x0200
    assert fpref.gemm(a, b, model="h100-mma", in_format="f16").tolist() == [[0]]
    assert fpref.gemm(a, b, model="h100-mma", in_format="f16", shape="m16n8k8").tolist() == [[0x30800000]]
    assert fpref.gemm(a, b, model="h100-mma", in_format="f16", shape="m16n8k16").tolist() == [[0]]
    assert fpref.dot(a[0], b[:, 0], model="h100-mma", in_format="f16", shape="m16n8k8").tolist() == 0x30800000
    # the bound follows the blocks (two roundings of a chain, not one), and holds on both
    two, one = (fpref.bound(a, b, model="h100-mma", in_format="f16", shape=s)[0, 0] for s in ("m16n8k8", None))
    assert two != one and 2.0 ** -30 <= one and 0 <= two
    line = " ".join(f"{v:X}" for v in list(a[0]) + list(b[:, 0])) + " 0"
    rows = cli(["dot", "--model", "h100-mma", "--in", "f16", "--shape", "m16n8k8"], [line])
    assert int(rows[0][-1], 16) == 0x30800000


@pytest.mark.parametrize("kw, words", [
    (dict(model="h100-mma", in_format="f16", shape="m16n8k4"), "m16n8k8,m16n8k16"),
    (dict(model="h100-mma", in_format="e4m3", shape="m16n8k16"), "lowers"),
    (dict(model="generic", block=8, frac=25, in_format="f16", shape="m16n8k8"), "preset"),
    (dict(model="h100-mma", in_format="f16", shape=8), "instruction shape"),
])
def test_shape_refused(kw, words):
    A = fpref.convert([[1.0] * 16], kw["in_format"])
    B = fpref.convert([[1.0]] * 16, kw["in_format"])
    with pytest.raises((ValueError, TypeError), match=words):
        fpref.gemm(A, B, **kw)


def test_traits_state_a_generic_models_conventions(cli):
    """traits= (the command's --traits): issue 37's Z1 case, v100 f16 -> f16,
    is -0 (8000) under IEEE's sign and +0 with zero-positive; with
    nan-ones too, generic (4, 23, floor -19, rne) is v100's FP16 output."""
    A = np.array([[0x8800, 0x8001, 0, 0], [0x7C00, 0xFC00, 0, 0]], np.uint16)
    B = np.array([[0x3C00, 0x3400, 0, 0], [0x3C00, 0x3C00, 0, 0]], np.uint16).T
    C = np.array([[0x0800, 0], [0, 0]], np.uint16)
    kw = dict(model="generic", block=4, frac=23, floor=-19, final="rne", in_format="f16", out_format="f16")
    plain = fpref.gemm(A, B, C, **kw)
    both = fpref.gemm(A, B, C, traits=["zero-positive", "nan-ones"], **kw)
    assert plain[0, 0] == 0x8000 and both[0, 0] == 0x0000
    assert plain[1, 1] == 0x7E00 and both[1, 1] == 0x7FFF
    assert np.array_equal(both, fpref.gemm(A, B, C, model="v100", in_format="f16", out_format="f16"))
    line = "8800 8001 0 0 3C00 3400 0 0 0800"
    rows = cli(["dot", "--model", "generic", "--block", "4", "--frac", "23", "--in", "f16", "--out", "f16", "--traits",
                "zero-positive"], [line])
    assert rows[0][-1] == "0000"
    with pytest.raises(ValueError, match="unknown trait 'bogus'"):
        fpref.gemm(A, B, C, traits=["bogus"], **kw)
    with pytest.raises(ValueError, match="traits describe model='generic'"):
        fpref.gemm(A, B, model="v100", in_format="f16", traits=["nan-ones"])
    with pytest.raises(TypeError, match="list of names"):
        fpref.gemm(A, B, C, traits="nan-ones", **kw)


VERIFY_CASES = [
    (dict(model="h100"), "e4m3", "exact", None),
    (dict(model="h100-wgmma", in_format=("e5m2", "e4m3")), ("e5m2", "e4m3"), "h100-wgmma", "3ulp"),
    (dict(model="a100", in_format="bf16"), "bf16", "recursive", "1e-3rel"),
    (dict(model="tcgen05-mxf8f6f4", scale_a=[[2.0, 0.5]] * 6, scale_b=[[1.0] * 5, [4.0] * 5]), "e4m3",
     "tcgen05-mxf8f6f4", None),
]


@pytest.mark.parametrize("kw, inp, kernel, tol", VERIFY_CASES, ids=[c[0]["model"] for c in VERIFY_CASES])
def test_verify_gemm_matches_cli(cli_json, tmp_path, kw, inp, kernel, tol):
    """fpref.verify_gemm against `fpref verify-gemm --json` on the same
    arrays: every field of the verdict, the worst elements included."""
    rng = np.random.default_rng(12)
    ia, ib = (inp, inp) if isinstance(inp, str) else inp
    A = fpref.convert(rng.standard_normal((6, 64)), ia)
    B = fpref.convert(rng.standard_normal((64, 5)), ib)
    if kernel == kw["model"]:  # the model's own D, one element off by 3 ulps
        D = fpref.gemm(A, B, **kw)
        D[1, 2] ^= 3
    else:
        D = fpref.gemm(A, B, model=kernel, in_format=kw.get("in_format", inp))
    got = fpref.verify_gemm(D, A, B, tolerance=tol, show=4, **kw)
    for name, x in (("a", A), ("b", B), ("d", D)):
        np.save(tmp_path / f"{name}.npy", x)
    args = ["verify-gemm", "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"), "--d",
            str(tmp_path / "d.npy"), "--model", kw["model"], "--out", "f32", "--show", "4"]
    args += ["--in", ia] if ia == ib else ["--in-a", ia, "--in-b", ib]
    if tol:
        args += ["--tolerance", tol]
    if "scale_a" in kw:
        np.save(tmp_path / "sa.npy", fpref.convert(np.array(kw["scale_a"]), "e8m0"))
        np.save(tmp_path / "sb.npy", fpref.convert(np.array(kw["scale_b"]), "e8m0"))
        args += ["--scale-a", str(tmp_path / "sa.npy"), "--scale-b", str(tmp_path / "sb.npy")]
    want = cli_json(args, check=False)
    for key in ("model", "elements", "matches", "within", "outside", "mismatches", "kernel_above_bound"):
        assert getattr(got, key) == want[key], key
    for key in ("model_error", "kernel_error"):
        assert got.__dict__[key] == pytest.approx(want[key], rel=0, abs=0), key
    assert got.worst == want["worst"] and got.passed == want["pass"]
    assert got.matches < got.elements  # the case has something to judge


def test_verify_gemm_bad_arguments():
    A = fpref.convert([[1.0, 2.0]], "e4m3")
    B = fpref.convert([[3.0], [4.0]], "e4m3")
    with pytest.raises(ValueError, match="D has shape"):
        fpref.verify_gemm(np.zeros((2, 1), np.float32), A, B)
    with pytest.raises(ValueError, match="bad tolerance"):
        fpref.verify_gemm(np.zeros((1, 1), np.float32), A, B, tolerance="2 bits")
    with pytest.raises(ValueError, match="threads"):
        fpref.verify_gemm(np.zeros((1, 1), np.float32), A, B, threads=0)


def test_traits_zero_alignment():
    """traits= for issue 37's classes A1 and A2, tcgen05's parameters as a
    generic model (16, 25, no floor, rtz; worked in tests/check_tc_model.c):
    each trait gives the independent model's answer, off fpref's."""
    kw = dict(model="generic", block=16, frac=25, final="rtz")
    A = np.array([[0x0000] + [0] * 15], np.uint16)
    B = np.array([[0x7800] + [0] * 15], np.uint16).T
    C = np.array([[0x00800001]], np.uint32)
    assert fpref.gemm(A, B, C, inp="f16", **kw)[0, 0] == 0x00800001
    assert fpref.gemm(A, B, C, inp="f16", traits=["zero-operand-aligns"], **kw)[0, 0] == 0x00800000
    A = np.array([[0x19C0] * 8 + [0] * 8], np.uint16)
    B = np.array([[0x1980] * 8 + [0] * 8], np.uint16).T
    assert fpref.gemm(A, B, inp="bf16", **kw)[0, 0] == 0x00000001
    assert fpref.gemm(A, B, inp="bf16", traits=["zero-c-aligns"], **kw)[0, 0] == 0x00000000


def test_fma_chain_presets():
    """dmma and CDNA's FP32/FP64 instructions are FMA chains with C and D in
    the input format: (1 + 2^-52)^2 - (1 + 2^-51) = 2^-104 only unrounded
    (tests/check_tc_model.c works it); another output is refused."""
    A = np.array([[0x3FF0000000000001]], np.uint64)
    C = np.array([[0xBFF0000000000002]], np.uint64)
    assert fpref.gemm(A, A, C, model="dmma", inp="f64", out="f64")[0, 0] == 0x3970000000000000
    assert fpref.gemm(A, A, C, model="mi300x", inp="f64", out="f64", shape="16x16x4")[0, 0] == 0x3970000000000000
    with pytest.raises(ValueError, match="accumulates in float64"):
        fpref.gemm(A, A, model="dmma", inp="f64", out="f32")


def test_models_lists_the_fma_chain_presets():
    # the six rows of formats/tc_model.c's fma_rows, written out: a seventh
    # or a missing one is a change to say
    assert sorted(FMA_PRESETS) == [("dmma", "float64"), ("mfma-cdna1", "float32"), ("mfma-cdna2", "float32"),
                                   ("mfma-cdna2", "float64"), ("mfma-cdna3", "float32"), ("mfma-cdna3", "float64")]
    for m in fpref.models():
        assert isinstance(m["fma_chain"], bool)
        if m["fma_chain"]:
            assert m["block"] is None and m["frac"] is None and m["fp16_inputs"] == ""
        else:
            assert m["block"] > 0 and m["frac"] > 0
    # fused: CDNA1's f16 and bf16 rows alone (docs/accumulation.md), whose
    # GEMM the bench names by its rounding
    fused = sorted((m["gpu"], m["inputs"]) for m in fpref.models() if m["fused"])
    assert [g for g, _ in fused] and {g for g, _ in fused} == {"mfma-cdna1"}
    assert all(not m["fma_chain"] for m in fpref.models() if m["fused"])


@pytest.mark.parametrize("gpu, inp", FMA_PRESETS)
def test_every_fma_chain_preset_matches_cli_dot(cli, gpu, inp):
    A, B = _random(inp, (3, 20), 4), _random(inp, (20, 2), 5)
    C = _random(inp, (3, 2), 6)
    D = fpref.gemm(A, B, C, model=gpu, inp=inp, out=inp)
    lines = [" ".join(fpref.hex_codes(A[i], inp) + fpref.hex_codes(B[:, j], inp) + fpref.hex_codes([C[i, j]], inp))
             for i in range(3) for j in range(2)]
    # ints, not _cli_dot's array: FP64 patterns above 2^63 would become floats
    want = [int(r[-1], 16) for r in cli(["dot", "--in", inp, "--out", inp, "--model", gpu], lines)]
    assert [int(d) for d in D.ravel()] == want
    other = "float64" if inp == "float32" else "float32"
    with pytest.raises(ValueError, match="accumulates in"):
        fpref.gemm(A, B, model=gpu, inp=inp, out=other)


def test_verify_gemm_names_the_fma_chain_preset(cli):
    # the model's own D passes, and the verdict's model is the CLI's model line
    A, B = _random("float64", (2, 8), 7), _random("float64", (8, 3), 8)
    D = fpref.gemm(A, B, model="mi300x", inp="float64", out="float64")
    v = fpref.verify_gemm(D, A, B, model="mi300x", inp="float64", out="float64")
    assert v.passed
    assert v.model == "mfma-cdna3 float64 instructions: an FMA chain (fma-chain), each step rounded in float64"


def test_promote_on_an_fp32_arithmetic_row_is_refused_naming_why():
    # CDNA1/2's f16 and bf16 rows compute in FP32 arithmetic: no promotion
    # (the emulator's failure used to surface as "an invalid pattern")
    A, B = np.full((1, 8), 0x3C00, np.uint64), np.full((8, 1), 0x3C00, np.uint64)
    with pytest.raises(ValueError, match="FP32 arithmetic.*not modelled"):
        fpref.gemm(A, B, model="mfma-cdna1", inp="f16", out="f32", promote=4)
