"""A forest's prediction: the mean of its trees' leaf values, in one compiled loop.

The trees' nodes, category sets and leaf values are laid end to end once
(``ForestLayout``, derived, dropped from pickles) so that ``_route.forest_sum``
takes every row through every tree without returning to Python. Numeric trees
are laid out as their complete tops and 16-byte slim nodes below them (half the
cache a packed node takes: a forest's trees are deep).
Trees the compiled loop does not route (surrogate splits for missing values)
and sparse X go tree by tree.
"""
import numpy as np

from .._input.validation import SparseRows, is_sparse
from .._route import CATEGORY_SET_WORDS as CAT_WORDS
from .._route import (PACKED_NODE_DTYPE, SLIM_FEATURES, SLIM_NODE_DTYPE, deeper_than_top,
                      forest_sum, pack_top, pack_tree_into)


class ForestLayout:
    """Every tree's nodes, category sets and values concatenated."""

    def __init__(self, trees):
        self.n_trees = len(trees)
        counts = np.array([t.node_count for t in trees], dtype=np.intp)
        self.roots = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        numeric = all(t.category_sets.shape[0] == 0 and t.n_features <= SLIM_FEATURES
                      for t in trees)
        self.packed = np.empty(int(counts.sum()),
                               dtype=SLIM_NODE_DTYPE if numeric else PACKED_NODE_DTYPE)
        set_base = 0
        for tree, root in zip(trees, self.roots):
            pack_tree_into(self.packed, int(root), _intp(tree.children_left),
                           _intp(tree.children_right), _intp(tree.feature),
                           np.ascontiguousarray(tree.threshold, dtype=np.float64),
                           np.ascontiguousarray(tree.missing_go_to_left, dtype=np.uint8),
                           _intp(tree.categorical_set), set_base)
            set_base += tree.category_sets.shape[0]
        self.sets = np.ascontiguousarray(
            np.concatenate([t.category_sets.reshape(-1, CAT_WORDS) for t in trees]),
            dtype=np.uint64)
        self.values = np.ascontiguousarray(np.concatenate(
            [t.value.reshape(t.node_count, -1) for t in trees]), dtype=np.float64)
        self.tops = None
        if numeric:
            self.tops = _concatenated_tops(self.packed, self.roots, counts, trees)


def _concatenated_tops(packed, roots, counts, trees):
    """Every tree's ``pack_top`` end to end, with where each starts (None when a
    feature index does not fit a top's record)."""
    tops = [pack_top(packed[root:root + count], tree.max_depth, tree.n_features)
            for root, count, tree in zip(roots, counts, trees)]
    if any(top is None for top in tops):
        return None
    starts = [np.concatenate([[0], np.cumsum([len(part) for part in parts])]).astype(np.intp)
              for parts in zip(*tops)]
    deeper = np.array([deeper_than_top(packed[root:root + count], exits)
                       for root, count, (_, exits) in zip(roots, counts, tops)], dtype=np.uint8)
    return (np.concatenate([top for top, _ in tops]), starts[0],
            np.concatenate([exits for _, exits in tops]), starts[1], deeper)


def _intp(a):
    return np.ascontiguousarray(a, dtype=np.intp)


def forest_leaf_values(trees, X, n_threads=1, layout=None):
    """The mean over ``trees`` of each row's leaf value, for a validated X: shape
    (n_samples, n_outputs, width), summed in tree order."""
    shape = trees[0].value.shape[1:]
    if layout is None or is_sparse(X) or isinstance(X, SparseRows) or any(
            t.surrogate_missing or t.fractional_missing for t in trees):
        total = None
        for tree in trees:
            values = tree.leaf_values(X, n_threads)
            total = np.array(values, dtype=np.float64) if total is None else total + values
        return total / len(trees)
    if layout.packed.dtype == SLIM_NODE_DTYPE:
        X = np.ascontiguousarray(X)     # the slim walk reads rows in place
    total = forest_sum(layout.packed, layout.sets, layout.roots, layout.values, X, n_threads,
                       layout.tops)
    return (total / len(trees)).reshape((X.shape[0],) + shape)
