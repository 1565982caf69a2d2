"""Categorical features: which columns they are, and their encoding as codes.

A categorical column is encoded once at fit: its categories (the distinct
non-missing values, sorted; a pandas ``category`` column keeps its own order)
become codes 0..k-1 stored as float32 in the feature matrix, missing values
(None, NaN, pandas NA) become NaN. The Cython core splits such a column by a
set of codes; predict encodes new data with the categories seen at fit.
"""
import math
import numbers
import warnings
import weakref

import numpy as np

from .._text_codes import ArrowColumn, TextCategories, object_codes

MAX_CATEGORIES = 1024


def _is_missing(value):
    if value is None:
        return True
    try:
        unequal = value != value  # NaN and NaT differ from themselves
    except (TypeError, ValueError):
        return False
    if unequal is value and not isinstance(value, (bool, np.bool_)):
        return True               # pandas.NA: a comparison with it is NA itself
    try:
        return bool(unequal)
    except (TypeError, ValueError):
        return False


def column_values(X, j):
    """Column j of a DataFrame or 2-D array-like, as a 1-D numpy array."""
    if hasattr(X, "iloc"):
        return X.iloc[:, j].to_numpy(dtype=object, na_value=None)
    arr = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
    return arr[:, j]


def _looks_categorical(X, j):
    if hasattr(X, "dtypes"):
        dtype = X.dtypes.iloc[j]
        return str(dtype) in ("category", "object", "string", "str") or \
            getattr(dtype, "kind", "O") in "OUS"
    arr = np.asarray(X) if not isinstance(X, np.ndarray) else X
    if arr.dtype.kind in "US":
        return True
    if arr.dtype.kind != "O":
        return False
    for value in arr[:, j]:
        if _is_missing(value):
            continue
        if isinstance(value, (str, bytes)):
            try:
                float(value)
            except ValueError:
                return True
        elif not isinstance(value, numbers.Number):
            return True
    return False


def resolve_mask(spec, X, names, n_features, text_columns=None):
    """Boolean mask of the categorical columns from ``categorical_features``.

    Parameters
    ----------
    spec : None, "auto", array-like of int or str, or boolean mask
    X : the training data (DataFrame or array-like)
    names : ndarray of str or None
        Column names of X.
    n_features : int
    text_columns : ndarray of bool or None
        Which columns the frame X came from typed as text (polars), if known.
    """
    mask = np.zeros(n_features, dtype=bool)
    if spec is None:
        return mask
    if isinstance(spec, str):
        if spec != "auto":
            raise ValueError(f"categorical_features must be None, 'auto', indices, names "
                             f"or a boolean mask; got {spec!r}")
        if text_columns is not None:
            return np.asarray(text_columns, dtype=bool).copy()
        for j in range(n_features):
            mask[j] = _looks_categorical(X, j)
        return mask
    items = list(np.asarray(spec, dtype=object).ravel())
    if items and all(isinstance(v, (bool, np.bool_)) for v in items):
        if len(items) != n_features:
            raise ValueError(f"categorical_features as a mask needs {n_features} entries; "
                             f"got {len(items)}")
        return np.asarray(items, dtype=bool)
    for item in items:
        if isinstance(item, str):
            if names is None or item not in list(names):
                raise ValueError(f"categorical_features names {item!r}, which is not a "
                                 "column of X")
            mask[list(names).index(item)] = True
        elif isinstance(item, numbers.Integral):
            if not -n_features <= item < n_features:
                raise ValueError(f"categorical_features index {item} is out of range for "
                                 f"{n_features} features")
            mask[item] = True
        else:
            raise ValueError(f"categorical_features entries must be column indices or "
                             f"names; got {item!r}")
    return mask


# "auto" leaves out a text column whose rows mostly hold rare values: at least
# IDENTIFIER_MIN distinct values, and at least IDENTIFIER_SHARE of its present
# rows holding a value that fewer than IDENTIFIER_RARE rows hold (names, ids,
# tickets, cabins). A category so few rows have cannot generalise, and a set of
# such categories fits the training rows by heart (LightGBM guards its
# categories the same way: a category group needs min_data_per_group rows).
IDENTIFIER_MIN = 20
IDENTIFIER_RARE = 5
IDENTIFIER_SHARE = 0.5


class IdentifierColumnWarning(UserWarning):
    """A text column taken as categorical looks like an identifier: left out."""


def identifier_like(values):
    """(whether the column looks like an identifier, its distinct values, its
    present rows): most present rows hold a value fewer than IDENTIFIER_RARE
    rows hold."""
    values = np.asarray(values, dtype=object)
    present = values[~missing_mask(values)]
    try:
        _, counts = np.unique(present.astype(str), return_counts=True)
    except (TypeError, ValueError):   # values with no text form: fit_categories names them
        return False, 0, len(present)
    rare = int(counts[counts < IDENTIFIER_RARE].sum())
    return (len(counts) >= IDENTIFIER_MIN and rare >= IDENTIFIER_SHARE * len(present),
            len(counts), len(present))


def leave_out_identifier(values, label):
    """Under ``categorical_features="auto"``: the categories of a column that looks
    like an identifier are none (every value reads as missing, so no split uses
    it), with a warning saying so; None for any other column."""
    looks, distinct, present = identifier_like(values)
    if not looks:
        return None
    warnings.warn(
        f"categorical {label} has {distinct} distinct values in {present} rows: it "
        "looks like an identifier, and splits on it would not generalise, so "
        "categorical_features='auto' leaves it out of the tree. To split on it, list "
        "it in categorical_features (the command line: --categorical-features); or "
        "drop it.", IdentifierColumnWarning, stacklevel=4)
    return np.asarray([], dtype=object)


def missing_mask(values):
    """Which entries of an object array are missing (None or NaN), vectorised."""
    values = np.asarray(values, dtype=object)
    try:
        with np.errstate(invalid="ignore"):
            mask = np.asarray(values == None, dtype=bool)  # noqa: E711 (elementwise)
            mask |= np.asarray(values != values, dtype=bool)  # NaN
    except (TypeError, ValueError):
        # arrays among the values compare elementwise, pandas.NA has no truth
        # value: one by one
        mask = np.array([_is_missing(v) for v in values], dtype=bool).reshape(values.shape)
    return mask


def fit_categories(values, label):
    """Sorted distinct non-missing values of a column (its categories)."""
    values = np.asarray(values, dtype=object)
    present = values[~missing_mask(values)]
    _refuse_unhashable(present, label)
    try:
        if present.size and isinstance(present[0], str):
            # text: unique in C on a unicode array (non-text values become text)
            distinct = np.unique(present.astype(str)).tolist()
        else:
            distinct = list(np.unique(present))
    except TypeError:  # values that do not compare: keep them as text
        distinct = sorted({str(v) for v in present})
    if len({isinstance(v, str) for v in distinct}) > 1:
        distinct = sorted({str(v) for v in distinct})
    for v in distinct:
        if isinstance(v, numbers.Real) and not isinstance(v, bool) and \
                not np.isfinite(float(v)):
            raise ValueError(f"categorical {label} has the non-finite value {v!r}")
        if isinstance(v, numbers.Real) and not isinstance(v, bool) and \
                float(v) != round(float(v)):
            raise ValueError(f"categorical {label} has the non-integer value {v!r}: a "
                             "numeric category must be a whole number (or pass the column "
                             "as numeric)")
    if len(distinct) > MAX_CATEGORIES:
        raise ValueError(f"categorical {label} has {len(distinct)} categories; at most "
                         f"{MAX_CATEGORIES} are supported")
    return np.asarray(distinct, dtype=object)


def _refuse_unhashable(present, label):
    """A category is a number or text: lists, arrays or dicts in a column are refused."""
    try:
        set(present.tolist())
    except TypeError:
        for value in present:
            try:
                hash(value)
            except TypeError:
                raise TypeError(f"categorical {label} holds a value of type "
                                f"{type(value).__name__} ({value!r:.40}); a category must be "
                                "a number, text or another hashable value") from None


def _sorted_keys(values, missing, categories):
    """(sorted categories, lookup key per value) when both can be compared in C."""
    if not len(categories):
        return None
    if all(isinstance(c, str) for c in categories):
        return np.asarray(categories, dtype=str), np.where(missing, "", values).astype(str)
    if all(isinstance(c, numbers.Real) and not isinstance(c, bool) for c in categories):
        try:
            keys = np.where(missing, np.nan, values).astype(np.float64)
        except (TypeError, ValueError):
            return None
        return np.asarray(categories, dtype=np.float64), keys
    return None


def _whole(value):
    """Whether a value is a whole number (1.0 finds the category 1), never an inf."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    return isinstance(value, numbers.Integral) or (math.isfinite(value) and
                                                   float(value).is_integer())


def _lookup_one_by_one(values, missing, categories):
    # mixed kinds: dictionary lookups, with ints and text tried as fallbacks
    lookup = {category: code for code, category in enumerate(categories)}
    codes = np.zeros(len(values), dtype=np.intp)
    known = np.zeros(len(values), dtype=bool)
    for i, value in enumerate(values):
        if missing[i]:
            continue
        code = lookup.get(value)
        if code is None and _whole(value):
            code = lookup.get(int(value))
        if code is None and not isinstance(value, str):
            code = lookup.get(str(value))  # categories of mixed kinds were kept as str
        if code is not None:
            codes[i], known[i] = code, True
    return codes, known


# each fitted column's text table, built once while its categories array lives
# (keyed by the array's identity; a dead array's entry goes with it)
_TABLES = {}


def text_table(categories):
    """The ``TextCategories`` of a fitted column's categories when they are all
    text (None when they are not, or there are none), built once per array."""
    key = id(categories)
    entry = _TABLES.get(key)
    if entry is not None and entry[0]() is categories:
        return entry[1]
    table = None
    if len(categories) and all(isinstance(c, str) for c in categories):
        table = TextCategories(categories)
    try:
        ref = weakref.ref(categories, lambda _, key=key: _TABLES.pop(key, None))
    except TypeError:       # (no weak reference to it, as to a list: not kept)
        return table
    _TABLES[key] = (ref, table)
    return table


def encode_frame_column(column, categories, handle_unknown, label, n_threads=1):
    """Codes of a pandas DataFrame's column (a Series) under text categories, looked
    up in C (``_text_codes``, on ``n_threads``: Arrow strings read in place, Python
    strings through their characters or a dictionary); None where this does not
    apply (no Series, categories not all text), for ``encode`` to do. Nulls are
    missing (NaN);
    values not matched exactly (unknown categories, numbers in a text column, NaN)
    are looked up by ``encode`` itself (``settle_unmatched``), so the codes are
    ``encode``'s."""
    table = None if column is None else text_table(categories)
    if table is None:
        return None
    arrow = arrow_column(column, table)
    out = None if arrow is None else arrow.codes(n_threads)
    if out is None and str(column.dtype) == "category":
        out = _category_codes(column, table)
    if out is None:
        out = _exact_text_codes(column.to_numpy(dtype=object), table, n_threads)
    settle_unmatched(out, column, categories, handle_unknown, label)
    return out


def settle_unmatched(out, column, categories, handle_unknown, label):
    """Where the C readers left -1 in ``out`` (a column's codes, any stride: no exact
    match), ``encode``'s general rule for those rows of the Series ``column``."""
    rows = np.flatnonzero(out < 0)
    if rows.size:
        # unknown categories, or values of another kind: encode's rule
        out[rows] = encode(column.iloc[rows].to_numpy(dtype=object, na_value=None),
                           categories, handle_unknown, label)


def arrow_column(column, table):
    """A pandas column held by Arrow strings as an ``ArrowColumn`` under ``table``
    (its buffers read in place); None when it is held otherwise. Its buffers are
    checked: ``consistent`` says whether they may be read."""
    to_arrow = getattr(column.array, "__arrow_array__", None)
    if to_arrow is None or column.dtype == object:
        return None
    try:
        import pyarrow as pa

        values = to_arrow()
    except Exception:       # another Arrow layout or version: the general path
        return None
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    parts = []
    for chunk in chunks:
        if not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
            return None
        validity, offsets, data = chunk.buffers()
        width = np.int32 if pa.types.is_string(chunk.type) else np.int64
        parts.append((np.frombuffer(offsets, dtype=width),
                      np.frombuffer(data, dtype=np.uint8) if data is not None
                      else np.zeros(0, dtype=np.uint8),
                      None if validity is None or chunk.null_count == 0
                      else np.frombuffer(validity, dtype=np.uint8),
                      chunk.offset, len(chunk)))
    arrow = ArrowColumn(table, parts)
    return arrow if arrow.n_rows == len(column) else None


def _category_codes(column, table):
    """float32 codes of a pandas ``category`` column: its own categories looked up
    once, its codes mapped (NaN: missing; -1: unmatched)."""
    return np.roll(_category_table(column, table), -1)[_codes_of(column)]


def _category_table(column, table):
    # the fitted code of each of a pandas category column's own categories, after
    # NaN for its code -1 (missing): table[code + 1] (-1: unmatched)
    held = column.array       # (the Categorical itself: ``.cat`` builds Series)
    own = np.asarray(held.categories if hasattr(held, "categories") else
                     column.cat.categories, dtype=object)
    out = np.empty(own.shape[0] + 1, dtype=np.float32)
    out[0] = np.nan
    out[1:] = _exact_text_codes(own, table)
    return out


def category_lookup(column, categories):
    """(codes, table) of a pandas ``category`` column whose own categories are all
    text categories seen at fit: its integer codes (-1: missing) and each code's
    fitted code at ``table[code + 1]`` (NaN at 0), for ``_columns.put_columns`` to
    look up as it lays the rows; None otherwise (``encode_frame_column`` then
    applies)."""
    text = text_table(categories)
    if text is None:
        return None
    table = _category_table(column, text)
    if (table[1:] < 0).any():      # an unknown category or another kind: encode's rule
        return None
    return _codes_of(column), table


def _codes_of(column):
    # a pandas category column's integer codes: its Categorical's own array (the
    # ``.cat.codes`` Series is a copy)
    codes = getattr(column.array, "codes", None)
    return np.asarray(codes if codes is not None else column.cat.codes)


def _exact_text_codes(values, table, n_threads=1):
    """float32 codes of an object array's exact ``str`` values (NaN: None; -1:
    anything else, for ``encode``'s general rule), on ``n_threads``."""
    out = np.empty(values.shape[0], dtype=np.float32)
    object_codes(table, values, out, n_threads)
    return out


def encode(values, categories, handle_unknown, label):
    """Codes (float32, NaN for missing) of a column under known categories.

    A column fitted without categories (left out as an identifier, or missing
    throughout) never splits: all of it reads as missing, whatever it holds.
    """
    values = np.asarray(values, dtype=object)
    if len(categories) == 0:
        return np.full(len(values), np.nan, dtype=np.float32)
    table = text_table(categories) if values.ndim == 1 else None
    if table is not None:
        # exact text in C; the general rule below for the rest
        out = _exact_text_codes(values, table)
        rest = np.flatnonzero(out < 0)
        if rest.size:
            out[rest] = _encode_values(values[rest], categories, handle_unknown, label)
        return out
    return _encode_values(values, categories, handle_unknown, label)


def _encode_values(values, categories, handle_unknown, label):
    """``encode``'s general rule (any kinds of values and categories)."""
    missing = missing_mask(values)
    sorted_keys = _sorted_keys(values, missing, categories)
    if sorted_keys is not None:
        order, keys = sorted_keys
        codes = np.searchsorted(order, keys)
        known = ~missing & (codes < len(order)) & \
            (order[np.minimum(codes, len(order) - 1)] == keys)
    else:
        codes, known = _lookup_one_by_one(values, missing, categories)
    unknown = ~known & ~missing
    if unknown.any() and handle_unknown != "missing":
        value = values[int(np.flatnonzero(unknown)[0])]
        raise ValueError(f"categorical {label} has the category {value!r}, unseen at "
                         "fit (handle_unknown='missing' treats such values as missing)")
    out = codes.astype(np.float32)
    out[~known] = np.nan
    return out
