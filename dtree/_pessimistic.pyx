# cython: language_level=3
"""C4.5's pessimistic error bound: the upper limit of the binomial confidence interval.

``binomial_upper_bounds(errors, n, cf)`` gives, per node, the error rate U_cf(E, N)
that C4.5's pruning multiplies by the node's cases; computed in C through the
regularized incomplete beta function.
"""
import numpy as np

from libc.math cimport exp, fabs, lgamma, log, log1p, pow

ctypedef Py_ssize_t intp_t


cdef double continued_fraction(double a, double b, double x) noexcept nogil:
    # the incomplete beta function's continued fraction, evaluated by modified Lentz
    cdef double tiny = 1e-300, qab = a + b, qap = a + 1.0, qam = a - 1.0
    cdef double c = 1.0, d = 1.0 - qab * x / qap, h, aa, step
    cdef int m, m2
    d = 1.0 / (d if fabs(d) > tiny else tiny)
    h = d
    for m in range(1, 100000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if fabs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if fabs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if fabs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if fabs(c) > tiny else tiny
        step = d * c
        h *= step
        if fabs(step - 1.0) < 1e-15:
            break
    return h


cdef double regularized_beta(double a, double b, double x) noexcept nogil:
    """I_x(a, b) for a, b > 0."""
    cdef double front
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * continued_fraction(a, b, x) / a
    return 1.0 - front * continued_fraction(b, a, 1.0 - x) / b


cdef double upper_bound(double errors, double n, double cf) noexcept nogil:
    cdef double lo, hi, mid
    cdef int it
    if n <= 0.0:
        return 0.0
    if errors <= 0.0:
        return 1.0 - pow(cf, 1.0 / n)
    if errors >= n:
        return 1.0
    lo = errors / n
    hi = 1.0
    for it in range(100):
        mid = (lo + hi) / 2.0
        if mid <= lo or mid >= hi:
            break
        # P(X <= errors | n, p) = I_{1-p}(n - errors, errors + 1)
        if regularized_beta(n - errors, errors + 1.0, 1.0 - mid) > cf:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def binomial_upper_bounds(errors, n, double cf):
    """C4.5's pessimistic error rates: per pair, the p with P(X <= errors | n, p) = cf.

    ``X`` is binomial(n, p); weighted (non-integer) counts use the incomplete
    beta form of the binomial tail.

    Parameters
    ----------
    errors, n : array-like of float, same shape
    cf : float
        Confidence, in (0, 0.5].

    Returns
    -------
    ndarray of float64
    """
    e = np.ascontiguousarray(errors, dtype=np.float64).ravel()
    t = np.ascontiguousarray(n, dtype=np.float64).ravel()
    out = np.empty(e.shape[0], dtype=np.float64)
    cdef const double[::1] ev = e, tv = t
    cdef double[::1] ov = out
    cdef intp_t i
    with nogil:
        for i in range(ev.shape[0]):
            ov[i] = upper_bound(ev[i], tv[i], cf)
    return out.reshape(np.shape(errors))
