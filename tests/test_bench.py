"""python -m dtree.bench runs and reports what it promises (no timing asserted)."""
import io
import json
import subprocess
import sys

import numpy as np
import pytest

from dtree import bench


def test_nlogn_slope_is_what_n_log_n_gives():
    sizes = [1e4, 1e6]
    expected = np.log((1e6 * np.log(1e6)) / (1e4 * np.log(1e4))) / np.log(100)
    assert bench.nlogn_slope(sizes) == pytest.approx(expected)
    assert bench.loglog_slope([10, 100, 1000], [1.0, 10.0, 100.0]) == pytest.approx(1.0)


def test_make_data_is_deterministic_and_shaped():
    X, y = bench.make_data("classification", 500, 4)
    X2, y2 = bench.make_data("classification", 500, 4)
    assert X.shape == (500, 4) and X.dtype == np.float32
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert set(np.unique(y)) == {0, 1}
    _, yr = bench.make_data("regression", 500, 4)
    assert yr.dtype == np.float64


def test_cli_prints_the_table_and_writes_json(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "-m", "dtree.bench", "--sizes", "300,600", "--no-peers", "--json",
         str(out)],
        capture_output=True, text=True, check=True, timeout=300, cwd=tmp_path)
    assert "ratio" in proc.stdout and "O(dN log N) predicts" in proc.stdout
    result = json.loads(out.read_text())
    assert {r["task"] for r in result["rows"]} == {"classification", "regression"}
    for row in result["rows"]:
        assert row["dtree_fit"] > 0 and row["sklearn_fit"] > 0
        assert row["fit_ratio"] == pytest.approx(row["dtree_fit"] / row["sklearn_fit"])
        assert row["dtree_nodes"] > 1 and row["sklearn_nodes"] > 1
        assert row["hist_fit_ratio"] == pytest.approx(row["dtree_hist_fit"] / row["sklearn_fit"])
        assert row["predict_threads_ratio"] > 0
    assert len(result["slopes"]) == 2
    assert {m["library"] for m in result["memory"]} == {"dtree exact", "dtree hist",
                                                         "scikit-learn"}
    assert all(m["x_ratio"] > 0 for m in result["memory"]) and result["peers"] == []
    assert result["threads"] >= 1 and isinstance(result["openmp"], bool)
    assert [r["criterion"] for r in result["criteria"]] == [
        "squared_error", "poisson", "absolute_error", "quantile 0.9", "3 outputs, sq",
        "3 outputs, gini"]
    for row in result["criteria"]:
        assert row["fit_ratio"] == pytest.approx(row["dtree_fit"] / row["sklearn_fit"])
        assert row["dtree_nodes"] > 1
    # scikit-learn has no quantile criterion: timed against its absolute_error, once
    quantile, absolute = result["criteria"][3], result["criteria"][2]
    assert quantile["sklearn_criterion"] == "absolute_error"
    assert quantile["sklearn_fit"] == absolute["sklearn_fit"]
    assert quantile["dtree_hist_fit"] is None and quantile["hist_fit_ratio"] is None
    # several outputs: scikit-learn fits the same 2-D target (same task, 3 outputs)
    outputs = {r["criterion"]: r for r in result["criteria"]}
    assert outputs["3 outputs, gini"]["task"] == "classification"
    assert outputs["3 outputs, sq"]["sklearn_criterion"] == "squared_error"
    # the extra trees against scikit-learn's, at the largest N
    assert [r["estimator"] for r in result["extra_trees"]] == ["ExtraTreeClassifier",
                                                               "ExtraTreeRegressor"]
    for row in result["extra_trees"]:
        assert row["n_samples"] == 600 and row["dtree_nodes"] > 1
        assert row["fit_ratio"] == pytest.approx(row["dtree_fit"] / row["sklearn_fit"])
    # sparse X against scikit-learn's sparse splitter, same trees, memory beside
    assert [r["tree"] for r in result["sparse"]] == [
        "all features, depth 10", "sqrt features, depth 20", "extra tree, depth 20"]
    for row in result["sparse"]:
        assert row["fit_ratio"] == pytest.approx(row["dtree_fit"] / row["sklearn_fit"])
        assert row["dtree_nodes"] > 1
    assert all(r["dtree_peak_bytes"] > 0 and r["sklearn_peak_bytes"] > 0
               for r in result["sparse"])
    first = result["sparse"][0]
    # exact on every feature: the very tree scikit-learn grows
    assert first["dtree_nodes"] == first["sklearn_nodes"]
    # every mode on one and two threads: the same tree, the serial fraction from them
    assert len(result["scaling"]) == 8 and "serial fraction" in proc.stdout
    for row in result["scaling"]:
        assert row["same_tree"] and row["n_samples"] == 600 and row["nodes"] > 1
        assert row["serial_fraction"] == pytest.approx(2 * row["fit_2"] / row["fit_1"] - 1)
        assert row["predict_rows_per_s"] > 0 and row["x_ratio"] > 0
    # forests: predict's best call, the first (which lays the trees out) beside it
    assert [r["forest"] for r in result["forests"]][:2] == ["RandomForestClassifier",
                                                            "RandomForestRegressor"]
    assert all(0 < r["dtree_predict"] <= r["dtree_predict_first"] for r in result["forests"])


def test_peer_table_times_every_library_on_the_same_data():
    X, y = bench.make_data("classification", 3000)
    X_test, y_test = bench.make_data("classification", 1000, seed=1)
    out = io.StringIO()
    rows = bench.peer_table("classification", X, y, X_test, y_test, 10, 1, "synthetic", out)
    libraries = [r["library"] for r in rows]
    assert libraries[:2] == ["scikit-learn", "dtree exact, 1 thread"]
    assert any(name.startswith("dtree hist") for name in libraries)
    exact = rows[1]
    assert exact["vs_sklearn"] == pytest.approx(exact["fit"] / rows[0]["fit"])
    assert 0.8 < exact["score"] <= 1.0 and exact["leaves"] > 10
    if "LightGBM, 1 thread" in libraries:  # the bench extra installs it
        lgbm = rows[libraries.index("LightGBM, 1 thread")]
        assert lgbm["leaves"] <= exact["leaves"] and lgbm["score"] > 0.8
    assert "/LightGBM" in out.getvalue()


def test_kdd_data_is_the_shipped_copy_split_once():
    X, y, X_test, y_test = bench.kdd_data()
    assert X.shape[1] == X_test.shape[1] == 41
    assert X.shape[0] + X_test.shape[0] == 494_021
    assert set(np.unique(y)) == {0, 1} and X.dtype == np.float32


def test_cli_rejects_bad_arguments(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "dtree.bench", "--repeat", "0"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode != 0 and "--repeat" in proc.stderr
