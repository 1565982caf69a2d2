# cython: language_level=3
"""Flat node storage: the nodes every grower writes, in scikit-learn's layout.

The growers (``_grow``'s over the exact, sparse and histogram splitters, and C4.5's)
append nodes and record splits here; ``to_arrays`` hands the numpy columns to
Python without copying.
"""
import numpy as np
cimport numpy as cnp

cnp.import_array()

from libc.stdlib cimport free, malloc, realloc
from libc.math cimport NAN
from libc.string cimport memcpy

from ._common cimport CAT_WORDS


_COLUMNS = (("children_left", np.intp), ("children_right", np.intp),
            ("feature", np.intp), ("threshold", np.float64), ("impurity", np.float64),
            ("n_node_samples", np.intp), ("weighted_n_node_samples", np.float64),
            ("depth", np.intp), ("missing_go_to_left", np.uint8),
            ("categorical_set", np.intp), ("split_low", np.float32),
            ("split_high", np.float32))
# a split's range holds X's float32 values exactly; growers that record none (the
# histogram and sparse splitters) get no room for it
_RANGE_COLUMNS = ("split_low", "split_high")


cdef enum:
    # Node columns start with room for this many nodes (or the tree's bound, if
    # smaller) and double: allocating the bound of a deep tree up front would
    # claim far more than most trees use (a forest's full-depth tree on 12,600
    # distinct rows has some 3,000 nodes, where its bound is 25,000: 2x X's bytes)
    INITIAL_NODES = 1 << 12
    # ... and with no more than this many node statistics (doubles) at first: with
    # thousands of classes a row of statistics is large, and the rows grow with
    # the tree instead of being claimed for every node it could have
    INITIAL_STATS = 1 << 23


cdef void* _data(a):
    cdef cnp.ndarray arr = a
    return cnp.PyArray_DATA(arr)


cdef class NodeStore:
    """Node columns plus a row of node statistics per node (see _node_store.pxd)."""

    def __cinit__(self, Py_ssize_t n_stats, Py_ssize_t capacity=64, bint pending=False,
                  bint bounds=False, Py_ssize_t max_nodes=0, bint ranges=True):
        # capacity: nodes to allocate at first; the columns double from there
        # (a realloc each, in place for large blocks), but not past max_nodes, the
        # most the tree can have (``node_bound``; 0: unknown), until that is full.
        # pending: room for the best-first builder's pending children statistics.
        # bounds: columns for the monotonic constraints' bounds of each node's value.
        # ranges: columns for each split's range of its feature (split_low/high).
        self.n_stats = n_stats
        self.ranges = ranges
        self.split_low = NULL
        self.split_high = NULL
        self.max_nodes = max_nodes
        self.lower = NULL
        self.upper = NULL
        self.count = 0
        self.child_stats = NULL
        self.cat_sets = NULL
        self.columns = {}
        if bounds:
            self.columns = {"lower_bound": np.empty(0), "upper_bound": np.empty(0)}
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
        if "stats" not in self.columns:
            for name, dtype in _COLUMNS + (("stats", np.float64),):
                if name in _RANGE_COLUMNS and not self.ranges:
                    continue
                self.columns[name] = np.empty(table if name == "stats" else rows, dtype=dtype)
        for name, column in self.columns.items():
            if column.shape[0] != capacity:
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
        if self.ranges:
            self.split_low = <float*> _data(c["split_low"])
            self.split_high = <float*> _data(c["split_high"])
        self.stats = <double*> _data(c["stats"])
        if "lower_bound" in c:
            self.lower = <double*> _data(c["lower_bound"])
            self.upper = <double*> _data(c["upper_bound"])

    cdef bint _grow(self) noexcept nogil:
        cdef Py_ssize_t cap = self.capacity * 2
        if self.capacity < self.max_nodes < cap:
            # (doubling past the tree's bound would claim, and zero, room it never uses)
            cap = self.max_nodes
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

    def grow(self):
        """Enlarge the columns as a full store does (``_grow``); returns whether
        memory allowed it."""
        return self._grow()

    cdef Py_ssize_t add(self, Py_ssize_t parent, bint is_left, Py_ssize_t depth,
                        double impurity, Py_ssize_t n, double weight,
                        const double* stats) noexcept nogil:
        """Append a leaf; returns its id, or -1 when memory ran out."""
        if self.count == self.capacity and not self._grow():
            return -1
        cdef Py_ssize_t node_id = self.count
        self.put(node_id, parent, is_left, depth, impurity, n, weight, stats, NULL, -1)
        self.count += 1
        return node_id

    cdef bint set_split(self, Py_ssize_t node_id, const SplitRecord* split) noexcept nogil:
        """Record the split of a node; False when memory for a category set ran out."""
        cdef unsigned long long* grown
        cdef Py_ssize_t set_id = -1
        if split.categorical:
            if self.n_sets == self.sets_capacity:
                grown = <unsigned long long*> realloc(
                    self.cat_sets, 2 * self.sets_capacity * CAT_WORDS * sizeof(unsigned long long))
                if grown == NULL:
                    return False
                self.cat_sets = grown
                self.sets_capacity *= 2
            set_id = self.n_sets
            self.n_sets += 1
        self._write_split(node_id, split, set_id)
        return True

    cdef void _write_split(self, Py_ssize_t node_id, const SplitRecord* split,
                           Py_ssize_t set_id) noexcept nogil:
        self.feature[node_id] = split.feature
        self.threshold[node_id] = split.threshold
        self.missing_left[node_id] = split.missing_left
        if self.split_low != NULL:
            # (X's float32 values: exact in float32)
            self.split_low[node_id] = <float> split.low
            self.split_high[node_id] = <float> split.high
        if split.categorical:
            memcpy(self.cat_sets + set_id * CAT_WORDS, split.cat_left,
                   CAT_WORDS * sizeof(unsigned long long))
            self.cat[node_id] = set_id

    cdef bint reserve(self, Py_ssize_t n_nodes, Py_ssize_t n_sets) noexcept nogil:
        """Room for ``n_nodes`` nodes and ``n_sets`` category sets in all, for
        ``put``: False when memory ran out."""
        cdef unsigned long long* grown
        if n_nodes > self.capacity:
            with gil:
                try:
                    self._allocate(n_nodes)
                except MemoryError:
                    return False
        if n_sets > self.sets_capacity:
            grown = <unsigned long long*> realloc(
                self.cat_sets, n_sets * CAT_WORDS * sizeof(unsigned long long))
            if grown == NULL:
                return False
            self.cat_sets = grown
            self.sets_capacity = n_sets
        return True

    cdef void put(self, Py_ssize_t node_id, Py_ssize_t parent, bint is_left,
                  Py_ssize_t depth, double impurity, Py_ssize_t n, double weight,
                  const double* stats, const SplitRecord* split,
                  Py_ssize_t set_id) noexcept nogil:
        """Write node ``node_id`` (reserved, its split or NULL for a leaf, its
        category set into row ``set_id`` if the split has one), as ``add`` and
        ``set_split`` would: the growers' threads write their subtrees' blocks of
        ids side by side (``mark_written`` counts them in at the end)."""
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
        if self.split_low != NULL:
            self.split_low[node_id] = NAN
            self.split_high[node_id] = NAN
        memcpy(self.stats + node_id * self.n_stats, stats, self.n_stats * sizeof(double))
        if parent >= 0:
            if is_left:
                self.left[parent] = node_id
            else:
                self.right[parent] = node_id
        if split != NULL:
            self._write_split(node_id, split, set_id)

    cdef void link(self, Py_ssize_t node_id, Py_ssize_t left, Py_ssize_t right) noexcept nogil:
        """Set a node's children (``put`` links a child to its parent only where
        one thread writes both)."""
        self.left[node_id] = left
        self.right[node_id] = right

    cdef void mark_written(self, Py_ssize_t n_nodes, Py_ssize_t n_sets) noexcept nogil:
        """Count in the nodes and sets ``put`` wrote (ids below ``n_nodes``)."""
        self.count = n_nodes
        self.n_sets = n_sets

    cdef void set_bounds(self, Py_ssize_t node_id, double lower, double upper) noexcept nogil:
        if self.lower != NULL:
            self.lower[node_id] = lower
            self.upper[node_id] = upper

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


def node_bound(Py_ssize_t n_samples, Py_ssize_t max_depth, Py_ssize_t min_samples_leaf,
               Py_ssize_t max_leaf_nodes=-1):
    """The most nodes a binary tree of these limits can have: 2 leaves - 1, its
    leaves bounded by the samples a leaf needs, the depth and ``max_leaf_nodes``."""
    cdef Py_ssize_t leaves = max(1, n_samples // max(min_samples_leaf, 1))
    if max_depth < 16:
        leaves = min(leaves, (<Py_ssize_t> 1) << max_depth)
    if max_leaf_nodes > 0:
        leaves = min(leaves, max_leaf_nodes)
    return 2 * leaves - 1


def initial_capacity(Py_ssize_t n_samples, Py_ssize_t max_depth, Py_ssize_t min_samples_leaf,
                     Py_ssize_t max_leaf_nodes=-1, Py_ssize_t n_stats=1):
    """Nodes to allocate at first: the most the tree can have (``node_bound``), up to
    INITIAL_NODES nodes and INITIAL_STATS statistics (``n_stats`` per node; at
    least 64 nodes)."""
    cdef Py_ssize_t by_stats = max(64, <Py_ssize_t> INITIAL_STATS // max(n_stats, 1))
    return min(node_bound(n_samples, max_depth, min_samples_leaf, max_leaf_nodes),
               <Py_ssize_t> INITIAL_NODES, by_stats)
