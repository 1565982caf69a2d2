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
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset
from cython.parallel cimport prange, threadid

from ._common cimport CAT_WORDS, draw_by_mask, Node, SplitRecord, below_min_decrease, init_node
from ._common cimport word_t
from ._criterion cimport middle_value, node_impurity
from ._hist_splitter cimport HistSplitter
from ._sparse_splitter cimport SparseSplitter
from ._splitter cimport Scratch, Splitter
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
        Nodes to allocate up front (default ``initial_capacity``; at most the
        tree's node bound): a forest passes its trees' size so far, tests a
        small one to exercise the growth of the arrays.

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
    # (never past the tree's bound: room a caller asks for is bounded by the data)
    capacity = max(1, min(int(capacity),
                          node_bound(n_samples, max_depth, min_samples_leaf, max_leaf_nodes)))
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
    if splitter_t is Splitter:
        if sp.subtrees_allowed() and \
                sp.n_samples * sp.n_features >= SUBTREE_WORK * sp.n_threads:
            return _grow_subtrees(sp, store, lim)
    return _grow_depth_first(sp, store, lim)


cdef inline void _start(splitter_t sp, bint best_first, Node* root, double* stats,
                        double* weight_root) noexcept nogil:
    """Begin a fit: the root node, its statistics and weight."""
    sp.begin(best_first)
    sp.root_stats(stats, weight_root)
    init_node(root, 0, sp.n_samples, 0, -1, False,
              node_impurity(sp.criterion, stats, sp.n_stats, weight_root[0], sp.n_outputs),
              weight_root[0])


# ---------------------------------------------------------------- the node stack
cdef struct NodeStack:
    # depth-first growth's nodes waiting to be grown, each with its statistics
    # (n_stats values), and the popped node's statistics and its children's
    Node* nodes
    double* pool                # n_stats beside each waiting node
    double* stats               # the popped node's (n_stats), then its children's (2 n_stats)
    Py_ssize_t top, cap, n_stats


cdef bint stack_init(NodeStack* st, Py_ssize_t n_stats, const Node* root,
                     const double* root_stats) noexcept nogil:
    """A stack holding ``root``; False (nothing held) when memory ran out."""
    st.n_stats, st.cap, st.top = n_stats, 64, 0
    st.nodes = <Node*> malloc(st.cap * sizeof(Node))
    st.pool = <double*> malloc(st.cap * max(n_stats, 1) * sizeof(double))
    st.stats = <double*> malloc(3 * max(n_stats, 1) * sizeof(double))
    if st.nodes == NULL or st.pool == NULL or st.stats == NULL:
        stack_free(st)
        return False
    st.nodes[0] = root[0]
    memcpy(st.pool, root_stats, n_stats * sizeof(double))
    st.top = 1
    return True


cdef void stack_free(NodeStack* st) noexcept nogil:
    free(st.nodes)
    free(st.pool)
    free(st.stats)
    st.nodes, st.pool, st.stats, st.top = NULL, NULL, NULL, 0


cdef inline void stack_pop(NodeStack* st, Node* node) noexcept nogil:
    """The next node into ``node``, its statistics into ``st.stats``."""
    st.top -= 1
    node[0] = st.nodes[st.top]
    memcpy(st.stats, st.pool + st.top * st.n_stats, st.n_stats * sizeof(double))


cdef bint stack_children(NodeStack* st, const Node* node, Py_ssize_t node_id,
                         const SplitRecord* split, Node** left, Node** right) noexcept nogil:
    """Push the children of ``node`` (split by ``split``, their statistics in
    ``st.stats + n_stats``), right below left so that the left one is popped (and
    numbered) first; ``left`` and ``right`` point at them until the next push.
    False when memory ran out."""
    cdef Py_ssize_t S = st.n_stats
    cdef void* grown
    if st.top + 2 > st.cap:
        grown = realloc(st.nodes, 2 * st.cap * sizeof(Node))
        if grown == NULL:
            return False
        st.nodes = <Node*> grown
        grown = realloc(st.pool, 2 * st.cap * max(S, 1) * sizeof(double))
        if grown == NULL:
            return False
        st.pool = <double*> grown
        st.cap *= 2
    right[0] = &st.nodes[st.top]
    left[0] = &st.nodes[st.top + 1]
    children_of(node, node_id, split, left[0], right[0])
    memcpy(st.pool + st.top * S, st.stats + 2 * S, S * sizeof(double))
    memcpy(st.pool + (st.top + 1) * S, st.stats + S, S * sizeof(double))
    st.top += 2
    return True


# ---------------------------------------------------------------- depth-first
cdef int _grow_depth_first(splitter_t sp, NodeStore store, const Limits* lim) except -1:
    cdef double* stats = <double*> malloc(max(sp.n_stats, 1) * sizeof(double))
    cdef Node root
    cdef double weight_root
    cdef int rc
    if stats == NULL:
        raise MemoryError()
    with nogil:
        _start(sp, False, &root, stats, &weight_root)
        rc = _grow_from(sp, store, lim, &root, stats, weight_root)
        sp.finish()
    free(stats)
    return rc


cdef int _grow_from(splitter_t sp, NodeStore store, const Limits* lim, const Node* root,
                    const double* root_stats, double weight_root) noexcept nogil:
    """Grow ``root``'s subtree depth-first into ``store`` (the root's parent and side
    as ``root`` says). Returns 0, or 1 when memory ran out."""
    cdef NodeStack st
    cdef Py_ssize_t node_id
    cdef Node node
    cdef Node* left
    cdef Node* right
    cdef SplitRecord split
    cdef bint left_grows, right_grows
    cdef int found, rc = 0
    if not stack_init(&st, sp.n_stats, root, root_stats):
        return 1
    cdef double* stats = st.stats
    cdef double* child_stats = st.stats + sp.n_stats      # left then right
    while st.top > 0:
        stack_pop(&st, &node)
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
        if not store.set_split(node_id, &split) or \
                not stack_children(&st, &node, node_id, &split, &left, &right):
            sp.release(&node)
            rc = 1
            break
        bound_children(sp, &node, &split, child_stats, left, right)
        left_grows = grows(lim, left)
        right_grows = grows(lim, right)
        if left_grows or right_grows:
            sp.partition(&node, &split)
        sp.hand_down(&node, &split, left_grows, right_grows, left, right)
    while st.top > 0:
        st.top -= 1
        sp.release(&st.nodes[st.top])
    stack_free(&st)
    return rc


# ---------------------------------------------------------------- subtrees on threads
# A depth-first tree whose every node draws every feature (scikit-learn's default)
# grows its subtrees on threads, speculatively (``Splitter.spec_split``: ties
# between features to the lowest index), then a serial replay in pre-order makes
# scikit-learn's draws and keeps each node whose split the generator's order
# would have chosen; where it would not (a tie decided otherwise), the node's
# columns are sorted again and its subtree grown by the serial grower, so the
# tree is the one ``_grow_from`` grows, for any number of threads.

cdef struct SpecNode:
    Py_ssize_t left, right      # children in the same SpecTree, -1 for a leaf
    Py_ssize_t n                # samples
    double impurity, weight
    double threshold
    double low, high
    unsigned long long constant # the node's constant features (bit f)
    unsigned long long tied     # features whose best split ties the chosen one
    int depth
    int feature                 # split feature, -1 for a leaf
    int winner                  # the feature chosen (-1: none), a leaf's too (too
                                # small a decrease)
    int cat                     # row of the category set, -1 for a numeric split
    int task                    # the top tree's: the subtree grown on a thread, -1
    bint missing_left
    bint search                 # the replay must search the node itself (a tie
                                # spec_split cannot settle)


cdef struct SpecTree:
    SpecNode* nodes
    double* stats               # (cap, n_stats)
    word_t* sets                # (sets_cap, CAT_WORDS)
    Py_ssize_t count, cap, n_stats, n_sets, sets_cap


cdef bint spec_init(SpecTree* t, Py_ssize_t n_stats) noexcept nogil:
    t.count, t.cap, t.n_stats, t.n_sets, t.sets_cap = 0, 64, n_stats, 0, 4
    t.nodes = <SpecNode*> malloc(t.cap * sizeof(SpecNode))
    t.stats = <double*> malloc(t.cap * max(n_stats, 1) * sizeof(double))
    t.sets = <word_t*> malloc(t.sets_cap * CAT_WORDS * sizeof(word_t))
    return t.nodes != NULL and t.stats != NULL and t.sets != NULL


cdef void spec_free(SpecTree* t) noexcept nogil:
    free(t.nodes)
    free(t.stats)
    free(t.sets)
    t.nodes, t.stats, t.sets = NULL, NULL, NULL


cdef Py_ssize_t spec_add(SpecTree* t, const Node* node, const double* stats) noexcept nogil:
    """Append ``node`` as a leaf, linked to its parent (``node.parent``, an id of this
    tree); its id, or -1 when memory ran out."""
    cdef void* grown
    cdef Py_ssize_t i = t.count
    cdef SpecNode* sn
    if i == t.cap:
        grown = realloc(t.nodes, 2 * t.cap * sizeof(SpecNode))
        if grown == NULL:
            return -1
        t.nodes = <SpecNode*> grown
        grown = realloc(t.stats, 2 * t.cap * max(t.n_stats, 1) * sizeof(double))
        if grown == NULL:
            return -1
        t.stats = <double*> grown
        t.cap *= 2
    sn = &t.nodes[i]
    sn.left, sn.right, sn.n = -1, -1, node.end - node.start
    sn.impurity, sn.weight, sn.depth = node.impurity, node.weight, node.depth
    sn.feature, sn.winner, sn.cat, sn.task = -1, -1, -1, -1
    sn.constant, sn.tied, sn.search = 0, 0, False
    memcpy(t.stats + i * t.n_stats, stats, t.n_stats * sizeof(double))
    if node.parent >= 0:
        if node.is_left:
            t.nodes[node.parent].left = i
        else:
            t.nodes[node.parent].right = i
    t.count += 1
    return i


cdef bint spec_set_split(SpecTree* t, Py_ssize_t i, const SplitRecord* split) noexcept nogil:
    cdef SpecNode* sn = &t.nodes[i]
    cdef void* grown
    sn.feature = split.feature
    sn.threshold = split.threshold
    sn.missing_left = split.missing_left
    sn.low, sn.high = split.low, split.high
    if split.categorical:
        if t.n_sets == t.sets_cap:
            grown = realloc(t.sets, 2 * t.sets_cap * CAT_WORDS * sizeof(word_t))
            if grown == NULL:
                return False
            t.sets = <word_t*> grown
            t.sets_cap *= 2
        memcpy(t.sets + t.n_sets * CAT_WORDS, split.cat_left, CAT_WORDS * sizeof(word_t))
        sn.cat = t.n_sets
        t.n_sets += 1
    return True


cdef void spec_record(const SpecTree* t, Py_ssize_t i, SplitRecord* split) noexcept nogil:
    """The split of node i as the store takes it (``NodeStore.set_split``)."""
    cdef const SpecNode* sn = &t.nodes[i]
    split.feature = sn.feature
    split.threshold = sn.threshold
    split.missing_left = sn.missing_left
    split.low, split.high = sn.low, sn.high
    split.categorical = sn.cat >= 0
    if sn.cat >= 0:
        memcpy(split.cat_left, t.sets + sn.cat * CAT_WORDS, CAT_WORDS * sizeof(word_t))


cdef struct Tasks:
    # the top's nodes left to threads: each one's node and statistics
    Node* nodes
    double* stats
    Py_ssize_t count, cap


cdef Py_ssize_t tasks_add(Tasks* q, const Node* node, const double* stats,
                          Py_ssize_t S) noexcept nogil:
    cdef void* grown
    if q.count == q.cap:
        grown = realloc(q.nodes, 2 * q.cap * sizeof(Node))
        if grown == NULL:
            return -1
        q.nodes = <Node*> grown
        grown = realloc(q.stats, 2 * q.cap * max(S, 1) * sizeof(double))
        if grown == NULL:
            return -1
        q.stats = <double*> grown
        q.cap *= 2
    q.nodes[q.count] = node[0]
    q.nodes[q.count].parent = -1        # the root of its own tree
    memcpy(q.stats + q.count * S, stats, S * sizeof(double))
    q.count += 1
    return q.count - 1


cdef int _spec_grow(Splitter sp, SpecTree* t, const Limits* lim, Scratch* s, int n_threads,
                    unsigned long long* marks, SplitRecord* per_feature, const Node* root,
                    const double* root_stats, double weight_root, Py_ssize_t cutoff,
                    Tasks* tasks) noexcept nogil:
    """Grow ``root``'s subtree speculatively into ``t`` (pre-order, as ``_grow_from``);
    with ``tasks``, a growing node of fewer than ``cutoff`` samples becomes a task
    (a leaf here, marked) instead. Returns 0, or 1 when memory ran out."""
    cdef NodeStack st
    cdef Py_ssize_t S = sp.n_stats, i
    cdef Node node
    cdef Node* left
    cdef Node* right
    cdef SplitRecord split
    cdef unsigned long long constant, tied
    cdef int rc = 0, found
    if not stack_init(&st, S, root, root_stats):
        return 1
    cdef double* stats = st.stats
    cdef double* child_stats = st.stats + S
    while st.top > 0:
        stack_pop(&st, &node)
        i = spec_add(t, &node, stats)
        if i < 0:
            rc = 1
            break
        if not grows(lim, &node):
            continue
        if tasks != NULL and node.end - node.start < cutoff:
            t.nodes[i].task = tasks_add(tasks, &node, stats, S)
            if t.nodes[i].task < 0:
                rc = 1
                break
            continue
        found = sp.spec_split(s, n_threads, marks, per_feature, &node, stats, weight_root,
                              &split, child_stats, &constant, &tied)
        t.nodes[i].constant = constant
        t.nodes[i].tied = tied
        t.nodes[i].winner = split.feature if found == 1 else -1
        t.nodes[i].search = found == 2
        if found != 1 or below_min_decrease(split.improvement, lim.min_impurity_decrease):
            continue
        if not spec_set_split(t, i, &split) or \
                not stack_children(&st, &node, i, &split, &left, &right):
            rc = 1
            break
        if grows(lim, left) or grows(lim, right):
            sp._partition_with(s, n_threads, marks, node.start, node.end, &split)
    stack_free(&st)
    return rc


cdef struct Frame:
    # a node for the replay: where it is grown speculatively and where it goes
    SpecTree* tree
    Py_ssize_t local            # its id in ``tree``
    Py_ssize_t parent           # the store's id of its parent, -1 for the root
    bint is_left
    Py_ssize_t start, end       # its segment
    Py_ssize_t n_known          # the constants its ancestors found


cdef inline int popcount(unsigned long long x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


cdef int _replay(Splitter sp, NodeStore store, const Limits* lim, SpecTree* top_tree,
                 SpecTree* trees, double weight_root, Py_ssize_t* searched,
                 Py_ssize_t* resplit_count) noexcept nogil:
    """Write the speculative trees into ``store`` in pre-order with scikit-learn's
    draws, growing again where a tie goes another way. Returns 0, or 1 when memory
    ran out."""
    cdef Py_ssize_t d = sp.n_features, cap = 64, top = 1, node_id, j, i, n_total
    cdef Py_ssize_t task = -1, floor = 0        # the subtree being written, and the stack
                                                # below its frames
    cdef Frame* stack = <Frame*> malloc(cap * sizeof(Frame))
    cdef Py_ssize_t* saved = <Py_ssize_t*> malloc(2 * max(d, 1) * sizeof(Py_ssize_t))
    cdef double* child_stats = <double*> malloc(2 * max(sp.n_stats, 1) * sizeof(double))
    cdef unsigned int saved_state
    cdef Frame fr
    cdef SpecTree* t
    cdef SpecNode* sn
    cdef Node node
    cdef SplitRecord split, made
    cdef int choice, found, rc = 0
    cdef bint ambiguous
    if stack == NULL or saved == NULL or child_stats == NULL:
        free(stack)
        free(saved)
        free(child_stats)
        return 1
    stack[0].tree, stack[0].local, stack[0].parent, stack[0].is_left = top_tree, 0, -1, False
    stack[0].start, stack[0].end, stack[0].n_known = 0, sp.n_samples, 0
    while top > 0:
        if task >= 0 and top == floor:
            # every node of the subtree is in the store: its speculative copy goes
            # (the store grows as the copies shrink)
            spec_free(&trees[task])
            task = -1
        top -= 1
        fr = stack[top]
        t, i = fr.tree, fr.local
        if t.nodes[i].task >= 0:
            task, floor = t.nodes[i].task, top
            t, i = &trees[task], 0
        sn = &t.nodes[i]
        init_node(&node, fr.start, fr.end, sn.depth, fr.parent, fr.is_left, sn.impurity,
                  sn.weight)
        node.n_constant = fr.n_known
        if sn.search and node.end - node.start == 2 and grows(lim, &node):
            # a pair (the serial search's own shortcut): one serial step here, its
            # children leaves of one sample
            rc = _pair_step(sp, store, lim, &node, t.stats + i * t.n_stats, weight_root,
                            child_stats)
            if rc != 0:
                break
            continue
        if grows(lim, &node):
            # the node's draw, as the serial grower makes it (kept, where a tie may
            # go another way, to draw again should the node be grown afresh)
            ambiguous = sn.search or popcount(sn.tied) > 1
            if ambiguous:
                memcpy(saved, sp.draw.features, d * sizeof(Py_ssize_t))
                memcpy(saved + d, sp.draw.constant_features, d * sizeof(Py_ssize_t))
                saved_state = sp.draw.state
            n_total = draw_by_mask(&sp.draw, fr.n_known, sn.constant)
            choice = sn.winner
            if ambiguous and not sn.search:
                for j in range(sp.draw.n_visit):
                    if (sn.tied >> sp.draw.visit[j]) & 1:
                        choice = <int> sp.draw.visit[j]
                        break
            if choice != sn.winner and not sn.search and sn.feature >= 0:
                # a tie gone another way: the feature chosen may send the same
                # samples left, and then only the node's own split changes
                spec_record(t, i, &made)
                found = sp.resplit_on(choice, &node, t.stats + i * t.n_stats, weight_root,
                                      &made, &split, child_stats)
                if found < 0:
                    rc = 1
                    break
                # (the children's statistics summed in the new feature's order must
                # be the very ones the subtree below was grown from)
                if found == 1 and not below_min_decrease(
                        split.improvement, lim.min_impurity_decrease) and \
                        split.weight_left == t.nodes[sn.left].weight and \
                        split.weight_right == t.nodes[sn.right].weight and memcmp(
                            child_stats, t.stats + sn.left * t.n_stats,
                            t.n_stats * sizeof(double)) == 0 and memcmp(
                            child_stats + t.n_stats, t.stats + sn.right * t.n_stats,
                            t.n_stats * sizeof(double)) == 0:
                    resplit_count[0] += 1
                    node_id = store.add(node.parent, node.is_left, node.depth, node.impurity,
                                        node.end - node.start, node.weight,
                                        t.stats + i * t.n_stats)
                    if node_id < 0 or not store.set_split(node_id, &split):
                        rc = 1
                        break
                    rc = _push_children(&stack, &cap, &top, t, sn, node_id, &fr, n_total)
                    if rc != 0:
                        break
                    continue
            if choice != sn.winner or sn.search:
                memcpy(sp.draw.features, saved, d * sizeof(Py_ssize_t))
                memcpy(sp.draw.constant_features, saved + d, d * sizeof(Py_ssize_t))
                sp.draw.state = saved_state
                # (a node left to the replay was not partitioned: its columns are in order)
                if not sn.search and sp.restore_segment(fr.start, fr.end) < 0:
                    rc = 1
                    break
                searched[0] += 1
                rc = _grow_from(sp, store, lim, &node, t.stats + i * t.n_stats, weight_root)
                if rc != 0:
                    break
                continue
        node_id = store.add(node.parent, node.is_left, node.depth, node.impurity,
                            node.end - node.start, node.weight, t.stats + i * t.n_stats)
        if node_id < 0:
            rc = 1
            break
        if sn.feature < 0:
            continue
        spec_record(t, i, &split)
        if not store.set_split(node_id, &split):
            rc = 1
            break
        rc = _push_children(&stack, &cap, &top, t, sn, node_id, &fr, n_total)
        if rc != 0:
            break
    free(stack)
    free(saved)
    free(child_stats)
    return rc


cdef int _push_children(Frame** stack, Py_ssize_t* cap, Py_ssize_t* top, SpecTree* t,
                        const SpecNode* sn, Py_ssize_t node_id, const Frame* fr,
                        Py_ssize_t n_known) noexcept nogil:
    """Put a node's speculative children on the replay's stack, right below left.
    Returns 0, or 1 when memory ran out."""
    cdef void* grown
    cdef Frame* f
    cdef Py_ssize_t n_left = t.nodes[sn.left].n
    if top[0] + 2 > cap[0]:
        grown = realloc(stack[0], 2 * cap[0] * sizeof(Frame))
        if grown == NULL:
            return 1
        stack[0] = <Frame*> grown
        cap[0] *= 2
    f = stack[0] + top[0]
    f[0].tree, f[0].local, f[0].parent, f[0].is_left = t, sn.right, node_id, False
    f[0].start, f[0].end, f[0].n_known = fr.start + n_left, fr.end, n_known
    f[1].tree, f[1].local, f[1].parent, f[1].is_left = t, sn.left, node_id, True
    f[1].start, f[1].end, f[1].n_known = fr.start, fr.start + n_left, n_known
    top[0] += 2
    return 0


cdef int _pair_step(Splitter sp, NodeStore store, const Limits* lim, Node* node,
                    const double* stats, double weight_root, double* child_stats) noexcept nogil:
    """``_grow_from`` for a node of two samples, without its stack: the node, its
    split, and its two children (leaves of one sample). Returns 0, or 1 when
    memory ran out."""
    cdef SplitRecord split
    cdef Node left, right
    cdef Py_ssize_t node_id = store.add(node.parent, node.is_left, node.depth, node.impurity,
                                        node.end - node.start, node.weight, stats)
    cdef int found
    if node_id < 0:
        return 1
    found = sp.split(node, stats, weight_root, &split, child_stats)
    if found < 0:
        return 1
    if found == 0 or below_min_decrease(split.improvement, lim.min_impurity_decrease):
        return 0
    if not store.set_split(node_id, &split):
        return 1
    children_of(node, node_id, &split, &left, &right)
    if store.add(node_id, True, left.depth, left.impurity, left.end - left.start, left.weight,
                 child_stats) < 0:
        return 1
    if store.add(node_id, False, right.depth, right.impurity, right.end - right.start,
                 right.weight, child_stats + sp.n_stats) < 0:
        return 1
    return 0


# The speculative growth pays from this much work (samples x features) per thread,
# and hands a thread subtrees of about 1/8 of its share of the samples (``subtree_tuning``:
# tests shrink both to reach it on small data)
cdef Py_ssize_t SUBTREE_WORK = 1 << 18
cdef Py_ssize_t SUBTREE_SHARES = 8
cdef Py_ssize_t SUBTREE_FITS = 0        # fits grown this way, nodes the replay
cdef Py_ssize_t SUBTREE_SEARCHED = 0    # searched again, and nodes it split on another
cdef Py_ssize_t SUBTREE_RESPLIT = 0     # feature in place (tests read them)


def subtree_tuning(Py_ssize_t work=-1, Py_ssize_t shares=-1):
    """Read, or set (values > 0), the speculative growth's thresholds: the least
    work (samples x features) per thread, and the subtrees per thread. Returns the
    previous values, the number of fits grown this way so far, of the nodes their
    replays searched again and of those they split on another feature in place."""
    global SUBTREE_WORK, SUBTREE_SHARES
    old = (SUBTREE_WORK, SUBTREE_SHARES, SUBTREE_FITS, SUBTREE_SEARCHED, SUBTREE_RESPLIT)
    if work > 0:
        SUBTREE_WORK = work
    if shares > 0:
        SUBTREE_SHARES = shares
    return old


cdef int _grow_subtrees(Splitter sp, NodeStore store, const Limits* lim) except -1:
    """Depth-first growth with subtrees on threads (see the section's comment)."""
    global SUBTREE_FITS, SUBTREE_SEARCHED, SUBTREE_RESPLIT
    cdef int T = sp.n_threads, k, tid
    cdef Py_ssize_t S = sp.n_stats, N = sp.n_samples, d = sp.n_features, words = (N + 63) // 64
    cdef Py_ssize_t cutoff = max(N // (SUBTREE_SHARES * T), 2), n_tasks
    cdef double* root_stats = <double*> malloc(max(S, 1) * sizeof(double))
    cdef unsigned long long* marks = <unsigned long long*> calloc(T * words + 1,
                                                                  sizeof(unsigned long long))
    cdef SplitRecord* per_feature = <SplitRecord*> malloc(T * d * sizeof(SplitRecord))
    cdef int* task_rc = NULL
    cdef SpecTree top_tree
    cdef SpecTree* trees = NULL
    cdef Tasks tasks
    cdef Node root
    cdef double weight_root
    cdef Py_ssize_t searched = 0, resplit = 0
    cdef int rc = 0
    tasks.count, tasks.cap = 0, 16
    tasks.nodes = <Node*> malloc(tasks.cap * sizeof(Node))
    tasks.stats = <double*> malloc(tasks.cap * max(S, 1) * sizeof(double))
    top_tree.nodes = NULL
    top_tree.stats = NULL
    top_tree.sets = NULL
    if root_stats == NULL or marks == NULL or per_feature == NULL or tasks.nodes == NULL \
            or tasks.stats == NULL or not spec_init(&top_tree, S):
        rc = 1
    if rc == 0:
        with nogil:
            _start(sp, False, &root, root_stats, &weight_root)
            # the top: large nodes, each on every thread (features and partitions)
            rc = _spec_grow(sp, &top_tree, lim, sp.scratch, T, sp.goes_left,
                            per_feature, &root, root_stats, weight_root, cutoff, &tasks)
    n_tasks = tasks.count
    if rc == 0 and n_tasks > 0:
        trees = <SpecTree*> calloc(n_tasks, sizeof(SpecTree))
        task_rc = <int*> calloc(n_tasks, sizeof(int))
        if trees == NULL or task_rc == NULL:
            rc = 1
    if rc == 0 and n_tasks > 0:
        # the subtrees, one thread each: its own scratch, side marks and records
        for k in prange(n_tasks, nogil=True, num_threads=T, schedule="dynamic"):
            tid = threadid()
            if not spec_init(&trees[k], S):
                task_rc[k] = 1
            else:
                task_rc[k] = _spec_grow(sp, &trees[k], lim, &sp.scratch[tid], 1,
                                        marks + tid * words, per_feature + tid * d,
                                        &tasks.nodes[k],
                                        tasks.stats + k * S, weight_root, 0, NULL)
        for k in range(n_tasks):
            rc |= task_rc[k]
    if rc == 0:
        with nogil:
            rc = _replay(sp, store, lim, &top_tree, trees, weight_root, &searched, &resplit)
            sp.finish()
        SUBTREE_FITS += 1
        SUBTREE_SEARCHED += searched
        SUBTREE_RESPLIT += resplit
    if trees != NULL:
        for k in range(n_tasks):
            spec_free(&trees[k])
    spec_free(&top_tree)
    free(trees)
    free(task_rc)
    free(tasks.nodes)
    free(tasks.stats)
    free(root_stats)
    free(marks)
    free(per_feature)
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
