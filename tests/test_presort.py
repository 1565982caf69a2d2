"""The exact splitter's presort (``_splitter._presort``): every column's values in
order with their sample ids, as a stable argsort gives them, for short columns
(by 8-bit digits) and long ones (key and id packed in one word); and the sort
that puts a partitioned segment back in that order (``_sort_runs``)."""
import numpy as np
import pytest

from dtree._splitter import _presort


@pytest.mark.parametrize("n", [1, 64, 65, 8191, 8192, 8193, 60_000, 600_000])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_columns_sort_as_a_stable_argsort(n, threads, layout):
    rng = np.random.default_rng(n)
    X = np.empty((n, 5), dtype=np.float32, order="F" if layout == "F" else "C")
    X[:, 0] = rng.integers(-40, 40, n)                  # many ties
    X[:, 1] = rng.normal(size=n) * 10.0 ** rng.integers(-30, 30, n)
    X[:, 2] = rng.choice([-0.0, 0.0, 1.5, -np.inf, np.inf, np.nan], n)
    X[:, 3] = 7.0                                       # one value: every digit shared
    # widely spread values, each twice: small buckets that hold ties
    X[:, 4] = rng.permutation(np.resize(X[:(n + 1) // 2, 1], n))
    if layout == "strided":
        # every other row of a larger array, its columns reversed
        wide = np.zeros((2 * n, 5), dtype=np.float32)
        wide[::2] = X[:, ::-1]
        X = wide[::2, ::-1]
    vals = np.empty((5, n), dtype=np.float32)
    idx = np.empty((5, n), dtype=np.int32)
    _presort(X, vals, idx, threads)
    for f in range(5):
        # -0.0 sorts as 0.0 (and reads back as it), NaN last: a stable argsort of that
        column = np.where(X[:, f] == 0, np.float32(0), X[:, f])
        order = np.argsort(column, kind="stable")
        np.testing.assert_array_equal(idx[f], order)
        np.testing.assert_array_equal(vals[f], column[order])


@pytest.mark.parametrize("seed", range(4))
def test_a_segment_of_sorted_runs_sorts_again_as_numpy_sorts(seed):
    # (``restore_column``: a column segment partitioned below a node is a few
    # sorted runs, merged back into one; a few keys sort in place)
    from dtree._splitter import _sort_runs
    rng = np.random.default_rng(seed)
    for trial in range(400):
        m = int(rng.integers(0, 70)) if trial < 300 else int(rng.integers(70, 5000))
        runs = [np.sort(rng.integers(0, 2**63, int(rng.integers(0, m + 1)), dtype=np.uint64))
                for _ in range(int(rng.integers(1, 12)))]
        keys = np.concatenate(runs)[:m]
        if trial % 4 == 0:              # equal keys, any order
            keys = rng.integers(0, 20, keys.shape[0]).astype(np.uint64)
        if trial % 4 == 1:              # one run already, or descending
            keys = np.sort(keys)[::-1 if trial % 8 == 1 else 1].copy()
        np.testing.assert_array_equal(_sort_runs(keys), np.sort(keys))
