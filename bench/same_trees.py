"""A/B for refactors: digests of many fitted trees from the dtree this interpreter imports.

Fits a fixed matrix of configurations (every criterion, splitter and preset,
dense and sparse X, weights, missing values, categories, several outputs,
monotonic constraints, best-first growth, pruning, competitors and surrogates)
plus a few hundred drawn at random from the parameters, and prints, per fit, a
digest of everything the fit produced (node arrays, other splits, training
ranges, predictions, probabilities, paths and the model file's dict) or the
error it raised. Run it with two builds and compare: a refactor that must not
change trees must print the same digests.

    PYTHONPATH=/path/to/old/checkout python bench/same_trees.py > old.json
    python bench/same_trees.py > new.json
    python bench/same_trees.py --compare old.json new.json
"""
import argparse
import hashlib
import json
import sys
import warnings

import numpy as np

CLF_CRITERIA = ("gini", "entropy", "log_loss", "gain_ratio")
REG_CRITERIA = ("squared_error", "absolute_error", "quantile", "poisson")
TREE_COLUMNS = ("children_left", "children_right", "feature", "threshold", "value",
                "impurity", "n_node_samples", "weighted_n_node_samples",
                "missing_go_to_left", "categorical_set", "category_sets", "feature_range")


def _data(seed, n=240, d=5):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, d)
    X[:, 1] = np.round(X[:, 1] * 5)                 # few values: ties
    X[rng.rand(n) < 0.1, 2] = np.nan                # missing values
    y_class = (X[:, 0] + 0.3 * X[:, 1] + 0.3 * rng.rand(n) > 1.2).astype(int)
    y_class += (X[:, 3] > 0.75).astype(int)
    y_reg = 3 * X[:, 0] + np.sin(5 * X[:, 3]) + 0.2 * rng.rand(n) + 1.5
    weights = rng.randint(1, 4, n).astype(float)
    X_cat = np.round(X * 3)                        # NaN stays missing
    return X, y_class, y_reg, weights, X_cat


def _digest(value):
    h = hashlib.sha256()
    arrays = value if isinstance(value, (list, tuple)) else [value]
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes() if a.dtype != object else repr(a.tolist()).encode())
    return h.hexdigest()[:16]


def _tree_digest(est, X_test):
    tree = est.tree_
    out = {}
    for column in TREE_COLUMNS:
        value = getattr(tree, column, None)
        out[column] = None if value is None else _digest(value)
    other = getattr(tree, "other_splits", None)
    if other is not None:
        out["other_splits"] = _digest([getattr(other, name) for name in
                                       ("node", "kind", "feature", "threshold",
                                        "category_set", "improvement", "adj", "goes_left",
                                        "count")])
    out["predict"] = _digest(est.predict(X_test))
    if hasattr(est, "predict_proba"):
        proba = est.predict_proba(X_test)
        out["proba"] = _digest(proba)
    out["apply"] = _digest(est.apply(X_test))
    path = est.decision_path(X_test)
    out["path"] = _digest([path.indptr, path.indices])
    out["importances"] = _digest(est.feature_importances_)
    out["n_nodes"] = int(tree.node_count)
    try:
        out["dict"] = _digest(repr(sorted(est.to_dict().items())))
    except Exception as exc:        # noqa: BLE001 - what to_dict raises is recorded too
        out["dict"] = f"{type(exc).__name__}: {exc}"
    return out


def _matrix():
    """(name, estimator factory kwargs, task, data kind, weighted, sparse)."""
    configs = []
    for crit in CLF_CRITERIA:
        for splitter in ("best", "random", "hist"):
            for data in ("num", "cat"):
                for weighted in (False, True):
                    configs.append((dict(criterion=crit, splitter=splitter, random_state=0),
                                    "clf", data, weighted, False))
    for crit in REG_CRITERIA:
        for splitter in ("best", "random", "hist"):
            for data in ("num", "cat"):
                for weighted in (False, True):
                    kw = dict(criterion=crit, splitter=splitter, random_state=0)
                    if crit == "quantile":
                        kw["quantile"] = 0.3
                    configs.append((kw, "reg", data, weighted, False))
    for task, crits in (("clf", CLF_CRITERIA), ("reg", REG_CRITERIA)):
        for crit in crits:
            for splitter in ("best", "random"):
                configs.append((dict(criterion=crit, splitter=splitter, random_state=1),
                                task, "num", False, True))
                configs.append((dict(criterion=crit, splitter=splitter, random_state=1,
                                     max_features=2), task, "num", True, True))
    extra = [
        ("clf", dict(max_leaf_nodes=9, random_state=0)),
        ("clf", dict(max_leaf_nodes=9, splitter="hist", random_state=0)),
        ("reg", dict(max_leaf_nodes=9, random_state=0)),
        ("reg", dict(max_leaf_nodes=9, criterion="absolute_error", random_state=0)),
        ("clf", dict(max_features=2, random_state=4)),
        ("reg", dict(max_features=2, random_state=4)),
        ("clf", dict(monotonic_cst=[1, 0, 0, -1, 0], random_state=0)),
        ("reg", dict(monotonic_cst=[1, 0, 0, -1, 0], random_state=0)),
        ("reg", dict(monotonic_cst=[1, 0, 0, -1, 0], criterion="absolute_error",
                     random_state=0)),
        ("reg", dict(monotonic_cst=[1, 0, 0, -1, 0], splitter="hist", random_state=0)),
        ("clf", dict(value_tolerance=0.05, random_state=0)),
        ("reg", dict(value_tolerance=0.05, random_state=0)),
        ("clf", dict(keep_competitors=3, n_surrogates=3, random_state=0)),
        ("reg", dict(keep_competitors=3, n_surrogates=3, random_state=0)),
        ("clf", dict(handle_missing="surrogate", random_state=0)),
        ("reg", dict(handle_missing="surrogate", random_state=0, keep_leaf_targets=True)),
        ("clf", dict(ccp_alpha=0.01, random_state=0)),
        ("clf", dict(ccp_alpha="cv", cv=4, random_state=0)),
        ("reg", dict(ccp_alpha="cv", cv=4, random_state=0)),
        ("clf", dict(pruning="reduced_error", random_state=0)),
        ("clf", dict(pruning="pessimistic", random_state=0)),
        ("clf", dict(algorithm="id3", random_state=0)),
        ("clf", dict(algorithm="c4.5", random_state=0)),
        ("clf", dict(algorithm="c4.5", criterion="entropy", random_state=0)),
        ("clf", dict(class_weight="balanced", random_state=0)),
        ("clf", dict(min_samples_leaf=5, min_impurity_decrease=0.001, random_state=0)),
        ("reg", dict(min_weight_fraction_leaf=0.05, max_depth=4, random_state=0)),
        ("clf", dict(handle_missing="error", random_state=0)),
    ]
    for task, kw in extra:
        for data in ("num", "cat"):
            for weighted in (False, True):
                configs.append((kw, task, data, weighted, False))
    return configs


def _random_configs(count, seed=123):
    rng = np.random.RandomState(seed)
    choices = {
        "splitter": ["best", "random", "hist"],
        "max_depth": [None, 2, 5],
        "min_samples_leaf": [1, 3, 0.05],
        "min_samples_split": [2, 7],
        "max_features": [None, 2, "sqrt", 0.6],
        "max_leaf_nodes": [None, 7, 20],
        "min_impurity_decrease": [0.0, 0.002],
        "value_tolerance": [0.0, 0.0, 0.02],
        "keep_competitors": [0, 0, 2],
        "n_surrogates": [None, 0, 2],
        "handle_missing": ["split", "split", "split", "surrogate"],
        "ccp_alpha": [0.0, 0.0, 0.003],
    }
    out = []
    for i in range(count):
        task = "clf" if rng.rand() < 0.5 else "reg"
        kw = {k: v[rng.randint(len(v))] for k, v in choices.items()}
        crits = CLF_CRITERIA if task == "clf" else REG_CRITERIA
        kw["criterion"] = crits[rng.randint(len(crits))]
        kw["random_state"] = int(rng.randint(100))
        if task == "clf" and rng.rand() < 0.2:
            kw["algorithm"] = ["id3", "c4.5"][rng.randint(2)]
        data = "cat" if rng.rand() < 0.3 else "num"
        outputs = 3 if rng.rand() < 0.15 else 1
        out.append((kw, task, data, bool(rng.rand() < 0.5), bool(rng.rand() < 0.15),
                    outputs))
    return out


def run(n_random):
    import dtree
    results = {}
    X, y_class, y_reg, weights, X_cat = _data(0)
    Xt, _, _, _, Xt_cat = _data(1, n=150)
    cases = [c + (1,) for c in _matrix()] + _random_configs(n_random)
    for i, (kw, task, data, weighted, sparse, outputs) in enumerate(cases):
        kw = dict(kw)
        cls = dtree.DecisionTreeClassifier if task == "clf" else dtree.DecisionTreeRegressor
        Xf, Xp = (X_cat, Xt_cat) if data == "cat" else (X, Xt)
        y = y_class if task == "clf" else y_reg
        if outputs > 1:
            y = np.column_stack([y, y[::-1], np.roll(y, 7)])
        if data == "cat":
            kw.setdefault("categorical_features", [1, 4])
        if sparse:
            from scipy import sparse as sp
            Xf = sp.csc_matrix(np.where(Xf > 0.5, Xf, 0.0))
            Xp = sp.csr_matrix(np.where(np.isnan(Xp) | (Xp > 0.5), Xp, 0.0))
            kw.pop("categorical_features", None)
        name = f"{i:03d} {task} {data} w={int(weighted)} sparse={int(sparse)} " \
               f"out={outputs} {sorted(kw.items(), key=str)}"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = cls(**kw).fit(Xf, y, sample_weight=weights if weighted else None)
                results[name] = _tree_digest(est, Xp)
        except Exception as exc:     # noqa: BLE001 - a refusal is a result too
            results[name] = {"error": f"{type(exc).__name__}: {exc}"}
    return results


def compare(old_path, new_path):
    old = json.load(open(old_path))
    new = json.load(open(new_path))
    same_tree, moved_error, differ = 0, [], []
    for name in old:
        a, b = old[name], new.get(name)
        if a == b:
            same_tree += 1
        elif "error" in a and b is not None and "error" in b:
            moved_error.append((name, a["error"], b["error"]))
        else:
            differ.append((name, a, b))
    print(f"{len(old)} fits: {same_tree} identical, {len(moved_error)} refused in other "
          f"words, {len(differ)} different")
    for name, a, b in moved_error:
        print(f"  words  {name}\n     old: {a}\n     new: {b}")
    for name, a, b in differ:
        keys = sorted({k for k in (a or {})} | {k for k in (b or {})})
        changed = [k for k in keys if (a or {}).get(k) != (b or {}).get(k)]
        print(f"  DIFFER {name}: {changed}")
        if "error" in (a or {}) or "error" in (b or {}):
            print(f"     old: {(a or {}).get('error')}\n     new: {(b or {}).get('error')}")
    return 1 if differ else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=3000, help="random configurations")
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    args = parser.parse_args()
    if args.compare:
        sys.exit(compare(*args.compare))
    json.dump(run(args.random), sys.stdout, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
