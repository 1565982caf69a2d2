# cython: language_level=3
"""The one routing rule: the child a value takes at a split (see ``_route.pyx``).

``side`` is the rule; fit's partition (the splitters' ``routes_left``), apply
(dense and CSR rows), decision paths, C4.5's fractional predict, training
ranges, partial dependence and the surrogates' routing all call it, so a
training row routes at predict exactly as it was partitioned at fit.
"""
from ._common cimport CAT_WORDS, MAX_CATEGORIES, DTYPE_t, bit_is_set, word_t


cdef struct PackedNode:
    # One record per node for traversal (32 bytes). A leaf points to itself
    # through both children, so a step from a leaf is a no-op and a block of
    # rows can advance in lockstep without a branch per row and level.
    double threshold
    int feature
    int child[2]        # left, right; both the node itself for a leaf
    int missing_right   # 1 when NaN goes to the right child
    int cat             # row of the category set (codes going left), -1 for numeric
    int pad


cdef inline int numeric_side(DTYPE_t x, double threshold, int missing_right) noexcept nogil:
    # a number goes right when above the threshold; NaN (which compares false
    # everywhere) where the split learnt to send it
    return (x > threshold) | ((x != x) & missing_right)


cdef inline int category_side(DTYPE_t x, int missing_right, const word_t* cat_set) noexcept nogil:
    # a code goes left when its bit is set in the split's set; a value that is
    # no code at all goes right; NaN where the split learnt to send it
    if x != x:
        return missing_right
    if not (x >= 0 and x < MAX_CATEGORIES):
        return 1
    return 1 - <int>bit_is_set(cat_set, <int>x)


cdef inline int side(DTYPE_t x, double threshold, int missing_right,
                     const word_t* cat_set) noexcept nogil:
    """The child ``x`` takes at a split: 0 (left) or 1 (right).

    A number goes right when it is above ``threshold`` (so ``x <= threshold``
    goes left); with ``cat_set`` (the bitset of the category codes going left;
    NULL for a numeric split) a code goes left when its bit is set, and a value
    that is no code at all goes right; a missing value (NaN, which compares
    false everywhere) goes where the split learnt to send it (``missing_right``).
    """
    if cat_set == NULL:
        return numeric_side(x, threshold, missing_right)
    return category_side(x, missing_right, cat_set)


cdef inline const word_t* node_set(const PackedNode* node, const word_t* sets) noexcept nogil:
    # a node's category set, or NULL for a numeric split
    return sets + node.cat * CAT_WORDS if node.cat >= 0 else NULL


cdef inline int step(const PackedNode* node, DTYPE_t x, const word_t* sets) noexcept nogil:
    # the node a value moves to from ``node`` (the node itself at a leaf): ``side``
    # by the node's kind of split
    if node.cat >= 0:
        return node.child[category_side(x, node.missing_right, sets + node.cat * CAT_WORDS)]
    return node.child[numeric_side(x, node.threshold, node.missing_right)]
