"""Bin thresholds for the histogram splitter (see ``_hist``)."""
import numpy as np

MAX_BINS = 255


def fit_bins(X, max_bins, sample_rows=200_000, seed=0):
    """Upper thresholds of each feature's bins, from (a sample of) the rows of X.

    Returns a list of float64 arrays: feature f's codes are the number of its
    thresholds below a value. A feature with at most ``max_bins`` distinct
    values gets one bin per value (thresholds at the midpoints); otherwise
    bins hold about equal numbers of samples, a frequent value alone.
    """
    X = np.asarray(X, dtype=np.float32)
    n = X.shape[0]
    if n > sample_rows:
        rows = np.sort(np.random.default_rng(seed).choice(n, sample_rows, replace=False))
        X = X[rows]
    out = []
    for f in range(X.shape[1]):
        column = X[:, f]
        values, counts = np.unique(column[~np.isnan(column)], return_counts=True)
        if values.shape[0] > max_bins:
            # cut where the cumulative count crosses k/max_bins of the total
            cum = np.cumsum(counts)
            targets = cum[-1] * np.arange(1, max_bins) / max_bins
            last = np.unique(np.searchsorted(cum, targets, side="left"))
            last = last[last < values.shape[0] - 1]
            upper, following = values[last], values[last + 1]
        else:
            upper, following = values[:-1], values[1:]
        out.append(_midpoints(upper, following))
    return out


def _midpoints(a, b):
    # the exact splitter's midpoint rule, elementwise (see _splitter.midpoint)
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    t = a / 2.0 + b / 2.0
    bad = (t >= b) | np.isinf(t)
    t[bad] = a[bad]
    return t
