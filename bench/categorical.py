"""Native categorical splits vs scikit-learn on one-hot data, same process.

    python bench/categorical.py [--kdd PATH/kddcup99_10pct.csv.gz]

adult (shipped) always; KDD Cup 99 when its CSV is given (494k rows, 3
categorical columns, 23 classes). Prints fit times, their ratio, held-out
accuracy and node counts. The C4.5 preset (multiway categories, fractional
missing values, pessimistic pruning) runs on the same split for reference.
"""
import argparse
import time

import pandas as pd
from sklearn.tree import DecisionTreeClassifier as SkClassifier

from dtree import DecisionTreeClassifier
from dtree.datasets import load


def compare(name, frame, target, train, test, **params):
    y = frame.pop(target)
    start = time.perf_counter()
    ours = DecisionTreeClassifier(categorical_features="auto", handle_unknown="missing",
                                  **params).fit(frame[train], y[train])
    t_ours = time.perf_counter() - start
    dummies = pd.get_dummies(frame, dtype=float)
    start = time.perf_counter()
    theirs = SkClassifier(random_state=0, **params).fit(dummies[train], y[train])
    t_theirs = time.perf_counter() - start
    print(f"{name} {params}: dtree native {t_ours:.2f} s, acc {ours.score(frame[test], y[test]):.4f}, "
          f"{ours.tree_.node_count} nodes | scikit-learn one-hot ({dummies.shape[1]} columns) "
          f"{t_theirs:.2f} s, acc {theirs.score(dummies[test], y[test]):.4f}, "
          f"{theirs.tree_.node_count} nodes | fit ratio {t_ours / t_theirs:.3f}")
    if not params:
        start = time.perf_counter()
        c45 = DecisionTreeClassifier(algorithm="c4.5", handle_unknown="missing")
        c45.fit(frame[train], y[train])
        t_c45 = time.perf_counter() - start
        print(f"{name} algorithm='c4.5': {t_c45:.2f} s (ratio {t_c45 / t_theirs:.3f} to the "
              f"scikit-learn fit above), acc {c45.score(frame[test], y[test]):.4f}, "
              f"{c45.tree_.node_count} nodes")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kdd", help="path of kddcup99_10pct.csv.gz")
    args = parser.parse_args()
    adult = load("adult")
    for params in ({}, {"min_samples_leaf": 20}, {"max_depth": 8}):
        compare("adult", adult.copy(), "income", slice(0, 32561), slice(32561, None), **params)
    if args.kdd:
        kdd = pd.read_csv(args.kdd)
        shuffled = kdd.sample(frac=1.0, random_state=0).reset_index(drop=True)
        cut = int(0.8 * len(shuffled))
        compare("kddcup99", shuffled, "label", slice(0, cut), slice(cut, None))


if __name__ == "__main__":
    main()
