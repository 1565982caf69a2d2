# cython: language_level=3
"""Exact best-split search on sparse columns: only the non-zeros are laid out.

A sparse X (CSC) keeps each feature's explicit non-zeros, sorted once per fit
by value (NaN last), the sample id beside each value. A *listed* node holds,
for every feature with non-zeros among its samples, the segment of those
entries that belong to it (``Segments``); after a split each listed segment is
partitioned stably into left part + right part, so the children's segments stay
sorted, as the dense layout does (``_splitter``). A feature's zeros in a node
are never listed: they form one block between its negative and its positive
values, whose statistics are the node's minus those of the entries. So a scan
costs the feature's non-zeros in the node, a partition the node's non-zeros,
and routing a split the node's samples (kept, ascending by id, in a segment of
their own).

With few features drawn per node (``max_features="sqrt"``, the extra trees),
partitioning every feature at every node would cost more than the scans: the
root is then *unlisted*, and so are its descendants while they are large. An
unlisted node filters each drawn feature's whole column by the samples'
positions, which yields its entries already in order; a child whose own entries
have become fewer than that filtering costs is listed once, from its rows
(see "segment lists" below).

The scan visits the candidates the dense scan visits, in the same order, and
scores them with the same kernels (``_criterion``), and a split's children are
summed in the dense order: the tree is the dense splitter's on the same X (bit
for bit where the sums are exact, as with unit weights and integer targets;
elsewhere up to the rounding of the zero block's sums, which decides only
near-ties).

Supported: the dense splitter's numeric search and its random cuts
(splitter="random", the same draws), with the criteria whose registry rows say
``sparse`` (not the quantile ones), several outputs, sample weights, missing
values (stored NaN), monotonic constraints and ``value_tolerance``. Other
configurations lay a sparse X out densely (``_plan.plan.Choices.sparse``).
"""
import numpy as np

from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from cython.parallel cimport prange, threadid

from ._common cimport by_output, check_cut, class_t, clear_split, compare_score, constraints_of, CUT_PASS
from ._common cimport CUT_STOP, draw_begin, draw_begin_fit, draw_end, draw_next, draw_numeric_cut
from ._common cimport draw_take, float_key, keep_better, keep_doubles, keep_random_cut, midpoint
from ._common cimport partition_ids
from ._common cimport partition_segment, put_bit, radix_passes, RADIX_SIZE, radix_sort_keys
from ._common cimport record_candidate, SearchSettings, tiny_weight, wins
from ._route cimport side
from ._criterion cimport add_outputs, check_criterion, clf_move_count, clf_proxy, clf_side_acc
from ._criterion cimport cut_proxy, is_classification, is_quantile, monotonic_ok
from ._criterion cimport node_entropy_terms, pair_begin, pair_offer, pairs_decide, PairScan
from ._criterion cimport random_cut_admissible, record_children, reg_proxy_outputs, Side
from ._criterion cimport sklearn_score, stats_size
from ._criterion import xlogx_table


cdef enum:
    # a node's partition goes parallel from about this many entries in its
    # segments (a list's segments lie in column order: their span, from the first
    # one's start to the last one's end, stands for their sum, from above)
    PARALLEL_ENTRIES = 1 << 16


# splitter="best"/"random" with few features drawn per node: list a child of an
# unlisted node once its entries number at most this many times a node's cost of
# filtering its drawn features' columns (``SparseSplitter._list_if_worth``)
LIST_FACTOR = 1.0
# test hook: "auto"; "never" (the root unlisted, no node ever listed); "early" (the
# root unlisted, its children listed)
LISTING = "auto"


cdef Segments* new_segments(Py_ssize_t count) noexcept nogil:
    """An empty list of ``count`` triples (its layout pointers are the caller's)."""
    cdef Segments* seg = <Segments*> malloc(sizeof(Segments) + 3 * max(count, 1) *
                                            sizeof(Py_ssize_t))
    if seg == NULL:
        return NULL
    seg.count = count
    seg.triples = <Py_ssize_t*> (<char*> seg + sizeof(Segments))
    seg.vals = NULL
    seg.ids = NULL
    seg.refs = NULL
    return seg


cdef inline bint is_nan(DTYPE_t x) noexcept nogil:
    return x != x


cdef inline bint sparse_routes_left(const SplitRecord* split, DTYPE_t x) noexcept nogil:
    # the one rule (``_route.side``) for a numeric split
    return side(x, split.threshold, not split.missing_left, NULL) == 0


cdef class SparseSplitter:
    """The non-zeros of a sparse X, presorted, plus the scan and partition kernels.

    Parameters
    ----------
    X : scipy.sparse CSC matrix of shape (n_samples, n_features), float32
        Canonical: sorted indices, no duplicates (explicit zeros are dropped here).
    y, sample_weight, settings, monotonic_cst
        As ``_splitter.Splitter``'s (its threads partition the columns' segments,
        which are independent; its quantile, multiway and index order do not apply).
    """

    def __cinit__(self, X, y, sample_weight, SearchSettings settings, monotonic_cst=None):
        check_criterion(settings.criterion)
        self.settings = settings
        cdef int criterion = settings.criterion, n_threads = settings.n_threads
        cdef Py_ssize_t n_classes = settings.n_classes, max_features = settings.max_features
        if is_quantile(criterion):
            raise ValueError("the sparse splitter has no quantile criteria")
        cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
        y = by_output(np.asarray(y))
        self.n_outputs = y.shape[1] if y.ndim == 2 else 1
        self.n_samples = n
        self.n_features = d
        self.criterion = criterion
        self.is_classifier = is_classification(criterion)
        self.n_stats = self.n_outputs * stats_size(criterion, n_classes)
        self.tol = <DTYPE_t>settings.value_tolerance
        self.draw.seed = settings.seed
        self.draw.n_features = d
        self.draw.max_features = max_features
        self.best_first = False
        self.random_split = settings.random_split
        self.lower = -INFINITY
        self.upper = INFINITY

        vals, ids, col_start = sorted_entries(X, n_threads)
        nnz = vals.shape[0]
        # few features drawn per node: the root is unlisted (see ``_list_if_worth``)
        self.filter_cost = max_features * (nnz / max(d, 1))
        self.list_factor = LIST_FACTOR
        listing = LISTING
        if listing == "never":
            self.filter_cost = 0.0
        elif listing == "early":
            self.filter_cost = INFINITY
        self.hybrid = listing != "auto" or (
            nnz > self.list_factor * self.filter_cost and nnz < 2**32 - 1)
        listed = np.flatnonzero(np.diff(col_start) > 0)
        self.root_seg = NULL
        if not self.hybrid:
            self.root_seg = new_segments(listed.shape[0])
            if self.root_seg == NULL:
                raise MemoryError()
            for t in range(listed.shape[0]):
                f = listed[t]
                self.root_seg.triples[3 * t] = f
                self.root_seg.triples[3 * t + 1] = col_start[f]
                self.root_seg.triples[3 * t + 2] = col_start[f + 1]
        longest = int(np.diff(col_start).max(initial=0))
        samples = np.arange(n, dtype=np.int32)
        if self.is_classifier:
            y = np.ascontiguousarray(y, dtype=np.int32).reshape(-1)
        else:
            y = np.ascontiguousarray(y, dtype=np.float64).reshape(-1)
        S = max(self.n_stats, 2)
        self.n_threads = max(1, n_threads)
        # per thread, padded apart: a scan's left and right sums and its zero block
        self.scratch_row = 3 * (S + 16)
        doubles = np.zeros(self.n_threads * self.scratch_row, dtype=np.float64)
        records = np.zeros(max(d, 1) * sizeof(SplitRecord), dtype=np.uint8)
        bounds = np.zeros((3, max(d, 1)), dtype=np.intp)
        features = np.zeros((3, max(d, 1)), dtype=np.intp)
        goes_left = np.zeros((n + 63) // 64 + 1, dtype=np.uint64)
        mark = np.zeros(max(n, 1), dtype=np.uint8)
        # per thread: room for a column's entries (and, thread 0, the node's samples)
        row = max(longest, n, 1)
        tmp_v = np.empty(self.n_threads * row, dtype=np.float32)
        tmp_i = np.empty(self.n_threads * row, dtype=np.int32)
        self.tmp_row = row
        owned = [vals, ids, col_start, samples, y, doubles, bounds, features, goes_left, mark,
                 tmp_v, tmp_i, records]

        self.monotonic_cst = None if monotonic_cst is None else \
            np.ascontiguousarray(monotonic_cst, dtype=np.int8)
        self.monotonic = constraints_of(self.monotonic_cst, d)

        cdef DTYPE_t[::1] vv = vals, tv = tmp_v
        cdef int[::1] iv = ids, sv = samples, ti = tmp_i
        cdef const Py_ssize_t[::1] csv = col_start
        cdef Py_ssize_t[:, ::1] bv = bounds, fv = features
        cdef double[::1] dv = doubles
        cdef unsigned char[::1] rec_view = records
        cdef unsigned long long[::1] gv = goes_left
        cdef unsigned char[::1] mv = mark
        cdef const int[::1] yc
        cdef const double[::1] yv
        self.layout_vals = &vv[0] if vv.shape[0] > 0 else NULL
        self.layout_ids = &iv[0] if iv.shape[0] > 0 else NULL
        self.vals = self.layout_vals
        self.ids = self.layout_ids
        self.col_start = &csv[0]
        self.samples = &sv[0] if n > 0 else NULL
        self.oom = False
        if self.root_seg != NULL:
            self.root_seg.vals = self.layout_vals
            self.root_seg.ids = self.layout_ids
        self.y_codes = NULL
        self.y_values = NULL
        if self.is_classifier:
            yc = y
            self.y_codes = &yc[0] if n > 0 else NULL
        else:
            yv = y
            self.y_values = &yv[0] if n > 0 else NULL
        self.count_left = &dv[0]
        self.count_right = &dv[S + 16]
        self.zero_stats = &dv[2 * (S + 16)]
        self.feature_best = <SplitRecord*> &rec_view[0]
        self.seg_lo = &bv[0, 0]
        self.seg_hi = &bv[1, 0]
        self.mids = &bv[2, 0]
        self.draw.features = &fv[0, 0]
        self.draw.constant_features = &fv[1, 0]
        self.draw.visit = &fv[2, 0]
        self.draw.n_visit = 0
        self.goes_left = &gv[0]
        self.mark = &mv[0]
        self.tmp_v = &tv[0]
        self.tmp_i = &ti[0]
        self.sw = keep_doubles(None if sample_weight is None else
                               np.ascontiguousarray(sample_weight, dtype=np.float64), owned)
        self.xlogx_table = keep_doubles(
            xlogx_table(criterion, n, None if sample_weight is None else
                        float(np.sum(sample_weight)), self.n_outputs, self.n_stats), owned)
        if self.hybrid:
            self._allocate_unlisted(ids, n, d, owned)
        self._owned = owned

    def __dealloc__(self):
        free(self.root_seg)

    cdef _allocate_unlisted(self, ids, Py_ssize_t n, Py_ssize_t d, list owned):
        """What unlisted nodes need: each sample's position and its entries'
        positions in the layout (rows), a pool for a node's extracted features,
        room to sort a listing node's positions."""
        cdef Py_ssize_t nnz = ids.shape[0]
        cdef Py_ssize_t p
        row_ptr = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(np.bincount(ids, minlength=n), out=row_ptr[1:])
        # positions grouped by row, ascending within one (a counting sort)
        row_pos = np.empty(max(nnz, 1), dtype=np.uint32)
        cursor = row_ptr[:-1].copy()
        cdef Py_ssize_t[::1] cv = cursor
        cdef unsigned int[::1] rpv = row_pos
        cdef const int[::1] idv = ids
        with nogil:
            for p in range(nnz):
                rpv[cv[idv[p]]] = <unsigned int>p
                cv[idv[p]] += 1
        where = np.arange(n, dtype=np.int32)
        pool_v = np.empty(max(nnz, 1), dtype=np.float32)
        pool_i = np.empty(max(nnz, 1), dtype=np.int32)
        extracted = np.zeros(max(d, 1), dtype=np.uint8)
        extracted_list = np.zeros(max(d, 1), dtype=np.intp)
        sort_room = np.empty((2, max(nnz, 1)), dtype=np.uint32)
        owned.extend([row_ptr, row_pos, where, pool_v, pool_i, extracted, extracted_list,
                      sort_room])
        cdef const Py_ssize_t[::1] rp = row_ptr
        cdef const unsigned int[::1] ps = row_pos
        cdef int[::1] wv = where, pi = pool_i
        cdef DTYPE_t[::1] pv = pool_v
        cdef unsigned char[::1] ev = extracted
        cdef Py_ssize_t[::1] lv = extracted_list
        cdef unsigned int[:, ::1] sr = sort_room
        self.row_ptr = &rp[0]
        self.row_pos = &ps[0] if nnz > 0 else NULL
        self.where = &wv[0] if n > 0 else NULL
        self.pool_v = &pv[0]
        self.pool_i = &pi[0]
        self.extracted = &ev[0]
        self.extracted_list = &lv[0]
        self.n_extracted = 0
        self.pool_used = 0
        self.sort_a = &sr[0, 0]
        self.sort_b = &sr[1, 0]

    # ------------------------------------------------------------ the growers' protocol
    cdef void begin(self, bint best_first) noexcept nogil:
        self.best_first = best_first
        draw_begin_fit(&self.draw)

    cdef void root_stats(self, double* stats, double* weight) noexcept nogil:
        """Statistics of the whole training set, summed in sample order (as the dense
        splitter sums them)."""
        cdef Py_ssize_t i
        cdef double w, total = 0.0
        memset(stats, 0, self.n_stats * sizeof(double))
        for i in range(self.n_samples):
            w = self.sw[i] if self.sw != NULL else 1.0
            total += w
            add_outputs(stats, self.criterion, self.n_outputs, self.n_stats // self.n_outputs,
                        self.y_codes, self.y_values, i, w)
        weight[0] = total

    cdef int split(self, Node* node, const double* stats, double weight_root,
                   SplitRecord* split, double* child_stats) noexcept nogil:
        """The node's best split, its sides marked: 1, 0 (none valid) or -1 (its
        segment list could not be allocated)."""
        cdef const Segments* seg = self._segments(node)
        cdef Py_ssize_t j, f, n_node = node.end - node.start
        cdef bint found, constant
        cdef unsigned int i
        if self.oom:
            return -1
        self.lower = node.lower
        self.upper = node.upper
        if seg != NULL:
            self.vals = seg.vals
            self.ids = seg.ids
            self._load(seg, True)
        else:
            self.vals = self.pool_v
            self.ids = self.pool_i
        # scikit-learn's draw (as the dense splitter's ``draw_features``); constants
        # are carried down depth-first growth only
        # (splitter="random" draws each feature's cut as soon as it draws the
        # feature, in the generator's order of scikit-learn's random splitter)
        clear_split(split, node.end)
        draw_begin(&self.draw, 0 if self.best_first else node.n_constant)
        j = draw_next(&self.draw)
        while j >= 0:
            f = self.draw.features[j]
            if seg == NULL:
                self._extract(f, node.start, node.end)
            constant = self._is_constant(f, n_node)
            draw_take(&self.draw, j, constant)
            if self.random_split and not constant:
                self._random_cut(node, f, stats, weight_root, split, child_stats)
            j = draw_next(&self.draw)
        node.n_constant = draw_end(&self.draw)

        if self.random_split:
            pass
        elif not (n_node == 2 and self._split_pair(node.start, stats, node.weight, split)):
            if self.n_threads > 1 and self._visited_entries() >= PARALLEL_ENTRIES:
                self._scan_in_parallel(node, stats, split)
            else:
                for i in range(self.draw.n_visit):
                    self._scan(0, self.draw.visit[i], n_node, stats, node.weight, split)
        found = split.feature >= 0
        if found:
            split.proxy = split.num / split.den
            # (a random cut's children summed afresh, both sides)
            self._finish_split(node, stats, weight_root, split, child_stats)
        if seg != NULL:
            self._load(seg, False)
        else:
            self._unextract()
        return found

    cdef Py_ssize_t _visited_entries(self) noexcept nogil:
        cdef Py_ssize_t i, f, total = 0
        for i in range(self.draw.n_visit):
            f = self.draw.visit[i]
            total += self.seg_hi[f] - self.seg_lo[f]
        return total

    cdef void _scan_in_parallel(self, const Node* node, const double* stats,
                                SplitRecord* best) noexcept nogil:
        """Each visited feature scanned on its own thread into its own record, then
        the records compared in visiting order by the scans' rule: the serial
        winner, ties included, for any thread count (as the dense splitter's)."""
        cdef Py_ssize_t i
        cdef SplitRecord* per_feature = self.feature_best
        for i in prange(self.draw.n_visit, nogil=True, num_threads=self.n_threads,
                        schedule="dynamic"):
            clear_split(&per_feature[i], node.end)
            self._scan(threadid(), self.draw.visit[i], node.end - node.start, stats,
                       node.weight, &per_feature[i])
        for i in range(self.draw.n_visit):
            keep_better(best, &per_feature[i])

    cdef void partition(self, const Node* node, const SplitRecord* split) noexcept nogil:
        """Stable-partition the node's samples and every listed segment into left +
        right (the sides ``split`` marked); ``mids`` keeps where each was cut."""
        cdef const Segments* seg = self._segments(node)
        cdef Py_ssize_t t, q
        partition_ids(self.samples, self.goes_left, self.tmp_i, node.start, node.end)
        if self.hybrid:
            for q in range(node.start, node.end):
                self.where[self.samples[q]] = <int>q
        if seg == NULL:
            return
        if self.n_threads > 1 and seg.count > 1 and \
                seg.triples[3 * seg.count - 1] - seg.triples[1] >= PARALLEL_ENTRIES:
            for t in prange(seg.count, nogil=True, num_threads=self.n_threads,
                            schedule="dynamic", chunksize=16):
                self._partition_segment(t, seg, threadid())
        else:
            for t in range(seg.count):
                self._partition_segment(t, seg, 0)

    cdef void _partition_segment(self, Py_ssize_t t, const Segments* seg,
                                 int thread) noexcept nogil:
        cdef Py_ssize_t offset = thread * self.tmp_row
        self.mids[t] = partition_segment(seg.vals, seg.ids, <class_t*> NULL, 0,
                                         self.goes_left, self.tmp_v + offset,
                                         self.tmp_i + offset, <class_t*> NULL,
                                         seg.triples[3 * t + 1], seg.triples[3 * t + 2])

    cdef void hand_down(self, Node* node, const SplitRecord* split, bint left_grows,
                        bint right_grows, Node* left, Node* right) noexcept nogil:
        """The growing children's segment lists: a listed node's children are listed
        (a segment the split leaves empty on a side is not listed there); an
        unlisted node's are listed when that pays (``_list_if_worth``). The node's
        list is released."""
        cdef const Segments* seg = self._segments(node)
        if seg != NULL:
            if left_grows:
                left.seg = self._child_segments(seg, True)
            if right_grows:
                right.seg = self._child_segments(seg, False)
        else:
            if left_grows:
                left.seg = self._list_if_worth(left)
            if right_grows:
                right.seg = self._list_if_worth(right)
        self.release(node)

    cdef void release(self, Node* node) noexcept nogil:
        cdef Segments* seg = <Segments*> node.seg
        if seg == NULL:
            return
        if seg.refs != NULL:
            seg.refs[0] -= 1
            if seg.refs[0] == 0:
                free(seg.vals)
                free(seg.ids)
                free(seg.refs)
        free(seg)
        node.seg = NULL

    cdef void finish(self) noexcept nogil:
        pass

    # ------------------------------------------------------------ segment lists
    # A listed node holds, per feature with entries among its samples, the segment
    # of them (``Segments``); its children's are cut from it by the partition. With
    # few features drawn per node, partitioning every listed feature at every node
    # costs more than looking up the drawn ones: the root is then *unlisted*, and an
    # unlisted node filters each drawn feature's whole column by the position of
    # each sample (``where``) into a pool (``_extract``). Its children stay
    # unlisted until their own entries number about a node's filtering cost
    # (``_list_if_worth``): then they are listed once, from their rows, into a copy
    # their subtree partitions in place.

    cdef Segments* _segments(self, const Node* node) noexcept nogil:
        # the root's list is the splitter's own (NULL: unlisted)
        return self.root_seg if node.parent < 0 else <Segments*> node.seg

    cdef Segments* _child_segments(self, const Segments* seg, bint left) noexcept nogil:
        cdef Py_ssize_t t, m = 0, lo, hi, f
        cdef Segments* out
        for t in range(seg.count):
            if (self.mids[t] > seg.triples[3 * t + 1]) if left else \
                    (seg.triples[3 * t + 2] > self.mids[t]):
                m += 1
        out = new_segments(m)
        if out == NULL:
            self.oom = not self.hybrid    # (an unlisted child is grown all the same)
            return NULL
        out.vals = seg.vals
        out.ids = seg.ids
        out.refs = seg.refs
        if out.refs != NULL:
            out.refs[0] += 1
        m = 0
        for t in range(seg.count):
            f = seg.triples[3 * t]
            lo = seg.triples[3 * t + 1] if left else self.mids[t]
            hi = self.mids[t] if left else seg.triples[3 * t + 2]
            if hi > lo:
                out.triples[3 * m] = f
                out.triples[3 * m + 1] = lo
                out.triples[3 * m + 2] = hi
                m += 1
        return out

    cdef Segments* _list_if_worth(self, const Node* child) noexcept nogil:
        """A list for a child of an unlisted node when its entries number no more
        than LIST_FACTOR times a node's filtering cost, else NULL (unlisted)."""
        cdef Py_ssize_t q, i, m = 0
        for q in range(child.start, child.end):
            i = self.samples[q]
            m += self.row_ptr[i + 1] - self.row_ptr[i]
        if m > self.list_factor * self.filter_cost:
            return NULL
        return self._list(child, m)

    cdef Segments* _list(self, const Node* child, Py_ssize_t m) noexcept nogil:
        """The child's list over a copy of its m entries: their layout positions
        gathered from its rows and sorted, which orders them by feature and, within
        one, as the layout does. NULL (unlisted) if memory runs short."""
        cdef Py_ssize_t q, r, i, k = 0, t, f = 0, count = 0
        cdef unsigned int* positions
        cdef unsigned int pos
        cdef Segments* seg
        cdef Py_ssize_t hist[3 * RADIX_SIZE]
        for q in range(child.start, child.end):
            i = self.samples[q]
            for r in range(self.row_ptr[i], self.row_ptr[i + 1]):
                self.sort_a[k] = self.row_pos[r]
                k += 1
        positions = self.sort_b if radix_passes(self.sort_a, NULL, m, self.sort_b, NULL,
                                                hist) else self.sort_a
        f = -1
        for k in range(m):
            pos = positions[k]
            if f < 0 or pos >= self.col_start[f + 1]:
                while self.col_start[f + 1] <= pos:
                    f += 1
                count += 1
        seg = new_segments(count)
        if seg == NULL:
            return NULL
        seg.vals = <DTYPE_t*> malloc(max(m, 1) * sizeof(DTYPE_t))
        seg.ids = <int*> malloc(max(m, 1) * sizeof(int))
        seg.refs = <Py_ssize_t*> malloc(sizeof(Py_ssize_t))
        if seg.vals == NULL or seg.ids == NULL or seg.refs == NULL:
            free(seg.vals)
            free(seg.ids)
            free(seg.refs)
            free(seg)
            return NULL
        seg.refs[0] = 1
        f = -1
        t = -1
        for k in range(m):
            pos = positions[k]
            seg.vals[k] = self.layout_vals[pos]
            seg.ids[k] = self.layout_ids[pos]
            if f < 0 or pos >= self.col_start[f + 1]:
                while self.col_start[f + 1] <= pos:
                    f += 1
                t += 1
                seg.triples[3 * t] = f
                seg.triples[3 * t + 1] = k
            seg.triples[3 * t + 2] = k + 1
        return seg

    cdef void _load(self, const Segments* seg, bint on) noexcept nogil:
        """Set (or clear back to empty) each listed feature's segment bounds."""
        cdef Py_ssize_t t, f
        for t in range(seg.count):
            f = seg.triples[3 * t]
            self.seg_lo[f] = seg.triples[3 * t + 1] if on else 0
            self.seg_hi[f] = seg.triples[3 * t + 2] if on else 0

    cdef void _extract(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        """An unlisted node's entries of feature f, filtered from its whole column in
        order, appended to the pool (once per node)."""
        cdef Py_ssize_t p, k = self.pool_used, w
        cdef int i
        if self.extracted[f]:
            return
        self.extracted[f] = 1
        self.extracted_list[self.n_extracted] = f
        self.n_extracted += 1
        self.seg_lo[f] = k
        for p in range(self.col_start[f], self.col_start[f + 1]):
            i = self.layout_ids[p]
            w = self.where[i]
            if start <= w < end:
                self.pool_v[k] = self.layout_vals[p]
                self.pool_i[k] = i
                k += 1
        self.seg_hi[f] = k
        self.pool_used = k

    cdef void _unextract(self) noexcept nogil:
        cdef Py_ssize_t t, f
        for t in range(self.n_extracted):
            f = self.extracted_list[t]
            self.extracted[f] = 0
            self.seg_lo[f] = 0
            self.seg_hi[f] = 0
        self.n_extracted = 0
        self.pool_used = 0

    # ------------------------------------------------------------ the search
    cdef bint _is_constant(self, Py_ssize_t f, Py_ssize_t n_node) noexcept nogil:
        """The dense splitter's ``is_constant`` with the zeros as one block: all
        values missing, or none missing and all equal (within ``tol``)."""
        cdef Py_ssize_t lo = self.seg_lo[f], hi = self.seg_hi[f]
        cdef bint zeros = n_node > hi - lo
        cdef DTYPE_t least, greatest
        if lo == hi:
            return True
        if is_nan(self.vals[hi - 1]):
            return not zeros and is_nan(self.vals[lo])
        least = self.vals[lo]
        greatest = self.vals[hi - 1]
        if zeros:
            least = min(least, <DTYPE_t>0.0)
            greatest = max(greatest, <DTYPE_t>0.0)
        return greatest <= <DTYPE_t>(least + self.tol)

    cdef Py_ssize_t _known_end(self, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
        # the end of a segment's numbers: NaN sorts last
        while hi > lo and is_nan(self.vals[hi - 1]):
            hi -= 1
        return hi

    cdef Py_ssize_t _first_positive(self, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
        # bisection of a sorted segment of non-zero numbers (no NaN): the first above 0
        cdef Py_ssize_t mid
        while lo < hi:
            mid = (lo + hi) // 2
            if self.vals[mid] > 0:
                hi = mid
            else:
                lo = mid + 1
        return lo

    cdef void _scan(self, int thread, Py_ssize_t f, Py_ssize_t n_node, const double* stats,
                    double weight, SplitRecord* best) noexcept nogil:
        """Scan one feature drawn for the node: its zero block's statistics first
        (the node's minus its entries'), then its cuts with missing values right
        and, if it has any here, left (as the dense ``_scan``)."""
        cdef Py_ssize_t lo = self.seg_lo[f], hi = self.seg_hi[f], p, i, pz
        cdef Py_ssize_t ke = self._known_end(lo, hi)
        cdef Py_ssize_t n_zero = n_node - (hi - lo), K = self.n_outputs, S = self.n_stats
        cdef double w = 1.0, zero_weight = 0.0
        cdef double* sums = self.count_left + thread * self.scratch_row
        if n_zero > 0:
            memcpy(sums + 2 * (S + 16), stats, S * sizeof(double))
            zero_weight = weight
            for p in range(lo, hi):
                i = self.ids[p]
                if self.sw != NULL:
                    w = self.sw[i]
                zero_weight -= w
                add_outputs(sums + 2 * (S + 16), self.criterion, K, S // K, self.y_codes,
                            self.y_values, i, -w)
        pz = self._first_positive(lo, ke)
        self._scan_side(sums, f, pz, ke, n_zero, zero_weight, n_node, stats, weight, False,
                        best)
        if ke < hi:
            self._scan_side(sums, f, pz, ke, n_zero, zero_weight, n_node, stats, weight, True,
                            best)

    cdef void _move(self, double* cl, double* cr, Side* left, Side* right,
                    Py_ssize_t i) noexcept nogil:
        """Sample i from the right side to the left: one class count or one sum of
        w*y (``cl``'s first n_outputs values) per output, as the dense scans move it."""
        cdef Py_ssize_t K = self.n_outputs, k, stride = self.n_stats // self.n_outputs
        cdef double w = self.sw[i] if self.sw != NULL else 1.0
        if self.is_classifier:
            for k in range(K):
                clf_move_count(self.criterion, left, right, cl, cr,
                               k * stride + self.y_codes[i * K + k], w, self.xlogx_table)
        else:
            for k in range(K):
                cl[k] += w * self.y_values[i * K + k]
        left.w += w

    cdef void _scan_side(self, double* sums, Py_ssize_t f, Py_ssize_t pz, Py_ssize_t ke,
                         Py_ssize_t n_zero, double zero_weight, Py_ssize_t n_node,
                         const double* stats, double weight, bint missing_left,
                         SplitRecord* best) noexcept nogil:
        """The cuts of feature f with the missing values on one side: its known
        items in order (the negative entries, the zero block, the positive ones),
        a cut scored after each item whose next value differs (``tol``), and
        after the last one only with the missing values going right."""
        cdef Py_ssize_t lo = self.seg_lo[f], hi = self.seg_hi[f], p, k, c
        cdef Py_ssize_t K = self.n_outputs, S = self.n_stats, stride = S // K
        cdef Py_ssize_t n_left = 0
        cdef double* cl = sums              # (a thread's: see _scan)
        cdef double* cr = sums + (S + 16)
        cdef const double* zeros = sums + 2 * (S + 16)
        cdef const double* table = self.xlogx_table
        cdef const DTYPE_t* v = self.vals
        cdef int crit = self.criterion, cut, order
        cdef bint classes = self.is_classifier, zero_pending = n_zero > 0, has_next
        cdef bint missing_right = ke < hi and not missing_left
        cdef double tiny = tiny_weight(weight), wr, num, den, key, z
        cdef double w_node_entropy, wlogw, value_left, value_right
        cdef DTYPE_t cur, nxt = 0.0
        cdef signed char mono = self.monotonic[f] if self.monotonic != NULL else 0
        cdef Side left, right
        memset(cl, 0, S * sizeof(double))
        memcpy(cr, stats, S * sizeof(double))
        left.w = 0.0
        left.acc = 0.0
        right.w = weight
        right.acc = clf_side_acc(crit, stats, S, table) if classes else 0.0
        node_entropy_terms(crit, stats, S, weight, table, False, &wlogw, &w_node_entropy)
        if missing_left:
            for p in range(ke, hi):
                self._move(cl, cr, &left, &right, self.ids[p])
            n_left = hi - ke
        p = lo
        while True:
            # move the next known item
            if zero_pending and p == pz:
                zero_pending = False
                if classes:
                    for c in range(S):
                        z = zeros[c]
                        if z > 0.0:
                            clf_move_count(crit, &left, &right, cl, cr, c, z, table)
                else:
                    for k in range(K):
                        cl[k] += zeros[2 * k]
                left.w += zero_weight
                n_left += n_zero
                cur = 0.0
            elif p < ke:
                self._move(cl, cr, &left, &right, self.ids[p])
                n_left += 1
                cur = v[p]
                p += 1
            else:
                break
            has_next = (zero_pending and p == pz) or p < ke
            if has_next:
                nxt = 0.0 if (zero_pending and p == pz) else v[p]
                if nxt <= <DTYPE_t>(cur + self.tol):
                    continue
            elif not missing_right:
                break
            cut = check_cut(n_left, n_node, left.w, weight - left.w, self.settings.min_samples_leaf,
                            self.settings.min_weight_leaf, tiny)
            if cut == CUT_STOP:
                break
            if cut == CUT_PASS:
                continue
            wr = weight - left.w
            if classes:
                num = clf_proxy(crit, left.w, left.acc, wr, right.acc, w_node_entropy, wlogw,
                                table, <double>K, &den)
            else:
                num = reg_proxy_outputs(crit, left.w, cl, wr, stats, K, &den)
            order = compare_score(num, den, best)
            if order < 0:
                continue
            if mono != 0:
                value_left = cl[0] / left.w
                value_right = (cr[0] if classes else stats[0] - cl[0]) / wr
                if not monotonic_ok(mono, self.lower, self.upper, value_left, value_right):
                    continue
            if classes:
                key = sklearn_score(crit, cl, cr, stride, K, left.w, wr)
            else:
                for k in range(K):
                    cr[k] = stats[k * stride] - cl[k]
                key = sklearn_score(crit, cl, cr, 1, K, left.w, wr)
            if wins(order, key, best):
                record_candidate(best, num, den, f, missing_left, False, False)
                best.threshold = midpoint(cur, nxt) if has_next else INFINITY
                best.tie_key = key

    # ------------------------------------------------------------ splitter="random"
    # The dense splitter's random cuts (``_splitter._random_split``), the same
    # draws from the same generator: a feature's least and greatest value are the
    # ends of its segment and its zero block, and a cut's children cost one pass
    # over the feature's non-zeros in the node.

    cdef void _random_cut(self, const Node* node, Py_ssize_t f, const double* stats,
                          double weight_root, SplitRecord* best,
                          double* child_stats) noexcept nogil:
        """Feature f's random cut, drawn, scored and kept in ``best`` if admissible
        and better (exact ties as scikit-learn's rounded score sends them)."""
        cdef SplitRecord cut
        cdef Py_ssize_t n_left, n_node = node.end - node.start
        cdef Py_ssize_t lo = self.seg_lo[f], hi = self.seg_hi[f], ke
        cdef DTYPE_t least, greatest
        ke = self._known_end(lo, hi)
        least = self.vals[lo] if ke > lo else 0.0
        greatest = self.vals[ke - 1] if ke > lo else 0.0
        if n_node > hi - lo:
            least = min(least, <DTYPE_t>0.0)
            greatest = max(greatest, <DTYPE_t>0.0)
        clear_split(&cut, node.end)
        cut.feature = f
        cut.den = 1.0
        draw_numeric_cut(&cut, least, greatest, ke < hi, &self.draw.state)
        n_left = self._score_cut(node, stats, weight_root, &cut, child_stats)
        if not random_cut_admissible(&cut, n_left, n_node, child_stats, self.n_stats,
                                     self.criterion,
                                     self.monotonic[f] if self.monotonic != NULL else 0,
                                     self.lower, self.upper, self.settings.min_samples_leaf,
                                     self.settings.min_weight_leaf, node.weight):
            return
        cut.num = cut_proxy(self.criterion, stats, node.weight, child_stats,
                            cut.weight_left, self.n_stats, self.n_outputs,
                            self.xlogx_table, self.count_left, &cut.den)
        keep_random_cut(best, &cut, sklearn_score(
            self.criterion, child_stats, child_stats + self.n_stats,
            self.n_stats // self.n_outputs, self.n_outputs, cut.weight_left, cut.weight_right))

    cdef Py_ssize_t _score_cut(self, const Node* node, const double* stats, double weight_root,
                               SplitRecord* cut, double* child_stats) noexcept nogil:
        """A random cut's children and improvement, nothing marked: its left side
        summed from the feature's entries (the zero block as the node's statistics
        minus all entries'), the right side as the node's minus the left. Returns
        the left child's number of samples."""
        cdef Py_ssize_t f = cut.feature, S = self.n_stats, K = self.n_outputs
        cdef Py_ssize_t lo = self.seg_lo[f], hi = self.seg_hi[f], p, k, i, n_left = 0
        cdef Py_ssize_t n_zero = node.end - node.start - (hi - lo)
        cdef double* left = child_stats
        cdef double* right = child_stats + S
        cdef double* zeros = self.zero_stats
        cdef double weights[2]
        cdef double w = 1.0, zero_weight = node.weight
        cdef bint go_left
        memset(left, 0, S * sizeof(double))
        memcpy(zeros, stats, S * sizeof(double))
        weights[0] = 0.0
        for p in range(lo, hi):
            i = self.ids[p]
            if self.sw != NULL:
                w = self.sw[i]
            zero_weight -= w
            add_outputs(zeros, self.criterion, K, S // K, self.y_codes, self.y_values, i, -w)
            go_left = sparse_routes_left(cut, self.vals[p])
            if go_left:
                n_left += 1
                weights[0] += w
                add_outputs(left, self.criterion, K, S // K, self.y_codes, self.y_values, i, w)
        if n_zero > 0 and sparse_routes_left(cut, 0.0):
            n_left += n_zero
            weights[0] += zero_weight
            for k in range(S):
                left[k] += zeros[k]
        for k in range(S):
            right[k] = stats[k] - left[k]
        weights[1] = node.weight - weights[0]
        record_children(cut, self.criterion, node.start + n_left, child_stats, S, K, weights,
                        node.weight, node.impurity, weight_root)
        return n_left

    cdef bint _split_pair(self, Py_ssize_t start, const double* stats, double weight,
                          SplitRecord* best) noexcept nogil:
        """The dense ``_split_pair``: a regression node of two samples scores its two
        orientations once each, the features competing in visiting order."""
        # (kept duplicate: this splitter is the dense one's search over a sparse X's
        # non-zeros; its imports and this visiting loop read as the dense one's, and
        # only the reading of the pair's values, from the segments, differs)
        cdef Py_ssize_t i, f, p
        cdef int a = self.samples[start], b = self.samples[start + 1]
        cdef DTYPE_t va, vb
        cdef PairScan ps
        if not pairs_decide(self.is_classifier, &self.settings, self.monotonic):
            return False
        pair_begin(&ps)
        for i in range(self.draw.n_visit):
            if ps.scored[0] and ps.scored[1]:
                break
            f = self.draw.visit[i]
            va = 0.0
            vb = 0.0
            for p in range(self.seg_lo[f], self.seg_hi[f]):
                if self.ids[p] == a:
                    va = self.vals[p]
                else:
                    vb = self.vals[p]
            if is_nan(va) or is_nan(vb) or not pair_offer(
                    &ps, best, f, a if va < vb else b, b if va < vb else a,
                    midpoint(min(va, vb), max(va, vb)), self.criterion, self.sw,
                    self.y_values, stats, self.n_outputs, weight, self.count_left):
                clear_split(best, start + 2)
                return False
        return best.feature >= 0

    # ------------------------------------------------------------ the chosen split
    cdef void _finish_split(self, const Node* node, const double* stats, double weight_root,
                            SplitRecord* best, double* child_stats) noexcept nogil:
        """Route the node's samples, then the children's statistics and impurities
        (the dense ``finish_split``)."""
        cdef Py_ssize_t S = self.n_stats, n_left, n_node = node.end - node.start
        cdef Py_ssize_t hi = self.seg_hi[best.feature]
        cdef double weights[2]
        n_left = self._mark_sides(node.start, node.end, best, child_stats, child_stats + S,
                                  weights)
        if hi == self.seg_lo[best.feature] or not is_nan(self.vals[hi - 1]):
            # no missing value here: at predict NaN follows the larger child
            best.missing_left = n_left > n_node - n_left
        record_children(best, self.criterion, node.start + n_left, child_stats, S,
                        self.n_outputs, weights, node.weight, node.impurity, weight_root)

    cdef Py_ssize_t _mark_sides(self, Py_ssize_t start, Py_ssize_t end,
                                const SplitRecord* split, double* left_stats,
                                double* right_stats, double* weights) noexcept nogil:
        """Mark each sample's side and sum both children in the dense order of the
        split feature: its negative entries, its zeros (ascending by id), the rest."""
        cdef Py_ssize_t f = split.feature, lo = self.seg_lo[f], hi = self.seg_hi[f]
        cdef Py_ssize_t ke = self._known_end(lo, hi), pz = self._first_positive(lo, ke)
        cdef Py_ssize_t p, q, n_left = 0
        cdef int i
        memset(left_stats, 0, self.n_stats * sizeof(double))
        memset(right_stats, 0, self.n_stats * sizeof(double))
        weights[0] = 0.0
        weights[1] = 0.0
        for p in range(lo, pz):
            n_left += self._route(self.ids[p], sparse_routes_left(split, self.vals[p]),
                                  left_stats, right_stats, weights)
        for p in range(lo, hi):
            self.mark[self.ids[p]] = 1
        for q in range(start, end):
            i = self.samples[q]
            if not self.mark[i]:
                n_left += self._route(i, sparse_routes_left(split, 0.0), left_stats,
                                      right_stats, weights)
        for p in range(lo, hi):
            self.mark[self.ids[p]] = 0
        for p in range(pz, hi):
            n_left += self._route(self.ids[p], sparse_routes_left(split, self.vals[p]),
                                  left_stats, right_stats, weights)
        return n_left

    cdef bint _route(self, int i, bint go_left, double* left_stats, double* right_stats,
                            double* weights) noexcept nogil:
        cdef double w = self.sw[i] if self.sw != NULL else 1.0
        cdef Py_ssize_t K = self.n_outputs
        put_bit(self.goes_left, i, go_left)
        weights[0 if go_left else 1] += w
        add_outputs(left_stats if go_left else right_stats, self.criterion, K,
                    self.n_stats // K, self.y_codes, self.y_values, i, w)
        return go_left


def sorted_entries(X, int n_threads=1):
    """Each column's explicit non-zeros of a CSC X, sorted by value (NaN last; equal
    values by row), and the columns' bounds in them (``radix_sort_keys`` per
    column: linear time; columns on ``n_threads`` threads).

    Returns
    -------
    vals : ndarray (nnz,), float32
    ids : ndarray (nnz,), int32
        The row of each value.
    col_start : ndarray (n_features + 1,), intp
    """
    cdef Py_ssize_t d = X.shape[1], f, p, m
    cdef int T = max(1, min(n_threads, d))
    X = X.tocsc()         # (row selections of a fit's folds may come back unsorted)
    if not X.has_sorted_indices:
        X = X.sorted_indices()
    data = np.asarray(X.data, dtype=np.float32)
    rows = np.asarray(X.indices, dtype=np.int32)
    indptr = np.asarray(X.indptr, dtype=np.intp)
    col_start = np.zeros(d + 1, dtype=np.intp)
    cdef const DTYPE_t[::1] dv = data
    cdef const Py_ssize_t[::1] pv = indptr
    cdef Py_ssize_t[::1] cv = col_start
    with nogil:
        for f in range(d):
            m = 0
            for p in range(pv[f], pv[f + 1]):
                m += dv[p] != 0       # explicit zeros are zeros (NaN is kept)
            cv[f + 1] = cv[f] + m
    nnz = int(col_start[d])
    longest = int(np.diff(indptr).max(initial=0))
    vals = np.empty(nnz, dtype=np.float32)
    ids = np.empty(nnz, dtype=np.int32)
    keys = np.empty((T, 2, max(longest, 1)), dtype=np.uint32)
    order = np.empty((T, 2, max(longest, 1)), dtype=np.int32)
    hist = np.empty((T, 3 * RADIX_SIZE), dtype=np.intp)
    cdef const int[::1] rv = rows
    cdef DTYPE_t[::1] vv = vals
    cdef int[::1] iv = ids
    cdef unsigned int[:, :, ::1] kv = keys
    cdef int[:, :, ::1] ov = order
    cdef Py_ssize_t[:, ::1] hv = hist
    if T == 1 or nnz < PARALLEL_ENTRIES:
        with nogil:
            for f in range(d):
                sort_column(f, &dv[0] if dv.shape[0] else NULL, &rv[0] if rv.shape[0] else NULL,
                            &pv[0], &cv[0], &kv[0, 0, 0], &kv[0, 1, 0], &ov[0, 0, 0],
                            &ov[0, 1, 0], &hv[0, 0], &vv[0] if nnz else NULL,
                            &iv[0] if nnz else NULL)
    else:
        for f in prange(d, nogil=True, num_threads=T, schedule="dynamic"):
            sort_column(f, &dv[0], &rv[0], &pv[0], &cv[0], &kv[threadid(), 0, 0],
                        &kv[threadid(), 1, 0], &ov[threadid(), 0, 0], &ov[threadid(), 1, 0],
                        &hv[threadid(), 0], &vv[0], &iv[0])
    return vals, ids, col_start


cdef void sort_column(Py_ssize_t f, const DTYPE_t* data, const int* rows,
                      const Py_ssize_t* indptr, const Py_ssize_t* col_start,
                      unsigned int* keys_a, unsigned int* keys_b, int* ids_a, int* ids_b,
                      Py_ssize_t* hist, DTYPE_t* vals_out, int* ids_out) noexcept nogil:
    """Column f's non-zeros, sorted, into their place of the layout."""
    cdef Py_ssize_t p, m = 0
    for p in range(indptr[f], indptr[f + 1]):
        if data[p] != 0:
            keys_a[m] = float_key(data[p])
            ids_a[m] = rows[p]
            m += 1
    if m > 0:
        radix_sort_keys(keys_a, ids_a, m, keys_b, ids_b, hist, vals_out + col_start[f],
                        ids_out + col_start[f])
