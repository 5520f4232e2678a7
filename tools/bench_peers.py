"""The Python half of `fpref bench --peers`: the same FP32 values that the
command has just converted with libfpref, cast again by ml_dtypes (NumPy
for float16) and by fpref's Python package, timed here and compared bit for
bit with the command's output, so that every ratio comes from one run on
one machine and is a ratio between computations that agree.

Usage (fpref bench --peers runs it; by hand only for debugging):
    PYTHON bench_peers.py DIR REPEATS FORMAT...
DIR holds FORMAT.in (the FP32 patterns, uint32 in native byte order) and
FORMAT.out (libfpref's codes for them under the ml_dtypes profile, one or
two bytes each) for each FORMAT, a catalogue name that ml_dtypes also uses
(bfloat16, float16, float8_e4m3fn, float8_e5m2, ...); for f64.FORMAT the
patterns are FP64 (uint64) and only ml_dtypes (NumPy) casts them.

It prints only lines for the command to read, one fact a line:
    version NAME VERSION            (numpy, ml_dtypes, fpref)
    missing NAME REASON             (a package that is not importable)
    row FORMAT IMPL SECONDS SAME N  (median seconds for N values; SAME of
                                     them gave libfpref's bits)
Without NumPy there is nothing to time: it says so and exits 0, for the
command reports a missing peer as a row, not as an error.
"""
import statistics
import sys
import time


def median_seconds(fn, repeats):
    # The thread's CPU time, as the command measures its own rows: the
    # neighbours of a shared machine do not stretch it.  NumPy's casts and
    # fpref's bulk converter both run on the calling thread.
    times = []
    for _ in range(repeats):
        t0 = time.thread_time()
        fn()
        times.append(time.thread_time() - t0)
    return statistics.median(times)


def import_optional(name):
    try:
        module = __import__(name)
    except ImportError as e:
        print(f"missing {name} {str(e).splitlines()[0] if str(e) else 'not importable'}")
        return None
    print(f"version {name} {getattr(module, '__version__', '?')}")
    return module


def peer_type(name, np, ml_dtypes):
    """The peer's dtype for an fpref format name and the peer's label, or None."""
    if name == "float16":
        return np.dtype(np.float16), "numpy"
    if ml_dtypes is not None and hasattr(ml_dtypes, name):
        return np.dtype(getattr(ml_dtypes, name)), "ml_dtypes"
    return None


def main():
    folder, repeats, formats = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    np = import_optional("numpy")
    if np is None:
        return 0
    ml_dtypes = import_optional("ml_dtypes")
    fpref = import_optional("fpref")
    for name in formats:
        # "f64.FORMAT": the same conversion from FP64 values (uint64 in .in)
        wide = name.startswith("f64.")
        target = name[4:] if wide else name
        x = np.fromfile(f"{folder}/{name}.in", dtype=np.uint64 if wide else np.uint32)
        x = x.view(np.float64 if wide else np.float32)
        want = np.fromfile(f"{folder}/{name}.out", dtype=np.uint16 if target in ("bfloat16", "float16") else np.uint8)
        if want.size != x.size:
            print(f"missing {name} {folder}/{name}.out holds {want.size} codes for {x.size} inputs")
            continue
        peer = peer_type(target, np, ml_dtypes)
        if peer is not None:
            dtype, label = peer
            # Into an array made (and its pages touched) beforehand, as the
            # command's own row writes into one: the cast alone is timed.
            out = np.zeros(x.size, dtype=dtype)
            with np.errstate(all="ignore"):
                seconds = median_seconds(lambda: np.copyto(out, x, casting="unsafe"), repeats)
            same = int(np.count_nonzero(out.view(want.dtype) == want))
            print(f"row {name} {label} {seconds!r} {same} {x.size}")
        if fpref is not None and not wide:
            # The package's public call, a new array each time, as a user
            # of the binding gets it.
            got = fpref.convert(x, name, profile="ml_dtypes")
            seconds = median_seconds(lambda: fpref.convert(x, name, profile="ml_dtypes"), repeats)
            same = int(np.count_nonzero(got.astype(want.dtype) == want))
            print(f"row {name} fpref-python {seconds!r} {same} {x.size}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
