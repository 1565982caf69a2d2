"""value_tolerance: dtree's exact rule by default, scikit-learn's 1e-7 rule on request."""
import numpy as np
import pytest
from sklearn import tree as sklearn_tree

from helpers import compare_trees

import dtree


def _close_values(seed, n=400, d=3):
    """Columns with clusters of values closer than 1e-7 (and some far apart)."""
    rng = np.random.RandomState(seed)
    base = rng.randint(0, 12, size=(n, d)).astype(np.float64)
    X = (base + rng.randint(0, 3, size=(n, d)) * 3e-8).astype(np.float32)
    return X, base


def test_the_default_splits_between_any_two_different_values():
    X = np.array([[0.0], [1e-9], [2e-9], [3e-9]], dtype=np.float32)
    y = [0, 0, 1, 1]
    ours = dtree.DecisionTreeClassifier().fit(X, y)
    assert ours.tree_.node_count == 3 and ours.score(X, y) == 1.0
    # scikit-learn's rule sees one value: the root stays a leaf, with the tolerance too
    assert sklearn_tree.DecisionTreeClassifier().fit(X, y).tree_.node_count == 1
    assert dtree.DecisionTreeClassifier(value_tolerance=1e-7).fit(X, y).tree_.node_count == 1


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
@pytest.mark.parametrize("missing", [False, True])
def test_a_tolerance_of_1e_7_is_scikit_learns_rule(kind, missing):
    X, base = _close_values(1)
    rng = np.random.RandomState(2)
    if missing:
        X = X.astype(np.float64)
        X[::9, 1] = np.nan
    signal = base[:, 0] + 0.5 * base[:, 1]
    w = rng.uniform(0.5, 2.0, len(X))
    if kind == "classifier":
        y = (signal + rng.normal(size=len(X)) * 2 > 8).astype(int)
        ours = dtree.DecisionTreeClassifier(value_tolerance=1e-7, min_samples_leaf=3)
        theirs = sklearn_tree.DecisionTreeClassifier(random_state=0, min_samples_leaf=3)
        criterion, n_classes = "gini", 2
    else:
        y = signal + rng.normal(size=len(X))
        ours = dtree.DecisionTreeRegressor(value_tolerance=1e-7, min_samples_leaf=3)
        theirs = sklearn_tree.DecisionTreeRegressor(random_state=0, min_samples_leaf=3)
        criterion, n_classes = "squared_error", None
    ours.fit(X, y, sample_weight=w)
    theirs.fit(X, y, sample_weight=w)
    same, stopped = compare_trees(ours, theirs, X, y, w, criterion, n_classes)
    assert stopped == 0
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
    # no threshold falls inside a cluster of close values
    exact = type(ours)(min_samples_leaf=3).fit(X, y, sample_weight=w)
    assert exact.tree_.node_count > ours.tree_.node_count


def test_a_feature_within_the_tolerance_is_constant_and_does_not_use_up_the_draw():
    rng = np.random.RandomState(0)
    X = np.c_[rng.uniform(0, 1e-8, 200), rng.uniform(size=200)].astype(np.float32)
    y = (X[:, 1] > 0.5).astype(int)
    est = dtree.DecisionTreeClassifier(value_tolerance=1e-7, max_features=1,
                                       random_state=0).fit(X, y)
    assert (est.tree_.feature[est.tree_.children_left != -1] == 1).all()
    assert est.score(X, y) == 1.0


def test_bad_tolerances_and_unsupported_modes_are_refused():
    X, y = np.arange(6.0).reshape(-1, 1), [0, 1, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="'value_tolerance' parameter .* must be a float in "
                                         "the range \\[0.0, inf\\)"):
        dtree.DecisionTreeClassifier(value_tolerance=-1e-7).fit(X, y)
    with pytest.raises(ValueError, match="splitter='hist' does not support value_tolerance"):
        dtree.DecisionTreeClassifier(value_tolerance=1e-7, splitter="hist").fit(X, y)
    with pytest.raises(ValueError, match="value_tolerance > 0 is not supported"):
        dtree.DecisionTreeClassifier(value_tolerance=1e-7, algorithm="c4.5").fit(X, y)


@pytest.mark.parametrize("estimator", [dtree.DecisionTreeClassifier,
                                       dtree.DecisionTreeRegressor])
def test_sklearns_almost_constant_feature_case_passes_with_its_tolerance(estimator):
    # scikit-learn's test_almost_constant_feature, with its rule asked for
    rng = np.random.RandomState(0)
    X = rng.rand(10, 2)
    X[:, 0] *= 1e-7
    y = rng.randint(0, 2, (10,))
    est = estimator(random_state=0, value_tolerance=1e-7).fit(X, y)
    assert est.feature_importances_[0] == 0 and est.feature_importances_[1] > 0
    # dtree's own rule uses the small feature: its values do differ
    assert estimator(random_state=0).fit(X, y).feature_importances_[0] > 0
