"""Fuzzing: hyperparameters, shapes, dtypes, scales and hostile model files.

Every case runs in a worker subprocess (``fuzz_worker.py``) and must end in a
clean ValueError/TypeError with a message, or in a fitted model that passes
sanity checks (finite values, probabilities that sum to one, predictions within
the targets' range, a save/load round trip). A crash of the worker fails the
case it was running. ``DTREE_FUZZ_EXAMPLES`` raises the number of cases (the
closing run of an issue uses thousands); CI runs a few hundred.
"""
import base64
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dtree import DecisionTreeClassifier, DecisionTreeRegressor

EXAMPLES = int(os.environ.get("DTREE_FUZZ_EXAMPLES", "150"))
WORKER = Path(__file__).with_name("fuzz_worker.py")
CASE_TIMEOUT = 60


class Worker:
    """A long-lived subprocess answering one case per line; restarted after a crash."""

    def __init__(self):
        self.proc = None

    def ask(self, case):
        if self.proc is None or self.proc.poll() is not None:
            # stderr to a file: an unread pipe fills up (warnings) and stalls the worker
            self.errors = tempfile.TemporaryFile(mode="w+")
            self.proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.errors,
                                         text=True, cwd=str(WORKER.parent))
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        reader = threading.Thread(target=lambda: answer.append(self.proc.stdout.readline()),
                                  daemon=True)
        answer = []
        reader.start()
        reader.join(CASE_TIMEOUT)
        if reader.is_alive():  # a hang: a finding, with the case, not a stalled run
            self.proc.kill()
            reader.join(CASE_TIMEOUT)
            self.proc = None
            return {"outcome": "hang", "why": f"no answer within {CASE_TIMEOUT} s"}
        line = answer[0]
        if not line:  # the worker died on this case
            code = self.proc.wait(timeout=CASE_TIMEOUT)
            self.errors.seek(0)
            error = self.errors.read()[-2000:]
            self.proc = None
            return {"outcome": "crash", "why": f"worker exited with {code}: {error}"}
        return json.loads(line)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=CASE_TIMEOUT)


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()
    report = os.environ.get("DTREE_FUZZ_REPORT")
    if report:  # the counts of outcomes, for the closing note of a long run
        Path(report).write_text(json.dumps(RESULTS, indent=1))


def _record(outcome):
    counts = RESULTS.setdefault("counts", {})
    counts[outcome] = counts.get(outcome, 0) + 1


RESULTS = {}

# valid and extreme values of each hyperparameter, then anything at all
INTS = st.one_of(st.integers(1, 12), st.sampled_from([2**31, 2**62, 2**63 - 1, 2**63, 2**80]))
ANY = st.one_of(st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
                st.sampled_from(["abc", "", None, True, [1], {"a": 1}, "auto", "random"]))
VALID = {
    "max_depth": st.one_of(st.none(), INTS),
    "min_samples_split": st.one_of(st.integers(2, 30), INTS, st.floats(0.01, 1.0)),
    "min_samples_leaf": st.one_of(st.integers(1, 20), INTS, st.floats(0.01, 0.99)),
    "min_weight_fraction_leaf": st.floats(0, 0.5),
    "max_features": st.one_of(st.none(), st.integers(1, 4), st.floats(0.01, 1.0),
                              st.sampled_from(["sqrt", "log2"])),
    "max_leaf_nodes": st.one_of(st.none(), st.integers(2, 20), INTS),
    "min_impurity_decrease": st.one_of(st.just(0.0), st.floats(0, 1e300)),
    "random_state": st.one_of(st.none(), st.integers(0, 2**32 - 1)),
    "ccp_alpha": st.one_of(st.floats(0, 10), st.just("cv")),
    "splitter": st.sampled_from(["best", "random", "hist"]),
    "max_bins": st.integers(2, 255),
    "n_jobs": st.one_of(st.none(), st.sampled_from([1, 2, -1, -(2**63), 2**31])),
    "cv": st.integers(2, 6),
    "handle_missing": st.sampled_from(["split", "error"]),
    "categorical_features": st.sampled_from(["auto", None, [0], [True]]),
    "handle_unknown": st.sampled_from(["missing", "error"]),
    "prune_risk": st.sampled_from(["impurity", "misclassification"]),
    "pruning": st.sampled_from([None, "none", "pessimistic", "reduced_error"]),
    "criterion": st.sampled_from(["gini", "entropy", "log_loss", "gain_ratio"]),
    "class_weight": st.one_of(st.none(), st.just("balanced"),
                              st.dictionaries(st.integers(0, 3), st.floats(0, 1e300),
                                              max_size=3),
                              st.lists(st.dictionaries(st.integers(0, 3), st.floats(0, 1e300),
                                                       max_size=3), min_size=1, max_size=3)),
    "algorithm": st.sampled_from(["cart", "id3", "c4.5"]),
    "value_tolerance": st.one_of(st.just(0.0), st.just(1e-7), st.floats(0, 1e300)),
    "monotonic_cst": st.one_of(st.none(), st.lists(st.sampled_from([-1, 0, 1]), min_size=1,
                                                   max_size=4)),
}
CLASSIFIER_ONLY = ("criterion", "class_weight", "algorithm")


@st.composite
def fit_cases(draw):
    estimator = draw(st.sampled_from(["clf", "reg"]))
    names = [n for n in VALID if estimator == "clf" or n not in CLASSIFIER_ONLY]
    chosen = draw(st.lists(st.sampled_from(names), max_size=4, unique=True))
    # most cases are valid configurations (their results are checked); some hostile
    hostile = draw(st.integers(0, 3)) == 0
    params = {name: draw(st.one_of(VALID[name], ANY) if hostile else VALID[name])
              for name in chosen}
    if estimator == "reg" and draw(st.booleans()):
        params["criterion"] = draw(st.sampled_from(["squared_error", "poisson",
                                                    "friedman_mse", "absolute_error",
                                                    "quantile"]))
        if params["criterion"] == "quantile" and draw(st.booleans()):
            params["quantile"] = draw(st.one_of(st.floats(0, 1), ANY) if hostile
                                      else st.floats(0.01, 0.99))
    y_kind = draw(st.sampled_from(["classes", "strings", "big_ints"] if estimator == "clf"
                                  else ["real", "constant"]))
    data = {
        "seed": draw(st.integers(0, 2**16)),
        "n_rows": draw(st.integers(0, 60)), "n_cols": draw(st.integers(1, 4)),
        "x_exponent": draw(st.sampled_from([0, -300, -30, 30, 300, 307])),
        "x_dtype": draw(st.sampled_from(["float64", "float32", "int64", "bool", "text",
                                         "sparse"])),
        "few_values": draw(st.booleans()), "nan_share": draw(st.sampled_from([0, 0, 0.2])),
        "inf": hostile and draw(st.booleans()),
        "y_kind": y_kind, "n_classes": draw(st.integers(1, 4)),
        "n_outputs": draw(st.sampled_from([1, 1, 2, 3])),
        "y_exponent": draw(st.sampled_from([0, -300, -100, 100, 300, 307])),
        "weights": draw(st.sampled_from([None, None, "uniform", "random"] +
                                        (["zeros", "negative", "nan"] if hostile else []))),
        "w_exponent": draw(st.sampled_from([0, -300, -90, 70, 300, 307])),
    }
    return {"kind": "fit", "estimator": estimator, "params": params, "data": data}


def _json_safe(case):
    # hypothesis floats include nan/inf: JSON carries them as NaN/Infinity (Python reads them)
    return json.loads(json.dumps(case))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 200,
          suppress_health_check=list(HealthCheck))
@given(case=fit_cases())
def test_fuzzed_fits_end_cleanly_or_sensibly(worker, case):
    try:
        case = _json_safe(case)
    except (TypeError, ValueError):
        return  # a parameter value JSON cannot carry (huge ints are fine in JSON)
    answer = worker.ask(case)
    _record(answer["outcome"])
    assert answer["outcome"] in ("fitted", "error"), (case, answer)


def _saved(model):
    buffer = io.BytesIO()
    model.save(buffer)
    return bytearray(buffer.getvalue())


@pytest.fixture(scope="module")
def saved_models():
    rng = np.random.RandomState(0)
    X = rng.rand(50, 3)
    X[rng.rand(50, 3) < 0.1] = np.nan
    models = [DecisionTreeClassifier(max_depth=4).fit(X, rng.randint(0, 3, 50)),
              DecisionTreeRegressor(max_leaf_nodes=6).fit(X, rng.rand(50) * 1e300),
              DecisionTreeClassifier(algorithm="c4.5").fit(np.round(X * 3), rng.randint(0, 2, 50)),
              DecisionTreeClassifier(max_depth=4).fit(X, rng.randint(0, 3, (50, 2))),
              DecisionTreeRegressor(max_depth=4).fit(X, rng.rand(50, 3)),
              # format 4's members: other splits, the surrogate rule, leaf targets
              DecisionTreeClassifier(max_depth=4, keep_competitors=2,
                                     handle_missing="surrogate").fit(X, rng.randint(0, 3, 50)),
              DecisionTreeRegressor(max_depth=3, keep_leaf_targets=True).fit(X, rng.rand(50))]
    return X, [bytes(_saved(m)) for m in models]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 200,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_model_files_load_cleanly_or_sensibly(worker, saved_models, data):
    X, blobs = saved_models
    raw = bytearray(data.draw(st.sampled_from(blobs)))
    for _ in range(data.draw(st.integers(1, 6))):
        kind = data.draw(st.sampled_from(["flip", "byte", "truncate", "insert", "number"]))
        position = data.draw(st.integers(0, len(raw) - 1))
        if kind == "flip":
            raw[position] ^= 1 << data.draw(st.integers(0, 7))
        elif kind == "byte":
            raw[position] = data.draw(st.integers(0, 255))
        elif kind == "truncate":
            del raw[max(position, 1):]
        elif kind == "insert":
            raw[position:position] = data.draw(st.binary(min_size=1, max_size=8))
        else:  # an 8-byte number written over the data: values rather than structure
            value = data.draw(st.sampled_from([-1.0, 0.0, 1e308, np.inf, np.nan, 2.0, 1e-320]))
            raw[position:position + 8] = np.float64(value).tobytes()
        if len(raw) < 2:
            break
    case = {"kind": "load", "bytes": base64.b64encode(bytes(raw)).decode(),
            "X": np.nan_to_num(X).tolist()}
    answer = worker.ask(case)
    _record(answer["outcome"])
    assert answer["outcome"] in ("fitted", "error"), answer
