"""The scaling table of ``python -m dtree.bench``: one tree per mode on one and on two
threads.

For each mode (exact and hist, classification and regression, depth 10 and full
depth) on the same synthetic data: the fit time on one thread and on two, the
speedup and the serial fraction it implies (Amdahl: s = 2 / speedup - 1, so that
16 cores give at most 1 / (s + (1 - s) / 16)), whether both fits grew the same
tree, predict's rows per second on one thread (the best of ``PREDICT_REPEAT``
calls), and the peak fit memory (tracemalloc, as the memory table) against the
float32 size of X.
"""
import sys

import numpy as np

from .bench_memory import peak_bytes
from .bench_timing import PREDICT_REPEAT

MODES = tuple((task, splitter, depth) for task in ("classification", "regression")
              for splitter in ("best", "hist") for depth in (10, None))


def serial_fraction(t1, t2):
    """Amdahl's serial fraction from the one- and two-thread times (0: perfect
    scaling; 1: none; below 0 or above 1 when noise wins)."""
    return 2.0 * t2 / t1 - 1.0


def _same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    return (ta.node_count == tb.node_count
            and np.array_equal(ta.feature, tb.feature)
            and np.array_equal(ta.threshold, tb.threshold)
            and np.array_equal(ta.children_left, tb.children_left))


def scaling_table(make_data, n_samples, n_features, timer, out=sys.stdout, memory=True):
    """Print and return one row per mode (see the module's docstring).

    ``timer(fn)`` returns (best seconds, last result) of calling fn.
    """
    from . import DecisionTreeClassifier, DecisionTreeRegressor
    print(f"\none tree on 1 and 2 threads, N={n_samples}, d={n_features} "
          "(s: serial fraction; pred: rows/s on one thread)", file=out)
    print(f"{'mode':<30}{'fit 1t':>8}{'fit 2t':>8}{'speedup':>8}{'s':>7}{'same':>6}"
          f"{'pred M/s':>10}{'mem/X':>7}", file=out)
    rows, data = [], {}
    for task, splitter, depth in MODES:
        if task not in data:
            data[task] = make_data(task, n_samples, n_features)
        X, y = data[task]
        Est = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor

        def make(threads):
            return Est(splitter=splitter, max_depth=depth, n_jobs=threads, random_state=0)

        t1, one = timer(lambda: make(1).fit(X, y))
        t2, two = timer(lambda: make(2).fit(X, y))
        # (predict is short: the best of several calls, the first one laying the
        # tree out for the kernel included)
        pred = min(timer(lambda: one.predict(X))[0] for _ in range(PREDICT_REPEAT))
        peak = peak_bytes(lambda: make(1).fit(X, y)) if memory else float("nan")
        row = dict(task=task, splitter=splitter, max_depth=depth, n_samples=n_samples,
                   n_features=n_features, fit_1=t1, fit_2=t2, speedup=t1 / t2,
                   serial_fraction=serial_fraction(t1, t2), same_tree=_same_tree(one, two),
                   predict_rows_per_s=n_samples / pred, peak_bytes=peak,
                   x_ratio=peak / X.nbytes, nodes=one.tree_.node_count)
        rows.append(row)
        name = f"{task[:5]} {splitter} depth {'full' if depth is None else depth}"
        print(f"{name:<30}{t1:8.3f}{t2:8.3f}{row['speedup']:8.2f}"
              f"{row['serial_fraction']:7.2f}{'yes' if row['same_tree'] else 'NO':>6}"
              f"{row['predict_rows_per_s'] / 1e6:10.1f}{row['x_ratio']:7.2f}", file=out)
    return rows
