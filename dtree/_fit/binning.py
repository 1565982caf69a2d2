"""Bin thresholds for the histogram splitter (see ``_hist_splitter``)."""
import concurrent.futures

import numpy as np

from .._hist_splitter import sample_columns, sorted_runs, summary_thresholds

MAX_BINS = 255
# samples of at least this many values are summarised a column per thread
# (numpy's sorts and ufuncs release the GIL; below it a pool costs more than it saves)
PARALLEL_VALUES = 1 << 18


def fit_bins(X, max_bins, sample_rows=200_000, seed=0, n_threads=1, skip=()):
    """Upper thresholds of each feature's bins, from (a sample of) the rows of X.

    Returns a list of float64 arrays: feature f's codes are the number of its
    thresholds below a value. A feature with at most ``max_bins`` distinct
    values gets one bin per value (thresholds at the midpoints); otherwise
    a value holding more than a bin's share (the zeros of a sparse column) is a
    bin of its own and the other bins hold about equal numbers of samples.
    The features in ``skip`` get None (their bins are set otherwise: categories).
    The columns are summarised on ``n_threads`` threads when the sample holds at
    least ``PARALLEL_VALUES`` values.
    """
    X = np.asarray(X, dtype=np.float32)
    n, d = X.shape
    threads = min(n_threads, d) if min(n, sample_rows) * d >= PARALLEL_VALUES else 1
    columns = X.T
    if n > sample_rows:
        rows = np.sort(np.random.default_rng(seed).choice(n, sample_rows, replace=False))
        # (the sample laid out by feature on the threads: each column contiguous
        # for its sort)
        columns = sample_columns(X, rows.astype(np.intp, copy=False), threads) \
            if X.flags.c_contiguous else np.ascontiguousarray(X[rows].T)
    skipped = set(int(f) for f in skip)

    def thresholds(f):
        if f in skipped:
            return None
        return thresholds_from_summary(exact_summary(columns[f]), max_bins)

    features = range(X.shape[1])
    if threads <= 1:
        return [thresholds(f) for f in features]
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(thresholds, features))


# A summary of a column's values: runs (lo, hi, count) in increasing order that
# hold all its numbers (NaN left out), and a level. Level 0: exact, one run per
# distinct value (lo == hi). Level L >= 16: the values pooled by the top 32 - L
# bits of their order-preserving keys (a fixed grid of buckets; lo and hi are the
# smallest and largest value in the bucket), L the smallest that leaves at most
# SUMMARY_RUNS runs. Either way the summary is a function of the column's values
# alone, and summaries of parts merge into the summary of the whole
# (``merge_summaries``), whatever the parts: bins chosen from it for data no
# single machine holds (``dtree.dask``) do not depend on how the data is split.
SUMMARY_RUNS = 4096
FIRST_LEVEL = 16


def exact_summary(column):
    """The level-0 summary of a column: its distinct numbers with their counts."""
    # (numpy sorts NaN last; the sort and the runs' count release the GIL, so
    # fit_bins' threads summarise columns side by side)
    distinct, counts = sorted_runs(np.sort(np.asarray(column, dtype=np.float32)))
    return distinct, distinct, counts, 0


def column_summary(column, max_runs=SUMMARY_RUNS):
    """The summary of a column (float32), exact while it has at most ``max_runs``
    distinct values: one pass over a large column (its buckets at level 16),
    sorting it only when those buckets leave the count of values in doubt."""
    x = np.asarray(column, dtype=np.float32)
    x = x[~np.isnan(x)]
    if x.shape[0] <= 4 * max_runs:
        return merge_summaries([exact_summary(x)], max_runs)
    keys = float_keys(x)
    bucket = keys >> np.uint32(FIRST_LEVEL)
    counts = np.bincount(bucket, minlength=1 << (32 - FIRST_LEVEL)).astype(np.float64)
    lo = np.full(counts.shape[0], np.iinfo(np.uint32).max, dtype=np.uint32)
    hi = np.zeros(counts.shape[0], dtype=np.uint32)
    np.minimum.at(lo, bucket, keys)
    np.maximum.at(hi, bucket, keys)
    used = np.flatnonzero(counts)
    lo, hi, counts = lo[used], hi[used], counts[used]
    several = lo < hi
    if used.shape[0] + several.sum() <= max_runs:   # perhaps few distinct values
        if not several.any():
            values = key_floats(lo)
            return values, values, counts, 0
        exact = exact_summary(x)
        if exact[0].shape[0] <= max_runs:
            return exact
    return _pooled(key_floats(lo), key_floats(hi), counts, FIRST_LEVEL, max_runs)


def merge_summaries(summaries, max_runs=SUMMARY_RUNS):
    """The summary of several columns' values together (the same feature, other rows)."""
    level = max(s[3] for s in summaries)
    lo = np.concatenate([s[0] for s in summaries])
    hi = np.concatenate([s[1] for s in summaries])
    counts = np.concatenate([s[2] for s in summaries])
    if level == 0:
        if len(summaries) > 1 and lo.shape[0] > 1:
            # the same value in several summaries: one run
            order = np.argsort(lo, kind="stable")
            lo, counts = lo[order], counts[order]
            index = np.flatnonzero(np.r_[True, lo[1:] != lo[:-1]])
            lo, counts = lo[index], np.add.reduceat(counts, index)
            hi = lo
        if lo.shape[0] <= max_runs:
            return lo, hi, counts, 0
        level = FIRST_LEVEL
    return _pooled(lo, hi, counts, level, max_runs)


def _pooled(lo, hi, counts, level, max_runs):
    """Runs pooled into their buckets at ``level`` or the first level above that
    leaves at most ``max_runs`` of them."""
    if lo.shape[0] == 0:
        return lo, hi, counts, level
    lo_keys, hi_keys = float_keys(lo), float_keys(hi)
    while True:
        ids = lo_keys >> np.uint32(level)
        order = np.argsort(ids, kind="stable")
        ids = ids[order]
        index = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        if index.shape[0] <= max_runs or level >= 32:
            break
        level += 1
    return (key_floats(np.minimum.reduceat(lo_keys[order], index)),
            key_floats(np.maximum.reduceat(hi_keys[order], index)),
            np.add.reduceat(counts[order], index), level)


def float_keys(values):
    """Order-preserving uint32 keys of float32 values (-0.0 as 0.0)."""
    u = (np.asarray(values, dtype=np.float32) + np.float32(0.0)).view(np.uint32)
    return np.where(u & np.uint32(0x80000000), ~u, u | np.uint32(0x80000000)).astype(np.uint32)


def key_floats(keys):
    """The float32 values of ``float_keys``' keys."""
    keys = np.asarray(keys, dtype=np.uint32)
    u = np.where(keys & np.uint32(0x80000000), keys & np.uint32(0x7FFFFFFF), ~keys)
    return u.astype(np.uint32).view(np.float32)


def thresholds_from_summary(summary, max_bins):
    """A feature's bin thresholds (increasing) from the summary of its values
    (``_hist_splitter.summary_thresholds``: a heavy value is a bin of its own, the
    other bins hold about equal numbers of values)."""
    lo, hi, counts = summary[:3]
    # (pooled runs of merged summaries may overlap: keep the thresholds increasing)
    return np.unique(summary_thresholds(np.asarray(lo, dtype=np.float32),
                                        np.asarray(hi, dtype=np.float32),
                                        np.asarray(counts, dtype=np.float64), max_bins))


def category_thresholds(n_categories, label):
    """A categorical feature's thresholds: one bin per category code (bin c holds
    code c), so that the histogram splitter splits it by sets of categories."""
    if n_categories > MAX_BINS:
        raise ValueError(f"splitter='hist' gives each category a bin: {label} has "
                         f"{n_categories} categories, at most {MAX_BINS} are supported; "
                         "use splitter='best'")
    return np.arange(max(n_categories - 1, 0), dtype=np.float64) + 0.5
