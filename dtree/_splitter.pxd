# cython: language_level=3
"""Exact splitter over presorted feature columns (see _splitter.pyx)."""

from ._common cimport CAT_WORDS, class_t, DTYPE_t, FeatureDraw, MAX_CATEGORIES, Node
from ._common cimport PARALLEL_WORK, SearchSettings, SplitRecord, word_t
from ._criterion cimport Fenwick, QuantileLoss

cdef enum:
    MAX_CLASSES = 65535     # class codes are stored in two bytes


cdef struct QuantileScanArgs:
    # what a quantile scan of one feature in one node reads
    const QuantileLoss* ql
    Py_ssize_t f
    const DTYPE_t* v        # the feature's values and ids in its order
    const int* ix
    const int* yrank        # per sample: its target's rank in the node (one output)
    const double* ysorted   # ... and the node's targets of that output in rank order
    const double* node_sums # ... their sum and the sum below the quantile's rank
    const double* sw
    signed char mono        # the feature's monotonic constraint
    double lower, upper     # ... and the node's bounds
    DTYPE_t tol             # values within it are equal
    double weight           # the node's
    Py_ssize_t min_leaf
    double min_wleaf


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
    DTYPE_t* tmp_v                  # right part of a segment during a partition
    int* tmp_i
    class_t* tmp_yc
    double* tmp_yv
    # quantile criteria: a scan's samples in scan order (``sequence_losses``)
    int* ranks                      # their target ranks in the node (N)
    double* seq_weight              # ... and their weights (N; with sample weights)
    double* loss_left               # the loss of the prefix up to each (N)
    double* loss_right              # ... of the suffix after each (N)
    double* value_left              # ... and their quantiles (N each; monotonic
    double* value_right             #     constraints only)
    Fenwick weighted                # the weighted tracker (its 2 (N + 2) sums
    word_t* present                 # double as pairs' room and as the unit
                                    # tracker's bitset)
    const double* known_best        # a score some other feature's cut reaches in the
                                    # node (``_scan_each``), or NULL


cdef struct CutScan:
    # one scan of a sorted segment (binary Gini or one regression output): what
    # every cut's test needs, and the best-so-far's tie key not computed yet
    # (keys are needed on ties only, so a record costs no division)
    const DTYPE_t* v
    Py_ssize_t f, start, end_known, n_node, min_leaf
    Py_ssize_t first_left       # start less the missing values scanned first
    bint missing_left, pending
    double min_wleaf, tiny, weight, lower, upper
    double total              # the node's class-1 weight (Gini) or sum of w*y
    double pending_x, pending_wl
    double known_best         # a score another feature's cut reaches (Scratch.known_best)
    DTYPE_t tol
    signed char mono
    int crit


cdef class Splitter:
    # --- problem ---
    cdef readonly Py_ssize_t n_samples    # N
    cdef readonly Py_ssize_t n_features   # d
    cdef readonly Py_ssize_t n_outputs    # targets per sample
    cdef readonly Py_ssize_t n_stats      # node statistics: K class counts, or (sum wy, sum wy^2),
                                          # per output (blocks of n_stats / n_outputs)
    cdef readonly int criterion           # CRIT_* code from _criterion.pxd
    cdef readonly bint is_classifier
    # --- constraints ---
    cdef SearchSettings settings           # the plan's record: leaf limits, draw, ...
    cdef bint multiway                    # categorical features split one child per category
    cdef readonly object monotonic_cst    # per feature -1, 0, 1 (int8), or None
    cdef const signed char* monotonic     # ... its data, NULL without constraints
    cdef double lower, upper              # the bounds of the node being split
    cdef DTYPE_t tol                      # values within it are equal (0: exact values)
    cdef FeatureDraw draw                 # scikit-learn's feature draw (_common); its
                                          # visit: the node's features to scan, in order
    cdef bint index_order                 # scan the drawn features by index (ID3, the
                                          # test hook), not in the order drawn
    cdef bint best_first                  # set by begin(): constants are not carried down
    cdef bint random_split                # splitter="random": one random cut per feature
    # --- presorted layout: row f of each (d, N) array is feature f, node segments contiguous ---
    cdef DTYPE_t* vals                    # feature values in sorted order within each node
    cdef int* idx                         # sample index beside each value
    cdef class_t* ycode                       # class code beside each value (classification)
    cdef double* yval                     # target beside each value (regression)
    cdef const double* sw                 # sample weights by sample index, NULL for unit weights
    cdef const int* y_by_sample           # class codes by sample index, (N, n_outputs)
    cdef const double* yv_by_sample       # targets by sample index, (N, n_outputs)
    # --- scratch, allocated once per fit ---
    cdef unsigned long long* goes_left    # bit i set: sample i goes to the left child
    cdef const double* xlogx_table        # n ln n for n = 0..N when weights are unit, else NULL
    cdef unsigned char* visit_mark        # index_order: the drawn features, by index
    cdef const int* n_categories          # per feature: 0 numeric, else its number of categories
    cdef int n_threads                    # threads of the split search and partition
    cdef Scratch* scratch                 # n_threads of them
    # --- quantile criteria (absolute_error, quantile): a node's targets in order ---
    cdef readonly bint quantile_criterion # the node's targets are kept in order (below)
    cdef QuantileLoss qloss
    cdef int* yorder                      # sample ids by ascending target, node segments
                                          # contiguous (partitioned like a feature)
    cdef int* yrank                       # per sample: its target's rank in its node
    cdef double* ysorted                  # the node's targets in ascending order
    cdef double* node_sums                # per output: the sum of the node's targets and
                                          # of those below its quantile's rank
    cdef SplitRecord* feature_best        # parallel search: best split of each feature
    # --- splitter="random" without presorted columns (``sample_mode``): a node's
    # samples in one segment of ``samples``, in no order; a drawn feature's values
    # gathered from X by feature (``xt``, (d, N)) ---
    cdef readonly bint sample_mode
    cdef const DTYPE_t* xt
    cdef int* samples
    cdef double* cut_stats                # (room for 2 n_stats statistics)
    cdef bint _node_has_missing           # the last _sum_sides met a missing value
    # one output of classes or squared error: the node's targets (and weights)
    # gathered once per node in segment order, so that each drawn feature's cut
    # is summed in a pass over contiguous arrays (``_score_sides``)
    cdef bint node_targets
    cdef bint whole_weights               # every sample weight a whole number, sums exact
    cdef const unsigned char* counts      # ... and all below 256 (a forest's bootstrap
                                          # counts): the weights in bytes, NULL otherwise
    cdef int* node_c                      # (N) class codes
    cdef double* node_y                   # (N) regression targets
    cdef double* node_w                   # (N) sample weights (with sample weights only)
    cdef DTYPE_t* best_v                  # (N) the best cut's feature values: the buffer
                                          # its gather filled (scratch tmp_v, best_home
                                          # or a predicted feature's in spec_buf)
    cdef DTYPE_t* best_home               # (N) a gather's second buffer, beside tmp_v
    # the features a node's draw looks at first, predicted and gathered in one pass
    # over its rows (``_gather_predicted``; row mode with few features drawn)
    cdef Py_ssize_t spec_k                # how many (0: no prediction)
    cdef Py_ssize_t spec_stride
    cdef DTYPE_t* spec_buf                # (spec_k, N) their values
    # row mode (``_row_cuts``: node_targets and no categorical feature): X's rows,
    # each feature's least, greatest and NaN count in the node, the drawn cuts
    # (feature, threshold, NaN side) and their left sides' sums, d of each
    cdef bint row_mode
    cdef bint lazy_rows                   # (few features drawn: gathered one by one)
    cdef const DTYPE_t* xrows
    cdef DTYPE_t* row_lo
    cdef DTYPE_t* row_hi
    cdef int* row_missing
    cdef Py_ssize_t* cut_feature          # the cuts' features in drawing order; the
    cdef double* cut_threshold            # rest by feature: a cut's threshold,
    cdef double* cut_nan_value            # where it sends NaN (-inf left, +inf right),
    cdef double* acc_count                # its left side's sums (counts too as
    cdef double* acc_ones                 # doubles: one lane width with the others)
    cdef double* acc_weight
    cdef double* acc_sum
    cdef double* acc_classes              # (n_stats, d): a class's sums over the cuts
    cdef object _owned                    # numpy arrays that own the memory above

    # --- the growers' protocol (the same methods as _hist_splitter.HistSplitter's; see _grow) ---
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
    # --- the audit's replay of a growth (``_audit_scan``): a node's segment
    # [start, end) scanned on one feature, made ready (a quantile criterion's ranks)
    # and partitioned as growth does; it reads the layout declared below too ---
    cdef void scan_feature(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                           const double* stats, double weight, SplitRecord* best) noexcept nogil
    cdef void prepare_node(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil
    cdef void partition_node(self, Py_ssize_t start, Py_ssize_t end,
                             const SplitRecord* split) noexcept nogil
    # --- the search ---
    cdef Py_ssize_t draw_features(self, Py_ssize_t start, Py_ssize_t end,
                                  Py_ssize_t n_known) noexcept nogil
    cdef bint is_constant(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end) noexcept nogil
    cdef void _begin_scan(self, CutScan* g, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                          Py_ssize_t n_missing, bint missing_left, double total,
                          double weight) noexcept nogil
    cdef void _sort_visit(self) noexcept nogil
    cdef bint node_split(self, Py_ssize_t start, Py_ssize_t end, const double* stats,
                         double weight, double impurity, double weight_root,
                         SplitRecord* best, double* child_stats) noexcept nogil
    cdef bint split_in(self, Scratch* s, unsigned long long* marks, const Py_ssize_t* visit,
                       Py_ssize_t n_visit, int n_threads, Py_ssize_t start, Py_ssize_t end,
                       const double* stats, double weight, double impurity,
                       double weight_root, SplitRecord* best,
                       double* child_stats) noexcept nogil
    cdef void _partition(self, Py_ssize_t start, Py_ssize_t end,
                         const SplitRecord* split) noexcept nogil
    cdef void _consider_multiway(self, Scratch* s, Py_ssize_t f, Py_ssize_t m, const double* stats,
                                 double weight, double w_node_entropy, double wlogw,
                                 SplitRecord* best) noexcept nogil
    # internals of node_split and partition
    cdef _allocate_scratch(self, int n_threads, Py_ssize_t groups, list owned)
    cdef bint _split_pair(self, Scratch* s, const Py_ssize_t* visit, Py_ssize_t n_visit,
                          Py_ssize_t start, const double* stats, double weight,
                          SplitRecord* best) noexcept nogil
    cdef void _scan_in_parallel(self, const Py_ssize_t* visit, Py_ssize_t n_visit,
                                int n_threads, Py_ssize_t start, Py_ssize_t end,
                                const double* stats, double weight,
                                SplitRecord* best) noexcept nogil
    cdef void _scan_known(self, Scratch* s, double* known, Py_ssize_t f, Py_ssize_t start,
                          Py_ssize_t end, const double* stats, double weight,
                          SplitRecord* best) noexcept nogil
    cdef void _scan_each(self, Scratch* s, int n_threads, const Py_ssize_t* visit,
                         Py_ssize_t n_visit, Py_ssize_t start, Py_ssize_t end,
                         const double* stats, double weight,
                         SplitRecord* per_feature) noexcept nogil
    cdef bint _needs_partition(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                               const SplitRecord* split) noexcept nogil
    cdef void _scan(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                    const double* stats, double weight, SplitRecord* best) noexcept nogil
    cdef void _scan_classification(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                   Py_ssize_t n_missing, bint missing_left,
                                   const double* stats, double weight,
                                   SplitRecord* best) noexcept nogil
    cdef void _scan_binary_gini(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                Py_ssize_t n_missing, bint missing_left,
                                const double* stats, double weight,
                                SplitRecord* best) noexcept nogil
    cdef void _rank_node(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil
    cdef bint _random_split(self, Node* node, const double* stats, double weight_root,
                            SplitRecord* best, double* child_stats) noexcept nogil
    cdef bint _sample_split(self, Node* node, const double* stats, double weight_root,
                            SplitRecord* best, double* child_stats) noexcept nogil
    cdef bint _gather(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end, DTYPE_t* buf,
                      DTYPE_t* lo, DTYPE_t* hi, Py_ssize_t* n_missing) noexcept nogil
    cdef bint _gathered_constant(self, Py_ssize_t f, DTYPE_t lo, DTYPE_t hi,
                                 Py_ssize_t n_missing, Py_ssize_t n) noexcept nogil
    cdef Py_ssize_t _gather_predicted(self, const Node* node, Py_ssize_t* features,
                                      DTYPE_t* lo, DTYPE_t* hi,
                                      Py_ssize_t* n_missing) noexcept nogil
    cdef bint _sample_cut(self, Py_ssize_t f, const Node* node, const DTYPE_t* buf, DTYPE_t lo,
                          DTYPE_t hi, Py_ssize_t n_missing, const double* stats,
                          double weight_root, SplitRecord* best,
                          double* child_stats) noexcept nogil
    cdef void _gather_targets(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil
    cdef bint _offer_cut(self, SplitRecord* cut, const Node* node, Py_ssize_t n_left,
                         DTYPE_t lo, DTYPE_t hi, const double* stats, double weight_root,
                         SplitRecord* best, double* child_stats,
                         const double* weights) noexcept nogil
    cdef void _row_cuts(self, Node* node, const double* stats, double weight_root,
                        SplitRecord* best, double* child_stats) noexcept nogil
    cdef Py_ssize_t _sum_gathered(self, const SplitRecord* cut, Py_ssize_t start, Py_ssize_t end,
                                  const DTYPE_t* values, double* child_stats,
                                  double* weights) noexcept nogil
    cdef Py_ssize_t _score_sides(self, const SplitRecord* cut, const Node* node,
                                 const DTYPE_t* values, const double* stats, double* child_stats,
                                 double* weights) noexcept nogil
    cdef Py_ssize_t _sum_sides(self, const SplitRecord* cut, Py_ssize_t start, Py_ssize_t end,
                               const DTYPE_t* values, bint mark, double* child_stats,
                               double* weights) noexcept nogil
    cdef void _random_cut(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                          const double* stats, double weight, double impurity,
                          double weight_root, SplitRecord* best,
                          double* child_stats) noexcept nogil
    cdef bint _draw_cut(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                        SplitRecord* cut) noexcept nogil
    cdef void _score_cut(self, Py_ssize_t start, Py_ssize_t end, const double* stats,
                         double weight, double impurity, double weight_root, SplitRecord* cut,
                         double* child_stats) noexcept nogil
    cdef double _add_range(self, double* stats, Py_ssize_t f, Py_ssize_t lo,
                           Py_ssize_t hi) noexcept nogil
    cdef bint _admissible(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                          const SplitRecord* cut, const double* child_stats,
                          double weight) noexcept nogil
    cdef void _quantile_args(self, Py_ssize_t f, double weight, QuantileScanArgs* a,
                             Py_ssize_t k=*) noexcept nogil
    cdef void _quantile_stats(self, Scratch* s, Py_ssize_t start, Py_ssize_t end,
                              Py_ssize_t n_left, double* stats) noexcept nogil
    cdef void _scan_quantile(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                             Py_ssize_t n_missing, bint missing_left, double weight,
                             SplitRecord* best) noexcept nogil
    cdef void _scan_quantile_outputs(self, Scratch* s, Py_ssize_t f, Py_ssize_t start,
                                     Py_ssize_t end, Py_ssize_t n_missing, bint missing_left,
                                     double weight, SplitRecord* best) noexcept nogil
    cdef void _quantile_groups(self, Scratch* s, Py_ssize_t f, Py_ssize_t m, Py_ssize_t start,
                               Py_ssize_t end, double weight, SplitRecord* best) noexcept nogil
    cdef void _scan_outputs(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                            Py_ssize_t n_missing, bint missing_left, const double* stats,
                            double weight, SplitRecord* best) noexcept nogil
    cdef void _scan_regression(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                               Py_ssize_t n_missing, bint missing_left,
                               const double* stats, double weight,
                               SplitRecord* best) noexcept nogil
    cdef void _scan_categorical(self, Scratch* s, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                                const double* stats, double weight,
                                SplitRecord* best) noexcept nogil
    cdef void finish_split(self, Py_ssize_t start, Py_ssize_t end, const double* stats,
                           double weight, double impurity, double weight_root,
                           SplitRecord* best, double* child_stats) noexcept nogil
    cdef void _finish(self, unsigned long long* marks, Py_ssize_t start, Py_ssize_t end,
                      const double* stats, double weight, double impurity, double weight_root,
                      SplitRecord* best, double* child_stats) noexcept nogil
    cdef Py_ssize_t _mark_sides(self, unsigned long long* marks, Py_ssize_t start,
                                Py_ssize_t end, const SplitRecord* split, double* left_stats,
                                double* right_stats, double* weights) noexcept nogil
    cdef void _partition_with(self, Scratch* s, int n_threads, const unsigned long long* marks,
                              Py_ssize_t start, Py_ssize_t end,
                              const SplitRecord* split) noexcept nogil
    cdef void _partition_feature(self, Scratch* s, const unsigned long long* marks,
                                 Py_ssize_t f, Py_ssize_t start, Py_ssize_t end) noexcept nogil
    # --- subtrees grown on threads (``_grow``'s speculative growth and its replay) ---
    cdef bint subtrees_allowed(self) noexcept nogil
    cdef int spec_split(self, Scratch* s, int n_threads, unsigned long long* marks,
                        SplitRecord* per_feature, const Node* node, const double* stats,
                        double weight_root, SplitRecord* best, double* child_stats,
                        unsigned long long* constant, unsigned long long* tied) noexcept nogil
    cdef bint splits_to_singles(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil
    cdef Py_ssize_t segment_bytes(self, Py_ssize_t m) noexcept nogil
    cdef void copy_segment(self, unsigned char* room, Py_ssize_t start, Py_ssize_t end,
                           bint keep) noexcept nogil
    cdef int restore_segment(self, Py_ssize_t start, Py_ssize_t end) noexcept nogil
    cdef int restore_column(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end) noexcept nogil
    cdef int resplit_on(self, Scratch* s, int* left_ids, unsigned long long* marks,
                        Py_ssize_t f, const Node* node, const double* stats,
                        double weight_root, const SplitRecord* made, SplitRecord* best,
                        double* child_stats) noexcept nogil

