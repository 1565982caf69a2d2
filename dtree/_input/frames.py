"""Data frames other than pandas: each kept with its column names.

pandas frames are read column by column where they are used (``validation``,
``categorical``). A polars frame is turned once into a numpy array (float64
when every column is numeric, else an object array with None for nulls), and
its column names and which of its columns hold text (String, Categorical,
Enum) are kept, so ``feature_names_in_`` and ``categorical_features="auto"``
work the same on both. Any other frame (a pyarrow Table or RecordBatch, or
anything speaking the dataframe interchange protocol, ``__dataframe__``)
becomes a pandas frame (``as_known_frame``), so its names are kept too: a
table whose columns come in another order at predict is matched by name or
refused, never read by position. A pandas Series is refused: X has columns.
"""
import numpy as np

_TEXT_DTYPES = ("String", "Utf8", "Categorical", "Enum", "Object")


def is_polars(X):
    """Whether X is a polars DataFrame (polars itself is never imported here)."""
    return type(X).__module__.startswith("polars") and hasattr(X, "get_column")


def polars_names(X):
    """Column names of a polars frame (str), as an object array."""
    return np.asarray([str(c) for c in X.columns], dtype=object)


def polars_to_array(X):
    """(2-D numpy array, boolean mask of text columns) of a polars DataFrame."""
    columns = [X.get_column(name) for name in X.columns]
    text = np.array([str(c.dtype).split("(")[0] in _TEXT_DTYPES for c in columns],
                    dtype=bool)
    n_rows = X.shape[0]
    if not text.any():
        out = np.empty((n_rows, len(columns)), dtype=np.float64)
        for j, column in enumerate(columns):
            out[:, j] = _numeric(column)
        return out, text
    out = np.empty((n_rows, len(columns)), dtype=object)
    for j, column in enumerate(columns):
        out[:, j] = column.to_numpy() if text[j] else _numeric(column)
    return out, text


def _numeric(column):
    """A numeric or boolean polars column as float64, NaN for nulls."""
    try:
        return np.asarray(column.to_numpy(), dtype=np.float64)
    except (TypeError, ValueError):  # nulls in a boolean column come as None
        values = column.to_numpy()
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def _is_pandas(X):
    return type(X).__module__.startswith("pandas")


def as_known_frame(X):
    """X as a pandas or polars frame where it is another kind of frame (pyarrow,
    the interchange protocol), else X itself; TypeError for a pandas Series."""
    if _is_pandas(X):
        # (asked of the type: a DataFrame searches its column names for an
        # attribute it lacks)
        if hasattr(type(X), "to_frame") and not hasattr(type(X), "columns"):
            raise TypeError("X is a pandas Series (one column): pass a DataFrame "
                            "(series.to_frame()) or a 2-D array")
        return X
    if is_polars(X) or not (hasattr(X, "__dataframe__") or _is_pyarrow_table(X)):
        return X
    try:
        import pandas as pd
    except ImportError:
        raise TypeError(f"X is a {type(X).__name__}: dtree reads such tables by column "
                        "name through pandas, which is not installed; install pandas, or "
                        "pass a numpy array") from None
    if _is_pyarrow_table(X):
        return X.to_pandas()
    return pd.api.interchange.from_dataframe(X)


def _is_pyarrow_table(X):
    return type(X).__module__.startswith("pyarrow") and hasattr(X, "column_names")
