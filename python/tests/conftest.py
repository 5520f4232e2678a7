"""Shared by the tests: the fpref command of this checkout (the tests
compare the package with it bit for bit), and seeded inputs."""
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

TOP = Path(__file__).resolve().parents[2]


def _find_cli():
    path = os.environ.get("FPREF_CLI") or str(TOP / "fpref")
    if os.access(path, os.X_OK):
        return path
    return shutil.which("fpref")


CLI = _find_cli()


@pytest.fixture(scope="session")
def cli():
    """Run the fpref command on stdin lines; the output's lines split into tokens."""
    if CLI is None:
        if os.environ.get("FPREF_REQUIRE_CLI"):
            pytest.fail("no fpref command (FPREF_CLI, ./fpref of the checkout, or PATH)")
        pytest.skip("no fpref command built (set FPREF_CLI)")

    def run(args, lines=None):
        text = None if lines is None else "".join(f"{line}\n" for line in lines)
        r = subprocess.run([CLI] + list(args), input=text, capture_output=True, text=True, check=True)
        return [line.split() for line in r.stdout.splitlines()]

    return run


def f32_edge_and_random(n=3000, seed=1):
    """FP32 patterns: zeros, infinities, NaNs, subnormals, values around the
    narrow formats' ranges, and random ones."""
    rng = np.random.default_rng(seed)
    edge = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x00000001,
                     0x007FFFFF, 0x00800000, 0x3F800000, 0x43E00000, 0x43E80000, 0x43E80001, 0x47600000,
                     0x477FE000, 0x477FF000, 0x3B000000, 0x3A800000, 0x3A800001, 0x33800000, 0x7F7FFFFF],
                    dtype=np.uint32)
    exps = rng.integers(127 - 40, 127 + 20, size=n).astype(np.uint32)
    x = (rng.integers(0, 2, size=n).astype(np.uint32) << 31) | (exps << 23) | \
        rng.integers(0, 1 << 23, size=n).astype(np.uint32)
    return np.concatenate([edge, x])


@pytest.fixture(scope="session")
def cli_json(cli):
    """Run the fpref command and parse its JSON output (--json is added)."""
    import json

    def run(args, check=True):
        r = subprocess.run([CLI] + list(args) + ["--json"], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"fpref {' '.join(args)}: exit {r.returncode}: {r.stderr}")
        return json.loads(r.stdout)

    return run
