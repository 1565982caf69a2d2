"""Every bad input gets a clear ValueError or TypeError naming the problem."""
import numpy as np
import pandas as pd
import pytest

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor, NotFittedError

X = np.arange(20, dtype=float).reshape(10, 2)
Y = np.array([0, 1] * 5)


@pytest.mark.parametrize("bad_X, message", [
    (np.arange(10.0), "2-D"),
    (np.zeros((2, 3, 4)), "2-D"),
    (np.zeros((0, 3)), "0 sample"),
    (np.zeros((10, 0)), "0 feature"),
    ([["a", "b"]] * 10, "only numbers"),
    (np.full((10, 2), 1 + 2j), "Complex"),
])
def test_bad_X_shapes_and_types(bad_X, message):
    y = Y[: len(bad_X)] if hasattr(bad_X, "__len__") and len(bad_X) else Y[:0]
    with pytest.raises(ValueError, match=message):
        # (text columns are categories by default; None asks for numbers only)
        DecisionTreeClassifier(categorical_features=None).fit(bad_X, y)


@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_infinity_names_the_column(value):
    bad = X.copy()
    bad[3, 1] = value
    with pytest.raises(ValueError, match="infinity in column 1"):
        DecisionTreeRegressor().fit(bad, Y.astype(float))
    fitted = DecisionTreeRegressor().fit(X, Y.astype(float))
    with pytest.raises(ValueError, match="infinity in column 1"):
        fitted.predict(bad)


def test_nan_is_refused_where_missing_values_are_disabled():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1.0, np.nan, 3.0]})
    strict = DecisionTreeClassifier(handle_missing="error")
    with pytest.raises(ValueError, match=r"NaN in column 1 \('b'\).*handle_missing"):
        strict.fit(frame, [0, 1, 0])
    fitted = strict.fit(frame.fillna(0.0), [0, 1, 0])
    with pytest.raises(ValueError, match="NaN in column 1"):
        fitted.predict(frame)
    with pytest.raises(ValueError, match="handle_missing"):
        DecisionTreeClassifier(handle_missing="impute").fit(frame, [0, 1, 0])


def test_non_numeric_dataframe_column_is_named():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "color": ["red", "blue", "red"]})
    with pytest.raises(ValueError, match=r"column 1 \('color'\) has non-numeric"):
        DecisionTreeClassifier(categorical_features=None).fit(frame, [0, 1, 0])
    # by default the text column is split by category
    model = DecisionTreeClassifier().fit(frame, [0, 1, 0])
    assert model.categorical_features_.tolist() == [False, True]


def test_too_large_for_float32_is_reported():
    bad = X.copy()
    bad[0, 0] = 1e300
    with pytest.raises(ValueError, match="too large for float32"):
        DecisionTreeClassifier().fit(bad, Y)


def test_a_sparse_target_is_refused_with_a_hint():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match="sparse y is not supported: pass a dense"):
        DecisionTreeClassifier().fit(X, scipy_sparse.csr_matrix(np.asarray(Y)[:, None]))


def test_y_problems():
    with pytest.raises(ValueError, match="inconsistent numbers of samples: X has 10, y has 9"):
        DecisionTreeClassifier().fit(X, Y[:9])
    with pytest.raises(ValueError, match="y is None"):
        DecisionTreeClassifier().fit(X, None)
    with pytest.raises(ValueError, match=r"or 2-D of shape \(n_samples, n_outputs\), got shape"):
        DecisionTreeClassifier().fit(X, np.zeros((10, 2, 2)))
    with pytest.raises(ValueError, match="no outputs"):
        DecisionTreeClassifier().fit(X, np.zeros((10, 0)))
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        DecisionTreeClassifier().fit(X, np.linspace(0, 1, 10))
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeClassifier().fit(X, np.r_[np.zeros(9), np.nan])
    with pytest.raises(ValueError, match="missing labels"):
        DecisionTreeClassifier().fit(X, ["a"] * 9 + [None])
    with pytest.raises(TypeError, match="comparable"):
        DecisionTreeClassifier().fit(X, ["a"] * 9 + [1])
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeRegressor().fit(X, np.r_[np.zeros(9), np.nan])
    with pytest.raises(ValueError, match="infinity"):
        DecisionTreeRegressor().fit(X, np.r_[np.zeros(9), np.inf])
    with pytest.raises(ValueError, match="numeric"):
        DecisionTreeRegressor().fit(X, ["a"] * 10)


@pytest.mark.parametrize("weights, message", [
    (-np.ones(10), "negative"),
    (np.zeros(10), "sums to zero"),
    (np.ones(9), r"expected \(10,\)"),
    (np.ones((10, 2)), "1-D"),
    (np.r_[np.ones(9), np.nan], "NaN"),
])
def test_bad_sample_weights(weights, message):
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier().fit(X, Y, sample_weight=weights)


@pytest.mark.parametrize("params, name", [
    ({"criterion": "gina"}, "criterion"),
    ({"criterion": "squared_error"}, "criterion"),
    ({"splitter": "randomised"}, "splitter"),
    ({"max_depth": 0}, "max_depth"),
    ({"max_depth": 2.5}, "max_depth"),
    ({"min_samples_split": 1}, "min_samples_split"),
    ({"min_samples_split": 1.5}, "min_samples_split"),
    ({"min_samples_leaf": 0}, "min_samples_leaf"),
    ({"min_samples_leaf": 1.0}, "min_samples_leaf"),
    ({"min_weight_fraction_leaf": 0.6}, "min_weight_fraction_leaf"),
    ({"max_features": 0}, "max_features"),
    ({"max_features": 3}, "max_features"),
    ({"max_features": "cube"}, "max_features"),
    ({"max_features": 1.5}, "max_features"),
    ({"max_leaf_nodes": 1}, "max_leaf_nodes"),
    ({"min_impurity_decrease": -1.0}, "min_impurity_decrease"),
    ({"min_impurity_decrease": np.nan}, "min_impurity_decrease"),
    ({"class_weight": "even"}, "class_weight"),
    ({"class_weight": {7: 1.0}}, "class_weight"),
    ({"class_weight": {0: -1.0}}, "class_weight"),
    ({"max_features": 1, "random_state": "seed"}, "random_state"),
])
def test_bad_hyperparameters_are_named(params, name):
    with pytest.raises(ValueError, match=name):
        DecisionTreeClassifier(**params).fit(X, Y)


def test_regressor_rejects_classification_criteria():
    with pytest.raises(ValueError, match="criterion"):
        DecisionTreeRegressor(criterion="gini").fit(X, Y)


def test_wrong_number_of_features_at_predict():
    clf = DecisionTreeClassifier().fit(X, Y)
    with pytest.raises(ValueError, match="X has 3 features, but DecisionTreeClassifier "
                                         "is expecting 2 features"):
        clf.predict(np.zeros((2, 3)))


@pytest.mark.parametrize("method", ["predict", "predict_proba", "apply", "decision_path"])
def test_unfitted_model_raises_not_fitted(method):
    with pytest.raises(NotFittedError, match="not fitted"):
        getattr(DecisionTreeClassifier(), method)(X)
    assert issubclass(NotFittedError, ValueError)
    assert issubclass(NotFittedError, AttributeError)


def test_unfitted_inspection_raises_not_fitted():
    for call in (lambda e: e.get_depth(), lambda e: e.get_n_leaves(),
                 lambda e: e.feature_importances_):
        with pytest.raises(NotFittedError):
            call(DecisionTreeRegressor())


def test_feature_names_must_match_at_predict():
    frame = pd.DataFrame(X, columns=["a", "b"])
    clf = DecisionTreeClassifier().fit(frame, Y)
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        clf.predict(frame[["b", "a"]])
    with pytest.raises(ValueError, match="unseen at fit time:\n- c"):
        clf.predict(frame.rename(columns={"b": "c"}))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        clf.predict(X)


def test_one_class_gives_a_single_leaf():
    clf = DecisionTreeClassifier().fit(X, ["only"] * 10)
    assert clf.tree_.node_count == 1
    assert clf.predict(X).tolist() == ["only"] * 10
    np.testing.assert_array_equal(clf.predict_proba(X), np.ones((10, 1)))


def test_constant_features_give_a_single_leaf():
    clf = DecisionTreeClassifier().fit(np.ones((10, 3)), Y)
    assert clf.tree_.node_count == 1
    np.testing.assert_allclose(clf.predict_proba(X[:, :1].repeat(3, 1)), 0.5)


def test_version_is_exposed():
    assert isinstance(dtree.__version__, str) and dtree.__version__.count(".") >= 1


def test_more_classes_than_the_class_code_holds_are_refused():
    y = np.arange(70_000)
    X = np.zeros((70_000, 1))
    X[:, 0] = y
    with pytest.raises(ValueError, match="at most 65535 classes"):
        DecisionTreeClassifier().fit(X, y)


def test_sparse_input_fits_as_its_dense_twin_in_every_mode():
    from scipy.sparse import csr_matrix

    X = np.eye(6)
    y = [0, 1, 0, 1, 0, 1]
    for params in (dict(categorical_features="auto"), dict(algorithm="c4.5"),
                   dict(splitter="hist"), dict(categorical_features=[0])):
        sparse = DecisionTreeClassifier(random_state=0, **params).fit(csr_matrix(X), y)
        dense = DecisionTreeClassifier(random_state=0, **params).fit(X, y)
        np.testing.assert_array_equal(sparse.tree_.feature, dense.tree_.feature)
        np.testing.assert_array_equal(sparse.tree_.threshold, dense.tree_.threshold)


@pytest.mark.parametrize("cv, message", [
    ([(np.arange(5), np.arange(5, 12))], r"cv split 0: test indices must lie in \[0, 10\)"),
    ([(np.arange(5) - 1, np.arange(5, 10))], r"cv split 0: train indices must lie"),
    ([(np.arange(5) * 1.0, np.arange(5, 10))], "train indices must be a 1-D array of integers"),
    ([(np.arange(5), np.arange(5, 10)), (np.arange(5), ["a"])], "cv split 1: the test"),
    ([(1, 2, 3)], r"cv split 0 is not a \(train, test\) pair"),
    ([(np.arange(5), [])], "needs training and test samples"),
])
def test_custom_cv_splits_are_checked(cv, message):
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(ccp_alpha="cv", cv=cv).fit(X, Y)


def test_boolean_masks_are_cv_splits_too():
    mask = np.arange(10) < 5
    model = DecisionTreeClassifier(ccp_alpha="cv", cv=[(mask, ~mask), (~mask, mask)]).fit(X, Y)
    assert model.cp_table_.xerror.shape == (len(model.cp_table_),)


@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, np.array([1, 2])])
def test_unhashable_categories_name_the_column(value):
    frame = pd.DataFrame({"ok": np.arange(10.0), "bad": [value] * 10})
    with pytest.raises(TypeError, match=r"column 1 \('bad'\) holds a value of type"):
        DecisionTreeClassifier().fit(frame, Y)


def test_non_finite_numeric_categories_are_refused():
    with pytest.raises(ValueError, match="non-finite value"):
        DecisionTreeClassifier(categorical_features=[0]).fit(
            np.array([[1.0], [np.inf]] * 5), Y)
