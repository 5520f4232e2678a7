"""fpref.draw against `fpref draw`: the same SVG bytes for every kind the
package draws, over tests/draw-extent.sh's battery (every format family,
values beyond max finite, below the least subnormal, long decimals,
stochastic and instruction rounding, windows of a few ulps), and the same
messages for bad arguments."""
import subprocess
from decimal import Decimal

import numpy as np
import pytest

import fpref
from conftest import CLI

# tests/draw-extent.sh's pictures of the kinds fpref.draw makes (the
# command's arguments after `fpref draw`)
BATTERY = [["numberline", f] for f in (
    "e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "e3m4", "e8m0", "e2m3", "e3m2", "e2m1", "binary8p3se",
    "binary4p2uf", "int4", "uint8", "int8_sym", "mxint8", "e3m2,unsigned", "e4m3,bias=11,specials=none")] + [
    ["numberline", "e4m3", "--range", "0:1"],
    ["numberline", "bf16", "--at", "0.1", "--window", "8"],
    ["numberline", "bf16", "--at", "-0.1", "--window", "8"],
    ["numberline", "f32", "--at", "1", "--window", "4"],
    ["numberline", "f32", "--at", "1e-45", "--window", "2"],
    ["numberline", "f32", "--at", "3e38", "--window", "200"],
    ["numberline", "f16", "--at", "65504", "--window", "200"],
    ["numberline", "f64", "--at", "1e300", "--window", "3"],
    ["numberline", "tf32", "--at", "1e-40", "--window", "16"],
    ["numberline", "binary16p7se", "--at", "2", "--window", "30"],
    ["numberline", "bf16"],
    ["rounding", "0.1", "--to", "e4m3"],
    ["rounding", "464", "--to", "e4m3"],
    ["rounding", "465", "--to", "e4m3"],
    ["rounding", "-465", "--to", "e4m3"],
    ["rounding", "465", "--to", "fp4"],
    ["rounding", "-465", "--to", "fp4"],
    ["rounding", "1e300", "--to", "f16"],
    ["rounding", "70000", "--to", "e5m2", "--round", "rtz"],
    ["rounding", "1e5", "--to", "e4m3fnuz", "--sat"],
    ["rounding", "1e39", "--to", "e8m0"],
    ["rounding", "100", "--to", "int4"],
    ["rounding", "-100", "--to", "int4"],
    ["rounding", "1000", "--to", "binary8p3se", "--overflow", "satnone"],
    ["rounding", "1e-9", "--to", "bf16"],
    ["rounding", "1e-9", "--to", "e4m3", "--round", "sr", "--sr-bits", "seed=1"],
    ["rounding", "1e-400000", "--to", "f64"],
    ["rounding", "2049", "--to", "f16"],
    ["rounding", "3.3", "--to", "int4"],
    ["rounding", "0.3", "--to", "mxint8"],
    ["rounding", "123456789.123456789", "--to", "f32", "--round", "rod"],
    ["rounding", "0.10000000000000000000000000000000000000000000000000000000000000000001", "--to", "f64",
     "--round", "sr", "--sr-bits", "seed=3"],
    ["rounding", "0.3", "--to", "e2m1", "--round", "ptx-rs", "--sr-bits", "0x12345678"],
    ["rounding", "1.3", "--to", "e2m3,unsigned"],
    ["rounding", "1e-9", "--to", "e4m3", "--ftz"],
    ["rounding", "-1e-3", "--to", "e5m2", "--round", "rdn", "--daz"],
    ["formats"],
    ["promotion", "--model", "h100", "--promote", "128", "--in-format", "e4m3"],
    ["promotion", "--model", "h100", "--promote", "128", "--in-format", "e4m3", "--ks", "64,128", "--size", "4x4", "--dist",
     "normal", "--seed", "3"],
    ["promotion", "--model", "generic", "--block", "32", "--frac", "13", "--promote", "64", "--in-format", "e5m2", "--ks",
     "32,64,128"],
    ["pytorch-tf32"],
    ["pytorch-tf32", "--ks", "8,16", "--dist", "uniform", "--seed", "2"],
]

# the command's options and the keywords of fpref.draw they become (a flag: True)
OPTIONS = {"--to": "to", "--range": "range", "--at": "at", "--window": "window", "--round": "round",
           "--overflow": "overflow", "--sr-bits": "sr_bits", "--model": "model", "--in-format": "in_format", "--ks": "ks",
           "--size": "size", "--dist": "dist", "--seed": "seed", "--promote": "promote", "--block": "block",
           "--frac": "frac"}
COUNTS = ("promote", "block", "frac")  # integers in Python
FLAGS = {"--sat": "sat", "--ftz": "ftz", "--daz": "daz"}


def as_call(args):
    """fpref draw's arguments as fpref.draw's: (kind, what, keywords)."""
    pos, kw, i = [], {}, 0
    while i < len(args):
        a = args[i]
        if a in OPTIONS:
            kw[OPTIONS[a]] = int(args[i + 1]) if OPTIONS[a] in COUNTS else args[i + 1]
            i += 2
        elif a in FLAGS:
            kw[FLAGS[a]] = True
            i += 1
        else:
            pos.append(a)
            i += 1
    return pos[0], (pos[1] if len(pos) > 1 else None), kw


def command(args):
    """fpref draw ARGS --out -: (exit status, SVG text, message)."""
    r = subprocess.run([CLI, "draw"] + list(args) + ["--out-file", "-"], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


@pytest.mark.parametrize("args", BATTERY, ids=[" ".join(a) for a in BATTERY])
def test_draw_same_bytes_as_the_command(cli, args):
    rc, svg, err = command(args)
    assert rc == 0, err
    kind, what, kw = as_call(args)
    assert fpref.draw(kind, what, **kw) == svg


def test_draw_writes_out(cli, tmp_path):
    path = tmp_path / "r.svg"
    svg = fpref.draw("rounding", "465", to="e4m3", out_file=str(path))
    assert path.read_text() == svg == command(["rounding", "465", "--to", "e4m3"])[1]
    assert list(tmp_path.iterdir()) == [path]  # nothing beside it


def test_draw_numbers_are_exact(cli):
    # a float is its binary64 value, an int its own, a tuple range its two ends
    exact = str(Decimal(0.1))
    assert fpref.draw("rounding", 0.1, to="e4m3") == command(["rounding", exact, "--to", "e4m3"])[1]
    assert fpref.draw("rounding", 0.5 + 2 ** -10, to="e4m3") == command(["rounding", "0.5009765625", "--to",
                                                                          "e4m3"])[1]
    assert fpref.draw("rounding", 465, to="e4m3") == command(["rounding", "465", "--to", "e4m3"])[1]
    assert fpref.draw("rounding", np.float32(0.1), to="bf16") == \
        command(["rounding", str(Decimal(float(np.float32(0.1)))), "--to", "bf16"])[1]
    assert fpref.draw("numberline", "e4m3", range=(0, 1.5)) == command(["numberline", "e4m3", "--range", "0:1.5"])[1]
    assert fpref.draw("numberline", "bf16", at=0.5, window=3) == \
        command(["numberline", "bf16", "--at", "0.5", "--window", "3"])[1]


def test_draw_sr_seed(cli):
    # sr_seed is fpref.explain's seeded stream; sr_bits takes the command's text
    svg = fpref.draw("rounding", "1e-9", to="e4m3", round="sr", sr_seed=1)
    assert svg.startswith("<?xml") and "with --sr-bits" in svg


# bad arguments: the command's exit 2 and its message, fpref.draw's ValueError with the same words
BAD = [
    ["numberline", "e4m3", "--at", "1"],
    ["numberline", "bf16", "--window", "0"],
    ["numberline", "bf16", "--window", "201"],
    ["numberline", "bf16", "--range", "0:1"],
    ["numberline", "e4m3", "--range", "5:1"],
    ["numberline", "e4m3", "--range", "1000:2000"],
    ["numberline", "bf16", "--at", "abc"],
    ["rounding", "1", "--to", "e4m3"],
    ["rounding", "0", "--to", "e4m3"],
    ["rounding", "nan", "--to", "e4m3"],
    ["rounding", "abc", "--to", "e4m3"],
    ["promotion", "--model", "h100", "--promote", "128", "--in-format", "e4m3", "--ks", "5"],
    ["promotion", "--model", "h100", "--promote", "128", "--in-format", "e4m3", "--size", "0x3"],
    ["promotion", "--model", "h100", "--promote", "128", "--in-format", "e4m3", "--dist", "cauchy"],
    ["pytorch-tf32", "--ks", "16,1024"],
    ["pytorch-tf32", "--seed", "-1"],
]


@pytest.mark.parametrize("args", BAD, ids=[" ".join(a) for a in BAD])
def test_draw_bad_arguments_as_the_command(cli, args):
    rc, svg, err = command(args)
    assert rc == 2 and svg == ""
    kind, what, kw = as_call(args)
    with pytest.raises(ValueError) as e:
        fpref.draw(kind, what, **kw)
    assert err == f"fpref draw: {e.value}\n"


def test_draw_refusals(tmp_path):
    with pytest.raises(ValueError, match="sr_bits"):
        fpref.draw("rounding", "0.1", to="e4m3", round="sr")
    with pytest.raises(TypeError, match="to= is rounding's keyword, not numberline's"):
        fpref.draw("numberline", "e4m3", to="e4m3")
    with pytest.raises(TypeError, match="range= is numberline's keyword, not formats'?s"):
        fpref.draw("formats", range="0:1")
    with pytest.raises(TypeError, match="round= is rounding's keyword"):
        fpref.draw("numberline", "e4m3", round="rtz")
    with pytest.raises(TypeError, match="needs a value and to="):
        fpref.draw("rounding", "1")
    with pytest.raises(TypeError, match="takes no format"):
        fpref.draw("formats", "e4m3")
    with pytest.raises(TypeError, match="window is an integer"):
        fpref.draw("numberline", "bf16", window=True)
    with pytest.raises(ValueError, match="unknown kind"):
        fpref.draw("histogram")
    with pytest.raises(ValueError, match="fpref draw gemm"):
        fpref.draw("gemm")
    with pytest.raises(TypeError, match="needs model=, promote= and in_format="):
        fpref.draw("promotion", model="h100")
    with pytest.raises(TypeError, match="ks= is promotion's keyword, not rounding's"):
        fpref.draw("rounding", "1", to="e4m3", ks=[1, 2])
    with pytest.raises(TypeError, match="ks is a list of integers"):
        fpref.draw("pytorch-tf32", ks=[1.5, 2])
    # a list and a tuple stand for the command's texts
    assert fpref.draw("pytorch-tf32", ks=(8, 16)) == fpref.draw("pytorch-tf32", ks="8,16")
    with pytest.raises(ValueError):
        fpref.draw("numberline", "e9m9")
    bad = tmp_path / "no" / "x.svg"
    with pytest.raises(OSError):
        fpref.draw("formats", out_file=str(bad))
    assert not bad.parent.exists()
