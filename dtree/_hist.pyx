# cython: language_level=3
"""Histogram splitter: features binned to uint8 codes, splits between bins.

Binning (``fit_bins`` + ``bin_codes``): each feature gets at most ``max_bins``
bins from quantiles of its values (every distinct value its own bin when there
are few enough); NaN takes code ``MISSING``. Each bin remembers the smallest
and largest training value it holds, and a split between bins a (last on the
left) and b (first on the right, among those present in the node) has the
threshold ``midpoint(hi[a], lo[b])``: with one value per bin that is the exact
splitter's threshold, so both find the same trees.

Growth is depth-first in scikit-learn's pre-order, like the exact builder, or
best-first with ``max_leaf_nodes`` (the exact builder's order and numbering).
A node's histogram holds, per feature and bin, the class weights (or the sums
of w and w*y) and the sample count. The smaller child's histogram is built
from its samples and the larger one's as the parent's minus it. A node with
fewer than SMALL_NODE samples grows its whole subtree without histograms, the
exact splitter's way (histograms lose there): its samples sorted by code once
per feature (counting sort), every split a stable partition of each feature.
"""
import numpy as np

from cython.parallel cimport prange, threadid
from libc.math cimport INFINITY, NAN
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

from ._criterion cimport (CRIT_GAIN_RATIO, CRIT_GINI, CRIT_SQUARED_ERROR, clf_proxy,
                          clogc, mse_proxy, node_impurity)
from ._common cimport below_min_decrease
from ._splitter cimport SplitRecord, better, clear_split, draw_feature, midpoint
from ._tree cimport (HistCandidate, bound_leaves, Limits, NodeStore, frontier_pop, frontier_push,
                     is_leaf_by_size, make_limits)
from ._tree import initial_capacity

ctypedef Py_ssize_t intp_t
ctypedef unsigned char code_t

cdef enum:
    MISSING = 255              # the code of NaN; numbers use codes 0 .. max_bins - 1
    N_CODES = 256
    SMALL_NODE = 512           # below this many samples a subtree grows on sorted samples
    PARALLEL_ROWS = 1 << 15    # histograms of larger nodes are built on several threads

# ---------------------------------------------------------------- binning
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


cdef void _bin_rows(const float[:, ::1] X, const double[:, ::1] table, code_t[:, ::1] codes,
                    float* lo, float* hi, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    cdef Py_ssize_t d = X.shape[1], i, f, pos, step
    cdef const double* thr
    cdef float x
    for i in range(start, end):
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


# ---------------------------------------------------------------- growth
cdef struct Work:
    # one per thread: a feature's scan
    double* left          # class weights (or w, wy) of the left side
    double* groups        # the codes present in the node, in order: H values each
    intp_t* group_code
    double* missing       # the missing values' H values


cdef struct Pending:
    intp_t start, end, depth, parent
    bint is_left
    double impurity, weight
    double* hist          # the node's histogram, or NULL when it must be built


cdef class HistGrower:
    """Depth-first growth on binned features (see the module docstring)."""
    cdef const code_t[:, ::1] codes
    cdef const float[:, ::1] lo, hi
    cdef const intp_t[::1] n_codes      # per feature: numeric codes in use (excl. MISSING)
    cdef intp_t n, d, S, H, max_features, n_threads
    cdef int criterion
    cdef bint is_classifier
    cdef const int[::1] yc
    cdef const double[::1] yv
    cdef const double* sw
    cdef object sw_owner
    cdef const double* table
    cdef object table_owner
    cdef intp_t* offset                 # feature f's bins start at offset[f] * H in a histogram
    cdef intp_t hist_size
    cdef int* samples
    cdef object samples_owner
    cdef Limits lim
    cdef double root_weight
    cdef unsigned long long rng_state
    cdef intp_t* features
    cdef Work* work
    cdef SplitRecord* per_feature
    cdef unsigned char* goes_left        # small subtrees: the side of each sample
    cdef int* local                      # small subtrees: per feature, samples sorted by code
    cdef intp_t local_n                  # ... the subtree's size (the stride of local)
    cdef object buffers

    def __cinit__(self, codes, lo, hi, y, sample_weight, intp_t n_classes, int criterion,
                  Limits lim, intp_t max_features, unsigned long long seed, int n_threads):
        cdef intp_t f, t
        self.codes = codes
        self.lo = lo
        self.hi = hi
        self.n = codes.shape[0]
        self.d = codes.shape[1]
        self.criterion = criterion
        self.is_classifier = criterion != CRIT_SQUARED_ERROR
        self.S = n_classes if self.is_classifier else 2
        self.H = self.S + 1                   # + the sample count
        self.lim = lim
        self.max_features = max_features
        self.n_threads = max(1, n_threads)
        self.rng_state = seed if seed != 0 else 0x9E3779B97F4A7C15ULL
        if self.is_classifier:
            self.yc = np.ascontiguousarray(y, dtype=np.int32)
        else:
            self.yv = np.ascontiguousarray(y, dtype=np.float64)
        self.sw = NULL
        cdef const double[::1] view
        if sample_weight is not None:
            self.sw_owner = np.ascontiguousarray(sample_weight, dtype=np.float64)
            view = self.sw_owner
            self.sw = &view[0]
        self.table = NULL
        if self.is_classifier and criterion != CRIT_GINI and sample_weight is None:
            grid = np.arange(self.n + 1, dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                self.table_owner = np.where(grid > 0, grid * np.log(np.maximum(grid, 1.0)), 0.0)
            view = self.table_owner
            self.table = &view[0]
        # codes in use per feature: the highest numeric code seen + 1
        used = np.zeros(self.d, dtype=np.intp)
        for f in range(self.d):
            numeric = np.asarray(hi)[f] > -np.inf
            used[f] = int(np.flatnonzero(numeric).max()) + 1 if numeric.any() else 0
        self.n_codes = used
        offsets = np.zeros(self.d + 1, dtype=np.intp)
        np.cumsum(used + 1, out=offsets[1:])     # + the missing bin
        self.hist_size = int(offsets[self.d]) * self.H
        self.samples_owner = np.arange(self.n, dtype=np.int32)
        cdef int[::1] sv = self.samples_owner
        self.samples = &sv[0] if self.n else NULL
        feature_order = np.arange(self.d, dtype=np.intp)
        left = np.zeros((self.n_threads, self.H + 16), dtype=np.float64)
        groups = np.zeros((self.n_threads, (N_CODES + 1) * self.H + 16), dtype=np.float64)
        group_code = np.zeros((self.n_threads, N_CODES + 8), dtype=np.intp)
        best = np.zeros(max(self.d, 1) * sizeof(SplitRecord), dtype=np.uint8)
        goes_left = np.zeros(max(self.n, 1), dtype=np.uint8)
        cdef unsigned char[::1] glv = goes_left
        self.goes_left = &glv[0]
        self.local = NULL
        self.buffers = [offsets, feature_order, left, best, groups, group_code, goes_left]
        cdef intp_t[::1] ov = offsets, fv = feature_order
        cdef double[:, ::1] lv = left, gv = groups
        cdef intp_t[:, ::1] gcv = group_code
        cdef unsigned char[::1] bv = best
        self.offset = &ov[0]
        self.features = &fv[0]
        self.per_feature = <SplitRecord*> &bv[0]
        self.work = <Work*> malloc(self.n_threads * sizeof(Work))
        if self.work == NULL:
            raise MemoryError()
        for t in range(self.n_threads):
            self.work[t].left = &lv[t, 0]
            self.work[t].groups = &gv[t, 0]
            self.work[t].missing = &gv[t, N_CODES * self.H]
            self.work[t].group_code = &gcv[t, 0]

    def __dealloc__(self):
        free(self.work)

    # ------------------------------------------------------------ helpers
    cdef inline double weight_of(self, intp_t i) noexcept nogil:
        return self.sw[i] if self.sw != NULL else 1.0

    cdef inline void add_sample(self, double* row, intp_t i, double w) noexcept nogil:
        # row: S statistics then the count
        cdef double yv
        if self.is_classifier:
            row[self.yc[i]] += w
        else:
            yv = self.yv[i]
            row[0] += w
            row[1] += w * yv
        row[self.S] += 1.0

    cdef void build_histogram(self, intp_t start, intp_t end, double* hist) noexcept nogil:
        """Histogram of the samples [start, end): one pass, features split over threads."""
        cdef intp_t T = self.n_threads if end - start >= PARALLEL_ROWS else 1
        cdef intp_t t
        memset(hist, 0, self.hist_size * sizeof(double))
        if T == 1:
            self._build_features(start, end, 0, self.d, hist)
            return
        for t in prange(T, nogil=True, num_threads=T, schedule="static"):
            self._build_features(start, end, t * self.d // T, (t + 1) * self.d // T, hist)

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
                self.add_sample(hist + (self.offset[f] + c) * H, i, w)

    # ------------------------------------------------------------ split search
    cdef bint node_split(self, intp_t start, intp_t end, const double* stats, double weight,
                         const double* hist, SplitRecord* best) noexcept nogil:
        cdef intp_t d = self.d, i, f, visited = 0
        cdef bint parallel
        clear_split(best, end)
        if self.max_features >= d:
            parallel = self.n_threads > 1 and hist != NULL and d > 1 \
                and end - start >= PARALLEL_ROWS
            if parallel:
                for f in prange(d, nogil=True, num_threads=self.n_threads, schedule="dynamic"):
                    clear_split(&self.per_feature[f], end)
                    self.scan_feature(&self.work[threadid()], f, start, end, stats, weight,
                                      hist, &self.per_feature[f])
                for f in range(d):
                    if self.per_feature[f].feature >= 0 and better(
                            self.per_feature[f].num, self.per_feature[f].den, f, best):
                        best[0] = self.per_feature[f]
            else:
                for f in range(d):
                    self.scan_feature(&self.work[0], f, start, end, stats, weight, hist, best)
        else:
            # the exact splitter's draw: constant features do not use up the budget
            for i in range(d):
                f = draw_feature(self.features, i, d, &self.rng_state)
                if self.scan_feature(&self.work[0], f, start, end, stats, weight, hist, best):
                    visited += 1
                    if visited >= self.max_features:
                        break
        return best.feature >= 0

    cdef bint scan_feature(self, Work* w, intp_t f, intp_t start, intp_t end,
                           const double* stats, double weight, const double* hist,
                           SplitRecord* best) noexcept nogil:
        """Best cut of feature f; False when the feature is constant in the node."""
        cdef intp_t n_groups
        if hist != NULL:
            n_groups = self.groups_from_histogram(w, f, hist + self.offset[f] * self.H)
        else:
            n_groups = self.groups_from_sorted(w, f, self.local + f * self.local_n + start,
                                               end - start)
        if n_groups == 0 or (n_groups == 1 and w.missing[self.S] == 0):
            return False
        self.scan_groups(w, f, n_groups, stats, weight, end - start, False, best)
        if w.missing[self.S] > 0:
            self.scan_groups(w, f, n_groups, stats, weight, end - start, True, best)
        return True

    cdef intp_t groups_from_histogram(self, Work* w, intp_t f,
                                      const double* fh) noexcept nogil:
        """The feature's present codes, in order, from its histogram."""
        cdef intp_t H = self.H, nb = self.n_codes[f], b, g = 0
        for b in range(nb):
            if fh[b * H + self.S] > 0:
                memcpy(w.groups + g * H, fh + b * H, H * sizeof(double))
                w.group_code[g] = b
                g += 1
        memcpy(w.missing, fh + nb * H, H * sizeof(double))
        return g

    cdef intp_t groups_from_sorted(self, Work* w, intp_t f, const int* ids,
                                   intp_t n) noexcept nogil:
        """The same from a small subtree's samples, kept sorted by code."""
        cdef intp_t p, i, g = 0, H = self.H
        cdef intp_t c, prev = N_CODES
        cdef double* row = NULL
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
            self.add_sample(row, i, self.weight_of(i))
        return g

    cdef void scan_groups(self, Work* w, intp_t f, intp_t n_groups, const double* stats,
                          double weight, intp_t n_node, bint missing_left,
                          SplitRecord* best) noexcept nogil:
        """Cuts after each present code, missing values on one side.

        Mirrors the exact scan: with missing values going right the last cut
        is "all numbers | all missing" (threshold +inf); the leaf-size limits
        and the tie rule are the same. Statistics per group are (class
        weights..., count) or (w, wy, count); the node's are the builder's
        (class weights, or sum wy and sum wy^2).
        """
        cdef intp_t H = self.H, S = self.S, g, k
        cdef const double* row
        cdef double* left = w.left
        cdef double n_left = 0.0, wl, wr, num, den
        cdef double tiny = weight * 1e-12
        cdef double accl, accr, wlogw = 0.0, w_node_entropy = 0.0
        cdef intp_t min_leaf = self.lim.min_samples_leaf
        cdef double min_wleaf = self.lim.min_weight_leaf
        cdef bint has_missing = w.missing[S] > 0
        memset(left, 0, S * sizeof(double))
        if missing_left:
            for k in range(S):
                left[k] = w.missing[k]
            n_left = w.missing[S]
        if self.is_classifier and self.criterion == CRIT_GAIN_RATIO:
            wlogw = clogc(weight, self.table)
            w_node_entropy = wlogw
            for k in range(S):
                w_node_entropy -= clogc(stats[k], self.table)
        for g in range(n_groups):
            row = w.groups + g * H
            for k in range(S):
                left[k] += row[k]
            n_left += row[S]
            if g == n_groups - 1 and (missing_left or not has_missing):
                break       # no cut after the last number unless missing values go right
            if n_left < min_leaf:
                continue
            if n_node - n_left < min_leaf:
                break
            wl = self.side_weight(left)
            wr = weight - wl
            if wr < min_wleaf or wr <= tiny:
                break
            if wl < min_wleaf or wl <= tiny:
                continue
            if self.is_classifier:
                accl = 0.0
                accr = 0.0
                for k in range(S):
                    if self.criterion == CRIT_GINI:
                        accl += left[k] * left[k]
                        accr += (stats[k] - left[k]) * (stats[k] - left[k])
                    else:
                        accl += clogc(left[k], self.table)
                        accr += clogc(stats[k] - left[k], self.table)
                num = clf_proxy(self.criterion, wl, accl, wr, accr, w_node_entropy, wlogw,
                                self.table, &den)
            else:
                num = mse_proxy(wl, left[1], wr, stats[0] - left[1], &den)
            if better(num, den, f, best):
                best.num = num
                best.den = den
                best.feature = f
                best.missing_left = missing_left
                best.categorical = False
                best.multiway = False
                best.pos = w.group_code[g]      # the last code on the left
                if g == n_groups - 1:
                    best.threshold = INFINITY
                else:
                    best.threshold = midpoint(self.hi[f, w.group_code[g]],
                                              self.lo[f, w.group_code[g + 1]])

    cdef inline double side_weight(self, const double* side) noexcept nogil:
        cdef double total = 0.0
        cdef intp_t k
        if not self.is_classifier:
            return side[0]
        for k in range(self.S):
            total += side[k]
        return total

    # ------------------------------------------------------------ partition
    cdef void partition(self, intp_t start, intp_t end, intp_t n_left) noexcept nogil:
        """Move the samples marked left to the front of [start, end)."""
        cdef intp_t lo_p = start, hi_p = end - 1
        cdef int i
        while lo_p <= hi_p:
            i = self.samples[lo_p]
            if self.goes_left[i]:
                lo_p += 1
            else:
                self.samples[lo_p] = self.samples[hi_p]
                self.samples[hi_p] = i
                hi_p -= 1

    # ------------------------------------------------------------ the tree
    def grow(self, intp_t max_leaf_nodes=-1):
        # bounded by the data, so 2 * max_leaf_nodes + 1 node records cannot wrap
        max_leaf_nodes = bound_leaves(max_leaf_nodes, self.n)
        store = NodeStore(self.S, initial_capacity(self.n, self.lim.max_depth,
                                                   self.lim.min_samples_leaf, max_leaf_nodes))
        if max_leaf_nodes > 0:
            rc = self._grow_best_first(store, max_leaf_nodes)
        else:
            rc = self._grow(store)
        if rc != 0:
            raise MemoryError("could not allocate memory for the tree")
        return store.to_arrays()

    cdef int _grow(self, NodeStore store) except -1:
        cdef intp_t S = self.S, sp = 0, cap = 64, node_id, n, n_left
        cdef Pending* stack = <Pending*> malloc(cap * sizeof(Pending))
        cdef double* pool = <double*> malloc(cap * S * sizeof(double))
        cdef double* stats = <double*> malloc(3 * S * sizeof(double))
        cdef double weights[2]
        cdef double imps[2]
        cdef double* hist
        cdef double* hist_left
        cdef double* hist_right
        cdef Pending rec
        cdef SplitRecord split
        cdef int rc = 0
        if stack == NULL or pool == NULL or stats == NULL:
            free(stack)
            free(pool)
            free(stats)
            raise MemoryError()
        with nogil:
            self.root_statistics(pool)
            stack[0].start = 0
            stack[0].end = self.n
            stack[0].depth = 0
            stack[0].parent = -1
            stack[0].is_left = False
            stack[0].weight = self.root_weight
            stack[0].impurity = node_impurity(self.criterion, pool, S, self.root_weight)
            stack[0].hist = NULL
            sp = 1
            while sp > 0:
                sp -= 1
                rec = stack[sp]
                memcpy(stats, pool + sp * S, S * sizeof(double))
                n = rec.end - rec.start
                if n < SMALL_NODE:
                    free(rec.hist)
                    rc = self.grow_small(store, &rec, stats)
                    if rc != 0:
                        break
                    continue
                hist = rec.hist
                if hist == NULL and not is_leaf_by_size(&self.lim, n, rec.weight, rec.depth,
                                                        rec.impurity):
                    hist = <double*> malloc(self.hist_size * sizeof(double))
                    if hist == NULL:
                        rc = 1
                        break
                    self.build_histogram(rec.start, rec.end, hist)
                n_left = self.expand(store, &rec, stats, hist, &split, stats + S,
                                     stats + 2 * S, weights, imps, &node_id)
                if n_left < 0:
                    free(hist)
                    if n_left == -2:
                        rc = 1
                        break
                    continue
                if sp + 2 > cap and not grow_stack(&stack, &pool, &cap, S):
                    free(hist)
                    rc = 1
                    break
                # children's histograms: the smaller one built, the larger by subtraction
                hist_left = NULL
                hist_right = NULL
                self.children_histograms(
                    hist, rec.start, rec.start + n_left, rec.end,
                    not is_leaf_by_size(&self.lim, n_left, weights[0], rec.depth + 1, imps[0]),
                    not is_leaf_by_size(&self.lim, n - n_left, weights[1], rec.depth + 1,
                                        imps[1]),
                    &hist_left, &hist_right)
                self.push(stack, pool, sp, rec.start + n_left, rec.end, rec.depth + 1,
                          node_id, False, imps[1], weights[1], stats + 2 * S, hist_right)
                self.push(stack, pool, sp + 1, rec.start, rec.start + n_left, rec.depth + 1,
                          node_id, True, imps[0], weights[0], stats + S, hist_left)
                sp += 2
            while sp > 0:
                sp -= 1
                free(stack[sp].hist)
        free(stack)
        free(pool)
        free(stats)
        return rc

    cdef int _grow_best_first(self, NodeStore store, intp_t max_leaf_nodes) except -1:
        """Best-first growth up to ``max_leaf_nodes`` leaves, as the exact builder's.

        Nodes are numbered when their parent is expanded and the frontier is
        ordered by the improvement of each node's split (ties: the smaller
        node id). Every frontier node keeps its histogram until it is expanded,
        when the smaller child's is built and the larger's is the remainder.
        Nodes under SMALL_NODE samples build theirs from their samples and drop
        it once their split is known (a subtree is not grown in one go here).
        """
        cdef intp_t S = self.S, size = 0, budget = max_leaf_nodes - 1, k, n
        cdef intp_t max_nodes = 2 * max_leaf_nodes + 1
        cdef HistCandidate* heap = <HistCandidate*> malloc(
            (max_leaf_nodes + 1) * sizeof(HistCandidate))
        # the children's statistics of each node's split, by node id
        cdef double* child_stats = <double*> malloc(max_nodes * 2 * S * sizeof(double))
        cdef double* stats = <double*> malloc(3 * S * sizeof(double))
        cdef double* hist_left
        cdef double* hist_right
        cdef HistCandidate top, left, right
        cdef bint left_grows, right_grows
        cdef int rc = 0
        if heap == NULL or child_stats == NULL or stats == NULL:
            free(heap)
            free(child_stats)
            free(stats)
            raise MemoryError()
        with nogil:
            self.root_statistics(stats)
            rc = self.add_candidate(store, 0, self.n, 0, -1, False,
                                    node_impurity(self.criterion, stats, S, self.root_weight),
                                    self.root_weight, stats, NULL, child_stats, max_nodes, &top)
            if rc == 0:
                frontier_push(heap, &size, &top)
            while rc == 0 and size > 0 and budget > 0:
                frontier_pop(heap, &size, &top)
                if top.is_leaf:
                    continue
                budget -= 1
                if not store.set_split(top.node_id, &top.split):
                    free(top.hist)
                    rc = 1
                    break
                n = top.end - top.start
                left_grows = not is_leaf_by_size(&self.lim, top.n_left, top.weights[0],
                                                 top.depth + 1, top.imps[0])
                right_grows = not is_leaf_by_size(&self.lim, n - top.n_left, top.weights[1],
                                                  top.depth + 1, top.imps[1])
                if left_grows or right_grows:
                    self.partition(top.start, top.end, top.n_left)
                hist_left = NULL
                hist_right = NULL
                self.children_histograms(top.hist, top.start, top.start + top.n_left, top.end,
                                         left_grows, right_grows, &hist_left, &hist_right)
                memcpy(stats, child_stats + top.node_id * 2 * S, 2 * S * sizeof(double))
                rc = self.add_candidate(store, top.start, top.start + top.n_left,
                                        top.depth + 1, top.node_id, True, top.imps[0],
                                        top.weights[0], stats, hist_left, child_stats,
                                        max_nodes, &left)
                if rc != 0:
                    free(hist_right)
                    break
                frontier_push(heap, &size, &left)
                rc = self.add_candidate(store, top.start + top.n_left, top.end, top.depth + 1,
                                        top.node_id, False, top.imps[1], top.weights[1],
                                        stats + S, hist_right, child_stats, max_nodes, &right)
                if rc != 0:
                    break
                frontier_push(heap, &size, &right)
            for k in range(size):
                free(heap[k].hist)
        free(heap)
        free(child_stats)
        free(stats)
        return rc

    cdef int add_candidate(self, NodeStore store, intp_t start, intp_t end, intp_t depth,
                           intp_t parent, bint is_left, double impurity, double weight,
                           const double* stats, double* hist, double* child_stats,
                           intp_t max_nodes, HistCandidate* out) noexcept nogil:
        """Add a node and find its split now; returns 0, or 1 when memory ran out.

        The split's sides are marked at once (the frontier's nodes hold
        disjoint samples, so the marks stay valid until the node is expanded).
        ``hist`` is the node's histogram or NULL; the candidate owns it after.
        """
        cdef intp_t n = end - start, node_id
        cdef double* own
        node_id = store.add(parent, is_left, depth, impurity, n, weight, stats)
        out.node_id = node_id
        out.start = start
        out.end = end
        out.depth = depth
        out.hist = hist
        out.is_leaf = True
        out.improvement = 0.0
        if node_id < 0 or node_id >= max_nodes:
            free(hist)
            out.hist = NULL
            return 1
        own = child_stats + node_id * 2 * self.S
        if not is_leaf_by_size(&self.lim, n, weight, depth, impurity):
            if out.hist == NULL:
                out.hist = <double*> malloc(self.hist_size * sizeof(double))
                if out.hist == NULL:
                    return 1
                self.build_histogram(start, end, out.hist)
            out.n_left = self.split_node(start, end, stats, weight, impurity, out.hist,
                                         &out.split, own, own + self.S, out.weights, out.imps,
                                         &out.improvement)
            out.is_leaf = out.n_left < 0
        if out.is_leaf or n < SMALL_NODE:
            # a small node's children build their own histograms (cheaply):
            # the frontier holds at most N / SMALL_NODE of them
            free(out.hist)
            out.hist = NULL
        if out.is_leaf:
            out.improvement = 0.0
        return 0

    cdef int grow_small(self, NodeStore store, const Pending* top,
                        const double* top_stats) noexcept nogil:
        """Grow a small node's whole subtree the exact splitter's way.

        The node's samples are sorted by code once per feature (counting
        sort); each split then partitions every feature's segment stably, so
        the segments stay sorted and no node sorts or visits empty bins.
        Returns 0, or 1 when memory ran out.
        """
        cdef intp_t n = top.end - top.start, d = self.d, S = self.S, f, p, c, sp, cap = 32
        cdef intp_t node_id, n_left
        cdef int* ids = <int*> malloc((d + 1) * n * sizeof(int))
        cdef intp_t* counts = <intp_t*> malloc((N_CODES + 1) * sizeof(intp_t))
        cdef Pending* stack = <Pending*> malloc(cap * sizeof(Pending))
        cdef double* pool = <double*> malloc(cap * S * sizeof(double))
        cdef double* stats = <double*> malloc(3 * S * sizeof(double))
        cdef double weights[2]
        cdef double imps[2]
        cdef Pending rec
        cdef SplitRecord split
        cdef int rc = 0
        if ids == NULL or counts == NULL or stack == NULL or pool == NULL or stats == NULL:
            rc = 1
        else:
            for f in range(d):
                memset(counts, 0, (N_CODES + 1) * sizeof(intp_t))
                for p in range(top.start, top.end):
                    counts[self.codes[self.samples[p], f] + 1] += 1
                for c in range(N_CODES):
                    counts[c + 1] += counts[c]
                for p in range(top.start, top.end):
                    c = self.codes[self.samples[p], f]
                    ids[f * n + counts[c]] = self.samples[p]
                    counts[c] += 1
            self.local = ids
            self.local_n = n
            stack[0] = top[0]
            stack[0].start = 0
            stack[0].end = n
            memcpy(pool, top_stats, S * sizeof(double))
            sp = 1
        while rc == 0 and sp > 0:
            sp -= 1
            rec = stack[sp]
            memcpy(stats, pool + sp * S, S * sizeof(double))
            n_left = self.expand(store, &rec, stats, NULL, &split, stats + S, stats + 2 * S,
                                 weights, imps, &node_id)
            if n_left == -2:
                rc = 1
                break
            if n_left < 0:
                continue
            if sp + 2 > cap and not grow_stack(&stack, &pool, &cap, S):
                rc = 1
                break
            self.push(stack, pool, sp, rec.start + n_left, rec.end, rec.depth + 1, node_id,
                      False, imps[1], weights[1], stats + 2 * S, NULL)
            self.push(stack, pool, sp + 1, rec.start, rec.start + n_left, rec.depth + 1,
                      node_id, True, imps[0], weights[0], stats + S, NULL)
            sp += 2
        self.local = NULL
        free(ids)
        free(counts)
        free(stack)
        free(pool)
        free(stats)
        return rc

    cdef void partition_local(self, intp_t start, intp_t end, const SplitRecord* split,
                              intp_t n_left) noexcept nogil:
        """Stable-partition every feature's sorted segment by ``goes_left``."""
        cdef intp_t f, p, nl, nr, n = self.local_n
        cdef int* seg
        cdef int* tmp = self.local + self.d * n      # scratch row after the features
        for f in range(self.d):
            seg = self.local + f * n
            if self.codes[seg[start], f] == self.codes[seg[end - 1], f]:
                continue        # constant here: stays constant and is never split again
            nl = start
            nr = 0
            for p in range(start, end):
                if self.goes_left[seg[p]]:
                    seg[nl] = seg[p]
                    nl += 1
                else:
                    tmp[nr] = seg[p]
                    nr += 1
            memcpy(seg + nl, tmp, nr * sizeof(int))

    cdef intp_t expand(self, NodeStore store, const Pending* rec, const double* stats,
                       const double* hist, SplitRecord* split, double* left_stats,
                       double* right_stats, double* weights, double* imps,
                       intp_t* node_out) noexcept nogil:
        """Add a node and split it if it should be.

        Returns the left child's size (its samples moved first), -1 for a
        leaf, -2 when memory ran out.
        """
        cdef intp_t n = rec.end - rec.start, n_left, node_id
        cdef double improvement
        node_id = store.add(rec.parent, rec.is_left, rec.depth, rec.impurity, n, rec.weight,
                            stats)
        node_out[0] = node_id
        if node_id < 0:
            return -2
        if is_leaf_by_size(&self.lim, n, rec.weight, rec.depth, rec.impurity):
            return -1
        n_left = self.split_node(rec.start, rec.end, stats, rec.weight, rec.impurity, hist,
                                 split, left_stats, right_stats, weights, imps, &improvement)
        if n_left < 0:
            return -1
        if not store.set_split(node_id, split):
            return -2
        if is_leaf_by_size(&self.lim, n_left, weights[0], rec.depth + 1, imps[0]) and \
                is_leaf_by_size(&self.lim, n - n_left, weights[1], rec.depth + 1, imps[1]):
            return n_left       # both children are leaves: no need to move samples
        if self.local != NULL:
            self.partition_local(rec.start, rec.end, split, n_left)
        else:
            self.partition(rec.start, rec.end, n_left)
        return n_left

    cdef intp_t split_node(self, intp_t start, intp_t end, const double* stats, double weight,
                           double impurity, const double* hist, SplitRecord* split,
                           double* left_stats, double* right_stats, double* weights,
                           double* imps, double* improvement) noexcept nogil:
        """The node's best split, its sides marked and its children summed.

        Returns the left child's size, or -1 when no split is valid or its
        improvement falls short of ``min_impurity_decrease``.
        """
        cdef intp_t n_left
        if not self.node_split(start, end, stats, weight, hist, split):
            return -1
        n_left = self.mark_sides(start, end, split, left_stats, right_stats, weights)
        imps[0] = node_impurity(self.criterion, left_stats, self.S, weights[0])
        imps[1] = node_impurity(self.criterion, right_stats, self.S, weights[1])
        improvement[0] = (weight / self.root_weight) * (
            impurity - weights[1] / weight * imps[1] - weights[0] / weight * imps[0])
        if below_min_decrease(improvement[0], self.lim.min_impurity_decrease):
            return -1
        if not self.split_has_missing(start, end, split.feature):
            # no missing value here: at predict NaN follows the larger child
            split.missing_left = n_left > (end - start) - n_left
        return n_left

    cdef intp_t mark_sides(self, intp_t start, intp_t end, const SplitRecord* split,
                           double* left_stats, double* right_stats,
                           double* weights) noexcept nogil:
        """Mark each sample's side and sum both children afresh; returns the left size."""
        cdef intp_t f = split.feature, last = split.pos, p, i, n_left = 0
        cdef const int* ids = self.local + f * self.local_n if self.local != NULL \
            else self.samples
        cdef code_t c
        cdef bint go_left
        cdef double w
        cdef double* out
        memset(left_stats, 0, self.S * sizeof(double))
        memset(right_stats, 0, self.S * sizeof(double))
        weights[0] = 0.0
        weights[1] = 0.0
        for p in range(start, end):
            i = ids[p]
            c = self.codes[i, f]
            go_left = split.missing_left if c == MISSING else c <= last
            self.goes_left[i] = go_left
            n_left += go_left
            w = self.weight_of(i)
            out = left_stats if go_left else right_stats
            weights[0 if go_left else 1] += w
            if self.is_classifier:
                out[self.yc[i]] += w
            else:
                out[0] += w * self.yv[i]
                out[1] += w * self.yv[i] * self.yv[i]
        return n_left

    cdef bint split_has_missing(self, intp_t start, intp_t end, intp_t f) noexcept nogil:
        cdef intp_t p
        if self.local != NULL:     # sorted: missing values (code 255) come last
            return self.codes[self.local[f * self.local_n + end - 1], f] == MISSING
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

    cdef void root_statistics(self, double* stats) noexcept nogil:
        """The whole training set's statistics (S values), and ``root_weight``."""
        cdef intp_t k
        memset(stats, 0, self.S * sizeof(double))
        self.root_weight = 0.0
        for k in range(self.n):
            self.add_root(stats, k)
            self.root_weight += self.weight_of(k)

    cdef inline void add_root(self, double* stats, intp_t i) noexcept nogil:
        cdef double w = self.weight_of(i)
        if self.is_classifier:
            stats[self.yc[i]] += w
        else:
            stats[0] += w * self.yv[i]
            stats[1] += w * self.yv[i] * self.yv[i]

    cdef inline void push(self, Pending* stack, double* pool, intp_t at, intp_t start,
                          intp_t end, intp_t depth, intp_t parent, bint is_left,
                          double impurity, double weight, const double* stats,
                          double* hist) noexcept nogil:
        stack[at].start = start
        stack[at].end = end
        stack[at].depth = depth
        stack[at].parent = parent
        stack[at].is_left = is_left
        stack[at].impurity = impurity
        stack[at].weight = weight
        stack[at].hist = hist
        memcpy(pool + at * self.S, stats, self.S * sizeof(double))


cdef bint grow_stack(Pending** stack, double** pool, intp_t* cap, intp_t S) noexcept nogil:
    """Double a builder's stack and its statistics pool; False when memory ran out."""
    cdef void* grown = realloc(stack[0], 2 * cap[0] * sizeof(Pending))
    if grown == NULL:
        return False
    stack[0] = <Pending*> grown
    grown = realloc(pool[0], 2 * cap[0] * S * sizeof(double))
    if grown == NULL:
        return False
    pool[0] = <double*> grown
    cap[0] *= 2
    return True


cdef inline void subtract(double* hist, const double* part, intp_t size) noexcept nogil:
    cdef intp_t i
    for i in range(size):
        hist[i] -= part[i]


def build_hist_tree(codes, lo, hi, y, sample_weight, *, n_classes, criterion, max_depth,
                    min_samples_split, min_samples_leaf, min_weight_leaf,
                    min_impurity_decrease, max_features, seed=1, n_threads=1,
                    max_leaf_nodes=-1):
    """Grow a tree on binned features; returns ``NodeStore.to_arrays``'s dict.

    Depth-first, or best-first when ``max_leaf_nodes`` > 0.
    """
    cdef Limits lim = make_limits(max_depth, min_samples_split, min_samples_leaf,
                                  min_weight_leaf, min_impurity_decrease)
    grower = HistGrower(codes, lo, hi, y, sample_weight, n_classes, criterion, lim,
                        max_features, seed, n_threads)
    return grower.grow(max_leaf_nodes)
