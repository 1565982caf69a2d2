# cython: language_level=3
"""Traversal of a fitted tree by its one routing rule (``_route.pxd``'s ``side``).

apply (dense rows in blocks, CSR rows where they are stored), decision paths,
C4.5's fractional predict, each split's training range, the surrogates'
routing of missing values, and partial dependence's weighted traversal. Readers
of a fitted ``Tree`` use these kernels; no builder is imported. Nodes are
packed into 32-byte records (``PackedNode``) walked without the GIL; category
sets are bitsets of CAT_WORDS 64-bit words.
"""
import numpy as np

cimport numpy as cnp

from cython.parallel cimport prange, threadid

from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc

from ._common cimport CAT_WORDS, DTYPE_t, bit_is_set, dtree_prefetch, float_at_most

cnp.import_array()

# the words of a category set, for Python readers
CATEGORY_SET_WORDS = CAT_WORDS

ctypedef Py_ssize_t intp_t


PACKED_NODE_DTYPE = np.dtype([("threshold", np.float64), ("feature", np.int32),
                              ("left", np.int32), ("right", np.int32),
                              ("missing_right", np.int32), ("cat", np.int32),
                              ("pad", np.int32)])

cdef enum:
    BLOCK = 8           # rows advanced together: independent loads overlap
    TOP_BLOCK = 16      # rows through a complete top together (measured: 8 and 32 slower)
    PREFETCH_BLOCKS = 4 # blocks of rows asked for ahead of the top's


def pack_nodes(left, right, feature, threshold, missing_go_to_left, categorical_set):
    """The traversal fields of every node in one structured array."""
    ids = np.arange(left.shape[0], dtype=np.int32)
    is_leaf = left < 0
    packed = np.zeros(left.shape[0], dtype=PACKED_NODE_DTYPE)
    packed["threshold"] = np.where(is_leaf, 0.0, threshold)
    packed["feature"] = np.where(is_leaf, 0, feature)
    packed["left"] = np.where(is_leaf, ids, left)
    packed["right"] = np.where(is_leaf, ids, right)
    packed["missing_right"] = np.where(is_leaf, 0, 1 - missing_go_to_left.astype(np.int32))
    packed["cat"] = np.where(is_leaf, -1, categorical_set)
    return packed


# Which block loop: one without a category test at every step where no node has a
# category set (a loop testing a flag at every step measured 15-20% slower: the
# compiler did not unswitch it), one with. A fused type makes the two at compile time.
cdef struct NumericSplits:
    char unused
cdef struct AnySplits:
    char unused
ctypedef fused splits_t:
    NumericSplits
    AnySplits


cdef void _apply_block(const splits_t* kind, const PackedNode* nodes,
                       const unsigned long long* sets, const DTYPE_t[:, :] X, Py_ssize_t start,
                       Py_ssize_t m, int* cur) noexcept nogil:
    # Advance m rows, from the nodes in ``cur``, one level at a time until none of
    # them moves: the rows' dependent load chains are independent, so the CPU
    # overlaps them.
    cdef Py_ssize_t r
    cdef int node, nxt, moved = 1
    cdef const PackedNode* p
    while moved:
        moved = 0
        for r in range(m):
            node = cur[r]
            p = &nodes[node]
            if splits_t is NumericSplits:
                nxt = p.child[numeric_side(X[start + r, p.feature], p.threshold,
                                           p.missing_right)]
            else:
                nxt = step(p, X[start + r, p.feature], sets)
            moved |= nxt != node
            cur[r] = nxt


cdef inline void _route_block(const PackedNode* nodes, const unsigned long long* set_ptr,
                              bint numeric_only, const DTYPE_t[:, :] X, Py_ssize_t start,
                              Py_ssize_t m, int* cur) noexcept nogil:
    # a block of m rows through one tree from the root, by the loop its splits need
    cdef Py_ssize_t r
    for r in range(m):
        cur[r] = 0
    _finish_block(nodes, set_ptr, numeric_only, X, start, m, cur)


cdef inline void _finish_block(const PackedNode* nodes, const unsigned long long* set_ptr,
                               bint numeric_only, const DTYPE_t[:, :] X, Py_ssize_t start,
                               Py_ssize_t m, int* cur) noexcept nogil:
    # a block of m rows from the nodes in ``cur`` down to their leaves
    if numeric_only:
        _apply_block(<NumericSplits*> NULL, nodes, set_ptr, X, start, m, cur)
    else:
        _apply_block(<AnySplits*> NULL, nodes, set_ptr, X, start, m, cur)


# ------------------------------------------------------------ the complete top
# A numeric tree's first levels laid out as a complete binary tree, as a heap
# (``TopNode``, 8 bytes; position 1 the root, the children of position i are
# 2i and 2i + 1, so no child is loaded), a leaf above the last level padded by
# nodes that send every value left; ``exits`` maps each position of the level
# below to the tree's node there. A row takes exactly ``levels`` branch-free
# steps, then the packed nodes from its exit if the tree is deeper. A depth-10
# tree's top is 12 KB: it stays in the first-level cache.
cdef struct TopNode:
    float threshold         # the double threshold rounded down: x > it exactly when x > the double
    unsigned short feature
    unsigned short missing_right

TOP_NODE_DTYPE = np.dtype([("threshold", np.float32), ("feature", np.uint16),
                           ("missing_right", np.uint16)])

cdef enum:
    TOP_LEVELS = 12         # at most 32 KB of top per tree
    TOP_FEATURES = 65536    # a feature index fits an unsigned short


# Below a numeric tree's top, a forest walks its nodes as 16-byte records (half a
# ``PackedNode``: a forest's deep trees stay in the second-level cache twice as
# long): the float threshold as the top's, no category set; whether each child is
# a leaf is in the node's flags, so a row's step need not load its next node to
# learn that it is done.
cdef struct SlimNode:
    float threshold         # as a top's: x > it exactly when the float32 x > the double
    unsigned short feature
    unsigned short flags    # SLIM_MISSING_RIGHT | SLIM_LEAF_CHILD << side for each leaf child
    int child[2]            # left, right; both the node itself for a leaf

cdef enum:
    SLIM_MISSING_RIGHT = 1
    SLIM_LEAF_CHILD = 2     # shifted left by the child's side (0 left, 1 right)

# the largest feature count whose splits fit a slim node (and a top's)
SLIM_FEATURES = TOP_FEATURES
SLIM_NODE_DTYPE = np.dtype([("threshold", np.float32), ("feature", np.uint16),
                            ("flags", np.uint16), ("left", np.int32),
                            ("right", np.int32)])


cdef inline void _slim_block(const SlimNode* nodes, const DTYPE_t* x0, Py_ssize_t d,
                             Py_ssize_t start, Py_ssize_t m, int* cur, bint nan) noexcept nogil:
    # m C-contiguous rows of d values from the nodes in ``cur`` down to their
    # leaves, the rows still moving advanced together (their loads overlap); a row
    # that reaches its leaf leaves the set, so the steps follow each row's own
    # depth, not the block's deepest. Without NaN in the rows (``nan`` false, as
    # the top found), a step compares only.
    cdef const DTYPE_t* row[TOP_BLOCK]
    cdef int at[TOP_BLOCK]
    cdef int which[TOP_BLOCK]
    cdef Py_ssize_t r, moving = 0
    cdef int node, nxt, side
    cdef const SlimNode* p
    for r in range(m):
        if nodes[cur[r]].child[0] != cur[r]:
            at[moving] = cur[r]
            which[moving] = <int>r
            row[moving] = x0 + (start + r) * d
            moving += 1
    while moving:
        r = 0
        while r < moving:
            node = at[r]
            p = &nodes[node]
            side = numeric_side(row[r][p.feature], p.threshold,
                                nan and (p.flags & SLIM_MISSING_RIGHT))
            nxt = p.child[side]
            if p.flags & (SLIM_LEAF_CHILD << side):     # a leaf: the row is done
                cur[which[r]] = nxt
                moving -= 1
                at[r], which[r], row[r] = at[moving], which[moving], row[moving]
            else:
                at[r] = nxt
                r += 1



# a tree's nodes as the top's builder reads them: packed or slim
ctypedef fused node_t:
    PackedNode
    SlimNode


cdef inline unsigned short _missing_right(const node_t* p) noexcept nogil:
    if node_t is SlimNode:
        return (p.flags & SLIM_MISSING_RIGHT) != 0
    else:
        return p.missing_right != 0


cdef inline float _top_threshold(const node_t* p) noexcept nogil:
    if node_t is SlimNode:
        return p.threshold
    else:
        return float_at_most(p.threshold)


cdef const unsigned char* _node_bytes(nodes):
    # the first byte of a C-contiguous array of packed or slim nodes
    assert (nodes.dtype == PACKED_NODE_DTYPE or nodes.dtype == SLIM_NODE_DTYPE) \
        and nodes.flags.c_contiguous and nodes.shape[0] > 0
    cdef const unsigned char[::1] raw = nodes.view(np.uint8)
    return &raw[0]


def pack_top(packed, Py_ssize_t depth, Py_ssize_t n_features):
    """The complete top of a numeric tree's packed (or slim) nodes: (top, exits),
    its ``min(depth, TOP_LEVELS)`` levels as ``TOP_NODE_DTYPE`` records in heap
    order (position 0 unused) and the int32 node at each position of the level
    below them; None when a feature index does not fit the record."""
    if n_features > TOP_FEATURES:
        return None
    cdef const unsigned char* raw = _node_bytes(packed)
    cdef Py_ssize_t levels = max(0, min(depth, <Py_ssize_t>TOP_LEVELS))
    cdef Py_ssize_t width = 1 << levels
    top = np.zeros(width, dtype=TOP_NODE_DTYPE)
    at = np.zeros(2 * width, dtype=np.int32)
    cdef int[::1] at_view = at
    cdef unsigned char[::1] top_raw = top.view(np.uint8)
    cdef bint slim = packed.dtype == SLIM_NODE_DTYPE
    with nogil:
        if slim:
            _fill_top(<const SlimNode*> raw, width, &at_view[0], <TopNode*> &top_raw[0])
        else:
            _fill_top(<const PackedNode*> raw, width, &at_view[0], <TopNode*> &top_raw[0])
    return top, at[width:].copy()


cdef void _fill_top(const node_t* nodes, Py_ssize_t width, int* at, TopNode* t) noexcept nogil:
    # positions 1..width-1 of the heap from the nodes, each position's node in
    # at[pos] (at[1] = 0, the root), the level below's nodes in at[width:]
    cdef Py_ssize_t pos
    cdef const node_t* p
    for pos in range(1, width):
        p = &nodes[at[pos]]
        at[2 * pos] = p.child[0]
        at[2 * pos + 1] = p.child[1]
        if p.child[0] == at[pos]:          # a leaf: every value goes left
            t[pos].threshold = INFINITY
            t[pos].feature = 0
            t[pos].missing_right = 0
        else:
            t[pos].threshold = _top_threshold(p)
            t[pos].feature = <unsigned short>p.feature
            t[pos].missing_right = _missing_right(p)


cdef inline int _top_block(const TopNode* top, Py_ssize_t levels,
                           const DTYPE_t* x0, Py_ssize_t d, Py_ssize_t start, Py_ssize_t m,
                           int* cur, int nan=-1) noexcept nogil:
    # m (at most TOP_BLOCK) C-contiguous rows of d values through the complete
    # top: ``levels`` steps each, no branch. A whole block of finite values (one
    # vectorised test) compares only; a short one, or one with NaN or inf, adds
    # the missing rule of ``numeric_side``. Returns whether the block holds a
    # non-finite value; ``nan``, when not negative, is that answer known already.
    cdef unsigned int pos[TOP_BLOCK]
    cdef const DTYPE_t* block = x0 + start * d
    cdef Py_ssize_t r, level
    cdef const TopNode* t
    cdef DTYPE_t x
    if nan < 0:
        nan = _nonfinite(block, m * d)
    for r in range(TOP_BLOCK):
        pos[r] = 1
    if nan or m < TOP_BLOCK:
        # (a short block, as a single row's, takes its own rows only)
        for level in range(levels):
            for r in range(m):
                t = &top[pos[r]]
                x = block[r * d + t.feature]
                pos[r] = 2 * pos[r] + numeric_side(x, t.threshold, t.missing_right)
    else:
        # (a fixed count of rows lets the compiler unroll the steps and keep the
        # positions in registers)
        for level in range(levels):
            for r in range(TOP_BLOCK):
                t = &top[pos[r]]
                # (no NaN in the block: the rule with nothing missing)
                pos[r] = 2 * pos[r] + numeric_side(block[r * d + t.feature], t.threshold, 0)
    for r in range(m):
        cur[r] = pos[r] - (1u << levels)
    return nan


cdef inline void _exit_nodes(const int* exits, Py_ssize_t m, int* cur) noexcept nogil:
    # the node at each of m exits of a top (as ``_top_block`` leaves them in cur)
    cdef Py_ssize_t r
    for r in range(m):
        cur[r] = exits[cur[r]]


cdef inline int _nonfinite(const DTYPE_t* v, Py_ssize_t n) noexcept nogil:
    # whether v[0:n] holds NaN or inf, in one vectorised pass over the bits: a
    # value's magnitude bits plus the lowest exponent bit carry into the sign bit
    # exactly when its exponent bits are all set. Four accumulators over 16
    # values a step keep the loop's own count off the critical path (measured:
    # x - x != x - x, x * 0 != 0 and a compare per value cost more)
    cdef const unsigned int* bits = <const unsigned int*> v
    cdef Py_ssize_t i = 0, k
    cdef unsigned int acc[4]
    acc[0] = acc[1] = acc[2] = acc[3] = 0
    while i + 16 <= n:
        for k in range(16):
            acc[k & 3] |= (bits[i + k] & 0x7fffffffu) + 0x00800000u
        i += 16
    while i < n:
        acc[0] |= (bits[i] & 0x7fffffffu) + 0x00800000u
        i += 1
    return ((acc[0] | acc[1] | acc[2] | acc[3]) >> 31) != 0


cdef int _nonfinite_rows(const DTYPE_t[:, :] X, Py_ssize_t start, Py_ssize_t m) noexcept nogil:
    # whether rows [start, start + m) of X (any strides) hold NaN or inf
    cdef Py_ssize_t r, j
    cdef int bad = 0
    cdef DTYPE_t z
    for r in range(start, start + m):
        for j in range(X.shape[1]):
            z = X[r, j] - X[r, j]
            bad |= z != z
    return bad


cdef struct Tops:
    # a tree's complete top (NULL when the tree has none: category sets)
    const TopNode* nodes
    const int* exits
    Py_ssize_t levels
    bint deeper         # whether some exit is no leaf
    const SlimNode* slim    # the nodes below the top as slim ones, or NULL: packed


cdef inline void _below_top(const PackedNode* nodes, const unsigned long long* set_ptr,
                            bint numeric_only, const Tops* tops, const DTYPE_t[:, :] X,
                            Py_ssize_t start, Py_ssize_t m, int* cur, bint nan) noexcept nogil:
    # a block of rows from the top's exits in ``cur`` down to their leaves, by the
    # tree's slim nodes where it has them (X is then C-contiguous, as the top reads it)
    if tops.slim != NULL:
        _slim_block(tops.slim, &X[0, 0], X.shape[1], start, m, cur, nan)
    else:
        _finish_block(nodes, set_ptr, numeric_only, X, start, m, cur)


ctypedef fused out_t:
    Py_ssize_t
    double


cdef inline void _prefetch_rows(const DTYPE_t* x0, Py_ssize_t d, Py_ssize_t start,
                                Py_ssize_t m) noexcept nogil:
    # asks for the cache lines of m C-contiguous rows from ``start`` (none when m
    # is not positive): the top's block reads its rows in an order the hardware
    # prefetcher does not follow ahead
    cdef const char* p = <const char*> (x0 + start * d)
    cdef Py_ssize_t off
    if m > 0:
        for off in range(0, m * d * <Py_ssize_t>sizeof(DTYPE_t), 64):
            dtree_prefetch(p + off)


cdef int _apply_rows(const PackedNode* nodes, const unsigned long long* set_ptr,
                     bint numeric_only, const Tops* tops, const DTYPE_t[:, :] X,
                     Py_ssize_t lo, Py_ssize_t hi, const out_t* table, const out_t* at_exit,
                     bint check, out_t* out) noexcept nogil:
    # rows [lo, hi): out[r] = the leaf reached (or table[leaf]); returns whether
    # a row held NaN or inf (always 0 unless ``check`` or through a top).
    # ``at_exit``: NULL, or (a top whose exits are all leaves) the output at each
    # exit, which saves a row the lookup of its exit's node
    cdef int cur[TOP_BLOCK]
    cdef int seen = 0, nan
    cdef Py_ssize_t start = lo, m, r
    cdef Py_ssize_t rows = TOP_BLOCK if tops.exits != NULL else BLOCK
    while start < hi:
        m = min(rows, hi - start)
        if tops.exits != NULL:
            _prefetch_rows(&X[0, 0], X.shape[1], start + PREFETCH_BLOCKS * rows,
                           min(rows, hi - start - PREFETCH_BLOCKS * rows))
            nan = _top_block(tops.nodes, tops.levels, &X[0, 0], X.shape[1], start, m, cur)
            seen |= nan
            if at_exit != NULL:
                for r in range(m):
                    out[start + r] = at_exit[cur[r]]
                start += m
                continue
            _exit_nodes(tops.exits, m, cur)
            if tops.deeper:
                _below_top(nodes, set_ptr, numeric_only, tops, X, start, m, cur, nan)
        else:
            if check:
                seen |= _nonfinite_rows(X, start, m)
            _route_block(nodes, set_ptr, numeric_only, X, start, m, cur)
        if table != NULL:
            for r in range(m):
                out[start + r] = table[cur[r]]
        else:
            for r in range(m):
                out[start + r] = cur[r]
        start += m
    return seen


cdef enum:
    PREDICT_CHUNK = 8192   # rows per thread task: large enough to pay for the task
    # Threads start only with this many chunks per thread: below it, starting
    # them costs about what they save (measured at 10,000 to 30,000 rows).
    CHUNKS_PER_THREAD = 4
    # a forest's task: at least this many rows, each through every tree (small
    # batches balance on threads), and about a quarter of a thread's share of a
    # large batch (a task walks each tree over its rows: fewer, longer tasks load
    # each tree fewer times; measured at 1e5 rows x 20 features on 2 threads)
    FOREST_CHUNK = 4096
    FOREST_TASKS_PER_THREAD = 4
    # rows per exit of a top from which routing looks a row's output up by its
    # exit directly (building that table costs about one lookup per exit)
    EXIT_TABLE_ROWS = 4

# below this many rows no routing starts threads, however many it may use
PARALLEL_ROWS = (2 * CHUNKS_PER_THREAD - 1) * PREDICT_CHUNK


cdef class Router:
    """A fitted tree's traversal, prepared once: its packed nodes, category sets
    and (numeric trees) complete top, with the pointers the kernels read.

    ``route`` is ``apply_packed`` without the per-call preparation, which for a
    single row costs more than the routing.
    """
    cdef object packed, sets, top
    cdef const PackedNode* nodes
    cdef const unsigned long long* set_ptr
    cdef bint numeric_only
    cdef Tops tops
    cdef const unsigned long long[:, ::1] set_view
    cdef const unsigned char[::1] raw, top_raw, slim_raw
    cdef const int[::1] exits

    def __cinit__(self, packed, sets, top=None):
        assert packed.dtype == PACKED_NODE_DTYPE and packed.flags.c_contiguous
        self.packed, self.sets, self.top = packed, sets, top
        self.raw = packed.view(np.uint8)
        self.nodes = <const PackedNode*> &self.raw[0]
        self.set_view = _sets_or_dummy(sets)
        self.set_ptr = &self.set_view[0, 0]
        self.numeric_only = np.asarray(sets).size == 0
        self.tops.exits = NULL
        self.tops.slim = NULL
        if top is not None:
            self.top_raw = top[0].view(np.uint8)
            self.exits = top[1]
            self.tops.nodes = <const TopNode*> &self.top_raw[0]
            self.tops.exits = &self.exits[0]
            self.tops.levels = (self.exits.shape[0]).bit_length() - 1
            self.tops.deeper = deeper_than_top(packed, self.exits)
            if self.tops.deeper and self.numeric_only:
                # (a deep tree's nodes below the top in half the cache)
                self.slim_raw = slim_nodes(packed).view(np.uint8)
                self.tops.slim = <const SlimNode*> &self.slim_raw[0]

    def route(self, const DTYPE_t[:, :] X, int n_threads=1, cnp.ndarray table=None,
              bint check_finite=False):
        """See ``apply_packed``."""
        # (arrays read through their data pointers: for one row, taking typed views
        # of the table and the output cost more than the routing)
        cdef Py_ssize_t n = X.shape[0]
        cdef int seen, kind = cnp.NPY_INTP
        cdef cnp.npy_intp size = n
        if table is not None:
            kind = cnp.PyArray_TYPE(table)
            if (kind != cnp.NPY_INTP and kind != cnp.NPY_DOUBLE) or table.ndim != 1 \
                    or not cnp.PyArray_IS_C_CONTIGUOUS(table):
                raise TypeError("the table must be a contiguous 1-D intp or float64 array")
            if table.shape[0] != self.raw.shape[0] // sizeof(PackedNode):
                raise ValueError("the table needs one value per node")
        out = cnp.PyArray_EMPTY(1, &size, kind, 0)
        # the output at each exit of a top that holds the whole tree, when the rows
        # are many enough to pay for it
        at_exit = None
        if self.tops.exits != NULL and not self.tops.deeper \
                and n >= EXIT_TABLE_ROWS * self.exits.shape[0]:
            at_exit = (np.asarray(self.exits).astype(np.intp) if table is None
                       else table.take(self.exits))
        if kind == cnp.NPY_DOUBLE:
            seen = self._apply(X, n_threads, <const double*> cnp.PyArray_DATA(table),
                               <const double*> NULL if at_exit is None else
                               <const double*> cnp.PyArray_DATA(at_exit),
                               check_finite, <double*> cnp.PyArray_DATA(out))
        else:
            seen = self._apply(X, n_threads, <const Py_ssize_t*> NULL if table is None else
                               <const Py_ssize_t*> cnp.PyArray_DATA(table),
                               <const Py_ssize_t*> NULL if at_exit is None else
                               <const Py_ssize_t*> cnp.PyArray_DATA(at_exit),
                               check_finite, <Py_ssize_t*> cnp.PyArray_DATA(out))
        return (out, bool(seen)) if check_finite else out

    cdef int _apply(self, const DTYPE_t[:, :] X, int n_threads, const out_t* table,
                    const out_t* at_exit, bint check, out_t* out) except -1:
        # route's body for one type of output
        cdef Py_ssize_t n = X.shape[0], chunk, n_chunks = (n + PREDICT_CHUNK - 1) // PREDICT_CHUNK
        cdef Tops tops = self.tops
        cdef int seen = 0
        if n == 0:
            return 0
        # the top reads C-contiguous rows only
        if X.shape[1] == 0 or X.strides[1] != sizeof(DTYPE_t) \
                or X.strides[0] != X.shape[1] * sizeof(DTYPE_t):
            tops.exits = NULL
        if n_threads <= 1 or n_chunks < CHUNKS_PER_THREAD * n_threads:
            with nogil:
                seen = _apply_rows(self.nodes, self.set_ptr, self.numeric_only, &tops, X, 0, n,
                                   table, at_exit, check, out)
            return seen
        for chunk in prange(n_chunks, nogil=True, num_threads=n_threads, schedule="static"):
            seen |= _apply_rows(self.nodes, self.set_ptr, self.numeric_only, &tops, X,
                                chunk * PREDICT_CHUNK, min(n, (chunk + 1) * PREDICT_CHUNK),
                                table, at_exit, check, out)
        return seen


def apply_packed(packed, sets, const DTYPE_t[:, :] X, int n_threads=1, top=None,
                 table=None, bint check_finite=False):
    """Leaf id reached by each row of X (float32, any strides), on n_threads.

    ``top``: the tree's ``pack_top`` (used for a C-contiguous X), or None to walk
    the packed nodes only. ``table``: a value per node (intp or float64), then
    each row gets its leaf's value instead of the leaf id. ``check_finite``:
    returns (out, whether some row held NaN or inf), read as the rows are
    routed, so a caller can leave the validation of values to this pass.
    """
    return Router(packed, sets, top).route(X, n_threads, table, check_finite)


def deeper_than_top(packed, const int[::1] exits):
    """Whether some exit of a tree's top (``pack_top``) is an inner node of its
    packed (or slim) nodes: rows then go on below the top."""
    cdef const unsigned char* raw = _node_bytes(packed)
    if packed.dtype == SLIM_NODE_DTYPE:
        return _some_inner(<const SlimNode*> raw, exits)
    return _some_inner(<const PackedNode*> raw, exits)


cdef bint _some_inner(const node_t* nodes, const int[::1] exits) noexcept:
    cdef Py_ssize_t i
    for i in range(exits.shape[0]):
        if nodes[exits[i]].child[0] != exits[i]:
            return True
    return False


def split_ranges(packed, sets, const DTYPE_t[:, :] X, int n_threads=1):
    """``(low, high)``: per node, the smallest and largest present value of its split
    feature over the rows of X that pass through it (routed as ``apply_packed``);
    +inf / -inf where none did (leaves, and nodes no row with a value reached).
    Rows are split over n_threads in chunks, each thread with its own bounds,
    merged at the end (a minimum is the same in any order)."""
    assert packed.dtype == PACKED_NODE_DTYPE and packed.flags.c_contiguous
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef Py_ssize_t n_nodes = packed.shape[0], n = X.shape[0], chunk
    cdef Py_ssize_t n_chunks = (n + PREDICT_CHUNK - 1) // PREDICT_CHUNK
    cdef int T = max(1, min(n_threads, n_chunks // CHUNKS_PER_THREAD))
    low = np.full((T, n_nodes), np.inf)
    high = np.full((T, n_nodes), -np.inf)
    cdef double[:, ::1] lo = low, hi = high
    if T == 1:
        with nogil:
            _range_rows(nodes, set_ptr, X, 0, n, &lo[0, 0], &hi[0, 0])
    else:
        for chunk in prange(n_chunks, nogil=True, num_threads=T, schedule="static"):
            _range_rows(nodes, set_ptr, X, chunk * PREDICT_CHUNK,
                        min(n, (chunk + 1) * PREDICT_CHUNK), &lo[threadid(), 0],
                        &hi[threadid(), 0])
    if T == 1:
        return low[0], high[0]       # (views: no copy of a node-sized array)
    for chunk in range(1, T):       # merged into the first thread's rows, in place
        np.minimum(low[0], low[chunk], out=low[0])
        np.maximum(high[0], high[chunk], out=high[0])
    return low[0], high[0]


cdef void _range_rows(const PackedNode* nodes, const unsigned long long* set_ptr,
                      const DTYPE_t[:, :] X, Py_ssize_t lo_row, Py_ssize_t hi_row,
                      double* lo, double* hi) noexcept nogil:
    # split_ranges over rows [lo_row, hi_row), into one thread's bounds
    cdef int cur[BLOCK]
    cdef int active[BLOCK]
    cdef int node, nxt
    cdef Py_ssize_t r, k, m, n_active, start = lo_row
    cdef DTYPE_t x
    # a block of rows one level at a time, as _apply_block (overlapped loads); a row
    # that reaches its leaf leaves the block's active rows (the rows of a deep tree
    # end at very different depths: a pass over finished rows reads X for nothing).
    # The bounds are least and greatest values: the same in any order.
    while start < hi_row:
        m = min(<Py_ssize_t>BLOCK, hi_row - start)
        for r in range(m):
            cur[r] = 0
            active[r] = <int>r
        n_active = m
        while n_active > 0:
            k = 0
            while k < n_active:
                r = active[k]
                node = cur[r]
                x = X[start + r, nodes[node].feature]
                nxt = step(&nodes[node], x, set_ptr)
                if nxt == node:
                    n_active -= 1
                    active[k] = active[n_active]
                    continue
                cur[r] = nxt
                if x < lo[node]:     # (NaN compares false: no effect)
                    lo[node] = x
                if x > hi[node]:
                    hi[node] = x
                k += 1
        start += m


def cascade_branches(packed, sets, const Py_ssize_t[::1] links, const DTYPE_t[:, :] X,
                     const Py_ssize_t[::1] rows):
    """The branch each of ``rows`` of X takes at a split read whole (a multiway
    cascade's ``links``, head first; one node for a binary split), by the rule
    (``side``): the first link that sends it left, or ``len(links)`` past them
    all; -1 where its value is missing (C4.5's pruning shares such a case among
    the branches)."""
    assert packed.dtype == PACKED_NODE_DTYPE and packed.flags.c_contiguous
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const word_t* set_ptr = <const word_t*> &set_view[0, 0]
    cdef Py_ssize_t n = rows.shape[0], k = links.shape[0], i, j, node
    cdef DTYPE_t x
    for j in range(k):
        assert 0 <= links[j] < packed.shape[0]
        assert 0 <= nodes[links[j]].feature < X.shape[1]
    out = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = k
            for j in range(k):
                node = links[j]
                x = X[rows[i], nodes[node].feature]
                if x != x:
                    o[i] = -1
                    break
                if side(x, nodes[node].threshold, nodes[node].missing_right,
                        node_set(&nodes[node], set_ptr)) == 0:
                    o[i] = j
                    break
    return out


def _sets_or_dummy(sets):
    # a (0, CAT_WORDS) array has no first element to point at
    sets = np.ascontiguousarray(sets, dtype=np.uint64).reshape(-1, CAT_WORDS)
    return sets if sets.shape[0] else np.zeros((1, CAT_WORDS), dtype=np.uint64)


def decision_paths(const Py_ssize_t[::1] parent, const Py_ssize_t[::1] depth,
                   const Py_ssize_t[::1] leaves):
    """CSR pieces (indptr, indices) of the node indicator: each row's path from the
    root to its leaf (``apply``'s answer), read from the leaf up through ``parent``
    (-1 at the root), so dense and sparse rows share it."""
    cdef Py_ssize_t n = leaves.shape[0], i, pos, node
    indptr = np.zeros(n + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] ip = indptr
    for i in range(n):
        ip[i + 1] = ip[i] + depth[leaves[i]] + 1
    indices = np.empty(ip[n], dtype=np.intp)
    cdef Py_ssize_t[::1] ind = indices
    with nogil:
        for i in range(n):
            node = leaves[i]
            pos = ip[i + 1] - 1
            while node >= 0:
                ind[pos] = node
                pos -= 1
                node = parent[node]
    return indptr, indices


def predict_fractional(tree, const float[:, ::1] X):
    """Leaf values mixed as C4.5 classifies: a missing value follows every branch.

    At a split whose feature is missing (NaN), the case continues down both
    children with its weight multiplied by each child's share of the node's
    training weight; the result is the weighted sum of the leaf values reached.

    Returns
    -------
    ndarray of shape (n_samples, n_values)
    """
    cdef const intp_t[::1] left = np.ascontiguousarray(tree.children_left, dtype=np.intp)
    cdef const intp_t[::1] right = np.ascontiguousarray(tree.children_right, dtype=np.intp)
    cdef const intp_t[::1] feature = np.ascontiguousarray(tree.feature, dtype=np.intp)
    cdef const double[::1] threshold = np.ascontiguousarray(tree.threshold, dtype=np.float64)
    cdef const intp_t[::1] cat_row = np.ascontiguousarray(tree.categorical_set, dtype=np.intp)
    cdef const unsigned long long[:, ::1] sets = np.ascontiguousarray(
        tree.category_sets, dtype=np.uint64).reshape(-1, CAT_WORDS)
    cdef const double[::1] wn = np.ascontiguousarray(tree.scaled_weighted_n_node_samples,
                                                     dtype=np.float64)
    values = np.ascontiguousarray(tree.value[:, 0, :], dtype=np.float64)
    cdef const double[:, ::1] vv = values
    cdef intp_t n = X.shape[0], K = values.shape[1], n_nodes = left.shape[0]
    out = np.zeros((n, K), dtype=np.float64)
    cdef double[:, ::1] ov = out
    cdef intp_t* nodes = <intp_t*> malloc((n_nodes + 2) * sizeof(intp_t))
    cdef double* mass = <double*> malloc((n_nodes + 2) * sizeof(double))
    cdef intp_t i, k, top, node, l, r
    cdef double w, total
    cdef DTYPE_t x
    cdef bint go_left
    if nodes == NULL or mass == NULL:
        free(nodes)
        free(mass)
        raise MemoryError()
    with nogil:
        for i in range(n):
            top = 1
            nodes[0] = 0
            mass[0] = 1.0
            while top > 0:
                top -= 1
                node = nodes[top]
                w = mass[top]
                l = left[node]
                if l < 0:
                    for k in range(K):
                        ov[i, k] += w * vv[node, k]
                    continue
                r = right[node]
                x = X[i, feature[node]]
                if x != x:
                    total = wn[l] + wn[r]
                    nodes[top] = r
                    mass[top] = w * (wn[r] / total if total > 0 else 0.5)
                    nodes[top + 1] = l
                    mass[top + 1] = w * (wn[l] / total if total > 0 else 0.5)
                    top += 2
                    continue
                go_left = side(x, threshold[node], 0,
                               &sets[cat_row[node], 0] if cat_row[node] >= 0 else NULL) == 0
                nodes[top] = l if go_left else r
                mass[top] = w
                top += 1
    free(nodes)
    free(mass)
    return out



# ------------------------------------------------------------ sparse rows (CSR)
# A row of a CSR matrix is read where it is stored: a feature's value is found by
# bisection among the row's column indices (sorted, no duplicates: the caller's
# canonical CSR), 0 where the column is not stored. Nothing is densified.

cdef inline DTYPE_t csr_value(const int* indices, const DTYPE_t* data, Py_ssize_t lo,
                              Py_ssize_t end, int f) noexcept nogil:
    cdef Py_ssize_t hi = end, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < f:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and indices[lo] == f:
        return data[lo]
    return 0.0


cdef inline int csr_step(const PackedNode* nodes, int node, const unsigned long long* sets,
                         const int* indices, const DTYPE_t* data, Py_ssize_t lo,
                         Py_ssize_t end) noexcept nogil:
    # the child a sparse row goes to from node (the node itself at a leaf)
    return step(&nodes[node], csr_value(indices, data, lo, end, nodes[node].feature), sets)


def apply_csr(packed, sets, const Py_ssize_t[::1] indptr, const int[::1] indices,
              const DTYPE_t[::1] data, int n_threads=1):
    """Leaf id reached by each row of a canonical float32 CSR matrix, on n_threads."""
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef Py_ssize_t n = indptr.shape[0] - 1, i
    cdef const int* ind = &indices[0] if indices.shape[0] else NULL
    cdef const DTYPE_t* dat = &data[0] if data.shape[0] else NULL
    cdef int node, nxt, threads
    out = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] leaves = out
    if n == 0:
        return out
    # (threads only where the rows pay for starting them, as for dense rows)
    threads = n_threads if n >= CHUNKS_PER_THREAD * PREDICT_CHUNK * n_threads else 1
    for i in prange(n, nogil=True, num_threads=threads, schedule="static"):
        node = 0
        nxt = csr_step(nodes, node, set_ptr, ind, dat, indptr[i], indptr[i + 1])
        while nxt != node:
            node = nxt
            nxt = csr_step(nodes, node, set_ptr, ind, dat, indptr[i], indptr[i + 1])
        leaves[i] = node
    return out


# ------------------------------------------------------------ surrogates
def apply_surrogates(packed, sets, const Py_ssize_t[::1] start, const Py_ssize_t[::1] feature,
                     const double[::1] threshold, const Py_ssize_t[::1] category_set,
                     const Py_ssize_t[::1] decided_set, const unsigned char[::1] goes_left,
                     const DTYPE_t[:, :] X):
    """Leaf id of each row of X, a missing primary value routed by surrogates (rpart's
    ``usesurrogate=2``).

    At a split whose feature the row lacks, the node's surrogates (rows
    ``start[node]`` to ``start[node + 1]`` of the other arrays, best first) are
    tried in order: the first whose feature the row has (a category surrogate:
    among the codes it decides, ``decided_set``) sends it the way its test
    (``side``) and direction (``goes_left``: rows passing go left) say; with
    none, the split's own missing side (the majority, ``missing_right``).
    """
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef Py_ssize_t n = X.shape[0], i, s
    cdef int node, nxt, passes
    cdef DTYPE_t x, v
    cdef const PackedNode* p
    out = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] leaves = out
    with nogil:
        for i in range(n):
            node = 0
            while True:
                p = &nodes[node]
                x = X[i, p.feature]
                if x == x or p.child[0] == node:
                    nxt = step(p, x, set_ptr)
                else:
                    nxt = p.child[p.missing_right]
                    for s in range(start[node], start[node + 1]):
                        v = X[i, feature[s]]
                        if v != v or (decided_set[s] >= 0 and side(
                                v, threshold[s], 0, set_ptr + decided_set[s] * CAT_WORDS)):
                            continue
                        passes = side(v, threshold[s], 0, set_ptr + category_set[s] * CAT_WORDS
                                      if category_set[s] >= 0 else NULL) == 0
                        nxt = p.child[0 if passes == goes_left[s] else 1]
                        break
                if nxt == node:
                    break
                node = nxt
            leaves[i] = node
    return out


# ------------------------------------------------------------ partial dependence
def partial_dependence(packed, sets, const double[::1] weighted_n, const double[:, ::1] values,
                       const DTYPE_t[:, ::1] grid, const Py_ssize_t[::1] targets):
    """Friedman's weighted traversal for every grid point: (n_grid, n_values).

    At a split on a target feature (``targets``: the feature of each grid
    column) the grid point's value goes the way ``side`` sends it; any other
    split weighs both children by their training weights (``weighted_n``). One
    pass in node order carries each node's weight down (children are numbered
    after their parents in both growth orders).
    """
    cdef const unsigned char[::1] raw = packed.view(np.uint8)
    cdef const PackedNode* nodes = <const PackedNode*> &raw[0]
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef Py_ssize_t n_nodes = packed.shape[0], n_grid = grid.shape[0], g, node, j, k
    cdef Py_ssize_t n_targets = targets.shape[0], K = values.shape[1], column
    cdef double w, share
    cdef int to
    cdef const PackedNode* p
    out = np.zeros((n_grid, K), dtype=np.float64)
    weight = np.zeros(n_nodes, dtype=np.float64)
    cdef double[:, ::1] ov = out
    cdef double[::1] wv = weight
    with nogil:
        for g in range(n_grid):
            for node in range(n_nodes):
                wv[node] = 0.0
            wv[0] = 1.0
            for node in range(n_nodes):
                p = &nodes[node]
                w = wv[node]
                if p.child[0] == node:      # a leaf
                    for k in range(K):
                        ov[g, k] += w * values[node, k]
                    continue
                column = -1
                for j in range(n_targets):
                    if targets[j] == p.feature:
                        column = j
                if column >= 0:
                    to = side(grid[g, column], p.threshold, p.missing_right,
                              node_set(p, set_ptr))
                    wv[p.child[0]] = w * (1.0 - to)
                    wv[p.child[1]] = w * to
                else:
                    share = (weighted_n[p.child[0]] / weighted_n[node]
                             if weighted_n[node] > 0 else 0.5)
                    wv[p.child[0]] = w * share
                    wv[p.child[1]] = w * (1.0 - share)
    return out


# ------------------------------------------------------------------ forests
cdef struct ForestTops:
    # every tree's complete top (NULL nodes: walk the packed nodes only)
    const TopNode* nodes
    const Py_ssize_t* node_start    # tree t's top starts at nodes + node_start[t]
    const int* exits
    const Py_ssize_t* exit_start
    const unsigned char* deeper


cdef void _forest_rows(const PackedNode* nodes, const SlimNode* slim,
                       const unsigned long long* set_ptr, bint numeric_only, const Py_ssize_t* roots, Py_ssize_t n_trees,
                       const ForestTops* forest_tops, const double* values, Py_ssize_t width,
                       const DTYPE_t[:, :] X, Py_ssize_t lo, Py_ssize_t hi,
                       double* out) noexcept nogil:
    # rows [lo, hi) through every tree, tree by tree (the tree's upper nodes stay
    # in cache over the rows), each leaf's values added to the row's sums; a
    # tree's top as ``_apply_rows`` takes it, then its slim nodes (when ``slim``
    # is not NULL) or packed ones
    cdef int cur[TOP_BLOCK]
    cdef int nan
    cdef Py_ssize_t t, start, m, r, k, rows
    cdef const PackedNode* tree
    cdef const double* v
    cdef double* row
    cdef Tops tops
    # whether each block of rows holds NaN or inf, read once for every tree (or,
    # short of memory, by each tree: -1)
    cdef signed char* block_nan = NULL
    tops.nodes, tops.exits, tops.levels, tops.deeper = NULL, NULL, 0, False
    tops.slim = NULL
    rows = TOP_BLOCK if forest_tops.nodes != NULL else BLOCK
    if forest_tops.nodes != NULL:
        block_nan = <signed char*> malloc((hi - lo + TOP_BLOCK - 1) // TOP_BLOCK)
        start = lo
        while start < hi and block_nan != NULL:
            m = min(rows, hi - start)
            block_nan[(start - lo) // TOP_BLOCK] = _nonfinite(&X[0, 0] + start * X.shape[1],
                                                             m * X.shape[1])
            start += m
    for t in range(n_trees):
        tree = nodes + roots[t] if slim == NULL else NULL
        if forest_tops.nodes != NULL:
            tops.nodes = forest_tops.nodes + forest_tops.node_start[t]
            tops.exits = forest_tops.exits + forest_tops.exit_start[t]
            tops.levels = bit_length(forest_tops.exit_start[t + 1]
                                     - forest_tops.exit_start[t]) - 1
            tops.deeper = forest_tops.deeper[t]
            tops.slim = slim + roots[t] if slim != NULL else NULL
        start = lo
        while start < hi:
            m = min(rows, hi - start)
            if tops.exits != NULL:
                nan = _top_block(tops.nodes, tops.levels, &X[0, 0], X.shape[1], start, m, cur,
                                 -1 if block_nan == NULL else block_nan[(start - lo) // TOP_BLOCK])
                _exit_nodes(tops.exits, m, cur)
                if tops.deeper:
                    _below_top(tree, set_ptr, numeric_only, &tops, X, start, m, cur, nan)
            else:
                _route_block(tree, set_ptr, numeric_only, X, start, m, cur)
            for r in range(m):
                v = values + (roots[t] + cur[r]) * width
                row = out + (start + r) * width
                for k in range(width):
                    row[k] += v[k]
            start += m
    free(block_nan)


cdef inline Py_ssize_t bit_length(Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t b = 0
    while n > 0:
        n >>= 1
        b += 1
    return b


def forest_sum(packed, sets, const Py_ssize_t[::1] roots, const double[:, ::1] values,
               const DTYPE_t[:, :] X, int n_threads=1, tops=None):
    """Each row's sum over the trees of its leaf's values, in tree order.

    ``packed``: every tree's packed nodes, concatenated (children numbered within
    their tree; tree t's nodes start at ``roots[t]``; category set rows numbered
    in the concatenated ``sets``), or their slim nodes (``SLIM_NODE_DTYPE``:
    numeric trees, with ``tops`` and a C-contiguous X); ``values``: a row of
    ``width`` values per node, concatenated alike. ``tops``: the trees'
    ``pack_top`` concatenated, as (nodes, node_start, exits, exit_start, deeper)
    with a start per tree and one past the last, or None. Rows are split over
    n_threads in chunks.
    """
    cdef const unsigned char* raw = _node_bytes(packed)
    cdef bint slim = packed.dtype == SLIM_NODE_DTYPE
    cdef const PackedNode* nodes = NULL if slim else <const PackedNode*> raw
    cdef const SlimNode* slim_ptr = <const SlimNode*> raw if slim else NULL
    cdef const unsigned long long[:, ::1] set_view = _sets_or_dummy(sets)
    cdef const unsigned long long* set_ptr = &set_view[0, 0]
    cdef bint numeric_only = np.asarray(sets).size == 0
    cdef Py_ssize_t n = X.shape[0], width = values.shape[1], n_trees = roots.shape[0]
    cdef Py_ssize_t task = max(<Py_ssize_t>FOREST_CHUNK,
                               n // (FOREST_TASKS_PER_THREAD * max(n_threads, 1)))
    cdef Py_ssize_t chunk, n_chunks = (n + task - 1) // task
    cdef ForestTops ft
    cdef const unsigned char[::1] top_raw
    cdef const Py_ssize_t[::1] node_start, exit_start
    cdef const int[::1] exits
    cdef const unsigned char[::1] deeper
    out = np.zeros((n, width), dtype=np.float64)
    cdef double[:, ::1] out_view = out
    if n == 0 or n_trees == 0 or width == 0:
        return out
    ft.nodes = NULL
    # the tops read C-contiguous rows only
    contiguous = X.shape[1] > 0 and X.strides[1] == sizeof(DTYPE_t) \
        and X.strides[0] == X.shape[1] * sizeof(DTYPE_t)
    if slim and (tops is None or not contiguous or not numeric_only):
        raise ValueError("slim nodes are walked below numeric tops on C-contiguous rows")
    if tops is not None and contiguous:
        top_raw = tops[0].view(np.uint8)
        node_start, exits, exit_start, deeper = tops[1], tops[2], tops[3], tops[4]
        if node_start.shape[0] != n_trees + 1 or exit_start.shape[0] != n_trees + 1 \
                or deeper.shape[0] != n_trees:
            raise ValueError("the tops need a start per tree and one past the last")
        ft.nodes = <const TopNode*> &top_raw[0]
        ft.node_start = &node_start[0]
        ft.exits = &exits[0]
        ft.exit_start = &exit_start[0]
        ft.deeper = &deeper[0]
    if n_threads <= 1 or n_chunks < 2:
        with nogil:
            _forest_rows(nodes, slim_ptr, set_ptr, numeric_only, &roots[0], n_trees, &ft,
                         &values[0, 0], width, X, 0, n, &out_view[0, 0])
        return out
    for chunk in prange(n_chunks, nogil=True, num_threads=n_threads, schedule="dynamic"):
        _forest_rows(nodes, slim_ptr, set_ptr, numeric_only, &roots[0], n_trees, &ft,
                     &values[0, 0], width, X, chunk * task, min(n, (chunk + 1) * task),
                     &out_view[0, 0])
    return out


def slim_nodes(packed):
    """A numeric tree's packed nodes as slim ones (``SLIM_NODE_DTYPE``)."""
    cdef const unsigned char* raw = _node_bytes(packed)
    assert packed.dtype == PACKED_NODE_DTYPE
    cdef const PackedNode* nodes = <const PackedNode*> raw
    cdef Py_ssize_t n = packed.shape[0], i
    cdef int side
    for i in range(n):
        if nodes[i].cat >= 0 or not (0 <= nodes[i].feature < TOP_FEATURES):
            raise ValueError("slim nodes hold numeric splits on features below 65536")
    slim = np.empty(n, dtype=SLIM_NODE_DTYPE)
    cdef unsigned char[::1] out_raw = slim.view(np.uint8)
    cdef SlimNode* out = <SlimNode*> &out_raw[0]
    with nogil:
        for i in range(n):
            out[i].threshold = float_at_most(nodes[i].threshold)
            out[i].feature = <unsigned short>nodes[i].feature
            out[i].flags = SLIM_MISSING_RIGHT if nodes[i].missing_right else 0
            out[i].child[0] = nodes[i].child[0]
            out[i].child[1] = nodes[i].child[1]
            for side in range(2):
                if nodes[nodes[i].child[side]].child[0] == nodes[i].child[side]:
                    out[i].flags |= SLIM_LEAF_CHILD << side
    return slim


def pack_tree_into(packed, Py_ssize_t offset, const Py_ssize_t[::1] left,
                   const Py_ssize_t[::1] right, const Py_ssize_t[::1] feature,
                   const double[::1] threshold, const unsigned char[::1] missing_go_to_left,
                   const Py_ssize_t[::1] categorical_set, Py_ssize_t set_base):
    """``pack_nodes`` of one tree written into rows [offset, offset + node count) of a
    forest's packed array (children numbered within the tree; category set rows
    shifted by ``set_base``), in one typed pass. A slim array (``SLIM_NODE_DTYPE``)
    takes numeric splits on features below 65536 only."""
    cdef Py_ssize_t n = left.shape[0], i
    if offset < 0 or offset + n > packed.shape[0]:
        raise ValueError("the tree does not fit the packed array")
    cdef unsigned char* raw = <unsigned char*> _node_bytes(packed)
    if packed.dtype == SLIM_NODE_DTYPE:
        for i in range(n):
            if left[i] >= 0 and (categorical_set[i] >= 0 or feature[i] >= TOP_FEATURES):
                raise ValueError("slim nodes hold numeric splits on features below 65536")
        with nogil:
            _pack_into((<SlimNode*> raw) + offset, left, right, feature, threshold,
                       missing_go_to_left, categorical_set, set_base)
    else:
        with nogil:
            _pack_into((<PackedNode*> raw) + offset, left, right, feature, threshold,
                       missing_go_to_left, categorical_set, set_base)


cdef inline int _leaf_at(const Py_ssize_t[::1] left, Py_ssize_t node) noexcept nogil:
    # whether a tree's node (an index within its arrays, checked) is a leaf
    return 0 <= node < left.shape[0] and left[node] < 0


cdef void _pack_into(node_t* nodes, const Py_ssize_t[::1] left, const Py_ssize_t[::1] right,
                     const Py_ssize_t[::1] feature, const double[::1] threshold,
                     const unsigned char[::1] missing_go_to_left,
                     const Py_ssize_t[::1] categorical_set, Py_ssize_t set_base) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(left.shape[0]):
        if left[i] < 0:
            nodes[i].threshold = 0.0
            nodes[i].feature = 0
            nodes[i].child[0] = <int>i
            nodes[i].child[1] = <int>i
            if node_t is SlimNode:
                nodes[i].flags = 0
            else:
                nodes[i].missing_right = 0
        else:
            nodes[i].feature = <int>feature[i]
            nodes[i].child[0] = <int>left[i]
            nodes[i].child[1] = <int>right[i]
            if node_t is SlimNode:
                nodes[i].threshold = float_at_most(threshold[i])
                nodes[i].flags = (SLIM_MISSING_RIGHT * (1 - missing_go_to_left[i])
                                  | SLIM_LEAF_CHILD * _leaf_at(left, left[i])
                                  | (SLIM_LEAF_CHILD << 1) * _leaf_at(left, right[i]))
            else:
                nodes[i].threshold = threshold[i]
                nodes[i].missing_right = 1 - missing_go_to_left[i]
        if node_t is PackedNode:
            nodes[i].cat = <int>(categorical_set[i] + set_base) \
                if left[i] >= 0 and categorical_set[i] >= 0 else -1
            nodes[i].pad = 0


# ------------------------------------------------------------------ shapes
def preorder_shape(const unsigned char[::1] is_leaf):
    """(left, right, depth) of the binary tree whose nodes in pre-order are
    leaves where ``is_leaf`` is 1 (a split node's left child is the next node),
    or None when the flags make no such tree (a pickle's compact columns:
    ``_model.compact``)."""
    cdef Py_ssize_t n = is_leaf.shape[0], i, top = 0, p
    cdef bint extra = False
    left = np.full(n, -1, dtype=np.intp)
    right = np.full(n, -1, dtype=np.intp)
    depth = np.zeros(n, dtype=np.intp)
    if n == 0:
        return None
    cdef Py_ssize_t[::1] lv = left, rv = right, dv = depth
    # the split nodes still waiting for their right child, innermost last
    cdef Py_ssize_t[::1] waiting = np.empty(n, dtype=np.intp)
    with nogil:
        for i in range(n):
            if i > 0:
                if not is_leaf[i - 1]:
                    lv[i - 1] = i
                    dv[i] = dv[i - 1] + 1
                elif top == 0:
                    extra = True        # the tree ended before this node
                    break
                else:
                    top -= 1
                    p = waiting[top]
                    rv[p] = i
                    dv[i] = dv[p] + 1
            if not is_leaf[i]:
                waiting[top] = i
                top += 1
    if extra or top != 0:
        return None
    return left, right, depth


def sum_children(double[:, ::1] column, const Py_ssize_t[::1] left,
                 const Py_ssize_t[::1] right):
    """Each split node's row of ``column`` set to its children's sum (left + right),
    in place, children first; the children must come after their parent (as
    ``preorder_shape`` numbers them)."""
    cdef Py_ssize_t n = left.shape[0], i, k, width = column.shape[1]
    if column.shape[0] != n or right.shape[0] != n:
        raise ValueError("a row and both children per node")
    for i in range(n):
        if left[i] >= 0 and not (i < left[i] < n and i < right[i] < n):
            raise ValueError("children must come after their parent")
    with nogil:
        for i in range(n - 1, -1, -1):
            if left[i] >= 0:
                for k in range(width):
                    column[i, k] = column[left[i], k] + column[right[i], k]
