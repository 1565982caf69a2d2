"""The fuzz campaign's probes (issue 33): generated here, run here, judged here.

One home for every probe kind. ``tests/test_fuzz.py`` (the short campaign) and
``bench/fuzz.py`` (the long one) make their cases with ``generate(area, seed)``;
``tests/fuzz_worker.py`` runs each case in a subprocess with ``execute(case)``,
under a time limit and an address-space limit, so that a crash, a hang or a
runaway allocation ends the worker and not the campaign.

A case is a JSON-able dict (``case["area"]`` names its runner; values JSON cannot
carry, such as bytes, numpy scalars or dicts with int keys, are tagged with
``E``/``D``). The same ``(area, seed)`` always gives the same case, and
``replay(case)`` runs one in this process with the original exceptions raised.

Outcomes (``OUTCOMES``):

- ``ok``: fitted (or loaded, or run) and every oracle agreed;
- ``clear_error``: an error of the right type whose message names its cause (see
  ``is_clear``): ``ValueError``/``TypeError`` (``ModelFileError`` for model files,
  exit status 2 with a one-line message for the command line) whose message is not
  an internal one (``INTERNAL``) and names something the caller gave (a
  parameter, argument, column, file or input: each probe says which names count);
- ``unnamed_error``: any other exception, or one of those types with an internal
  message or naming nothing of the caller's;
- ``wrong_answer``: an oracle disagrees (``Finish.check`` names the oracle);
- ``crash``, ``hang``, ``memory``: decided by the worker's parent (signal, no
  answer in time, ``MemoryError`` or death under the memory limit).

Areas: ``params`` (hyperparameters and their combinations), ``inputs`` (containers,
dtypes, extreme values, sample weights, predict-time inputs), ``scale`` (exact
powers of two on X, y and weights), ``sklearn`` (the same tree as scikit-learn),
``model_files`` (mutated bytes, members, headers and values), ``cli`` (``python -m
dtree`` with odd files and options), ``methods`` (arguments of the fitted model's
methods and the exporters), ``threads`` (fit and predict on a shared estimator),
``dask`` (``dtree.dask`` on an in-process cluster) and ``export`` (SQL and ONNX
against ``predict``).
"""
import contextlib
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings
import zipfile
import zlib

import numpy as np

OK, CLEAR, UNNAMED, WRONG = "ok", "clear_error", "unnamed_error", "wrong_answer"
CRASH, HANG, MEMORY = "crash", "hang", "memory"
OUTCOMES = (OK, CLEAR, UNNAMED, WRONG, CRASH, HANG, MEMORY)
ACCEPTED = (OK, CLEAR)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# set by replay(): dtree's exceptions propagate instead of being classified
RAISE = False

# ===================================================================== values
# JSON carries None, bools, ints of any size, floats (NaN/Infinity too), str, lists
# and str-keyed dicts; everything else a probe passes is tagged.


def E(v):
    """A JSON-able encoding of a value a probe passes to dtree."""
    if isinstance(v, np.ndarray):
        return {"$": "arr", "t": v.dtype.str, "v": E(v.tolist())}
    if isinstance(v, np.generic):
        return {"$": "np", "t": v.dtype.str, "v": E(v.item())}
    if isinstance(v, bytes):
        return {"$": "bytes", "v": v.decode("latin-1")}
    if isinstance(v, complex):
        return {"$": "complex", "v": [v.real, v.imag]}
    if isinstance(v, tuple):
        return {"$": "tuple", "v": [E(x) for x in v]}
    if isinstance(v, dict):
        return {"$": "dict", "v": [[E(k), E(x)] for k, x in v.items()]}
    if isinstance(v, list):
        return [E(x) for x in v]
    return v


def D(x):
    """The value ``E`` encoded."""
    if isinstance(x, list):
        return [D(v) for v in x]
    if isinstance(x, dict):
        tag = x.get("$")
        if tag == "arr":
            return np.array(D(x["v"]), dtype=x["t"])
        if tag == "np":
            return np.array(D(x["v"]), dtype=x["t"])[()]
        if tag == "bytes":
            return x["v"].encode("latin-1")
        if tag == "complex":
            return complex(*x["v"])
        if tag == "tuple":
            return tuple(D(v) for v in x["v"])
        if tag == "dict":
            return {_hashable(D(k)): D(v) for k, v in x["v"]}
        return {k: D(v) for k, v in x.items()}
    return x


def _hashable(k):
    return tuple(k) if isinstance(k, list) else k


NAN, INF = float("nan"), float("inf")
# numbers at the edges of every numeric type a parameter could be checked against
EXTREMES = [0, -1, 1, 2, 2**31, 2**32 + 1, 2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64,
            -2**63, 2**1100, -2**1100, 0.0, -0.0, 0.5, 1.0, 1 - 2**-53, 1 + 2**-52, 1e-300,
            5e-324, 1e308, 1.7976931348623157e308, NAN, INF, -INF, True, False,
            np.int64(3), np.float32(0.5), np.uint64(2**64 - 1), np.float64(NAN),
            np.bool_(True), np.int8(-1)]
HOSTILE = ["abc", "", " ", "gini ", "GINI", "None", "auto", "random", "best", "hist", "sqrt",
           "balanced", "nan", "inf", "1", None, [], [1], [1, 2], [NAN], {}, {"a": 1}, (1,),
           b"gini", complex(1, 1), np.array([1]), np.array(2.0), [[1, 0]], "é∂", "\x00"]


def _any_value(r):
    return r.choice(EXTREMES if r.random() < 0.6 else HOSTILE)


# ===================================================================== outcomes
class Finish(Exception):
    """Ends a probe with an outcome other than ok."""

    def __init__(self, outcome, stage="", exc_type="", message="", check="", where="",
                 trace=""):
        super().__init__(f"{outcome} at {stage}: {exc_type} {message}")
        self.result = {"outcome": outcome, "stage": stage, "type": exc_type,
                       "message": str(message)[:600], "check": check, "where": where,
                       "trace": trace[-2500:]}


def wrong(check, detail):
    """A wrong answer: ``check`` names the oracle (and what it is about) for grouping."""
    if RAISE:
        raise AssertionError(f"{check}: {detail}")
    raise Finish(WRONG, stage="oracle", check=check, message=detail)


# messages of Python, numpy and pandas internals: they name no cause a user can act on
INTERNAL = [r"math range error", r"has no attribute", r"is out of bounds", r"index out of range",
            r"unhashable type", r"not subscriptable", r"unsupported operand type",
            r"cannot convert float (nan|infinity) to integer", r"too large to convert",
            r"int too (large|big)", r"has no len\(\)", r"NoneType", r"positional argument",
            r"unexpected keyword argument", r"buffer dtype mismatch",
            r"wrong number of dimensions", r"no matching signature",
            r"could not be broadcast", r"setting an array element with a sequence",
            r"cannot cast ", r"ufunc", r"truth value of an array", r"not supported between "
            r"instances", r"argument of type", r"cannot be interpreted as an integer",
            r"only integer scalar arrays", r"zero-size array", r"empty sequence",
            r"invalid literal for int\(\)", r"^could not convert string to float",
            r"object is not iterable", r"object is not callable",
            r"must be real number, not", r"maximum recursion depth", r"division by zero",
            r"^\W*$", r"^'?\w+'?$", r"^\d+$", r"Expecting value: line",
            r"invalid load key", r"array is too big", r"negative dimensions",
            r"not enough values to unpack", r"too many values to unpack",
            r"\bNone features\b"]
_INTERNAL = re.compile("|".join(f"(?:{p})" for p in INTERNAL), re.I)

# the caller's vocabulary every fit probe may be named by
FIT_WORDS = ["X", "y", "sample_weight", "feature", "column", "categor", "class", "target",
             "input", "label", "missing", "NaN", "infinit", "sample", "sparse", "dtype",
             "complex", "output", "weight"]


def names_in(message, names):
    for name in names:
        name = str(name)
        if not name:
            continue
        if len(name) <= 2:
            if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message):
                return True
        elif name.lower() in message.lower():
            return True
    return False


def is_clear(message, names):
    """Does the message say what is wrong: not an internal message, and naming one of
    ``names`` (the caller's parameters, arguments, columns, files; None: any)."""
    message = " ".join(str(message).split())
    if not message or _INTERNAL.search(message):
        return False
    return names is None or names_in(message, names)


def _model_file_error():
    from dtree import ModelFileError
    return ModelFileError


def classify(exc, names, types=(ValueError, TypeError)):
    """The outcome of an exception dtree raised, with the probe's names and the
    exception types that count as a refusal there."""
    if isinstance(exc, MemoryError):
        # dtree's own refusal of an impossible size, before allocating, names the parameter
        message = str(exc)
        if message and "allocate" not in message and is_clear(message, names):
            return CLEAR
        return MEMORY
    if isinstance(exc, (UnicodeError, json.JSONDecodeError, RecursionError)):
        return UNNAMED
    if isinstance(exc, _model_file_error()) and _model_file_error() in types:
        return CLEAR if str(exc).strip() else UNNAMED
    if isinstance(exc, types) and is_clear(str(exc), names):
        return CLEAR
    return UNNAMED


def where(tb_or_exc):
    """The innermost frame in dtree's package (file:function), for grouping."""
    tb = tb_or_exc.__traceback__ if isinstance(tb_or_exc, BaseException) else tb_or_exc
    found = ""
    for frame, _ in traceback.walk_tb(tb):
        path = frame.f_code.co_filename
        if f"{os.sep}dtree{os.sep}" in path and f"{os.sep}tests{os.sep}" not in path:
            found = f"{path.split(os.sep + 'dtree' + os.sep)[-1]}:{frame.f_code.co_name}"
    return found


def call(stage, names, fn, *args, types=(ValueError, TypeError), **kwargs):
    """Runs one call into dtree; an exception ends the probe with its outcome."""
    try:
        return fn(*args, **kwargs)
    except Finish:
        raise
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        if RAISE:
            raise
        outcome = classify(exc, names, types)
        raise Finish(outcome, stage=stage, exc_type=type(exc).__name__, message=str(exc),
                     where=where(exc), trace=traceback.format_exc()) from None


# ===================================================================== data
def _rng(spec):
    return np.random.RandomState(spec["seed"] % (2**32))


def _base(spec):
    """The numeric core of a data set: (n, d) floats, ties, extremes, missing values."""
    rng = _rng(spec)
    n, d = spec["n"], spec["d"]
    X = rng.rand(n, d)
    if spec.get("ties"):
        X = np.round(X * spec["ties"]) / spec["ties"]
    if spec.get("scale"):
        X = X * 10.0 ** spec["scale"]
    extreme = spec.get("extreme")
    if extreme and n and d:
        cells = rng.rand(n, d) < 0.3
        value = {"huge": 1e300, "f32max": 3.4028234663852886e38, "over_f32": 1e39,
                 "tiny": 1e-310, "f32tiny": 1e-45, "neg0": -0.0, "neg": -1e30,
                 "u64": 1.8e19}[extreme]
        X[cells] = value * (1 + X[cells] if extreme not in ("neg0",) else 1)
    if spec.get("nan") and n and d:
        X[rng.rand(n, d) < spec["nan"]] = np.nan
    if spec.get("inf") and n and d:
        X[rng.randint(n), rng.randint(d)] = rng.choice([np.inf, -np.inf])
    return X, rng


def _signal(X, rng):
    n = X.shape[0]
    s = np.nan_to_num(X[:, 0] if X.shape[1] else np.zeros(n), nan=0.5, posinf=1, neginf=0)
    top = np.abs(s).max() if n else 1.0
    s = s / top if n and np.isfinite(top) and top > 0 else np.clip(s, -1, 1)
    return s + 0.3 * rng.rand(n)


def make_y(spec, X, rng):
    """Targets of the kind ``spec['y']`` names (one or several outputs)."""
    kind = spec.get("y", "int")
    n = X.shape[0]
    k = max(int(spec.get("k", 2)), 1)
    outputs = int(spec.get("outputs", 1))
    cols = []
    for out in range(outputs):
        s = _signal(X, rng) if out == 0 else rng.rand(n)
        codes = np.minimum((s / (s.max() if n and s.max() > 0 else 1) * k).astype(int), k - 1) \
            if n else np.zeros(0, int)
        cols.append(_y_column(kind, codes, s, rng, k, spec))
    if outputs == 1:
        y = cols[0]
    else:
        y = np.column_stack(cols) if all(isinstance(c, np.ndarray) for c in cols) else cols[0]
    return _y_container(spec.get("ycontainer"), y)


def _y_column(kind, codes, s, rng, k, spec):
    n = len(codes)
    e = spec.get("yscale", 0)
    if kind == "int":
        return codes
    if kind == "str":
        return np.array([f"k{c}" for c in codes], dtype=object)
    if kind == "bool":
        return codes % 2 == 0
    if kind == "float_labels":
        return codes * 0.5 + 0.25
    if kind == "neg":
        return -codes - 5
    if kind == "u64big":
        return np.array([2**63 + 7, 2**64 - 1], dtype=np.uint64)[codes % 2]
    if kind == "mixed":
        return np.array([c if c % 2 else f"s{c}" for c in codes], dtype=object)
    if kind == "bytes":
        return np.array([b"b%d" % c for c in codes])
    if kind == "nan":
        y = codes.astype(float)
        if n:
            y[0] = np.nan
        return y
    if kind == "none":
        y = np.array([f"k{c}" for c in codes], dtype=object)
        if n:
            y[-1] = None
        return y
    if kind == "one":
        return np.zeros(n, int)
    if kind == "many":
        return np.arange(n) // 2
    if kind == "tenk":
        return np.arange(n) % spec.get("k", 10000)
    if kind == "inf_labels":
        y = codes.astype(float)
        if n:
            y[0] = np.inf
        return y
    # regression targets
    if kind == "real":
        return (s - 0.5) * 2 * 10.0 ** e
    if kind == "dyadic":           # exact in binary: scaling by 2^k is exact
        return np.ldexp(rng.randint(-64, 65, n).astype(float), -3)
    if kind == "ints":
        return rng.randint(0, 50, n).astype(float)
    if kind == "nonneg":
        return rng.poisson(3 * np.clip(np.nan_to_num(s), 0, 10) + 0.1).astype(float)
    if kind == "const":
        return np.full(n, 10.0 ** e)
    if kind == "huge":
        return np.where(s > s.mean() if n else s, 1.7e308, -1.7e308) * rng.rand(n)
    if kind == "tiny":
        return s * 1e-310
    if kind == "ynan":
        y = s.copy()
        if n:
            y[0] = np.nan
        return y
    if kind == "yinf":
        y = s.copy()
        if n:
            y[0] = np.inf
        return y
    if kind == "ystr":
        return np.array([f"{v:.3f}" for v in s], dtype=object)
    if kind == "ycomplex":
        return s + 1j
    if kind == "ybool":
        return s > 0.6
    return codes


def _y_container(kind, y):
    if kind in (None, "numpy"):
        return y
    if kind == "list":
        return y.tolist()
    if kind == "col":
        return y.reshape(-1, 1) if y.ndim == 1 else y
    if kind == "series":
        import pandas as pd
        return pd.Series(y, name="target") if y.ndim == 1 else pd.DataFrame(y)
    if kind == "cat_series" and y.ndim == 1:
        import pandas as pd
        return pd.Series(pd.Categorical(y), name="target")
    if kind == "polars" and y.ndim == 1:
        import polars as pl
        return pl.Series("target", y.tolist() if y.dtype == object else y)
    if kind == "pyarrow" and y.ndim == 1:
        import pyarrow as pa
        return pa.array(y.tolist() if y.dtype == object else y)
    return y


def make_w(kind, n, rng):
    """Sample weights of a kind (None: no weights)."""
    if kind is None:
        return None
    if kind == "ones":
        return np.ones(n)
    if kind == "int":
        return rng.randint(1, 5, n).astype(float)
    if kind == "rand":
        return rng.rand(n) + 0.05
    if kind == "const":
        return np.full(n, 7.3)
    if kind == "tiny":
        return (rng.rand(n) + 0.05) * 1e-300
    if kind == "huge":
        return (rng.rand(n) + 0.05) * 1e300
    if kind == "max1023":
        w = rng.rand(n) + 0.05
        if n:
            w[0] = 2.0 ** 1023
        return w
    if kind == "zeros":
        return np.zeros(n)
    if kind == "some_zero":
        w = rng.rand(n)
        w[: n // 2] = 0
        return w
    if kind == "neg":
        w = np.ones(n)
        if n:
            w[0] = -1
        return w
    if kind == "nan":
        w = np.ones(n)
        if n:
            w[0] = np.nan
        return w
    if kind == "inf":
        w = np.ones(n)
        if n:
            w[0] = np.inf
        return w
    if kind == "complex":
        return np.ones(n) + 0.5j
    if kind == "str":
        return np.array(["1"] * n, dtype=object)
    if kind == "word":
        return "abc"
    if kind == "obj":
        return np.array([1.0] * n, dtype=object)
    if kind == "bool":
        return np.ones(n, bool)
    if kind == "scalar":
        return 3.0
    if kind == "0d":
        return np.array(2.0)
    if kind == "wrong_len":
        return np.ones(n + 1)
    if kind == "2d":
        return np.ones((n, 2))
    if kind == "list":
        return [1.0] * n
    if kind == "series":
        import pandas as pd
        return pd.Series(np.ones(n))
    if kind == "f32":
        return (rng.rand(n) + 0.05).astype(np.float32)
    if kind == "int8":
        return np.ones(n, np.int8)
    return None


NUMPY_KINDS = ["f64", "f32", "f16", "i8", "i64", "u64", "bool", "complex", "obj_num",
               "obj_str", "obj_mixed", "S", "U", "dt64", "longdouble"]
COL_KINDS = ["float", "int", "bool", "str", "str_none", "bytes", "category", "string",
             "Int64", "boolean", "period", "interval", "datetime", "timedelta", "mixed",
             "allnan", "int_cat", "unicode", "f32", "big_uint", "cat_int", "cat_unused"]
POLARS_KINDS = ["float", "int", "bool", "str", "str_none", "category", "enum", "Int64",
                "allnan", "f32", "datetime", "list"]
ARROW_KINDS = ["float", "int", "bool", "str", "str_none", "dictionary", "bytes", "datetime",
               "null", "f32", "large_str"]
SPARSE = ["csr", "csc", "coo", "csr_array", "csc_array", "coo_array", "lil", "dok", "bsr"]
BROKEN = ["idx_big", "idx_neg", "indptr_past", "indptr_down", "indptr_short", "coo_col",
          "coo_row", "data_short", "unsorted", "dups", "shape_lie"]


def _numpy_x(kind, X, rng):
    n, d = X.shape
    with np.errstate(all="ignore"):
        if kind == "f64":
            return X
        if kind == "f32":
            return X.astype(np.float32)
        if kind == "f16":
            return X.astype(np.float16)
        if kind == "i8":
            return np.nan_to_num(X * 100, nan=0, posinf=127, neginf=-128).clip(-128, 127).astype(np.int8)
        if kind == "i64":
            return np.nan_to_num(X * 1000, nan=0).clip(-9e18, 9e18).astype(np.int64)
        if kind == "u64":
            out = (np.nan_to_num(X, nan=0).clip(0, 1) * 2.0**63).astype(np.uint64)
            out[::3] = np.uint64(2**64 - 1)
            return out
        if kind == "bool":
            return X > 0.5
        if kind == "complex":
            return X + 1j * (rng.rand(n, d) > 0.5)
        if kind == "obj_num":
            out = X.astype(object)
            out[np.isnan(X)] = None
            return out
        if kind == "obj_str":
            return _strings(X)
        if kind == "obj_mixed":
            out = X.astype(object)
            if n and d:
                out[::3, 0] = "a"
                out[1::5, -1] = None
            return out
        if kind == "S":
            return _strings(X).astype("S")
        if kind == "U":
            return _strings(X).astype("U")
        if kind == "dt64":
            unit = np.clip(np.nan_to_num(X, nan=0.5), -1e6, 1e6)
            return (unit * 1000).astype(np.int64).astype("datetime64[s]")
        if kind == "longdouble":
            return X.astype(np.longdouble)
    return X


def _strings(X):
    out = np.empty(X.shape, dtype=object)
    for j in range(X.shape[1]):
        codes = _codes(X[:, j])
        out[:, j] = [None if np.isnan(v) else f"c{c}" for v, c in zip(X[:, j], codes)]
    return out


def _names(kind, d):
    if kind == "int":
        return list(range(d))
    if kind == "dup":
        return ["a"] * d
    if kind == "empty":
        return [""] + [f"x{j}" for j in range(1, d)]
    if kind == "unicode":
        return [f"é{j}∂ x" for j in range(d)]
    if kind == "mixed":
        return [j if j % 2 else f"x{j}" for j in range(d)]
    return [f"x{j}" for j in range(d)]


def _codes(col, k=5):
    """Category codes 0..k-1 of a numeric column (by rank: any scale works)."""
    n = len(col)
    if not n:
        return np.zeros(0, int)
    ranks = np.argsort(np.argsort(np.nan_to_num(col, nan=0.0, posinf=2.0, neginf=-2.0),
                                  kind="stable"), kind="stable")
    return (ranks * k // n).astype(int)


def _pandas_column(kind, col, rng):
    import pandas as pd
    n = len(col)
    miss = np.isnan(col)
    codes = _codes(col)
    unit = np.clip(np.nan_to_num(col, nan=0.5, posinf=1, neginf=0), -1e6, 1e6)
    if kind == "float":
        return col
    if kind == "f32":
        return col.astype(np.float32)
    if kind == "int":
        return (unit * 10).astype(np.int64)
    if kind == "bool":
        return col > 0.5
    if kind == "str":
        return np.array([f"c{c}" for c in codes], dtype=object)
    if kind == "str_none":
        return np.array([None if m else f"c{c}" for c, m in zip(codes, miss)], dtype=object)
    if kind == "bytes":
        return np.array([b"b%d" % c for c in codes], dtype=object)
    if kind == "category":
        return pd.Categorical([None if m else f"c{c}" for c, m in zip(codes, miss)])
    if kind == "cat_int":
        return pd.Categorical([None if m else int(c) * 10 for c, m in zip(codes, miss)])
    if kind == "cat_unused":
        return pd.Categorical([f"c{c}" for c in codes], categories=[f"c{j}" for j in range(8)])
    if kind == "string":
        return pd.array([None if m else f"c{c}" for c, m in zip(codes, miss)], dtype="string")
    if kind == "Int64":
        return pd.array([None if m else int(c) for c, m in zip(codes, miss)], dtype="Int64")
    if kind == "boolean":
        return pd.array([None if m else bool(c % 2) for c, m in zip(codes, miss)],
                        dtype="boolean")
    if kind == "period":
        return pd.PeriodIndex([pd.Period("2020-01", "M") + int(c) for c in codes]).array
    if kind == "interval":
        return pd.arrays.IntervalArray.from_breaks(np.arange(6))[np.minimum(codes, 4)]
    if kind == "datetime":
        return pd.to_datetime((unit * 1e9).astype(np.int64))
    if kind == "timedelta":
        return pd.to_timedelta((unit * 1e9).astype(np.int64))
    if kind == "mixed":
        return np.array([c if c % 2 else f"s{c}" for c in codes], dtype=object)
    if kind == "allnan":
        return np.full(n, np.nan)
    if kind == "int_cat":
        return codes.astype(float)
    if kind == "unicode":
        return np.array([["é", "∂", "日本", "", "\x00", "a b"][c % 6] for c in codes], dtype=object)
    if kind == "big_uint":
        return np.where(codes % 2 == 0, np.uint64(2**64 - 1), np.uint64(3))
    return col


def _polars_column(kind, col, name):
    import polars as pl
    miss = np.isnan(col)
    codes = _codes(col)
    unit = np.clip(np.nan_to_num(col, nan=0.5, posinf=1, neginf=0), -1e6, 1e6)
    if kind == "float":
        return pl.Series(name, col)
    if kind == "f32":
        return pl.Series(name, col.astype(np.float32))
    if kind == "int":
        return pl.Series(name, (unit * 10).astype(np.int64))
    if kind == "Int64":
        return pl.Series(name, [None if m else int(c) for c, m in zip(codes, miss)],
                         dtype=pl.Int64)
    if kind == "bool":
        return pl.Series(name, col > 0.5)
    if kind in ("str", "str_none"):
        vals = [None if (m and kind == "str_none") else f"c{c}" for c, m in zip(codes, miss)]
        return pl.Series(name, vals, dtype=pl.String)
    if kind == "category":
        return pl.Series(name, [f"c{c}" for c in codes], dtype=pl.Categorical)
    if kind == "enum":
        return pl.Series(name, [f"c{c}" for c in codes],
                         dtype=pl.Enum([f"c{j}" for j in range(5)]))
    if kind == "allnan":
        return pl.Series(name, [None] * len(col), dtype=pl.Float64)
    if kind == "datetime":
        return pl.Series(name, (unit * 1e9).astype(np.int64).astype("datetime64[ns]"))
    if kind == "list":
        return pl.Series(name, [[float(v)] for v in np.nan_to_num(col)])
    return pl.Series(name, col)


def _arrow_column(kind, col):
    import pyarrow as pa
    miss = np.isnan(col)
    codes = _codes(col)
    unit = np.clip(np.nan_to_num(col, nan=0.5, posinf=1, neginf=0), -1e6, 1e6)
    if kind == "float":
        return pa.array(col, from_pandas=True)
    if kind == "f32":
        return pa.array(col.astype(np.float32), from_pandas=True)
    if kind == "int":
        return pa.array((unit * 10).astype(np.int64))
    if kind == "bool":
        return pa.array(col > 0.5)
    if kind in ("str", "str_none", "large_str"):
        vals = [None if (m and kind == "str_none") else f"c{c}" for c, m in zip(codes, miss)]
        return pa.array(vals, type=pa.large_string() if kind == "large_str" else pa.string())
    if kind == "dictionary":
        return pa.array([f"c{c}" for c in codes]).dictionary_encode()
    if kind == "bytes":
        return pa.array([b"b%d" % c for c in codes], type=pa.binary())
    if kind == "datetime":
        return pa.array((unit * 1e9).astype(np.int64).astype("datetime64[ns]"))
    if kind == "null":
        return pa.nulls(len(col))
    return pa.array(col)


def _frame(container, cols, names, X, rng):
    """A frame of ``container``'s library with one column of each kind."""
    d = X.shape[1]
    kinds = (cols + ["float"] * d)[:d]
    if container in ("pandas", "series", "pandas_arrow"):
        import pandas as pd
        data = {}
        for j in range(d):
            data[j] = _pandas_column(kinds[j], X[:, j], rng)
        frame = pd.DataFrame(data)
        frame.columns = names
        if container == "pandas_arrow":
            frame = frame.convert_dtypes(dtype_backend="pyarrow")
        if container == "series":
            return frame.iloc[:, 0]
        return frame
    if container == "polars":
        import polars as pl
        return pl.DataFrame([_polars_column(kinds[j], X[:, j], str(names[j]))
                             for j in range(d)])
    import pyarrow as pa
    arrays = [_arrow_column(kinds[j], X[:, j]) for j in range(d)]
    table = pa.table(arrays, names=[str(n) for n in names])
    if container == "pa_batch":
        return table.to_batches()[0] if table.num_rows else pa.RecordBatch.from_arrays(
            arrays, names=[str(n) for n in names])
    if container == "pa_chunked":
        return table.column(0)
    if container == "pl_series":
        import polars as pl
        return pl.DataFrame(table).to_series(0)
    return table


def _sparse(container, X, rng, dtype=None):
    import scipy.sparse as sp
    Z = X.copy()
    Z[rng.rand(*Z.shape) < 0.6] = 0.0
    if dtype:
        with np.errstate(all="ignore"):
            Z = Z.astype(dtype)
    maker = {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "coo": sp.coo_matrix,
             "csr_array": sp.csr_array, "csc_array": sp.csc_array, "coo_array": sp.coo_array,
             "lil": sp.lil_matrix, "dok": sp.dok_matrix, "bsr": sp.bsr_matrix}[container]
    m = maker(Z)
    if container in ("csr", "csc", "csr_array", "csc_array") and m.nnz:
        m.data[::4] = 0.0        # some stored zeros
    return m


def _break(m, kind, rng):
    """Edit a sparse matrix's arrays in place into an inconsistent state."""
    import scipy.sparse as sp
    if kind in ("coo_col", "coo_row"):
        m = sp.coo_matrix(m)
        if m.nnz:
            if kind == "coo_col":
                m.col[rng.randint(m.nnz)] = m.shape[1] + rng.randint(0, 100)
            else:
                m.row[rng.randint(m.nnz)] = -3
        return m
    if not hasattr(m, "indptr"):
        m = sp.csr_matrix(m)
    if m.nnz == 0:
        return m
    if kind == "idx_big":
        m.indices[rng.randint(m.nnz)] = 10**6
    elif kind == "idx_neg":
        m.indices[rng.randint(m.nnz)] = -1
    elif kind == "indptr_past":
        m.indptr[-1] = m.nnz + 10**5
    elif kind == "indptr_down" and len(m.indptr) > 2:
        m.indptr[1] = m.indptr[-1]
    elif kind == "indptr_short":
        m.indptr = m.indptr[:-1].copy()
    elif kind == "data_short":
        m.data = m.data[:-1].copy()
    elif kind == "unsorted":
        m.indices[:] = m.indices[::-1].copy() if m.shape[0] == 1 else m.indices
        m.has_sorted_indices = False
    elif kind == "dups":
        m.indices[1:] = m.indices[:-1].copy() if m.nnz > 1 else m.indices
        m.has_canonical_format = False
    elif kind == "shape_lie":
        try:
            m._shape = (m.shape[0], max(m.shape[1] - 1, 1))
        except Exception:
            pass
    return m


class Skip(Exception):
    """The probe's data cannot be built (a limit of the library that builds it)."""


def make_data(spec):
    """(X, y, w, info) for a data spec; ``info`` holds the column names and the
    numeric core ``base`` (the same rows as numbers)."""
    X, rng = _base(spec)
    try:
        y = make_y(spec, X, rng)
        w = make_w(spec.get("w"), X.shape[0], rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Xc = build_x(spec, X, rng)
    except Exception as exc:
        if RAISE:
            raise
        raise Skip(f"{type(exc).__name__}: {exc}"[:200]) from None
    return Xc, y, w, {"base": X, "names": _names(spec.get("names"), X.shape[1]),
                      "rng": rng}


def build_x(spec, X, rng):
    container = spec.get("container", "numpy")
    names = _names(spec.get("names"), X.shape[1])
    if container == "numpy":
        return _numpy_x(spec.get("x", "f64"), X, rng)
    if container == "list":
        return _numpy_x(spec.get("x", "f64"), X, rng).tolist()
    if container == "fortran":
        return np.asfortranarray(_numpy_x(spec.get("x", "f64"), X, rng))
    if container == "readonly":
        out = _numpy_x(spec.get("x", "f64"), X, rng).copy()
        out.flags.writeable = False
        return out
    if container == "strided":
        wide = np.repeat(_numpy_x(spec.get("x", "f64"), X, rng), 2, axis=1)
        return wide[::-1, ::2]
    if container in SPARSE:
        m = _sparse(container, X, rng, spec.get("sdtype"))
        if spec.get("broken"):
            m = _break(m, spec["broken"], rng)
        return m
    return _frame(container, spec.get("cols", []), names, X, rng)


# ===================================================================== estimators
def estimator_class(est):
    import dtree
    return {"clf": dtree.DecisionTreeClassifier, "reg": dtree.DecisionTreeRegressor,
            "xclf": dtree.ExtraTreeClassifier, "xreg": dtree.ExtraTreeRegressor}[est]


def is_clf(est):
    return est in ("clf", "xclf")


CLF_CRITERIA = ["gini", "entropy", "log_loss", "gain_ratio"]
REG_CRITERIA = ["squared_error", "absolute_error", "quantile", "poisson", "friedman_mse"]
COMMON_PARAMS = ["splitter", "max_depth", "min_samples_split", "min_samples_leaf",
                 "min_weight_fraction_leaf", "max_features", "random_state", "max_leaf_nodes",
                 "min_impurity_decrease", "ccp_alpha", "cv", "cv_rule", "prune_risk",
                 "pruning", "validation_fraction", "handle_missing", "handle_unknown",
                 "categorical_features", "keep_competitors", "n_surrogates", "max_bins",
                 "monotonic_cst", "value_tolerance", "n_jobs", "criterion"]
CLF_PARAMS = COMMON_PARAMS + ["class_weight", "algorithm", "cf", "subtree_raising",
                              "threshold_rule", "category_splits"]
REG_PARAMS = COMMON_PARAMS + ["quantile", "keep_leaf_targets"]


def valid_value(r, name, est, d, k):
    """A valid (if sometimes unusual) value of a parameter."""
    c = r.choice
    if name == "criterion":
        return c(CLF_CRITERIA if is_clf(est) else REG_CRITERIA)
    table = {
        "splitter": ["best", "random", "hist"],
        "max_depth": [None, 1, 2, 3, 5, 10],
        "min_samples_split": [2, 3, 5, 10, 0.1, 0.5, 1.0],
        "min_samples_leaf": [1, 2, 5, 0.1, 0.3],
        "min_weight_fraction_leaf": [0.0, 0.1, 0.3, 0.5],
        "max_features": [None, 1, max(d - 1, 1), 0.5, 1.0, "sqrt", "log2"],
        "random_state": [0, 1, 42, 2**32 - 1, None],
        "max_leaf_nodes": [None, 2, 3, 5, 10, 50],
        "min_impurity_decrease": [0.0, 1e-3, 0.01, 0.1],
        "ccp_alpha": [0.0, 1e-3, 0.01, 0.1, "cv"],
        "cv": [2, 3, 5],
        "cv_rule": ["1se", "min"],
        "prune_risk": ["impurity", "misclassification"],
        "pruning": [None, "none", "pessimistic", "reduced_error"],
        "validation_fraction": [0.1, 0.3, 0.5],
        "handle_missing": ["split", "surrogate", "error"],
        "handle_unknown": ["missing", "error"],
        "categorical_features": ["auto", None, [0], [d - 1], [True] + [False] * (d - 1)],
        "keep_competitors": [0, 1, 2, 4],
        "n_surrogates": [None, 0, 1, 5],
        "max_bins": [2, 3, 16, 255],
        "monotonic_cst": [None, [r.choice([-1, 0, 1]) for _ in range(d)]],
        "value_tolerance": [0.0, 1e-7, 0.01, 0.1],
        "n_jobs": [None, 1, 2, -1],
        "algorithm": ["cart", "id3", "c4.5"],
        "cf": [0.25, 0.01, 0.5, 1e-9, 0.999],
        "subtree_raising": [None, True, False],
        "threshold_rule": [None, "midpoint", "training_value"],
        "category_splits": [None, "subsets", "multiway", "one_vs_rest"],
        "quantile": [0.5, 0.1, 0.9, 0.01, 0.99],
        "keep_leaf_targets": [False, True],
        "class_weight": [None, "balanced", {0: 1.0, 1: 2.0}, {j: r.random() + 0.01
                                                             for j in range(k)}],
    }
    return c(table[name])


def gen_params(r, est, d, k, hostile_share=0.25, n_max=5):
    names = CLF_PARAMS if is_clf(est) else REG_PARAMS
    chosen = r.sample(names, r.choice([0, 1, 2, 2, 3, 3, 4, n_max]))
    params = {}
    for name in chosen:
        u = r.random()
        if u < 1 - hostile_share:
            params[name] = valid_value(r, name, est, d, k)
        else:
            params[name] = _any_value(r)
    return params


def new_estimator(case, names):
    params = {k: D(v) for k, v in case.get("params", {}).items()}
    Est = estimator_class(case["est"])
    return call("construct", names, Est, **params), params


# ===================================================================== oracles
def _labels_set(values):
    out = set()
    for v in np.asarray(values, dtype=object).ravel().tolist():
        out.add(v)
    return out


def _column_of(y, k, n_outputs):
    a = np.asarray(y, dtype=object) if not isinstance(y, np.ndarray) else y
    if n_outputs == 1:
        return a.ravel() if a.ndim > 1 else a
    return a[:, k]


def check_model(model, X, y=None, *, names, roundtrip=True, train=True, criterion=None):
    """Oracles every fitted (or loaded) model must pass on rows X; y: the training
    targets when X is the training data (labels and ranges are then checked)."""
    from dtree import DecisionTreeClassifier, ExtraTreeClassifier
    tree = model.tree_
    n_nodes = tree.node_count
    if n_nodes < 1 or len(tree.children_left) != n_nodes or len(tree.feature) != n_nodes:
        wrong("structure", f"node_count {n_nodes}, arrays {len(tree.children_left)}")
    n = _n_rows(X)
    pred = call("predict", names, model.predict, X)
    n_outputs = model.n_outputs_
    expected = (n,) if n_outputs == 1 else (n, n_outputs)
    if np.shape(pred) != expected:
        wrong("predict:shape", f"{np.shape(pred)} for {expected}")
    clf = isinstance(model, (DecisionTreeClassifier, ExtraTreeClassifier))
    proba = None
    if clf:
        proba = call("predict_proba", names, model.predict_proba, X)
        probas = proba if n_outputs > 1 else [proba]
        classes = model.classes_ if n_outputs > 1 else [model.classes_]
        for k, (p, labels) in enumerate(zip(probas, classes)):
            labels = np.asarray(labels)
            if labels.dtype.kind in "fc" and not np.isfinite(labels).all():
                wrong("classes:non-finite", f"classes_ {labels.tolist()[:5]}")
            p = np.asarray(p)
            if p.shape != (n, len(labels)):
                wrong("proba:shape", f"{p.shape} for {(n, len(labels))}")
            if p.size and (not np.isfinite(p).all() or (p < 0).any() or (p > 1 + 1e-12).any()):
                wrong("proba:range", f"min {np.nanmin(p)}, max {np.nanmax(p)}")
            if p.size and not np.allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-9):
                wrong("proba:sum", f"row sums {p.sum(axis=1)[:3]}")
            col = np.asarray(pred)[:, k] if n_outputs > 1 else np.asarray(pred)
            allowed = _labels_set(labels)
            if not _labels_set(col) <= allowed:
                wrong("predict:unknown label", f"{list(_labels_set(col) - allowed)[:3]}")
            if train and y is not None:
                trained = _labels_set(_column_of(y, k, n_outputs))
                if not _labels_set(col) <= trained:
                    wrong("predict:label not in y", f"{list(_labels_set(col) - trained)[:3]}")
            if p.size > 1 and p.shape[1] > 1:
                top = np.sort(p, axis=1)
                clear = top[:, -1] - top[:, -2] > 1e-9
                arg = labels[np.argmax(p, axis=1)]
                if not all(a == b for a, b in zip(arg[clear].tolist(), col[clear].tolist())):
                    wrong("predict:not argmax of proba", "a label other than the likeliest")
    else:
        P = np.asarray(pred, dtype=float).reshape(n, -1)
        if not np.isfinite(P).all():
            wrong("predict:non-finite", f"{P[~np.isfinite(P)][:3]}")
        # predict checks X while routing it; apply validates it first: the same leaves
        if n and not tree.fractional_missing:
            leaves = call("apply", names, model.apply, X)
            if not np.array_equal(P, tree.value[leaves, :, 0].reshape(n, -1)):
                wrong("predict:not the values at apply's leaves",
                      "predict and apply route a row differently")
        if train and y is not None and n:
            Y = np.asarray(y, dtype=float).reshape(n, -1)
            low, high = Y.min(axis=0), Y.max(axis=0)
            slack = 1e-12 * np.maximum(np.abs(low), np.abs(high))
            if (P < low - slack).any() or (P > high + slack).any():
                wrong(f"predict:outside target range ({criterion or 'squared_error'})",
                      f"predictions [{P.min()}, {P.max()}] vs targets [{low.min()}, {high.max()}]")
    imp = call("feature_importances_", names, lambda: np.asarray(model.feature_importances_))
    if not np.isfinite(imp).all() or (imp < -1e-9).any() or (imp > 1 + 1e-9).any():
        wrong("importances:range", f"{imp[:5]}")
    total = imp.sum()
    if not (abs(total - 1) < 1e-6 or abs(total) < 1e-9):
        wrong("importances:sum", f"sum {total}")
    if roundtrip:
        _check_roundtrip(model, X, pred, proba, names)
    return pred, proba


def _n_rows(X):
    if hasattr(X, "shape"):
        return X.shape[0]
    if hasattr(X, "num_rows"):
        return X.num_rows
    return len(X)


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        return np.array_equal(a, b, equal_nan=True)
    return a.tolist() == b.tolist()


def _check_roundtrip(model, X, pred, proba, names):
    import dtree
    cols = getattr(model, "feature_names_in_", None)
    save_names = [str(c) for c in (cols if cols is not None else [])] + ["column"]
    classes = list(getattr(model, "classes_", []))
    if model.n_outputs_ > 1:
        classes = [c for out in classes for c in np.asarray(out, dtype=object).tolist()]
    if any(not isinstance(c, (str, int, float, bool, np.integer, np.floating, np.bool_))
           for c in np.asarray(classes, dtype=object).ravel().tolist()):
        save_names += ["class", "label"]      # the labels are what cannot be saved
    buffer = io.BytesIO()
    call("save", save_names, model.save, buffer)
    buffer.seek(0)
    try:
        loaded = call("load (own file)", [], dtree.load, buffer, types=(_model_file_error(),))
    except Finish as stop:
        if stop.result["outcome"] != CLEAR:
            raise
        wrong("roundtrip:own model file refused", stop.result["message"])
    if not _same(call("predict (loaded)", names, loaded.predict, X), pred):
        wrong("roundtrip:predict", "a saved and loaded model predicts differently")
    if proba is not None:
        again = call("predict_proba (loaded)", names, loaded.predict_proba, X)
        if not all(_same(a, b) for a, b in zip(_as_list(again), _as_list(proba))):
            wrong("roundtrip:proba", "a saved and loaded model gives other probabilities")
    data = call("to_dict", save_names, model.to_dict)
    try:
        other = call("from_dict (own dict)", [], dtree.from_dict, json.loads(json.dumps(data)),
                     types=(_model_file_error(),))
    except Finish as stop:
        if stop.result["outcome"] != CLEAR:
            raise
        wrong("roundtrip:own to_dict refused", stop.result["message"])
    if not _same(call("predict (from_dict)", names, other.predict, X), pred):
        wrong("roundtrip:to_dict", "a model rebuilt from to_dict predicts differently")


def _as_list(p):
    return p if isinstance(p, list) else [p]


def check_monotonic(model, X, cst, names):
    """Predictions move in the constrained direction along each constrained feature."""
    from dtree import DecisionTreeClassifier
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0:
        return
    clf = isinstance(model, DecisionTreeClassifier)
    if clf and (model.n_outputs_ != 1 or len(model.classes_) != 2):
        return
    rows = X[:: max(1, X.shape[0] // 4)][:4]
    for j, sign in enumerate(cst):
        if sign == 0 or j >= X.shape[1]:
            continue
        grid = np.unique(X[:, j][np.isfinite(X[:, j])])
        if grid.size < 2:
            continue
        for row in rows:
            Z = np.repeat(row[None, :], grid.size, axis=0)
            Z[:, j] = grid
            if np.isnan(Z).any():
                continue
            out = (call("predict_proba", names, model.predict_proba, Z)[:, 1] if clf
                   else call("predict", names, model.predict, Z))
            steps = np.diff(np.asarray(out, dtype=float)) * sign
            if (steps < -1e-12 * max(1.0, np.abs(out).max())).any():
                wrong("monotonic_cst", f"feature {j} sign {sign}: predictions {out[:6]}")


def structure(model):
    t = model.tree_
    return (t.node_count, t.children_left.tolist(), t.children_right.tolist(),
            t.feature.tolist())


# ===================================================================== area: params
def gen_params_case(r):
    """Half the probes: random parameters, some hostile (the checks of each value);
    half: a valid combination along every axis (criterion, splitter, preset) with
    options switched on at random (how the parts work together)."""
    if r.random() < 0.5:
        return _gen_params_random(r)
    return _gen_params_combo(r)


def _gen_params_random(r):
    est = r.choice(["clf", "clf", "reg", "reg", "xclf", "xreg"])
    d = r.choice([1, 2, 3, 4, 5])
    k = r.choice([1, 2, 2, 3, 5])
    hostile = r.random() < 0.4
    params = gen_params(r, est, d, k, hostile_share=0.3 if hostile else 0.0)
    if not is_clf(est) and "criterion" in params and params["criterion"] == "poisson":
        yk = "nonneg"
    else:
        yk = r.choice(["int", "int", "str", "bool"]) if is_clf(est) else \
            r.choice(["real", "real", "ints", "nonneg", "dyadic"])
    data = {"seed": r.randrange(2**31), "n": r.choice([1, 2, 5, 20, 40, 60, 80, 120, 300]),
            "d": d, "ties": r.choice([0, 0, 3, 10]), "nan": r.choice([0, 0, 0.1, 0.3]),
            "y": yk, "k": k, "outputs": r.choice([1, 1, 1, 1, 2]),
            "yscale": r.choice([0, 0, -300, 300, 5]),
            "w": r.choice([None, None, None, "int", "rand", "const", "ones"])}
    if r.random() < 0.25:          # an integer column split by category
        data["catcol"] = True
        params.setdefault("categorical_features", [0])
    return {"area": "params", "est": est, "params": {k: E(v) for k, v in params.items()},
            "data": data}


def _gen_params_combo(r):
    est = r.choice(["clf", "clf", "reg", "reg", "xclf", "xreg"])
    clf = is_clf(est)
    d = r.choice([2, 3, 4, 6])
    k = r.choice([2, 2, 3, 4])
    params = {"criterion": r.choice(CLF_CRITERIA if clf else REG_CRITERIA[:4]),
              "splitter": r.choice(["best", "best", "random", "hist"]),
              "random_state": r.randrange(1000)}
    if clf:
        params["algorithm"] = r.choice(["cart", "cart", "cart", "id3", "c4.5"])
    if not clf and params["criterion"] == "quantile":
        params["quantile"] = r.choice([0.1, 0.5, 0.9, 0.01])
    options = {
        "value_tolerance": [1e-7, 0.05, 0.3], "max_leaf_nodes": [3, 8, 30],
        "max_depth": [2, 4, 8], "min_samples_leaf": [2, 5, 0.05],
        "min_samples_split": [4, 0.2], "min_weight_fraction_leaf": [0.05, 0.2],
        "max_features": [1, 0.5, "sqrt"], "min_impurity_decrease": [1e-3, 0.05],
        "ccp_alpha": [1e-3, 0.02, "cv"], "pruning": ["pessimistic", "reduced_error"],
        "prune_risk": ["misclassification"], "handle_missing": ["surrogate", "error"],
        "keep_competitors": [1, 3], "n_surrogates": [1, 3], "max_bins": [2, 4, 32],
        "n_jobs": [1, 2, -1], "cv": [2, 3], "cv_rule": ["min"],
    }
    if clf:
        options.update(class_weight=["balanced", {0: 3.0}], cf=[0.05, 0.5])
    else:
        options.update(keep_leaf_targets=[True])
    for name, values in options.items():
        if r.random() < 0.2:
            params[name] = r.choice(values)
    if r.random() < 0.25:
        params["monotonic_cst"] = [r.choice([-1, 0, 1]) for _ in range(d)]
    outputs = r.choice([1, 1, 1, 1, 1, 2])
    catcol = r.choice([1, 2]) if r.random() < 0.35 else 0
    # mostly combinations the registry allows (its refusals are probed at random too)
    if r.random() < 0.8:
        algorithm = params.get("algorithm", "cart")
        if algorithm != "cart":
            params["splitter"] = "best"
            params["criterion"] = r.choice(["entropy", "gain_ratio"])
            outputs = 1
            for name in ("max_leaf_nodes", "max_features", "monotonic_cst", "ccp_alpha",
                         "keep_competitors", "n_surrogates"):
                params.pop(name, None)
            if algorithm == "c4.5":
                params.pop("value_tolerance", None)
        if params["splitter"] != "best":
            for name in ("keep_competitors", "n_surrogates"):
                params.pop(name, None)
            if params.get("handle_missing") == "surrogate":
                params.pop("handle_missing")
        if params["splitter"] == "hist":
            params.pop("value_tolerance", None)
            outputs = 1
            if params["criterion"] in ("absolute_error", "quantile"):
                params["criterion"] = "squared_error"
        if params["criterion"] in ("absolute_error", "quantile", "poisson"):
            if params.get("ccp_alpha") == "cv":
                params.pop("ccp_alpha")
            params.pop("pruning", None)
        if params.get("monotonic_cst"):
            outputs, k = 1, 2
            params["monotonic_cst"] = [0 if j < catcol else v
                                       for j, v in enumerate(params["monotonic_cst"])]
            for name in ("keep_competitors", "n_surrogates"):
                params.pop(name, None)
            if params.get("handle_missing") == "surrogate":
                params.pop("handle_missing")
        if outputs > 1:
            catcol = 0
            params.pop("class_weight", None)
        if not clf:
            params.pop("pruning", None) if params.get("pruning") == "pessimistic" else None
    data = {"seed": r.randrange(2**31), "n": r.choice([30, 60, 120, 250, 600, 2000]),
            "d": d, "ties": r.choice([0, 0, 4, 16]), "nan": r.choice([0, 0, 0.05, 0.2]),
            "y": r.choice(["int", "str"]) if clf else
            ("nonneg" if params["criterion"] == "poisson" else r.choice(["real", "ints"])),
            "k": k, "outputs": outputs,
            "w": r.choice([None, None, "int", "rand", "ones"])}
    if catcol:                       # integer-valued columns split by category
        data["catcol"] = catcol
        params["categorical_features"] = list(range(catcol))
    return {"area": "params", "est": est, "params": {k: E(v) for k, v in params.items()},
            "data": data, "combo": True}


def run_params(case):
    spec = case["data"]
    X, y, w, info = make_data(spec)
    if spec.get("catcol") and X.shape[0] and X.shape[1]:
        X = X.copy()
        for j in range(min(int(spec["catcol"]), X.shape[1])):
            missing = np.isnan(X[:, j])
            X[:, j] = np.floor(np.nan_to_num(X[:, j], nan=0.5) * 5 + 3 * j)
            X[missing, j] = np.nan
    names = list(case["params"]) + FIT_WORDS
    model, params = new_estimator(case, names)
    call("fit", names, model.fit, X, y, sample_weight=w)
    check_model(model, X, y, names=FIT_WORDS, criterion=params.get("criterion"))
    cst = params.get("monotonic_cst")
    if isinstance(cst, list) and all(v in (-1, 0, 1) for v in cst):
        check_monotonic(model, X, cst, FIT_WORDS)
    return {"nodes": int(model.tree_.node_count)}


# ===================================================================== area: inputs
VALID_COLS = ["float", "float", "int", "bool", "str", "str_none", "category", "string",
              "Int64", "boolean", "cat_int", "f32", "cat_unused"]
VALID_POLARS = ["float", "float", "int", "bool", "str", "str_none", "category", "enum",
                "Int64", "f32"]
VALID_ARROW = ["float", "float", "int", "bool", "str", "str_none", "dictionary", "f32",
               "large_str"]


def gen_inputs_case(r):
    """Inputs of every container, with at most one kind of oddity per probe (the
    ``focus``: dtypes, extreme values, targets, weights or broken sparse arrays), so
    that an error has one cause and the valid inputs of each kind get fitted too."""
    est = r.choice(["clf", "clf", "reg", "xclf", "xreg"])
    clf = is_clf(est)
    d = r.choice([1, 2, 3, 4])
    focus = r.choice(["none", "none", "x", "x", "extreme", "y", "w", "broken"])
    container = r.choices(["numpy", "list", "fortran", "readonly", "strided", "sparse",
                           "pandas", "series", "polars", "pyarrow", "pa_batch", "pa_chunked",
                           "pandas_arrow", "pl_series"],
                          [20, 3, 2, 2, 2, 15, 20, 2, 10, 7, 2, 1, 4, 1])[0]
    if focus == "broken":
        container = "sparse"
    spec = {"seed": r.randrange(2**31), "n": r.choice([0, 1, 2, 3, 10, 40, 40, 80, 200]),
            "d": d, "container": container, "nan": r.choice([0, 0, 0, 0.2]),
            "ties": r.choice([0, 0, 4]), "w": r.choice([None, None, None, "ones", "int",
                                                        "rand"])}
    if focus != "none" and spec["n"] < 3:
        spec["n"] = 40
    if focus == "x" and r.random() < 0.1:
        spec["d"] = d = 0                       # no columns at all
    hostile_x = focus == "x"
    if container == "sparse":
        spec["container"] = r.choice(SPARSE)
        spec["sdtype"] = r.choice([None, None, "float32", "int64", "bool"])
        if focus == "broken":
            spec["broken"] = r.choice(BROKEN)
    elif container in ("numpy", "list", "fortran", "readonly", "strided"):
        spec["x"] = r.choice(NUMPY_KINDS if hostile_x else ["f64", "f64", "f32", "i64", "bool",
                                                            "obj_num", "obj_str"])
    elif container in ("pandas", "series", "pandas_arrow"):
        spec["cols"] = [r.choice(COL_KINDS if hostile_x else VALID_COLS) for _ in range(d)]
        spec["names"] = r.choice(["int", "dup", "empty", "unicode", "mixed"]) if hostile_x \
            else r.choice(["plain", "plain", "unicode"])
    elif container == "polars":
        spec["cols"] = [r.choice(POLARS_KINDS if hostile_x else VALID_POLARS)
                        for _ in range(d)]
    else:
        spec["cols"] = [r.choice(ARROW_KINDS if hostile_x else VALID_ARROW) for _ in range(d)]
    if focus == "extreme":
        spec["extreme"] = r.choice(["huge", "f32max", "over_f32", "tiny", "f32tiny", "neg0",
                                    "neg", "u64"])
        spec["inf"] = r.random() < 0.3
    if clf:
        spec["y"] = r.choice(["str", "bool", "float_labels", "neg", "u64big", "mixed",
                              "bytes", "nan", "none", "one", "many", "inf_labels"]) \
            if focus == "y" else r.choice(["int", "int", "str", "bool"])
        spec["k"] = r.choice([2, 2, 3, 7])
    else:
        spec["y"] = r.choice(["ints", "const", "huge", "tiny", "ynan", "yinf", "ystr",
                              "ycomplex", "ybool", "nonneg"]) if focus == "y" else "real"
        spec["yscale"] = r.choice([0, 0, 100, -100, 300])
    if focus == "w":
        spec["w"] = r.choice(["const", "tiny", "huge", "max1023", "zeros", "some_zero", "neg",
                              "nan", "inf", "complex", "str", "word", "obj", "bool", "scalar",
                              "0d", "wrong_len", "2d", "list", "series", "f32", "int8"])
    spec["outputs"] = r.choice([1] * 8 + [2, 3])
    spec["ycontainer"] = r.choice([None] * 6 + ["list", "col", "series", "cat_series",
                                                "polars", "pyarrow"])
    params = {}
    if r.random() < 0.5:
        params = gen_params(r, est, d, spec.get("k", 2), hostile_share=0.0, n_max=3)
    if r.random() < 0.02 and clf:   # ten thousand classes, few rows each: a memory probe
        spec.update(n=20000, d=1, y="tenk", k=10000, container="numpy", x="f64", outputs=1,
                    ycontainer=None, w=None, extreme=None, nan=0, inf=False)
        params = {"max_depth": r.choice([1, 2, 3]), "random_state": 0}
        case = {"area": "inputs", "est": "clf", "params": {k: E(v) for k, v in params.items()},
                "data": spec, "predict": "same", "memory_budget": 1 << 30, "focus": "y"}
        return case
    predict = r.choice(["same", "same", "reorder", "drop", "extra", "rename", "unseen", "nan",
                        "numpy", "rows0", "row1", "dtype", "sparse_of_dense",
                        "dense_of_sparse", "list", "inf"])
    return {"area": "inputs", "est": est, "params": {k: E(v) for k, v in params.items()},
            "data": spec, "predict": predict, "focus": focus}


def _predict_variant(kind, X, info, spec):
    """(X2, equal): the predict-time input and whether it must give the training rows'
    predictions exactly (if it is accepted)."""
    import scipy.sparse as sp
    base = info["base"]
    if kind == "same":
        return X, True
    if kind == "list":
        if hasattr(X, "tolist") and isinstance(X, np.ndarray):
            return X.tolist(), True
        return X, True
    if kind == "reorder":
        if hasattr(X, "columns") and hasattr(X, "iloc"):
            # columns are matched by name only when every name is a str
            # (scikit-learn's rule: other labels are no names)
            return X[list(X.columns)[::-1]], all(isinstance(c, str) for c in X.columns)
        if hasattr(X, "select") and hasattr(X, "column_names"):
            return X.select(list(X.column_names)[::-1]), True
        if hasattr(X, "select") and hasattr(X, "columns") and not hasattr(X, "iloc"):
            return X.select(list(X.columns)[::-1]), True
        return X, True
    if kind == "dtype":
        if isinstance(X, np.ndarray) and X.dtype == np.float64:
            return X.astype(np.float32), True
        return X, True
    if kind == "numpy":
        if hasattr(X, "to_numpy"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    return X.to_numpy(), True
                except Exception:
                    return X, True
        return X, True
    if kind == "sparse_of_dense":
        # (scipy.sparse holds no float16)
        if isinstance(X, np.ndarray) and X.dtype.kind in "fiub" and X.ndim == 2 and \
                X.dtype != np.float16:
            return sp.csr_matrix(X), True
        return X, True
    if kind == "dense_of_sparse":
        if sp.issparse(X) and not spec.get("broken"):
            return X.toarray(), True
        return X, True
    rng = np.random.RandomState(1)
    if kind == "rows0":
        return base[:0], False
    if kind == "row1":
        return base[0].tolist() if len(base) else [], False
    if kind == "drop":
        return base[:, :-1], False
    if kind == "extra":
        return np.c_[base, base[:, :1]], False
    if kind == "rename":
        if hasattr(X, "rename") and hasattr(X, "iloc"):
            return X.rename(columns={c: f"renamed{i}" for i, c in enumerate(X.columns)}), False
        return base, False
    if kind == "unseen":
        if hasattr(X, "iloc") and X.ndim == 2:
            import pandas as pd
            Z = X.copy()
            for j in range(Z.shape[1]):
                if not pd.api.types.is_numeric_dtype(Z.iloc[:, j]):
                    Z.isetitem(j, pd.Series(["never seen"] * len(Z), index=Z.index,
                                            dtype=object))
            return Z, False
        return base + 100, False
    if kind == "nan":
        Z = base.copy()
        Z[rng.rand(*Z.shape) < 0.5] = np.nan
        return Z, False
    if kind == "inf":
        Z = base.copy()
        if Z.size:
            Z.flat[0] = np.inf
        return Z, False
    return X, True


def run_inputs(case):
    spec = case["data"]
    X, y, w, info = make_data(spec)
    names = list(case["params"]) + FIT_WORDS + [str(c) for c in info["names"]]
    model, params = new_estimator(case, names)
    call("fit", names, model.fit, X, y, sample_weight=w)
    if spec.get("y") == "tenk":      # probabilities of every class for 100 rows only
        check_model(model, X[:100], None, names=names, train=False)
        return {"nodes": int(model.tree_.node_count)}
    pred, proba = check_model(model, X, y, names=names, criterion=params.get("criterion"))
    X2, equal = _predict_variant(case.get("predict", "same"), X, info, spec)
    if X2 is X:
        return {"nodes": int(model.tree_.node_count)}
    pred_names = ["X", "feature", "column", "categor", "missing", "NaN", "infinit", "sample",
                  "sparse", "dtype", "input", "unknown", "unseen"] + \
        [str(c) for c in info["names"]]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred2, _ = check_model(model, X2, None, names=pred_names, roundtrip=False,
                                   train=False)
    except Finish as stop:
        if stop.result["outcome"] == CLEAR:
            stop.result["stage"] = "predict:" + case.get("predict", "")
        raise
    if equal and not _same(pred2, pred):
        wrong(f"predict:{case['predict']} input differs",
              "the same rows, given another way, predict differently")
    return {"nodes": int(model.tree_.node_count)}


# ===================================================================== area: scale
def gen_scale_case(r):
    what = r.choice(["X", "y", "w", "w", "w"])
    est = r.choice(["clf", "reg"]) if what != "y" else "reg"
    if what == "X":
        est = r.choice(["clf", "reg"])
    d = r.choice([1, 2, 3, 4])
    params = {"random_state": r.randrange(100)}
    if is_clf(est):
        params["criterion"] = r.choice(CLF_CRITERIA + ["entropy", "log_loss"])
        if what != "w" and r.random() < 0.2:
            params["algorithm"] = r.choice(["id3", "c4.5"])
    else:
        params["criterion"] = r.choice(REG_CRITERIA[:4])
    splitter = r.choice(["best", "best", "random", "hist"])
    if params.get("algorithm") in ("id3", "c4.5") or (
            splitter == "hist" and params["criterion"] in ("absolute_error", "quantile")):
        splitter = "best"
    params["splitter"] = splitter
    for name, values in [("max_depth", [None, 2, 4]), ("min_samples_leaf", [1, 3]),
                         ("max_features", [None, 1, 0.5]), ("max_leaf_nodes", [None, 5, 12]),
                         ("min_weight_fraction_leaf", [0.0, 0.05]),
                         ("handle_missing", ["split", "surrogate"])]:
        if r.random() < 0.25:
            params[name] = r.choice(values)
    if what != "y" and r.random() < 0.2:
        params["ccp_alpha"] = r.choice([0.001, 0.01])
    if what == "w" and r.random() < 0.2:
        params["min_impurity_decrease"] = 0.005
    if what == "w" and is_clf(est) and r.random() < 0.2:
        params["class_weight"] = "balanced"
    if what == "w" and r.random() < 0.15 and params.get("algorithm") is None:
        params["value_tolerance"] = 0.05
    if r.random() < 0.15 and params.get("algorithm") != "c4.5":
        params["monotonic_cst"] = [r.choice([-1, 0, 1]) for _ in range(d)]
        if is_clf(est):
            params["monotonic_cst"] = None
    if params.get("algorithm") in ("id3", "c4.5"):
        for p in ("max_features", "max_leaf_nodes", "monotonic_cst", "value_tolerance",
                  "handle_missing"):
            params.pop(p, None)
    if params.get("handle_missing") == "surrogate" and params["splitter"] != "best":
        params.pop("handle_missing")
    k = r.choice(list(range(-60, 61)) + [-1000, -700, -300, 300, 700, 990, 1000])
    if what == "X":
        k = r.choice(list(range(-90, 91)))
    w = r.choice(["rand", "rand", "int", "ones"]) if what == "w" else \
        r.choice([None, None, "int", "rand"])
    data = {"seed": r.randrange(2**31), "n": r.choice([20, 40, 80, 150]), "d": d,
            "ties": r.choice([0, 0, 4, 8]), "nan": r.choice([0, 0, 0, 0.1]),
            "y": r.choice(["int", "str"]) if is_clf(est) else
            ("nonneg" if params["criterion"] == "poisson" else r.choice(["dyadic", "real"])),
            "k": r.choice([2, 2, 3, 4]), "w": w}
    return {"area": "scale", "est": est, "what": what, "k": k,
            "params": {p: E(v) for p, v in params.items()}, "data": data}


def run_scale(case):
    spec = case["data"]
    X, y, w, info = make_data(spec)
    X = (0.01 + np.abs(X)).astype(np.float32).astype(np.float64)   # exact in float32
    X[np.isnan(info["base"])] = np.nan
    k, what = case["k"], case["what"]
    names = list(case["params"]) + FIT_WORDS
    base, params = new_estimator(case, names)
    call("fit", names, base.fit, X, y, sample_weight=w)
    scaled, _ = new_estimator(case, names)
    Xs, ys, ws = X, y, w
    if what == "X":
        Xs = np.ldexp(X, k)
    elif what == "y":
        ys = np.ldexp(np.asarray(y, dtype=float), k)
    else:
        ws = np.ldexp(np.ones(len(y)) if w is None else w, k)
        if w is None:
            w = np.ones(len(y))
    call("fit (scaled)", names, scaled.fit, Xs, ys, sample_weight=ws)
    criterion = {"log_loss": "entropy"}.get(params.get("criterion"), params.get("criterion"))
    label = f"scale:{what}:{criterion}"          # the cause: the criterion's sums
    if params.get("algorithm"):
        label += f":{params['algorithm']}"
    if structure(scaled) != structure(base):
        wrong(label, f"{ {'X': 'X', 'y': 'y', 'w': 'sample_weight'}[what]} x 2^{k} changed "
              f"the tree ({params.get('splitter')} splitter): "
              f"{base.tree_.node_count} -> {scaled.tree_.node_count} nodes")
    split = base.tree_.children_left >= 0
    thr, thr_s = base.tree_.threshold[split], scaled.tree_.threshold[split]
    cat = np.asarray(getattr(base.tree_, "categorical_set", np.zeros(len(split), bool)))
    numeric = ~cat[split].astype(bool) if cat.shape == split.shape else np.ones(split.sum(), bool)
    expect = np.ldexp(thr, k) if what == "X" else thr
    if not np.array_equal(thr_s[numeric], expect[numeric]):
        wrong(label + ":threshold", f"thresholds {thr[:4]} vs {thr_s[:4]} (2^{k})")
    p0, p1 = call("predict", FIT_WORDS, base.predict, X), \
        call("predict (scaled)", FIT_WORDS, scaled.predict, Xs)
    if what == "y":
        p0 = np.ldexp(np.asarray(p0, dtype=float), k)
    if not _same(p0, p1):
        wrong(label + ":predict", "predictions differ after exact scaling")
    if hasattr(base, "predict_proba"):
        if not _same(base.predict_proba(X), scaled.predict_proba(Xs)):
            wrong(label + ":proba", "probabilities differ after exact scaling")
    check_model(scaled, Xs, ys, names=FIT_WORDS, roundtrip=False,
                criterion=params.get("criterion"))
    return {"nodes": int(base.tree_.node_count)}


# ===================================================================== area: sklearn
def gen_sklearn_case(r):
    est = r.choice(["clf", "reg"])
    params = {"random_state": r.randrange(1000)}
    if r.random() < 0.5:
        for name, values in [("max_depth", [2, 3, 5]), ("min_samples_leaf", [1, 2, 5]),
                             ("min_samples_split", [2, 4, 10]),
                             ("max_features", [1, 2, "sqrt", 0.5]),
                             ("max_leaf_nodes", [4, 8, 20])]:
            if r.random() < 0.3:
                params[name] = r.choice(values)
    if is_clf(est) and r.random() < 0.25:
        params["criterion"] = r.choice(["entropy", "log_loss"])
    data = {"seed": r.randrange(2**31), "n": r.choice([30, 60, 120, 250]),
            "d": r.choice([2, 3, 5, 8]), "y": "int" if is_clf(est) else "ints",
            "k": r.choice([2, 3, 5]), "w": r.choice([None, None, None, "int"])}
    return {"area": "sklearn", "est": est, "params": {p: E(v) for p, v in params.items()},
            "data": data, "normal": r.random() < 0.3}


def run_sklearn(case):
    from sklearn import tree as sktree
    spec = case["data"]
    X, y, w, info = make_data(spec)
    if case.get("normal"):
        X = np.random.RandomState(spec["seed"] % 2**32).normal(size=X.shape)
    X = X.astype(np.float32)
    if len(np.unique(X, axis=0)) < X.shape[0] or any(
            len(np.unique(X[:, j])) < X.shape[0] for j in range(X.shape[1])):
        return {"skipped": "ties"}
    names = list(case["params"]) + FIT_WORDS
    ours, params = new_estimator(case, names)
    call("fit", names, ours.fit, X, y, sample_weight=w)
    Sk = sktree.DecisionTreeClassifier if is_clf(case["est"]) else sktree.DecisionTreeRegressor
    theirs = Sk(**params).fit(X, y, sample_weight=w)
    a, b = ours.tree_, theirs.tree_
    criterion = params.get("criterion", "gini" if is_clf(case["est"]) else "squared_error")
    label = "sklearn:" + {"log_loss": "entropy"}.get(criterion, criterion) + \
        (":integer weights" if w is not None else "")
    same = a.node_count == b.node_count and np.array_equal(a.feature, b.feature) and \
        np.array_equal(a.threshold[b.children_left >= 0], b.threshold[b.children_left >= 0])
    if not same:
        node = _first_difference(a, b)
        if node is not None and _tied(ours, theirs, node, X, y, w, criterion):
            # two splits whose criterion values are equal in exact arithmetic (e.g.
            # entropy's 7 H(6,1) + 9 H(2,7) = 12 H(8,4)): float rounding picks one
            return {"skipped": f"an exact tie of two splits at node {node}"}
    if a.node_count != b.node_count:
        wrong(label + ":node_count", f"{a.node_count} nodes, scikit-learn {b.node_count}")
    if not np.array_equal(a.feature, b.feature):
        wrong(label + ":feature", "split features differ from scikit-learn's")
    split = b.children_left >= 0
    if not np.array_equal(a.threshold[split], b.threshold[split]):
        wrong(label + ":threshold", "thresholds differ from scikit-learn's")
    check_model(ours, X, y, names=FIT_WORDS, roundtrip=False)
    return {"nodes": int(a.node_count)}


def _first_difference(a, b):
    """The first node (in the shared node order) whose split differs, if the trees
    agree on everything before it."""
    for node in range(min(a.node_count, b.node_count)):
        leaf_a, leaf_b = a.children_left[node] < 0, b.children_left[node] < 0
        if leaf_a != leaf_b or (not leaf_a and (a.feature[node] != b.feature[node] or
                                                a.threshold[node] != b.threshold[node])):
            return node
    return None


def _tied(ours, theirs, node, X, y, w, criterion):
    """Whether both trees' splits of ``node`` leave the same weighted impurity
    (to 1e-9 relative: exact ties differ only by rounding)."""
    rows = np.flatnonzero(np.asarray(ours.decision_path(X)[:, node].todense()).ravel())
    weights = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)

    def impurity(mask):
        yy, ww = np.asarray(y)[rows][mask], weights[rows][mask]
        total = math.fsum(ww)
        if total == 0:
            return 0.0
        if criterion in ("gini", "entropy", "log_loss"):
            p = np.array([math.fsum(ww[yy == c]) for c in np.unique(yy)]) / total
            h = 1 - math.fsum(p ** 2) if criterion == "gini" else \
                -math.fsum(q * math.log(q) for q in p if q > 0)
        else:
            mean = math.fsum(ww * yy) / total
            h = math.fsum(ww * (yy - mean) ** 2) / total
        return total * h

    scores = []
    for tree in (ours.tree_, theirs.tree_):
        if tree.children_left[node] < 0:
            return False
        left = X[rows, tree.feature[node]] <= tree.threshold[node]
        scores.append(impurity(left) + impurity(~left))
    return abs(scores[0] - scores[1]) <= 1e-9 * max(abs(scores[0]), 1e-300)


# ===================================================================== area: model_files
BASE_MODELS = ["clf", "reg_huge", "c45", "multi_clf", "multi_reg", "surrogate", "leaf_targets",
               "categories", "str_labels", "hist", "cv", "extra", "bool_labels"]
_BASE_CACHE = {}


def base_model(kind):
    """(model, X) of a kind, fitted once per process."""
    if kind in _BASE_CACHE:
        return _BASE_CACHE[kind]
    import dtree
    rng = np.random.RandomState(7)
    X = rng.rand(60, 3)
    X[rng.rand(60, 3) < 0.1] = np.nan
    y3 = rng.randint(0, 3, 60)
    C, R = dtree.DecisionTreeClassifier, dtree.DecisionTreeRegressor
    if kind == "clf":
        m = C(max_depth=4, random_state=0).fit(X, y3)
    elif kind == "reg_huge":
        m = R(max_leaf_nodes=6).fit(X, rng.rand(60) * 1e300)
    elif kind == "c45":
        X = np.round(X * 3)
        m = C(algorithm="c4.5").fit(X, rng.randint(0, 2, 60))
    elif kind == "multi_clf":
        m = C(max_depth=3).fit(X, rng.randint(0, 3, (60, 2)))
    elif kind == "multi_reg":
        m = R(max_depth=3).fit(X, rng.rand(60, 2))
    elif kind == "surrogate":
        m = C(max_depth=3, keep_competitors=2, handle_missing="surrogate").fit(X, y3)
    elif kind == "leaf_targets":
        m = R(max_depth=3, keep_leaf_targets=True).fit(X, rng.rand(60))
    elif kind == "categories":
        import pandas as pd
        X = pd.DataFrame({"num": X[:, 0], "color": np.array(["red", "blue", "green"])[y3],
                          "size": pd.Categorical(np.array(["s", "m", "l"])[rng.randint(0, 3, 60)])})
        m = C(max_depth=4).fit(X, (y3 + rng.randint(0, 2, 60)) % 3)
    elif kind == "str_labels":
        m = C(max_depth=3).fit(X, np.array(["yes", "no", "maybe"])[y3])
    elif kind == "hist":
        m = C(splitter="hist", max_leaf_nodes=8).fit(X, y3)
    elif kind == "cv":
        m = R(ccp_alpha="cv", cv=3, random_state=0).fit(X, rng.rand(60))
    elif kind == "extra":
        m = dtree.ExtraTreeRegressor(random_state=0).fit(X, rng.rand(60))
    else:
        m = C(max_depth=3).fit(X, y3 == 1)
    _BASE_CACHE[kind] = (m, X)
    return m, X


MEMBER_OPS = ["drop", "dup", "rename", "extra", "swap", "empty", "garbage"]
ARRAY_OPS = ["0d", "2d", "shorter", "longer", "object", "fortran", "byteswap", "astype",
             "reverse", "fill", "shuffle"]
NPY_HEADER_OPS = ["bigshape", "boolshape", "negshape", "descr_object", "version", "hlen",
                  "garbage_header", "nested_shape"]
HEADER_RAW = ["not_json", "list", "null", "bigexp", "deep", "bigstr", "bad_utf8", "bom",
              "dupkeys", "nan_literal", "number", "empty"]
ZIP_OPS = ["deflate", "bzip2", "lzma", "bomb", "many", "comment", "traversal", "nested_zip",
           "encrypted_flag"]
RAW_OPS = ["flip", "byte", "truncate", "insert", "number", "garbage", "empty"]
VALUES_F = [NAN, INF, -INF, 1e308, -1e308, -1.0, 0.0, 1e-320, 2.0**63, -0.0, 0.5, 3.0, 1e10]
VALUES_I = [-1, -2, -3, 0, 1, 2, 3, 5, 7, 60, 10**6, 2**31, 2**62, -2**63, 2**63 - 1]
JSON_VALUES = [None, -1, 0, 1, 2**63, 2**1100, 1e308, NAN, INF, -INF, "", "x", [], {}, True,
               False, [[[[]]]], "DecisionTreeRegressor", "os.system", 99, 3, -0.0, [None],
               ["a", "a"], [1, 2, 3, 4, 5, 6, 7, 8], {"kind": "int", "values": []},
               {"kind": "str", "values": [NAN]}, {"kind": "float", "values": [NAN, 1.0]},
               "builtins.eval", 0.1, [NAN, NAN, NAN]]


def gen_model_files_case(r):
    mutations = []
    for _ in range(r.choice([1, 1, 1, 2, 3])):
        family = r.choices(["value", "array", "npy_header", "member", "header", "header_raw",
                            "zip", "raw"], [30, 10, 6, 8, 25, 5, 5, 11])[0]
        op = {"family": family, "pick": r.random(), "pick2": r.random(),
              "fvalue": E(r.choice(VALUES_F)), "ivalue": r.choice(VALUES_I)}
        if family == "array":
            op["kind"] = r.choice(ARRAY_OPS)
        elif family == "npy_header":
            op["kind"] = r.choice(NPY_HEADER_OPS)
        elif family == "member":
            op["kind"] = r.choice(MEMBER_OPS)
        elif family == "header":
            op["path"] = [r.random() for _ in range(r.choice([1, 1, 2, 3]))]
            op["action"] = r.choice(["set", "set", "set", "del", "append", "dup"])
            op["value"] = E(r.choice(JSON_VALUES))
        elif family == "header_raw":
            op["kind"] = r.choice(HEADER_RAW)
        elif family == "zip":
            op["kind"] = r.choice(ZIP_OPS)
        elif family == "raw":
            op["kind"] = r.choice(RAW_OPS)
            op["bit"] = r.randrange(8)
            op["byte"] = r.randrange(256)
            op["insert"] = bytes(r.randrange(256) for _ in range(r.randint(1, 8))).hex()
        if family == "value" and r.random() < 0.3:
            op["count"] = r.choice([2, 5, 1000])
        mutations.append(op)
    order = {"value": 0, "array": 0, "npy_header": 0, "member": 1, "header": 1,
             "header_raw": 1, "zip": 2, "raw": 3}
    mutations.sort(key=lambda m: order[m["family"]])
    return {"area": "model_files", "base": r.choice(BASE_MODELS), "mutations": mutations,
            "via": r.choice(["bytesio", "bytesio", "path", "from_dict"]),
            "max_bytes": r.choice([None, None, 1 << 24])}


def _npy_bytes(a, allow_pickle=False):
    out = io.BytesIO()
    np.save(out, a, allow_pickle=allow_pickle)
    return out.getvalue()


def _members(model):
    buffer = io.BytesIO()
    model.save(buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def _pack(members, compression=zipfile.ZIP_STORED, comment=b""):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compression) as z:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # duplicate names
            for name, raw in members:
                z.writestr(name, raw)
        z.comment = comment
    return out.getvalue()


def _pick(seq, f):
    return seq[min(int(f * len(seq)), len(seq) - 1)] if seq else None


def _numeric_members(members):
    return [i for i, (name, _) in enumerate(members) if name != "header.npy"
            and name.endswith(".npy")]


def _load_npy(raw):
    return np.load(io.BytesIO(raw), allow_pickle=False)


def _mutate_value(members, op):
    idx = _pick(_numeric_members(members), op["pick"])
    if idx is None:
        return
    name, raw = members[idx]
    try:
        a = _load_npy(raw).copy()
    except Exception:
        return
    if a.size == 0:
        return
    flat = a.reshape(-1)
    for c in range(op.get("count", 1)):
        pos = int((op["pick2"] * a.size + c * 7919) % a.size)
        if a.dtype.kind == "f":
            flat[pos] = D(op["fvalue"])
        elif a.dtype.kind in "iu":
            v = op["ivalue"]
            info = np.iinfo(a.dtype)
            flat[pos] = min(max(v, info.min), info.max)
        elif a.dtype.kind == "b":
            flat[pos] = not flat[pos]
    members[idx] = (name, _npy_bytes(a))


def _mutate_array(members, op):
    idx = _pick([i for i, (n, _) in enumerate(members) if n.endswith(".npy")], op["pick"])
    if idx is None:
        return
    name, raw = members[idx]
    try:
        a = _load_npy(raw)
    except Exception:
        return
    kind = op["kind"]
    rng = np.random.RandomState(int(op["pick2"] * 1000))
    pickle = False
    if kind == "0d":
        a = np.asarray(a.reshape(-1)[0] if a.size else 0)
    elif kind == "2d":
        a = a.reshape(1, -1) if a.ndim == 1 else a.reshape(-1)
    elif kind == "shorter":
        a = a[:-1]
    elif kind == "longer":
        a = np.concatenate([a, a[-1:]]) if a.size else a
    elif kind == "object":
        a = a.astype(object)
        pickle = True
    elif kind == "fortran" and a.ndim > 1:
        a = np.asfortranarray(a.T)
    elif kind == "byteswap":
        a = a.byteswap().view(a.dtype.newbyteorder())
    elif kind == "astype":
        target = _pick(["float32", "int32", "uint8", "bool", "complex128", "U3", "float16",
                        "int64", "float64"], op["pick2"])
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                a = a.astype(target)
            except (TypeError, ValueError):
                pass
    elif kind == "reverse":
        a = a[::-1].copy()
    elif kind == "fill":
        a = np.full_like(a, a.reshape(-1)[0] if a.size else 0)
    elif kind == "shuffle" and a.ndim:
        a = a[rng.permutation(len(a))]
    members[idx] = (name, _npy_bytes(a, allow_pickle=pickle))


def _mutate_npy_header(members, op):
    idx = _pick([i for i, (n, _) in enumerate(members) if n.endswith(".npy")], op["pick"])
    if idx is None:
        return
    name, raw = members[idx]
    raw = bytearray(raw)
    if len(raw) < 12:
        return
    hlen = int.from_bytes(raw[8:10], "little")
    header = raw[10:10 + hlen].decode("latin-1")
    kind = op["kind"]
    if kind == "bigshape":
        header = re.sub(r"'shape': \([^)]*\)", "'shape': (1000000000000,)", header)
    elif kind == "boolshape":
        header = re.sub(r"'shape': \([^)]*\)", "'shape': (True,)", header)
    elif kind == "negshape":
        header = re.sub(r"'shape': \([^)]*\)", "'shape': (-5,)", header)
    elif kind == "nested_shape":
        header = re.sub(r"'shape': \([^)]*\)", "'shape': ((3,),)", header)
    elif kind == "descr_object":
        header = re.sub(r"'descr': '[^']*'", "'descr': '|O'", header)
    elif kind == "version":
        raw[6] = 9
    elif kind == "hlen":
        raw[8:10] = (65535).to_bytes(2, "little")
        members[idx] = (name, bytes(raw))
        return
    elif kind == "garbage_header":
        header = "{'descr': <f8, 'shape': (3,), }" + " " * max(0, hlen - 32)
    body = header.encode("latin-1")
    body = body[:hlen].ljust(hlen, b" ")
    if not body.endswith(b"\n"):
        body = body[:-1] + b"\n"
    raw[10:10 + hlen] = body
    members[idx] = (name, bytes(raw))


def _mutate_member(members, op):
    kind = op["kind"]
    i = _pick(list(range(len(members))), op["pick"])
    if i is None:
        return
    if kind == "drop":
        del members[i]
    elif kind == "dup":
        members.append(members[i])
    elif kind == "rename":
        members[i] = ("renamed.npy", members[i][1])
    elif kind == "extra":
        members.append(("extra.npy", _npy_bytes(np.arange(3))))
    elif kind == "swap":
        j = _pick(list(range(len(members))), op["pick2"])
        members[i], members[j] = (members[i][0], members[j][1]), (members[j][0], members[i][1])
    elif kind == "empty":
        members[i] = (members[i][0], b"")
    elif kind == "garbage":
        rng = np.random.RandomState(int(op["pick2"] * 1000))
        members[i] = (members[i][0], rng.bytes(int(op["pick2"] * 300) + 1))


def _header_index(members):
    for i, (name, _) in enumerate(members):
        if name == "header.npy":
            return i
    return None


def _read_header(members):
    i = _header_index(members)
    if i is None:
        return None, None
    try:
        return i, json.loads(_load_npy(members[i][1]).tobytes())
    except Exception:
        return i, None


def _write_header(members, i, header_bytes):
    members[i] = ("header.npy", _npy_bytes(np.frombuffer(header_bytes, np.uint8)))


def edit_json(header, op):
    """Applies a header op to a JSON-like object in place (returns the new root)."""
    node, parent, key = header, None, None
    for f in op["path"]:
        if isinstance(node, dict) and node:
            parent, key = node, _pick(sorted(node), f)
            node = node[key]
        elif isinstance(node, list) and node:
            parent, key = node, _pick(list(range(len(node))), f)
            node = node[key]
        else:
            break
    value = D(op["value"])
    if isinstance(value, tuple):
        value = list(value)
    action = op["action"]
    if parent is None:
        return value if action == "set" else header
    if action == "set":
        parent[key] = value
    elif action == "del":
        del parent[key]
    elif action == "append" and isinstance(node, list):
        node.append(value)
    elif action == "dup" and isinstance(node, list) and node:
        node.append(node[0])
    else:
        parent[key] = value
    return header


def _mutate_header(members, op):
    i, header = _read_header(members)
    if header is None:
        return
    header = edit_json(header, op)
    _write_header(members, i, json.dumps(header).encode())


def _mutate_header_raw(members, op):
    i, header = _read_header(members)
    if i is None:
        return
    text = json.dumps(header) if header is not None else "{}"
    kind = op["kind"]
    raw = {"not_json": b"{not json", "list": b"[1, 2, 3]", "null": b"null",
           "bigexp": text.replace("0.25", "1e99999").encode(),
           "deep": b"[" * 50000 + b"]" * 50000, "bigstr": ('{"a": "' + "x" * 2_000_000 + '"}').encode(),
           "bad_utf8": text.encode()[:20] + b"\xff\xfe" + text.encode()[20:],
           "bom": b"\xef\xbb\xbf" + text.encode(),
           "dupkeys": text[:-1].encode() + b', "format_version": 1}',
           "nan_literal": text.replace('"weight_unit": 1.0', '"weight_unit": NaN').encode(),
           "number": b"1", "empty": b""}[kind]
    _write_header(members, i, raw)


def _mutate_zip(members, op):
    """Returns (members, packed bytes) with the zip-level change."""
    kind = op["kind"]
    if kind in ("deflate", "bzip2", "lzma"):
        comp = {"deflate": zipfile.ZIP_DEFLATED, "bzip2": zipfile.ZIP_BZIP2,
                "lzma": zipfile.ZIP_LZMA}[kind]
        return _pack(members, comp)
    if kind == "bomb":
        members = members + [("padding.npy", b"\x00" * (64 << 20))]
        return _pack(members, zipfile.ZIP_DEFLATED)
    if kind == "many":
        return _pack(members + [(f"m{j}.npy", b"") for j in range(5000)])
    if kind == "comment":
        return _pack(members, comment=b"c" * 65535)
    if kind == "traversal":
        return _pack(members + [("../../evil.npy", _npy_bytes(np.arange(2)))])
    if kind == "nested_zip":
        inner = _pack(members)
        return _pack([("header.npy", inner)] + members[1:])
    if kind == "encrypted_flag":
        raw = bytearray(_pack(members))
        pos = raw.find(b"PK\x03\x04")
        if pos >= 0:
            raw[pos + 6] |= 1
        return bytes(raw)
    return _pack(members)


def _mutate_raw(raw, op):
    raw = bytearray(raw)
    kind = op["kind"]
    if not raw:
        return bytes(raw)
    pos = min(int(op["pick"] * len(raw)), len(raw) - 1)
    if kind == "flip":
        raw[pos] ^= 1 << op["bit"]
    elif kind == "byte":
        raw[pos] = op["byte"]
    elif kind == "truncate":
        del raw[max(pos, 1):]
    elif kind == "insert":
        raw[pos:pos] = bytes.fromhex(op["insert"])
    elif kind == "number":
        raw[pos:pos + 8] = np.float64(D(op["fvalue"])).tobytes()
    elif kind == "garbage":
        raw = bytearray(np.random.RandomState(pos).bytes(len(raw)))
    elif kind == "empty":
        raw = bytearray()
    return bytes(raw)


def mutated_file(case):
    """The bytes of the case's mutated model file, and its base model and X."""
    model, X = base_model(case["base"])
    members = _members(model)
    raw = None
    for op in case["mutations"]:
        family = op["family"]
        if raw is not None and family != "raw":
            continue
        if family == "value":
            _mutate_value(members, op)
        elif family == "array":
            _mutate_array(members, op)
        elif family == "npy_header":
            _mutate_npy_header(members, op)
        elif family == "member":
            _mutate_member(members, op)
        elif family == "header":
            _mutate_header(members, op)
        elif family == "header_raw":
            _mutate_header_raw(members, op)
        elif family == "zip":
            raw = _mutate_zip(members, op)
        elif family == "raw":
            raw = _mutate_raw(raw if raw is not None else _pack(members), op)
    return (raw if raw is not None else _pack(members)), model, X


def _x_for(model, X, base_model_):
    """Rows the loaded model can be asked about: the base rows, resized to the number
    of features the loaded model says it has."""
    n_in = getattr(model, "n_features_in_", None)
    if hasattr(X, "columns"):
        return X
    if isinstance(n_in, (int, np.integer)) and 0 < n_in <= 1000 and n_in != X.shape[1]:
        Z = np.zeros((X.shape[0], int(n_in)))
        m = min(n_in, X.shape[1])
        Z[:, :m] = np.nan_to_num(X[:, :m])
        return Z
    return X


def check_loaded(model, X, names):
    """A model that loaded must be sane: the model-file oracles."""
    import dtree
    X = _x_for(model, X, None)
    pred, proba = check_model(model, X, None, names=names, roundtrip=False, train=False)
    tree = model.tree_
    leaves = call("apply", names, model.apply, X)
    leaves = np.asarray(leaves)
    if leaves.size and ((leaves < 0).any() or (leaves >= tree.node_count).any()
                        or (tree.children_left[leaves] != -1).any()):
        wrong("load:apply", "apply returned a node that is not a leaf")
    call("decision_path", names, model.decision_path, X)
    call("get_depth", [], model.get_depth, types=())
    from dtree.export import export_text
    call("export_text", [], export_text, model, types=())
    buffer = io.BytesIO()
    call("save (loaded)", [], model.save, buffer, types=())
    buffer.seek(0)
    again = call("load (saved again)", [], dtree.load, buffer, types=())
    if not _same(call("predict (again)", names, again.predict, X), pred):
        wrong("load:resave", "a loaded, saved and loaded again model predicts differently")


def run_model_files(case):
    import dtree
    raw, model, X = mutated_file(case)
    via = case.get("via", "bytesio")
    kwargs = {"max_bytes": case["max_bytes"]} if case.get("max_bytes") else {}
    from_dict_ops = [op for op in case["mutations"] if op["family"] == "header"]
    if via == "from_dict":
        data = json.loads(json.dumps(model.to_dict(), default=str))
        for op in from_dict_ops:
            data = edit_json(data, op)
        for op in case["mutations"]:
            if op["family"] == "value":
                _edit_dict_value(data, op)
        loaded = call("from_dict", [], dtree.from_dict, data, types=(_model_file_error(),))
    elif via == "path":
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.dtree")
            with open(path, "wb") as fh:
                fh.write(raw)
            loaded = call("load", [], dtree.load, path, types=(_model_file_error(),), **kwargs)
    else:
        loaded = call("load", [], dtree.load, io.BytesIO(raw), types=(_model_file_error(),),
                      **kwargs)
    names = ["X", "feature", "column", "missing", "NaN"]
    try:
        check_loaded(loaded, X, names)
    except Finish as stop:
        # a loaded model whose readers refuse the rows it was made for was not sane
        if stop.result["outcome"] == CLEAR:
            stop.result["outcome"] = UNNAMED
            stop.result["check"] = "loaded model refuses its own rows"
        raise
    return {"nodes": int(loaded.tree_.node_count)}


def _edit_dict_value(data, op):
    """A value edit on a to_dict() dict: a number inside one of its lists."""
    lists = []

    def walk(node, path):
        if isinstance(node, dict):
            for k in sorted(node):
                walk(node[k], path + [k])
        elif isinstance(node, list) and node and all(isinstance(v, (int, float))
                                                     and not isinstance(v, bool) for v in node):
            lists.append(node)
        elif isinstance(node, list):
            for v in node:
                walk(v, path)
    walk(data, [])
    target = _pick(lists, op["pick"])
    if target:
        pos = int(op["pick2"] * len(target)) % len(target)
        target[pos] = D(op["fvalue"]) if isinstance(target[pos], float) else op["ivalue"]


# ===================================================================== area: cli
DATA_KINDS = ["good", "good", "good", "good_reg", "gz", "gz_corrupt", "gz_plain", "empty",
              "header_only", "binary", "nul", "latin1", "bom", "ragged", "quoted_newline",
              "dup_cols", "blank_names", "semicolon", "no_target", "target_nan", "one_class",
              "huge_numbers", "inf_text", "long_line", "many_cols", "unicode_names", "dir",
              "fifo", "dev_null", "dev_zero", "dev_urandom", "missing", "symlink_loop",
              "model_as_csv", "crlf", "only_target", "all_text", "gz_empty"]
MODEL_KINDS = ["good", "good", "good", "reg", "multi", "flipped", "truncated", "empty", "csv",
               "dir", "fifo", "dev_null", "dev_zero", "missing", "text", "categories"]
OUT_KINDS = ["file", "file", "file", "stdout", "dir", "missing_dir", "dev_full", "dev_null",
             "same_as_data"]


def gen_cli_case(r):
    cmd = r.choice(["fit", "fit", "predict", "predict", "show", "eval"])
    opts = {}
    target = r.choice(["t"] * 8 + ["", "nosuch", "a", "é", "--target"])
    if cmd == "fit":
        choices = {
            "--task": ["auto", "classification", "regression", "bogus"],
            "--criterion": CLF_CRITERIA + REG_CRITERIA + ["bogus", ""],
            "--max-depth": ["1", "3", "0", "-1", str(2**63), "abc", "1e3", "nan", "2.5"],
            "--min-samples-leaf": ["1", "5", "0", "-2", "0.5", "1e400", "x"],
            "--min-samples-split": ["2", "10", "1", "0.5", "inf"],
            "--ccp-alpha": ["0", "0.01", "cv", "nan", "-1", "inf", "abc", "1e400"],
            "--categorical": ["none", "auto", "all"],
            "--algorithm": ["cart", "id3", "c4.5", "c5"],
            "--random-state": ["0", "-1", str(2**32), str(2**80), "abc"],
        }
        for opt in r.sample(sorted(choices), r.choice([0, 0, 1, 1, 2, 3])):
            opts[opt] = r.choice(choices[opt])
    elif cmd == "show":
        if r.random() < 0.6:
            opts["--format"] = r.choice(["text", "dot", "rules", "compact", "sql", "json"])
        if r.random() < 0.4:
            opts["--table"] = r.choice(["t", "", "a; drop table x", "é", "\"q\"", "x" * 300])
        if r.random() < 0.3:
            opts["--dialect"] = r.choice(["sqlite", "duckdb", "postgres", "ansi", "mysql"])
    if r.random() < 0.05:
        opts["--bogus"] = "1"
    return {"area": "cli", "cmd": cmd, "data": r.choice(DATA_KINDS),
            "model": r.choice(MODEL_KINDS), "out": r.choice(OUT_KINDS), "opts": opts,
            "target": target, "seed": r.randrange(2**31),
            "subprocess": r.random() < 0.2, "timeout": 40}


def _good_frame(seed, regression=False, rows=40):
    import pandas as pd
    rng = np.random.RandomState(seed % 2**32)
    X = rng.rand(rows, 3)
    frame = pd.DataFrame({"a": X[:, 0], "b": np.round(X[:, 1] * 10),
                          "c": np.array(["x", "y", "z"])[rng.randint(0, 3, rows)]})
    frame["t"] = (X[:, 0] * 100 + rng.rand(rows)) if regression else \
        np.where(X[:, 0] > 0.5, "yes", "no")
    return frame


def _write_data(kind, path, seed, tmp):
    """Writes (or makes) the data file of a kind at path; returns the path to pass."""
    frame = _good_frame(seed, regression=kind == "good_reg")
    text = frame.to_csv(index=False)
    if kind in ("good", "good_reg"):
        open(path, "w").write(text)
    elif kind == "gz":
        path += ".gz"
        import gzip
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    elif kind == "gz_corrupt":
        path += ".gz"
        import gzip
        raw = gzip.compress(text.encode())
        open(path, "wb").write(raw[: len(raw) // 2] + b"\x00garbage")
    elif kind == "gz_empty":
        path += ".gz"
        open(path, "wb").write(b"")
    elif kind == "gz_plain":
        path += ".gz"
        open(path, "w").write(text)
    elif kind == "empty":
        open(path, "w").close()
    elif kind == "header_only":
        open(path, "w").write("a,b,c,t\n")
    elif kind == "binary":
        open(path, "wb").write(np.random.RandomState(seed % 2**32).bytes(3000))
    elif kind == "nul":
        open(path, "wb").write(text.encode().replace(b"yes", b"y\x00s"))
    elif kind == "latin1":
        open(path, "wb").write(text.replace("x", "é").encode("latin-1"))
    elif kind == "bom":
        open(path, "wb").write(b"\xef\xbb\xbf" + text.encode())
    elif kind == "ragged":
        lines = text.splitlines()
        lines[3] += ",extra,cells"
        lines[5] = lines[5].split(",")[0]
        open(path, "w").write("\n".join(lines) + "\n")
    elif kind == "quoted_newline":
        open(path, "w").write(text.replace("x,", '"x\nx",', 3))
    elif kind == "dup_cols":
        open(path, "w").write(text.replace("a,b,c,t", "a,a,c,t", 1))
    elif kind == "blank_names":
        open(path, "w").write(text.replace("a,b,c,t", ",,c,t", 1))
    elif kind == "semicolon":
        open(path, "w").write(text.replace(",", ";"))
    elif kind == "no_target":
        open(path, "w").write(frame.drop(columns="t").to_csv(index=False))
    elif kind == "target_nan":
        open(path, "w").write(frame.assign(t=np.nan).to_csv(index=False))
    elif kind == "one_class":
        open(path, "w").write(frame.assign(t="yes").to_csv(index=False))
    elif kind == "huge_numbers":
        open(path, "w").write(frame.assign(a="1e400", b="-1e400").to_csv(index=False))
    elif kind == "inf_text":
        open(path, "w").write(frame.assign(a="inf", b="nan").to_csv(index=False))
    elif kind == "long_line":
        open(path, "w").write(frame.assign(c="x" * 100000).to_csv(index=False))
    elif kind == "many_cols":
        import pandas as pd
        wide = pd.DataFrame(np.random.RandomState(1).rand(40, 2000),
                            columns=[f"f{j}" for j in range(2000)])
        wide["t"] = frame["t"]
        open(path, "w").write(wide.to_csv(index=False))
    elif kind == "unicode_names":
        open(path, "w").write(text.replace("a,b,c,t", "é,日本,\"x,y\",t", 1))
    elif kind == "crlf":
        open(path, "w", newline="").write(text.replace("\n", "\r\n"))
    elif kind == "only_target":
        open(path, "w").write(frame[["t"]].to_csv(index=False))
    elif kind == "all_text":
        open(path, "w").write(frame.astype(str).assign(a="v").to_csv(index=False))
    elif kind in SPECIAL:
        return _special(kind, path, tmp)
    elif kind == "model_as_csv":
        _model_for("good", seed).save(path)
    return path


def _model_for(kind, seed):
    import dtree
    frame = _good_frame(seed, regression=kind == "reg")
    X, y = frame.drop(columns="t"), frame["t"]
    if kind == "multi":
        return dtree.DecisionTreeRegressor(max_depth=3).fit(
            X[["a", "b"]], np.c_[frame["a"], frame["b"]])
    if kind == "reg":
        return dtree.DecisionTreeRegressor(max_depth=4).fit(X, y)
    return dtree.DecisionTreeClassifier(max_depth=4).fit(X, y)


def _write_model(kind, path, seed, tmp, data_path):
    if kind in ("good", "reg", "multi", "categories", "flipped", "truncated"):
        model = _model_for(kind, seed)
        model.save(path)
        if kind in ("flipped", "truncated"):
            raw = bytearray(open(path, "rb").read())
            rng = np.random.RandomState(seed % 2**32)
            if kind == "flipped":
                for _ in range(3):
                    raw[rng.randint(len(raw))] ^= 1 << rng.randint(8)
            else:
                raw = raw[: rng.randint(1, len(raw))]
            open(path, "wb").write(bytes(raw))
        return path
    if kind == "empty":
        open(path, "wb").close()
    elif kind == "csv":
        return data_path
    elif kind == "text":
        open(path, "w").write("this is not a model\n")
    elif kind in SPECIAL:
        return _special(kind, path, tmp)
    return path


SPECIAL = ("dir", "fifo", "dev_null", "dev_zero", "dev_urandom", "missing", "symlink_loop")


def _special(kind, path, tmp):
    """A path of a special kind where a data or model file is expected."""
    if kind == "dir":
        os.mkdir(path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink_loop":
        os.symlink(path, path)
    elif kind == "missing":
        return os.path.join(tmp, "no", os.path.basename(path))
    elif kind.startswith("dev_"):
        return "/dev/" + kind[4:]
    return path


def _cli_argv(case, tmp):
    seed = case["seed"]
    data = _write_data(case["data"], os.path.join(tmp, "data.csv"), seed, tmp)
    model_path = os.path.join(tmp, "model.dtree")
    out_kind = case["out"]
    out = {"file": os.path.join(tmp, "out.txt"), "stdout": None, "dir": tmp,
           "missing_dir": os.path.join(tmp, "no", "out.txt"), "dev_full": "/dev/full",
           "dev_null": "/dev/null", "same_as_data": data}[out_kind]
    cmd = case["cmd"]
    argv = [cmd]
    if cmd == "fit":
        argv += [data, "--target", case["target"]]
        argv += ["-o", out if out is not None else os.path.join(tmp, "fitted.dtree")]
    else:
        model = _write_model(case["model"], model_path, seed, tmp, data)
        if cmd == "predict":
            argv += [model, data] + (["-o", out] if out is not None else [])
        elif cmd == "show":
            argv += [model]
        else:
            argv += [model, data, "--target", case["target"]]
    for opt, value in case["opts"].items():
        argv += [opt, value]
    paths = [p for p in (data, model_path, out) if p]
    return argv, paths


def _run_cli_inprocess(argv):
    from dtree.__main__ import main
    out_buf, err_buf = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_buf, encoding="utf-8", errors="replace", write_through=True)
    err = io.TextIOWrapper(err_buf, encoding="utf-8", errors="replace", write_through=True)
    old = sys.stdout, sys.stderr, sys.stdin
    sys.stdout, sys.stderr, sys.stdin = out, err, io.StringIO("")
    try:
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        except BaseException:
            if RAISE:
                raise
            trace = traceback.format_exc()
            rc = "exception"
            err.write(trace)
    finally:
        sys.stdout, sys.stderr, sys.stdin = old
    return rc, out_buf.getvalue().decode("utf-8", "replace"), \
        err_buf.getvalue().decode("utf-8", "replace")


def _run_cli_subprocess(argv, tmp, timeout):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("DTREE_DEBUG", None)
    try:
        proc = subprocess.run([sys.executable, "-m", "dtree", *argv], capture_output=True,
                              timeout=timeout, cwd=tmp, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Finish(HANG, stage="python -m dtree " + argv[0],
                     message=f"no exit within {timeout} s") from None
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), \
        proc.stderr.decode("utf-8", "replace")


CLI_WORDS = ["file", "column", "model", "CSV", "target", "argument", "option", "directory",
             "regular", "empty", "encod", "header", "row", "feature", "output", "categor",
             "class", "criterion", "--", "format", "table", "dialect", "task", "algorithm",
             "missing", "value", "gzip"]


def run_cli(case):
    tmp = tempfile.mkdtemp(prefix="dtree-fuzz-cli-")
    try:
        argv, paths = _cli_argv(case, tmp)
        if case.get("subprocess"):
            rc, out, err = _run_cli_subprocess(argv, tmp, case.get("timeout", 40) - 10)
        else:
            rc, out, err = _run_cli_inprocess(argv)
        stage = "python -m dtree " + case["cmd"]
        if isinstance(rc, int) and rc < 0:
            raise Finish(CRASH, stage=stage, exc_type=f"signal {-rc}", message=err[-500:])
        lines = [line for line in err.splitlines() if line.strip()]
        last = lines[-1] if lines else ""
        if rc == 0:
            _check_cli_output(case, argv, out, tmp)
            return {"rc": 0}
        names = paths + [os.path.basename(p) for p in paths] + list(case["opts"]) + \
            [o.lstrip("-").replace("-", "_") for o in case["opts"]] + CLI_WORDS
        if case["target"]:
            names.append(case["target"])
        if rc == 2 and "Traceback" not in err:
            m = re.match(r"error: ([A-Za-z_]*(Error|Exception|Warning|Exit)): ", last)
            if "usage:" in err and "error:" in last:
                raise Finish(CLEAR, stage=stage, exc_type="argparse", message=last)
            if m:
                raise Finish(MEMORY if m.group(1) == "MemoryError" else UNNAMED, stage=stage,
                             exc_type=m.group(1), message=last)
            if is_clear(last.replace("error:", "", 1), names):
                raise Finish(CLEAR, stage=stage, exc_type="exit 2", message=last)
            raise Finish(UNNAMED, stage=stage, exc_type="exit 2", message=last)
        kind = re.findall(r"^(\w+(?:Error|Exception)):", err, re.M)
        raise Finish(UNNAMED, stage=stage, exc_type=kind[-1] if kind else f"exit {rc}",
                     message=last, trace=err[-2000:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _check_cli_output(case, argv, out, tmp):
    import dtree
    cmd = case["cmd"]
    if cmd == "fit":
        target = argv[argv.index("-o") + 1]
        if target.startswith("/dev/"):
            return
        if os.path.isdir(target):
            wrong("cli:fit output", "fit reported success and wrote no model file")
        call("load (the model fit wrote)", [], dtree.load, target, types=())
    elif cmd == "predict":
        text = out
        if "-o" in argv:
            target = argv[argv.index("-o") + 1]
            if target.startswith("/dev/"):
                return
            if os.path.isfile(target):
                with open(target, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
        rows = [line for line in text.splitlines() if line.strip()]
        if case["data"] in ("good", "good_reg", "gz", "bom", "crlf") and len(rows) != 41:
            wrong("cli:predict rows", f"{len(rows)} lines for 40 rows and a header")
    elif cmd == "show":
        if not out.strip():
            wrong("cli:show empty", "show succeeded and printed nothing")
    elif cmd == "eval":
        if not re.search(r"\d", out):
            wrong("cli:eval", "eval succeeded and printed no number")


# ===================================================================== area: methods
# each method (or exporter) and the arguments a probe may set to an odd value
METHODS = {
    "predict_interval": ["confidence"], "prune": ["ccp_alpha"], "snip": ["nodes"],
    "simplify": [], "cost_complexity_pruning_path": ["sample_weight"],
    "score": ["sample_weight"],
    "export_text": ["feature_names", "class_names", "max_depth", "spacing", "decimals",
                    "show_weights", "show_missing"],
    "export_rules": ["feature_names", "class_names", "decimals", "show_missing"],
    "export_graphviz": ["feature_names", "class_names", "max_depth", "precision", "label",
                        "filled", "fontname", "proportion"],
    "export_sql": ["table", "dialect", "feature_names", "prediction", "proba_prefix",
                   "keep_columns"],
    "export_compact": [], "summary": ["feature_names"], "set_params": ["param"],
    "leaf_support": ["X"], "outside_training_range": ["X"], "predict_log_proba": [],
    "partial_dependence": ["features", "grid_resolution", "percentiles", "kind"],
    "information_gains": ["categorical_features", "sample_weight"],
}


def gen_methods_case(r):
    est = r.choice(["clf", "clf", "reg", "reg"])
    method = r.choice(sorted(METHODS))
    args = METHODS[method]
    arg = r.choice(args) if args else None
    value = r.choice(EXTREMES + HOSTILE + [0.95, 0.5, 0.9999999999999999, 1 - 1e-12, 1e-300,
                                           0.01, 3, 2, [0], [0, 1], ["x0", "x1", "x2"],
                                           ["a"] * 5, "t", "select", "a b", "x0"])
    data = {"seed": r.randrange(2**31), "n": r.choice([20, 60]), "d": r.choice([1, 2, 3]),
            "nan": r.choice([0, 0.1]), "y": "int" if is_clf(est) else "real",
            "k": r.choice([2, 3]), "ties": r.choice([0, 5])}
    params = {"random_state": 0, "max_depth": r.choice([None, 3])}
    if not is_clf(est) and r.random() < 0.5:
        params["keep_leaf_targets"] = True
    if r.random() < 0.3:
        params["handle_missing"] = "surrogate"
    case = {"area": "methods", "est": est, "method": method, "arg": arg, "value": E(value),
            "params": {p: E(v) for p, v in params.items()}, "data": data}
    if method == "set_params":
        case["param"] = r.choice(REG_PARAMS if not is_clf(est) else CLF_PARAMS)
    return case


def _per_row(v, n):
    """A per-row array of a scalar, or the value itself when numpy cannot hold it."""
    if isinstance(v, (int, float, complex, np.generic)) and not isinstance(v, bool):
        try:
            with np.errstate(all="ignore"):
                return np.full(n, v, dtype=float)
        except (OverflowError, TypeError, ValueError):
            return v
    return v


def run_methods(case):
    import dtree
    from dtree import export
    spec = case["data"]
    X, y, w, info = make_data(spec)
    model, params = new_estimator(case, FIT_WORDS)
    call("fit", FIT_WORDS, model.fit, X, y)
    v = D(case["value"])
    method, arg = case["method"], case["arg"]
    names = [arg] if arg else [method]
    clf = is_clf(case["est"])
    if method == "predict_interval":
        if not clf and not params.get("keep_leaf_targets"):
            return {"skipped": "no leaf targets"}
        lo, hi = call(method, names, model.predict_interval, X, confidence=v)
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        if lo.shape != hi.shape or (lo > hi + 1e-12).any() or not np.isfinite(lo).all():
            wrong("predict_interval", "lower above upper, or not finite")
        if clf and ((lo < -1e-12).any() or (hi > 1 + 1e-12).any()):
            wrong("predict_interval:range", "a class fraction's interval outside [0, 1]")
    elif method == "prune":
        pruned = call(method, names, model.prune, v)
        if pruned.tree_.node_count > model.tree_.node_count:
            wrong("prune:grew", "a pruned tree with more nodes")
        check_model(pruned, X, y, names=FIT_WORDS, roundtrip=False)
    elif method == "snip":
        nodes = v if isinstance(v, (list, tuple, np.ndarray)) else [v]
        snipped = call(method, names + ["node"], model.snip, nodes)
        check_model(snipped, X, y, names=FIT_WORDS, roundtrip=True)
    elif method == "simplify":
        simple = call(method, [], model.simplify, types=())
        if not _same(simple.predict(X), model.predict(X)):
            wrong("simplify", "simplify changed predictions")
    elif method == "cost_complexity_pruning_path":
        path = call(method, names, model.cost_complexity_pruning_path, X, y,
                    sample_weight=_per_row(v, len(y)))
        alphas = np.asarray(path.ccp_alphas, dtype=float)
        if not np.isfinite(alphas).all() or \
                (np.diff(alphas) < -1e-12 * max(1, np.abs(alphas).max())).any():
            wrong("ccp_path", f"alphas not finite or not increasing: {alphas[:5]}")
    elif method == "score":
        sw = _per_row(v, len(y))
        score = call(method, names, model.score, X, y, sample_weight=sw)
        if not np.isfinite(score) or (clf and not 0 <= score <= 1):
            wrong("score", f"score {score} with sample_weight {v!r}")
    elif method.startswith("export_"):
        fn = getattr(export, method)
        kwargs = {arg: v} if arg else {}
        if method == "export_sql":
            kwargs.setdefault("table", "t")
        text = call(method, names, fn, model, **kwargs)
        if method == "export_sql" and arg in (None, "table", "dialect"):
            pass
        if not isinstance(text, str) or not text.strip():
            wrong(method, "an empty export")
    elif method == "summary":
        call(method, names, model.summary, feature_names=v, file=False)
    elif method == "set_params":
        name = case["param"]
        before = model.predict(X)
        call(method, [name], model.set_params, **{name: v})
        after = call("predict after set_params", [name] + FIT_WORDS, model.predict, X)
        if not _same(before, after):
            wrong("set_params", "set_params changed the fitted model's predictions")
    elif method in ("leaf_support", "outside_training_range"):
        Xv = v
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            try:
                Xv = np.full(np.shape(X), v, dtype=float)
            except (OverflowError, TypeError, ValueError):
                Xv = v
        out = call(method, ["X"] + FIT_WORDS, getattr(model, method), Xv)
        if len(out) != _n_rows(np.atleast_2d(Xv)):
            wrong(method, "one answer per row expected")
    elif method == "predict_log_proba":
        if clf:
            lp = np.asarray(call(method, FIT_WORDS, model.predict_log_proba, X))
            if np.isnan(lp).any() or (lp > 1e-12).any():
                wrong("predict_log_proba", "NaN or positive log probabilities")
    elif method == "partial_dependence":
        from dtree.inspection import partial_dependence
        kwargs = {} if arg == "features" else {arg: v}
        feats = (v if isinstance(v, list) else [v]) if arg == "features" else [0]
        res = call(method, names + ["feature"], partial_dependence, model, X, feats, **kwargs)
        if not np.isfinite(np.asarray(res["average"], dtype=float)).all():
            wrong("partial_dependence", "non-finite average")
    elif method == "information_gains":
        kwargs = {arg: _per_row(v, len(y)) if arg == "sample_weight" else v}
        gains = call(method, names + FIT_WORDS, dtree.information_gains, X, y, **kwargs)
        g = np.asarray(getattr(gains, "values", gains), dtype=object)
        try:
            finite = np.isfinite(np.asarray(g, dtype=float)).all()
        except (TypeError, ValueError):
            finite = True
        if not finite:
            wrong("information_gains", "non-finite gains")
    return {"method": method}


# ===================================================================== area: threads
def gen_threads_case(r):
    est = r.choice(["clf", "reg", "clf"])
    params = {"random_state": 0, "n_jobs": r.choice([None, 1, 2]),
              "splitter": r.choice(["best", "best", "hist", "random"]),
              "max_depth": r.choice([None, 4, 8])}
    readers = ["predict", "apply", "decision_path", "leaf_support", "outside_training_range",
               "score", "predict_interval"] + (["predict_proba", "predict_log_proba"]
                                                if is_clf(est) else [])
    return {"area": "threads", "est": est, "params": {p: E(v) for p, v in params.items()},
            "mode": r.choice(["refit_vs_predict", "refit_vs_predict", "two_fits", "separate"]),
            "methods": r.sample(readers, 3) if r.random() < 0.7 else ["predict"],
            "seed": r.randrange(2**31), "n": r.choice([300, 1000, 3000]),
            "readers": r.choice([1, 2, 3]), "rounds": r.choice([6, 12])}


def run_threads(case):
    rng = np.random.RandomState(case["seed"] % 2**32)
    n, d = case["n"], 4
    XA, XB = rng.rand(n, d), rng.rand(n, d)
    clf = is_clf(case["est"])
    if clf:
        yA = (XA[:, 0] > 0.5).astype(int)
        yB = np.array([10, 11, 12])[(XB[:, 1] * 3).astype(int).clip(0, 2)]
    else:
        yA, yB = XA[:, 0], 100 + 10 * XB[:, 1]
    Xq = rng.rand(500, d)
    yq = yA[:500] if len(yA) >= 500 else np.resize(yA, 500)
    if not clf:
        case = dict(case, params=dict(case["params"], keep_leaf_targets=True))
    modelA, _ = new_estimator(case, FIT_WORDS)
    modelB, _ = new_estimator(case, FIT_WORDS)
    call("fit", FIT_WORDS, modelA.fit, XA, yA)
    call("fit", FIT_WORDS, modelB.fit, XB, yB)
    methods = case.get("methods", ["predict"])

    def ask(model, name):
        if name == "score":
            return np.asarray(model.score(Xq, yq))
        if name == "decision_path":
            return model.decision_path(Xq).toarray()
        if name == "predict_interval":
            return np.concatenate([np.ravel(a) for a in model.predict_interval(Xq)])
        return getattr(model, name)(Xq)
    answers = [{m: call(m, FIT_WORDS, ask, model, m) for m in methods + ["predict"]}
               for model in (modelA, modelB)]
    answers = [(a["predict"], a) for a in answers]
    shared, _ = new_estimator(case, FIT_WORDS)
    call("fit", FIT_WORDS, shared.fit, XA, yA)
    stop = threading.Event()
    failures = []
    mixes = []

    def guard(fn):
        def run():
            try:
                fn()
            except BaseException as exc:
                failures.append((exc, traceback.format_exc()))
                stop.set()
        return run

    def refit(order):
        for i in range(case["rounds"]):
            if stop.is_set():
                break
            X, y = (XB, yB) if (i + order) % 2 == 0 else (XA, yA)
            shared.fit(X, y)

    def read():
        while not stop.is_set():
            for name in methods:
                got = ask(shared, name)
                if not any(_same(got, a[1][name]) for a in answers):
                    mixes.append(name)
                    stop.set()

    mode = case["mode"]
    if mode == "separate":
        # separate estimators in several threads: each its single-threaded answer
        results = {}

        def own(i):
            def run():
                m, _ = new_estimator(case, FIT_WORDS)
                X, y = (XA, yA) if i % 2 == 0 else (XB, yB)
                m.fit(X, y)
                results[i] = m.predict(Xq)
            return run
        threads = [threading.Thread(target=guard(own(i))) for i in range(4)]
    elif mode == "two_fits":
        threads = [threading.Thread(target=guard(lambda: refit(0))),
                   threading.Thread(target=guard(lambda: refit(1)))] + \
            [threading.Thread(target=guard(read)) for _ in range(case["readers"])]
    else:
        threads = [threading.Thread(target=guard(lambda: refit(0)))] + \
            [threading.Thread(target=guard(read)) for _ in range(case["readers"])]
    for t in threads:
        t.start()
    writers = threads[:4] if mode == "separate" else threads[:2 if mode == "two_fits" else 1]
    for t in writers:
        t.join(60)
    stop.set()
    for t in threads:
        t.join(60)
    if failures:
        exc, trace = failures[0]
        if RAISE:
            raise exc
        raise Finish(UNNAMED, stage=f"threads:{mode}", exc_type=type(exc).__name__,
                     message=str(exc), where=where(exc), trace=trace)
    if mixes:
        wrong(f"threads:{mixes[0]} mixes models",
              "an answer that is neither the old nor the new model's")
    if mode == "separate":
        for i, p in results.items():
            if not _same(p, answers[i % 2][0]):
                wrong("threads:separate", "a fit in a thread gives another model")
    else:
        final = shared.predict(Xq)
        if not any(_same(final, a[0]) for a in answers):
            wrong("threads:final state mixes models", "after the fits, neither model")
    return {"mode": mode}


# ===================================================================== area: dask
_DASK = {}


def dask_client():
    if "client" not in _DASK:
        import logging
        import dask
        import distributed
        dask.config.set({"distributed.comm.timeouts.connect": "3s",
                         "distributed.worker.memory.terminate": False,
                         "distributed.worker.memory.pause": False})
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                           dashboard_address=None, silence_logs=logging.CRITICAL)
        _DASK["client"] = distributed.Client(cluster, set_as_default=True)
    return _DASK["client"]


def gen_dask_case(r):
    est = r.choice(["clf", "reg"])
    params = {"random_state": r.randrange(100), "max_depth": r.choice([2, 3, 4, 6])}
    for name, values in [("max_leaf_nodes", [None, 6]),
                         ("min_samples_leaf", [1, 5]), ("max_bins", [8, 255]),
                         ("max_features", [None, 1])]:
        if r.random() < 0.3:
            params[name] = r.choice(values)
    variant = r.choice(["array", "array", "frame", "frame", "hostile", "client_string",
                        "weights", "nan"])
    if variant == "hostile":
        name = r.choice(["max_depth", "max_bins", "min_samples_leaf", "criterion",
                         "max_leaf_nodes", "min_impurity_decrease", "monotonic_cst"])
        params[name] = _any_value(r)
    if is_clf(est) and r.random() < 0.3:
        params["criterion"] = r.choice(["entropy", "gini"])
    return {"area": "dask", "est": est, "params": {p: E(v) for p, v in params.items()},
            "variant": variant, "seed": r.randrange(2**31),
            "n": r.choice([200, 400, 600]), "chunks": r.choice([1, 2, 3]),
            "timeout": 90}


def run_dask(case):
    import dask.array as da
    import dtree
    from dtree.dask import DaskDecisionTreeClassifier, DaskDecisionTreeRegressor
    dask_client()
    rng = np.random.RandomState(case["seed"] % 2**32)
    n, d = case["n"], 3
    X = np.round(rng.rand(n, d) * 20) / 20           # few values: the exact tree
    variant = case["variant"]
    if variant == "nan":
        X[rng.rand(n, d) < 0.1] = np.nan
    clf = is_clf(case["est"])
    y = ((np.nan_to_num(X[:, 0]) + rng.rand(n) * 0.3) * 3).astype(int) if clf else \
        np.round(np.nan_to_num(X[:, 0]) * 10 + rng.randint(0, 3, n))
    w = rng.randint(1, 4, n).astype(float) if variant == "weights" else None
    params = {k: D(v) for k, v in case["params"].items()}
    Est = DaskDecisionTreeClassifier if clf else DaskDecisionTreeRegressor
    names = list(params) + FIT_WORDS + ["client"]
    if variant == "client_string":
        params["client"] = "tcp://127.0.0.1:9"
    est = call("construct", names, Est, **params)
    size = max(n // case["chunks"], 1)
    if variant == "frame":
        import dask.dataframe as dd
        import pandas as pd
        frame = pd.DataFrame(X, columns=["a", "b", "c"])
        frame["c"] = np.array(["u", "v", "w", "x"])[(np.nan_to_num(X[:, 2]) * 4).astype(int).clip(0, 3)]
        dX = dd.from_pandas(frame, npartitions=case["chunks"])
        dy = dd.from_pandas(pd.Series(y, name="y"), npartitions=case["chunks"])
        Xl = frame
    else:
        dX = da.from_array(X, chunks=(size, d))
        dy = da.from_array(y, chunks=(size,))
        Xl = X
    dw = da.from_array(w, chunks=(size,)) if w is not None else None
    types = (ValueError, TypeError, OSError) if variant == "client_string" else \
        (ValueError, TypeError)
    call("fit", names, est.fit, dX, dy, sample_weight=dw, types=types)
    local = call("to_local", [], est.to_local, types=())
    check_model(local, Xl, y, names=FIT_WORDS, roundtrip=True)
    pred = call("predict (dask)", FIT_WORDS, lambda: np.asarray(est.predict(dX).compute()))
    if not _same(pred, local.predict(Xl)):
        wrong("dask:predict", "the lazy predict differs from to_local()'s")
    lp = {k: v for k, v in params.items() if k != "client"}
    Local = dtree.DecisionTreeClassifier if clf else dtree.DecisionTreeRegressor
    ref = Local(splitter="hist", **lp).fit(Xl, y, sample_weight=w)
    if structure(ref) != structure(local):
        wrong("dask:local hist tree", f"{local.tree_.node_count} nodes, local hist fit "
              f"{ref.tree_.node_count}")
    return {"nodes": int(local.tree_.node_count)}


# ===================================================================== area: export
def gen_export_case(r):
    est = r.choice(["clf", "reg"])
    return {"area": "export", "est": est, "to": r.choice(["onnx", "sql", "sql"]),
            "seed": r.randrange(2**31),
            "kind": r.choice(["numeric", "numeric", "nan", "categorical_str",
                              "categorical_int", "huge_targets", "str_labels"]),
            "params": {"max_depth": r.choice([2, 4, None]), "random_state": 0}}


def _export_data(case):
    import pandas as pd
    rng = np.random.RandomState(case["seed"] % 2**32)
    n = 80
    X = pd.DataFrame({"a": rng.rand(n), "b": np.round(rng.rand(n) * 8)})
    kind = case["kind"]
    params = dict(case["params"])
    if kind == "nan":
        X.loc[rng.rand(n) < 0.2, "a"] = np.nan
    if kind == "categorical_str":
        X["c"] = np.array(["red", "green", "blue", "grey"])[rng.randint(0, 4, n)]
    if kind == "categorical_int":
        X["c"] = np.array([3.0, 17.0, 5.0, 40.0])[rng.randint(0, 4, n)]
        params["categorical_features"] = ["c"]
    signal = np.nan_to_num(X["a"].to_numpy()) + (X["c"].isin(["red", 17.0]) if "c" in X else 0)
    if is_clf(case["est"]):
        y = (signal + 0.3 * rng.rand(n) > 0.7).astype(int)
        if kind == "str_labels":
            y = np.array(["no", "yes"])[y]
    else:
        y = signal + rng.rand(n)
        if kind == "huge_targets":
            y = y * 1e300
    return X, y, params


def run_export(case):
    X, y, params = _export_data(case)
    Est = estimator_class(case["est"])
    model = call("fit", FIT_WORDS, Est(**params).fit, X, y)
    pred = model.predict(X)
    cats = [c for c in X.columns if c == "c"]
    if case["to"] == "sql":
        import sqlite3
        from dtree.export import export_sql
        sql = call("export_sql", ["table"], export_sql, model, table="t", dialect="sqlite")
        con = sqlite3.connect(":memory:")
        X.to_sql("t", con, index=False)
        rows = con.execute(sql).fetchall()
        got = np.array([r[0] for r in rows], dtype=object)
        if is_clf(case["est"]):
            if [str(v) for v in got] != [str(v) for v in pred]:
                wrong("sql:predict", "the SQL's predictions differ from predict")
        else:
            g = np.array([np.nan if v is None else float(v) for v in got])
            if not np.allclose(g, pred, rtol=1e-12, atol=0, equal_nan=False):
                wrong("sql:predict", "the SQL's values differ from predict")
        return {"to": "sql"}
    import onnxruntime as ort
    from dtree.export import to_onnx
    onx = call("to_onnx", ["column", "categor", "feature", "value", "float32", "onnx"] +
               [str(c) for c in X.columns], to_onnx, model)
    sess = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = sess.get_inputs()
    import pandas as pd
    text = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    if len(inputs) == 1:
        if text:
            wrong("onnx:category columns",
                  "export accepted text category columns into one float tensor input")
        feed = {inputs[0].name: X.to_numpy(dtype=np.float32)}
    else:
        feed = {}
        for inp in inputs:
            col = X[inp.name] if inp.name in X.columns else X.iloc[:, len(feed)]
            arr = col.to_numpy()
            feed[inp.name] = (arr.astype(str) if "string" in inp.type
                              else arr.astype(np.float32 if "float)" in inp.type
                                              else np.float64)).reshape(-1, 1)
    outs = sess.run(None, feed)
    got = np.asarray(outs[0]).ravel()
    if is_clf(case["est"]):
        if [str(v) for v in got] != [str(v) for v in pred]:
            agree = np.mean([str(a) == str(b) for a, b in zip(got, pred)])
            wrong("onnx:labels" + (":categories" if cats else ""),
                  f"ONNX labels agree with predict on {agree:.0%} of rows")
    else:
        g = got.astype(float)
        ok = np.isfinite(g) & np.isclose(g, pred, rtol=1e-5, atol=0)
        if not ok.all():
            wrong("onnx:values" + (":categories" if cats else ""),
                  f"ONNX values differ from predict on {np.mean(~ok):.0%} of rows "
                  f"(e.g. {g[~ok][:2]} vs {pred[~ok][:2]})")
    return {"to": "onnx"}


# ===================================================================== self-test
def run_selftest(case):
    """Misbehaviours on purpose, to test the worker's judge (never scheduled)."""
    kind = case["kind"]
    if kind == "segfault":
        import ctypes
        ctypes.string_at(0)
    elif kind == "abort":
        os.abort()
    elif kind == "hang":
        time.sleep(3600)
    elif kind == "memory":
        return {"size": len(bytearray(64 << 30))}
    elif kind == "exit":
        os._exit(3)
    return {}


# ===================================================================== registry
AREAS = {
    "params": (gen_params_case, run_params),
    "inputs": (gen_inputs_case, run_inputs),
    "scale": (gen_scale_case, run_scale),
    "sklearn": (gen_sklearn_case, run_sklearn),
    "model_files": (gen_model_files_case, run_model_files),
    "cli": (gen_cli_case, run_cli),
    "methods": (gen_methods_case, run_methods),
    "threads": (gen_threads_case, run_threads),
    "dask": (gen_dask_case, run_dask),
    "export": (gen_export_case, run_export),
    "selftest": (lambda r: {"kind": "ok"}, run_selftest),
}
# share of each area in a campaign (the long one draws areas with these weights)
WEIGHTS = {"params": 26, "inputs": 20, "scale": 10, "sklearn": 4, "model_files": 18,
           "cli": 7, "methods": 7, "threads": 3, "dask": 2, "export": 3}


def generate(area, seed):
    """The case of (area, seed): the same on every machine and every run."""
    r = random.Random(f"{area}:{seed}")
    case = AREAS[area][0](r)
    case["area"] = area
    case["seed_id"] = seed
    return json.loads(json.dumps(case))


def execute(case):
    """Runs one case in this process; the result dict (``outcome`` and details)."""
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", FutureWarning)
        try:
            info = AREAS[case["area"]][1](case) or {}
            result = {"outcome": OK, "info": info}
        except Finish as stop:
            result = dict(stop.result)
        except Skip as skip:
            result = {"outcome": OK, "info": {"skipped": str(skip)}}
        except MemoryError as exc:
            result = {"outcome": MEMORY, "stage": "harness", "type": "MemoryError",
                      "message": str(exc)[:300], "where": where(exc),
                      "trace": traceback.format_exc()[-2000:]}
        except BaseException as exc:   # not in a call(): the campaign's own code failed
            if isinstance(exc, KeyboardInterrupt):
                raise
            result = {"outcome": UNNAMED, "stage": "harness", "type": type(exc).__name__,
                      "message": str(exc)[:600], "where": where(exc), "harness": True,
                      "trace": traceback.format_exc()[-2500:]}
    numeric = sorted({str(w.message)[:120] for w in caught
                      if issubclass(w.category, RuntimeWarning)})
    if numeric:
        result["runtime_warnings"] = numeric[:3]
    result["seconds"] = round(time.perf_counter() - t0, 3)
    return result


def replay(case):
    """Runs a case here with dtree's own exceptions raised (for a repro)."""
    global RAISE
    RAISE = True
    try:
        return AREAS[case["area"]][1](case)
    finally:
        RAISE = False


def warm():
    """Imports what most probes need (before the worker says it is ready)."""
    import dtree  # noqa: F401
    import dtree.export  # noqa: F401
    import dtree.__main__  # noqa: F401
    import pandas  # noqa: F401
    import scipy.sparse  # noqa: F401


# ===================================================================== reports
def pattern(message):
    """A message with its particulars (numbers, quoted names, addresses) abstracted."""
    m = " ".join(str(message).split())
    m = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", m)
    m = re.sub(r"0x[0-9a-fA-F]+", "0x…", m)
    m = re.sub(r"/[\w./-]+", "/…", m)
    m = re.sub(r"(?<![A-Za-z_])[-+]?\d[\d_.]*(e[-+]?\d+)?", "N", m)
    m = re.sub(r"\[[^\]]*\]", "[…]", m)
    m = re.sub(r"\b(DecisionTree|ExtraTree)(Classifier|Regressor)\b", "Estimator", m)
    return m[:140]


def finding_key(case, result):
    """What a finding is grouped by: area, outcome and cause."""
    outcome = result["outcome"]
    area = case["area"]
    if outcome == WRONG:
        return (area, outcome, result.get("check", ""))
    if outcome in (CRASH, HANG):
        return (area, outcome, result.get("where") or case.get("method") or
                case.get("cmd") or "", result.get("type", ""))
    return (area, outcome, result.get("type", ""), pattern(result.get("message", "")),
            result.get("where", ""))


def describe(case):
    """One line a human reads: what the probe did."""
    area = case["area"]
    params = {k: D(v) for k, v in case.get("params", {}).items()}
    ptext = ", ".join(f"{k}={v!r}" for k, v in params.items())
    if area in ("params", "inputs", "scale", "sklearn", "methods", "threads", "dask", "export"):
        est = {"clf": "DecisionTreeClassifier", "reg": "DecisionTreeRegressor",
               "xclf": "ExtraTreeClassifier", "xreg": "ExtraTreeRegressor"}[case["est"]]
        text = f"{est}({ptext})"
        data = case.get("data")
        if data:
            keys = [k for k in ("container", "x", "cols", "sdtype", "broken", "extreme", "nan",
                                "inf", "y", "ycontainer", "outputs", "w", "n", "d")
                    if data.get(k) or k in ("n", "d")]
            text += " on " + ", ".join(f"{k}={data[k]}" for k in keys)
        if area == "inputs":
            text += f"; predict on {case.get('predict')}"
        if area == "scale":
            text += f"; {case['what']} x 2^{case['k']}"
        if area == "methods":
            arg = case.get("param") if case["method"] == "set_params" else case["arg"]
            text += f"; {case['method']}({arg}={D(case['value'])!r})" if arg else \
                f"; {case['method']}()"
        if area == "threads":
            text += f"; {case['mode']}"
        if area in ("dask", "export"):
            text += f"; {case.get('variant') or case.get('to')} {case.get('kind', '')}"
        return text
    if area == "model_files":
        ops = ", ".join(op["family"] + (":" + op.get("kind", op.get("action", "")))
                        for op in case["mutations"])
        return f"load({case['base']} model file; {ops}; via {case['via']})"
    if area == "cli":
        return (f"python -m dtree {case['cmd']} data={case['data']} model={case['model']} "
                f"out={case['out']} target={case['target']!r} {case['opts']}"
                + (" (subprocess)" if case.get("subprocess") else ""))
    return json.dumps(case)[:200]


def shrink_candidates(case):
    """Smaller variants of a case (one change each), for minimising a finding."""
    out = []

    def variant(change):
        c = json.loads(json.dumps(case))
        change(c)
        out.append(c)
    for name in list(case.get("params", {})):
        if name in ("random_state",):
            continue
        variant(lambda c, n=name: c["params"].pop(n))
    data = case.get("data")
    if isinstance(data, dict):
        if data.get("n", 0) > 4:
            variant(lambda c: c["data"].update(n=max(c["data"]["n"] // 2, 4)))
        if data.get("d", 0) > 1:
            variant(lambda c: c["data"].update(d=c["data"]["d"] - 1,
                                               cols=(c["data"].get("cols") or [])[:-1] or None))
        for key, simple in [("nan", 0), ("inf", False), ("extreme", None), ("w", None),
                            ("ties", 0), ("outputs", 1), ("ycontainer", None),
                            ("names", None), ("yscale", 0)]:
            if data.get(key) not in (None, simple, 0, False):
                variant(lambda c, k=key, s=simple: c["data"].update({k: s}))
    for i in range(len(case.get("mutations", [])) if len(case.get("mutations", [])) > 1 else 0):
        variant(lambda c, i=i: c["mutations"].pop(i))
    for opt in list(case.get("opts", {})):
        variant(lambda c, o=opt: c["opts"].pop(o))
    if case.get("predict") not in (None, "same"):
        variant(lambda c: c.update(predict="same"))
    if case.get("n", 0) > 300 and case["area"] in ("threads", "dask"):
        variant(lambda c: c.update(n=c["n"] // 2))
    return out
