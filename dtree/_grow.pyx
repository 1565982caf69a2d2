# cython: language_level=3
"""Tree growth, written once: depth-first and best-first over any of the three splitters.

A grower asks its splitter (the exact ``_splitter.Splitter``, the sparse
``_sparse_splitter.SparseSplitter`` or the histogram
``_hist_splitter.HistSplitter``; a fused type, so each growth loop is compiled
once per splitter with direct calls) for a node's split, decides by the limits which
nodes are leaves, and writes every node into a ``NodeStore``. The splitter's
side of the bargain, per node:

- ``split(node, stats, weight_root, split, child_stats)``: the best split,
  its children's statistics, its sides marked; 1, 0 (no valid split) or -1
  (out of memory);
- ``partition(node, split)``: move the children's samples apart;
- ``hand_down(node, split, left_grows, right_grows, left, right)``: what the
  children inherit (a histogram, a multiway cascade's remaining codes);
- ``release(node)``: free what a node holds; ``begin``/``finish`` bracket a fit.

Node ids follow scikit-learn: depth-first growth numbers nodes in pre-order
(left child first); best-first growth numbers a node when its parent is
expanded and expands the frontier by the improvement of each node's split
(ties: as scikit-learn's heap leaves them, see ``frontier_pop``).
"""
from libc.float cimport DBL_EPSILON
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

from ._common cimport Node, SplitRecord, below_min_decrease, init_node
from ._criterion cimport middle_value, node_impurity
from ._hist_splitter cimport HistSplitter
from ._sparse_splitter cimport SparseSplitter
from ._splitter cimport Splitter
from ._node_store cimport NodeStore, bound_leaves
from ._node_store import initial_capacity, node_bound

ctypedef fused splitter_t:
    Splitter
    HistSplitter
    SparseSplitter


cdef struct Limits:
    Py_ssize_t max_depth
    Py_ssize_t min_samples_split
    Py_ssize_t min_samples_leaf
    double min_weight_leaf
    double min_impurity_decrease


cdef inline bint is_leaf_by_size(const Limits* lim, Py_ssize_t n, double weight,
                                 Py_ssize_t depth, double impurity) noexcept nogil:
    # The same test decides a node before its split and predicts its children,
    # so a partition can be skipped exactly when both children will be leaves.
    return (depth >= lim.max_depth
            or n < lim.min_samples_split
            or n < 2 * lim.min_samples_leaf
            or weight < 2.0 * lim.min_weight_leaf
            or impurity <= DBL_EPSILON)


cdef inline void children_of(const Node* node, Py_ssize_t node_id, const SplitRecord* split,
                             Node* left, Node* right) noexcept nogil:
    init_node(left, node.start, split.pos, node.depth + 1, node_id, True,
              split.impurity_left, split.weight_left)
    init_node(right, split.pos, node.end, node.depth + 1, node_id, False,
              split.impurity_right, split.weight_right)
    # the features found constant so far stay constant below (depth-first growth)
    left.n_constant = node.n_constant
    right.n_constant = node.n_constant


cdef inline void bound_children(splitter_t sp, const Node* node, const SplitRecord* split,
                                const double* child_stats, Node* left,
                                Node* right) noexcept nogil:
    """The bounds the children's values inherit (monotonic constraints, scikit-learn's
    rule): the node's, split at the middle of the children's values by a split on a
    constrained feature."""
    cdef signed char cst
    cdef double middle
    left.lower = node.lower
    right.lower = node.lower
    left.upper = node.upper
    right.upper = node.upper
    if sp.monotonic == NULL or sp.monotonic[split.feature] == 0:
        return
    cst = sp.monotonic[split.feature]
    middle = middle_value(sp.criterion, child_stats, split.weight_left,
                          child_stats + sp.n_stats, split.weight_right)
    if cst > 0:
        left.upper = middle
        right.lower = middle
    else:
        left.lower = middle
        right.upper = middle


def leaf_by_size(Py_ssize_t n, double weight, Py_ssize_t depth, double impurity, *,
                 Py_ssize_t max_depth, Py_ssize_t min_samples_split,
                 Py_ssize_t min_samples_leaf, double min_weight_leaf, **unused):
    """Whether a node is a leaf before any split is sought (the growers' rule, for
    growers written in Python: ``dtree.dask``). Takes ``GrowthParams.limits()``."""
    cdef Limits lim
    lim.max_depth = max_depth
    lim.min_samples_split = min_samples_split
    lim.min_samples_leaf = min_samples_leaf
    lim.min_weight_leaf = min_weight_leaf
    return is_leaf_by_size(&lim, n, weight, depth, impurity)


def too_small_decrease(double improvement, double min_impurity_decrease):
    """Whether a split's improvement falls short of ``min_impurity_decrease``."""
    return below_min_decrease(improvement, min_impurity_decrease)


cdef inline bint grows(const Limits* lim, const Node* child) noexcept nogil:
    return not is_leaf_by_size(lim, child.end - child.start, child.weight, child.depth,
                               child.impurity)


def build_tree(splitter, *, Py_ssize_t max_depth, Py_ssize_t min_samples_split,
               Py_ssize_t min_samples_leaf, double min_weight_leaf,
               double min_impurity_decrease, Py_ssize_t max_leaf_nodes=-1,
               capacity=None):
    """Grow a tree with ``splitter``: depth-first, or best-first when ``max_leaf_nodes`` > 0.

    Parameters
    ----------
    splitter : Splitter, HistSplitter or SparseSplitter
    max_depth, min_samples_split, min_samples_leaf, min_weight_leaf, min_impurity_decrease
        The limits, in the units the splitter sees (scaled weights).
    max_leaf_nodes : int
        -1 for depth-first growth.
    capacity : int or None
        Nodes to allocate up front (default ``initial_capacity``); tests pass
        a small one to exercise the growth of the arrays.

    Returns
    -------
    dict of ndarray
        See ``NodeStore.to_arrays``.
    """
    cdef Limits lim
    lim.max_depth = max_depth
    lim.min_samples_split = min_samples_split
    lim.min_samples_leaf = min_samples_leaf
    lim.min_weight_leaf = min_weight_leaf
    lim.min_impurity_decrease = min_impurity_decrease
    n_samples = splitter.n_samples
    # A tree has at most as many leaves as samples: bounding the frontier by the
    # data keeps its size computation from wrapping, whatever the caller passes.
    max_leaf_nodes = bound_leaves(max_leaf_nodes, n_samples)
    if capacity is None:
        capacity = initial_capacity(n_samples, max_depth, min_samples_leaf, max_leaf_nodes,
                                    splitter.n_stats)
    # only the exact splitter on dense X records each split's range of its feature
    store = NodeStore(splitter.n_stats, capacity, max_leaf_nodes > 0,
                      splitter.monotonic_cst is not None,
                      node_bound(n_samples, max_depth, min_samples_leaf, max_leaf_nodes),
                      ranges=isinstance(splitter, Splitter))
    cdef int rc
    if isinstance(splitter, Splitter):
        rc = _grow[Splitter](<Splitter> splitter, store, &lim, max_leaf_nodes)
    elif isinstance(splitter, HistSplitter):
        rc = _grow[HistSplitter](<HistSplitter> splitter, store, &lim, max_leaf_nodes)
    elif isinstance(splitter, SparseSplitter):
        rc = _grow[SparseSplitter](<SparseSplitter> splitter, store, &lim, max_leaf_nodes)
    else:
        raise TypeError(f"splitter must be a Splitter, HistSplitter or SparseSplitter, got "
                        f"{type(splitter).__name__}")
    if rc != 0:
        raise MemoryError("could not allocate memory for the tree")
    return store.to_arrays()


cdef int _grow(splitter_t sp, NodeStore store, const Limits* lim,
               Py_ssize_t max_leaf_nodes) except -1:
    if max_leaf_nodes > 0:
        return _grow_best_first(sp, store, lim, max_leaf_nodes)
    return _grow_depth_first(sp, store, lim)


cdef inline void _start(splitter_t sp, bint best_first, Node* root, double* stats,
                        double* weight_root) noexcept nogil:
    """Begin a fit: the root node, its statistics and weight."""
    sp.begin(best_first)
    sp.root_stats(stats, weight_root)
    init_node(root, 0, sp.n_samples, 0, -1, False,
              node_impurity(sp.criterion, stats, sp.n_stats, weight_root[0], sp.n_outputs),
              weight_root[0])


# ---------------------------------------------------------------- depth-first
cdef int _grow_depth_first(splitter_t sp, NodeStore store, const Limits* lim) except -1:
    cdef Py_ssize_t S = sp.n_stats, cap = 64, top = 0, node_id
    cdef Node* stack = <Node*> malloc(cap * sizeof(Node))
    cdef double* pool = <double*> malloc(cap * S * sizeof(double))   # stats beside the stack
    cdef double* stats = <double*> malloc(3 * S * sizeof(double))
    cdef double* child_stats = stats + S         # left then right
    cdef Node node
    cdef SplitRecord split
    cdef double weight_root
    cdef bint left_grows, right_grows
    cdef int found, rc = 0
    cdef void* grown
    if stack == NULL or pool == NULL or stats == NULL:
        free(stack)
        free(pool)
        free(stats)
        raise MemoryError()

    with nogil:
        _start(sp, False, &stack[0], pool, &weight_root)
        top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            memcpy(stats, pool + top * S, S * sizeof(double))
            node_id = store.add(node.parent, node.is_left, node.depth, node.impurity,
                                node.end - node.start, node.weight, stats)
            if node_id < 0:
                sp.release(&node)
                rc = 1
                break
            store.set_bounds(node_id, node.lower, node.upper)
            if not grows(lim, &node):
                sp.release(&node)
                continue
            found = sp.split(&node, stats, weight_root, &split, child_stats)
            if found < 0:
                sp.release(&node)
                rc = 1
                break
            # a multiway cascade's later steps are parts of one split already accepted
            if found == 0 or (node.forced_feature < 0 and below_min_decrease(
                    split.improvement, lim.min_impurity_decrease)):
                sp.release(&node)
                continue
            if not store.set_split(node_id, &split):
                sp.release(&node)
                rc = 1
                break
            if top + 2 > cap:
                grown = realloc(stack, 2 * cap * sizeof(Node))
                if grown != NULL:
                    stack = <Node*> grown
                    grown = realloc(pool, 2 * cap * S * sizeof(double))
                if grown == NULL:
                    sp.release(&node)
                    rc = 1
                    break
                pool = <double*> grown
                cap *= 2
            # right below left, so the left child is popped (and numbered) first
            children_of(&node, node_id, &split, &stack[top + 1], &stack[top])
            bound_children(sp, &node, &split, child_stats, &stack[top + 1], &stack[top])
            left_grows = grows(lim, &stack[top + 1])
            right_grows = grows(lim, &stack[top])
            if left_grows or right_grows:
                sp.partition(&node, &split)
            sp.hand_down(&node, &split, left_grows, right_grows, &stack[top + 1], &stack[top])
            memcpy(pool + top * S, child_stats + S, S * sizeof(double))
            memcpy(pool + (top + 1) * S, child_stats, S * sizeof(double))
            top += 2
        while top > 0:
            top -= 1
            sp.release(&stack[top])
        sp.finish()
    free(stack)
    free(pool)
    free(stats)
    return rc


# ---------------------------------------------------------------- best-first
cdef struct FrontierRecord:
    # a node of the best-first frontier, its split found when it was added
    Node node
    Py_ssize_t node_id
    bint is_leaf             # no split (pushed all the same, with improvement 0)
    double improvement       # priority: the weighted impurity decrease of its split
    SplitRecord split


# The frontier is a binary max-heap by improvement alone, kept with the moves of
# the C++ standard library's push_heap/pop_heap as libstdc++ makes them (the
# ones scikit-learn's builder calls on Linux): equal improvements, leaves
# included, then leave the heap in scikit-learn's order, so they are expanded
# in that order and the nodes numbered alike.
cdef inline void sift_up(FrontierRecord* heap, Py_ssize_t hole, Py_ssize_t top,
                         const FrontierRecord* rec) noexcept nogil:
    """Put ``rec`` at ``hole`` or above it, no higher than ``top``."""
    cdef Py_ssize_t parent
    while hole > top:
        parent = (hole - 1) // 2
        if not heap[parent].improvement < rec.improvement:
            break
        heap[hole] = heap[parent]
        hole = parent
    heap[hole] = rec[0]


cdef inline void frontier_push(FrontierRecord* heap, Py_ssize_t* size,
                               const FrontierRecord* rec) noexcept nogil:
    """Add a record to the heap (room for it is the caller's)."""
    size[0] += 1
    sift_up(heap, size[0] - 1, 0, rec)


cdef inline void frontier_pop(FrontierRecord* heap, Py_ssize_t* size,
                              FrontierRecord* top) noexcept nogil:
    """Move the highest record of the heap into ``top``.

    As libstdc++: the last record leaves its place to the top one, the hole
    at the root sinks along the larger children (the left one unless the
    right is strictly larger) to the bottom, and the last record rises from
    there.
    """
    cdef Py_ssize_t n = size[0] - 1, hole = 0, child = 0
    cdef FrontierRecord last
    top[0] = heap[0]
    size[0] = n
    if n == 0:
        return
    last = heap[n]
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if heap[child].improvement < heap[child - 1].improvement:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    sift_up(heap, hole, 0, &last)


cdef class Frontier:
    """The best-first frontier of the growers (the heap and its tie order), for a
    grower written in Python (``_fit.levelwise``): node ids by improvement."""
    cdef FrontierRecord* heap
    cdef Py_ssize_t size, cap

    def __cinit__(self, Py_ssize_t capacity):
        self.cap = max(capacity, 1)
        self.size = 0
        self.heap = <FrontierRecord*> malloc(self.cap * sizeof(FrontierRecord))
        if self.heap == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.heap)

    def __len__(self):
        return self.size

    def push(self, Py_ssize_t node_id, double improvement, bint is_leaf):
        cdef FrontierRecord rec
        cdef void* grown
        memset(&rec, 0, sizeof(FrontierRecord))
        rec.node_id = node_id
        rec.improvement = improvement
        rec.is_leaf = is_leaf
        if self.size == self.cap:
            grown = realloc(self.heap, 2 * self.cap * sizeof(FrontierRecord))
            if grown == NULL:
                raise MemoryError()
            self.heap = <FrontierRecord*> grown
            self.cap *= 2
        frontier_push(self.heap, &self.size, &rec)

    def pop(self):
        """(node id, is_leaf) of the node with the largest improvement."""
        cdef FrontierRecord top
        if self.size == 0:
            raise IndexError("the frontier is empty")
        frontier_pop(self.heap, &self.size, &top)
        return top.node_id, bool(top.is_leaf)


cdef int _add_frontier_node(splitter_t sp, NodeStore store, const Limits* lim, Node* node,
                            const double* stats, double weight_root,
                            FrontierRecord* out) noexcept nogil:
    """Add a node and find its split now (scikit-learn's best-first order).

    Returns 1 when memory ran out, else 0. The split's sides are marked at once: the frontier's nodes hold
    disjoint samples, so the marks stay valid until the node is expanded.
    """
    cdef Py_ssize_t node_id = store.add(node.parent, node.is_left, node.depth, node.impurity,
                                        node.end - node.start, node.weight, stats)
    cdef int found = 0
    out.node = node[0]
    out.node_id = node_id
    out.is_leaf = True
    out.improvement = 0.0
    if node_id < 0:
        sp.release(&out.node)
        return 1
    store.set_bounds(node_id, node.lower, node.upper)
    if grows(lim, node):
        found = sp.split(&out.node, store.stats + node_id * store.n_stats, weight_root,
                         &out.split, store.child_stats + 2 * node_id * store.n_stats)
        if found < 0:
            sp.release(&out.node)
            return 1
    if found == 0 or below_min_decrease(out.split.improvement, lim.min_impurity_decrease):
        sp.release(&out.node)
    else:
        out.is_leaf = False
        out.improvement = out.split.improvement
    return 0


cdef int _grow_best_first(splitter_t sp, NodeStore store, const Limits* lim,
                          Py_ssize_t max_leaf_nodes) except -1:
    cdef Py_ssize_t S = sp.n_stats, size = 0, budget = max_leaf_nodes - 1, k
    # The frontier holds the tree's current leaves: never more than max_leaf_nodes.
    cdef Py_ssize_t cap = min(max_leaf_nodes + 1, 1024)
    cdef FrontierRecord* heap = <FrontierRecord*> malloc(cap * sizeof(FrontierRecord))
    cdef double* child_stats = <double*> malloc(2 * S * sizeof(double))
    cdef FrontierRecord top, left_rec, right_rec
    cdef Node left, right
    cdef double weight_root
    cdef bint left_grows, right_grows
    cdef int rc = 0
    cdef void* grown
    if heap == NULL or child_stats == NULL:
        free(heap)
        free(child_stats)
        raise MemoryError()

    with nogil:
        _start(sp, True, &left, child_stats, &weight_root)
        rc = _add_frontier_node(sp, store, lim, &left, child_stats, weight_root, &top)
        if rc == 0:
            frontier_push(heap, &size, &top)
        while rc == 0 and size > 0 and budget > 0:
            frontier_pop(heap, &size, &top)
            if top.is_leaf:
                continue
            budget -= 1
            if not store.set_split(top.node_id, &top.split):
                sp.release(&top.node)
                rc = 1
                break
            children_of(&top.node, top.node_id, &top.split, &left, &right)
            bound_children(sp, &top.node, &top.split,
                           store.child_stats + 2 * top.node_id * S, &left, &right)
            left_grows = grows(lim, &left)
            right_grows = grows(lim, &right)
            if left_grows or right_grows:
                sp.partition(&top.node, &top.split)
            sp.hand_down(&top.node, &top.split, left_grows, right_grows, &left, &right)
            if size + 2 > cap:
                grown = realloc(heap, 2 * cap * sizeof(FrontierRecord))
                if grown == NULL:
                    sp.release(&left)
                    sp.release(&right)
                    rc = 1
                    break
                heap = <FrontierRecord*> grown
                cap *= 2
            # the store may move when it grows: copy the children's statistics first
            memcpy(child_stats, store.child_stats + 2 * top.node_id * S, 2 * S * sizeof(double))
            rc = _add_frontier_node(sp, store, lim, &left, child_stats, weight_root, &left_rec)
            if rc != 0:
                sp.release(&right)
                break
            rc = _add_frontier_node(sp, store, lim, &right, child_stats + S, weight_root,
                                    &right_rec)
            frontier_push(heap, &size, &left_rec)
            if rc == 0:
                frontier_push(heap, &size, &right_rec)
        for k in range(size):
            sp.release(&heap[k].node)
        sp.finish()
    free(heap)
    free(child_stats)
    return rc
