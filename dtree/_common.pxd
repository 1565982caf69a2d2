# cython: language_level=3
"""Shared by every kernel: types, records, tolerances, and the small inlines.

- types of feature values, class codes and bitset words, and the size limits;
- ``SplitRecord`` (a split as the splitters find it and the growers store it)
  and ``Node`` (a node waiting to be grown), with the rule comparing splits;
- the tolerances (``below_min_decrease``, ``tiny_weight``) and the cut check
  every scan applies to its candidates;
- the feature draw's generator, and the midpoint threshold;
- category bitsets: bit ``i & 63`` of word ``i >> 6``, spelt out only here.
"""

from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY

ctypedef float DTYPE_t      # feature values, as scikit-learn: float32
ctypedef unsigned short class_t   # class codes beside the values
ctypedef unsigned long long word_t   # one word of a bitset

cdef enum:
    MAX_CATEGORIES = 1024   # categories of one feature: CAT_WORDS 64-bit words of a bitset
    CAT_WORDS = 16          # (a literal 16 in a struct field must equal this)


cdef struct SplitRecord:
    Py_ssize_t feature      # split feature, -1 while no valid candidate was seen
    Py_ssize_t pos          # the children's samples: left [start, pos), right [pos, end)
    Py_ssize_t last_bin     # histogram splitter: the last bin code that goes left
    double threshold        # x <= threshold goes left
    bint missing_left       # NaN goes left (learnt, or the larger child when none was seen)
    bint categorical        # a category-set split: the codes in cat_left go left
    word_t cat_left[CAT_WORDS]  # bitset of category codes going left
    bint multiway           # head of a multiway split: one child per category group
    word_t cat_rest[CAT_WORDS]  # multiway: codes still to peel off after cat_left
    double multiway_impurity    # multiway: sum over groups of w_g * impurity_g
    double proxy            # the criterion's proxy score of this split (larger is better)
    double num              # proxy = num / den; the scan compares cross-multiplied, so
    double den              # candidates with identical statistics tie exactly
    double improvement      # scikit-learn's weighted impurity decrease
    double impurity_left    # impurity of the left child
    double impurity_right   # impurity of the right child
    double weight_left      # weighted number of samples in the left child
    double weight_right     # weighted number of samples in the right child


cdef struct Node:
    # A node waiting to be grown; its statistics travel beside it (n_stats values).
    Py_ssize_t start, end   # its samples: the segment [start, end) of the splitter's layout
    Py_ssize_t depth        # root 0
    Py_ssize_t parent       # the parent's node id, -1 for the root
    bint is_left            # the parent's left child
    double impurity
    double weight           # weighted number of samples
    double* hist            # histogram splitter: the node's histogram, or NULL
    Py_ssize_t forced_feature   # exact splitter: >= 0 for a step of a multiway cascade
    word_t rest[CAT_WORDS]      # ... the codes the cascade still has to peel off
    double lower, upper         # monotonic constraints: the bounds of its value


cdef inline void init_node(Node* node, Py_ssize_t start, Py_ssize_t end, Py_ssize_t depth,
                           Py_ssize_t parent, bint is_left, double impurity,
                           double weight) noexcept nogil:
    # (kept duplicate, by shape only: field-by-field like record_candidate below)
    node.start = start
    node.end = end
    node.depth = depth
    node.parent = parent
    node.is_left = is_left
    node.impurity = impurity
    node.weight = weight
    node.hist = NULL
    node.forced_feature = -1
    node.lower = -INFINITY
    node.upper = INFINITY


cdef inline bint better(double num, double den, Py_ssize_t f,
                        const SplitRecord* best) noexcept nogil:
    # num/den > best.num/best.den with positive denominators; on an exact tie
    # the smaller feature index wins (within a feature the first position does).
    cdef double lhs = num * best.den, rhs = best.num * den
    return lhs > rhs or (lhs == rhs and f < best.feature)


cdef inline void record_candidate(SplitRecord* best, double num, double den, Py_ssize_t f,
                                  bint missing_left, bint categorical,
                                  bint multiway) noexcept nogil:
    """Make a candidate the best so far (the scan then sets where it cuts)."""
    best.num = num
    best.den = den
    best.feature = f
    best.missing_left = missing_left
    best.categorical = categorical
    best.multiway = multiway


cdef inline void clear_split(SplitRecord* best, Py_ssize_t end) noexcept nogil:
    # no candidate yet: any valid one is better
    record_candidate(best, -INFINITY, 1.0, -1, False, False, False)
    best.pos = end


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


cdef inline double tiny_weight(double node_weight) noexcept nogil:
    """Below this a side's weight is rounding noise, not a child."""
    return node_weight * 1e-12


cdef enum:
    # what a scan does with a cut: score it, pass it, or stop (no later cut can pass)
    CUT_SCORE = 0
    CUT_PASS = 1
    CUT_STOP = 2


cdef inline int check_cut(Py_ssize_t n_left, Py_ssize_t n_node, double wl, double wr,
                          Py_ssize_t min_leaf, double min_wleaf, double tiny) noexcept nogil:
    """The leaf-size rules for a cut of a scan moving samples right to left.

    The left side only grows along a scan, so a right side too small stops it
    and a left side too small passes to the next cut.
    """
    if n_left < min_leaf:
        return CUT_PASS
    if n_node - n_left < min_leaf:
        return CUT_STOP
    if wr < min_wleaf or wr <= tiny:
        return CUT_STOP
    if wl < min_wleaf or wl <= tiny:
        return CUT_PASS
    return CUT_SCORE


cdef inline int scan_cut(const DTYPE_t* v, Py_ssize_t p, Py_ssize_t end_known,
                         Py_ssize_t n_left, Py_ssize_t n_node, double wl, double wr,
                         Py_ssize_t min_leaf, double min_wleaf, double tiny,
                         DTYPE_t tol) noexcept nogil:
    """A sorted scan's verdict on the cut after position p (``v``: the values).

    Between two values within ``tol`` of each other (equal ones, by default)
    there is no cut; past the last number (p + 1 == end_known) is the cut
    "numbers | missing values". The sum is rounded to float32, as scikit-learn's
    (so 1e-7 is its rule bit for bit).
    """
    if p + 1 < end_known and v[p + 1] <= <DTYPE_t>(v[p] + tol):
        return CUT_PASS
    return check_cut(n_left, n_node, wl, wr, min_leaf, min_wleaf, tiny)


cdef inline const double* keep_doubles(object array, list owners):
    """A pointer to a float64 array's data (NULL for None), the array kept alive in ``owners``."""
    cdef const double[::1] view
    if array is None:
        return NULL
    owners.append(array)
    view = array
    return &view[0] if view.shape[0] > 0 else NULL


cdef inline unsigned long long seed_state(unsigned long long seed) noexcept nogil:
    # xorshift must not start from 0
    return seed if seed != 0 else 0x9E3779B97F4A7C15ULL


cdef inline unsigned long long rng_next(unsigned long long* state) noexcept nogil:
    # xorshift64*: enough for drawing feature orders, and reproducible everywhere
    cdef unsigned long long x = state[0]
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    state[0] = x
    return x * 2685821657736338717ULL


cdef inline Py_ssize_t draw_feature(Py_ssize_t* features, Py_ssize_t i, Py_ssize_t d,
                                    unsigned long long* state) noexcept nogil:
    # step i of a Fisher-Yates draw without replacement: the i-th feature drawn
    cdef Py_ssize_t j = i + <Py_ssize_t>(rng_next(state) % <unsigned long long>(d - i))
    cdef Py_ssize_t chosen = features[j]
    features[j] = features[i]
    features[i] = chosen
    return chosen


cdef inline double midpoint(DTYPE_t a, DTYPE_t b) noexcept nogil:
    # Halves first so two large values cannot overflow; if rounding lands the
    # midpoint on b, fall back to a so that b still goes right.
    cdef double t = a / 2.0 + b / 2.0
    if t >= b or t == INFINITY or t == -INFINITY:
        t = a
    return t


cdef inline int lowest_bit(const word_t* bits) noexcept nogil:
    """The lowest set bit of a category set, -1 when it is empty."""
    cdef int word, b
    for word in range(CAT_WORDS):
        if bits[word]:
            b = 0
            while not ((bits[word] >> b) & 1):
                b += 1
            return word * 64 + b
    return -1


cdef inline int count_bits(const word_t* bits) noexcept nogil:
    cdef int word, n = 0
    cdef word_t x
    for word in range(CAT_WORDS):
        x = bits[word]
        while x:
            x &= x - 1
            n += 1
    return n
