# cython: language_level=3
"""Histogram splitter on binned features (see _hist_splitter.pyx)."""

from ._common cimport FeatureDraw, Node, SplitRecord
from ._subsets cimport Groups, SubsetRules

ctypedef Py_ssize_t intp_t
ctypedef unsigned char code_t


cdef struct Scratch:
    # one per thread: a feature's scan
    double* left          # statistics (see HistSplitter) of the left side
    double* right         # ... and the right side's class weights (scikit-learn's score)
    double* groups        # the codes present in the node, in order: H values each
    intp_t* group_code
    double* missing       # the missing values' H values
    Groups cat            # a categorical feature's groups (``_subsets``)
    unsigned char* in_left


cdef class HistSplitter:
    # --- problem ---
    cdef readonly intp_t n_samples
    cdef readonly intp_t n_outputs        # always 1: one target
    cdef readonly intp_t n_stats          # node statistics: K class weights, or (sum wy, sum wy^2)
    cdef readonly int criterion
    cdef bint is_classifier
    cdef intp_t d
    cdef intp_t H                         # values per histogram bin: see add_to_bin
    cdef const code_t[:, ::1] codes       # (n, d) bin codes, MISSING for NaN
    cdef const float[:, ::1] lo, hi       # each bin's smallest and largest training value
    cdef const intp_t[::1] n_codes        # per feature: numeric codes in use (excl. MISSING)
    cdef const int[::1] yc
    cdef const double[::1] yv
    cdef const double* sw
    cdef const double* xlogx_table        # n ln n for unit weights (entropy), else NULL
    # --- constraints ---
    cdef intp_t min_samples_leaf
    cdef double min_weight_leaf
    cdef FeatureDraw draw                 # scikit-learn's feature draw (_common); its
                                          # visit: the node's features to scan, in order
    cdef intp_t n_threads
    cdef bint best_first                  # set by begin(): the growth order
    cdef readonly object monotonic_cst    # per feature -1, 0, 1 (int8), or None
    cdef const signed char* monotonic     # ... its data, NULL without constraints
    cdef const unsigned char* categorical # per feature: split by sets of its codes
    cdef SubsetRules subset_rules         # what scores a set of categories
    cdef double lower, upper              # the bounds of the node being split
    # --- layout and scratch ---
    cdef intp_t* offset                   # feature f's bins start at offset[f] * H in a histogram
    cdef intp_t hist_size
    cdef intp_t n_blocks                  # a large node's histogram: built by this many row blocks
    cdef double* block_hists              # ... blocks 1.. (block 0 builds in place)
    cdef double* block_sums               # ... each block's two sides: stats, weight
    cdef intp_t* block_counts             # ... each block's samples going left
    cdef int* moved                       # a large node's samples, partitioned stably
    cdef int* samples                     # sample ids, each node's a contiguous segment
    cdef Scratch* scratch                 # one per thread
    cdef SplitRecord* feature_best        # parallel search: best split of each feature
    cdef unsigned char* goes_left         # the side of each sample in the last marked split
    cdef int* local                       # small subtree: per feature, its samples sorted by code
    cdef intp_t local_n                   # ... its size (the stride of local)
    cdef intp_t local_base                # ... and its segment's start
    cdef object _owned                    # numpy arrays that own the memory above

    # --- the growers' protocol (the same methods as _splitter.Splitter's; see _grow) ---
    # (kept duplicate: declared in each splitter, not in a shared base class, so that
    # _grow's fused type compiles one loop per splitter with direct calls)
    cdef void begin(self, bint best_first) noexcept nogil
    cdef void root_stats(self, double* stats, double* weight) noexcept nogil
    cdef int split(self, Node* node, const double* stats, double weight_root,
                   SplitRecord* split, double* child_stats) noexcept nogil
    cdef void partition(self, const Node* node, const SplitRecord* split) noexcept nogil
    cdef void hand_down(self, Node* node, const SplitRecord* split, bint left_grows,
                        bint right_grows, Node* left, Node* right) noexcept nogil
    cdef void release(self, Node* node) noexcept nogil
    cdef void finish(self) noexcept nogil
    # --- internals ---
    cdef double weight_of(self, intp_t i) noexcept nogil
    cdef void add_to_bin(self, double* row, intp_t i, double w) noexcept nogil
    cdef void build_histogram(self, intp_t start, intp_t end, double* hist) noexcept nogil
    cdef void _build_block(self, intp_t start, intp_t n, intp_t b, double* hist) noexcept nogil
    cdef void _build_features(self, intp_t start, intp_t end, intp_t f_lo, intp_t f_hi,
                              double* hist) noexcept nogil
    cdef intp_t draw_features(self, intp_t start, intp_t end, intp_t n_known,
                              const double* hist) noexcept nogil
    cdef bint is_constant(self, intp_t f, intp_t start, intp_t end,
                          const double* hist) noexcept nogil
    cdef bint node_split(self, intp_t start, intp_t end, const double* stats, double weight,
                         const double* hist, SplitRecord* best) noexcept nogil
    cdef bint scan_feature(self, Scratch* w, intp_t f, intp_t start, intp_t end,
                           const double* stats, double weight, const double* hist,
                           SplitRecord* best) noexcept nogil
    cdef intp_t groups_from_histogram(self, Scratch* w, intp_t f, const double* fh) noexcept nogil
    cdef intp_t _two_stat_groups(self, Scratch* w, intp_t f, const int* ids,
                                 intp_t n) noexcept nogil
    cdef intp_t groups_from_sorted(self, Scratch* w, intp_t f, const int* ids,
                                   intp_t n) noexcept nogil
    cdef void scan_groups(self, Scratch* w, intp_t f, intp_t n_groups, const double* stats,
                          double weight, intp_t n_node, bint missing_left,
                          SplitRecord* best) noexcept nogil
    cdef double side_weight(self, const double* side) noexcept nogil
    cdef void scan_categories(self, Scratch* w, intp_t f, intp_t n_groups, const double* stats,
                              double weight, intp_t n_node, SplitRecord* best) noexcept nogil
    cdef bint goes_left_of(self, const SplitRecord* split, code_t c) noexcept nogil
    cdef dict _split_result(self, SplitRecord* split, double[::1] hist, double[::1] second,
                            double[::1] stats, double weight, intp_t n_node, double impurity,
                            double weight_root)
    cdef const int* sorted_segment(self, intp_t f, intp_t start) noexcept nogil
    cdef bint enter_local(self, intp_t start, intp_t end) noexcept nogil
    cdef void leave_local(self) noexcept nogil
    cdef void partition_samples(self, intp_t start, intp_t end) noexcept nogil
    cdef void _partition_blocks(self, intp_t start, intp_t end) noexcept nogil
    cdef void _count_block(self, intp_t start, intp_t n, intp_t b) noexcept nogil
    cdef void _move_block(self, intp_t start, intp_t n, intp_t b, intp_t n_left) noexcept nogil
    cdef void partition_local(self, intp_t start, intp_t end) noexcept nogil
    cdef void _mark_block(self, intp_t start, intp_t n, intp_t b, const SplitRecord* split,
                          const int* ids) noexcept nogil
    cdef intp_t mark_sides(self, intp_t start, intp_t end, const SplitRecord* split,
                           double* left_stats, double* right_stats,
                           double* weights) noexcept nogil
    cdef bint split_has_missing(self, intp_t start, intp_t end, intp_t f,
                                const double* hist) noexcept nogil
    cdef void children_histograms(self, double* hist, intp_t start, intp_t mid, intp_t end,
                                  bint left_grows, bint right_grows, double** left,
                                  double** right) noexcept nogil
