"""A fixed set of fits, one per builder and option family, whose node arrays are recorded.

``python tests/recorded_trees.py`` (re)writes ``tests/data/recorded_trees.npz``;
``test_recorded_trees.py`` fits the same configurations and compares. Record
only when a change is meant to change trees, and say so in the commit. Every
fit names its random_state: it orders the features at each node, so decides ties.
"""
from pathlib import Path

import numpy as np

from dtree import DecisionTreeClassifier, DecisionTreeRegressor

RECORD = Path(__file__).with_name("data") / "recorded_trees.npz"
COLUMNS = ("children_left", "children_right", "feature", "threshold", "value", "impurity",
           "n_node_samples", "weighted_n_node_samples", "missing_go_to_left",
           "categorical_set")


def _data():
    rng = np.random.RandomState(7)
    X = rng.rand(300, 5)
    X[:, 3] = np.round(X[:, 3] * 4)  # few values: ties and histogram bins
    X[rng.rand(300) < 0.1, 2] = np.nan
    y_class = (X[:, 0] + X[:, 1] * (X[:, 3] > 1) + 0.3 * rng.rand(300) > 1.0).astype(int)
    y_class += (X[:, 4] > 0.8).astype(int)
    y_reg = X[:, 0] * 3 + np.sin(6 * X[:, 1]) + 0.2 * rng.rand(300)
    weights = rng.randint(1, 4, 300).astype(float)
    X_cat = np.round(X.copy() * 3)
    X_cat[np.isnan(X_cat)] = 0
    return X, y_class, y_reg, weights, X_cat


def _large():
    """Enough rows that histogram nodes above the small-node cut-off (512) occur."""
    rng = np.random.RandomState(11)
    X = rng.rand(3000, 6)
    X[:, 3] = np.round(X[:, 3] * 5)
    X[rng.rand(3000) < 0.08, 1] = np.nan
    y_class = (X[:, 0] + 0.5 * X[:, 3] + 0.4 * rng.rand(3000) > 1.6).astype(int)
    y_class += (np.nan_to_num(X[:, 1]) > 0.7).astype(int)
    y_reg = 2 * X[:, 0] + np.cos(5 * X[:, 2]) + 0.3 * rng.rand(3000)
    weights = rng.randint(1, 5, 3000).astype(float)
    X_cat = np.round(X * 3)                      # NaN stays missing
    return X, y_class, y_reg, weights, X_cat


def configurations():
    """(name, estimator, X, y, sample_weight) of every recorded fit."""
    X, y_class, y_reg, weights, X_cat = _data()
    XL, yl_class, yl_reg, wl, XL_cat = _large()
    C, R = DecisionTreeClassifier, DecisionTreeRegressor
    return [
        ("gini", C(random_state=0), X, y_class, None),
        ("entropy_weights", C(criterion="entropy", random_state=0), X, y_class, weights),
        ("gini_depth3_best_first", C(max_leaf_nodes=12, random_state=0), X, y_class, None),
        ("gini_max_features", C(max_features=2, random_state=3), X, y_class, None),
        ("gini_min_leaf", C(min_samples_leaf=7, min_impurity_decrease=0.001, random_state=0), X, y_class,
         None),
        ("gini_balanced", C(class_weight="balanced", max_depth=6, random_state=0), X, y_class, None),
        ("gini_ccp", C(ccp_alpha=0.005, random_state=0), X, y_class, None),
        ("gini_cv", C(ccp_alpha="cv", cv=5, random_state=0), X, y_class, None),
        ("gini_categorical", C(categorical_features=[0, 1], random_state=0), X_cat, y_class, None),
        ("gain_ratio", C(criterion="gain_ratio", max_depth=5, random_state=0), X, y_class, None),
        ("id3", C(algorithm="id3", categorical_features=[0, 1, 3], random_state=0), X_cat, y_class, None),
        ("c45", C(algorithm="c4.5", categorical_features=[0, 1], random_state=0), X_cat, y_class, None),
        ("hist_gini", C(splitter="hist", max_bins=16, random_state=0), X, y_class, None),
        ("hist_best_first", C(splitter="hist", max_leaf_nodes=9, random_state=0), X, y_class, weights),
        ("mse", R(random_state=0), X, y_reg, None),
        ("mse_weights_leaves", R(max_leaf_nodes=15, random_state=0), X, y_reg, weights),
        ("mse_reduced_error", R(pruning="reduced_error", random_state=1), X, y_reg, None),
        ("mse_hist", R(splitter="hist", max_depth=6, random_state=0), X, y_reg, None),
        ("mse_categorical", R(categorical_features=[0, 1], random_state=0), X_cat, y_reg, None),
        ("large_hist", C(splitter="hist", random_state=0), XL, yl_class, None),
        ("large_hist_entropy_weights", C(splitter="hist", criterion="entropy", max_depth=9, random_state=0),
         XL, yl_class, wl),
        ("large_hist_best_first", R(splitter="hist", max_leaf_nodes=40, random_state=0), XL, yl_reg, wl),
        ("large_hist_threads", R(splitter="hist", n_jobs=2, max_features=4, random_state=5),
         XL, yl_reg, None),
        ("large_exact_threads", C(n_jobs=2, max_leaf_nodes=60, random_state=0), XL, yl_class, wl),
        ("large_id3_missing", C(algorithm="id3", categorical_features=[0, 1, 3], max_depth=6, random_state=0),
         XL_cat, yl_class, None),
        ("large_c45_missing", C(algorithm="c4.5", categorical_features=[1, 3], random_state=0), XL_cat,
         yl_class, wl),
        ("large_categorical_missing", R(categorical_features=[1, 3], max_depth=8, random_state=0), XL_cat,
         yl_reg, None),
    ]


def fit_all():
    out = {}
    for name, estimator, X, y, w in configurations():
        tree = estimator.fit(X, y, sample_weight=w).tree_
        for column in COLUMNS:
            out[f"{name}/{column}"] = np.asarray(getattr(tree, column))
    return out


if __name__ == "__main__":
    RECORD.parent.mkdir(exist_ok=True)
    np.savez_compressed(RECORD, **fit_all())
    print(f"recorded {len(configurations())} trees in {RECORD}")
