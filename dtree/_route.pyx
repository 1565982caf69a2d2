# cython: language_level=3
"""Traversal of a fitted tree by its one routing rule (``_route.pxd``'s ``side``).

apply (dense rows in blocks, CSR rows where they are stored), decision paths,
C4.5's fractional predict, each split's training range, the surrogates'
routing of missing values, and partial dependence's weighted traversal. Readers
of a fitted ``Tree`` use these kernels; no builder is imported. Nodes are
packed into 32-byte records (``PackedNode``) walked without the GIL; category
sets are bitsets of CAT_WORDS 64-bit words.
"""
import numpy as np

from cython.parallel cimport prange

from libc.stdlib cimport free, malloc

from ._common cimport CAT_WORDS, DTYPE_t, bit_is_set

# the words of a category set, for Python readers
CATEGORY_SET_WORDS = CAT_WORDS

ctypedef Py_ssize_t intp_t


PACKED_NODE_DTYPE = np.dtype([("threshold", np.float64), ("feature", np.int32),
                              ("left", np.int32), ("right", np.int32),
                              ("missing_right", np.int32), ("cat", np.int32),
                              ("pad", np.int32)])

cdef enum:
    BLOCK = 8           # rows advanced together: independent loads overlap


def pack_nodes(left, right, feature, threshold, missing_go_to_left, categorical_set):
    """The traversal fields of every node in one structured array."""
    ids = np.arange(left.shape[0], dtype=np.int32)
    is_leaf = left < 0
    packed = np.zeros(left.shape[0], dtype=PACKED_NODE_DTYPE)
    packed["threshold"] = np.where(is_leaf, 0.0, threshold)
    packed["feature"] = np.where(is_leaf, 0, feature)
    packed["left"] = np.where(is_leaf, ids, left)
    packed["right"] = np.where(is_leaf, ids, right)
    packed["missing_right"] = np.where(is_leaf, 0, 1 - missing_go_to_left.astype(np.int32))
    packed["cat"] = np.where(is_leaf, -1, categorical_set)
    return packed


# Which block loop: one without a category test at every step where no node has a
# category set (a loop testing a flag at every step measured 15-20% slower: the
# compiler did not unswitch it), one with. A fused type makes the two at compile time.
cdef struct NumericSplits:
    char unused
cdef struct AnySplits:
    char unused
ctypedef fused splits_t:
    NumericSplits
    AnySplits


cdef void _apply_block(const splits_t* kind, const PackedNode* nodes,
                       const unsigned long long* sets, const DTYPE_t[:, :] X, Py_ssize_t start,
                       Py_ssize_t m, int* cur) noexcept nogil:
    # Advance m rows one level at a time until none of them moves: the rows'
    # dependent load chains are independent, so the CPU overlaps them.
    cdef Py_ssize_t r
    cdef int node, nxt, moved = 1
    cdef const PackedNode* p
    for r in range(m):
        cur[r] = 0
    while moved:
        moved = 0
        for r in range(m):
            node = cur[r]
            p = &nodes[node]
            if splits_t is NumericSplits:
                nxt = p.child[numeric_side(X[start + r, p.feature], p.threshold,
                                           p.missing_right)]
            else:
                nxt = step(p, X[start + r, p.feature], sets)
            moved |= nxt != node
            cur[r] = nxt


cdef inline void _route_block(const PackedNode* nodes, const unsigned long long* set_ptr,
                              bint numeric_only, const DTYPE_t[:, :] X, Py_ssize_t start,
                              Py_ssize_t m, int* cur) noexcept nogil:
    # a block of m rows through one tree, by the loop its splits need
    if numeric_only:
        _apply_block(<NumericSplits*> NULL, nodes, set_ptr, X, start, m, cur)
    else:
        _apply_block(<AnySplits*> NULL, nodes, set_ptr, X, start, m, cur)


cdef void _apply_rows(const PackedNode* nodes, const unsigned long long* set_ptr,
                      bint numeric_only, const DTYPE_t[:, :] X, Py_ssize_t lo, Py_ssize_t hi,
                      Py_ssize_t* leaves) noexcept nogil:
    cdef int cur[BLOCK]
    cdef Py_ssize_t start = lo, m, r
    while start < hi:
        m = min(<Py_ssize_t>BLOCK, hi - start)
        _route_block(nodes, set_ptr, numeric_only, X, start, m, cur)
        for r in range(m):
            leaves[start + r] = cur[r]
        start += m


cdef enum:
    PREDICT_CHUNK = 8192   # rows per thread task: large enough to pay for the task
    # Threads start only with this many chunks per thread: below it, starting
    # them costs about what they save (measured at 10,000 to 30,000 rows).
    CHUNKS_PER_THREAD = 4


def apply_packed(packed, sets, const DTYPE_t[:, :] X, int n_threads=1):
    """Leaf id reached by each row of X (float32, any strides), on n_threads."""
    assert packed.dtype == PACKED_NODE_DTYPE and packed.flags.c_contiguous
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef bint numeric_only = np.asarray(sets).size == 0
    cdef Py_ssize_t n = X.shape[0], chunk, n_chunks = (n + PREDICT_CHUNK - 1) // PREDICT_CHUNK
    out = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] leaves = out
    if n == 0:
        return out
    if n_threads <= 1 or n_chunks < CHUNKS_PER_THREAD * n_threads:
        with nogil:
            _apply_rows(nodes, set_ptr, numeric_only, X, 0, n, &leaves[0])
        return out
    for chunk in prange(n_chunks, nogil=True, num_threads=n_threads, schedule="static"):
        _apply_rows(nodes, set_ptr, numeric_only, X, chunk * PREDICT_CHUNK,
                    min(n, (chunk + 1) * PREDICT_CHUNK), &leaves[0])
    return out


def split_ranges(packed, sets, const DTYPE_t[:, :] X):
    """``(low, high)``: per node, the smallest and largest present value of its split
    feature over the rows of X that pass through it (routed as ``apply_packed``);
    +inf / -inf where none did (leaves, and nodes no row with a value reached)."""
    assert packed.dtype == PACKED_NODE_DTYPE and packed.flags.c_contiguous
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef Py_ssize_t n_nodes = packed.shape[0], n = X.shape[0], r, start = 0, m
    low = np.full(n_nodes, np.inf)
    high = np.full(n_nodes, -np.inf)
    cdef double[::1] lo = low, hi = high
    cdef int cur[BLOCK]
    cdef int node, nxt, moved
    cdef DTYPE_t x
    with nogil:
        # a block of rows one level at a time, as _apply_block (overlapped loads)
        while start < n:
            m = min(<Py_ssize_t>BLOCK, n - start)
            for r in range(m):
                cur[r] = 0
            moved = 1
            while moved:
                moved = 0
                for r in range(m):
                    node = cur[r]
                    x = X[start + r, nodes[node].feature]
                    nxt = step(&nodes[node], x, set_ptr)
                    if nxt != node:
                        moved = 1
                        cur[r] = nxt
                        if x < lo[node]:     # (NaN compares false: no effect)
                            lo[node] = x
                        if x > hi[node]:
                            hi[node] = x
            start += m
    return low, high


def cascade_branches(packed, sets, const Py_ssize_t[::1] links, const DTYPE_t[:, :] X,
                     const Py_ssize_t[::1] rows):
    """The branch each of ``rows`` of X takes at a split read whole (a multiway
    cascade's ``links``, head first; one node for a binary split), by the rule
    (``side``): the first link that sends it left, or ``len(links)`` past them
    all; -1 where its value is missing (C4.5's pruning shares such a case among
    the branches)."""
    assert packed.dtype == PACKED_NODE_DTYPE and packed.flags.c_contiguous
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const word_t* set_ptr = <const word_t*> &set_view[0, 0]
    cdef Py_ssize_t n = rows.shape[0], k = links.shape[0], i, j, node
    cdef DTYPE_t x
    for j in range(k):
        assert 0 <= links[j] < packed.shape[0]
        assert 0 <= nodes[links[j]].feature < X.shape[1]
    out = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = k
            for j in range(k):
                node = links[j]
                x = X[rows[i], nodes[node].feature]
                if x != x:
                    o[i] = -1
                    break
                if side(x, nodes[node].threshold, nodes[node].missing_right,
                        node_set(&nodes[node], set_ptr)) == 0:
                    o[i] = j
                    break
    return out


def _sets_or_dummy(sets):
    # a (0, CAT_WORDS) array has no first element to point at
    sets = np.ascontiguousarray(sets, dtype=np.uint64).reshape(-1, CAT_WORDS)
    return sets if sets.shape[0] else np.zeros((1, CAT_WORDS), dtype=np.uint64)


def decision_paths(const Py_ssize_t[::1] parent, const Py_ssize_t[::1] depth,
                   const Py_ssize_t[::1] leaves):
    """CSR pieces (indptr, indices) of the node indicator: each row's path from the
    root to its leaf (``apply``'s answer), read from the leaf up through ``parent``
    (-1 at the root), so dense and sparse rows share it."""
    cdef Py_ssize_t n = leaves.shape[0], i, pos, node
    indptr = np.zeros(n + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] ip = indptr
    for i in range(n):
        ip[i + 1] = ip[i] + depth[leaves[i]] + 1
    indices = np.empty(ip[n], dtype=np.intp)
    cdef Py_ssize_t[::1] ind = indices
    with nogil:
        for i in range(n):
            node = leaves[i]
            pos = ip[i + 1] - 1
            while node >= 0:
                ind[pos] = node
                pos -= 1
                node = parent[node]
    return indptr, indices


def predict_fractional(tree, const float[:, ::1] X):
    """Leaf values mixed as C4.5 classifies: a missing value follows every branch.

    At a split whose feature is missing (NaN), the case continues down both
    children with its weight multiplied by each child's share of the node's
    training weight; the result is the weighted sum of the leaf values reached.

    Returns
    -------
    ndarray of shape (n_samples, n_values)
    """
    cdef const intp_t[::1] left = np.ascontiguousarray(tree.children_left, dtype=np.intp)
    cdef const intp_t[::1] right = np.ascontiguousarray(tree.children_right, dtype=np.intp)
    cdef const intp_t[::1] feature = np.ascontiguousarray(tree.feature, dtype=np.intp)
    cdef const double[::1] threshold = np.ascontiguousarray(tree.threshold, dtype=np.float64)
    cdef const intp_t[::1] cat_row = np.ascontiguousarray(tree.categorical_set, dtype=np.intp)
    cdef const unsigned long long[:, ::1] sets = np.ascontiguousarray(
        tree.category_sets, dtype=np.uint64).reshape(-1, CAT_WORDS)
    cdef const double[::1] wn = np.ascontiguousarray(tree.scaled_weighted_n_node_samples,
                                                     dtype=np.float64)
    values = np.ascontiguousarray(tree.value[:, 0, :], dtype=np.float64)
    cdef const double[:, ::1] vv = values
    cdef intp_t n = X.shape[0], K = values.shape[1], n_nodes = left.shape[0]
    out = np.zeros((n, K), dtype=np.float64)
    cdef double[:, ::1] ov = out
    cdef intp_t* nodes = <intp_t*> malloc((n_nodes + 2) * sizeof(intp_t))
    cdef double* mass = <double*> malloc((n_nodes + 2) * sizeof(double))
    cdef intp_t i, k, top, node, l, r
    cdef double w, total
    cdef DTYPE_t x
    cdef bint go_left
    if nodes == NULL or mass == NULL:
        free(nodes)
        free(mass)
        raise MemoryError()
    with nogil:
        for i in range(n):
            top = 1
            nodes[0] = 0
            mass[0] = 1.0
            while top > 0:
                top -= 1
                node = nodes[top]
                w = mass[top]
                l = left[node]
                if l < 0:
                    for k in range(K):
                        ov[i, k] += w * vv[node, k]
                    continue
                r = right[node]
                x = X[i, feature[node]]
                if x != x:
                    total = wn[l] + wn[r]
                    nodes[top] = r
                    mass[top] = w * (wn[r] / total if total > 0 else 0.5)
                    nodes[top + 1] = l
                    mass[top + 1] = w * (wn[l] / total if total > 0 else 0.5)
                    top += 2
                    continue
                go_left = side(x, threshold[node], 0,
                               &sets[cat_row[node], 0] if cat_row[node] >= 0 else NULL) == 0
                nodes[top] = l if go_left else r
                mass[top] = w
                top += 1
    free(nodes)
    free(mass)
    return out



# ------------------------------------------------------------ sparse rows (CSR)
# A row of a CSR matrix is read where it is stored: a feature's value is found by
# bisection among the row's column indices (sorted, no duplicates: the caller's
# canonical CSR), 0 where the column is not stored. Nothing is densified.

cdef inline DTYPE_t csr_value(const int* indices, const DTYPE_t* data, Py_ssize_t lo,
                              Py_ssize_t end, int f) noexcept nogil:
    cdef Py_ssize_t hi = end, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < f:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and indices[lo] == f:
        return data[lo]
    return 0.0


cdef inline int csr_step(const PackedNode* nodes, int node, const unsigned long long* sets,
                         const int* indices, const DTYPE_t* data, Py_ssize_t lo,
                         Py_ssize_t end) noexcept nogil:
    # the child a sparse row goes to from node (the node itself at a leaf)
    return step(&nodes[node], csr_value(indices, data, lo, end, nodes[node].feature), sets)


def apply_csr(packed, sets, const Py_ssize_t[::1] indptr, const int[::1] indices,
              const DTYPE_t[::1] data, int n_threads=1):
    """Leaf id reached by each row of a canonical float32 CSR matrix, on n_threads."""
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef Py_ssize_t n = indptr.shape[0] - 1, i
    cdef const int* ind = &indices[0] if indices.shape[0] else NULL
    cdef const DTYPE_t* dat = &data[0] if data.shape[0] else NULL
    cdef int node, nxt, threads
    out = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] leaves = out
    if n == 0:
        return out
    # (threads only where the rows pay for starting them, as for dense rows)
    threads = n_threads if n >= CHUNKS_PER_THREAD * PREDICT_CHUNK * n_threads else 1
    for i in prange(n, nogil=True, num_threads=threads, schedule="static"):
        node = 0
        nxt = csr_step(nodes, node, set_ptr, ind, dat, indptr[i], indptr[i + 1])
        while nxt != node:
            node = nxt
            nxt = csr_step(nodes, node, set_ptr, ind, dat, indptr[i], indptr[i + 1])
        leaves[i] = node
    return out


# ------------------------------------------------------------ surrogates
def apply_surrogates(packed, sets, const Py_ssize_t[::1] start, const Py_ssize_t[::1] feature,
                     const double[::1] threshold, const Py_ssize_t[::1] category_set,
                     const Py_ssize_t[::1] decided_set, const unsigned char[::1] goes_left,
                     const DTYPE_t[:, :] X):
    """Leaf id of each row of X, a missing primary value routed by surrogates (rpart's
    ``usesurrogate=2``).

    At a split whose feature the row lacks, the node's surrogates (rows
    ``start[node]`` to ``start[node + 1]`` of the other arrays, best first) are
    tried in order: the first whose feature the row has (a category surrogate:
    among the codes it decides, ``decided_set``) sends it the way its test
    (``side``) and direction (``goes_left``: rows passing go left) say; with
    none, the split's own missing side (the majority, ``missing_right``).
    """
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef Py_ssize_t n = X.shape[0], i, s
    cdef int node, nxt, passes
    cdef DTYPE_t x, v
    cdef const PackedNode* p
    out = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] leaves = out
    with nogil:
        for i in range(n):
            node = 0
            while True:
                p = &nodes[node]
                x = X[i, p.feature]
                if x == x or p.child[0] == node:
                    nxt = step(p, x, set_ptr)
                else:
                    nxt = p.child[p.missing_right]
                    for s in range(start[node], start[node + 1]):
                        v = X[i, feature[s]]
                        if v != v or (decided_set[s] >= 0 and side(
                                v, threshold[s], 0, set_ptr + decided_set[s] * CAT_WORDS)):
                            continue
                        passes = side(v, threshold[s], 0, set_ptr + category_set[s] * CAT_WORDS
                                      if category_set[s] >= 0 else NULL) == 0
                        nxt = p.child[0 if passes == goes_left[s] else 1]
                        break
                if nxt == node:
                    break
                node = nxt
            leaves[i] = node
    return out


# ------------------------------------------------------------ partial dependence
def partial_dependence(packed, sets, const double[::1] weighted_n, const double[:, ::1] values,
                       const DTYPE_t[:, ::1] grid, const Py_ssize_t[::1] targets):
    """Friedman's weighted traversal for every grid point: (n_grid, n_values).

    At a split on a target feature (``targets``: the feature of each grid
    column) the grid point's value goes the way ``side`` sends it; any other
    split weighs both children by their training weights (``weighted_n``). One
    pass in node order carries each node's weight down (children are numbered
    after their parents in both growth orders).
    """
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef Py_ssize_t n_nodes = packed.shape[0], n_grid = grid.shape[0], g, node, j, k
    cdef Py_ssize_t n_targets = targets.shape[0], K = values.shape[1], column
    cdef double w, share
    cdef int to
    cdef const PackedNode* p
    out = np.zeros((n_grid, K), dtype=np.float64)
    weight = np.zeros(n_nodes, dtype=np.float64)
    cdef double[:, ::1] ov = out
    cdef double[::1] wv = weight
    with nogil:
        for g in range(n_grid):
            for node in range(n_nodes):
                wv[node] = 0.0
            wv[0] = 1.0
            for node in range(n_nodes):
                p = &nodes[node]
                w = wv[node]
                if p.child[0] == node:      # a leaf
                    for k in range(K):
                        ov[g, k] += w * values[node, k]
                    continue
                column = -1
                for j in range(n_targets):
                    if targets[j] == p.feature:
                        column = j
                if column >= 0:
                    to = side(grid[g, column], p.threshold, p.missing_right,
                              node_set(p, set_ptr))
                    wv[p.child[0]] = w * (1.0 - to)
                    wv[p.child[1]] = w * to
                else:
                    share = (weighted_n[p.child[0]] / weighted_n[node]
                             if weighted_n[node] > 0 else 0.5)
                    wv[p.child[0]] = w * share
                    wv[p.child[1]] = w * (1.0 - share)
    return out


# ------------------------------------------------------------------ forests
cdef void _forest_rows(const PackedNode* nodes, const unsigned long long* set_ptr,
                       bint numeric_only, const Py_ssize_t* roots, Py_ssize_t n_trees,
                       const double* values, Py_ssize_t width, const DTYPE_t[:, :] X,
                       Py_ssize_t lo, Py_ssize_t hi, double* out) noexcept nogil:
    # rows [lo, hi) through every tree, tree by tree (the tree's upper nodes stay
    # in cache over the rows), each leaf's values added to the row's sums
    cdef int cur[BLOCK]
    cdef Py_ssize_t t, start, m, r, k
    cdef const PackedNode* tree
    cdef const double* v
    cdef double* row
    for t in range(n_trees):
        tree = nodes + roots[t]
        start = lo
        while start < hi:
            m = min(<Py_ssize_t>BLOCK, hi - start)
            _route_block(tree, set_ptr, numeric_only, X, start, m, cur)
            for r in range(m):
                v = values + (roots[t] + cur[r]) * width
                row = out + (start + r) * width
                for k in range(width):
                    row[k] += v[k]
            start += m


def forest_sum(packed, sets, const Py_ssize_t[::1] roots, const double[:, ::1] values,
               const DTYPE_t[:, :] X, int n_threads=1):
    """Each row's sum over the trees of its leaf's values, in tree order.

    ``packed``: every tree's packed nodes, concatenated (children numbered within
    their tree; tree t's nodes start at ``roots[t]``; category set rows numbered
    in the concatenated ``sets``); ``values``: a row of ``width`` values per node,
    concatenated alike. Rows are split over n_threads in chunks.
    """
    assert packed.dtype == PACKED_NODE_DTYPE and packed.flags.c_contiguous
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef bint numeric_only = np.asarray(sets).size == 0
    cdef Py_ssize_t n = X.shape[0], width = values.shape[1], n_trees = roots.shape[0]
    cdef Py_ssize_t chunk, n_chunks = (n + PREDICT_CHUNK - 1) // PREDICT_CHUNK
    out = np.zeros((n, width), dtype=np.float64)
    cdef double[:, ::1] out_view = out
    if n == 0 or n_trees == 0 or width == 0:
        return out
    if n_threads <= 1 or n_chunks < 2:
        with nogil:
            _forest_rows(nodes, set_ptr, numeric_only, &roots[0], n_trees, &values[0, 0],
                         width, X, 0, n, &out_view[0, 0])
        return out
    for chunk in prange(n_chunks, nogil=True, num_threads=n_threads, schedule="dynamic"):
        _forest_rows(nodes, set_ptr, numeric_only, &roots[0], n_trees, &values[0, 0], width,
                     X, chunk * PREDICT_CHUNK, min(n, (chunk + 1) * PREDICT_CHUNK),
                     &out_view[0, 0])
    return out


def pack_tree_into(packed, Py_ssize_t offset, const Py_ssize_t[::1] left,
                   const Py_ssize_t[::1] right, const Py_ssize_t[::1] feature,
                   const double[::1] threshold, const unsigned char[::1] missing_go_to_left,
                   const Py_ssize_t[::1] categorical_set, Py_ssize_t set_base):
    """``pack_nodes`` of one tree written into rows [offset, offset + node count) of a
    forest's packed array (children numbered within the tree; category set rows
    shifted by ``set_base``), in one typed pass."""
    assert packed.dtype == PACKED_NODE_DTYPE and packed.flags.c_contiguous
    cdef unsigned char[::1] raw = packed.view(np.uint8)
    cdef Py_ssize_t n = left.shape[0], i
    if offset < 0 or offset + n > packed.shape[0]:
        raise ValueError("the tree does not fit the packed array")
    cdef PackedNode* nodes = (<PackedNode*> &raw[0]) + offset
    with nogil:
        for i in range(n):
            if left[i] < 0:
                nodes[i].threshold = 0.0
                nodes[i].feature = 0
                nodes[i].child[0] = <int>i
                nodes[i].child[1] = <int>i
                nodes[i].missing_right = 0
                nodes[i].cat = -1
            else:
                nodes[i].threshold = threshold[i]
                nodes[i].feature = <int>feature[i]
                nodes[i].child[0] = <int>left[i]
                nodes[i].child[1] = <int>right[i]
                nodes[i].missing_right = 1 - missing_go_to_left[i]
                nodes[i].cat = <int>(categorical_set[i] + set_base) \
                    if categorical_set[i] >= 0 else -1
            nodes[i].pad = 0
