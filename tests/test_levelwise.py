"""The level-wise grower (``_levelwise``) and the mergeable value summaries behind the
distributed fit: parts held in this process, compared with the local hist tree."""
import numpy as np
import pytest

import dtree
from dtree._fit.binning import (column_summary, exact_summary, fit_bins, merge_summaries,
                            thresholds_from_summary)
from dtree._plan.registry import criterion_code
from dtree._fit.grow import tree_from_arrays
from dtree._fit.sampling import draw_seed
from dtree._hist_splitter import bin_codes, histogram_totals, node_histograms, route_rows
from dtree._fit.levelwise import LocalRows, grow_levelwise, slot_table


def _data(n=3000, d=5, seed=0, nan=0.05):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[rng.random(X.shape) < nan] = np.nan
    signal = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    return X, signal, rng


def _levelwise_tree(est, X, y, w, n_classes, part_rows):
    """The tree ``grow_levelwise`` grows for ``est`` on X cut into parts of part_rows."""
    codes, lo, hi = bin_codes(X, fit_bins(X, 255))
    yy = y.astype(np.int32) if n_classes else y.astype(np.float64)
    crit = criterion_code(est.criterion)
    parts = [(codes[i:i + part_rows], yy[i:i + part_rows],
              None if w is None else w[i:i + part_rows])
             for i in range(0, X.shape[0], part_rows)]
    total = float(X.shape[0]) if w is None else float(w.sum())
    plan, _ = est._plan(X, y, w)
    params = plan.growth(X.shape[0], total)
    arrays = grow_levelwise(LocalRows(parts, hi, crit, n_classes), lo, hi,
                            search=plan.search(params, draw_seed(est.random_state)),
                            n_rows=X.shape[0], weighted=w is not None, params=params)
    return tree_from_arrays(plan, arrays)


def assert_same_tree(a, b, exact_values=True):
    assert a.node_count == b.node_count
    for name in ("children_left", "children_right", "feature", "n_node_samples",
                 "missing_go_to_left"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    tol = 0 if exact_values else 1e-12
    np.testing.assert_allclose(a.value, b.value, rtol=tol, atol=tol)
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.weighted_n_node_samples, b.weighted_n_node_samples,
                               rtol=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("part_rows", [3000, 700, 97])
def test_classifier_equals_local_hist(criterion, part_rows):
    X, signal, _ = _data()
    y = (signal > 0).astype(int)
    est = dtree.DecisionTreeClassifier(splitter="hist", criterion=criterion, max_depth=5,
                                       min_samples_leaf=25, random_state=0).fit(X, y)
    assert_same_tree(est.tree_, _levelwise_tree(est, X, y, None, 2, part_rows))


@pytest.mark.parametrize("criterion", ["squared_error", "poisson"])
def test_regressor_equals_local_hist(criterion):
    X, signal, rng = _data(seed=1)
    y = np.abs(signal + rng.normal(size=X.shape[0]))
    est = dtree.DecisionTreeRegressor(splitter="hist", criterion=criterion,
                                      min_samples_leaf=20, random_state=0).fit(X, y)
    got = _levelwise_tree(est, X, y, None, 0, 700)
    assert got.node_count > 50
    # the parts sum their targets in another order: values agree to rounding
    assert_same_tree(est.tree_, got, exact_values=False)


def test_integer_weights_equal_local_hist():
    X, signal, rng = _data(seed=2)
    y = (signal > 0.3).astype(int)
    w = rng.integers(1, 5, X.shape[0]).astype(np.float64)
    est = dtree.DecisionTreeClassifier(splitter="hist", max_depth=6, min_samples_leaf=30,
                                       random_state=0).fit(X, y, sample_weight=w)
    assert_same_tree(est.tree_, _levelwise_tree(est, X, y, w, 2, 500))


def test_limits_are_the_local_ones():
    X, signal, _ = _data(seed=3)
    y = (signal > 0).astype(int)
    for kw in (dict(max_depth=2), dict(min_samples_split=400, min_samples_leaf=30),
               dict(min_impurity_decrease=0.002, min_samples_leaf=25)):
        est = dtree.DecisionTreeClassifier(splitter="hist", random_state=0, **kw).fit(X, y)
        got = _levelwise_tree(est, X, y, None, 2, 1000)
        assert_same_tree(est.tree_, got)


@pytest.mark.parametrize("options", [dict(max_leaf_nodes=10), dict(max_leaf_nodes=300),
                                     dict(max_leaf_nodes=60, max_features=2),
                                     dict(max_leaf_nodes=80, min_samples_leaf=5, max_depth=6)])
def test_best_first_equals_local_hist(options):
    X, signal, _ = _data(seed=5)
    y = (signal > 0).astype(int)
    est = dtree.DecisionTreeClassifier(splitter="hist", random_state=0, **options).fit(X, y)
    assert_same_tree(est.tree_, _levelwise_tree(est, X, y, None, 2, 700))


# ---------------------------------------------------------------- summaries
def test_exact_summaries_merge_to_the_whole_columns():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 300, 5000).astype(np.float32)
    x[rng.random(5000) < 0.1] = np.nan
    parts = [column_summary(x[i:i + 777]) for i in range(0, 5000, 777)]
    merged = merge_summaries(parts)
    whole = exact_summary(x)
    assert merged[3] == 0
    for got, want in zip(merged, whole):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(thresholds_from_summary(merged, 255),
                                  fit_bins(x[:, None], 255)[0])
    # a large few-valued column is summarized exactly without a sort, or with one
    # when its values crowd a bucket (1000 and 1001 share one at level 16)
    for scale in (1.0, 1e-3):
        big = (rng.integers(0, 3000, 100_000) + 1000 / scale).astype(np.float32) * scale
        for got, want in zip(column_summary(big), exact_summary(big)):
            np.testing.assert_array_equal(got, want)


def test_summaries_do_not_depend_on_the_partitioning():
    rng = np.random.default_rng(1)
    x = np.r_[rng.normal(size=30000), np.zeros(5000), -np.zeros(10)].astype(np.float32)
    rng.shuffle(x)
    whole = column_summary(x, max_runs=500)
    assert whole[3] >= 16 and whole[0].shape[0] <= 500
    assert whole[2].sum() == x.shape[0]
    assert (whole[0] <= whole[1]).all() and (whole[1][:-1] < whole[0][1:]).all()
    # zero (and -0.0 with it) holds a seventh of the rows: a run of its own
    zero = np.flatnonzero((whole[0] == 0) & (whole[1] == 0))
    assert zero.shape[0] == 1 and whole[2][zero[0]] == 5010
    for n_parts in (2, 5, 17):
        parts = [column_summary(p, max_runs=500) for p in np.array_split(x, n_parts)]
        merged = parts[0]
        for p in parts[1:]:
            merged = merge_summaries([merged, p], max_runs=500)
        for got, want in zip(merged, whole):
            np.testing.assert_array_equal(got, want)
    t = thresholds_from_summary(whole, 32)
    assert (np.diff(t) > 0).all() and t.shape[0] <= 31
    # zero is a bin alone, the other bins hold about equal counts
    assert ((t < 0) & (t > -0.1)).any() and ((t >= 0) & (t < 0.1)).any()
    sizes = np.bincount(np.searchsorted(t, x, side="left"))
    assert sizes.max() <= 5010 + 2 * 30000 / 30


# ---------------------------------------------------------------- worker pieces
def test_route_rows_moves_rows_to_children_and_retires_leaves():
    codes = np.array([[0], [1], [2], [255]], dtype=np.uint8)
    node = np.array([0, 0, 0, 0], dtype=np.int32)
    feature = np.array([0, -1, -1], dtype=np.intp)
    last = np.array([1, 0, 0], dtype=np.intp)
    missing_left = np.array([0, 0, 0], dtype=np.uint8)
    no_sets = (np.zeros(3, np.uint8), np.zeros((3, 16), np.uint64))
    route_rows(codes, node, feature, last, missing_left, np.array([1, -1, -1], np.int32),
               np.array([2, -1, -1], np.int32), *no_sets)
    np.testing.assert_array_equal(node, [1, 1, 2, 2])
    # node 1 is not split (a leaf now); node 2 is, and its left child does not grow
    feature = np.array([0, -1, 0], dtype=np.intp)
    route_rows(codes, node, feature, np.array([1, 0, 2]), np.array([0, 0, 1], np.uint8),
               np.array([1, -1, -1], np.int32), np.array([2, -1, 4], np.int32), *no_sets)
    np.testing.assert_array_equal(node, [-1, -1, -1, -1])
    with pytest.raises(ValueError, match="node 7"):
        route_rows(codes, np.array([7, 0, 0, 0], np.int32), feature, np.array([1, 0, 2]),
                   np.array([0, 0, 1], np.uint8), np.array([1, -1, -1], np.int32),
                   np.array([2, -1, 4], np.int32), *no_sets)


def test_node_histograms_sum_the_rows_of_each_node():
    X, signal, rng = _data(n=500, d=3)
    y = (signal > 0).astype(np.int32)
    codes, lo, hi = bin_codes(X, fit_bins(X, 16))
    node = rng.integers(-1, 3, 500).astype(np.int32)
    hist, second = node_histograms(codes, y, None, node, slot_table({1: 0, 2: 1}), hi,
                                   criterion_code("gini"), 2, 2)
    for s, k in enumerate((1, 2)):
        stats, weight, count = histogram_totals(hist[s], second[s], hi, criterion_code("gini"), 2)
        assert count == (node == k).sum()
        np.testing.assert_array_equal(stats, np.bincount(y[node == k], minlength=2))
    yr = signal.astype(np.float64)
    hist, second = node_histograms(codes, yr, None, node, slot_table({2: 0}), hi,
                                   criterion_code("squared_error"), 0, 1)
    stats, weight, count = histogram_totals(hist[0], second[0], hi,
                                            criterion_code("squared_error"), 0)
    np.testing.assert_allclose(stats, [yr[node == 2].sum(), (yr[node == 2] ** 2).sum()])
    with pytest.raises(ValueError, match="class code"):
        node_histograms(codes, np.full(500, 5, np.int32), None, node, slot_table({1: 0}),
                        hi, criterion_code("gini"), 2, 1)
