"""Bin thresholds for the histogram splitter (see ``_hist``)."""
import numpy as np

MAX_BINS = 255


def fit_bins(X, max_bins, sample_rows=200_000, seed=0):
    """Upper thresholds of each feature's bins, from (a sample of) the rows of X.

    Returns a list of float64 arrays: feature f's codes are the number of its
    thresholds below a value. A feature with at most ``max_bins`` distinct
    values gets one bin per value (thresholds at the midpoints); otherwise
    a value holding more than a bin's share (the zeros of a sparse column) is a
    bin of its own and the other bins hold about equal numbers of samples.
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
            last = _bin_ends(counts, max_bins)
            upper, following = values[last], values[last + 1]
        else:
            upper, following = values[:-1], values[1:]
        out.append(_midpoints(upper, following))
    return out


def _bin_ends(counts, max_bins):
    """The index of the last distinct value of each bin but the last (at most
    max_bins - 1 of them, increasing), for distinct values with these counts.

    A value holding more than a bin's share of the rows gets edges on both sides,
    heaviest first while there is room; the other edges split the remaining rows
    into bins of about equal counts (so a heavy value does not swallow them)."""
    n_values = counts.shape[0]
    total = counts.sum()
    heavy = np.flatnonzero(counts * max_bins > total)
    heavy = heavy[np.argsort(-counts[heavy], kind="stable")]
    own = np.stack([heavy - 1, heavy], axis=1).ravel()
    own = own[(own >= 0) & (own < n_values - 1)]
    own = own[np.sort(np.unique(own, return_index=True)[1])][:max_bins - 1]
    room = max_bins - 1 - own.shape[0]
    light = np.where(np.isin(np.arange(n_values), heavy), 0, counts)
    cum = np.cumsum(light)
    rest = np.zeros(0, dtype=np.intp)
    if room > 0 and cum[-1] > 0:
        # cut where the cumulative count of the other rows crosses k/(room + 1)
        targets = cum[-1] * np.arange(1, room + 1) / (room + 1)
        rest = np.unique(np.searchsorted(cum, targets, side="left"))
        rest = rest[rest < n_values - 1]
    return np.union1d(own, rest).astype(np.intp)


def _midpoints(a, b):
    # the exact splitter's midpoint rule, elementwise (see _splitter.midpoint)
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    t = a / 2.0 + b / 2.0
    bad = (t >= b) | np.isinf(t)
    t[bad] = a[bad]
    return t
