"""Same random_state, same tree? Counts of fits whose node arrays equal scikit-learn's.

The matrix of issue 20 (scikit-learn's five small datasets, ten seeds each: a
train/test split and a fit per seed; default parameters, max_features="sqrt",
max_leaf_nodes=20, min_samples_leaf=3, integer sample weights), the shipped
datasets one-hot encoded, and the cases dtree does not copy (non-integer
targets or weights: scikit-learn's rounding depends on its summation order),
with the share of test predictions that differ.

    python bench/sklearn_ties.py            # about a minute
"""
import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn import datasets
from sklearn import tree as sk
from sklearn.model_selection import train_test_split

import dtree
from dtree import datasets as shipped

LOADERS = {"breast_cancer": datasets.load_breast_cancer, "iris": datasets.load_iris,
           "digits": datasets.load_digits, "wine": datasets.load_wine,
           "diabetes": datasets.load_diabetes}
SETTINGS = {"default": {}, "sqrt": {"max_features": "sqrt"}, "leaves20": {"max_leaf_nodes": 20},
            "leaf3": {"min_samples_leaf": 3}, "int weights": {}}
# what dtree does not copy: not integers, so rounding in scikit-learn's order decides
UNCOPIED = {"y / 7": {}, "float weights": {}, "balanced": {"class_weight": "balanced"}}


def same_tree(a, b):
    a, b = a.tree_, b.tree_
    if a.node_count != b.node_count:
        return False
    internal = a.children_left >= 0
    return (np.array_equal(a.feature, b.feature) and np.array_equal(a.threshold, b.threshold)
            and np.array_equal(a.children_left, b.children_left)
            and np.array_equal(np.asarray(a.missing_go_to_left)[internal],
                               np.asarray(b.missing_go_to_left)[internal])
            and np.allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12)
            and np.allclose(np.asarray(a.value).reshape(a.node_count, -1),
                            np.asarray(b.value).reshape(b.node_count, -1),
                            rtol=1e-9, atol=1e-12))


def fit_pair(X, y, regression, seed, weights=None, n_jobs=1, **params):
    ours = (dtree.DecisionTreeRegressor if regression else dtree.DecisionTreeClassifier)(
        random_state=seed, n_jobs=n_jobs, **params)
    theirs = (sk.DecisionTreeRegressor if regression else sk.DecisionTreeClassifier)(
        random_state=seed, **params)
    return ours.fit(X, y, sample_weight=weights), theirs.fit(X, y, sample_weight=weights)


def matrix_row(name, setting, params, seeds, n_jobs):
    X, y = LOADERS[name](return_X_y=True)
    regression = name == "diabetes"
    if setting == "y / 7":
        if not regression:
            return None
        y = y / 7.0
    if setting == "balanced" and regression:
        return None
    same, differ = 0, []
    for seed in seeds:
        X_train, X_test, y_train, _ = train_test_split(X, y, random_state=seed)
        rng = np.random.RandomState(seed)
        weights = {"int weights": rng.randint(1, 4, len(y_train)).astype(float),
                   "float weights": rng.uniform(0.5, 2.0, len(y_train))}.get(setting)
        ours, theirs = fit_pair(X_train, y_train, regression, seed, weights, n_jobs, **params)
        same += same_tree(ours, theirs)
        differ.append(np.mean(ours.predict(X_test) != theirs.predict(X_test)))
    return same, float(np.mean(differ))


def shipped_row(name, seeds, n_jobs, rows=20000):
    X, y = shipped.load_Xy(name)
    X = pd.get_dummies(X, dtype=float).to_numpy(dtype=float)[:rows]
    regression = y.dtype.kind == "f"
    y = (y.to_numpy() if regression else y.astype(str).to_numpy())[:rows]
    same, total = 0, 0
    for seed in seeds:
        for params in ({}, {"max_features": "sqrt"}):
            same += same_tree(*fit_pair(X, y, regression, seed, None, n_jobs, **params))
            total += 1
    return same, total, X.shape


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    seeds = range(args.seeds)
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    print(f"identical trees out of {args.seeds} fits (n_jobs={args.threads}); "
          "the share of test predictions that differ")
    for table in (SETTINGS, UNCOPIED):
        print(f"{'dataset':14s} " + " ".join(f"{s:>16s}" for s in table))
        for name in LOADERS:
            cells = []
            for setting, params in table.items():
                row = matrix_row(name, setting, params, seeds, args.threads)
                cells.append("-" if row is None else f"{row[0]}/{args.seeds} ({row[1]:.1%})")
            print(f"{name:14s} " + " ".join(f"{c:>16s}" for c in cells))
    print("shipped datasets, one-hot encoded (first 20,000 rows; default and "
          "max_features='sqrt')")
    for name in shipped.available():
        if name == "kddcup99_10pct":
            continue
        same, total, shape = shipped_row(name, range(min(args.seeds, 5)), args.threads)
        print(f"  {name:20s} {shape[0]:6d} x {shape[1]:5d}  {same}/{total}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
