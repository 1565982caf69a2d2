"""scikit-learn's own estimator checks, and its tools (clone, Pipeline, search, CV)."""

import dtree

import sklearn  # noqa: E402,F401
from sklearn.base import clone, is_classifier, is_regressor  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402


@parametrize_with_checks([dtree.DecisionTreeClassifier(random_state=0),
                          dtree.DecisionTreeRegressor(random_state=0),
                          dtree.DecisionTreeClassifier(criterion="gain_ratio",
                                                       max_features="sqrt", random_state=0),
                          dtree.DecisionTreeClassifier(splitter="hist", n_jobs=2),
                          dtree.DecisionTreeRegressor(splitter="hist", max_bins=32),
                          dtree.DecisionTreeClassifier(algorithm="c4.5"),
                          dtree.ExtraTreeClassifier(random_state=0),
                          dtree.ExtraTreeRegressor(random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_sklearn_tools_work():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    clf = dtree.DecisionTreeClassifier(max_depth=3)
    assert is_classifier(clf) and is_regressor(dtree.DecisionTreeRegressor())
    copy = clone(clf)
    assert copy is not clf and copy.get_params() == clf.get_params()
    scores = cross_val_score(clf, X, y, cv=5)
    assert scores.shape == (5,) and scores.mean() > 0.85
    pipe = make_pipeline(StandardScaler(), dtree.DecisionTreeClassifier(random_state=0))
    assert pipe.fit(X, y).score(X, y) == 1.0
    search = GridSearchCV(dtree.DecisionTreeClassifier(),
                          {"max_depth": [1, 3, 5], "criterion": ["gini", "entropy"]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["max_depth"] in (3, 5)
    assert search.best_estimator_.get_depth() == search.best_params_["max_depth"]
