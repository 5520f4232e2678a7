#!/bin/sh
# NumPy's float32 orders on this machine, revealed by fpref probe order
# through tests/order_numpy_box.py and reproduced bit for bit: np.sum
# (NumPy's own pairwise sum) and A @ B (OpenBLAS sgemm: 64 x N times N x
# 64, element [0, 0]), each at N = 1024, on probe order's random lines and
# on awk's (tests/order_lib.sh).  Each start of the box imports NumPy
# (about 0.2 CPU s), so np.dot and other sizes are python/tests/
# test_order.py's, in one process.  The trees and the call counts are in
# docs/order.md.  The Python is
# FPREF_PYTHON, else build-python/venv/bin/python (tools/check's), else
# python3; where none imports numpy the suite is skipped (exit 77, counted
# apart).  OpenBLAS runs on one thread (OPENBLAS_NUM_THREADS=1): its
# threads split M and N, and the N = 1024 trees measured with the default
# threads were the same.  POSIX sh.

FPREF=${FPREF:-"$(dirname "$0")/../fpref"}
tap_name=order-numpy
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/order_lib.sh"

py=
for candidate in "${FPREF_PYTHON:-}" "$(dirname "$FPREF")/build-python/venv/bin/python" python3; do
	[ -n "$candidate" ] || continue
	if "$candidate" -c 'import numpy' >/dev/null 2>&1; then
		py=$candidate
		break
	fi
done
if [ -z "$py" ]; then
	echo "no python with numpy (FPREF_PYTHON, build-python/venv, python3): skipped"
	exit 77
fi
OPENBLAS_NUM_THREADS=1
export OPENBLAS_NUM_THREADS
box="$py $(dirname "$0")/order_numpy_box.py"
echo "# $("$py" -c 'import numpy; print("numpy", numpy.__version__)')"
VERIFY=300 RANDOM_LINES=300

for what in sum "matmul 64 64"; do
	if probe_order "numpy $what N=1024" 1024 f32 "$box $what"; then
		sed -n 's/^black box: /# /p' "$tmp/out"
		reproduce "numpy $what N=1024" 1024 f32 "$box $what"
	fi
done
tap_end
