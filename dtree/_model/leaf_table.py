"""A regression forest's leaf values in one table: what its pickle keeps of them.

A regression forest grown to full depth ends mostly in leaves of one training
row, whose value is that row's target, so across its trees the same hundred
thousand numbers recur millions of times. Its pickle keeps each distinct leaf
value once (``leaf_table``) and each tree's leaves as positions in that table
(``table_codes``), each coded as its difference from the previous leaf's: about
two bytes a leaf where its float64 took six or seven. Values are told apart by
their bits (-0.0 and 0.0, or NaNs of other payloads, stay apart), and a tree
whose leaves are not all in the table bit for bit keeps its own.

The table travels in each tree's pickled state as one shared ``LeafTable``,
which a pickler stores once for the whole stream (pickle's memo, joblib's
too), so the forest's estimators pickle as ever: the forest hands the table to
its trees as it is pickled (``offer_table``), and a tree takes it for that one
pickling.
"""
import zlib

import numpy as np

from .narrow import byte_planes, from_byte_planes, unzigzag, zigzag


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


# a tree's attribute holding the table its forest offered for the next pickling
OFFERED = "_offered_leaf_table"


class LeafTable:
    """A forest's table of leaf values (``values``, float64) as its trees' pickled
    states share it: one object, stored once per pickle, its numbers as
    compressed byte planes."""

    def __init__(self, values):
        self.values = values

    def __reduce__(self):
        packed = zlib.compress(byte_planes(self.values).tobytes(), 1)
        # (the byte order goes with the bytes: a pickle may move between machines)
        return _unpacked_table, (packed, int(self.values.shape[0]), self.values.dtype.str)


def _unpacked_table(packed, n, dtype="<f8"):
    raw = zlib.decompress(packed)
    if type(n) is not int or n < 0 or len(raw) != 8 * n or dtype not in ("<f8", ">f8"):
        raise ValueError("a pickled leaf table does not fit its length")
    values = from_byte_planes(np.frombuffer(raw, dtype=np.uint8).reshape(8, n), dtype)
    return LeafTable(values.astype(np.float64))


def offer_table(trees):
    """Offer a forest's trees (``Tree`` objects) their table of leaf values for their
    next pickling (nothing when they hold no one-output regressor's leaves)."""
    table = leaf_table(trees)
    if table is not None:
        shared = LeafTable(table)
        for tree in trees:
            tree.__dict__[OFFERED] = shared
