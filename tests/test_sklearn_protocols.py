"""scikit-learn's protocols beyond parameters: metadata routing and the HTML repr."""
import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import KFold, cross_validate  # noqa: E402

from dtree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402


def _weighted_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=600) > 0).astype(int)
    w = rng.integers(1, 6, 600).astype(float)
    return X, y, w


def test_cross_validate_routes_sample_weight_to_fit_and_score():
    X, y, w = _weighted_problem()
    cv = KFold(3)
    with sklearn.config_context(enable_metadata_routing=True):
        clf = DecisionTreeClassifier(max_depth=3, random_state=0).set_fit_request(
            sample_weight=True).set_score_request(sample_weight=True)
        got = cross_validate(clf, X, y, params={"sample_weight": w}, cv=cv)["test_score"]
        # without a request, passing weights is an error naming the way out
        with pytest.raises(Exception, match="set_fit_request"):
            cross_validate(DecisionTreeClassifier(), X, y, params={"sample_weight": w}, cv=cv)
    want = []
    for train, test in cv.split(X):
        fitted = DecisionTreeClassifier(max_depth=3, random_state=0).fit(
            X[train], y[train], sample_weight=w[train])
        want.append(fitted.score(X[test], y[test], sample_weight=w[test]))
    np.testing.assert_allclose(got, want)
    unweighted = [DecisionTreeClassifier(max_depth=3, random_state=0).fit(
        X[tr], y[tr]).score(X[te], y[te]) for tr, te in cv.split(X)]
    assert not np.allclose(got, unweighted)      # the weights did arrive


def test_requests_survive_clone_and_are_reported():
    with sklearn.config_context(enable_metadata_routing=True):
        reg = DecisionTreeRegressor().set_fit_request(sample_weight="w")
        routing = clone(reg).get_metadata_routing()
        assert routing.fit.requests == {"sample_weight": "w"}
        assert routing.score.requests == {"sample_weight": None}
        with pytest.raises(ValueError, match="must be True, False, None or a str"):
            reg.set_fit_request(sample_weight=3)
    with pytest.raises(RuntimeError, match="enable_metadata_routing=True"):
        DecisionTreeRegressor().set_fit_request(sample_weight=True)


def test_html_repr_is_scikit_learns_diagram():
    html = DecisionTreeClassifier(max_depth=3)._repr_html_()
    assert "DecisionTreeClassifier" in html and "max_depth" in html and "<div" in html


def test_tags_and_n_outputs():
    X, y, _ = _weighted_problem()
    clf = DecisionTreeClassifier().fit(X, y)
    assert clf.n_outputs_ == 1
    assert sklearn.base.is_classifier(clf) and not sklearn.base.is_regressor(clf)
    assert sklearn.base.is_regressor(DecisionTreeRegressor())
