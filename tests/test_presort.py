"""The exact splitter's presort (``_splitter._presort``): every column's values in
order with their sample ids, as a stable argsort gives them, for short columns
(by 8-bit digits) and long ones (key and id packed in one word)."""
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
