# cython: language_level=3
"""Every criterion's kernels: one section per criterion, one dispatcher per operation.

A section holds all of one criterion's formulas: how a sample adds to a
node's statistics, how a scan moves it from the right side to the left in
O(1), the proxy score of a candidate cut, the node impurity, and scikit-learn's
floating-point score of a cut (the tie key, ``_common.wins``). The sections:
gini, entropy (information gain, log loss), gain ratio, squared error,
poisson, and the quantile criteria (absolute error is the quantile kernel at
0.5 with its loss counted twice).

The dispatchers at the end (``add_sample``, ``clf_move_count``, ``clf_proxy``,
``reg_proxy``, ``sklearn_score``, ``node_value``, ...) name every code they
serve and have no default branch: a code outside a dispatcher's family gives
no candidate (or adds nothing), never another criterion's number, and the
plan never makes such a code (``_plan.registry``; the splitters refuse an
unknown one, ``check_criterion``). Which scan a splitter runs is asked of a
property of the code (``is_classification``, ``is_quantile``,
``binary_scan``, ``sums_each_side``), never of the enum's order.

Adding a criterion: its row in ``_plan/registry.py`` (name, code, task, what
it lacks), its section here with its cases in the dispatchers (and, if its
node impurity is not a running-sum formula, ``output_impurity`` in
``_criterion.pyx``), and its tests.

Everything here is an inline ``cdef`` function so the C compiler inlines the
O(1) per-sample update into the splitter's scan loop: no virtual call per
sample (the design's answer to scikit-learn's ``Criterion.update`` vtable).
A split candidate is scored by a *proxy*: a quantity that orders candidates
exactly as the true impurity decrease does but is cheaper to evaluate. The
true decrease is computed once, for the chosen split only (``record_children``).
"""
from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, NAN, log, rint
from libc.string cimport memset

from ._common cimport check_cut, compare_score, CUT_SCORE, record_candidate, SearchSettings
from ._common cimport SplitRecord, tiny_weight, wins, word_t

# Criterion codes, fixed: the registry (``_plan.registry``) maps names to these numbers.
cdef enum:
    CRIT_GINI = 0
    CRIT_ENTROPY = 1
    CRIT_GAIN_RATIO = 2
    CRIT_SQUARED_ERROR = 3
    CRIT_POISSON = 4
    CRIT_ABSOLUTE_ERROR = 5   # the quantile kernel at 0.5, its loss counted twice
    CRIT_QUANTILE = 6


# ================================================================ codes and their properties

cdef inline bint known_criterion(int crit) noexcept nogil:
    return (crit == CRIT_GINI or crit == CRIT_ENTROPY or crit == CRIT_GAIN_RATIO
            or crit == CRIT_SQUARED_ERROR or crit == CRIT_POISSON
            or crit == CRIT_ABSOLUTE_ERROR or crit == CRIT_QUANTILE)


cdef inline int check_criterion(int crit) except -1:
    """ValueError for a code no section here implements (the plan never makes one)."""
    if not known_criterion(crit):
        raise ValueError(f"no criterion has the kernel code {crit}")
    return 0


# The properties are sets of codes, looked up as bits of a mask (one shift and
# one test in a scan's loop, whatever the order of the codes).
cdef enum:
    CODE_BITS = 31          # bits of a mask: codes 0..30
    CLASSIFICATION_CODES = (1 << CRIT_GINI) | (1 << CRIT_ENTROPY) | (1 << CRIT_GAIN_RATIO)
    ENTROPY_ACC_CODES = (1 << CRIT_ENTROPY) | (1 << CRIT_GAIN_RATIO)
    QUANTILE_CODES = (1 << CRIT_ABSOLUTE_ERROR) | (1 << CRIT_QUANTILE)


cdef inline bint in_codes(int mask, int crit) noexcept nogil:
    return 0 <= crit and crit < CODE_BITS and (mask >> crit) & 1


cdef inline bint is_classification(int crit) noexcept nogil:
    """A criterion of class counts (its statistics are the node's class weights)."""
    return in_codes(CLASSIFICATION_CODES, crit)


cdef inline bint entropy_acc(int crit) noexcept nogil:
    """A side's accumulator is entropy's, sum_k c_k ln c_k (entropy and gain ratio)."""
    return in_codes(ENTROPY_ACC_CODES, crit)


cdef inline bint is_quantile(int crit) noexcept nogil:
    """A criterion whose node value is a weighted quantile of the targets (not a mean):
    no running sum gives it, so the splitter keeps the node's targets in order."""
    return in_codes(QUANTILE_CODES, crit)


cdef inline bint is_squared_error(int crit) noexcept nogil:
    """Squared error: its scans of several outputs keep the sums in registers."""
    return crit == CRIT_SQUARED_ERROR


cdef inline bint binary_scan(int crit) noexcept nogil:
    """Two classes with unit weights scan from one running count (``_splitter``'s
    ``_scan_binary_gini``: every count an integer, the sums of squares exact)."""
    return crit == CRIT_GINI


cdef inline bint sums_each_side(int crit) noexcept nogil:
    """A random cut's sides are both summed, not one as the node minus the other, so
    that a side of target sum 0 comes out exactly 0 (poisson's mean must be > 0)."""
    return crit == CRIT_POISSON


cdef inline Py_ssize_t stats_size(int crit, Py_ssize_t n_classes) noexcept nogil:
    """Values of a node's statistics (per output): the class weights, or two sums of
    the targets (see each regression section)."""
    return n_classes if is_classification(crit) else 2


cdef struct Side:
    double w      # weighted number of samples on this side
    double acc    # gini: sum_k c_k^2; entropy: sum_k c_k ln c_k; squared error: sum w*y


cdef inline bint monotonic_ok(signed char cst, double lower, double upper, double value_left,
                              double value_right) noexcept nogil:
    # As scikit-learn: a constrained feature's split is made only if the children's
    # values keep the constraint's order and stay within the node's bounds; the
    # children's bounds meet at the middle of their values (``_grow``). A
    # classifier's value is the fraction of class 0 (scikit-learn constrains the
    # negative class with the signs flipped), a regressor's its mean or quantile.
    return (value_left >= lower and value_right >= lower and value_left <= upper
            and value_right <= upper and (value_left - value_right) * cst <= 0.0)


# ================================================================ gini
# A side's accumulator is sum_k c_k^2; the proxy sum_sides acc / w (= const -
# sum_sides w * gini) is kept as a fraction, numerator and denominator.

cdef inline void gini_move(Side* left, Side* right, double* cl, double* cr, Py_ssize_t k,
                           double w) noexcept nogil:
    # (c + w)^2 - c^2 = w (2c + w);  (c - w)^2 - c^2 = w (w - 2c)
    left.acc += w * (2.0 * cl[k] + w)
    right.acc += w * (w - 2.0 * cr[k])


cdef inline double gini_term(double c) noexcept nogil:
    # a class's share of a side's accumulator
    return c * c


cdef inline double gini_proxy(double wl, double accl, double wr, double accr,
                              double* denominator) noexcept nogil:
    # sum_sides acc / w, as a fraction (with several outputs acc sums every output's
    # counts: the outputs' mean impurity keeps this form)
    denominator[0] = wl * wr
    return accl * wr + accr * wl


cdef inline double gini_binary_proxy(double l0, double l1, double r0, double r1, double wl,
                                     double wr, double* denominator) noexcept nogil:
    # ``gini_proxy`` of two classes from the sides' counts (the same sums of squares,
    # exactly, where every count is an integer)
    denominator[0] = wl * wr
    return (l0 * l0 + l1 * l1) * wr + (r0 * r0 + r1 * r1) * wl


cdef inline double gini_impurity(const double* counts, Py_ssize_t n_classes,
                                 double w) noexcept nogil:
    # (also scikit-learn's for its score of a cut: the same sums in the same order)
    cdef double sq = 0.0
    cdef Py_ssize_t k
    for k in range(n_classes):
        sq += counts[k] * counts[k]
    return 1.0 - sq / (w * w)


cdef inline double gini_binary_key(double l1, double wl, double ones,
                                   double weight) noexcept nogil:
    # the tie key of a two-class gini cut from its left side's class-1 weight
    # (``sklearn_clf_score`` of one output)
    cdef double sides[4]      # (l0, l1) and (r0, r1)
    cdef double wr = weight - wl
    sides[0] = wl - l1
    sides[1] = l1
    sides[2] = wr - (ones - l1)
    sides[3] = ones - l1
    return -wr * gini_impurity(sides + 2, 2, wr) - wl * gini_impurity(sides, 2, wl)


# ================================================================ entropy (information gain)
# A side's accumulator is sum_k c_k ln c_k; the proxy sum_sides (acc - w ln w)
# (= -sum_sides w * H, H in nats). Every x ln x lies on a grid that makes every
# sum exact (``xlogx_table``): with unit weights every count is an integer and
# x ln x is looked up; with weights it is computed and rounded to the grid.

cdef inline double xlogx(double x) noexcept nogil:
    # x ln x with the limit 0 at 0 (and at the tiny negatives rounding can leave)
    if x > 0.0:
        return x * log(x)
    return 0.0


cdef inline double clogc(double c, const double* table) noexcept nogil:
    # ``table`` (``xlogx_table``): NULL, x ln x as computed; a lookup by integer
    # count (unit weights; table[0] = 0 ln 0 = 0); or a grid (weights; table[0] =
    # -1): x ln x rounded to a multiple of table[1] (table[2] its inverse), so
    # that a side's sum depends on its counts only, not on the scan's order.
    if table == NULL:
        return xlogx(c)
    if table[0] == 0.0:
        return table[<Py_ssize_t>c]
    return rint(xlogx(c) * table[2]) * table[1]


cdef inline void entropy_move(Side* left, Side* right, double* cl, double* cr, Py_ssize_t k,
                              double w, const double* table) noexcept nogil:
    left.acc += clogc(cl[k] + w, table) - clogc(cl[k], table)
    right.acc += clogc(cr[k] - w, table) - clogc(cr[k], table)


cdef inline double entropy_side_acc(const double* counts, Py_ssize_t K,
                                    const double* table) noexcept nogil:
    cdef double acc = 0.0
    cdef Py_ssize_t k
    for k in range(K):
        acc += clogc(counts[k], table)
    return acc


cdef inline double entropy_proxy(double accl, double hl, double accr, double hr,
                                 double n_outputs, double* denominator) noexcept nogil:
    # hl, hr: the sides' w ln w; with several outputs it counts once per output
    denominator[0] = 1.0
    return (accl - n_outputs * hl) + (accr - n_outputs * hr)


cdef inline double entropy_impurity(const double* counts, Py_ssize_t n_classes,
                                    double w) noexcept nogil:
    # In bits, as scikit-learn reports it; 0 for an empty node (C4.5 meets them).
    cdef double h = 0.0, p
    cdef Py_ssize_t k
    if w <= 0.0:
        return 0.0
    for k in range(n_classes):
        if counts[k] > 0.0:
            p = counts[k] / w
            h -= p * log(p)
    return h / 0.6931471805599453


cdef inline void entropy_sklearn_terms(double* impurity, const double* counts,
                                       Py_ssize_t n_classes, double w) noexcept nogil:
    # one output's entropy as scikit-learn computes it for its score (base 2, by
    # division), subtracted from ``impurity`` class by class in its order
    cdef double x
    cdef Py_ssize_t c
    for c in range(n_classes):
        x = counts[c]
        if x > 0.0:
            x /= w
            impurity[0] -= x * (log(x) / log(2.0))


# ================================================================ gain ratio
# C4.5's information gain over the split information, both scaled by the node's
# weight: w_node * H(node) (``w_node_entropy``) and w_node ln w_node
# (``wlogw_node``) are the node's terms; a side's accumulator is entropy's.
# A node reports entropy (the ratio belongs to a split, not to a node).

cdef inline void node_entropy_terms(int crit, const double* counts, Py_ssize_t K,
                                    double weight, const double* table, bint wanted,
                                    double* wlogw, double* w_node_entropy) noexcept nogil:
    """The node's terms of the gain ratio proxy, when the criterion (or ``wanted``:
    a multiway split) needs them; zeros otherwise."""
    wlogw[0] = 0.0
    w_node_entropy[0] = 0.0
    if crit == CRIT_GAIN_RATIO or wanted:
        wlogw[0] = clogc(weight, table)
        w_node_entropy[0] = wlogw[0] - entropy_side_acc(counts, K, table)


cdef inline double gain_ratio_proxy(double accl, double hl, double accr, double hr,
                                    double w_node_entropy, double wlogw_node,
                                    double* denominator) noexcept nogil:
    cdef double split_info = wlogw_node - hl - hr
    if split_info <= 0.0:
        denominator[0] = 1.0
        return 0.0
    denominator[0] = split_info
    return w_node_entropy - (hl - accl) - (hr - accr)


cdef inline bint multiway_proxy(int crit, double children, double split_info,
                                double w_node_entropy, double* num,
                                double* denominator) noexcept nogil:
    """Score of a multiway split (ID3, C4.5) as ``num`` / ``denominator``; False when it
    has none.

    ``children`` is sum over groups of (acc_g - w_g ln w_g) (entropy acc),
    ``split_info`` the groups' w_node ln w_node - sum_g w_g ln w_g.
    entropy: ``children``; gain ratio: the gain over the split information.
    """
    if crit == CRIT_GAIN_RATIO:
        if split_info <= 0.0:
            return False
        num[0] = w_node_entropy + children
        denominator[0] = split_info
        return True
    if crit == CRIT_ENTROPY:
        num[0] = children
        denominator[0] = 1.0
        return True
    return False


# ================================================================ squared error
# A node's statistics per output: (sum w*y, sum w*y^2); the proxy sum_sides
# (sum w*y)^2 / w (= const - sum_sides w * variance), as a fraction.

cdef inline void squared_error_add(double* stats, double y, double w) noexcept nogil:
    stats[0] += w * y
    stats[1] += w * y * y


cdef inline double mse_proxy(double wl, double sl, double wr, double sr,
                             double* denominator) noexcept nogil:
    denominator[0] = wl * wr
    return sl * sl * wr + sr * sr * wl


cdef inline double mse_outputs_proxy(double wl, const double* sl, double wr,
                                     const double* stats, Py_ssize_t n_outputs,
                                     double* denominator) noexcept nogil:
    # ``mse_proxy`` summed over outputs: the squares first, one product per side
    # (no branch); ``stats``: the node's, two per output
    cdef double sq_left = 0.0, sq_right = 0.0, sr
    cdef Py_ssize_t k
    for k in range(n_outputs):
        sr = stats[2 * k] - sl[k]
        sq_left += sl[k] * sl[k]
        sq_right += sr * sr
    denominator[0] = wl * wr
    return sq_left * wr + sq_right * wl


cdef inline double mse_impurity(double w, double s, double ss) noexcept nogil:
    cdef double mean = s / w
    return ss / w - mean * mean


cdef inline double sklearn_mse_score(const double* sl, const double* sr, Py_ssize_t stride,
                                     Py_ssize_t n_outputs, double wl, double wr) noexcept nogil:
    """scikit-learn's squared-error proxy, sum_k sl_k^2 / wl + sum_k sr_k^2 / wr (the
    right sums formed as it forms them: the node's totals minus the left ones)."""
    cdef double pl = 0.0, pr = 0.0
    cdef Py_ssize_t k
    for k in range(n_outputs):
        pl += sl[k * stride] * sl[k * stride]
        pr += sr[k * stride] * sr[k * stride]
    return pl / wl + pr / wr


# ================================================================ poisson
# A node's statistics per output: (sum w*y, sum w*y*ln y); scikit-learn's proxy
# sum_sides (sum w*y) ln(mean) orders candidates as the half Poisson deviance does.

cdef inline void poisson_add(double* stats, double y, double w) noexcept nogil:
    stats[0] += w * y
    if y > 0.0:     # y ln y -> 0 at 0
        stats[1] += w * y * log(y)


cdef inline double poisson_proxy(double wl, double sl, double wr, double sr,
                                 double* denominator) noexcept nogil:
    """A side whose sum is not positive makes no candidate (its mean would predict
    0): -inf. The right sum is the node's minus the left one, so a right side of
    zeros can keep a residue of rounding: a sum within rounding of the node's
    counts as 0 too (as a side's weight does, ``tiny_weight``)."""
    cdef double zero
    denominator[0] = 1.0
    zero = max(DBL_EPSILON, tiny_weight(sl + sr))
    if sl <= zero or sr <= zero:
        return -INFINITY
    return sl * log(sl / wl) + sr * log(sr / wr)


cdef inline double poisson_impurity(double w, double s, double sylogy) noexcept nogil:
    # half Poisson deviance per unit weight: (sum w y ln y - s ln(s / w)) / w;
    # infinite for a node whose mean is 0 (scikit-learn's convention)
    if s <= DBL_EPSILON:
        return INFINITY
    return (sylogy - s * log(s / w)) / w


# ================================================================ quantile and absolute error
# The pinball loss of level tau about q: sum over y > q of above * w (y - q) plus
# sum over y < q of below * w (q - y); (above, below) = (tau, 1 - tau) for the
# quantile criterion, (1, 1) for absolute error (twice the pinball loss at 0.5,
# so exactly scikit-learn's sum of absolute deviations). Its minimiser is the
# weighted tau-quantile: the smallest target whose cumulative weight exceeds
# tau * W, or, where the cumulative weight of the targets below it is exactly
# tau * W, the midpoint of that target and the one before (scikit-learn's
# weighted median, ``_weighted_percentile(..., average=True)``). Any q between
# the two gives the same loss, so the tie rule changes the value, never a split.

cdef struct QuantileLoss:
    double tau       # the level
    double above     # weight of the loss on targets above q
    double below     # ... and below q


cdef inline double pinball_loss(const QuantileLoss* ql, double q, double w_total,
                                double wy_total, double w_below,
                                double wy_below) noexcept nogil:
    """The loss about q from the weight and sum of w*y of the whole set and of the
    part below q (targets equal to q contribute nothing wherever they are counted)."""
    return (ql.above * ((wy_total - wy_below) - q * (w_total - w_below))
            + ql.below * (q * w_below - wy_below))


cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static __inline int dtree_ctz64(unsigned long long x) {
        unsigned long i; _BitScanForward64(&i, x); return (int)i; }
    static __inline int dtree_clz64(unsigned long long x) {
        unsigned long i; _BitScanReverse64(&i, x); return 63 - (int)i; }
    #else
    #define dtree_ctz64(x) __builtin_ctzll(x)
    #define dtree_clz64(x) __builtin_clzll(x)
    #endif
    """
    int dtree_ctz64(unsigned long long x) nogil   # x != 0
    int dtree_clz64(unsigned long long x) nogil


# A quantile scan needs the loss of every prefix and of every suffix of the node's
# samples in scan order (``sequence_losses`` in _splitter), each sample known by
# its target's rank in the node (0..n-1). Neither tracker below needs the quantile
# itself: any q between the candidates the tie rule averages gives the same loss,
# so the scans skip that rule (``quantile_stats`` applies it to the nodes' values).

cdef struct RankWalk:
    # unit weights: a set of the node's ranks (0..n-1) as the set bits of a bitset
    # (``flip`` 0: the prefixes, filled by ``rank_add``) or as its clear bits
    # below n (``flip`` ~0: the suffixes, the ranks the prefix has not taken,
    # emptied by ``rest_remove`` while the prefix fills, so they need no pass of
    # their own), and a pointer to the set's quantile with the count and sum of
    # the members below it. One add or removal moves the quantile by at most one
    # member (a word scan of the bitset), so a pass costs O(n) plus O(n log n / 64)
    # word reads; the prefix's and the suffix's pointers are independent chains
    # of work that the processor overlaps.
    word_t* bits
    word_t flip
    const double* ysorted   # the node's targets in ascending order: y of each rank
    Py_ssize_t count
    Py_ssize_t r            # the quantile's rank, -1 while empty
    Py_ssize_t below        # how many members lie below r
    double y_below          # ... and the sum of their targets
    double sy               # the sum of all members' targets
    bint half               # tau is 1/2: the count below is count // 2


cdef struct Fenwick:
    # weighted: prefix sums over the ranks of (w, w*y), interleaved and 1-based
    # (node i at [2i], [2i+1]); O(log n) per add and per quantile
    double* sums
    const double* ysorted
    Py_ssize_t n
    Py_ssize_t top          # the highest power of two <= n
    double w                # total weight added
    double wy               # total w*y added


cdef inline Py_ssize_t below_count(Py_ssize_t count, bint half, double tau) noexcept nogil:
    # how many members lie below the quantile: floor(tau * count), the rule of
    # fenwick_descend with unit weights
    return (count >> 1) if half else <Py_ssize_t>(tau * <double>count)


cdef inline Py_ssize_t next_present(const word_t* bits, Py_ssize_t r,
                                     word_t flip) noexcept nogil:
    # the smallest rank above r whose bit is set (flip 0) or clear (flip ~0); the
    # caller knows there is one below n
    cdef Py_ssize_t word = (r + 1) >> 6
    cdef word_t x = (bits[word] ^ flip) & ((~<word_t>0) << ((r + 1) & 63))
    while x == 0:
        word += 1
        x = bits[word] ^ flip
    return (word << 6) + dtree_ctz64(x)


cdef inline Py_ssize_t prev_present(const word_t* bits, Py_ssize_t r,
                                     word_t flip) noexcept nogil:
    # the largest rank below r whose bit is set (flip 0) or clear (flip ~0); the
    # caller knows there is one
    cdef Py_ssize_t word = r >> 6
    cdef word_t x = (bits[word] ^ flip) & (((<word_t>1) << (r & 63)) - 1)
    while x == 0:
        word -= 1
        x = bits[word] ^ flip
    return (word << 6) + 63 - dtree_clz64(x)


cdef inline void rank_reset(RankWalk* t, word_t* bits, const double* ysorted,
                            Py_ssize_t n, double tau) noexcept nogil:
    """An empty prefix over ``bits`` (room for (n >> 6) + 2 words: a sentinel rank
    n present, then clear bits, so the half-level updates may look for a
    neighbour they end up not using)."""
    memset(bits, 0, ((n >> 6) + 2) * sizeof(word_t))
    bits[n >> 6] |= (<word_t>1) << (n & 63)
    t.bits = bits
    t.flip = 0
    t.ysorted = ysorted
    t.half = tau == 0.5
    t.count = 0
    t.r = -1
    t.below = 0
    t.y_below = 0.0
    t.sy = 0.0


cdef inline void rank_add(RankWalk* t, Py_ssize_t rank, double tau) noexcept nogil:
    """Add the sample at ``rank`` (target ``ysorted[rank]``)."""
    cdef Py_ssize_t need
    cdef double y = t.ysorted[rank]
    t.bits[rank >> 6] |= (<word_t>1) << (rank & 63)
    t.count += 1
    t.sy += y
    if t.r < 0:
        t.r = rank
        return
    if rank < t.r:
        t.below += 1
        t.y_below += y
    # one add changes the count below the quantile and the count it needs by 0
    # or 1 each, so the pointer moves one step at most
    need = below_count(t.count, t.half, tau)
    if t.below > need:
        t.r = prev_present(t.bits, t.r, 0)
        t.below -= 1
        t.y_below -= t.ysorted[t.r]
    elif t.below < need:
        t.below += 1
        t.y_below += t.ysorted[t.r]
        t.r = next_present(t.bits, t.r, 0)


cdef inline void rank_add_half(RankWalk* t, Py_ssize_t rank) noexcept nogil:
    """``rank_add`` at tau = 1/2 (after the first add), without a branch on the
    side of the quantile the rank falls: with an odd count the quantile can only
    step down (to its predecessor, when the rank is below it), with an even
    count only up (to its successor, when the rank is above it), so the parity
    (which alternates, and the predictor follows) picks the neighbour, and a
    select picks between it and staying put."""
    cdef double y = t.ysorted[rank]
    cdef bint lt = rank < t.r
    cdef Py_ssize_t to
    t.bits[rank >> 6] |= (<word_t>1) << (rank & 63)
    t.count += 1
    t.sy += y
    if t.count & 1:
        to = prev_present(t.bits, t.r, 0)
        t.y_below += (y - t.ysorted[to]) if lt else 0.0
        t.r = to if lt else t.r
    else:
        to = next_present(t.bits, t.r, 0)    # (the sentinel, at worst)
        t.below += 1
        t.y_below += y if lt else t.ysorted[t.r]
        t.r = t.r if lt else to


cdef inline void rest_remove_half(RankWalk* c, Py_ssize_t rank) noexcept nogil:
    """``rest_remove`` at tau = 1/2, the same way as ``rank_add_half``: an odd
    count left means the quantile steps down unless the rank was below it, an
    even one that it steps up if the rank was at or below it."""
    cdef double y = c.ysorted[rank]
    cdef bint lt = rank < c.r
    cdef Py_ssize_t to
    c.count -= 1
    c.sy -= y
    if c.count & 1:
        to = prev_present(c.bits, c.r, ~<word_t>0)
        c.below -= 1
        c.y_below -= y if lt else c.ysorted[to]
        c.r = c.r if lt else to
    else:
        to = next_present(c.bits, c.r, ~<word_t>0)   # (past n at worst: clear bits)
        c.y_below += (c.ysorted[c.r] - y) if lt else 0.0
        c.r = to if rank <= c.r else c.r


cdef inline void rest_begin(RankWalk* c, const RankWalk* t, Py_ssize_t n, double tau,
                            const double* sums) noexcept nogil:
    """The suffixes' walk: all n ranks, which the prefix t (empty) has not taken
    yet; ``sums``: the sum of the n targets and of those below their quantile."""
    c.bits = t.bits
    c.flip = ~(<word_t>0)
    c.ysorted = t.ysorted
    c.half = t.half
    c.count = n
    c.below = below_count(n, c.half, tau)
    c.r = c.below
    c.sy = sums[0]
    c.y_below = sums[1]


cdef inline void rest_remove(RankWalk* c, Py_ssize_t rank, double tau) noexcept nogil:
    """The sample at ``rank`` has moved to the prefix (its bit is set now); at
    least one sample stays."""
    cdef Py_ssize_t need
    cdef double y = c.ysorted[rank]
    c.count -= 1
    c.sy -= y
    need = below_count(c.count, c.half, tau)
    if rank < c.r:
        c.below -= 1
        c.y_below -= y
    elif rank == c.r:
        # the quantile itself went: its successor has as many ranks below it
        if c.below == need:
            c.r = next_present(c.bits, c.r, ~<word_t>0)
            return
    if c.below > need:
        c.r = prev_present(c.bits, c.r, ~<word_t>0)
        c.below -= 1
        c.y_below -= c.ysorted[c.r]
    elif c.below < need:
        c.below += 1
        c.y_below += c.ysorted[c.r]
        c.r = next_present(c.bits, c.r, ~<word_t>0)


cdef inline double rank_loss(const RankWalk* t, const QuantileLoss* ql) noexcept nogil:
    """The pinball loss of the members about their quantile."""
    return pinball_loss(ql, t.ysorted[t.r], <double>t.count, t.sy, <double>t.below,
                        t.y_below)


cdef inline double rank_value(const RankWalk* t, const QuantileLoss* ql) noexcept nogil:
    """Their quantile with the tie rule (for the monotonic constraints, which
    compare the sides' values)."""
    cdef double q = t.ysorted[t.r]
    if t.below > 0 and <double>t.below == ql.tau * <double>t.count:
        q = 0.5 * (t.ysorted[prev_present(t.bits, t.r, t.flip)] + q)
    return q


cdef inline void fenwick_reset(Fenwick* t, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t top = 1
    memset(t.sums, 0, 2 * (n + 1) * sizeof(double))
    while top * 2 <= n:
        top *= 2
    t.n = n
    t.top = top
    t.w = 0.0
    t.wy = 0.0


cdef inline void fenwick_add(Fenwick* t, Py_ssize_t rank, double w) noexcept nogil:
    """Add the sample at ``rank`` with weight w."""
    cdef Py_ssize_t i = rank + 1
    cdef double wy = w * t.ysorted[rank]
    t.w += w
    t.wy += wy
    while i <= t.n:
        t.sums[2 * i] += w
        t.sums[2 * i + 1] += wy
        i += i & -i


cdef inline Py_ssize_t fenwick_descend(const Fenwick* t, double target, bint inclusive,
                                       double* w_below, double* wy_below) noexcept nogil:
    """The 0-based rank where the prefix weight first exceeds ``target``
    (``inclusive``) or first reaches it, with the sums of the ranks below it."""
    cdef Py_ssize_t pos = 0, bit = t.top, nxt
    cdef double acc = 0.0, accy = 0.0, node
    while bit:
        nxt = pos + bit
        if nxt <= t.n:
            node = t.sums[2 * nxt]
            if (acc + node <= target) if inclusive else (acc + node < target):
                pos = nxt
                acc += node
                accy += t.sums[2 * nxt + 1]
        bit >>= 1
    w_below[0] = acc
    wy_below[0] = accy
    return pos if pos < t.n else t.n - 1   # (a rounding guard: the last rank)


cdef inline double fenwick_loss(const Fenwick* t, const QuantileLoss* ql) noexcept nogil:
    """The pinball loss of the samples added, about their weighted quantile."""
    cdef double w_below, wy_below
    cdef Py_ssize_t r = fenwick_descend(t, ql.tau * t.w, True, &w_below, &wy_below)
    return pinball_loss(ql, t.ysorted[r], t.w, t.wy, w_below, wy_below)


cdef inline double fenwick_value(const Fenwick* t, const QuantileLoss* ql) noexcept nogil:
    """The weighted quantile of the samples added, with the tie rule."""
    cdef double target = ql.tau * t.w, w_below, wy_below, q
    cdef Py_ssize_t r = fenwick_descend(t, target, True, &w_below, &wy_below)
    q = t.ysorted[r]
    if w_below == target and w_below > 0.0:
        q = 0.5 * (t.ysorted[fenwick_descend(t, target, False, &w_below, &wy_below)] + q)
    return q


cdef inline void quantile_stats(const QuantileLoss* ql, const double* yw, Py_ssize_t n,
                                double* stats) noexcept nogil:
    """A node's statistics (its quantile, its loss) from its (y, w) pairs, interleaved
    in ascending order of y: the sequential twin of ``fenwick_loss``."""
    cdef double w_total = 0.0, wy_total = 0.0, target, acc = 0.0, accy = 0.0
    cdef double prev = 0.0, q
    cdef Py_ssize_t i
    for i in range(n):
        w_total += yw[2 * i + 1]
        wy_total += yw[2 * i + 1] * yw[2 * i]
    target = ql.tau * w_total
    i = 0
    while i < n - 1 and acc + yw[2 * i + 1] <= target:
        acc += yw[2 * i + 1]
        accy += yw[2 * i + 1] * yw[2 * i]
        if yw[2 * i + 1] > 0.0:
            prev = yw[2 * i]
        i += 1
    q = yw[2 * i] if n > 0 else 0.0
    if acc == target and acc > 0.0:
        q = 0.5 * (prev + q)
    stats[0] = q
    stats[1] = pinball_loss(ql, q, w_total, wy_total, acc, accy)


cdef QuantileLoss quantile_loss(int crit, double tau) noexcept nogil


# ================================================================ the dispatchers
# One per operation. Each names the codes it serves; a code outside them (which
# the plan never makes, and the splitters refuse) adds nothing and makes no
# candidate, never another criterion's number.

cdef inline void add_sample(double* stats, int crit, Py_ssize_t code, double y,
                            double w) noexcept nogil:
    """Add one sample (class ``code`` or target ``y``, weight ``w``) to a node's
    statistics. The quantile criteria's statistics (the node's quantile and its
    loss) come from its targets in order (``quantile_stats``): nothing to add."""
    if is_classification(crit):
        stats[code] += w
    elif crit == CRIT_SQUARED_ERROR:
        squared_error_add(stats, y, w)
    elif crit == CRIT_POISSON:
        poisson_add(stats, y, w)


cdef inline void add_outputs(double* stats, int crit, Py_ssize_t n_outputs, Py_ssize_t stride,
                             const int* codes, const double* targets, Py_ssize_t i,
                             double w) noexcept nogil:
    """Add sample i (its row of ``codes`` or ``targets``, by sample then output) to
    a node's statistics: one block of ``stride`` values per output."""
    cdef Py_ssize_t k
    for k in range(n_outputs):
        add_sample(stats + k * stride, crit, codes[i * n_outputs + k] if codes != NULL else 0,
                   targets[i * n_outputs + k] if targets != NULL else 0.0, w)


cdef inline void clf_move(int crit, Side* left, Side* right, double* cl, double* cr,
                          Py_ssize_t k, double w, const double* table) noexcept nogil:
    """Move one sample of class k and weight w from the right side to the left."""
    clf_move_count(crit, left, right, cl, cr, k, w, table)
    left.w += w


cdef inline void clf_move_count(int crit, Side* left, Side* right, double* cl, double* cr,
                                Py_ssize_t k, double w, const double* table) noexcept nogil:
    """Move weight w of count k from the right side to the left (the sides' weights
    are the caller's: a sample of several outputs moves one count per output)."""
    if crit == CRIT_GINI:
        gini_move(left, right, cl, cr, k, w)
    elif entropy_acc(crit):
        entropy_move(left, right, cl, cr, k, w, table)
    cl[k] += w
    cr[k] -= w


cdef inline double side_term(int crit, double c, const double* table) noexcept nogil:
    # one class count's share of a side's accumulator (see ``Side.acc``)
    if crit == CRIT_GINI:
        return gini_term(c)
    if entropy_acc(crit):
        return clogc(c, table)
    return 0.0


cdef inline double clf_side_acc(int crit, const double* counts, Py_ssize_t K,
                                const double* table) noexcept nogil:
    """A side's accumulator (see ``Side.acc``) from its class weights."""
    cdef double acc = 0.0
    cdef Py_ssize_t k
    for k in range(K):
        acc += side_term(crit, counts[k], table)
    return acc


cdef inline double clf_rest_acc(int crit, const double* total, const double* part,
                                Py_ssize_t K, const double* table) noexcept nogil:
    """The accumulator of ``total - part``: the right side of a cut."""
    cdef double acc = 0.0
    cdef Py_ssize_t k
    for k in range(K):
        acc += side_term(crit, total[k] - part[k], table)
    return acc


cdef inline double clf_proxy(int crit, double wl, double accl, double wr, double accr,
                             double w_node_entropy, double wlogw_node,
                             const double* table, double n_outputs,
                             double* denominator) noexcept nogil:
    """Score of a classification candidate as numerator / ``denominator``; larger is
    better (-inf: no candidate).

    The scan compares ``numerator > best * denominator`` (the denominator is
    positive), so no division is paid for candidates that do not improve. With
    several outputs ``acc`` sums every output's counts and the impurity is the
    outputs' mean (gain ratio is for one output).
    """
    cdef double hl, hr
    if crit == CRIT_GINI:
        return gini_proxy(wl, accl, wr, accr, denominator)
    hl = clogc(wl, table)
    hr = clogc(wr, table)
    if crit == CRIT_ENTROPY:
        return entropy_proxy(accl, hl, accr, hr, n_outputs, denominator)
    if crit == CRIT_GAIN_RATIO:
        return gain_ratio_proxy(accl, hl, accr, hr, w_node_entropy, wlogw_node, denominator)
    denominator[0] = 1.0
    return -INFINITY


cdef inline double reg_proxy(int crit, double wl, double sl, double wr, double sr,
                             double* denominator) noexcept nogil:
    """Score of a regression candidate from each side's weight and sum of w*y (-inf:
    no candidate; the quantile criteria score cuts from losses, not sums)."""
    if crit == CRIT_SQUARED_ERROR:
        return mse_proxy(wl, sl, wr, sr, denominator)
    if crit == CRIT_POISSON:
        return poisson_proxy(wl, sl, wr, sr, denominator)
    denominator[0] = 1.0
    return -INFINITY


cdef inline double reg_proxy_outputs(int crit, double wl, const double* sl, double wr,
                                     const double* stats, Py_ssize_t n_outputs,
                                     double* denominator) noexcept nogil:
    """``reg_proxy`` of several outputs: the sum of the outputs' (their impurity is
    the mean of theirs); ``sl`` the left side's sum of w*y per output, ``stats``
    the node's statistics (two per output). Any output without a valid side
    (poisson) makes no candidate."""
    cdef double num = 0.0, part
    cdef Py_ssize_t k
    if crit == CRIT_SQUARED_ERROR:
        return mse_outputs_proxy(wl, sl, wr, stats, n_outputs, denominator)
    if crit == CRIT_POISSON:
        for k in range(n_outputs):
            part = poisson_proxy(wl, sl[k], wr, stats[2 * k] - sl[k], denominator)
            if part == -INFINITY:
                return -INFINITY
            num += part
        return num
    denominator[0] = 1.0
    return -INFINITY


# ---------------------------------------------------------------- scikit-learn's scores
# dtree ranks candidates exactly (integer counts and sums give exact sums of
# squares and cross products), so candidates equal in real arithmetic tie. In
# scikit-learn they are scored in floating point and its rounding, not equal,
# decides between them. Computed from the same counts and sums (which for
# integer weights and targets are its own bit for bit, in whatever order it
# summed them), its score is the tie key (``_common.wins``) that makes the
# same choice. Only for exact ties: the score is never used to rank.

cdef inline double sklearn_clf_score(int crit, const double* cl, const double* cr,
                                     Py_ssize_t stride, Py_ssize_t n_outputs, double wl,
                                     double wr) noexcept nogil:
    """scikit-learn's proxy of a classification cut, -wr * impurity_right - wl *
    impurity_left, in its order of operations (gini and entropy; scikit-learn has
    no gain ratio: 0). ``cl``/``cr``: the sides' class weights, ``stride`` per output."""
    cdef double il = 0.0, ir = 0.0
    cdef Py_ssize_t k
    if crit != CRIT_GINI and crit != CRIT_ENTROPY:
        return 0.0
    for k in range(n_outputs):
        if crit == CRIT_GINI:
            il += gini_impurity(cl + k * stride, stride, wl)
            ir += gini_impurity(cr + k * stride, stride, wr)
        else:
            entropy_sklearn_terms(&il, cl + k * stride, stride, wl)
            entropy_sklearn_terms(&ir, cr + k * stride, stride, wr)
    il /= n_outputs
    ir /= n_outputs
    return -wr * ir - wl * il


cdef inline double sklearn_score(int crit, const double* left, const double* right,
                                 Py_ssize_t stride, Py_ssize_t n_outputs, double wl,
                                 double wr) noexcept nogil:
    """The tie key of a cut: scikit-learn's score for gini, entropy and squared
    error; 0 for poisson (its proxy is scikit-learn's already), gain ratio and the
    quantile criteria (they keep the first candidate seen). ``left``/``right``:
    the sides' class weights, or their sums of w*y, ``stride`` apart per output."""
    if is_classification(crit):
        return sklearn_clf_score(crit, left, right, stride, n_outputs, wl, wr)
    if crit == CRIT_SQUARED_ERROR:
        return sklearn_mse_score(left, right, stride, n_outputs, wl, wr)
    return 0.0


# ---------------------------------------------------------------- two-sample regression nodes
cdef inline double pair_proxy(int crit, double w0, double w1, const double* y0,
                              const double* y1, const double* stats, Py_ssize_t n_outputs,
                              double weight, double* sl, double* den,
                              double* key) noexcept nogil:
    """The proxy of a two-sample regression node's split, sample 0 left (weight
    ``w0``, targets ``y0``) and sample 1 right, and its tie key (``sl``: room for
    2 n_outputs sums). One output of squared error takes each side's own sum, so
    that the two orientations score equal to the bit and the tie key decides."""
    cdef Py_ssize_t k, K = n_outputs
    cdef double sl0, sr0, num
    key[0] = 0.0
    if K > 1:
        for k in range(K):
            sl[k] = w0 * y0[k]
        num = reg_proxy_outputs(crit, w0, sl, weight - w0, stats, K, den)
        for k in range(K):
            sl[K + k] = stats[2 * k] - sl[k]
        key[0] = sklearn_score(crit, sl, sl + K, 1, K, w0, weight - w0)
        return num
    sl0 = w0 * y0[0]
    if crit == CRIT_SQUARED_ERROR:
        sr0 = stats[0] - sl0
        key[0] = sklearn_score(crit, &sl0, &sr0, 1, 1, w0, weight - w0)
        return reg_proxy(crit, w0, sl0, w1, w1 * y1[0], den)
    return reg_proxy(crit, w0, sl0, weight - w0, stats[0] - sl0, den)


cdef inline bint pairs_decide(bint classes, const SearchSettings* settings,
                              const signed char* monotonic) noexcept nogil:
    """Whether a regression node of two samples is split by its pair's two
    orientations alone (``pair_offer``): no leaf-size limit or constraint can
    then refuse either."""
    return not (classes or settings.min_samples_leaf > 1 or settings.min_weight_leaf > 0.0
                or monotonic != NULL)


cdef struct PairScan:
    # a two-sample regression node's search (``pair_offer``): its two orientations
    Py_ssize_t first_left       # the sample the first visited feature puts left, -1 before
    bint scored[2]              # orientation 0: first_left left; 1: the other one left
    double num[2]
    double den[2]
    double key[2]


cdef inline void pair_begin(PairScan* ps) noexcept nogil:
    ps.first_left = -1
    ps.scored[0] = False
    ps.scored[1] = False


cdef inline bint pair_offer(PairScan* ps, SplitRecord* best, Py_ssize_t f, Py_ssize_t first,
                            Py_ssize_t second, double threshold, int crit,
                            const double* sw, const double* y, const double* stats,
                            Py_ssize_t n_outputs, double weight, double* sl) noexcept nogil:
    """A two-sample regression node: visited feature f sends sample ``first`` left
    and ``second`` right at ``threshold``. Only two candidates exist, one per
    orientation, each scored once (``pair_proxy``; the quantile criteria lose
    nothing either way); the features compete in visiting order by the rule of the
    scans. ``y``: targets by sample, then output. Returns False when the node must
    be scanned after all (a weight within rounding of 0, or no valid candidate)."""
    cdef int o, order
    cdef double w0, w1
    if ps.first_left < 0:
        ps.first_left = first
    o = 0 if first == ps.first_left else 1
    if not ps.scored[o]:
        ps.scored[o] = True
        w0 = sw[first] if sw != NULL else 1.0
        w1 = sw[second] if sw != NULL else 1.0
        if w0 <= tiny_weight(weight) or w1 <= tiny_weight(weight):
            return False
        if is_quantile(crit):
            ps.num[o], ps.den[o], ps.key[o] = 0.0, 1.0, 0.0
        else:
            ps.num[o] = pair_proxy(crit, w0, w1, y + first * n_outputs,
                                   y + second * n_outputs, stats, n_outputs, weight, sl,
                                   &ps.den[o], &ps.key[o])
        if ps.num[o] == -INFINITY:
            return False
    order = compare_score(ps.num[o], ps.den[o], best)
    if wins(order, ps.key[o], best):
        record_candidate(best, ps.num[o], ps.den[o], f, False, False, False)
        best.tie_key = ps.key[o]
        best.threshold = threshold
    return True



# ---------------------------------------------------------------- node values and random cuts
cdef inline double node_value(int crit, const double* stats, double w) noexcept nogil:
    """A node's value from its statistics: its quantile, its mean, or (a classifier)
    its class-0 fraction, which the monotonic constraints order."""
    if is_quantile(crit):
        return stats[0]
    if known_criterion(crit):
        return stats[0] / w
    return NAN


cdef inline double middle_value(int crit, const double* left, double wl, const double* right,
                                double wr) noexcept nogil:
    """The middle of two children's values, where their monotonic bounds meet."""
    if is_quantile(crit):
        return (left[0] + right[0]) / 2.0
    if known_criterion(crit):
        return left[0] / (2.0 * wl) + right[0] / (2.0 * wr)
    return NAN


cdef inline double cut_proxy(int crit, const double* stats, double weight,
                             const double* left, double wl, Py_ssize_t S,
                             Py_ssize_t n_outputs, const double* table, double* sums,
                             double* den) noexcept nogil:
    """The proxy (``clf_proxy`` / ``reg_proxy_outputs``) of a cut given its left
    child's statistics ``left`` and weight ``wl`` in a node of statistics ``stats``:
    how random cuts compete, as scikit-learn's random splitter compares them (the
    proxy orders cuts as the impurity decrease does, and holds only the sums the
    scans hold, so that cuts making the same children tie exactly). ``sums``: room
    for n_outputs values."""
    cdef double wr = weight - wl, wlogw, w_node_entropy
    cdef Py_ssize_t k
    if is_classification(crit):
        node_entropy_terms(crit, stats, S, weight, table, False, &wlogw, &w_node_entropy)
        return clf_proxy(crit, wl, clf_side_acc(crit, left, S, table), wr,
                         clf_rest_acc(crit, stats, left, S, table), w_node_entropy, wlogw,
                         table, <double>n_outputs, den)
    for k in range(n_outputs):
        sums[k] = left[2 * k]
    return reg_proxy_outputs(crit, wl, sums, wr, stats, n_outputs, den)


cdef inline bint random_cut_admissible(const SplitRecord* cut, Py_ssize_t n_left,
                                       Py_ssize_t n_node, const double* child_stats,
                                       Py_ssize_t S, int crit, signed char mono, double lower,
                                       double upper, Py_ssize_t min_leaf, double min_wleaf,
                                       double weight) noexcept nogil:
    """Whether a random cut, its children recorded (``record_children``), meets the
    leaf-size rules, gives children of finite impurity (poisson: no child of mean
    0) and keeps its feature's monotonic constraint ``mono``."""
    cdef double vl, vr
    if check_cut(n_left, n_node, cut.weight_left, cut.weight_right, min_leaf, min_wleaf,
                 tiny_weight(weight)) != CUT_SCORE:
        return False
    if not (cut.impurity_left < INFINITY and cut.impurity_right < INFINITY):
        return False
    if mono == 0:
        return True
    if is_classification(crit):
        vl = child_stats[0] / cut.weight_left
        vr = child_stats[S] / cut.weight_right
    else:
        vl = node_value(crit, child_stats, cut.weight_left)
        vr = node_value(crit, child_stats + S, cut.weight_right)
    return monotonic_ok(mono, lower, upper, vl, vr)



# ---------------------------------------------------------------- impurities
cdef double node_impurity(int crit, const double* stats, Py_ssize_t n_stats,
                          double w, Py_ssize_t n_outputs) noexcept nogil


cdef inline void record_children(SplitRecord* split, int crit, Py_ssize_t pos,
                                 const double* child_stats, Py_ssize_t S,
                                 Py_ssize_t n_outputs, const double* weights, double weight,
                                 double impurity, double weight_root) noexcept nogil:
    """A chosen split's children (from their statistics, left then right) and its
    improvement: scikit-learn's weighted impurity decrease."""
    split.pos = pos
    split.weight_left = weights[0]
    split.weight_right = weights[1]
    split.impurity_left = node_impurity(crit, child_stats, S, weights[0], n_outputs)
    split.impurity_right = node_impurity(crit, child_stats + S, S, weights[1], n_outputs)
    split.improvement = (weight / weight_root) * (
        impurity
        - split.weight_right / weight * split.impurity_right
        - split.weight_left / weight * split.impurity_left)
