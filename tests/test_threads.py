"""n_jobs: the same tree and predictions for any number of threads."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree._openmp import openmp_enabled

ARRAYS = ("children_left", "children_right", "feature", "threshold", "impurity",
          "n_node_samples", "weighted_n_node_samples", "missing_go_to_left",
          "categorical_set", "value")


def _problem(seed, n=30_000, d=6, regression=False, missing=False, ties=False):
    # large enough that the root's search and partition run on several threads
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    if ties:
        X[:, : d // 2] = np.round(X[:, : d // 2], 1)  # many equal values and tied cuts
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    signal = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    if regression:
        return X, signal + rng.normal(size=n)
    return X, (signal + rng.normal(size=n) > 0).astype(int) + (X[:, 3] > 1)


def _assert_same_tree(a, b):
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name),
                                      err_msg=name)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("options", [dict(), dict(missing=True), dict(ties=True)])
def test_same_tree_for_one_two_and_three_threads(regression, options):
    X, y = _problem(1, regression=regression, **options)
    Est = DecisionTreeRegressor if regression else DecisionTreeClassifier
    fits = [Est(random_state=0, n_jobs=n_jobs, min_samples_leaf=3).fit(X, y) for n_jobs in (1, 2, 3)]
    for other in fits[1:]:
        _assert_same_tree(fits[0], other)
        if regression:
            np.testing.assert_array_equal(other.predict(X), fits[0].predict(X))
        else:
            np.testing.assert_array_equal(other.predict_proba(X), fits[0].predict_proba(X))
        np.testing.assert_array_equal(other.apply(X), fits[0].apply(X))


def test_same_tree_with_weights_categories_and_best_first_growth():
    X, y = _problem(2, missing=True)
    rng = np.random.default_rng(2)
    X[:, 5] = rng.integers(0, 7, X.shape[0])
    w = rng.uniform(0.1, 3.0, X.shape[0])
    kw = dict(categorical_features=[5], max_leaf_nodes=200, criterion="entropy")
    one = DecisionTreeClassifier(random_state=0, n_jobs=1, **kw).fit(X, y, sample_weight=w)
    two = DecisionTreeClassifier(random_state=0, n_jobs=2, **kw).fit(X, y, sample_weight=w)
    _assert_same_tree(one, two)


def test_default_uses_every_core_and_bad_values_are_refused():
    X, y = _problem(3, n=500)
    clf = DecisionTreeClassifier().fit(X, y)
    assert clf.get_params()["n_jobs"] is None
    assert clf._n_threads() >= 1
    assert DecisionTreeClassifier(n_jobs=-1)._n_threads() == clf._n_threads()
    for bad in (0, 1.5, "all"):
        with pytest.raises(ValueError, match="n_jobs"):
            DecisionTreeClassifier(n_jobs=bad).fit(X, y)


def test_predict_over_many_row_chunks_matches_one_thread():
    # enough rows for four chunks of 8,192 per thread with 4 threads
    X, y = _problem(4, n=140_000)
    clf = DecisionTreeClassifier(max_depth=12, n_jobs=1).fit(X, y)
    leaves = clf.tree_.apply(X, 1)
    for threads in (2, 4):
        np.testing.assert_array_equal(clf.tree_.apply(X, threads), leaves)
    assert isinstance(openmp_enabled(), bool)


_COUNT_THREADS = """
import os, sys
import numpy as np
from threadpoolctl import threadpool_limits
from dtree import DecisionTreeClassifier
from dtree._plan import machine

# (the count of cores other work keeps busy, which would spare them, held at none:
# the test asks what the budget allows, on a machine busy or not)
machine.busy_cores = lambda: 0

def threads():
    return len(os.listdir("/proc/self/task"))

rng = np.random.default_rng(0)
X = rng.normal(size=(200_000, 8)).astype(np.float32)
y = (X[:, 0] + X[:, 1] > 0).astype(int)
before = threads()
with threadpool_limits(1):
    DecisionTreeClassifier(splitter="hist", max_depth=6).fit(X, y).predict(X)
    DecisionTreeClassifier(max_depth=6).fit(X, y).predict(X)
limited = threads()
DecisionTreeClassifier(splitter="hist", max_depth=6).fit(X, y).predict(X)
print(before, limited, threads())
"""


def _thread_counts(script):
    """The numbers a script that counts its threads prints, run with no OpenMP limit."""
    import os
    import subprocess
    import sys
    if not os.path.isdir("/proc/self/task"):
        pytest.skip("counts threads through Linux's /proc")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.pop("OMP_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=240, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    return list(map(int, out.stdout.split()))


@pytest.mark.skipif(not openmp_enabled(), reason="a single-threaded build starts no thread")
def test_n_jobs_none_keeps_to_threadpool_limits():
    """n_jobs=None inside threadpoolctl's limit (what joblib sets in its workers) starts no
    OpenMP thread; outside it, one per core (OpenMP's threads stay once started)."""
    import os
    pytest.importorskip("threadpoolctl")
    before, limited, after = _thread_counts(_COUNT_THREADS)
    assert limited == before
    if len(os.sched_getaffinity(0)) > 1:
        assert after > before


def test_omp_num_threads_bounds_n_jobs_none():
    import os
    import subprocess
    import sys
    code = ("from dtree._plan.machine import n_threads; from dtree._openmp import openmp_enabled; "
            "print(n_threads(None), n_threads(2), openmp_enabled())")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env)
    none, two, enabled = out.stdout.split()
    assert none == "1"
    assert two == "2"            # an explicit count is the user's


_SMALL_FITS = """
import os
import numpy as np
from dtree import DecisionTreeClassifier, DecisionTreeRegressor

def threads():
    return len(os.listdir("/proc/self/task"))

rng = np.random.default_rng(0)
before = threads()
for n in (50, 2_000):
    X = rng.normal(size=(n, 8)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    for n_jobs in (None, 4):
        for kw in (dict(), dict(splitter="hist"), dict(splitter="random"),
                   dict(algorithm="c4.5"), dict(max_leaf_nodes=8)):
            DecisionTreeClassifier(n_jobs=n_jobs, **kw).fit(X, y).predict(X)
        DecisionTreeRegressor(n_jobs=n_jobs).fit(X, X[:, 0]).predict(X)
small = threads()
# enough pairs for threads a user asks for, too few for the default's (a million each)
X = rng.normal(size=(20_000, 10)).astype(np.float32)
DecisionTreeClassifier(max_depth=6).fit(X, (X[:, 0] > 0).astype(int)).predict(X)
default = threads()
X = rng.normal(size=(100_000, 8)).astype(np.float32)
DecisionTreeClassifier(n_jobs=2, max_depth=3).fit(X, (X[:, 0] > 0).astype(int))
print(before, small, default, threads())
"""


@pytest.mark.skipif(not openmp_enabled(), reason="a single-threaded build starts no thread")
def test_small_fits_start_no_thread_whatever_n_jobs():
    """A fit whose data is too small to pay for threads runs on the calling thread
    (idle OpenMP threads spin-wait and, on a busy machine, take the fit's cores),
    while a large one still gets the threads it asks for."""
    before, small, default, large = _thread_counts(_SMALL_FITS)
    assert small == before
    assert default == before
    assert large > before


def test_useful_threads_follow_the_work():
    from dtree._openmp import useful_threads
    assert useful_threads(8, 10, 10) == 1
    assert useful_threads(8, 1 << 16, 1) == 1
    assert useful_threads(8, 1 << 16, 3) == 3
    assert useful_threads(8, 10 ** 6, 10) == 8
    assert useful_threads(1, 10 ** 6, 10) == 1
    assert useful_threads(4, 0, 5) == 1
    # the default's threads (n_jobs=None) need a million pairs each
    assert useful_threads(8, 20_000, 10, by_default=True) == 1
    assert useful_threads(8, 10 ** 6, 10, by_default=True) == 8
    assert useful_threads(8, 150_000, 10, by_default=True) == 1
    assert useful_threads(8, 210_000, 10, by_default=True) == 2


def _fake_proc(tmp_path, runnable, states):
    tmp_path.mkdir()
    (tmp_path / "loadavg").write_text(f"1.50 1.20 0.90 {runnable}/412 9999\n")
    for tid, state in enumerate(states, start=100):
        task = tmp_path / "self" / "task" / str(tid)
        task.mkdir(parents=True)
        # a command with spaces and a parenthesis: the state follows its last ')'
        (task / "stat").write_text(f"{tid} (python (x) y) {state} 1 2 3 4\n")
    return str(tmp_path)


def test_busy_cores_are_the_runnable_threads_less_this_processs_own(tmp_path):
    from dtree._plan.machine import busy_cores
    assert busy_cores(_fake_proc(tmp_path / "a", 5, "RRS")) == 3
    assert busy_cores(_fake_proc(tmp_path / "b", 2, "RR")) == 0
    # (counted at different moments: never below none)
    assert busy_cores(_fake_proc(tmp_path / "c", 1, "RRR")) == 0
    # a system that does not say: none
    assert busy_cores(str(tmp_path / "missing")) == 0


@pytest.mark.skipif(not os.path.exists("/proc/loadavg"), reason="Linux's /proc tells")
def test_busy_cores_see_another_process_at_work():
    from dtree._plan.machine import busy_cores
    child = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        seen = 0
        for _ in range(200):
            seen = max(seen, busy_cores())
            if seen:
                break
            time.sleep(0.01)
        assert seen >= 1
    finally:
        child.kill()
        child.wait()


def test_the_default_fit_leaves_busy_cores_alone(monkeypatch):
    """A large default fit takes no more threads than the cores other work leaves
    free (a thread sharing its core arrives late at every large node); n_jobs set
    is taken as asked."""
    from dtree._plan import machine, plan
    X = np.zeros((10 ** 6, 10), dtype=np.float32)
    monkeypatch.setattr(plan, "n_threads", lambda n_jobs: 8 if n_jobs is None else n_jobs)
    monkeypatch.setattr(machine, "available_cores", lambda: 8)
    monkeypatch.setattr(machine.os, "cpu_count", lambda: 8)
    monkeypatch.setattr(machine, "busy_cores", lambda: 0)
    assert plan._fit_threads(None, X, 10) == 8
    monkeypatch.setattr(machine, "busy_cores", lambda: 5)
    assert plan._fit_threads(None, X, 10) == 3
    assert plan._fit_threads(4, X, 10) == 4
    monkeypatch.setattr(machine, "busy_cores", lambda: 12)
    assert plan._fit_threads(None, X, 10) == 1
    # held to 8 of a machine's 64 cores, whose load it sees whole: its share of it
    monkeypatch.setattr(machine.os, "cpu_count", lambda: 64)
    monkeypatch.setattr(machine, "busy_cores", lambda: 40)
    assert machine.free_cores() == 3
    assert plan._fit_threads(None, X, 10) == 3


def test_the_default_predict_leaves_busy_cores_alone(monkeypatch):
    """A large batch at the default n_jobs is encoded and routed on no more threads
    than the cores other work leaves free; a small one never asks; n_jobs set is
    taken as asked."""
    pd = pytest.importorskip("pandas")
    from dtree._estimators import base
    from dtree._input import encode
    from dtree._plan import machine
    from dtree._route import PARALLEL_ROWS
    X, y = _problem(7, n=2_000)
    clf = DecisionTreeClassifier(max_depth=4).fit(X, y)
    monkeypatch.setattr(base, "n_threads", lambda n_jobs: 8 if n_jobs is None else n_jobs)
    monkeypatch.setattr(encode, "n_threads", lambda n_jobs: 8 if n_jobs is None else n_jobs)
    monkeypatch.setattr(machine, "free_cores", lambda: 3)
    assert clf._n_threads(PARALLEL_ROWS) == 3
    assert clf._n_threads(10) == 8          # (too few rows for threads: not asked)
    assert DecisionTreeClassifier(n_jobs=5)._n_threads(PARALLEL_ROWS) == 5
    # the encoding of a DataFrame's columns: the same threads
    laid = []
    put = encode.put_columns
    monkeypatch.setattr(encode, "put_columns",
                        lambda columns, out, threads: laid.append(threads) or
                        put(columns, out, threads))
    frame = pd.DataFrame(np.resize(X, (PARALLEL_ROWS, X.shape[1])),
                         columns=[f"x{j}" for j in range(X.shape[1])])
    frame["x0"] = pd.Series(np.where(frame["x0"] > 0, "a", "b"), dtype="str")
    cat = DecisionTreeClassifier(max_depth=4).fit(frame.iloc[:2000], y)
    assert cat.categorical_features_[0]
    cat.predict(frame)
    assert laid[-1] == 3
    cat.set_params(n_jobs=2).predict(frame)
    assert laid[-1] == 2


def test_the_default_forest_predict_leaves_busy_cores_alone(monkeypatch):
    from dtree import RandomForestClassifier
    from dtree._forest import base as forest_base
    from dtree._plan import machine
    from dtree._route import PARALLEL_ROWS
    X, y = _problem(8, n=500)
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    monkeypatch.setattr(forest_base, "n_threads", lambda n_jobs: 8 if n_jobs is None else n_jobs)
    monkeypatch.setattr(machine, "free_cores", lambda: 2)
    big, small = np.zeros((PARALLEL_ROWS, 1)), np.zeros((10, 1))
    assert forest._predict_threads(big) == 2
    assert forest._predict_threads(small) == 8     # (too few rows for threads: not asked)
    assert forest.set_params(n_jobs=4)._predict_threads(big) == 4
