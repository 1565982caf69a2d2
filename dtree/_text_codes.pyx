# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Text values to the category codes seen at fit, in C (predict's encoding of text
columns).

One table per fitted column (``TextCategories``) serves two readers:

- ``arrow_codes`` reads an Arrow string array's buffers in place (pandas' ``str``
  columns and pyarrow's strings), blocks of values on threads: no Python string
  is made;
- ``object_codes`` reads an array of Python objects through a cache on the
  object's address, since a column read from a file holds one object per
  distinct text (pandas' CSV reader shares them) and a repeated object then
  costs one comparison; an exact ``str`` of ASCII characters (its own UTF-8) is
  looked up by the table in place, any other in a dictionary.

A null (None) gets NaN, a missing value; any other value that is not an exact
match (unknown text, a number, NaN) gets -1, for the caller's general rule
(``categorical.encode``) to decide what it is.
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from cpython.ref cimport PyObject
from libc.math cimport NAN
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcmp, memcpy, memset

cnp.import_array()


cdef extern from "Python.h":
    PyObject* PyDict_GetItem(PyObject* mapping, PyObject* key)
    bint PyUnicode_CheckExact(PyObject* o)
    bint PyUnicode_IS_COMPACT_ASCII(PyObject* o)
    void* PyUnicode_DATA(PyObject* o)
    Py_ssize_t PyUnicode_GET_LENGTH(PyObject* o)
    Py_ssize_t PyLong_AsSsize_t(PyObject* o) except? -1


ctypedef fused offset_t:
    int32_t
    int64_t


cdef enum:
    CACHE_SLOTS = 4096      # object addresses remembered by object_codes (a power of 2)
    ARROW_BLOCK = 1 << 15   # Arrow values per block of arrow_batch's threads


# MASKS[k]: the low k bytes of a word (k = 8: all of it)
cdef uint64_t MASKS[9]
for _k in range(8):
    MASKS[_k] = ((<uint64_t> 1) << (8 * _k)) - 1
MASKS[8] = ~(<uint64_t> 0)


cdef inline uint64_t text_words(const unsigned char* s, Py_ssize_t n,
                                uint64_t* last) noexcept nogil:
    """A text's first eight bytes (returned) and last eight (``last``), zero-padded
    when shorter: together every byte of a text up to 16 long, and one hash's
    worth of any text, with no branch on its length. Eight bytes from ``s`` and
    from ``s + n - 8`` must be readable."""
    cdef uint64_t mask = MASKS[n if n < 8 else 8], first
    memcpy(&first, s, 8)
    memcpy(last, s + (n if n > 8 else 8) - 8, 8)
    last[0] &= mask
    return first & mask


cdef inline uint64_t words_hash(uint64_t first, uint64_t last, Py_ssize_t n) noexcept nogil:
    # the table takes a product's top bits, which every input bit reaches; a poor
    # spread costs longer probes, never a wrong code (every probe compares the text)
    return ((first ^ (last * 0xC2B2AE3D27D4EB4FULL) ^ <uint64_t> n) *
            0x9E3779B97F4A7C15ULL)


cdef struct Slot:
    # one category in the open-addressing table: what a probe compares, in one
    # place (code -1: an empty slot)
    uint64_t first                      # its text_words
    uint64_t last
    int64_t start                       # its bytes in key_data
    int32_t length
    int32_t code


cdef struct Table:
    const unsigned char* key_data       # the categories' bytes, then 8 zero bytes
    const Slot* slot                    # by hash
    uint64_t mask
    int shift                           # a hash's slot: its top bits


cdef inline int table_find(const Table* t, const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """The code of the text s[:n], -1 when it is no category (eight bytes from s
    readable: see ``text_words``)."""
    cdef uint64_t last, first = text_words(s, n, &last)
    cdef uint64_t h = words_hash(first, last, n) >> t.shift
    cdef const Slot* e
    while True:
        e = t.slot + h
        if e.code < 0:
            return -1
        if e.first == first and e.last == last and e.length == n and \
                (n <= 16 or memcmp(t.key_data + e.start + 8, s + 8, n - 16) == 0):
            return e.code
        h = (h + 1) & t.mask


cdef class TextCategories:
    """The categories of one text column: their UTF-8 bytes in an open-addressing
    table, and a dictionary from each to its code (its position in ``categories``)."""
    cdef object _owned                  # numpy arrays owning the table's memory
    cdef Table t
    cdef readonly dict lookup

    def __cinit__(self, categories):
        encoded = [str(text).encode("utf-8", "surrogatepass") for text in categories]
        self.lookup = {text: code for code, text in enumerate(categories) if type(text) is str}
        n = len(encoded)
        if any(len(e) >= 2 ** 31 for e in encoded):
            raise ValueError("a category's text is longer than 2**31 bytes")
        size = 16
        while size < 8 * n:
            size *= 2
        starts = np.zeros(n + 1, dtype=np.int64)
        starts[1:] = np.cumsum([len(e) for e in encoded], dtype=np.int64)
        keys = np.frombuffer(b"".join(encoded) + bytes(8), dtype=np.uint8)
        slots = np.zeros(size * sizeof(Slot), dtype=np.uint8)
        cdef const unsigned char[::1] kv = keys
        cdef const int64_t[::1] sv = starts
        cdef unsigned char[::1] slot_bytes = slots
        cdef Slot* table = <Slot*> &slot_bytes[0]
        cdef uint64_t m = size - 1, h, last, first
        cdef Py_ssize_t c, length
        cdef int shift = 64
        for c in range(size):
            table[c].code = -1
        while (<uint64_t> 1) << (64 - shift) < <uint64_t> size:
            shift -= 1
        for c in range(n):
            length = sv[c + 1] - sv[c]
            first = text_words(&kv[0] + sv[c], length, &last)
            h = words_hash(first, last, length) >> shift
            while table[h].code >= 0:
                h = (h + 1) & m
            table[h].first = first
            table[h].last = last
            table[h].start = sv[c]
            table[h].length = <int32_t> length
            table[h].code = <int32_t> c
        self._owned = (keys, starts, slots)
        self.t.key_data = &kv[0]
        self.t.slot = table
        self.t.mask = m
        self.t.shift = shift


cdef int _arrow_loop(const Table* t, const offset_t* offsets,
                     const unsigned char* data, Py_ssize_t data_size,
                     const unsigned char* validity, Py_ssize_t offset, Py_ssize_t length,
                     float* out) noexcept nogil:
    # 0, or -1 when the offsets point outside the data (never read there)
    cdef Py_ssize_t i, k
    cdef offset_t a, b
    cdef const unsigned char* text
    cdef unsigned char tail[8]
    for i in range(length):
        k = offset + i
        if validity != NULL and not (validity[k >> 3] >> (k & 7)) & 1:
            out[i] = NAN
            continue
        a = offsets[k]
        b = offsets[k + 1]
        if a < 0 or b < a or b > data_size:
            return -1
        text = data + a
        if b - a < 8 and a + 8 > data_size:
            # a short text at the very end of the buffer: read from a padded copy
            memset(tail, 0, 8)
            memcpy(tail, data + a, b - a)
            text = tail
        # (one call: the compiler inlines it)
        out[i] = <float> table_find(t, text, b - a)
    return 0


cdef struct ArrowTask:
    # one Arrow string array's buffers, checked (``_arrow_task``), and its output
    const Table* t
    const void* offsets
    int wide                            # int64 offsets (large_string), else int32
    const unsigned char* data
    Py_ssize_t data_size
    const unsigned char* validity       # NULL: no nulls
    Py_ssize_t offset, length
    float* out


def arrow_codes(TextCategories table, offsets, data, validity, Py_ssize_t offset,
                Py_ssize_t length, float[::1] out, int n_threads=1):
    """Codes of an Arrow string array from its buffers, into ``out`` (NaN: null;
    -1: no category).

    Parameters
    ----------
    table : TextCategories
    offsets : ndarray of int32 or int64
        The value offsets buffer (``string`` or ``large_string``).
    data : ndarray of uint8
        The characters buffer.
    validity : ndarray of uint8 or None
        The validity bitmap (None: no nulls).
    offset, length : int
        The array's slice of the buffers.
    out : ndarray of float32, ``length`` long
    n_threads : int
        Threads sharing blocks of ``ARROW_BLOCK`` values.

    Returns
    -------
    bool
        False when the buffers are inconsistent (nothing to trust in ``out``).
    """
    return arrow_batch([(table, offsets, data, validity, offset, length, out)], n_threads)[0]


def arrow_batch(list arrays, int n_threads=1):
    """``arrow_codes`` for several arrays (tuples of its arguments but ``n_threads``)
    in one parallel region: their blocks of ``ARROW_BLOCK`` values shared out as
    the threads come free (a region per array, each waiting for its slowest
    thread, made predict several times slower on a busy machine). Returns a list
    of bools, one per array (False: its buffers are inconsistent)."""
    cdef Py_ssize_t n = len(arrays), k, b, n_blocks = 0, start
    ok = [True] * n
    owned = []      # the arrays' buffers, held until the region ends
    tasks_bytes = np.zeros(max(n, 1) * sizeof(ArrowTask), dtype=np.uint8)
    cdef unsigned char[::1] task_raw = tasks_bytes
    cdef ArrowTask* tasks = <ArrowTask*> &task_raw[0]
    for k in range(n):
        ok[k] = _arrow_task(arrays[k], &tasks[k], owned)
        if ok[k]:
            n_blocks += (tasks[k].length + ARROW_BLOCK - 1) // ARROW_BLOCK
    # each block's array and first value
    where = np.zeros((max(n_blocks, 1), 2), dtype=np.intp)
    cdef Py_ssize_t[:, ::1] at = where
    b = 0
    for k in range(n):
        if ok[k]:
            for start in range(0, tasks[k].length, ARROW_BLOCK):
                at[b, 0], at[b, 1] = k, start
                b += 1
    failed = np.zeros(max(n, 1), dtype=np.int32)
    cdef int[::1] bad = failed
    cdef const ArrowTask* task
    for b in prange(n_blocks, nogil=True, num_threads=max(1, min(n_threads, n_blocks)),
                    schedule="dynamic"):
        task = &tasks[at[b, 0]]
        start = at[b, 1]
        if _task_block(task, start, min(<Py_ssize_t> ARROW_BLOCK, task.length - start)) != 0:
            bad[at[b, 0]] = 1       # (every block of the array writes the same 1)
    return [bool(ok[k]) and not failed[k] for k in range(n)]


cdef int _task_block(const ArrowTask* task, Py_ssize_t start, Py_ssize_t m) noexcept nogil:
    if task.wide:
        return _arrow_loop(task.t, <const int64_t*> task.offsets, task.data, task.data_size,
                           task.validity, task.offset + start, m, task.out + start)
    return _arrow_loop(task.t, <const int32_t*> task.offsets, task.data, task.data_size,
                       task.validity, task.offset + start, m, task.out + start)


cdef bint _arrow_task(tuple array, ArrowTask* task, list owned):
    """Check one array's buffers and describe it in ``task`` (False: inconsistent)."""
    cdef TextCategories table
    table, offsets, data, validity, offset, length, out = array
    cdef const int32_t[::1] o32
    cdef const int64_t[::1] o64
    cdef const unsigned char[::1] dv = data
    cdef const unsigned char[::1] vv
    cdef float[::1] ov = out
    owned.append((table, offsets, data, validity, out))
    task.t = &table.t
    task.length = length
    task.offset = offset
    task.validity = NULL
    task.data = &dv[0] if dv.shape[0] > 0 else <const unsigned char*> ""
    task.data_size = dv.shape[0]
    if offset < 0 or length < 0 or ov.shape[0] != length or \
            offsets.shape[0] < offset + length + 1:
        return False
    if validity is not None:
        vv = validity
        if vv.shape[0] * 8 < offset + length:
            return False
        task.validity = &vv[0] if vv.shape[0] > 0 else NULL
    if length == 0:
        task.out = NULL
        return True
    task.out = &ov[0]
    if offsets.dtype == np.int32:
        o32 = offsets
        task.offsets, task.wide = &o32[0], 0
    elif offsets.dtype == np.int64:
        o64 = offsets
        task.offsets, task.wide = &o64[0], 1
    else:
        return False
    return True


cdef inline int _ascii_find(const Table* t, const unsigned char* text, Py_ssize_t n) noexcept:
    cdef unsigned char tail[8]
    if n < 8:
        memset(tail, 0, 8)
        memcpy(tail, text, n)
        return table_find(t, tail, n)
    return table_find(t, text, n)


def object_codes(TextCategories table, cnp.ndarray values, float[::1] out):
    """Codes of a 1-D object array's exact ``str`` values, into ``out`` (NaN: None;
    -1: any other value, or text that is no category)."""
    if values.ndim != 1 or values.dtype != object or out.shape[0] != values.shape[0]:
        raise ValueError("object_codes takes a 1-D object array and an output as long")
    cdef Py_ssize_t n = values.shape[0], stride = values.strides[0], i
    cdef char* base = <char*> cnp.PyArray_DATA(values)
    cdef PyObject* lookup = <PyObject*> table.lookup
    cdef PyObject* cache_key[CACHE_SLOTS]
    cdef float cache_code[CACHE_SLOTS]
    cdef PyObject* obj
    cdef PyObject* found
    cdef size_t addr, s
    cdef float code
    for i in range(CACHE_SLOTS):
        cache_key[i] = NULL
    for i in range(n):
        obj = (<PyObject**> (base + i * stride))[0]
        addr = <size_t> obj
        s = ((addr >> 4) ^ (addr >> 16)) & (CACHE_SLOTS - 1)
        if cache_key[s] == obj:
            out[i] = cache_code[s]
            continue
        code = -1.0
        if obj == <PyObject*> None:
            code = NAN
        elif obj != NULL and PyUnicode_CheckExact(obj):
            if PyUnicode_IS_COMPACT_ASCII(obj):
                # ASCII text is its own UTF-8: the table reads its characters in
                # place (no hash of the string object; a short one from a copy,
                # as the table reads eight bytes)
                code = <float> _ascii_find(&table.t, <const unsigned char*> PyUnicode_DATA(obj),
                                           PyUnicode_GET_LENGTH(obj))
            else:
                found = PyDict_GetItem(lookup, obj)
                if found != NULL:
                    code = <float> PyLong_AsSsize_t(found)
        # (the array holds every object until the call returns: an address
        # cannot be reused by another object meanwhile)
        cache_key[s] = obj
        cache_code[s] = code
        out[i] = code
