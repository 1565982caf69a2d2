"""Missing values (NaN) in numeric columns: learnt routing, same trees as scikit-learn."""
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from helpers import compare_trees, tie_free_data

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.datasets import load


def _with_missing(seed, X, y, rate=0.15):
    rng = np.random.RandomState(seed)
    X = X.copy()
    X[rng.rand(*X.shape) < rate] = np.nan
    # a column whose missingness carries signal
    X[:, -1] = np.where(y > np.median(y), np.nan, X[:, -1])
    return X


@pytest.mark.parametrize("params", [{"min_samples_leaf": 10}, {"max_depth": 4},
                                    {"max_leaf_nodes": 20}, {}],
                         ids=["leaf10", "depth4", "leaves20", "full"])
def test_regression_with_nan_equals_sklearn(params):
    X, y = tie_free_data(61, 800, 4, regression=True)
    X = _with_missing(0, X, y)
    ours = DecisionTreeRegressor(**params).fit(X, y)
    theirs = SkRegressor(random_state=0, **params).fit(X, y)
    same, stopped = compare_trees(ours, theirs, X, y, None, "squared_error")
    assert stopped == 0
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
    if params:  # nodes large enough for no tie: the very same arrays
        assert same == 0
        np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
        np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
        inner = ours.tree_.children_left != -1  # leaves carry no routing
        np.testing.assert_array_equal(ours.tree_.missing_go_to_left[inner],
                                      theirs.tree_.missing_go_to_left[inner])


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_weighted_classification_with_nan_equals_sklearn(criterion):
    X, y = tie_free_data(62, 600, 4, n_classes=3)
    X = _with_missing(1, X, y.astype(float))
    w = np.random.RandomState(3).uniform(0.5, 2.0, len(y))
    ours = DecisionTreeClassifier(criterion=criterion, min_samples_leaf=5).fit(X, y, w)
    theirs = SkClassifier(criterion=criterion, min_samples_leaf=5,
                          random_state=0).fit(X, y, w)
    same, stopped = compare_trees(ours, theirs, X, y, w, criterion, n_classes=3)
    assert stopped == 0
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    X_new = _with_missing(9, *tie_free_data(63, 300, 4, n_classes=3))
    np.testing.assert_allclose(ours.predict_proba(X_new), theirs.predict_proba(X_new),
                               atol=1e-12)


def test_missingness_alone_can_be_the_split():
    rng = np.random.RandomState(0)
    X = rng.rand(200, 2)
    y = rng.randint(0, 2, 200)
    X[y == 1, 1] = np.nan  # only class 1 misses column 1
    clf = DecisionTreeClassifier(max_depth=1).fit(X, y)
    tree = clf.tree_
    assert tree.feature[0] == 1 and np.isinf(tree.threshold[0])
    assert not tree.missing_go_to_left[0]
    assert clf.score(X, y) == 1.0


def test_missing_values_can_be_sent_left():
    x = np.r_[np.arange(10.0), [np.nan] * 5]
    y = np.r_[np.zeros(5), np.ones(5), np.zeros(5)]
    clf = DecisionTreeClassifier(max_depth=1).fit(x[:, None], y)
    assert clf.tree_.threshold[0] == 4.5 and clf.tree_.missing_go_to_left[0] == 1
    assert clf.score(x[:, None], y) == 1.0


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss"])
def test_missing_values_tied_both_ways_go_right_as_in_sklearn(criterion):
    # scikit-learn's test_missing_values_best_splitter_missing_both_classes_has_nan:
    # one missing value per class, so sending them left or right scores the same;
    # scikit-learn tries right first and keeps it unless left is strictly better.
    X = np.array([[1, 2, 3, 5, np.nan, 10, 20, 30, 60, np.nan]]).T
    y = np.array([0] * 5 + [1] * 5)
    clf = DecisionTreeClassifier(max_depth=1, criterion=criterion).fit(X, y)
    assert clf.tree_.threshold[0] == 7.5 and clf.tree_.missing_go_to_left[0] == 0
    assert clf.predict(np.array([[np.nan, 2.3, 34.2]]).T).tolist() == [1, 0, 1]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 3000), n_missing=st.integers(1, 40),
       criterion=st.sampled_from(["entropy", "gini"]))
def test_mirrored_missing_values_tie_exactly_at_any_size(n, n_missing, criterion):
    # A node whose two classes mirror each other (n low numbers and n_missing NaN
    # per class): both routings of the NaN have the same counts, swapped. The
    # entropy scan's x ln x entries sit on a grid where every sum is exact, so the
    # tie is exact whatever order the counts were accumulated in, and right wins.
    x = np.r_[np.arange(n), np.full(n_missing, np.nan),
              np.arange(n) + 10 * n, np.full(n_missing, np.nan)]
    y = np.r_[np.zeros(n + n_missing), np.ones(n + n_missing)]
    clf = DecisionTreeClassifier(max_depth=1, criterion=criterion).fit(x[:, None], y)
    assert clf.tree_.threshold[0] == (11 * n - 1) / 2  # between n - 1 and 10 n
    assert clf.tree_.missing_go_to_left[0] == 0


def test_nan_at_predict_follows_the_larger_child_where_fit_saw_none():
    x = np.r_[np.zeros(3), np.ones(7)][:, None]
    y = np.r_[np.zeros(3), np.ones(7)]
    clf = DecisionTreeClassifier().fit(x, y)
    assert clf.tree_.missing_go_to_left[0] == 0  # the right child has 7 of 10
    assert clf.predict([[np.nan]]).tolist() == [1.0]
    clf = DecisionTreeClassifier().fit(1 - x, y)  # now the larger child is the left
    assert clf.tree_.missing_go_to_left[0] == 1
    assert clf.predict([[np.nan]]).tolist() == [1.0]


def test_all_missing_column_and_constant_known_values():
    X = np.c_[np.full(6, np.nan), [1, 1, 1, np.nan, np.nan, np.nan]]
    y = [0, 0, 0, 1, 1, 1]
    clf = DecisionTreeClassifier().fit(X, y)
    assert clf.tree_.feature[0] == 1 and clf.score(X, y) == 1.0
    assert DecisionTreeClassifier().fit(X[:, :1], y).tree_.node_count == 1


def test_titanic_and_california_fit_with_missing_numbers():
    titanic = load("titanic")
    X = titanic[["Pclass", "Age", "SibSp", "Parch", "Fare"]]  # Age has 177 NaN
    clf = DecisionTreeClassifier(max_depth=5).fit(X, titanic["Survived"])
    assert clf.score(X, titanic["Survived"]) > 0.75
    housing = load("california_housing").drop(columns=["ocean_proximity"])
    y = housing.pop("median_house_value")  # total_bedrooms has 207 NaN
    reg = DecisionTreeRegressor(max_depth=8).fit(housing, y)
    assert reg.score(housing, y) > 0.6


def test_missing_routing_survives_save_pickle_and_pruning():
    X, y = tie_free_data(64, 400, 3, regression=True)
    X = _with_missing(2, X, y)
    reg = DecisionTreeRegressor(min_samples_leaf=5).fit(X, y)
    buffer = io.BytesIO()
    reg.save(buffer)
    buffer.seek(0)
    np.testing.assert_array_equal(dtree.load(buffer).predict(X), reg.predict(X))
    pruned = reg.prune(1.0)
    kept = pruned.tree_.children_left != -1
    assert set(pruned.tree_.missing_go_to_left[~kept]) <= {0}
    np.testing.assert_array_equal(
        DecisionTreeRegressor(min_samples_leaf=5, ccp_alpha=1.0).fit(X, y).predict(X),
        pruned.predict(X))
