"""A forest's prediction: the mean of its trees' leaf values."""
import numpy as np


def forest_leaf_values(trees, X, n_threads=1):
    """The mean over ``trees`` of each row's leaf value, for a validated X: shape
    (n_samples, n_outputs, width), summed in tree order."""
    total = None
    for tree in trees:
        values = tree.leaf_values(X, n_threads)
        if total is None:
            total = np.array(values, dtype=np.float64)
        else:
            total += values
    return total / len(trees)
