"""Editing a fitted tree by hand: which nodes become leaves.

``snip_leaves`` (rpart's ``snip.rpart``: the given nodes' subtrees removed) and
``merged_leaves`` (sibling leaves that predict the same merged into their
parent, bottom up, as long as no prediction changes) return the boolean mask
``Tree.subtree`` takes.
"""

import numpy as np

from .tree import TREE_LEAF


def snip_leaves(tree, nodes):
    """The mask turning ``nodes`` (node ids of ``tree``) into leaves."""
    ids = np.asarray(nodes).ravel()
    if ids.size and (ids.dtype.kind not in "iu" or ids.min() < 0
                     or ids.max() >= tree.node_count):
        bad = [v for v in ids.tolist()
               if not (isinstance(v, int) and 0 <= v < tree.node_count)]
        raise ValueError(f"snip takes node ids of this tree (0 to {tree.node_count - 1}); "
                         f"got {bad[:5]!r}")
    leaves = np.zeros(tree.node_count, dtype=bool)
    leaves[ids.astype(np.intp)] = True
    return leaves


def merged_leaves(tree):
    """The mask of the nodes whose whole subtree predicts one thing, so that merging
    it into a leaf changes no prediction.

    A node qualifies when both children qualify (or are leaves) and predict what
    the node itself predicts: the same class of each output (the first most
    probable, as ``predict`` picks), or exactly the same value. Children are
    numbered after their parents, so one pass from the last node up decides.
    """
    n = tree.node_count
    value = tree.value
    if tree.is_classifier:
        prediction = np.argmax(value, axis=2)              # (n, n_outputs)
    else:
        prediction = value[:, :, 0]
    merged = tree.children_left == TREE_LEAF
    for node in range(n - 1, -1, -1):
        if merged[node]:
            continue
        left, right = tree.children_left[node], tree.children_right[node]
        merged[node] = (merged[left] and merged[right]
                        and np.array_equal(prediction[left], prediction[node])
                        and np.array_equal(prediction[right], prediction[node]))
    return merged
