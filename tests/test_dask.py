"""dtree.dask on a LocalCluster of two worker processes: the distributed tree is the
local hist tree, whatever the partitioning, and survives a lost worker."""
import os
import subprocess
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import dtree  # noqa: E402
import dtree.dask as dtree_dask  # noqa: E402
from dtree.dask import DaskDecisionTreeClassifier, DaskDecisionTreeRegressor  # noqa: E402

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=50)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _data(n=2000, d=5, seed=0, nan=0.05):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[rng.random(X.shape) < nan] = np.nan
    signal = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    return X, signal, rng


def assert_same_tree(a, b):
    assert a.node_count == b.node_count
    for name in ("children_left", "children_right", "feature", "threshold",
                 "n_node_samples", "missing_go_to_left"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_allclose(a.value, b.value, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12)


CHUNKS = [(2000,), (700, 700, 600), (0, 1, 999, 0, 1000), (97,) * 20 + (60,)]


@pytest.mark.parametrize("chunks", CHUNKS[1:])
def test_classifier_equals_local_hist_tree(client, chunks):
    X, signal, _ = _data()
    y = (signal > 0).astype(int)
    dX, dy = da.from_array(X, chunks=(chunks, 5)), da.from_array(y, chunks=(chunks,))
    est = DaskDecisionTreeClassifier(random_state=0).fit(dX, dy)
    local = dtree.DecisionTreeClassifier(splitter="hist", random_state=0).fit(X, y)
    assert local.tree_.node_count > 100          # full depth: ties decided as locally
    assert_same_tree(local.tree_, est.tree_)
    np.testing.assert_array_equal(est.classes_, local.classes_)
    np.testing.assert_array_equal(est.predict(dX).compute(), local.predict(X))
    np.testing.assert_allclose(est.predict_proba(dX).compute(), local.predict_proba(X))
    np.testing.assert_array_equal(est.apply(dX).compute(), local.apply(X))


def test_feature_draw_is_the_local_one_for_any_partitioning(client):
    X, signal, _ = _data(n=1200, seed=4)
    y = (signal > 0.2).astype(int)
    local = dtree.DecisionTreeClassifier(splitter="hist", max_features=2, max_depth=5,
                                         random_state=3).fit(X, y)
    for chunks in ((1200,), (500, 0, 700)):
        est = DaskDecisionTreeClassifier(max_features=2, max_depth=5, random_state=3).fit(
            da.from_array(X, chunks=(chunks, 5)), da.from_array(y, chunks=(chunks,)))
        assert_same_tree(local.tree_, est.tree_)


def test_best_first_growth(client, capsys):
    X, signal, _ = _data(n=1500, seed=9)
    y = (signal > 0.1).astype(int)
    local = dtree.DecisionTreeClassifier(splitter="hist", max_leaf_nodes=25,
                                         random_state=0).fit(X, y)
    est = DaskDecisionTreeClassifier(max_leaf_nodes=25, random_state=0, verbose=1).fit(
        da.from_array(X, chunks=400), da.from_array(y, chunks=400))
    assert est.tree_.n_leaves == 25
    assert_same_tree(local.tree_, est.tree_)
    # verbose: a line per round over the cluster (best-first: one per expansion)
    rounds = [line for line in capsys.readouterr().err.splitlines()
              if line.startswith("[dtree] round ")]
    assert len(rounds) == 24 and rounds[-1].startswith("[dtree] round 24: 49 nodes in ")


@pytest.mark.parametrize("class_weight", ["balanced", {0: 3.0, 1: 0.5}, {1: 0.0}])
def test_class_weights_as_a_local_fit(client, class_weight):
    X, signal, rng = _data(n=1200, seed=10)
    # 800 and 400 of each class: "balanced" weighs them 0.75 and 1.5, exact sums
    y = (signal > np.sort(signal)[799]).astype(int)
    w = rng.integers(0, 3, X.shape[0]).astype(np.float64)
    local = dtree.DecisionTreeClassifier(splitter="hist", class_weight=class_weight,
                                         max_depth=6, random_state=0).fit(X, y, w)
    est = DaskDecisionTreeClassifier(class_weight=class_weight, max_depth=6,
                                     random_state=0).fit(
        da.from_array(X, chunks=500), da.from_array(y, chunks=500),
        da.from_array(w, chunks=500))
    assert_same_tree(local.tree_, est.tree_)
    np.testing.assert_array_equal(est.classes_, local.classes_)


def test_regressor_with_integer_weights_and_targets(client):
    X, signal, rng = _data(seed=1)
    y = np.round(3 * np.abs(signal + rng.normal(size=X.shape[0])))
    w = rng.integers(0, 4, X.shape[0]).astype(np.float64)   # zero weights drop rows
    chunks = CHUNKS[2]
    est = DaskDecisionTreeRegressor(min_samples_leaf=3, random_state=0).fit(
        da.from_array(X, chunks=(chunks, 5)), da.from_array(y, chunks=(chunks,)),
        da.from_array(w, chunks=(chunks,)))
    local = dtree.DecisionTreeRegressor(splitter="hist", min_samples_leaf=3,
                                        random_state=0).fit(X, y, sample_weight=w)
    assert_same_tree(local.tree_, est.tree_)
    np.testing.assert_allclose(est.predict(da.from_array(X, chunks=500)).compute(),
                               local.predict(X))


def test_few_valued_features_give_the_exact_tree(client):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 40, size=(3000, 4)).astype(np.float32)
    X[rng.random(X.shape) < 0.03] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + 2 * np.nan_to_num(X[:, 1]) + rng.normal(0, 8, 3000)) > 60)
    est = DaskDecisionTreeClassifier(criterion="entropy", random_state=0).fit(
        da.from_array(X, chunks=800), da.from_array(y, chunks=800))
    exact = dtree.DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y)
    assert_same_tree(exact.tree_, est.tree_)


def test_dataframe_input_names_and_prediction(client):
    pd = pytest.importorskip("pandas")
    X, signal, _ = _data(n=1500, seed=2)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
    y = pd.Series(np.where(signal > 0, "yes", "no"))
    dX, dy = dd.from_pandas(frame, npartitions=3), dd.from_pandas(y, npartitions=3)
    est = DaskDecisionTreeClassifier(max_depth=6, random_state=0).fit(dX, dy)
    local = dtree.DecisionTreeClassifier(splitter="hist", max_depth=6,
                                         random_state=0).fit(frame, y)
    assert_same_tree(local.tree_, est.tree_)
    assert list(est.feature_names_in_) == list("abcde")
    np.testing.assert_array_equal(est.predict(dX).compute(), local.predict(frame))
    # columns are matched by name at predict
    swapped = dX[["e", "d", "c", "b", "a"]]
    np.testing.assert_array_equal(est.predict(swapped).compute(), local.predict(frame))


def test_categorical_columns_give_the_exact_tree(client):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(8)
    n = 3000
    frame = pd.DataFrame({
        "a": rng.integers(0, 30, n).astype(float),
        "c": pd.Categorical(rng.choice(list("abcdefghij"), n)),
        "t": rng.choice([f"x{i}" for i in range(20)], n).astype(object),
        "b": rng.integers(0, 10, n).astype(float)})
    frame.loc[rng.random(n) < 0.05, "c"] = np.nan
    frame.loc[rng.random(n) < 0.05, "t"] = None
    signal = (frame.a > 12) ^ frame.c.isin(list("abe")) | frame.t.isin(["x1", "x3", "x17"])
    y = np.where(rng.random(n) < 0.1, ~signal, signal).astype(int)
    # partitions that miss categories: the categories are the union, sorted
    dX = dd.from_pandas(frame, npartitions=4)
    dy = da.from_array(y, chunks=1000)       # (an array: aligned on the frame's partitions)
    est = DaskDecisionTreeClassifier(min_samples_leaf=5, random_state=0).fit(dX, dy)
    exact = dtree.DecisionTreeClassifier(min_samples_leaf=5, random_state=0).fit(frame, y)
    assert exact.tree_.category_sets.shape[0] > 0
    assert_same_tree(exact.tree_, est.tree_)
    np.testing.assert_array_equal(exact.tree_.category_sets, est.tree_.category_sets)
    assert list(est.to_local().categories_[1]) == list("abcdefghij")
    np.testing.assert_array_equal(est.predict(dX).compute(), exact.predict(frame))
    # an unseen category at predict is a missing value, as in a local fit
    other = frame.copy()
    other["t"] = other["t"].where(other["t"] != "x1", "new")
    np.testing.assert_array_equal(
        est.predict(dd.from_pandas(other, npartitions=3)).compute(), exact.predict(other))


def test_to_local_is_an_ordinary_fitted_estimator(client, tmp_path):
    X, signal, _ = _data(n=1000, seed=6)
    y = (signal > 0).astype(int)
    est = DaskDecisionTreeClassifier(max_depth=4, random_state=0).fit(
        da.from_array(X, chunks=300), da.from_array(y, chunks=300))
    local = est.to_local()
    assert isinstance(local, dtree.DecisionTreeClassifier) and local.splitter == "hist"
    path = tmp_path / "model.dtree"
    local.save(path)
    loaded = dtree.load(path)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(da.from_array(X)).compute())
    from dtree.export import export_text
    assert "|--- feature_" in export_text(local)
    pruned = DaskDecisionTreeClassifier(max_depth=4, ccp_alpha=0.01, random_state=0).fit(
        da.from_array(X, chunks=300), da.from_array(y, chunks=300))
    assert pruned.tree_.node_count < est.tree_.node_count
    np.testing.assert_allclose(est.feature_importances_, local.feature_importances_)


def test_a_lost_worker_is_survived(client, monkeypatch):
    X, signal, _ = _data(n=4000, seed=7)
    y = (signal > 0).astype(int)
    dX, dy = da.from_array(X, chunks=500), da.from_array(y, chunks=500)
    calm = DaskDecisionTreeClassifier(max_depth=6, random_state=0).fit(dX, dy)
    killed = []

    def kill_one_worker(rows):
        if rows.rounds == 2 and not killed:
            worker = sorted(client.scheduler_info()["workers"])[0]
            killed.append(worker)
            try:
                client.run(os._exit, 1, workers=[worker])
            except Exception:   # the worker dies before it answers
                pass

    monkeypatch.setattr(dtree_dask, "_after_round", kill_one_worker)
    survived = DaskDecisionTreeClassifier(max_depth=6, random_state=0).fit(dX, dy)
    assert killed
    assert_same_tree(calm.tree_, survived.tree_)
    client.wait_for_workers(2, timeout=60)


def test_bad_input_is_refused_clearly(client):
    X, signal, _ = _data(n=300)
    y = (signal > 0).astype(int)
    with pytest.raises(TypeError, match="dask array or DataFrame"):
        DaskDecisionTreeClassifier().fit(X, y)
    with pytest.raises(TypeError, match="y must be a dask array"):
        DaskDecisionTreeClassifier().fit(da.from_array(X), y)
    with pytest.raises(ValueError, match="rows"):
        DaskDecisionTreeClassifier().fit(da.from_array(X), da.from_array(y[:-1]))
    bad = X.copy()
    bad[3, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        DaskDecisionTreeClassifier().fit(da.from_array(bad), da.from_array(y))
    with pytest.raises(ValueError, match="NaN"):
        DaskDecisionTreeClassifier(handle_missing="error").fit(da.from_array(X),
                                                               da.from_array(y))
    with pytest.raises(ValueError, match="sample_weight"):
        DaskDecisionTreeClassifier().fit(da.from_array(X), da.from_array(y),
                                         da.from_array(-np.ones(300)))
    with pytest.raises(ValueError, match="max_depth"):
        DaskDecisionTreeClassifier(max_depth=-1).fit(da.from_array(X), da.from_array(y))
    with pytest.raises(ValueError, match="ccp_alpha='cv'"):
        DaskDecisionTreeClassifier(ccp_alpha="cv").fit(da.from_array(X), da.from_array(y))
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": X[:, 0], "t": pd.date_range("2020-01-01", periods=300)})
    with pytest.raises(ValueError, match="column 't'"):
        DaskDecisionTreeClassifier().fit(dd.from_pandas(frame, npartitions=2),
                                         dd.from_pandas(pd.Series(y), npartitions=2))
    many = pd.DataFrame({"a": X[:, 0], "c": [f"k{i}" for i in range(300)]})
    with pytest.raises(ValueError, match="column 'c' has 300 categories"):
        DaskDecisionTreeClassifier().fit(dd.from_pandas(many, npartitions=2),
                                         dd.from_pandas(pd.Series(y), npartitions=2))
    fitted = DaskDecisionTreeClassifier(max_depth=2).fit(da.from_array(X), da.from_array(y))
    with pytest.raises(ValueError, match="expecting 5 features"):
        fitted.predict(da.from_array(X[:, :3]))
    with pytest.raises(AttributeError, match="not fitted"):
        DaskDecisionTreeClassifier().to_local()


def test_no_client_is_a_clear_error():
    code = ("import numpy as np, dask.array as da\n"
            "from dtree.dask import DaskDecisionTreeClassifier\n"
            "try:\n"
            "    DaskDecisionTreeClassifier().fit(da.ones((10, 2)), da.ones(10))\n"
            "except ValueError as e:\n"
            "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert "no Dask client" in out.stdout, out.stderr


def test_the_guide_example_runs_as_written(tmp_path):
    # the user guide's Dask page (docs/guide/dask.md; it was the README's section)
    root = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    text = open(os.path.join(root, "docs", "guide", "dask.md"), encoding="utf-8").read()
    start = text.index("# One tree on a Dask cluster")
    block = text[start:].split("```python\n", 1)[1].split("```", 1)[0]
    assert "DaskDecisionTreeClassifier" in block
    script = tmp_path / "example.py"
    script.write_text(block)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=200, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / "big.dtree").exists()
    assert out.stdout.strip().startswith("[")
