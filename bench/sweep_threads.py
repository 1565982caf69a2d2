"""Fit time of one tree against the number of threads, dtree beside LightGBM and XGBoost.

    python bench/sweep_threads.py [--rows 1000000] [--features 10] [--depth 10]
                                  [--task classification] [--repeat 3]

For a many-core machine: n_jobs goes 1, 2, 4, ... up to every core (and every
core itself), each library fits the same synthetic data (``dtree.bench.
make_data``) with that many threads, and one table prints the best fit time of
``--repeat`` runs, the speedup over one thread and the serial fraction each
speedup implies (Amdahl: s solves speedup = 1 / (s + (1 - s) / threads)).
LightGBM and XGBoost grow one tree of the same depth (one round, learning rate
1, histogram method); a library that is not installed is left out.
"""
import argparse
import math
import time

from dtree.bench import _best_time, make_data
from dtree._plan.machine import available_cores


def thread_counts(cores):
    """1, 2, 4, ... below ``cores``, then ``cores`` itself."""
    counts, k = [], 1
    while k < cores:
        counts.append(k)
        k *= 2
    return counts + [cores]


def serial_fraction(speedup, threads):
    """Amdahl's serial fraction for a speedup on ``threads`` threads (nan on one)."""
    if threads == 1:
        return math.nan
    return (threads / speedup - 1.0) / (threads - 1.0)


def fitters(task, depth):
    """(label, fit(X, y, threads)) for each library installed."""
    import dtree
    Tree = dtree.DecisionTreeClassifier if task == "classification" else \
        dtree.DecisionTreeRegressor
    out = [("dtree exact", lambda X, y, t: Tree(max_depth=depth, n_jobs=t).fit(X, y)),
           ("dtree hist", lambda X, y, t: Tree(max_depth=depth, n_jobs=t,
                                               splitter="hist").fit(X, y))]
    try:
        import lightgbm
        Lgbm = lightgbm.LGBMClassifier if task == "classification" else lightgbm.LGBMRegressor
        out.append(("LightGBM", lambda X, y, t: Lgbm(
            n_estimators=1, learning_rate=1.0, max_depth=depth, num_leaves=2 ** depth,
            min_child_samples=1, reg_lambda=0.0, n_jobs=t, verbose=-1).fit(X, y)))
    except ImportError:
        pass
    try:
        import xgboost
        Xgb = xgboost.XGBClassifier if task == "classification" else xgboost.XGBRegressor
        out.append(("XGBoost", lambda X, y, t: Xgb(
            n_estimators=1, learning_rate=1.0, max_depth=depth, tree_method="hist",
            reg_lambda=0.0, min_child_weight=0.0, n_jobs=t).fit(X, y)))
    except ImportError:
        pass
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--task", choices=("classification", "regression"),
                        default="classification")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    X, y = make_data(args.task, args.rows, args.features)
    counts = thread_counts(available_cores())
    print(f"{args.task}, N={args.rows}, d={args.features}, depth {args.depth}, best of "
          f"{args.repeat}; cores: {counts[-1]}")
    print(f"{'library':<14}{'threads':>8}{'fit s':>9}{'speedup':>9}{'serial':>8}")
    rows = []
    for label, fit in fitters(args.task, args.depth):
        base = None
        for threads in counts:
            seconds, _ = _best_time(lambda: fit(X, y, threads), args.repeat)
            base = base or seconds
            speedup = base / seconds
            rows.append(dict(library=label, threads=threads, fit=seconds, speedup=speedup,
                             serial_fraction=serial_fraction(speedup, threads)))
            print(f"{label:<14}{threads:8d}{seconds:9.3f}{speedup:9.2f}"
                  f"{rows[-1]['serial_fraction']:8.2f}", flush=True)
    return rows


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"({time.perf_counter() - start:.0f} s)")
