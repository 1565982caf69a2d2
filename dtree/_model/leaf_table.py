"""A regression forest's leaf values in one table: what its pickle keeps of them.

A regression forest grown to full depth ends mostly in leaves of one training
row, whose value is that row's target, so across its trees the same hundred
thousand numbers recur millions of times. Its pickle keeps each distinct leaf
value once (``leaf_table``) and each tree's leaves as positions in that table
(``table_codes``), each coded as its difference from the previous leaf's: about
two bytes a leaf where its float64 took six or seven. Values are told apart by
their bits (so -0.0 and 0.0, or two NaNs, are never merged), and a tree whose
leaves are not all in the table bit for bit keeps its own.

``TreesWithTable`` stands for a forest's ``estimators_`` in its pickle.
"""
import concurrent.futures

import numpy as np

from .narrow import unzigzag, zigzag


def _leaf_values(tree):
    # a one-output tree's leaf values (float64), or None (a classifier's of
    # several classes; only regressors' leaves are ever kept as positions)
    value = getattr(tree, "value", None)
    left = getattr(tree, "children_left", None)
    if not isinstance(value, np.ndarray) or \
            not isinstance(left, np.ndarray) or value.dtype != np.float64 or \
            value.ndim != 3 or value.shape[1:] != (1, 1) or left.shape[0] != value.shape[0]:
        return None
    return value[left < 0, 0, 0]


def leaf_table(trees):
    """The distinct leaf values of one-output regression trees, ordered by their
    bits (as int64: numbers of one sign in order), or None when some tree is
    not one."""
    leaves = [_leaf_values(tree) for tree in trees]
    if not leaves or any(v is None for v in leaves):
        return None
    return np.unique(np.concatenate(leaves).view(np.int64)).view(np.float64)


def table_codes(leaves, table):
    """A tree's leaf values, shape (n_leaves, 1, 1), as positions in ``table``,
    each the zigzag-coded difference from the previous leaf's (int64); None when
    some value is not in the table bit for bit."""
    bits, keys = leaves.reshape(-1).view(np.int64), table.view(np.int64)
    if leaves.shape[1:] != (1, 1) or keys.shape[0] == 0:
        return None
    at = np.minimum(np.searchsorted(keys, bits), keys.shape[0] - 1)
    if not np.array_equal(keys[at], bits):
        return None
    return zigzag(np.diff(at, prepend=0))


def table_leaves(codes, table, n_leaves):
    """The leaf values, shape (n_leaves, 1, 1), that ``table_codes`` coded."""
    if not (isinstance(table, np.ndarray) and table.dtype == np.float64 and table.ndim == 1):
        raise ValueError("a pickled forest's leaf table is not a float64 vector")
    if codes.shape != (n_leaves,):
        raise ValueError("a pickled tree's leaf positions do not fit its leaves")
    at = np.cumsum(unzigzag(codes))
    if at.size and (at.min() < 0 or at.max() >= table.shape[0]):
        raise ValueError("a pickled tree's leaf positions lie outside its forest's table")
    return table[at].reshape(-1, 1, 1)


class TreesWithTable:
    """A forest's fitted trees (its ``estimators_``) in its pickle, their leaf values in
    one table: pickles as the table and each tree's estimator state, the tree's
    leaves as positions (``Tree._pickled``); unpickles to the list (``trees``).
    The trees are packed and unpacked on ``n_threads`` threads (zlib and numpy's
    larger operations release the GIL)."""

    def __init__(self, estimators, table, n_threads=1):
        self.trees, self.table, self.n_threads = estimators, table, n_threads

    def __reduce__(self):
        def packed(estimator):
            state = estimator.__dict__.copy()
            tree = state.pop("tree_")
            return type(estimator), state, type(tree), tree._pickled(self.table)

        return _unpickled, (self.table, _each(packed, self.trees, self.n_threads))


def _unpickled(table, states):
    def unpacked(entry):
        estimator_type, state, tree_type, tree_state = entry
        tree = tree_type.__new__(tree_type)
        tree._unpickle(tree_state, table)
        estimator = estimator_type.__new__(estimator_type)
        estimator.__dict__.update(state)
        estimator.__dict__["tree_"] = tree
        return estimator

    # (the machine's threads: a pickle does not say the n_jobs it was fitted with)
    from .._plan.machine import n_threads
    return TreesWithTable(_each(unpacked, states, n_threads(None)), table)


def _each(fn, items, n_threads):
    # [fn(item) for item in items], on up to n_threads threads, in order
    threads = min(n_threads, len(items))
    if threads <= 1:
        return [fn(item) for item in items]
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(fn, items))
