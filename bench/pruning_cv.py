"""Cost of ccp_alpha="cv" (10 folds) relative to one fit, on adult.

    python bench/pruning_cv.py

adult's categorical columns are one-hot encoded with pandas until native
categorical support lands. Prints the times, their ratio and held-out accuracy
of the unpruned and the CV-pruned tree.
"""
import time

import pandas as pd

from dtree import DecisionTreeClassifier
from dtree.datasets import load


def main():
    frame = load("adult")
    y = frame.pop("income")
    X = pd.get_dummies(frame, dtype=float).to_numpy()
    train, test = slice(0, 32561), slice(32561, None)
    start = time.perf_counter()
    single = DecisionTreeClassifier(random_state=0).fit(X[train], y[train])
    t_single = time.perf_counter() - start
    start = time.perf_counter()
    cv = DecisionTreeClassifier(ccp_alpha="cv", cv=10, random_state=0).fit(X[train], y[train])
    t_cv = time.perf_counter() - start
    print(f"adult: {X.shape[1]} columns after one-hot, {32561} training rows")
    print(f"single fit {t_single:.3f} s ({single.get_n_leaves()} leaves), "
          f"ccp_alpha='cv' cv=10 {t_cv:.3f} s ({cv.get_n_leaves()} leaves): "
          f"{t_cv / t_single:.1f} single fits")
    print(f"held-out accuracy: unpruned {single.score(X[test], y[test]):.4f}, "
          f"CV-pruned {cv.score(X[test], y[test]):.4f}")
    print(cv.cp_table_)


if __name__ == "__main__":
    main()
