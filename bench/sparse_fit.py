"""Fit on a sparse, text-like matrix: dtree against scikit-learn's sparse splitter.

    python bench/sparse_fit.py [--rows 20000] [--cols 1000] [--density 0.01]
                               [--max-depth 20] [--repeat 1]

``scipy.sparse.random`` (CSC, float32, values in (0, 1]) with a label that
depends on a few columns, one thread, both libraries' classifier with
``max_features="sqrt"``. Prints fit time and the peak memory traced during the fit
(numpy allocations) for each, and the ratios. dtree still lays a sparse X out as
its dense twin (the sparse splitter is to come), so this is the baseline to beat:
scikit-learn's memory follows the non-zeros, dtree's the cells.
"""
import argparse

import numpy as np
import scipy.sparse as sp
from sklearn.tree import DecisionTreeClassifier as SkClassifier

import dtree
from dtree.bench import _best_time, peak_fit_memory


def text_like(rows, cols, density, seed=0):
    X = sp.random(rows, cols, density=density, format="csc", dtype=np.float32,
                  random_state=seed)
    signal = np.asarray(X[:, :5].sum(axis=1)).ravel()
    y = (signal > np.median(signal)).astype(int)
    return X, y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--cols", type=int, default=1000)
    parser.add_argument("--density", type=float, default=0.01)
    parser.add_argument("--max-depth", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    X, y = text_like(args.rows, args.cols, args.density)
    print(f"X: {X.shape}, {X.nnz} non-zeros ({X.nnz * 8 / 2**20:.1f} MiB as CSC), "
          f"max_depth={args.max_depth}, max_features='sqrt', one thread")
    rows = []
    for name, make in (
            ("scikit-learn", lambda: SkClassifier(max_depth=args.max_depth,
                                                  max_features="sqrt", random_state=0)),
            ("dtree", lambda: dtree.DecisionTreeClassifier(
                max_depth=args.max_depth, max_features="sqrt", random_state=0, n_jobs=1))):
        seconds, model = _best_time(lambda: make().fit(X, y), args.repeat)
        peak = peak_fit_memory(make, X, y)
        rows.append((name, seconds, peak, model.tree_.node_count, model.score(X, y)))
    for name, seconds, peak, nodes, score in rows:
        print(f"{name:14s} fit {seconds:7.3f} s   peak {peak / 2**20:8.1f} MiB   "
              f"nodes {nodes:6d}   train accuracy {score:.4f}")
    (_, sk_s, sk_m, _, _), (_, dt_s, dt_m, _, _) = rows
    print(f"dtree / scikit-learn: fit {dt_s / sk_s:.3f}, peak memory {dt_m / sk_m:.1f}")


if __name__ == "__main__":
    main()
