"""C4.5's pruning, as release 8 does it: collapse, subtree replacement and raising.

The tree is read as C4.5 reads it (``MultiwayView``): a multiway category split,
stored as a cascade of one-category-against-the-rest nodes (``cascade_links``),
is one node with k branches. Then, as in C4.5's ``EstimateErrors``:

- **collapse** (part of C4.5's growth): a node whose subtree makes at least as
  many training errors as the node alone would (less 0.001) becomes a leaf;
- bottom-up, a node's **estimated errors** as a leaf are its errors plus
  C4.5's ``AddErrs`` (the upper limit of a normal-approximation confidence
  interval at ``cf``); its subtree's are the sum over its leaves;
- **subtree replacement**: the node becomes a leaf when that is no worse than
  the subtree (and than its largest branch) with 0.1 of slack;
- **subtree raising** (``raising=True``): else, when the largest branch alone,
  fed every training case of the node (the other branches' cases follow its
  tests, fractional cases included), is no worse than the subtree plus 0.1,
  the branch takes the node's place, its statistics are recomputed from those
  cases, and it is pruned again;
- or **reduced-error pruning** on held-out cases (Weka J48's ``-R``; the tree
  uncollapsed): bottom-up, a node becomes a leaf when it errs on them no more
  than its subtree does.

Weka's J48 (C4.5 release 8 in Java) prunes the same way; it differs only in
``AddErrs``'s constants (its normal deviate comes from the inverse normal, not
C4.5's interpolated table; at the high end it adds ``N - e`` where C4.5 adds
``0.67 (N - e)``).
"""
import functools
import math
import sys

import numpy as np

from .._model.multiway import cascade_links
from .._route import cascade_branches
from .._model.tree import TREE_LEAF, TREE_UNDEFINED, Tree

# C4.5's table of normal deviates by one-sided confidence (Documenta Geigy,
# as C4.5 tabulates it): the deviate for ``cf`` is interpolated linearly
_CONFIDENCES = np.array([0.0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00])
_DEVIATES = np.array([4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00])
SLACK = 0.1           # a subtree must beat its replacement by more than this
COLLAPSE_SLACK = 1e-3  # C4.5's Epsilon when a subtree is no better than its node


# ------------------------------------------------------------ error estimate
def extra_errors(n, e, cf):
    """C4.5's ``AddErrs``: errors to add to ``e`` observed errors among ``n`` cases
    (weighted counts allowed) for the upper limit at confidence ``cf``.

    Parameters
    ----------
    n, e : float
    cf : float in (0, 0.5]

    Returns
    -------
    float
    """
    if n <= 0.0:
        return 0.0
    none = -n * math.expm1(math.log(cf) / n)        # N (1 - cf^(1/N)): no error seen
    if e < 1e-6:
        return none
    if e < 0.9999:                                  # between no error and one
        return none + e * (extra_errors(n, 1.0, cf) - none)
    if e + 0.5 >= n:
        return 0.67 * (n - e)                       # C4.5's rule at the high end
    z2 = _deviate(cf) ** 2
    em = e + 0.5
    upper = (em + z2 / 2 + math.sqrt(z2 * (em * (1 - em / n) + z2 / 4))) / (n + z2)
    return n * upper - e


@functools.lru_cache(maxsize=64)
def _deviate(cf):
    return float(np.interp(cf, _CONFIDENCES, _DEVIATES))


def estimated_errors(total, wrong, cf):
    """Predicted errors of a leaf of ``total`` cases, ``wrong`` of them outside its
    class: C4.5's ``errors + AddErrs``; 0 for an empty leaf."""
    return wrong + extra_errors(total, wrong, cf)


def total_and_wrong(counts):
    """A leaf's cases and the weight outside its majority class, from its class
    weights."""
    total = float(counts.sum())
    return total, (max(total - float(counts.max()), 0.0) if total > 0 else 0.0)


# ------------------------------------------------------------ the view
class _Node:
    """A node of the multiway view: ``links`` its stored nodes (a cascade's, head
    first; one for a binary split or a leaf), ``children`` its branches (None for
    a leaf), ``counts`` the class weights reaching it, ``rows``/``weights`` its
    training cases (fractional ones included), ``changed`` whether its cases
    differ from growth's."""

    __slots__ = ("links", "children", "counts", "total", "wrong", "rows", "weights",
                 "changed")

    def __init__(self, links, children):
        self.links, self.children = links, children
        self.rows = self.weights = self.counts = None
        self.total = self.wrong = 0.0
        self.changed = False

    def set_counts(self, counts):
        """The class weights reaching the node, with their total and the weight
        outside the majority (kept as numbers: the pruning reads them often)."""
        self.counts = counts
        self.total, self.wrong = total_and_wrong(counts)


class MultiwayView:
    """A fitted classification tree read as C4.5's k-way nodes, with its training
    cases routed through it by the tree's one rule (``_route.cascade_branches``), C4.5's
    fractional cases where the tree has them.

    Parameters
    ----------
    tree : Tree
    X : ndarray of shape (n_samples, n_features), float32
        The encoded training X the tree was grown on (read only with ``route``).
    y : ndarray of shape (n_samples,), int
        Class codes.
    weights : ndarray of shape (n_samples,)
        In the tree's weight units (``weight_unit``).
    multiway : bool
        Read cascades as one node (the multiway presets).
    Growth's statistics are all collapse and replacement read; subtree raising
    also needs the training cases at each node (``route_training_cases``).
    """

    def __init__(self, tree, X, y, weights, multiway):
        self.tree, self.X, self.y, self.weights = tree, X, y, weights
        self.K = int(tree.n_classes[0])
        links = cascade_links(tree) if multiway else np.zeros(tree.node_count, dtype=bool)
        self.root = self._read(0, links)
        value = tree.value[:, 0, :self.K] * tree.scaled_weighted_n_node_samples[:, None]
        for node in _post_order(self.root):
            node.set_counts(value[node.links[0]])

    def route_training_cases(self):
        """Give every node its training cases (fractional ones included)."""
        keep = self.weights > 0
        self._assign(self.root, np.flatnonzero(keep), self.weights[keep], changed=False)

    # the stored nodes as k-way ones
    def _read(self, head, links):
        tree = self.tree
        nodes, order, todo = {}, [], [head]
        # iterative: views of deep trees stay within Python's recursion limit
        while todo:
            node = todo.pop()
            if tree.children_left[node] == TREE_LEAF:
                nodes[node] = _Node([node], None)
                order.append(node)
                continue
            chain, branches = [node], []
            link = node
            while True:
                branches.append(tree.children_left[link])
                nxt = tree.children_right[link]
                if links[nxt]:
                    chain.append(nxt)
                    link = nxt
                    continue
                branches.append(nxt)
                break
            nodes[node] = _Node(chain, branches)   # children ids for now
            order.append(node)
            todo.extend(branches)
        for node in reversed(order):
            view = nodes[node]
            if view.children is not None:
                view.children = [nodes[c] for c in view.children]
        return nodes[head]

    # routing
    def branches_of(self, node, rows, X=None):
        """Branch index of each row at a split node (the first link that sends it
        left; the last branch past every link), -1 where its value is missing."""
        return cascade_branches(self.tree._packed, self.tree.category_sets,
                                np.asarray(node.links, dtype=np.intp),
                                self.X if X is None else X, rows)

    def split(self, node, rows, weights, X=None, training_shares=False):
        """The cases of each branch: (rows, weights) per branch. A case missing the
        split's feature goes down every branch, its weight times the branch's share
        of the known weight (C4.5), of these cases' or (``training_shares``) of the
        training cases'; in a tree without fractional cases it goes the way the
        split learnt. ``X``: other rows than the training rows."""
        tree = self.tree
        branch = self.branches_of(node, rows, X)
        k = len(node.children)
        known = branch >= 0
        parts = []
        missing = np.flatnonzero(~known)
        if missing.size and tree.fractional_missing:
            share = np.array([c.counts.sum() for c in node.children]) if training_shares \
                else np.bincount(branch[known], weights=weights[known], minlength=k)
            if share.sum() <= 0:     # no known case here: growth's shares
                share = np.array([tree.scaled_weighted_n_node_samples[c.links[0]]
                                  for c in node.children])
            if share.sum() <= 0:
                share = np.ones(k)
            share = share / share.sum()
        elif missing.size:
            # the side learnt at the first link that sends missing values left
            learnt = k - 1
            for j, link in enumerate(node.links):
                if tree.missing_go_to_left[link]:
                    learnt = j
                    break
            branch = np.where(known, branch, learnt)
            missing = missing[:0]
        # the rows grouped by branch in one sort (stable: each keeps the rows' order)
        order = np.argsort(branch, kind="stable")
        bounds = np.searchsorted(branch[order], np.arange(-1, k + 1))
        for j in range(k):
            mine = order[bounds[j + 1]:bounds[j + 2]]
            r, w = rows[mine], weights[mine]
            if missing.size and share[j] > 0:
                r = np.concatenate([r, rows[missing]])
                w = np.concatenate([w, weights[missing] * share[j]])
            parts.append((r, w))
        return parts

    def counts_of(self, rows, weights):
        return np.bincount(self.y[rows], weights=weights, minlength=self.K)[:self.K]

    def _assign(self, node, rows, weights, changed):
        """Give a subtree new cases (C4.5's ``newDistribution``)."""
        stack = [(node, rows, weights)]
        while stack:
            n, r, w = stack.pop()
            n.rows, n.weights = r, w
            n.changed = changed
            if changed:
                n.set_counts(self.counts_of(r, w))
            if n.children is not None:
                for child, (cr, cw) in zip(n.children, self.split(n, r, w)):
                    stack.append((child, cr, cw))

    # C4.5's steps
    def collapse(self):
        """Turn into leaves the nodes whose subtree makes at least the node's own
        training errors (less 0.001), top-down as C4.5 and J48 do."""
        below = {}
        for node in _post_order(self.root):
            below[id(node)] = (node.wrong if node.children is None else
                               sum(below[id(c)] for c in node.children))
        todo = [self.root]
        while todo:
            node = todo.pop()
            if node.children is None:
                continue
            if below[id(node)] >= node.wrong - COLLAPSE_SLACK:
                node.children = None
            else:
                todo.extend(node.children)

    def prune(self, cf, raising):
        """C4.5's pessimistic pruning of the whole view (see the module)."""
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * self.tree.node_count + 1000))
        try:
            self._prune(self.root, cf, raising)
        finally:
            sys.setrecursionlimit(limit)

    def _prune(self, node, cf, raising):
        """Prune ``node``'s subtree; returns its estimated errors."""
        while True:
            if node.children is None:
                return estimated_errors(node.total, node.wrong, cf)
            tree_errors = sum(self._prune(child, cf, raising) for child in node.children)
            leaf_errors = estimated_errors(node.total, node.wrong, cf)
            largest = _largest(node)
            branch_errors = (self._branch_errors(node.children[largest], node.rows,
                                                 node.weights, cf)
                             if raising else np.inf)
            if leaf_errors <= tree_errors + SLACK and leaf_errors <= branch_errors + SLACK:
                node.children = None
                return leaf_errors
            if branch_errors <= tree_errors + SLACK:
                # the largest branch takes the node's place with all its cases
                raised = node.children[largest]
                node.links, node.children = raised.links, raised.children
                self._assign(node, node.rows, node.weights, changed=True)
                continue
            return tree_errors

    def reduced_error_prune(self, X, y, weights):
        """J48's reduced-error pruning (``-R``) on held-out cases: routed through the
        k-way nodes (a case missing a split's feature shared among its branches by
        the training cases' shares), bottom-up a node becomes a leaf when, as one,
        it errs on them no more than its subtree does."""
        held = {}
        todo = [(self.root, np.arange(X.shape[0]), np.asarray(weights, dtype=np.float64))]
        while todo:
            node, r, w = todo.pop()
            held[id(node)] = np.bincount(y[r], weights=w, minlength=self.K)[:self.K]
            if node.children is not None:
                todo.extend((c, cr, cw) for c, (cr, cw) in
                            zip(node.children, self.split(node, r, w, X, training_shares=True)))
        subtree = {}
        for node in _post_order(self.root):
            counts = held[id(node)]
            as_leaf = float(counts.sum() - counts[int(np.argmax(node.counts))])
            if node.children is None:
                subtree[id(node)] = as_leaf
                continue
            below = sum(subtree[id(c)] for c in node.children)
            if as_leaf <= below + 1e-6:        # J48's "no more than", within its 1e-6
                node.children = None
                below = as_leaf
            subtree[id(node)] = below

    def _branch_errors(self, node, rows, weights, cf):
        """Estimated errors of ``node``'s subtree if it received these cases."""
        total, todo = 0.0, [(node, rows, weights)]
        while todo:
            n, r, w = todo.pop()
            if n.children is None:
                total += estimated_errors(*total_and_wrong(self.counts_of(r, w)), cf)
            else:
                todo.extend((c, cr, cw) for c, (cr, cw) in zip(n.children, self.split(n, r, w)))
        return total

    # back to stored nodes
    def to_tree(self, impurity):
        """The pruned tree as flat arrays (pre-order, left first). Nodes whose cases
        changed get statistics from them (``impurity(counts)`` per node); the
        others keep growth's. A k-way split is stored as its cascade again."""
        rows = []     # [source node, counts or None, cases or None, left, right, depth]
        todo = [(self.root, 0, -1, True, 0)]
        while todo:
            node, j, parent, is_left, depth = todo.pop()
            changed = node.changed
            if node.children is None:
                self._emit(rows, node.links[0], node.counts if changed else None,
                           node.rows.shape[0] if changed else None, parent, is_left, depth)
                continue
            k = len(node.children)
            counts = sum(c.counts for c in node.children[j:]) if changed else None
            cases = None
            if changed:     # the node's cases that reach link j: branch >= j, or missing
                branch = self.branches_of(node, node.rows)
                cases = int(np.count_nonzero((branch >= j) | (branch < 0)))
            slot = self._emit(rows, node.links[j], counts, cases, parent, is_left, depth)
            # pushed right first: the left branch is emitted (pre-order) before the rest
            if j < k - 2:
                todo.append((node, j + 1, slot, False, depth + 1))
            else:
                todo.append((node.children[k - 1], 0, slot, False, depth + 1))
            todo.append((node.children[j], 0, slot, True, depth + 1))
        return self._arrays(rows, impurity)

    @staticmethod
    def _emit(rows, source, counts, cases, parent, is_left, depth):
        rows.append([source, counts, cases, TREE_LEAF, TREE_LEAF, depth])
        slot = len(rows) - 1
        if parent >= 0:
            rows[parent][3 if is_left else 4] = slot
        return slot

    def _arrays(self, rows, impurity):
        tree = self.tree
        m = len(rows)
        source = np.array([r[0] for r in rows], dtype=np.intp)
        left = np.array([r[3] for r in rows], dtype=np.intp)
        right = np.array([r[4] for r in rows], dtype=np.intp)
        depth = np.array([r[5] for r in rows], dtype=np.intp)
        is_leaf = left == TREE_LEAF
        parent = np.full(m, -1, dtype=np.intp)
        parent[left[~is_leaf]] = np.flatnonzero(~is_leaf)
        parent[right[~is_leaf]] = np.flatnonzero(~is_leaf)
        value = tree.value[source].copy()
        w = tree.scaled_weighted_n_node_samples[source].copy()
        imp = tree.scaled_impurity[source].copy()
        n_samples = tree.n_node_samples[source].copy()
        changed = False
        for i, r in enumerate(rows):          # parents come before children
            if r[1] is None:
                continue
            changed = True
            counts = np.asarray(r[1], dtype=np.float64)
            total = float(counts.sum())
            w[i], n_samples[i], imp[i] = total, r[2], impurity(counts)
            value[i] = 0.0
            if total > 0:
                value[i, 0, :self.K] = counts / total
            else:   # an empty branch predicts its parent's classes, as C4.5's do
                value[i] = value[parent[i]] if parent[i] >= 0 else tree.value[0]
        return Tree(children_left=left, children_right=right,
                    feature=np.where(is_leaf, TREE_UNDEFINED, tree.feature[source]),
                    threshold=np.where(is_leaf, float(TREE_UNDEFINED), tree.threshold[source]),
                    value=value, impurity=imp, impurity_exponent=tree.impurity_exponent,
                    n_node_samples=n_samples, weighted_n_node_samples=w,
                    weight_unit=tree.weight_unit, node_depth=depth,
                    n_features=tree.n_features, n_classes=tree.n_classes,
                    missing_go_to_left=np.where(is_leaf, 0, tree.missing_go_to_left[source]),
                    categorical_set=np.where(is_leaf, -1, tree.categorical_set[source]),
                    category_sets=tree.category_sets,
                    fractional_missing=tree.fractional_missing,
                    feature_range=(None if changed or tree.feature_range is None else
                                   np.where(is_leaf[:, None], np.nan,
                                            tree.feature_range[source])))


def _post_order(root):
    order, todo = [], [root]
    while todo:
        node = todo.pop()
        order.append(node)
        if node.children is not None:
            todo.extend(node.children)
    return order[::-1]


def _largest(node):
    """The branch with the most cases (the last of equals, as C4.5 scans)."""
    weights = [c.total for c in node.children]
    best = 0
    for j, w in enumerate(weights):
        if w >= weights[best]:
            best = j
    return best


def c45_pruned(tree, X, y, weights, *, cf, pruning, raising, multiway, collapse,
               impurity, held_out=None):
    """A tree collapsed (``collapse``: C4.5's growth does) and, for ``pruning=True``,
    pruned as C4.5 does.

    Parameters
    ----------
    tree : Tree
        A classification tree of one output.
    X, y, weights
        Its training data: encoded X (float32), class codes, weights in the tree's
        units.
    cf : float
        Confidence factor.
    pruning : bool
        Prune (else only collapse, as J48's unpruned trees are).
    raising : bool
        Subtree raising as well as replacement.
    multiway : bool
        The tree's cascades are k-way splits.
    collapse : bool
        Collapse first.
    held_out : (X, y, weights) or None
        With ``pruning``, prune by these held-out cases (J48's reduced-error
        pruning) instead of C4.5's estimate.
    impurity : callable
        A node's impurity from its class counts (for nodes whose cases change).

    Returns
    -------
    Tree
    """
    view = MultiwayView(tree, X, y, weights, multiway)
    if collapse:
        view.collapse()
    if pruning and raising and held_out is None:
        view.route_training_cases()       # after collapse: through what is left
    if pruning and held_out is not None:
        view.reduced_error_prune(*held_out)
    elif pruning:
        view.prune(cf, raising)
    return view.to_tree(impurity)
