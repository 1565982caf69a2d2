"""python -m dtree.bench runs and reports what it promises (no timing asserted)."""
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
        [sys.executable, "-m", "dtree.bench", "--sizes", "300,600", "--json", str(out)],
        capture_output=True, text=True, check=True, timeout=300, cwd=tmp_path)
    assert "ratio" in proc.stdout and "O(dN log N) predicts" in proc.stdout
    result = json.loads(out.read_text())
    assert {r["task"] for r in result["rows"]} == {"classification", "regression"}
    for row in result["rows"]:
        assert row["dtree_fit"] > 0 and row["sklearn_fit"] > 0
        assert row["fit_ratio"] == pytest.approx(row["dtree_fit"] / row["sklearn_fit"])
        assert row["dtree_nodes"] > 1 and row["sklearn_nodes"] > 1
    assert len(result["slopes"]) == 2


def test_cli_rejects_bad_arguments(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "dtree.bench", "--repeat", "0"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode != 0 and "--repeat" in proc.stderr
