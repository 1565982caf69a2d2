# cython: language_level=3
"""Node storage and growth limits shared by the tree builders (_tree, _hist)."""
from libc.float cimport DBL_EPSILON

from ._splitter cimport SplitRecord

cdef enum:
    LEAF = -1


cdef struct FrontierRecord:
    # a node of the exact builder's best-first frontier
    Py_ssize_t node_id, start, end, depth
    bint is_leaf
    double improvement       # priority: the weighted impurity decrease of the node's split
    SplitRecord split


cdef struct HistCandidate:
    # a node of the histogram builder's best-first frontier, its split found when added
    Py_ssize_t node_id, start, end, depth, n_left
    bint is_leaf
    double improvement    # priority: the weighted impurity decrease of its split
    double weights[2]     # the children's weights and impurities
    double imps[2]
    double* hist          # its histogram, handed on to its children at expansion
    SplitRecord split


ctypedef fused frontier_t:
    FrontierRecord
    HistCandidate


cdef inline bint frontier_higher(const frontier_t* a, const frontier_t* b) noexcept nogil:
    # Larger improvement first; equal improvements by node id, for reproducibility.
    return a.improvement > b.improvement or (
        a.improvement == b.improvement and a.node_id < b.node_id)


cdef inline void frontier_push(frontier_t* heap, Py_ssize_t* size,
                               const frontier_t* rec) noexcept nogil:
    """Add a record to the binary max-heap of best-first builders."""
    cdef Py_ssize_t i = size[0], parent
    size[0] += 1
    while i > 0:
        parent = (i - 1) // 2
        if not frontier_higher(rec, &heap[parent]):
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = rec[0]


cdef inline void frontier_pop(frontier_t* heap, Py_ssize_t* size, frontier_t* top) noexcept nogil:
    """Move the highest record of the heap into ``top``."""
    cdef Py_ssize_t i = 0, child, n
    top[0] = heap[0]
    size[0] -= 1
    n = size[0]
    if n == 0:
        return
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and frontier_higher(&heap[child + 1], &heap[child]):
            child += 1
        if not frontier_higher(&heap[child], &heap[n]):
            break
        heap[i] = heap[child]
        i = child
    heap[i] = heap[n]


cdef struct Limits:
    Py_ssize_t max_depth
    Py_ssize_t min_samples_split
    Py_ssize_t min_samples_leaf
    double min_weight_leaf
    double min_impurity_decrease


cdef inline Limits make_limits(Py_ssize_t max_depth, Py_ssize_t min_samples_split,
                               Py_ssize_t min_samples_leaf, double min_weight_leaf,
                               double min_impurity_decrease) noexcept:
    cdef Limits lim
    lim.max_depth = max_depth
    lim.min_samples_split = min_samples_split
    lim.min_samples_leaf = min_samples_leaf
    lim.min_weight_leaf = min_weight_leaf
    lim.min_impurity_decrease = min_impurity_decrease
    return lim


cdef inline bint is_leaf_by_size(const Limits* lim, Py_ssize_t n, double weight,
                                 Py_ssize_t depth, double impurity) noexcept nogil:
    # The same test decides a node before its split and predicts its children,
    # so a partition can be skipped exactly when both children will be leaves.
    return (depth >= lim.max_depth
            or n < lim.min_samples_split
            or n < 2 * lim.min_samples_leaf
            or weight < 2.0 * lim.min_weight_leaf
            or impurity <= DBL_EPSILON)


cdef class NodeStore:
    """Nodes as columns in scikit-learn's layout plus a row of statistics per node."""
    # Each column is a numpy array that to_arrays hands over without a copy.
    cdef Py_ssize_t* left         # left child id, -1 for a leaf
    cdef Py_ssize_t* right        # right child id, -1 for a leaf
    cdef Py_ssize_t* feature      # split feature, -2 for a leaf (scikit-learn's TREE_UNDEFINED)
    cdef double* threshold        # split threshold, -2.0 for a leaf
    cdef double* impurity
    cdef Py_ssize_t* n_samples    # training samples reaching the node
    cdef double* weighted_n       # their total weight
    cdef Py_ssize_t* depth        # root 0
    cdef unsigned char* missing_left   # NaN goes to the left child
    cdef Py_ssize_t* cat          # row of the node's category set in cat_sets, -1 for numeric
    cdef double* stats            # (capacity, n_stats): raw class counts or (sum wy, sum wy^2)
    cdef double* child_stats      # best-first only: the pending split's children statistics (2 rows)
    cdef unsigned long long* cat_sets   # CAT_WORDS words per categorical split
    cdef Py_ssize_t count, capacity, n_stats, n_sets, sets_capacity
    cdef dict columns             # name -> ndarray owning the column memory

    cdef _allocate(self, Py_ssize_t capacity)
    cdef bint _grow(self) noexcept nogil
    cdef Py_ssize_t add(self, Py_ssize_t parent, bint is_left, Py_ssize_t depth,
                        double impurity, Py_ssize_t n, double weight,
                        const double* stats) noexcept nogil
    cdef bint set_split(self, Py_ssize_t node_id, const SplitRecord* split) noexcept nogil


cpdef Py_ssize_t bound_leaves(Py_ssize_t max_leaf_nodes, Py_ssize_t n_samples) noexcept
