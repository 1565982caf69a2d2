# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Text values to the category codes seen at fit, in C (predict's encoding of text
columns).

One table per fitted column (``TextCategories``) serves two readers:

- ``ArrowColumn`` reads an Arrow string column's buffers in place (pandas' ``str``
  columns and pyarrow's strings): no Python string is made. ``_columns.put_columns``
  lays its codes straight into predict's matrix, block by block with the other
  columns (``ArrowColumn.put_rows``); ``ArrowColumn.codes`` makes a column of them;
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

from ._common cimport dtree_prefetch

cnp.import_array()


cdef extern from "Python.h":
    PyObject* PyDict_GetItem(PyObject* mapping, PyObject* key)
    Py_ssize_t PyLong_AsSsize_t(PyObject* o) except? -1


cdef extern from "Python.h" nogil:
    # (reads of an object's own fields: no reference counts, no Python call)
    bint PyUnicode_CheckExact(PyObject* o)
    bint PyUnicode_IS_COMPACT_ASCII(PyObject* o)
    void* PyUnicode_DATA(PyObject* o)
    Py_ssize_t PyUnicode_GET_LENGTH(PyObject* o)


cdef extern from *:
    """
    typedef void (*dtree_block_fn)(void* job, Py_ssize_t block);

    /* fn(job, b) for every block b < n_blocks, on up to n_threads threads, while
     * the calling thread keeps what it holds: the GIL, so that no Python code can
     * change or free the objects the blocks read (a parallel region of Cython's
     * would let it go) */
    static void dtree_blocks_holding(dtree_block_fn fn, void* job, Py_ssize_t n_blocks,
                                     int n_threads)
    {
        Py_ssize_t b;
    #if defined(_OPENMP)
        if (n_threads > 1 && n_blocks > 1) {
            #pragma omp parallel for schedule(dynamic) num_threads(n_threads)
            for (b = 0; b < n_blocks; b++)
                fn(job, b);
            return;
        }
    #endif
        (void)n_threads;      /* (one block or one thread: no thread team) */
        for (b = 0; b < n_blocks; b++)
            fn(job, b);
    }
    """
    ctypedef void (*block_fn)(void* job, Py_ssize_t block) noexcept nogil
    void blocks_holding "dtree_blocks_holding"(block_fn fn, void* job, Py_ssize_t n_blocks,
                                               int n_threads)


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* The n < 8 bytes at s as a word, as copying them into eight zeroed bytes and
     * reading those gives it, from at most two fixed-size loads within the text
     * (little-endian: overlapping halves placed by shifts). A copy of variable
     * length measured a quarter of encoding object columns: a library call, then
     * a word read back from bytes just stored. */
    static inline uint64_t dtree_short_word(const unsigned char* s, Py_ssize_t n)
    {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint32_t a, b;
        uint16_t c, e;
        if (n >= 4) {
            memcpy(&a, s, 4);
            memcpy(&b, s + n - 4, 4);
            return (uint64_t)a | ((uint64_t)b << (8 * (n - 4)));
        }
        if (n >= 2) {
            memcpy(&c, s, 2);
            memcpy(&e, s + n - 2, 2);
            return (uint64_t)c | ((uint64_t)e << (8 * (n - 2)));
        }
        return n ? (uint64_t)s[0] : 0;
    #else
        unsigned char tail[8] = {0};
        uint64_t w;
        memcpy(tail, s, (size_t)n);
        memcpy(&w, tail, 8);
        return w;
    #endif
    }
    """
    uint64_t short_word "dtree_short_word"(const unsigned char* s, Py_ssize_t n) nogil


ctypedef fused offset_t:
    int32_t
    int64_t


cdef enum:
    CACHE_SLOTS = 4096      # addresses a block of object_codes remembers (a power of 2)
    OBJECT_AHEAD = 32       # how far ahead object_codes prefetches an object's header
    OBJECT_BLOCK = 1 << 14  # objects per block of object_codes' threads
    KEY_BYTES = 24          # a text's bytes compared as words (Key)
    ARROW_BLOCK = 1 << 15   # Arrow values per block of ArrowColumn.codes' threads


# MASKS[k]: the low k bytes of a word (k = 8: all of it)
cdef uint64_t MASKS[9]
for _k in range(8):
    MASKS[_k] = ((<uint64_t> 1) << (8 * _k)) - 1
MASKS[8] = ~(<uint64_t> 0)


cdef inline Py_ssize_t _clamp8(Py_ssize_t k) noexcept nogil:
    # (compiled without branches)
    return 0 if k < 0 else (8 if k > 8 else k)


cdef inline void text_key(const unsigned char* s, Py_ssize_t n, Key* key) noexcept nogil:
    """The key of the text s[:n], with no branch on its length up to KEY_BYTES
    (KEY_BYTES bytes from ``s`` must be readable)."""
    memcpy(key, s, KEY_BYTES)
    key.w0 &= MASKS[_clamp8(n)]
    key.w1 &= MASKS[_clamp8(n - 8)]
    key.w2 &= MASKS[_clamp8(n - 16)]
    key.end = 0
    if n > KEY_BYTES:
        key.end = _rest_hash(s + KEY_BYTES, n - KEY_BYTES, s + n)


cdef inline uint64_t _rest_hash(const unsigned char* p, Py_ssize_t m,
                               const unsigned char* end) noexcept nogil:
    # every byte of a long text past its first KEY_BYTES (m > 0 of them, at p), word
    # by word, the last word as the eight bytes before ``end`` (within the text):
    # long texts alike at both ends but not in between still spread
    cdef uint64_t h = 0, word
    cdef Py_ssize_t i = 0
    while i + 8 <= m:
        memcpy(&word, p + i, 8)
        h = (h ^ word) * 0x9E3779B97F4A7C15ULL
        i += 8
    if i < m:
        memcpy(&word, end - 8, 8)
        h = (h ^ word) * 0x9E3779B97F4A7C15ULL
    return h


cdef inline uint64_t key_hash(const Key* key, Py_ssize_t n, uint64_t salt) noexcept nogil:
    # the table takes a product's top bits, which every input bit reaches; a poor
    # spread costs longer probes, never a wrong code (every probe compares the text)
    return (key.w0 ^ (key.w1 * 0xC2B2AE3D27D4EB4FULL) ^ (key.w2 * 0x165667B19E3779F9ULL)
            ^ (key.end * 0x27D4EB2F165667C5ULL) ^ <uint64_t> n) * salt


cdef inline int table_find(const Table* t, const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """The code of the text s[:n], -1 when it is no category (KEY_BYTES bytes from
    s readable: see ``text_key``)."""
    cdef Key key
    text_key(s, n, &key)
    return key_find(t, &key, s, n)


cdef inline uint64_t _word_ending(const unsigned char* end, Py_ssize_t count) noexcept nogil:
    # the ``count`` (0-8) bytes before ``end`` as a zero-padded word, read as the
    # eight bytes before ``end`` (a shift of 64 reads as none: the mask clears it)
    cdef uint64_t word
    memcpy(&word, end - 8, 8)
    return (word >> ((8 * (8 - count)) & 63)) & MASKS[count]


cdef inline void text_key_within(const unsigned char* s, Py_ssize_t n, Key* key) noexcept nogil:
    """``text_key`` of a text of at least eight bytes (8 <= n < KEY_BYTES) read
    within it: whole words from its start, its last word as the eight bytes ending
    where it ends (a Python string's characters may have nothing after them)."""
    memcpy(&key.w0, s, 8)
    key.end = 0
    if n >= 16:
        memcpy(&key.w1, s + 8, 8)
        key.w2 = _word_ending(s + n, n - 16)
    else:
        key.w1 = _word_ending(s + n, n - 8)
        key.w2 = 0


cdef inline int key_find(const Table* t, const Key* key, const unsigned char* s,
                         Py_ssize_t n) noexcept nogil:
    """The code of the text s[:n] whose key is ``key``, -1 when it is no category.
    A category's text usually sits in the slot its hash names (the table's salt is
    chosen so), so one comparison, with no branch on the text's length, answers it."""
    cdef uint64_t h = key_hash(key, n, t.salt) >> t.shift
    cdef const Slot* e
    while True:
        e = t.slot + h
        if ((e.key.w0 ^ key.w0) | (e.key.w1 ^ key.w1) | (e.key.w2 ^ key.w2) |
                <uint64_t> (e.length ^ n)) == 0 and \
                (n <= KEY_BYTES or memcmp(t.key_data + e.start + KEY_BYTES, s + KEY_BYTES,
                                          n - KEY_BYTES) == 0):
            return e.code
        if e.code < 0:
            return -1
        h = (h + 1) & t.mask


cdef uint64_t _next_salt(uint64_t* state) noexcept:
    # splitmix64: a fixed sequence of odd multipliers, so a table is the same
    # whenever its categories are
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return (z ^ (z >> 31)) | 1


cdef enum:
    SALT_TRIES = 24         # multipliers tried per table size for a one-probe table
    ONE_PROBE_SLOTS = 1024  # the largest table grown for one (48 KiB: a core's cache
                            # holds it; a larger one would cost more in misses than
                            # the probes it saves)


cdef class TextCategories:
    """The categories of one text column: their UTF-8 bytes in an open-addressing
    table, and a dictionary from each to its code (its position in ``categories``)."""

    def __cinit__(self, categories):
        encoded = [str(text).encode("utf-8", "surrogatepass") for text in categories]
        self.lookup = {text: code for code, text in enumerate(categories) if type(text) is str}
        n = len(encoded)
        if any(len(e) >= 2 ** 31 for e in encoded):
            raise ValueError("a category's text is longer than 2**31 bytes")
        starts = np.zeros(n + 1, dtype=np.int64)
        starts[1:] = np.cumsum([len(e) for e in encoded], dtype=np.int64)
        keys = np.frombuffer(b"".join(encoded) + bytes(KEY_BYTES), dtype=np.uint8)
        cdef const unsigned char[::1] kv = keys
        cdef const int64_t[::1] sv = starts
        hashes = np.zeros(n, dtype=np.uint64)
        cdef uint64_t[::1] hv = hashes
        cdef Key key
        cdef uint64_t salt = 0, state = 0, m, h
        cdef Py_ssize_t c, least = 16, size, tries
        cdef int shift
        while least < 4 * n:
            least *= 2
        # a size and multiplier under which every category has a slot of its own
        # (a known text is then found by its first probe, no branch mispredicted);
        # the least size with the first multiplier if none is found, as for more
        # than a few dozen categories (a quarter full, few probes miss then)
        size, found = least, False
        while not found and size <= ONE_PROBE_SLOTS:
            shift = _shift_for(size)
            for tries in range(SALT_TRIES):
                salt = _next_salt(&state)
                for c in range(n):
                    text_key(&kv[0] + sv[c], sv[c + 1] - sv[c], &key)
                    hv[c] = key_hash(&key, sv[c + 1] - sv[c], salt) >> shift
                if np.unique(hashes).shape[0] == n:
                    found = True
                    break
            if not found:
                size *= 2
        if not found:
            size, state = least, 0
            salt = _next_salt(&state)
        shift = _shift_for(size)
        m = size - 1
        slots = np.zeros(size * sizeof(Slot), dtype=np.uint8)
        cdef unsigned char[::1] slot_bytes = slots
        cdef Slot* table = <Slot*> &slot_bytes[0]
        for c in range(size):
            table[c].code = -1
            table[c].length = -1
        for c in range(n):
            text_key(&kv[0] + sv[c], sv[c + 1] - sv[c], &key)
            h = key_hash(&key, sv[c + 1] - sv[c], salt) >> shift
            while table[h].code >= 0:
                h = (h + 1) & m
            table[h].key = key
            table[h].start = sv[c]
            table[h].length = <int32_t> (sv[c + 1] - sv[c])
            table[h].code = <int32_t> c
        self._owned = (keys, starts, slots)
        self.t.key_data = &kv[0]
        self.t.slot = table
        self.t.mask = m
        self.t.salt = salt
        self.t.shift = shift

    @property
    def one_probe(self):
        """Whether every category sits in the slot its hash names."""
        cdef Key key
        cdef Py_ssize_t s, n
        cdef const Slot* e
        for s in range(<Py_ssize_t> self.t.mask + 1):
            e = self.t.slot + s
            if e.code >= 0:
                n = e.length
                if (key_hash(&e.key, n, self.t.salt) >> self.t.shift) != <uint64_t> s:
                    return False
        return True


cdef int _shift_for(Py_ssize_t size) noexcept:
    # the shift leaving a 64-bit hash's top log2(size) bits
    cdef int shift = 64
    while (<uint64_t> 1) << (64 - shift) < <uint64_t> size:
        shift -= 1
    return shift


cdef Py_ssize_t _arrow_loop(const Table* t, const offset_t* offsets,
                            const unsigned char* data, Py_ssize_t data_size,
                            const unsigned char* validity, Py_ssize_t offset,
                            Py_ssize_t length, float* out, Py_ssize_t step) noexcept nogil:
    # out[i * step] = the code of value offset + i (NaN: null; -1: no category).
    # Returns how many got -1, or -1 when the offsets point outside the data
    # (never read there)
    cdef Py_ssize_t i, k, unmatched = 0
    cdef offset_t a, b
    cdef const unsigned char* text
    cdef unsigned char tail[KEY_BYTES]
    cdef int code
    for i in range(length):
        k = offset + i
        if validity != NULL and not (validity[k >> 3] >> (k & 7)) & 1:
            out[i * step] = NAN
            continue
        a = offsets[k]
        b = offsets[k + 1]
        if a < 0 or b < a or b > data_size:
            return -1
        text = data + a
        if b - a < KEY_BYTES and <Py_ssize_t> a + KEY_BYTES > data_size:
            # a short text at the very end of the buffer: read from a padded copy
            memset(tail, 0, KEY_BYTES)
            memcpy(tail, data + a, b - a)
            text = tail
        # (one call: the compiler inlines it)
        code = table_find(t, text, b - a)
        unmatched += code < 0
        out[i * step] = <float> code
    return unmatched


cdef bint _check_chunk(tuple chunk, ArrowChunk* c, list owned) except -1:
    """Check one Arrow string array's buffers (offsets, data, validity, offset,
    length) and describe them in ``c`` (False: inconsistent, never to be read)."""
    offsets, data, validity, offset, length = chunk
    cdef const int32_t[::1] o32
    cdef const int64_t[::1] o64
    cdef const unsigned char[::1] dv = data
    cdef const unsigned char[::1] vv
    owned.append((offsets, data, validity))
    c.offset = offset
    c.validity = NULL
    c.data = &dv[0] if dv.shape[0] > 0 else <const unsigned char*> ""
    c.data_size = dv.shape[0]
    c.offsets = NULL
    c.wide = 0
    if offset < 0 or length < 0 or offsets.ndim != 1 or \
            offsets.shape[0] < offset + length + 1:
        return False
    if validity is not None:
        vv = validity
        if vv.shape[0] * 8 < offset + length:
            return False
        c.validity = &vv[0] if vv.shape[0] > 0 else NULL
    if offsets.dtype == np.int32:
        o32 = offsets
        c.offsets = &o32[0]
    elif offsets.dtype == np.int64:
        o64 = offsets
        c.offsets, c.wide = &o64[0], 1
    else:
        return False
    return True


cdef class ArrowColumn:
    """A column of Arrow strings (its chunks' buffers, read in place: no Python
    string is made) and the table of its fitted categories.

    Parameters
    ----------
    table : TextCategories
    chunks : list of tuples (offsets, data, validity, offset, length)
        Each chunk's value offsets (int32 for ``string``, int64 for
        ``large_string``), characters (uint8), validity bitmap (uint8, or None: no
        nulls), first value in those buffers and number of values, in row order.
    """

    def __cinit__(self, TextCategories table, list chunks):
        cdef Py_ssize_t k, n = len(chunks)
        owned = [table]
        room = np.zeros(max(n, 1) * sizeof(ArrowChunk), dtype=np.uint8)
        starts = np.zeros(n + 1, dtype=np.int64)
        cdef unsigned char[::1] raw = room
        cdef int64_t[::1] sv = starts
        cdef ArrowChunk* c = <ArrowChunk*> &raw[0]
        self.consistent = True
        for k in range(n):
            self.consistent &= _check_chunk(chunks[k], &c[k], owned)
            sv[k + 1] = sv[k] + max(0, <Py_ssize_t> chunks[k][4])
        owned += [room, starts]
        self._owned = owned
        self.t = &table.t
        self.chunks = c
        self.starts = &sv[0]
        self.n_chunks = n
        self.n_rows = sv[n]

    cdef Py_ssize_t put_rows(self, Py_ssize_t start, Py_ssize_t m, float* out,
                             Py_ssize_t step) noexcept nogil:
        """Codes of rows [start, start + m) into out[0], out[step], ... (NaN: null;
        -1: no category): how many got -1, or -1 when the column's buffers are
        inconsistent (nothing written)."""
        cdef Py_ssize_t k = 0, lo, hi, got, unmatched = 0
        cdef const ArrowChunk* c
        cdef Py_ssize_t hi_k = self.n_chunks
        if not self.consistent:
            return -1
        # the chunk holding row ``start``: the last whose first row is at most it
        # (a binary search: a column may come in many small chunks)
        while hi_k - k > 1:
            lo = (k + hi_k) // 2
            if self.starts[lo] <= start:
                k = lo
            else:
                hi_k = lo
        while k < self.n_chunks and self.starts[k + 1] <= start:
            k += 1      # (past empty chunks)
        while m > 0 and k < self.n_chunks:
            c = &self.chunks[k]
            lo = start - self.starts[k]
            hi = min(self.starts[k + 1] - self.starts[k], lo + m)
            if c.wide:
                got = _arrow_loop(self.t, <const int64_t*> c.offsets, c.data, c.data_size,
                                  c.validity, c.offset + lo, hi - lo, out, step)
            else:
                got = _arrow_loop(self.t, <const int32_t*> c.offsets, c.data, c.data_size,
                                  c.validity, c.offset + lo, hi - lo, out, step)
            if got < 0:
                return -1
            unmatched += got
            out += (hi - lo) * step
            m -= hi - lo
            start += hi - lo
            k += 1
        return unmatched

    def codes(self, int n_threads=1):
        """The column's codes, float32 (NaN: null; -1: no category), blocks of rows
        on ``n_threads``; None when its buffers are inconsistent."""
        cdef Py_ssize_t n = self.n_rows, b, n_blocks = (n + ARROW_BLOCK - 1) // ARROW_BLOCK
        cdef int bad = 0
        out = np.empty(n, dtype=np.float32)
        cdef float[::1] ov = out
        if not self.consistent:
            return None
        for b in prange(n_blocks, nogil=True, num_threads=max(1, min(n_threads, n_blocks)),
                        schedule="dynamic"):
            # (a sum: prange makes a variable only assigned private to each thread)
            bad += self.put_rows(b * ARROW_BLOCK,
                                 min(<Py_ssize_t> ARROW_BLOCK, n - b * ARROW_BLOCK),
                                 &ov[b * ARROW_BLOCK], 1) < 0
        return None if bad else out


def arrow_codes(TextCategories table, offsets, data, validity, Py_ssize_t offset,
                Py_ssize_t length, float[::1] out, int n_threads=1):
    """Codes of one Arrow string array from its buffers, into ``out`` (NaN: null;
    -1: no category); False when the buffers are inconsistent (nothing to trust in
    ``out``). See ``ArrowColumn``."""
    if out.shape[0] != length:
        return False
    codes = ArrowColumn(table, [(offsets, data, validity, offset, length)]).codes(n_threads)
    if codes is None:
        return False
    np.asarray(out)[:] = codes
    return True


cdef inline int _ascii_find(const Table* t, const unsigned char* text,
                            Py_ssize_t n) noexcept nogil:
    # a Python string's characters, of which perhaps nothing after them is readable:
    # read within them (``text_key_within``), a short one from a zero-padded copy
    cdef Key key
    if n >= KEY_BYTES:
        return table_find(t, text, n)
    if n < 8:
        key.w0 = short_word(text, n)
        key.w1 = 0
        key.w2 = 0
        key.end = 0
    else:
        text_key_within(text, n, &key)
    return key_find(t, &key, text, n)


cdef struct ObjectJob:
    # object_codes' column: its objects, its codes, what each block left undecided
    const Table* t
    const char* base
    Py_ssize_t stride, n
    float* out
    Py_ssize_t* undecided       # per block: exact non-ASCII strings (UNDECIDED codes)


cdef float UNDECIDED = -2.0     # a code the dictionary decides (never a category's)


cdef void _object_block(void* job_ptr, Py_ssize_t b) noexcept nogil:
    """Block b of object_codes' column: None -> NaN, an exact ASCII ``str`` -> the
    table's code (-1: none), an exact other ``str`` -> UNDECIDED, anything else -> -1."""
    cdef const ObjectJob* job = <const ObjectJob*> job_ptr
    cdef Py_ssize_t start = b * OBJECT_BLOCK, i, undecided = 0
    cdef Py_ssize_t end = min(job.n, start + <Py_ssize_t> OBJECT_BLOCK)
    cdef PyObject* cache_key[CACHE_SLOTS]
    cdef float cache_code[CACHE_SLOTS]
    cdef PyObject* obj
    cdef size_t addr, s
    cdef float code
    memset(cache_key, 0, sizeof(cache_key))
    for i in range(start, end):
        if i + OBJECT_AHEAD < end:
            # each object is a read from anywhere in memory: its header (type, kind,
            # length; a short text's characters) asked for ahead hides the wait
            dtree_prefetch((<PyObject**> (job.base + (i + OBJECT_AHEAD) * job.stride))[0])
        obj = (<PyObject**> (job.base + i * job.stride))[0]
        addr = <size_t> obj
        s = ((addr >> 4) ^ (addr >> 16)) & (CACHE_SLOTS - 1)
        if obj == NULL:
            code = NAN      # (an empty slot, which numpy reads as None)
        elif cache_key[s] == obj:
            code = cache_code[s]
        else:
            code = -1.0
            if obj == <PyObject*> None:
                code = NAN
            elif PyUnicode_CheckExact(obj):
                if PyUnicode_IS_COMPACT_ASCII(obj):
                    # ASCII text is its own UTF-8: the table reads its characters in
                    # place (no hash of the string object)
                    code = <float> _ascii_find(
                        job.t, <const unsigned char*> PyUnicode_DATA(obj),
                        PyUnicode_GET_LENGTH(obj))
                else:
                    code = UNDECIDED
            # (the array holds every object until the call returns: an address
            # cannot be reused by another object meanwhile)
            cache_key[s] = obj
            cache_code[s] = code
        undecided += code == UNDECIDED
        job.out[i] = code
    job.undecided[b] = undecided


def object_codes(TextCategories table, cnp.ndarray values, float[::1] out, int n_threads=1):
    """Codes of a 1-D object array's exact ``str`` values, into ``out`` (NaN: None;
    -1: any other value, or text that is no category), blocks of values on
    ``n_threads`` threads (the calling thread holding the GIL meanwhile)."""
    if values.ndim != 1 or values.dtype != object or out.shape[0] != values.shape[0]:
        raise ValueError("object_codes takes a 1-D object array and an output as long")
    cdef Py_ssize_t n = values.shape[0], i
    cdef Py_ssize_t n_blocks = (n + OBJECT_BLOCK - 1) // OBJECT_BLOCK
    if n == 0:
        return
    left = np.zeros(n_blocks, dtype=np.intp)
    cdef Py_ssize_t[::1] left_view = left
    cdef ObjectJob job
    job.t = &table.t
    job.base = <const char*> cnp.PyArray_DATA(values)
    job.stride = values.strides[0]
    job.n = n
    job.out = &out[0]
    job.undecided = &left_view[0]
    blocks_holding(_object_block, &job, n_blocks, max(1, min(n_threads, n_blocks)))
    if not left.any():
        return
    # text beyond ASCII: looked up in the dictionary (its hash is the string's own)
    cdef PyObject* lookup = <PyObject*> table.lookup
    cdef PyObject* found
    cdef PyObject* obj
    for i in range(n):
        if out[i] == UNDECIDED:
            obj = (<PyObject**> (job.base + i * job.stride))[0]
            found = PyDict_GetItem(lookup, obj)
            out[i] = <float> PyLong_AsSsize_t(found) if found != NULL else -1.0
