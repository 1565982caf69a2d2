# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""A frame's columns laid into one row-major float32 matrix (predict's encoding).

Predict reads X by rows, and a DataFrame holds it by columns: category codes
(float32, from ``_input.categorical``), a pandas categorical's own integer codes
with a table of what each stands for, Arrow strings looked up in their fitted
categories' table (``_text_codes.ArrowColumn``), and numbers of any numeric dtype.
``put_columns`` writes them into the matrix a block of rows at a time, every
column of the block before the next block: the block's rows stay in the core's
cache while each column's values land in them, where writing whole columns one
after another, each a stride apart, moves every cache line of the matrix once
per column, and building a float64 matrix first costs a pass more. Blocks are
taken by the threads as they come free.

Values are converted as numpy's ``astype(np.float32)`` converts them (no check:
predict's routing reports NaN and infinity, and values beyond float32 become
infinite).
"""
import numpy as np

cimport numpy as cnp
from cython.parallel cimport prange
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from ._text_codes cimport ArrowColumn

cnp.import_array()

ctypedef fused number_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    float
    double

# the dtypes read, in the order of their kinds below
KINDS = tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8,
                                    np.uint16, np.uint32, np.uint64, np.float32, np.float64))

cdef enum:
    # bytes of the matrix per block of rows: a core's L1 holds them (measured:
    # 16-32 KiB blocks 2.5 times faster than 256 KiB ones, which L2 holds)
    BLOCK_BYTES = 1 << 14


cdef inline void _convert(const number_t* first, Py_ssize_t stride, float* out,
                          Py_ssize_t step, Py_ssize_t m) noexcept nogil:
    # out[i * step] = first[i] (source stride in bytes)
    cdef Py_ssize_t i
    cdef const char* at = <const char*> first
    for i in range(m):
        out[i * step] = <float> (<const number_t*> (at + i * stride))[0]


cdef inline Py_ssize_t _look_up(const number_t* first, Py_ssize_t stride,
                                const float* table, Py_ssize_t size, float* out,
                                Py_ssize_t step, Py_ssize_t m) noexcept nogil:
    # out[i * step] = table[first[i] + 1]; the number of codes outside the table
    # (each given table[0])
    cdef Py_ssize_t i, bad = 0
    cdef long long code
    cdef const char* at = <const char*> first
    for i in range(m):
        code = <long long> (<const number_t*> (at + i * stride))[0] + 1
        if code < 0 or code >= size:
            bad += 1
            code = 0
        out[i * step] = table[code]
    return bad


cdef Py_ssize_t _put_codes(int kind, const char* first, Py_ssize_t stride, const float* table,
                           Py_ssize_t size, float* out, Py_ssize_t step,
                           Py_ssize_t m) noexcept nogil:
    if kind == 0:
        return _look_up(<const int8_t*> first, stride, table, size, out, step, m)
    if kind == 1:
        return _look_up(<const int16_t*> first, stride, table, size, out, step, m)
    if kind == 2:
        return _look_up(<const int32_t*> first, stride, table, size, out, step, m)
    return _look_up(<const int64_t*> first, stride, table, size, out, step, m)


cdef void _put(int kind, const char* first, Py_ssize_t stride, float* out, Py_ssize_t step,
               Py_ssize_t m) noexcept nogil:
    if kind == 0:
        _convert(<const int8_t*> first, stride, out, step, m)
    elif kind == 1:
        _convert(<const int16_t*> first, stride, out, step, m)
    elif kind == 2:
        _convert(<const int32_t*> first, stride, out, step, m)
    elif kind == 3:
        _convert(<const int64_t*> first, stride, out, step, m)
    elif kind == 4:
        _convert(<const uint8_t*> first, stride, out, step, m)
    elif kind == 5:
        _convert(<const uint16_t*> first, stride, out, step, m)
    elif kind == 6:
        _convert(<const uint32_t*> first, stride, out, step, m)
    elif kind == 7:
        _convert(<const uint64_t*> first, stride, out, step, m)
    elif kind == 8:
        _convert(<const float*> first, stride, out, step, m)
    else:
        _convert(<const double*> first, stride, out, step, m)


def readable(column):
    """Whether ``put_columns`` reads ``column`` as it is (a 1-D numpy array of a
    native-order numeric dtype, not bool)."""
    return isinstance(column, np.ndarray) and column.ndim == 1 and \
        column.dtype.isnative and column.dtype in KINDS


def _codes_and_table(entry):
    # (codes, table) of a signed integer dtype and float32, or None
    if not (isinstance(entry, tuple) and len(entry) == 2 and readable(entry[0]) and
            entry[0].dtype.kind == "i" and isinstance(entry[1], np.ndarray) and
            entry[1].dtype == np.float32 and entry[1].ndim == 1 and entry[1].shape[0] > 0):
        return None
    return entry[0], np.ascontiguousarray(entry[1])


def put_columns(list columns, float[:, ::1] out, int n_threads=1):
    """Every column of ``columns`` into ``out``, a block of rows at a time.

    Parameters
    ----------
    columns : list
        One entry per column of ``out``, as long as ``out``: a 1-D array of a
        dtype ``readable`` accepts (any stride), its values converted; a pair
        (codes, table) of a signed integer array and a float32 array, the
        column's values ``table[codes + 1]`` (code -1 reads ``table[0]``); or an
        ``ArrowColumn``, its codes (NaN: null; -1: no category).
    out : C-contiguous float32 matrix
    n_threads : int
        Threads sharing the blocks.

    Returns
    -------
    ndarray of int64
        Per column of ``out``: for an ``ArrowColumn``, how many of its rows got -1,
        or -1 when its buffers are inconsistent (its column of ``out`` then holds
        nothing to trust); 0 for the others.

    Raises
    ------
    ValueError
        For an entry of another kind or length, or a code outside its table.
    """
    cdef Py_ssize_t n = out.shape[0], d = out.shape[1], j, step, n_blocks, b, start, m, got
    cdef Py_ssize_t bad = 0
    if len(columns) != d:
        raise ValueError("one column of as many rows per column of the matrix")
    sources, tables = [], []
    texts = np.zeros(max(d, 1), dtype=np.intp)      # (an ArrowColumn's address)
    cdef Py_ssize_t[::1] text_of = texts
    for j, entry in enumerate(columns):
        if isinstance(entry, ArrowColumn):
            if (<ArrowColumn> entry).n_rows != n:
                raise ValueError("one column of as many rows per column of the matrix")
            text_of[j] = <Py_ssize_t> <void*> entry
            sources.append(np.zeros(0, dtype=np.float32))
            tables.append(None)
            continue
        pair = _codes_and_table(entry)
        source, table = pair if pair is not None else (entry, None)
        if not readable(source) or source.shape[0] != n:
            raise ValueError("one column of as many rows per column of the matrix")
        sources.append(source)
        tables.append(table)
    status = np.zeros(d, dtype=np.int64)
    if n == 0 or d == 0:
        return status
    bases = np.array([c.ctypes.data for c in sources], dtype=np.intp)
    strides = np.array([c.strides[0] for c in sources], dtype=np.intp)
    kinds = np.array([KINDS.index(c.dtype) for c in sources], dtype=np.int32)
    table_at = np.array([0 if t is None else t.ctypes.data for t in tables], dtype=np.intp)
    sizes = np.array([0 if t is None else t.shape[0] for t in tables], dtype=np.intp)
    cdef const Py_ssize_t[::1] base_of = bases, stride_of = strides
    cdef const Py_ssize_t[::1] table_of = table_at, size_of = sizes
    cdef const int[::1] kind_of = kinds
    cdef float* first = &out[0, 0]
    step = max(64, BLOCK_BYTES // (4 * d))
    n_blocks = (n + step - 1) // step
    # each block's count of -1 codes per text column, -1 for inconsistent buffers
    # (summed once the blocks are done)
    counts = np.zeros((int(n_blocks), int(d)) if texts.any() else (1, 1), dtype=np.int64)
    cdef int64_t[:, ::1] count = counts
    # (``columns``, ``sources`` and ``tables`` hold every array until the call
    # returns; blocks as the threads come free: a thread the machine holds back
    # delays only its own block)
    for b in prange(n_blocks, nogil=True, num_threads=max(1, min(n_threads, n_blocks)),
                    schedule="dynamic", chunksize=4):
        start = b * step
        m = min(step, n - start)
        for j in range(d):
            if text_of[j] != 0:
                got = (<ArrowColumn> <void*> text_of[j]).put_rows(start, m, first + start * d + j,
                                                                  d)
                count[b, j] = got
            elif size_of[j] > 0:
                bad += _put_codes(kind_of[j], <const char*> base_of[j] + start * stride_of[j],
                                  stride_of[j], <const float*> table_of[j], size_of[j],
                                  first + start * d + j, d, m)
            else:
                _put(kind_of[j], <const char*> base_of[j] + start * stride_of[j],
                     stride_of[j], first + start * d + j, d, m)
    if bad:
        raise ValueError(f"{bad} codes lie outside their column's table")
    if texts.any():
        status = np.where((counts < 0).any(axis=0), -1, counts.sum(axis=0))
    return status


def float32_rows(cnp.ndarray X):
    """A 2-D float64 array as a new C-contiguous float32 matrix, cast in C.

    Values beyond float32 become infinite, as numpy's cast makes them, without
    the overflow warning numpy's cast then raises and the floating-point state
    ``np.errstate`` saves and restores to silence it (a single row's predict
    feels both: about a third of its time).
    """
    if X.ndim != 2 or X.dtype != np.float64 or not X.flags.aligned:
        raise ValueError("float32_rows takes a 2-D float64 array, its values aligned")
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, j
    cdef Py_ssize_t s0 = X.strides[0], s1 = X.strides[1]
    out = np.empty((n, d), dtype=np.float32)
    cdef float* o = <float*> cnp.PyArray_DATA(out)
    cdef const char* base = <const char*> cnp.PyArray_DATA(X)
    with nogil:
        for i in range(n):
            for j in range(d):
                o[i * d + j] = <float> (<const double*> (base + i * s0 + j * s1))[0]
    return out
