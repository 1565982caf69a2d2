"""monotonic_cst: scikit-learn's constraints, in the exact and the histogram splitter."""
import numpy as np
import pytest
from sklearn import tree as sklearn_tree

from helpers import compare_trees, tie_free_data

import dtree

CST = [1, -1, 0]


def _data(seed=3, n=600, missing=False):
    X, y = tie_free_data(seed, n, 3, regression=True)
    X = X.astype(float)
    y = y + 2.0 * X[:, 0] - 1.5 * X[:, 1]     # the constrained features matter
    if missing:
        X[::7, 0] = np.nan
    return X, y


def _grid(X, feature, n_points=60, n_rows=40, seed=0):
    """Rows of X repeated with ``feature`` swept over its range: (n_rows, n_points, d)."""
    rng = np.random.RandomState(seed)
    base = X[rng.choice(len(X), n_rows, replace=False)]
    base = np.where(np.isnan(base), 0.0, base)
    values = np.linspace(np.nanmin(X[:, feature]) - 1, np.nanmax(X[:, feature]) + 1, n_points)
    out = np.repeat(base[:, None, :], n_points, axis=1)
    out[:, :, feature] = values[None, :]
    return out


def _assert_monotonic(predict, X, cst):
    for feature, sign in enumerate(cst):
        if sign == 0:
            continue
        grid = _grid(X, feature)
        pred = predict(grid.reshape(-1, X.shape[1])).reshape(grid.shape[:2])
        steps = np.diff(pred, axis=1) * sign
        assert (steps >= -1e-12).all(), (feature, steps.min())


# (the quantile criteria have no histogram mode: refused, see test_quantile_criteria)
@pytest.mark.parametrize("criterion, splitter", [
    ("squared_error", "best"), ("squared_error", "hist"), ("poisson", "best"),
    ("poisson", "hist"), ("absolute_error", "best"), ("quantile", "best")])
@pytest.mark.parametrize("missing", [False, True])
def test_regression_predictions_are_monotonic_on_a_grid(criterion, splitter, missing):
    X, y = _data(missing=missing)
    if criterion == "poisson":
        y = np.exp(y / 20)
    est = dtree.DecisionTreeRegressor(criterion=criterion, splitter=splitter, quantile=0.7,
                                      monotonic_cst=CST).fit(X, y)
    assert est.tree_.node_count > 50
    _assert_monotonic(est.predict, X, CST)
    # without the constraints the same data gives a tree that breaks them
    free = dtree.DecisionTreeRegressor(criterion=criterion, splitter=splitter,
                                       quantile=0.7).fit(X, y)
    with pytest.raises(AssertionError):
        _assert_monotonic(free.predict, X, CST)


@pytest.mark.parametrize("splitter", ["best", "hist"])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_binary_probabilities_are_monotonic_on_a_grid(criterion, splitter):
    X, y = _data(missing=True)
    labels = np.where(y > np.median(y), "yes", "no")   # classes_[1] is "yes"
    est = dtree.DecisionTreeClassifier(criterion=criterion, splitter=splitter,
                                       monotonic_cst=CST).fit(X, labels)
    _assert_monotonic(lambda Z: est.predict_proba(Z)[:, 1], X, CST)
    proba = est.tree_.value[:, 0, :]
    np.testing.assert_array_equal(proba[:, 1], 1.0 - proba[:, 0])


# (full depth has nodes of two or three samples where a constrained and a free
# feature make the same cut: a tie, which scikit-learn breaks by its random
# feature order, and the constrained choice bounds the values below it)
@pytest.mark.parametrize("params", [{"max_depth": 5}, {"min_samples_leaf": 5},
                                    {"max_leaf_nodes": 15}])
@pytest.mark.parametrize("criterion", ["squared_error", "poisson"])
def test_regression_equals_sklearn(criterion, params):
    X, y = _data(missing=True)
    if criterion == "poisson":
        y = np.exp(y / 20)
    w = np.random.RandomState(1).uniform(0.5, 2.0, len(y))
    ours = dtree.DecisionTreeRegressor(criterion=criterion, monotonic_cst=CST, **params)
    theirs = sklearn_tree.DecisionTreeRegressor(criterion=criterion, monotonic_cst=CST,
                                                random_state=0, **params)
    ours.fit(X, y, sample_weight=w)
    theirs.fit(X, y, sample_weight=w)
    same, stopped = compare_trees(ours, theirs, X, y, w, criterion)
    assert stopped == 0
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("params", [{"min_samples_leaf": 10}, {"max_depth": 4},
                                    {"max_leaf_nodes": 12}])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_binary_classification_equals_sklearn(criterion, params):
    X, y = _data(seed=5)
    labels = (y > np.median(y)).astype(int)
    ours = dtree.DecisionTreeClassifier(criterion=criterion, monotonic_cst=[-1, 1, 0],
                                        **params).fit(X, labels)
    theirs = sklearn_tree.DecisionTreeClassifier(criterion=criterion, monotonic_cst=[-1, 1, 0],
                                                 random_state=0, **params).fit(X, labels)
    assert ours.tree_.node_count == theirs.tree_.node_count
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
    # clipped values included: every node's, bit for bit
    np.testing.assert_array_equal(ours.tree_.value, theirs.tree_.value)


def test_absolute_error_equals_sklearn_up_to_ties():
    X, y = _data(seed=4, n=400)
    w = np.random.RandomState(2).uniform(0.5, 2.0, len(y))
    ours = dtree.DecisionTreeRegressor(criterion="absolute_error", monotonic_cst=CST,
                                       max_depth=6).fit(X, y, sample_weight=w)
    theirs = sklearn_tree.DecisionTreeRegressor(criterion="absolute_error", monotonic_cst=CST,
                                                max_depth=6, random_state=0).fit(
        X, y, sample_weight=w)
    same, stopped = compare_trees(ours, theirs, X, y, w, "absolute_error")
    assert stopped == 0
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)


def test_values_are_clipped_to_the_bounds_a_constrained_split_sets():
    # y falls with x where the constraint says it must rise: every split on x is
    # refused, and the tree is the root alone
    X = np.arange(20.0).reshape(-1, 1)
    y = -X[:, 0]
    est = dtree.DecisionTreeRegressor(monotonic_cst=[1]).fit(X, y)
    assert est.tree_.node_count == 1
    # a rising step is allowed; below it, the constraint bounds the children
    y = np.r_[np.zeros(10), np.ones(10)] + np.r_[np.linspace(0, -0.5, 10), np.linspace(0, -0.5, 10)]
    est = dtree.DecisionTreeRegressor(monotonic_cst=[1], max_depth=3).fit(X, y)
    pred = est.predict(X)
    assert (np.diff(pred) >= 0).all() and est.tree_.node_count > 1
    sk = sklearn_tree.DecisionTreeRegressor(monotonic_cst=[1], max_depth=3).fit(X, y)
    np.testing.assert_array_equal(est.tree_.value, sk.tree_.value)


def test_bad_constraints_are_refused_in_sklearns_words():
    X, y = _data(n=60)
    reg = dtree.DecisionTreeRegressor
    with pytest.raises(ValueError, match="monotonic_cst has shape 2 but the input data X "
                                         "has 3 features."):
        reg(monotonic_cst=[1, 0]).fit(X, y)
    with pytest.raises(ValueError, match="monotonic_cst must be None or an array-like of -1, "
                                         "0 or 1, but got \\[-2  0  1\\]"):
        reg(monotonic_cst=[1, 0, -2]).fit(X, y)
    with pytest.raises(ValueError, match="'monotonic_cst' parameter .* must be None or an "
                                         "array-like"):
        reg(monotonic_cst="increasing").fit(X, y)
    with pytest.raises(ValueError, match="Monotonicity constraints are not supported with "
                                         "multiclass classification"):
        dtree.DecisionTreeClassifier(monotonic_cst=CST).fit(X, np.arange(60) % 3)
    Xc = np.c_[X[:, :2], np.arange(60) % 4]
    with pytest.raises(ValueError, match="categorical feature\\(s\\) \\[2\\]"):
        reg(monotonic_cst=[1, 0, 1], categorical_features=[2]).fit(Xc, y)
    with pytest.raises(ValueError, match="algorithm='c4.5' does not support monotonic_cst"):
        dtree.DecisionTreeClassifier(algorithm="c4.5", monotonic_cst=CST).fit(X, y > 0)


def test_model_files_keep_the_constraints(tmp_path):
    X, y = _data(n=200)
    est = dtree.DecisionTreeRegressor(monotonic_cst=np.array(CST), max_depth=5).fit(X, y)
    est.save(tmp_path / "m.dtree")
    loaded = dtree.load(tmp_path / "m.dtree")
    assert list(loaded.get_params()["monotonic_cst"]) == CST
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
