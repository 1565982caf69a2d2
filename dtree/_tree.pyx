# cython: language_level=3
"""Tree builders (depth-first and best-first) and flat node storage.

The builders drive a ``Splitter`` node by node without the GIL and write the
nodes into numpy columns in scikit-learn's layout, which ``to_arrays`` hands
to Python without copying. Node ids follow scikit-learn: depth-first
growth numbers nodes in pre-order (left child first); best-first growth numbers
a node when its parent is expanded.
"""
import numpy as np
cimport numpy as cnp

cnp.import_array()

from cython.parallel cimport prange

from libc.stdlib cimport free, malloc, realloc
from libc.math cimport NAN
from libc.string cimport memcpy, memset

from ._criterion cimport node_impurity
from ._common cimport CAT_WORDS, DTYPE_t, below_min_decrease, clear_bit, set_bit
from ._splitter cimport SplitRecord, Splitter



cdef struct StackRecord:
    Py_ssize_t start, end, depth, parent
    bint is_left
    double impurity
    double weight
    Py_ssize_t forced_feature   # >= 0: a multiway cascade step on this feature, codes in the pool


_COLUMNS = (("children_left", np.intp), ("children_right", np.intp),
            ("feature", np.intp), ("threshold", np.float64), ("impurity", np.float64),
            ("n_node_samples", np.intp), ("weighted_n_node_samples", np.float64),
            ("depth", np.intp), ("missing_go_to_left", np.uint8),
            ("categorical_set", np.intp))


cdef enum:
    # Node columns start with room for this many nodes (or the tree's bound, if
    # smaller) and double: allocating the bound of a deep tree up front would
    # claim far more than most trees use.
    INITIAL_NODES = 1 << 16


cdef void* _data(a):
    cdef cnp.ndarray arr = a
    return cnp.PyArray_DATA(arr)


cdef class NodeStore:
    """Node columns plus a row of node statistics per node (see _tree.pxd)."""

    def __cinit__(self, Py_ssize_t n_stats, Py_ssize_t capacity=64, bint pending=False):
        # capacity: nodes to allocate at first; the columns double from there
        # (a realloc each, in place for large blocks). pending: room for the
        # best-first builder's pending children statistics.
        self.n_stats = n_stats
        self.count = 0
        self.child_stats = NULL
        self.cat_sets = NULL
        self.columns = {}
        self._allocate(max(capacity, 1))
        if pending:
            self.child_stats = <double*> malloc(2 * self.capacity * n_stats * sizeof(double))
        self.n_sets = 0
        self.sets_capacity = 16
        self.cat_sets = <unsigned long long*> malloc(
            self.sets_capacity * CAT_WORDS * sizeof(unsigned long long))
        if (pending and self.child_stats == NULL) or self.cat_sets == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.child_stats)
        free(self.cat_sets)

    cdef _allocate(self, Py_ssize_t capacity):
        """Allocate (or, keeping the nodes so far, enlarge) every column to ``capacity`` nodes."""
        cdef object rows = (capacity,), table = (capacity, self.n_stats)
        if not self.columns:
            for name, dtype in _COLUMNS + (("stats", np.float64),):
                self.columns[name] = np.empty(table if name == "stats" else rows, dtype=dtype)
        else:
            for name, column in self.columns.items():
                # realloc: a large block is remapped rather than copied, and the
                # old and the new columns never coexist
                column.resize(table if name == "stats" else rows, refcheck=False)
        self.capacity = capacity
        c = self.columns
        self.left = <Py_ssize_t*> _data(c["children_left"])
        self.right = <Py_ssize_t*> _data(c["children_right"])
        self.feature = <Py_ssize_t*> _data(c["feature"])
        self.threshold = <double*> _data(c["threshold"])
        self.impurity = <double*> _data(c["impurity"])
        self.n_samples = <Py_ssize_t*> _data(c["n_node_samples"])
        self.weighted_n = <double*> _data(c["weighted_n_node_samples"])
        self.depth = <Py_ssize_t*> _data(c["depth"])
        self.missing_left = <unsigned char*> _data(c["missing_go_to_left"])
        self.cat = <Py_ssize_t*> _data(c["categorical_set"])
        self.stats = <double*> _data(c["stats"])

    cdef bint _grow(self) noexcept nogil:
        cdef Py_ssize_t cap = self.capacity * 2
        cdef double* pending
        if self.child_stats != NULL:
            pending = <double*> realloc(self.child_stats, 2 * cap * self.n_stats * sizeof(double))
            if pending == NULL:
                return False
            self.child_stats = pending
        with gil:
            try:
                self._allocate(cap)
            except MemoryError:
                return False
        return True

    cdef Py_ssize_t add(self, Py_ssize_t parent, bint is_left, Py_ssize_t depth,
                        double impurity, Py_ssize_t n, double weight,
                        const double* stats) noexcept nogil:
        """Append a leaf; returns its id, or -1 when memory ran out."""
        if self.count == self.capacity and not self._grow():
            return -1
        cdef Py_ssize_t node_id = self.count
        self.left[node_id] = LEAF
        self.right[node_id] = LEAF
        self.feature[node_id] = -2
        self.threshold[node_id] = -2.0
        self.impurity[node_id] = impurity
        self.n_samples[node_id] = n
        self.weighted_n[node_id] = weight
        self.depth[node_id] = depth
        self.missing_left[node_id] = False
        self.cat[node_id] = -1
        memcpy(self.stats + node_id * self.n_stats, stats, self.n_stats * sizeof(double))
        if parent >= 0:
            if is_left:
                self.left[parent] = node_id
            else:
                self.right[parent] = node_id
        self.count += 1
        return node_id

    cdef bint set_split(self, Py_ssize_t node_id, const SplitRecord* split) noexcept nogil:
        """Record the split of a node; False when memory for a category set ran out."""
        cdef unsigned long long* grown
        self.feature[node_id] = split.feature
        self.threshold[node_id] = split.threshold
        self.missing_left[node_id] = split.missing_left
        if split.categorical:
            if self.n_sets == self.sets_capacity:
                grown = <unsigned long long*> realloc(
                    self.cat_sets, 2 * self.sets_capacity * CAT_WORDS * sizeof(unsigned long long))
                if grown == NULL:
                    return False
                self.cat_sets = grown
                self.sets_capacity *= 2
            memcpy(self.cat_sets + self.n_sets * CAT_WORDS, split.cat_left,
                   CAT_WORDS * sizeof(unsigned long long))
            self.cat[node_id] = self.n_sets
            self.n_sets += 1
        return True

    def to_arrays(self):
        """The nodes as numpy arrays (scikit-learn's names, raw statistics).

        The columns are handed over, shrunk in place to the node count (no
        copy), and the store is empty afterwards.
        """
        cdef Py_ssize_t n = self.count
        cdef object rows = (n,), table = (n, self.n_stats)
        out = self.columns
        self.columns = {}
        self.count = 0
        self.capacity = 0
        for name, column in out.items():
            # realloc to the used size: the memory stays where it is
            column.resize(table if name == "stats" else rows, refcheck=False)
        sets = np.empty((self.n_sets, CAT_WORDS), dtype=np.uint64)
        cdef unsigned long long[:, ::1] setv = sets
        if self.n_sets > 0:
            memcpy(&setv[0, 0], self.cat_sets,
                   self.n_sets * CAT_WORDS * sizeof(unsigned long long))
        out["category_sets"] = sets
        return out


cpdef Py_ssize_t bound_leaves(Py_ssize_t max_leaf_nodes, Py_ssize_t n_samples) noexcept:
    """``max_leaf_nodes`` bounded by the leaves ``n_samples`` allow (-1 stays -1)."""
    if max_leaf_nodes > 0 and max_leaf_nodes > n_samples:
        return max(n_samples, 2)
    return max_leaf_nodes


def initial_capacity(Py_ssize_t n_samples, Py_ssize_t max_depth, Py_ssize_t min_samples_leaf,
                     Py_ssize_t max_leaf_nodes=-1):
    """Nodes to allocate at first: the most the tree can have, up to INITIAL_NODES."""
    cdef Py_ssize_t leaves = max(1, n_samples // max(min_samples_leaf, 1))
    if max_depth < 16:
        leaves = min(leaves, (<Py_ssize_t> 1) << max_depth)
    if max_leaf_nodes > 0:
        leaves = min(leaves, max_leaf_nodes)
    return min(2 * leaves - 1, <Py_ssize_t> INITIAL_NODES)


def build_tree(Splitter splitter, *, Py_ssize_t max_depth, Py_ssize_t min_samples_split,
               Py_ssize_t min_samples_leaf, double min_weight_leaf,
               double min_impurity_decrease, Py_ssize_t max_leaf_nodes=-1,
               capacity=None):
    """Grow a tree: depth-first, or best-first when ``max_leaf_nodes`` > 0.

    ``capacity`` (nodes to allocate up front) defaults to ``initial_capacity``;
    tests pass a small one to exercise the growth of the arrays.

    Returns
    -------
    dict of ndarray
        See ``NodeStore.to_arrays``.
    """
    cdef Limits lim = make_limits(max_depth, min_samples_split, min_samples_leaf,
                                  min_weight_leaf, min_impurity_decrease)
    # A tree has at most as many leaves as samples: bounding the frontier by the
    # data keeps its size computation from wrapping, whatever the caller passes.
    max_leaf_nodes = bound_leaves(max_leaf_nodes, splitter.n_samples)
    if capacity is None:
        capacity = initial_capacity(splitter.n_samples, max_depth, min_samples_leaf,
                                    max_leaf_nodes)
    store = NodeStore(splitter.n_stats, capacity, max_leaf_nodes > 0)
    cdef int rc
    if max_leaf_nodes > 0:
        rc = _grow_best_first(splitter, store, &lim, max_leaf_nodes)
    else:
        rc = _grow_depth_first(splitter, store, &lim)
    if rc != 0:
        raise MemoryError("could not allocate memory for the tree")
    return store.to_arrays()


cdef inline int lowest_code(const unsigned long long* bits) noexcept nogil:
    cdef int word, b
    for word in range(CAT_WORDS):
        if bits[word]:
            b = 0
            while not ((bits[word] >> b) & 1):
                b += 1
            return word * 64 + b
    return -1


cdef inline int count_codes(const unsigned long long* bits) noexcept nogil:
    cdef int word, n = 0
    cdef unsigned long long x
    for word in range(CAT_WORDS):
        x = bits[word]
        while x:
            x &= x - 1
            n += 1
    return n


cdef int _grow_depth_first(Splitter splitter, NodeStore store, const Limits* lim) except -1:
    cdef Py_ssize_t S = splitter.n_stats
    cdef Py_ssize_t stack_cap = 64, sp = 0, node_id, n
    cdef StackRecord* stack = <StackRecord*> malloc(stack_cap * sizeof(StackRecord))
    cdef double* pool = <double*> malloc(stack_cap * S * sizeof(double))
    # codes still to peel off, for records that are multiway cascade steps
    cdef unsigned long long* rest_pool = <unsigned long long*> malloc(
        stack_cap * CAT_WORDS * sizeof(unsigned long long))
    cdef double* node_stats = <double*> malloc(3 * S * sizeof(double))
    cdef double* left_stats = node_stats + S      # node_split writes left then right
    cdef double* right_stats = node_stats + 2 * S
    cdef unsigned long long rest[CAT_WORDS]
    cdef StackRecord rec
    cdef SplitRecord split
    cdef double weight_root
    cdef bint is_leaf, left_leaf, right_leaf, has_nan
    cdef Py_ssize_t right_forced, code
    cdef DTYPE_t v_last
    cdef int rc = 0
    cdef void* grown
    if stack == NULL or pool == NULL or node_stats == NULL or rest_pool == NULL:
        free(stack)
        free(pool)
        free(rest_pool)
        free(node_stats)
        raise MemoryError()

    with nogil:
        splitter.root_stats(pool, &weight_root)
        stack[0].start = 0
        stack[0].end = splitter.n_samples
        stack[0].depth = 0
        stack[0].parent = -1
        stack[0].is_left = False
        stack[0].impurity = node_impurity(splitter.criterion, pool, S, weight_root)
        stack[0].weight = weight_root
        stack[0].forced_feature = -1
        sp = 1
        while sp > 0:
            sp -= 1
            rec = stack[sp]
            memcpy(node_stats, pool + sp * S, S * sizeof(double))
            memcpy(rest, rest_pool + sp * CAT_WORDS, CAT_WORDS * sizeof(unsigned long long))
            n = rec.end - rec.start
            is_leaf = is_leaf_by_size(lim, n, rec.weight, rec.depth, rec.impurity)
            node_id = store.add(rec.parent, rec.is_left, rec.depth, rec.impurity, n,
                                rec.weight, node_stats)
            if node_id < 0:
                rc = 1
                break
            if is_leaf:
                continue
            if rec.forced_feature >= 0:
                # a step of a multiway split: peel off the lowest remaining code
                split.feature = rec.forced_feature
                split.categorical = True
                split.multiway = False
                split.missing_left = False
                split.threshold = NAN
                memset(split.cat_left, 0, CAT_WORDS * sizeof(unsigned long long))
                code = lowest_code(rest)
                set_bit(split.cat_left, code)  # (cat_left was cleared above)
                clear_bit(rest, code)
                splitter.finish_split(rec.start, rec.end, node_stats, rec.weight,
                                      rec.impurity, weight_root, &split, left_stats)
            else:
                if (not splitter.node_split(rec.start, rec.end, node_stats, rec.weight,
                                            rec.impurity, weight_root, &split, left_stats)
                        or below_min_decrease(split.improvement, lim.min_impurity_decrease)):
                    continue
                if split.multiway:
                    memcpy(rest, split.cat_rest, CAT_WORDS * sizeof(unsigned long long))
            right_forced = -1
            if split.multiway or rec.forced_feature >= 0:
                # the right child is another cascade step while it holds two groups
                v_last = splitter.vals[split.feature * splitter.n_samples + rec.end - 1]
                has_nan = v_last != v_last
                if count_codes(rest) + has_nan >= 2:
                    right_forced = split.feature

            if not store.set_split(node_id, &split):
                rc = 1
                break
            left_leaf = is_leaf_by_size(lim, split.pos - rec.start, split.weight_left,
                                        rec.depth + 1, split.impurity_left)
            right_leaf = is_leaf_by_size(lim, rec.end - split.pos, split.weight_right,
                                         rec.depth + 1, split.impurity_right)
            if not (left_leaf and right_leaf):
                splitter.partition(rec.start, rec.end, &split)

            if sp + 2 > stack_cap:
                stack_cap *= 2
                grown = realloc(stack, stack_cap * sizeof(StackRecord))
                if grown == NULL:
                    rc = 1
                    break
                stack = <StackRecord*> grown
                grown = realloc(pool, stack_cap * S * sizeof(double))
                if grown == NULL:
                    rc = 1
                    break
                pool = <double*> grown
                grown = realloc(rest_pool, stack_cap * CAT_WORDS * sizeof(unsigned long long))
                if grown == NULL:
                    rc = 1
                    break
                rest_pool = <unsigned long long*> grown
            # Right first, so the left child is popped (and numbered) first.
            stack[sp].start = split.pos
            stack[sp].end = rec.end
            stack[sp].depth = rec.depth + 1
            stack[sp].parent = node_id
            stack[sp].is_left = False
            stack[sp].impurity = split.impurity_right
            stack[sp].weight = split.weight_right
            stack[sp].forced_feature = right_forced
            memcpy(pool + sp * S, right_stats, S * sizeof(double))
            memcpy(rest_pool + sp * CAT_WORDS, rest, CAT_WORDS * sizeof(unsigned long long))
            sp += 1
            stack[sp].start = rec.start
            stack[sp].end = split.pos
            stack[sp].depth = rec.depth + 1
            stack[sp].parent = node_id
            stack[sp].is_left = True
            stack[sp].impurity = split.impurity_left
            stack[sp].weight = split.weight_left
            stack[sp].forced_feature = -1
            memcpy(pool + sp * S, left_stats, S * sizeof(double))
            sp += 1

    free(stack)
    free(pool)
    free(rest_pool)
    free(node_stats)
    return rc


cdef int _add_frontier_node(Splitter splitter, NodeStore store, const Limits* lim,
                            Py_ssize_t start, Py_ssize_t end, Py_ssize_t depth,
                            Py_ssize_t parent, bint is_left, double impurity, double weight,
                            double weight_root, const double* stats,
                            FrontierRecord* out) noexcept nogil:
    """Add a node and compute its split now (scikit-learn's best-first order)."""
    cdef Py_ssize_t n = end - start
    cdef bint is_leaf = is_leaf_by_size(lim, n, weight, depth, impurity)
    cdef Py_ssize_t node_id = store.add(parent, is_left, depth, impurity, n, weight, stats)
    if node_id < 0:
        return 1
    out.node_id = node_id
    out.start = start
    out.end = end
    out.depth = depth
    if not is_leaf:
        is_leaf = (not splitter.node_split(start, end, store.stats + node_id * store.n_stats,
                                           weight, impurity, weight_root, &out.split,
                                           store.child_stats + 2 * node_id * store.n_stats)
                   or below_min_decrease(out.split.improvement, lim.min_impurity_decrease))
    out.is_leaf = is_leaf
    out.improvement = 0.0 if is_leaf else out.split.improvement
    return 0


cdef int _grow_best_first(Splitter splitter, NodeStore store, const Limits* lim,
                          Py_ssize_t max_leaf_nodes) except -1:
    cdef Py_ssize_t S = splitter.n_stats
    # Each expansion pops one record and pushes two: the frontier never holds
    # more than max_leaf_nodes records.
    cdef FrontierRecord* heap = <FrontierRecord*> malloc(
        (max_leaf_nodes + 1) * sizeof(FrontierRecord))
    cdef double* buf = <double*> malloc(3 * S * sizeof(double))
    cdef double* node_stats = buf
    cdef double* child_stats = buf + S
    cdef Py_ssize_t size = 0, budget = max_leaf_nodes - 1
    cdef FrontierRecord rec, left_rec, right_rec
    cdef double weight_root, impurity_root
    cdef bint left_leaf, right_leaf
    cdef int rc = 0
    if heap == NULL or buf == NULL:
        free(heap)
        free(buf)
        raise MemoryError()

    with nogil:
        splitter.root_stats(node_stats, &weight_root)
        impurity_root = node_impurity(splitter.criterion, node_stats, S, weight_root)
        rc = _add_frontier_node(splitter, store, lim, 0, splitter.n_samples, 0, -1, False,
                                impurity_root, weight_root, weight_root, node_stats, &rec)
        if rc == 0:
            frontier_push(heap, &size, &rec)
        while rc == 0 and size > 0 and budget > 0:
            frontier_pop(heap, &size, &rec)
            if rec.is_leaf:
                continue
            budget -= 1
            if not store.set_split(rec.node_id, &rec.split):
                rc = 1
                break
            left_leaf = is_leaf_by_size(lim, rec.split.pos - rec.start, rec.split.weight_left,
                                        rec.depth + 1, rec.split.impurity_left)
            right_leaf = is_leaf_by_size(lim, rec.end - rec.split.pos, rec.split.weight_right,
                                         rec.depth + 1, rec.split.impurity_right)
            if not (left_leaf and right_leaf):
                splitter.partition(rec.start, rec.end, &rec.split)
            # the store may move when it grows: copy the children's statistics first
            memcpy(child_stats, store.child_stats + 2 * rec.node_id * S, 2 * S * sizeof(double))
            rc = _add_frontier_node(splitter, store, lim, rec.start, rec.split.pos,
                                    rec.depth + 1, rec.node_id, True, rec.split.impurity_left,
                                    rec.split.weight_left, weight_root, child_stats, &left_rec)
            if rc != 0:
                break
            rc = _add_frontier_node(splitter, store, lim, rec.split.pos, rec.end,
                                    rec.depth + 1, rec.node_id, False, rec.split.impurity_right,
                                    rec.split.weight_right, weight_root, child_stats + S, &right_rec)
            if rc != 0:
                break
            frontier_push(heap, &size, &left_rec)
            frontier_push(heap, &size, &right_rec)

    free(heap)
    free(buf)
    return rc
