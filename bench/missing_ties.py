"""How often a mirrored missing-value tie is routed as scikit-learn routes it.

A node of ten rows: four numbers and one NaN with target a, four numbers and one
NaN with target b. Sending the NaN left or right gives mirrored children, an
exact tie in real arithmetic; scikit-learn keeps "right" unless its rounding
makes "left" strictly better. Prints, per criterion, how many of the draws each
library sent left.

    python bench/missing_ties.py [--draws 200]
"""
import argparse
import warnings

import numpy as np


def routes(module, estimator, X, y, sample_weight, criterion):
    model = getattr(module, estimator)(max_depth=1, criterion=criterion, random_state=0)
    model.fit(X, y, sample_weight=sample_weight)
    return int(model.tree_.missing_go_to_left[0])


def main():
    import sklearn.tree

    import dtree
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200)
    draws = parser.parse_args().draws
    X = np.array([[1, 2, 3, 5, np.nan, 10, 20, 30, 60, np.nan]]).T
    rng = np.random.default_rng(0)
    cases = []
    for _ in range(draws):
        a, b = rng.uniform(0.01, 10, size=2).round(rng.integers(0, 4))
        cases.append(("DecisionTreeRegressor", np.r_[[a] * 5, [b] * 5], None,
                      ("squared_error", "poisson", "absolute_error")))
        w = rng.uniform(0.1, 3, size=2).round(rng.integers(0, 3))
        cases.append(("DecisionTreeClassifier", np.r_[[0] * 5, [1] * 5],
                      np.r_[[w[0]] * 5, [w[1]] * 5], ("gini", "entropy")))
        cases.append(("DecisionTreeClassifier", np.r_[[0] * 5, [1] * 5], None,
                      ("gini", "entropy")))
    counts = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for estimator, y, w, criteria in cases:
            for criterion in criteria:
                key = (criterion, "weighted" if w is not None else "unit weights")
                row = counts.setdefault(key, [0, 0, 0, 0])
                ours = routes(dtree, estimator, X, y, w, criterion)
                theirs = routes(sklearn.tree, estimator, X, y, w, criterion)
                row[0] += 1
                row[1] += ours
                row[2] += theirs
                row[3] += ours != theirs
    print(f"{'criterion':16} {'weights':13} {'nodes':>6} {'dtree left':>11} "
          f"{'sklearn left':>13} {'differ':>7}")
    for (criterion, weights), (n, ours, theirs, differ) in counts.items():
        print(f"{criterion:16} {weights:13} {n:6d} {ours:11d} {theirs:13d} {differ:7d}")


if __name__ == "__main__":
    main()
