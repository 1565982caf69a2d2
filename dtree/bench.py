"""Scaling benchmark: ``python -m dtree.bench [--full] [--json PATH]``.

Fits dtree and, when it is installed, scikit-learn on the same synthetic data
over a grid of sample sizes, in one process, and prints fit and predict times,
the dtree / scikit-learn ratio of each row, and the log-log slope of dtree's fit
time against N next to the slope that O(d N log N) predicts over the same range.

Times are the best of ``--repeat`` runs (wall clock, one thread). Ratios are the
meaningful figures on a shared, noisy machine: both libraries run back to back
on the same arrays.
"""
import argparse
import json
import math
import os
import platform
import sys
import time

import numpy as np

from ._classes import DecisionTreeClassifier, DecisionTreeRegressor
from ._version import __version__

QUICK_SIZES = (10_000, 30_000, 100_000, 200_000)
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


def run_row(task, n_samples, max_depth, repeat, sklearn_classes, n_features=10):
    """Fit and predict with dtree (and scikit-learn) on one data set."""
    X, y = make_data(task, n_samples, n_features)
    ours_cls = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    fit_t, ours = _best_time(lambda: ours_cls(max_depth=max_depth).fit(X, y), repeat)
    pred_t, _ = _best_time(lambda: ours.predict(X), repeat)
    row = dict(task=task, n_samples=n_samples, n_features=n_features,
               max_depth=max_depth, dtree_fit=fit_t, dtree_predict=pred_t,
               dtree_nodes=ours.tree_.node_count, dtree_depth=ours.get_depth())
    if sklearn_classes is not None:
        theirs_cls = sklearn_classes[task]
        sk_fit, theirs = _best_time(
            lambda: theirs_cls(max_depth=max_depth, random_state=0).fit(X, y), repeat)
        sk_pred, _ = _best_time(lambda: theirs.predict(X), repeat)
        row.update(sklearn_fit=sk_fit, sklearn_predict=sk_pred,
                   sklearn_nodes=theirs.tree_.node_count,
                   fit_ratio=fit_t / sk_fit, predict_ratio=pred_t / sk_pred)
    return row


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
              f"{'ratio':>9}{'pred s':>9}{'sk pred':>9}{'ratio':>9}")
    print(header, file=out)
    print("-" * len(header), file=out)
    for r in rows:
        depth = "full" if r["max_depth"] is None else str(r["max_depth"])
        print(f"{r['task']:<15}{r['n_samples']:>9}{depth:>7}{r['dtree_nodes']:>9}"
              f"{_fmt(r['dtree_fit'])}{_fmt(r.get('sklearn_fit'))}"
              f"{_fmt(r.get('fit_ratio'))}{_fmt(r['dtree_predict'], digits=4)}"
              f"{_fmt(r.get('sklearn_predict'), digits=4)}{_fmt(r.get('predict_ratio'))}",
              file=out)


def run(sizes, tasks=("classification", "regression"), depths=(None,), repeat=1,
        with_sklearn=True, out=sys.stdout):
    """Run the grid; returns the JSON-able result dict."""
    sklearn_classes = _sklearn_estimators() if with_sklearn else None
    if with_sklearn and sklearn_classes is None:
        print("scikit-learn is not installed: timing dtree alone", file=out)
    rows, slopes = [], []
    for task in tasks:
        for depth in depths:
            task_rows = [run_row(task, n, depth, repeat, sklearn_classes) for n in sizes]
            rows.extend(task_rows)
            if len(sizes) >= 2:
                fit_times = [r["dtree_fit"] for r in task_rows]
                slopes.append(dict(task=task, max_depth=depth,
                                   sizes=list(sizes), slope=loglog_slope(sizes, fit_times),
                                   nlogn_slope=nlogn_slope(sizes)))
    print_table(rows, out)
    print(file=out)
    for s in slopes:
        depth = "full" if s["max_depth"] is None else s["max_depth"]
        print(f"{s['task']} (depth {depth}): fit time ~ N^{s['slope']:.2f} from "
              f"N={s['sizes'][0]} to {s['sizes'][-1]}; O(dN log N) predicts "
              f"N^{s['nlogn_slope']:.2f}", file=out)
    return dict(dtree_version=__version__, python=platform.python_version(),
                numpy=np.__version__, machine=platform.machine(),
                cpu_count=os.cpu_count(), threads=1, rows=rows, slopes=slopes)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m dtree.bench",
        description="dtree fit/predict scaling benchmark against scikit-learn.")
    parser.add_argument("--full", action="store_true",
                        help="bigger grid, up to N = 1e6, and also max_depth=10")
    parser.add_argument("--sizes", type=lambda s: [int(float(v)) for v in s.split(",")],
                        help="comma-separated sample sizes (overrides the grid)")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    parser.add_argument("--no-sklearn", action="store_true", help="time dtree alone")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")
    sizes = args.sizes or (FULL_SIZES if args.full else QUICK_SIZES)
    if any(n < 2 for n in sizes):
        parser.error("--sizes must be >= 2")
    depths = (None, 10) if args.full else (None,)
    result = run(sizes, depths=depths, repeat=args.repeat, with_sklearn=not args.no_sklearn)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)
    return result


if __name__ == "__main__":
    main()
