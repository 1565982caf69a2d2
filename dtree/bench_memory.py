"""Peak memory as ``python -m dtree.bench`` measures it, in one place for its tables."""
import tracemalloc


def peak_bytes(fn):
    """Peak memory traced while ``fn()`` runs (numpy arrays and Python objects), bytes.

    tracemalloc sees numpy's buffers and Python objects; memory a compiled kernel
    takes with ``malloc`` escapes it.
    """
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
