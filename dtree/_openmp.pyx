# cython: language_level=3
"""Whether this build runs on several threads (OpenMP), the runtime's thread budget,
and the threads a fit's data can use."""
from ._common cimport PARALLEL_WORK

cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    #define DTREE_OPENMP 1
    static int dtree_openmp_threads(void) { return omp_get_max_threads(); }
    #else
    #define DTREE_OPENMP 0
    static int dtree_openmp_threads(void) { return 1; }
    #endif
    """
    int DTREE_OPENMP
    int dtree_openmp_threads() nogil


def openmp_enabled():
    """Whether this build runs fits and predictions on several threads (OpenMP)."""
    return bool(DTREE_OPENMP)


def openmp_threads():
    """The OpenMP runtime's thread budget for this thread (OMP_NUM_THREADS, or what
    threadpoolctl set: joblib's workers get one)."""
    return dtree_openmp_threads()


def useful_threads(Py_ssize_t threads, Py_ssize_t n_samples, Py_ssize_t n_features):
    """``threads`` bounded by the work of a fit of ``n_samples`` x ``n_features``: one
    thread per PARALLEL_WORK (sample, feature) pairs, at least one. A small fit then
    starts no thread team at all: idle OpenMP threads spin-wait, and on a busy
    machine they take the cores the fit itself needs. The tree is the same for any
    thread count."""
    # (X of that shape is in memory: the product cannot overflow)
    cdef Py_ssize_t blocks = max(n_samples, 0) * max(n_features, 1) // PARALLEL_WORK
    return max(1, min(threads, blocks))
