# cython: language_level=3
"""Shared by every kernel: types, records, tolerances, and the small inlines.

- types of feature values, class codes and bitset words, and the size limits;
- ``SearchSettings``: what every splitter's search takes (the fit plan's record);
- ``SplitRecord`` (a split as the splitters find it and the growers store it)
  and ``Node`` (a node waiting to be grown), with the rule comparing splits;
- the tolerances (``below_min_decrease``, ``tiny_weight``) and the cut check
  every scan applies to its candidates;
- scikit-learn's generator (the feature draw), and the midpoint threshold;
- category bitsets: bit ``i & 63`` of word ``i >> 6``, spelt out only here.
"""

from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, NAN
from libc.string cimport memcpy, memset

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define dtree_prefetch(p) __builtin_prefetch(p)
    #else
    #define dtree_prefetch(p) ((void)0)
    #endif
    """
    # a hint to load p's cache line ahead of a random access (a no-op elsewhere)
    void dtree_prefetch(const void* p) nogil


ctypedef float DTYPE_t      # feature values, as scikit-learn: float32
ctypedef unsigned short class_t   # class codes beside the values
ctypedef unsigned long long word_t   # one word of a bitset

cdef enum:
    MAX_CATEGORIES = 1024   # categories of one feature: CAT_WORDS 64-bit words of a bitset
    CAT_WORDS = 16          # (a literal 16 in a struct field must equal this)
    # A node's search and partition go parallel from this many (sample, feature)
    # pairs: below it, starting threads costs more than the work. A fit gets no
    # more threads than its data has of such blocks (``_openmp.useful_threads``).
    PARALLEL_WORK = 1 << 16


cdef struct SearchSettings:
    # What every splitter's search takes, as one typed record (the fit plan's
    # ``FitPlan.search``; a dict of these keys converts to it).
    int criterion               # the criterion's kernel code (``_criterion``)
    Py_ssize_t n_classes        # the most classes of any output; 0 for regression
    Py_ssize_t min_samples_leaf
    double min_weight_leaf
    Py_ssize_t max_features     # features drawn per node
    unsigned int seed           # the seed of scikit-learn's generator (the feature draw)
    int n_threads               # threads of the search and the partition
    double quantile             # the level of criterion="quantile"
    double value_tolerance      # feature values within it are equal (0: exact values)
    bint multiway               # categorical features split one child per category (ID3)
    bint one_vs_rest            # a category split sends one category against the rest
    bint index_order            # scan the drawn features by index: ties to the smallest
    bint random_split           # splitter="random": one random cut per drawn feature


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
    double tie_key          # an exact tie goes to the larger key: scikit-learn's own
                            # floating-point score where dtree computes it, else 0
    double improvement      # scikit-learn's weighted impurity decrease
    double impurity_left    # impurity of the left child
    double impurity_right   # impurity of the right child
    double weight_left      # weighted number of samples in the left child
    double weight_right     # weighted number of samples in the right child
    double low, high        # the node's least and greatest present value of the split
                            # feature, where the splitter records them (else NaN)


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
    Py_ssize_t n_constant       # depth-first growth: features known constant here (the
                                # splitter's constant_features[:n_constant]), from its parent
    void* seg                   # sparse splitter: its segments of the features' non-zeros
                                # (``_sparse_splitter.Segments``), NULL for the other splitters


cdef inline void init_node(Node* node, Py_ssize_t start, Py_ssize_t end, Py_ssize_t depth,
                           Py_ssize_t parent, bint is_left, double impurity,
                           double weight) noexcept nogil:
    node.start, node.end = start, end                        # its segment
    node.depth, node.parent, node.is_left = depth, parent, is_left
    node.impurity, node.weight = impurity, weight
    node.hist, node.seg = NULL, NULL                         # what a splitter attaches
    node.forced_feature, node.n_constant = -1, 0             # no cascade, no constants
    node.lower, node.upper = -INFINITY, INFINITY             # no monotonic bounds


cdef inline int compare_score(double num, double den, const SplitRecord* best) noexcept nogil:
    # 1 when num/den beats the best, 0 on an exact tie, -1 below it (or NaN). One
    # comparison's flags answer all three: the scans' common case costs no more
    # than a plain "better".
    cdef double lhs = num * best.den, rhs = best.num * den
    if lhs > rhs:
        return 1
    if lhs == rhs:
        return 0
    return -1


cdef inline bint wins(int order, double tie_key, const SplitRecord* best) noexcept nogil:
    """Whether a candidate ranked ``order`` by ``compare_score`` replaces the best.

    Candidates tied exactly (in the exact arithmetic of integer counts and
    sums) go to the larger tie key: scikit-learn's floating-point score, whose
    rounding differs between them and so decides scikit-learn's choice; equal
    keys leave the first seen.
    """
    return order > 0 or (order == 0 and tie_key > best.tie_key)


cdef inline bint better(double num, double den, const SplitRecord* best) noexcept nogil:
    # num/den > best.num/best.den with positive denominators, strictly: for the
    # scans without a tie key, an exact tie leaves the candidate seen first
    return compare_score(num, den, best) > 0


cdef inline void keep_better(SplitRecord* best, const SplitRecord* found) noexcept nogil:
    """A feature's own best (a parallel search's record) against the node's best,
    by the scans' rule: so records compared in visiting order pick the serial
    winner, ties included."""
    if found.feature >= 0 and wins(compare_score(found.num, found.den, best),
                                   found.tie_key, best):
        best[0] = found[0]


cdef inline void record_candidate(SplitRecord* best, double num, double den, Py_ssize_t f,
                                  bint missing_left, bint categorical,
                                  bint multiway) noexcept nogil:
    """Make a candidate the best so far (the scan then sets where it cuts)."""
    best.num, best.den, best.tie_key = num, den, 0.0             # its score
    best.feature, best.missing_left = f, missing_left           # its test
    best.categorical, best.multiway = categorical, multiway


cdef inline void clear_split(SplitRecord* best, Py_ssize_t end) noexcept nogil:
    # no candidate yet: any valid one is better
    record_candidate(best, -INFINITY, 1.0, -1, False, False, False)
    best.tie_key = INFINITY     # nothing ties its way past an empty record
    best.pos = end
    best.low = NAN
    best.high = NAN


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


cdef inline object by_output(object y):
    """Targets as the splitters hold them: one column of a 2-D y is one output (1-D)."""
    return y[:, 0] if y.ndim == 2 and y.shape[1] == 1 else y


cdef inline const signed char* constraints_of(object array, Py_ssize_t d) except? NULL:
    """A pointer to the monotonic constraints' data (a contiguous int8 array, one per
    feature; NULL for None). The splitters keep the array (``monotonic_cst``)."""
    cdef const signed char[::1] view
    if array is None:
        return NULL
    view = array
    if view.shape[0] != d:
        raise ValueError("monotonic_cst must give one constraint per feature")
    return &view[0] if d > 0 else NULL


cdef enum:
    RAND_R_MAX = 0x7FFFFFFF   # scikit-learn's: seeds are drawn in [0, RAND_R_MAX)


cdef inline unsigned int rand_r(unsigned int* state) noexcept nogil:
    # scikit-learn's generator (a 32-bit xorshift, 13/17/5), bit for bit, so that
    # one seed gives its feature draws: a zero state restarts from 1, and the
    # output keeps the low 31 bits
    if state[0] == 0:
        state[0] = 1
    state[0] ^= state[0] << 13
    state[0] ^= state[0] >> 17
    state[0] ^= state[0] << 5
    return state[0] & <unsigned int>RAND_R_MAX


cdef inline Py_ssize_t rand_int(Py_ssize_t low, Py_ssize_t high,
                                unsigned int* state) noexcept nogil:
    # an integer in [low, high), drawn as scikit-learn draws it (a draw below 2^31
    # and a range that fits 32 bits take the 32-bit division: the same remainder,
    # at a fraction of a 64-bit division's latency on older cores)
    cdef unsigned int r = rand_r(state)
    cdef unsigned long long span = <unsigned long long>(high - low)
    if span <= 0xFFFFFFFFULL:
        return low + <Py_ssize_t>(r % <unsigned int>span)
    return low + <Py_ssize_t>(r % span)


cdef inline double rand_uniform(double low, double high, unsigned int* state) noexcept nogil:
    # a real in [low, high], drawn as scikit-learn draws it (high itself with
    # probability 2^-31: its random splitter then takes low)
    return (high - low) * <double>rand_r(state) / <double>RAND_R_MAX + low


cdef inline float float_at_most(double t) noexcept nogil:
    """The greatest float32 at most t: for a float32 x, x > t exactly when x is
    above it. The step down (``nextafterf(f, -INFINITY)``) is made on the bits,
    inline: the libm call cost an extra-trees fit several percent."""
    cdef float f = <float>t
    cdef unsigned int bits
    if <double>f > t:
        memcpy(&bits, &f, sizeof(float))
        if f > 0:
            bits -= 1
        elif f < 0:
            bits += 1
        else:
            bits = 0x80000001U      # below either zero: the negative least subnormal
        memcpy(&f, &bits, sizeof(float))
    return f


cdef inline void draw_numeric_cut(SplitRecord* cut, double lo, double hi, bint has_missing,
                                  unsigned int* state) noexcept nogil:
    """A random numeric cut between a node's least (``lo``) and greatest (``hi``)
    value, drawn as scikit-learn's random splitter draws it: the threshold, then
    the side of the missing values (a coin, when there are any), and a threshold
    that came out at the greatest value becomes the least. It is stored as the
    largest float32 not above it, which routes every float32 value the same way
    (and is exact in ONNX)."""
    cdef double t = rand_uniform(lo, hi, state)
    if has_missing:
        cut.missing_left = rand_int(0, 2, state) == 1
    if t == hi:
        t = lo
    cut.threshold = float_at_most(t)


cdef inline void draw_category_cut(SplitRecord* cut, const word_t* present, bint has_missing,
                                   unsigned int* state) noexcept nogil:
    """A random cut of a categorical feature: each category present (in ascending
    code order, as a sorted segment holds them) goes left on a coin, then the
    missing values (when there are any); a draw that sends everything one way
    moves the first category present to the other side."""
    cdef int word, bit, code, first = -1
    cdef bint any_left = False, any_right = False
    cut.categorical = True
    cut.threshold = NAN
    memset(cut.cat_left, 0, CAT_WORDS * sizeof(word_t))
    for word in range(CAT_WORDS):
        if not present[word]:
            continue
        for bit in range(64):
            if (present[word] >> bit) & 1:
                code = word * 64 + bit
                if first < 0:
                    first = code
                if rand_int(0, 2, state):
                    set_bit(cut.cat_left, code)
                    any_left = True
                else:
                    any_right = True
    if has_missing:
        cut.missing_left = rand_int(0, 2, state) == 1
        any_left = any_left or cut.missing_left
        any_right = any_right or not cut.missing_left
    if not any_left:
        set_bit(cut.cat_left, first)
    elif not any_right:
        clear_bit(cut.cat_left, first)


cdef inline bint keep_random_cut(SplitRecord* best, const SplitRecord* cut,
                                 double key) noexcept nogil:
    """Make a scored random cut the best if it beats it; an exact tie goes to the
    larger ``key`` (scikit-learn's rounded score), then to the cut drawn first."""
    if best.feature >= 0 and not wins(compare_score(cut.num, cut.den, best), key, best):
        return False
    best[0] = cut[0]
    best.tie_key = key
    return True


cdef inline void swap_features(Py_ssize_t* features, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    cdef Py_ssize_t t = features[i]
    features[i] = features[j]
    features[j] = t


cdef struct FeatureDraw:
    # scikit-learn's feature draw, shared by the splitters. ``features`` is one
    # permutation kept from node to node: at a node its head holds the n_known
    # features the ancestors found constant (never looked at again; they keep
    # their order for the siblings), then those found constant at this node,
    # then the undrawn, then the drawn non-constant ones (from undrawn_end).
    Py_ssize_t* features
    Py_ssize_t* constant_features   # constants found, ancestors' first
    Py_ssize_t* visit               # the node's non-constant features drawn, in order
    Py_ssize_t n_visit
    Py_ssize_t n_features
    Py_ssize_t max_features         # draws per node (constants count, see draw_next)
    unsigned int seed               # randint(0, RAND_R_MAX) of the fit's random state
    unsigned int state
    # the node being drawn for
    Py_ssize_t n_known, n_found, n_drawn_known, n_drawn, undrawn_end


cdef inline void draw_begin_fit(FeatureDraw* fd) noexcept nogil:
    """A fit starts as scikit-learn's: the generator at its seed, features in order."""
    cdef Py_ssize_t f
    fd.state = fd.seed
    for f in range(fd.n_features):
        fd.features[f] = f


cdef inline void draw_begin(FeatureDraw* fd, Py_ssize_t n_known) noexcept nogil:
    """Start a node's draw, ``n_known`` features known constant from above."""
    fd.n_known = n_known
    fd.n_found = 0
    fd.n_drawn_known = 0
    fd.n_drawn = 0
    fd.undrawn_end = fd.n_features
    fd.n_visit = 0


cdef inline Py_ssize_t draw_next(FeatureDraw* fd) noexcept nogil:
    """The position in ``features`` of the next feature to look at, -1 when the
    node's draw is over; the caller answers with ``draw_take``.

    Each draw picks uniformly among the undrawn features and the known
    constants not drawn yet (which are set aside unseen). Every draw counts
    towards ``max_features``, but the draw goes on while all it drew were
    constant.
    """
    cdef Py_ssize_t j
    while fd.undrawn_end > fd.n_known + fd.n_found and (
            fd.n_drawn < fd.max_features or fd.n_drawn <= fd.n_found + fd.n_drawn_known):
        fd.n_drawn += 1
        j = rand_int(fd.n_drawn_known, fd.undrawn_end - fd.n_found, &fd.state)
        if j >= fd.n_known:
            return j + fd.n_found
        swap_features(fd.features, fd.n_drawn_known, j)
        fd.n_drawn_known += 1
    return -1


cdef inline void draw_take(FeatureDraw* fd, Py_ssize_t j, bint constant) noexcept nogil:
    """The caller's verdict on the feature at position j: constant in the node (set
    it with the constants), or to be scanned (set it with the drawn ones, and
    append it to ``visit``)."""
    if constant:
        swap_features(fd.features, j, fd.n_known + fd.n_found)
        fd.n_found += 1
    else:
        fd.visit[fd.n_visit] = fd.features[j]
        fd.n_visit += 1
        fd.undrawn_end -= 1
        swap_features(fd.features, fd.undrawn_end, j)


cdef inline Py_ssize_t draw_end(FeatureDraw* fd) noexcept nogil:
    """Close the node's draw; returns the constants known below it."""
    memcpy(fd.features, fd.constant_features, fd.n_known * sizeof(Py_ssize_t))
    memcpy(fd.constant_features + fd.n_known, fd.features + fd.n_known,
           fd.n_found * sizeof(Py_ssize_t))
    return fd.n_known + fd.n_found


cdef inline Py_ssize_t draw_by_mask(FeatureDraw* fd, Py_ssize_t n_known,
                                    unsigned long long constant) noexcept nogil:
    """A node's whole draw when which features are constant there is known
    already (bit f of ``constant``: the growers' replay of speculatively grown
    subtrees, ``_grow``); the same draws and verdicts as the splitters' own loop.
    Returns the constants known below the node."""
    cdef Py_ssize_t j
    draw_begin(fd, n_known)
    j = draw_next(fd)
    while j >= 0:
        draw_take(fd, j, (constant >> fd.features[j]) & 1)
        j = draw_next(fd)
    return draw_end(fd)


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


# ---------------------------------------------------------------- stable partitions
ctypedef fused payload_t:
    class_t     # class code
    double      # regression target


cdef inline Py_ssize_t partition_segment(DTYPE_t* v, int* ix, payload_t* y, Py_ssize_t K,
                                         const unsigned long long* goes_left, DTYPE_t* tmp_v,
                                         int* tmp_i, payload_t* tmp_y, Py_ssize_t start,
                                         Py_ssize_t end) noexcept nogil:
    """Stable partition of one segment (values, sample ids, the K targets beside
    each value) into left + right; returns where the right part starts.

    Branch-free: every entry is written both to the in-place left cursor (never
    ahead of the read position) and to the scratch right cursor, and only the
    cursor of its side advances. (``partition_rows`` calls it with a literal K.)
    """
    cdef Py_ssize_t p, nl = start, nr, k
    cdef int i
    cdef int s
    cdef DTYPE_t x
    # (the right cursor is p - nl: one register less in a loop that has few)
    for p in range(start, end):
        i = ix[p]
        x = v[p]
        s = <int>bit_is_set(goes_left, i)
        nr = p - nl
        v[nl] = x
        tmp_v[nr] = x
        for k in range(K):
            tmp_y[nr * K + k] = y[p * K + k]
            y[nl * K + k] = y[p * K + k]
        ix[nl] = i
        tmp_i[nr] = i
        nl += s
    nr = end - nl
    memcpy(v + nl, tmp_v, nr * sizeof(DTYPE_t))
    memcpy(ix + nl, tmp_i, nr * sizeof(int))
    memcpy(y + nl * K, tmp_y, nr * K * sizeof(payload_t))
    return nl


cdef inline void partition_ids(int* ids, const unsigned long long* goes_left, int* tmp,
                               Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    """Stable partition of a segment of sample ids into left + right (see
    ``partition_segment``)."""
    cdef Py_ssize_t p, nl = start, nr = 0
    cdef int i, side
    for p in range(start, end):
        i = ids[p]
        side = <int>bit_is_set(goes_left, i)
        ids[nl] = i
        tmp[nr] = i
        nl += side
        nr += 1 - side
    memcpy(ids + nl, tmp, nr * sizeof(int))


# ---------------------------------------------------------------- sorting values
ctypedef fused small_key_t:
    Py_ssize_t
    unsigned long long


cdef inline void sort_few(small_key_t* a, Py_ssize_t n) noexcept nogil:
    """Sort n keys ascending in place by insertion (a few of them: no call, no room)."""
    cdef Py_ssize_t i, j
    cdef small_key_t key
    for i in range(1, n):
        key = a[i]
        j = i
        while j > 0 and a[j - 1] > key:
            a[j] = a[j - 1]
            j -= 1
        a[j] = key


cdef enum:
    RADIX_BITS = 11
    RADIX_SIZE = 2048          # 1 << RADIX_BITS; three passes cover 32-bit keys


cdef inline unsigned int float_key(DTYPE_t x) noexcept nogil:
    # Map float bits to an unsigned key with the same order: flip the sign bit
    # of positives, all bits of negatives. -0.0 is 0.0, so that the zeros of a
    # column keep the order of their samples (as the sparse splitter's zero block).
    cdef unsigned int u = (<unsigned int*> &x)[0]
    if u == 0x80000000u:
        u = 0
    if u & 0x80000000u:
        return ~u
    return u | 0x80000000u


cdef inline DTYPE_t key_float(unsigned int key) noexcept nogil:
    cdef unsigned int u
    if key & 0x80000000u:
        u = key & 0x7FFFFFFFu
    else:
        u = ~key
    return (<DTYPE_t*> &u)[0]


cdef inline bint radix_passes(unsigned int* ks, int* is_, Py_ssize_t n, unsigned int* kd,
                              int* id_, Py_ssize_t* hist) noexcept nogil:
    """Stable LSD radix sort of n keys ``ks`` (and the ids ``is_`` beside them, unless
    NULL) in linear time: four passes of 8 bits up to some thousands of keys (less
    to clear and sum per pass), else three of 11 bits; a digit every key shares is
    skipped. ``kd``/``id_`` are room for n more, ``hist`` for 3 * RADIX_SIZE
    counts. Returns whether the sorted keys ended in ``kd``/``id_`` (else in
    ``ks``/``is_``)."""
    cdef Py_ssize_t i, b, shift, digit, total, count, bits, size, passes
    cdef unsigned int* kt
    cdef int* it
    cdef unsigned int key, mask
    cdef bint swapped = False
    bits = 8 if n < 8192 else RADIX_BITS
    passes = 4 if n < 8192 else 3
    size = 1 << bits
    mask = <unsigned int>(size - 1)
    memset(hist, 0, passes * size * sizeof(Py_ssize_t))
    for i in range(n):
        key = ks[i]
        for digit in range(passes):
            hist[digit * size + ((key >> (digit * bits)) & mask)] += 1
    for digit in range(passes):
        shift = digit * bits
        if n == 0 or hist[digit * size + ((ks[0] >> shift) & mask)] == n:
            continue
        total = 0
        for b in range(size):
            count = hist[digit * size + b]
            hist[digit * size + b] = total
            total += count
        for i in range(n):
            b = digit * size + ((ks[i] >> shift) & mask)
            kd[hist[b]] = ks[i]
            if is_ != NULL:
                id_[hist[b]] = is_[i]
            hist[b] += 1
        kt = ks
        ks = kd
        kd = kt
        it = is_
        is_ = id_
        id_ = it
        swapped = not swapped
    return swapped


cdef inline void radix_sort_keys(unsigned int* ks, int* is_, Py_ssize_t n, unsigned int* kd,
                                 int* id_, Py_ssize_t* hist, DTYPE_t* vals_out,
                                 int* idx_out) noexcept nogil:
    """Stable sort of n (``float_key``, id) pairs: the values in order to
    ``vals_out``, their ids to ``idx_out`` (equal values keep their ids' order).
    A few pairs go by insertion, more by ``radix_passes`` (same arguments)."""
    cdef Py_ssize_t i, j
    cdef unsigned int key
    cdef int ident
    if n <= 64:
        for i in range(1, n):
            key = ks[i]
            ident = is_[i]
            j = i
            while j > 0 and ks[j - 1] > key:
                ks[j] = ks[j - 1]
                is_[j] = is_[j - 1]
                j -= 1
            ks[j] = key
            is_[j] = ident
    elif radix_passes(ks, is_, n, kd, id_, hist):
        ks = kd
        is_ = id_
    for i in range(n):
        vals_out[i] = key_float(ks[i])
    memcpy(idx_out, is_, n * sizeof(int))
