"""The package says what the command says (issue 33): P3109's overflow
policies, str() of an explanation, strict keyword types, and a namespace
of the public names only."""
import subprocess

import numpy as np
import pytest

import fpref
from conftest import CLI, f32_edge_and_random

POLICIES = ["ieee", "sat", "satfinite", "satpropagate", "satnone"]
FORMATS = ["binary8p3se", "binary8p4sf", "e4m3", "e5m2", "bf16"]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_overflow_matches_cli(cli, policy, fmt):
    x = f32_edge_and_random(400, seed=5)
    codes, flags = fpref.convert(x.view(np.float32), fmt, overflow=policy, return_flags=True)
    rows = cli(["convert", "--from", "f32", "--to", fmt, "--overflow", policy], [f"{v:08X}" for v in x])
    assert [int(r[1], 16) for r in rows] == codes.tolist()
    assert [int(r[2], 16) for r in rows] == flags.tolist()


def test_overflow_changes_the_answer():
    """satpropagate keeps inf where satnone does not: the keyword reaches the core."""
    inf = np.float32([np.inf, 1e30])
    a = fpref.convert(inf, "binary8p3se", overflow="satfinite").tolist()
    b = fpref.convert(inf, "binary8p3se", overflow="ieee").tolist()
    assert a != b
    assert fpref.op("mul", [0x70], [0x70], format="binary8p3se", overflow="satfinite").tolist() != \
        fpref.op("mul", [0x70], [0x70], format="binary8p3se").tolist()


def test_overflow_bad_arguments():
    with pytest.raises(ValueError, match="unknown overflow policy 'clamp' \\(choices: "):
        fpref.convert([1.0], "e4m3", overflow="clamp")
    with pytest.raises(ValueError, match="give one"):
        fpref.convert([1.0], "e4m3", overflow="sat", sat=True)
    with pytest.raises(TypeError, match="overflow is a policy name"):
        fpref.convert([1.0], "e4m3", overflow=True)


@pytest.mark.parametrize("kw", [dict(sat="yes"), dict(sat=1), dict(ftz="no"), dict(daz=0)])
def test_flags_are_booleans(kw):
    with pytest.raises(TypeError, match="is True or False"):
        fpref.convert([1.0], "e4m3", **kw)


EXPLAIN = [
    (("465", "e4m3"), {}, ["465", "--to", "e4m3"]),
    (("0.1", "bf16"), dict(round="rtz"), ["0.1", "--to", "bf16", "--round", "rtz"]),
    (("3C01", "e4m3"), dict(from_="f16", round="rtz"), ["3C01", "--from", "f16", "--to", "e4m3", "--round", "rtz"]),
    (("1e-9", "e4m3"), dict(round="sr", sr_bits="0x3a"), ["1e-9", "--to", "e4m3", "--round", "sr", "--sr-bits", "0x3a"]),
    (("0.3", "int8"), {}, ["0.3", "--to", "int8"]),
    (("1e300", "binary8p3se"), dict(overflow="satpropagate"), ["1e300", "--to", "binary8p3se", "--overflow",
                                                               "satpropagate"]),
    (("0.1", "e4m3"), dict(pre_scale=130), ["0.1", "--to", "e4m3", "--pre-scale", "130"]),
]


@pytest.mark.parametrize("args,kw,cmd", EXPLAIN, ids=[" ".join(c) for _, _, c in EXPLAIN])
def test_explain_str_is_the_commands_text(args, kw, cmd):
    if CLI is None:
        pytest.skip("no fpref command built (set FPREF_CLI)")
    text = subprocess.run([CLI, "explain"] + cmd, capture_output=True, text=True, check=True).stdout
    e = fpref.explain(*args, **kw)
    assert str(e) == text
    assert "Explanation(" in repr(e) and "text=" not in repr(e)


def test_namespace_is_the_public_names():
    assert set(dir(fpref)) == set(fpref.__all__)
    for name in fpref.__all__:
        assert hasattr(fpref, name), name
    for private in ("np", "dataclass", "Any", "Optional", "field"):
        assert private not in dir(fpref)


# the catalogue's byte-wide formats, the integers, P3109's and a custom one
SMALL = [f["name"] for f in fpref.formats() if f["element_bytes"] == 1] + \
    ["int8", "int4", "uint4", "binary8p3se", "binary5p2sf", "binary3p3ue", "e3m2,subnormals=off"]


@pytest.mark.parametrize("fmt", SMALL)
def test_table_matches_cli(fmt):
    """fpref.table against `fpref table`: every code, its class and exact value."""
    if CLI is None:
        pytest.skip("no fpref command built (set FPREF_CLI)")
    r = subprocess.run([CLI, "table", fmt], capture_output=True, text=True)
    if r.returncode == 2:  # the command's limit (8 bits); the package must refuse alike
        with pytest.raises(ValueError, match="8 bits or fewer"):
            fpref.table(fmt)
        return
    lines = [line for line in r.stdout.splitlines() if line and not line.startswith(("#", "code"))]
    rows = fpref.table(fmt)
    assert len(rows) == len(lines) > 0
    for row, line in zip(rows, lines):
        words = line.split()
        assert words[0] == row["hex"]
        if row["class"] == "unused":
            assert "unused" in words and "never produced" in line and row["value"] is None
        else:
            assert words[-1] == row["value"] and words[-2] == row["class"]


def test_table_refuses_wide_formats():
    with pytest.raises(ValueError, match="8 bits or fewer; float16 has 16"):
        fpref.table("f16")
