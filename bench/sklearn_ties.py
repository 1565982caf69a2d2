"""Same random_state, same tree? Counts of fits whose node arrays equal scikit-learn's.

The matrix of issue 20 (scikit-learn's five small datasets, ten seeds each: a
train/test split and a fit per seed; default parameters, max_features="sqrt",
max_leaf_nodes=20, min_samples_leaf=3, integer sample weights), the shipped
datasets one-hot encoded, and the cases dtree does not copy (non-integer
targets or weights: scikit-learn's rounding depends on its summation order),
with the share of test predictions that differ. Then random fits on tie-free X
(``--random N``; dtree with ``value_tolerance=1e-7``, scikit-learn's rule for
near values): where a pair of trees parts, the node is classified as a
partition both libraries make on different features (a tie that scikit-learn's
rounding decides), a node scikit-learn splits on an impurity of rounding
noise, or a different partition, whose exact scores (fractions) say which
library chose better.

    python bench/sklearn_ties.py            # about a minute
"""
from fractions import Fraction
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


def random_case(seed):
    """A random tie-free fit's data and parameters: (X, y, weights, params, regression)."""
    rng = np.random.RandomState(seed)
    regression = rng.rand() < 0.5
    n = int(rng.choice([rng.randint(10, 60), rng.randint(60, 400), rng.randint(400, 2500)]))
    d = int(rng.randint(1, 6))
    X = np.empty((n, d), dtype=np.float32)
    for j in range(d):
        X[:, j] = (rng.randn(n) * rng.choice([1, 100])).astype(np.float32)
        while len(np.unique(X[:, j])) < n:           # distinct values in each column
            X[:, j] = (rng.randn(n) * 10).astype(np.float32)
    noise = rng.randn(n)
    y = X[:, 0] * 0.5 + noise if regression else \
        (X[:, 0] + noise * rng.choice([0.3, 1, 3]) > 0).astype(int)
    if not regression and len(np.unique(y)) < 2:
        y[0] = 1 - y[0]
    weights = None
    if rng.rand() < 0.3:
        weights = rng.rand(n) + 0.5 if rng.rand() < 0.5 else rng.randint(1, 4, n).astype(float)
    params = {"random_state": int(rng.randint(1000))}
    for name, p, value in (("max_depth", 0.4, lambda: int(rng.randint(1, 8))),
                           ("min_samples_leaf", 0.3, lambda: int(rng.choice([2, 5, 20]))),
                           ("max_leaf_nodes", 0.2, lambda: int(rng.randint(2, 40)))):
        if rng.rand() < p:
            params[name] = value()
    return X, y, weights, params, regression


def _exact_score(X_rows, y_rows, w_rows, goes_left, regression):
    """The split's proxy in exact arithmetic: the sides' sum of (class weight)^2 / weight,
    or (sum of w y)^2 / weight; the larger is the better split."""
    total = Fraction(0)
    for side in (goes_left, ~goes_left):
        w = [Fraction(float(v)) for v in w_rows[side]]
        if regression:
            total += sum(a * Fraction(float(t)) for a, t in zip(w, y_rows[side])) ** 2 / sum(w)
        else:
            per_class = {}
            for a, c in zip(w, y_rows[side]):
                per_class[c] = per_class.get(c, 0) + a
            total += sum(v * v for v in per_class.values()) / sum(w)
    return total


def where_they_part(ours, theirs, X, y, weights, regression):
    """The first node (pre-order) where two trees differ, classified; None if none."""
    a, b = ours.tree_, theirs.tree_
    w = np.ones(len(y)) if weights is None else weights
    stack = [(0, 0, np.arange(len(y)))]
    while stack:
        i, j, rows = stack.pop()
        leaf_a, leaf_b = a.children_left[i] < 0, b.children_left[j] < 0
        if leaf_a and leaf_b:
            continue
        if leaf_a != leaf_b:
            if leaf_a and a.impurity[i] == 0 and b.impurity[j] < 1e-12:
                return "scikit-learn splits a pure node (its impurity rounding noise)"
            return "one library splits a node the other leaves"
        left_a = X[rows, a.feature[i]] <= a.threshold[i]
        left_b = X[rows, b.feature[j]] <= b.threshold[j]
        if a.feature[i] == b.feature[j] and np.array_equal(left_a, left_b):
            stack += [(a.children_right[i], b.children_right[j], rows[~left_a]),
                      (a.children_left[i], b.children_left[j], rows[left_a])]
            continue
        if np.array_equal(left_a, left_b) or np.array_equal(left_a, ~left_b):
            return "the same partition on another feature"
        ours_, theirs_ = (_exact_score(X[rows], y[rows], w[rows], g, regression)
                          for g in (left_a, left_b))
        verdict = "exact tie" if ours_ == theirs_ else \
            ("dtree's scores better" if ours_ > theirs_ else "SCIKIT-LEARN'S SCORES BETTER")
        return f"another partition: {verdict}"
    return None


def random_fits(count, n_jobs):
    """How many of ``count`` random tie-free fits equal scikit-learn's, and where the
    others part (see the module's docstring)."""
    same, partings = 0, {}
    for seed in range(count):
        X, y, weights, params, regression = random_case(seed)
        ours = (dtree.DecisionTreeRegressor if regression else dtree.DecisionTreeClassifier)(
            value_tolerance=1e-7, n_jobs=n_jobs, **params).fit(X, y, sample_weight=weights)
        theirs = (sk.DecisionTreeRegressor if regression else sk.DecisionTreeClassifier)(
            **params).fit(X, y, sample_weight=weights)
        parting = where_they_part(ours, theirs, X, y, weights, regression)
        if parting is None:
            same += 1
        else:
            partings[parting] = partings.get(parting, 0) + 1
    return same, partings


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--random", type=int, default=200,
                        help="random tie-free fits to compare (0: none)")
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
    if args.random:
        same, partings = random_fits(args.random, args.threads)
        print(f"random tie-free fits (value_tolerance=1e-7): {same}/{args.random} the same "
              "tree; where the others part:")
        for parting, count in sorted(partings.items(), key=lambda kv: -kv[1]):
            print(f"  {count:4d}  {parting}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
