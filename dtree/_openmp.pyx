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


cdef enum:
    # (sample, feature) pairs a fit needs per thread the default n_jobs starts:
    # below about a million, a second thread saved less than its parallel regions
    # cost on a busy machine (each region waits for every thread, and a thread the
    # system has set aside arrives late; measured on 20,000 x 10: 1.3-2.5x slower)
    DEFAULT_THREAD_WORK = 1 << 20


def useful_threads(Py_ssize_t threads, Py_ssize_t n_samples, Py_ssize_t n_features,
                   bint by_default=False):
    """``threads`` bounded by the work of a fit of ``n_samples`` x ``n_features``: one
    thread per PARALLEL_WORK (sample, feature) pairs, at least one; per
    DEFAULT_THREAD_WORK pairs when the threads are the default's (``by_default``:
    n_jobs=None), which must never be slower than one thread. A small fit then
    starts no thread team at all: idle OpenMP threads spin-wait, and on a busy
    machine they take the cores the fit itself needs. The tree is the same for any
    thread count."""
    # (X of that shape is in memory: the product cannot overflow)
    cdef Py_ssize_t per_thread = DEFAULT_THREAD_WORK if by_default else PARALLEL_WORK
    cdef Py_ssize_t blocks = max(n_samples, 0) * max(n_features, 1) // per_thread
    return max(1, min(threads, blocks))
