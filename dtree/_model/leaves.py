"""Honest leaves: how much data a prediction rests on, how sure it is, and whether
the row lies inside what the tree saw.

* ``feature_ranges``: each split node's training range (min, max) of its own
  numeric feature, recorded at fit; ``outside_training_range`` flags rows whose
  value at some node on their path falls outside it (exact: the same rows the
  node split, compared in float32 as the tree compares).
* ``LeafTargets``: a regressor's training targets (and weights) by leaf, kept
  with ``keep_leaf_targets=True``; ``predict_interval`` reads its weighted
  quantiles.
* ``wilson_interval``: the Wilson score interval of a leaf's class fraction.
"""
import math

import numpy as np

from .._route import decision_paths, split_ranges
from .tree import TREE_LEAF

_CHUNK = 1 << 16        # rows per block: paths of a block are held at once


def _path_entries(tree, X, rows, leaves):
    """(row, node) of every split node on each of ``rows``' paths."""
    indptr, nodes = decision_paths(tree._parents, tree.node_depth, leaves[rows])
    owner = np.repeat(rows, np.diff(indptr))
    inner = tree.children_left[nodes] != TREE_LEAF
    return owner[inner], nodes[inner]


def _values(X, rows, features):
    """X[rows[k], features[k]] of a dense X, a scipy sparse X or ``SparseRows`` (CSR
    with sorted columns: a row's stored entries found by one sorted search)."""
    if isinstance(X, np.ndarray):
        return np.asarray(X[rows, features], dtype=np.float32)
    if hasattr(X, "tocsr"):
        X = X.tocsr()
        X.sort_indices()
    d = np.int64(X.shape[1])
    stored = np.repeat(np.arange(X.shape[0], dtype=np.int64), np.diff(X.indptr)) * d \
        + np.asarray(X.indices, dtype=np.int64)
    wanted = rows.astype(np.int64) * d + features
    pos = np.minimum(np.searchsorted(stored, wanted), max(stored.shape[0] - 1, 0))
    if stored.shape[0] == 0:
        return np.zeros(wanted.shape[0], dtype=np.float32)
    return np.where(stored[pos] == wanted, np.asarray(X.data)[pos], 0).astype(np.float32)


def feature_ranges(tree, X, leaves, n_threads=1):
    """``(node_count, 2)``: min and max of each numeric split node's feature over its
    training rows (X routed to ``leaves``); NaN for leaves and category splits."""
    if isinstance(X, np.ndarray):    # one pass in C; sparse X gathers its paths' values
        low, high = split_ranges(tree._packed, tree.category_sets, X, n_threads)
        # (the packed nodes are rebuilt by the first predict: a fit's peak memory
        # need not hold them beside the ranges)
        tree.forget_routing()
    else:
        low, high = _sparse_ranges(tree, X, leaves)
    out = np.empty((low.shape[0], 2))
    out[:, 0] = low
    out[:, 1] = high
    unused = (tree.children_left == TREE_LEAF) | (tree.categorical_set >= 0) | (low > high)
    del low, high
    out[unused] = np.nan
    return out


def _sparse_ranges(tree, X, leaves):
    low = np.full(tree.node_count, np.inf)
    high = np.full(tree.node_count, -np.inf)
    for start in range(0, X.shape[0], _CHUNK):
        rows = np.arange(start, min(start + _CHUNK, X.shape[0]))
        owner, nodes = _path_entries(tree, X, rows, leaves)
        vals = _values(X, owner, tree.feature[nodes]).astype(np.float64)
        np.fmin.at(low, nodes, vals)          # fmin/fmax skip missing values
        np.fmax.at(high, nodes, vals)
    return low, high


def outside_range(tree, X, leaves):
    """Whether each row meets, on its path, a split node whose training range of its
    feature the row's (present) value lies outside."""
    ranges = tree.feature_range
    flagged = np.zeros(X.shape[0], dtype=bool)
    for start in range(0, X.shape[0], _CHUNK):
        rows = np.arange(start, min(start + _CHUNK, X.shape[0]))
        owner, nodes = _path_entries(tree, X, rows, leaves)
        vals = _values(X, owner, tree.feature[nodes]).astype(np.float64)
        low, high = ranges[nodes, 0], ranges[nodes, 1]
        with np.errstate(invalid="ignore"):
            out = (vals < low) | (vals > high)      # NaN (missing, or no range): False
        flagged[owner[out]] = True
    return flagged


# ------------------------------------------------------------ intervals
def normal_quantile(q):
    """The standard normal's q-quantile (bisection on erfc: exact to double precision)."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"a quantile level must lie in (0, 1); got {q!r}")
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if 0.5 * math.erfc(-mid / math.sqrt(2.0)) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * max(1.0, abs(mid)):
            break
    return (lo + hi) / 2.0


def check_confidence(confidence):
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)) \
            or not 0.0 < confidence < 1.0:    # (compared exactly: an int may pass float64)
        raise ValueError(f"confidence must be a number in (0, 1); got {confidence!r}")
    confidence = float(confidence)
    if not (1.0 - confidence) / 2.0 > 0.0 or not (1.0 + confidence) / 2.0 < 1.0:
        # the interval's end quantiles round to 0 or 1: an interval with no end
        raise ValueError(f"confidence={confidence!r} is too close to 1: the interval's "
                         "quantile levels (1 - confidence) / 2 and (1 + confidence) / 2 "
                         "round to 0 or 1 in float64")
    return confidence


def wilson_interval(p, n, confidence):
    """Wilson score interval of a proportion ``p`` seen in ``n`` samples (arrays)."""
    z = normal_quantile(0.5 + confidence / 2.0)
    n = np.asarray(n, dtype=np.float64)
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * np.sqrt(np.maximum(p * (1.0 - p) / n + z2n / (4.0 * n), 0.0))
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


class LeafTargets:
    """A regressor's training targets grouped by leaf: ``node`` (sorted), ``y``
    (rows, n_outputs) and ``w``, each leaf's rows in target order per output."""

    def __init__(self, node, y, w):
        self.node = np.asarray(node, dtype=np.intp)
        self.y = np.asarray(y, dtype=np.float64).reshape(self.node.shape[0], -1)
        self.w = np.asarray(w, dtype=np.float64)

    @classmethod
    def from_rows(cls, leaves, y, w):
        order = np.argsort(leaves, kind="stable")
        return cls(leaves[order], np.asarray(y, dtype=np.float64)[order], w[order])

    def __len__(self):
        return int(self.node.shape[0])

    def regrouped(self, tree, leaves, new_id):
        """The rows under the leaves of ``tree.subtree(leaves)`` (``new_id``: old node
        -> new id, -1 for nodes dropped)."""
        return LeafTargets.from_rows(subtree_owner(tree, leaves, new_id)[self.node], self.y,
                                     self.w)

    def quantiles(self, levels):
        """``(node -> index, values)``: per leaf and output, the weighted quantile at
        each level (the smallest target whose cumulative weight reaches level x
        the leaf's weight: numpy's "inverted_cdf" for unit weights)."""
        leaves, starts = np.unique(self.node, return_index=True)
        ends = np.r_[starts[1:], len(self)]
        out = np.empty((leaves.shape[0], self.y.shape[1], len(levels)))
        for i, (a, b) in enumerate(zip(starts, ends)):
            for k in range(self.y.shape[1]):
                order = np.argsort(self.y[a:b, k], kind="stable")
                ys, cw = self.y[a:b, k][order], np.cumsum(self.w[a:b][order])
                for j, level in enumerate(levels):
                    # a relative slack: the total of a float sum may miss level * total
                    pos = np.searchsorted(cw, level * cw[-1] * (1 - 1e-12), side="left")
                    out[i, k, j] = ys[min(pos, b - a - 1)]
        return leaves, out


def subtree_owner(tree, leaves, new_id):
    """For every old node, the new leaf id whose subtree holds it after ``subtree``."""
    owner = np.where(leaves & (new_id >= 0), new_id, TREE_LEAF)
    parents = tree._parents
    for depth in range(1, tree.max_depth + 1):
        at = np.flatnonzero((tree.node_depth == depth) & (owner == TREE_LEAF))
        owner[at] = owner[parents[at]]
    return owner
