import numpy as np
import pytest

import fpref
from conftest import f32_edge_and_random

ALL = [f["name"] for f in fpref.formats()]


def test_done_when_465_is_nan():
    codes = fpref.convert([465.0], "e4m3")
    assert codes.dtype == np.uint8 and codes.tolist() == [0x7F]


@pytest.mark.parametrize("to", ALL)
def test_matches_cli_batch(cli, to):
    x = f32_edge_and_random(1500)
    codes, flags = fpref.convert(x.view(np.float32), to, return_flags=True)
    rows = cli(["convert", "--from", "f32", "--to", to], [f"{v:08X}" for v in x.tolist()])
    assert [int(r[1], 16) for r in rows] == codes.tolist()
    assert [int(r[2], 16) for r in rows] == flags.tolist()


@pytest.mark.parametrize("env", [dict(round="rtz"), dict(round="rup", sat=True), dict(ftz=True, daz=True),
                                 dict(round="sr", sr_seed=7), dict(round="sr", sr_seed=7, sr_width=3),
                                 dict(profile="cuda"), dict(profile="ml_dtypes"), dict(round="rod"),
                                 dict(tininess="before")])
@pytest.mark.parametrize("to", ["e4m3", "e5m2", "bf16", "e2m1", "e8m0"])
def test_engines_agree_and_match_cli(cli, env, to):
    x = f32_edge_and_random(400, seed=2)
    emu = fpref.convert(x.view(np.float32), to, return_flags=True, **env)
    ref = fpref.convert(x.view(np.float32), to, return_flags=True, engine="ref", **env)
    assert emu[0].tolist() == ref[0].tolist() and emu[1].tolist() == ref[1].tolist()
    args = ["convert", "--from", "f32", "--to", to]
    if "round" in env:
        args += ["--round", env["round"]]
    if env.get("sat"):
        args += ["--sat"]
    for k in ("ftz", "daz"):
        if env.get(k):
            args += [f"--{k}"]
    if "profile" in env:
        args += ["--profile", env["profile"]]
    if "tininess" in env:
        args += ["--tininess", env["tininess"]]
    if "sr_seed" in env:
        args += ["--sr-bits", f"{env.get('sr_width', 32)}:seed={env['sr_seed']}"]
    rows = cli(args, [f"{v:08X}" for v in x.tolist()])
    assert [int(r[1], 16) for r in rows] == emu[0].tolist()
    assert [int(r[2], 16) for r in rows] == emu[1].tolist()


def test_output_dtypes_and_shape():
    x = np.ones((2, 3), dtype=np.float32)
    assert fpref.convert(x, "e4m3").dtype == np.uint8
    assert fpref.convert(x, "bf16").dtype == np.uint16
    assert fpref.convert(x, "tf32").dtype == np.uint32
    assert fpref.convert(x, "f64").dtype == np.uint64
    assert fpref.convert(x, "e2m1").shape == (2, 3)
    assert fpref.convert(np.float64(1.0), "f16").shape == ()


def test_float_sources_are_their_own_format():
    assert fpref.convert(np.float16([1.0]), "f32").tolist() == [0x3F800000]
    assert fpref.convert(np.float64([0.1]), "f32").tolist() == fpref.convert(np.float32([0.1]), "f32").tolist()
    # a float64 that rounds to FP32's tie: the source is float64, not a float32 first
    x = np.array([1 + 2.0 ** -24], dtype=np.float64)
    assert fpref.convert(x, "f32").tolist() == [0x3F800000]
    assert fpref.convert(x, "f32", round="rup").tolist() == [0x3F800001]


def test_integer_codes_with_frm():
    assert fpref.convert([0x3C00, 0xBC00], "f32", from_="f16").tolist() == [0x3F800000, 0xBF800000]
    assert fpref.convert(np.array([0x7E], np.uint8), "f32", from_="e4m3").tolist() == [0x43E00000]


def test_non_contiguous_and_big_endian():
    x = np.arange(20, dtype=np.float32)[::2]
    assert fpref.convert(x, "bf16").tolist() == fpref.convert(np.ascontiguousarray(x), "bf16").tolist()
    be = np.arange(5, dtype=">f4")
    assert fpref.convert(be, "bf16").tolist() == fpref.convert(np.arange(5, dtype="<f4"), "bf16").tolist()


class OnlyArray:
    def __array__(self, dtype=None, copy=None):
        return np.array([1.0, 465.0], dtype=np.float32)


class OnlyDlpack:
    def __init__(self):
        self.a = np.array([1.0, 465.0], dtype=np.float32)

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_array_protocols():
    assert fpref.convert(OnlyArray(), "e4m3").tolist() == [0x38, 0x7F]
    assert fpref.convert(OnlyDlpack(), "e4m3").tolist() == [0x38, 0x7F]
    assert fpref.convert((1.0, 465.0), "e4m3").tolist() == [0x38, 0x7F]


def test_sr_is_seeded():
    x = np.full(64, 1.0 + 2.0 ** -5, dtype=np.float32)
    a = fpref.convert(x, "e4m3", round="sr", sr_seed=11)
    assert a.tolist() == fpref.convert(x, "e4m3", round="sr", sr_seed=11).tolist()
    assert set(a.tolist()) == {0x38, 0x39}


# The instructions' random words from every source --sr-bits names, against the command on the same values.
SR_INSTR = [("ptx-rs", "e4m3", "807FFF00"), ("ptx-rs", "e2m1", "seed=9"), ("ptx-rs", "bf16", "0x12345678"),
            ("te-nvfp4", "e2m1", "philox=1234:0:0"), ("te-nvfp4", "e2m1", "philox=1234:5:3:7"),
            ("te-nvfp4", "e2m1", "deadbeef"), ("amd-sr", "e4m3", "0007FFFF"), ("amd-sr", "e2m1", "seed=4"),
            ("avx10-bias", "e5m2", "0056"), ("avx10-bias-s", "e4m3", "seed=2")]


@pytest.mark.parametrize("mode,to,bits", SR_INSTR, ids=[f"{m}-{t}-{b}" for m, t, b in SR_INSTR])
def test_sr_instruction_bits_match_cli(cli, mode, to, bits):
    frm = "f16" if mode.startswith("avx10") else "f32"
    x = f32_edge_and_random(300, seed=5)
    if frm == "f16":
        x = fpref.convert(x.view(np.float32), "f16")
    codes = fpref.convert(x, to, from_=frm, round=mode, sr_bits=bits)
    ref = fpref.convert(x, to, from_=frm, round=mode, sr_bits=bits, engine="ref")
    assert codes.tolist() == ref.tolist()
    rows = cli(["convert", "--from", frm, "--to", to, "--round", mode, "--sr-bits", bits],
               [f"{v:0{2 * x.dtype.itemsize}X}" for v in x.tolist()])
    assert [int(r[1], 16) for r in rows] == codes.tolist()


def test_sr_bits_plain_sr_and_explain():
    x = np.full(8, 1.0 + 2.0 ** -5, dtype=np.float32)  # a quarter of an E4M3 place above 1
    assert fpref.convert(x, "e4m3", round="sr", sr_bits="2:3").tolist() == [0x39] * 8  # 1 + 3 >= 4: away
    assert fpref.convert(x, "e4m3", round="sr", sr_bits="2:2").tolist() == [0x38] * 8
    assert fpref.convert(x, "e4m3", round="sr", sr_bits="seed=11").tolist() == \
        fpref.convert(x, "e4m3", round="sr", sr_seed=11).tolist()
    assert fpref.explain("1.03125", "e4m3", round="sr", sr_bits="2:3").hex == "39"
    assert fpref.op("add", [0x38], [0x08], format="e4m3", round="sr", sr_bits="2:3").tolist() == \
        fpref.op("add", [0x38], [0x08], format="e4m3", round="sr", sr_bits="2:3", engine="ref").tolist()


def test_flags_and_profile_sat():
    codes, flags = fpref.convert([465.0, 1.0, 1e-30], "e4m3", return_flags=True)
    assert flags.tolist() == [fpref.FLAG_INEXACT | fpref.FLAG_OVERFLOW, 0,
                              fpref.FLAG_INEXACT | fpref.FLAG_UNDERFLOW]
    assert fpref.convert([465.0], "e4m3", sat=True).tolist() == [0x7E]
    assert fpref.convert([465.0], "e4m3", profile="onnx-cast-19").tolist() == [0x7E]
    assert fpref.convert([465.0], "e4m3", profile="onnx-cast-19", sat=False).tolist() == [0x7F]


@pytest.mark.parametrize("call, exc, words", [
    (lambda: fpref.convert([1.0], "e9m9x"), ValueError, "e9m9x"),
    (lambda: fpref.convert([1.0], "e4m3", round="nearest"), ValueError, "rounding mode"),
    (lambda: fpref.convert([1.0], "e4m3", engine="gpu"), ValueError, "engine"),
    (lambda: fpref.convert([1.0], "e4m3", profile="tensorflow"), ValueError, "profile"),
    (lambda: fpref.convert([1.0], "e4m3", round="sr"), ValueError, "sr_seed"),
    (lambda: fpref.convert([1.0], "e4m3", sr_bits="0x3"), ValueError, "needs round"),
    (lambda: fpref.convert([1.0], "e4m3", round="sr", sr_seed=1, sr_bits="0x3"), ValueError, "not both"),
    (lambda: fpref.convert([1.0], "e4m3", round="ptx-rs", sr_bits="philox=1:2:3:99"), ValueError, "ROUNDS"),
    (lambda: fpref.convert([1.0], "e4m3", round="sr", sr_bits=3), TypeError, "sr_bits"),
    (lambda: fpref.convert([1, 2], "e4m3"), TypeError, "from_"),
    (lambda: fpref.convert([300], "f32", from_="e4m3"), ValueError, "fit"),
    (lambda: fpref.convert(np.float32([0.1]), "f16", from_="f16"), ValueError, r"\[0\] = .* is not a float16 value"),
    (lambda: fpref.convert([0x7FC00001], "f32", from_="tf32"), ValueError, "invalid"),
    (lambda: fpref.convert(np.array([b"\x00"], dtype="V1"), "f16"), (TypeError, ValueError), "dtype"),
    (lambda: fpref.convert(["1.5", "one"], "f16"), ValueError, "element 1"),
    (lambda: fpref.convert(["1.5"], "f16", from_="f32"), ValueError, "strings"),
    (lambda: fpref.convert([1.0], 5), TypeError, "format"),
])
def test_bad_arguments(call, exc, words):
    with pytest.raises(exc, match=words):
        call()



DECIMALS = ["465", "464", "0.1", "-1.5e-3", "1e-50", "0x1.8p3", "inf", "-inf", "nan", "-0",
            "0.30000000000000000000000000000000001", "448.00000000000000000000000000001", "57344", "61440"]


@pytest.mark.parametrize("to", ["e4m3", "e5m2", "bf16", "f16", "f32", "e2m1", "e8m0", "tf32"])
def test_decimal_strings_match_cli(cli, to):
    codes, flags = fpref.convert(DECIMALS, to, return_flags=True)
    rows = cli(["convert", "--to", to, "--"] + DECIMALS)
    assert [int(r[3], 16) for r in rows] == codes.tolist()
    assert [int(r[r.index("flags") + 1], 16) for r in rows] == flags.tolist()
    assert fpref.convert(np.array(DECIMALS), to).tolist() == codes.tolist()
    assert fpref.convert("465", to).shape == ()


def test_pre_scale():
    # 4 / 2^(128 - 127) = 2 (0x40); code 255 is NaN whatever the value; 127 is no scale
    assert fpref.convert([4.0], "e4m3", pre_scale=128).tolist() == [0x40]
    assert fpref.convert(["4"], "e4m3", pre_scale=128).tolist() == [0x40]
    assert fpref.convert([4.0, -0.0], "e4m3", pre_scale=255).tolist() == [0x7F, 0xFF]
    assert fpref.convert([464.0], "e4m3", pre_scale=127).tolist() == [0x7E]
    x = f32_edge_and_random(300, seed=8)
    for code in (0, 120, 126, 131, 255):
        for mode, bits in ((None, None), ("amd-sr", "seed=3")):
            emu = fpref.convert(x, "e4m3", from_="f32", round=mode, sr_bits=bits, pre_scale=code)
            ref = fpref.convert(x, "e4m3", from_="f32", round=mode, sr_bits=bits, pre_scale=code, engine="ref")
            assert emu.tolist() == ref.tolist()
    e = fpref.explain("4", "e4m3", pre_scale=128)
    assert e.hex == "40"
    with pytest.raises(ValueError, match="0..255"):
        fpref.convert([1.0], "e4m3", pre_scale=256)
    with pytest.raises(TypeError, match="E8M0 code"):
        fpref.convert([1.0], "e4m3", pre_scale="128")
