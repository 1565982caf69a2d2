"""rpart's node numbers: the root is 1 and node k's children are 2k and 2k + 1.

``tree_`` numbers its nodes in pre-order (scikit-learn's ids); rpart's numbers
say where a node sits whatever the rest of the tree, so an R user's ``snip``
ids and printed numbers carry over. rpart's left son (2k) is the child with the
smaller mean response: the smaller mean target, or for a classifier the smaller
mean class index (sum of k times the fraction of class k), as rpart's splitting
code orders a split's sides; on a tie the right side goes first, as there. The
numbers are Python ints: a path deeper than 62 levels outgrows int64 (rpart
itself stops at depth 30).
"""
import numpy as np

from .tree import TREE_LEAF


def rpart_sides(tree):
    """By node id: True where rpart's left son is ``tree_``'s left child."""
    if tree.is_classifier:
        fractions = tree.value[:, 0, :int(tree.n_classes[0])]
        mean = fractions @ np.arange(fractions.shape[1], dtype=np.float64)
    else:
        mean = tree.value[:, 0, 0]
    left, right = tree.children_left, tree.children_right
    inner = left != TREE_LEAF
    out = np.zeros(tree.node_count, dtype=bool)
    out[inner] = mean[left[inner]] < mean[right[inner]]
    return out


def rpart_children(tree, node, sides):
    """(rpart's left son, right son) of a split node, as node ids."""
    left, right = int(tree.children_left[node]), int(tree.children_right[node])
    return (left, right) if sides[node] else (right, left)


def rpart_numbers(tree):
    """rpart's number of each node of ``tree``, by node id (a list of ints)."""
    numbers = [0] * tree.node_count
    numbers[0] = 1
    sides = rpart_sides(tree)
    for node in range(tree.node_count):     # pre-order: a parent comes first
        if tree.children_left[node] != TREE_LEAF:
            first, second = rpart_children(tree, node, sides)
            numbers[first] = 2 * numbers[node]
            numbers[second] = 2 * numbers[node] + 1
    return numbers


def node_ids_of(tree, numbers):
    """The node ids of rpart's ``numbers`` (a ValueError names those the tree lacks)."""
    where = {k: node for node, k in enumerate(rpart_numbers(tree))}
    try:
        wanted = [int(k) for k in numbers]
    except (TypeError, ValueError):
        raise ValueError(f"rpart node numbers are whole numbers; got {numbers!r:.60}") from None
    missing = [k for k in wanted if k not in where]
    if missing:
        raise ValueError(f"this tree has no rpart node {missing[0]} (its nodes: "
                         f"{sorted(where)[:12]}{' ...' if len(where) > 12 else ''})")
    return [where[k] for k in wanted]
