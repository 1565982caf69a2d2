"""Longer comparison: one big fit per library, same data, same process.

    python bench/compare.py [--n 1000000] [--d 10] [--depth none|10] [--json out.json]

Times dtree and scikit-learn (and LightGBM's single tree when installed: one
round, learning rate 1, no bagging, leaves capped like the exact tree) on the
synthetic data of ``python -m dtree.bench``, and measures dtree's peak extra
memory during fit with tracemalloc (numpy reports its buffers to it).
"""
import argparse
import json
import time
import tracemalloc

import numpy as np

from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree.bench import make_data


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def peak_fit_memory(make, X, y):
    tracemalloc.start()
    make().fit(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def lightgbm_tree(task, X, y, depth, n_leaves):
    try:
        import lightgbm as lgb
    except ImportError:
        return None
    params = dict(n_estimators=1, learning_rate=1.0, subsample=1.0, colsample_bytree=1.0,
                  min_child_samples=1, min_child_weight=0.0, reg_lambda=0.0,
                  num_leaves=max(2, min(n_leaves, 131072)), max_depth=depth or -1,
                  n_jobs=1, verbose=-1)
    model = (lgb.LGBMClassifier if task == "classification" else lgb.LGBMRegressor)(**params)
    return timed(lambda: model.fit(X, y))[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--depth", default="none")
    parser.add_argument("--json")
    args = parser.parse_args()
    depth = None if args.depth == "none" else int(args.depth)
    from sklearn.tree import DecisionTreeClassifier as SkC
    from sklearn.tree import DecisionTreeRegressor as SkR

    results = []
    for task, ours, theirs in (("classification", DecisionTreeClassifier, SkC),
                               ("regression", DecisionTreeRegressor, SkR)):
        X, y = make_data(task, int(args.n), args.d)
        fit_ours, est = timed(lambda: ours(max_depth=depth).fit(X, y))
        pred_ours, _ = timed(lambda: est.predict(X))
        fit_sk, sk = timed(lambda: theirs(max_depth=depth, random_state=0).fit(X, y))
        pred_sk, _ = timed(lambda: sk.predict(X))
        lgb_time = lightgbm_tree(task, X, y, depth, est.get_n_leaves())
        peak = peak_fit_memory(lambda: ours(max_depth=depth), X, y)
        row = dict(task=task, n=int(args.n), d=args.d, max_depth=depth,
                   dtree_fit=fit_ours, sklearn_fit=fit_sk, fit_ratio=fit_ours / fit_sk,
                   dtree_predict=pred_ours, sklearn_predict=pred_sk,
                   predict_ratio=pred_ours / pred_sk, lightgbm_fit=lgb_time,
                   dtree_leaves=int(est.get_n_leaves()), sklearn_leaves=int(sk.get_n_leaves()),
                   peak_fit_bytes=peak, x_float32_bytes=X.astype(np.float32).nbytes)
        results.append(row)
        print(json.dumps(row))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=2)


if __name__ == "__main__":
    main()
