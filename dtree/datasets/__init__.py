"""Small real datasets shipped with dtree, for examples, tests and benchmarks.

Each loader reads a gzip CSV from ``dtree/datasets/data`` (no network). The
provenance, licences and checksums of every file are in ``README.md`` beside
this module. Missing values are empty fields in the files.

With pandas installed, ``load(name)`` returns a DataFrame (empty fields become
NaN); ``load(name, as_frame=False)`` returns the header and the rows as lists of
strings using only the standard library.
"""
import csv
import gzip
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"

#: dataset name -> target column
TARGETS = {
    "play_tennis": "PlayTennis",
    "mushroom": "class",
    "car_evaluation": "class",
    "adult": "income",
    "titanic": "Survived",
    "california_housing": "median_house_value",
    "kyphosis": "Kyphosis",
    "car_test_frame": "Mileage",
    "kddcup99_10pct": "label",
    "breast_cancer_ljubljana": "Class",
    "labor": "class",
    "soybean": "class",
    "credit_g": "class",
}


def available():
    """Names of the shipped datasets.

    Returns
    -------
    list of str
    """
    return sorted(TARGETS)


def path(name):
    """Path of a shipped dataset's ``.csv.gz`` file.

    Parameters
    ----------
    name : str
        One of ``available()``.

    Returns
    -------
    pathlib.Path
    """
    if name not in TARGETS:
        raise ValueError(f"unknown dataset {name!r}; available: {available()}")
    return DATA_DIR / f"{name}.csv.gz"


def load(name, as_frame=True, **read_csv_kwargs):
    """Load a shipped dataset.

    Parameters
    ----------
    name : str
        One of ``available()``.
    as_frame : bool, default=True
        Return a pandas DataFrame (pandas required). Otherwise return
        ``(header, rows)`` with every cell a string, read with the standard
        library.
    **read_csv_kwargs
        Passed to ``pandas.read_csv``.

    Returns
    -------
    pandas.DataFrame or (list of str, list of list of str)
    """
    file = path(name)
    if as_frame:
        import pandas as pd

        return pd.read_csv(file, **read_csv_kwargs)
    with gzip.open(file, "rt", newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = list(reader)
    return header, rows


def load_Xy(name, **read_csv_kwargs):
    """Load a dataset split into features and target (pandas required).

    Parameters
    ----------
    name : str
        One of ``available()``.
    **read_csv_kwargs
        Passed on to ``pandas.read_csv`` (see ``load``).

    Returns
    -------
    X : pandas.DataFrame
        Every column but the target.
    y : pandas.Series
        The dataset's target column (``TARGETS[name]``).
    """
    frame = load(name, **read_csv_kwargs)
    target = TARGETS[name]
    return frame.drop(columns=[target]), frame[target]
