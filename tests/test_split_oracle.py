"""Every split is the exact optimum of its criterion (brute-force oracle)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import assert_root_split_is_optimal, assert_split_is_optimal
from reference import all_candidates

import dtree
from dtree._plan.registry import criterion_code
from dtree._splitter import best_split

CLASSIFICATION = ["gini", "entropy", "gain_ratio"]


@st.composite
def small_problems(draw, regression=False):
    n = draw(st.integers(2, 40))
    d = draw(st.integers(1, 4))
    # few distinct values: plenty of ties and duplicate rows
    levels = draw(st.integers(1, 6))
    X = np.array(draw(st.lists(st.lists(st.integers(0, levels), min_size=d, max_size=d),
                               min_size=n, max_size=n)), dtype=np.float32)
    X = X * draw(st.sampled_from([1.0, 0.1, -2.5]))
    if draw(st.booleans()):
        # some missing values
        mask = np.array(draw(st.lists(st.booleans(), min_size=n * d, max_size=n * d)))
        X[mask.reshape(n, d) & (np.arange(n * d).reshape(n, d) % 3 == 0)] = np.nan
    if regression:
        y = np.array(draw(st.lists(st.floats(-100, 100, allow_nan=False), min_size=n,
                                   max_size=n)))
        n_classes = 0
    else:
        n_classes = draw(st.integers(2, 4))
        y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)),
                     dtype=np.int32)
    weights = draw(st.sampled_from(["none", "int", "float"]))
    if weights == "none":
        w = None
    elif weights == "int":
        w = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), float)
    else:
        w = np.array(draw(st.lists(st.floats(0.05, 10.0), min_size=n, max_size=n)))
    min_leaf = draw(st.integers(1, 4))
    return X, y, w, n_classes, min_leaf


def _check_root(X, y, w, n_classes, criterion, min_leaf):
    found = best_split(X, y, w, n_classes=n_classes or 0, criterion=criterion_code(criterion),
                       min_samples_leaf=min_leaf)
    candidates = all_candidates(X, y, w, criterion, n_classes, min_samples_leaf=min_leaf)
    assert_root_split_is_optimal(found, candidates, X)
    if found is None:
        return
    # children sizes agree with the routing rule
    column = X[:, found["feature"]]
    left = int(((column <= found["threshold"]) |
                (np.isnan(column) & found["missing_left"])).sum())
    assert left == found["pos"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problems(), criterion=st.sampled_from(CLASSIFICATION))
def test_classification_root_split_is_optimal(problem, criterion):
    X, y, w, n_classes, min_leaf = problem
    _check_root(X, y, w, n_classes, criterion, min_leaf)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problems(regression=True))
def test_regression_root_split_is_optimal(problem):
    X, y, w, _, min_leaf = problem
    _check_root(X, y, w, None, "squared_error", min_leaf)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problems(), criterion=st.sampled_from(CLASSIFICATION + ["sq"]))
def test_every_node_of_a_tree_is_split_optimally(problem, criterion):
    X, y, w, n_classes, min_leaf = problem
    if criterion == "sq":
        est = dtree.DecisionTreeRegressor(min_samples_leaf=min_leaf)
        criterion, n_classes = "squared_error", None
        y = y.astype(float)
    else:
        est = dtree.DecisionTreeClassifier(criterion=criterion, min_samples_leaf=min_leaf)
    est.fit(X, y, sample_weight=w)
    tree = est.tree_
    paths = est.decision_path(X).tocsc()
    codes = np.searchsorted(est.classes_, y) if n_classes else y
    for node in np.flatnonzero(tree.children_left != -1):
        rows = paths[:, node].nonzero()[0]
        wn = None if w is None else w[rows]
        candidates = all_candidates(X[rows], codes[rows], wn, criterion,
                                    len(est.classes_) if n_classes else None,
                                    min_samples_leaf=min_leaf)
        assert_split_is_optimal(candidates, X[rows], tree.feature[node], tree.threshold[node],
                                tree.missing_go_to_left[node])
        # training samples route at predict exactly as they were partitioned
        left_rows = paths[:, tree.children_left[node]].nonzero()[0]
        column = X[rows, tree.feature[node]]
        expected = rows[(column <= tree.threshold[node]) |
                        (np.isnan(column) & bool(tree.missing_go_to_left[node]))]
        np.testing.assert_array_equal(np.sort(left_rows), np.sort(expected))


def test_ties_go_to_the_smallest_feature_then_the_smallest_threshold():
    # Columns 1 and 2 are copies of column 0: all three offer the same splits.
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], dtype=np.float32)
    X = np.column_stack([x[::-1], x, x])
    y = np.array([0, 0, 1, 1, 0, 0], dtype=np.int32)
    found = best_split(X, y, n_classes=2, criterion=criterion_code("gini"))
    # separating {2, 3} costs the same at x <= 1.5 and x <= 3.5 (mirror images):
    # feature 0 (the reversed copy) wins over 1 and 2, and its smaller threshold.
    assert found["feature"] == 0
    assert found["threshold"] == 1.5
    X2 = np.column_stack([x, x])
    found = best_split(X2, y, n_classes=2, criterion=criterion_code("gini"))
    assert (found["feature"], found["threshold"]) == (0, 1.5)


def test_midpoint_falls_back_to_the_lower_value():
    # Adjacent float32 values: their midpoint is not representable in float32
    # but is in float64, so it lies strictly between them.
    a = np.float32(1.0)
    b = np.nextafter(a, np.float32(2.0))
    X = np.array([[a], [a], [b], [b]], dtype=np.float32)
    y = np.array([0, 0, 1, 1])
    clf = dtree.DecisionTreeClassifier().fit(X, y)
    t = clf.tree_.threshold[0]
    assert float(a) <= t < float(b)
    np.testing.assert_array_equal(clf.predict(X), y)
    # Huge values: a/2 + b/2 must not overflow.
    big = np.finfo(np.float32).max
    X = np.array([[-big], [big]], dtype=np.float32)
    clf = dtree.DecisionTreeClassifier().fit(X, [0, 1])
    assert np.isfinite(clf.tree_.threshold[0])
    np.testing.assert_array_equal(clf.predict(X), [0, 1])


@pytest.mark.parametrize("criterion", ["gini", "entropy", "gain_ratio"])
def test_zero_weight_samples_do_not_make_empty_children(criterion):
    X = np.arange(8, dtype=np.float32).reshape(-1, 1)
    y = np.array([0, 0, 0, 1, 1, 1, 0, 1])
    w = np.array([1, 1, 1, 1, 1, 1, 0, 0], dtype=float)
    clf = dtree.DecisionTreeClassifier(criterion=criterion).fit(X, y, sample_weight=w)
    tree = clf.tree_
    assert (tree.weighted_n_node_samples > 0).all()
    assert clf.predict(X[:6]).tolist() == [0, 0, 0, 1, 1, 1]


@pytest.mark.parametrize("seed", range(4))
def test_binary_unit_weight_scan_equals_the_general_scan(seed):
    # Two classes, Gini and no weights take a scan of their own; unit weights
    # given explicitly take the general one. Ties, missing values and leaf
    # limits included, the two trees are equal node by node, impurities too.
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 12, size=(400, 4)).astype(np.float32)
    X[rng.rand(400, 4) < 0.1] = np.nan
    y = (X[:, 0] + rng.rand(400) * 6 > 9).astype(int)
    for params in ({}, {"min_samples_leaf": 7}, {"min_weight_fraction_leaf": 0.05},
                   {"max_depth": 3}):
        fast = dtree.DecisionTreeClassifier(random_state=0, **params).fit(X, y)
        general = dtree.DecisionTreeClassifier(random_state=0, **params).fit(X, y, sample_weight=np.ones(400))
        a, b = fast.tree_, general.tree_
        assert a.node_count == b.node_count > 3
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_array_equal(a.threshold, b.threshold)
        np.testing.assert_array_equal(a.missing_go_to_left, b.missing_go_to_left)
        np.testing.assert_array_equal(a.impurity, b.impurity)
        np.testing.assert_array_equal(a.value, b.value)
