# cython: language_level=3
"""Exact best-split search on presorted feature columns.

Each feature column is sorted once per fit. For every feature the splitter
keeps the samples of a node as one contiguous segment, in ascending order of
that feature, with the value, the sample index and the target stored side by
side so that a scan reads memory sequentially. A scan moves one sample at a
time from the right child to the left one (O(1) per sample through the inline
kernels of ``_criterion.pxd``) and scores a candidate only between two distinct
consecutive values. After a split every other feature's segment is partitioned
stably into left part + right part, so children stay sorted: nothing is sorted
twice.

Which features a node scans, and in which order, is scikit-learn's draw
(``draw_features``): its generator, seeded as scikit-learn seeds it, permutes
the features anew at each node, skips those known constant, and counts what
it visits in scikit-learn's way. Ties between candidates: the feature scanned
first wins (so the same ``random_state`` gives scikit-learn's tree), and within
a feature the first (smallest threshold) position. ID3 and the test hook scan
the drawn features by index instead, so their ties go to the smallest index.

``Splitter`` serves the growers of ``_grow`` (see its protocol there).
"""
import numpy as np

from libc.float cimport DBL_EPSILON
from libc.math cimport fabs, INFINITY, NAN, log, nextafterf
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from cython.parallel cimport prange, threadid

from ._common cimport by_output, better, bit_is_set, check_cut, clear_bit, clear_split, compare_score
from ._common cimport constraints_of, count_bits, CUT_SCORE, CUT_STOP, draw_begin, draw_begin_fit
from ._common cimport dtree_prefetch, FeatureDraw, rand_r, sort_few
from ._common cimport draw_category_cut, draw_end, draw_next, draw_numeric_cut, draw_take
from ._common cimport float_at_most, float_key, keep_better, keep_random_cut, key_float
from ._common cimport keep_doubles, lowest_bit, midpoint, partition_ids, partition_segment
from ._common cimport payload_t, put_bit, RADIX_BITS, RADIX_SIZE, radix_sort_keys, rand_int, record_candidate
from ._common cimport scan_cut, SearchSettings, set_bit, tiny_weight, wins
from ._criterion cimport add_outputs, add_sample, below_count, binary_scan, check_criterion
from ._criterion cimport clf_move, clf_move_count, clf_proxy, clf_rest_acc, clf_side_acc, clogc
from ._criterion cimport cut_proxy, entropy_side_acc, fenwick_add, fenwick_loss, fenwick_reset
from ._criterion cimport fenwick_value, gini_binary_key, gini_binary_proxy, is_classification
from ._criterion cimport is_quantile, is_squared_error, monotonic_ok, mse_outputs_proxy
from ._criterion cimport multiway_proxy, node_entropy_terms, node_impurity, pair_begin, pair_offer
from ._criterion cimport pairs_decide, PairScan, quantile_loss, quantile_stats
from ._criterion cimport random_cut_admissible, rank_add, rank_add_half, rank_loss, rank_reset
from ._criterion cimport rank_value, RankWalk, record_children, reg_proxy, reg_proxy_outputs
from ._criterion cimport rest_begin, rest_remove, rest_remove_half, Side, sklearn_mse_score
from ._criterion cimport sklearn_score, stats_size, sums_each_side
from ._criterion import xlogx_table
from ._route cimport numeric_side, side
from ._subsets cimport Groups, SubsetRules, order_groups, record_category_split, search_subsets


cdef extern from "_vector_kernels.h" nogil:
    # the partition, the filtered scans' sums and scores and a forest tree's kept
    # rows on vector lanes (AVX2 / AVX-512, chosen at import); the partition
    # returns -1 where none runs (the scalar partition_segment then does the work)
    enum: DTREE_PARTITION_SLACK
    int dtree_simd_level()
    int dtree_simd_set_level(int level)
    void dtree_simd_init()
    bint filtered_scans "dtree_filtered_scans"()
    Py_ssize_t cut_scores "dtree_cut_scores"(
        int kind, const double* cw, const double* cx, const DTYPE_t* v, DTYPE_t tol,
        double weight, double total, double min_wleaf, double tiny, double* score,
        Py_ssize_t lo, Py_ssize_t hi, double* top)
    void two_class_left "dtree_two_class_left"(const DTYPE_t* x, const int* codes,
                                               Py_ssize_t n, float t, int missing_right,
                                               Py_ssize_t* n_left, Py_ssize_t* ones)
    Py_ssize_t kept_rows "dtree_kept_rows"(const DTYPE_t* v, const int* ix, Py_ssize_t n,
                                           const int* renumber, DTYPE_t* out_v, int* out_i)
    void gini_sums "dtree_gini_sums"(const unsigned char* counts, const int* ix,
                                     const class_t* codes, Py_ssize_t m, double w_left,
                                     double* ones, double* cw, double* cx)
    Py_ssize_t cuts_to_offer "dtree_cuts_to_offer"(const double* score, Py_ssize_t lo,
                                                   Py_ssize_t hi, double floor, int* out)
    double cut_score "dtree_cut_score"(
        int kind, double wl, double x, const DTYPE_t* v, DTYPE_t tol, double weight,
        double total, double min_wleaf, double tiny)
    Py_ssize_t dtree_partition_u16(DTYPE_t* v, int* ix, class_t* y,
                                   const unsigned long long* goes_left, DTYPE_t* tmp_v,
                                   int* tmp_i, class_t* tmp_y, Py_ssize_t start,
                                   Py_ssize_t end)
    Py_ssize_t dtree_partition_f64(DTYPE_t* v, int* ix, double* y,
                                   const unsigned long long* goes_left, DTYPE_t* tmp_v,
                                   int* tmp_i, double* tmp_y, Py_ssize_t start,
                                   Py_ssize_t end)


cdef extern from "_row_kernels.h" nogil:
    # the random splitter's row mode (``_row_cuts``): its two passes over a node's
    # rows, on the vector lanes the machine has
    enum:
        DTREE_ROWS_TWO_CLASSES
        DTREE_ROWS_CLASSES
        DTREE_ROWS_SUMS
        DTREE_ROWS_WEIGHTED_SUMS
    void row_ranges "dtree_row_ranges"(const DTYPE_t* xrows, const int* ids, Py_ssize_t n,
                                       Py_ssize_t d, DTYPE_t* lo, DTYPE_t* hi, int* nm)
    enum:
        DTREE_GATHER_MAX
    void gather_few "dtree_gather_few"(const DTYPE_t* xrows, const int* ids, Py_ssize_t n,
                                       Py_ssize_t d, const Py_ssize_t* f, int k, DTYPE_t* out,
                                       Py_ssize_t stride, DTYPE_t* lo, DTYPE_t* hi,
                                       Py_ssize_t* nm)
    void row_sums "dtree_row_sums"(int kind, const DTYPE_t* xrows, const int* ids,
                                   Py_ssize_t n, Py_ssize_t d, const double* threshold,
                                   const double* nan_value, const double* ny,
                                   const double* nw, const int* nc, double* count,
                                   double* ones, double* weight, double* sum,
                                   double* by_class)


dtree_simd_init()     # (once, before any thread partitions)


cdef inline void record_cut(SplitRecord* best, double num, double den, Py_ssize_t f,
                            bint missing_left, const DTYPE_t* v, Py_ssize_t p,
                            Py_ssize_t end_known) noexcept nogil:
    # the cut after position p; past the last number it is "numbers | missing"
    record_candidate(best, num, den, f, missing_left, False, False)
    best.threshold = midpoint(v[p], v[p + 1]) if p + 1 < end_known else INFINITY


cdef inline double regression_key(int crit, double sl, double wl, double total,
                                  double weight) noexcept nogil:
    # the tie key of a one-output regression cut from its left side's sums
    cdef double sr = total - sl
    return sklearn_score(crit, &sl, &sr, 1, 1, wl, weight - wl)


cdef inline bint within_rounding(const SplitRecord* r, const SplitRecord* best) noexcept nogil:
    # a score the cross-multiplied test sets apart from the best by a margin its
    # rounding could make (generously: a million units in the last place)
    cdef double lhs = r.num * best.den, rhs = best.num * r.den
    return fabs(lhs - rhs) <= 1e-10 * max(fabs(lhs), fabs(rhs))


cdef inline Py_ssize_t known_end(const DTYPE_t* v, Py_ssize_t start,
                                 Py_ssize_t end) noexcept nogil:
    # the end of a segment's numbers: missing values (NaN) sort last
    while end > start and v[end - 1] != v[end - 1]:
        end -= 1
    return end


cdef inline Py_ssize_t last_cut(Py_ssize_t end_known, Py_ssize_t n_missing,
                                bint missing_left) noexcept nogil:
    # the last position a numeric cut can follow: the cut "all numbers | all
    # missing" (after the last number) exists only with the missing values going right
    return end_known - 1 if (n_missing and not missing_left) else end_known - 2


cdef inline bint routes_left(const SplitRecord* split, DTYPE_t x) noexcept nogil:
    """Whether a value goes left at a split: the one rule (``_route.side``) that
    predict applies to the stored node."""
    return side(x, split.threshold, not split.missing_left,
                split.cat_left if split.categorical else NULL) == 0


cdef inline void partition_rows(DTYPE_t* v, int* ix, payload_t* y, Py_ssize_t K,
                                const unsigned long long* goes_left, DTYPE_t* tmp_v,
                                int* tmp_i, payload_t* tmp_y, Py_ssize_t start,
                                Py_ssize_t end) noexcept nogil:
    """``partition_segment`` called with a literal row length for 1-4 targets, so
    the compiler moves each row in one piece instead of looping over it; one
    target moves on vector lanes where the machine has them (the same result).
    The scratch has room for ``end - start + DTREE_PARTITION_SLACK`` entries."""
    if K == 1:
        if payload_t is class_t:
            if dtree_partition_u16(v, ix, y, goes_left, tmp_v, tmp_i, tmp_y, start, end) >= 0:
                return
        else:
            if dtree_partition_f64(v, ix, y, goes_left, tmp_v, tmp_i, tmp_y, start, end) >= 0:
                return
        partition_segment(v, ix, y, 1, goes_left, tmp_v, tmp_i, tmp_y, start, end)
    elif K == 2:
        partition_segment(v, ix, y, 2, goes_left, tmp_v, tmp_i, tmp_y, start, end)
    elif K == 3:
        partition_segment(v, ix, y, 3, goes_left, tmp_v, tmp_i, tmp_y, start, end)
    elif K == 4:
        partition_segment(v, ix, y, 4, goes_left, tmp_v, tmp_i, tmp_y, start, end)
    else:
        partition_segment(v, ix, y, K, goes_left, tmp_v, tmp_i, tmp_y, start, end)


cdef inline void add_row(double* stats, int crit, Py_ssize_t n_outputs, Py_ssize_t stride,
                         const class_t* codes, const double* targets, double w) noexcept nogil:
    """``add_outputs`` from a row of the presorted layout (the targets beside a value,
    two-byte class codes): read in sequence, where a sample id would jump."""
    cdef Py_ssize_t k
    for k in range(n_outputs):
        add_sample(stats + k * stride, crit, codes[k] if codes != NULL else 0,
                   targets[k] if targets != NULL else 0.0, w)


cdef inline void add_position(double* stats, int crit, Py_ssize_t n_outputs,
                              Py_ssize_t stride, const class_t* codes,
                              const double* targets, Py_ssize_t q, double w) noexcept nogil:
    """Add the sample at index q of the presorted layout (feature offset + position)
    to a node's statistics: its class code or target (one output), or its row of
    them (``add_row``); ``codes`` or ``targets`` is NULL."""
    if n_outputs > 1:
        add_row(stats, crit, n_outputs, stride,
                codes + q * n_outputs if codes != NULL else NULL,
                targets + q * n_outputs if targets != NULL else NULL, w)
    else:
        add_sample(stats, crit, codes[q] if codes != NULL else 0,
                   targets[q] if targets != NULL else 0.0, w)


cdef struct Outputs:
    # what moving a sample of several outputs reads
    int crit
    bint classes
    Py_ssize_t n_outputs
    Py_ssize_t stride       # statistics per output
    const class_t* codes    # the feature's rows of class codes beside its values, or
    const double* targets   # ... of targets
    const int* ix
    const double* sw
    const double* table


cdef inline void move_outputs(const Outputs* o, Side* left, Side* right, double* cl,
                              double* cr, Py_ssize_t p) noexcept nogil:
    """The sample at position p from the right side to the left: one count (classes)
    or one sum of w*y (regression, ``cl``'s first n_outputs values) per output."""
    cdef Py_ssize_t K = o.n_outputs, k
    cdef double w = o.sw[o.ix[p]] if o.sw != NULL else 1.0
    if o.classes:
        for k in range(K):
            clf_move_count(o.crit, left, right, cl, cr, k * o.stride + o.codes[p * K + k], w,
                           o.table)
    else:
        for k in range(K):
            cl[k] += w * o.targets[p * K + k]
    left.w += w


cdef enum:
    SMALL_OUTPUTS = 4   # squared error scans of at most this many outputs keep sums in locals
    AHEAD = 8           # a feature's gather from the rows: rows fetched this far ahead
    SINGLES_MAX = 64    # the largest node ``splits_to_singles`` looks at
    SPEC_FEATURES = 256 # the most features whose draw ``_gather_predicted`` predicts
    SPEC_ROWS = 8192    # ... in a node of at least this many samples (in smaller nodes
                        # the prediction measured slower than a gather per feature:
                        # their rows are in the core's cache already)


cdef inline void scan_squared_outputs(const DTYPE_t* v, const int* ix, const double* rows,
                                      const double* sw, const double* stats, Py_ssize_t K,
                                      Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                      Py_ssize_t n_missing, bint missing_left, double weight,
                                      Py_ssize_t min_leaf, double min_wleaf, DTYPE_t tol,
                                      SplitRecord* best) noexcept nogil:
    """``_scan_outputs`` for squared error and K <= SMALL_OUTPUTS outputs, called with
    a literal K: the compiler unrolls the loops over outputs and keeps the sums in
    registers (through memory, each sample's sums would wait for the last one's
    stores). The proxy is squared error's, summed over the outputs (``mse_outputs_proxy``)."""
    cdef double sl[SMALL_OUTPUTS]
    cdef double sr[SMALL_OUTPUTS]
    cdef Py_ssize_t k, p, last, end_known = end - n_missing, n_node = end - start
    cdef Py_ssize_t base = n_missing if missing_left else 0
    cdef double w = 1.0, wl = 0.0, num, den, key
    cdef double tiny = tiny_weight(weight)
    cdef int cut, order
    for k in range(K):
        sl[k] = 0.0
    if missing_left:
        for p in range(end_known, end):
            if sw != NULL:
                w = sw[ix[p]]
            wl += w
            for k in range(K):
                sl[k] += w * rows[p * K + k]
    last = last_cut(end_known, n_missing, missing_left)
    for p in range(start, last + 1):
        if sw != NULL:
            w = sw[ix[p]]
        wl += w
        for k in range(K):
            sl[k] += w * rows[p * K + k]
        cut = scan_cut(v, p, end_known, p + 1 - start + base, n_node, wl, weight - wl,
                       min_leaf, min_wleaf, tiny, tol)
        if cut == CUT_STOP:
            break
        if cut != CUT_SCORE:
            continue
        num = mse_outputs_proxy(wl, sl, weight - wl, stats, K, &den)
        order = compare_score(num, den, best)
        if order < 0:
            continue
        for k in range(K):
            sr[k] = stats[2 * k] - sl[k]
        key = sklearn_mse_score(sl, sr, 1, K, wl, weight - wl)
        if wins(order, key, best):
            record_cut(best, num, den, f, missing_left, v, p, end_known)
            best.tie_key = key


def _check_outputs(n_categories, bint multiway, monotonic_cst):
    """What the layout of several outputs cannot hold (the plan refuses it first)."""
    if multiway or monotonic_cst is not None or (
            n_categories is not None and np.any(np.asarray(n_categories) > 0)):
        raise ValueError("several outputs need numeric features, binary splits and no "
                         "monotonic constraints")


cdef inline void store_loss(double* losses, Py_ssize_t i, double loss,
                            bint accumulate) noexcept nogil:
    if accumulate:
        losses[i] += loss
    else:
        losses[i] = loss


cdef void sequence_losses(Scratch* s, const QuantileScanArgs* a, Py_ssize_t m,
                          bint accumulate, bint values) noexcept nogil:
    """For the node's m samples in scan order (their ranks in ``s.ranks``, their
    weights in ``s.seq_weight`` if weighted), the loss of every prefix ending at
    i into ``s.loss_left[i]`` and of every suffix starting after i into
    ``s.loss_right[i]``, for i < m - 1 (added to them with ``accumulate``: the
    outputs' losses summed); ``values``: their quantiles too."""
    cdef Py_ssize_t i
    cdef const int* seq = s.ranks
    cdef double tau = a.ql.tau
    cdef RankWalk left, right
    cdef Fenwick* t = &s.weighted
    cdef QuantileLoss qloss = a.ql[0]      # (a local: no store can alias it)
    cdef const QuantileLoss* ql = &qloss
    if m < 2:
        return
    if a.sw == NULL:
        # one pass: each sample joins the prefix and leaves the suffix
        rank_reset(&left, s.present, a.ysorted, m, tau)
        rest_begin(&right, &left, m, tau, a.node_sums)
        for i in range(m - 1):
            # (the first add, and the removal that leaves one, the general way)
            if left.half and left.count > 0:
                rank_add_half(&left, seq[i])
            else:
                rank_add(&left, seq[i], tau)
            if left.half and right.count > 2:
                rest_remove_half(&right, seq[i])
            else:
                rest_remove(&right, seq[i], tau)
            store_loss(s.loss_left, i, rank_loss(&left, ql), accumulate)
            store_loss(s.loss_right, i, rank_loss(&right, ql), accumulate)
            if values:
                s.value_left[i] = rank_value(&left, ql)
                s.value_right[i] = rank_value(&right, ql)
        return
    t.ysorted = a.ysorted
    fenwick_reset(t, m)
    for i in range(m - 1):
        fenwick_add(t, seq[i], s.seq_weight[i])
        store_loss(s.loss_left, i, fenwick_loss(t, ql), accumulate)
        if values:
            s.value_left[i] = fenwick_value(t, ql)
    fenwick_reset(t, m)
    for i in range(m - 1, 0, -1):
        fenwick_add(t, seq[i], s.seq_weight[i])
        store_loss(s.loss_right, i - 1, fenwick_loss(t, ql), accumulate)
        if values:
            s.value_right[i - 1] = fenwick_value(t, ql)


cdef inline void gather_at(Scratch* s, const QuantileScanArgs* a, Py_ssize_t i,
                           Py_ssize_t p) noexcept nogil:
    # the sample at position p of the feature's segment, i-th in scan order
    s.ranks[i] = a.yrank[a.ix[p]]
    if a.sw != NULL:
        s.seq_weight[i] = a.sw[a.ix[p]]


cdef Py_ssize_t gather_numeric(Scratch* s, const QuantileScanArgs* a, Py_ssize_t start,
                               Py_ssize_t end, Py_ssize_t n_missing,
                               bint missing_left) noexcept nogil:
    """The scan order of a numeric feature: its segment, with the missing tail
    first when it goes left. Returns how many samples precede the first number."""
    cdef Py_ssize_t p, i = 0, end_known = end - n_missing
    if missing_left:
        for p in range(end_known, end):
            gather_at(s, a, i, p)
            i += 1
    for p in range(start, end_known if missing_left else end):
        gather_at(s, a, i, p)
        i += 1
    return n_missing if missing_left else 0


cdef void scan_quantile(Scratch* s, const QuantileScanArgs* a, Py_ssize_t start,
                        Py_ssize_t end, Py_ssize_t n_missing, bint missing_left,
                        SplitRecord* best) noexcept nogil:
    """One numeric feature's cuts under a quantile criterion, missing values on one
    side: proxy -(left loss + right loss)."""
    cdef Py_ssize_t base = gather_numeric(s, a, start, end, n_missing, missing_left)
    sequence_losses(s, a, end - start, False, a.mono != 0)
    score_numeric_cuts(s, a, start, end, n_missing, missing_left, base, best)


cdef void score_numeric_cuts(Scratch* s, const QuantileScanArgs* a, Py_ssize_t start,
                             Py_ssize_t end, Py_ssize_t n_missing, bint missing_left,
                             Py_ssize_t base, SplitRecord* best) noexcept nogil:
    """The cuts of a numeric feature from ``sequence_losses`` (its scan order from
    ``gather_numeric``)."""
    cdef Py_ssize_t p, i, last, end_known = end - n_missing, n_node = end - start
    cdef double tiny = tiny_weight(a.weight), num, wl = 0.0
    cdef int cut
    for i in range(base):
        wl += s.seq_weight[i] if a.sw != NULL else 1.0
    last = last_cut(end_known, n_missing, missing_left)
    for p in range(start, last + 1):
        i = base + p - start
        wl += s.seq_weight[i] if a.sw != NULL else 1.0
        cut = scan_cut(a.v, p, end_known, i + 1, n_node, wl, a.weight - wl,
                       a.min_leaf, a.min_wleaf, tiny, a.tol)
        if cut == CUT_STOP:
            break
        if cut != CUT_SCORE:
            continue
        num = -(s.loss_left[i] + s.loss_right[i])
        if better(num, 1.0, best) and (a.mono == 0 or monotonic_ok(
                a.mono, a.lower, a.upper, s.value_left[i], s.value_right[i])):
            record_cut(best, num, 1.0, a.f, missing_left, a.v, p, end_known)


cdef void scan_quantile_groups(Scratch* s, const QuantileScanArgs* a, Py_ssize_t m,
                               Py_ssize_t start, Py_ssize_t end,
                               SplitRecord* best) noexcept nogil:
    """The m - 1 cuts of a categorical feature's groups in ``group_order``."""
    cdef Py_ssize_t g, h, j = 0, n_node = end - start, p, i = 0
    cdef Py_ssize_t first[MAX_CATEGORIES + 1]       # each group's first position
    cdef double num, wl = 0.0
    cdef int code
    cdef unsigned char in_left[MAX_CATEGORIES + 1]
    # the samples in group order (groups lie in code order in the segment)
    first[0] = start
    for g in range(1, m):
        first[g] = first[g - 1] + s.group_count[g - 1]
    for g in range(m):
        h = s.group_order[g]
        for p in range(first[h], first[h] + s.group_count[h]):
            gather_at(s, a, i, p)
            i += 1
    sequence_losses(s, a, n_node, False, False)
    memset(in_left, 0, m)
    for g in range(m - 1):
        h = s.group_order[g]
        for i in range(j, j + s.group_count[h]):
            wl += s.seq_weight[i] if a.sw != NULL else 1.0
        j += s.group_count[h]
        in_left[h] = 1
        if check_cut(j, n_node, wl, a.weight - wl, a.min_leaf, a.min_wleaf,
                     tiny_weight(a.weight)) != CUT_SCORE:
            continue
        num = -(s.loss_left[j - 1] + s.loss_right[j - 1])
        if not better(num, 1.0, best):
            continue
        record_category_split(best, num, 1.0, a.f, False)
        for h in range(m):
            if in_left[h]:
                code = s.group_code[h]
                if code < 0:
                    best.missing_left = True
                else:
                    set_bit(best.cat_left, code)


cdef unsigned long long* sort_runs(unsigned long long* a, unsigned long long* tmp,
                                   Py_ssize_t m) noexcept nogil:
    """Sort the m keys at ``a`` ascending, merging its ascending runs pairwise
    (``tmp``: room for m more); returns where the sorted keys are (``a`` or
    ``tmp``). A column segment partitioned below a node is a few sorted runs, one
    per part: a pass halves their number, each pass a sequential sweep."""
    cdef unsigned long long* src = a
    cdef unsigned long long* dst = tmp
    cdef unsigned long long* swap
    cdef Py_ssize_t i, j, k, p, q, w, runs
    if m <= 32:
        sort_few(a, m)
        return a
    while True:
        runs = 0
        i = 0
        while i < m:
            j = i + 1
            while j < m and src[j - 1] <= src[j]:
                j += 1
            k = j
            if j < m:
                k = j + 1
                while k < m and src[k - 1] <= src[k]:
                    k += 1
            # merge [i, j) and [j, k) into dst[i, k)
            p, q, w = i, j, i
            while p < j and q < k:
                if src[q] < src[p]:
                    dst[w] = src[q]
                    q += 1
                else:
                    dst[w] = src[p]
                    p += 1
                w += 1
            while p < j:
                dst[w] = src[p]
                p += 1
                w += 1
            while q < k:
                dst[w] = src[q]
                q += 1
                w += 1
            runs += 1
            i = k
        swap = src
        src = dst
        dst = swap
        if runs <= 1:
            return src


cdef enum:
    PACKED_SORT = 8192      # from this many samples a column sorts as packed pairs


cdef void radix_argsort_column(const DTYPE_t* column, Py_ssize_t n, DTYPE_t* vals_out,
                               int* idx_out, unsigned long long* pairs_a,
                               unsigned long long* pairs_b, Py_ssize_t* hist) noexcept nogil:
    """Stable argsort of a contiguous column of n values (``vals_out`` may be the
    column itself): the sorted values to ``vals_out``, the sample order to
    ``idx_out``; equal values keep ascending sample order, so the layout is
    reproducible. ``pairs_a``/``pairs_b``: room for n pairs each (n keys and n ids
    fit in one); ``hist``: 3 * RADIX_SIZE counts.

    A short column goes by ``radix_sort_keys``. A long one sorts (key, id) packed in
    one 64-bit word (``_packed_passes``): a pass then scatters one stream per
    bucket, not two (at 4e6 rows the presort took two thirds of the time)."""
    cdef Py_ssize_t i
    cdef unsigned int* keys_a = <unsigned int*> pairs_a
    cdef int* idx_a = <int*> (keys_a + n)
    cdef unsigned int* keys_b = <unsigned int*> pairs_b
    cdef int* idx_b = <int*> (keys_b + n)
    cdef unsigned long long* pairs
    if n < PACKED_SORT:
        for i in range(n):
            keys_a[i] = float_key(column[i])
            idx_a[i] = <int>i
        radix_sort_keys(keys_a, idx_a, n, keys_b, idx_b, hist, vals_out, idx_out)
        return
    pairs = _packed_passes(column, n, pairs_a, pairs_b, hist)
    for i in range(n):
        vals_out[i] = key_float(<unsigned int> (pairs[i] >> 32))
        idx_out[i] = <int> (pairs[i] & 0xFFFFFFFFULL)


cdef unsigned long long* _packed_passes(const DTYPE_t* column, Py_ssize_t n,
                                        unsigned long long* a, unsigned long long* b,
                                        Py_ssize_t* hist) noexcept nogil:
    """LSD radix sort of a column's (``float_key`` << 32 | sample id) pairs, three
    stable passes of RADIX_BITS bits of the key (a digit every key shares is
    skipped); returns the buffer holding them sorted (``a`` or ``b``)."""
    cdef Py_ssize_t i, digit, bucket, total, count, shift
    cdef unsigned long long pair
    cdef unsigned long long* t
    cdef unsigned int key
    cdef Py_ssize_t* h
    memset(hist, 0, 3 * RADIX_SIZE * sizeof(Py_ssize_t))
    for i in range(n):
        key = float_key(column[i])
        a[i] = ((<unsigned long long> key) << 32) | <unsigned int> i
        hist[key & (RADIX_SIZE - 1)] += 1
        hist[RADIX_SIZE + ((key >> RADIX_BITS) & (RADIX_SIZE - 1))] += 1
        hist[2 * RADIX_SIZE + (key >> (2 * RADIX_BITS))] += 1
    for digit in range(3):
        shift = 32 + digit * RADIX_BITS
        h = hist + digit * RADIX_SIZE
        if h[(a[0] >> shift) & (RADIX_SIZE - 1)] == n:
            continue
        total = 0
        for bucket in range(RADIX_SIZE):
            count = h[bucket]
            h[bucket] = total
            total += count
        for i in range(n):
            pair = a[i]
            bucket = (pair >> shift) & (RADIX_SIZE - 1)
            b[h[bucket]] = pair
            h[bucket] += 1
        t = a
        a = b
        b = t
    return a


# ------------------------------------------------- one-output scans, cut by cut or filtered
cdef enum:
    SCAN_BLOCK = 256          # cuts a filtered scan sums, scores and filters at a time
    FILTERED_SCAN_MIN = 8     # shorter segments are scanned cut by cut
    SCORES_GINI = 0           # (dtree_cut_scores' kinds)
    SCORES_MSE = 1


cdef inline double cut_key(const CutScan* g, bint gini, double wl, double x) noexcept nogil:
    # a cut's tie key (scikit-learn's own score) from its left weight and sum x
    if gini:
        return gini_binary_key(x, wl, g.total, g.weight)
    return regression_key(g.crit, x, wl, g.total, g.weight)


cdef inline double weight_of(const unsigned char* counts, const double* sw,
                             int i) noexcept nogil:
    # sample i's weight: its bootstrap count (kept as bytes), its sample weight, or 1
    if counts != NULL:
        return <double>counts[i]
    if sw != NULL:
        return sw[i]
    return 1.0


cdef inline void offer_cut(CutScan* g, SplitRecord* best, bint gini, Py_ssize_t p, double wl,
                           double x) noexcept nogil:
    """The cut after position p against the best: recorded if better, or tied
    exactly and of a larger tie key. wl: its left weight; x: its left class-1
    weight (``gini``: two classes) or its left sum of w*y (one regression output)."""
    cdef double wr = g.weight - wl, xr = g.total - x, l0, r0, num, den, key
    cdef int order
    if gini:
        l0 = wl - x
        r0 = wr - xr
        num = gini_binary_proxy(l0, x, r0, xr, wl, wr, &den)
    else:
        l0 = x      # (the monotonic test compares the sides' means)
        r0 = xr
        num = reg_proxy(g.crit, wl, x, wr, xr, &den)
    order = compare_score(num, den, best)
    if order < 0 or not (g.mono == 0 or monotonic_ok(g.mono, g.lower, g.upper, l0 / wl,
                                                     r0 / wr)):
        return
    if order == 0:
        if g.pending:
            best.tie_key = cut_key(g, gini, g.pending_wl, g.pending_x)
            g.pending = False
        key = cut_key(g, gini, wl, x)
        if wins(order, key, best):
            record_cut(best, num, den, g.f, g.missing_left, g.v, p, g.end_known)
            best.tie_key = key
    else:
        record_cut(best, num, den, g.f, g.missing_left, g.v, p, g.end_known)
        g.pending = True
        g.pending_x = x
        g.pending_wl = wl


cdef inline bint scan_step(CutScan* g, SplitRecord* best, bint gini, Py_ssize_t p, double wl,
                           double x) noexcept nogil:
    """The cut-by-cut scans' step: ``scan_cut``'s verdict on the cut after position
    p, and the offer of a scored one; True where the scan stops."""
    cdef int cut = scan_cut(g.v, p, g.end_known, p + 1 - g.first_left, g.n_node, wl,
                            g.weight - wl, g.min_leaf, g.min_wleaf, g.tiny, g.tol)
    if cut == CUT_SCORE:
        offer_cut(g, best, gini, p, wl, x)
    return cut == CUT_STOP


cdef inline void finish_scan(CutScan* g, SplitRecord* best, bint gini) noexcept nogil:
    # the tie key of the scan's own best, if it was never needed on a tie
    if g.pending:
        best.tie_key = cut_key(g, gini, g.pending_wl, g.pending_x)


cdef inline void block_cuts(const CutScan* g, const double* cw, Py_ssize_t a, Py_ssize_t m,
                            Py_ssize_t* q_lo, Py_ssize_t* q_end, Py_ssize_t* q_stop) noexcept nogil:
    """The leaf-size rules (``scan_cut``) over a block of m cuts after positions a,
    a + 1, ... (cw: their left weights), as ranges: cuts from q_lo have min_leaf
    samples on the left; from q_end on one rule stops the scan (too few samples or
    too little weight on the right: the right only shrinks), and the first such
    cut where the value changes, q_stop (m: none in the block), ends it unscored.
    Between q_lo and q_end a cut is scored where its value changes and its left
    weight passes the rules."""
    cdef Py_ssize_t lo, stop_n, stop_w = m, end, stop, first = g.first_left
    cdef double weight = g.weight
    lo = max(<Py_ssize_t>0, g.min_leaf - (a + 1 - first))
    stop_n = g.n_node - g.min_leaf - (a - first)
    if weight - cw[m - 1] < g.min_wleaf or weight - cw[m - 1] <= g.tiny:
        stop_w = 0
        while not (weight - cw[stop_w] < g.min_wleaf or weight - cw[stop_w] <= g.tiny):
            stop_w += 1
    end = max(lo, min(m, min(stop_n, stop_w)))
    stop = end
    while stop < m and g.v[a + stop + 1] <= <DTYPE_t>(g.v[a + stop] + g.tol):
        stop += 1
    q_lo[0] = lo
    q_end[0] = end
    q_stop[0] = stop


cdef inline bint offer_floor(double top, double* floor) noexcept nogil:
    """Whether a block has cuts to offer, and from which score on: within a
    relative 1e-7 of top, the greatest score seen (the block's or the record's),
    or every scored cut where top overflowed to inf or is NaN."""
    floor[0] = top - 1e-7 * fabs(top) if -INFINITY < top < INFINITY else -INFINITY
    return top > -INFINITY or top != top


cdef void filtered_scan(CutScan* g, SplitRecord* best, Py_ssize_t last, bint gini,
                        const class_t* yc, const double* yv, const int* ix,
                        const unsigned char* counts, const double* sw, double w_left,
                        double x_left) noexcept nogil:
    """The scan of cuts start..last of a two-class Gini (``gini``: class codes yc)
    or squared-error (targets yv) segment without a monotonic constraint, a block
    of cuts at a time: the running sums in the scan's order, then every cut's
    score on vector lanes (``dtree_cut_scores``), then the offer of only the
    cuts within a relative 1e-7 of the best score seen (the block's, the
    record's, or ``g.known_best``: another feature's in the node). w_left and
    x_left: the sums of the missing values scanned first.

    The same record as offering every cut in order: a cut further below the best
    than any rounding can never be the final choice, and whatever it did as a
    passing best is undone when the better one comes (which it replaces, or
    never beat). A score that overflows has every scored cut of its block offered.
    """
    cdef double cw[SCAN_BLOCK]
    cdef double cx[SCAN_BLOCK]
    cdef double score[SCAN_BLOCK]
    cdef int offered[SCAN_BLOCK]
    cdef const DTYPE_t* v = g.v
    cdef DTYPE_t tol = g.tol
    cdef Py_ssize_t a = g.start, m, q, j, q_lo, q_end, q_stop, first = g.first_left
    cdef double w, top, floor
    cdef double weight = g.weight, total = g.total, min_wleaf = g.min_wleaf, tiny = g.tiny
    cdef int kind = SCORES_GINI if gini else SCORES_MSE
    while a <= last:
        m = min(<Py_ssize_t>SCAN_BLOCK, last + 1 - a)
        # the running sums, as the cut-by-cut scan adds them (a two-class Gini's are
        # whole numbers: exact in any type)
        if gini and sw == NULL:
            # (unit weights: the left weight is the cut's position)
            gini_sums(NULL, ix + a, yc + a, m, <double>(a - first), &x_left, cw, cx)
        elif gini and counts != NULL:
            gini_sums(counts, ix + a, yc + a, m, w_left, &x_left, cw, cx)
            w_left = cw[m - 1]
        elif gini:
            for q in range(m):
                w = sw[ix[a + q]]
                w_left += w
                x_left += w * yc[a + q]
                cw[q] = w_left
                cx[q] = x_left
        else:
            for q in range(m):
                w = weight_of(counts, sw, ix[a + q])
                w_left += w
                x_left += w * yv[a + q]
                cw[q] = w_left
                cx[q] = x_left
        block_cuts(g, cw, a, m, &q_lo, &q_end, &q_stop)
        # every scored cut's score, -inf for the others: on vector lanes where the
        # machine has them, the rest here (v[p + 1] is in the segment: a number, or
        # the first missing value when p is the cut "numbers | missing")
        q = cut_scores(kind, cw, cx, v + a, tol, weight, total, min_wleaf, tiny, score,
                       q_lo, q_end, &top)
        for q in range(q, q_end):
            score[q] = cut_score(kind, cw[q], cx[q], v + a + q, tol, weight, total,
                                 min_wleaf, tiny)
            top = score[q] if score[q] > top else top
        if offer_floor(max(max(top, best.num / best.den), g.known_best), &floor):
            for j in range(cuts_to_offer(score, q_lo, q_end, floor, offered)):
                q = offered[j]
                offer_cut(g, best, gini, a + q, cw[q], cx[q])
        if q_stop < m:
            return
        a += m


cdef inline void offer_clf_cut(CutScan* g, SplitRecord* best, Py_ssize_t p, double wl,
                               double acc_left, double acc_right, const double* cl,
                               const double* cr, Py_ssize_t K, double w_node_entropy,
                               double wlogw, const double* table) noexcept nogil:
    """The cut after position p of a classification scan of any number of classes
    (gini, entropy, gain ratio) against the best, as ``offer_cut``: the sides'
    accumulators (``Side.acc``) and class weights cl, cr at the cut."""
    cdef double wr = g.weight - wl, num, den, key
    cdef int order
    num = clf_proxy(g.crit, wl, acc_left, wr, acc_right, w_node_entropy, wlogw, table, 1.0,
                    &den)
    order = compare_score(num, den, best)
    if order < 0 or not (g.mono == 0 or monotonic_ok(g.mono, g.lower, g.upper, cl[0] / wl,
                                                     cr[0] / wr)):
        return
    key = sklearn_score(g.crit, cl, cr, K, 1, wl, wr)
    if wins(order, key, best):
        record_cut(best, num, den, g.f, g.missing_left, g.v, p, g.end_known)
        best.tie_key = key


cdef inline void mark_run(unsigned long long* marks, const int* ix, const class_t* codes,
                          const double* targets, const unsigned char* counts,
                          const double* sw, int crit, Py_ssize_t K, Py_ssize_t n_stats,
                          bint whole, Py_ssize_t offset, Py_ssize_t lo, Py_ssize_t hi,
                          bint left, double* stats, double* weight) noexcept nogil:
    """``_mark_sides`` for the positions lo..hi of one side: their bits, their sum
    into ``stats`` and their weight, in position order (``ix``: the sorted column's
    sample ids; ``codes`` / ``targets`` indexed by offset + position)."""
    cdef Py_ssize_t p
    cdef double w = 1.0, total = 0.0, ones = 0.0
    if codes != NULL and K == 1 and n_stats == 2 and whole:
        # two classes, whole weights: exact sums in any order, kept in registers
        for p in range(lo, hi):
            w = weight_of(counts, sw, ix[p])
            put_bit(marks, ix[p], left)
            total += w
            ones += w * codes[offset + p]
        stats[0] = total - ones
        stats[1] = ones
        weight[0] = total
        return
    for p in range(lo, hi):
        w = weight_of(counts, sw, ix[p])
        put_bit(marks, ix[p], left)
        weight[0] += w
        add_position(stats, crit, K, n_stats // K, codes, targets, offset + p, w)


cdef class Splitter:
    """Presorted columns plus the scan and partition kernels.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float32
    y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        int32 class codes in [0, n_classes) for classification, float64 targets
        for regression.
    sample_weight : ndarray of shape (n_samples,), float64, or None
        None means unit weights.
    settings : SearchSettings (or a dict of its keys)
        The criterion's code, the class count, the leaf limits, the feature
        draw (how many, and the seed of scikit-learn's generator:
        ``randint(0, RAND_R_MAX)`` of the fit's random state), the threads, the
        quantile level, the value tolerance, ID3's multiway splits, scanning
        the drawn features by index (ties to the smallest index) and
        splitter="random"'s one random cut per drawn feature (``_random_split``).
    n_categories : ndarray of shape (n_features,), int32, optional
        Per feature 0 (numeric) or its number of categories.
    monotonic_cst : ndarray of shape (n_features,), int8, optional
    presorted : (vals, idx) or None
        X's columns already sorted (``ColumnOrder.rows``): float32 values and
        int32 sample ids, shape (n_features, n_samples), taken over (not copied).
    by_feature : ndarray of shape (n_features, n_samples), float32, optional
        X's columns as rows (``ColumnOrder(sort=False).by_feature``, shared by a
        forest's trees) for splitter="random" without presorted columns; read only.
    """

    def __cinit__(self, X, y, sample_weight, SearchSettings settings, n_categories=None,
                  monotonic_cst=None, presorted=None, by_feature=None):
        check_criterion(settings.criterion)
        self.settings = settings
        cdef int criterion = settings.criterion, n_threads = settings.n_threads
        cdef Py_ssize_t n_classes = settings.n_classes
        cdef bint multiway = settings.multiway
        cdef Py_ssize_t n, d, f
        if X is None and presorted is not None:
            # (the sorted columns say it all: a forest's tree need not gather X's rows)
            d, n = presorted[1].shape[0], presorted[1].shape[1]
        else:
            X = np.asarray(X, dtype=np.float32)
            n, d = X.shape[0], X.shape[1]
        y = by_output(np.asarray(y))
        self.n_outputs = y.shape[1] if y.ndim == 2 else 1
        if self.n_outputs > 1:
            _check_outputs(n_categories, multiway, monotonic_cst)
        self.n_samples = n
        self.n_features = d
        self.criterion = criterion
        self.is_classifier = is_classification(criterion)
        self.n_stats = self.n_outputs * stats_size(criterion, n_classes)
        self.multiway = multiway
        self.draw.seed = settings.seed
        self.draw.n_features = d
        self.draw.max_features = settings.max_features
        self.index_order = settings.index_order
        self.random_split = settings.random_split
        self.best_first = False
        self.qloss = quantile_loss(criterion, settings.quantile)

        # splitter="random" needs no sorted columns: a drawn feature's least and
        # greatest value and a cut's sides come from one pass over the node's samples
        # (the quantile criteria need targets in order; multiway splits, sorted codes)
        self.sample_mode = settings.random_split and not is_quantile(criterion) \
            and not multiway and presorted is None
        if self.sample_mode:
            presorted = (np.empty((d, 0), dtype=np.float32), np.empty((d, 0), dtype=np.int32))
        if presorted is not None:
            # X's columns sorted already (a forest sorts once for all its trees): the
            # arrays are the splitter's own from here, partitioned in place
            vals, idx = presorted
            if not self.sample_mode and (vals.shape != (d, n) or idx.shape != (d, n)) or vals.dtype != np.float32 \
                    or idx.dtype != np.int32 or not (vals.flags.c_contiguous
                                                     and idx.flags.c_contiguous):
                raise ValueError("presorted must be two C-contiguous (n_features, n_samples) "
                                 "arrays: float32 values and int32 sample ids")
        else:
            vals = np.empty((d, n), dtype=np.float32)
            idx = np.empty((d, n), dtype=np.int32)
        if self.is_classifier:
            if n_classes > MAX_CLASSES:
                raise ValueError(f"at most {MAX_CLASSES} classes are supported; got "
                                 f"{n_classes}")
            y = np.ascontiguousarray(y, dtype=np.int32)
        else:
            y = np.ascontiguousarray(y, dtype=np.float64)
        if presorted is None:
            _presort(X, vals, idx, n_threads)
        # the targets beside each value (class codes in two bytes: less to move in
        # every partition); several outputs: a row of them
        if self.n_outputs == 1 and self.is_classifier:
            payload = np.empty(idx.shape, dtype=np.uint16)
            _codes_by_position(y.reshape(-1), idx, payload, n_threads)
        elif self.n_outputs == 1:
            payload = np.empty(idx.shape, dtype=np.float64)
            _targets_by_position(y.reshape(-1), idx, payload, n_threads)
        else:
            payload = np.take(y.astype(np.uint16) if self.is_classifier else y, idx,
                              axis=0).reshape(d, idx.shape[1] * self.n_outputs)
        cdef const DTYPE_t[:, ::1] xt_view
        cdef int[::1] samples_view
        cdef double[::1] cut_view
        self.xt = NULL
        self.samples = NULL
        self.cut_stats = NULL
        if self.sample_mode:
            xt = np.ascontiguousarray(X.T) if by_feature is None else by_feature
            if xt.shape != (d, n) or xt.dtype != np.float32 or not xt.flags.c_contiguous:
                raise ValueError("by_feature must be X's columns as a C-contiguous float32 "
                                 "(n_features, n_samples) array")
            samples = np.arange(n, dtype=np.int32)
            cut_stats = np.zeros(2 * max(self.n_stats, 1), dtype=np.float64)
            xt_view = xt
            samples_view = samples
            cut_view = cut_stats
            self.xt = &xt_view[0, 0] if n * d > 0 else NULL
            self.samples = &samples_view[0] if n > 0 else NULL
            self.cut_stats = &cut_view[0]
        self.node_targets = self.sample_mode and self.n_outputs == 1 and (
            self.is_classifier or is_squared_error(criterion))
        self.node_c = NULL
        self.node_y = NULL
        self.node_w = NULL
        cdef int[::1] node_c_view
        cdef double[::1] node_y_view, node_w_view
        if self.node_targets:
            node_c = np.empty(max(n, 1), dtype=np.int32)
            node_y = np.empty(max(n, 1), dtype=np.float64)
            node_w = np.empty(max(n, 1) if sample_weight is not None else 1, dtype=np.float64)
            node_c_view, node_y_view, node_w_view = node_c, node_y, node_w
            self.node_c = &node_c_view[0]
            self.node_y = &node_y_view[0]
            self.node_w = &node_w_view[0]

        # a bit per sample: small enough to stay in the core's own cache
        goes_left = np.zeros((n + 63) // 64, dtype=np.uint64)
        # the draw's permutation, the constants found, a node's visiting order
        features = np.zeros((3, max(d, 1)), dtype=np.intp)
        visit_mark = np.zeros(max(d, 1), dtype=np.uint8)
        if n_categories is None:
            n_categories = np.zeros(d, dtype=np.int32)
        n_categories = np.ascontiguousarray(n_categories, dtype=np.int32)
        if n_categories.shape[0] != d or (n_categories > MAX_CATEGORIES).any():
            raise ValueError("n_categories must give, per feature, 0 or a count <= "
                             f"{MAX_CATEGORIES}")
        owned = [vals, idx, payload, goes_left, features, visit_mark, y, n_categories]
        if self.sample_mode:
            owned.extend([xt, samples, cut_stats])
        if self.node_targets:
            owned.extend([node_c, node_y, node_w])
        self.best_v = NULL
        cdef DTYPE_t[::1] best_v_view
        if self.sample_mode:
            best_v = np.empty(max(n, 1) + DTREE_PARTITION_SLACK, dtype=np.float32)
            best_v_view = best_v
            self.best_v = &best_v_view[0]
            owned.append(best_v)
        self.best_home = self.best_v
        self.spec_k = 0
        self.spec_stride = 0
        self.spec_buf = NULL
        self.tol = <DTYPE_t>settings.value_tolerance   # float32 sums, as scikit-learn's
        self.lower = -INFINITY
        self.upper = INFINITY
        self.monotonic_cst = None if monotonic_cst is None else \
            np.ascontiguousarray(monotonic_cst, dtype=np.int8)
        self.monotonic = constraints_of(self.monotonic_cst, d)
        self.quantile_criterion = is_quantile(criterion)
        self.yorder = NULL
        self.yrank = NULL
        self.ysorted = NULL
        cdef int[:, ::1] order_view, rank_view
        cdef double[:, ::1] sorted_view, sums_view
        if is_quantile(criterion) and n > 0:
            # per output (row k): sample ids by target, ranks, the node's sorted targets
            order = np.ascontiguousarray(
                np.argsort(y.reshape(n, -1), axis=0, kind="stable").T, dtype=np.int32)
            ranks = np.empty((self.n_outputs, n), dtype=np.int32)
            ysorted = np.empty((self.n_outputs, n), dtype=np.float64)
            node_sums = np.zeros((self.n_outputs, 2), dtype=np.float64)
            owned.extend([order, ranks, ysorted, node_sums])
            order_view = order
            rank_view = ranks
            sorted_view = ysorted
            sums_view = node_sums
            self.node_sums = &sums_view[0, 0]
            self.yorder = &order_view[0, 0]
            self.yrank = &rank_view[0, 0]
            self.ysorted = &sorted_view[0, 0]
        self._allocate_scratch(max(1, n_threads), int(n_categories.max(initial=0)) + 1,
                               owned)

        cdef DTYPE_t[:, ::1] vals_view = vals
        cdef int[:, ::1] idx_view = idx
        cdef class_t[:, ::1] yc_view
        cdef double[:, ::1] yv_view
        cdef const int[::1] y_code
        cdef const double[::1] y_val
        y = y.reshape(-1)    # (by sample, then output)
        cdef unsigned long long[::1] gl_view = goes_left
        cdef Py_ssize_t[:, ::1] feat_view = features
        cdef unsigned char[::1] mark_view = visit_mark
        cdef const int[::1] ncat_view = n_categories

        self.vals = &vals_view[0, 0] if vals.size > 0 else NULL
        self.idx = &idx_view[0, 0] if idx.size > 0 else NULL
        self.ycode = NULL
        self.yval = NULL
        self.y_by_sample = NULL
        self.yv_by_sample = NULL
        if self.is_classifier:
            yc_view = payload
            y_code = y
            self.ycode = &yc_view[0, 0] if payload.size > 0 else NULL
            self.y_by_sample = &y_code[0] if n > 0 else NULL
        else:
            yv_view = payload
            y_val = y
            self.yval = &yv_view[0, 0] if payload.size > 0 else NULL
            self.yv_by_sample = &y_val[0] if n > 0 else NULL
        self.goes_left = &gl_view[0]
        self.draw.features = &feat_view[0, 0]
        self.draw.constant_features = &feat_view[1, 0]
        self.draw.visit = &feat_view[2, 0]
        self.draw.n_visit = 0
        self.visit_mark = &mark_view[0]
        self.n_categories = &ncat_view[0] if d > 0 else NULL
        self._set_row_mode(X, n_categories, owned)

        self.sw = keep_doubles(None if sample_weight is None else
                               np.ascontiguousarray(sample_weight, dtype=np.float64), owned)
        # whole weights (a forest's bootstrap counts) whose every sum is exact: the
        # two-class Gini scan's integer arithmetic holds for them too
        self.whole_weights = sample_weight is not None and bool(
            np.all(np.floor(sample_weight) == sample_weight)) and \
            float(np.sum(sample_weight)) < 2.0 ** 52
        # (the binary Gini scan looks the weights up in sample order: a byte each
        # stays in the core's cache where a double would not)
        self.counts = NULL
        cdef const unsigned char[::1] counts_view
        if self.whole_weights and n > 0 and float(np.max(sample_weight)) < 256:
            # (3 bytes of padding: a vector gather reads each count as 4 bytes)
            counts = np.zeros(n + 4, dtype=np.uint8)
            counts[:n] = sample_weight
            owned.append(counts)
            counts_view = counts
            self.counts = &counts_view[0]
        self.xlogx_table = keep_doubles(
            xlogx_table(criterion, n, None if sample_weight is None else
                        float(np.sum(sample_weight)), self.n_outputs, self.n_stats), owned)
        self._owned = owned

    def __dealloc__(self):
        free(self.scratch)

    cdef _allocate_scratch(self, int n_threads, Py_ssize_t groups, list owned):
        """Per-thread scan and partition buffers, and the per-feature best splits."""
        cdef Py_ssize_t n = self.n_samples, S = max(self.n_stats, 2), t
        self.n_threads = n_threads
        self.scratch = <Scratch*> malloc(n_threads * sizeof(Scratch))
        if self.scratch == NULL:
            raise MemoryError()
        # padded so that threads' running counts never share a cache line
        counts = np.zeros((n_threads, 2, S + 16), dtype=np.float64)
        group_stats = np.zeros((n_threads, groups, S), dtype=np.float64)
        group_real = np.zeros((n_threads, 2, groups), dtype=np.float64)  # weight, key
        group_index = np.zeros((n_threads, 2, groups), dtype=np.intp)   # count, order
        group_code = np.zeros((n_threads, groups), dtype=np.int32)
        # (the vector partition writes whole vectors past a right part's end)
        tmp_v = np.empty((n_threads, max(n, 1) + DTREE_PARTITION_SLACK), dtype=np.float32)
        tmp_i = np.empty((n_threads, max(n, 1) + DTREE_PARTITION_SLACK), dtype=np.int32)
        tmp_y = np.empty((n_threads, max(n * self.n_outputs, 1) + DTREE_PARTITION_SLACK),
                         dtype=np.uint16 if self.is_classifier else np.float64)
        best = np.zeros(max(self.n_features, 1) * sizeof(SplitRecord), dtype=np.uint8)
        # quantile criteria, per thread (``sequence_losses``): room for a Fenwick
        # tree's 2 (n + 2) sums (or the unit tracker's bitset), then the losses of
        # prefixes and suffixes, the weights in scan order and, with monotonic
        # constraints, the quantiles of prefixes and suffixes
        quantile_rows = 1
        if is_quantile(self.criterion):
            quantile_rows = 5 * n + 4 + (2 * n if self.monotonic != NULL else 0)
        quantile_scratch = np.zeros((n_threads, quantile_rows), dtype=np.float64)
        seg_ranks = np.zeros((n_threads, n if quantile_rows > 1 else 1), dtype=np.int32)
        owned.extend([counts, group_stats, group_real, group_index, group_code, tmp_v,
                      tmp_i, tmp_y, best, quantile_scratch, seg_ranks])
        cdef double[:, ::1] qv = quantile_scratch
        cdef int[:, ::1] rv = seg_ranks
        cdef double[:, :, ::1] cv = counts, gs = group_stats, gr = group_real
        cdef Py_ssize_t[:, :, ::1] gi = group_index
        cdef int[:, ::1] gc = group_code, ti = tmp_i
        cdef DTYPE_t[:, ::1] tv = tmp_v
        cdef class_t[:, ::1] tyc
        cdef double[:, ::1] tyv
        cdef unsigned char[::1] bv = best
        self.feature_best = <SplitRecord*> &bv[0]
        if self.is_classifier:
            tyc = tmp_y
        else:
            tyv = tmp_y
        for t in range(n_threads):
            self.scratch[t].count_left = &cv[t, 0, 0]
            self.scratch[t].count_right = &cv[t, 1, 0]
            self.scratch[t].group_stats = &gs[t, 0, 0]
            self.scratch[t].group_weight = &gr[t, 0, 0]
            self.scratch[t].group_key = &gr[t, 1, 0]
            self.scratch[t].group_count = &gi[t, 0, 0]
            self.scratch[t].group_order = &gi[t, 1, 0]
            self.scratch[t].group_code = &gc[t, 0]
            self.scratch[t].tmp_v = &tv[t, 0]
            self.scratch[t].tmp_i = &ti[t, 0]
            self.scratch[t].known_best = NULL
            self.scratch[t].tmp_yc = &tyc[t, 0] if self.is_classifier else NULL
            self.scratch[t].tmp_yv = NULL if self.is_classifier else &tyv[t, 0]
            self.scratch[t].ranks = &rv[t, 0]
            self.scratch[t].weighted.sums = &qv[t, 0]
            self.scratch[t].weighted.ysorted = NULL   # (set by each scan)
            self.scratch[t].present = <word_t*> &qv[t, 0]
            self.scratch[t].loss_left = NULL
            self.scratch[t].loss_right = NULL
            self.scratch[t].seq_weight = NULL
            self.scratch[t].value_left = NULL
            self.scratch[t].value_right = NULL
            if quantile_rows > 1:
                self.scratch[t].loss_left = &qv[t, 2 * n + 4]
                self.scratch[t].loss_right = &qv[t, 3 * n + 4]
                self.scratch[t].seq_weight = &qv[t, 4 * n + 4]
            if quantile_rows > 5 * n + 4:
                self.scratch[t].value_left = &qv[t, 5 * n + 4]
                self.scratch[t].value_right = &qv[t, 6 * n + 4]

    # ------------------------------------------------------------ the growers' protocol
    cdef void begin(self, bint best_first) noexcept nogil:
        self.best_first = best_first
        draw_begin_fit(&self.draw)

    cdef void root_stats(self, double* stats, double* weight) noexcept nogil:
        """Statistics of the whole training set, summed in sample order."""
        cdef Py_ssize_t i
        cdef double w, total = 0.0
        memset(stats, 0, self.n_stats * sizeof(double))
        if self.quantile_criterion:
            self._quantile_stats(&self.scratch[0], 0, self.n_samples, -1, stats)
        for i in range(self.n_samples):
            w = self.sw[i] if self.sw != NULL else 1.0
            total += w
            if self.quantile_criterion:
                continue
            add_outputs(stats, self.criterion, self.n_outputs, self.n_stats // self.n_outputs,
                        self.y_by_sample, self.yv_by_sample, i, w)
        weight[0] = total

    cdef int split(self, Node* node, const double* stats, double weight_root,
                   SplitRecord* split, double* child_stats) noexcept nogil:
        """The node's best split (or its multiway cascade's next step), sides marked.

        Returns 1 with ``split`` and the children's statistics filled, 0 when
        no split is valid.
        """
        cdef int code
        self.lower = node.lower
        self.upper = node.upper
        if node.forced_feature < 0 and self.sample_mode:
            return self._sample_split(node, stats, weight_root, split, child_stats)
        if node.forced_feature < 0 and self.random_split:
            return self._random_split(node, stats, weight_root, split, child_stats)
        if node.forced_feature < 0:
            # scikit-learn carries constants down depth-first growth only
            node.n_constant = self.draw_features(
                node.start, node.end, 0 if self.best_first else node.n_constant)
            return self.node_split(node.start, node.end, stats, node.weight, node.impurity,
                                   weight_root, split, child_stats)
        # a step of a multiway split: peel off the lowest remaining code
        split.feature = node.forced_feature
        split.categorical = True
        split.multiway = False
        split.missing_left = False
        split.threshold = NAN
        memset(split.cat_left, 0, CAT_WORDS * sizeof(word_t))
        code = lowest_bit(node.rest)
        set_bit(split.cat_left, code)
        clear_bit(node.rest, code)
        memcpy(split.cat_rest, node.rest, CAT_WORDS * sizeof(word_t))
        self.finish_split(node.start, node.end, stats, node.weight, node.impurity,
                          weight_root, split, child_stats)
        return 1

    cdef void partition(self, const Node* node, const SplitRecord* split) noexcept nogil:
        if self.sample_mode:
            # (the sides were marked by _sample_split, for exactly these samples)
            partition_ids(self.samples, self.goes_left, self.scratch[0].tmp_i, node.start,
                          node.end)
            return
        self._partition(node.start, node.end, split)

    cdef void hand_down(self, Node* node, const SplitRecord* split, bint left_grows,
                        bint right_grows, Node* left, Node* right) noexcept nogil:
        """A multiway split's right child is the cascade's next step while it holds two groups."""
        cdef DTYPE_t v_last
        if not (split.multiway or node.forced_feature >= 0):
            return
        # NaN (the missing group, always sent right) stays last in the segment
        v_last = self.vals[split.feature * self.n_samples + node.end - 1]
        if count_bits(split.cat_rest) + (v_last != v_last) >= 2:
            right.forced_feature = split.feature
            memcpy(right.rest, split.cat_rest, CAT_WORDS * sizeof(word_t))

    cdef void release(self, Node* node) noexcept nogil:
        pass

    cdef void finish(self) noexcept nogil:
        pass

    # ------------------------------------------------------------ the search

    cdef Py_ssize_t draw_features(self, Py_ssize_t start, Py_ssize_t end,
                                  Py_ssize_t n_known) noexcept nogil:
        """scikit-learn's feature draw at the node [start, end): ``visit`` gets the
        non-constant features drawn, in the order drawn. Returns the number of
        constants known below the node."""
        cdef Py_ssize_t j, n_total
        draw_begin(&self.draw, n_known)
        j = draw_next(&self.draw)
        while j >= 0:
            draw_take(&self.draw, j, self.is_constant(self.draw.features[j], start, end))
            j = draw_next(&self.draw)
        n_total = draw_end(&self.draw)
        if self.index_order:
            self._sort_visit()
        return n_total

    cdef void _sort_visit(self) noexcept nogil:
        """The features to visit by index (O(d) with a mark per feature)."""
        cdef Py_ssize_t i, f
        for i in range(self.draw.n_visit):
            self.visit_mark[self.draw.visit[i]] = 1
        i = 0
        for f in range(self.n_features):
            if self.visit_mark[f]:
                self.visit_mark[f] = 0
                self.draw.visit[i] = f
                i += 1

    cdef bint is_constant(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        """Whether feature f offers no cut in the node (scikit-learn's test, with
        dtree's equality of values): all its values missing, or none missing and
        all equal."""
        cdef const DTYPE_t* v = self.vals + f * self.n_samples
        if v[end - 1] != v[end - 1]:            # missing values sort last
            return v[start] != v[start]
        if self.n_categories[f] > 0:
            return v[end - 1] == v[start]
        return v[end - 1] <= <DTYPE_t>(v[start] + self.tol)

    cdef bint node_split(self, Py_ssize_t start, Py_ssize_t end, const double* stats,
                         double weight, double impurity, double weight_root,
                         SplitRecord* best, double* child_stats) noexcept nogil:
        """Find the best split of the node [start, end) among the features drawn
        for it (``draw_features``, called first).

        Returns False when no feature admits a valid split. On success ``best``
        is filled and ``child_stats`` holds the left then the right child's
        statistics (2 * n_stats values).
        """
        return self.split_in(&self.scratch[0], self.goes_left, self.draw.visit,
                             self.draw.n_visit, self.n_threads, start, end, stats, weight,
                             impurity, weight_root, best, child_stats)

    cdef bint split_in(self, Scratch* s, unsigned long long* marks, const Py_ssize_t* visit,
                       Py_ssize_t n_visit, int n_threads, Py_ssize_t start, Py_ssize_t end,
                       const double* stats, double weight, double impurity,
                       double weight_root, SplitRecord* best,
                       double* child_stats) noexcept nogil:
        """``node_split`` with its means named: the scratch ``s``, the side marks,
        the features to visit in order, and the threads of a large node's scan
        (more than one: the splitter's own scratch, so the serial grower only). A
        subtree's thread calls it with its own (``_grow``'s exact growth)."""
        cdef Py_ssize_t i
        clear_split(best, end)
        if self.quantile_criterion:
            self._rank_node(start, end)

        if end - start == 2 and self._split_pair(s, visit, n_visit, start, stats, weight, best):
            pass
        elif n_threads > 1 and (end - start) * n_visit >= PARALLEL_WORK:
            self._scan_in_parallel(visit, n_visit, n_threads, start, end, stats, weight, best)
        else:
            for i in range(n_visit):
                self._scan(s, visit[i], start, end, stats, weight, best)

        if best.feature < 0:
            return False
        best.proxy = best.num / best.den
        self._finish(marks, start, end, stats, weight, impurity, weight_root, best, child_stats)
        if best.multiway:
            # the gain of the whole multiway split, not of its first cascade step
            best.improvement = (weight / weight_root) * (
                impurity - best.multiway_impurity / weight)
        return True

    # ------------------------------------------------------------ splitter="random"
    # scikit-learn's extremely randomised split: one cut per drawn feature, its
    # threshold uniform between the node's least and greatest value (the ends of
    # the feature's sorted segment, so no search for them), the best cut kept.
    # A cut is scored from its ranges of the feature's sorted segment
    # (``_score_cut``; the quantile criteria route the node instead): a bisection
    # and a sequential pass over its smaller side per drawn feature.

    # ------------------------------------------------ splitter="random", sample mode
    # The same draws as ``_random_split`` from the same generator, in the same
    # order (a feature's least and greatest value, its categories in ascending
    # order, are those of its sorted segment), so the same tree; but no column is
    # sorted or partitioned: a node's samples sit in one segment of ``samples``,
    # a drawn feature's values are gathered from X by feature, and a cut's sides
    # are summed in one pass. Per node that costs the drawn features' passes, not
    # a partition of every feature.

    cdef bint _sample_split(self, Node* node, const double* stats, double weight_root,
                            SplitRecord* best, double* child_stats) noexcept nogil:
        cdef Py_ssize_t j, f, n_missing, n_left, start = node.start, end = node.end, b, k = 0
        cdef DTYPE_t lo, hi
        cdef bint constant
        cdef double weights[2]
        cdef Py_ssize_t spec_f[DTREE_GATHER_MAX]
        cdef Py_ssize_t spec_missing[DTREE_GATHER_MAX]
        cdef DTYPE_t spec_lo[DTREE_GATHER_MAX]
        cdef DTYPE_t spec_hi[DTREE_GATHER_MAX]
        cdef DTYPE_t* buf
        cdef DTYPE_t* best_buf = NULL
        clear_split(best, end)
        if self.node_targets:
            self._gather_targets(start, end)
        if self.row_mode and not self.lazy_rows:
            self._row_cuts(node, stats, weight_root, best, child_stats)
        else:
            if self.spec_k > 0 and end - start >= SPEC_ROWS:
                k = self._gather_predicted(node, spec_f, spec_lo, spec_hi, spec_missing)
            draw_begin(&self.draw, 0 if self.best_first else node.n_constant)
            j = draw_next(&self.draw)
            while j >= 0:
                f = self.draw.features[j]
                b = 0
                while b < k and spec_f[b] != f:
                    b += 1
                if b < k:
                    # (predicted right: gathered already)
                    buf = self.spec_buf + b * self.spec_stride
                    lo, hi, n_missing = spec_lo[b], spec_hi[b], spec_missing[b]
                    constant = self._gathered_constant(f, lo, hi, n_missing, end - start)
                else:
                    # (into a buffer the best so far is not in)
                    buf = self.scratch[0].tmp_v if self.scratch[0].tmp_v != best_buf \
                        else self.best_home
                    constant = self._gather(f, start, end, buf, &lo, &hi, &n_missing)
                draw_take(&self.draw, j, constant)
                if not constant and self._sample_cut(f, node, buf, lo, hi, n_missing, stats,
                                                     weight_root, best, child_stats):
                    best_buf = buf
                j = draw_next(&self.draw)
            node.n_constant = draw_end(&self.draw)
            if best_buf != NULL:
                self.best_v = best_buf
        if best.feature < 0:
            return False
        best.proxy = best.num / best.den
        # the sides marked for the partition, the children summed afresh
        if self.node_targets and not best.categorical:
            n_left = self._sum_gathered(best, start, end, self.best_v, child_stats, weights)
        else:
            n_left = self._sum_sides(best, start, end, NULL, True, child_stats, weights)
        if not self._node_has_missing:
            # no missing value here: at predict NaN follows the larger child
            best.missing_left = n_left > end - start - n_left
        record_children(best, self.criterion, start + n_left, child_stats, self.n_stats,
                        self.n_outputs, weights, node.weight, node.impurity, weight_root)
        return True

    cdef bint _gather(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end, DTYPE_t* buf,
                      DTYPE_t* lo, DTYPE_t* hi, Py_ssize_t* n_missing) noexcept nogil:
        """Feature f's values of the node's samples into ``buf``, their least and
        greatest (NaN aside) and NaN count; returns whether f is constant in the
        node (``_gathered_constant``). Gathered from X's rows where row mode has
        them (they are laid out already), else from X's columns."""
        cdef const DTYPE_t* col = self.xt + f * self.n_samples
        cdef Py_ssize_t stride = 1
        cdef DTYPE_t x, z, least = INFINITY, greatest = -INFINITY
        cdef DTYPE_t least2 = INFINITY, greatest2 = -INFINITY
        cdef Py_ssize_t p = start, missing = 0
        cdef const int* ids = self.samples
        if self.lazy_rows:
            col, stride = self.xrows + f, self.n_features
        # two values a step, each into its own least and greatest: one chain of
        # comparisons waited on each value in turn (a minimum taken in any order is
        # the same minimum)
        while p + 2 <= end:
            if p + AHEAD + 1 < end:
                dtree_prefetch(col + <Py_ssize_t>ids[p + AHEAD] * stride)
                dtree_prefetch(col + <Py_ssize_t>ids[p + AHEAD + 1] * stride)
            x = col[<Py_ssize_t>ids[p] * stride]
            z = col[<Py_ssize_t>ids[p + 1] * stride]
            buf[p - start] = x
            buf[p + 1 - start] = z
            missing += (x != x) + (z != z)
            least = x if x < least else least
            greatest = x if x > greatest else greatest
            least2 = z if z < least2 else least2
            greatest2 = z if z > greatest2 else greatest2
            p += 2
        if p < end:
            x = col[<Py_ssize_t>ids[p] * stride]
            buf[p - start] = x
            missing += x != x
            least = x if x < least else least
            greatest = x if x > greatest else greatest
        least = least2 if least2 < least else least
        greatest = greatest2 if greatest2 > greatest else greatest
        lo[0], hi[0], n_missing[0] = least, greatest, missing
        return self._gathered_constant(f, least, greatest, missing, end - start)

    cdef bint _gathered_constant(self, Py_ssize_t f, DTYPE_t lo, DTYPE_t hi,
                                 Py_ssize_t n_missing, Py_ssize_t n) noexcept nogil:
        """Whether feature f is constant in a node of n samples from its gathered
        least and greatest value and NaN count (``is_constant``'s test)."""
        if n_missing:
            return n_missing == n
        if self.n_categories[f] > 0:
            return hi == lo
        return hi <= <DTYPE_t>(lo + self.tol)

    cdef Py_ssize_t _gather_predicted(self, const Node* node, Py_ssize_t* features,
                                      DTYPE_t* lo, DTYPE_t* hi,
                                      Py_ssize_t* n_missing) noexcept nogil:
        """The first features the node's draw will look at, as long as none is
        constant or holds a missing value (the draw made on copies of the
        generator and the permutation; each such feature's cut takes one
        number), gathered in one pass over the node's rows into ``spec_buf``
        (``dtree_gather_few``); returns how many (in ``features``, their least and
        greatest and NaN counts beside). A feature the draw then takes that is
        not among them is gathered alone."""
        cdef FeatureDraw sim = self.draw
        cdef Py_ssize_t perm[SPEC_FEATURES]
        cdef Py_ssize_t visit[SPEC_FEATURES]
        cdef Py_ssize_t j, k = 0
        memcpy(perm, self.draw.features, self.n_features * sizeof(Py_ssize_t))
        sim.features = perm
        sim.visit = visit
        draw_begin(&sim, 0 if self.best_first else node.n_constant)
        j = draw_next(&sim)
        while j >= 0 and k < self.spec_k:
            features[k] = sim.features[j]
            k += 1
            draw_take(&sim, j, False)
            rand_r(&sim.state)      # (the cut's threshold: ``draw_numeric_cut``)
            j = draw_next(&sim)
        if k > 1:
            gather_few(self.xrows, self.samples + node.start, node.end - node.start,
                       self.n_features, features, <int>k, self.spec_buf, self.spec_stride,
                       lo, hi, n_missing)
            return k
        return 0        # (one feature: gathered alone, as ever)

    cdef bint _sample_cut(self, Py_ssize_t f, const Node* node, const DTYPE_t* buf, DTYPE_t lo,
                          DTYPE_t hi, Py_ssize_t n_missing, const double* stats,
                          double weight_root, SplitRecord* best,
                          double* child_stats) noexcept nogil:
        """Feature f's random cut (its values gathered in ``buf``), drawn as
        ``_draw_cut`` draws it, its sides summed, kept in ``best`` if admissible and
        better; returns whether it was (``buf`` then holds the best's values)."""
        cdef SplitRecord cut
        cdef Py_ssize_t n = node.end - node.start, q, n_left, S = self.n_stats
        cdef unsigned int* state = &self.draw.state
        cdef word_t present[CAT_WORDS]
        cdef double weights[2]
        cdef double key
        clear_split(&cut, node.end)
        cut.feature = f
        cut.den = 1.0
        if self.n_categories[f] > 0:
            # the categories present, in ascending order (a sorted segment's runs)
            memset(present, 0, CAT_WORDS * sizeof(word_t))
            for q in range(n):
                if buf[q] == buf[q]:
                    set_bit(present, <int>buf[q])
            draw_category_cut(&cut, present, n_missing > 0, state)
        else:
            draw_numeric_cut(&cut, lo, hi, n_missing > 0, state)
        n_left = self._score_sides(&cut, node, buf, stats, child_stats, weights)
        return self._offer_cut(&cut, node, n_left, lo, hi, stats, weight_root, best,
                               child_stats, weights)

    cdef bint _offer_cut(self, SplitRecord* cut, const Node* node, Py_ssize_t n_left,
                         DTYPE_t lo, DTYPE_t hi, const double* stats, double weight_root,
                         SplitRecord* best, double* child_stats,
                         const double* weights) noexcept nogil:
        """A scored random cut (its children's statistics in ``child_stats``) made the
        best if admissible and better; returns whether it was."""
        cdef Py_ssize_t S = self.n_stats
        cdef double key
        if self.node_targets:
            # classes and squared error give finite impurities: the cut needs its sides'
            # sizes here, and only the winner its children's impurities (recorded
            # by _sample_split from its sides summed afresh)
            cut.pos = node.start + n_left
            cut.weight_left, cut.weight_right = weights[0], weights[1]
            cut.impurity_left = cut.impurity_right = 0.0
        else:
            record_children(cut, self.criterion, node.start + n_left, child_stats, S,
                            self.n_outputs, weights, node.weight, node.impurity, weight_root)
        if not self._admissible(cut.feature, node.start, node.end, cut, child_stats,
                                node.weight):
            return False
        cut.num = cut_proxy(self.criterion, stats, node.weight, child_stats,
                            cut.weight_left, S, self.n_outputs, self.xlogx_table,
                            self.scratch[0].count_left, &cut.den)
        if best.feature >= 0 and compare_score(cut.num, cut.den, best) < 0:
            return False        # (below the best: its tie key is never read)
        key = sklearn_score(self.criterion, child_stats, child_stats + S, S // self.n_outputs,
                            self.n_outputs, cut.weight_left, cut.weight_right)
        if not keep_random_cut(best, cut, key):
            return False
        best.low = lo
        best.high = hi
        return True

    # ------------------------------------------------ splitter="random", row mode
    # Numeric features, one output of classes or squared error: a node's drawn cuts
    # scored together. One pass over the node's rows of X (each row a cache line or
    # two, where a column gather touches one line per value) finds every feature's
    # least and greatest value; the draw then runs as ``_sample_split``'s, from those;
    # a second pass over the rows sums every drawn cut's left side at once, each
    # cut's sums in sample order, as ``_score_sides`` sums them; the cuts are then
    # offered in drawing order. The same draws and the same sums: the same tree.

    cdef void _row_cuts(self, Node* node, const double* stats, double weight_root,
                        SplitRecord* best, double* child_stats) noexcept nogil:
        cdef Py_ssize_t start = node.start, end = node.end, n = end - start
        cdef Py_ssize_t d = self.n_features, S = self.n_stats, q, j, f, k, m = 0, c
        cdef const int* ids = self.samples + start
        cdef DTYPE_t* lo = self.row_lo
        cdef DTYPE_t* hi = self.row_hi
        cdef int* nm = self.row_missing
        cdef Py_ssize_t* cf = self.cut_feature
        cdef double* ct = self.cut_threshold
        cdef double* cnan = self.cut_nan_value
        cdef double* an = self.acc_count
        cdef double* a1 = self.acc_ones
        cdef double* aw = self.acc_weight
        cdef double* s0 = self.acc_sum
        cdef double* acl = self.acc_classes
        cdef const double* nw = self.node_w
        cdef const double* ny = self.node_y
        cdef const int* nc = self.node_c
        cdef int kind
        cdef double weights[2]
        cdef bint constant
        cdef SplitRecord cut
        for f in range(d):
            lo[f] = INFINITY
            hi[f] = -INFINITY
            nm[f] = 0
        row_ranges(self.xrows, ids, n, d, lo, hi, nm)
        # (a feature drawn for no cut gets a cut anyway, summed and never offered:
        # every row is then summed in one plain loop over its d values)
        for f in range(d):
            ct[f] = 0.0
            cnan[f] = INFINITY
        draw_begin(&self.draw, 0 if self.best_first else node.n_constant)
        j = draw_next(&self.draw)
        while j >= 0:
            f = self.draw.features[j]
            constant = nm[f] == n if nm[f] else hi[f] <= <DTYPE_t>(lo[f] + self.tol)
            draw_take(&self.draw, j, constant)
            if not constant:
                clear_split(&cut, end)
                draw_numeric_cut(&cut, lo[f], hi[f], nm[f] > 0, &self.draw.state)
                # (thresholds are finite: X holds no infinity)
                cf[m], ct[f] = f, cut.threshold
                cnan[f] = -INFINITY if cut.missing_left else INFINITY
                m += 1
            j = draw_next(&self.draw)
        node.n_constant = draw_end(&self.draw)
        if m == 0:
            return
        for f in range(d):
            an[f] = 0.0
            a1[f] = 0.0
            aw[f] = 0.0
            s0[f] = 0.0
        if self.is_classifier:
            memset(acl, 0, d * S * sizeof(double))
        # g is 1 on the left and 0 on the right, so each sum is _score_sides's, term
        # for term (``_row_kernels.h``)
        if self.is_classifier:
            kind = DTREE_ROWS_TWO_CLASSES if self.sw == NULL and S == 2 else DTREE_ROWS_CLASSES
        else:
            kind = DTREE_ROWS_SUMS if self.sw == NULL else DTREE_ROWS_WEIGHTED_SUMS
        row_sums(kind, self.xrows, ids, n, d, ct, cnan, ny, nw if self.sw != NULL else NULL,
                 nc, an, a1, aw, s0, acl)
        # (a cut whose sums repeat an earlier cut's scores as that one and never
        # beats it: comparing the sums first measured slower than offering it)
        for k in range(m):
            f = cf[k]
            clear_split(&cut, end)
            cut.feature = f
            cut.den = 1.0
            cut.threshold = ct[f]
            cut.missing_left = cnan[f] < 0
            if self.is_classifier and self.sw == NULL and S == 2:
                child_stats[0] = an[f] - a1[f]
                child_stats[1] = a1[f]
                weights[0] = an[f]
            elif self.is_classifier:
                for c in range(S):
                    child_stats[c] = acl[c * d + f]
                weights[0] = aw[f] if self.sw != NULL else an[f]
            else:
                child_stats[0] = s0[f]
                child_stats[1] = 0.0        # (the squares: read by no random cut)
                weights[0] = aw[f] if self.sw != NULL else an[f]
            weights[1] = node.weight - weights[0]
            for c in range(S):
                child_stats[S + c] = stats[c] - child_stats[c]
            self._offer_cut(&cut, node, <Py_ssize_t>an[f], lo[f], hi[f], stats, weight_root,
                            best, child_stats, weights)
        if best.feature >= 0:
            # the winner's values, for its sides' marks
            for q in range(n):
                self.best_v[q] = self.xrows[<Py_ssize_t>ids[q] * d + best.feature]

    def _set_row_mode(self, X, n_categories, list owned):
        """Row mode's room (``_row_cuts``), where it applies."""
        cdef Py_ssize_t d = self.n_features, S = max(self.n_stats, 1)
        cdef const DTYPE_t[:, ::1] rows_view
        self.row_mode = self.node_targets and not (n_categories > 0).any() and d > 0 \
            and self.n_samples > 0
        if not self.row_mode:
            return
        # few features drawn per node: each drawn one gathered from the rows (a
        # quarter of the features measured 1.6x faster on 20 of them); many: every
        # feature's range in one pass (``_row_cuts``; all 20 measured 1.5x faster)
        self.lazy_rows = 3 * self.draw.max_features <= d
        rows = np.ascontiguousarray(X, dtype=np.float32)
        rows_view = rows
        self.xrows = &rows_view[0, 0]
        cdef DTYPE_t[:, ::1] spec_view
        if self.lazy_rows and d <= SPEC_FEATURES and self.draw.max_features >= 2:
            # the predicted draw's buffers (``_gather_predicted``): a row read once
            # for the node's first few features measured faster than once per feature
            self.spec_k = min(self.draw.max_features, <Py_ssize_t>DTREE_GATHER_MAX)
            self.spec_stride = self.n_samples + DTREE_PARTITION_SLACK
            spec = np.empty((self.spec_k, self.spec_stride), dtype=np.float32)
            spec_view = spec
            self.spec_buf = &spec_view[0, 0]
            owned.append(spec)
        lo_hi = np.empty((2, d), dtype=np.float32)
        missing = np.empty(d, dtype=np.intc)
        features = np.empty(d, dtype=np.intp)
        # by feature: thresholds, NaN values, counts, ones, weight, sums
        reals = np.empty((6, d), dtype=np.float64)
        classes = np.empty(d * S, dtype=np.float64)
        owned.extend([rows, lo_hi, missing, features, reals, classes])
        cdef DTYPE_t[:, ::1] lh = lo_hi
        cdef int[::1] mv = missing
        cdef Py_ssize_t[::1] fv = features
        cdef double[:, ::1] rv = reals
        cdef double[::1] kv = classes
        self.row_lo, self.row_hi = &lh[0, 0], &lh[1, 0]
        self.row_missing, self.cut_feature = &mv[0], &fv[0]
        self.cut_threshold, self.cut_nan_value = &rv[0, 0], &rv[1, 0]
        self.acc_count, self.acc_ones, self.acc_weight = &rv[2, 0], &rv[3, 0], &rv[4, 0]
        self.acc_sum = &rv[5, 0]
        self.acc_classes = &kv[0]

    cdef void _gather_targets(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        """The node's targets (class codes or values) and weights in segment order."""
        cdef Py_ssize_t p
        cdef int i
        for p in range(start, end):
            i = self.samples[p]
            if self.is_classifier:
                self.node_c[p - start] = self.y_by_sample[i]
            else:
                self.node_y[p - start] = self.yv_by_sample[i]
            if self.sw != NULL:
                self.node_w[p - start] = self.sw[i]

    cdef Py_ssize_t _score_sides(self, const SplitRecord* cut, const Node* node,
                                 const DTYPE_t* values, const double* stats, double* child_stats,
                                 double* weights) noexcept nogil:
        """A cut's children for its scoring: the left side summed, the right as the
        node's statistics less the left's (as ``_score_cut`` takes one side from the
        other). A numeric cut of one output, classification or squared error, in a
        branch-free pass over the node's gathered targets (``node_targets``): a
        sample on the right adds zeros, which leave every sum as it was. Returns
        the left count."""
        cdef Py_ssize_t S = self.n_stats, q, k, n = node.end - node.start, n_left = 0
        cdef double* left = child_stats
        cdef double t = cut.threshold, w, wl = 0.0, s0 = 0.0
        cdef const double* nw = self.node_w
        cdef const double* ny = self.node_y
        cdef const int* nc = self.node_c
        cdef int missing_right = not cut.missing_left, g
        cdef Py_ssize_t ones = 0
        if cut.categorical or not self.node_targets:
            return self._sum_sides(cut, node.start, node.end, values, False, child_stats,
                                   weights)
        memset(left, 0, S * sizeof(double))
        # (``routes_left`` of a numeric cut: 1 - the rule's ``numeric_side``)
        if self.is_classifier and self.sw == NULL and S == 2:
            # two classes, unit weights: whole counts, the second class's as a sum of
            # its codes (integer sums in any order are exact: on vector lanes)
            two_class_left(values, nc, n, <float>t, missing_right, &n_left, &ones)
            left[0] = <double>(n_left - ones)
            left[1] = <double>ones
            wl = <double>n_left
        elif self.is_classifier and self.sw == NULL:
            for q in range(n):
                g = 1 - numeric_side(values[q], t, missing_right)
                left[nc[q]] += <double>g
                n_left += g
            wl = <double>n_left
        elif self.is_classifier:
            for q in range(n):
                g = 1 - numeric_side(values[q], t, missing_right)
                w = g * nw[q]
                left[nc[q]] += w
                wl += w
                n_left += g
        elif self.sw == NULL:
            # (squared error: the sums of w y alone; no proxy, tie key or check of a
            # random cut reads the squares, and the winner's children are summed
            # afresh, squares too, by _sum_gathered)
            for q in range(n):
                g = 1 - numeric_side(values[q], t, missing_right)
                s0 += <double>g * ny[q]
                n_left += g
            wl = <double>n_left
            left[0] = s0
        else:
            for q in range(n):
                g = 1 - numeric_side(values[q], t, missing_right)
                w = g * nw[q]
                s0 += w * ny[q]
                wl += w
                n_left += g
            left[0] = s0
        for k in range(S):
            child_stats[S + k] = stats[k] - left[k]
        weights[0] = wl
        weights[1] = node.weight - wl
        return n_left

    cdef Py_ssize_t _sum_gathered(self, const SplitRecord* cut, Py_ssize_t start, Py_ssize_t end,
                                  const DTYPE_t* values, double* child_stats,
                                  double* weights) noexcept nogil:
        """``_sum_sides`` with marks for a numeric cut over the node's gathered values
        and targets (``node_targets``), branch-free: each side's sums in sample order,
        a sample of the other side adding zeros."""
        cdef Py_ssize_t S = self.n_stats, q, n = end - start, n_left = 0, ones = 0, ones_left = 0
        cdef const int* ids = self.samples + start
        cdef const double* nw = self.node_w
        cdef const double* ny = self.node_y
        cdef const int* nc = self.node_c
        cdef double t = cut.threshold, w, gw, hw, yv, wl = 0.0, wr = 0.0
        cdef double l0 = 0.0, l1 = 0.0, r0 = 0.0, r1 = 0.0
        cdef int missing_right = not cut.missing_left, g, missing = 0
        cdef DTYPE_t x
        memset(child_stats, 0, 2 * S * sizeof(double))
        if self.is_classifier and self.sw == NULL and S == 2:
            for q in range(n):
                x = values[q]
                missing |= x != x
                g = 1 - numeric_side(x, t, missing_right)
                put_bit(self.goes_left, ids[q], g)
                n_left += g
                ones += nc[q]
                ones_left += g & nc[q]
            child_stats[0] = <double>(n_left - ones_left)
            child_stats[1] = <double>ones_left
            child_stats[2] = <double>(n - n_left - (ones - ones_left))
            child_stats[3] = <double>(ones - ones_left)
            wl, wr = <double>n_left, <double>(n - n_left)
        elif self.is_classifier:
            for q in range(n):
                x = values[q]
                missing |= x != x
                g = 1 - numeric_side(x, t, missing_right)
                put_bit(self.goes_left, ids[q], g)
                n_left += g
                w = nw[q] if self.sw != NULL else 1.0
                child_stats[(1 - g) * S + nc[q]] += w
                if g:
                    wl += w
                else:
                    wr += w
        else:
            for q in range(n):
                x = values[q]
                missing |= x != x
                g = 1 - numeric_side(x, t, missing_right)
                put_bit(self.goes_left, ids[q], g)
                n_left += g
                w = nw[q] if self.sw != NULL else 1.0
                gw = g * w
                hw = (1 - g) * w
                yv = ny[q]
                l0 += gw * yv
                l1 += gw * yv * yv
                r0 += hw * yv
                r1 += hw * yv * yv
                wl += gw
                wr += hw
            child_stats[0], child_stats[1], child_stats[S], child_stats[S + 1] = l0, l1, r0, r1
        weights[0], weights[1] = wl, wr
        self._node_has_missing = missing
        return n_left

    cdef Py_ssize_t _sum_sides(self, const SplitRecord* cut, Py_ssize_t start, Py_ssize_t end,
                               const DTYPE_t* values, bint mark, double* child_stats,
                               double* weights) noexcept nogil:
        """Both children's statistics and weights summed over the node's samples (the
        cut feature's values in ``values``, or read from X when NULL); with ``mark``
        each sample's side is set for the partition. Returns the left count."""
        cdef Py_ssize_t p, i, n_left = 0, K = self.n_outputs, S = self.n_stats
        cdef const DTYPE_t* col = self.xt + cut.feature * self.n_samples
        cdef DTYPE_t x
        cdef double w = 1.0
        cdef bint go_left, missing = False
        memset(child_stats, 0, 2 * S * sizeof(double))
        weights[0] = 0.0
        weights[1] = 0.0
        if self.is_classifier and K == 1 and not cut.categorical:
            # (one output's class counts, a numeric cut: ``routes_left`` and
            # ``add_outputs`` written out)
            for p in range(start, end):
                i = self.samples[p]
                x = values[p - start] if values != NULL else col[i]
                missing = missing or x != x
                go_left = numeric_side(x, cut.threshold, not cut.missing_left) == 0
                if mark:
                    put_bit(self.goes_left, i, go_left)
                if self.sw != NULL:
                    w = self.sw[i]
                n_left += go_left
                weights[1 - go_left] += w
                child_stats[(1 - go_left) * S + self.y_by_sample[i]] += w
            self._node_has_missing = missing
            return n_left
        for p in range(start, end):
            i = self.samples[p]
            x = values[p - start] if values != NULL else col[i]
            missing = missing or x != x
            if self.sw != NULL:
                w = self.sw[i]
            go_left = routes_left(cut, x)
            if mark:
                put_bit(self.goes_left, i, go_left)
            n_left += go_left
            weights[0 if go_left else 1] += w
            add_outputs(child_stats if go_left else child_stats + S, self.criterion, K, S // K,
                        self.y_by_sample, self.yv_by_sample, i, w)
        self._node_has_missing = missing
        return n_left

    cdef bint _random_split(self, Node* node, const double* stats, double weight_root,
                            SplitRecord* best, double* child_stats) noexcept nogil:
        """split() for splitter="random": scikit-learn's feature draw with each drawn
        feature's cut drawn as soon as the feature is found not constant (the
        generator's sequence is scikit-learn's random splitter's, so the same
        seed gives its tree); the cut of largest proxy kept (ties to the first
        drawn). Sets the node's constants as ``draw_features`` does."""
        cdef Py_ssize_t j, f, start = node.start, end = node.end
        cdef bint constant
        clear_split(best, end)
        # scikit-learn carries constants down depth-first growth only
        draw_begin(&self.draw, 0 if self.best_first else node.n_constant)
        j = draw_next(&self.draw)
        while j >= 0:
            f = self.draw.features[j]
            constant = self.is_constant(f, start, end)
            draw_take(&self.draw, j, constant)
            if not constant:
                self._random_cut(f, start, end, stats, node.weight, node.impurity,
                                 weight_root, best, child_stats)
            j = draw_next(&self.draw)
        node.n_constant = draw_end(&self.draw)
        if best.feature < 0:
            return False
        best.proxy = best.num / best.den
        # the winner's children summed afresh, both sides (the score may have taken
        # one side as the node minus the other)
        self.finish_split(start, end, stats, node.weight, node.impurity, weight_root, best,
                          child_stats)
        return True

    cdef void _random_cut(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                          const double* stats, double weight, double impurity,
                          double weight_root, SplitRecord* best,
                          double* child_stats) noexcept nogil:
        """Feature f's random cut, drawn, scored and kept in ``best`` if admissible
        and better."""
        cdef SplitRecord cut
        self._draw_cut(f, start, end, &cut)
        if self.quantile_criterion:
            # a side's quantile needs its targets in order: route the samples
            self.finish_split(start, end, stats, weight, impurity, weight_root, &cut,
                              child_stats)
        else:
            self._score_cut(start, end, stats, weight, impurity, weight_root, &cut,
                            child_stats)
        if not self._admissible(f, start, end, &cut, child_stats, weight):
            return
        if self.quantile_criterion:
            cut.num = cut.improvement    # (no running sums give a quantile's proxy)
            cut.den = 1.0
        else:
            cut.num = cut_proxy(self.criterion, stats, weight, child_stats,
                                cut.weight_left, self.n_stats, self.n_outputs,
                                self.xlogx_table, self.scratch[0].count_left, &cut.den)
        # exact ties go as scikit-learn's rounded score sends them
        keep_random_cut(best, &cut, sklearn_score(
            self.criterion, child_stats, child_stats + self.n_stats,
            self.n_stats // self.n_outputs, self.n_outputs, cut.weight_left, cut.weight_right))

    cdef void _score_cut(self, Py_ssize_t start, Py_ssize_t end, const double* stats,
                         double weight, double impurity, double weight_root, SplitRecord* cut,
                         double* child_stats) noexcept nogil:
        """A random cut's children and improvement from its ranges of the feature's
        sorted segment, nothing marked: the numbers up to the threshold (found by
        bisection) or the categories' runs, and the missing tail, each on its side.
        A numeric cut sums only its smaller side (and the tail if it goes there)
        and takes the other as the node's statistics minus those; poisson sums
        both, so that a side of target sum 0 comes out exactly 0."""
        cdef Py_ssize_t f = cut.feature, S = self.n_stats, lo, hi, mid, p, q, k
        cdef Py_ssize_t end_known = end, n_left = 0
        cdef const DTYPE_t* v = self.vals + f * self.n_samples
        cdef double* left = child_stats
        cdef double* right = child_stats + S
        cdef double* direct
        cdef double* rest
        cdef double weights[2]
        cdef int code, d
        cdef bint tail_direct
        end_known = known_end(v, start, end)
        memset(child_stats, 0, 2 * S * sizeof(double))
        weights[0] = 0.0
        weights[1] = 0.0
        if not cut.categorical:
            lo = start          # the first position past the threshold
            hi = end_known
            while lo < hi:
                mid = (lo + hi) // 2
                if v[mid] <= cut.threshold:
                    lo = mid + 1
                else:
                    hi = mid
            n_left = lo - start + (end - end_known if cut.missing_left else 0)
            if not sums_each_side(self.criterion):
                d = 0 if lo - start <= end_known - lo else 1     # the smaller side
                direct = child_stats + d * S
                rest = child_stats + (1 - d) * S
                weights[d] = self._add_range(direct, f, start, lo) if d == 0 else \
                    self._add_range(direct, f, lo, end_known)
                tail_direct = cut.missing_left == (d == 0)
                if tail_direct:
                    weights[d] += self._add_range(direct, f, end_known, end)
                for k in range(S):
                    rest[k] = stats[k] - direct[k]
                weights[1 - d] = weight - weights[d]
                record_children(cut, self.criterion, start + n_left, child_stats, S,
                                self.n_outputs, weights, weight, impurity, weight_root)
                return
            weights[0] = self._add_range(left, f, start, lo)
            weights[1] = self._add_range(right, f, lo, end_known)
        else:
            p = start
            while p < end_known:
                code = <int>v[p]
                q = p
                while q < end_known and <int>v[q] == code:
                    q += 1
                if bit_is_set(cut.cat_left, code):
                    weights[0] += self._add_range(left, f, p, q)
                    n_left += q - p
                else:
                    weights[1] += self._add_range(right, f, p, q)
                p = q
            if cut.missing_left:
                n_left += end - end_known
        if cut.missing_left:
            weights[0] += self._add_range(left, f, end_known, end)
        else:
            weights[1] += self._add_range(right, f, end_known, end)
        record_children(cut, self.criterion, start + n_left, child_stats, S, self.n_outputs,
                        weights, weight, impurity, weight_root)

    cdef bint _draw_cut(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                        SplitRecord* cut) noexcept nogil:
        """A random cut of feature f (not constant in the node), drawn as scikit-learn's
        random splitter draws it (``draw_numeric_cut``).

        A categorical feature: each category present, and the missing values, go
        left on a coin; a draw that sends everything one way moves the first
        category present to the other side."""
        cdef const DTYPE_t* v = self.vals + f * self.n_samples
        cdef Py_ssize_t p, end_known = end
        cdef unsigned int* state = &self.draw.state
        cdef word_t present[CAT_WORDS]
        end_known = known_end(v, start, end)
        clear_split(cut, end)
        cut.feature = f
        cut.den = 1.0
        if self.n_categories[f] > 0:
            memset(present, 0, CAT_WORDS * sizeof(word_t))
            p = start
            while p < end_known:
                set_bit(present, <int>v[p])
                p += 1
            draw_category_cut(cut, present, end_known < end, state)
            return True
        draw_numeric_cut(cut, v[start], v[end_known - 1], end_known < end, state)
        return True

    cdef bint _admissible(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                          const SplitRecord* cut, const double* child_stats,
                          double weight) noexcept nogil:
        return random_cut_admissible(cut, cut.pos - start, end - start, child_stats,
                                     self.n_stats, self.criterion,
                                     self.monotonic[f] if self.monotonic != NULL else 0,
                                     self.lower, self.upper, self.settings.min_samples_leaf,
                                     self.settings.min_weight_leaf, weight)

    cdef bint _split_pair(self, Scratch* s, const Py_ssize_t* visit, Py_ssize_t n_visit,
                          Py_ssize_t start, const double* stats, double weight,
                          SplitRecord* best) noexcept nogil:
        """A regression node of two samples: the scan's answer without scanning.

        Every visited feature sends one sample left and the other right (the
        draw set constant ones aside): only two candidates exist, one per
        orientation, scored once each; the features then compete in visiting
        order by the rule of the scans (ties by scikit-learn's score, whose
        rounding can tell the orientations apart). Once both orientations were
        met no later feature can win, so a node costs a few features, not d.
        Deep regression trees are mostly such nodes. Returns False (scan as
        usual) for classification, leaf-size limits, or a categorical feature
        or a missing value met first.
        """
        cdef Py_ssize_t i, f, p, n = self.n_samples
        cdef PairScan ps
        if not pairs_decide(self.is_classifier, &self.settings, self.monotonic):
            return False
        pair_begin(&ps)
        for i in range(n_visit):
            if ps.scored[0] and ps.scored[1]:
                break
            f = visit[i]
            p = f * n + start
            if self.n_categories[f] > 0 or self.vals[p] != self.vals[p] or \
                    self.vals[p + 1] != self.vals[p + 1] or not pair_offer(
                        &ps, best, f, self.idx[p], self.idx[p + 1],
                        midpoint(self.vals[p], self.vals[p + 1]), self.criterion, self.sw,
                        self.yv_by_sample, stats, self.n_outputs, weight,
                        s.count_left):
                clear_split(best, start + 2)
                return False
        return best.feature >= 0

    cdef void _scan_in_parallel(self, const Py_ssize_t* visit, Py_ssize_t n_visit,
                                int n_threads, Py_ssize_t start, Py_ssize_t end,
                                const double* stats, double weight,
                                SplitRecord* best) noexcept nogil:
        """Every feature of ``visit``'s best split on its own thread (on the
        splitter's own scratch: the caller's threads are these), then the best of
        them.

        Each feature's scan starts from an empty record, and the records are
        compared in visiting order with the same rule as the serial scan, so
        the winner (ties included) is the serial one for any thread count.
        """
        cdef Py_ssize_t i
        cdef SplitRecord* per_feature = self.feature_best
        self._scan_each(self.scratch, n_threads, visit, n_visit, start, end, stats, weight,
                        per_feature)
        for i in range(n_visit):
            keep_better(best, &per_feature[i])

    cdef void _scan_each(self, Scratch* s, int n_threads, const Py_ssize_t* visit,
                         Py_ssize_t n_visit, Py_ssize_t start, Py_ssize_t end,
                         const double* stats, double weight,
                         SplitRecord* per_feature) noexcept nogil:
        """Each feature of ``visit``'s best split from an empty record, into
        ``per_feature``: on ``n_threads`` threads (their scratch ``s``), or in a loop.

        A feature's filtered scan offers only cuts near the best score of the
        features scanned before it (on any thread), as one record across the
        features would: a feature far below that score gets an empty record
        instead of its own best. Such a record can neither win nor tie nor come
        within rounding of the node's best (``keep_better``, ``spec_split``), so
        which records are empty, however the threads ran, changes nothing."""
        cdef Py_ssize_t i
        cdef double known[1]
        cdef double* shared = &known[0]
        shared[0] = -INFINITY
        if n_threads > 1:
            for i in prange(n_visit, nogil=True, num_threads=n_threads, schedule="dynamic"):
                clear_split(&per_feature[i], end)
                self._scan_known(&s[threadid()], shared, visit[i], start, end, stats, weight,
                                 &per_feature[i])
        else:
            for i in range(n_visit):
                clear_split(&per_feature[i], end)
                self._scan_known(s, shared, visit[i], start, end, stats, weight,
                                 &per_feature[i])

    cdef void _scan_known(self, Scratch* s, double* known, Py_ssize_t f, Py_ssize_t start,
                          Py_ssize_t end, const double* stats, double weight,
                          SplitRecord* best) noexcept nogil:
        """``_scan`` of feature f into its own record, its filter floored by the
        score in ``known`` (shared by the node's scans), raised to its best after."""
        cdef double score
        s.known_best = known
        self._scan(s, f, start, end, stats, weight, best)
        s.known_best = NULL
        if best.feature >= 0:
            score = best.num / best.den
            # (threads may race here: a floor left lower only offers more cuts)
            if score > known[0]:
                known[0] = score

    cdef void _scan(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                    const double* stats, double weight, SplitRecord* best) noexcept nogil:
        """Scan one feature drawn for the node (so not constant there: see
        ``is_constant``).

        Missing values (NaN) sort after every number, so they form the tail of
        the segment. With a tail the feature is scanned twice: missing values
        going right (which includes the cut "all numbers | all missing") and
        going left.
        """
        cdef const DTYPE_t* v = self.vals + f * self.n_samples
        cdef Py_ssize_t end_known = end, n_missing
        if self.n_categories[f] > 0:
            self._scan_categorical(s, f, start, end, stats, weight, best)
            return
        end_known = known_end(v, start, end)
        n_missing = end - end_known
        if self.n_outputs > 1 and self.quantile_criterion:
            self._scan_quantile_outputs(s, f, start, end, n_missing, False, weight, best)
            if n_missing:
                self._scan_quantile_outputs(s, f, start, end, n_missing, True, weight, best)
        elif self.n_outputs > 1:
            self._scan_outputs(s, f, start, end, n_missing, False, stats, weight, best)
            if n_missing:
                self._scan_outputs(s, f, start, end, n_missing, True, stats, weight, best)
        elif self.is_classifier and (self.sw == NULL or self.whole_weights) and \
                self.n_stats == 2 and binary_scan(self.criterion):
            self._scan_binary_gini(s, f, start, end, n_missing, False, stats, weight, best)
            if n_missing:
                self._scan_binary_gini(s, f, start, end, n_missing, True, stats, weight, best)
        elif self.is_classifier:
            self._scan_classification(s, f, start, end, n_missing, False, stats, weight, best)
            if n_missing:
                self._scan_classification(s, f, start, end, n_missing, True, stats, weight, best)
        elif self.quantile_criterion:
            self._scan_quantile(s, f, start, end, n_missing, False, weight, best)
            if n_missing:
                self._scan_quantile(s, f, start, end, n_missing, True, weight, best)
        else:
            self._scan_regression(s, f, start, end, n_missing, False, stats, weight, best)
            if n_missing:
                self._scan_regression(s, f, start, end, n_missing, True, stats, weight, best)

    cdef void _scan_classification(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                   Py_ssize_t n_missing, bint missing_left,
                                   const double* stats, double weight,
                                   SplitRecord* best) noexcept nogil:
        """One output's classification scan, any criterion, cut by cut. (Scanning
        a block at a time, as the two-class Gini scan does, was no faster here: the
        sides' accumulators and class counts move sample by sample either way,
        and that chain is most of the time.)"""
        cdef Py_ssize_t n_samples = self.n_samples, K = self.n_stats, p, last
        cdef Py_ssize_t end_known = end - n_missing
        cdef const class_t* yc = self.ycode + f * n_samples
        cdef const int* ix = self.idx + f * n_samples
        cdef const double* sw = self.sw
        cdef const double* table = self.xlogx_table
        cdef double* cl = s.count_left
        cdef double* cr = s.count_right
        cdef int crit = self.criterion
        cdef double w = 1.0
        cdef double w_node_entropy, wlogw
        cdef int cut
        cdef Side left, right
        cdef CutScan g
        self._begin_scan(&g, f, start, end, n_missing, missing_left, 0.0, weight)
        memset(cl, 0, K * sizeof(double))
        memcpy(cr, stats, K * sizeof(double))
        left.w = 0.0
        left.acc = 0.0
        right.w = weight
        right.acc = clf_side_acc(crit, stats, K, table)
        node_entropy_terms(crit, stats, K, weight, table, False, &wlogw, &w_node_entropy)
        if missing_left:
            for p in range(end_known, end):
                if sw != NULL:
                    w = sw[ix[p]]
                clf_move(crit, &left, &right, cl, cr, yc[p], w, table)
        last = last_cut(end_known, n_missing, missing_left)
        for p in range(start, last + 1):
            if sw != NULL:
                w = sw[ix[p]]
            clf_move(crit, &left, &right, cl, cr, yc[p], w, table)
            cut = scan_cut(g.v, p, end_known, p + 1 - g.first_left, g.n_node, left.w,
                           weight - left.w, g.min_leaf, g.min_wleaf, g.tiny, g.tol)
            if cut == CUT_STOP:
                break
            if cut == CUT_SCORE:
                offer_clf_cut(&g, best, p, left.w, left.acc, right.acc, cl, cr, K,
                              w_node_entropy, wlogw, table)

    cdef void _begin_scan(self, CutScan* g, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                          Py_ssize_t n_missing, bint missing_left, double total,
                          double weight) noexcept nogil:
        """A one-output scan of feature f's segment [start, end): its settings."""
        g.v = self.vals + f * self.n_samples
        g.f = f
        g.start = start
        g.end_known = end - n_missing
        g.n_node = end - start
        g.first_left = start - (n_missing if missing_left else 0)
        g.min_leaf = self.settings.min_samples_leaf
        g.missing_left = missing_left
        g.pending = False
        g.min_wleaf = self.settings.min_weight_leaf
        g.tiny = tiny_weight(weight)
        g.weight = weight
        g.lower = self.lower
        g.upper = self.upper
        g.total = total
        g.pending_x = 0.0
        g.pending_wl = 0.0
        g.known_best = -INFINITY
        g.tol = self.tol
        g.mono = self.monotonic[f] if self.monotonic != NULL else 0
        g.crit = self.criterion

    cdef void _scan_binary_gini(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                Py_ssize_t n_missing, bint missing_left,
                                const double* stats, double weight,
                                SplitRecord* best) noexcept nogil:
        """_scan_classification for two classes, Gini and unit or whole weights (a
        forest's bootstrap counts: ``whole_weights``).

        Every count is then an integer, so the sums of squares the general scan
        accumulates are exactly l0^2 + l1^2 and r0^2 + r1^2: computing them from
        the running weight of class-1 samples gives bit-identical scores. The
        gain is that no count lives in memory, which in the general scan makes
        a store-to-load chain from one sample to the next. Long segments without
        a monotonic constraint are scanned a block at a time (``filtered_scan``).
        """
        cdef Py_ssize_t n_samples = self.n_samples, p, last
        cdef Py_ssize_t end_known = end - n_missing
        cdef const class_t* yc = self.ycode + f * n_samples
        cdef const int* ix = self.idx + f * n_samples
        cdef const double* sw = self.sw
        cdef const unsigned char* counts = self.counts
        cdef Py_ssize_t ones_left = 0
        cdef double wl, l1, w, w_left = 0.0, ones_w = 0.0   # (whole weights: running sums)
        cdef CutScan g
        self._begin_scan(&g, f, start, end, n_missing, missing_left, stats[1], weight)
        if s.known_best != NULL:
            g.known_best = s.known_best[0]
        if missing_left:
            for p in range(end_known, end):
                ones_left += yc[p]
                if sw != NULL:
                    w = sw[ix[p]]
                    w_left += w
                    ones_w += w * yc[p]
        last = last_cut(end_known, n_missing, missing_left)
        if g.mono == 0 and last + 1 - start >= FILTERED_SCAN_MIN and filtered_scans():
            filtered_scan(&g, best, last, True, yc, NULL, ix, counts, sw, w_left,
                          ones_w if sw != NULL else <double>ones_left)
        else:
            # (kept duplicate: the cut handling below is the same in the three scans,
            # each its criterion family's hot loop; one shared loop would branch per
            # sample)
            for p in range(start, last + 1):
                if counts != NULL:
                    w = <double>counts[ix[p]]
                    w_left += w
                    ones_w += w * yc[p]
                    wl = w_left
                    l1 = ones_w
                elif sw != NULL:
                    w = sw[ix[p]]
                    w_left += w
                    ones_w += w * yc[p]
                    wl = w_left
                    l1 = ones_w
                else:
                    ones_left += yc[p]
                    wl = <double>(p + 1 - g.first_left)
                    l1 = <double>ones_left
                if scan_step(&g, best, True, p, wl, l1):
                    break
        finish_scan(&g, best, True)

    # ------------------------------------------------------------ the audit's replay
    cdef void scan_feature(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                           const double* stats, double weight, SplitRecord* best) noexcept nogil:
        """Feature f's best split of the segment [start, end) by the growth's own scan."""
        self._scan(&self.scratch[0], f, start, end, stats, weight, best)

    cdef void prepare_node(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        """What a node's scans need beyond its segments: a quantile criterion's ranks."""
        if self.quantile_criterion:
            self._rank_node(start, end)

    cdef void partition_node(self, Py_ssize_t start, Py_ssize_t end,
                             const SplitRecord* split) noexcept nogil:
        """Partition the segment [start, end) by ``split``, sides marked by
        ``finish_split``, as growth does."""
        self._partition(start, end, split)

    # ------------------------------------------------------------ subtrees on threads
    # ``_grow`` may grow a depth-first tree's subtrees on threads. The generator's
    # feature order is a chain through every node in pre-order, so a subtree cannot
    # know it; but where every feature is drawn at every node the order decides
    # ties between features only. So a subtree's nodes are split speculatively
    # (``spec_split``: ties to the lowest index, the tied features and the constant
    # ones recorded), and a serial replay in pre-order draws as scikit-learn does,
    # keeps each node whose generator's choice is the one made, and grows again
    # (``restore_segment``, then the serial grower) where it is not.

    cdef bint subtrees_allowed(self) noexcept nogil:
        """Whether the speculative growth applies: presorted columns, every feature
        drawn at every node (at most 64 of them: a node's constants and ties fit a
        word), and no state handed down the tree (multiway cascades, monotonic
        bounds, quantile ranks, the random splitter's draws)."""
        return (self.n_threads > 1 and not self.sample_mode and not self.random_split
                and not self.quantile_criterion and not self.multiway
                and self.monotonic == NULL and not self.index_order
                and self.draw.max_features >= self.n_features
                and 0 < self.n_features <= 64)

    cdef int spec_split(self, Scratch* s, int n_threads, unsigned long long* marks,
                        SplitRecord* per_feature, const Node* node, const double* stats,
                        double weight_root, SplitRecord* best, double* child_stats,
                        unsigned long long* constant, unsigned long long* tied) noexcept nogil:
        """The node's best split among all its non-constant features, ties between
        features to the lowest index, sides marked in ``marks`` (``s``: the scratch
        of ``n_threads`` threads; ``per_feature``: room for d records).

        ``constant`` gets the node's constant features, ``tied`` the features
        whose best split ties the chosen one by the scans' rule (the replay's
        choice among them). Returns 1 with ``best`` and the children's statistics,
        0 when no split is valid, 3 as 1 where the order of the scans decides
        beyond "the first of the best" (a category feature tied, or a tie without
        equal terms: the replay must search the node itself), 2 for a pair of
        regression samples (left to the replay's search: nothing marked).
        ``constant`` is set in every case.
        """
        cdef Py_ssize_t f, i, n_visit = 0, start = node.start, end = node.end
        cdef Py_ssize_t visit[64]
        cdef unsigned long long c = 0, t = 0
        cdef SplitRecord* r
        cdef bint search = False
        constant[0] = 0
        tied[0] = 0
        for f in range(self.n_features):
            if self.is_constant(f, start, end):
                c |= (<unsigned long long> 1) << f
            else:
                visit[n_visit] = f
                n_visit += 1
        constant[0] = c
        if end - start == 2 and pairs_decide(self.is_classifier, &self.settings, self.monotonic):
            # the serial search's own rule (``_split_pair``) settles a pair in a few
            # features, where a scan of each costs d of them; its children are
            # leaves, so the draws below it are known all the same
            return 2
        clear_split(best, end)
        self._scan_each(s, n_threads if (end - start) * n_visit >= PARALLEL_WORK else 1, visit,
                        n_visit, start, end, stats, node.weight, per_feature)
        for i in range(n_visit):
            keep_better(best, &per_feature[i])
        if best.feature < 0:
            return 0
        for i in range(n_visit):
            r = &per_feature[i]
            if r.feature < 0:
                continue
            if compare_score(r.num, r.den, best) != 0:
                if within_rounding(r, best):
                    # below the best by no more than rounding: the serial scan,
                    # comparing each cut with the best so far, may go another way
                    # (a node whose targets differ by rounding alone compares
                    # nothing but noise)
                    search = True
                    break
                continue
            if r.num != best.num or r.den != best.den or r.tie_key != r.tie_key:
                # tied by the cross-multiplied test without equal terms: such ties
                # need not be transitive, so the order of the scans may matter
                # beyond "the first of the best"
                search = True
                break
            if self.n_categories[visit[i]] > 0 or self.n_categories[best.feature] > 0:
                if visit[i] != best.feature:
                    # a category scan challenges without a tie key: which of
                    # them wins such a tie depends on the order beyond "the
                    # first of the best", so the replay searches the node again
                    search = True
                    break
            if r.tie_key == best.tie_key:
                t |= (<unsigned long long> 1) << visit[i]
        tied[0] = t
        best.proxy = best.num / best.den
        # (split all the same where the replay must search: the subtree below
        # tells it what the draws there will most likely be)
        self._finish(marks, start, end, stats, node.weight, node.impurity, weight_root, best,
                     child_stats)
        return 3 if search else 1

    cdef bint splits_to_singles(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        """Whether a small regression node [start, end) grown without limits splits
        until every leaf holds one sample, meeting no constant feature: each
        feature's values far enough apart (no two within ``tol``, none missing) and
        the targets so far apart that any two of them make an impurity well above
        a leaf's. Then its growth draws m - 1 times with no constant found,
        whichever splits it takes. (A wrong answer would cost only time: the
        replay checks the draws; see ``_grow``.)"""
        cdef Py_ssize_t f, p, q, m = end - start
        cdef const DTYPE_t* v
        cdef double y[SINGLES_MAX]
        cdef double t, largest = 0.0
        if m > SINGLES_MAX or self.is_classifier or self.n_outputs != 1 or \
                self.sw != NULL or not is_squared_error(self.criterion):
            return False
        for f in range(self.n_features):
            v = self.vals + f * self.n_samples
            if self.n_categories[f] > 0 or v[end - 1] != v[end - 1]:
                return False
            for p in range(start, end - 1):
                if not v[p + 1] > <DTYPE_t>(v[p] + self.tol):
                    return False
        # the targets in order (insertion: a few of them)
        for p in range(m):
            t = self.yval[start + p]
            q = p
            while q > 0 and y[q - 1] > t:
                y[q] = y[q - 1]
                q -= 1
            y[q] = t
            largest = max(largest, fabs(t))
        # two targets g apart give a variance of at least g^2 / (2 m) in any node
        # holding both; the impurity's rounding is of the order of its squares'
        for p in range(m - 1):
            t = y[p + 1] - y[p]
            if not t * t > 2.0 * m * 1e4 * DBL_EPSILON * (1.0 + largest * largest):
                return False
        return True

    cdef Py_ssize_t segment_bytes(self, Py_ssize_t m) noexcept nogil:
        """Bytes ``copy_segment`` needs for a segment of m positions."""
        return self.n_features * m * (sizeof(DTYPE_t) + sizeof(int) + self.n_outputs * (
            sizeof(class_t) if self.is_classifier else sizeof(double)))

    cdef void copy_segment(self, unsigned char* room, Py_ssize_t start, Py_ssize_t end,
                           bint keep) noexcept nogil:
        """Every column's segment [start, end) (values, ids, targets) into ``room``
        (``keep``), or back from it: a subtree's thread grows a node afresh and
        then leaves the columns as the speculative growth left them."""
        cdef Py_ssize_t f, m = end - start, K = self.n_outputs, at
        cdef Py_ssize_t y_size = K * (sizeof(class_t) if self.is_classifier else sizeof(double))
        cdef unsigned char* y
        for f in range(self.n_features):
            at = f * self.n_samples + start
            y = (<unsigned char*> self.ycode) + at * y_size if self.is_classifier else \
                (<unsigned char*> self.yval) + at * y_size
            if keep:
                memcpy(room, self.vals + at, m * sizeof(DTYPE_t))
                memcpy(room + m * sizeof(DTYPE_t), self.idx + at, m * sizeof(int))
                memcpy(room + m * (sizeof(DTYPE_t) + sizeof(int)), y, m * y_size)
            else:
                memcpy(self.vals + at, room, m * sizeof(DTYPE_t))
                memcpy(self.idx + at, room + m * sizeof(DTYPE_t), m * sizeof(int))
                memcpy(y, room + m * (sizeof(DTYPE_t) + sizeof(int)), m * y_size)
            room += m * (sizeof(DTYPE_t) + sizeof(int) + y_size)

    cdef int restore_segment(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        """Sort the segment [start, end) of every column again as the presort left
        it (values ascending, equal values by sample id; the targets beside them):
        undoes the partitions made below a node. Returns -1 when memory ran out."""
        cdef Py_ssize_t f
        for f in range(self.n_features):
            if self.restore_column(f, start, end) < 0:
                return -1
        return 0

    cdef int restore_column(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        """``restore_segment`` for column f alone."""
        cdef Py_ssize_t m = end - start, p, k, K = self.n_outputs
        cdef Py_ssize_t at = f * self.n_samples + start
        cdef unsigned long long few[32]
        cdef unsigned long long* room = &few[0]
        cdef unsigned long long* keys
        cdef int i
        if m > 32:
            room = <unsigned long long*> malloc(2 * m * sizeof(unsigned long long))
            if room == NULL:
                return -1
        for p in range(m):
            room[p] = ((<unsigned long long> float_key(self.vals[at + p])) << 32) | \
                (<unsigned int> self.idx[at + p])
        keys = sort_runs(room, room + m, m)
        for p in range(m):
            i = <int> (keys[p] & 0xFFFFFFFFULL)
            self.vals[at + p] = key_float(<unsigned int> (keys[p] >> 32))
            self.idx[at + p] = i
            for k in range(K):
                if self.is_classifier:
                    self.ycode[(at + p) * K + k] = <class_t> self.y_by_sample[i * K + k]
                else:
                    self.yval[(at + p) * K + k] = self.yv_by_sample[i * K + k]
        if m > 32:
            free(room)
        return 0

    cdef int resplit_on(self, Scratch* s, int* left_ids, unsigned long long* marks,
                        Py_ssize_t f, const Node* node, const double* stats,
                        double weight_root, const SplitRecord* made, SplitRecord* best,
                        double* child_stats) noexcept nogil:
        """Feature f's best split of a node grown below already, if it sends left the
        same samples as ``made`` (the node's split) does: 1 with ``best`` and the
        children's statistics, 0 when it sends others, -1 when memory ran out.
        The columns are left as they were (the replay's cheap answer to a tie gone
        another way: the subtree below stays). ``s``, ``left_ids`` (room for the
        node's samples) and ``marks`` are the calling thread's."""
        cdef Py_ssize_t start = node.start, end = node.end, m = end - start, q, K = self.n_outputs
        cdef Py_ssize_t at = f * self.n_samples + start, n_left = 0
        cdef Py_ssize_t made_at = made.feature * self.n_samples + start
        cdef int same = 0
        # the samples ``made`` sends left, read from its own column (whatever order
        # the partitions below left it in)
        for q in range(m):
            if routes_left(made, self.vals[made_at + q]):
                left_ids[n_left] = self.idx[made_at + q]
                n_left += 1
        memcpy(s.tmp_v, self.vals + at, m * sizeof(DTYPE_t))
        memcpy(s.tmp_i, self.idx + at, m * sizeof(int))
        if self.is_classifier:
            memcpy(s.tmp_yc, self.ycode + at * K, m * K * sizeof(class_t))
        else:
            memcpy(s.tmp_yv, self.yval + at * K, m * K * sizeof(double))
        if self.restore_column(f, start, end) < 0:
            return -1
        clear_split(best, end)
        self._scan(s, f, start, end, stats, node.weight, best)
        if best.feature == f:
            best.proxy = best.num / best.den
            self._finish(marks, start, end, stats, node.weight, node.impurity,
                         weight_root, best, child_stats)
            same = best.pos - start == n_left
            q = 0
            while same and q < n_left:
                same = bit_is_set(marks, left_ids[q])
                q += 1
        memcpy(self.vals + at, s.tmp_v, m * sizeof(DTYPE_t))
        memcpy(self.idx + at, s.tmp_i, m * sizeof(int))
        if self.is_classifier:
            memcpy(self.ycode + at * K, s.tmp_yc, m * K * sizeof(class_t))
        else:
            memcpy(self.yval + at * K, s.tmp_yv, m * K * sizeof(double))
        return same

    # ------------------------------------------------------------ quantile criteria
    # A side's loss needs its weighted quantile, which no running sum gives. The
    # node's samples are kept in ascending target order too (``yorder``), so their
    # ranks in the node cost O(n) per node, not a sort per feature. A scan lists
    # the samples' ranks in scan order, a tracker over the ranks (``_criterion``'s
    # RankList with unit weights, Fenwick with weights) gives the loss of every
    # prefix and every suffix of that order (``sequence_losses``), and the cuts
    # are scored from those (``score_numeric_cuts``, ``scan_quantile_groups``).

    cdef void _rank_node(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        """Each sample's target rank within the node, the node's sorted targets and
        their sums (``node_sums``) (of every output)."""
        cdef Py_ssize_t p, k, K = self.n_outputs, n = self.n_samples
        cdef Py_ssize_t need = below_count(end - start, self.qloss.tau == 0.5, self.qloss.tau)
        cdef int i
        cdef double y, total
        for k in range(K):
            total = 0.0
            for p in range(start, end):
                i = self.yorder[k * n + p]
                self.yrank[k * n + i] = <int>(p - start)
                y = self.yv_by_sample[i * K + k]
                self.ysorted[k * n + p - start] = y
                if p - start == need:
                    self.node_sums[2 * k + 1] = total
                total += y
            self.node_sums[2 * k] = total

    cdef void _quantile_stats(self, Scratch* s, Py_ssize_t start, Py_ssize_t end,
                              Py_ssize_t n_left, double* stats) noexcept nogil:
        """(quantile, loss) of each output of the node's two sides as ``goes_left``
        marks them (left then right in ``stats``), or, with ``n_left`` < 0, of the
        whole node."""
        cdef Py_ssize_t p, j = 0, n_right, k, K = self.n_outputs, n = self.n_samples
        cdef int i
        cdef double* pairs = s.weighted.sums    # left's pairs, then right's, in y order
        for k in range(K):
            n_right = 0
            for p in range(start, end):
                i = self.yorder[k * n + p]
                if n_left < 0 or bit_is_set(self.goes_left, i):
                    j = 2 * (p - start - n_right)
                else:
                    j = 2 * (n_left + n_right)
                    n_right += 1
                pairs[j] = self.yv_by_sample[i * K + k]
                pairs[j + 1] = self.sw[i] if self.sw != NULL else 1.0
            if n_left < 0:
                quantile_stats(&self.qloss, pairs, end - start, stats + 2 * k)
                continue
            quantile_stats(&self.qloss, pairs, n_left, stats + 2 * k)
            quantile_stats(&self.qloss, pairs + 2 * n_left, n_right,
                           stats + self.n_stats + 2 * k)

    cdef void _scan_quantile(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                             Py_ssize_t n_missing, bint missing_left, double weight,
                             SplitRecord* best) noexcept nogil:
        """The numeric scan of a quantile criterion: proxy -(left loss + right loss)."""
        cdef QuantileScanArgs a
        self._quantile_args(f, weight, &a)
        scan_quantile(s, &a, start, end, n_missing, missing_left, best)

    cdef void _scan_quantile_outputs(self, Scratch* s, Py_ssize_t f, Py_ssize_t start,
                                     Py_ssize_t end, Py_ssize_t n_missing, bint missing_left,
                                     double weight, SplitRecord* best) noexcept nogil:
        """The numeric scan of a quantile criterion with several outputs: every
        output's prefix and suffix losses summed first, then the cuts scored once,
        proxy -(left losses + right losses)."""
        cdef QuantileScanArgs a
        cdef Py_ssize_t k, base = 0, n_node = end - start
        memset(s.loss_left, 0, n_node * sizeof(double))
        memset(s.loss_right, 0, n_node * sizeof(double))
        for k in range(self.n_outputs):
            self._quantile_args(f, weight, &a, k)
            base = gather_numeric(s, &a, start, end, n_missing, missing_left)
            sequence_losses(s, &a, n_node, True, False)
        # (several outputs take no monotonic constraints)
        score_numeric_cuts(s, &a, start, end, n_missing, missing_left, base, best)

    cdef void _quantile_groups(self, Scratch* s, Py_ssize_t f, Py_ssize_t m, Py_ssize_t start,
                               Py_ssize_t end, double weight, SplitRecord* best) noexcept nogil:
        """A categorical feature under a quantile criterion: the groups in the order
        of their mean target (``group_order``), the m - 1 cuts of that order scored
        like numeric cuts (an exhaustive subset search would cost a quantile per
        subset)."""
        cdef QuantileScanArgs a
        self._quantile_args(f, weight, &a)
        scan_quantile_groups(s, &a, m, start, end, best)

    cdef void _quantile_args(self, Py_ssize_t f, double weight, QuantileScanArgs* a,
                             Py_ssize_t k=0) noexcept nogil:
        """What a scan of feature f reads for output k."""
        cdef Py_ssize_t n = self.n_samples
        a.ql = &self.qloss
        a.f = f
        a.v = self.vals + f * n
        a.ix = self.idx + f * n
        a.yrank = self.yrank + k * n
        a.ysorted = self.ysorted + k * n
        a.node_sums = self.node_sums + 2 * k
        a.sw = self.sw
        a.mono = self.monotonic[f] if self.monotonic != NULL else 0
        a.lower = self.lower
        a.upper = self.upper
        a.tol = self.tol
        a.weight = weight
        a.min_leaf = self.settings.min_samples_leaf
        a.min_wleaf = self.settings.min_weight_leaf

    cdef void _scan_regression(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                               Py_ssize_t n_missing, bint missing_left,
                               const double* stats, double weight,
                               SplitRecord* best) noexcept nogil:
        """One regression output's scan (squared error or Poisson); long squared
        error segments without a monotonic constraint a block at a time
        (``filtered_scan``)."""
        cdef Py_ssize_t n_samples = self.n_samples, p, last
        cdef Py_ssize_t end_known = end - n_missing
        cdef const double* yv = self.yval + f * n_samples
        cdef const int* ix = self.idx + f * n_samples
        cdef const double* sw = self.sw
        cdef const unsigned char* counts = self.counts
        cdef double w = 1.0, wl = 0.0, sl = 0.0
        cdef CutScan g
        self._begin_scan(&g, f, start, end, n_missing, missing_left, stats[0], weight)
        if s.known_best != NULL:
            g.known_best = s.known_best[0]
        if missing_left:
            for p in range(end_known, end):
                if sw != NULL:
                    w = sw[ix[p]]
                wl += w
                sl += w * yv[p]
        last = last_cut(end_known, n_missing, missing_left)
        if g.mono == 0 and is_squared_error(g.crit) and \
                last + 1 - start >= FILTERED_SCAN_MIN and filtered_scans():
            filtered_scan(&g, best, last, False, NULL, yv, ix, counts, sw, wl, sl)
        else:
            for p in range(start, last + 1):
                w = weight_of(counts, sw, ix[p])
                wl += w
                sl += w * yv[p]
                if scan_step(&g, best, False, p, wl, sl):
                    break
        finish_scan(&g, best, False)

    cdef void _scan_outputs(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                            Py_ssize_t n_missing, bint missing_left, const double* stats,
                            double weight, SplitRecord* best) noexcept nogil:
        """A numeric feature's cuts with several outputs: a sample moves one count
        (classes) or one sum of w*y (regression) per output, from the row of targets
        beside its value; the proxy sums the outputs' terms (``_criterion``)."""
        cdef Py_ssize_t n_samples = self.n_samples, K = self.n_outputs, S = self.n_stats
        cdef Py_ssize_t end_known = end - n_missing, n_node = end - start, p, last, k
        cdef const double* rows
        cdef Py_ssize_t base = n_missing if missing_left else 0
        cdef const DTYPE_t* v = self.vals + f * n_samples
        cdef const int* ix = self.idx + f * n_samples
        cdef const double* table = self.xlogx_table
        cdef double* cl = s.count_left     # classes: the left counts; regression: sums
        cdef double* cr = s.count_right
        cdef double tiny = tiny_weight(weight), wr, num, den, key
        cdef int crit = self.criterion, cut, order
        cdef bint classes = self.is_classifier
        # (locals: the stores to the running sums could alias the object's fields)
        cdef Py_ssize_t min_leaf = self.settings.min_samples_leaf
        cdef double min_wleaf = self.settings.min_weight_leaf
        cdef DTYPE_t tol = self.tol
        cdef Side left, right
        cdef Outputs o
        if is_squared_error(crit) and K <= SMALL_OUTPUTS:
            rows = self.yval + f * n_samples * K
            # a literal K per call: one unrolled copy each
            if K == 2:
                scan_squared_outputs(v, ix, rows, self.sw, stats, 2, f, start, end, n_missing,
                                     missing_left, weight, min_leaf, min_wleaf, tol, best)
            elif K == 3:
                scan_squared_outputs(v, ix, rows, self.sw, stats, 3, f, start, end, n_missing,
                                     missing_left, weight, min_leaf, min_wleaf, tol, best)
            else:
                scan_squared_outputs(v, ix, rows, self.sw, stats, 4, f, start, end, n_missing,
                                     missing_left, weight, min_leaf, min_wleaf, tol, best)
            return
        o.crit = crit
        o.classes = self.is_classifier
        o.n_outputs = K
        o.stride = S // K
        o.codes = self.ycode + f * n_samples * K if self.is_classifier else NULL
        o.targets = NULL if self.is_classifier else self.yval + f * n_samples * K
        o.ix = ix
        o.sw = self.sw
        o.table = table
        memset(cl, 0, S * sizeof(double))
        memcpy(cr, stats, S * sizeof(double))
        left.w = 0.0
        left.acc = 0.0
        right.w = weight
        right.acc = clf_side_acc(crit, stats, S, table) if self.is_classifier else 0.0
        if missing_left:
            for p in range(end_known, end):
                move_outputs(&o, &left, &right, cl, cr, p)
        last = last_cut(end_known, n_missing, missing_left)
        for p in range(start, last + 1):
            move_outputs(&o, &left, &right, cl, cr, p)
            cut = scan_cut(v, p, end_known, p + 1 - start + base, n_node, left.w,
                           weight - left.w, min_leaf, min_wleaf, tiny, tol)
            if cut == CUT_STOP:
                break
            if cut != CUT_SCORE:
                continue
            wr = weight - left.w
            if classes:
                num = clf_proxy(crit, left.w, left.acc, wr, right.acc, 0.0, 0.0, table,
                                <double>K, &den)
            else:
                num = reg_proxy_outputs(crit, left.w, cl, wr, stats, K, &den)
            order = compare_score(num, den, best)
            if order < 0:
                continue
            if not classes:
                for k in range(K):
                    cr[k] = stats[k * o.stride] - cl[k]
            key = sklearn_score(crit, cl, cr, o.stride if classes else 1, K, left.w, wr)
            if wins(order, key, best):
                record_cut(best, num, den, f, missing_left, v, p, end_known)
                best.tie_key = key

    cdef void _scan_categorical(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                const double* stats, double weight,
                                SplitRecord* best) noexcept nogil:
        """Best subset of categories to send left (``_subsets``), or ID3's multiway
        split, or under a quantile criterion the cuts of the groups' mean order.

        The node's samples come grouped by category (the column is sorted by
        code; missing values form a last group).
        """
        cdef Py_ssize_t n_samples = self.n_samples, S = self.n_stats, K = self.n_stats
        cdef Py_ssize_t offset = f * n_samples, p = start, m = 0
        cdef const DTYPE_t* v = self.vals + offset
        cdef const int* ix = self.idx + offset
        cdef double* gstats
        cdef double w = 1.0, yv, wlogw = 0.0, w_node_entropy = 0.0
        cdef DTYPE_t x
        cdef unsigned char in_left[MAX_CATEGORIES + 1]
        cdef bint regression = not self.is_classifier
        cdef Groups groups
        cdef SubsetRules rules
        # 1. statistics of each group
        while p < end:
            x = v[p]
            gstats = s.group_stats + m * 2 if regression else s.group_stats + m * S
            memset(gstats, 0, (2 if regression else S) * sizeof(double))
            s.group_weight[m] = 0.0
            s.group_count[m] = 0
            s.group_code[m] = -1 if x != x else <int>x
            while p < end and (v[p] == x or (x != x and v[p] != v[p])):
                if self.sw != NULL:
                    w = self.sw[ix[p]]
                s.group_weight[m] += w
                s.group_count[m] += 1
                if regression:
                    yv = self.yval[offset + p]
                    gstats[0] += w * yv
                else:
                    gstats[self.ycode[offset + p]] += w
                p += 1
            m += 1
        if m < 2:
            return
        if self.multiway and not regression:
            node_entropy_terms(self.criterion, stats, K, weight, self.xlogx_table,
                               self.multiway, &wlogw, &w_node_entropy)
            self._consider_multiway(s, f, m, stats, weight, w_node_entropy, wlogw, best)
            return
        groups.stats = s.group_stats
        groups.weight = s.group_weight
        groups.count = s.group_count
        groups.code = s.group_code
        groups.key = s.group_key
        groups.order = s.group_order
        groups.stride = 2 if regression else S
        groups.left = s.count_left
        if self.quantile_criterion:
            order_groups(&groups, m, True)
            self._quantile_groups(s, f, m, start, end, weight, best)
            return
        rules.criterion = self.criterion
        rules.n_classes = 0 if regression else K
        rules.xlogx_table = self.xlogx_table
        rules.min_samples_leaf = self.settings.min_samples_leaf
        rules.min_weight_leaf = self.settings.min_weight_leaf
        rules.one_vs_rest = self.settings.one_vs_rest
        search_subsets(&groups, &rules, f, m, stats, weight, end - start, in_left, best)

    cdef void _consider_multiway(self, Scratch* s, Py_ssize_t f, Py_ssize_t m, const double* stats,
                                 double weight, double w_node_entropy, double wlogw,
                                 SplitRecord* best) noexcept nogil:
        """One child per category group (ID3/C4.5), scored like the binary splits.

        entropy: sum over groups of (sum_k c ln c - w ln w); gain ratio: the
        gain over the split information of the groups. The children are built
        as a cascade (the builder applies each step with finish_split): the
        smallest code first, missing last.
        """
        cdef Py_ssize_t K = self.n_stats, g, k
        cdef const double* table = self.xlogx_table
        cdef const double* gstats
        cdef double acc, wg, num, den = 1.0, children = 0.0, split_info = wlogw
        cdef double impurity_sum = 0.0
        cdef int code
        for g in range(m):
            gstats = s.group_stats + g * K
            wg = s.group_weight[g]
            acc = entropy_side_acc(gstats, K, table)
            children += acc - clogc(wg, table)
            split_info -= clogc(wg, table)
            impurity_sum += wg * node_impurity(self.criterion, gstats, K, wg, 1)
        if not multiway_proxy(self.criterion, children, split_info, w_node_entropy, &num, &den):
            return
        if not better(num, den, best):
            return
        record_category_split(best, num, den, f, True)
        best.multiway_impurity = impurity_sum
        for g in range(m):
            code = s.group_code[g]
            if code < 0:
                continue  # the missing group is the cascade's last child
            if g == 0:
                set_bit(best.cat_left, code)
            else:
                set_bit(best.cat_rest, code)

    cdef void finish_split(self, Py_ssize_t start, Py_ssize_t end, const double* stats,
                           double weight, double impurity, double weight_root,
                           SplitRecord* best, double* child_stats) noexcept nogil:
        """Route the node's samples, then the children's statistics and impurities.

        node_split calls it for the split it found; the builder calls it for a
        split decided elsewhere (a step of a multiway cascade).

        The children's statistics are summed afresh (not parent minus left):
        subtraction leaves rounding residue in the weighted case that would make
        a pure child look impure.
        """
        self._finish(self.goes_left, start, end, stats, weight, impurity, weight_root, best,
                     child_stats)

    cdef void _finish(self, unsigned long long* marks, Py_ssize_t start, Py_ssize_t end,
                      const double* stats, double weight, double impurity, double weight_root,
                      SplitRecord* best, double* child_stats) noexcept nogil:
        """``finish_split`` with the sides marked in ``marks`` (a subtree's thread
        marks its own: ``spec_split``)."""
        cdef Py_ssize_t S = self.n_stats, n_left, end_known
        cdef const DTYPE_t* v = self.vals + best.feature * self.n_samples
        cdef double weights[2]
        n_left = self._mark_sides(marks, start, end, best, child_stats, child_stats + S, weights)
        # the segment is sorted by the split feature, missing values last: its range
        # of present values is at hand (outside_training_range reads it)
        end_known = known_end(v, start, end)
        best.low = v[start] if end_known > start else NAN
        best.high = v[end_known - 1] if end_known > start else NAN
        if self.quantile_criterion:
            self._quantile_stats(&self.scratch[0], start, end, n_left, child_stats)
        if v[end - 1] == v[end - 1]:
            # no missing value here: at predict NaN follows the larger child
            best.missing_left = n_left > end - start - n_left
        record_children(best, self.criterion, start + n_left, child_stats, S, self.n_outputs,
                        weights, weight, impurity, weight_root)

    cdef Py_ssize_t _mark_sides(self, unsigned long long* marks, Py_ssize_t start,
                                Py_ssize_t end, const SplitRecord* split, double* left_stats,
                                double* right_stats, double* weights) noexcept nogil:
        """Mark each sample's side (the routing predict uses) and sum both children,
        each side in position order. A numeric cut sends a prefix of its sorted
        segment left (the missing values, last, go right unless the segment has
        none): then each side is one run (``mark_run``)."""
        cdef Py_ssize_t offset = split.feature * self.n_samples, p, n_left = 0, lo, hi, mid
        cdef Py_ssize_t K = self.n_outputs
        cdef const DTYPE_t* v = self.vals + offset
        cdef const int* ix = self.idx + offset
        cdef const class_t* codes = self.ycode if self.is_classifier else NULL
        cdef const double* targets = NULL if self.is_classifier else self.yval
        cdef double w = 1.0
        cdef bint go_left, whole = self.sw == NULL or self.whole_weights
        memset(left_stats, 0, self.n_stats * sizeof(double))
        memset(right_stats, 0, self.n_stats * sizeof(double))
        weights[0] = 0.0
        weights[1] = 0.0
        if not split.categorical and not (split.missing_left and v[end - 1] != v[end - 1]):
            lo, hi = start, end      # the first position routed right
            while lo < hi:
                mid = lo + (hi - lo) // 2
                if routes_left(split, v[mid]):
                    lo = mid + 1
                else:
                    hi = mid
            mark_run(marks, ix, codes, targets, self.counts, self.sw, self.criterion, K,
                     self.n_stats, whole, offset, start, lo, True, left_stats, &weights[0])
            mark_run(marks, ix, codes, targets, self.counts, self.sw, self.criterion, K,
                     self.n_stats, whole, offset, lo, end, False, right_stats, &weights[1])
            return lo - start
        for p in range(start, end):
            w = weight_of(self.counts, self.sw, ix[p])
            go_left = routes_left(split, v[p])
            put_bit(marks, ix[p], go_left)
            n_left += go_left
            weights[0 if go_left else 1] += w
            add_position(left_stats if go_left else right_stats, self.criterion, K,
                         self.n_stats // K, codes, targets, offset + p, w)
        return n_left

    cdef double _add_range(self, double* stats, Py_ssize_t f, Py_ssize_t lo,
                           Py_ssize_t hi) noexcept nogil:
        """Add the samples at positions [lo, hi) of feature f's layout to ``stats``,
        in order (as ``_mark_sides`` adds them); returns their weight."""
        cdef Py_ssize_t offset = f * self.n_samples, p, K = self.n_outputs
        cdef Py_ssize_t stride = self.n_stats // K
        cdef const class_t* codes = self.ycode if self.is_classifier else NULL
        cdef const double* targets = NULL if self.is_classifier else self.yval
        cdef int crit = self.criterion
        cdef double w = 1.0, total = 0.0
        if self.sw == NULL:
            for p in range(offset + lo, offset + hi):
                add_position(stats, crit, K, stride, codes, targets, p, 1.0)
            return <double>(hi - lo)
        for p in range(offset + lo, offset + hi):
            w = self.sw[self.idx[p]]
            total += w
            add_position(stats, crit, K, stride, codes, targets, p, w)
        return total

    cdef void _partition(self, Py_ssize_t start, Py_ssize_t end,
                         const SplitRecord* split) noexcept nogil:
        """Stable-partition every feature's segment into left part + right part."""
        cdef Py_ssize_t n_samples = self.n_samples, k
        # goes_left was marked by finish_split for exactly these samples
        self._partition_with(self.scratch, self.n_threads, self.goes_left, start, end, split)
        if self.quantile_criterion:
            for k in range(self.n_outputs):
                partition_ids(self.yorder + k * n_samples, self.goes_left,
                              self.scratch[0].tmp_i, start, end)

    cdef void _partition_with(self, Scratch* s, int n_threads, const unsigned long long* marks,
                              Py_ssize_t start, Py_ssize_t end,
                              const SplitRecord* split) noexcept nogil:
        """The columns' part of ``_partition``, by the sides in ``marks``, on
        ``n_threads`` threads with their scratch ``s`` (one per thread)."""
        cdef Py_ssize_t f, d = self.n_features
        if n_threads > 1 and (end - start) * d >= PARALLEL_WORK:
            for f in prange(d, nogil=True, num_threads=n_threads, schedule="dynamic"):
                if self._needs_partition(f, start, end, split):
                    self._partition_feature(&s[threadid()], marks, f, start, end)
        else:
            for f in range(d):
                if self._needs_partition(f, start, end, split):
                    self._partition_feature(s, marks, f, start, end)

    cdef bint _needs_partition(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                      const SplitRecord* split) noexcept nogil:
        # The split feature is already in order unless missing values go left;
        # a feature that offers no cut here offers none in either child and is
        # never scanned again. One test (``is_constant``) decides both: a
        # category column is constant only when its codes are equal, whatever
        # value_tolerance says, so it must be partitioned as long as it is scanned.
        if f == split.feature and not (split.missing_left or split.categorical):
            return False
        return not self.is_constant(f, start, end)

    cdef void _partition_feature(self, Scratch* s, const unsigned long long* marks,
                                 Py_ssize_t f, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        cdef Py_ssize_t offset = f * self.n_samples, K = self.n_outputs
        if self.is_classifier:
            partition_rows(self.vals + offset, self.idx + offset, self.ycode + offset * K,
                           K, marks, s.tmp_v, s.tmp_i, s.tmp_yc, start, end)
        else:
            partition_rows(self.vals + offset, self.idx + offset, self.yval + offset * K,
                           K, marks, s.tmp_v, s.tmp_i, s.tmp_yv, start, end)


class ColumnOrder:
    """Every column of a matrix sorted once (NaN last; equal values by row, the
    sort being stable), for the trees of a forest: each tree takes the sorted
    columns of its own rows (``rows``) instead of sorting again. With
    ``sort=False``, the columns only laid out by feature (``by_feature``, (d, n)),
    which the random splitter gathers from (``Splitter.sample_mode``)."""

    def __init__(self, X, int n_threads=1, bint sort=True):
        X = np.asarray(X, dtype=np.float32)
        self.sorted = sort
        self.vals = self.idx = self.by_feature = None
        if not sort:
            self.by_feature = np.ascontiguousarray(X.T)
            return
        self.vals = np.empty((X.shape[1], X.shape[0]), dtype=np.float32)
        self.idx = np.empty((X.shape[1], X.shape[0]), dtype=np.int32)
        _presort(X, self.vals, self.idx, n_threads)

    def rows(self, keep=None):
        """(vals, idx) of the rows where ``keep`` is True, numbered 0, 1, ... in row
        order (all rows for None): what sorting ``X[keep]`` gives, in one pass over
        each column."""
        if keep is None:
            return self.vals.copy(), self.idx.copy()
        keep = np.ascontiguousarray(keep, dtype=np.bool_)
        cdef Py_ssize_t d = self.vals.shape[0], n = self.vals.shape[1]
        if keep.shape[0] != n:
            raise ValueError(f"keep has {keep.shape[0]} rows; the columns {n}")
        renumber = np.empty(n, dtype=np.int32)
        cdef Py_ssize_t n_keep = _renumber(keep.view(np.uint8), renumber)
        # room for whole vectors past the last column's kept entries
        out_v = np.empty(d * n_keep + DTREE_PARTITION_SLACK, dtype=np.float32)
        out_i = np.empty(d * n_keep + DTREE_PARTITION_SLACK, dtype=np.int32)
        _kept_rows(self.vals, self.idx, renumber, n_keep, out_v, out_i)
        return out_v[:d * n_keep].reshape(d, n_keep), out_i[:d * n_keep].reshape(d, n_keep)


cdef Py_ssize_t _renumber(const unsigned char[::1] keep, int[::1] out) noexcept:
    """Each row's number among the kept rows into ``out`` (-1 where it is not
    kept; one pass: a forest pays it for every tree); returns how many are kept."""
    cdef Py_ssize_t i, q = 0
    with nogil:
        for i in range(keep.shape[0]):
            out[i] = <int>q if keep[i] else -1
            q += keep[i] != 0
    return q


def _kept_rows(const DTYPE_t[:, ::1] vals, const int[:, ::1] idx, const int[::1] renumber,
               Py_ssize_t n_keep, DTYPE_t[::1] out_v, int[::1] out_i):
    """Each column's kept entries in order, sample ids renumbered (``kept_rows``),
    column f's at f * n_keep."""
    cdef Py_ssize_t d = vals.shape[0], n = vals.shape[1], f
    if n == 0 or d == 0:
        return
    with nogil:
        for f in range(d):
            kept_rows(&vals[f, 0], &idx[f, 0], n, &renumber[0], &out_v[f * n_keep],
                      &out_i[f * n_keep])


def _codes_by_position(const int[::1] y, const int[:, ::1] idx, unsigned short[:, ::1] out,
                       int n_threads=1):
    """One output's class codes at each position of the sorted columns, a column
    per task on n_threads (the writes also claim the pages: in parallel too)."""
    cdef Py_ssize_t f, p
    for f in prange(idx.shape[0], nogil=True, num_threads=max(1, n_threads),
                    schedule="dynamic"):
        for p in range(idx.shape[1]):
            out[f, p] = <unsigned short>y[idx[f, p]]


def _targets_by_position(const double[::1] y, const int[:, ::1] idx, double[:, ::1] out,
                         int n_threads=1):
    """One output's targets at each position of the sorted columns (as
    ``_codes_by_position``)."""
    cdef Py_ssize_t f, p
    for f in prange(idx.shape[0], nogil=True, num_threads=max(1, n_threads),
                    schedule="dynamic"):
        for p in range(idx.shape[1]):
            out[f, p] = y[idx[f, p]]


cdef enum:
    TRANSPOSE_ROWS = 512    # rows per block as X's columns are laid into vals


def simd_level():
    """The vector instructions the exact partition uses here: 0 none (the scalar
    kernel), 1 AVX2, 2 AVX-512 (the machine's best unless the environment
    variable DTREE_SIMD, read once, names a lower level)."""
    return dtree_simd_level()


def _sort_runs(unsigned long long[::1] keys):
    """Test hook: ``sort_runs`` of a copy of ``keys``, returned as a new array."""
    cdef Py_ssize_t m = keys.shape[0]
    room = np.empty(2 * max(m, 1), dtype=np.uint64)
    cdef unsigned long long[::1] r = room
    cdef unsigned long long* out
    if m:
        r[:m] = keys
    out = sort_runs(&r[0], &r[0] + m, m)
    return room[:m].copy() if out == &r[0] else room[m:2 * m].copy()


def _float_at_most(const double[::1] t):
    """Test hook: ``float_at_most`` of each value (the thresholds' float32)."""
    out = np.empty(t.shape[0], dtype=np.float32)
    cdef DTYPE_t[::1] o = out
    cdef Py_ssize_t i
    for i in range(t.shape[0]):
        o[i] = float_at_most(t[i])
    return out


def _stable_partition(DTYPE_t[::1] v, int[::1] ix, y, const unsigned long long[::1] goes_left,
                      Py_ssize_t start, Py_ssize_t end, int level):
    """Test hook: partition ``v``, ``ix`` and ``y`` (uint16 codes or float64
    targets, one per entry) over [start, end) by the sides in ``goes_left``, in
    place, with the kernel of ``level`` (at most the machine's); returns the
    level that ran."""
    cdef Py_ssize_t n = v.shape[0]
    if not (0 <= start <= end <= n and ix.shape[0] == n and y.shape[0] == n):
        raise ValueError("start, end and the arrays' lengths disagree")
    if goes_left.shape[0] == 0 or goes_left.shape[0] * 64 < n or (n and (np.min(ix) < 0 or np.max(ix) >= n)):
        raise ValueError("every sample id needs a bit in goes_left")
    cdef DTYPE_t[::1] tv = np.empty(n + DTREE_PARTITION_SLACK, dtype=np.float32)
    cdef int[::1] ti = np.empty(n + DTREE_PARTITION_SLACK, dtype=np.int32)
    cdef class_t[::1] yc, tyc
    cdef double[::1] yv, tyv
    cdef int before = dtree_simd_level(), used = dtree_simd_set_level(level)
    cdef DTYPE_t* pv = &v[0] if n else NULL
    cdef int* pi = &ix[0] if n else NULL
    try:
        if y.dtype == np.uint16:
            yc = y
            tyc = np.empty(n + DTREE_PARTITION_SLACK, dtype=np.uint16)
            partition_rows(pv, pi, &yc[0] if n else <class_t*> NULL, 1, &goes_left[0],
                           &tv[0], &ti[0], &tyc[0], start, end)
        else:
            yv = y
            tyv = np.empty(n + DTREE_PARTITION_SLACK, dtype=np.float64)
            partition_rows(pv, pi, &yv[0] if n else <double*> NULL, 1, &goes_left[0],
                           &tv[0], &ti[0], &tyv[0], start, end)
    finally:
        dtree_simd_set_level(before)
    return used


def _presort(X, vals, idx, int n_threads=1):
    """Sort every column of X (n, d) into rows of vals and idx (d, n).

    X's columns are first laid into vals in one pass over X's rows (a block of rows
    at a time), then each row of vals is sorted in place: reading each column
    straight from a row-major X would read all of X once per column."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], f, b, start, m, i
    cdef Py_ssize_t n_blocks = (n + TRANSPOSE_ROWS - 1) // TRANSPOSE_ROWS
    cdef int t, T = max(1, min(n_threads, d))
    cdef const DTYPE_t[:, :] Xv = X
    cdef DTYPE_t[:, ::1] vv = vals
    cdef int[:, ::1] iv = idx
    # per thread: room for two buffers of n (key, id) pairs, and the digits' counts
    pairs = np.empty((T, 2, max(n, 1)), dtype=np.uint64)
    hist = np.empty((T, 3 * RADIX_SIZE), dtype=np.intp)
    cdef unsigned long long[:, :, ::1] pv = pairs
    cdef Py_ssize_t[:, ::1] hv = hist
    if n == 0:
        return
    for b in prange(n_blocks, nogil=True, num_threads=max(1, min(n_threads, n_blocks)),
                    schedule="static"):
        start = b * TRANSPOSE_ROWS
        m = min(<Py_ssize_t> TRANSPOSE_ROWS, n - start)
        for f in range(d):
            for i in range(m):
                vv[f, start + i] = Xv[start + i, f]
    if T == 1:
        with nogil:
            for f in range(d):
                radix_argsort_column(&vv[f, 0], n, &vv[f, 0], &iv[f, 0], &pv[0, 0, 0],
                                     &pv[0, 1, 0], &hv[0, 0])
        return
    for f in prange(d, nogil=True, num_threads=T, schedule="dynamic"):
        t = threadid()
        radix_argsort_column(&vv[f, 0], n, &vv[f, 0], &iv[f, 0], &pv[t, 0, 0], &pv[t, 1, 0],
                             &hv[t, 0])


def best_split(X, y, sample_weight=None, *, n_classes=0, criterion=0,
               min_samples_leaf=1, min_weight_leaf=0.0, n_categories=None, quantile=0.5,
               value_tolerance=0.0):
    """Best split of the root of (X, y): the brute-force oracle's test hook, and each
    feature's best split at a node for the audit's competitor splits (``_fit.audit``).

    Returns
    -------
    dict or None
        feature, threshold, pos, missing_left, proxy, improvement, impurity_left,
        impurity_right, weight_left, weight_right; None when no split is valid.
    """
    X = np.ascontiguousarray(X, dtype=np.float32)
    cdef Splitter sp = Splitter(X, y, sample_weight, dict(
        criterion=criterion, n_classes=n_classes, min_samples_leaf=min_samples_leaf,
        min_weight_leaf=min_weight_leaf, max_features=X.shape[1], seed=1, n_threads=1,
        quantile=quantile, value_tolerance=value_tolerance, multiway=False, one_vs_rest=False,
        index_order=True, random_split=False), n_categories)
    stats = np.zeros(sp.n_stats, dtype=np.float64)
    left = np.zeros(2 * sp.n_stats, dtype=np.float64)
    cdef double[::1] sv = stats, lv = left
    cdef double w
    cdef SplitRecord rec
    sp.begin(False)
    sp.root_stats(&sv[0], &w)
    imp = node_impurity(criterion, &sv[0], sp.n_stats, w, sp.n_outputs)
    if sp.n_samples > 0:
        sp.draw_features(0, sp.n_samples, 0)
    if not sp.node_split(0, sp.n_samples, &sv[0], w, imp, w, &rec, &lv[0]):
        return None
    return dict(feature=rec.feature, threshold=rec.threshold, pos=rec.pos,
                missing_left=bool(rec.missing_left), categorical=bool(rec.categorical),
                left_categories=[c for c in range(MAX_CATEGORIES)
                                 if rec.categorical and bit_is_set(rec.cat_left, c)],
                proxy=rec.proxy, improvement=rec.improvement,
                impurity_left=rec.impurity_left, impurity_right=rec.impurity_right,
                weight_left=rec.weight_left, weight_right=rec.weight_right)
