# cython: language_level=3
"""Histogram splitter: features binned to uint8 codes, splits between bins.

Binning (``fit_bins`` + ``bin_codes``): each feature gets at most ``max_bins``
bins from quantiles of its values (every distinct value its own bin when there
are few enough); NaN takes code ``MISSING``. Each bin remembers the smallest
and largest training value it holds, and a split between bins a (last on the
left) and b (first on the right, among those present in the node) has the
threshold ``midpoint(hi[a], lo[b])``: with one value per bin that is the exact
splitter's threshold, so both find the same trees.

``HistSplitter`` serves the growers of ``_grow`` with the same methods as the
exact splitter. A node's histogram holds, per feature and bin, the class
weights (or the sums of w and w*y) and the sample count. The smaller child's
histogram is built from its samples and the larger one's as the parent's minus
it. In depth-first growth a node with fewer than SMALL_NODE samples has its
whole subtree split without histograms, the exact splitter's way (histograms
lose there): its samples sorted by code once per feature (counting sort), every
split a stable partition of each feature.
"""
import numpy as np

from cython.parallel cimport prange, threadid
from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ._common cimport bit_is_set, CAT_WORDS, check_cut, clear_split, compare_score, constraints_of
from ._common cimport CUT_SCORE, CUT_STOP, draw_begin, draw_begin_fit, draw_end, draw_next
from ._common cimport draw_take, keep_better, keep_doubles, midpoint, record_candidate, sort_few
from ._common cimport SearchSettings, tiny_weight, wins
from ._criterion cimport add_sample, check_criterion, clf_proxy, clf_rest_acc, clf_side_acc
from ._criterion cimport is_classification, middle_value, monotonic_ok, node_entropy_terms
from ._criterion cimport node_impurity, record_children, reg_proxy, sklearn_score, stats_size
from ._criterion import xlogx_table
from ._subsets cimport search_subsets

cdef enum:
    MISSING = 255              # the code of NaN; numbers use codes 0 .. max_bins - 1
    N_CODES = 256
    SMALL_NODE = 512           # below this many samples a subtree grows on sorted samples
    PARALLEL_ROWS = 1 << 15    # rows per thread from which X is binned on threads
    # A node's features are scanned, and a histogram below BLOCKED_ROWS built, on
    # as many threads as it has NODE_ROWS rows (each thread a share of the
    # features: each feature's sums in row order, the same on any number of threads)
    NODE_ROWS = 1 << 10
    # A node of at least BLOCKED_ROWS samples builds its histogram by row blocks
    # (at most MAX_BLOCKS, each on a thread, added in block order): the blocks
    # depend on the node's size only, so the sums, and the tree, are the same on
    # any number of threads.
    BLOCKED_ROWS = 1 << 13
    MAX_BLOCKS = 8
    BLOCK_BUDGET = 1 << 21     # doubles the blocks' histograms may take (16 MB)
    KEEP_ROWS = -2             # route_rows: a node whose rows stay where they are

# ---------------------------------------------------------------- binning
cdef inline bint code_goes_left(code_t c, bint categorical, const unsigned long long* cat_left,
                                intp_t last_bin, bint missing_left) noexcept nogil:
    """The side of a sample with code c under a split (fit, routing elsewhere)."""
    if c == MISSING:
        return missing_left
    if categorical:
        return bit_is_set(cat_left, c)
    return c <= last_bin


def bin_codes(X, thresholds, int n_threads=1):
    """Codes (n, d) uint8 of X, and each bin's smallest and largest value.

    Returns
    -------
    codes : ndarray (n, d), uint8 (NaN -> 255)
    lo, hi : ndarray (d, 256), float32; +inf / -inf for empty bins
    """
    X = np.ascontiguousarray(X, dtype=np.float32)
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], f, chunk
    cdef int T = max(1, min(n_threads, (n + PARALLEL_ROWS - 1) // PARALLEL_ROWS))
    # thresholds padded to 256 with +inf: a branch-free binary search of 8 steps
    table = np.full((d, N_CODES), np.inf, dtype=np.float64)
    for f in range(d):
        if len(thresholds[f]) > N_CODES - 1:
            raise ValueError("at most 255 thresholds per feature")
        table[f, :len(thresholds[f])] = thresholds[f]
    codes = np.empty((n, d), dtype=np.uint8)
    lo = np.full((T, d, N_CODES), np.inf, dtype=np.float32)
    hi = np.full((T, d, N_CODES), -np.inf, dtype=np.float32)
    cdef const float[:, ::1] xv = X
    cdef const double[:, ::1] tv = table
    cdef code_t[:, ::1] cv = codes
    cdef float[:, :, ::1] lv = lo, hv = hi
    cdef Py_ssize_t step = (n + T - 1) // T
    if n > 0:
        for chunk in prange(T, nogil=True, num_threads=T, schedule="static"):
            _bin_rows(xv, tv, cv, &lv[chunk, 0, 0], &hv[chunk, 0, 0], chunk * step,
                      min(n, (chunk + 1) * step))
    return codes, lo.min(axis=0), hi.max(axis=0)


cdef extern from *:
    """
    /* The codes of BIN_LANES values x[0], x[stride], ...: for each, the number of
     * the 255 thresholds (thr, padded to 256 with +inf) below it, by a branch-free
     * binary search of 8 steps; NaN gets 255. The lanes' searches are independent
     * chains of loads and compares, interleaved so that the core runs them side by
     * side (one value's chain alone waits on each load in turn). */
    #define DTREE_BIN_LANES 16
    static inline void dtree_bin_lanes(const float* x, Py_ssize_t stride,
                                       const double* thr, unsigned char* out,
                                       Py_ssize_t out_stride, float* lo, float* hi)
    {
        double v[DTREE_BIN_LANES];
        Py_ssize_t pos[DTREE_BIN_LANES], step, k;
        for (k = 0; k < DTREE_BIN_LANES; k++) {
            v[k] = (double)x[k * stride];
            pos[k] = 0;
        }
        for (step = 128; step > 0; step >>= 1)
            for (k = 0; k < DTREE_BIN_LANES; k++)
                pos[k] += step * (thr[pos[k] + step - 1] < v[k]);
        /* each bin's least and greatest value; NaN, for which every comparison
         * above is false, is coded 255 apart */
        for (k = 0; k < DTREE_BIN_LANES; k++) {
            float xk = x[k * stride];
            if (xk != xk) {
                out[k * out_stride] = 255;
                continue;
            }
            out[k * out_stride] = (unsigned char)pos[k];
            if (xk < lo[pos[k]])
                lo[pos[k]] = xk;
            if (xk > hi[pos[k]])
                hi[pos[k]] = xk;
        }
    }
    """
    enum: BIN_LANES "DTREE_BIN_LANES"
    void bin_lanes "dtree_bin_lanes"(const float* x, Py_ssize_t stride, const double* thr,
                                     code_t* out, Py_ssize_t out_stride, float* lo,
                                     float* hi) nogil


cdef void _bin_rows(const float[:, ::1] X, const double[:, ::1] table, code_t[:, ::1] codes,
                    float* lo, float* hi, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    cdef Py_ssize_t d = X.shape[1], i, f, pos, step, top
    cdef const double* thr
    cdef float x
    # BIN_LANES rows of a feature at a time (``bin_lanes``), the rest one by one
    top = start + (end - start) // BIN_LANES * BIN_LANES
    i = start
    while i < top:
        for f in range(d):
            bin_lanes(&X[i, f], d, &table[f, 0], &codes[i, f], d, lo + f * N_CODES,
                      hi + f * N_CODES)
        i += BIN_LANES
    for i in range(top, end):
        for f in range(d):
            x = X[i, f]
            if x != x:
                codes[i, f] = MISSING
                continue
            # the number of thresholds below x: x <= thr[c] exactly when code <= c
            thr = &table[f, 0]
            pos = 0
            step = N_CODES // 2
            while step > 0:
                pos += step * (thr[pos + step - 1] < x)
                step >>= 1
            codes[i, f] = <code_t> pos
            if x < lo[f * N_CODES + pos]:
                lo[f * N_CODES + pos] = x
            if x > hi[f * N_CODES + pos]:
                hi[f * N_CODES + pos] = x


cdef inline void bin_add(double* row, bint is_classifier, intp_t n_stats, intp_t code, double y,
                         double w) noexcept nogil:
    # a bin's H values: the class weights, or (sum w, sum w*y); then the count
    if is_classifier:
        row[code] += w
    else:
        row[0] += w
        row[1] += w * y
    row[n_stats] += 1.0


cdef enum:
    GATHER_ROWS = 4096      # rows per block of sample_columns' threads


def sample_columns(const float[:, ::1] X, const intp_t[::1] rows, int n_threads=1):
    """``X[rows].T`` as a C-contiguous (d, m) float32 array: the sampled rows read in
    blocks on ``n_threads`` threads, each feature's values then contiguous for its
    sort (``fit_bins``). ``rows`` must lie in [0, n)."""
    cdef Py_ssize_t m = rows.shape[0], d = X.shape[1], n = X.shape[0], b, i, f, r
    cdef Py_ssize_t n_blocks = (m + GATHER_ROWS - 1) // GATHER_ROWS
    for i in range(m):
        if rows[i] < 0 or rows[i] >= n:
            raise ValueError(f"row {rows[i]} is outside X's {n} rows")
    out = np.empty((d, m), dtype=np.float32)
    cdef float[:, ::1] ov = out
    if m == 0 or d == 0:
        return out
    for b in prange(n_blocks, nogil=True, num_threads=max(1, min(n_threads, n_blocks)),
                    schedule="static"):
        for i in range(b * GATHER_ROWS, min(m, (b + 1) * GATHER_ROWS)):
            r = rows[i]
            for f in range(d):
                ov[f, i] = X[r, f]
    return out


def sorted_runs(const float[::1] values):
    """The distinct numbers of ascending float32 ``values`` (NaN, sorted last, left
    out) and how often each occurs: (float32 array, float64 array). The first of
    a run stands for it (-0.0 and 0.0 are one run)."""
    cdef Py_ssize_t n = values.shape[0], i, k = 0
    while n > 0 and values[n - 1] != values[n - 1]:
        n -= 1
    distinct = np.empty(n, dtype=np.float32)
    counts = np.empty(n, dtype=np.float64)
    cdef float[::1] dv = distinct
    cdef double[::1] cv = counts
    with nogil:
        for i in range(n):
            if i == 0 or values[i] != values[i - 1]:
                dv[k] = values[i]
                cv[k] = 1.0
                k += 1
            else:
                cv[k - 1] += 1.0
    return distinct[:k], counts[:k]


def summary_thresholds(const float[::1] lo, const float[::1] hi, const double[::1] counts,
                       int max_bins):
    """A feature's bin thresholds from the summary of its values (runs ``lo``..``hi``
    in increasing order, ``counts`` values each; ``binning``): at most
    ``max_bins - 1`` of them, each between a bin's last run and the next run's
    first value by the splitter's rule (``midpoint``). Runs of merged summaries may
    overlap: the caller keeps the thresholds increasing (``np.unique``).

    A run holding more than a bin's share of the values gets edges on both sides,
    heaviest first while there is room; the other edges split the remaining
    values into bins of about equal counts (so a heavy run does not swallow them).
    """
    cdef Py_ssize_t nd = counts.shape[0], j, m
    if lo.shape[0] != nd or hi.shape[0] != nd or max_bins < 2:
        raise ValueError("a summary's runs need a low, a high and a count each, and "
                         "max_bins at least 2")
    ends = np.empty(max(2 * max_bins, 1), dtype=np.intp)
    scratch = np.empty(max(3 * max_bins, 1), dtype=np.intp)
    cdef Py_ssize_t[::1] ev = ends, sv = scratch
    if nd <= max_bins:
        m = max(nd - 1, 0)
        for j in range(m):
            ev[j] = j
    else:
        with nogil:
            m = _bin_ends(&counts[0], nd, max_bins, &ev[0], &sv[0])
    out = np.empty(m, dtype=np.float64)
    cdef double[::1] ov = out
    for j in range(m):
        ov[j] = midpoint(hi[ev[j]], lo[ev[j] + 1])
    return out


cdef Py_ssize_t _bin_ends(const double* counts, Py_ssize_t nd, int max_bins, Py_ssize_t* out,
                          Py_ssize_t* room) noexcept nogil:
    """The index of the last run of each bin but the last (increasing, at most
    max_bins - 1), for nd > max_bins runs of these counts (``summary_thresholds``).
    ``out``: room for 2 max_bins; ``room``: for 3 max_bins. Returns how many."""
    cdef Py_ssize_t* heavy = room                   # at most max_bins - 1
    cdef Py_ssize_t* own = room + max_bins          # at most 2 (max_bins - 1)
    cdef Py_ssize_t i, a, b, key, n_heavy = 0, n_own = 0, n_rest = 0, k, last = -1, spare
    cdef Py_ssize_t q, r, n_out = 0
    cdef double total = 0.0, light = 0.0, cum, target
    cdef bint seen
    for i in range(nd):
        total += counts[i]
    for i in range(nd):
        if counts[i] * max_bins > total:
            heavy[n_heavy] = i
            n_heavy += 1
    # the heavy runs, heaviest first (a stable insertion: equal counts by index)
    for a in range(1, n_heavy):
        key = heavy[a]
        b = a
        while b > 0 and counts[heavy[b - 1]] < counts[key]:
            heavy[b] = heavy[b - 1]
            b -= 1
        heavy[b] = key
    # each one's edges (after the run before it, after itself), first come first
    for a in range(n_heavy):
        for k in range(2):
            i = heavy[a] - 1 + k
            if i < 0 or i >= nd - 1:
                continue
            seen = False
            for b in range(n_own):
                if own[b] == i:
                    seen = True
                    break
            if not seen:
                own[n_own] = i
                n_own += 1
    if n_own > max_bins - 1:
        n_own = max_bins - 1
    spare = max_bins - 1 - n_own
    # the light runs' cumulative counts cut at k / (spare + 1) of their total: the
    # first run whose cumulative count reaches each cut (heavy runs count 0)
    if spare > 0:
        # (the light total as a cumulative sum leaves it)
        for i in range(nd):
            if counts[i] * max_bins <= total:
                light += counts[i]
    if spare > 0 and light > 0:
        i = 0
        cum = counts[0] if counts[0] * max_bins <= total else 0.0
        for k in range(1, spare + 1):
            target = light * <double> k / <double> (spare + 1)
            while cum < target:
                i += 1
                if counts[i] * max_bins <= total:
                    cum += counts[i]
            if i != last and i < nd - 1:
                out[max_bins + n_rest] = i
                n_rest += 1
            last = i
    # own (sorted) and rest merged without repeats
    sort_few(own, n_own)
    q, r = 0, 0
    while q < n_own or r < n_rest:
        if r >= n_rest or (q < n_own and own[q] < out[max_bins + r]):
            i = own[q]
            q += 1
        else:
            i = out[max_bins + r]
            if q < n_own and own[q] == i:
                q += 1
            r += 1
        out[n_out] = i
        n_out += 1
    return n_out


def histogram_layout(hi):
    """Where each feature's bins lie in a node histogram.

    Parameters
    ----------
    hi : ndarray (d, 256)
        Each bin's largest training value (-inf for a bin never used).

    Returns
    -------
    n_codes : ndarray (d,)
        Numeric codes in use per feature (the highest code seen + 1).
    offsets : ndarray (d + 1,)
        Feature f's bins are bins offsets[f] .. offsets[f + 1] - 1 (its codes,
        then its missing values).
    """
    hi = np.asarray(hi)
    d = hi.shape[0]
    used = np.zeros(d, dtype=np.intp)
    for f in range(d):
        numeric = hi[f] > -np.inf
        used[f] = int(np.flatnonzero(numeric).max()) + 1 if numeric.any() else 0
    offsets = np.zeros(d + 1, dtype=np.intp)
    np.cumsum(used + 1, out=offsets[1:])     # + the missing bin
    return used, offsets


# ---------------------------------------------------------------- the splitter
cdef class HistSplitter:
    """Split search and partition on binned features (see the module docstring).

    Parameters
    ----------
    codes : ndarray (n, d), uint8
    lo, hi : ndarray (d, 256), float32
        From ``bin_codes``.
    y : ndarray (n,)
        Class codes, or regression targets.
    sample_weight : ndarray (n,) or None
    settings : SearchSettings (or a dict of its keys)
        As the exact splitter's (the criterion, the class count, the leaf
        limits, the feature draw and its seed, the threads; its quantile, value
        tolerance, multiway, index order and random cuts do not apply).
    categorical : ndarray (d,) of bool, optional
        Features whose codes are category codes (bin c holds category c): split
        by sets of categories (``_subsets``), as the exact splitter splits them.
    n_rows, weighted
        For a splitter that only splits histograms built elsewhere
        (``split_histogram``; ``codes`` then has no rows): the training rows and
        whether they carry weights.
    """

    def __cinit__(self, codes, lo, hi, y, sample_weight, SearchSettings settings,
                  monotonic_cst=None, intp_t n_rows=-1, weighted=None, categorical=None):
        check_criterion(settings.criterion)
        cdef int criterion = settings.criterion
        cdef intp_t f, t
        self.lower = -INFINITY
        self.upper = INFINITY
        self.monotonic_cst = None if monotonic_cst is None else \
            np.ascontiguousarray(monotonic_cst, dtype=np.int8)
        self.monotonic = constraints_of(self.monotonic_cst, codes.shape[1])
        cat = np.zeros(codes.shape[1], dtype=np.uint8) if categorical is None else \
            np.ascontiguousarray(categorical, dtype=np.uint8)
        if cat.shape != (codes.shape[1],):
            raise ValueError("categorical must give one flag per feature")
        cdef const unsigned char[::1] cat_view = cat
        self.categorical = &cat_view[0] if codes.shape[1] > 0 else NULL
        self.codes = codes
        self.lo = lo
        self.hi = hi
        self.n_samples = codes.shape[0]
        self.d = codes.shape[1]
        self.criterion = criterion
        self.is_classifier = is_classification(criterion)
        self.n_outputs = 1
        self.n_stats = stats_size(criterion, settings.n_classes)
        self.H = self.n_stats + 1                   # + the sample count
        self.min_samples_leaf = settings.min_samples_leaf
        self.min_weight_leaf = settings.min_weight_leaf
        self.draw.max_features = settings.max_features
        self.draw.n_features = self.d
        self.draw.seed = settings.seed
        self.n_threads = max(1, settings.n_threads)
        self.best_first = False
        owned = []
        if self.is_classifier:
            self.yc = np.ascontiguousarray(y, dtype=np.int32)
        else:
            self.yv = np.ascontiguousarray(y, dtype=np.float64)
        self.sw = keep_doubles(None if sample_weight is None else
                               np.ascontiguousarray(sample_weight, dtype=np.float64), owned)
        # (a splitter fed histograms from elsewhere has no rows: it is told how
        # many there are and whether they carry weights)
        if weighted is None:
            weighted = sample_weight is not None
        # (weights whose total is not known here: inf, x ln x as computed)
        total = None if not weighted else (
            float(np.sum(sample_weight)) if sample_weight is not None else np.inf)
        self.xlogx_table = keep_doubles(
            xlogx_table(criterion, self.n_samples if n_rows < 0 else n_rows, total, 1,
                        self.n_stats), owned)
        self.subset_rules.xlogx_table = self.xlogx_table
        used, offsets = histogram_layout(hi)
        self.n_codes = used
        self.hist_size = int(offsets[self.d]) * self.H
        self.n_blocks = max(1, min(MAX_BLOCKS, 1 + BLOCK_BUDGET // max(self.hist_size, 1)))
        blocks = np.zeros(max(1, (self.n_blocks - 1) * self.hist_size), dtype=np.float64)
        cdef double[::1] blocks_view = blocks
        self.block_hists = &blocks_view[0]
        sums = np.zeros(self.n_blocks * (2 * self.n_stats + 2), dtype=np.float64)
        counts = np.zeros(self.n_blocks, dtype=np.intp)
        moved = np.zeros(max(self.n_samples, 1), dtype=np.int32)
        cdef double[::1] sums_view = sums
        cdef intp_t[::1] counts_view = counts
        cdef int[::1] moved_view = moved
        self.block_sums = &sums_view[0]
        self.block_counts = &counts_view[0]
        self.moved = &moved_view[0]
        owned += [blocks, sums, counts, moved]
        samples = np.arange(self.n_samples, dtype=np.int32)
        cdef int[::1] sv = samples
        self.samples = &sv[0] if self.n_samples else NULL
        # the draw's permutation, the constants found, a node's visiting order
        feature_order = np.zeros((3, max(self.d, 1)), dtype=np.intp)
        left = np.zeros((self.n_threads, 2 * (self.H + 16)), dtype=np.float64)
        groups = np.zeros((self.n_threads, (N_CODES + 1) * self.H + 16), dtype=np.float64)
        group_code = np.zeros((self.n_threads, N_CODES + 8), dtype=np.intp)
        best = np.zeros(max(self.d, 1) * sizeof(SplitRecord), dtype=np.uint8)
        goes_left = np.zeros(max(self.n_samples, 1), dtype=np.uint8)
        cdef unsigned char[::1] glv = goes_left
        self.goes_left = &glv[0]
        self.local = NULL
        self.local_n = 0
        self.local_base = 0
        # a categorical scan's groups: at most N_CODES (codes and the missing values)
        cat_doubles = np.zeros((self.n_threads, (N_CODES + 1) * (self.n_stats + 3) + 16),
                               dtype=np.float64)
        cat_ints = np.zeros((self.n_threads, 2 * (N_CODES + 1)), dtype=np.intp)
        cat_codes = np.zeros((self.n_threads, N_CODES + 1), dtype=np.int32)
        cat_bytes = np.zeros((self.n_threads, N_CODES + 8), dtype=np.uint8)
        cdef double[:, ::1] cdv = cat_doubles
        cdef intp_t[:, ::1] civ = cat_ints
        cdef int[:, ::1] ccv = cat_codes
        cdef unsigned char[:, ::1] cbv = cat_bytes
        self.subset_rules.criterion = criterion
        self.subset_rules.n_classes = self.n_stats if self.is_classifier else 0
        self.subset_rules.min_samples_leaf = settings.min_samples_leaf
        self.subset_rules.min_weight_leaf = settings.min_weight_leaf
        self.subset_rules.one_vs_rest = settings.one_vs_rest
        owned += [samples, offsets, feature_order, left, best, groups, group_code, goes_left,
                  cat, cat_doubles, cat_ints, cat_codes, cat_bytes]
        self._owned = owned
        cdef intp_t[::1] ov = offsets
        cdef intp_t[:, ::1] fv = feature_order
        cdef double[:, ::1] lv = left, gv = groups
        cdef intp_t[:, ::1] gcv = group_code
        cdef unsigned char[::1] bv = best
        self.offset = &ov[0]
        self.draw.features = &fv[0, 0]
        self.draw.constant_features = &fv[1, 0]
        self.draw.visit = &fv[2, 0]
        self.draw.n_visit = 0
        self.feature_best = <SplitRecord*> &bv[0]
        self.scratch = <Scratch*> malloc(self.n_threads * sizeof(Scratch))
        if self.scratch == NULL:
            raise MemoryError()
        for t in range(self.n_threads):
            self.scratch[t].left = &lv[t, 0]
            self.scratch[t].right = &lv[t, self.H + 16]
            self.scratch[t].groups = &gv[t, 0]
            self.scratch[t].missing = &gv[t, N_CODES * self.H]
            self.scratch[t].group_code = &gcv[t, 0]
            stride = self.n_stats if self.is_classifier else 1
            self.scratch[t].cat.stride = stride
            self.scratch[t].cat.stats = &cdv[t, 0]
            self.scratch[t].cat.weight = &cdv[t, (N_CODES + 1) * stride]
            self.scratch[t].cat.key = &cdv[t, (N_CODES + 1) * (stride + 1)]
            self.scratch[t].cat.left = &cdv[t, (N_CODES + 1) * (stride + 2)]
            self.scratch[t].cat.count = &civ[t, 0]
            self.scratch[t].cat.order = &civ[t, N_CODES + 1]
            self.scratch[t].cat.code = &ccv[t, 0]
            self.scratch[t].in_left = &cbv[t, 0]

    def __dealloc__(self):
        free(self.scratch)
        free(self.local)

    # ------------------------------------------------------------ the growers' protocol
    cdef void begin(self, bint best_first) noexcept nogil:
        # Small subtrees are split on sorted samples only in depth-first
        # growth, which finishes a subtree before it leaves it.
        self.best_first = best_first
        draw_begin_fit(&self.draw)

    cdef void root_stats(self, double* stats, double* weight) noexcept nogil:
        """The whole training set's statistics, summed in sample order."""
        cdef intp_t i
        cdef double w
        memset(stats, 0, self.n_stats * sizeof(double))
        weight[0] = 0.0
        for i in range(self.n_samples):
            w = self.weight_of(i)
            add_sample(stats, self.criterion, self.yc[i] if self.is_classifier else 0,
                       0.0 if self.is_classifier else self.yv[i], w)
            weight[0] += w

    cdef int split(self, Node* node, const double* stats, double weight_root,
                   SplitRecord* split, double* child_stats) noexcept nogil:
        """The node's best split, its sides marked and its children summed.

        Returns 1 with ``split`` and ``child_stats`` (left then right) filled,
        0 when no split is valid, -1 when memory ran out.
        """
        cdef intp_t start = node.start, end = node.end, n = end - start, n_left
        cdef intp_t S = self.n_stats
        cdef double weights[2]
        cdef double weight = node.weight
        self.lower = node.lower
        self.upper = node.upper
        if self.local != NULL and (start < self.local_base
                                   or end > self.local_base + self.local_n):
            self.leave_local()      # depth-first growth has left the small subtree
        if self.local == NULL and not self.best_first and n < SMALL_NODE:
            self.release(node)
            if not self.enter_local(start, end):
                return -1
        if self.local == NULL and node.hist == NULL:
            node.hist = <double*> malloc(self.hist_size * sizeof(double))
            if node.hist == NULL:
                return -1
            self.build_histogram(start, end, node.hist)
        # scikit-learn carries constants down depth-first growth only
        node.n_constant = self.draw_features(start, end, 0 if self.best_first else node.n_constant,
                                             node.hist if self.local == NULL else NULL)
        if not self.node_split(start, end, stats, weight,
                               node.hist if self.local == NULL else NULL, split):
            return 0
        n_left = self.mark_sides(start, end, split, child_stats, child_stats + S, weights)
        record_children(split, self.criterion, start + n_left, child_stats, S, 1, weights,
                        weight, node.impurity, weight_root)
        if not self.split_has_missing(start, end, split.feature,
                                      node.hist if self.local == NULL else NULL):
            # no missing value here: at predict NaN follows the larger child
            split.missing_left = n_left > n - n_left
        if self.best_first and n < SMALL_NODE:
            # a small node's children build their own histograms (cheaply):
            # the frontier holds at most N / SMALL_NODE histograms
            self.release(node)
        return 1

    cdef void partition(self, const Node* node, const SplitRecord* split) noexcept nogil:
        if self.local != NULL:
            self.partition_local(node.start, node.end)
        else:
            self.partition_samples(node.start, node.end)

    cdef void hand_down(self, Node* node, const SplitRecord* split, bint left_grows,
                        bint right_grows, Node* left, Node* right) noexcept nogil:
        """The parent's histogram goes to the children (see children_histograms)."""
        if node.hist == NULL:
            return
        self.children_histograms(node.hist, node.start, split.pos, node.end, left_grows,
                                 right_grows, &left.hist, &right.hist)
        node.hist = NULL

    cdef void release(self, Node* node) noexcept nogil:
        free(node.hist)
        node.hist = NULL

    cdef void finish(self) noexcept nogil:
        self.leave_local()

    # ------------------------------------------------------------ histograms
    cdef inline double weight_of(self, intp_t i) noexcept nogil:
        return self.sw[i] if self.sw != NULL else 1.0

    cdef inline void add_to_bin(self, double* row, intp_t i, double w) noexcept nogil:
        bin_add(row, self.is_classifier, self.n_stats, self.yc[i] if self.is_classifier else 0,
                0.0 if self.is_classifier else self.yv[i], w)

    cdef void build_histogram(self, intp_t start, intp_t end, double* hist) noexcept nogil:
        """Histogram of the samples [start, end): one pass; a large node's by row
        blocks on the threads, added in block order (see BLOCKED_ROWS); a
        mid-size node's by shares of the features on the threads (NODE_ROWS)."""
        cdef intp_t n = end - start, B = self.n_blocks, b, j, S = self.hist_size
        cdef intp_t T = min(self.n_threads, B)
        cdef double acc
        if n < BLOCKED_ROWS or B < 2:
            memset(hist, 0, S * sizeof(double))
            T = min(self.n_threads, self.d, n // NODE_ROWS)
            if T > 1:
                for b in prange(T, nogil=True, num_threads=T, schedule="static"):
                    self._build_features(start, end, b * self.d // T, (b + 1) * self.d // T,
                                         hist)
                return
            self._build_features(start, end, 0, self.d, hist)
            return
        if T > 1:
            for b in prange(B, nogil=True, num_threads=T, schedule="dynamic"):
                self._build_block(start, n, b, hist)
            for j in prange(S, nogil=True, num_threads=T, schedule="static"):
                acc = hist[j]
                for b in range(1, B):
                    acc = acc + self.block_hists[(b - 1) * S + j]
                hist[j] = acc
            return
        for b in range(B):
            self._build_block(start, n, b, hist)
        for j in range(S):
            acc = hist[j]
            for b in range(1, B):
                acc = acc + self.block_hists[(b - 1) * S + j]
            hist[j] = acc

    cdef void _build_block(self, intp_t start, intp_t n, intp_t b, double* hist) noexcept nogil:
        # block b of the node's n_blocks: into hist itself (b = 0) or its buffer
        cdef intp_t B = self.n_blocks
        cdef double* buf = hist if b == 0 else self.block_hists + (b - 1) * self.hist_size
        memset(buf, 0, self.hist_size * sizeof(double))
        self._build_features(start + b * n // B, start + (b + 1) * n // B, 0, self.d, buf)

    cdef void _build_features(self, intp_t start, intp_t end, intp_t f_lo, intp_t f_hi,
                              double* hist) noexcept nogil:
        cdef intp_t p, i, f, H = self.H
        cdef double w
        cdef const code_t* row
        cdef code_t c
        for p in range(start, end):
            i = self.samples[p]
            w = self.weight_of(i)
            row = &self.codes[i, 0]
            for f in range(f_lo, f_hi):
                c = row[f]
                if c == MISSING:
                    c = <code_t> self.n_codes[f]
                self.add_to_bin(hist + (self.offset[f] + c) * H, i, w)

    # ------------------------------------------------------------ split search
    cdef intp_t draw_features(self, intp_t start, intp_t end, intp_t n_known,
                              const double* hist) noexcept nogil:
        """scikit-learn's feature draw (as the exact splitter's): ``visit`` gets the
        non-constant features drawn, in order; returns the constants known below."""
        cdef intp_t j
        draw_begin(&self.draw, n_known)
        j = draw_next(&self.draw)
        while j >= 0:
            draw_take(&self.draw, j, self.is_constant(self.draw.features[j], start, end, hist))
            j = draw_next(&self.draw)
        return draw_end(&self.draw)

    cdef bint is_constant(self, intp_t f, intp_t start, intp_t end,
                          const double* hist) noexcept nogil:
        """Whether feature f offers no cut in the node: all its samples missing, or
        none missing and all in one bin (the exact splitter's rule, on bins)."""
        cdef intp_t H = self.H, nb = self.n_codes[f], b, present = 0
        cdef const double* fh
        cdef const int* ids
        cdef code_t first, last
        if hist == NULL:
            # a small subtree's run of the feature is sorted by code, MISSING last
            ids = self.sorted_segment(f, start)
            first = self.codes[ids[0], f]
            last = self.codes[ids[end - start - 1], f]
            return first == last
        fh = hist + self.offset[f] * H
        for b in range(nb):
            if fh[b * H + self.n_stats] > 0:
                present += 1
                if present > 1:
                    return False
        return present == 0 or fh[nb * H + self.n_stats] == 0

    cdef bint node_split(self, intp_t start, intp_t end, const double* stats, double weight,
                         const double* hist, SplitRecord* best) noexcept nogil:
        """The best split among the features drawn for the node (``draw_features``):
        ties go to the feature drawn first, as in the exact splitter."""
        cdef intp_t i
        clear_split(best, end)
        cdef intp_t threads = min(self.n_threads, (end - start) // NODE_ROWS)
        if threads > 1 and hist != NULL and self.draw.n_visit > 1:
            for i in prange(self.draw.n_visit, nogil=True, num_threads=threads,
                            schedule="dynamic"):
                clear_split(&self.feature_best[i], end)
                self.scan_feature(&self.scratch[threadid()], self.draw.visit[i], start, end, stats,
                                  weight, hist, &self.feature_best[i])
            for i in range(self.draw.n_visit):
                keep_better(best, &self.feature_best[i])
        else:
            for i in range(self.draw.n_visit):
                self.scan_feature(&self.scratch[0], self.draw.visit[i], start, end, stats, weight,
                                  hist, best)
        return best.feature >= 0

    cdef bint scan_feature(self, Scratch* w, intp_t f, intp_t start, intp_t end,
                           const double* stats, double weight, const double* hist,
                           SplitRecord* best) noexcept nogil:
        """Best cut of feature f; False when the feature is constant in the node."""
        cdef intp_t n_groups
        if hist != NULL:
            n_groups = self.groups_from_histogram(w, f, hist + self.offset[f] * self.H)
        else:
            n_groups = self.groups_from_sorted(w, f, self.sorted_segment(f, start),
                                               end - start)
        if n_groups == 0 or (n_groups == 1 and w.missing[self.n_stats] == 0):
            return False
        if self.categorical != NULL and self.categorical[f]:
            self.scan_categories(w, f, n_groups, stats, weight, end - start, best)
            return True
        self.scan_groups(w, f, n_groups, stats, weight, end - start, False, best)
        if w.missing[self.n_stats] > 0:
            self.scan_groups(w, f, n_groups, stats, weight, end - start, True, best)
        return True

    cdef intp_t groups_from_histogram(self, Scratch* w, intp_t f,
                                      const double* fh) noexcept nogil:
        """The feature's present codes, in order, from its histogram."""
        cdef intp_t H = self.H, nb = self.n_codes[f], b, g = 0
        for b in range(nb):
            if fh[b * H + self.n_stats] > 0:
                memcpy(w.groups + g * H, fh + b * H, H * sizeof(double))
                w.group_code[g] = b
                g += 1
        memcpy(w.missing, fh + nb * H, H * sizeof(double))
        return g

    cdef intp_t groups_from_sorted(self, Scratch* w, intp_t f, const int* ids,
                                   intp_t n) noexcept nogil:
        """The same from a small subtree's samples, kept sorted by code."""
        cdef intp_t p, i, g = 0, H = self.H
        cdef intp_t c, prev = N_CODES
        cdef double* row = NULL
        if self.n_stats == 2:
            return self._two_stat_groups(w, f, ids, n)
        memset(w.missing, 0, H * sizeof(double))
        for p in range(n):
            i = ids[p]
            c = self.codes[i, f]
            if c == MISSING:
                row = w.missing
            elif c != prev:
                row = w.groups + g * H
                memset(row, 0, H * sizeof(double))
                w.group_code[g] = c
                g += 1
                prev = c
            self.add_to_bin(row, i, self.weight_of(i))
        return g

    cdef intp_t _two_stat_groups(self, Scratch* w, intp_t f, const int* ids,
                                 intp_t n) noexcept nogil:
        # ``groups_from_sorted`` where a bin holds two statistics (one output's
        # (sum w, sum w*y), or two classes' weights): a run of one code summed in
        # registers, then stored (adding into the group's row in memory made each
        # sample wait for the last one's store). The same additions in the same
        # order as ``add_to_bin``'s, from zero (a class's sum adding 0.0 for the
        # other class's samples is unchanged: weights are positive): the same sums.
        cdef intp_t p = 0, q, i, g = 0, c
        cdef double sw, swy, count, x
        cdef double* row
        cdef bint classes = self.is_classifier
        memset(w.missing, 0, 3 * sizeof(double))
        while p < n:
            c = self.codes[ids[p], f]
            sw = 0.0
            swy = 0.0
            count = 0.0
            q = p
            while q < n and self.codes[ids[q], f] == c:
                i = ids[q]
                x = self.weight_of(i)
                if classes:
                    # (sw: class 0's weight, swy: class 1's)
                    sw += x if self.yc[i] == 0 else 0.0
                    swy += x if self.yc[i] != 0 else 0.0
                else:
                    sw += x
                    swy += x * self.yv[i]
                count += 1.0
                q += 1
            if c == MISSING:
                row = w.missing
            else:
                row = w.groups + g * 3
                w.group_code[g] = c
                g += 1
            row[0] = sw
            row[1] = swy
            row[2] = count
            p = q
        return g

    cdef void scan_groups(self, Scratch* w, intp_t f, intp_t n_groups, const double* stats,
                          double weight, intp_t n_node, bint missing_left,
                          SplitRecord* best) noexcept nogil:
        """Cuts after each present code, missing values on one side.

        Mirrors the exact scan: with missing values going right the last cut
        is "all numbers | all missing" (threshold +inf); the leaf-size limits
        and the tie rule are the same. Statistics per group are (class
        weights..., count) or (w, wy, count); the node's are the builder's
        (class weights, or sum wy and sum wy^2).
        """
        cdef intp_t H = self.H, S = self.n_stats, g, k
        cdef const double* row
        cdef double* left = w.left
        cdef double n_left = 0.0, wl, wr, num, den, key
        cdef double tiny = tiny_weight(weight)
        cdef double wlogw = 0.0, w_node_entropy = 0.0
        cdef int order
        cdef intp_t min_leaf = self.min_samples_leaf
        cdef double min_wleaf = self.min_weight_leaf
        cdef bint has_missing = w.missing[S] > 0
        cdef int cut
        cdef signed char mono = self.monotonic[f] if self.monotonic != NULL else 0
        cdef double value_left, value_right
        memset(left, 0, S * sizeof(double))
        if missing_left:
            for k in range(S):
                left[k] = w.missing[k]
            n_left = w.missing[S]
        if self.is_classifier:
            node_entropy_terms(self.criterion, stats, S, weight, self.xlogx_table, False, &wlogw,
                               &w_node_entropy)
        for g in range(n_groups):
            row = w.groups + g * H
            for k in range(S):
                left[k] += row[k]
            n_left += row[S]
            if g == n_groups - 1 and (missing_left or not has_missing):
                break       # no cut after the last number unless missing values go right
            wl = self.side_weight(left)
            wr = weight - wl
            cut = check_cut(<intp_t> n_left, n_node, wl, wr, min_leaf, min_wleaf, tiny)
            if cut == CUT_STOP:
                break
            if cut != CUT_SCORE:
                continue
            if self.is_classifier:
                num = clf_proxy(self.criterion, wl,
                                clf_side_acc(self.criterion, left, S, self.xlogx_table), wr,
                                clf_rest_acc(self.criterion, stats, left, S, self.xlogx_table),
                                w_node_entropy, wlogw, self.xlogx_table, 1.0, &den)
            else:
                num = reg_proxy(self.criterion, wl, left[1], wr, stats[0] - left[1], &den)
            if mono != 0:
                # the class-0 fraction or the mean of each side (see _criterion)
                value_left = (left[0] if self.is_classifier else left[1]) / wl
                value_right = (stats[0] - (left[0] if self.is_classifier else left[1])) / wr
                if not monotonic_ok(mono, self.lower, self.upper, value_left, value_right):
                    continue
            order = compare_score(num, den, best)
            if order < 0:
                continue
            # scikit-learn's own score decides exact ties, as in the exact splitter
            if self.is_classifier:
                for k in range(S):
                    w.right[k] = stats[k] - left[k]
                key = sklearn_score(self.criterion, left, w.right, S, 1, wl, wr)
            else:
                w.right[0] = stats[0] - left[1]
                key = sklearn_score(self.criterion, left + 1, w.right, 1, 1, wl, wr)
            if wins(order, key, best):
                record_candidate(best, num, den, f, missing_left, False, False)
                best.tie_key = key
                best.last_bin = w.group_code[g]
                if g == n_groups - 1:
                    best.threshold = INFINITY
                else:
                    best.threshold = midpoint(self.hi[f, w.group_code[g]],
                                              self.lo[f, w.group_code[g + 1]])

    cdef void scan_categories(self, Scratch* w, intp_t f, intp_t n_groups, const double* stats,
                              double weight, intp_t n_node, SplitRecord* best) noexcept nogil:
        """A categorical feature: the best set of its categories (and the missing
        values) to send left, from the codes present (``_subsets``)."""
        cdef intp_t H = self.H, S = self.n_stats, g, k, m = 0
        cdef intp_t stride = w.cat.stride
        cdef const double* row
        for g in range(n_groups + 1):
            if g == n_groups:
                if w.missing[S] == 0:
                    break
                row = w.missing
                w.cat.code[m] = -1
            else:
                row = w.groups + g * H
                w.cat.code[m] = <int> w.group_code[g]
            w.cat.weight[m] = self.side_weight(row)
            w.cat.count[m] = <intp_t> row[S]
            if self.is_classifier:
                for k in range(S):
                    w.cat.stats[m * stride + k] = row[k]
            else:
                w.cat.stats[m * stride] = row[1]
            m += 1
        search_subsets(&w.cat, &self.subset_rules, f, m, stats, weight, n_node, w.in_left,
                       best)

    cdef inline bint goes_left_of(self, const SplitRecord* split, code_t c) noexcept nogil:
        return code_goes_left(c, split.categorical, split.cat_left, split.last_bin,
                              split.missing_left)

    cdef inline double side_weight(self, const double* side) noexcept nogil:
        cdef double total = 0.0
        cdef intp_t k
        if not self.is_classifier:
            return side[0]
        for k in range(self.n_stats):
            total += side[k]
        return total


    # ------------------------------------------------------------ partition
    cdef void partition_samples(self, intp_t start, intp_t end) noexcept nogil:
        """Move the samples marked left to the front of [start, end) (a large
        node's stably, by blocks on the threads: see ``_partition_blocks``)."""
        cdef intp_t lo_p = start, hi_p = end - 1
        cdef int i
        if end - start >= BLOCKED_ROWS and self.n_blocks >= 2:
            self._partition_blocks(start, end)
            return
        while lo_p <= hi_p:
            i = self.samples[lo_p]
            if self.goes_left[i]:
                lo_p += 1
            else:
                self.samples[lo_p] = self.samples[hi_p]
                self.samples[hi_p] = i
                hi_p -= 1

    cdef void _partition_blocks(self, intp_t start, intp_t end) noexcept nogil:
        # Each block counts its left samples, then writes them (and its right ones)
        # at its place in the stable order; the same blocks and order on any
        # number of threads.
        cdef intp_t n = end - start, B = self.n_blocks, b, n_left = 0
        cdef intp_t T = min(self.n_threads, B)
        if T > 1:
            for b in prange(B, nogil=True, num_threads=T, schedule="static"):
                self._count_block(start, n, b)
        else:
            for b in range(B):
                self._count_block(start, n, b)
        for b in range(B):
            n_left += self.block_counts[b]
        if T > 1:
            for b in prange(B, nogil=True, num_threads=T, schedule="static"):
                self._move_block(start, n, b, n_left)
        else:
            for b in range(B):
                self._move_block(start, n, b, n_left)
        memcpy(self.samples + start, self.moved + start, n * sizeof(int))

    cdef void _count_block(self, intp_t start, intp_t n, intp_t b) noexcept nogil:
        cdef intp_t p, count = 0, B = self.n_blocks
        for p in range(start + b * n // B, start + (b + 1) * n // B):
            count += self.goes_left[self.samples[p]]
        self.block_counts[b] = count

    cdef void _move_block(self, intp_t start, intp_t n, intp_t b, intp_t n_left) noexcept nogil:
        # block b's samples to their stable places (``moved``): lefts after the
        # earlier blocks' lefts, rights after all lefts and the earlier rights
        cdef intp_t p, c, B = self.n_blocks, lo = start + b * n // B
        cdef intp_t left_at = start, right_at
        cdef int i
        for c in range(b):
            left_at += self.block_counts[c]
        right_at = start + n_left + (lo - start) - (left_at - start)
        for p in range(lo, start + (b + 1) * n // B):
            i = self.samples[p]
            if self.goes_left[i]:
                self.moved[left_at] = i
                left_at += 1
            else:
                self.moved[right_at] = i
                right_at += 1

    # ------------------------------------------------------------ small subtrees
    cdef const int* sorted_segment(self, intp_t f, intp_t start) noexcept nogil:
        """Small subtree: feature f's samples from position ``start``, sorted by code."""
        return self.local + f * self.local_n + (start - self.local_base)

    cdef bint enter_local(self, intp_t start, intp_t end) noexcept nogil:
        """Sort the segment's samples by code once per feature (counting sort).

        Each split below then partitions every feature's run stably, so the
        runs stay sorted and no node sorts or visits empty bins. False when
        memory ran out.
        """
        cdef intp_t n = end - start, d = self.d, f, p, c
        cdef int* ids = <int*> malloc((d + 1) * n * sizeof(int))
        cdef intp_t counts[N_CODES + 1]
        if ids == NULL:
            return False
        for f in range(d):
            memset(counts, 0, (N_CODES + 1) * sizeof(intp_t))
            for p in range(start, end):
                counts[self.codes[self.samples[p], f] + 1] += 1
            for c in range(N_CODES):
                counts[c + 1] += counts[c]
            for p in range(start, end):
                c = self.codes[self.samples[p], f]
                ids[f * n + counts[c]] = self.samples[p]
                counts[c] += 1
        self.local = ids
        self.local_n = n
        self.local_base = start
        return True

    cdef void leave_local(self) noexcept nogil:
        free(self.local)
        self.local = NULL
        self.local_n = 0

    cdef void partition_local(self, intp_t start, intp_t end) noexcept nogil:
        """Stable-partition every feature's sorted run by ``goes_left``."""
        cdef intp_t f, p, nl, nr, n = self.local_n
        cdef intp_t lo_p = start - self.local_base, hi_p = end - self.local_base
        cdef int* seg
        cdef int* tmp = self.local + self.d * n      # scratch row after the features
        cdef int i
        cdef intp_t side
        for f in range(self.d):
            seg = self.local + f * n
            if self.codes[seg[lo_p], f] == self.codes[seg[hi_p - 1], f]:
                continue        # constant here: stays constant and is never split again
            nl = lo_p
            nr = 0
            for p in range(lo_p, hi_p):
                # written to both sides, kept on one: no branch on the side, which
                # is as unpredictable as the split (seg[nl] is at or before seg[p])
                i = seg[p]
                side = self.goes_left[i]
                seg[nl] = i
                tmp[nr] = i
                nl += side
                nr += 1 - side
            memcpy(seg + nl, tmp, nr * sizeof(int))

    # ------------------------------------------------------------ the chosen split
    cdef intp_t mark_sides(self, intp_t start, intp_t end, const SplitRecord* split,
                           double* left_stats, double* right_stats,
                           double* weights) noexcept nogil:
        """Mark each sample's side and sum both children afresh; returns the left
        size. A large node sums by blocks on the threads, adding the blocks'
        sums in block order (the same on any number of threads)."""
        cdef intp_t f = split.feature, last = split.last_bin, p, i, n_left = 0
        cdef const int* ids = self.sorted_segment(f, start) if self.local != NULL \
            else self.samples + start
        cdef code_t c
        cdef bint go_left
        cdef double w
        cdef intp_t n = end - start, B = self.n_blocks, b, k, S = self.n_stats
        cdef intp_t T = min(self.n_threads, B)
        cdef double* sums
        if self.local == NULL and n >= BLOCKED_ROWS and B >= 2:
            if T > 1:
                for b in prange(B, nogil=True, num_threads=T, schedule="static"):
                    self._mark_block(start, n, b, split, ids)
            else:
                for b in range(B):
                    self._mark_block(start, n, b, split, ids)
            for b in range(B):
                sums = self.block_sums + b * (2 * S + 2)
                if b == 0:
                    memcpy(left_stats, sums, S * sizeof(double))
                    memcpy(right_stats, sums + S, S * sizeof(double))
                    weights[0] = sums[2 * S]
                    weights[1] = sums[2 * S + 1]
                else:
                    for k in range(S):
                        left_stats[k] += sums[k]
                        right_stats[k] += sums[S + k]
                    weights[0] += sums[2 * S]
                    weights[1] += sums[2 * S + 1]
                n_left += self.block_counts[b]
            return n_left
        memset(left_stats, 0, self.n_stats * sizeof(double))
        memset(right_stats, 0, self.n_stats * sizeof(double))
        weights[0] = 0.0
        weights[1] = 0.0
        for p in range(end - start):
            i = ids[p]
            c = self.codes[i, f]
            go_left = self.goes_left_of(split, c)
            self.goes_left[i] = go_left
            n_left += go_left
            w = self.weight_of(i)
            weights[0 if go_left else 1] += w
            add_sample(left_stats if go_left else right_stats, self.criterion,
                       self.yc[i] if self.is_classifier else 0,
                       0.0 if self.is_classifier else self.yv[i], w)
        return n_left

    cdef void _mark_block(self, intp_t start, intp_t n, intp_t b, const SplitRecord* split,
                          const int* ids) noexcept nogil:
        # mark_sides over block b of a large node: its sides' sums and left count
        cdef intp_t B = self.n_blocks, S = self.n_stats, p, i, count = 0
        cdef double* sums = self.block_sums + b * (2 * S + 2)
        cdef bint go_left
        cdef double w
        memset(sums, 0, (2 * S + 2) * sizeof(double))
        for p in range(b * n // B, (b + 1) * n // B):
            i = ids[p]
            go_left = self.goes_left_of(split, self.codes[i, split.feature])
            self.goes_left[i] = go_left
            count += go_left
            w = self.weight_of(i)
            sums[2 * S + (0 if go_left else 1)] += w
            add_sample(sums if go_left else sums + S, self.criterion,
                       self.yc[i] if self.is_classifier else 0,
                       0.0 if self.is_classifier else self.yv[i], w)
        self.block_counts[b] = count

    cdef bint split_has_missing(self, intp_t start, intp_t end, intp_t f,
                                const double* hist) noexcept nogil:
        cdef intp_t p
        if hist != NULL:           # the node's count in the feature's missing bin
            return hist[(self.offset[f] + self.n_codes[f]) * self.H + self.n_stats] > 0
        if self.local != NULL:     # sorted: missing values (code 255) come last
            return self.codes[self.sorted_segment(f, start)[end - 1 - start], f] == MISSING
        for p in range(start, end):
            if self.codes[self.samples[p], f] == MISSING:
                return True
        return False

    cdef void children_histograms(self, double* hist, intp_t start, intp_t mid, intp_t end,
                                  bint left_grows, bint right_grows, double** left,
                                  double** right) noexcept nogil:
        """Hand the parent's histogram on: build the smaller child's, subtract.

        A child gets a histogram only if it will be split and has at least
        SMALL_NODE samples; a child left without builds its own (or grows
        without one) when its turn comes. The parent's buffer is reused or freed.
        """
        cdef bint small_left = mid - start <= end - mid
        cdef bint want_left = left_grows and mid - start >= SMALL_NODE
        cdef bint want_right = right_grows and end - mid >= SMALL_NODE
        cdef bint want_large = want_right if small_left else want_left
        cdef bint want_small = want_left if small_left else want_right
        cdef double* small = NULL
        if hist == NULL:
            return
        if not want_large:
            free(hist)      # the smaller child, if it needs one, builds it (less work)
            return
        small = <double*> malloc(self.hist_size * sizeof(double))
        if small == NULL:
            free(hist)
            return
        if small_left:
            self.build_histogram(start, mid, small)
        else:
            self.build_histogram(mid, end, small)
        subtract(hist, small, self.hist_size)      # hist is now the larger child's
        if not want_small:
            free(small)
            small = NULL
        if small_left:
            left[0] = small
            right[0] = hist
        else:
            left[0] = hist
            right[0] = small

    # ------------------------------------------------------------ histograms from elsewhere
    # For growers whose rows live elsewhere (``_fit.levelwise``): a node is given by its
    # histogram (``node_histograms``' layout), the second statistic of each bin for
    # regression (else an empty array), its statistics, weight, row count and
    # impurity, the root's weight, and the bounds of its value (monotonic
    # constraints). The draw follows the local depth-first grower's when the
    # nodes are drawn for (``split_histogram``, ``replay_draw``) in its order.
    def histogram(self, intp_t start=0, intp_t end=-1):
        """The histogram of the samples [start, end) (all: end -1) as a node's is
        built, in ``histogram_layout``'s order: for tests and benchmarks."""
        if end < 0:
            end = self.n_samples
        if not 0 <= start <= end <= self.n_samples:
            raise ValueError("no such range of samples")
        out = np.empty(max(self.hist_size, 1), dtype=np.float64)
        cdef double[::1] ov = out
        with nogil:
            self.build_histogram(start, end, &ov[0])
        return out[:self.hist_size]

    def start_fit(self):
        """Begin a fit: the feature draw's generator at its seed."""
        self.begin(False)

    def split_histogram(self, double[::1] hist, double[::1] second, double[::1] stats,
                        double weight, intp_t n_node, double impurity, double weight_root,
                        double lower=-INFINITY, double upper=INFINITY, intp_t n_known=0):
        """The node's split as ``split`` finds it: the features drawn, the best kept.

        Returns
        -------
        (dict or None, int)
            The split (``_split_result``; None when no split is valid) and the
            constants known below the node (its children's ``n_known``).
        """
        cdef SplitRecord split
        cdef intp_t n_constant
        self._check_node(hist, second, stats)
        self.lower = lower
        self.upper = upper
        n_constant = self.draw_features(0, n_node, n_known, &hist[0])
        if not self.node_split(0, n_node, &stats[0], weight, &hist[0], &split):
            return None, n_constant
        return self._split_result(&split, hist, second, stats, weight, n_node, impurity,
                                  weight_root), n_constant

    def unique_split(self, double[::1] hist, double[::1] second, double[::1] stats,
                     double weight, intp_t n_node, double impurity, double weight_root,
                     double lower=-INFINITY, double upper=INFINITY):
        """The best split over every feature, without the draw, and whether it is the
        only best: then any order of visiting the features gives it.

        Returns
        -------
        (dict or None, bool)
            None when no feature offers a valid split (in any order).
        """
        cdef SplitRecord best
        cdef intp_t f, tied = 0
        self._check_node(hist, second, stats)
        self.lower = lower
        self.upper = upper
        clear_split(&best, n_node)
        for f in range(self.d):
            clear_split(&self.feature_best[f], n_node)
            if not self.is_constant(f, 0, n_node, &hist[0]):
                self.scan_feature(&self.scratch[0], f, 0, n_node, &stats[0], weight, &hist[0],
                                  &self.feature_best[f])
            keep_better(&best, &self.feature_best[f])
        if best.feature < 0:
            return None, True
        # Another feature scoring the same is a tie whatever the tie keys say: a
        # categorical candidate is kept or passed by its score alone, so the order
        # the two are visited in can decide.
        for f in range(self.d):
            if self.feature_best[f].feature >= 0 and compare_score(
                    self.feature_best[f].num, self.feature_best[f].den, &best) == 0:
                tied += 1
        return self._split_result(&best, hist, second, stats, weight, n_node, impurity,
                                  weight_root), tied == 1

    def constant_mask(self, double[::1] hist):
        """Per feature, whether it is constant in the node (the draw's verdict)."""
        mask = np.zeros(self.d, dtype=np.uint8)
        cdef intp_t f
        if hist.shape[0] != self.hist_size:
            raise ValueError("histogram of the wrong size")
        for f in range(self.d):
            mask[f] = self.is_constant(f, 0, 1, &hist[0])
        return mask

    def replay_draw(self, intp_t n_known, const unsigned char[::1] mask):
        """Draw for a node whose split is known already: the generator and the feature
        order move on as ``split_histogram`` would move them; returns the
        constants known below the node."""
        cdef intp_t j
        if mask.shape[0] != self.d:
            raise ValueError("one verdict per feature")
        draw_begin(&self.draw, n_known)
        j = draw_next(&self.draw)
        while j >= 0:
            draw_take(&self.draw, j, mask[self.draw.features[j]])
            j = draw_next(&self.draw)
        return draw_end(&self.draw)

    def _check_node(self, double[::1] hist, double[::1] second, double[::1] stats):
        if hist.shape[0] != self.hist_size or stats.shape[0] != self.n_stats:
            raise ValueError("histogram or statistics of the wrong size")
        if not self.is_classifier and second.shape[0] * self.H != self.hist_size:
            raise ValueError("second statistics of the wrong size")

    cdef dict _split_result(self, SplitRecord* split, double[::1] hist, double[::1] second,
                            double[::1] stats, double weight, intp_t n_node, double impurity,
                            double weight_root):
        """A chosen split and its children, from the node's histogram: feature,
        threshold, last_bin, missing_left, improvement, n_left, weight_left/right,
        impurity_left/right, left_stats/right_stats, and ``middle`` (the value the
        children's bounds meet at)."""
        cdef intp_t S = self.n_stats, H = self.H, f = split.feature, b, k, n_left = 0
        cdef intp_t nb = self.n_codes[f]
        cdef const double* fh = &hist[self.offset[f] * H]
        cdef double weights[2]
        child = np.zeros(2 * S, dtype=np.float64)
        cdef double[::1] cv = child
        weights[0] = 0.0
        for b in range(nb + 1):
            # the missing values are bin nb
            if self.goes_left_of(split, MISSING if b == nb else <code_t> b):
                n_left += <intp_t> fh[b * H + S]
                if self.is_classifier:
                    for k in range(S):
                        cv[k] += fh[b * H + k]
                else:
                    weights[0] += fh[b * H]
                    cv[0] += fh[b * H + 1]
                    cv[1] += second[self.offset[f] + b]
        if self.is_classifier:
            weights[0] = self.side_weight(&cv[0])
        for k in range(S):
            cv[S + k] = stats[k] - cv[k]
        weights[1] = weight - weights[0]
        record_children(split, self.criterion, n_left, &cv[0], S, 1, weights, weight,
                        impurity, weight_root)
        if fh[nb * H + S] == 0:
            # no missing value here: at predict NaN follows the larger child
            split.missing_left = n_left > n_node - n_left
        cat_left = np.zeros(CAT_WORDS, dtype=np.uint64)
        if split.categorical:
            for k in range(CAT_WORDS):
                cat_left[k] = split.cat_left[k]
        return dict(feature=int(f), threshold=float(split.threshold),
                    last_bin=int(split.last_bin), missing_left=bool(split.missing_left),
                    categorical=bool(split.categorical), cat_left=cat_left,
                    improvement=float(split.improvement), n_left=int(n_left),
                    weight_left=float(split.weight_left), weight_right=float(split.weight_right),
                    impurity_left=float(split.impurity_left),
                    impurity_right=float(split.impurity_right),
                    left_stats=child[:S].copy(), right_stats=child[S:].copy(),
                    middle=float(middle_value(self.criterion, &cv[0], weights[0], &cv[S],
                                              weights[1])))


# ---------------------------------------------------------------- rows kept elsewhere
def route_rows(const code_t[:, ::1] codes, int[::1] node, const intp_t[::1] feature,
               const intp_t[::1] last_bin, const unsigned char[::1] missing_left,
               const int[::1] left, const int[::1] right, const unsigned char[::1] categorical,
               const unsigned long long[:, ::1] cat_left):
    """Move each row from its node to the child its node's split sends it to, in place.

    The tables are indexed by node id: a node with ``feature`` -2 keeps its
    rows (not decided yet), -1 was not split (its rows leave the growth: -1),
    else codes up to ``last_bin`` go to ``left``, the others to ``right``,
    missing values as ``missing_left`` says, and for a ``categorical`` split the
    codes in its ``cat_left`` set go left; a child that does not grow is -1.
    Rows at -1 stay there.
    """
    cdef intp_t n = codes.shape[0], i, k, f, n_ids = feature.shape[0]
    cdef code_t c
    cdef bint go_left
    if node.shape[0] != n:
        raise ValueError("one node id per row")
    if not (last_bin.shape[0] == missing_left.shape[0] == left.shape[0] == right.shape[0]
            == categorical.shape[0] == cat_left.shape[0] == n_ids) \
            or cat_left.shape[1] != CAT_WORDS:
        raise ValueError("the split tables must have one entry per node id")
    for i in range(n):
        k = node[i]
        if not 0 <= k < n_ids:
            if k >= n_ids:
                raise ValueError(f"row {i} is in node {k}, which the split tables lack")
            continue
        f = feature[k]
        if f == KEEP_ROWS:
            continue
        if f < 0 or f >= codes.shape[1]:
            node[i] = -1
            continue
        go_left = code_goes_left(codes[i, f], categorical[k], &cat_left[k, 0], last_bin[k],
                                 missing_left[k])
        node[i] = left[k] if go_left else right[k]


def node_histograms(const code_t[:, ::1] codes, y, sample_weight, const int[::1] node,
                    const intp_t[::1] slot, hi, int criterion, intp_t n_classes,
                    intp_t n_slots):
    """The histograms of some nodes from the rows held here (``split_histogram``'s input).

    Parameters
    ----------
    codes : ndarray (n, d), uint8
    y : ndarray (n,)
        Class codes (int) or targets (float64).
    sample_weight : ndarray (n,) or None
    node : ndarray (n,), int32
        Each row's node id (-1: none).
    slot : ndarray, intp
        Per node id, the histogram it adds to (-1: none), in [0, n_slots).
    hi : ndarray (d, 256)
        The bins' largest training values (the layout: ``histogram_layout``).

    Returns
    -------
    hist : ndarray (n_slots, size)
    second : ndarray (n_slots, bins)
        Regression: each bin's second statistic (sum w*y^2, or w*y*ln y for
        poisson); (n_slots, 0) for classification.
    """
    cdef bint is_clf = is_classification(criterion)
    cdef intp_t S = stats_size(criterion, n_classes), H = S + 1
    cdef intp_t n = codes.shape[0], d = codes.shape[1], i, k, f, s, b, n_bins
    cdef double w, yi
    cdef intp_t ci = 0
    cdef double two[2]
    cdef double* base
    cdef double* sq
    cdef code_t c
    used, offsets = histogram_layout(hi)
    if used.shape[0] != d or node.shape[0] != n:
        raise ValueError("codes, node ids and bins do not match")
    n_bins = int(offsets[d])
    hist = np.zeros((max(n_slots, 0), n_bins * H), dtype=np.float64)
    second = np.zeros((max(n_slots, 0), 0 if is_clf else n_bins), dtype=np.float64)
    if n_slots <= 0 or n == 0:
        return hist, second
    cdef const intp_t[::1] uv = used
    cdef const intp_t[::1] ov = offsets
    cdef double[:, ::1] hv = hist
    cdef double[:, ::1] qv = second
    cdef const int[::1] yc
    cdef const double[::1] yv
    cdef const double[::1] wv
    cdef bint weighted = sample_weight is not None
    if is_clf:
        yc = np.ascontiguousarray(y, dtype=np.int32)
        if yc.shape[0] != n:
            raise ValueError("one target per row")
    else:
        yv = np.ascontiguousarray(y, dtype=np.float64)
        if yv.shape[0] != n:
            raise ValueError("one target per row")
    if weighted:
        wv = np.ascontiguousarray(sample_weight, dtype=np.float64)
        if wv.shape[0] != n:
            raise ValueError("one weight per row")
    for i in range(n):
        if is_clf and (yc[i] < 0 or yc[i] >= S):
            raise ValueError(f"class code {yc[i]} of row {i} is out of range")
    with nogil:
        for i in range(n):
            k = node[i]
            if k < 0 or k >= slot.shape[0]:
                continue
            s = slot[k]
            if s < 0 or s >= n_slots:
                continue
            w = wv[i] if weighted else 1.0
            if is_clf:
                ci = yc[i]
                yi = 0.0
            else:
                yi = yv[i]
                two[0] = 0.0
                two[1] = 0.0
                add_sample(two, criterion, 0, yi, w)
            base = &hv[s, 0]
            for f in range(d):
                c = codes[i, f]
                b = uv[f] if c == MISSING else c
                bin_add(base + (ov[f] + b) * H, is_clf, S, ci, yi, w)
                if not is_clf:
                    qv[s, ov[f] + b] += two[1]
    return hist, second


def histogram_totals(double[::1] hist, double[::1] second, hi, int criterion,
                     intp_t n_classes):
    """A node's statistics, weight and row count from its histogram (its first
    feature's bins, missing values included)."""
    cdef intp_t S = stats_size(criterion, n_classes), H = S + 1, b, k, count = 0
    used, offsets = histogram_layout(hi)
    stats = np.zeros(S, dtype=np.float64)
    weight = 0.0
    if used.shape[0] == 0:
        return stats, weight, 0
    for b in range(int(used[0]) + 1):
        count += <intp_t> hist[b * H + S]
        if is_classification(criterion):
            for k in range(S):
                stats[k] += hist[b * H + k]
                weight += hist[b * H + k]
        else:
            weight += hist[b * H]
            stats[0] += hist[b * H + 1]
            stats[1] += second[b]
    return stats, weight, count


def impurity_of(int criterion, double[::1] stats, double weight):
    """A node's impurity from its statistics (the growers' rule)."""
    return node_impurity(criterion, &stats[0], stats.shape[0], weight, 1)


cdef inline void subtract(double* hist, const double* part, intp_t size) noexcept nogil:
    cdef intp_t i
    for i in range(size):
        hist[i] -= part[i]
