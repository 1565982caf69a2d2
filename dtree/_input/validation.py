"""Input validation: every bad input becomes a clear ValueError or TypeError.

This module turns what users pass (lists, numpy arrays, pandas frames) into the
encoded arrays the Cython core reads, once per call, and names the problem
(shape, column, value) when something is wrong. It never imports scikit-learn;
when scikit-learn is already loaded, the errors and warnings raised also
subclass its classes, so ``except NotFittedError`` keeps working for users who
switch from it.
"""
import numbers
import sys
import warnings

import numpy as np

from .frames import is_polars, polars_names
from .._plan import registry
from .._plan.machine import physical_memory


class NotFittedError(ValueError, AttributeError):
    """Raised when a method needing a fitted estimator is called before fit.

    When scikit-learn is loaded, the error raised is also an instance of
    ``sklearn.exceptions.NotFittedError``, so code written for scikit-learn
    catches it too; dtree itself never imports scikit-learn.
    """


class DataConversionWarning(UserWarning):
    """Warning for input converted in a way the user may not expect."""


def _with_sklearn_class(ours, module_attr, cache={}):
    # scikit-learn is a heavy import: only borrow its class if it is loaded.
    if "sklearn" not in sys.modules:
        return ours
    if ours not in cache:
        try:
            import sklearn.exceptions as skexc

            theirs = getattr(skexc, module_attr)
            cache[ours] = type(ours.__name__, (ours, theirs), {"__module__": ours.__module__})
        except (ImportError, AttributeError):
            cache[ours] = ours
    return cache[ours]


def not_fitted_error(message):
    """A NotFittedError (and scikit-learn's, when it is loaded) with ``message``."""
    return _with_sklearn_class(NotFittedError, "NotFittedError")(message)


DTYPE = np.float32


def refuse_sparse(X):
    """TypeError for a scipy sparse matrix or array where a dense X is needed."""
    if is_sparse(X):
        raise TypeError(
            "sparse input is not supported here: pass a dense array (for example "
            "X.toarray())"
        )


# bytes per cell of the exact splitter's presorted layout at most (value, sample id,
# a row of targets, the sort's scratch) plus the dense copy itself
LAYOUT_BYTES_PER_CELL = 32


def sparse_fit_matrix(X, allow_nan, memory_bytes=None):
    """The dense float32 training matrix of a sparse X (any scipy format).

    For the configurations the sparse splitter does not take (``Choices.sparse``),
    whose splitters lay every cell out anyway, so the dense matrix costs a
    fraction of the fit's memory; a matrix whose layout would exceed half of the
    machine's memory is refused with a ``MemoryError`` before anything is
    allocated.

    Parameters
    ----------
    X : scipy sparse matrix or array
    allow_nan : bool
        Accept stored NaN as missing values.
    memory_bytes : int or None
        The machine's memory (None: asked of the operating system).

    Returns
    -------
    ndarray of shape (n_samples, n_features), float32
    """
    rows = check_sparse_X(X, X.shape[1], allow_nan, estimator_name="the estimator")
    n, d = rows.shape
    need = n * d * LAYOUT_BYTES_PER_CELL
    memory = physical_memory() if memory_bytes is None else memory_bytes
    if memory and need > memory // 2:
        raise MemoryError(
            f"sparse X of shape {(n, d)} would be laid out densely at fit ({n * d} cells, "
            f"about {need / 2**30:.1f} GiB against {memory / 2**30:.1f} GiB of memory): "
            "this configuration fits sparse X through the dense presorted layout (the "
            f"sparse splitter takes {_sparse_rows()}); select fewer columns (or rows)")
    dense = np.zeros((n, d), dtype=DTYPE)
    counts = np.diff(rows.indptr)
    dense[np.repeat(np.arange(n), counts), rows.indices] = rows.data
    return dense


def _sparse_rows():
    """What the sparse splitter takes, from the registry."""
    takes = [row.label for row in registry.ROWS.values()
             if isinstance(row, (registry.Splitter, registry.Preset)) and row.sparse]
    criteria = [row.name for row in registry.CRITERIA if row.sparse]
    return ", ".join(takes) + " and the criteria " + ", ".join(criteria)


def sparse_fit_columns(X, allow_nan):
    """A sparse X (any scipy format) validated for the sparse splitter: a CSC
    matrix of float32 values with sorted row indices and no duplicates (stored
    zeros are left for the splitter to drop).

    Parameters
    ----------
    X : scipy sparse matrix or array
    allow_nan : bool
        Accept stored NaN as missing values.

    Returns
    -------
    scipy.sparse.csc_matrix of shape (n_samples, n_features), float32
    """
    import scipy.sparse   # (sparse input came from scipy, so it is there)
    indptr, indices, values, shape = _checked_sparse(X, "csc", X.shape[1], allow_nan, None,
                                                     "the estimator")
    return scipy.sparse.csc_matrix((values, indices, indptr), shape=shape)


def refuse_sparse_y(y):
    """TypeError for a sparse target: the trees take a dense y."""
    if is_sparse(y):
        raise TypeError("sparse y is not supported: pass a dense 1-D or 2-D array")


def is_sparse(X):
    """Whether X is a scipy sparse matrix or array (told without importing scipy).

    Asked of X's type: a pandas DataFrame answers an attribute it lacks by
    searching its column names, which costs a single row's predict ~15 us a call."""
    kind = type(X)
    return hasattr(kind, "tocsr") and hasattr(kind, "nnz")



class SparseRows:
    """A validated sparse X for predict: canonical CSR (sorted column indices, no
    duplicates, explicit zeros kept as zeros) with float32 values, int32 column
    indices and intp row pointers. The tree's readers walk it without densifying."""

    def __init__(self, indptr, indices, data, shape):
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.shape = shape


def check_sparse_X(X, n_features, allow_nan, feature_names=None, estimator_name="estimator"):
    """Validate a sparse X at predict (any scipy format: it is made CSR).

    Parameters
    ----------
    X : scipy sparse matrix or array
    n_features : int
        The number of features the estimator was fitted on.
    allow_nan : bool
        Accept stored NaN as missing values (infinity is refused either way).
    feature_names, estimator_name
        Used in messages.

    Returns
    -------
    SparseRows
    """
    indptr, indices, values, shape = _checked_sparse(X, "csr", n_features, allow_nan,
                                                     feature_names, estimator_name)
    return SparseRows(indptr, indices, values, shape)


def check_sparse_structure(X):
    """ValueError unless a sparse X's arrays are consistent with each other and its
    shape, checked in O(nnz) before anything converts or reads them: scipy does not
    check arrays edited after construction, and its conversions (and dtree's
    kernels) would read outside them."""
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2 or min(shape) < 0:
        raise ValueError(f"sparse X has an invalid shape {shape!r}")
    problem = None
    if hasattr(X, "indptr") and hasattr(X, "indices"):     # CSR, CSC, BSR
        try:
            X.check_format(full_check=True)
        except (ValueError, TypeError, IndexError) as exc:
            problem = str(exc)
    elif hasattr(X, "row") and hasattr(X, "col"):          # COO
        row, col = np.asarray(X.row), np.asarray(X.col)
        nnz = np.asarray(X.data).shape[0]
        if row.ndim != 1 or col.ndim != 1 or row.shape[0] != nnz or col.shape[0] != nnz:
            problem = "row, col and data must be 1-D arrays of one length"
        elif row.dtype.kind not in "iu" or col.dtype.kind not in "iu":
            problem = "row and col must hold integers"
        elif nnz and (row.min() < 0 or row.max() >= shape[0]):
            problem = f"row indices must lie in [0, {shape[0]})"
        elif nnz and (col.min() < 0 or col.max() >= shape[1]):
            problem = f"column indices must lie in [0, {shape[1]})"
    if problem is not None:
        raise ValueError(f"sparse X ({type(X).__name__}) has inconsistent arrays: {problem} "
                         "(as after editing them in place); rebuild it from valid arrays")


def _checked_sparse(X, layout, n_features, allow_nan, feature_names, estimator_name):
    """A sparse X validated in one compressed layout ("csr" or "csc"): its index
    pointers (intp), indices (int32, sorted, no duplicates) and float32 values (one
    canonical NaN), and its shape."""
    if getattr(X, "ndim", 2) != 2:
        raise ValueError(f"Expected a 2-D sparse X, got {X.ndim}-D")
    check_sparse_structure(X)
    matrix = X.tocsr() if layout == "csr" else X.tocsc()
    if matrix.dtype.kind == "c":
        raise ValueError("Complex data not supported: X contains complex numbers; "
                         "only real numbers are")
    if matrix.dtype.kind not in "biuf":
        raise TypeError(f"X has unsupported dtype {matrix.dtype}; expected numbers")
    n_samples, n_cols = check_size(matrix.shape)
    if n_cols != n_features:
        raise ValueError(f"X has {n_cols} features, but {estimator_name} is expecting "
                         f"{n_features} features as input.")
    if not matrix.has_canonical_format:
        matrix = matrix.copy() if matrix is X else matrix
        matrix.sum_duplicates()   # sorted indices, one entry per (row, column)
    data = matrix.data

    def column(mask):
        k = int(np.flatnonzero(mask)[0])
        j = matrix.indices[k] if layout == "csr" else \
            np.searchsorted(matrix.indptr, k, side="right") - 1
        return column_label(int(j), feature_names)

    if data.dtype.kind == "f":
        if np.isinf(data).any():
            raise ValueError(f"Input X contains infinity in {column(np.isinf(data))}; "
                             "infinite values (inf) are not supported.")
        if not allow_nan and np.isnan(data).any():
            raise ValueError(
                f"Input X contains NaN in {column(np.isnan(data))}, and missing values "
                "are disabled (handle_missing='error'): impute or drop them, or use "
                "handle_missing='split'.")
    with np.errstate(over="ignore"):
        values = data.astype(DTYPE)    # (a copy: the caller's matrix stays as it was)
    if np.isinf(values).any():
        raise ValueError("Input X has a value too large for float32 (inf after conversion) "
                         f"in {column(np.isinf(values))}.")
    values[np.isnan(values)] = np.nan     # one canonical NaN, as in the dense path
    return (np.asarray(matrix.indptr, dtype=np.intp),
            np.asarray(matrix.indices, dtype=np.int32), values, matrix.shape)


def column_label(j, feature_names):
    if feature_names is not None:
        return f"column {j} ({feature_names[j]!r})"
    return f"column {j}"


def get_feature_names(X):
    """Column names of a DataFrame-like X if they are all strings, else None."""
    if is_polars(X):
        return polars_names(X)  # polars names are always strings
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "iloc"):
        return None
    # (a pandas Index of one level converts at once; iterating one held by Arrow
    # strings costs ~1 us a name)
    names = np.asarray(columns, dtype=object) \
        if hasattr(columns, "to_numpy") and getattr(columns, "nlevels", 1) == 1 \
        else np.asarray(list(columns), dtype=object)
    kinds = {isinstance(name, str) for name in names}
    if kinds == {True}:
        return names
    if len(kinds) > 1:
        raise TypeError(
            "Feature names are only supported if all input features have string "
            f"names, but your input has {sorted({type(n).__name__ for n in names})} "
            "as feature name / column name types. Convert them all to str."
        )
    return None


def check_size(shape):
    """(n_samples, n_features) of a 2-D X, refusing one without rows or columns
    (scikit-learn's wording)."""
    for count, what in zip(shape, ("sample", "feature")):
        if count == 0:
            raise ValueError(f"Found array with 0 {what}(s) (shape={tuple(shape)}) while a "
                             "minimum of 1 is required.")
    return shape


def not_2d(shape):
    """The error for an X that is not a table (scikit-learn's advice included)."""
    return ValueError(
        f"Expected a 2-D array X of shape (n_samples, n_features), got a {len(shape)}-D "
        f"array of shape {shape}. Reshape your data with X.reshape(-1, 1) for a "
        "single feature or X.reshape(1, -1) for a single sample.")


def check_X(X, *, feature_names=None, n_features=None, estimator_name="estimator",
            allow_nan=False, check_values=True):
    """Validate a feature matrix and return it as a C-contiguous float32 array.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    feature_names : ndarray or None
        Names used in error messages.
    n_features : int or None
        Expected number of features (at predict time).
    allow_nan : bool, default=False
        Accept NaN as a missing value (infinity is refused either way).
    check_values : bool, default=True
        Check the values (NaN, infinity, overflow of float32). False leaves that
        to a caller that reads every value anyway (predict's routing reports
        NaN or infinity, then the caller checks again with True): the returned
        matrix may then hold infinities and NaN of either sign.
    estimator_name : str
        Used in messages.

    Returns
    -------
    ndarray of shape (n_samples, n_features), float32
    """
    if X is None:
        raise ValueError(f"{estimator_name} expected a 2-D array X, got None")
    refuse_sparse(X)
    if hasattr(X, "iloc"):
        X = _frame_to_numeric(X)
    try:
        arr = np.asarray(X)
        if arr.dtype.kind in "OUSV":
            arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"X must contain only numbers: {exc}") from None
    except OverflowError:
        raise ValueError("X holds an integer beyond float64's range") from None
    if arr.dtype.kind == "c":
        raise ValueError("Complex data not supported: X contains complex numbers; "
                         "only real numbers are")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"X has unsupported dtype {arr.dtype}; expected numbers")
    if arr.ndim != 2:
        raise not_2d(arr.shape)
    n_samples, n_cols = check_size(arr.shape)
    if n_features is not None and n_cols != n_features:
        raise ValueError(
            f"X has {n_cols} features, but {estimator_name} is expecting {n_features} "
            "features as input."
        )
    if not check_values:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.ascontiguousarray(arr, dtype=DTYPE)
    has_nan = False
    if arr.dtype.kind == "f":
        finite = np.isfinite(arr)
        if not finite.all():
            infinite = np.isinf(arr)
            if infinite.any():
                j = int(np.flatnonzero(infinite.any(axis=0))[0])
                raise ValueError(
                    f"Input X contains infinity in {column_label(j, feature_names)}; "
                    "infinite values (inf) are not supported.")
            has_nan = True
            if not allow_nan:
                j = int(np.flatnonzero(np.isnan(arr).any(axis=0))[0])
                raise ValueError(
                    f"Input X contains NaN in {column_label(j, feature_names)}, and "
                    "missing values are disabled (handle_missing='error'): impute or "
                    "drop them, or use handle_missing='split'.")
    with np.errstate(over="ignore"):  # values beyond float32 are reported just below
        out = np.ascontiguousarray(arr, dtype=DTYPE)
    # float32 input was checked above; wider floats may overflow in the conversion
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 4 and np.isinf(out).any():
        j = int(np.flatnonzero(np.isinf(out).any(axis=0))[0])
        raise ValueError(
            f"Input X has a value too large for float32 (inf after conversion) in "
            f"{column_label(j, feature_names)}.")
    if has_nan:
        # one canonical NaN (sign bit clear): the radix presort puts it last
        if not out.flags.writeable or out is arr:
            out = out.copy()
        out[np.isnan(out)] = np.nan
    return out


def _frame_to_numeric(frame):
    """A pandas DataFrame as a numeric numpy array, naming a non-numeric column."""
    for j, dtype in enumerate(frame.dtypes):
        kind = getattr(dtype, "kind", "O")
        if kind not in "biuf":
            name = frame.columns[j]
            try:
                if kind in "mM":    # times are no numbers, whichever library holds them
                    raise TypeError
                frame.iloc[:, j].to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError, IndexError):
                raise ValueError(
                    f"X column {j} ({name!r}) has non-numeric values (dtype {dtype}); "
                    "encode it as numbers first (categorical support comes with "
                    "categorical_features)."
                ) from None
    return frame.to_numpy(dtype=np.float64, na_value=np.nan)


def check_y(y, n_samples, *, estimator_name="estimator", multi_output=False,
            warn_column=True):
    """Validate a target: 1-D (a column vector is raveled with a warning), or with
    ``multi_output`` (the trees) also 2-D of shape (n_samples, n_outputs), where a
    single column is raveled, silently unless ``warn_column`` (a configuration
    that has one output only, as scikit-learn warns for such estimators)."""
    if y is None:
        raise ValueError(f"{estimator_name} requires y to be passed, but the target y is None")
    refuse_sparse_y(y)
    y = np.asarray(y)
    if multi_output and y.ndim == 2 and not (y.shape[1] == 1 and warn_column):
        if y.shape[1] == 0:
            raise ValueError("y has no outputs: shape (n_samples, 0)")
        if y.shape[0] != n_samples:
            raise ValueError(
                f"X and y have inconsistent numbers of samples: X has {n_samples}, "
                f"y has {y.shape[0]}")
        return y[:, 0] if y.shape[1] == 1 else y
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change "
            "the shape of y to (n_samples,), for example using ravel().",
            _with_sklearn_class(DataConversionWarning, "DataConversionWarning"),
            stacklevel=3,
        )
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            f"y must be 1-D of shape (n_samples,)"
            f"{' or 2-D of shape (n_samples, n_outputs)' if multi_output else ''}, got "
            f"shape {y.shape}"
        )
    if y.shape[0] != n_samples:
        raise ValueError(
            f"X and y have inconsistent numbers of samples: X has {n_samples}, "
            f"y has {y.shape[0]}"
        )
    return y


def check_sample_weight(sample_weight, n_samples):
    """Validate sample weights: finite, non-negative, positive sum. None stays None."""
    if sample_weight is None:
        return None
    complex_error = TypeError("sample_weight must be real numbers, got complex values")
    if isinstance(sample_weight, numbers.Number) and \
            not isinstance(sample_weight, numbers.Real):
        raise complex_error
    try:
        if isinstance(sample_weight, numbers.Number):
            sample_weight = np.full(n_samples, sample_weight, dtype=np.float64)
        sw = np.asarray(sample_weight)
        if sw.dtype.kind == "c":         # casting would drop the imaginary part
            raise complex_error
        sw = sw.astype(np.float64)
    except OverflowError:   # a Python int past 2**1024
        raise ValueError("sample_weight holds a number beyond float64's range") from None
    except (TypeError, ValueError) as exc:
        if exc is complex_error:
            raise
        raise TypeError(f"sample_weight must be numeric: {exc}") from None
    if sw.ndim == 0:
        # a 0-d array (a Python number is a constant weight above): scikit-learn's words
        raise TypeError("sample_weight: Input should have at least 1 dimension i.e. satisfy "
                        f"`len(x.shape) > 0`, got scalar `{sw!r}` instead.")
    if sw.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D, got shape {sw.shape}")
    if sw.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight.shape == {sw.shape}, expected ({n_samples},) to match X"
        )
    if not np.isfinite(sw).all():
        raise ValueError("sample_weight contains NaN or infinity")
    if (sw < 0).any():
        raise ValueError(f"sample_weight contains negative values (min {sw.min()!r}); "
                         "weights must be >= 0")
    if not (sw > 0).any():  # (a sum could overflow)
        raise ValueError("sample_weight sums to zero: at least one sample needs a "
                         "positive weight")
    return np.array(sw, dtype=np.float64)


def check_feature_names(fitted_names, X, estimator_name):
    """Compare the column names of X at predict time with those seen at fit."""
    names = get_feature_names(X)
    if fitted_names is None and names is None:
        return
    if fitted_names is None:
        warnings.warn(f"X has feature names, but {estimator_name} was fitted without "
                      "feature names", UserWarning, stacklevel=3)
        return
    if names is None:
        warnings.warn(f"X does not have valid feature names, but {estimator_name} was "
                      "fitted with feature names", UserWarning, stacklevel=3)
        return
    if len(names) == len(fitted_names) and (names == fitted_names).all():
        return
    message = "The feature names should match those that were passed during fit.\n"
    unseen = [n for n in names if n not in set(fitted_names)]
    missing = [n for n in fitted_names if n not in set(names)]

    def listing(items):
        shown = [f"- {n}\n" for n in sorted(items)[:5]]
        if len(items) > 5:
            shown.append("- ...\n")
        return "".join(shown)

    if unseen:
        message += "Feature names unseen at fit time:\n" + listing(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + listing(missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)
