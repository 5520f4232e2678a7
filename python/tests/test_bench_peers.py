"""`fpref bench --peers` run with this interpreter: ml_dtypes (NumPy for
float16) and this package beside libfpref on the same values, and every
peer row must give libfpref's bits (the command counts them itself, from
the peers' output against its own; here the counts are read and must be
whole).  Small arrays: a check that the rows are there and agree, not a
measurement.  CPFloat's rows, where the command was built with it, are
tests/bench-peers.sh's (one of them differs by design: float8_e4m3fn)."""
import re
import subprocess
import sys

import pytest

from conftest import CLI

ml_dtypes = pytest.importorskip("ml_dtypes")


def test_peers_agree_bit_for_bit():
    if CLI is None:
        pytest.fail("no fpref command (FPREF_CLI)")
    r = subprocess.run([CLI, "bench", "--peers", "--size", "12", "--repeat", "1", "--python", sys.executable],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert f"ml_dtypes {ml_dtypes.__version__}" in out
    rows = re.findall(r"^\s+(\S.*?)\s+[0-9.e+]+\s+[0-9.e+]+\s+(\d+) of (\d+)(.*)$", out, re.M)
    cpfloat = [row for row in rows if row[0] == "CPFloat cpfloatf"]
    rows = [row for row in rows if row[0] != "CPFloat cpfloatf"]
    labels = [label for label, _, _, _ in rows]
    # four conversions from FP32 and the same four from FP64: ml_dtypes for three, NumPy for float16;
    # the package for each FP32 one
    assert labels.count("ml_dtypes copyto") == 6, out
    assert labels.count("NumPy copyto") == 2, out
    assert labels.count("fpref Python convert()") == 4, out
    for label, same, n, rest in rows:
        assert int(n) == 4096 and same == n and "DIFFER" not in rest, (label, out)
    if cpfloat:
        assert "bits: 1 of 16 peer rows differ from libfpref (marked DIFFER)" in out
    else:
        assert "bits: all 12 peer rows gave libfpref's bits on every timed value" in out
