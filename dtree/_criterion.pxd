# cython: language_level=3
"""Every criterion's kernels: the only place a criterion is spelt out.

A node's statistics (``add_sample``), a scan's O(1) move and a side's
accumulator, the proxy score of a candidate, the node impurity and the chosen
split's children (``record_children``), for both splitters, the growers and
C4.5. Adding a criterion means a kernel here plus an entry in ``CRITERIA``.
Everything here is an inline ``cdef`` function so the C compiler inlines the
O(1) per-sample update into the splitter's scan loop: no virtual call per
sample (the design's answer to scikit-learn's ``Criterion.update`` vtable).

A split candidate is scored by a *proxy*: a quantity that orders candidates
exactly as the true impurity decrease does but is cheaper to evaluate. The
true decrease is computed once, for the chosen split only.
"""
from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, log

from ._common cimport SplitRecord, tiny_weight

# Criterion codes, fixed: the Python layer maps names to these numbers.
cdef enum:
    CRIT_GINI = 0
    CRIT_ENTROPY = 1
    CRIT_GAIN_RATIO = 2
    CRIT_SQUARED_ERROR = 3
    CRIT_POISSON = 4


cdef inline bint is_classification(int crit) noexcept nogil:
    return crit <= CRIT_GAIN_RATIO


cdef inline Py_ssize_t stats_size(int crit, Py_ssize_t n_classes) noexcept nogil:
    """Values of a node's statistics: the class weights, or two sums of the targets.

    squared error: (sum w*y, sum w*y^2); poisson: (sum w*y, sum w*y*ln y).
    """
    return n_classes if is_classification(crit) else 2


cdef inline void add_sample(double* stats, int crit, Py_ssize_t code, double y,
                            double w) noexcept nogil:
    """Add one sample (class ``code`` or target ``y``, weight ``w``) to a node's statistics."""
    if crit <= CRIT_GAIN_RATIO:
        stats[code] += w
    elif crit == CRIT_POISSON:
        stats[0] += w * y
        if y > 0.0:     # y ln y -> 0 at 0
            stats[1] += w * y * log(y)
    else:
        stats[0] += w * y
        stats[1] += w * y * y


cdef struct Side:
    double w      # weighted number of samples on this side
    double acc    # gini: sum_k c_k^2; entropy: sum_k c_k ln c_k; squared error: sum w*y


cdef inline double xlogx(double x) noexcept nogil:
    # x ln x with the limit 0 at 0 (and at the tiny negatives rounding can leave)
    if x > 0.0:
        return x * log(x)
    return 0.0


cdef inline double clogc(double c, const double* table) noexcept nogil:
    # With unit weights every count is an integer: a table lookup replaces log().
    if table != NULL:
        return table[<Py_ssize_t>c]
    return xlogx(c)


cdef inline void clf_move(int crit, Side* left, Side* right, double* cl, double* cr,
                          Py_ssize_t k, double w, const double* table) noexcept nogil:
    """Move one sample of class k and weight w from the right side to the left."""
    if crit == CRIT_GINI:
        # (c + w)^2 - c^2 = w (2c + w);  (c - w)^2 - c^2 = w (w - 2c)
        left.acc += w * (2.0 * cl[k] + w)
        right.acc += w * (w - 2.0 * cr[k])
    else:
        left.acc += clogc(cl[k] + w, table) - clogc(cl[k], table)
        right.acc += clogc(cr[k] - w, table) - clogc(cr[k], table)
    cl[k] += w
    cr[k] -= w
    left.w += w


cdef inline double clf_side_acc(int crit, const double* counts, Py_ssize_t K,
                                const double* table) noexcept nogil:
    """A side's accumulator (see ``Side.acc``) from its class weights."""
    cdef double acc = 0.0
    cdef Py_ssize_t k
    for k in range(K):
        if crit == CRIT_GINI:
            acc += counts[k] * counts[k]
        else:
            acc += clogc(counts[k], table)
    return acc


cdef inline double clf_rest_acc(int crit, const double* total, const double* part,
                                Py_ssize_t K, const double* table) noexcept nogil:
    """The accumulator of ``total - part``: the right side of a cut."""
    cdef double acc = 0.0, c
    cdef Py_ssize_t k
    for k in range(K):
        c = total[k] - part[k]
        if crit == CRIT_GINI:
            acc += c * c
        else:
            acc += clogc(c, table)
    return acc


cdef inline void node_entropy_terms(int crit, const double* counts, Py_ssize_t K,
                                    double weight, const double* table, bint wanted,
                                    double* wlogw, double* w_node_entropy) noexcept nogil:
    """The node's terms of the gain ratio proxy (see clf_proxy), when the criterion
    (or ``wanted``: a multiway split) needs them; zeros otherwise."""
    wlogw[0] = 0.0
    w_node_entropy[0] = 0.0
    if crit == CRIT_GAIN_RATIO or wanted:
        wlogw[0] = clogc(weight, table)
        w_node_entropy[0] = wlogw[0] - clf_side_acc(CRIT_ENTROPY, counts, K, table)


cdef inline double clf_proxy(int crit, double wl, double accl, double wr, double accr,
                             double w_node_entropy, double wlogw_node,
                             const double* table, double* denominator) noexcept nogil:
    """Score of a classification candidate as numerator / ``denominator``; larger is better.

    The scan compares ``numerator > best * denominator`` (the denominator is
    positive), so no division is paid for candidates that do not improve.

    gini:       sum_sides acc/w           (= const - sum_sides w * gini)
    entropy:    sum_sides (acc - w ln w)  (= -sum_sides w * H, H in nats)
    gain_ratio: information gain / split information, both scaled by w_node
                (``w_node_entropy`` is w_node * H(node) in nats, ``wlogw_node``
                is w_node ln w_node).
    """
    cdef double hl, hr, split_info
    if crit == CRIT_GINI:
        denominator[0] = wl * wr
        return accl * wr + accr * wl
    hl = clogc(wl, table)
    hr = clogc(wr, table)
    if crit == CRIT_ENTROPY:
        denominator[0] = 1.0
        return (accl - hl) + (accr - hr)
    split_info = wlogw_node - hl - hr
    if split_info <= 0.0:
        denominator[0] = 1.0
        return 0.0
    denominator[0] = split_info
    return w_node_entropy - (hl - accl) - (hr - accr)


cdef inline bint multiway_proxy(int crit, double children, double split_info,
                                double w_node_entropy, double* num,
                                double* denominator) noexcept nogil:
    """Score of a multiway split as ``num`` / ``denominator``; False when it has none.

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
    num[0] = children
    denominator[0] = 1.0
    return True


cdef inline double mse_proxy(double wl, double sl, double wr, double sr,
                             double* denominator) noexcept nogil:
    # sum_sides (sum w*y)^2 / w  (= const - sum_sides w * variance), as a fraction
    denominator[0] = wl * wr
    return sl * sl * wr + sr * sr * wl


cdef inline double reg_proxy(int crit, double wl, double sl, double wr, double sr,
                             double* denominator) noexcept nogil:
    """Score of a regression candidate from each side's weight and sum of w*y.

    squared error: ``mse_proxy``. poisson (scikit-learn's proxy): sum_sides
    (sum w*y) ln(mean), which orders candidates as the half Poisson deviance
    does; a side whose sum is not positive makes no candidate (its mean would
    predict 0): -inf. The right sum is the node's minus the left one, so a
    right side of zeros can keep a residue of rounding: a sum within rounding
    of the node's counts as 0 too (as a side's weight does, ``tiny_weight``).
    """
    cdef double zero
    if crit == CRIT_POISSON:
        denominator[0] = 1.0
        zero = max(DBL_EPSILON, tiny_weight(sl + sr))
        if sl <= zero or sr <= zero:
            return -INFINITY
        return sl * log(sl / wl) + sr * log(sr / wr)
    return mse_proxy(wl, sl, wr, sr, denominator)


cdef inline double gini_impurity(const double* counts, Py_ssize_t n_classes,
                                 double w) noexcept nogil:
    cdef double sq = 0.0
    cdef Py_ssize_t k
    for k in range(n_classes):
        sq += counts[k] * counts[k]
    return 1.0 - sq / (w * w)


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


cdef inline double mse_impurity(double w, double s, double ss) noexcept nogil:
    cdef double mean = s / w
    return ss / w - mean * mean


cdef inline double poisson_impurity(double w, double s, double sylogy) noexcept nogil:
    # half Poisson deviance per unit weight: (sum w y ln y - s ln(s / w)) / w;
    # infinite for a node whose mean is 0 (scikit-learn's convention)
    if s <= DBL_EPSILON:
        return INFINITY
    return (sylogy - s * log(s / w)) / w


cdef double node_impurity(int crit, const double* stats, Py_ssize_t n_stats,
                          double w) noexcept nogil


cdef inline void record_children(SplitRecord* split, int crit, Py_ssize_t pos,
                                 const double* child_stats, Py_ssize_t S,
                                 const double* weights, double weight, double impurity,
                                 double weight_root) noexcept nogil:
    """A chosen split's children (from their statistics, left then right) and its
    improvement: scikit-learn's weighted impurity decrease."""
    split.pos = pos
    split.weight_left = weights[0]
    split.weight_right = weights[1]
    split.impurity_left = node_impurity(crit, child_stats, S, weights[0])
    split.impurity_right = node_impurity(crit, child_stats + S, S, weights[1])
    split.improvement = (weight / weight_root) * (
        impurity
        - split.weight_right / weight * split.impurity_right
        - split.weight_left / weight * split.impurity_left)
