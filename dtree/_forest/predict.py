"""A forest's prediction: the mean of its trees' leaf values, in one compiled loop.

The trees' packed nodes, category sets and leaf values are laid end to end
once (``ForestLayout``, derived, dropped from pickles) so that ``_route.
forest_sum`` takes every row through every tree without returning to Python.
Trees the compiled loop does not route (surrogate splits for missing values)
and sparse X go tree by tree.
"""
import numpy as np

from .._input.validation import SparseRows, is_sparse
from .._route import CATEGORY_SET_WORDS as CAT_WORDS
from .._route import PACKED_NODE_DTYPE, forest_sum


class ForestLayout:
    """Every tree's nodes, category sets and values concatenated."""

    def __init__(self, trees):
        self.n_trees = len(trees)
        counts = np.array([t.node_count for t in trees], dtype=np.intp)
        self.roots = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        packed, sets, values, set_base = [], [], [], 0
        for tree in trees:
            p = tree._packed.copy()
            p["cat"] = np.where(p["cat"] >= 0, p["cat"] + set_base, -1)
            packed.append(p)
            sets.append(tree.category_sets.reshape(-1, CAT_WORDS))
            set_base += tree.category_sets.shape[0]
            values.append(tree.value.reshape(tree.node_count, -1))
        self.packed = np.ascontiguousarray(np.concatenate(packed), dtype=PACKED_NODE_DTYPE)
        self.sets = np.ascontiguousarray(np.concatenate(sets), dtype=np.uint64)
        width = max(v.shape[1] for v in values)
        self.values = np.zeros((self.packed.shape[0], width))
        for root, v in zip(self.roots, values):
            self.values[root:root + v.shape[0], :v.shape[1]] = v


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
    total = forest_sum(layout.packed, layout.sets, layout.roots, layout.values, X, n_threads)
    return (total / len(trees)).reshape((X.shape[0],) + shape)
