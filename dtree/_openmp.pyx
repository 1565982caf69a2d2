# cython: language_level=3
"""Whether this build runs on several threads (OpenMP), and the runtime's thread budget."""

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
