"""A black box for fpref probe order (tests/order-numpy.sh, docs/order.md):
NumPy's float32 reductions on lines of hex float32 patterns, one result
per line in hex.

    python3 order_numpy_box.py sum          np.sum(x)
    python3 order_numpy_box.py dot          np.dot(x, ones) (OpenBLAS sdot)
    python3 order_numpy_box.py matmul M P   (A @ B)[0, 0], A = M x N with x in row 0
                                            and zeros below, B = N x P ones
                                            (OpenBLAS sgemm for M, P > 1)
"""
import sys

import numpy as np


def main():
    what = sys.argv[1]
    if what == "matmul":
        m, p = int(sys.argv[2]), int(sys.argv[3])
    out = []
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        # 8 hex digits a value: one C-level parse of the whole line
        raw = bytes.fromhex("".join(w.rjust(8, "0") for w in words))
        x = np.frombuffer(raw, dtype=">u4").astype("<u4").view(np.float32)
        if what == "sum":
            r = np.sum(x)
        elif what == "dot":
            r = np.dot(x, np.ones_like(x))
        elif what == "matmul":
            a = np.zeros((m, x.size), dtype=np.float32)
            a[0] = x
            r = (a @ np.ones((x.size, p), dtype=np.float32))[0, 0]
        else:
            sys.exit(f"order_numpy_box.py: no '{what}' (sum, dot, matmul M P)")
        out.append("%08X" % int(np.float32(r).view(np.uint32)))
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


main()
