"""Units do not change a tree: weights anywhere in float64, targets up to 1e308."""
import warnings

import numpy as np
import pytest

from dtree import DecisionTreeClassifier, DecisionTreeRegressor

rng = np.random.RandomState(0)
X = rng.rand(40, 3)
Y_CLASS = rng.randint(0, 3, 40)
Y_REG = rng.rand(40)
SPLITTERS = ["best", "hist"]


def structure(model):
    t = model.tree_
    return t.node_count, t.feature.tolist(), t.threshold.tolist()


def finite_outputs(model, X):
    arrays = [model.predict(X).astype(float), model.tree_.value, model.feature_importances_]
    if hasattr(model, "predict_proba"):
        arrays.append(model.predict_proba(X))
    return all(np.isfinite(a).all() for a in arrays)


@pytest.mark.parametrize("splitter", SPLITTERS)
@pytest.mark.parametrize("Estimator, y", [(DecisionTreeClassifier, Y_CLASS),
                                          (DecisionTreeRegressor, Y_REG)])
@pytest.mark.parametrize("weight", [1e-300, 1e-90, 1e-10, 0.3, 7.0, 1e10, 1e70, 1e300, 1e307])
def test_uniform_weights_give_the_unit_tree(Estimator, y, splitter, weight):
    base = Estimator(random_state=0, splitter=splitter).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or invalid-value warnings either
        model = Estimator(random_state=0, splitter=splitter).fit(X, y, sample_weight=np.full(40, weight))
        assert finite_outputs(model, X)
        np.testing.assert_array_equal(model.tree_.scaled_impurity, base.tree_.scaled_impurity)
    assert structure(model) == structure(base)
    np.testing.assert_allclose(model.tree_.weighted_n_node_samples,
                               base.tree_.weighted_n_node_samples * weight, rtol=1e-12)


@pytest.mark.parametrize("splitter", SPLITTERS)
@pytest.mark.parametrize("Estimator, y", [(DecisionTreeClassifier, Y_CLASS),
                                          (DecisionTreeRegressor, Y_REG)])
@pytest.mark.parametrize("exponent", [-1000, -700, -200, -20, 3, 200, 700, 990])
def test_power_of_two_weight_scaling_is_exact(Estimator, y, splitter, exponent):
    w = np.random.RandomState(1).randint(1, 5, 40).astype(float)
    base = Estimator(random_state=0, splitter=splitter).fit(X, y, sample_weight=w)
    model = Estimator(random_state=0, splitter=splitter).fit(X, y, sample_weight=np.ldexp(w, exponent))
    assert structure(model) == structure(base)
    assert finite_outputs(model, X)
    np.testing.assert_array_equal(model.predict(X), base.predict(X))


@pytest.mark.parametrize("splitter", SPLITTERS)
@pytest.mark.parametrize("exponent", [-1020, -500, -27, -20, 0, 5, 300, 1020])
def test_target_scaling_gives_the_same_tree(splitter, exponent):
    # powers of two are exact: the tree, leaf values and importances match,
    # including the leaf rule "impurity at most epsilon" (relative to the scale)
    base = DecisionTreeRegressor(random_state=0, splitter=splitter).fit(X, Y_REG)
    y = np.ldexp(Y_REG, exponent)
    model = DecisionTreeRegressor(random_state=0, splitter=splitter).fit(X, y)
    assert structure(model) == structure(base)
    np.testing.assert_array_equal(np.ldexp(model.predict(X), -exponent), base.predict(X))
    np.testing.assert_allclose(model.feature_importances_, base.feature_importances_)
    assert finite_outputs(model, X)


def test_targets_near_float_max_split_two_pure_groups():
    Xs = np.r_[np.zeros(20), np.ones(20)].reshape(-1, 1)
    y = np.r_[np.full(20, -1e308), np.full(20, 1.7e308)]
    for splitter in SPLITTERS:
        model = DecisionTreeRegressor(splitter=splitter).fit(Xs, y)
        assert model.tree_.node_count == 3
        np.testing.assert_array_equal(model.predict([[0.0], [1.0]]), [-1e308, 1.7e308])
        np.testing.assert_array_equal(model.feature_importances_, [1.0])
        # the root's variance exceeds float64: honest infinity, finite scaled value
        assert np.isinf(model.tree_.impurity[0])
        assert np.isfinite(model.tree_.scaled_impurity).all()
        assert model.score(Xs, y) == 1.0


def test_min_impurity_decrease_is_in_the_users_units():
    y = np.ldexp(Y_REG, 300)
    base = DecisionTreeRegressor(random_state=0, min_impurity_decrease=1e-3).fit(X, Y_REG)
    model = DecisionTreeRegressor(random_state=0, min_impurity_decrease=np.ldexp(1e-3, 600)).fit(X, y)
    assert structure(model) == structure(base)
    assert base.tree_.node_count < DecisionTreeRegressor(random_state=0).fit(X, Y_REG).tree_.node_count


@pytest.mark.parametrize("weights", [{0: 1e200, 1: 1}, {0: 1e-200, 1: 1}, {0: 1e300, 1: 1e-300}])
def test_extreme_class_weights_give_finite_trees(weights):
    y = Y_CLASS % 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = DecisionTreeClassifier(class_weight=weights).fit(X, y)
    assert np.isfinite(model.tree_.impurity).all()
    assert finite_outputs(model, X)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_c45_uniform_weights_keep_the_tree():
    Xc = rng.randint(0, 3, (60, 3)).astype(float)
    yc = (Xc[:, 0] + rng.randint(0, 2, 60)) % 3
    base = DecisionTreeClassifier(algorithm="c4.5").fit(Xc, yc)
    for w in (1e-300, 1e300):
        model = DecisionTreeClassifier(algorithm="c4.5").fit(Xc, yc,
                                                            sample_weight=np.full(60, w))
        assert structure(model) == structure(base)
        assert finite_outputs(model, Xc)


@pytest.mark.parametrize("exponent", [-1000, -300, 0, 300, 1000])
def test_pruning_is_unit_free(exponent):
    y = np.ldexp(Y_REG, exponent)
    base_path = DecisionTreeRegressor(random_state=0).cost_complexity_pruning_path(X, Y_REG)
    alpha = float(base_path.ccp_alphas[len(base_path.ccp_alphas) // 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # alphas are in squared target units
        if abs(2 * exponent) < 1000:  # (beyond, the alpha itself is not a float64)
            scaled_alpha = float(np.ldexp(alpha, 2 * exponent))
            model = DecisionTreeRegressor(random_state=0, ccp_alpha=scaled_alpha).fit(X, y)
            base = DecisionTreeRegressor(random_state=0, ccp_alpha=alpha).fit(X, Y_REG)
            assert structure(model) == structure(base)
        for options in (dict(ccp_alpha="cv", cv=4, random_state=0),
                        dict(pruning="reduced_error", random_state=0)):
            model = DecisionTreeRegressor(**options).fit(X, y)
            base = DecisionTreeRegressor(**options).fit(X, Y_REG)
            assert structure(model) == structure(base)
            assert finite_outputs(model, X)
            if "ccp_alpha" in options:
                np.testing.assert_array_equal(model.cp_table_.xerror, base.cp_table_.xerror)
                np.testing.assert_array_equal(model.cp_table_.CP, base.cp_table_.CP)
