"""Bin thresholds for the histogram splitter (see ``_hist``)."""
import numpy as np

MAX_BINS = 255


def fit_bins(X, max_bins, sample_rows=200_000, seed=0):
    """Upper thresholds of each feature's bins, from (a sample of) the rows of X.

    Returns a list of float64 arrays: feature f's codes are the number of its
    thresholds below a value. A feature with at most ``max_bins`` distinct
    values gets one bin per value (thresholds at the midpoints); otherwise
    bins hold about equal numbers of samples, and a value holding more than a
    bin's share (the zeros of a sparse column) is a bin of its own.
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
    max_bins - 1 of them, increasing), for distinct values with these counts."""
    n_values = counts.shape[0]
    cum = np.cumsum(counts)
    # cut where the cumulative count crosses k/max_bins of the total ...
    targets = cum[-1] * np.arange(1, max_bins) / max_bins
    quantile_ends = np.unique(np.searchsorted(cum, targets, side="left"))
    # ... and on both sides of a heavy value, heaviest first while there is room
    heavy = np.flatnonzero(counts * max_bins > cum[-1])
    heavy = heavy[np.argsort(-counts[heavy], kind="stable")]
    own = np.concatenate([np.stack([heavy - 1, heavy], axis=1).ravel(), [-1]])
    own = own[(own >= 0) & (own < n_values - 1)]
    own = own[np.sort(np.unique(own, return_index=True)[1])][:max_bins - 1]
    rest = np.setdiff1d(quantile_ends[quantile_ends < n_values - 1], own)
    room = max_bins - 1 - own.shape[0]
    if rest.shape[0] > room:
        rest = rest[np.unique(np.linspace(0, rest.shape[0] - 1, room).round().astype(int))] \
            if room > 0 else rest[:0]
    return np.union1d(own, rest).astype(np.intp)


def _midpoints(a, b):
    # the exact splitter's midpoint rule, elementwise (see _splitter.midpoint)
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    t = a / 2.0 + b / 2.0
    bad = (t >= b) | np.isinf(t)
    t[bad] = a[bad]
    return t
