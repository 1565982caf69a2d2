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

from ._common cimport CAT_WORDS, draw_by_mask, FeatureDraw, Node, SplitRecord
from ._common cimport below_min_decrease, init_node
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
    stack_start(st, root, root_stats)
    return True


cdef inline void stack_start(NodeStack* st, const Node* root, const double* root_stats) noexcept nogil:
    """Empty the stack but for ``root`` (a stack reused from growth to growth)."""
    st.nodes[0] = root[0]
    memcpy(st.pool, root_stats, st.n_stats * sizeof(double))
    st.top = 1


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
# between features to the lowest index). A replay then makes scikit-learn's
# draws and keeps each node whose split the generator's order would have chosen;
# where it would not (a tie decided otherwise), the node is split in place on the
# feature drawn first, or its columns are sorted again and its subtree grown
# afresh as the serial grower grows it, so the tree is the one ``_grow_from``
# grows, for any number of threads.
#
# The replay runs on the threads too, a subtree (task) each. A task's draws start
# where the generator stands after every node before it in pre-order; the serial
# walk predicts that state by making the draws of the speculative trees before
# it (a node with every feature drawn makes the same draws whichever split it
# takes, unless its constants differ), and each task checks the prediction for
# the next one by its own state at its end. A task after a wrong prediction is
# replayed again, in a further round, from the corrected state.

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
    Py_ssize_t parent           # in the same tree, -1 for its root
    bint is_left
    Py_ssize_t draws            # the draws it stands for: 1, or a node left to the
                                # replay whole (``Splitter.splits_to_singles``) its
                                # m - 1 nodes' draws, all of them alike
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
    sn.parent, sn.is_left, sn.draws = node.parent, node.is_left, 1
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


cdef inline bint _grown_by_replay(Splitter sp, const Limits* lim, const Node* node) noexcept nogil:
    """Whether a subtree's node is left to the replay whole: a small regression node
    (pairs aside: ``spec_split``) that splits down to single samples whichever way
    it goes, so that the draws its growth makes are known without growing it
    (m - 1 nodes, no constant)."""
    cdef Py_ssize_t m = node.end - node.start
    return (m > 2 and lim.min_samples_split <= 2 and
            lim.min_samples_leaf <= 1 and lim.min_weight_leaf <= 0.0 and
            lim.min_impurity_decrease <= 0.0 and node.depth + m - 1 <= lim.max_depth and
            sp.splits_to_singles(node.start, node.end))


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
        if tasks == NULL and _grown_by_replay(sp, lim, &node):
            # no speculative copy: the replay grows it, once
            t.nodes[i].search = True
            t.nodes[i].draws = node.end - node.start - 1
            continue
        found = sp.spec_split(s, n_threads, marks, per_feature, &node, stats, weight_root,
                              &split, child_stats, &constant, &tied)
        t.nodes[i].constant = constant
        t.nodes[i].tied = tied
        t.nodes[i].search = found >= 2
        if found == 3 and tasks != NULL:
            # a node of the top the replay must search: left unsplit (its columns
            # in order), grown afresh by the replay's walk
            found = 2
        t.nodes[i].winner = split.feature if found == 1 or found == 3 else -1
        if (found != 1 and found != 3) or \
                below_min_decrease(split.improvement, lim.min_impurity_decrease):
            continue
        if not spec_set_split(t, i, &split) or \
                not stack_children(&st, &node, i, &split, &left, &right):
            rc = 1
            break
        if grows(lim, left) or grows(lim, right):
            sp._partition_with(s, n_threads, marks, node.start, node.end, &split)
    stack_free(&st)
    return rc


cdef inline int popcount(unsigned long long x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


# ---- the generator's state, kept and compared
cdef struct DrawSnap:
    # a FeatureDraw's state between nodes: what every later draw depends on
    unsigned int state
    Py_ssize_t* features
    Py_ssize_t* constants


cdef inline void snap_take(DrawSnap* snap, const FeatureDraw* fd) noexcept nogil:
    snap.state = fd.state
    memcpy(snap.features, fd.features, fd.n_features * sizeof(Py_ssize_t))
    memcpy(snap.constants, fd.constant_features, fd.n_features * sizeof(Py_ssize_t))


cdef inline void snap_put(const DrawSnap* snap, FeatureDraw* fd) noexcept nogil:
    fd.state = snap.state
    memcpy(fd.features, snap.features, fd.n_features * sizeof(Py_ssize_t))
    memcpy(fd.constant_features, snap.constants, fd.n_features * sizeof(Py_ssize_t))


cdef inline bint snap_equal(const DrawSnap* a, const DrawSnap* b,
                            Py_ssize_t d) noexcept nogil:
    return a.state == b.state and \
        memcmp(a.features, b.features, d * sizeof(Py_ssize_t)) == 0 and \
        memcmp(a.constants, b.constants, d * sizeof(Py_ssize_t)) == 0


cdef struct Worker:
    # one thread's means for the exact growth of subtrees: its scratch and side
    # marks, its own copy of the draw (and a kept state), room for a node's ids
    Scratch* s
    unsigned long long* marks
    int threads                 # the threads of a large node's scan and partition
                                # (more than one: the walk's, on all the scratch)
    FeatureDraw draw
    DrawSnap saved
    int* ids
    Py_ssize_t ids_cap
    unsigned char* room         # a node's columns kept while it is grown afresh
    Py_ssize_t room_cap
    NodeStack stack             # ``_exact_grow``'s, kept from call to call
    Py_ssize_t searched, resplit


cdef bint worker_init(Worker* w, const FeatureDraw* like, Scratch* s,
                      unsigned long long* marks, int threads) noexcept nogil:
    cdef Py_ssize_t d = max(like.n_features, 1)
    w.s, w.marks, w.ids, w.ids_cap, w.searched, w.resplit = s, marks, NULL, 0, 0, 0
    w.threads = threads
    w.room, w.room_cap = NULL, 0
    w.stack.nodes, w.stack.pool, w.stack.stats, w.stack.top = NULL, NULL, NULL, 0
    w.draw = like[0]
    w.draw.features = <Py_ssize_t*> malloc(d * sizeof(Py_ssize_t))
    w.draw.constant_features = <Py_ssize_t*> malloc(d * sizeof(Py_ssize_t))
    w.draw.visit = <Py_ssize_t*> malloc(d * sizeof(Py_ssize_t))
    w.saved.features = <Py_ssize_t*> malloc(d * sizeof(Py_ssize_t))
    w.saved.constants = <Py_ssize_t*> malloc(d * sizeof(Py_ssize_t))
    return w.draw.features != NULL and w.draw.constant_features != NULL and \
        w.draw.visit != NULL and w.saved.features != NULL and w.saved.constants != NULL


cdef void worker_free(Worker* w) noexcept nogil:
    free(w.draw.features)
    free(w.draw.constant_features)
    free(w.draw.visit)
    free(w.saved.features)
    free(w.saved.constants)
    free(w.ids)
    free(w.room)
    w.room = NULL
    stack_free(&w.stack)
    w.draw.features = w.draw.constant_features = w.draw.visit = NULL
    w.saved.features = w.saved.constants = w.ids = NULL


cdef int _exact_grow(Splitter sp, SpecTree* out, const Limits* lim, Worker* w,
                     const Node* root, const double* root_stats,
                     double weight_root) noexcept nogil:
    """Grow ``root``'s subtree as ``_grow_from`` grows it, with the worker's draw,
    scratch and marks, into ``out`` (pre-order; ``root.parent`` an id of ``out``,
    or -1). The node's columns must be as the presort left them (no partition
    below it). Returns 0, or 1 when memory ran out."""
    cdef NodeStack* st = &w.stack
    cdef Py_ssize_t S = sp.n_stats, i, f
    cdef Node node
    cdef Node* left
    cdef Node* right
    cdef SplitRecord split
    cdef unsigned long long constant
    cdef int rc = 0
    if st.nodes != NULL:
        stack_start(st, root, root_stats)
    elif not stack_init(st, S, root, root_stats):
        return 1
    cdef double* stats = st.stats
    cdef double* child_stats = st.stats + S
    while st.top > 0:
        stack_pop(st, &node)
        i = spec_add(out, &node, stats)
        if i < 0:
            rc = 1
            break
        if not grows(lim, &node):
            continue
        # (the draw as ``draw_features`` makes it: is_constant is a function of
        # the node's columns, asked here of every feature at once)
        constant = 0
        for f in range(sp.n_features):
            if sp.is_constant(f, node.start, node.end):
                constant |= (<unsigned long long> 1) << f
        node.n_constant = draw_by_mask(&w.draw, node.n_constant, constant)
        if not sp.split_in(w.s, w.marks, w.draw.visit, w.draw.n_visit, w.threads, node.start,
                           node.end, stats, node.weight, node.impurity, weight_root, &split,
                           child_stats) or \
                below_min_decrease(split.improvement, lim.min_impurity_decrease):
            continue
        if not spec_set_split(out, i, &split) or \
                not stack_children(st, &node, i, &split, &left, &right):
            rc = 1
            break
        if grows(lim, left) or grows(lim, right):
            sp._partition_with(w.s, w.threads, w.marks, node.start, node.end, &split)
    return rc


cdef struct Frame:
    # a speculative node the replay visits: where it is and where it goes
    Py_ssize_t local            # its id in the speculative tree
    Py_ssize_t parent           # the id of its parent in the output, -1 for the root
    bint is_left
    Py_ssize_t start, end       # its segment
    Py_ssize_t n_known          # the constants its ancestors found


cdef struct Frames:
    Frame* items
    Py_ssize_t top, cap


cdef bint frames_push(Frames* fs, Py_ssize_t local, Py_ssize_t parent, bint is_left,
                      Py_ssize_t start, Py_ssize_t end, Py_ssize_t n_known) noexcept nogil:
    cdef void* grown
    if fs.top == fs.cap:
        grown = realloc(fs.items, 2 * max(fs.cap, 16) * sizeof(Frame))
        if grown == NULL:
            return False
        fs.items = <Frame*> grown
        fs.cap = 2 * max(fs.cap, 16)
    fs.items[fs.top].local, fs.items[fs.top].parent = local, parent
    fs.items[fs.top].is_left = is_left
    fs.items[fs.top].start, fs.items[fs.top].end = start, end
    fs.items[fs.top].n_known = n_known
    fs.top += 1
    return True


cdef inline bint push_children(Frames* fs, const SpecTree* t, const SpecNode* sn,
                               Py_ssize_t parent, const Frame* fr,
                               Py_ssize_t n_known) noexcept nogil:
    """A speculative node's children, right below left (the left one is visited first)."""
    cdef Py_ssize_t n_left = t.nodes[sn.left].n
    return frames_push(fs, sn.right, parent, False, fr.start + n_left, fr.end, n_known) and \
        frames_push(fs, sn.left, parent, True, fr.start, fr.start + n_left, n_known)


cdef int _choose(Splitter sp, const Limits* lim, const SpecTree* t, const Frame* fr,
                 FeatureDraw* draw, Scratch* s, int* ids, unsigned long long* marks,
                 DrawSnap* saved, double weight_root, Node* node, SplitRecord* split,
                 double* child_stats, Py_ssize_t* n_known) noexcept nogil:
    """The replay's verdict on speculative node ``fr.local`` of ``t``: the node's draw
    made (``draw``), as the serial grower would make it. Returns

    - 0: the node as grown speculatively (``split`` holds its split, if any);
    - 1: split in place on the feature the draw prefers (``split``, the same
      children, so the subtree below stays);
    - 2: the serial grower would grow it otherwise: grow it afresh, the draw back
      where it was before the node (nothing drawn);
    - -1: memory ran out.

    ``node`` is the node, ``n_known`` the constants known below it."""
    cdef const SpecNode* sn = &t.nodes[fr.local]
    cdef const double* stats = t.stats + fr.local * t.n_stats
    cdef SplitRecord made
    cdef Py_ssize_t j
    cdef int choice, found
    cdef bint ambiguous
    init_node(node, fr.start, fr.end, sn.depth, fr.parent, fr.is_left, sn.impurity, sn.weight)
    node.n_constant = fr.n_known
    n_known[0] = fr.n_known
    if grows(lim, node):
        if sn.search:
            # the order of the scans decides beyond the first of the best
            return 2
        ambiguous = popcount(sn.tied) > 1
        if ambiguous:
            snap_take(saved, draw)
        n_known[0] = draw_by_mask(draw, fr.n_known, sn.constant)
        choice = sn.winner
        if ambiguous:
            for j in range(draw.n_visit):
                if (sn.tied >> draw.visit[j]) & 1:
                    choice = <int> draw.visit[j]
                    break
        if choice != sn.winner:
            if sn.feature >= 0:
                # a tie gone another way: the feature chosen may send the same
                # samples left, and then only the node's own split changes
                spec_record(t, fr.local, &made)
                found = sp.resplit_on(s, ids, marks, choice, node, stats, weight_root, &made,
                                      split, child_stats)
                if found < 0:
                    return -1
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
                    return 1
            snap_put(saved, draw)
            return 2
    if sn.feature >= 0:
        spec_record(t, fr.local, split)
    return 0


cdef bint _ids_room(Worker* w, Py_ssize_t n) noexcept nogil:
    cdef void* grown
    if w.ids_cap >= n:
        return True
    grown = realloc(w.ids, n * sizeof(int))
    if grown == NULL:
        return False
    w.ids, w.ids_cap = <int*> grown, n
    return True


cdef int _grow_afresh_kept(Splitter sp, SpecTree* out, const Limits* lim, Worker* w,
                           const Node* node, const double* stats, double weight_root,
                           bint partitioned) noexcept nogil:
    """``_exact_grow`` of a node, its columns put back afterwards as they were (a
    task replayed again from another draw finds them as the speculative growth
    left them); sorted again first where the speculative growth ``partitioned``
    them below the node. Returns 0, or 1 when memory ran out."""
    cdef Py_ssize_t need = sp.segment_bytes(node.end - node.start)
    cdef void* grown
    cdef int rc
    if w.room_cap < need:
        grown = realloc(w.room, need)
        if grown == NULL:
            return 1
        w.room, w.room_cap = <unsigned char*> grown, need
    sp.copy_segment(w.room, node.start, node.end, True)
    if partitioned and sp.restore_segment(node.start, node.end) < 0:
        return 1
    rc = _exact_grow(sp, out, lim, w, node, stats, weight_root)
    sp.copy_segment(w.room, node.start, node.end, False)
    return rc


cdef int _replay_task(Splitter sp, const SpecTree* spec, SpecTree* out, const Limits* lim,
                      Worker* w, const Node* root, double weight_root) noexcept nogil:
    """Write speculative subtree ``spec`` into ``out`` as the serial grower grows it
    from the worker's draw: each node kept, split in place on another feature, or
    grown afresh (``_choose``), the columns left as they were. Returns 0, or 1
    when memory ran out."""
    cdef Frames fs
    cdef Frame fr
    cdef Node node
    cdef SplitRecord split
    cdef Py_ssize_t j, n_known, S = spec.n_stats
    cdef double* child_stats = <double*> malloc(2 * max(S, 1) * sizeof(double))
    cdef int verdict, rc = 0
    fs.items, fs.top, fs.cap = NULL, 0, 0
    if child_stats == NULL or not frames_push(&fs, 0, -1, False, root.start, root.end,
                                              root.n_constant):
        rc = 1
    while rc == 0 and fs.top > 0:
        fs.top -= 1
        fr = fs.items[fs.top]
        if not _ids_room(w, fr.end - fr.start):
            rc = 1
            break
        verdict = _choose(sp, lim, spec, &fr, &w.draw, w.s, w.ids, w.marks, &w.saved,
                          weight_root, &node, &split, child_stats, &n_known)
        if verdict < 0:
            rc = 1
        elif verdict == 2:
            # grown afresh from its columns as presorted (below it the speculative
            # growth may have partitioned them)
            w.searched += 1
            if fr.end - fr.start > 2:
                rc = _grow_afresh_kept(sp, out, lim, w, &node, spec.stats + fr.local * S,
                                       weight_root, spec.nodes[fr.local].feature >= 0)
            else:
                # (a pair's children are leaves: its columns stay as they are)
                rc = _exact_grow(sp, out, lim, w, &node, spec.stats + fr.local * S,
                                 weight_root)
        else:
            w.resplit += verdict == 1
            j = spec_add(out, &node, spec.stats + fr.local * S)
            if j < 0:
                rc = 1
            elif spec.nodes[fr.local].feature >= 0 and (
                    not spec_set_split(out, j, &split) or
                    not push_children(&fs, spec, &spec.nodes[fr.local], j, &fr, n_known)):
                rc = 1
    free(fs.items)
    free(child_stats)
    return rc


cdef void _predict_draws(Splitter sp, const Limits* lim, const SpecTree* t,
                         Py_ssize_t n_known, Frames* fs) noexcept nogil:
    """Make the draws of speculative tree ``t``'s nodes in pre-order, as if each were
    grown as it was speculatively: the generator's state after the subtree, most
    likely (``_grow_subtrees`` checks it)."""
    cdef const SpecNode* sn
    cdef Node node
    cdef Frame fr
    cdef Py_ssize_t below, j
    fs.top = 0
    if not frames_push(fs, 0, -1, False, 0, t.nodes[0].n, n_known):
        return
    while fs.top > 0:
        fs.top -= 1
        fr = fs.items[fs.top]
        sn = &t.nodes[fr.local]
        init_node(&node, fr.start, fr.end, sn.depth, -1, False, sn.impurity, sn.weight)
        if not grows(lim, &node):
            continue
        for j in range(sn.draws):
            below = draw_by_mask(&sp.draw, fr.n_known, sn.constant)
        if sn.feature >= 0:
            push_children(fs, t, sn, -1, &fr, below)


cdef struct Rounds:
    # the replay's record of each subtree left to a thread (task k)
    DrawSnap* start             # the draw at its root, as predicted
    DrawSnap* predicted         # ... and after it, as predicted
    DrawSnap* actual            # ... and after it, as its thread grew it
    Node* roots                 # its root (its constants known: n_constant)
    bint* done                  # written for good
    bint* met                   # part of the tree (no top node above it grown afresh)
    bint* top_dirty             # by top node: grown afresh (its columns partitioned)
    Py_ssize_t n_tasks
    DrawSnap top_saved          # a top node's draw kept (``_choose``)
    Py_ssize_t* room            # the snapshots' arrays


cdef int _walk_top(Splitter sp, const Limits* lim, const SpecTree* top_tree,
                   SpecTree* trees, SpecTree* outs, Rounds* r, SpecTree* final_top,
                   const DrawSnap* initial, Worker* main, bint serial,
                   double weight_root) noexcept nogil:
    """The serial part of a round: the top's nodes in pre-order with the draws the
    serial grower makes (written into ``final_top``, each task as a leaf whose
    ``task`` names it), each task's draw at its root (exact, if every task before
    it was predicted right) and after it (predicted from its speculative tree, or
    as grown once done), or with ``serial`` each task replayed here, from the
    exact draw; a top node the serial grower grows otherwise is grown afresh in
    ``final_top`` (``main``: the splitter's own scratch and marks), and the tasks
    below it are not met. Returns 0, or 1 when memory ran out."""
    cdef Frames fs, inner
    cdef Frame fr
    cdef Node node
    cdef SplitRecord split
    cdef const SpecNode* sn
    cdef Py_ssize_t j, k, n_known, S = top_tree.n_stats
    cdef double* child_stats = <double*> malloc(2 * max(S, 1) * sizeof(double))
    cdef int verdict, rc = 0
    fs.items, fs.top, fs.cap = NULL, 0, 0
    inner.items, inner.top, inner.cap = NULL, 0, 0
    snap_put(initial, &sp.draw)
    final_top.count, final_top.n_sets = 0, 0
    for k in range(r.n_tasks):
        r.met[k] = False
    if child_stats == NULL or not frames_push(&fs, 0, -1, False, 0, sp.n_samples, 0):
        rc = 1
    while rc == 0 and fs.top > 0:
        fs.top -= 1
        fr = fs.items[fs.top]
        k = top_tree.nodes[fr.local].task
        if k >= 0:
            sn = &top_tree.nodes[fr.local]
            init_node(&r.roots[k], fr.start, fr.end, sn.depth, -1, fr.is_left, sn.impurity,
                      sn.weight)
            r.roots[k].n_constant = fr.n_known
            init_node(&node, fr.start, fr.end, sn.depth, fr.parent, fr.is_left, sn.impurity,
                      sn.weight)
            j = spec_add(final_top, &node, top_tree.stats + fr.local * S)
            if j < 0:
                rc = 1
                break
            final_top.nodes[j].task = k
            r.met[k] = True
            if not r.done[k] and serial:
                snap_take(&r.start[k], &sp.draw)
                rc = _run_task(sp, lim, &trees[k], &outs[k], main, r, k, weight_root)
                r.done[k] = True
                spec_free(&trees[k])
            if r.done[k]:
                snap_put(&r.actual[k], &sp.draw)
            else:
                snap_take(&r.start[k], &sp.draw)
                _predict_draws(sp, lim, &trees[k], fr.n_known, &inner)
                snap_take(&r.predicted[k], &sp.draw)
            continue
        if r.top_dirty[fr.local]:
            # grown afresh in an earlier round: its speculative subtree's columns
            # are gone, so it is grown afresh again, whatever its draw says now
            sn = &top_tree.nodes[fr.local]
            init_node(&node, fr.start, fr.end, sn.depth, fr.parent, fr.is_left, sn.impurity,
                      sn.weight)
            node.n_constant = fr.n_known
            verdict = 2
        else:
            # (the top's nodes are large and few: resplit on the splitter's own scratch)
            verdict = _choose(sp, lim, top_tree, &fr, &sp.draw, &sp.scratch[0],
                              sp.scratch[1].tmp_i, sp.goes_left, &r.top_saved, weight_root,
                              &node, &split, child_stats, &n_known)
        if verdict < 0:
            rc = 1
        elif verdict == 2:
            # grown afresh here, serially, with the generator itself; the tasks
            # below it are not the tree's (not met), and their columns are
            # overwritten: in a later round it is grown afresh again
            if top_tree.nodes[fr.local].feature >= 0 or r.top_dirty[fr.local]:
                if sp.restore_segment(fr.start, fr.end) < 0:
                    rc = 1
                    break
            r.top_dirty[fr.local] = True
            main.searched += 1
            snap_take(&r.top_saved, &sp.draw)
            snap_put(&r.top_saved, &main.draw)
            rc = _exact_grow(sp, final_top, lim, main, &node, top_tree.stats + fr.local * S,
                             weight_root)
            snap_take(&r.top_saved, &main.draw)
            snap_put(&r.top_saved, &sp.draw)
        else:
            j = spec_add(final_top, &node, top_tree.stats + fr.local * S)
            if j < 0:
                rc = 1
            elif top_tree.nodes[fr.local].feature >= 0 and (
                    not spec_set_split(final_top, j, &split) or not push_children(
                        &fs, top_tree, &top_tree.nodes[fr.local], j, &fr, n_known)):
                rc = 1
    free(fs.items)
    free(inner.items)
    free(child_stats)
    return rc


cdef int _write_tree(NodeStore store, const SpecTree* final_top, SpecTree* outs,
                     int n_threads) noexcept nogil:
    """Write the top's nodes and each task's output into ``store`` in pre-order, a
    task's nodes (pre-order themselves) in one block of ids, the blocks on
    ``n_threads`` threads. Returns 0, or 1 when memory ran out."""
    cdef Py_ssize_t i, n = final_top.count, total = 0, n_sets = 0
    cdef Py_ssize_t* ids = <Py_ssize_t*> malloc(2 * max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* sets_at = ids + max(n, 1)
    if ids == NULL:
        return 1
    # each item's first id and first category set: a top node one, a task its block
    for i in range(n):
        ids[i], sets_at[i] = total, n_sets
        if final_top.nodes[i].task < 0:
            total += 1
            n_sets += final_top.nodes[i].cat >= 0
        else:
            total += outs[final_top.nodes[i].task].count
            n_sets += outs[final_top.nodes[i].task].n_sets
    if not store.reserve(total, n_sets):
        free(ids)
        return 1
    for i in prange(n, nogil=True, num_threads=max(1, n_threads), schedule="dynamic"):
        _write_item(store, final_top, outs, ids, sets_at, i)
    store.mark_written(total, n_sets)
    free(ids)
    return 0


cdef void _write_item(NodeStore store, const SpecTree* final_top, SpecTree* outs,
                      const Py_ssize_t* ids, const Py_ssize_t* sets_at,
                      Py_ssize_t i) noexcept nogil:
    """``_write_tree``'s item i: a top node (its children linked here), or a task's
    block (its root linked by its parent's item; its output freed once written)."""
    cdef const SpecNode* sn = &final_top.nodes[i]
    cdef SpecTree* out
    cdef const SpecNode* on
    cdef SplitRecord split
    cdef Py_ssize_t q, S = final_top.n_stats, base = ids[i]
    if sn.task < 0:
        if sn.feature >= 0:
            spec_record(final_top, i, &split)
        store.put(base, -1, False, sn.depth, sn.impurity, sn.n, sn.weight,
                  final_top.stats + i * S, &split if sn.feature >= 0 else NULL, sets_at[i])
        if sn.feature >= 0:
            store.link(base, ids[sn.left], ids[sn.right])
        return
    out = &outs[sn.task]
    for q in range(out.count):
        on = &out.nodes[q]
        if on.feature >= 0:
            spec_record(out, q, &split)
        store.put(base + q, base + on.parent if on.parent >= 0 else -1, on.is_left, on.depth,
                  on.impurity, on.n, on.weight, out.stats + q * S,
                  &split if on.feature >= 0 else NULL,
                  sets_at[i] + on.cat if on.cat >= 0 else -1)
    spec_free(out)


# The speculative growth pays from this much work (samples x features) per thread,
# and hands a thread subtrees of about 1/8 of its share of the samples (``subtree_tuning``:
# tests shrink both to reach it on small data)
cdef Py_ssize_t SUBTREE_WORK = 1 << 18
cdef Py_ssize_t SUBTREE_SHARES = 8
cdef Py_ssize_t SUBTREE_FITS = 0        # fits grown this way, nodes the replay
cdef Py_ssize_t SUBTREE_SEARCHED = 0    # grew afresh, nodes it split on another
cdef Py_ssize_t SUBTREE_RESPLIT = 0     # feature in place, and replays that met a
cdef Py_ssize_t SUBTREE_WRONG = 0        # wrong prediction (tests read them)


def subtree_tuning(Py_ssize_t work=-1, Py_ssize_t shares=-1):
    """Read, or set (values > 0), the speculative growth's thresholds: the least
    work (samples x features) per thread, and the subtrees per thread. Returns the
    previous values, the number of fits grown this way so far, of the nodes their
    replays grew afresh, of those they split on another feature in place, and of
    the replays that met a wrong prediction of their draws."""
    global SUBTREE_WORK, SUBTREE_SHARES
    old = (SUBTREE_WORK, SUBTREE_SHARES, SUBTREE_FITS, SUBTREE_SEARCHED, SUBTREE_RESPLIT,
           SUBTREE_WRONG)
    if work > 0:
        SUBTREE_WORK = work
    if shares > 0:
        SUBTREE_SHARES = shares
    return old


cdef bint _rounds_init(Rounds* r, Py_ssize_t n_tasks, Py_ssize_t n_top,
                       Py_ssize_t d) noexcept nogil:
    """Room for ``n_tasks`` tasks' records (all zero: none done), d features each."""
    cdef Py_ssize_t k, m = max(n_tasks, 1), width = max(d, 1)
    r.n_tasks = n_tasks
    r.start = <DrawSnap*> calloc(m, sizeof(DrawSnap))
    r.predicted = <DrawSnap*> calloc(m, sizeof(DrawSnap))
    r.actual = <DrawSnap*> calloc(m, sizeof(DrawSnap))
    r.roots = <Node*> calloc(m, sizeof(Node))
    r.done = <bint*> calloc(m, sizeof(bint))
    r.met = <bint*> calloc(m, sizeof(bint))
    r.top_dirty = <bint*> calloc(max(n_top, 1), sizeof(bint))
    # every snapshot's two arrays in one block: 3 snapshots a task, and the top's
    r.room = <Py_ssize_t*> malloc((3 * m + 1) * 2 * width * sizeof(Py_ssize_t))
    if r.start == NULL or r.predicted == NULL or r.actual == NULL or r.roots == NULL or \
            r.done == NULL or r.room == NULL or r.met == NULL or r.top_dirty == NULL:
        return False
    for k in range(m):
        r.start[k].features = r.room + (6 * k) * width
        r.start[k].constants = r.room + (6 * k + 1) * width
        r.predicted[k].features = r.room + (6 * k + 2) * width
        r.predicted[k].constants = r.room + (6 * k + 3) * width
        r.actual[k].features = r.room + (6 * k + 4) * width
        r.actual[k].constants = r.room + (6 * k + 5) * width
    r.top_saved.features = r.room + (6 * m) * width
    r.top_saved.constants = r.room + (6 * m + 1) * width
    return True


cdef void _rounds_free(Rounds* r) noexcept nogil:
    free(r.start)
    free(r.predicted)
    free(r.actual)
    free(r.roots)
    free(r.done)
    free(r.met)
    free(r.top_dirty)
    free(r.room)


cdef int _run_task(Splitter sp, const Limits* lim, const SpecTree* spec, SpecTree* out,
                   Worker* w, Rounds* r, Py_ssize_t k, double weight_root) noexcept nogil:
    """Task k replayed from its predicted draw (``r.start[k]``), its draw after it
    kept (``r.actual[k]``)."""
    cdef Node root = r.roots[k]
    cdef int rc
    snap_put(&r.start[k], &w.draw)
    out.count, out.n_sets = 0, 0
    rc = _replay_task(sp, spec, out, lim, w, &root, weight_root)
    snap_take(&r.actual[k], &w.draw)
    return rc


cdef int _replay(Splitter sp, NodeStore store, const Limits* lim, const SpecTree* top_tree,
                 SpecTree* trees, const Tasks* tasks, unsigned long long* marks,
                 Py_ssize_t words, double weight_root, Py_ssize_t* counts) noexcept nogil:
    """Write the speculative trees into ``store`` as the serial grower grows the tree,
    in rounds: the top walked serially (``_walk_top``), then the tasks not yet done
    on threads, each from its predicted draw; a task is done for good when every
    task before it was predicted right (its draw at its root was the serial
    grower's), so each round settles one task at least. ``counts``: nodes grown
    afresh, split in place, and wrong predictions. Returns 0, or 1 when memory
    ran out."""
    cdef int T = sp.n_threads, tid, t, rc = 0
    cdef Py_ssize_t d = sp.n_features, S = sp.n_stats, n_tasks = tasks.count, k, p, n_pending
    cdef Py_ssize_t mispredicted = 0
    # a classifier's tied nodes grown afresh may well grow otherwise than their
    # speculative copies (other children, pure or not): its draws would be
    # mispredicted, so its tasks are replayed in order
    cdef bint serial = sp.is_classifier
    cdef Rounds r
    cdef DrawSnap initial
    cdef SpecTree final_top
    cdef SpecTree* outs = <SpecTree*> calloc(max(n_tasks, 1), sizeof(SpecTree))
    cdef Worker* workers = <Worker*> calloc(T + 1, sizeof(Worker))
    cdef Py_ssize_t* pending = <Py_ssize_t*> malloc(max(n_tasks, 1) * sizeof(Py_ssize_t))
    cdef int* task_rc = <int*> calloc(max(n_tasks, 1), sizeof(int))
    cdef int* stopped = <int*> calloc(1, sizeof(int))     # shared: a task ended mispredicted
    memset(&r, 0, sizeof(Rounds))
    final_top.nodes, final_top.stats, final_top.sets = NULL, NULL, NULL
    initial.features = <Py_ssize_t*> malloc(max(d, 1) * sizeof(Py_ssize_t))
    initial.constants = <Py_ssize_t*> malloc(max(d, 1) * sizeof(Py_ssize_t))
    if outs == NULL or workers == NULL or pending == NULL or task_rc == NULL or stopped == NULL or \
            initial.features == NULL or initial.constants == NULL or \
            not _rounds_init(&r, n_tasks, top_tree.count, d) or not spec_init(&final_top, S):
        rc = 1
    # workers[T]: the walk's, on the splitter's own scratch and marks (and threads)
    for t in range(T + 1):
        if rc == 0 and not worker_init(&workers[t], &sp.draw, &sp.scratch[t % T],
                                       marks + t * words if t < T else sp.goes_left,
                                       1 if t < T else T):
            rc = 1
    for k in range(n_tasks):
        if rc == 0 and not spec_init(&outs[k], S):
            rc = 1
    if rc == 0:
        snap_take(&initial, &sp.draw)
    while rc == 0:
        rc = _walk_top(sp, lim, top_tree, trees, outs, &r, &final_top, &initial, &workers[T],
                       serial, weight_root)
        if rc != 0:
            break
        n_pending = 0
        for k in range(n_tasks):
            if r.met[k] and not r.done[k]:
                pending[n_pending] = k
                n_pending += 1
        if n_pending == 0:
            break
        stopped[0] = 0
        for p in prange(n_pending, num_threads=T, schedule="dynamic"):
            tid = threadid()
            task_rc[pending[p]] = -1        # (not run)
            # a task after a wrong prediction would be replayed again: tasks are
            # handed out in order, so once one ends mispredicted, those not yet
            # begun come after it and wait for the round in order
            if stopped[0] == 0:
                task_rc[pending[p]] = _run_task(sp, lim, &trees[pending[p]],
                                                &outs[pending[p]], &workers[tid], &r,
                                                pending[p], weight_root)
                if not snap_equal(&r.actual[pending[p]], &r.predicted[pending[p]], d):
                    stopped[0] = 1
        for p in range(n_pending):
            rc |= task_rc[pending[p]] > 0
        # done for good: each task up to the first whose draw after it was mispredicted
        for p in range(n_pending):
            k = pending[p]
            if task_rc[k] < 0:
                serial = True
                break
            r.done[k] = True
            spec_free(&trees[k])       # (done for good: never replayed again)
            if not snap_equal(&r.actual[k], &r.predicted[k], d):
                # the rest in order, from exact draws: a prediction gone wrong once
                # is likely to go wrong again
                serial = True
                mispredicted += 1
                break
    if rc == 0:
        rc = _write_tree(store, &final_top, outs, T)
    counts[2] += mispredicted
    if workers != NULL:
        for t in range(T + 1):
            counts[0] += workers[t].searched
            counts[1] += workers[t].resplit
            worker_free(&workers[t])
    if outs != NULL:
        for k in range(n_tasks):
            spec_free(&outs[k])
    spec_free(&final_top)
    _rounds_free(&r)
    free(initial.features)
    free(initial.constants)
    free(outs)
    free(workers)
    free(pending)
    free(task_rc)
    free(stopped)
    return rc


cdef int _grow_subtrees(Splitter sp, NodeStore store, const Limits* lim) except -1:
    """Depth-first growth with subtrees on threads (see the section's comment)."""
    global SUBTREE_FITS, SUBTREE_SEARCHED, SUBTREE_RESPLIT, SUBTREE_WRONG
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
    cdef Py_ssize_t counts[3]
    cdef int rc = 0
    counts[0] = counts[1] = counts[2] = 0
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
            rc = _replay(sp, store, lim, &top_tree, trees, &tasks, marks, words, weight_root,
                         counts)
            sp.finish()
        SUBTREE_FITS += 1
        SUBTREE_SEARCHED += counts[0]
        SUBTREE_RESPLIT += counts[1]
        SUBTREE_WRONG += counts[2]
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
