"""ONNX export: onnxruntime predicts exactly what dtree predicts."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.datasets import load
from dtree.export import to_onnx

# optional extra ("dtree[onnx]"); absent on platforms without onnxruntime wheels
ort = pytest.importorskip("onnxruntime")


def _run(model, X):
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"X": np.asarray(X, dtype=np.float32)})


@pytest.mark.parametrize("kind", ["int", "str", "bool"])
def test_classifier_predictions_equal(kind):
    X, y = load_breast_cancer(return_X_y=True)
    labels = {"int": y, "str": np.where(y == 1, "benign", "malignant"), "bool": y == 1}[kind]
    X_train, X_test, y_train, _ = train_test_split(X, labels, random_state=0)
    clf = DecisionTreeClassifier(random_state=0).fit(X_train, y_train)
    label, proba = _run(to_onnx(clf), X_test)
    np.testing.assert_array_equal(label.astype(clf.classes_.dtype), clf.predict(X_test))
    np.testing.assert_allclose(proba, clf.predict_proba(X_test), atol=1e-7)


def test_multiclass_and_regressor_predictions_equal():
    frame = load("car_evaluation")
    y = frame.pop("class").to_numpy()
    X = np.column_stack([frame[c].astype("category").cat.codes for c in frame.columns])
    clf = DecisionTreeClassifier(max_depth=6).fit(X, y)
    label, proba = _run(to_onnx(clf), X)
    np.testing.assert_array_equal(label, clf.predict(X))
    np.testing.assert_allclose(proba, clf.predict_proba(X), atol=1e-7)

    housing = load("california_housing").drop(columns=["ocean_proximity"]).dropna()
    target = housing.pop("median_house_value").to_numpy()
    X_train, X_test, y_train, _ = train_test_split(housing.to_numpy(), target, random_state=0)
    reg = DecisionTreeRegressor(min_samples_leaf=5).fit(X_train, y_train)
    (values,) = _run(to_onnx(reg), X_test)
    # leaf values travel as float32: equal to float32 precision
    np.testing.assert_allclose(values[:, 0], reg.predict(X_test), rtol=1e-6)
    np.testing.assert_array_equal(values[:, 0], reg.predict(X_test).astype(np.float32))


def test_thresholds_route_boundary_values_like_dtree():
    # midpoints that float32 cannot hold: the exported threshold must round down
    a = np.float32(1.0)
    b = np.nextafter(a, np.float32(2.0))
    X = np.array([[a], [a], [b], [b]], dtype=np.float32)
    clf = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])
    label, _ = _run(to_onnx(clf), X)
    np.testing.assert_array_equal(label, [0, 0, 1, 1])


def test_missing_values_route_the_same_in_onnx():
    rng = np.random.RandomState(0)
    X = rng.rand(400, 3)
    y = (X[:, 0] > 0.5).astype(int)
    X[rng.rand(400) < 0.2, 0] = np.nan
    X[y == 1, 2] = np.where(rng.rand((y == 1).sum()) < 0.5, np.nan, X[y == 1, 2])
    clf = DecisionTreeClassifier(max_depth=6).fit(X, y)
    assert clf.tree_.missing_go_to_left.any()
    X_new = rng.rand(300, 3)
    X_new[rng.rand(300, 3) < 0.3] = np.nan
    label, proba = _run(to_onnx(clf), X_new)
    np.testing.assert_array_equal(label, clf.predict(X_new))
    np.testing.assert_allclose(proba, clf.predict_proba(X_new), atol=1e-7)


def test_categorical_trees_export_with_missing_and_unknown_categories():
    import pandas as pd

    from dtree.export import onnx_input

    frame = load("car_evaluation")
    y = frame.pop("class")
    clf = DecisionTreeClassifier(categorical_features="auto", handle_unknown="missing",
                                 min_samples_leaf=2).fit(frame, y)
    assert (clf.tree_.categorical_set >= 0).any()
    rng = np.random.RandomState(0)
    new = frame.sample(300, random_state=0).reset_index(drop=True).astype(object)
    new.loc[rng.rand(300) < 0.2, "safety"] = None
    new.loc[rng.rand(300) < 0.1, "buying"] = "unheard-of"
    X = onnx_input(clf, new)
    assert np.isnan(X).any()
    label, proba = _run(to_onnx(clf, categories="codes"), X)
    np.testing.assert_array_equal(label, clf.predict(new))
    np.testing.assert_allclose(proba, clf.predict_proba(new), atol=1e-7)
    assert isinstance(new, pd.DataFrame)


def test_text_categories_are_refused_by_column_unless_codes_are_asked_for():
    frame = load("car_evaluation")
    y = frame.pop("class")
    clf = DecisionTreeClassifier(categorical_features="auto").fit(frame, y)
    with pytest.raises(ValueError, match="column 0 \\('buying'\\), column 1 "
                                         "\\('maint'\\).* categories='codes'"):
        to_onnx(clf)
    with pytest.raises(ValueError, match="categories must be 'values' or 'codes'"):
        to_onnx(clf, categories="labels")


@pytest.mark.parametrize("Est", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_numeric_categories_are_taken_as_they_are(Est):
    # whole-number categories far from their codes (0, 1, ...): the graph tests the
    # values, so the data goes in as the user has it
    rng = np.random.RandomState(2)
    X = np.c_[rng.rand(400), rng.choice([-7.0, 3.0, 40.0, 1000.0, 2.0**20], 400)]
    y = (X[:, 0] > 0.5) ^ np.isin(X[:, 1], [3.0, 2.0**20])
    model = Est(categorical_features=[1], random_state=0).fit(X, y.astype(int))
    assert (model.tree_.categorical_set >= 0).any()
    X_new = np.c_[rng.rand(300), rng.choice([-7.0, 3.0, 40.0, 1000.0, 2.0**20, np.nan], 300)]
    outputs = _run(to_onnx(model), X_new)
    np.testing.assert_allclose(outputs[0].ravel(), model.predict(X_new), rtol=1e-6)


def test_regression_values_beyond_float32_are_refused():
    X = np.random.RandomState(0).rand(50, 2)
    reg = DecisionTreeRegressor(max_depth=2).fit(X, np.where(X[:, 0] > 0.5, 1e300, 1.0))
    with pytest.raises(ValueError, match="beyond float32's range"):
        to_onnx(reg)
    tiny = DecisionTreeRegressor(max_depth=2).fit(X, np.where(X[:, 0] > 0.5, 1e-300, 0.0))
    with pytest.raises(ValueError, match="beyond float32's range"):
        to_onnx(tiny)
