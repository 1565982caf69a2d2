"""The forest table of ``python -m dtree.bench``: dtree's forests against scikit-learn's.

For each of RandomForestClassifier / Regressor and ExtraTreesClassifier /
Regressor with default parameters (``n_trees`` trees) on the same synthetic
data: fit time on one thread and on every core, predict time (every core; the
best of four calls, and the first, which lays the trees out), peak
fit memory (tracemalloc) less the returned trees' arrays against the float32
size of X, and pickled and model-file bytes per node; the dtree / scikit-learn ratios; and how many
of the first three trees are scikit-learn's for the same ``random_state``: node
for node, or with as many nodes and the same predictions on the rows it grew on
(regression on continuous targets: two features cutting the same rows of a
small node tie exactly, and scikit-learn's rounding of its sums, in its own
order, picks one; dtree's sums, in another order, cannot follow it there).
LightGBM's random-forest mode is timed beside them where it is installed (its
forest is another one: binned features, its own sampling).
"""
import io
import pickle
import sys
import time

from ._plan.machine import available_cores
from .bench_memory import peak_bytes
from .bench_timing import PREDICT_REPEAT

FORESTS = ("RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor")


def _time_once(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def _same_first_trees(ours, theirs, X, k=3):
    """How many of the first k trees are scikit-learn's: node for node, or (an exact
    tie decided by rounding: two features cutting the same rows) with as many nodes
    and the same predictions on the rows it was grown on."""
    import numpy as np
    same = 0
    for a, b, drawn in zip(ours.estimators_[:k], theirs.estimators_[:k],
                           ours.estimators_samples_[:k]):
        ta, tb = a.tree_, b.tree_
        rows = X[np.unique(drawn)]     # (the rows a tree was grown on)
        same += bool(ta.node_count == tb.node_count and (
            np.array_equal(ta.feature, tb.feature) or
            np.allclose(a.predict(rows), b.predict(rows), rtol=1e-12, atol=0)))
    return same


def _lightgbm_rf(task, n_trees, n_features, threads):
    try:
        import lightgbm
    except ImportError:
        return None
    cls = lightgbm.LGBMClassifier if task == "classification" else lightgbm.LGBMRegressor
    # (deep but not full-depth trees: LightGBM's leaf-wise growth to single rows
    # would take minutes)
    return lambda: cls(boosting_type="rf", n_estimators=n_trees, subsample=0.632,
                       subsample_freq=1, colsample_bynode=max(1, int(n_features ** 0.5))
                       / n_features if task == "classification" else 1.0,
                       num_leaves=1023, n_jobs=threads, verbose=-1)


def forest_table(make_data, n_samples, n_features, n_trees, best_time, with_sklearn=True,
                 out=sys.stdout):
    """Print the forest table and return its rows (JSON-able dicts)."""
    import dtree
    try:
        import sklearn.ensemble as ske
    except ImportError:
        ske = None
    if not with_sklearn:
        ske = None
    cores = available_cores()
    print(f"\nforests, N={n_samples}, d={n_features}, {n_trees} trees, default parameters "
          f"(fit on 1 thread and on {cores}; predict on {cores})", file=out)
    header = (f"{'forest':24s}{'fit 1t':>8s}{'sk 1t':>8s}{'ratio':>7s}{'fit all':>8s}"
              f"{'sk all':>8s}{'ratio':>7s}{'pred':>7s}{'ratio':>7s}{'1st':>7s}{'mem/X':>7s}"
              f"{'B/node':>7s}{'file':>6s}{'sk B/n':>7s}{'same':>6s}{'lgbm rf':>9s}")
    print(header, file=out)
    rows = []
    for name in FORESTS:
        task = "classification" if name.endswith("Classifier") else "regression"
        X, y = make_data(task, n_samples, n_features)
        ours_cls = getattr(dtree, name)
        fit1, ours = best_time(lambda: ours_cls(n_estimators=n_trees, random_state=0,
                                                n_jobs=1).fit(X, y))
        fit_all, ours = best_time(lambda: ours_cls(n_estimators=n_trees, random_state=0,
                                                   n_jobs=-1).fit(X, y))
        # the first call lays the trees out for the compiled loop (kept, not
        # pickled); predict's time is the best of that call and PREDICT_REPEAT more
        first, _ = _time_once(lambda: ours.predict(X))
        pred = min([first] + [_time_once(lambda: ours.predict(X))[0]
                              for _ in range(PREDICT_REPEAT)])
        peak = peak_bytes(lambda: ours_cls(n_estimators=n_trees, random_state=0,
                                            n_jobs=1).fit(X, y))
        nodes = sum(t.tree_.node_count for t in ours.estimators_)
        forest_bytes = len(pickle.dumps(ours))
        file_bytes = io.BytesIO()
        ours.save(file_bytes)
        # the fit's working memory: its peak less the trees it returns (their arrays)
        tree_bytes = sum(value.nbytes for t in ours.estimators_
                         for value in vars(t.tree_).values() if hasattr(value, "nbytes"))
        row = dict(forest=name, n_samples=n_samples, n_features=n_features, n_trees=n_trees,
                   dtree_fit_1=fit1, dtree_fit_all=fit_all, dtree_predict=pred,
                   dtree_predict_first=first,
                   peak_x_ratio=max(peak - tree_bytes, 0) / X.nbytes, nodes=nodes,
                   bytes_per_node=forest_bytes / nodes,
                   file_bytes_per_node=len(file_bytes.getvalue()) / nodes)
        if ske is not None:
            theirs_cls = getattr(ske, name)
            sk1, theirs = best_time(lambda: theirs_cls(n_estimators=n_trees, random_state=0,
                                                       n_jobs=1).fit(X, y))
            sk_all, theirs = best_time(lambda: theirs_cls(n_estimators=n_trees,
                                                          random_state=0,
                                                          n_jobs=-1).fit(X, y))
            sk_pred = min(_time_once(lambda: theirs.predict(X))[0]
                          for _ in range(PREDICT_REPEAT + 1))
            sk_nodes = sum(t.tree_.node_count for t in theirs.estimators_)
            row.update(sklearn_fit_1=sk1, sklearn_fit_all=sk_all, sklearn_predict=sk_pred,
                       fit_ratio_1=fit1 / sk1, fit_ratio_all=fit_all / sk_all,
                       predict_ratio=pred / sk_pred,
                       sklearn_bytes_per_node=len(pickle.dumps(theirs)) / sk_nodes,
                       same_trees=_same_first_trees(ours, theirs, X))
        lgbm = _lightgbm_rf(task, n_trees, n_features, cores)
        if lgbm is not None:
            row["lightgbm_rf_fit_all"], _ = best_time(lambda: lgbm().fit(X, y))
        rows.append(row)

        def f(key, width=8, digits=2):
            value = row.get(key)
            return "-".rjust(width) if value is None else f"{value:{width}.{digits}f}"
        same = row.get("same_trees")
        print(f"{name:24s}{f('dtree_fit_1')}{f('sklearn_fit_1')}{f('fit_ratio_1', 7, 3)}"
              f"{f('dtree_fit_all')}{f('sklearn_fit_all')}{f('fit_ratio_all', 7, 3)}"
              f"{f('dtree_predict', 7, 3)}{f('predict_ratio', 7, 3)}"
              f"{f('dtree_predict_first', 7, 3)}{f('peak_x_ratio', 7, 2)}{f('bytes_per_node', 7, 0)}"
              f"{f('file_bytes_per_node', 6, 0)}"
              f"{f('sklearn_bytes_per_node', 7, 0)}"
              f"{('-' if same is None else f'{same}/3'):>6s}"
              f"{f('lightgbm_rf_fit_all', 9)}", file=out)
    return rows
