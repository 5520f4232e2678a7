import numpy as np
import pytest

import fpref

UNARY = ["sqrt"]
BINARY = ["add", "sub", "mul", "div", "min", "max", "eq", "lt", "le"]


def _operands(fmt, n, arity, seed):
    rng = np.random.default_rng(seed)
    info = fpref.format_info(fmt)
    top = 1 << info["container_bits"]
    edge = [0, top >> 1, 1, (top >> 1) - 1]
    return [np.concatenate([np.array(edge), rng.integers(0, top, size=n)]).astype(np.uint64) for _ in range(arity)]


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "f16", "bf16", "f32", "e2m1", "e3m4"])
@pytest.mark.parametrize("name", UNARY + BINARY + ["fma"])
def test_op_matches_cli_and_oracle(cli, fmt, name):
    arity = 1 if name in UNARY else 3 if name == "fma" else 2
    ins = _operands(fmt, 300, arity, seed=hash((fmt, name)) % 1000)
    got, flags = fpref.op(name, *ins, format=fmt, return_flags=True)
    ref, rflags = fpref.op(name, *ins, format=fmt, return_flags=True, engine="ref")
    assert got.tolist() == ref.tolist() and flags.tolist() == rflags.tolist()
    lines = [" ".join(fpref.hex_codes([v[i] for v in ins], fmt)) for i in range(ins[0].size)]
    rows = cli(["op", name, "--fmt", fmt], lines)
    res = [int(r[arity], 16 if name not in ("eq", "lt", "le") else 10) for r in rows]
    assert res == got.tolist()
    assert [int(r[arity + 1], 16) for r in rows] == flags.tolist()


def test_op_environment_and_broadcast():
    one = fpref.convert([1.0], "e4m3")
    tiny = fpref.convert([2.0 ** -9], "e4m3")
    assert fpref.op("add", one, tiny, format="e4m3").tolist() == [0x38]
    assert fpref.op("add", one, tiny, format="e4m3", round="rup").tolist() == [0x39]
    out = fpref.op("mul", fpref.convert([[1.0], [2.0]], "f16"), fpref.convert([1.0, 3.0], "f16"), format="f16")
    assert fpref.decode(out, "f16").tolist() == [[1.0, 3.0], [2.0, 6.0]]
    assert fpref.op("add", np.float16([1.0]), np.float16([2.0]), format="f16").tolist() == [0x4200]


@pytest.mark.parametrize("call, exc, words", [
    (lambda: fpref.op("pow", [1], [1], format="f16"), ValueError, "unknown operation"),
    (lambda: fpref.op("add", [1], format="f16"), TypeError, "operand"),
    (lambda: fpref.op("sqrt", [1], [1], format="f16"), TypeError, "operand"),
    (lambda: fpref.op("add", [1, 2], [1, 2, 3], format="f16"), ValueError, "broadcast"),
    (lambda: fpref.op("add", [1], [1], format="f16", round="up"), ValueError, "rounding"),
    (lambda: fpref.op("add", [1], [1], format="custom:e2m60"), ValueError, "fraction bits"),
    (lambda: fpref.op("add", [1], [1], format="nope"), ValueError, "nope"),
])
def test_op_bad_arguments(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


@pytest.mark.parametrize("env", [dict(round="sr", sr_seed=5), dict(round="rdn", ftz=True, daz=True),
                                 dict(round="rtz", sat=True), dict(tininess="before")])
def test_op_environments_engines_agree(env):
    ins = _operands("e5m2", 500, 3, seed=9)
    for name in ("add", "mul", "div", "fma", "sqrt"):
        arity = {"sqrt": 1, "fma": 3}.get(name, 2)
        emu = fpref.op(name, *ins[:arity], format="e5m2", return_flags=True, **env)
        ref = fpref.op(name, *ins[:arity], format="e5m2", return_flags=True, engine="ref", **env)
        assert emu[0].tolist() == ref[0].tolist() and emu[1].tolist() == ref[1].tolist(), name
