"""A benchmark, not a test: 2^24 FP32 values to E4M3 through fpref.convert,
through the library's bulk converter timed inside the extension (no
Python around the call), and through ml_dtypes' astype where installed;
medians of 5 runs, printed in one run.

Usage: python python/bench.py [LOG2N] [REPEATS]
"""
import statistics
import sys
import time

import numpy as np

import fpref
from fpref import _fpref


def inputs(n, seed=12345):
    """FP32 patterns spread over E4M3's range and a little beyond (as
    `fpref bench` draws them): mostly in range, some beyond max, some tiny."""
    rng = np.random.default_rng(seed)
    e = rng.integers(-9 - 2, 8 + 2 + 1, size=n, dtype=np.int64)
    bits = (rng.integers(0, 2, size=n, dtype=np.uint32) << 31) | ((e + 127).astype(np.uint32) << 23) | \
        rng.integers(0, 1 << 23, size=n, dtype=np.uint32)
    return bits.view(np.float32)


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    log2n = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    n = 1 << log2n
    x = inputs(n)
    rows = []
    t = median_seconds(lambda: fpref.convert(x, "e4m3"), repeats)
    rows.append(("fpref.convert (emu)", t, "a new output array, converter built per call"))
    out = np.empty(n, np.uint8)
    t = statistics.median(_fpref.time_convert("float32", "float8_e4m3fn", x.view(np.uint32), out, repeats))
    rows.append(("libfpref bulk, in C", t, "fpref_emu_convert_array alone"))
    assert out.tolist()[:1000] == fpref.convert(x[:1000], "e4m3").tolist()
    try:
        import ml_dtypes
        with np.errstate(all="ignore"):
            t = median_seconds(lambda: x.astype(ml_dtypes.float8_e4m3fn), repeats)
        rows.append((f"ml_dtypes {ml_dtypes.__version__} astype", t, "its own cast (see docs/python.md, ml_dtypes)"))
    except ImportError:
        rows.append(("ml_dtypes astype", float("nan"), "ml_dtypes not installed"))
    print(f"2^{log2n} FP32 -> float8_e4m3fn, median of {repeats} (numpy {np.__version__}, fpref {fpref.__version__})")
    for name, t, note in rows:
        print(f"  {name:30} {t * 1e3:9.1f} ms  {n / t / 1e6:8.1f} M elements/s  {note}")


if __name__ == "__main__":
    main()
