"""Where a row goes at a node, for rows in numpy (surrogates included)."""
import numpy as np

from .._route import CATEGORY_SET_WORDS as CAT_WORDS
from .other_splits import SURROGATE

TREE_LEAF = -1


def passes(tree, values, threshold, category_set):
    """Which present ``values`` pass a test (``x <= threshold``, or the code in the
    set's row of ``tree.category_sets``); NaN never passes."""
    if category_set < 0:
        return values <= threshold
    words = tree.category_sets[category_set]
    codes = np.where(np.isnan(values), 0, values).astype(np.int64)
    inside = (codes >= 0) & (codes < 64 * CAT_WORDS)
    codes = np.clip(codes, 0, 64 * CAT_WORDS - 1)
    bits = (words[codes // 64] >> (codes % 64).astype(np.uint64)) & np.uint64(1)
    return inside & (bits == 1) & ~np.isnan(values)


def goes_left(tree, node, X, rows, use_surrogates):
    """For ``rows`` of X at an internal ``node``: whether each goes left.

    A missing primary value follows the first present surrogate when
    ``use_surrogates`` (and the tree keeps them), else ``missing_go_to_left``.
    """
    values = X[rows, tree.feature[node]]
    left = passes(tree, values, tree.threshold[node], tree.categorical_set[node])
    missing = np.isnan(values)
    if not missing.any():
        return left
    undecided = missing.copy()
    other = tree.other_splits
    if use_surrogates and other is not None:
        for k in other.rows(node, SURROGATE):
            if not undecided.any():
                break
            sv = X[rows[undecided], other.feature[k]]
            present = ~np.isnan(sv)
            if other.decided_set[k] >= 0:
                present &= passes(tree, sv, np.nan, other.decided_set[k])
            test = passes(tree, sv, other.threshold[k], other.category_set[k])
            decided = np.flatnonzero(undecided)[present]
            left[decided] = test[present] == bool(other.goes_left[k])
            undecided[decided] = False
    left[undecided] = bool(tree.missing_go_to_left[node])
    return left


def rows_by_node(tree, X, use_surrogates=False):
    """``{node: row indices of X reaching it}`` for every node, routing as ``route``."""
    out = {}
    stack = [(0, np.arange(X.shape[0]))]
    while stack:
        node, rows = stack.pop()
        out[node] = rows
        if tree.children_left[node] == TREE_LEAF:
            continue
        left = goes_left(tree, node, X, rows, use_surrogates)
        stack.append((tree.children_right[node], rows[~left]))
        stack.append((tree.children_left[node], rows[left]))
    return out


def route(tree, X):
    """Leaf id of each row of a dense float32 X, missing primaries routed by surrogates."""
    leaves = np.empty(X.shape[0], dtype=np.intp)
    for node, rows in rows_by_node(tree, X, use_surrogates=True).items():
        if tree.children_left[node] == TREE_LEAF:
            leaves[rows] = node
    return leaves
