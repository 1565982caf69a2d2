"""absolute_error and quantile: the criteria whose node value is a weighted quantile.

The brute-force oracle (``reference``) scores a side by its least pinball loss
over every candidate value, and computes the weighted quantile by cumulative
weights: it shares nothing with the scans' Fenwick tree or rank pointer.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import tree as sklearn_tree

from helpers import (assert_root_split_is_optimal, assert_split_is_optimal, compare_trees,
                     few_valued_features, tie_free_data)
from reference import all_candidates, least_pinball, quantile_level, weighted_quantile

import dtree
from dtree._fit.gains import impurity
from dtree._plan.registry import criterion_code
from dtree._splitter import best_split


def _name(criterion, tau):
    """The reference's name of a criterion ("quantile:<tau>" carries its level)."""
    return criterion if criterion == "absolute_error" else f"quantile:{tau!r}"


@st.composite
def quantile_problems(draw):
    X = few_valued_features(draw, 50, 8)
    n = X.shape[0]
    if draw(st.booleans()):   # few values: ties between targets, and in the losses
        y = np.array(draw(st.lists(st.sampled_from([-3.0, 0.0, 1.0, 2.5, 7.0]),
                                   min_size=n, max_size=n)))
    else:
        y = np.array(draw(st.lists(st.floats(-100, 100), min_size=n, max_size=n)))
    w = None
    kind = draw(st.sampled_from(["unit", "integer", "real"]))
    if kind == "integer":     # whole weights make "exactly half below" common
        w = np.array(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), float)
    elif kind == "real":
        w = np.array(draw(st.lists(st.floats(0.1, 5.0), min_size=n, max_size=n)))
    criterion = draw(st.sampled_from(["absolute_error", "quantile"]))
    tau = 0.5 if criterion == "absolute_error" else draw(
        st.sampled_from([0.5, 0.25, 0.1, 0.9, 0.37]))
    return X, y, w, draw(st.integers(1, 3)), criterion, tau


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=quantile_problems())
def test_root_split_is_the_brute_force_optimum(problem):
    X, y, w, min_leaf, criterion, tau = problem
    found = best_split(X, y, w, n_classes=0, criterion=criterion_code(criterion),
                       min_samples_leaf=min_leaf, quantile=tau)
    candidates = all_candidates(X, y, w, _name(criterion, tau), min_samples_leaf=min_leaf)
    assert_root_split_is_optimal(found, candidates, X,
                                 scale=max(1.0, float(np.abs(y).max()) * len(y)))


@pytest.mark.parametrize("n", [64, 65, 130])
@pytest.mark.parametrize("criterion,tau", [("absolute_error", 0.5), ("quantile", 0.5),
                                           ("quantile", 0.3)])
@pytest.mark.parametrize("ties", [False, True])
def test_unit_weight_scans_past_one_word_of_ranks(n, criterion, tau, ties):
    # The unit-weight trackers keep the ranks in a bitset of 64-bit words and step
    # their quantile across words (and, at tau = 1/2, look at a neighbour they may
    # not use, up to a sentinel past the last rank): nodes wider than a word, with
    # missing values on either side, against the brute force.
    rng = np.random.default_rng(n + int(100 * tau) + ties)
    X = rng.normal(size=(n, 2)).astype(np.float32)
    X[::7, 0] = np.nan
    y = rng.normal(size=n) * 10
    if ties:
        y = np.round(y)
    found = best_split(X, y, None, n_classes=0, criterion=criterion_code(criterion), quantile=tau)
    candidates = all_candidates(X, y, None, _name(criterion, tau))
    assert_root_split_is_optimal(found, candidates, X, scale=float(np.abs(y).max()) * n)


def _is_the_quantile(q, ys, ws, tau):
    """q is the reference's weighted quantile, or one the tie rule gives where the
    weight below or up to a target is tau * W only up to rounding (0.1 + 0.1 + 0.1
    + 0.1 against a total of eight 0.1s): which side of exact a sum lands on is
    rounding, so the target itself or the midpoint with its neighbour."""
    if q == pytest.approx(weighted_quantile(ys, ws, tau), rel=1e-12, abs=1e-12):
        return True
    if np.all(ws * 1024 == np.round(ws * 1024)):
        return False    # dyadic weights sum exactly: no rounding to blame
    total = math.fsum(ws)
    target, slack = tau * total, 1e-12 * total
    values = np.unique(ys)
    for low, high in zip(values[:-1], values[1:]):
        upto = math.fsum(ws[ys <= low])
        if abs(upto - target) <= slack and q in (low, high, 0.5 * (low + high)):
            return True
    return False


def _node_rows(est, X):
    paths = est.decision_path(X).tocsc()
    return [paths[:, node].nonzero()[0] for node in range(est.tree_.node_count)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=quantile_problems())
def test_every_node_is_optimal_and_its_value_is_the_weighted_quantile(problem):
    X, y, w, min_leaf, criterion, tau = problem
    est = dtree.DecisionTreeRegressor(criterion=criterion, quantile=tau,
                                      min_samples_leaf=min_leaf).fit(X, y, sample_weight=w)
    tree = est.tree_
    weights = np.ones(len(y)) if w is None else w
    _, above, below = quantile_level(_name(criterion, tau))
    scale = max(1.0, float(np.abs(y).max()) * len(y))
    for node, rows in enumerate(_node_rows(est, X)):
        ys, ws = y[rows], weights[rows]
        # the value: scikit-learn's weighted median, generalised to tau
        assert _is_the_quantile(tree.value[node, 0, 0], ys, ws, tau)
        # the impurity: the least loss per unit weight
        loss = least_pinball(ys, ws, above, below)
        assert tree.impurity[node] * math.fsum(ws) == pytest.approx(loss, rel=1e-9,
                                                                   abs=1e-9 * scale)
        if tree.children_left[node] == -1:
            continue
        candidates = all_candidates(X[rows], ys, None if w is None else ws,
                                    _name(criterion, tau), min_samples_leaf=min_leaf)
        assert_split_is_optimal(candidates, X[rows], tree.feature[node], tree.threshold[node],
                                tree.missing_go_to_left[node], scale)


@settings(max_examples=100, deadline=None)
@given(y=st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1e6), st.floats(-1e6, -1e-6)),
                  min_size=1, max_size=40),   # (subnormal targets lose bits to scaling)
       weights=st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0, 0.25]), min_size=40,
                        max_size=40))
def test_absolute_error_leaf_values_are_weighted_medians(y, weights):
    y = np.array(y)
    w = np.array(weights[:len(y)])
    reg = dtree.DecisionTreeRegressor(criterion="absolute_error", max_depth=1).fit(
        np.zeros((len(y), 1)), y, sample_weight=w)
    median = reg.tree_.value[0, 0, 0]
    assert median == weighted_quantile(y, w, 0.5)
    # a weighted median: at most half the weight on either side of it
    assert w[y < median].sum() <= w.sum() / 2 and w[y > median].sum() <= w.sum() / 2


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("params", [{}, {"max_depth": 4}, {"min_samples_leaf": 5},
                                    {"max_leaf_nodes": 12}])
def test_absolute_error_equals_sklearn_on_tie_free_data(params, weighted):
    X, y = tie_free_data(4, 400, 4, regression=True)
    w = np.random.RandomState(5).uniform(0.2, 3.0, len(y)) if weighted else None
    ours = dtree.DecisionTreeRegressor(criterion="absolute_error", **params).fit(
        X, y, sample_weight=w)
    theirs = sklearn_tree.DecisionTreeRegressor(criterion="absolute_error", random_state=0,
                                                **params).fit(X, y, sample_weight=w)
    # every node's value and impurity equal; where the splits differ they tie
    same, stopped = compare_trees(ours, theirs, X, y, w, "absolute_error")
    if weighted:
        # real weights leave no equal losses between different partitions (a node
        # of three samples still ties between features that cut it alike)
        assert stopped == 0
    assert ours.tree_.node_count == theirs.tree_.node_count or stopped > 0
    if stopped == 0:
        np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)


def test_quantile_at_one_half_splits_as_absolute_error_with_half_its_loss():
    X, y = tie_free_data(2, 300, 3, regression=True)
    a = dtree.DecisionTreeRegressor(random_state=0, criterion="absolute_error").fit(X, y).tree_
    q = dtree.DecisionTreeRegressor(random_state=0, criterion="quantile", quantile=0.5).fit(X, y).tree_
    np.testing.assert_array_equal(a.feature, q.feature)
    np.testing.assert_array_equal(a.threshold, q.threshold)
    np.testing.assert_array_equal(a.value, q.value)
    np.testing.assert_allclose(q.impurity, a.impurity / 2, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("tau", [0.05, 0.3, 0.8, 0.95])
def test_each_leaf_predicts_its_tau_quantile(tau):
    X, y = tie_free_data(3, 2000, 3, regression=True)
    w = np.random.RandomState(1).randint(1, 4, len(y)).astype(float)
    est = dtree.DecisionTreeRegressor(criterion="quantile", quantile=tau,
                                      min_samples_leaf=40).fit(X, y, sample_weight=w)
    leaves = est.apply(X)
    for leaf in np.unique(leaves):
        ys, ws, q = y[leaves == leaf], w[leaves == leaf], est.tree_.value[leaf, 0, 0]
        # the defining property: weight below at most tau, weight up to it at least tau
        assert ws[ys < q].sum() <= tau * ws.sum() + 1e-9
        assert ws[ys <= q].sum() >= tau * ws.sum() - 1e-9
    low = dtree.DecisionTreeRegressor(criterion="quantile", quantile=0.1, max_depth=3)
    high = dtree.DecisionTreeRegressor(criterion="quantile", quantile=0.9, max_depth=3)
    assert low.fit(X, y).tree_.value[0, 0, 0] < high.fit(X, y).tree_.value[0, 0, 0]


@pytest.mark.parametrize("criterion", ["absolute_error", "quantile"])
@pytest.mark.parametrize("factor", [2.0**-70, 2.0**80, 1e300, 1e-300])
def test_trees_do_not_depend_on_the_target_unit(criterion, factor):
    X, y = tie_free_data(6, 300, 3, regression=True)
    base = dtree.DecisionTreeRegressor(random_state=0, criterion=criterion, quantile=0.3).fit(X, y)
    scaled = dtree.DecisionTreeRegressor(random_state=0, criterion=criterion, quantile=0.3).fit(
        X, y * factor)
    assert base.tree_.node_count == scaled.tree_.node_count
    np.testing.assert_allclose(scaled.predict(X), base.predict(X) * factor, rtol=1e-9)
    if math.frexp(factor)[0] == 0.5:
        np.testing.assert_array_equal(base.tree_.feature, scaled.tree_.feature)
        # the losses are in the target's unit
        np.testing.assert_allclose(scaled.tree_.impurity, base.tree_.impurity * factor,
                                   rtol=1e-9)


def test_extreme_weights_give_the_moderate_tree():
    X, y = tie_free_data(9, 300, 3, regression=True)
    w = np.random.RandomState(2).uniform(0.5, 2.0, len(y))
    base = dtree.DecisionTreeRegressor(random_state=0, criterion="absolute_error").fit(X, y, sample_weight=w)
    for factor in (2.0**-990, 2.0**1000):
        other = dtree.DecisionTreeRegressor(random_state=0, criterion="absolute_error").fit(
            X, y, sample_weight=w * factor)
        np.testing.assert_array_equal(base.tree_.feature, other.tree_.feature)
        np.testing.assert_array_equal(base.tree_.value, other.tree_.value)


def test_a_categorical_feature_is_cut_along_its_categories_mean_order():
    rng = np.random.RandomState(0)
    codes = rng.randint(0, 6, 600)
    shift = np.array([5.0, -2.0, 9.0, 0.0, 3.0, -6.0])
    y = shift[codes] + rng.standard_normal(600) * 3
    X = codes.reshape(-1, 1).astype(float)
    est = dtree.DecisionTreeRegressor(criterion="absolute_error", categorical_features=[0],
                                      max_depth=1).fit(X, y)
    order = np.argsort([y[codes == c].mean() for c in range(6)], kind="stable")
    # the oracle: every cut of that order, scored by the least absolute errors
    scores = []
    for k in range(1, 6):
        left = np.isin(codes, order[:k])
        scores.append(least_pinball(y[left], np.ones(left.sum()), 1.0, 1.0)
                      + least_pinball(y[~left], np.ones((~left).sum()), 1.0, 1.0))
    best = int(np.argmin(scores))
    left = est.apply(X) == est.tree_.children_left[0]
    assert set(codes[left]) in (set(order[:best + 1]), set(order[best + 1:]))
    assert est.tree_.impurity[0] * 600 - est.tree_.impurity[1:] @ est.tree_.n_node_samples[1:] \
        == pytest.approx(least_pinball(y, np.ones(600), 1.0, 1.0) - scores[best], rel=1e-9)


def test_impurity_helper_is_the_mean_loss():
    y = np.array([1.0, 2.0, 10.0, 4.0])
    assert impurity(y, "absolute_error") == pytest.approx(np.mean(np.abs(y - 3.0)))
    # tau = 0.25 of 4 unit samples: exactly one below 2.0, so the midpoint 1.5;
    # the loss is the same at any point between 1 and 2
    expected = (0.25 * ((2.0 - 1.5) + (10.0 - 1.5) + (4.0 - 1.5)) + 0.75 * (1.5 - 1.0)) / 4
    assert impurity(y, "quantile", quantile=0.25) == pytest.approx(expected)


@pytest.mark.parametrize("value", [0.0, 1.0, 1.5, -0.2, "0.5"])
def test_a_quantile_outside_the_open_unit_interval_is_refused(value):
    reg = dtree.DecisionTreeRegressor(criterion="quantile", quantile=value)
    with pytest.raises(ValueError, match="'quantile' parameter .* must be a float in the "
                                         "range \\(0.0, 1.0\\)"):
        reg.fit([[0.0], [1.0]], [0.0, 1.0])


def test_what_the_quantile_criteria_do_not_support_is_refused_clearly():
    X, y = tie_free_data(1, 50, 2, regression=True)
    with pytest.raises(ValueError, match="splitter='hist' does not support "
                                         "criterion='absolute_error'"):
        dtree.DecisionTreeRegressor(criterion="absolute_error", splitter="hist").fit(X, y)
    with pytest.raises(ValueError, match="ccp_alpha='cv'.*criterion='quantile'"):
        dtree.DecisionTreeRegressor(criterion="quantile", ccp_alpha="cv").fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        dtree.DecisionTreeClassifier(criterion="absolute_error").fit(X, y > 0)


def test_absolute_error_prunes_by_cost_complexity_as_sklearn():
    X, y = tie_free_data(7, 300, 3, regression=True)
    w = np.random.RandomState(3).uniform(0.5, 2.0, len(y))
    ours = dtree.DecisionTreeRegressor(criterion="absolute_error")
    theirs = sklearn_tree.DecisionTreeRegressor(criterion="absolute_error", random_state=0)
    path = ours.cost_complexity_pruning_path(X, y, sample_weight=w)
    np.testing.assert_allclose(
        path.ccp_alphas, theirs.cost_complexity_pruning_path(X, y, sample_weight=w).ccp_alphas,
        rtol=1e-7, atol=1e-12)
    alpha = path.ccp_alphas[len(path.ccp_alphas) // 2]
    pruned = dtree.DecisionTreeRegressor(criterion="absolute_error", ccp_alpha=alpha)
    reference = sklearn_tree.DecisionTreeRegressor(criterion="absolute_error", ccp_alpha=alpha,
                                                   random_state=0)
    pruned.fit(X, y, sample_weight=w)
    reference.fit(X, y, sample_weight=w)
    assert 1 < pruned.tree_.node_count == reference.tree_.node_count
    np.testing.assert_array_equal(pruned.predict(X), reference.predict(X))


@pytest.mark.parametrize("criterion", ["absolute_error", "quantile"])
def test_model_files_keep_the_criterion_and_its_values(tmp_path, criterion):
    X, y = tie_free_data(5, 200, 3, regression=True)
    est = dtree.DecisionTreeRegressor(criterion=criterion, quantile=0.8, max_depth=5).fit(X, y)
    path = tmp_path / "model.dtree"
    est.save(path)
    loaded = dtree.load(path)
    assert loaded.get_params()["criterion"] == criterion
    assert loaded.get_params()["quantile"] == 0.8
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))


@pytest.mark.parametrize("criterion,tau", [("absolute_error", 0.5), ("quantile", 0.3)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unit_weights_build_the_tree_of_explicit_unit_weights(criterion, tau, seed):
    # Two trackers, one answer: without weights the one-pass rank pointers, with
    # weights of 1 the Fenwick tree's passes; wide nodes, missing values.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3)).astype(np.float32)
    X[rng.random(300) < 0.1, 1] = np.nan
    y = rng.normal(size=300) * 100
    unit = dtree.DecisionTreeRegressor(criterion=criterion, quantile=tau, random_state=0).fit(X, y)
    ones = dtree.DecisionTreeRegressor(criterion=criterion, quantile=tau, random_state=0).fit(
        X, y, sample_weight=np.ones(300))
    a, b = unit.tree_, ones.tree_
    for name in ("children_left", "children_right", "feature", "threshold",
                 "missing_go_to_left", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.value, b.value)
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-12, atol=1e-9)
