"""Real data: accuracy equal to scikit-learn's on the same split."""
import numpy as np
import pytest

from helpers import compare_trees

import dtree
from dtree import datasets

import sklearn  # noqa: E402,F401
import pandas as pd  # noqa: E402,F401
from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.tree import DecisionTreeClassifier as SkClassifier  # noqa: E402
from sklearn.tree import DecisionTreeRegressor as SkRegressor  # noqa: E402


def _sklearn_scores(make, X_train, y_train, X_test, y_test, seeds=range(20)):
    # scikit-learn breaks ties between equally good splits by a random feature
    # order, so its test score depends on random_state: collect the range.
    return [make(random_state=seed).fit(X_train, y_train).score(X_test, y_test)
            for seed in seeds]


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_breast_cancer_shallow_tree_equals_sklearn_up_to_ties(criterion):
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    ours = dtree.DecisionTreeClassifier(criterion=criterion, max_depth=3)
    theirs = SkClassifier(criterion=criterion, max_depth=3, random_state=0)
    ours.fit(X_train, y_train)
    theirs.fit(X_train, y_train)
    # worst radius and worst area order the samples identically, so they tie
    # at every node; every divergence must be such a same-partition tie.
    same, stopped = compare_trees(ours, theirs, X_train, y_train, None, criterion,
                                  n_classes=2)
    assert stopped == 0
    np.testing.assert_array_equal(ours.predict_proba(X_train), theirs.predict_proba(X_train))


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_depth", [None, 4])
def test_breast_cancer_accuracy_equals_sklearn(criterion, max_depth):
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    ours = dtree.DecisionTreeClassifier(criterion=criterion, max_depth=max_depth)
    ours.fit(X_train, y_train)
    theirs = SkClassifier(criterion=criterion, max_depth=max_depth, random_state=0)
    theirs.fit(X_train, y_train)
    # Same training fit (every divergence between the trees is a tie) ...
    same, stopped = compare_trees(ours, theirs, X_train, y_train, None, criterion,
                                  n_classes=2)
    assert ours.score(X_train, y_train) == theirs.score(X_train, y_train)
    # ... and a test accuracy that scikit-learn itself reaches for some seed.
    scores = _sklearn_scores(
        lambda **kw: SkClassifier(criterion=criterion, max_depth=max_depth, **kw),
        X_train, y_train, X_test, y_test)
    assert min(scores) <= ours.score(X_test, y_test) <= max(scores)


def test_kyphosis_tree_matches_sklearn():
    X, y = datasets.load_Xy("kyphosis")
    params = dict(min_samples_split=20, min_samples_leaf=7)
    ours = dtree.DecisionTreeClassifier(**params).fit(X, y)
    theirs = SkClassifier(random_state=0, **params).fit(X, y)
    assert ours.score(X, y) == pytest.approx(theirs.score(X, y))
    assert ours.get_n_leaves() == theirs.get_n_leaves()
    assert list(ours.feature_names_in_) == ["Age", "Number", "Start"]
    assert set(ours.classes_) == {"absent", "present"}


def test_california_housing_regression_matches_sklearn():
    frame = datasets.load("california_housing")
    frame = frame.drop(columns=["ocean_proximity"]).dropna()
    y = frame.pop("median_house_value").to_numpy()
    X_train, X_test, y_train, y_test = train_test_split(frame.to_numpy(), y, random_state=0)
    ours = dtree.DecisionTreeRegressor(max_depth=8).fit(X_train, y_train)
    theirs = SkRegressor(max_depth=8, random_state=0).fit(X_train, y_train)
    # Ties here are splits on different columns that cut the training rows the
    # same way (total_rooms <= 58 vs total_bedrooms <= 9): the same training fit.
    same, stopped = compare_trees(ours, theirs, X_train, y_train, None, "squared_error")
    assert stopped == 0
    np.testing.assert_allclose(ours.predict(X_train), theirs.predict(X_train))
    scores = _sklearn_scores(lambda **kw: SkRegressor(max_depth=8, **kw),
                             X_train, y_train, X_test, y_test)
    assert min(scores) - 1e-12 <= ours.score(X_test, y_test) <= max(scores) + 1e-12


def test_adult_numeric_columns_accuracy_matches_sklearn():
    frame = datasets.load("adult")
    numeric = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss",
               "hours_per_week"]
    X, y = frame[numeric], frame["income"]
    train, test = slice(0, 32561), slice(32561, None)
    ours = dtree.DecisionTreeClassifier(max_depth=10).fit(X[train], y[train])
    theirs = SkClassifier(max_depth=10, random_state=0).fit(X[train], y[train])
    assert ours.score(X[test], y[test]) == pytest.approx(theirs.score(X[test], y[test]),
                                                         abs=2e-3)


def test_shipped_datasets_are_readable_without_pandas_and_match_their_readme():
    for name in datasets.available():
        header, rows = datasets.load(name, as_frame=False)
        assert datasets.TARGETS[name] in header
        assert rows and all(len(r) == len(header) for r in rows)
    header, rows = datasets.load("play_tennis", as_frame=False)
    assert len(rows) == 14
    with pytest.raises(ValueError, match="unknown dataset"):
        datasets.path("iris")
