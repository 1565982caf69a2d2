"""Node columns in as few bytes as hold them exactly, and back.

A fitted tree's integer columns (node ids, features, counts, depths) rarely need
8 bytes, a forest's weighted counts are whole numbers (bootstrap counts), and a
split's range holds X's float32 values: pickles and forest model files keep
them narrow (``narrow_ints``, ``narrow_reals``) and readers widen them back to
the dtypes the tree holds (``widened``), bit for bit. Differences that are
mostly small, of either sign, are coded as small non-negative numbers
(``zigzag``).
"""
import numpy as np

SMALL_INTS = (np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32))


def narrow_ints(column):
    """An integer column in the smallest of int8, int16, int32 that holds it (as it
    is when none does)."""
    low, high = (int(column.min()), int(column.max())) if column.size else (0, 0)
    for dtype in SMALL_INTS:
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return column.astype(dtype)
    return column


def narrow_reals(column):
    """A float64 column as small integers when it holds whole numbers (no -0.0),
    else in float32 when that is exact (NaN included), else as it is."""
    with np.errstate(invalid="ignore", over="ignore"):
        if column.size and bool(np.isfinite(column).all()) and \
                not np.signbit(column).any() and column.max() < 2**31 and \
                np.array_equal(column, np.floor(column)):
            return narrow_ints(column.astype(np.int64))
        single = column.astype(np.float32)
        if np.array_equal(single.astype(np.float64), column, equal_nan=True):
            return single
    return column


def widened(column, dtype):
    """``column`` as ``dtype`` (int64 or float64) when it is one of its narrow forms
    (a smaller signed int; for float64 also float32), else unchanged (the caller's
    own dtype check then refuses it)."""
    dtype = np.dtype(dtype)
    if column.dtype == dtype:
        return column
    if column.dtype in SMALL_INTS and dtype.kind in "if" and dtype.itemsize == 8:
        return column.astype(dtype)
    if column.dtype == np.float32 and dtype == np.float64:
        return column.astype(dtype)
    return column


def zigzag(difference):
    """int64 differences as int64 whose small magnitudes, either sign, are small
    non-negative numbers (0, -1, 1, -2 ... as 0, 1, 2, 3 ...: their high bytes are
    zero), bit for bit reversible (``unzigzag``)."""
    difference = np.asarray(difference, dtype=np.int64)
    return ((difference << 1) ^ (difference >> 63)).view(np.int64)


def unzigzag(code):
    """The differences ``zigzag`` coded."""
    code = np.asarray(code, dtype=np.int64).view(np.uint64)
    return ((code >> np.uint64(1)) ^ (np.uint64(0) - (code & np.uint64(1)))).view(np.int64)


def byte_planes(array):
    """An array's bytes grouped by their place in a number: (itemsize, size) uint8,
    every number's first byte, then every second byte, ... (a float's sign and
    exponent bytes repeat and the high bytes of small integers are zero, so the
    planes compress far better than the numbers in order)."""
    flat = np.ascontiguousarray(array).reshape(-1)
    return np.ascontiguousarray(flat.view(np.uint8).reshape(-1, flat.dtype.itemsize).T)


def from_byte_planes(planes, dtype):
    """The 1-D array of ``dtype`` whose ``byte_planes`` are ``planes``."""
    return np.ascontiguousarray(planes.T).view(dtype).reshape(-1)
