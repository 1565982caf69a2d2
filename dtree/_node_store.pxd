# cython: language_level=3
"""Node storage shared by every grower (_grow's, and C4.5's)."""
from ._common cimport SplitRecord

cdef enum:
    LEAF = -1


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
    cdef float* split_low         # the split feature's least and greatest present value
    cdef float* split_high        # in the node (what the splitter records; NaN for leaves;
                                  # NULL for a store made without ranges)
    cdef bint ranges
    cdef double* stats            # (capacity, n_stats): raw class counts or (sum wy, sum wy^2)
    cdef double* lower            # monotonic constraints only (else NULL): each node's
    cdef double* upper            # bounds on its value, applied to it after the fit
    cdef double* child_stats      # best-first only: the pending split's children statistics (2 rows)
    cdef unsigned long long* cat_sets   # CAT_WORDS words per categorical split
    cdef Py_ssize_t count, n_stats, n_sets, sets_capacity
    cdef readonly Py_ssize_t capacity
    cdef readonly Py_ssize_t max_nodes   # the tree's node bound: growth stops doubling there (0: none)
    cdef dict columns             # name -> ndarray owning the column memory

    cdef _allocate(self, Py_ssize_t capacity)
    cdef bint _grow(self) noexcept nogil
    cdef Py_ssize_t add(self, Py_ssize_t parent, bint is_left, Py_ssize_t depth,
                        double impurity, Py_ssize_t n, double weight,
                        const double* stats) noexcept nogil
    cdef bint set_split(self, Py_ssize_t node_id, const SplitRecord* split) noexcept nogil
    cdef void _write_split(self, Py_ssize_t node_id, const SplitRecord* split,
                           Py_ssize_t set_id) noexcept nogil
    cdef bint reserve(self, Py_ssize_t n_nodes, Py_ssize_t n_sets) noexcept nogil
    cdef void put(self, Py_ssize_t node_id, Py_ssize_t parent, bint is_left,
                  Py_ssize_t depth, double impurity, Py_ssize_t n, double weight,
                  const double* stats, const SplitRecord* split,
                  Py_ssize_t set_id) noexcept nogil
    cdef void link(self, Py_ssize_t node_id, Py_ssize_t left, Py_ssize_t right) noexcept nogil
    cdef void mark_written(self, Py_ssize_t n_nodes, Py_ssize_t n_sets) noexcept nogil
    cdef void set_bounds(self, Py_ssize_t node_id, double lower, double upper) noexcept nogil


cpdef Py_ssize_t bound_leaves(Py_ssize_t max_leaf_nodes, Py_ssize_t n_samples) noexcept
