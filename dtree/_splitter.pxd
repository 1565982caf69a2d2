# cython: language_level=3
"""Exact splitter over presorted feature columns (see _splitter.pyx)."""

from libc.math cimport INFINITY

from ._common cimport CAT_WORDS, MAX_CATEGORIES, DTYPE_t, class_t, word_t

cdef enum:
    MAX_EXHAUSTIVE = 12     # multiclass subsets are enumerated up to this many groups
    MAX_CLASSES = 65535     # class codes are stored in two bytes


cdef struct SplitRecord:
    Py_ssize_t feature      # split feature, -1 while no valid candidate was seen
    Py_ssize_t pos          # left child is the segment [start, pos), right [pos, end)
    double threshold        # x <= threshold goes left
    bint missing_left       # NaN goes left (learnt, or the larger child when none was seen)
    bint categorical        # a category-set split: the codes in cat_left go left
    word_t cat_left[CAT_WORDS]  # bitset of category codes going left
    bint multiway           # head of a multiway split: one child per category group
    word_t cat_rest[CAT_WORDS]  # multiway: codes still to peel off after cat_left
    double multiway_impurity    # multiway: sum over groups of w_g * impurity_g
    double proxy            # the criterion's proxy score of this split (larger is better)
    double num              # proxy = num / den; the scan compares cross-multiplied, so
    double den              # candidates with identical statistics tie exactly
    double improvement      # scikit-learn's weighted impurity decrease
    double impurity_left    # impurity of the left child
    double impurity_right   # impurity of the right child
    double weight_left      # weighted number of samples in the left child
    double weight_right     # weighted number of samples in the right child


cdef inline unsigned long long rng_next(unsigned long long* state) noexcept nogil:
    # xorshift64*: enough for drawing feature orders, and reproducible everywhere
    cdef unsigned long long x = state[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    state[0] = x
    return x * 2685821657736338717ULL


cdef inline Py_ssize_t draw_feature(Py_ssize_t* features, Py_ssize_t i, Py_ssize_t d,
                                    unsigned long long* state) noexcept nogil:
    # step i of a Fisher-Yates draw without replacement: the i-th feature drawn
    cdef Py_ssize_t j = i + <Py_ssize_t>(rng_next(state) % <unsigned long long>(d - i))
    cdef Py_ssize_t chosen = features[j]
    features[j] = features[i]
    features[i] = chosen
    return chosen


cdef inline double midpoint(DTYPE_t a, DTYPE_t b) noexcept nogil:
    # Halves first so two large values cannot overflow; if rounding lands the
    # midpoint on b, fall back to a so that b still goes right.
    cdef double t = a / 2.0 + b / 2.0
    if t >= b or t == INFINITY or t == -INFINITY:
        t = a
    return t


cdef struct Scratch:
    # one per thread: the working memory of a feature's scan and partition
    double* count_left              # running class counts of the scan (K)
    double* count_right
    double* group_stats             # categorical scan: statistics per category group
    double* group_weight
    double* group_key               # ordering key (class-1 rate or mean)
    Py_ssize_t* group_count
    Py_ssize_t* group_order
    int* group_code                 # category code of each group, -1 for missing
    double group_left_weight        # weight of the groups on the left
    Py_ssize_t group_left_count     # ... and their number of samples
    DTYPE_t* tmp_v                  # right part of a segment during a partition
    int* tmp_i
    class_t* tmp_yc
    double* tmp_yv


cdef class Splitter:
    # --- problem ---
    cdef readonly Py_ssize_t n_samples    # N
    cdef readonly Py_ssize_t n_features   # d
    cdef readonly Py_ssize_t n_stats      # node statistics: K class counts, or (sum wy, sum wy^2)
    cdef readonly int criterion           # CRIT_* code from _criterion.pxd
    cdef readonly bint is_classifier
    # --- constraints ---
    cdef Py_ssize_t min_samples_leaf
    cdef double min_weight_leaf
    cdef Py_ssize_t max_features          # features drawn per node (non-constant ones count)
    cdef bint multiway                    # categorical features split one child per category
    cdef unsigned long long rng_state     # xorshift64* state for the feature draw
    # --- presorted layout: row f of each (d, N) array is feature f, node segments contiguous ---
    cdef DTYPE_t* vals                    # feature values in sorted order within each node
    cdef int* idx                         # sample index beside each value
    cdef class_t* ycode                       # class code beside each value (classification)
    cdef double* yval                     # target beside each value (regression)
    cdef const double* sw                 # sample weights by sample index, NULL for unit weights
    cdef const int* y_by_sample           # class codes by sample index (root statistics)
    cdef const double* yv_by_sample       # targets by sample index (root statistics)
    # --- scratch, allocated once per fit ---
    cdef unsigned long long* goes_left    # bit i set: sample i goes to the left child
    cdef const double* xlogx_table        # n ln n for n = 0..N when weights are unit, else NULL
    cdef Py_ssize_t* features             # feature order for the random draw
    cdef const int* n_categories          # per feature: 0 numeric, else its number of categories
    cdef int n_threads                    # threads of the split search and partition
    cdef Scratch* scratch                 # n_threads of them
    cdef SplitRecord* feature_best        # parallel search: best split of each feature
    cdef object _owned                    # numpy arrays that own the memory above

    cdef void root_stats(self, double* stats, double* weight) noexcept nogil
    cdef bint node_split(self, Py_ssize_t start, Py_ssize_t end, const double* stats,
                         double weight, double impurity, double weight_root,
                         SplitRecord* best, double* child_stats) noexcept nogil
    cdef void partition(self, Py_ssize_t start, Py_ssize_t end,
                        const SplitRecord* split) noexcept nogil
    cdef void _consider_multiway(self, Scratch* s, Py_ssize_t f, Py_ssize_t m, const double* stats,
                                 double weight, double w_node_entropy, double wlogw,
                                 SplitRecord* best) noexcept nogil
    # internals of node_split and partition
    cdef _allocate_scratch(self, int n_threads, Py_ssize_t groups, list owned)
    cdef bint _split_pair(self, Py_ssize_t start, double weight,
                          SplitRecord* best) noexcept nogil
    cdef void _scan_in_parallel(self, Py_ssize_t start, Py_ssize_t end, const double* stats,
                                double weight, SplitRecord* best) noexcept nogil
    cdef bint _needs_partition(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                               const SplitRecord* split) noexcept nogil
    cdef bint _scan(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                    const double* stats, double weight, SplitRecord* best) noexcept nogil
    cdef void _scan_classification(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                   Py_ssize_t n_missing, bint missing_left,
                                   const double* stats, double weight,
                                   SplitRecord* best) noexcept nogil
    cdef void _scan_binary_gini(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                Py_ssize_t n_missing, bint missing_left,
                                const double* stats, double weight,
                                SplitRecord* best) noexcept nogil
    cdef void _scan_regression(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                               Py_ssize_t n_missing, bint missing_left,
                               const double* stats, double weight,
                               SplitRecord* best) noexcept nogil
    cdef bint _scan_categorical(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                const double* stats, double weight,
                                SplitRecord* best) noexcept nogil
    cdef void _move_group(self, Scratch* s, Py_ssize_t g, int direction,
                          unsigned char* in_left) noexcept nogil
    cdef void _consider(self, Scratch* s, Py_ssize_t f, Py_ssize_t m, const unsigned char* in_left,
                        const double* stats, double weight, Py_ssize_t n_node,
                        double w_node_entropy, double wlogw,
                        SplitRecord* best) noexcept nogil
    cdef void finish_split(self, Py_ssize_t start, Py_ssize_t end, const double* stats,
                           double weight, double impurity, double weight_root,
                           SplitRecord* best, double* child_stats) noexcept nogil
    cdef Py_ssize_t _mark_sides(self, Py_ssize_t start, Py_ssize_t end,
                                const SplitRecord* split, double* left_stats,
                                double* right_stats, double* weights) noexcept nogil
    cdef void _partition_feature(self, Scratch* s, Py_ssize_t f, Py_ssize_t start,
                                 Py_ssize_t end) noexcept nogil


cdef inline bint better(double num, double den, Py_ssize_t f,
                        const SplitRecord* best) noexcept nogil:
    # num/den > best.num/best.den with positive denominators; on an exact tie
    # the smaller feature index wins (within a feature the first position does).
    cdef double lhs = num * best.den, rhs = best.num * den
    return lhs > rhs or (lhs == rhs and f < best.feature)


cdef inline void clear_split(SplitRecord* best, Py_ssize_t end) noexcept nogil:
    best.feature = -1
    best.missing_left = False
    best.categorical = False
    best.multiway = False
    best.pos = end
    best.num = -INFINITY
    best.den = 1.0


cdef enum:
    # A node's search and partition go parallel from this many (sample, feature)
    # pairs: below it, starting threads costs more than the work.
    PARALLEL_WORK = 1 << 16
