"""fpref.reveal_order and fpref.tree_dot: stated orders written here in
NumPy float32 arithmetic revealed exactly, non-trees refused, the same tree
as `fpref probe order` gives for the same box, and NumPy's own float32 sum,
dot and matmul on this machine reproduced bit for bit on random inputs
drawn by NumPy's generator (independent of the library's)."""
import doctest
import sys

import numpy as np
import pytest

import fpref
import fpref.order


def sequential(x):
    s = x[0]
    for v in x[1:]:
        s = np.float32(s + v)
    return s


def pairwise(x):
    if x.size == 1:
        return x[0]
    h = x.size // 2
    return np.float32(pairwise(x[:h]) + pairwise(x[h:]))


def four_accumulators(x):
    acc = [np.float32(v) for v in x[:4]]
    for i in range(4, x.size - x.size % 4):
        acc[i % 4] = np.float32(acc[i % 4] + x[i])
    s = np.float32((acc[0] + acc[1]) + (acc[2] + acc[3]))
    for v in x[x.size - x.size % 4:]:
        s = np.float32(s + v)
    return s


def bits(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32)


@pytest.mark.parametrize("fn,n,tree", [
    (sequential, 5, "((((0,1),2),3),4)"),
    (pairwise, 6, "((0,(1,2)),(3,(4,5)))"),
    (four_accumulators, 10, "(((((0,4),(1,5)),((2,6),(3,7))),8),9)"),
])
def test_stated_orders(fn, n, tree):
    r = fpref.reveal_order(fn, n, verify=300)
    assert r.tree == tree
    assert r.verify_lines == 300 and r.block_model is None
    assert r.dot_args()[:4] == ["--model", "tree", "--tree", tree]


def test_not_a_tree():
    rng = np.random.default_rng(5)
    with pytest.raises(fpref.order.NoFixedTree, match="exactly or compensates"):
        fpref.reveal_order(lambda x: np.float32(np.sum(x.astype(np.float64))), 16)
    with pytest.raises(fpref.order.NoFixedTree):
        fpref.reveal_order(lambda x: sequential(rng.permutation(x)), 16)


def test_same_tree_as_the_command(cli, tmp_path):
    box = tmp_path / "box.py"
    box.write_text("import sys\nimport numpy as np\n"
                   "for l in sys.stdin:\n"
                   "    x = np.array([int(w, 16) for w in l.split()], dtype=np.uint32).view(np.float32)\n"
                   "    s = np.float32((x[0] + x[1]) + (x[2] + x[3]))\n"
                   "    for v in x[4:]:\n"
                   "        s = np.float32(s + v)\n"
                   "    print('%08X' % int(s.view(np.uint32)))\n")
    out = cli(["probe", "order", "--cmd", f"{sys.executable} {box}", "--n", "7", "--in", "f32", "--verify", "50"])
    r = fpref.reveal_order(lambda x: np.float32(np.float32(np.float32((x[0] + x[1]) + (x[2] + x[3])) + x[4]) + x[5]
                                                + x[6]), 7, verify=50)
    assert out[0] == ["tree:", r.tree] and r.tree == "(((((0,1),(2,3)),4),5),6)"


def numpy_cases():
    def dot(x):
        return np.dot(x, np.ones_like(x))

    def matmul(x):
        a = np.zeros((64, x.size), dtype=np.float32)
        a[0] = x
        return (a @ np.ones((x.size, 64), dtype=np.float32))[0, 0]
    # dot at 100: OpenBLAS adds the values past the last multiple of 32 in
    # double where this machine's kernel does (a seq:float64 node)
    return [("sum", np.sum, 1024), ("dot", dot, 1024), ("dot", dot, 100), ("matmul", matmul, 1024)]


@pytest.mark.parametrize("name,fn,n", numpy_cases(), ids=[f"{c[0]}-{c[2]}" for c in numpy_cases()])
def test_numpy_reproduced(name, fn, n):
    """NumPy's float32 order revealed, then every one of 300 rows of
    NumPy's random normals (and 300 of random magnitudes over
    2^-20..2^20) summed by NumPy and by the tree: the same bits."""
    r = fpref.reveal_order(fn, n, verify=200)
    rng = np.random.default_rng(35)
    X = np.concatenate([rng.standard_normal((300, n)),
                        rng.choice([-1, 1], (300, n)) * 2.0 ** rng.uniform(-20, 20, (300, n))]).astype(np.float32)
    want = bits(np.array([fn(row) for row in X]))
    got = fpref.tree_dot(r, X)
    assert np.array_equal(got, want), f"{np.count_nonzero(got != want)} of {len(X)} rows differ"


def test_tree_dot_matches_the_command(cli):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((20, 6)).astype(np.float32)
    b = rng.standard_normal((20, 6)).astype(np.float32)
    tree = "((0,(1,2)),((3,4),5))"
    lines = [" ".join("%08X" % v for v in np.concatenate([bits(a[i]), bits(b[i])])) + " 00000000" for i in range(20)]
    want = [int(t[-1], 16) for t in cli(["dot", "--model", "tree", "--tree", tree, "--in", "f32"], lines)]
    assert fpref.tree_dot(tree, a, b).tolist() == want


def test_docstrings():
    r = doctest.testmod(fpref.order, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert r.attempted > 0 and r.failed == 0
