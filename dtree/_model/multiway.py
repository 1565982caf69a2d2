"""C4.5's reading of the stored nodes: a multiway category split is one node.

ID3 and C4.5 (the ``multiway`` presets) split a categorical feature into one
branch per category, stored as a cascade of one-category-against-the-rest nodes
whose last "rest" child is the last branch (``cascade_links``). Read as C4.5
reads it, the cascade is one node with k branches, and C4.5 (like Weka's J48)
has a branch, possibly an empty leaf, for every category of the feature;
the stored tree gives no node to a category without cases at the split (it goes
down the last branch). ``kway_shape`` counts levels and leaves that way.
"""
import numpy as np

from .tree import TREE_LEAF


def cascade_links(tree):
    """Mask of the nodes that continue a multiway split's cascade: a category node
    that is the "rest" (right) child of a category node on the same feature. (A
    multiway split uses up its feature on every path below it, so in a multiway
    tree only a cascade tests it again at once.)"""
    left, right = tree.children_left, tree.children_right
    split = (left != TREE_LEAF) & (tree.categorical_set >= 0)
    parents = np.flatnonzero(split)
    links = np.zeros(tree.node_count, dtype=bool)
    rest = right[parents]
    links[rest[split[rest] & (tree.feature[rest] == tree.feature[parents])]] = True
    return links


def kway_shape(tree, n_categories):
    """Depth, leaves and size of the tree read as C4.5's k-way tree.

    Parameters
    ----------
    tree : Tree
    n_categories : sequence of int
        Categories of each feature (0 for numeric ones).

    Returns
    -------
    depth : int
        Levels below the root: a cascade counts as one.
    leaves : int
        C4.5's leaves: the stored leaves, and one empty leaf for each category
        of a multiway split's feature that none of its branches names.
    size : int
        C4.5's nodes (J48's "Size of the tree"): its splits and its leaves.
    """
    links = cascade_links(tree)
    left, right = tree.children_left, tree.children_right
    depth = np.zeros(tree.node_count, dtype=np.intp)
    leaves = splits = 0
    for node in range(tree.node_count):       # pre-order: parents come first
        if left[node] == TREE_LEAF:
            leaves += 1
            continue
        if not links[node]:
            splits += 1
            if tree.categorical_set[node] >= 0:
                # named branches: one per link, and the last one ("rest")
                chain = 1
                link = right[node]
                while links[link]:
                    chain += 1
                    link = right[link]
                leaves += max(int(n_categories[tree.feature[node]]) - chain - 1, 0)
        # a link sits at its head's level; its branches one below
        level = depth[node]
        depth[left[node]] = level + 1
        depth[right[node]] = level if links[right[node]] else level + 1
    return int(depth.max(initial=0)), leaves, leaves + splits
