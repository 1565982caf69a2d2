"""Hyperparameters declared as data, checked in one place before anything is built.

Each estimator lists, for every one of its parameters, the values it accepts
(``_parameter_constraints``, as scikit-learn does). ``validate_params`` checks
every parameter, including those the chosen configuration does not use, so
that nothing invalid reaches the builders or a model file, and it words its
errors as scikit-learn does ("The 'max_depth' parameter of
DecisionTreeClassifier must be an int in the range [1, inf) or None. Got 0
instead."). The error class is both a ValueError and a TypeError, like
scikit-learn's ``InvalidParameterError``. The criteria, splitters and presets
each estimator accepts are the registry's (``_plan.registry``).
"""
import math
import numbers

import numpy as np

from . import registry


class InvalidParameterError(ValueError, TypeError):
    """A hyperparameter has a type or value outside what the estimator accepts."""


def is_int(value):
    """True for Python and numpy integers, but not for bools."""
    if type(value) is int:  # the common case, without the ABC machinery
        return True
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def is_real(value):
    """True for Python and numpy reals (integers included), but not for bools."""
    if type(value) in (int, float):
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _fits_float64(value):
    """Whether a real number converts to a finite float64 (an int beyond ~1.8e308 does not)."""
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _fmt(bound):
    return "inf" if bound == math.inf else ("-inf" if bound == -math.inf else repr(bound))


class Interval:
    """Numbers of one kind ("int", "real" or "real_not_int") between two bounds.

    ``closed`` is "both", "left", "right" or "neither". A bound of None is
    infinite; the value itself must be finite.
    """

    def __init__(self, kind, left, right, closed):
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def accepts(self, value):
        if self.kind == "int":
            if not is_int(value):
                return False
        elif self.kind == "real_not_int":
            if not is_real(value) or is_int(value):
                return False
        elif not is_real(value):
            return False
        if isinstance(value, (float, np.floating)) and not math.isfinite(value):
            return False
        if self.kind != "int" and not _fits_float64(value):  # e.g. 2**1100
            return False
        lo = -math.inf if self.left is None else self.left
        hi = math.inf if self.right is None else self.right
        left_ok = value >= lo if self.closed in ("both", "left") else value > lo
        right_ok = value <= hi if self.closed in ("both", "right") else value < hi
        return bool(left_ok and right_ok)

    def __str__(self):
        what = {"int": "an int", "real": "a float", "real_not_int": "a float"}[self.kind]
        lo = -math.inf if self.left is None else self.left
        hi = math.inf if self.right is None else self.right
        opening = "[" if self.closed in ("both", "left") and self.left is not None else "("
        closing = "]" if self.closed in ("both", "right") and self.right is not None else ")"
        return f"{what} in the range {opening}{_fmt(lo)}, {_fmt(hi)}{closing}"


class Options:
    """One of a fixed set of strings."""

    def __init__(self, *values):
        self.values = values

    def accepts(self, value):
        return isinstance(value, str) and value in self.values

    def __str__(self):
        return "a str among {" + ", ".join(repr(v) for v in self.values) + "}"


class _NoneConstraint:
    def accepts(self, value):
        return value is None

    def __str__(self):
        return "None"


NONE = _NoneConstraint()


class InstanceOf:
    """An instance of one of the given types (``name`` describes them)."""

    def __init__(self, types, name):
        self.types, self.name = types, name

    def accepts(self, value):
        return isinstance(value, self.types)

    def __str__(self):
        return self.name


class Predicate:
    """Whatever ``test`` accepts (``name`` describes it)."""

    def __init__(self, test, name):
        self.test, self.name = test, name

    def accepts(self, value):
        try:
            return bool(self.test(value))
        except Exception:  # a value the test cannot even look at is not accepted
            return False

    def __str__(self):
        return self.name


def _class_weight_list(value):
    # several outputs: one dict per output
    return isinstance(value, list) and len(value) > 0 and all(
        _class_weight_dict(d) for d in value)


def _class_weight_dict(value):
    if not isinstance(value, dict):
        return False
    for weight in value.values():
        if not is_real(weight) or not math.isfinite(weight) or weight < 0:
            return False
    return True


def _cv_iterable(value):
    # CV splitters (anything with split) and iterables of (train, test) pairs;
    # the pairs themselves are checked against the data when the folds are read.
    if isinstance(value, (str, bytes, dict)):
        return False
    return hasattr(value, "split") or hasattr(value, "__iter__")


def _array_like(value):
    # scikit-learn's "array-like": a length, a shape or __array__, and not a scalar
    return (hasattr(value, "__len__") or hasattr(value, "__array__")
            or hasattr(value, "shape")) and not np.isscalar(value)


def _column_spec(value):
    # indices, names or a boolean mask: checked against the columns at fit
    return hasattr(value, "__iter__") and not isinstance(value, (str, bytes, dict))


RANDOM_STATE = [NONE, Interval("int", 0, 2**32 - 1, "both"),
                InstanceOf((np.random.RandomState,), "an instance of 'numpy.random.RandomState'"),
                InstanceOf((np.random.Generator,), "an instance of 'numpy.random.Generator'")]

# Parameters both estimators share (the criterion is each estimator's own).
COMMON = {
    "splitter": [Options(*registry.names("splitter"))],
    "max_depth": [Interval("int", 1, None, "left"), NONE],
    "min_samples_split": [Interval("int", 2, None, "left"),
                          Interval("real_not_int", 0.0, 1.0, "right")],
    "min_samples_leaf": [Interval("int", 1, None, "left"),
                         Interval("real_not_int", 0.0, 1.0, "neither")],
    "min_weight_fraction_leaf": [Interval("real", 0.0, 0.5, "both")],
    "max_features": [Interval("int", 1, None, "left"),
                     Interval("real_not_int", 0.0, 1.0, "right"),
                     Options("sqrt", "log2"), NONE],
    "random_state": RANDOM_STATE,
    "max_leaf_nodes": [Interval("int", 2, None, "left"), NONE],
    "min_impurity_decrease": [Interval("real", 0.0, None, "left")],
    "ccp_alpha": [Interval("real", 0.0, None, "left"), Options("cv")],
    "cp": [Interval("real", 0.0, None, "left"), NONE],
    "verbose": [Interval("int", 0, None, "left"), InstanceOf((bool, np.bool_), "a bool")],
    "prune_risk": [Options("impurity", "misclassification")],
    "pruning": [NONE, Options("none", "pessimistic", "reduced_error")],
    "cv": [Interval("int", 2, None, "left"),
           Predicate(_cv_iterable, "a CV splitter or an iterable of (train, test) pairs")],
    "cv_rule": [Options("1se", "min")],
    "cf": [Interval("real", 0.0, 0.5, "right")],
    "threshold_rule": [Options("midpoint", "training_value"), NONE],
    "subtree_raising": [InstanceOf((bool, np.bool_), "a bool"), NONE],
    "category_splits": [Options("subsets", "multiway", "one_vs_rest"), NONE],
    "validation_fraction": [Interval("real", 0.0, 1.0, "neither")],
    "handle_missing": [Options("split", "surrogate", "error")],
    "keep_competitors": [Interval("int", 0, None, "left")],
    "n_surrogates": [Interval("int", 0, None, "left"), NONE],
    "categorical_features": [NONE, Options("auto"),
                             Predicate(_column_spec, "an array-like of column indices, "
                                       "names or a boolean mask")],
    "handle_unknown": [Options("missing", "error")],
    "n_jobs": [Predicate(lambda v: is_int(v) and v != 0, "a non-zero int"), NONE],
    "max_bins": [Interval("int", 2, 255, "both")],
    "monotonic_cst": [NONE, Predicate(_array_like, "an array-like")],
    "value_tolerance": [Interval("real", 0.0, None, "left")],
}
CLASSIFIER = dict(COMMON, **{
    "criterion": [Options(*registry.criteria(registry.CLASSIFICATION))],
    "class_weight": [NONE, Options("balanced"),
                     Predicate(_class_weight_dict, "a dict of finite weights >= 0"),
                     Predicate(_class_weight_list, "a list of such dicts (one per output)")],
    "algorithm": [Options(*registry.names("algorithm"))],
})
REGRESSOR = dict(COMMON, **{
    # (deprecated names are replaced at construction, as in scikit-learn 1.9)
    "criterion": [Options(*registry.criteria(registry.REGRESSION))],
    "quantile": [Interval("real", 0.0, 1.0, "neither")],
    "keep_leaf_targets": [InstanceOf((bool, np.bool_), "a bool")],
})


def _describe(constraints):
    parts = [str(c) for c in constraints]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def validate_params(estimator):
    """Check every parameter of ``estimator`` against its class's constraints.

    Raises
    ------
    InvalidParameterError
        Naming the first parameter whose value is not accepted.
    """
    constraints = type(estimator)._parameter_constraints
    defaults = type(estimator)._param_defaults()
    missing = object()
    for name, allowed in constraints.items():
        value = getattr(estimator, name, missing)
        # the defaults are valid by construction: most fits check only a few values
        if value is missing or value is defaults.get(name, missing):
            continue
        if any(c.accepts(value) for c in allowed):
            continue
        raise InvalidParameterError(
            f"The {name!r} parameter of {type(estimator).__name__} must be "
            f"{_describe(allowed)}. Got {value!r} instead.")
