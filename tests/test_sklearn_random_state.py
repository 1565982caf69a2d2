"""Same random_state, same tree as scikit-learn: ties and feature draws included.

scikit-learn seeds one generator per fit from ``random_state``, draws the
features' visiting order anew at each node (setting aside those found
constant), keeps the first of tied candidates in that order, and decides ties
that are exact in real arithmetic by the rounding of its own scores. dtree
follows all of it, so on data whose sums are exact (integer-valued weights,
class weights and regression targets) the node arrays are equal, not merely
equivalent. (Non-integer weights or targets: see README "Decisions".)
"""
import numpy as np
import pandas as pd
import pytest
from sklearn import datasets
from sklearn import tree as sk
from sklearn.model_selection import train_test_split

import dtree
from dtree import datasets as shipped

SEEDS = range(10)
LOADERS = {"breast_cancer": datasets.load_breast_cancer, "iris": datasets.load_iris,
           "digits": datasets.load_digits, "wine": datasets.load_wine,
           "diabetes": datasets.load_diabetes}
SETTINGS = {"default": {}, "sqrt": {"max_features": "sqrt"}, "leaves20": {"max_leaf_nodes": 20},
            "leaf3": {"min_samples_leaf": 3}, "weights": {}}


def assert_same_tree(ours, theirs):
    """Node arrays equal: structure, features, thresholds and routing exactly."""
    a, b = ours.tree_, theirs.tree_
    assert a.node_count == b.node_count
    for name in ("children_left", "children_right", "feature", "threshold", "n_node_samples"):
        np.testing.assert_array_equal(np.asarray(getattr(a, name)),
                                      np.asarray(getattr(b, name)), err_msg=name)
    # (at leaves scikit-learn keeps whatever its unexpanded split said: not compared)
    internal = a.children_left >= 0
    np.testing.assert_array_equal(np.asarray(a.missing_go_to_left)[internal],
                                  np.asarray(b.missing_go_to_left)[internal])
    np.testing.assert_allclose(a.weighted_n_node_samples, b.weighted_n_node_samples, rtol=1e-12)
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.asarray(a.value).reshape(a.node_count, -1),
                               np.asarray(b.value).reshape(b.node_count, -1),
                               rtol=1e-9, atol=1e-12)


def _pair(regression, **params):
    if regression:
        return dtree.DecisionTreeRegressor(**params), sk.DecisionTreeRegressor(**params)
    return dtree.DecisionTreeClassifier(**params), sk.DecisionTreeClassifier(**params)


def _fit_both(X, y, regression, seed, sample_weight=None, n_jobs=None, **params):
    ours, theirs = _pair(regression, random_state=seed, **params)
    if n_jobs is not None:
        ours.set_params(n_jobs=n_jobs)
    ours.fit(X, y, sample_weight=sample_weight)
    theirs.fit(X, y, sample_weight=sample_weight)
    return ours, theirs


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("name", LOADERS)
def test_scikit_learns_datasets_give_its_trees(name, setting):
    # the matrix: a split and a fit per seed, every fit identical
    X, y = LOADERS[name](return_X_y=True)
    regression = name == "diabetes"
    for seed in SEEDS:
        X_train, X_test, y_train, _ = train_test_split(X, y, random_state=seed)
        weights = None
        if setting == "weights":     # integer-valued: every sum is exact in both
            weights = np.random.RandomState(seed).randint(1, 4, len(y_train)).astype(float)
        ours, theirs = _fit_both(X_train, y_train, regression, seed, weights,
                                 **SETTINGS[setting])
        assert_same_tree(ours, theirs)
        np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))


@pytest.mark.parametrize("name", ["digits", "breast_cancer", "diabetes"])
def test_two_threads_give_scikit_learns_tree(name):
    # digits and breast cancer are large enough for the parallel search at the root
    X, y = LOADERS[name](return_X_y=True)
    for seed in range(3):
        for params in ({}, {"max_features": "sqrt"}, {"max_leaf_nodes": 20}):
            ours, theirs = _fit_both(X, y, name == "diabetes", seed, n_jobs=2, **params)
            assert_same_tree(ours, theirs)


CRITERIA = [("iris", "entropy", {}), ("wine", "log_loss", {"max_leaf_nodes": 7}),
            ("digits", "entropy", {"max_features": 0.5}),
            ("diabetes", "poisson", {}), ("diabetes", "absolute_error", {"max_depth": 8})]


@pytest.mark.parametrize("name, criterion, params", CRITERIA)
def test_other_criteria_give_scikit_learns_trees(name, criterion, params):
    X, y = LOADERS[name](return_X_y=True)
    for seed in range(4):
        ours, theirs = _fit_both(X, y, name == "diabetes", seed, criterion=criterion, **params)
        assert_same_tree(ours, theirs)


def test_missing_values_class_weights_and_several_outputs():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    Xr, yr = datasets.load_diabetes(return_X_y=True)
    for seed in range(4):
        rng = np.random.RandomState(seed)
        holes = X.copy()
        holes[rng.rand(*X.shape) < 0.1] = np.nan
        for params in ({}, {"max_leaf_nodes": 15}, {"class_weight": {0: 1.0, 1: 3.0}}):
            assert_same_tree(*_fit_both(holes, y, False, seed, **params))
        two = np.column_stack([y, X[:, 0] > np.median(X[:, 0])]).astype(int)
        assert_same_tree(*_fit_both(X, two, False, seed, max_features=5))
        assert_same_tree(*_fit_both(Xr, np.column_stack([yr, np.round(Xr[:, 1] * 100)]), True,
                                    seed))
        assert_same_tree(*_fit_both(Xr, yr, True, seed, min_weight_fraction_leaf=0.01,
                                    monotonic_cst=[1] + [0] * 9))


SHIPPED = ["adult", "car_evaluation", "mushroom", "titanic", "kyphosis", "play_tennis",
           "california_housing"]


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_datasets_one_hot_encoded_give_scikit_learns_trees(name):
    X, y = shipped.load_Xy(name)
    X = pd.get_dummies(X, dtype=float).to_numpy(dtype=float)[:5000]
    regression = y.dtype.kind == "f"
    y = (y.to_numpy() if regression else y.astype(str).to_numpy())[:5000]
    for seed in range(3):
        for params in ({}, {"max_features": "sqrt"}):
            assert_same_tree(*_fit_both(X, y, regression, seed, **params))


def test_a_random_state_object_is_drawn_from_as_scikit_learn_draws():
    X, y = datasets.load_wine(return_X_y=True)
    ours_state, theirs_state = np.random.RandomState(7), np.random.RandomState(7)
    for _ in range(3):      # one draw per fit: consecutive fits stay in step
        ours = dtree.DecisionTreeClassifier(random_state=ours_state).fit(X, y)
        theirs = sk.DecisionTreeClassifier(random_state=theirs_state).fit(X, y)
        assert_same_tree(ours, theirs)
    assert ours_state.randint(2**31) == theirs_state.randint(2**31)


def test_no_random_state_draws_from_numpys_global_generator():
    # None is scikit-learn's: a fresh seed per fit, from numpy's global RandomState
    X, y = datasets.load_digits(return_X_y=True)
    np.random.seed(11)
    ours = [dtree.DecisionTreeClassifier(max_features=8).fit(X, y) for _ in range(2)]
    np.random.seed(11)
    theirs = [sk.DecisionTreeClassifier(max_features=8).fit(X, y) for _ in range(2)]
    for a, b in zip(ours, theirs):
        assert_same_tree(a, b)
    assert not np.array_equal(ours[0].tree_.feature, ours[1].tree_.feature)


def test_best_first_ties_are_expanded_in_scikit_learns_order():
    # few values, few samples: frontier nodes with equal improvements are common
    # (leaves too, at 0), so the heap's order among equals decides which nodes
    # are expanded first, and so every node id after
    for seed in range(40):
        rng = np.random.RandomState(seed)
        n = rng.choice([32, 48, 64])
        X = rng.randint(0, 4, size=(n, 3)).astype(float)
        y = rng.randint(0, 2, n)
        for leaves in (6, 10, 16, 24):
            assert_same_tree(*_fit_both(X, y, False, 0, max_leaf_nodes=leaves))


def test_integer_valued_weights_and_targets_of_any_size_keep_the_tree():
    # powers of two change no bit of scikit-learn's sums or of dtree's
    X, y = datasets.load_diabetes(return_X_y=True)
    w = np.random.RandomState(0).randint(1, 5, len(y)).astype(float)
    # (not far below 1: scikit-learn's "impurity <= epsilon" leaf rule is absolute)
    for scale in (2.0**-3, 1.0, 2.0**40):
        assert_same_tree(*_fit_both(X, y * scale, True, 3, w * scale))


def test_ties_decided_by_rounding_follow_scikit_learns_scores():
    # 4 and 6 samples of two classes; the cuts (0, 2 | 4, 4) and (1, 4 | 3, 2) have
    # the same gini gain exactly, but scikit-learn's float scores differ in the
    # last bit (-4.0 and -3.9999999999999996): it keeps the second, whichever
    # feature it visits first, and so must dtree
    y = np.array([1, 1, 0, 0, 0, 0, 1, 1, 1, 1])
    first = np.array([0, 0, 1, 1, 1, 1, 1, 1, 1, 1.0])     # only cut: (0, 2 | 4, 4)
    second = np.array([0, 0, 0, 1, 1, 1, 0, 0, 1, 1.0])    # only cut: (1, 4 | 3, 2)
    for X in (np.column_stack([first, second]), np.column_stack([second, first])):
        chosen = set()
        for seed in range(12):
            ours, theirs = _fit_both(X, y, False, seed, max_depth=1)
            assert_same_tree(ours, theirs)
            chosen.add(tuple(ours.tree_.value[1].ravel()))
        assert chosen == {(0.2, 0.8)}   # the (1, 4) side: rounding, not the order, decided


def test_feature_importances_equal_scikit_learns_to_the_last_bit():
    # summed in node order and divided by the root weight after, as scikit-learn
    # sums them: depth-first and best-first trees of the same splits agree too
    for name in ("iris", "wine", "diabetes"):
        X, y = LOADERS[name](return_X_y=True)
        for params in ({}, {"max_leaf_nodes": len(y)}):
            ours, theirs = _fit_both(X, y, name == "diabetes", 0, **params)
            np.testing.assert_array_equal(ours.feature_importances_,
                                          theirs.feature_importances_)
