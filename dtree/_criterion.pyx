# cython: language_level=3
"""Impurity kernels: node impurity from class counts or moments.

The inline per-sample kernels live in ``_criterion.pxd``; this module holds the
node-level impurity and small Python entry points used by tests and by the
Python layer (for example to score a node by hand). Criteria are known here by
their codes only; their names are the registry's (``_plan.registry``).
"""
import math

import numpy as np

from libc.math cimport NAN


cdef QuantileLoss quantile_loss(int crit, double tau) noexcept nogil:
    """The pinball loss a quantile criterion minimises (see ``QuantileLoss``):
    absolute error's is twice the loss at 1/2; the quantile criterion's is at its
    level ``tau`` (which the other criteria carry unused)."""
    cdef QuantileLoss ql
    if crit == CRIT_ABSOLUTE_ERROR:
        ql.tau = 0.5
        ql.above = 1.0
        ql.below = 1.0
        return ql
    ql.tau = tau
    ql.above = tau
    ql.below = 1.0 - tau
    return ql


cdef double node_impurity(int crit, const double* stats, Py_ssize_t n_stats,
                          double w, Py_ssize_t n_outputs) noexcept nogil:
    """Impurity of a node from its statistics: with several outputs (``n_outputs``
    equal blocks of ``stats``) the mean of theirs, as scikit-learn's."""
    cdef Py_ssize_t stride, k
    cdef double total = 0.0
    if n_outputs <= 1:
        return output_impurity(crit, stats, n_stats, w)
    stride = n_stats // n_outputs
    for k in range(n_outputs):
        total += output_impurity(crit, stats + k * stride, stride, w)
    return total / <double>n_outputs


cdef double output_impurity(int crit, const double* stats, Py_ssize_t n_stats,
                            double w) noexcept nogil:
    """Impurity of one output of a node from its statistics.

    Classification: ``stats`` holds the weighted class counts. Gain ratio nodes
    report entropy (the ratio belongs to a split, not to a node).
    Regression: ``stats`` as ``stats_size`` says; a quantile criterion's
    impurity is its mean loss.
    """
    if crit == CRIT_GINI:
        return gini_impurity(stats, n_stats, w)
    if entropy_acc(crit):
        return entropy_impurity(stats, n_stats, w)
    if crit == CRIT_SQUARED_ERROR:
        return mse_impurity(w, stats[0], stats[1])
    if crit == CRIT_POISSON:
        return poisson_impurity(w, stats[0], stats[1])
    if is_quantile(crit):
        return stats[1] / w
    return NAN


def xlogx_table(int crit, Py_ssize_t n_samples, total_weight=None, Py_ssize_t n_outputs=1,
                Py_ssize_t n_stats=1):
    """How the entropy criteria compute x ln x (``clogc``), or None where they need
    not (other criteria, or weights whose total is not known here: x ln x as
    computed).

    Every x ln x is put on a grid of step 2^s, s chosen so that every
    accumulator and score of a scan (at most n_outputs * N ln N in size, plus a
    term per class for counts below 1) stays below 2^(53-s): then every
    addition and subtraction of entries is exact, a side's accumulator depends
    only on its counts, not on the order the scan moved them in, and two
    candidates with the same counts (the missing values sent left or right of
    a symmetric node, two features cutting the same rows) score exactly alike,
    as scikit-learn's scores do. The grid step is the size of a double's own
    rounding at that magnitude.

    Unit weights (``total_weight`` None): every class count is an integer of at
    most n_samples, so the table holds n ln n for n = 0..n_samples (entry 0 is
    0). Weights summing to ``total_weight`` (brought to one power-of-two unit
    first, ``_model.units``): [-1, step, 1 / step], and each x ln x is rounded
    to the grid as it is computed.
    """
    if not entropy_acc(crit):
        return None
    if total_weight is None:
        grid = np.arange(n_samples + 1, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            exact = np.where(grid > 0, grid * np.log(np.maximum(grid, 1.0)), 0.0)
        return on_exact_grid(exact, max(n_outputs, 1) * (exact[-1] if n_samples > 0 else 0.0))
    total = float(total_weight)
    if not (math.isfinite(total) and total > 0.0):
        return None
    # |c ln c| <= W |ln W| + W for a count c <= W, and below 1/e for each count
    # under 1: each of n_stats of them
    bound = 2.0 * max(n_outputs, 1) * (total * (abs(math.log(total)) + 1.0) + n_stats)
    step = math.ldexp(1.0, _grid_exponent(bound))
    return np.array([-1.0, step, 1.0 / step])


def _grid_exponent(bound):
    """The exponent of the finest grid on which sums up to ``bound`` are exact."""
    return int(np.ceil(np.log2(bound + 2.0))) - 53


def on_exact_grid(values, bound):
    """``values`` rounded to the finest power-of-two grid on which sums of
    magnitude up to ``bound`` are exact doubles."""
    step_exp = _grid_exponent(bound)
    return np.ldexp(np.round(np.ldexp(values, -step_exp)), step_exp)


def node_impurity_of(int crit, counts, double quantile=0.5):
    """Impurity of one node under the criterion of code ``crit`` (see
    ``dtree._fit.gains.impurity``, which takes the criterion's name)."""
    check_criterion(crit)
    values = np.ascontiguousarray(counts, dtype=np.float64).ravel()
    cdef double[::1] v
    cdef double stats[2]
    cdef QuantileLoss ql
    if not is_classification(crit):
        if values.size == 0:
            raise ValueError("impurity of an empty node is undefined")
        if is_quantile(crit):
            ql = quantile_loss(crit, quantile)
            pairs = np.ones((values.size, 2))
            pairs[:, 0] = np.sort(values)
            v = pairs.ravel()
            quantile_stats(&ql, &v[0], values.size, stats)
            return node_impurity(crit, stats, 2, <double>values.size, 1)
        stats[0] = stats[1] = 0.0
        for value in values:
            add_sample(stats, crit, 0, value, 1.0)
        return node_impurity(crit, stats, 2, <double>values.size, 1)
    if values.size == 0 or values.sum() <= 0 or (values < 0).any():
        raise ValueError("counts must be non-negative with a positive sum")
    v = values
    return node_impurity(crit, &v[0], v.shape[0], values.sum(), 1)


def kernel_codes():
    """``{code: (classification, quantile)}`` for every code a section implements:
    what the registry's rows are checked against."""
    return {code: (bool(is_classification(code)), bool(is_quantile(code)))
            for code in range(32) if known_criterion(code)}


def gini_impurities(const double[:, ::1] counts, const double[::1] weight):
    """Each row's Gini impurity from its weighted class counts and weight, as the
    kernels compute a node's (``gini_impurity``): a pickle or model file that
    leaves a classifier's impurities out computes them again with this
    (``_model.compact``)."""
    cdef Py_ssize_t n = counts.shape[0], i
    if weight.shape[0] != n:
        raise ValueError("one weight per row of counts")
    out = np.empty(n)
    cdef double[::1] view = out
    with nogil:
        for i in range(n):
            view[i] = gini_impurity(&counts[i, 0], counts.shape[1], weight[i])
    return out
