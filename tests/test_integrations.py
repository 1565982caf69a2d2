"""Adapters for tools that know scikit-learn's classes by name, against the real packages."""
import numpy as np
import pytest

import dtree
from dtree.integrations import to_shap


def _data(seed=0, n=500):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.round(4 * (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])))
    return X, y


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_shap_values_equal_scikit_learns_on_the_same_tree(task):
    shap = pytest.importorskip("shap")
    sk_tree = pytest.importorskip("sklearn.tree")
    X, y = _data()
    if task == "classification":
        y = np.digitize(y, [-2, 2])
        ours = dtree.DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
        theirs = sk_tree.DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    else:
        ours = dtree.DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y)
        theirs = sk_tree.DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    np.testing.assert_array_equal(ours.tree_.missing_go_to_left,
                                  theirs.tree_.missing_go_to_left)
    ours_explainer = shap.TreeExplainer(to_shap(ours))
    got = ours_explainer.shap_values(X)
    want = shap.TreeExplainer(theirs).shap_values(X)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours_explainer.expected_value,
                               shap.TreeExplainer(theirs).expected_value, rtol=1e-12)


def test_shap_refuses_category_sets_clearly():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abc"), 300))})
    y = (frame.c == "b").to_numpy().astype(int)
    clf = dtree.DecisionTreeClassifier().fit(frame, y)
    with pytest.raises(ValueError, match="sets of categories"):
        to_shap(clf)
    with pytest.raises(ValueError, match="fitted"):
        to_shap(dtree.DecisionTreeClassifier())


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_skl2onnx_converts_pipelines_holding_dtree_models(task):
    skl2onnx = pytest.importorskip("skl2onnx")
    ort = pytest.importorskip("onnxruntime")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from dtree.integrations import register_skl2onnx
    X, y = _data(seed=3)
    X = np.nan_to_num(X).astype(np.float32)
    if task == "classification":
        y = np.digitize(y, [-2, 2]) * 10            # int labels 0, 10, 20
        model = dtree.DecisionTreeClassifier(max_depth=6, random_state=0)
    else:
        model = dtree.DecisionTreeRegressor(max_depth=6, random_state=0)
    pipe = make_pipeline(StandardScaler(), model).fit(X, y)
    register_skl2onnx()
    options = {id(model): {"zipmap": False}} if task == "classification" else None
    onx = skl2onnx.to_onnx(pipe, X[:1], options=options)
    session = ort.InferenceSession(onx.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: X})
    if task == "classification":
        np.testing.assert_array_equal(got[0], pipe.predict(X))
        np.testing.assert_allclose(got[1], pipe.predict_proba(X), rtol=1e-6)
    else:
        np.testing.assert_allclose(got[0].ravel(), pipe.predict(X), rtol=1e-5)


def test_dtreeviz_views_numeric_trees_and_refuses_category_sets():
    pytest.importorskip("dtreeviz")
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from dtree.integrations import to_dtreeviz
    X, y = _data(seed=4)
    X = np.nan_to_num(X)
    labels = (y > 0).astype(int)
    clf = dtree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, labels)
    viz = to_dtreeviz(clf, X, labels, feature_names=["a", "b", "c", "d"])
    # the shadow tree reads dtree's nodes: its leaves are the tree's
    leaf_ids, counts = viz.shadow_tree.get_leaf_sample_counts()
    np.testing.assert_array_equal(leaf_ids, np.flatnonzero(clf.tree_.children_left < 0))
    np.testing.assert_array_equal(counts, clf.tree_.n_node_samples[leaf_ids])
    text = viz.explain_prediction_path(X[0])
    assert any(name in text for name in "abcd")
    pd = pytest.importorskip("pandas")
    # text labels: dtreeviz draws classes by index, named by the labels
    words = np.where(labels == 1, "yes", "no")
    worded = dtree.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, words)
    view = to_dtreeviz(worded, X, words)
    assert view.shadow_tree.class_names == {0: "no", 1: "yes"}
    assert view.view() is not None
    with pytest.raises(ValueError, match="label 'maybe'"):
        to_dtreeviz(worded, X, np.full(X.shape[0], "maybe"))
    # fitted on a DataFrame, no feature_names given: the columns' names
    named = pd.DataFrame(X, columns=["w", "x", "y", "z"])
    by_name = dtree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(named, labels)
    assert to_dtreeviz(by_name, named, labels).shadow_tree.feature_names == ["w", "x", "y", "z"]
    frame = pd.DataFrame({"c": pd.Categorical(np.random.default_rng(0).choice(list("xyz"), 200))})
    cat_clf = dtree.DecisionTreeClassifier().fit(frame, (frame.c == "y").astype(int))
    with pytest.raises(ValueError, match="sets of categories"):
        to_dtreeviz(cat_clf, frame, (frame.c == "y").astype(int))


def test_mlflow_round_trip_through_dtrees_model_file(tmp_path, monkeypatch):
    mlflow = pytest.importorskip("mlflow")
    # a local file store (mlflow-skinny has no database backend)
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    import mlflow.pyfunc
    from dtree.integrations import log_fit, log_mlflow_model, save_mlflow_model
    X, y = _data(seed=6)
    labels = (y > 0).astype(int)
    clf = dtree.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, labels)
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    with mlflow.start_run() as run:
        info = log_mlflow_model(clf, name="tree")
        metrics = log_fit(clf, X, labels)
    loaded = mlflow.pyfunc.load_model(info.model_uri)
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    data = mlflow.get_run(run.info.run_id).data
    assert data.params["max_depth"] == "4" and data.metrics["tree_leaves"] == clf.get_n_leaves()
    assert metrics["training_score"] == clf.score(X, labels)
    # the directory holds dtree's model file and no pickle
    save_mlflow_model(clf, tmp_path / "saved")
    files = {p.name for p in (tmp_path / "saved").rglob("*") if p.is_file()}
    assert "model.dtree" in files and not any(f.endswith((".pkl", ".pickle")) for f in files)
    assert "dtree.integrations" in (tmp_path / "saved" / "MLmodel").read_text()
    again = mlflow.pyfunc.load_model(str(tmp_path / "saved"))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))


def test_mlflow_autolog_logs_each_fit_and_can_be_undone(tmp_path, monkeypatch):
    mlflow = pytest.importorskip("mlflow")
    from dtree.integrations import autolog
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    X, y = _data(seed=7)
    plain_fit = dtree.DecisionTreeRegressor.fit
    autolog()
    try:
        with mlflow.start_run() as run:
            reg = dtree.ExtraTreeRegressor(max_depth=3, random_state=0).fit(X, y)
        data = mlflow.get_run(run.info.run_id).data
        assert data.params["splitter"] == "random" and data.metrics["tree_depth"] == 3
        assert data.metrics["training_score"] == pytest.approx(reg.score(X, y))
        dtree.DecisionTreeClassifier(max_depth=2).fit(X, y > 0)   # a run of its own
        runs = mlflow.search_runs(output_format="list")
        assert len(runs) == 2
    finally:
        autolog(disable=True)
    assert dtree.DecisionTreeRegressor.fit is plain_fit


def test_shap_refusing_a_dtree_model_names_to_shap():
    shap = pytest.importorskip("shap")
    X, y = _data(seed=2)
    X = np.nan_to_num(X)
    for model in (dtree.DecisionTreeRegressor(max_depth=2).fit(X, y),
                  dtree.RandomForestRegressor(n_estimators=2, max_depth=2).fit(X, y)):
        with pytest.raises(Exception, match=r"to_shap\(model\)"):
            shap.TreeExplainer(model)
        # the way it names works
        assert shap.TreeExplainer(dtree.integrations.to_shap(model)).shap_values(X[:3]).shape \
            == (3, X.shape[1])
