# cython: language_level=3
"""Text categories' lookup tables and Arrow string columns, for the modules that
lay predict's matrix (``_columns``): see ``_text_codes.pyx``."""
from libc.stdint cimport int32_t, int64_t, uint64_t


cdef struct Key:
    # a text's first KEY_BYTES bytes as words, zero-padded past its end: all of a
    # text up to KEY_BYTES long (most categories' texts), and the start of a longer
    # one, whose rest is compared in memory
    uint64_t w0, w1, w2
    uint64_t end        # a hash of a longer text's bytes past KEY_BYTES (0 for others):
                        # long texts that start alike spread over the table


cdef struct Slot:
    # one category in the open-addressing table: what a probe compares, in one
    # place (code -1: an empty slot, whose length -1 no text has)
    Key key
    int64_t start                       # its bytes in key_data
    int32_t length
    int32_t code


cdef struct Table:
    const unsigned char* key_data       # the categories' bytes, then KEY_BYTES zeros
    const Slot* slot                    # by hash
    uint64_t mask
    uint64_t salt                       # the hash's multiplier
    int shift                           # a hash's slot: its top bits


cdef struct ArrowChunk:
    # one Arrow string array's buffers, checked when the column is made
    const void* offsets
    int wide                            # int64 offsets (large_string), else int32
    const unsigned char* data
    Py_ssize_t data_size
    const unsigned char* validity       # NULL: no nulls
    Py_ssize_t offset                   # the array's first value in the buffers


cdef class TextCategories:
    cdef object _owned                  # numpy arrays owning the table's memory
    cdef Table t
    cdef readonly dict lookup


cdef class ArrowColumn:
    cdef object _owned                  # the table and the chunks' buffers
    cdef const Table* t
    cdef const ArrowChunk* chunks
    cdef const int64_t* starts          # each chunk's first row, then the row count
    cdef Py_ssize_t n_chunks
    cdef readonly Py_ssize_t n_rows
    cdef readonly bint consistent       # whether every chunk's buffers passed the checks
    cdef Py_ssize_t put_rows(self, Py_ssize_t start, Py_ssize_t m, float* out,
                             Py_ssize_t step) noexcept nogil
