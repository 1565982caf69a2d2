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
    return [thresholds_from_summary(exact_summary(X[:, f]), max_bins)
            for f in range(X.shape[1])]


# A summary of a column's values: runs (lo, hi, count), ordered, holding all its
# numbers (NaN left out). Exact, one run per distinct value (lo == hi), unless
# it was compressed to at most about SUMMARY_RUNS runs; summaries of parts of a
# column merge into a summary of the whole (``merge_summaries``), so that bins
# can be chosen for data no single machine holds (``dtree.dask``).
SUMMARY_RUNS = 4096


def exact_summary(column):
    """The runs of a column: its distinct numbers with their counts."""
    column = np.asarray(column)
    values, counts = np.unique(column[~np.isnan(column)], return_counts=True)
    return values, values, counts.astype(np.float64)


def merge_summaries(summaries, max_runs=SUMMARY_RUNS):
    """One summary of the values of several (same column, other rows).

    Runs of the same single value add up; the result stays exact while it has
    at most ``max_runs`` runs, else neighbouring runs are pooled into runs of
    about total / ``max_runs`` rows each (a value with more rows than that
    stays a run of its own, so a heavy value, such as the zeros of a sparse
    column, keeps its own bin).
    """
    if len(summaries) == 1:
        lo, hi, counts = summaries[0]     # ordered, its runs distinct already
    else:
        lo = np.concatenate([s[0] for s in summaries])
        hi = np.concatenate([s[1] for s in summaries])
        counts = np.concatenate([s[2] for s in summaries])
        order = np.lexsort((hi, lo))
        lo, hi, counts = lo[order], hi[order], counts[order]
    if len(summaries) > 1 and lo.shape[0] > 1:
        # the same single value in several summaries: one run
        starts = np.r_[True, (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1]) | (lo[1:] != hi[1:])]
        starts |= np.r_[True, lo[:-1] != hi[:-1]]
        index = np.flatnonzero(starts)
        lo, hi, counts = lo[index], hi[index], np.add.reduceat(counts, index)
    if lo.shape[0] <= max_runs:
        return lo, hi, counts
    quantum = counts.sum() / max_runs
    heavy = counts > quantum
    before = np.cumsum(counts) - counts
    # a new run where the running count enters a new quantum, and around heavy values
    starts = np.r_[True, np.floor(before[1:] / quantum) != np.floor(before[:-1] / quantum)]
    starts |= heavy | np.r_[False, heavy[:-1]]
    index = np.flatnonzero(starts)
    return (np.minimum.reduceat(lo, index), np.maximum.reduceat(hi, index),
            np.add.reduceat(counts, index))


def thresholds_from_summary(summary, max_bins):
    """A feature's bin thresholds (increasing) from the summary of its values."""
    lo, hi, counts = summary
    if lo.shape[0] > max_bins:
        last = _bin_ends(counts, max_bins)
        upper, following = hi[last], lo[last + 1]
    else:
        upper, following = hi[:-1], lo[1:]
    # (pooled runs of merged summaries may overlap: keep the thresholds increasing)
    return np.unique(_midpoints(upper, following))


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


def category_thresholds(n_categories, label):
    """A categorical feature's thresholds: one bin per category code (bin c holds
    code c), so that the histogram splitter splits it by sets of categories."""
    if n_categories > MAX_BINS:
        raise ValueError(f"splitter='hist' gives each category a bin: {label} has "
                         f"{n_categories} categories, at most {MAX_BINS} are supported; "
                         "use splitter='best'")
    return np.arange(max(n_categories - 1, 0), dtype=np.float64) + 0.5
