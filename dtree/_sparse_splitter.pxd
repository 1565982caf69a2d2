# cython: language_level=3
"""Exact splitter over sparse columns (see _sparse_splitter.pyx)."""

from ._common cimport DTYPE_t, FeatureDraw, Node, SearchSettings, SplitRecord
from ._criterion cimport Side


cdef struct Segments:
    # a listed node's segments of the features' non-zeros
    Py_ssize_t count          # listed features
    DTYPE_t* vals             # the layout the segments index: the splitter's, or a
    int* ids                  #   subtree's own copy (made when an unlisted node lists)
    Py_ssize_t* refs          # lists sharing that copy (NULL: the splitter's layout)
    Py_ssize_t* triples       # (f, lo, hi) per listed feature, ascending f


cdef class SparseSplitter:
    # --- problem (the fields the growers read, as the other splitters') ---
    cdef readonly Py_ssize_t n_samples    # N
    cdef readonly Py_ssize_t n_features   # d
    cdef readonly Py_ssize_t n_outputs
    cdef readonly Py_ssize_t n_stats      # per output: K class counts, or two target sums
    cdef readonly int criterion
    cdef readonly bint is_classifier
    cdef readonly object monotonic_cst
    cdef const signed char* monotonic
    # --- constraints ---
    cdef SearchSettings settings           # the plan's record: leaf limits, draw, ...
    cdef double lower, upper              # the bounds of the node being split
    cdef DTYPE_t tol
    cdef FeatureDraw draw
    cdef bint best_first
    cdef bint random_split                # splitter="random": one random cut per feature
    # --- layout: feature f's non-zeros (value, sample id) in [col_start[f], col_start[f+1]),
    #     node segments contiguous and each in ascending order of value, NaN last ---
    cdef DTYPE_t* layout_vals
    cdef int* layout_ids
    cdef const Py_ssize_t* col_start
    cdef DTYPE_t* vals                    # the node being split: the layout its segment
    cdef int* ids                         # bounds (seg_lo, seg_hi) index
    cdef int* samples                     # sample ids, node segments [start, end) contiguous,
                                          # ascending within each
    cdef Segments* root_seg               # the root's list (NULL: the root is unlisted)
    cdef bint oom                         # a list could not be allocated
    # --- unlisted nodes (see _sparse_splitter.pyx): few features drawn per node ---
    cdef bint hybrid
    cdef double filter_cost               # a node's expected cost of filtering columns
    cdef double list_factor
    cdef int* where                       # per sample: its position in ``samples``
    cdef const Py_ssize_t* row_ptr        # per sample: its entries' positions in the layout
    cdef const unsigned int* row_pos
    cdef DTYPE_t* pool_v                  # an unlisted node's drawn features' entries
    cdef int* pool_i
    cdef Py_ssize_t pool_used
    cdef unsigned char* extracted         # per feature: in the pool
    cdef Py_ssize_t* extracted_list
    cdef Py_ssize_t n_extracted
    cdef unsigned int* sort_a             # room to sort a node's entries' positions
    cdef unsigned int* sort_b
    cdef const double* sw
    cdef const int* y_codes               # by sample, then output
    cdef const double* y_values
    cdef const double* xlogx_table
    # --- scratch ---
    cdef unsigned long long* goes_left
    cdef unsigned char* mark              # a byte per sample: in the split feature's segment
    cdef Py_ssize_t* seg_lo               # per feature: the node's segment (empty: lo == hi)
    cdef Py_ssize_t* seg_hi
    cdef Py_ssize_t* mids                 # per listed feature: where its partition split it
    cdef DTYPE_t* tmp_v                   # n_threads rows of tmp_row values
    cdef int* tmp_i
    cdef Py_ssize_t tmp_row
    cdef int n_threads
    cdef double* count_left
    cdef double* count_right
    cdef double* zero_stats               # a scan's zero block: the node's minus the entries'
                                          # (thread 0's; thread t's scratch_row further on)
    cdef Py_ssize_t scratch_row
    cdef SplitRecord* feature_best        # parallel scans: each visited feature's best
    cdef object _owned

    cdef _allocate_unlisted(self, ids, Py_ssize_t n, Py_ssize_t d, list owned)
    # --- the growers' protocol (see _grow) ---
    cdef void begin(self, bint best_first) noexcept nogil
    cdef void root_stats(self, double* stats, double* weight) noexcept nogil
    cdef int split(self, Node* node, const double* stats, double weight_root,
                   SplitRecord* split, double* child_stats) noexcept nogil
    cdef void partition(self, const Node* node, const SplitRecord* split) noexcept nogil
    cdef void _partition_segment(self, Py_ssize_t t, const Segments* seg,
                                 int thread) noexcept nogil
    cdef void hand_down(self, Node* node, const SplitRecord* split, bint left_grows,
                        bint right_grows, Node* left, Node* right) noexcept nogil
    cdef void release(self, Node* node) noexcept nogil
    cdef void finish(self) noexcept nogil
    # --- the search ---
    cdef Segments* _segments(self, const Node* node) noexcept nogil
    cdef void _load(self, const Segments* seg, bint on) noexcept nogil
    cdef void _extract(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end) noexcept nogil
    cdef void _unextract(self) noexcept nogil
    cdef Segments* _list_if_worth(self, const Node* child) noexcept nogil
    cdef Segments* _list(self, const Node* child, Py_ssize_t m) noexcept nogil
    cdef bint _is_constant(self, Py_ssize_t f, Py_ssize_t n_node) noexcept nogil
    cdef Py_ssize_t _known_end(self, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
    cdef Py_ssize_t _first_positive(self, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
    cdef void _random_cut(self, const Node* node, Py_ssize_t f, const double* stats,
                          double weight_root, SplitRecord* best,
                          double* child_stats) noexcept nogil
    cdef Py_ssize_t _score_cut(self, const Node* node, const double* stats, double weight_root,
                               SplitRecord* cut, double* child_stats) noexcept nogil
    cdef bint _split_pair(self, Py_ssize_t start, const double* stats, double weight,
                          SplitRecord* best) noexcept nogil
    cdef Py_ssize_t _visited_entries(self) noexcept nogil
    cdef void _scan_in_parallel(self, const Node* node, const double* stats,
                                SplitRecord* best) noexcept nogil
    cdef void _scan(self, int thread, Py_ssize_t f, Py_ssize_t n_node, const double* stats,
                    double weight, SplitRecord* best) noexcept nogil
    cdef void _scan_side(self, double* sums, Py_ssize_t f, Py_ssize_t pz, Py_ssize_t ke,
                         Py_ssize_t n_zero, double zero_weight, Py_ssize_t n_node,
                         const double* stats, double weight, bint missing_left,
                         SplitRecord* best) noexcept nogil
    cdef void _move(self, double* cl, double* cr, Side* left, Side* right,
                    Py_ssize_t i) noexcept nogil
    cdef Segments* _child_segments(self, const Segments* seg, bint left) noexcept nogil
    cdef void _finish_split(self, const Node* node, const double* stats, double weight_root,
                            SplitRecord* best, double* child_stats) noexcept nogil
    cdef bint _route(self, int i, bint go_left, double* left_stats, double* right_stats,
                     double* weights) noexcept nogil
    cdef Py_ssize_t _mark_sides(self, Py_ssize_t start, Py_ssize_t end,
                                const SplitRecord* split, double* left_stats,
                                double* right_stats, double* weights) noexcept nogil
