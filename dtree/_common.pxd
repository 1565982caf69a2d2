# cython: language_level=3
"""Shared by every kernel: feature and code types, sizes, and bitset inlines.

Category sets and the "goes left" marks of a partition are bitsets of 64-bit
words: bit ``i & 63`` of word ``i >> 6``. The inlines below are the only place
that spells this out.
"""

from libc.float cimport DBL_EPSILON

ctypedef float DTYPE_t      # feature values, as scikit-learn: float32
ctypedef unsigned short class_t   # class codes beside the values
ctypedef unsigned long long word_t   # one word of a bitset

cdef enum:
    MAX_CATEGORIES = 1024   # categories of one feature: CAT_WORDS 64-bit words of a bitset
    CAT_WORDS = 16          # (a literal 16 in a struct field must equal this)


cdef inline bint below_min_decrease(double improvement, double min_decrease) noexcept nogil:
    """Whether a split's improvement falls short of ``min_impurity_decrease``.

    One slack for every grower: an improvement equal to the limit up to
    rounding passes, as in scikit-learn.
    """
    return improvement + DBL_EPSILON < min_decrease


cdef inline bint bit_is_set(const word_t* bits, Py_ssize_t i) noexcept nogil:
    """Whether bit i of the bitset is set."""
    return (bits[i >> 6] >> (i & 63)) & 1


cdef inline void set_bit(word_t* bits, Py_ssize_t i) noexcept nogil:
    bits[i >> 6] |= (<word_t> 1) << (i & 63)


cdef inline void clear_bit(word_t* bits, Py_ssize_t i) noexcept nogil:
    bits[i >> 6] &= ~((<word_t> 1) << (i & 63))


cdef inline void put_bit(word_t* bits, Py_ssize_t i, bint value) noexcept nogil:
    """Set bit i to ``value`` (without a branch)."""
    cdef word_t mask = (<word_t> 1) << (i & 63)
    bits[i >> 6] = (bits[i >> 6] & ~mask) | (mask if value else 0)
