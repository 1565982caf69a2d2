"""Reference benchmark: ``python -m dtree.bench [--full] [--json PATH]``.

1. Scaling: dtree (exact and hist, one thread) and scikit-learn on the same
   synthetic data over a grid of sample sizes; fit and predict times, the
   dtree / scikit-learn ratios (predict also on every core), and the log-log
   slope of dtree's fit time against N next to the slope that O(d N log N)
   predicts.
2. Peers, on the largest size at max_depth=10: scikit-learn, dtree exact and
   hist on one thread and on every core, and LightGBM and XGBoost when they
   are installed (one round, learning rate 1, no regularisation, same depth;
   LightGBM also gets dtree's number of leaves). Held-out accuracy (or R^2)
   and, for dtree, the ratios to scikit-learn and to LightGBM.
3. The same on KDD Cup 99 (shipped: 494,021 rows, 41 features; the three
   text columns as category codes; attack vs normal, so every library grows
   one tree).
4. Peak memory of one fit (tracemalloc) against the float32 size of X.
5. Scaling (``bench_scaling``): one tree per mode (exact and hist,
   classification and regression, depth 10 and full) at the largest N on one
   thread and on two: the serial fraction, predict's rows per second, peak
   memory.
6. Forests (``bench_forests``): dtree's RandomForest and ExtraTrees against
   scikit-learn's (fit on one thread and every core, predict, memory, pickled
   bytes per node, same trees), LightGBM's rf mode beside them.

Fit times are the best of ``--repeat`` runs (wall clock), predict times the
best of at least PREDICT_REPEAT (they are short, so one run is mostly noise).
Ratios are the meaningful figures on a shared, noisy machine: the libraries
run back to back on the same arrays, with the same number of runs.
"""
import argparse
import json
import math
import os
import platform
import sys
import time

import numpy as np

from . import DecisionTreeClassifier, DecisionTreeRegressor
from ._plan.machine import available_cores as _available_cores
from ._openmp import openmp_enabled
from ._version import __version__
from .bench_memory import peak_bytes
from .bench_timing import PREDICT_REPEAT

QUICK_SIZES = (10_000, 30_000, 100_000, 200_000)
# the forest table: (rows, features, trees)
FOREST_QUICK = (20_000, 20, 20)
FOREST_FULL = (100_000, 20, 100)
FULL_SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000)


def make_data(task, n_samples, n_features=10, seed=0):
    """Synthetic data whose trees grow deep: a noisy non-linear target.

    Parameters
    ----------
    task : {"classification", "regression"}
    n_samples, n_features, seed : int

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float32
    y : ndarray of shape (n_samples,)
    """
    rng = np.random.RandomState(seed)
    X = rng.rand(n_samples, n_features).astype(np.float32)
    signal = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * np.sin(6 * X[:, 3])
    noisy = signal + 0.3 * rng.rand(n_samples)
    if task == "classification":
        return X, (noisy > np.median(noisy)).astype(np.int64)
    return X, noisy


def _best_time(fn, repeat):
    best, result = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def _sklearn_estimators():
    try:
        from sklearn.tree import DecisionTreeClassifier as SkC
        from sklearn.tree import DecisionTreeRegressor as SkR
    except ImportError:
        return None
    return {"classification": SkC, "regression": SkR}


def _ours(task):
    return DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor


def run_row(task, n_samples, max_depth, repeat, sklearn_classes, n_features=10):
    """Fit and predict with dtree (and scikit-learn) on one data set, one thread."""
    X, y = make_data(task, n_samples, n_features)
    ours_cls = _ours(task)
    fit_t, ours = _best_time(lambda: ours_cls(max_depth=max_depth, n_jobs=1).fit(X, y),
                             repeat)
    pred_repeat = max(repeat, PREDICT_REPEAT)
    pred_t, _ = _best_time(lambda: ours.predict(X), pred_repeat)
    ours.set_params(n_jobs=None)  # every core: predict runs over blocks of rows
    pred_threads, _ = _best_time(lambda: ours.predict(X), pred_repeat)
    hist_t, _ = _best_time(
        lambda: ours_cls(max_depth=max_depth, n_jobs=1, splitter="hist").fit(X, y), repeat)
    row = dict(task=task, n_samples=n_samples, n_features=n_features,
               max_depth=max_depth, dtree_fit=fit_t, dtree_predict=pred_t,
               dtree_hist_fit=hist_t, dtree_predict_threads=pred_threads,
               dtree_nodes=ours.tree_.node_count, dtree_depth=ours.get_depth())
    if sklearn_classes is not None:
        theirs_cls = sklearn_classes[task]
        sk_fit, theirs = _best_time(
            lambda: theirs_cls(max_depth=max_depth, random_state=0).fit(X, y), repeat)
        sk_pred, _ = _best_time(lambda: theirs.predict(X), pred_repeat)
        row.update(sklearn_fit=sk_fit, sklearn_predict=sk_pred,
                   sklearn_nodes=theirs.tree_.node_count,
                   fit_ratio=fit_t / sk_fit, predict_ratio=pred_t / sk_pred,
                   hist_fit_ratio=hist_t / sk_fit,
                   predict_threads_ratio=pred_threads / sk_pred)
    return row


def count_target(y, seed=0):
    """A Poisson count target whose log-rate is the synthetic target: for poisson rows."""
    return np.random.RandomState(seed).poisson(np.exp(np.asarray(y))).astype(np.float64)


def as_is(y):
    return y


def three_outputs(y, seed=0):
    """Three targets from one (itself and two noisy variants): the multi-output rows.

    Classes: y, y with a tenth flipped, and a third output of three classes.
    """
    rng = np.random.RandomState(seed)
    n = y.shape[0]
    if y.dtype.kind in "iu":
        flipped = np.where(rng.rand(n) < 0.1, 1 - y, y)
        return np.column_stack([y, flipped, (y + (rng.rand(n) < 0.3)) % 3])
    return np.column_stack([y, y ** 2 + 0.1 * rng.rand(n), np.sin(3 * y) + 0.1 * rng.rand(n)])


# criteria beyond the default, each with the target it is meant for:
# (label, dtree parameters, task, target, scikit-learn's criterion, hist mode)
# scikit-learn has no quantile criterion: that row is timed against its
# absolute_error, the same work (the median is the quantile 0.5)
CRITERIA_ROWS = (
    ("squared_error", dict(criterion="squared_error"), "regression", as_is,
     "squared_error", True),
    ("poisson", dict(criterion="poisson"), "regression", count_target, "poisson", True),
    ("absolute_error", dict(criterion="absolute_error"), "regression", as_is,
     "absolute_error", False),
    ("quantile 0.9", dict(criterion="quantile", quantile=0.9), "regression", as_is,
     "absolute_error", False),
    ("3 outputs, sq", dict(criterion="squared_error"), "regression", three_outputs,
     "squared_error", False),
    ("3 outputs, gini", dict(criterion="gini"), "classification", three_outputs, "gini",
     False),
)


def criteria_table(n_samples, repeat, sklearn_classes, out=sys.stdout):
    """Each criterion beyond the defaults (and several outputs), full depth, one thread:
    dtree (exact, hist) vs scikit-learn."""
    rows = []
    sklearn_times = {}   # (criterion, target) -> seconds: a comparison timed once
    print(f"\ncriteria, N={n_samples}, d=10, full depth, 1 thread", file=out)
    print(f"{'criterion':16s} {'fit s':>8s} {'hist s':>8s} {'sk fit':>8s} {'ratio':>7s} "
          f"{'hist':>7s} {'nodes':>8s}", file=out)
    for label, params, task, target, sk_criterion, hist in CRITERIA_ROWS:
        X, y = make_data(task, n_samples)
        y = target(y)
        cls = _ours(task)
        fit_t, ours = _best_time(lambda: cls(n_jobs=1, **params).fit(X, y), repeat)
        hist_t = None
        if hist:
            hist_t, _ = _best_time(
                lambda: cls(n_jobs=1, splitter="hist", **params).fit(X, y), repeat)
        row = dict(criterion=label, task=task, n_samples=n_samples, dtree_fit=fit_t,
                   dtree_hist_fit=hist_t, dtree_nodes=ours.tree_.node_count)
        sk_cls = sklearn_classes[task] if sklearn_classes is not None else None
        if sk_cls is not None:
            key = (sk_criterion, target)
            if key not in sklearn_times:
                sklearn_times[key], _ = _best_time(
                    lambda: sk_cls(criterion=sk_criterion, random_state=0).fit(X, y), repeat)
            sk_t = sklearn_times[key]
            row.update(sklearn_criterion=sk_criterion, sklearn_fit=sk_t,
                       fit_ratio=fit_t / sk_t,
                       hist_fit_ratio=None if hist_t is None else hist_t / sk_t)
        rows.append(row)
        print(f"{label:16s} {fit_t:8.3f} {_fmt(hist_t, 8)} "
              f"{_fmt(row.get('sklearn_fit'), 8)} {_fmt(row.get('fit_ratio'), 7)} "
              f"{_fmt(row.get('hist_fit_ratio'), 7)} {ours.tree_.node_count:8d}", file=out)
    return rows


def extra_trees_table(n_samples, repeat, with_sklearn, out=sys.stdout):
    """ExtraTreeClassifier / ExtraTreeRegressor (splitter="random") vs scikit-learn's,
    full depth, one thread, each library with its own default ``max_features``."""
    from . import ExtraTreeClassifier, ExtraTreeRegressor
    peers = {}
    if with_sklearn:
        try:
            from sklearn.tree import ExtraTreeClassifier as SkC
            from sklearn.tree import ExtraTreeRegressor as SkR
            peers = {"classification": SkC, "regression": SkR}
        except ImportError:
            pass
    rows = []
    print(f"\nextra trees, N={n_samples}, d=10, full depth, 1 thread", file=out)
    print(f"{'estimator':22s} {'fit s':>8s} {'sk fit':>8s} {'ratio':>7s} {'nodes':>8s} "
          f"{'sk nodes':>8s}", file=out)
    for task, cls in (("classification", ExtraTreeClassifier),
                      ("regression", ExtraTreeRegressor)):
        X, y = make_data(task, n_samples)
        fit_t, ours = _best_time(lambda: cls(n_jobs=1, random_state=0).fit(X, y), repeat)
        row = dict(estimator=cls.__name__, task=task, n_samples=n_samples, dtree_fit=fit_t,
                   dtree_nodes=ours.tree_.node_count)
        if task in peers:
            sk_t, theirs = _best_time(lambda: peers[task](random_state=0).fit(X, y), repeat)
            row.update(sklearn_fit=sk_t, fit_ratio=fit_t / sk_t,
                       sklearn_nodes=theirs.tree_.node_count)
        rows.append(row)
        print(f"{cls.__name__:22s} {fit_t:8.3f} {_fmt(row.get('sklearn_fit'), 8)} "
              f"{_fmt(row.get('fit_ratio'), 7)} {ours.tree_.node_count:8d} "
              f"{row.get('sklearn_nodes', '-'):>8}", file=out)
    return rows


def loglog_slope(sizes, times):
    """Least-squares slope of log(time) against log(N)."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def nlogn_slope(sizes):
    """The slope that time proportional to N log N has over the same sizes."""
    sizes = np.asarray(sizes, dtype=float)
    return loglog_slope(sizes, sizes * np.log(sizes))


def _fmt(value, width=9, digits=3):
    if value is None:
        return "-".rjust(width)
    return f"{value:{width}.{digits}f}"


def print_table(rows, out=sys.stdout):
    header = (f"{'task':<15}{'N':>9}{'depth':>7}{'nodes':>9}{'fit s':>9}{'sk fit':>9}"
              f"{'ratio':>9}{'hist s':>9}{'ratio':>9}{'pred s':>9}{'sk pred':>9}{'ratio':>9}"
              f"{'all cores':>10}")
    print(header, file=out)
    print("-" * len(header), file=out)
    for r in rows:
        depth = "full" if r["max_depth"] is None else str(r["max_depth"])
        print(f"{r['task']:<15}{r['n_samples']:>9}{depth:>7}{r['dtree_nodes']:>9}"
              f"{_fmt(r['dtree_fit'])}{_fmt(r.get('sklearn_fit'))}"
              f"{_fmt(r.get('fit_ratio'))}{_fmt(r['dtree_hist_fit'])}"
              f"{_fmt(r.get('hist_fit_ratio'))}{_fmt(r['dtree_predict'], digits=4)}"
              f"{_fmt(r.get('sklearn_predict'), digits=4)}{_fmt(r.get('predict_ratio'))}"
              f"{_fmt(r.get('predict_threads_ratio'), width=10)}",
              file=out)


# ------------------------------------------------------------------ peers
def _lightgbm(task, max_depth, n_leaves, threads):
    try:
        import lightgbm
    except ImportError:
        return None
    params = dict(n_estimators=1, learning_rate=1.0, num_leaves=max(2, n_leaves),
                  max_depth=max_depth or -1, min_child_samples=1, min_child_weight=0.0,
                  min_split_gain=0.0, reg_lambda=0.0, reg_alpha=0.0, subsample=1.0,
                  colsample_bytree=1.0, max_bin=255, n_jobs=threads, verbose=-1)
    cls = lightgbm.LGBMClassifier if task == "classification" else lightgbm.LGBMRegressor
    return cls(**params)


def _xgboost(task, max_depth, method, threads):
    try:
        import xgboost
    except ImportError:
        return None
    params = dict(n_estimators=1, learning_rate=1.0, max_depth=max_depth or 0,
                  tree_method=method, min_child_weight=0.0, reg_lambda=0.0, gamma=0.0,
                  max_bin=255, n_jobs=threads)
    cls = xgboost.XGBClassifier if task == "classification" else xgboost.XGBRegressor
    return cls(**params)


def peer_table(task, X, y, X_test, y_test, max_depth, repeat, name, out=sys.stdout):
    """Every library on one data set; returns the rows (JSON-able)."""
    cores = _available_cores()
    ours = _ours(task)
    entries = [("dtree exact, 1 thread", lambda: ours(max_depth=max_depth, n_jobs=1)),
               (f"dtree exact, {cores} threads", lambda: ours(max_depth=max_depth, n_jobs=cores)),
               ("dtree hist, 1 thread",
                lambda: ours(max_depth=max_depth, n_jobs=1, splitter="hist")),
               (f"dtree hist, {cores} threads",
                lambda: ours(max_depth=max_depth, n_jobs=cores, splitter="hist"))]
    sk = _sklearn_estimators()
    if sk is not None:
        entries.insert(0, ("scikit-learn", lambda: sk[task](max_depth=max_depth,
                                                             random_state=0)))
    rows, leaves = [], None
    for label, make in entries:
        rows.append(_peer_row(label, make, X, y, X_test, y_test, repeat))
        if label == "dtree exact, 1 thread":
            leaves = rows[-1]["leaves"]
    for label, make in (("LightGBM, 1 thread", lambda: _lightgbm(task, max_depth, leaves, 1)),
                        ("XGBoost exact, 1 thread",
                         lambda: _xgboost(task, max_depth, "exact", 1)),
                        ("XGBoost hist, 1 thread",
                         lambda: _xgboost(task, max_depth, "hist", 1))):
        if max_depth is None and label.startswith("XGBoost"):
            continue  # depth-wise XGBoost needs a depth
        if make() is not None:
            rows.append(_peer_row(label, make, X, y, X_test, y_test, repeat))
    base = {r["library"]: r["fit"] for r in rows}
    for r in rows:
        r["vs_sklearn"] = r["fit"] / base["scikit-learn"] if "scikit-learn" in base else None
        r["vs_lightgbm"] = (r["fit"] / base["LightGBM, 1 thread"]
                            if "LightGBM, 1 thread" in base else None)
    depth = "full" if max_depth is None else max_depth
    print(f"\n{name}: {task}, N={X.shape[0]}, d={X.shape[1]}, depth {depth} "
          f"(test N={X_test.shape[0]})", file=out)
    header = (f"{'library':<26}{'fit s':>9}{'pred s':>9}{'leaves':>9}{'score':>9}"
              f"{'/sklearn':>9}{'/LightGBM':>10}")
    print(header, file=out)
    print("-" * len(header), file=out)
    for r in rows:
        print(f"{r['library']:<26}{_fmt(r['fit'])}{_fmt(r['predict'], digits=4)}"
              f"{r['leaves'] if r['leaves'] is not None else '-':>9}{_fmt(r['score'], digits=4)}"
              f"{_fmt(r['vs_sklearn'])}{_fmt(r['vs_lightgbm'], width=10)}", file=out)
    return [dict(r, data=name, task=task, max_depth=max_depth, n_samples=X.shape[0])
            for r in rows]


def _peer_row(label, make, X, y, X_test, y_test, repeat):
    fit_t, model = _best_time(lambda: make().fit(X, y), repeat)
    pred_t, _ = _best_time(lambda: model.predict(X_test), max(repeat, PREDICT_REPEAT))
    return dict(library=label, fit=fit_t, predict=pred_t, leaves=_leaves(model),
                score=float(model.score(X_test, y_test)))


def _leaves(model):
    if hasattr(model, "get_n_leaves"):
        return int(model.get_n_leaves())
    if hasattr(model, "booster_"):      # LightGBM
        return int(model.booster_.dump_model()["tree_info"][0]["num_leaves"])
    if hasattr(model, "get_booster"):   # XGBoost
        return int(model.get_booster().trees_to_dataframe()["Feature"].eq("Leaf").sum())
    return None


def kdd_data():
    """KDD Cup 99 (shipped): category codes for the text columns, attack vs normal."""
    from .datasets import load_Xy

    X, y = load_Xy("kddcup99_10pct")
    columns = []
    for name in X.columns:
        column = X[name]
        if column.dtype == object or str(column.dtype) in ("category", "string", "str"):
            column = column.astype("category").cat.codes
        columns.append(np.asarray(column, dtype=np.float32))
    X = np.column_stack(columns)
    y = (np.asarray(y) != "normal").astype(np.int64)
    test = np.random.RandomState(0).rand(X.shape[0]) < 0.2
    return X[~test], y[~test], X[test], y[test]


# ----------------------------------------------------------------- memory
def text_like(n_rows, n_cols, density, seed=0):
    """A text-like sparse matrix (CSC, float32) and a binary label: term columns of
    Zipf popularity (as words), values in (0.01, 1.01], and a label from a noisy
    linear score over every column (so that trees grow deep)."""
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    nnz = int(n_rows * n_cols * density)
    popularity = 1.0 / np.arange(1, n_cols + 1)
    cols = rng.choice(n_cols, size=nnz, p=popularity / popularity.sum())
    rows = rng.integers(0, n_rows, nnz)
    X = sp.csc_matrix((rng.random(nnz).astype(np.float32) + 0.01, (rows, cols)),
                      shape=(n_rows, n_cols))
    X.sum_duplicates()
    score = X @ rng.normal(size=n_cols) + 0.5 * rng.normal(size=n_rows)
    return X, (score > np.median(score)).astype(int)


_RSS_CHILD = """
import json, sys
import numpy as np
from dtree.bench import _rss_kib, text_like
if sys.argv[1] == "dtree":
    import dtree as lib
else:
    from sklearn import tree as lib
X, y = text_like(*json.loads(sys.argv[3]))
est = getattr(lib, sys.argv[2])(random_state=0, **json.loads(sys.argv[4]))
try:   # hand the data generation's freed memory back, so the fit cannot reuse it unseen
    import ctypes
    ctypes.CDLL("libc.so.6").malloc_trim(0)
except (OSError, AttributeError):
    pass
before = _rss_kib("VmRSS")
with open("/proc/self/clear_refs", "w") as fh:   # the peak restarts from here
    fh.write("5")
est.fit(X, y)
print(json.dumps((_rss_kib("VmHWM") - before) * 1024))
"""


def _rss_kib(field):
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def peak_fit_rss(library, estimator, shape, params):
    """The resident memory a fit adds at its peak (bytes), measured in a fresh
    process on ``text_like(*shape)``: every allocation counts (C buffers too),
    which tracemalloc does not see. None where /proc cannot tell (not Linux)."""
    import subprocess
    try:
        _rss_kib("VmHWM")
    except (OSError, KeyError):
        return None
    proc = subprocess.run([sys.executable, "-c", _RSS_CHILD, library, estimator,
                           json.dumps(list(shape)), json.dumps(params)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


SPARSE_SHAPES_QUICK = ((20_000, 2_000, 0.005),)
SPARSE_SHAPES_FULL = ((100_000, 10_000, 0.001), (100_000, 10_000, 0.01))


def sparse_table(shapes, repeat, with_sklearn, out=sys.stdout, memory=True):
    """Sparse X (``text_like``, CSC) vs scikit-learn's sparse splitter, one thread:
    a tree on every feature at depth 10, a forest-style tree (max_features="sqrt",
    depth 20) and ExtraTreeClassifier (depth 20), and the resident memory each fit
    adds at its peak (``peak_fit_rss``; ``memory=False`` skips it)."""
    try:
        import scipy.sparse  # noqa: F401
    except ImportError:
        print("\nsparse X: scipy is not installed, skipped", file=out)
        return []
    from . import DecisionTreeClassifier, ExtraTreeClassifier
    sk = None
    if with_sklearn:
        try:
            from sklearn import tree as sk
        except ImportError:
            pass
    configs = (("all features, depth 10", "DecisionTreeClassifier", dict(max_depth=10)),
               ("sqrt features, depth 20", "DecisionTreeClassifier",
                dict(max_features="sqrt", max_depth=20)),
               ("extra tree, depth 20", "ExtraTreeClassifier", dict(max_depth=20)))
    ours = dict(DecisionTreeClassifier=DecisionTreeClassifier,
                ExtraTreeClassifier=ExtraTreeClassifier)
    rows = []
    for n_rows, n_cols, density in shapes:
        X, y = text_like(n_rows, n_cols, density)
        print(f"\nsparse X (CSC, text-like), {n_rows} x {n_cols}, density {density:g} "
              f"({X.nnz} non-zeros), 1 thread", file=out)
        print(f"  {'tree':26s} {'fit s':>8s} {'sk fit':>8s} {'ratio':>7s} {'nodes':>7s} "
              f"{'peak MB':>8s} {'sk MB':>7s}", file=out)
        for label, name, params in configs:
            make = lambda: ours[name](random_state=0, n_jobs=1, **params)
            fit_t, model = _best_time(lambda: make().fit(X, y), repeat)
            row = dict(matrix=[n_rows, n_cols, density], tree=label, dtree_fit=fit_t,
                       dtree_nodes=model.tree_.node_count)
            if memory:
                row["dtree_peak_bytes"] = peak_fit_rss(
                    "dtree", name, (n_rows, n_cols, density), dict(params, n_jobs=1))
            if sk is not None:
                make_sk = lambda: getattr(sk, name)(random_state=0, **params)
                sk_t, theirs = _best_time(lambda: make_sk().fit(X, y), repeat)
                row.update(sklearn_fit=sk_t, fit_ratio=fit_t / sk_t,
                           sklearn_nodes=theirs.tree_.node_count)
                if memory:
                    row["sklearn_peak_bytes"] = peak_fit_rss(
                        "sklearn", name, (n_rows, n_cols, density), params)
            rows.append(row)
            mb = lambda key: (_fmt(row[key] / 1e6, 8, 1) if row.get(key) is not None
                              else f"{'-':>8s}")
            print(f"  {label:26s} {fit_t:8.3f} {_fmt(row.get('sklearn_fit'), 8)} "
                  f"{_fmt(row.get('fit_ratio'), 7)} {row['dtree_nodes']:7d} "
                  f"{mb('dtree_peak_bytes')} {mb('sklearn_peak_bytes')}", file=out)
    print("  (peak MB: resident memory the fit adds at its peak, X excluded, in a fresh "
          "process)", file=out)
    return rows


def peak_fit_memory(make, X, y):
    """Peak memory traced during one fit (``peak_bytes``), bytes."""
    return peak_bytes(lambda: make().fit(X, y))


def memory_table(task, n_samples, out=sys.stdout):
    """Peak fit memory of each library at max_depth=10, and of dtree at full depth.

    tracemalloc sees numpy arrays and Python objects; scikit-learn's tree nodes
    (C allocations) escape it, so full-depth rows are given for dtree only,
    where they include the finished tree's arrays.
    """
    X, y = make_data(task, n_samples)
    ours = _ours(task)
    entries = [("dtree exact", 10, lambda: ours(n_jobs=1, max_depth=10)),
               ("dtree hist", 10, lambda: ours(n_jobs=1, splitter="hist", max_depth=10)),
               ("dtree exact", None, lambda: ours(n_jobs=1)),
               ("dtree hist", None, lambda: ours(n_jobs=1, splitter="hist"))]
    sk = _sklearn_estimators()
    if sk is not None:
        entries.insert(2, ("scikit-learn", 10, lambda: sk[task](random_state=0, max_depth=10)))
    rows = []
    print(f"\npeak fit memory, {task}, N={n_samples} (X float32: {X.nbytes / 1e6:.0f} MB)",
          file=out)
    for label, depth, make in entries:
        peak = peak_fit_memory(make, X, y)
        rows.append(dict(library=label, task=task, n_samples=n_samples, max_depth=depth,
                         peak_bytes=peak, x_ratio=peak / X.nbytes))
        name = f"{label}, depth {'full' if depth is None else depth}"
        print(f"  {name:<28}{peak / 1e6:9.0f} MB = {peak / X.nbytes:5.2f} x X", file=out)
    return rows


# -------------------------------------------------------------------- run
def run(sizes, tasks=("classification", "regression"), depths=(None,), repeat=1,
        with_sklearn=True, peers=True, kdd=True, memory=True, out=sys.stdout,
        sparse_shapes=SPARSE_SHAPES_QUICK, forests=FOREST_QUICK, scaling=True):
    """Run the benchmark; returns the JSON-able result dict."""
    sklearn_classes = _sklearn_estimators() if with_sklearn else None
    if with_sklearn and sklearn_classes is None:
        print("scikit-learn is not installed: timing dtree alone", file=out)
    cores = _available_cores()
    print(f"dtree {__version__}, {cores} cores, OpenMP "
          f"{'on' if openmp_enabled() else 'off (single-threaded build)'}", file=out)
    rows, slopes = [], []
    for task in tasks:
        for depth in depths:
            task_rows = [run_row(task, n, depth, repeat, sklearn_classes) for n in sizes]
            rows.extend(task_rows)
            if len(sizes) >= 2:
                fit_times = [r["dtree_fit"] for r in task_rows]
                slopes.append(_slope_entry(task, depth, sizes, fit_times))
                large = [n for n in sizes if n >= 100_000]
                if len(large) >= 2 and len(large) < len(sizes):
                    slopes.append(_slope_entry(task, depth, large, fit_times[-len(large):]))
    print_table(rows, out)
    print(file=out)
    for s in slopes:
        depth = "full" if s["max_depth"] is None else s["max_depth"]
        print(f"{s['task']} (depth {depth}): fit time ~ N^{s['slope']:.2f} from "
              f"N={s['sizes'][0]} to {s['sizes'][-1]}; O(dN log N) predicts "
              f"N^{s['nlogn_slope']:.2f}", file=out)
    result = dict(dtree_version=__version__, python=platform.python_version(),
                  numpy=np.__version__, machine=platform.machine(),
                  cpu_count=os.cpu_count(), threads=cores, openmp=openmp_enabled(),
                  repeat=repeat,
                  rows=rows, slopes=slopes, peers=[], memory=[])
    # a fifth of the largest N: the quick run stays under a minute
    result["criteria"] = criteria_table(max(1000, max(sizes) // 5), repeat, sklearn_classes,
                                        out)
    result["extra_trees"] = extra_trees_table(max(sizes), repeat, with_sklearn, out)
    result["sparse"] = sparse_table(sparse_shapes, repeat, with_sklearn, out, memory)
    if peers and with_sklearn:
        n = max(sizes)
        for task in tasks:
            X, y = make_data(task, n)
            X_test, y_test = make_data(task, max(n // 5, 1000), seed=1)
            result["peers"] += peer_table(task, X, y, X_test, y_test, 10, repeat,
                                          "synthetic", out)
    if kdd and with_sklearn:
        result["peers"] += peer_table("classification", *kdd_data(), None, repeat,
                                      "KDD Cup 99", out)
    if memory:
        for task in tasks:
            result["memory"] += memory_table(task, max(sizes), out)
    if scaling:
        from .bench_scaling import scaling_table
        result["scaling"] = scaling_table(make_data, max(sizes), 10,
                                          lambda fn: _best_time(fn, repeat), out, memory)
    if forests:
        from .bench_forests import forest_table
        n, d, trees = forests
        result["forests"] = forest_table(make_data, n, d, trees,
                                         lambda fn: _best_time(fn, repeat), with_sklearn, out)
    return result


def _slope_entry(task, depth, sizes, times):
    return dict(task=task, max_depth=depth, sizes=list(sizes),
                slope=loglog_slope(sizes, times), nlogn_slope=nlogn_slope(sizes))


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m dtree.bench",
        description="dtree against scikit-learn, LightGBM and XGBoost: scaling, peers on "
                    "synthetic data and KDD Cup 99, memory.")
    parser.add_argument("--full", action="store_true",
                        help="bigger grid, up to N = 1e6, and also max_depth=10")
    parser.add_argument("--sizes", type=lambda s: [int(float(v)) for v in s.split(",")],
                        help="comma-separated sample sizes (overrides the grid)")
    parser.add_argument("--repeat", type=int, default=1, help="fit times: best of this many runs (predict: at least "
                             f"{PREDICT_REPEAT})")
    parser.add_argument("--quick", action="store_true",
                        help="the default: a small grid (well under a minute)")
    parser.add_argument("--no-sklearn", action="store_true",
                        help="time dtree alone (no peers either)")
    parser.add_argument("--no-peers", action="store_true",
                        help="skip the peer tables (synthetic and KDD Cup 99)")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory table")
    parser.add_argument("--no-forests", action="store_true", help="skip the forest table")
    parser.add_argument("--no-scaling", action="store_true",
                        help="skip the table of one- and two-thread fits per mode")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    sizes = args.sizes or (FULL_SIZES if args.full else QUICK_SIZES)
    if any(n < 2 for n in sizes):
        parser.error("--sizes must be >= 2")
    depths = (None, 10) if args.full else (None,)
    result = run(sizes, depths=depths, repeat=args.repeat, with_sklearn=not args.no_sklearn,
                 peers=not args.no_peers, kdd=not args.no_peers, memory=not args.no_memory,
                 sparse_shapes=SPARSE_SHAPES_FULL if args.full else SPARSE_SHAPES_QUICK,
                 forests=None if args.no_forests else
                 (FOREST_FULL if args.full else FOREST_QUICK), scaling=not args.no_scaling)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)
    return result


if __name__ == "__main__":
    main()
