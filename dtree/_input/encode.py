"""Input encoding: what users pass becomes the arrays the builders read, once.

X (arrays, pandas and polars frames, sparse matrices) becomes a float32 matrix
with category codes (a sparse X stays sparse where the choices grow it from its
non-zeros), y becomes class codes or float64 targets, and class weights are
folded into the sample weights: one ``TrainingData``. What predict needs to
encode new X the same way (the ``Columns``: names, categories) is installed on
the estimator with the fit.
"""
import dataclasses
import math

import numpy as np

from . import categorical as cat
from . import validation as val
from .._columns import float32_rows, put_columns, readable
from .._plan.machine import n_threads, spare_threads
from .._route import PARALLEL_ROWS
from .frames import as_known_frame, is_polars, polars_to_array


@dataclasses.dataclass(frozen=True)
class Columns:
    """What a fit learns of X's columns: the estimator's attributes of these names
    (``feature_names_in_`` is None where X had no string column names)."""

    n_features_in_: int
    categorical_features_: np.ndarray
    categories_: list
    feature_names_in_: object = None


@dataclasses.dataclass(frozen=True)
class TrainingData:
    """The encoded training data of one fit.

    X : float32 matrix (category codes, NaN for missing), or a CSC matrix the
        sparse splitter grows from; y : int32 class codes or float64 targets
        (2-D with several outputs); weights : float64 or None (unit weights);
    n_classes : 0 for regression, a class count, or one per output;
    columns : ``Columns``; classes : the classifier's ``classes_`` (None for a
    regressor).
    """

    X: object
    y: object
    weights: object
    n_classes: object
    columns: Columns
    classes: object = None
    # X prepared once when several trees share it (a forest's): its columns sorted
    # or laid out by feature (``_splitter.ColumnOrder``), or binned
    # (``_fit.grow.BinnedX``)
    shared_X: object = None
    # a forest's node counts so far (``_fit.grow.TreeSizes``): room for each tree
    tree_sizes: object = None

    @property
    def n_outputs(self):
        return n_outputs_of(self.y)

    @property
    def is_sparse(self):
        return val.is_sparse(self.X)

    @property
    def n_classes_attribute(self):
        """scikit-learn's ``n_classes_``: an int, or an array with several outputs."""
        if self.classes is None:
            return None
        if isinstance(self.n_classes, list):
            return np.array(self.n_classes, dtype=np.intp)
        return int(self.n_classes)


def n_outputs_of(encoded_y):
    """Number of outputs of encoded targets (columns of a 2-D y)."""
    return encoded_y.shape[1] if encoded_y is not None and encoded_y.ndim == 2 else 1


def missing_allowed(est):
    """Whether NaN in X is a missing value (``handle_missing`` "split" or "surrogate")."""
    return est.handle_missing != "error"


def classifier_data(est, choices, X, y, sample_weight):
    """A classifier's ``TrainingData``: labels coded by their sorted classes, class
    weights folded into the sample weights."""
    X, columns = encode_fit_X(est, choices, X)
    check_label_kinds(y)
    y = val.check_y(y, X.shape[0], estimator_name=type(est).__name__,
                    multi_output=True, warn_column=choices.refuses("outputs"))
    classes, codes = encode_label_columns(y)
    weights = val.check_sample_weight(sample_weight, X.shape[0])
    weights = class_weighted(est.class_weight, classes, codes, weights)
    n_classes = int(classes.shape[0]) if codes.ndim == 1 else [c.shape[0] for c in classes]
    return TrainingData(X, codes, weights, n_classes, columns, classes)


def regressor_data(est, choices, X, y, sample_weight):
    """A regressor's ``TrainingData``: finite float64 targets meeting the criterion's
    demands."""
    X, columns = encode_fit_X(est, choices, X)
    y = check_regression_target(choices.criterion, numeric_target(y))
    y = val.check_y(y, X.shape[0], estimator_name=type(est).__name__,
                    multi_output=True, warn_column=choices.refuses("outputs"))
    weights = val.check_sample_weight(sample_weight, X.shape[0])
    return TrainingData(X, np.ascontiguousarray(y), weights, 0, columns)


def encode_fit_X(est, choices, X):
    """The training matrix and its ``Columns``.

    A sparse X stays sparse where the choices grow it from its non-zeros
    (``Choices.sparse``), and is laid out densely otherwise.
    """
    X = as_known_frame(X)
    names = val.get_feature_names(X)
    allow_nan = missing_allowed(est)
    if val.is_sparse(X) and choices.sparse:
        X = val.sparse_fit_columns(X, allow_nan)
        # (a sparse matrix holds numbers: numeric columns, without names)
        return X, Columns(X.shape[1], np.zeros(X.shape[1], dtype=bool), [None] * X.shape[1])
    if val.is_sparse(X):
        X = val.sparse_fit_matrix(X, allow_nan)
    X, text_columns = _unwrap_frame(X)
    n_columns = _n_columns(X)
    spec = choices.categorical
    mask = cat.resolve_mask(spec, X, names, n_columns, text_columns) \
        if n_columns is not None else np.zeros(0, dtype=bool)
    categories = [None] * len(mask)
    for j in np.flatnonzero(mask):
        label = val.column_label(j, names)
        values = cat.column_values(X, j)
        # a column "auto" chose, not the user, is left out if it looks like an identifier
        left_out = cat.leave_out_identifier(values, label) if isinstance(spec, str) else None
        categories[j] = left_out if left_out is not None else cat.fit_categories(values, label)
    X = _to_matrix(est, X, mask, categories, names, allow_nan)
    # (check_X has refused anything but a 2-D X, so mask covers every column)
    return X, Columns(X.shape[1], mask, categories, names)


def _to_matrix(est, X, mask, categories, names, allow_nan, n_features=None,
               check_values=True):
    """The validated float32 matrix: categories as codes, NaN only where allowed
    (values unchecked without ``check_values``: see ``check_X``)."""
    if mask.any():
        n_columns = _n_columns(X)
        if n_columns is None:
            raise val.not_2d(np.asarray(X, dtype=object).shape)
        if n_features is not None and n_columns != n_features:
            raise ValueError(f"X has {n_columns} features, but {type(est).__name__} is "
                             f"expecting {n_features} features as input.")
        X = _encode_categories(est, X, mask, categories, names) if check_values else \
            _encoded_rows(est, X, mask, categories, names)
    # a missing category is NaN whatever handle_missing says of numbers
    X = val.check_X(X, feature_names=names, n_features=n_features,
                    estimator_name=type(est).__name__,
                    allow_nan=allow_nan or mask.any(), check_values=check_values)
    if mask.any() and not allow_nan and check_values:
        _refuse_nan(X, ~mask, names)
    return X


def _encode_categories(est, X, mask, categories, names):
    """X as a float64 matrix: category codes (NaN if missing) and numbers."""
    n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
    # by column (Fortran order), each column in one contiguous pass, in float64:
    # ``check_X`` reports values beyond float32 from the numbers as they were
    # (predict's unchecked matrix is laid by ``_encoded_rows`` instead)
    out = np.empty((n_rows, mask.shape[0]), dtype=np.float64, order="F")
    series = _frame_columns(X)
    for j in range(mask.shape[0]):
        label = val.column_label(j, names)
        if mask[j]:
            codes = cat.encode_frame_column(None if series is None else series[j],
                                            categories[j], est.handle_unknown, label)
            out[:, j] = codes if codes is not None else cat.encode(
                cat.column_values(X, j), categories[j], est.handle_unknown, label)
        else:
            out[:, j] = _numeric_column(X, j, label, None if series is None else series[j])
    return out


def _encoded_rows(est, X, mask, categories, names):
    """X as predict's float32 matrix, its values unchecked (``check_X``'s
    ``check_values=False``): category codes (NaN if missing) and numbers, each
    column read as it is held and laid into the rows by ``_columns``."""
    n_rows = X.shape[0] if hasattr(X, "shape") else len(X)
    # predict's threads where the batch is large enough for them; the default's
    # (None) no more than the cores other work leaves free, as on a busy machine
    # their parallel region made predict slower than one thread (adult x10 under
    # load: 0.091-0.095 s against 0.072-0.074, medians of 15)
    jobs = getattr(est, "n_jobs", 1)
    threads = spare_threads(n_threads(jobs), jobs) if n_rows >= PARALLEL_ROWS else 1
    series = _frame_columns(X)
    columns, arrow = [], {}
    for j in range(mask.shape[0]):
        label = val.column_label(j, names)
        column = None if series is None else series[j]
        if mask[j]:
            codes = None
            if column is not None and str(column.dtype) == "category":
                codes = cat.category_lookup(column, categories[j])
            elif column is not None and est.handle_unknown == "missing" and \
                    cat.text_table(categories[j]) is not None:
                # Arrow strings: looked up as they are laid into the rows (their
                # unmatched values settled after, which raises nothing when unknown
                # categories are missing: any error is still the first column's)
                codes = cat.arrow_column(column, cat.text_table(categories[j]))
                codes = arrow[j] = codes if codes is not None and codes.consistent else None
            if codes is None:
                codes = cat.encode_frame_column(column, categories[j], est.handle_unknown,
                                                label, threads)
            columns.append(codes if codes is not None else cat.encode(
                cat.column_values(X, j), categories[j], est.handle_unknown, label))
            continue
        values = None if column is None else column.to_numpy()
        columns.append(values if readable(values) else _numeric_column(X, j, label, column))
    out = np.empty((n_rows, mask.shape[0]), dtype=np.float32)
    status = put_columns(columns, out, threads)
    for j, column in arrow.items():
        if column is None:
            continue
        label = val.column_label(j, names)
        if status[j] < 0:
            # buffers that do not hold together: read by the general path
            out[:, j] = cat.encode(cat.column_values(X, j), categories[j],
                                   est.handle_unknown, label)
        elif status[j] > 0:
            cat.settle_unmatched(out[:, j], series[j], categories[j], est.handle_unknown,
                                 label)
    return out


def _frame_columns(X):
    """A pandas DataFrame's columns as Series, by position (None for anything else):
    taken at once, which costs a fraction of a positional lookup per column."""
    if not (hasattr(X, "iloc") and hasattr(X, "items")):
        return None
    return [column for _, column in X.items()]


def _refuse_nan(X, numeric, names):
    bad = np.isnan(X[:, numeric]).any(axis=0)
    if bad.any():
        j = int(np.flatnonzero(numeric)[np.flatnonzero(bad)[0]])
        raise ValueError(f"Input X contains NaN in {val.column_label(j, names)}, and "
                         "missing values are disabled (handle_missing='error')")



def encode_predict_X(est, X, check_values=True):
    """The matrix of X for a fitted estimator: its columns, encoded as at fit (a
    sparse X: validated ``SparseRows``, not densified).

    Checks that the estimator is fitted and that X has its feature names; the
    values too unless ``check_values`` is False (see ``check_X``).
    """
    check_fitted(est)
    if not check_values and _plain(est, X):
        # nothing to encode or name: the routing reads the values (a single row
        # from Python costs a few microseconds, not the full checks' tens)
        if X.dtype == val.DTYPE:
            return np.ascontiguousarray(X)
        if X.dtype == np.float64 and X.flags.aligned:
            return float32_rows(X)
        with np.errstate(over="ignore"):
            return np.ascontiguousarray(X, dtype=val.DTYPE)
    X = as_known_frame(X)
    fitted_names = getattr(est, "feature_names_in_", None)
    val.check_feature_names(fitted_names, X, type(est).__name__)
    if val.is_sparse(X):
        if est.categorical_features_.any():
            raise TypeError("sparse X cannot hold the categorical columns this estimator "
                            "was fitted with: pass a dense array or a DataFrame")
        return val.check_sparse_X(X, est.n_features_in_, missing_allowed(est),
                                  fitted_names, type(est).__name__)
    X, _ = _unwrap_frame(X)
    return _to_matrix(est, X, est.categorical_features_, est.categories_,
                      fitted_names, missing_allowed(est), n_features=est.n_features_in_,
                      check_values=check_values)


def check_predict_values(est, X):
    """Raise as ``encode_predict_X(est, X)`` would for X's values (NaN where not
    allowed, infinity, beyond float32), without encoding its categorical columns
    again: their codes are whole numbers or NaN, and NaN there is always allowed,
    so only the numeric columns are read (as zeros in the category columns' place)."""
    mask = est.categorical_features_
    if val.is_sparse(X) or not mask.any():
        encode_predict_X(est, X)
        return
    X, _ = _unwrap_frame(as_known_frame(X))
    names = getattr(est, "feature_names_in_", None)
    numbers = np.zeros((X.shape[0] if hasattr(X, "shape") else len(X), mask.shape[0]))
    series = _frame_columns(X)
    for j in np.flatnonzero(~mask):
        numbers[:, j] = _numeric_column(X, j, val.column_label(j, names),
                                        None if series is None else series[j])
    val.check_X(numbers, feature_names=names, n_features=est.n_features_in_,
                estimator_name=type(est).__name__, allow_nan=True)
    if not missing_allowed(est):
        _refuse_nan(numbers, ~mask, names)


def _plain(est, X):
    """Whether X is a float array of the fitted width with rows, for an estimator
    fitted without feature names or categorical columns."""
    return (type(X) is np.ndarray and X.dtype.kind == "f" and X.ndim == 2
            and X.shape[0] > 0 and X.shape[1] == est.n_features_in_
            and getattr(est, "feature_names_in_", None) is None
            and not _any_true(est.categorical_features_))


def _any_true(flags):
    # whether a non-empty bool array holds True: its largest value (a quarter of
    # ``flags.any()``'s cost, which a single row's predict feels)
    return bool(flags[flags.argmax()])


def check_fitted(est):
    """Raise NotFittedError (scikit-learn's too, when loaded) unless ``est`` is fitted."""
    fitted = getattr(est, "__sklearn_is_fitted__", None)
    if not (fitted() if fitted is not None else hasattr(est, "tree_")):
        raise val.not_fitted_error(
            f"This {type(est).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator.")


def class_weighted(class_weight, classes, codes, weights):
    """Sample weights times the class weights.

    ``class_weight``: None, "balanced" or a dict; with several outputs
    (``classes`` a list, ``codes`` of shape (n_samples, n_outputs)) "balanced"
    or a list of dicts, one per output, the outputs' factors multiplied (as
    scikit-learn's ``compute_sample_weight``).
    """
    if class_weight is None:
        return weights
    if codes.ndim == 1:
        if isinstance(class_weight, list) and len(class_weight) == 1:
            class_weight = class_weight[0]
        if isinstance(class_weight, list):
            raise ValueError("class_weight is a list (one dict per output) but y has one "
                             "output: pass a dict")
        factors = _class_factors(class_weight, classes, codes)
    else:
        n_outputs = codes.shape[1]
        if not (isinstance(class_weight, list) or class_weight == "balanced"):
            raise ValueError("For multi-output, class_weight should be a list of dicts, or "
                             "the string 'balanced'.")
        if isinstance(class_weight, list) and len(class_weight) != n_outputs:
            raise ValueError(
                "For multi-output, number of elements in class_weight should match number "
                f"of outputs. Got {len(class_weight)} element(s) while having {n_outputs} "
                "outputs.")
        factors = np.ones(codes.shape[0])
        for k in range(n_outputs):
            cw = class_weight if isinstance(class_weight, str) else class_weight[k]
            factors = factors * _class_factors(cw, classes[k], codes[:, k])
    weights = factors if weights is None else weights * factors
    if not (weights > 0).any():
        raise ValueError("sample weights times class weights sum to zero")
    return weights


def _class_factors(cw, classes, codes):
    """Each sample's class weight for one output (``cw``: "balanced" or a dict)."""
    return class_weight_table(cw, classes, np.bincount(codes, minlength=classes.shape[0]))[codes]


def class_weight_table(cw, classes, counts):
    """The weight of each class for one output (``cw``: "balanced" or a dict), given
    the number of samples of each class."""
    if isinstance(cw, str):
        if cw != "balanced":
            raise ValueError(f"class_weight must be None, 'balanced' or a dict; got {cw!r}")
        counts = np.asarray(counts, dtype=np.float64)
        with np.errstate(divide="ignore"):
            per_class = counts.sum() / (classes.shape[0] * counts)
    elif isinstance(cw, dict):
        known = classes.tolist()
        unknown = [k for k in cw if k not in known]
        if unknown:
            raise ValueError(f"class_weight has labels {unknown!r} that are not in y "
                             f"(classes: {known!r})")
        per_class = np.array([float(cw.get(c, 1.0)) for c in known])
        if (per_class < 0).any() or not np.isfinite(per_class).all():
            raise ValueError("class_weight values must be finite and >= 0")
    else:
        raise ValueError(f"class_weight must be None, 'balanced' or a dict; got {cw!r}")
    return per_class


def check_label_kinds(y):
    """Refuse labels mixing strings and numbers (numpy would turn 1 into '1')."""
    if y is None or (isinstance(y, np.ndarray) and y.dtype != object):
        return
    if hasattr(y, "dtype") and getattr(y.dtype, "kind", "O") != "O":
        return
    y = np.asarray(y, dtype=object)
    if y.ndim == 2:  # several outputs: each its own kind of labels
        for k in range(y.shape[1]):
            check_label_kinds(np.ascontiguousarray(y[:, k]))
        return
    values = y.ravel()
    for value in values:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            raise ValueError("Input y contains missing labels (None or NaN)")
    kinds = {isinstance(v, str) for v in values}
    if len(kinds) > 1:
        raise TypeError("y mixes string and number labels; labels must be mutually "
                        "comparable (all str or all numbers)")


def _numeric_column(X, j, label, column=None):
    """Column j as float64 (NaN for missing), fast for frames and numeric arrays
    (``column``: a frame's column j, taken already)."""
    try:
        if hasattr(X, "iloc"):
            column = X.iloc[:, j] if column is None else column
            return column.to_numpy(dtype=np.float64, na_value=np.nan)
        column = np.asarray(X)[:, j] if not isinstance(X, np.ndarray) else X[:, j]
        try:
            return np.asarray(column, dtype=np.float64)
        except TypeError:  # None among the values
            return np.where(cat.missing_mask(column), np.nan, column).astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"X {label} has non-numeric values; list it in "
                         "categorical_features (or use 'auto')") from None


def _unwrap_frame(X):
    """(X, mask of its text columns or None): polars frames become numpy arrays."""
    if is_polars(X):
        return polars_to_array(X)
    return X, None


def _n_columns(X):
    """Number of columns of a 2-D array-like, or None when it is not 2-D."""
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.asarray(X, dtype=object).shape
        except (TypeError, ValueError):
            return None
    return shape[1] if len(shape) == 2 else None


def encode_label_columns(y):
    """Per output, the sorted unique labels; and the int32 codes, of y's shape.

    Returns an array of classes and 1-D codes for a 1-D y, a list of arrays and
    codes of shape (n_samples, n_outputs) for a 2-D y.
    """
    if y.ndim == 1:
        return encode_labels(y)
    columns = [encode_labels(y[:, k]) for k in range(y.shape[1])]
    return ([classes for classes, _ in columns],
            np.ascontiguousarray(np.column_stack([codes for _, codes in columns])))


def encode_labels(y):
    """Sorted unique labels and the int32 code of each sample."""
    if y.dtype.kind == "f":
        if np.isnan(y).any():
            raise ValueError("Input y contains NaN: every sample needs a class label")
        if not np.isfinite(y).all():
            raise ValueError("Input y contains infinity: every sample needs a class label")
        if (y != np.round(y)).any():
            raise ValueError(
                "Unknown label type: continuous. A classifier needs discrete labels "
                "(got non-integer floats); use DecisionTreeRegressor for a numeric target."
            )
    if y.dtype.kind in "iub" and y.size:
        counted = _count_labels(y)
        if counted is not None:
            return counted
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"y labels must be mutually comparable (one kind, e.g. all str or "
                        f"all int): {exc}") from None
    return classes, codes.astype(np.int32).ravel()


def _count_labels(y):
    """``encode_labels`` of integer (or bool) labels spanning a range no wider than
    their number, by counting instead of sorting (one pass each way: a fit's
    serial time on a million labels, 22 -> ~5 ms); None for a wider range."""
    y = y.ravel()
    dtype = y.dtype
    if dtype.kind == "b":
        y = y.view(np.uint8)
    low, high = int(y.min()), int(y.max())
    width = high - low + 1
    if width > max(y.size, 1024):
        return None
    # each label's offset from the least, in a type that holds both (every label
    # lies in [low, low + width): no difference overflows)
    if y.dtype.kind == "u" and y.dtype.itemsize == 8:     # (either byte order)
        offsets = (y - np.uint64(low)).astype(np.intp)
    else:
        offsets = y.astype(np.int64) - np.int64(low)
    present = np.bincount(offsets, minlength=width) > 0
    codes = (np.cumsum(present, dtype=np.int64) - 1).astype(np.int32)
    classes = np.flatnonzero(present).astype(y.dtype) + y.dtype.type(low)
    return classes.astype(dtype), codes[offsets]


def numeric_target(y):
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None")
    val.refuse_sparse_y(y)
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("y must be numeric for a regressor") from None
    if np.isnan(y).any():
        raise ValueError("Input y contains NaN")
    if not np.isfinite(y).all():
        raise ValueError("Input y contains infinity or a value too large for dtype('float64')")
    return y


def check_regression_target(criterion, y):
    """The criterion's own demands on y (its registry row's ``targets``), in
    scikit-learn's order and words.

    They come before y's length is checked against X, as in scikit-learn.
    """
    if criterion.targets == "counts":
        if np.any(y < 0):
            raise ValueError("Some value(s) of y are negative which is not allowed for "
                             "Poisson regression.")
        if not np.any(y > 0):  # sum(y) <= 0 once y >= 0; a sum could overflow
            raise ValueError("Sum of y is not positive which is necessary for Poisson "
                             "regression.")
    return y
