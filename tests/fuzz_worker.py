"""Fuzz worker: runs cases sent as JSON lines on stdin, answers one JSON line each.

Started by ``test_fuzz.py`` in a subprocess, so a crash (segfault, abort,
memory corruption) kills only the worker, and the case that was running is
known. A case builds its data from a seed and a description (shape, dtype,
scale, missing values, weights), fits with the given hyperparameters, and
answers "error" (a clean ValueError/TypeError with a message), "fitted" (the
result passed every sanity check) or "bad" (a wrong kind of error, or a result
that is not sensible, with the reason).
"""
import base64
import io
import json
import sys
import traceback
import warnings

import numpy as np

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor, ModelFileError

CLEAN_ERRORS = (ValueError, TypeError)


def make_data(spec):
    rng = np.random.RandomState(spec["seed"])
    n, d = spec["n_rows"], spec["n_cols"]
    base = rng.rand(n, d)
    X = base * 10.0 ** spec["x_exponent"]
    if spec["few_values"]:
        X = np.round(X * 3) / 3
    if spec["nan_share"]:
        X[rng.rand(n, d) < spec["nan_share"]] = np.nan
    kind = spec["x_dtype"]
    if kind == "float32":
        with np.errstate(over="ignore"):
            X = X.astype(np.float32)
    elif kind == "int64":
        X = np.nan_to_num(X, nan=0.0).clip(-1e18, 1e18).astype(np.int64)
    elif kind == "bool":
        X = base > 0.5
    elif kind == "text":
        X = np.where(np.isnan(X), None, (base * 3).astype(int).astype(str).astype(object))
        X = np.asarray(X, dtype=object)
        X[:, 0] = [f"c{int(v)}" if v is not None else None for v in X[:, 0]]
    if spec["inf"] and kind in ("float64", "float32", "sparse") and n:
        X[0, 0] = np.inf
    if kind == "sparse":
        # most cells zero, the rest (NaN and inf included) stored, some zeros stored
        import scipy.sparse as sp
        X[rng.rand(n, d) < 0.6] = 0.0
        X = sp.csr_matrix(X)
        X.data[::4] = 0.0
    y = _target(rng, spec, n)
    if spec.get("n_outputs", 1) > 1:
        y = np.column_stack([y] + [_target(rng, spec, n)
                                   for _ in range(spec["n_outputs"] - 1)])
    w = None
    weights = spec["weights"]
    if weights == "uniform":
        w = np.full(n, 10.0 ** spec["w_exponent"])
    elif weights == "random":
        w = rng.rand(n) * 10.0 ** spec["w_exponent"]
    elif weights == "zeros":
        w = np.zeros(n)
    elif weights == "negative":
        w = -np.ones(n)
    elif weights == "nan":
        w = np.full(n, np.nan)
    return X, y, w


def _target(rng, spec, n):
    """One output's targets of the kind the spec names."""
    y_kind = spec["y_kind"]
    if y_kind == "classes":
        return rng.randint(0, spec["n_classes"], n)
    if y_kind == "strings":
        return np.array([f"k{v}" for v in rng.randint(0, spec["n_classes"], n)], dtype=object)
    if y_kind == "big_ints":
        return np.array([2**63 + 7, 2**64 - 1], dtype=np.uint64)[rng.randint(0, 2, n)]
    if y_kind == "constant":
        return np.full(n, 10.0 ** spec["y_exponent"])
    # real targets at some scale
    return (rng.rand(n) - 0.5) * 2.0 * 10.0 ** spec["y_exponent"]


def check_fitted(model, X, y):
    """Reasons the fitted model is not sensible (empty when it is)."""
    problems = []
    tree = model.tree_
    if tree.node_count < 1 or tree.children_left.shape[0] != tree.node_count:
        problems.append("bad node arrays")
    if not np.isfinite(tree.value).all():
        problems.append("non-finite leaf values")
    if not np.isfinite(model.feature_importances_).all():
        problems.append("non-finite importances")
    pred = model.predict(X)
    n_outputs = model.n_outputs_
    if pred.shape != ((X.shape[0],) if n_outputs == 1 else (X.shape[0], n_outputs)):
        problems.append(f"predict shape {pred.shape}")
    if isinstance(model, DecisionTreeClassifier):
        several = n_outputs > 1
        probas = model.predict_proba(X) if several else [model.predict_proba(X)]
        classes = model.classes_ if several else [model.classes_]
        for k, (proba, labels) in enumerate(zip(probas, classes)):
            if not np.isfinite(proba).all() or (proba < 0).any() or (proba > 1 + 1e-9).any():
                problems.append("probabilities outside [0, 1]")
            elif not np.allclose(proba.sum(axis=1), 1.0):
                problems.append("probabilities do not sum to 1")
            if not np.isin(pred[:, k] if several else pred, labels).all():
                problems.append("predicted an unknown class")
    else:
        yf = np.asarray(y, dtype=float)
        if not np.isfinite(pred).all():
            problems.append("non-finite predictions")
        elif pred.size:
            low, high = yf.min(), yf.max()
            slack = 1e-9 * max(abs(low), abs(high))  # a mean rounds within this
            if pred.min() < low - slack or pred.max() > high + slack:
                problems.append("a prediction outside the range of the targets")
    buffer = io.BytesIO()
    model.save(buffer)
    buffer.seek(0)
    loaded = dtree.load(buffer)
    if not np.array_equal(loaded.predict(X), pred):
        problems.append("a saved and loaded model predicts differently")
    return problems


def run_fit(case):
    X, y, w = make_data(case["data"])
    Estimator = DecisionTreeClassifier if case["estimator"] == "clf" else DecisionTreeRegressor
    if Estimator is DecisionTreeRegressor and case["data"]["y_kind"] in ("strings",):
        y = np.asarray(y)
    try:
        model = Estimator(**case["params"]).fit(X, y, sample_weight=w)
    except CLEAN_ERRORS as exc:
        if not str(exc).strip():
            return {"outcome": "bad", "why": f"{type(exc).__name__} without a message"}
        return {"outcome": "error", "type": type(exc).__name__, "message": str(exc)[:300]}
    problems = check_fitted(model, X, y)
    if problems:
        return {"outcome": "bad", "why": "; ".join(problems)}
    return {"outcome": "fitted", "nodes": int(model.tree_.node_count)}


def run_load(case):
    raw = base64.b64decode(case["bytes"])
    try:
        model = dtree.load(io.BytesIO(raw), max_bytes=case.get("max_bytes", 1 << 24))
    except ModelFileError as exc:
        return {"outcome": "error", "type": "ModelFileError", "message": str(exc)[:300]}
    X = np.asarray(case["X"], dtype=float)
    return run_checks_on_loaded(model, X)


def run_checks_on_loaded(model, X):
    pred = model.predict(X)
    if isinstance(model, DecisionTreeClassifier):
        probas = model.predict_proba(X)
        for proba in (probas if model.n_outputs_ > 1 else [probas]):
            if not np.isfinite(proba).all() or (proba < 0).any() or \
                    not np.allclose(proba.sum(axis=1), 1.0):
                return {"outcome": "bad", "why": "a loaded model gives invalid probabilities"}
    elif not np.isfinite(pred).all():
        return {"outcome": "bad", "why": "a loaded model gives non-finite predictions"}
    if not np.isfinite(model.feature_importances_).all():
        return {"outcome": "bad", "why": "a loaded model gives non-finite importances"}
    return {"outcome": "fitted", "nodes": int(model.tree_.node_count)}


def main():
    for line in sys.stdin:
        case = json.loads(line)
        with warnings.catch_warnings():
            # numpy overflow / invalid-value warnings betray a wrong answer
            warnings.simplefilter("error", RuntimeWarning)
            warnings.simplefilter("ignore", UserWarning)
            warnings.simplefilter("ignore", FutureWarning)   # friedman_mse says it is deprecated
            try:
                answer = run_fit(case) if case["kind"] == "fit" else run_load(case)
            except MemoryError as exc:
                answer = {"outcome": "error", "type": "MemoryError", "message": str(exc)}
            except BaseException as exc:  # any other kind is a finding
                answer = {"outcome": "bad", "why": f"{type(exc).__name__}: {exc}"[:500],
                          "trace": traceback.format_exc()[-1500:]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
