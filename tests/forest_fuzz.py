"""Fuzz the forests: random data, parameters (valid and hostile), fits and readers.

Each case fits a random forest kind on random data with random parameters and
checks what every fitted forest must satisfy: probabilities in [0, 1] summing to
one, predictions the argmax (classifiers) or within the targets' range
(regressors), importances summing to one (or all zero), the same predictions
after a model file, a dict and a pickle, and, where the parameters are
scikit-learn's, scikit-learn's trees. A hostile parameter or input must raise
ValueError or TypeError. Run in a subprocess (a crash is a finding, not a lost
suite):

    python tests/forest_fuzz.py --cases 500 --seed 0
"""
import argparse
import io
import json
import pickle
import random
import sys
import traceback
import warnings

import numpy as np

FORESTS = ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor"]
VALID = {
    "n_estimators": [1, 2, 5],
    "max_depth": [None, 1, 3],
    "min_samples_split": [2, 5, 0.3],
    "min_samples_leaf": [1, 3, 0.1],
    "min_weight_fraction_leaf": [0.0, 0.2],
    "max_features": [None, 1, "sqrt", 0.5],
    "max_leaf_nodes": [None, 2, 7],
    "min_impurity_decrease": [0.0, 0.01],
    "bootstrap": [True, False],
    "max_samples": [None, 3, 0.5],
    "oob_score": [False, True],
    "warm_start": [False, True],
    "ccp_alpha": [0.0, 0.01],
    "n_jobs": [1, 2, None],
    "class_weight": [None, "balanced", "balanced_subsample"],
}
HOSTILE = [-1, 0, 2**64, float("nan"), float("inf"), "x", [1], {}, None, 1e300, True]


def _data(r, clf):
    n, d = r.choice([1, 2, 5, 30, 120]), r.choice([1, 2, 6])
    rng = np.random.RandomState(r.randrange(2**31))
    X = rng.normal(size=(n, d)) * r.choice([1.0, 1e-30, 1e30])
    if r.random() < 0.3:
        X[rng.random_sample(X.shape) < 0.2] = np.nan
    if r.random() < 0.2:
        X = np.round(X)
    if clf:
        y = rng.randint(0, r.choice([1, 2, 4]), size=n)
        if r.random() < 0.2:
            y = np.array(["a", "b", "c"])[y % 3]
    else:
        y = rng.normal(size=n) * r.choice([1.0, 1e-300, 1e300])
    w = None
    if r.random() < 0.3:
        w = rng.random_sample(n) * r.choice([1.0, 1e-300, 1e300])
    return X, y, w


def _params(r, kind):
    params = {}
    for name in r.sample(sorted(VALID), r.choice([0, 1, 2, 3, 4])):
        if name == "class_weight" and not kind.endswith("Classifier"):
            continue
        params[name] = r.choice(VALID[name]) if r.random() > 0.2 else r.choice(HOSTILE)
    return params


def check(forest, X, y, clf):
    """The oracles every fitted forest passes (AssertionError otherwise)."""
    import dtree
    pred = forest.predict(X)
    if clf:
        proba = forest.predict_proba(X)
        assert np.all(np.isfinite(proba)) and (proba >= 0).all() and (proba <= 1 + 1e-12).all()
        assert np.allclose(proba.sum(axis=1), 1.0, atol=1e-9)
        top = np.sort(proba, axis=1)
        clear = top[:, -1] - top[:, -2] > 1e-9 if proba.shape[1] > 1 else np.ones(len(X), bool)
        assert np.array_equal(forest.classes_[np.argmax(proba, axis=1)][clear], pred[clear])
        assert set(np.unique(pred)) <= set(np.unique(y))
    else:
        assert np.all(np.isfinite(pred))
        slack = 1e-9 * max(abs(y.min()), abs(y.max()))
        assert (pred >= y.min() - slack).all() and (pred <= y.max() + slack).all()
    imp = forest.feature_importances_
    assert np.all(np.isfinite(imp)) and (abs(imp.sum() - 1) < 1e-6 or abs(imp.sum()) < 1e-12)
    buf = io.BytesIO()
    forest.save(buf)
    buf.seek(0)
    for again in (dtree.load(buf), dtree.from_dict(json.loads(json.dumps(forest.to_dict()))),
                  pickle.loads(pickle.dumps(forest))):
        assert np.array_equal(again.predict(X), pred)


def same_as_sklearn(forest, kind, params, X, y, w):
    """scikit-learn's trees, where its forest takes the same parameters and data."""
    import sklearn.ensemble as ske
    theirs = getattr(ske, kind)(**params).fit(X, y, sample_weight=w)
    for a, b in zip(forest.estimators_, theirs.estimators_):
        assert a.tree_.node_count == b.tree_.node_count
        assert np.array_equal(a.tree_.feature, b.tree_.feature)


def run_case(seed):
    """One case; returns None or a finding (str)."""
    import dtree
    r = random.Random(seed)
    kind = r.choice(FORESTS)
    clf = kind.endswith("Classifier")
    X, y, w = _data(r, clf)
    params = _params(r, kind)
    params.setdefault("random_state", r.randrange(2**31))
    params.setdefault("n_estimators", r.choice([1, 3, 8]))   # (100 trees: slow, no new paths)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            forest = getattr(dtree, kind)(**params).fit(X, y, sample_weight=w)
    except (ValueError, TypeError, MemoryError) as exc:
        # (MemoryError: a leaf budget no machine holds, refused before anything is
        # allocated, as the single tree refuses it)
        if not str(exc):
            return f"{kind} {params}: an error without a message ({type(exc).__name__})"
        return None
    except Exception:
        return f"{kind} {params}: {traceback.format_exc(limit=3)}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check(forest, X, y, clf)
            # (scikit-learn's trees equal dtree's where both are exact: integer
            # weights; and values whose gaps pass its fixed 1e-7 constant rule)
            gaps = np.diff(np.unique(X)) if X.size else np.zeros(0)
            # (and weights whose squares stay finite in scikit-learn's sums)
            exact = (w is None or (np.array_equal(w, np.round(w)) and w.max() < 1e100)) \
                and not np.isnan(X).any() \
                and (gaps.size == 0 or gaps.min() > 1e-6) and np.ptp(X) < 1e20
            if exact and "n_jobs" not in params and all(
                    v in VALID.get(k, []) or k == "random_state" for k, v in params.items()) \
                    and params.get("class_weight") is None and clf:
                same_as_sklearn(forest, kind, params, X, y, w)
    except Exception:
        return f"{kind} {params} n={len(X)}: {traceback.format_exc(limit=4)}"
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    findings = [f for f in (run_case(args.seed * 1_000_003 + k) for k in range(args.cases)) if f]
    for f in findings:
        print("FINDING:", f)
    print(f"{args.cases} cases, {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
