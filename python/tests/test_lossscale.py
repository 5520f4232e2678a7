"""fpref.lossscale against `fpref lossscale --json`: every iteration's
scale (bits), verdict, events and counters, and the summary, on the same
overflow verdicts or gradients."""
import numpy as np
import pytest

import fpref

OVERFLOW = [0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0]

CASES = [
    ("pytorch", {}), ("pytorch", {"growth_interval": 3, "growth_factor": 3.0, "backoff_factor": 0.25}),
    ("pytorch", {"init_scale": 3.0e38, "growth_interval": 1}),
    ("deepspeed", {}), ("deepspeed", {"hysteresis": 1, "loss_scale_window": 2, "initial_scale_power": 3,
                                      "min_loss_scale": 2.0, "raise_at_min": False}),
    ("deepspeed", {"consecutive_hysteresis": True, "loss_scale_window": 3}),
    ("deepspeed", {"initial_scale_power": 1, "hysteresis": 1, "min_loss_scale": 1.0}),
    ("apex", {"scale_window": 2, "max_loss_scale": 2.0 ** 17, "min_loss_scale": 2.0 ** 15}),
    ("static", {"init_scale": 128.0}), ("static", {"skip": False}),
]

FLAGS = {"consecutive_hysteresis": "--consecutive-hysteresis", "raise_at_min": "--no-raise-at-min",
         "skip": "--no-skip"}


def _cli_options(kw):
    args = []
    for k, v in kw.items():
        if k in FLAGS:
            args.append(FLAGS[k])  # each is given only as the default's opposite
        else:
            args += ["--" + k.replace("_", "-"), repr(v)]
    return args


def _check(run, r):
    steps = r["steps"]
    assert len(run.events) == len(steps)
    width = 8 if run.scale_format == "float32" else 16
    # the CLI prints a scale as the shortest decimal that reads back as it, in its format
    same = (lambda a, b: np.float32(a) == np.float32(b)) if width == 8 else (lambda a, b: a == b)
    for k, s in enumerate(steps):
        assert f"{int(run.next_scale_bits[k]):0{width}X}" == s["next_scale_bits"], k
        assert run.overflow[k] == s["overflow"] and run.events[k] == s["events"]
        assert ("applied" if run.applied[k] else "skipped") == s["result"] or s["result"] == "raised"
        for name, values in run.counters.items():
            assert values[k] == s[name], (k, name)
        if s["scale"] is not None:
            assert same(run.scale[k], s["scale"]), k
        if run.grads is not None:
            for name in ("values", "nonzero", "zero_fp16", "subnormal_fp16", "zero_scaled", "subnormal_scaled",
                         "nonfinite_scaled"):
                assert run.grads[name][k] == s[name], (k, name)
    summary = dict(r["summary"])
    for key in ("iterations", "optimizer_steps", "skipped_steps", "skip_rate", "growths", "backoffs",
                "raised_at_min"):
        assert run.summary[key] == summary[key], key
    assert summary["final_scale"] is None or same(run.summary["final_scale"], summary["final_scale"])


@pytest.mark.parametrize("scaler,kw", CASES, ids=[s + "".join(f"-{k}" for k in kw) for s, kw in CASES])
def test_lossscale_overflow_matches_cli(cli_json, scaler, kw):
    at = ",".join(str(i + 1) for i, v in enumerate(OVERFLOW) if v)
    r = cli_json(["lossscale", "--scaler", scaler, "--overflow-at", at, "--steps", str(len(OVERFLOW))]
                 + _cli_options(kw))
    _check(fpref.lossscale(scaler, overflow=OVERFLOW, **kw), r)


@pytest.mark.parametrize("scaler", ["pytorch", "deepspeed", "apex", "static"])
@pytest.mark.parametrize("profile", [None, "cuda"])
def test_lossscale_grads_match_cli(cli_json, tmp_path, scaler, profile):
    rng = np.random.default_rng(11)
    g1 = (rng.standard_normal((12, 64)) * np.exp2(rng.integers(-30, 4, (12, 1)))).astype(np.float32)
    g2 = (rng.standard_normal((12, 3, 5)) * 2.0 ** -20).astype(np.float64)
    g1[4, 7] = np.inf
    np.save(tmp_path / "g1.npy", g1)
    np.save(tmp_path / "g2.npy", g2)
    args = ["lossscale", "--scaler", scaler, "--grads", str(tmp_path / "g1.npy"), "--grads", str(tmp_path / "g2.npy")]
    if profile:
        args += ["--profile", profile]
    r = cli_json(args)
    run = fpref.lossscale(scaler, grads=[g1, g2], profile=profile)
    _check(run, r)
    for key in ("values", "nonzero", "nonfinite_scaled"):
        assert run.summary[key] == r["summary"][key]


def test_lossscale_new_scale_matches_cli(cli_json):
    r = cli_json(["lossscale", "--scaler", "pytorch", "--overflow-at", "2", "--steps", "5", "--new-scale",
                  "3=1000.5,5=7"])
    run = fpref.lossscale("pytorch", overflow=[0, 1, 0, 0, 0], new_scale={3: 1000.5, 5: 7})
    _check(run, r)
    assert run.events[2] == "new-scale"


@pytest.mark.parametrize("call,err,match", [
    (lambda: fpref.lossscale("torch", overflow=[0]), ValueError, "unknown scaler 'torch'"),
    (lambda: fpref.lossscale("apex", overflow=[0], growth_factor=2.0), ValueError, "growth_factor does not apply"),
    (lambda: fpref.lossscale("pytorch", overflow=[0], windows=2), TypeError, "unknown option 'windows'"),
    (lambda: fpref.lossscale("pytorch"), ValueError, "exactly one of overflow"),
    (lambda: fpref.lossscale("pytorch", overflow=[0], grads=[np.zeros((1, 1))]), ValueError, "exactly one"),
    (lambda: fpref.lossscale("pytorch", overflow=[0], growth_interval=0), ValueError, "growth_interval must be"),
    (lambda: fpref.lossscale("deepspeed", overflow=[0], new_scale={1: 2.0}), ValueError, "new_scale does not"),
    (lambda: fpref.lossscale("pytorch", overflow=[0], new_scale={0: 2.0}), ValueError, "1-based"),
    (lambda: fpref.lossscale("pytorch", grads=[np.zeros((2, 3)), np.zeros((3, 3))]), ValueError, "first axes"),
    (lambda: fpref.lossscale("pytorch", grads=np.zeros((2, 3), np.int32)), TypeError, "float16/32/64"),
    (lambda: fpref.lossscale("pytorch", overflow=[0], profile="gpu"), ValueError, "gpu"),
    (lambda: fpref.lossscale("pytorch", overflow=[0], init_scale="big"), TypeError, "init_scale is a number"),
])
def test_lossscale_bad_arguments(call, err, match):
    with pytest.raises(err, match=match):
        call()
