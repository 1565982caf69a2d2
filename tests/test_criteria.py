"""The regression criteria beyond squared error: poisson, and friedman_mse (deprecated)."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import tree as sklearn_tree

from helpers import (assert_root_split_is_optimal, assert_split_is_optimal, compare_trees,
                     few_valued_features, tie_free_data)
from reference import all_candidates, is_tie

import dtree
from dtree._fit.gains import impurity
from dtree._plan.registry import criterion_code
from dtree._splitter import best_split


def _counts_target(seed, n, X):
    """A Poisson-like count target whose rate depends on the first features."""
    rng = np.random.RandomState(seed)
    rate = np.exp(0.08 * X[:, 0] - 0.05 * np.abs(X[:, 1]))
    return rng.poisson(rate * 3).astype(float)


@st.composite
def count_problems(draw):
    X = few_valued_features(draw, 40, 6)
    n = X.shape[0]
    y = np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 1.0, 2.0, 3.5, 7.0, 20.0]),
                               min_size=n, max_size=n)))
    if y.sum() == 0:
        y[0] = 1.0
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.floats(0.1, 5.0), min_size=n, max_size=n)))
    return X, y, w, draw(st.integers(1, 3))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=count_problems())
def test_poisson_root_split_is_the_brute_force_optimum(problem):
    X, y, w, min_leaf = problem
    found = best_split(X, y, w, n_classes=0, criterion=criterion_code("poisson"),
                       min_samples_leaf=min_leaf)
    candidates = all_candidates(X, y, w, "poisson", min_samples_leaf=min_leaf)
    assert_root_split_is_optimal(found, candidates, X)


def test_a_right_side_of_zero_targets_is_no_candidate_despite_rounding():
    # the right sum is the node's minus the left one: here a rounding residue
    # above DBL_EPSILON once let a child of zeros through (infinite impurity)
    X = np.array([[np.nan, 0], [1, 0], [0, 0], [np.nan, 0]], dtype=np.float32)
    y = np.array([3.5, 0.0, 1.0, 1.0])
    w = np.array([0.571, 1.885, 0.459, 2.559])
    found = best_split(X, y, w, n_classes=0, criterion=criterion_code("poisson"))
    assert math.isfinite(found["improvement"]) and found["impurity_right"] < math.inf
    candidates = all_candidates(X, y, w, "poisson")
    assert is_tie(min(c[0] for c in candidates),
                  found["impurity_left"] * found["weight_left"]
                  + found["impurity_right"] * found["weight_right"], 1.0)
    reg = dtree.DecisionTreeRegressor(criterion="poisson").fit(X, y, sample_weight=w)
    assert np.isfinite(reg.tree_.impurity).all() and (reg.predict(X) > 0).all()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=count_problems(), splitter=st.sampled_from(["best", "hist"]))
def test_every_poisson_node_is_split_optimally_and_no_leaf_predicts_zero(problem, splitter):
    X, y, w, min_leaf = problem
    est = dtree.DecisionTreeRegressor(criterion="poisson", min_samples_leaf=min_leaf,
                                      splitter=splitter).fit(X, y, sample_weight=w)
    tree = est.tree_
    paths = est.decision_path(X).tocsc()
    for node in np.flatnonzero(tree.children_left != -1):
        rows = paths[:, node].nonzero()[0]
        candidates = all_candidates(X[rows], y[rows], None if w is None else w[rows],
                                    "poisson", min_samples_leaf=min_leaf)
        column = X[rows, tree.feature[node]]
        left = (column <= tree.threshold[node]) | (
            np.isnan(column) & bool(tree.missing_go_to_left[node]))
        assert_split_is_optimal(candidates, X[rows], tree.feature[node], tree.threshold[node],
                                tree.missing_go_to_left[node])
        assert left.any() and (~left).any()
    # no split leaves a child whose mean is 0: every prediction is positive
    assert (tree.value[:, 0, 0] > 0).all()
    assert (est.predict(X) > 0).all()


def _positive_target(seed, X):
    """A continuous positive target (counts would tie): a rate times gamma noise."""
    rng = np.random.RandomState(seed)
    return np.exp(0.08 * X[:, 0] - 0.05 * np.abs(X[:, 1])) * rng.gamma(2.0, size=len(X))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("params", [{}, {"max_depth": 4}, {"min_samples_leaf": 5},
                                    {"max_leaf_nodes": 12}])
def test_poisson_equals_sklearn_on_tie_free_data(params, weighted):
    X, _ = tie_free_data(4, 500, 4, regression=True)
    y = _positive_target(0, X)
    w = np.random.RandomState(5).uniform(0.2, 3.0, len(y)) if weighted else None
    ours = dtree.DecisionTreeRegressor(criterion="poisson", **params).fit(X, y, sample_weight=w)
    theirs = sklearn_tree.DecisionTreeRegressor(criterion="poisson", random_state=0,
                                                **params).fit(X, y, sample_weight=w)
    same, stopped = compare_trees(ours, theirs, X, y, w, "poisson")
    assert stopped == 0
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
    if not same:
        a, b = ours.tree_, theirs.tree_
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_array_equal(a.threshold, b.threshold)
        np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                                   rtol=1e-7, atol=1e-12)


def test_poisson_hist_equals_exact_on_few_valued_features():
    rng = np.random.RandomState(3)
    X = rng.randint(0, 40, size=(3000, 4)).astype(float)
    y = rng.poisson(np.exp(0.03 * X[:, 0])).astype(float)
    for params in ({}, {"max_leaf_nodes": 20}):
        exact = dtree.DecisionTreeRegressor(criterion="poisson", random_state=0,
                                            **params).fit(X, y).tree_
        hist = dtree.DecisionTreeRegressor(criterion="poisson", splitter="hist", random_state=0,
                                           **params).fit(X, y).tree_
        np.testing.assert_array_equal(exact.feature, hist.feature)
        np.testing.assert_array_equal(exact.threshold, hist.threshold)
        np.testing.assert_allclose(exact.impurity, hist.impurity, rtol=1e-9, atol=1e-12)


def test_poisson_node_impurity_is_the_half_deviance_per_weight():
    y = np.array([0.0, 1.0, 4.0, 2.0])
    mean = y.mean()
    expected = sum(v * math.log(v / mean) for v in y if v > 0) / len(y)
    assert impurity(y, "poisson") == pytest.approx(expected, rel=1e-12)
    tree = dtree.DecisionTreeRegressor(criterion="poisson", max_depth=1).fit(
        np.arange(4.0).reshape(-1, 1), y).tree_
    assert tree.impurity[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("factor", [2.0**-60, 3.0, 1e200])
def test_poisson_trees_do_not_depend_on_the_target_unit(factor):
    X, _ = tie_free_data(6, 300, 3, regression=True)
    y = _positive_target(1, X)
    base = dtree.DecisionTreeRegressor(random_state=0, criterion="poisson", min_impurity_decrease=1e-3)
    scaled = dtree.DecisionTreeRegressor(random_state=0, criterion="poisson",
                                         min_impurity_decrease=1e-3 * factor)
    a, b = base.fit(X, y).tree_, scaled.fit(X, y * factor).tree_
    assert a.node_count == b.node_count
    np.testing.assert_allclose(scaled.predict(X), base.predict(X) * factor, rtol=1e-9)
    if math.frexp(factor)[0] == 0.5:
        # a power of two changes no bit: the same arrays. Otherwise nodes of two or
        # three samples, where every feature makes the same partition, may pick
        # another of the tied features (hence the predictions above).
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_array_equal(a.threshold, b.threshold)
        # the half deviance is in the target's unit (squared error: its square)
        np.testing.assert_allclose(b.impurity, a.impurity * factor, rtol=1e-9)
        np.testing.assert_allclose(b.value, a.value * factor, rtol=1e-12)


def test_poisson_refuses_what_scikit_learn_refuses_in_its_order_and_words():
    X = np.arange(4.0).reshape(-1, 1)
    reg = dtree.DecisionTreeRegressor(criterion="poisson")
    with pytest.raises(ValueError, match="Some value\\(s\\) of y are negative which is not "
                                         "allowed for Poisson regression."):
        reg.fit(X, [1.0, -1.0, 0.0, 0.0])
    # before y's length is compared with X's, as in scikit-learn
    with pytest.raises(ValueError, match="Sum of y is not positive"):
        reg.fit([[0, 1, 2]], [0, 0, 0])
    with pytest.raises(ValueError, match="Sum of y is not positive which is necessary "
                                         "for Poisson regression."):
        reg.fit(X, [0.0, 0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="ccp_alpha='cv'"):
        dtree.DecisionTreeRegressor(criterion="poisson", ccp_alpha="cv").fit(
            X, [1.0, 2.0, 0.0, 3.0])
    with pytest.raises(ValueError, match="criterion"):
        dtree.DecisionTreeClassifier(criterion="poisson").fit(X, [0, 1, 0, 1])


def test_poisson_prunes_by_cost_complexity_in_its_own_units():
    X, _ = tie_free_data(7, 400, 3, regression=True)
    y = _positive_target(2, X)
    full = dtree.DecisionTreeRegressor(criterion="poisson").fit(X, y)
    path = full.cost_complexity_pruning_path(X, y)
    alpha = path.ccp_alphas[len(path.ccp_alphas) // 2]
    ours = dtree.DecisionTreeRegressor(criterion="poisson", ccp_alpha=alpha).fit(X, y)
    theirs = sklearn_tree.DecisionTreeRegressor(criterion="poisson", ccp_alpha=alpha,
                                                random_state=0).fit(X, y)
    assert 1 < ours.tree_.node_count < full.tree_.node_count
    assert ours.tree_.node_count == theirs.tree_.node_count


def test_friedman_mse_is_squared_error_with_scikit_learns_future_warning():
    X, y = tie_free_data(8, 300, 4, regression=True)
    with pytest.warns(FutureWarning, match="friedman_mse"):   # at construction, as 1.9
        friedman = dtree.DecisionTreeRegressor(random_state=0, criterion="friedman_mse")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        friedman.fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mse = dtree.DecisionTreeRegressor(random_state=0, criterion="squared_error").fit(X, y)
    np.testing.assert_array_equal(friedman.tree_.feature, mse.tree_.feature)
    np.testing.assert_array_equal(friedman.tree_.threshold, mse.tree_.threshold)
    np.testing.assert_array_equal(friedman.tree_.impurity, mse.tree_.impurity)
    # scikit-learn 1.9 stores the criterion it maps to, so clones do not warn again
    assert friedman.get_params()["criterion"] == "squared_error"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dtree.DecisionTreeRegressor(**friedman.get_params())
    # the alias is made at construction only: set later, the value is refused, as in 1.9
    with pytest.raises(ValueError, match="'criterion' parameter"):
        dtree.DecisionTreeRegressor(random_state=0).set_params(criterion="friedman_mse").fit(X, y)
